//! OpenAPI schemas for the chess core's and the game's values as the wire shows them (the core
//! knows nothing of OpenAPI): what the game layer's answers and the API's handlers both name.
//! Names most of them take from the core itself.

#![allow(
    dead_code,
    reason = "schema-only types: utoipa reads their shape, nothing builds them"
)]

use chessd_core::{
    chess2::Army,
    game::{GameResult, Reason},
    IllegalReason, Role,
};
use chessd_protocol::names_schema_type;
pub(crate) use chessd_protocol::schema::{ScoreView, Side};
use utoipa::ToSchema;

names_schema_type!(
    /// A game's result (`chessd_core::game::GameResult`).
    ResultName as "Result": [
        GameResult::Ongoing,
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::Aborted
    ]
    .map(GameResult::name)
);

names_schema_type!(
    /// Why a game ended (`chessd_core::game::Reason`).
    ReasonName as "Reason": Reason::ALL.map(Reason::name)
);

names_schema_type!(
    /// The draw rules: `automatic` (threefold repetition and the fifty-move rule end the game at
    /// once) or `claims` (they let a player claim a draw; fivefold and seventy-five end it).
    DrawPolicyName as "DrawPolicy": ["automatic", "claims"]
);

names_schema_type!(
    /// Why a move is illegal (`chessd_core::IllegalReason`), for `illegal_move`.
    IllegalReasonName as "IllegalReason": IllegalReason::ALL.map(IllegalReason::name)
);

names_schema_type!(
    /// A Chess 2 army's letter: `c` Classic, `n` Nemesis, `e` Empowered, `r` Reaper, `k` Two
    /// Kings, `a` Animals.
    ArmyLetter as "ArmyLetter": Army::ALL.map(|a| a.char().to_string())
);

names_schema_type!(
    /// A piece's kind.
    RoleName as "Role": Role::ALL.map(Role::name)
);

names_schema_type!(
    /// Which stored games: `all`, `ongoing` (not finished), `finished`, or one result.
    GamesFilter as "GamesFilter": ["all", "ongoing", "finished", "white_wins", "black_wins", "draw"]
);

names_schema_type!(
    /// The order of a list of stored games: `newest` first or highest `rating` first.
    GamesOrder as "GamesOrder": ["newest", "rating"]
);

names_schema_type!(
    /// How legal moves are written: `uci` strings, `index` (`[from, to, promotion?]` square
    /// indices), or only their `count`.
    MovesFormat as "MovesFormat": ["uci", "index", "count"]
);

names_schema_type!(
    /// How squares are written: `name` (`"e4"`) or `index` (`28`).
    SquaresFormat as "SquaresFormat": ["name", "index"]
);

names_schema_type!(
    /// A board diagram's characters.
    BoardStyleName as "BoardStyle": ["ascii", "unicode"]
);

names_schema_type!(
    /// A game's variant: `standard` (a Chess960 FEN makes a Chess960 game) or `chess2`.
    VariantName as "Variant": ["standard", "chess2"]
);

names_schema_type!(
    /// A Chess 2 duel step.
    DuelActionName as "DuelAction": ["challenge", "decline", "bid"]
);

names_schema_type!(
    /// A promotion piece as clients send it (`api::wire::parse_promotion`).
    PromotionName as "Promotion": ["q", "r", "b", "n", "Q", "R", "B", "N", "queen", "rook", "bishop", "knight"]
);

names_schema_type!(
    /// A result set without a move.
    SetResultName as "SetResultName": ["white_wins", "black_wins", "draw", "aborted"]
);

names_schema_type!(
    /// Why a result was set without a move.
    SetReasonName as "SetReason": ["resignation", "agreement", "manual", "timeout", "aborted"]
);

names_schema_type!(
    /// The one variant a saved state names (standard chess names none).
    Chess2Name as "Chess2Variant": ["chess2"]
);

/// A game's status (`chessd_core::game::Status`): the same object everywhere.
#[derive(ToSchema)]
#[schema(as = StatusView)]
pub(crate) struct StatusView {
    /// The result.
    #[schema(value_type = ResultName)]
    pub result: GameResult,
    /// Why the game ended; `null` while it goes on.
    #[schema(value_type = Option<ReasonName>, required = true)]
    pub reason: Option<Reason>,
    /// A note given with a result set by hand.
    #[schema(required = true)]
    pub note: Option<String>,
}
