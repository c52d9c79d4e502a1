//! What a game answers: the snapshots, views and replies its requests return (to the API,
//! the WebSocket and the engine handling), in one place so that the request, event and engine
//! modules that build or carry them need not reach into one another.

use chessd_core::{game::PlayedMove, Color};
use chessd_protocol::uci::{GoLimits, Info, OptionDecl};
use serde::Serialize;
use uuid::Uuid;

use crate::game::clock::{ClockView, TimeControl};

/// A consistent copy of a game's state, for reads outside the actor.
#[derive(Clone, Debug)]
pub struct GameSnapshot {
    /// The game id.
    pub id: Uuid,
    /// The game (cheap to clone: the history is shared).
    pub game: crate::game::Board,
    /// The event version.
    pub version: u64,
    /// Both clocks, when timed.
    pub clocks: Option<ClockView>,
    /// A pending draw offer.
    pub draw_offer: Option<Color>,
    /// Idle timeout in seconds (0 = never).
    pub idle_timeout_secs: u64,
    /// The time control.
    pub time_control: Option<TimeControl>,
    /// Whether a terminate webhook is set.
    pub has_webhook: bool,
    /// When the game was created.
    pub created: std::time::SystemTime,
    /// The sides engines play and their configured names (White's first).
    pub engine_seats: Vec<(Color, String)>,
    /// Takeback and rematch offers, and the rematch once made.
    pub offers: crate::game::offers::Offers,
    /// Who plays the game, for a game created with players.
    pub players: Option<std::sync::Arc<crate::game::players::GamePlayers>>,
}

/// The answer to a successful action.
#[derive(Clone, Debug)]
pub struct ActionReply {
    /// The state after the action.
    pub snapshot: GameSnapshot,
    /// The move played, for moves.
    pub played: Option<PlayedMove>,
}

/// The opponent as JSON.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(as = EngineOpponentView)]
pub struct OpponentView {
    /// The side it plays.
    #[schema(value_type = crate::schemas::Side)]
    pub plays: Color,
    /// Its search limits, when given.
    pub go: Option<GoLimits>,
}

/// The attached engine as JSON.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct EngineView {
    /// Its configured name.
    pub name: String,
    /// Its `id name`.
    pub id_name: Option<String>,
    /// Its `id author`.
    pub id_author: Option<String>,
    /// Its declared options.
    pub options: Vec<OptionDecl>,
    /// Whether it is searching for a hint, a move or a sync.
    pub busy: bool,
    /// Whether an analysis runs.
    pub analysing: bool,
    /// The engine opponent of the game, if any.
    pub opponent: Option<OpponentView>,
    /// The engine playing the other side, when two engines play the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rival: Option<RivalView>,
}

/// The rival engine as JSON.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RivalView {
    /// Its configured name.
    pub name: String,
    /// Its `id name`.
    pub id_name: Option<String>,
    /// The side it plays.
    #[schema(value_type = crate::schemas::Side)]
    pub plays: Color,
    /// Its search limits, when given.
    pub go: Option<GoLimits>,
    /// Whether it is choosing a move.
    pub busy: bool,
}

/// A best-move hint.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct BestMoveReply {
    /// The best move, UCI.
    pub bestmove: String,
    /// The best move, SAN.
    pub san: String,
    /// The expected reply, UCI.
    pub ponder: Option<String>,
    /// The last `info` of the main line.
    pub info: Option<Info>,
}

/// The moves of a play request.
#[derive(Clone, Debug)]
pub struct PlayReply {
    /// The player's move, when one was given.
    pub player_move: Option<PlayedMove>,
    /// The engine's move; `None` when the player's move ended the game.
    pub engine_move: Option<PlayedMove>,
    /// The game after both.
    pub snapshot: GameSnapshot,
}

/// An analysis started.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct AnalysisStarted {
    /// Always true.
    pub analysing: bool,
    /// The configured name of the engine analysing.
    pub engine: String,
    /// The ply analysed (`null`: the current position, followed as the game goes on).
    pub ply: Option<usize>,
    /// Lines searched.
    pub multipv: u32,
    /// The `go` sent.
    pub go: GoLimits,
}

/// An analysis's result: when it was stopped, or when it ended by itself.
#[derive(Clone, Debug, Default, Serialize, utoipa::ToSchema)]
pub struct AnalysisReport {
    /// The engine's best move when it stopped (UCI).
    pub bestmove: Option<String>,
    /// Its SAN.
    pub san: Option<String>,
    /// The last line of each PV.
    pub lines: Vec<EngineInfoView>,
}

/// An engine `info` line as JSON: the PV both in UCI and in SAN (SAN stops at the first move
/// that is not legal).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct EngineInfoView {
    /// The line (MultiPV), 1 = best.
    #[schema(minimum = 1)]
    pub multipv: u32,
    /// Depth in plies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Selective depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seldepth: Option<u32>,
    /// `{"cp": N}` or `{"mate": N}` (side to move's view), with `"bound"` when only a bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::schemas::ScoreView>)]
    pub score: Option<chessd_protocol::uci::Score>,
    /// Whose point of view `score` is: the side to move in the searched position (UCI and
    /// XBoard engines score for the side to move).
    #[schema(value_type = crate::schemas::Side)]
    pub pov: Color,
    /// `score` from White's point of view (as python-chess's `PovScore.white()`): negated when
    /// Black is to move, bounds swapped.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::schemas::ScoreView>)]
    pub white_score: Option<chessd_protocol::uci::Score>,
    /// Win/draw/loss per mille.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl: Option<chessd_protocol::uci::Wdl>,
    /// The principal variation, UCI.
    pub pv_uci: Vec<String>,
    /// The principal variation, SAN.
    pub pv_san: Vec<String>,
    /// Nodes searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Nodes per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nps: Option<u64>,
    /// Milliseconds searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<u64>,
    /// Hash table fill, per mille.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hashfull: Option<u32>,
    /// Tablebase hits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tbhits: Option<u64>,
}
