//! Making moves by copy-make: the position after a move (with or without the Zobrist key,
//! checkers and pins kept up to date), null moves, and what a move captures or checks.

use super::{
    back_rank, checkers_and_pins, role_at, IllegalMove, MAX_FULLMOVE_NUMBER, MAX_HALFMOVE_CLOCK,
};
use crate::{
    attacks::pawn_attacks, zobrist, Bitboard, Color, Move, MoveKind, Position, Role, Square,
};

impl Position {
    /// Plays a move that must be legal in this position (as produced by move generation).
    /// Playing an illegal move leaves the position in an unspecified (but memory-safe) state;
    /// use [`Position::play`] for moves from outside.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        *self = self.make(mv);
    }

    /// The position after a legal move (copy-make).
    #[inline]
    pub fn after(&self, mv: Move) -> Position {
        self.make(mv)
    }

    /// Builds the position after `mv` field by field (rather than copying and patching), so
    /// that the new position is written once.
    #[inline(always)]
    fn make(&self, mv: Move) -> Position {
        // One copy per side to move, so that colour-dependent masks are constants.
        match self.turn {
            Color::White => self.make_as::<true, true>(Color::White, mv, None),
            Color::Black => self.make_as::<true, true>(Color::Black, mv, None),
        }
    }

    /// The position after a legal move, without updating the Zobrist key (the `hash` field is
    /// left meaningless). For counting only, where no key is read: plain bulk and statistics
    /// perft, which never hash, compare or hand out the positions they make.
    #[inline(always)]
    pub(crate) fn after_unhashed(&self, mv: Move) -> Position {
        match self.turn {
            Color::White => self.make_as::<false, true>(Color::White, mv, None),
            Color::Black => self.make_as::<false, true>(Color::Black, mv, None),
        }
    }

    /// [`Position::after_unhashed`] for a plain move (neither castling, en passant nor a
    /// promotion) of the `role` on `from`, as move generation hands them out in groups: the
    /// moving piece need not be looked up.
    #[inline(always)]
    pub(crate) fn after_plain_unhashed(&self, role: Role, from: Square, to: Square) -> Position {
        let mv = Move::normal(from, to);
        match self.turn {
            Color::White => self.make_as::<false, true>(Color::White, mv, Some(role)),
            Color::Black => self.make_as::<false, true>(Color::Black, mv, Some(role)),
        }
    }

    /// The pieces after a legal plain move of a `role` (not castling, en passant or a
    /// promotion), the side to move and the castling rights then; no key, checkers, pins or
    /// en-passant square (see [`Position::board_after`]).
    #[inline(always)]
    pub(crate) fn board_after_plain(&self, role: Role, from: Square, to: Square) -> Position {
        let mv = Move::normal(from, to);
        match self.turn {
            Color::White => self.make_as::<false, false>(Color::White, mv, Some(role)),
            Color::Black => self.make_as::<false, false>(Color::Black, mv, Some(role)),
        }
    }

    /// The pieces after a legal move, and the side to move then; nothing else is kept up to
    /// date (no key, no checkers or pins, no en-passant square). For questions about the board
    /// alone, such as whether a square is attacked.
    #[inline(always)]
    pub(crate) fn board_after(&self, mv: Move) -> Position {
        match self.turn {
            Color::White => self.make_as::<false, false>(Color::White, mv, None),
            Color::Black => self.make_as::<false, false>(Color::Black, mv, None),
        }
    }

    /// Builds the position after `mv`; `HASH` says whether the Zobrist key is updated, `FULL`
    /// whether checkers, pins and the en-passant square are (see [`Position::board_after`]),
    /// and `mover` is the moving piece's role when the caller knows it (plain moves only).
    #[inline(always)]
    fn make_as<const HASH: bool, const FULL: bool>(
        &self,
        us: Color,
        mv: Move,
        mover: Option<Role>,
    ) -> Position {
        let them = !us;
        let from = mv.from();
        let to = mv.to();
        let from_bb = Bitboard::from_square(from);
        let to_bb = Bitboard::from_square(to);
        let mut hash = 0;
        if HASH {
            hash = self.hash ^ zobrist::turn_key();
            if let Some(ep) = self.ep_square {
                hash ^= zobrist::en_passant_key(ep);
            }
        }
        // Both clocks stop at the largest values a FEN may give (see `MAX_HALFMOVE_CLOCK`).
        let mut halfmoves = (self.halfmoves + 1).min(MAX_HALFMOVE_CLOCK);
        let mut castling = self.castling;
        let mut ep_candidate = None;

        // The new piece sets (toggled with constant indices, so that they stay in registers),
        // and the squares that change for the mover and for the opponent.
        let mut by_role = self.by_role;
        let (ours_delta, theirs_delta) = match mv.kind() {
            MoveKind::Castle => {
                let king_to = mv.king_destination();
                let rook_to = mv.rook_destination().unwrap_or(to);
                let king_bb = from_bb ^ Bitboard::from_square(king_to);
                let rook_bb = to_bb ^ Bitboard::from_square(rook_to);
                if HASH {
                    hash ^= zobrist::piece_key(us, Role::King, from)
                        ^ zobrist::piece_key(us, Role::King, king_to)
                        ^ zobrist::piece_key(us, Role::Rook, to)
                        ^ zobrist::piece_key(us, Role::Rook, rook_to);
                }
                toggle_role(&mut by_role, Role::King, king_bb);
                toggle_role(&mut by_role, Role::Rook, rook_bb);
                castling = castling - back_rank(us);
                (king_bb ^ rook_bb, Bitboard::EMPTY)
            }
            MoveKind::EnPassant => {
                let captured = Square::new(to.index() as u32 ^ 8);
                let captured_bb = Bitboard::from_square(captured);
                if HASH {
                    hash ^= zobrist::piece_key(us, Role::Pawn, from)
                        ^ zobrist::piece_key(us, Role::Pawn, to)
                        ^ zobrist::piece_key(them, Role::Pawn, captured);
                }
                toggle_role(&mut by_role, Role::Pawn, from_bb | to_bb | captured_bb);
                halfmoves = 0;
                (from_bb | to_bb, captured_bb)
            }
            kind => {
                let role = match mover {
                    Some(role) => role,
                    None => role_at(&self.by_role, from.index()),
                };
                let captured_bb = self.by_color[them.index()] & to_bb;
                if captured_bb.nonempty() {
                    let captured = role_at(&self.by_role, to.index());
                    if HASH {
                        hash ^= zobrist::piece_key(them, captured, to);
                    }
                    toggle_role(&mut by_role, captured, to_bb);
                    halfmoves = 0;
                }
                match kind {
                    MoveKind::Promotion(promoted) => {
                        if HASH {
                            hash ^= zobrist::piece_key(us, Role::Pawn, from)
                                ^ zobrist::piece_key(us, promoted, to);
                        }
                        toggle_role(&mut by_role, Role::Pawn, from_bb);
                        toggle_role(&mut by_role, promoted, to_bb);
                    }
                    _ => {
                        if HASH {
                            hash ^= zobrist::piece_key(us, role, from)
                                ^ zobrist::piece_key(us, role, to);
                        }
                        toggle_role(&mut by_role, role, from_bb | to_bb);
                    }
                }
                match role {
                    Role::Pawn => {
                        halfmoves = 0;
                        if from.index() ^ to.index() == 16 {
                            // A double push: en passant is possible only next to an enemy pawn.
                            let ep = Square::new((from.index() + to.index()) as u32 / 2);
                            if (pawn_attacks(us, ep) & self.pieces(them, Role::Pawn)).nonempty() {
                                ep_candidate = Some(ep);
                            }
                        }
                    }
                    Role::King => castling = castling - back_rank(us),
                    _ => {}
                }
                // A rook leaving or captured on its square loses its castling right.
                castling = castling - from_bb - to_bb;
                (from_bb | to_bb, captured_bb)
            }
        };
        let (white_delta, black_delta) = match us {
            Color::White => (ours_delta, theirs_delta),
            Color::Black => (theirs_delta, ours_delta),
        };
        let by_color = [
            self.by_color[0] ^ white_delta,
            self.by_color[1] ^ black_delta,
        ];
        if HASH && castling != self.castling {
            for sq in castling ^ self.castling {
                hash ^= zobrist::castling_key(sq);
            }
        }
        let (checkers, pinned) = if FULL {
            checkers_and_pins(&by_role, &by_color, them)
        } else {
            (Bitboard::EMPTY, Bitboard::EMPTY)
        };
        let mut ep_square = None;
        if let Some(ep) = ep_candidate.filter(|_| FULL) {
            let probe = Position {
                by_role,
                by_color,
                turn: them,
                castling,
                ep_square: None,
                fen_ep_square: None,
                halfmoves,
                fullmoves: self.fullmoves,
                hash,
                checkers,
                pinned,
                chess960: self.chess960,
            };
            if probe.en_passant_is_legal(ep) {
                ep_square = Some(ep);
                if HASH {
                    hash ^= zobrist::en_passant_key(ep);
                }
            }
        }
        Position {
            by_role,
            by_color,
            turn: them,
            castling,
            ep_square,
            fen_ep_square: ep_square,
            halfmoves,
            fullmoves: (self.fullmoves + us.index() as u32).min(MAX_FULLMOVE_NUMBER),
            hash,
            checkers,
            pinned,
            chess960: self.chess960,
        }
    }

    /// Plays `mv` if it is legal; otherwise returns [`IllegalMove`] and changes nothing.
    ///
    /// Moves come from move generation ([`Position::legal_moves`]) or from notation
    /// ([`Position::parse_uci`], [`Position::parse_san`], [`Position::move_from_squares`]),
    /// which only return legal moves; [`Position::why_illegal`] tells why one is not.
    ///
    /// ```
    /// use chessd_core::{IllegalMove, Move, Position, Square};
    ///
    /// let mut pos = Position::startpos();
    /// assert_eq!(pos.legal_moves().len(), 20);
    /// let e4 = Move::normal(Square::E2, Square::E4);
    /// assert!(pos.legal_moves().contains(&e4));
    /// pos.play(e4).unwrap();
    /// assert_eq!(pos.role_on(Square::E4), Some(chessd_core::Role::Pawn));
    ///
    /// // Black to move: White's pawn cannot move again, and nothing changes.
    /// let before = pos;
    /// let e5 = Move::normal(Square::E4, Square::E5);
    /// assert_eq!(pos.play(e5), Err(IllegalMove(e5)));
    /// assert_eq!(pos, before);
    ///
    /// // `after` gives the next position without changing this one.
    /// let next = pos.after(pos.parse_san("c5").unwrap());
    /// assert_eq!(next.fullmoves(), 2);
    /// ```
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        if self.is_legal(mv) {
            self.play_unchecked(mv);
            Ok(())
        } else {
            Err(IllegalMove(mv))
        }
    }

    /// Passes the turn without moving (a null move, for search). Must not be used in check.
    pub fn play_null(&mut self) {
        if let Some(ep) = self.ep_square.take() {
            self.hash ^= zobrist::en_passant_key(ep);
        }
        self.fen_ep_square = None;
        self.turn = !self.turn;
        self.hash ^= zobrist::turn_key();
        self.halfmoves = (self.halfmoves + 1).min(MAX_HALFMOVE_CLOCK);
        self.update_checkers_and_pins();
    }

    /// The role of the piece that `mv` moves (the king for castling).
    #[inline]
    pub fn moved_role(&self, mv: Move) -> Option<Role> {
        self.role_on(mv.from())
    }

    /// The role `mv` captures, if any (a pawn for en passant; never for castling).
    #[inline]
    pub fn captured_role(&self, mv: Move) -> Option<Role> {
        match mv.kind() {
            MoveKind::EnPassant => Some(Role::Pawn),
            MoveKind::Castle => None,
            _ => {
                if self.by_color(!self.turn).contains(mv.to()) {
                    self.role_on(mv.to())
                } else {
                    None
                }
            }
        }
    }

    /// Whether `mv` is a capture.
    #[inline]
    pub fn is_capture(&self, mv: Move) -> bool {
        mv.is_en_passant() || (!mv.is_castle() && self.by_color(!self.turn).contains(mv.to()))
    }

    /// Whether `mv` (assumed legal) gives check.
    pub fn gives_check(&self, mv: Move) -> bool {
        self.after(mv).is_check()
    }
}

/// Toggles `squares` in the set of `role`, with constant indices (keeps the array in registers).
#[inline(always)]
fn toggle_role(by_role: &mut [Bitboard; 6], role: Role, squares: Bitboard) {
    match role {
        Role::Pawn => by_role[0] ^= squares,
        Role::Knight => by_role[1] ^= squares,
        Role::Bishop => by_role[2] ^= squares,
        Role::Rook => by_role[3] ^= squares,
        Role::Queen => by_role[4] ^= squares,
        Role::King => by_role[5] ^= squares,
    }
}
