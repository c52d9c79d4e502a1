//! Errors from reading PGN: which game, which ply, which token, and what is wrong.

use std::fmt;

use crate::{game::GameError, san::SanError, FenError};

/// What is wrong with a game's PGN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgnErrorKind {
    /// A `{` comment is never closed.
    UnterminatedComment,
    /// A quoted string does not end on its line.
    UnterminatedString,
    /// `$` is not followed by a number from 0 to 255.
    BadNag,
    /// A character that cannot start a token, such as a stray `}`.
    UnexpectedChar(char),
    /// A tag pair is not of the form `[Name "value"]`.
    BadTag,
    /// A token that has no place where it stands (a string in the movetext, a stray `]`).
    UnexpectedToken,
    /// A suffix annotation other than `!`, `?`, `!!`, `??`, `!?` and `?!`.
    BadAnnotation,
    /// The `[FEN]` tag is not a valid position (checked in strict mode).
    Fen(FenError),
    /// The `[Variant]` tag names a game other than chess or Chess960.
    UnsupportedVariant(String),
    /// A move is not valid SAN, not legal, or ambiguous.
    San(SanError),
    /// The game refused a main-line move (it was already over).
    Game(GameError),
    /// A variation opens before any move it could replace.
    VariationWithoutMove,
    /// A `)` without its `(`.
    UnmatchedClose,
    /// A variation still open at the end of the game.
    UnterminatedVariation,
    /// Variations nested deeper than [`super::MAX_VARIATION_DEPTH`].
    VariationTooDeep,
    /// A game result inside a variation.
    ResultInVariation,
    /// The input holds no game at all.
    NoGame,
}

impl fmt::Display for PgnErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnErrorKind::UnterminatedComment => f.write_str("comment is never closed with '}'"),
            PgnErrorKind::UnterminatedString => f.write_str("string does not end on its line"),
            PgnErrorKind::BadNag => f.write_str("'$' must be followed by a number from 0 to 255"),
            PgnErrorKind::UnexpectedChar(c) => write!(f, "unexpected character '{c}'"),
            PgnErrorKind::BadTag => f.write_str("tag pair is not of the form [Name \"value\"]"),
            PgnErrorKind::UnexpectedToken => f.write_str("unexpected token"),
            PgnErrorKind::BadAnnotation => {
                f.write_str("move annotation must be one of ! ? !! ?? !? ?!")
            }
            PgnErrorKind::Fen(e) => write!(f, "bad FEN tag: {e}"),
            PgnErrorKind::UnsupportedVariant(v) => {
                write!(
                    f,
                    "variant '{v}' is not supported (only chess and Chess960)"
                )
            }
            PgnErrorKind::San(e) => write!(f, "{e}"),
            PgnErrorKind::Game(e) => write!(f, "{e}"),
            PgnErrorKind::VariationWithoutMove => {
                f.write_str("variation opens before any move it could replace")
            }
            PgnErrorKind::UnmatchedClose => f.write_str("')' without a matching '('"),
            PgnErrorKind::UnterminatedVariation => {
                f.write_str("variation is not closed before the end of the game")
            }
            PgnErrorKind::VariationTooDeep => write!(
                f,
                "variations nested deeper than {}",
                super::MAX_VARIATION_DEPTH
            ),
            PgnErrorKind::ResultInVariation => f.write_str("game result inside a variation"),
            PgnErrorKind::NoGame => f.write_str("no game in the input"),
        }
    }
}

/// An error in one game of a PGN input.
///
/// Displayed as `game 3, ply 17 ("Nxe9"): <what is wrong>`; the ply is left out for errors
/// in the tag section, the token when there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError {
    /// The game's number in the input, from 1.
    pub game: usize,
    /// The half-move the error is at, from 1 at the game's first move; in a variation, the
    /// number the move would have in the game. `None` in the tag section.
    pub ply: Option<usize>,
    /// The offending token as written (shortened to 40 characters), if any.
    pub token: Option<String>,
    /// The line of the input (from 1) the token is on.
    pub line: usize,
    /// What is wrong.
    pub kind: PgnErrorKind,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}", self.game)?;
        if let Some(ply) = self.ply {
            write!(f, ", ply {ply}")?;
        }
        if let Some(token) = &self.token {
            write!(f, " ({token:?})")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for PgnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            PgnErrorKind::Fen(e) => Some(e),
            PgnErrorKind::San(e) => Some(e),
            PgnErrorKind::Game(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_game_ply_and_token() {
        let e = PgnError {
            game: 3,
            ply: Some(17),
            token: Some("Nxe9".to_string()),
            line: 40,
            kind: PgnErrorKind::San(SanError::Syntax("Nxe9".to_string())),
        };
        assert_eq!(
            e.to_string(),
            "game 3, ply 17 (\"Nxe9\"): 'Nxe9' is not a move in SAN"
        );
        let e = PgnError {
            game: 1,
            ply: None,
            token: None,
            line: 1,
            kind: PgnErrorKind::NoGame,
        };
        assert_eq!(e.to_string(), "game 1: no game in the input");
    }
}
