//! The position: pieces, side to move, castling rights, en passant, clocks and a Zobrist key.
//!
//! `Position` is `Copy`-cheap (about 120 bytes) and updated by copy-make: [`Position::play`]
//! returns a new position. Checkers and pinned pieces of the side to move are kept up to date
//! so that legal move generation needs no make-and-test.

use crate::{zobrist, Bitboard, Color, Move, Piece, Role, Square};

mod checks;
mod make;

pub(crate) use checks::checkers_and_pins;

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

    /// The Zobrist key computed from scratch (at setup, and to check the kept one).
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

/// A move that is not legal in the position it was tried in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove(pub Move);

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "illegal move {:?}", self.0)
    }
}

impl std::error::Error for IllegalMove {}
