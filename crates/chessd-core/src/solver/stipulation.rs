//! Stipulations: what a problem asks for, in the notation problemists (and Popeye) use.
//!
//! `#N` is a direct mate (the side to move mates in at most N against every defence), `h#N`
//! a helpmate (the side to move begins, both sides cooperate, and the side to move is mated
//! by the other side's Nth move) and `s#N` a selfmate (the side to move begins and forces the
//! other side to mate it within N moves of that other side, which tries not to).

use std::{fmt, str::FromStr};

use super::MAX_MATE;

/// A stipulation: a genre and a number of moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "String", into = "String"))]
pub enum Stipulation {
    /// `#N`: the side to move mates in at most N.
    Direct(u32),
    /// `h#N`: the side to move begins and is mated, by cooperation, in exactly N move pairs.
    Help(u32),
    /// `s#N`: the side to move begins and forces the other side to mate it within N.
    SelfMate(u32),
}

impl Stipulation {
    /// The number of moves N.
    pub fn moves(self) -> u32 {
        match self {
            Stipulation::Direct(n) | Stipulation::Help(n) | Stipulation::SelfMate(n) => n,
        }
    }

    /// The genre's prefix before `#`: `""`, `"h"` or `"s"`.
    pub fn prefix(self) -> &'static str {
        match self {
            Stipulation::Direct(_) => "",
            Stipulation::Help(_) => "h",
            Stipulation::SelfMate(_) => "s",
        }
    }
}

impl fmt::Display for Stipulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.prefix(), self.moves())
    }
}

/// Why a stipulation did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StipulationError {
    /// Not of the form `#N`, `h#N` or `s#N`.
    Syntax(String),
    /// N outside `1..=MAX_MATE`.
    Length(u32),
}

impl fmt::Display for StipulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StipulationError::Syntax(s) => write!(
                f,
                "stipulation '{s}' is not #N, h#N or s#N (N a whole number of moves)"
            ),
            StipulationError::Length(n) => {
                write!(f, "stipulation length {n} is outside 1..={MAX_MATE}")
            }
        }
    }
}

impl std::error::Error for StipulationError {}

impl FromStr for Stipulation {
    type Err = StipulationError;

    /// Parses `#3`, `h#3`, `s#3` (case-insensitive, surrounding spaces ignored).
    fn from_str(s: &str) -> Result<Stipulation, StipulationError> {
        let syntax = || StipulationError::Syntax(s.chars().take(40).collect());
        let t = s.trim().to_ascii_lowercase();
        let (prefix, digits) = t.split_once('#').ok_or_else(syntax)?;
        if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let n: u32 = digits.parse().map_err(|_| syntax())?;
        if !(1..=MAX_MATE).contains(&n) {
            return Err(StipulationError::Length(n));
        }
        match prefix {
            "" => Ok(Stipulation::Direct(n)),
            "h" => Ok(Stipulation::Help(n)),
            "s" => Ok(Stipulation::SelfMate(n)),
            _ => Err(syntax()),
        }
    }
}

impl TryFrom<String> for Stipulation {
    type Error = StipulationError;

    fn try_from(s: String) -> Result<Stipulation, StipulationError> {
        s.parse()
    }
}

impl From<Stipulation> for String {
    fn from(s: Stipulation) -> String {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_three_genres() {
        assert_eq!("#2".parse(), Ok(Stipulation::Direct(2)));
        assert_eq!(" H#3 ".parse(), Ok(Stipulation::Help(3)));
        assert_eq!("s#5".parse(), Ok(Stipulation::SelfMate(5)));
        assert_eq!(Stipulation::Help(3).to_string(), "h#3");
        assert_eq!(Stipulation::Direct(2).to_string(), "#2");
    }

    #[test]
    fn rejects_other_forms() {
        for bad in ["", "#", "h#", "x#2", "hs#2", "h#2.5", "h#-1", "3", "#1234"] {
            assert!(
                matches!(bad.parse::<Stipulation>(), Err(StipulationError::Syntax(_))),
                "{bad}"
            );
        }
        assert_eq!(
            "h#0".parse::<Stipulation>(),
            Err(StipulationError::Length(0))
        );
        assert_eq!(
            "s#99".parse::<Stipulation>(),
            Err(StipulationError::Length(99))
        );
    }
}
