//! `/v1/engines` and `/v1/games/{id}/engine…`: the configured UCI engines and a game's engine
//! (Binbo's `new_uci_game`, `uci_bestmove`, `uci_play`, `uci_set_position`, `uci_sync_position`,
//! `uci_command_call/cast`; output streams to the game's WebSocket).
//!
//! Every game route checks the secret first (before reading the body or starting anything), so
//! a refusal is always `forbidden` and changes nothing.

use std::time::Duration;

use actix_web::{web, HttpRequest, HttpResponse};
use chessd_protocol::uci::{looks_like_uci_move, GoLimits};
use serde::{Deserialize, Serialize};

use crate::{
    api::{
        bearer,
        client::client_key,
        conditions,
        error::{ApiError, ErrorCode},
        optional_json,
        routes::{game_view::GameView, games::find},
        wire::moves::MoveView,
    },
    game::{
        command::{AnalysisRequest, MoveInput, Need},
        idempotency::Acted,
        replies::PlayReply,
        GameHandle,
    },
    AppState,
};

/// One configured engine in `GET /v1/engines`.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct EngineListItem {
    /// Its name (what clients ask for).
    pub name: String,
    /// `builtin`, `command` or `tcp`.
    pub kind: String,
    /// A quick check: the program exists, or the address accepts a connection in time.
    pub reachable: bool,
    /// Whether it is the default engine (`builtin` if configured, else the first).
    pub default: bool,
}

/// A body that did not parse is reported only to a caller whose secret the route accepts: a
/// stranger learns `forbidden` first, as if the body had been fine.
async fn checked_body<T>(
    game: &GameHandle,
    req: &HttpRequest,
    need: Need,
    body: Result<T, ApiError>,
) -> Result<T, ApiError> {
    if body.is_err() {
        game.authorize(bearer(req), need).await?;
    }
    body
}

/// `GET /v1/engines`
pub(crate) async fn list(state: web::Data<AppState>) -> HttpResponse {
    let engines: Vec<EngineListItem> = state
        .games
        .engines()
        .list()
        .await
        .into_iter()
        .map(|e| EngineListItem {
            name: e.name,
            kind: e.kind.to_string(),
            reachable: e.reachable,
            default: e.default,
        })
        .collect();
    HttpResponse::Ok().json(serde_json::json!({ "engines": engines }))
}

/// `POST /v1/games/{id}/engine` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttachBody {
    /// The configured engine's name.
    pub name: String,
    /// Reset the game to this FEN first (admin only).
    pub fen: Option<String>,
}

/// `POST /v1/games/{id}/engine`: attach an engine by name (any seat or the admin; with `fen`,
/// the admin).
pub(crate) async fn attach(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let game = find(&state, &id).await?;
    let client = client_key(&req, &state.config.auth, false)?;
    let body: AttachBody = checked_body(
        &game,
        &req,
        Need::Player,
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::invalid_request(format!("invalid JSON body: {e}"))),
    )
    .await?;
    let view = game
        .attach_engine(bearer(&req), client, body.name, body.fen)
        .await?;
    Ok(HttpResponse::Ok().json(view))
}

/// `GET /v1/games/{id}/engine`
pub(crate) async fn view(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let view = find(&state, &id).await?.engine_view().await?;
    Ok(HttpResponse::Ok().json(view))
}

