//! The position: pieces, side to move, castling rights, en passant, clocks and a Zobrist key.
//!
//! `Position` is `Copy`-cheap (about 120 bytes) and updated by copy-make: [`Position::play`]
//! returns a new position. Checkers and pinned pieces of the side to move are kept up to date
//! so that legal move generation needs no make-and-test.

use crate::{
    attacks::{
        between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks,
        rook_attacks, rook_rays,
    },
    zobrist, Bitboard, Color, Move, MoveKind, Piece, Rank, Role, Square,
};

/// The largest half-move clock a FEN may give. Moves keep the clock at most this, so that every
/// position writes a FEN that reads back.
pub const MAX_HALFMOVE_CLOCK: u32 = 10_000;

/// The largest full-move number a FEN may give. Moves keep the number at most this, so that every
/// position writes a FEN that reads back.
pub const MAX_FULLMOVE_NUMBER: u32 = 100_000;

/// A chess position (standard chess or Chess960).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) turn: Color,
    /// Squares of the rooks that still have castling rights.
    pub(crate) castling: Bitboard,
    /// The en-passant target square, kept only when an en-passant capture is legal.
    pub(crate) ep_square: Option<Square>,
    /// The en-passant square as written in the FEN this position came from (for output).
    pub(crate) fen_ep_square: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) hash: u64,
    pub(crate) checkers: Bitboard,
    pub(crate) pinned: Bitboard,
    pub(crate) chess960: bool,
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

