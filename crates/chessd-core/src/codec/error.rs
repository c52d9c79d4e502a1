//! Why a codec refused to encode or decode ([`CodecError`]).

use std::fmt;

use crate::{chess2::Chess2GameError, Move};

/// Why an encoding or a decoding failed. Decoding never panics on any input: bytes that do
/// not describe a game give one of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodecError {
    /// The move to encode is not legal in its position.
    IllegalMove(Move),
    /// The Chess 2 game refused a step (to encode, or as decoded from corrupt bytes).
    Refused(Chess2GameError),
    /// The bytes end before the moves, steps or clocks asked for.
    Truncated,
    /// The bits are no valid code, or name a move or step that does not exist there.
    Corrupt,
    /// Whole bytes, or non-zero padding bits, follow the last value read.
    TrailingBits,
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecError::IllegalMove(mv) => {
                write!(f, "{mv:?} is not a legal move in its position")
            }
            CodecError::Refused(e) => write!(f, "the Chess 2 game refused the step: {e}"),
            CodecError::Truncated => f.write_str("the encoded game ends too early"),
            CodecError::Corrupt => f.write_str("the encoded game is corrupt"),
            CodecError::TrailingBits => {
                f.write_str("the encoded game has bits after its last value")
            }
        }
    }
}

impl std::error::Error for CodecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CodecError::Refused(e) => Some(e),
            _ => None,
        }
    }
}
