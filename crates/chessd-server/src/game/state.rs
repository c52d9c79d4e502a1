//! The raw game state that can be saved and restored (Binbo's `get_game_state` /
//! `set_game_state`), validated on restore by replaying it through the rules.

use chessd_core::{
    chess2::{Chess2Action, Chess2Game, Chess2Position, DuelStage},
    game::{DrawPolicy, Game, GameResult, Reason, Status},
    Color, FenMode, Position,
};
use serde::{Deserialize, Serialize};

use crate::{game::clock::TimeControl, game::Board, game::GameError};

/// The format tag written into every saved state.
pub(crate) const STATE_FORMAT: &str = "chessd.game/1";

chessd_protocol::names_schema_type!(
    /// The saved state's format ([`STATE_FORMAT`]).
    StateFormat as "StateFormat": [STATE_FORMAT]
);

/// A result set without a move (resignation, agreement, manual, timeout), which replaying the
/// moves cannot reproduce.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetResult {
    /// `white_wins`, `black_wins` or `draw`.
    #[schema(value_type = crate::schemas::SetResultName)]
    pub result: String,
    /// `resignation`, `agreement`, `manual` or `timeout`.
    #[schema(value_type = crate::schemas::SetReasonName)]
    pub reason: String,
    /// The note given with a manual result.
    #[serde(default)]
    pub note: Option<String>,
}

/// Remaining times of a timed game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SavedClock {
    /// The time control.
    pub control: TimeControl,
    /// White's remaining time.
    pub white_ms: u64,
    /// Black's remaining time.
    pub black_ms: u64,
}

/// Everything needed to rebuild a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SavedState {
    /// Always [`STATE_FORMAT`].
    #[schema(value_type = crate::game::state::StateFormat)]
    pub format: String,
    /// `chess2` for a Chess 2 game; absent for standard chess and Chess960.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::schemas::Chess2Name>)]
    pub variant: Option<String>,
    /// The starting position (an EPD for Chess 2).
    pub start_fen: String,
    /// The moves in UCI; for Chess 2, every step: the moves, and the duels' `challenge`,
    /// `decline` and bids (`bid:w:1`, `bid:b:0+`).
    pub moves: Vec<String>,
    /// The draw policy.
    #[serde(default)]
    #[schema(value_type = crate::schemas::DrawPolicyName)]
    pub draw_policy: DrawPolicy,
    /// A result set without a move, if any.
    #[serde(default)]
    pub set_result: Option<SetResult>,
    /// The clocks, when the game is timed.
    #[serde(default)]
    pub clock: Option<SavedClock>,
    /// A pending draw offer.
    #[serde(default)]
    #[schema(value_type = Option<crate::schemas::Side>)]
    pub draw_offer: Option<Color>,
    /// The final or current status (informational; recomputed on restore and checked).
    #[schema(value_type = Option<crate::schemas::StatusView>)]
    pub status: Option<Status>,
}

fn invalid(message: impl Into<String>) -> GameError {
    GameError::InvalidState(message.into())
}

impl SavedState {
    /// Saves a game.
    pub fn capture(
        board: &Board,
        clock: Option<SavedClock>,
        draw_offer: Option<Color>,
    ) -> SavedState {
        let status = board.status();
        let set_result = match status.reason {
            // An abort has no reason: it is set as result and reason `aborted`.
            None if status.result == GameResult::Aborted => Some(SetResult {
                result: GameResult::Aborted.name().to_string(),
                reason: GameResult::Aborted.name().to_string(),
                note: None,
            }),
            Some(
                r @ (Reason::Resignation | Reason::Agreement | Reason::Manual | Reason::Timeout),
            ) => Some(SetResult {
                result: status.result.name().to_string(),
                reason: r.name().to_string(),
                note: status.note.clone(),
            }),
            _ => None,
        };
        let (variant, start_fen, moves) = match board {
            Board::Chess(game) => (None, game.start_position().fen(), game.uci_history()),
            Board::Chess2(game) => (
                Some(CHESS2.to_string()),
                game.start_position().to_epd(),
                game.steps().iter().map(|s| s.to_string()).collect(),
            ),
        };
        SavedState {
            format: STATE_FORMAT.to_string(),
            variant,
            start_fen,
            moves,
            draw_policy: board.policy(),
            set_result,
            clock,
            draw_offer,
            status: Some(status.clone()),
        }
    }

    /// [`SavedState::capture`] as clients may read it: a Chess 2 bid not yet revealed (its
    /// duel waits for the other bid) is left out, so the state restores with that bid still to
    /// be made.
    pub fn capture_public(
        board: &Board,
        clock: Option<SavedClock>,
        draw_offer: Option<Color>,
    ) -> SavedState {
        let mut state = SavedState::capture(board, clock, draw_offer);
        if let Board::Chess2(game) = board {
            let waiting_bids = game
                .pending_duel()
                .is_some_and(|p| matches!(p.stage(), DuelStage::Bids { .. }));
            if waiting_bids {
                while state.moves.last().is_some_and(|s| s.starts_with("bid:")) {
                    state.moves.pop();
                }
            }
        }
        state
    }