/// `DELETE /v1/games/{id}/engine`: detach (the engine quits and is killed).
pub(crate) async fn detach(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    find(&state, &id).await?.detach_engine(bearer(&req)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /v1/games/{id}/engine/bestmove`: the best move as a hint; the game does not change.
/// Body: go limits plus an optional `timeout_ms`.
pub(crate) async fn bestmove(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let game = find(&state, &id).await?;
    let parsed = (|| {
        let mut value: serde_json::Value = optional_json(&body)?;
        if value.is_null() {
            value = serde_json::json!({});
        }
        let timeout = match value.as_object_mut().and_then(|o| o.remove("timeout_ms")) {
            None => None,
            Some(v) => Some(Duration::from_millis(v.as_u64().ok_or_else(|| {
                ApiError::invalid_request("timeout_ms must be a whole number of milliseconds")
            })?)),
        };
        let limits: GoLimits = serde_json::from_value(value)
            .map_err(|e| ApiError::invalid_request(format!("invalid go limits: {e}")))?;
        Ok((limits, timeout))
    })();
    let (limits, timeout) = checked_body(&game, &req, Need::Player, parsed).await?;
    let reply = game.best_move(bearer(&req), limits, timeout).await?;
    Ok(HttpResponse::Ok().json(reply))
}

/// `POST /v1/games/{id}/engine/play` body.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlayBody {
    /// The player's move first: UCI (`e2e4`) or SAN (`e4`).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The engine's search limits (default `movetime 1000`).
    pub go: Option<GoLimits>,
}

/// The answer to play.
#[derive(Debug, Serialize)]
pub(crate) struct PlayAnswer {
    /// The player's move, when one was given.
    pub player_move: Option<MoveView>,
    /// The engine's move (`null` when the player's move ended the game).
    pub engine_move: Option<MoveView>,
    /// The game afterwards, as `GET /v1/games/{id}` shows it.
    pub state: GameView,
}

/// `POST /v1/games/{id}/engine/play`: optionally the player's move, then the engine's reply;
/// both are played. A failing engine leaves the player's move played.
pub(crate) async fn play(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let game = find(&state, &id).await?;
    let body: PlayBody = checked_body(&game, &req, Need::Player, optional_json(&body)).await?;
    let render = conditions::render(|reply: &PlayReply| {
        Ok(PlayAnswer {
            player_move: reply.player_move.as_ref().map(MoveView::from),
            engine_move: reply.engine_move.as_ref().map(MoveView::from),
            state: GameView::from(&reply.snapshot),
        })
    });
    let conditions = conditions::conditions(&req, &body, None, &render)?;
    let player_move = body.mv.map(|m| {
        if looks_like_uci_move(&m) {
            MoveInput::Uci(m)
        } else {
            MoveInput::San(m)
        }
    });
    let limits = body.go.unwrap_or_default();
    match game
        .engine_play(bearer(&req), player_move, limits, conditions)
        .await?
    {
        Acted::Done(reply) => Ok(conditions::respond(&render(Ok(&reply)), false)),
        Acted::Replayed(kept) => Ok(conditions::respond(&kept, true)),
    }
}

/// `POST /v1/games/{id}/engine/position` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PositionBody {
    /// FEN (default: the standard start).
    pub fen: Option<String>,
    /// UCI moves from there.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// `POST /v1/games/{id}/engine/position` (admin): reset the game to a position and tell the
/// engine, as Binbo's `uci_set_position`.
pub(crate) async fn set_position(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let game = find(&state, &id).await?;
    let body: PositionBody = checked_body(&game, &req, Need::Admin, optional_json(&body)).await?;
    let snap = game
        .engine_set_position(bearer(&req), body.fen, body.moves)
        .await?;
    Ok(HttpResponse::Ok().json(GameView::from(&snap)))
}

/// `POST /v1/games/{id}/engine/sync`: send the game's position to the engine, wait for
/// `readyok` (Binbo's `uci_sync_position`).
pub(crate) async fn sync(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = find(&state, &id).await?.engine_sync(bearer(&req)).await?;
    Ok(HttpResponse::Ok().json(GameView::from(&snap)))
}

/// `POST /v1/games/{id}/engine/command` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandBody {
    /// One UCI line.
    pub command: String,
    /// Wait until it is written (default true), or fire and forget.
    #[serde(default = "yes")]
    pub wait: bool,
}

fn yes() -> bool {
    true
}

/// Checks that the request carries the operator's token (`auth.operator_token`).
fn require_operator(state: &AppState, req: &HttpRequest) -> Result<(), ApiError> {
    const NEEDS_TOKEN: &str =
        "raw engine commands need the server operator's token (Authorization: Bearer <token>)";
    let Some(given) = bearer(req) else {
        return Err(ApiError::unauthorized(NEEDS_TOKEN));
    };
    let Some(operator) = state.config.auth.operator_token() else {
        return Err(ApiError::new(
            ErrorCode::OperatorDisabled,
            "raw engine commands need the server operator's token, and none is configured \
             (auth.operator_token)",
        ));
    };
    if constant_time_eq::constant_time_eq(operator.as_bytes(), given.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::forbidden(NEEDS_TOKEN))
    }
}

/// `POST /v1/games/{id}/engine/command` (the server operator only): one raw UCI line (Binbo's
/// `uci_command_call`/`uci_command_cast`), checked against the allow-list of
/// [`crate::engine::policy`] and sent in its canonical form.
pub(crate) async fn command(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    require_operator(&state, &req)?;
    let game = find(&state, &id).await?;
    let body: CommandBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::invalid_request(format!("invalid JSON body: {e}")))?;
    let wait = body.wait;
    game.engine_raw(body.command, wait).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "sent": true, "wait": wait })))
}

/// `POST /v1/games/{id}/engine/analysis` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnalysisBody {
    /// Lines to search (MultiPV, default 1).
    pub multipv: Option<u32>,
    /// Search limits (default `infinite`).
    pub go: Option<GoLimits>,
    /// The configured engine to analyse with (started for the game when it is not attached).
    pub engine: Option<String>,
    /// Analyse the position after this many plies instead of the current one.
    pub ply: Option<usize>,
}

/// `POST /v1/games/{id}/engine/analysis`: start analysing (lines stream as `engine_info`).
pub(crate) async fn start_analysis(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let game = find(&state, &id).await?;
    let body: AnalysisBody = checked_body(&game, &req, Need::Player, optional_json(&body)).await?;
    let request = AnalysisRequest {
        multipv: body.multipv,
        limits: body.go,
        engine: body.engine,
        client: client_key(&req, &state.config.auth, false)?,
        ply: body.ply,
    };
    let started = game.start_analysis(bearer(&req), request).await?;
    Ok(HttpResponse::Ok().json(started))
}

/// `DELETE /v1/games/{id}/engine/analysis`: stop; the last line of each PV.
pub(crate) async fn stop_analysis(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let report = find(&state, &id).await?.stop_analysis(bearer(&req)).await?;
    Ok(HttpResponse::Ok().json(report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uci_or_san() {
        for uci in ["e2e4", "e7e8q", "a1h8", "b7b8N"] {
            assert!(looks_like_uci_move(uci), "{uci}");
        }
        for san in ["e4", "Nf3", "O-O", "exd5", "e8=Q", "e2e9", "i2i4", "e7e8k"] {
            assert!(!looks_like_uci_move(san), "{san}");
        }
    }
}
