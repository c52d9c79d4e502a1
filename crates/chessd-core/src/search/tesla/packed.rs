//! The document's move representation: a 12-bit move (origin and target square, 6 bits
//! each), a 3-bit moved type and a 3-bit target type, 18 bits in all.
//!
//! The moved type is the role of the piece that moves; the target type is the role that
//! stands on the target square after the move (the same role, except for a promotion, where
//! it is the promoted role). Types are `role index + 1`, so 0 means "no move". Castling is
//! king-takes-rook as in [`Move`]; en passant is told by the position. So the 18 bits name
//! one legal move of a position, and [`PackedMove::unpack`] finds it again.

use crate::{Move, Position, Role};

/// An 18-bit move: bits 0–5 origin, 6–11 target, 12–14 moved type, 15–17 target type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PackedMove(u32);

/// The number of bits a packed move takes.
pub const PACKED_MOVE_BITS: u32 = 18;

impl PackedMove {
    /// No move (all bits zero: the moved type 0 is no role).
    pub const NONE: PackedMove = PackedMove(0);

    /// Packs `mv`, a legal move of `pos`.
    pub fn pack(pos: &Position, mv: Move) -> PackedMove {
        let moved = pos.role_on(mv.from()).map_or(0, |r| r.index() as u32 + 1);
        let target = mv.promotion_role().map_or(moved, |r| r.index() as u32 + 1);
        PackedMove(
            mv.from().index() as u32 | (mv.to().index() as u32) << 6 | moved << 12 | target << 15,
        )
    }

    /// The 18 bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// A packed move from its 18 bits (higher bits are dropped).
    pub const fn from_bits(bits: u32) -> PackedMove {
        PackedMove(bits & ((1 << PACKED_MOVE_BITS) - 1))
    }

    /// Whether this is [`PackedMove::NONE`].
    pub const fn is_none(self) -> bool {
        self.moved_type() == 0
    }

    /// The 12-bit move (origin | target << 6).
    pub const fn move12(self) -> u32 {
        self.0 & 0xFFF
    }

    /// The moved type (role index + 1; 0 for no move).
    pub const fn moved_type(self) -> u32 {
        (self.0 >> 12) & 7
    }

    /// The target type (role index + 1 of what stands on the target square after the move).
    pub const fn target_type(self) -> u32 {
        (self.0 >> 15) & 7
    }

    /// The legal move of `pos` this stands for, if there is one (a move packed in another
    /// position, e.g. after a key collision, usually is not).
    pub fn unpack(self, pos: &Position) -> Option<Move> {
        if self.is_none() {
            return None;
        }
        let (from, to) = (self.0 & 63, (self.0 >> 6) & 63);
        let moved = Role::from_index(self.moved_type() as usize - 1)?;
        if pos.role_on(crate::Square::new(from)) != Some(moved) {
            return None;
        }
        let target = Role::from_index((self.target_type() as usize).checked_sub(1)?)?;
        pos.legal_moves().iter().copied().find(|m| {
            m.from().index() as u32 == from
                && m.to().index() as u32 == to
                && m.promotion_role().unwrap_or(moved) == target
        })
    }
}