/// The back rank of `color`.
#[inline]
pub(crate) const fn back_rank(color: Color) -> Bitboard {
    match color {
        Color::White => Bitboard(0xFF),
        Color::Black => Bitboard(0xFF << 56),
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        let mut pos = Position::empty();
        let back = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        for (file, role) in back.into_iter().enumerate() {
            let f = file as u32;
            pos.put(
                Square::new(f),
                Piece {
                    color: Color::White,
                    role,
                },
            );
            pos.put(
                Square::new(56 + f),
                Piece {
                    color: Color::Black,
                    role,
                },
            );
            pos.put(
                Square::new(8 + f),
                Piece {
                    color: Color::White,
                    role: Role::Pawn,
                },
            );
            pos.put(
                Square::new(48 + f),
                Piece {
                    color: Color::Black,
                    role: Role::Pawn,
                },
            );
        }
        pos.castling = Bitboard::from_square(Square::A1) | Square::H1 | Square::A8 | Square::H8;
        pos.finish_setup();
        pos
    }

    /// An empty board, White to move, no rights, clocks 0 and 1. Not a playable position
    /// until kings are placed; used by parsers before [`Position::finish_setup`].
    pub(crate) fn empty() -> Position {
        Position {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep_square: None,
            fen_ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
            hash: 0,
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            chess960: false,
        }
    }

    /// Places a piece on an empty square (setup only; does not touch the hash).
    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        self.by_role[piece.role.index()] |= sq;
        self.by_color[piece.color.index()] |= sq;
    }

    /// Recomputes everything derived: checkers, pins, legal en passant and the hash.
    pub(crate) fn finish_setup(&mut self) {
        self.update_checkers_and_pins();
        let raw_ep = self.fen_ep_square;
        self.ep_square = raw_ep.filter(|&ep| self.en_passant_is_legal(ep));
        self.hash = self.compute_hash();
    }

    // ----- Accessors -----

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// All pieces of `role`, both colours.
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// All pieces of `color`.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The pieces of `color` and `role`.
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_role[role.index()] & self.by_color[color.index()]
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The king square of `color`. Every position built by this crate has exactly one king
    /// per side.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        let kings = self.pieces(color, Role::King);
        debug_assert!(kings.count() == 1);
        Square::new(kings.0.trailing_zeros() & 63)
    }

    /// The role on `sq`, if any.
    #[inline]
    pub fn role_on(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            return None;
        }
        Some(role_at(&self.by_role, sq.index()))
    }

    /// The colour of the piece on `sq`, if any.
    #[inline]
    pub fn color_on(&self, sq: Square) -> Option<Color> {
        if self.by_color[0].contains(sq) {
            Some(Color::White)
        } else if self.by_color[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        let color = self.color_on(sq)?;
        let role = self.role_on(sq)?;
        Some(Piece { color, role })
    }

    /// Squares of the rooks that still have castling rights (both colours).
    #[inline]
    pub fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    /// The en-passant target square when an en-passant capture is legal.
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The en-passant square as FEN output writes it: the square given in the parsed FEN, or
    /// after a move the legal en-passant square.
    #[inline]
    pub fn fen_ep_square(&self) -> Option<Square> {
        self.fen_ep_square
    }

    /// Half-moves since the last capture or pawn move (at most [`crate::MAX_HALFMOVE_CLOCK`]).
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number, starting at 1 and incremented after Black's move (at most
    /// [`crate::MAX_FULLMOVE_NUMBER`]).
    #[inline]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The Zobrist key: pieces, side to move, castling rights, and the en-passant file only
    /// when an en-passant capture is legal.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers.nonempty()
    }

    /// Pieces of the side to move pinned to their king.
    #[inline]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    /// Whether castling is written and played in Chess960 style (king takes rook in UCI).
    #[inline]
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    /// Switches Chess960 notation on or off (only affects UCI output of castling moves).
    pub fn set_chess960(&mut self, chess960: bool) {
        self.chess960 = chess960;
    }

    // ----- Attacks -----

    /// Pieces of `attacker` that attack `sq`, with `occupied` as the blockers.
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let them = self.by_color(attacker);
        let queens = self.by_role(Role::Queen);
        ((knight_attacks(sq) & self.by_role(Role::Knight))
            | (king_attacks(sq) & self.by_role(Role::King))
            | (pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn))
            | (rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens))
            | (bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens)))
            & them
    }

    /// Whether `attacker` attacks `sq` with `occupied` as the blockers.
    #[inline]
    pub fn is_attacked(&self, sq: Square, attacker: Color, occupied: Bitboard) -> bool {
        let them = self.by_color(attacker);
        if (knight_attacks(sq) & self.by_role(Role::Knight) & them).nonempty()
            || (pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn) & them).nonempty()
            || (king_attacks(sq) & self.by_role(Role::King) & them).nonempty()
        {
            return true;
        }
        let queens = self.by_role(Role::Queen);
        (rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens) & them).nonempty()
            || (bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens) & them)
                .nonempty()
    }

    /// Enemy sliders that see `king` on an empty board (potential checkers and pinners).
    #[inline]
    pub(crate) fn snipers(&self, king: Square, them: Color) -> Bitboard {
        let queens = self.by_role(Role::Queen);
        ((rook_rays(king) & (self.by_role(Role::Rook) | queens))
            | (bishop_rays(king) & (self.by_role(Role::Bishop) | queens)))
            & self.by_color(them)
    }

    /// Pieces of either colour that stand alone between `color`'s king and an enemy slider.
    pub fn blockers(&self, color: Color) -> Bitboard {
        let king = self.king(color);
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in self.snipers(king, !color) {
            let b = between(king, s) & occ;
            if b.nonempty() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    #[inline(always)]
    pub(crate) fn update_checkers_and_pins(&mut self) {
        (self.checkers, self.pinned) = checkers_and_pins(&self.by_role, &self.by_color, self.turn);
    }

    /// Whether the side to move has a legal en-passant capture onto `ep`.
    pub(crate) fn en_passant_is_legal(&self, ep: Square) -> bool {
        let us = self.turn;
        if ep.rank() != Rank::new(5).relative(us) {
            return false;
        }
        let captured = Square::new(ep.index() as u32 ^ 8);
        if !self.pieces(!us, Role::Pawn).contains(captured) || self.occupied().contains(ep) {
            return false;
        }
        let pawns = pawn_attacks(!us, ep) & self.pieces(us, Role::Pawn);
        pawns
            .into_iter()
            .any(|from| self.en_passant_is_safe(from, ep))
    }

    /// Whether capturing en passant from `from` onto `ep` leaves our king safe.
    #[inline]
    pub(crate) fn en_passant_is_safe(&self, from: Square, ep: Square) -> bool {
        let us = self.turn;
        let captured = Square::new(ep.index() as u32 ^ 8);
        let occ = (self.occupied() - from - captured) | ep;
        let king = self.king(us);
        // Attackers after the capture: the captured pawn is gone, so mask it out.
        (self.attackers_to(king, !us, occ) - captured).is_empty()
    }

    pub(crate) fn compute_hash(&self) -> u64 {
        let mut h = 0u64;
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.pieces(color, role) {
                    h ^= zobrist::piece_key(color, role, sq);
                }
            }
        }
        for sq in self.castling {
            h ^= zobrist::castling_key(sq);
        }
        if let Some(ep) = self.ep_square {
            h ^= zobrist::en_passant_key(ep);
        }
        if self.turn == Color::Black {
            h ^= zobrist::turn_key();
        }
        h
    }

    // ----- Making moves -----

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

    /// A position with colours swapped and the board mirrored (for symmetry tests).
    pub fn mirrored(&self) -> Position {
        let mut pos = Position::empty();
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.pieces(color, role) {
                    pos.put(
                        sq.flip_vertical(),
                        Piece {
                            color: !color,
                            role,
                        },
                    );
                }
            }
        }
        pos.turn = !self.turn;
        pos.castling = self.castling.flip_vertical();
        pos.fen_ep_square = self.fen_ep_square.map(Square::flip_vertical);
        pos.halfmoves = self.halfmoves;
        pos.fullmoves = self.fullmoves;
        pos.chess960 = self.chess960;
        pos.finish_setup();
        pos
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

