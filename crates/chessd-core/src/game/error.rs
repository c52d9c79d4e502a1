//! Why a game refused a move or a change of result.

use std::fmt;

use super::Status;
use crate::{san::SanError, uci::UciError, IllegalReason, Move};

/// A refused game action. A refused action changes nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// A move was tried after the game ended; carries the final status.
    GameOver(Status),
    /// A result was to be set on a game that already has one; carries that status.
    AlreadyHasStatus(Status),
    /// A UCI (or square-index) move was malformed or illegal.
    IllegalUci(UciError),
    /// A SAN move was malformed, illegal or ambiguous.
    IllegalSan(SanError),
    /// A move that is not legal in the current position, and why.
    Illegal(Move, IllegalReason),
    /// A draw was claimed, but neither threefold repetition nor the fifty-move rule applies.
    NothingToClaim,
}

impl GameError {
    /// Why the move was illegal, for [`GameError::Illegal`], [`GameError::IllegalUci`] and
    /// [`GameError::IllegalSan`]; `None` for syntax errors, ambiguous SAN and the other
    /// errors.
    pub fn reason(&self) -> Option<IllegalReason> {
        match self {
            GameError::Illegal(_, reason) => Some(*reason),
            GameError::IllegalUci(e) => e.reason(),
            GameError::IllegalSan(e) => e.reason(),
            GameError::GameOver(_) | GameError::AlreadyHasStatus(_) | GameError::NothingToClaim => {
                None
            }
        }
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::GameOver(status) => {
                write!(
                    f,
                    "the game is over ({status}); no more moves can be played"
                )
            }
            GameError::AlreadyHasStatus(status) => {
                write!(f, "the game already has a result: {status}")
            }
            GameError::IllegalUci(e) => write!(f, "{e}"),
            GameError::IllegalSan(e) => write!(f, "{e}"),
            GameError::Illegal(mv, why) => {
                write!(f, "{mv:?} is not a legal move in this position: {why}")
            }
            GameError::NothingToClaim => f.write_str(
                "no draw can be claimed: the position has not occurred three times and \
                 fifty moves have not passed without a capture or pawn move",
            ),
        }
    }
}

impl std::error::Error for GameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GameError::IllegalUci(e) => Some(e),
            GameError::IllegalSan(e) => Some(e),
            _ => None,
        }
    }
}

impl From<UciError> for GameError {
    fn from(e: UciError) -> GameError {
        GameError::IllegalUci(e)
    }
}

impl From<SanError> for GameError {
    fn from(e: SanError) -> GameError {
        GameError::IllegalSan(e)
    }
}
