//! Who plays a game created with players (a seek accepted by players): each side's player, if
//! known, with its rating when the game started, and whether the game is rated. A rated game's
//! end gives the ratings to apply in the same commit ([`GamePlayers::rate_op`]).

use chessd_core::game::GameResult;
use uuid::Uuid;

use crate::store::players::{GamePlayersRow, PlayerGameRow, RateOp};

/// One side's player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatPlayer {
    /// The player's id.
    pub id: String,
    /// Its name (`None`: anonymous).
    pub name: Option<String>,
    /// Its rating (rounded) in the game's variant and class when the game started.
    pub rating: Option<i32>,
}

/// Who plays a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GamePlayers {
    /// White's player.
    pub white: Option<SeatPlayer>,
    /// Black's player.
    pub black: Option<SeatPlayer>,
    /// Whether the game is rated.
    pub rated: bool,
    /// `standard` or `chess2`.
    pub variant: String,
    /// The time-control class (`bullet`, `blitz`, `rapid`, `classical`).
    pub class: String,
}

impl GamePlayers {
    /// The row stored with the game.
    pub fn row(&self, game: Uuid, created_ms: i64) -> GamePlayersRow {
        GamePlayersRow {
            game: game.as_bytes().to_vec(),
            white: self.white.as_ref().map(|p| p.id.clone()),
            black: self.black.as_ref().map(|p| p.id.clone()),
            white_rating: self.white.as_ref().and_then(|p| p.rating),
            black_rating: self.black.as_ref().and_then(|p| p.rating),
            rated: i32::from(self.rated),
            variant: self.variant.clone(),
            class: self.class.clone(),
            created_ms,
        }
    }

    /// The players of a rematch: the same, colours swapped (their ratings at the start are
    /// those of this game's start until the caller reads them again).
    pub fn swapped(&self) -> GamePlayers {
        GamePlayers {
            white: self.black.clone(),
            black: self.white.clone(),
            ..self.clone()
        }
    }

    /// The players as read back from the store.
    pub fn from_row(row: &PlayerGameRow) -> GamePlayers {
        let seat = |id: &Option<String>, name: &Option<String>, rating: Option<i32>| {
            id.as_ref().map(|id| SeatPlayer {
                id: id.clone(),
                name: name.clone(),
                rating,
            })
        };
        GamePlayers {
            white: seat(&row.white, &row.white_name, row.white_rating),
            black: seat(&row.black, &row.black_name, row.black_rating),
            rated: row.rated != 0,
            variant: row.variant.clone(),
            class: row.class.clone(),
        }
    }

    /// The ratings to apply when the game ends with `result` after `plies` moves: `None` when
    /// it is not rated, not over, or aborted (a side never moved: fewer than two moves).
    pub fn rate_op(&self, game: Uuid, result: GameResult, plies: usize) -> Option<RateOp> {
        let white_score = match result {
            GameResult::Ongoing | GameResult::Aborted => return None,
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
        };
        if !self.rated || plies < 2 {
            return None;
        }
        Some(RateOp {
            game,
            white: self.white.as_ref()?.id.clone(),
            black: self.black.as_ref()?.id.clone(),
            variant: self.variant.clone(),
            class: self.class.clone(),
            white_score,
            now_ms: crate::store::now_ms(),
        })
    }
}
