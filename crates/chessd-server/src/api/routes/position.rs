//! Stateless position calls in the manner of Chess 2's HTTP API: apply a move to any FEN, or look
//! up a FEN's legal moves and status, without creating a game.

use actix_web::web;
use chessd_core::{game::Game, FenMode, Move, Position};
use serde::{Deserialize, Serialize};

use crate::api::{
    error::{ApiError, ErrorCode},
    routes::games::legal_moves_json,
};

/// `POST /v1/position/move` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveOnFen {
    /// The position (strict FEN).
    pub fen: String,
    /// The move, in UCI or SAN.
    #[serde(rename = "move")]
    pub mv: String,
}

/// The answer to a stateless move.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct MovedPosition {
    /// The position after the move.
    pub fen: String,
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// Side to move after the move.
    #[schema(value_type = crate::schemas::Side)]
    pub turn: chessd_core::Color,
    /// Whether that side is in check.
    pub check: bool,
    /// The status of the position after the move.
    #[schema(value_type = crate::schemas::StatusView)]
    pub status: chessd_core::game::Status,
    /// Its legal moves in UCI.
    pub legal_moves: Vec<String>,
}

fn parse_move(pos: &Position, text: &str) -> Result<Move, ApiError> {
    if let Ok(mv) = pos.parse_uci(text) {
        return Ok(mv);
    }
    pos.parse_san(text).map_err(|e| {
        let code = match e {
            chessd_core::san::SanError::Ambiguous { .. } => ErrorCode::AmbiguousMove,
            _ => ErrorCode::IllegalMove,
        };
        ApiError::new(code, e.to_string())
    })
}

fn legal_uci(pos: &Position, over: bool) -> Vec<String> {
    if over {
        return Vec::new();
    }
    pos.legal_moves().iter().map(|&m| pos.uci(m)).collect()
}

/// `POST /v1/position/move {fen, move}`
#[utoipa::path(
    post,
    path = "/v1/position/move",
    operation_id = "applyMove",
    tag = "position",
    summary = "Apply a move to any FEN",
    description = "Stateless: returns the new FEN, the move in UCI and SAN, the status and the legal moves.",
    request_body(content = crate::api::routes::position::MoveOnFen),
    responses(
        (status = 200, description = "The position after the move.", body = crate::api::routes::position::MovedPosition),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 409, description = "The position is already drawn by insufficient material (`game_over`).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "Well-formed but not valid (`invalid_fen`, `illegal_move`, `ambiguous_move`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn apply_move(
    body: web::Json<MoveOnFen>,
) -> Result<web::Json<MovedPosition>, ApiError> {
    let body = body.into_inner();
    let pos = Position::from_fen(&body.fen, FenMode::Strict)?;
    let mut game = Game::new(pos);
    let mv = parse_move(&pos, &body.mv)?;
    let played = game.play(mv)?.clone();
    let after = game.position();
    Ok(web::Json(MovedPosition {
        fen: after.fen(),
        uci: played.uci,
        san: played.san,
        turn: after.turn(),
        check: after.is_check(),
        status: game.status().clone(),
        legal_moves: legal_uci(after, game.is_over()),
    }))
}

/// `GET /v1/position?fen=...&format=uci|index|count` query.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct LookupQuery {
    /// The position (strict FEN).
    pub fen: String,
    /// Legal moves format: `uci` (default), `index` or `count`.
    #[param(value_type = Option<crate::schemas::MovesFormat>, nullable = false, default = "uci")]
    pub format: Option<String>,
}

/// `GET /v1/position?fen=...`: status and legal moves of any position.
#[utoipa::path(
    get,
    path = "/v1/position",
    operation_id = "lookupPosition",
    tag = "position",
    summary = "Status and legal moves of any FEN",
    description = "Stateless, in the manner of Chess 2's API: no game is created.",
    params(crate::api::routes::position::LookupQuery),
    responses(
        (status = 200, description = "The position's status and legal moves.", body = crate::api::openapi_types::PositionLookup),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 422, description = "Well-formed but not valid (`invalid_fen`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn lookup(
    query: web::Query<LookupQuery>,
) -> Result<web::Json<serde_json::Value>, ApiError> {
    let pos = Position::from_fen(&query.fen, FenMode::Strict)?;
    let game = Game::new(pos);
    let status = game.status().clone();
    // Validate the format first; a finished position has no legal moves in any format.
    let mut moves = legal_moves_json(&pos, query.format.as_deref())?;
    if game.is_over() {
        moves = match query.format.as_deref() {
            Some("count") => serde_json::json!({ "count": 0 }),
            _ => serde_json::json!({ "moves": [], "count": 0 }),
        };
    }
    if let Some(obj) = moves.as_object_mut() {
        obj.insert("fen".into(), serde_json::json!(pos.fen()));
        obj.insert("turn".into(), serde_json::json!(pos.turn()));
        obj.insert("check".into(), serde_json::json!(pos.is_check()));
        obj.insert("status".into(), serde_json::json!(status));
    }
    Ok(web::Json(moves))
}
