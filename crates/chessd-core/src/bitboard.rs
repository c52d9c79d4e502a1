//! A set of squares as a 64-bit mask (bit `i` is square index `i`).

use std::{
    fmt,
    ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub},
};

use crate::{File, Rank, Square};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The light squares (h1 is light).
    pub const LIGHT_SQUARES: Bitboard = Bitboard(0x55AA_55AA_55AA_55AA);
    /// The dark squares (a1 is dark).
    pub const DARK_SQUARES: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// All squares of a file.
    #[inline]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file.index())
    }

    /// All squares of a rank.
    #[inline]
    pub const fn rank(rank: Rank) -> Bitboard {
        Bitboard(0xFF << (8 * rank.index()))
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set is not empty.
    #[inline]
    pub const fn nonempty(self) -> bool {
        self.0 != 0
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// The number of squares.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set has more than one square.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new(self.0.trailing_zeros()))
        }
    }

    /// The highest square, if any.
    #[inline]
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new(63 - self.0.leading_zeros()))
        }
    }

    /// The only square, if the set has exactly one.
    #[inline]
    pub const fn single_square(self) -> Option<Square> {
        if self.0 != 0 && !self.more_than_one() {
            self.first()
        } else {
            None
        }
    }

    /// The set with `sq` added.
    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The set with `sq` removed.
    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// Whether the two sets share a square.
    #[inline]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// Mirrors the set across the middle of the board.
    #[inline]
    pub const fn flip_vertical(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::new(self.0.trailing_zeros());
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl<T: Into<Bitboard>> $tr<T> for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: T) -> Bitboard {
                Bitboard(self.0 $op rhs.into().0)
            }
        }
        impl<T: Into<Bitboard>> $atr<T> for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: T) {
                self.0 = self.0 $op rhs.into().0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl<T: Into<Bitboard>> Sub<T> for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    #[inline]
    fn sub(self, rhs: T) -> Bitboard {
        Bitboard(self.0 & !rhs.into().0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = Square::new(rank * 8 + file);
                f.write_str(if self.contains(sq) { "X" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