    /// Rebuilds the game, checking every part: a bad state is an `invalid_state` error and never
    /// a half-restored game.
    pub fn restore(&self) -> Result<Board, GameError> {
        if self.format != STATE_FORMAT {
            return Err(invalid(format!(
                "unknown state format '{}', expected '{STATE_FORMAT}'",
                self.format
            )));
        }
        let mut game = match self.variant.as_deref() {
            None => self.replay_chess()?,
            Some(CHESS2) => self.replay_chess2()?,
            Some(other) => {
                return Err(invalid(format!(
                    "variant '{other}' is not one chessd plays (leave it out for standard \
                     chess and Chess960, or write '{CHESS2}')"
                )))
            }
        };
        if let Some(set) = &self.set_result {
            apply_set_result(&mut game, set)?;
        }
        if let Some(expected) = &self.status {
            let actual = game.status().clone();
            if &actual != expected {
                return Err(invalid(format!(
                    "the status {:?} {:?} does not follow from the moves (they give {:?} {:?})",
                    expected.result, expected.reason, actual.result, actual.reason
                )));
            }
        }
        if let Some(c) = &self.clock {
            c.control.check().map_err(invalid)?;
            let max = TimeControl::MAX_INITIAL_MS;
            if c.white_ms > max || c.black_ms > max {
                return Err(invalid("clock: remaining times must be at most 24 h"));
            }
        }
        if self.draw_offer.is_some() && game.is_over() {
            return Err(invalid("a draw offer in a finished game"));
        }
        Ok(game)
    }

    fn replay_chess(&self) -> Result<Board, GameError> {
        let start = Position::from_fen(&self.start_fen, FenMode::Strict)
            .map_err(|e| invalid(format!("start_fen: {e}")))?;
        let mut game = Game::with_policy(start, self.draw_policy);
        for (i, uci) in self.moves.iter().enumerate() {
            game.play_uci(uci)
                .map_err(|e| invalid(format!("move {} ({uci}): {e}", i + 1)))?;
        }
        Ok(game.into())
    }

    fn replay_chess2(&self) -> Result<Board, GameError> {
        let start = Chess2Position::from_epd(&self.start_fen)
            .map_err(|e| invalid(format!("start_fen: {e}")))?;
        let mut game = Chess2Game::new(start, self.draw_policy);
        for (i, text) in self.moves.iter().enumerate() {
            let step: Chess2Action = text
                .parse()
                .map_err(|e| invalid(format!("step {} ({text}): {e}", i + 1)))?;
            game.replay(step)
                .map_err(|e| invalid(format!("step {} ({text}): {e}", i + 1)))?;
        }
        Ok(game.into())
    }
}

/// The `variant` of a Chess 2 game's state.
pub(crate) const CHESS2: &str = "chess2";

fn apply_set_result(game: &mut Board, set: &SetResult) -> Result<(), GameError> {
    use chessd_core::Color;
    if set.result == "aborted" && set.reason == "aborted" {
        return game
            .abort()
            .map_err(|e| invalid(format!("set_result: {e}")));
    }
    let winner = match set.result.as_str() {
        "white_wins" => Some(Color::White),
        "black_wins" => Some(Color::Black),
        "draw" => None,
        other => {
            return Err(invalid(format!(
                "set_result.result '{other}' is not a result"
            )))
        }
    };
    let outcome = match (set.reason.as_str(), winner) {
        ("resignation", Some(w)) => game.resign(!w),
        ("agreement", None) => game.draw_by_agreement(),
        ("manual", None) => game.set_draw(set.note.clone()),
        ("manual", Some(w)) => game.set_winner(w, set.note.clone()),
        ("timeout", _) => {
            // A flag by the loser: a draw when the winner could not have mated.
            let loser = winner.map_or(game.to_act(), |w| !w);
            game.flag(loser)
        }
        (reason, _) => {
            return Err(invalid(format!(
                "set_result: reason '{reason}' does not go with result '{}'",
                set.result
            )))
        }
    };
    outcome.map_err(|e| invalid(format!("set_result: {e}")))?;
    let got = game.status().result;
    let wanted = match winner {
        Some(Color::White) => GameResult::WhiteWins,
        Some(Color::Black) => GameResult::BlackWins,
        None => GameResult::Draw,
    };
    if got != wanted {
        return Err(invalid("set_result does not match what the rules allow"));
    }
    Ok(())
}
