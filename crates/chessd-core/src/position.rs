//! The position: pieces, side to move, castling rights, en passant, clocks and a Zobrist key.
//!
//! `Position` is `Copy`-cheap (about 120 bytes) and updated by copy-make: [`Position::play`]
//! returns a new position. Checkers and pinned pieces of the side to move are kept up to date
//! so that legal move generation needs no make-and-test.

use crate::{
    attacks::{between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks},
    zobrist, Bitboard, Color, Move, MoveKind, Piece, Rank, Role, Square,
};

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
        Role::ALL
            .into_iter()
            .find(|role| self.by_role[role.index()].contains(sq))
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

    /// Half-moves since the last capture or pawn move.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number, starting at 1 and incremented after Black's move.
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
    fn snipers(&self, king: Square, them: Color) -> Bitboard {
        let queens = self.by_role(Role::Queen);
        ((rook_attacks(king, Bitboard::EMPTY) & (self.by_role(Role::Rook) | queens))
            | (bishop_attacks(king, Bitboard::EMPTY) & (self.by_role(Role::Bishop) | queens)))
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

    pub(crate) fn update_checkers_and_pins(&mut self) {
        let us = self.turn;
        let them = !us;
        let king = self.king(us);
        let occ = self.occupied();
        let mut checkers = ((knight_attacks(king) & self.by_role(Role::Knight))
            | (pawn_attacks(us, king) & self.by_role(Role::Pawn)))
            & self.by_color(them);
        let mut pinned = Bitboard::EMPTY;
        let ours = self.by_color(us);
        for s in self.snipers(king, them) {
            let b = between(king, s) & occ;
            if b.is_empty() {
                checkers |= s;
            } else if !b.more_than_one() {
                pinned |= b & ours;
            }
        }
        self.checkers = checkers;
        self.pinned = pinned;
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

    #[inline(always)]
    fn toggle(&mut self, color: Color, role: Role, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.by_role[role.index()] ^= b;
        self.by_color[color.index()] ^= b;
        self.hash ^= zobrist::piece_key(color, role, sq);
    }

    /// Plays a move that must be legal in this position (as produced by move generation).
    /// Playing an illegal move leaves the position in an unspecified (but memory-safe) state;
    /// use [`Position::play`] for moves from outside.
    pub fn play_unchecked(&mut self, mv: Move) {
        let us = self.turn;
        let them = !us;
        let from = mv.from();
        let to = mv.to();
        let old_castling = self.castling;

        if let Some(ep) = self.ep_square.take() {
            self.hash ^= zobrist::en_passant_key(ep);
        }
        self.fen_ep_square = None;
        self.halfmoves += 1;
        if us == Color::Black {
            self.fullmoves += 1;
        }
        let mut ep_candidate = None;

        match mv.kind() {
            MoveKind::Castle => {
                let king_to = mv.king_destination();
                let rook_to = mv.rook_destination().unwrap_or(to);
                self.toggle(us, Role::King, from);
                self.toggle(us, Role::Rook, to);
                self.toggle(us, Role::King, king_to);
                self.toggle(us, Role::Rook, rook_to);
                self.castling = self.castling - back_rank(us);
            }
            MoveKind::EnPassant => {
                let captured = Square::new(to.index() as u32 ^ 8);
                self.toggle(them, Role::Pawn, captured);
                self.toggle(us, Role::Pawn, from);
                self.toggle(us, Role::Pawn, to);
                self.halfmoves = 0;
            }
            kind => {
                let role = self.role_on(from).unwrap_or(Role::Pawn);
                if let Some(captured) = self.role_on(to) {
                    self.toggle(them, captured, to);
                    self.halfmoves = 0;
                }
                self.toggle(us, role, from);
                match kind {
                    MoveKind::Promotion(promoted) => self.toggle(us, promoted, to),
                    _ => self.toggle(us, role, to),
                }
                match role {
                    Role::Pawn => {
                        self.halfmoves = 0;
                        if from.index() ^ to.index() == 16 {
                            let ep = Square::new((from.index() as u32 + to.index() as u32) / 2);
                            if (pawn_attacks(us, ep) & self.pieces(them, Role::Pawn)).nonempty() {
                                ep_candidate = Some(ep);
                            }
                        }
                    }
                    Role::King => self.castling = self.castling - back_rank(us),
                    _ => {}
                }
                self.castling = self.castling - from - to;
            }
        }

        if self.castling != old_castling {
            for sq in self.castling ^ old_castling {
                self.hash ^= zobrist::castling_key(sq);
            }
        }
        self.turn = them;
        self.hash ^= zobrist::turn_key();
        self.update_checkers_and_pins();
        if let Some(ep) = ep_candidate {
            if self.en_passant_is_legal(ep) {
                self.ep_square = Some(ep);
                self.fen_ep_square = Some(ep);
                self.hash ^= zobrist::en_passant_key(ep);
            }
        }
    }

    /// The position after a legal move (copy-make).
    #[inline]
    pub fn after(&self, mv: Move) -> Position {
        let mut next = *self;
        next.play_unchecked(mv);
        next
    }

    /// Plays `mv` if it is legal; otherwise returns [`IllegalMove`] and changes nothing.
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
        self.halfmoves += 1;
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

/// A move that is not legal in the position it was tried in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove(pub Move);

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "illegal move {:?}", self.0)
    }
}

impl std::error::Error for IllegalMove {}
