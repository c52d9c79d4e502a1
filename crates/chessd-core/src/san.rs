//! Standard Algebraic Notation: parsing (strict and the lenient forms people type) and writing.
//!
//! STUB: signatures fixed, bodies to be written.

use std::fmt;

use crate::{Move, Position};

/// Why a SAN move was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SanError {
    /// The text is not SAN in any accepted form.
    Syntax(String),
    /// Well formed, but no legal move matches.
    Illegal(String),
    /// Several legal moves match; `candidates` lists them in SAN.
    Ambiguous {
        /// The text as given.
        text: String,
        /// The matching moves, in SAN.
        candidates: Vec<String>,
    },
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax(s) => write!(f, "'{s}' is not a move in SAN"),
            SanError::Illegal(s) => write!(f, "{s} is not a legal move in this position"),
            SanError::Ambiguous { text, candidates } => write!(
                f,
                "{text} is ambiguous: it could be {}",
                candidates.join(" or ")
            ),
        }
    }
}

impl std::error::Error for SanError {}

impl Position {
    /// Parses SAN and returns the one legal move it names.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let _ = text;
        todo!()
    }

    /// The SAN of a legal move, with minimal disambiguation and a `+` or `#` suffix.
    pub fn san(&self, mv: Move) -> String {
        let _ = mv;
        todo!()
    }
}