/// The role of the piece on square index `i` (a pawn when the square is empty), branch-free.
#[inline(always)]
fn role_at(by_role: &[Bitboard; 6], i: usize) -> Role {
    // The role index in binary: bit 0 from knights, rooks and kings, bit 1 from bishops and
    // rooks, bit 2 from queens and kings.
    let r = by_role;
    let odd = (r[1].0 | r[3].0 | r[5].0) >> i;
    let twos = (r[2].0 | r[3].0) >> i;
    let fours = (r[4].0 | r[5].0) >> i;
    match (odd & 1) | (twos & 1) << 1 | (fours & 1) << 2 {
        1 => Role::Knight,
        2 => Role::Bishop,
        3 => Role::Rook,
        4 => Role::Queen,
        5 => Role::King,
        _ => Role::Pawn,
    }
}

/// The pieces checking `us`'s king and `us`'s pieces pinned to it, on the given board.
#[inline(always)]
pub(crate) fn checkers_and_pins(
    by_role: &[Bitboard; 6],
    by_color: &[Bitboard; 2],
    us: Color,
) -> (Bitboard, Bitboard) {
    let ours = by_color[us.index()];
    let theirs = by_color[(!us).index()];
    let occ = ours | theirs;
    let kings = by_role[Role::King.index()] & ours;
    let king = Square::new(kings.0.trailing_zeros() & 63);
    let mut checkers = ((knight_attacks(king) & by_role[Role::Knight.index()])
        | (pawn_attacks(us, king) & by_role[Role::Pawn.index()]))
        & theirs;
    let queens = by_role[Role::Queen.index()];
    let snipers = ((rook_rays(king) & (by_role[Role::Rook.index()] | queens))
        | (bishop_rays(king) & (by_role[Role::Bishop.index()] | queens)))
        & theirs;
    let mut pinned = Bitboard::EMPTY;
    for s in snipers {
        let b = between(king, s) & occ;
        if b.is_empty() {
            checkers |= s;
        } else if !b.more_than_one() {
            pinned |= b & ours;
        }
    }
    (checkers, pinned)
}

/// A move that is not legal in the position it was tried in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove(pub Move);

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "illegal move {:?}", self.0)
    }
}

impl std::error::Error for IllegalMove {}
