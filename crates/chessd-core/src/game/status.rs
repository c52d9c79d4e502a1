//! How a game stands: its result, why it ended, and which draw rules end it automatically.

use std::fmt;

use crate::Color;

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum GameResult {
    /// The game goes on.
    #[default]
    Ongoing,
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
    /// Aborted in its first moves: over, with no result (no winner, not a draw).
    Aborted,
}

impl GameResult {
    /// A short snake_case name, stable for logs and APIs (its serde form).
    pub const fn name(self) -> &'static str {
        match self {
            GameResult::Ongoing => "ongoing",
            GameResult::WhiteWins => "white_wins",
            GameResult::BlackWins => "black_wins",
            GameResult::Draw => "draw",
            GameResult::Aborted => "aborted",
        }
    }

    /// The result in which `color` wins.
    pub const fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The winner, if the game was won.
    pub const fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Ongoing | GameResult::Draw | GameResult::Aborted => None,
        }
    }

    /// The PGN result token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub const fn pgn(self) -> &'static str {
        match self {
            GameResult::Ongoing | GameResult::Aborted => "*",
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::Ongoing => "ongoing",
            GameResult::WhiteWins => "white wins",
            GameResult::BlackWins => "black wins",
            GameResult::Draw => "draw",
            GameResult::Aborted => "aborted",
        })
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Reason {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can ever checkmate (a dead position).
    InsufficientMaterial,
    /// 50 moves by each side without a capture or pawn move (claimed, or automatic under
    /// [`DrawPolicy::Automatic`]).
    FiftyMoves,
    /// The same position for the third time (claimed, or automatic under
    /// [`DrawPolicy::Automatic`]).
    ThreefoldRepetition,
    /// The same position for the fifth time (automatic under [`DrawPolicy::Claims`]).
    FivefoldRepetition,
    /// 75 moves by each side without a capture or pawn move (automatic under
    /// [`DrawPolicy::Claims`]).
    SeventyFiveMoves,
    /// A player resigned.
    Resignation,
    /// A player ran out of time.
    Timeout,
    /// The players agreed to a draw.
    Agreement,
    /// Set from outside (an arbiter, an administrator).
    Manual,
    /// Chess 2: the winner's king (both, for Two Kings) crossed the midline.
    MidlineInvasion,
    /// Chess 2: the side to move had no legal move and was not in check (it loses: Chess 2
    /// has no stalemate).
    NoLegalMoves,
}

impl Reason {
    /// Every reason.
    pub const ALL: [Reason; 13] = [
        Reason::Checkmate,
        Reason::Stalemate,
        Reason::InsufficientMaterial,
        Reason::FiftyMoves,
        Reason::ThreefoldRepetition,
        Reason::FivefoldRepetition,
        Reason::SeventyFiveMoves,
        Reason::Resignation,
        Reason::Timeout,
        Reason::Agreement,
        Reason::Manual,
        Reason::MidlineInvasion,
        Reason::NoLegalMoves,
    ];

    /// A short snake_case name, stable for logs and APIs.
    pub const fn name(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::InsufficientMaterial => "insufficient_material",
            Reason::FiftyMoves => "fifty_moves",
            Reason::ThreefoldRepetition => "threefold_repetition",
            Reason::FivefoldRepetition => "fivefold_repetition",
            Reason::SeventyFiveMoves => "seventy_five_moves",
            Reason::Resignation => "resignation",
            Reason::Timeout => "timeout",
            Reason::Agreement => "agreement",
            Reason::Manual => "manual",
            Reason::MidlineInvasion => "midline_invasion",
            Reason::NoLegalMoves => "no_legal_moves",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::InsufficientMaterial => "insufficient material",
            Reason::FiftyMoves => "the fifty-move rule",
            Reason::ThreefoldRepetition => "threefold repetition",
            Reason::FivefoldRepetition => "fivefold repetition",
            Reason::SeventyFiveMoves => "the seventy-five-move rule",
            Reason::Resignation => "resignation",
            Reason::Timeout => "timeout",
            Reason::Agreement => "agreement",
            Reason::Manual => "decision",
            Reason::MidlineInvasion => "midline invasion",
            Reason::NoLegalMoves => "having no legal move",
        })
    }
}

/// The status of a game: result, the reason it ended and an optional free-text note (for
/// results set by hand).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Status {
    /// The result.
    pub result: GameResult,
    /// Why the game ended; `None` while it goes on.
    pub reason: Option<Reason>,
    /// A note given with a result set by hand.
    pub note: Option<String>,
}

impl Status {
    /// The status of a game in progress.
    pub const fn ongoing() -> Status {
        Status {
            result: GameResult::Ongoing,
            reason: None,
            note: None,
        }
    }

    /// A finished game with this result and reason, without a note.
    pub const fn over(result: GameResult, reason: Reason) -> Status {
        Status {
            result,
            reason: Some(reason),
            note: None,
        }
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.result != GameResult::Ongoing
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.result, self.reason) {
            (GameResult::Ongoing, _) => f.write_str("ongoing")?,
            (GameResult::Draw, Some(reason)) => write!(f, "draw by {reason}")?,
            (result, Some(reason)) => write!(f, "{result} by {reason}")?,
            (result, None) => write!(f, "{result}")?,
        }
        if let Some(note) = &self.note {
            write!(f, " ({note})")?;
        }
        Ok(())
    }
}

/// Which draw rules end a game by themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum DrawPolicy {
    /// As Binbo: threefold repetition and the fifty-move rule end the game at once.
    #[default]
    Automatic,
    /// As FIDE and Lichess: threefold repetition and the fifty-move rule only let a player
    /// claim a draw; fivefold repetition and the seventy-five-move rule end the game.
    Claims,
}

#[cfg(test)]
mod tests {
    use super::Reason;

    #[test]
    fn all_lists_every_reason_once() {
        // A new reason does not compile here until it has its place in `Reason::ALL`.
        let place = |r: Reason| match r {
            Reason::Checkmate => 0,
            Reason::Stalemate => 1,
            Reason::InsufficientMaterial => 2,
            Reason::FiftyMoves => 3,
            Reason::ThreefoldRepetition => 4,
            Reason::FivefoldRepetition => 5,
            Reason::SeventyFiveMoves => 6,
            Reason::Resignation => 7,
            Reason::Timeout => 8,
            Reason::Agreement => 9,
            Reason::Manual => 10,
            Reason::MidlineInvasion => 11,
            Reason::NoLegalMoves => 12,
        };
        for (i, reason) in Reason::ALL.into_iter().enumerate() {
            assert_eq!(place(reason), i, "{reason:?}");
        }
    }
}
