//! Squares, files and ranks. Square indices run a1 = 0, b1 = 1, …, h8 = 63.

use std::{fmt, str::FromStr};

use crate::Color;

/// A file, `a` (0) to `h` (7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

impl File {
    /// The file with this index, 0..8.
    #[inline]
    pub const fn new(index: u32) -> File {
        assert!(index < 8);
        File(index as u8)
    }
    /// Index 0..8.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// Letter `a`..`h`.
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }
    /// Parses `a`..`h`.
    pub const fn from_char(c: char) -> Option<File> {
        if c >= 'a' && c <= 'h' {
            Some(File(c as u8 - b'a'))
        } else {
            None
        }
    }
}

/// A rank, `1` (0) to `8` (7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    /// The rank with this index, 0..8.
    #[inline]
    pub const fn new(index: u32) -> Rank {
        assert!(index < 8);
        Rank(index as u8)
    }
    /// Index 0..8.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// Digit `1`..`8`.
    pub const fn char(self) -> char {
        (b'1' + self.0) as char
    }
    /// Parses `1`..`8`.
    pub const fn from_char(c: char) -> Option<Rank> {
        if c >= '1' && c <= '8' {
            Some(Rank(c as u8 - b'1'))
        } else {
            None
        }
    }
    /// The same rank seen from `color`'s side (rank 1 for White is rank 8 for Black).
    #[inline]
    pub const fn relative(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank(7 - self.0),
        }
    }
}

/// A square of the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

macro_rules! squares {
    ($($name:ident = $i:expr),* $(,)?) => {
        impl Square { $(
            #[doc = concat!("The square ", stringify!($name), ".")]
            pub const $name: Square = Square($i);
        )* }
    };
}

squares! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// The square with index `i` (a1 = 0 … h8 = 63). Panics when `i >= 64`.
    #[inline]
    pub const fn new(i: u32) -> Square {
        assert!(i < 64);
        Square(i as u8)
    }

    /// The square with index `i`, or `None` when `i >= 64`.
    #[inline]
    pub const fn try_new(i: u32) -> Option<Square> {
        if i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// Index 0..64.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square on `file` and `rank`.
    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 8 + file.0)
    }

    /// The file.
    #[inline]
    pub const fn file(self) -> File {
        File(self.0 & 7)
    }

    /// The rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank(self.0 >> 3)
    }

    /// Mirror across the middle of the board (a1 <-> a8).
    #[inline]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square as seen from `color`'s side: itself for White, mirrored for Black.
    #[inline]
    pub const fn relative(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => self.flip_vertical(),
        }
    }

    /// The square `delta` indices away, if on the board (no wrap check across files).
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self.0 as i32 + delta;
        if i >= 0 && i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// All 64 squares, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The text was not a square name like `e4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a square name (expected a1..h8)")
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => match (File::from_char(f), Rank::from_char(r)) {
                (Some(f), Some(r)) => Ok(Square::from_coords(f, r)),
                _ => Err(ParseSquareError),
            },
            _ => Err(ParseSquareError),
        }
    }
}

/// A square is written as its name (`"e4"`).
#[cfg(feature = "serde")]
mod serde_impl {
    use std::fmt;

    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    use super::Square;

    impl Serialize for Square {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(self)
        }
    }

    /// Reads a square name.
    struct SquareVisitor;

    impl de::Visitor<'_> for SquareVisitor {
        type Value = Square;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a square name a1..h8")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<Square, E> {
            s.parse()
                .map_err(|_| E::invalid_value(de::Unexpected::Str(s), &self))
        }
    }

    impl<'de> Deserialize<'de> for Square {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Square, D::Error> {
            deserializer.deserialize_str(SquareVisitor)
        }
    }
}
