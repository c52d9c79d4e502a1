//! Chess 2 games under `/v1/games`: creating one (`"variant": "chess2"` with armies), how its
//! state shows (armies, stones, the duel waiting), and the body of its duel steps
//! (`POST /v1/games/{id}/duel`, handled with the other game actions in `game_actions.rs`).
//! Moves, results, draws, clocks, the WebSocket and the archive are the routes every game has.

use chessd_core::{
    chess2::{Army, Chess2Game, Chess2Position},
    game::DrawPolicy,
    Color,
};
use serde::{Deserialize, Serialize};

use crate::{
    api::{
        error::ApiError,
        routes::chess2::{army, sorted_moves},
    },
    game::{board::DuelView, command::DuelStep, Board},
};

/// The `armies` of `POST /v1/games` for a Chess 2 game (default: Classic for both).
#[derive(Clone, Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArmiesBody {
    /// White's army letter (`c n e r k a`).
    #[schema(value_type = Option<crate::schemas::ArmyLetter>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    /// Black's army letter.
    #[schema(value_type = Option<crate::schemas::ArmyLetter>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
}

/// A Chess 2 game's own state, as `GameView` shows it under `chess2`.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct Chess2View {
    /// Each side's army letter.
    #[schema(value_type = crate::api::openapi_types::ArmiesView)]
    pub armies: SidesView<char>,
    /// Each side's stones.
    #[schema(value_type = crate::api::openapi_types::StonesView)]
    pub stones: SidesView<u8>,
    /// Whether the side to move is in a Two Kings king turn (it may move a king or pass).
    pub king_turn: bool,
    /// The side that must act now: the side to move, or the side a duel waits for.
    #[schema(value_type = crate::schemas::Side)]
    pub to_act: Color,
    /// The duel waiting to be settled (never the amounts bid).
    pub duel: Option<DuelView>,
}

/// A value for each side.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct SidesView<T> {
    /// White's.
    pub white: T,
    /// Black's.
    pub black: T,
}

impl Chess2View {
    /// The view of `game`.
    pub(crate) fn of(game: &Chess2Game) -> Chess2View {
        let pos = game.position();
        let [white, black] = pos.armies();
        let [white_stones, black_stones] = pos.stones();
        Chess2View {
            armies: SidesView {
                white: white.char(),
                black: black.char(),
            },
            stones: SidesView {
                white: white_stones,
                black: black_stones,
            },
            king_turn: pos.is_king_turn(),
            to_act: game.to_act(),
            duel: DuelView::of(game),
        }
    }
}

/// The starting Chess 2 game of a creation request: the armies' start, or an EPD (whose
/// armies are its own).
pub(crate) fn starting_game(
    fen: Option<&str>,
    armies: Option<&ArmiesBody>,
    policy: DrawPolicy,
) -> Result<Board, ApiError> {
    let start = match (fen, armies) {
        (Some(_), Some(_)) => {
            return Err(ApiError::invalid_request(
                "give either armies or fen (an EPD, which names its armies), not both",
            ))
        }
        (Some(epd), None) => Chess2Position::from_epd(epd)
            .map_err(|e| ApiError::new(crate::api::error::ErrorCode::InvalidFen, e.to_string()))?,
        (None, armies) => {
            let armies = armies.cloned().unwrap_or_default();
            let pick = |letter: Option<String>, side: &str| match letter {
                Some(l) => army(&l, &format!("armies.{side}")),
                None => Ok(Army::Classic),
            };
            Chess2Position::start(pick(armies.white, "white")?, pick(armies.black, "black")?)
        }
    };
    Ok(Chess2Game::new(start, policy).into())
}

/// `POST /v1/games/{id}/duel` body.
#[derive(Clone, Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DuelBody {
    /// `challenge`, `decline` or `bid`.
    #[schema(value_type = crate::schemas::DuelActionName)]
    pub action: String,
    /// A bid's stones, 0 to 2.
    #[schema(maximum = 2, nullable = false)]
    pub stones: Option<u8>,
    /// The attacker's choice if both bid 0: gain a stone (`true`, the default unless it holds
    /// 6) or take one from the defender (`false`). Read only with a bid of 0: with more stones
    /// no 0–0 duel can happen, so it is ignored (the game drops it, see
    /// `Chess2Action::normalized`).
    #[schema(nullable = false)]
    pub gain: Option<bool>,
    /// The side that bids: a seat bids for itself; the admin names the side.
    #[schema(value_type = Option<crate::schemas::Side>, nullable = false)]
    pub side: Option<Color>,
}

impl DuelBody {
    /// The step asked for (a bid's side is settled by the game, from the secret).
    pub(crate) fn step(self) -> Result<DuelStep, ApiError> {
        let only_bids =
            |what: &str| ApiError::invalid_request(format!("{what} goes with action \"bid\" only"));
        match self.action.as_str() {
            "challenge" | "decline" => {
                if self.stones.is_some() || self.gain.is_some() {
                    return Err(only_bids("stones or gain"));
                }
                if self.side.is_some() {
                    return Err(only_bids("side"));
                }
                Ok(if self.action == "challenge" {
                    DuelStep::Challenge
                } else {
                    DuelStep::Decline
                })
            }
            "bid" => {
                let stones = self
                    .stones
                    .ok_or_else(|| ApiError::invalid_request("a bid needs stones (0 to 2)"))?;
                if stones > 2 {
                    return Err(ApiError::invalid_request("a bid is 0, 1 or 2 stones"));
                }
                Ok(DuelStep::Bid {
                    side: self.side,
                    stones,
                    gain: self.gain,
                })
            }
            other => Err(ApiError::invalid_request(format!(
                "action '{other}' is not challenge, decline or bid"
            ))),
        }
    }
}

/// `GET …/legal-moves` of a Chess 2 game: its move strings, sorted (`uci`), or their `count`;
/// none while a duel waits or once the game is over.
pub(crate) fn legal_moves(
    game: &Chess2Game,
    format: Option<&str>,
) -> Result<serde_json::Value, ApiError> {
    let moves = sorted_moves(&game.legal_moves());
    match format.unwrap_or("uci") {
        "uci" => Ok(serde_json::json!({ "moves": moves, "count": moves.len() })),
        "count" => Ok(serde_json::json!({ "count": moves.len() })),
        "index" => Err(ApiError::new(
            crate::api::error::ErrorCode::WrongVariant,
            "a Chess 2 game lists its moves as strings (format uci or count): square indices \
             are standard chess's",
        )),
        other => Err(ApiError::invalid_request(format!(
            "format '{other}' is not one of uci, count (a Chess 2 game has no index format)"
        ))),
    }
}

/// The pieces of a Chess 2 position, a1 first (letters as on the board: the army says how
/// each moves).
pub(crate) fn pieces_list(pos: &Chess2Position) -> Vec<(chessd_core::Piece, chessd_core::Square)> {
    chessd_core::Square::all()
        .filter_map(|sq| pos.piece_at(sq).map(|piece| (piece, sq)))
        .collect()
}

/// What a Chess 2 move's answer shows: the move played (with its duel fields), or, while its
/// duel waits, the move without them and the duel.
pub(crate) fn move_answer(game: &Chess2Game) -> (String, Option<DuelView>) {
    match game.pending_duel() {
        Some(p) => (p.mv().to_string(), DuelView::of(game)),
        None => (
            game.history()
                .last()
                .map(|p| p.mv.to_string())
                .unwrap_or_default(),
            None,
        ),
    }
}
