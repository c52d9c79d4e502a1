//! Compact moves (16 bits) and the list type move generation fills.

use std::fmt;

use crate::{Role, Square};

/// What kind of move a [`Move`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A plain move or capture, including pawn double pushes.
    Normal,
    /// Castling, encoded as the king taking its own rook (`to` is the rook's square).
    Castle,
    /// An en-passant capture (`to` is the empty square the pawn moves to).
    EnPassant,
    /// A pawn move to the last rank, promoting to the given role.
    Promotion(Role),
}

/// A move in 16 bits: from (6), to (6), kind (4).
///
/// Castling is stored as king-takes-rook so that standard chess and Chess960 share one
/// representation; [`Move::king_destination`] gives the square the king ends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u16);

const KIND_NORMAL: u16 = 0;
const KIND_CASTLE: u16 = 1;
const KIND_EN_PASSANT: u16 = 2;
const KIND_PROMOTION: u16 = 4; // + 0..4 for knight, bishop, rook, queen

impl Move {
    #[inline]
    const fn pack(from: Square, to: Square, kind: u16) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6 | kind << 12)
    }

    /// A normal move or capture.
    #[inline]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::pack(from, to, KIND_NORMAL)
    }

    /// A promotion to `role` (knight, bishop, rook or queen).
    #[inline]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        Move::pack(from, to, KIND_PROMOTION + role as u16 - 1)
    }

    /// Castling with the king on `king` and the rook on `rook`.
    #[inline]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move::pack(king, rook, KIND_CASTLE)
    }

    /// An en-passant capture from `from` to the en-passant square `to`.
    #[inline]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from, to, KIND_EN_PASSANT)
    }

    /// The origin square (the king's square for castling).
    #[inline]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u32)
    }

    /// The target square (the rook's square for castling).
    #[inline]
    pub const fn to(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u32)
    }

    /// The kind of move.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            KIND_CASTLE => MoveKind::Castle,
            KIND_EN_PASSANT => MoveKind::EnPassant,
            k if k >= KIND_PROMOTION => match Role::from_index((k - KIND_PROMOTION + 1) as usize) {
                Some(role) => MoveKind::Promotion(role),
                None => MoveKind::Normal,
            },
            _ => MoveKind::Normal,
        }
    }

    /// The promotion role, if this is a promotion.
    #[inline]
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion(role) => Some(role),
            _ => None,
        }
    }

    /// Whether this is castling.
    #[inline]
    pub const fn is_castle(self) -> bool {
        self.0 >> 12 == KIND_CASTLE
    }

    /// Whether this is an en-passant capture.
    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.0 >> 12 == KIND_EN_PASSANT
    }

    /// Whether this is a promotion.
    #[inline]
    pub const fn is_promotion(self) -> bool {
        self.0 >> 12 >= KIND_PROMOTION
    }

    /// The square the king ends on when castling (g- or c-file); `to` otherwise.
    #[inline]
    pub const fn king_destination(self) -> Square {
        if self.is_castle() {
            let (from, to) = (self.from().index() as u32, self.to().index() as u32);
            let rank = from & !7;
            Square::new(rank + if to > from { 6 } else { 2 })
        } else {
            self.to()
        }
    }

    /// The square the rook ends on when castling (f- or d-file).
    #[inline]
    pub const fn rook_destination(self) -> Option<Square> {
        if self.is_castle() {
            let (from, to) = (self.from().index() as u32, self.to().index() as u32);
            let rank = from & !7;
            Some(Square::new(rank + if to > from { 5 } else { 3 }))
        } else {
            None
        }
    }

    /// The raw 16-bit encoding.
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// The move whose [`Move::to_u16`] is `bits`: only for bits that came from a move.
    #[inline]
    pub(crate) const fn from_u16(bits: u16) -> Move {
        Move(bits)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Promotion(role) => write!(f, "{}", role.char()),
            MoveKind::Castle => f.write_str("(castle)"),
            MoveKind::EnPassant => f.write_str("(ep)"),
            MoveKind::Normal => Ok(()),
        }
    }
}

/// The most legal moves any position has is 218; this leaves room.
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of moves (no heap allocation).
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MAX_MOVES],
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [Move(0); MAX_MOVES],
        }
    }

    /// Appends a move. Panics past [`MAX_MOVES`], which no legal position reaches.
    #[inline]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }

    /// Keeps only the moves for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            if keep(&self.moves[i]) {
                self.moves[j] = self.moves[i];
                j += 1;
            }
        }
        self.len = j;
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl std::ops::DerefMut for MoveList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A move is written as its squares and its kind, with no position needed: `"e2e4"`,
/// `"e7e8q"` (a promotion), `"e1h1(castle)"` (king takes rook), `"e5d6(ep)"` — its `Debug`
/// form.
#[cfg(feature = "serde")]
mod serde_impl {
    use std::fmt;

    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    use super::Move;
    use crate::{Role, Square};

    impl Serialize for Move {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(&format_args!("{self:?}"))
        }
    }

    /// Reads the form [`Move`]'s `Serialize` writes.
    fn parse(s: &str) -> Option<Move> {
        let from: Square = s.get(0..2)?.parse().ok()?;
        let to: Square = s.get(2..4)?.parse().ok()?;
        match s.get(4..)? {
            "" => Some(Move::normal(from, to)),
            "(castle)" => Some(Move::castle(from, to)),
            "(ep)" => Some(Move::en_passant(from, to)),
            role => {
                let mut chars = role.chars();
                match (chars.next().and_then(Role::from_char), chars.next()) {
                    (Some(r @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)), None)
                        if role.starts_with(r.char()) =>
                    {
                        Some(Move::promotion(from, to, r))
                    }
                    _ => None,
                }
            }
        }
    }

    /// Reads a move.
    struct MoveVisitor;

    impl de::Visitor<'_> for MoveVisitor {
        type Value = Move;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a move: two squares, then a promotion letter, (castle) or (ep)")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<Move, E> {
            parse(s).ok_or_else(|| E::invalid_value(de::Unexpected::Str(s), &self))
        }
    }

    impl<'de> Deserialize<'de> for Move {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Move, D::Error> {
            deserializer.deserialize_str(MoveVisitor)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let m = Move::promotion(Square::E7, Square::F8, Role::Knight);
        assert_eq!(m.from(), Square::E7);
        assert_eq!(m.to(), Square::F8);
        assert_eq!(m.kind(), MoveKind::Promotion(Role::Knight));
        let q = Move::promotion(Square::E7, Square::E8, Role::Queen);
        assert_eq!(q.promotion_role(), Some(Role::Queen));
        let c = Move::castle(Square::E1, Square::H1);
        assert_eq!(c.king_destination(), Square::G1);
        assert_eq!(c.rook_destination(), Some(Square::F1));
        let c = Move::castle(Square::E8, Square::A8);
        assert_eq!(c.king_destination(), Square::C8);
        assert_eq!(c.rook_destination(), Some(Square::D8));
    }
}
