//! UCI move notation (`e2e4`, `e7e8q`, Chess960 king-takes-rook) and square-index moves.
//!
//! STUB: signatures fixed, bodies to be written.

use std::fmt;

use crate::{Move, Position, Role, Square};

/// Why a UCI or square-index move was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciError {
    /// The text is not of the form `<from><to>[promotion]` (or square indices out of range).
    Syntax(String),
    /// Well formed, but not a legal move in the position.
    Illegal(String),
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::Syntax(s) => write!(f, "'{s}' is not a UCI move (expected e.g. e2e4 or e7e8q)"),
            UciError::Illegal(s) => write!(f, "{s} is not a legal move in this position"),
        }
    }
}

impl std::error::Error for UciError {}

impl Position {
    /// Parses a UCI move and checks it is legal. Castling is accepted both as the king's
    /// two-square move (`e1g1`) in standard chess and as king-takes-rook (`e1h1`).
    pub fn parse_uci(&self, text: &str) -> Result<Move, UciError> {
        let _ = text;
        todo!()
    }

    /// The UCI text of a legal move: `e1g1` for castling in standard chess, king-takes-rook
    /// (`e1h1`) in Chess960.
    pub fn uci(&self, mv: Move) -> String {
        let _ = mv;
        todo!()
    }

    /// The legal move from `from` to `to` (square indices a1 = 0 … h8 = 63) with an optional
    /// promotion role; castling as for [`Position::parse_uci`].
    pub fn move_from_squares(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Result<Move, UciError> {
        let _ = (from, to, promotion);
        todo!()
    }
}
