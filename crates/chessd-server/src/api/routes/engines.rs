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
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct EngineListItem {
    /// Its name (what clients ask for).
    pub name: String,
    /// `builtin`, `command` or `tcp`.
    pub kind: String,
    /// A quick check: the program exists, or the address accepts a connection in time.
    pub reachable: bool,
    /// Whether it is the default engine (`builtin` if configured, else the first).
    pub default: bool,
    /// The variants it can play a game of: `standard` always; `chess2` for chessd's own engine
    /// only (`builtin` kind).
    #[schema(value_type = Vec<crate::schemas::VariantName>)]
    pub variants: Vec<String>,
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
#[utoipa::path(
    get,
    path = "/v1/engines",
    operation_id = "listEngines",
    tag = "engines",
    summary = "List the configured engines",
    description = "The engines games may attach, by name, with their reachability: the program exists, or the TCP address accepted a connection. Reachability is probed on the first call and then at most every 15 s, in the background (an answer never waits for it), and engine starts update it; so clients cannot make the server connect to TCP engines on every call. Clients never give a path or an address.",
    responses(
        (status = 200, description = "The engines.", body = crate::api::routes::engines::EngineList)
    )
)]
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
            variants: if e.plays_chess2 {
                vec!["standard".into(), "chess2".into()]
            } else {
                vec!["standard".into()]
            },
        })
        .collect();
    HttpResponse::Ok().json(serde_json::json!({ "engines": engines }))
}

/// One engine session a client holds, in `GET /v1/engines/sessions`.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct EngineSession {
    /// The game it serves.
    #[schema(value_type = String, format = Uuid)]
    pub game: uuid::Uuid,
    /// The configured engine's name.
    pub engine: String,
    /// `attached` (hints, analysis, commands: `DELETE /v1/games/{id}/engine` frees it),
    /// `opponent` (it plays a side: it is freed when the game ends) or `chess2_player`
    /// (chessd's own Chess 2 player: the same).
    #[schema(value_type = EngineSessionRole)]
    pub role: String,
}

/// What an engine session does in its game.
#[allow(dead_code, reason = "schema-only: the role is written as its name")]
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
pub(crate) enum EngineSessionRole {
    /// Attached to the game.
    Attached,
    /// Plays one side.
    Opponent,
    /// chessd's own Chess 2 player of one side.
    Chess2Player,
}

/// `GET /v1/engines/sessions`
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct EngineSessions {
    /// How many engine sessions this client may hold at once (`quotas.max_engines`).
    pub limit: usize,
    /// The sessions it holds, oldest first.
    pub sessions: Vec<EngineSession>,
}

/// `GET /v1/engines/sessions`: the engine sessions the calling client holds, and for which
/// games, so that a client at its limit can see what to free.
#[utoipa::path(
    get,
    path = "/v1/engines/sessions",
    operation_id = "listEngineSessions",
    tag = "engines",
    summary = "List this client's engine sessions",
    description = "The engine sessions counted against the calling client (its API key, else its address), each with its game, engine and role, and the client's limit (`quotas.max_engines`). Starting one more engine past the limit is `429 quota_exceeded`: free an `attached` one with `DELETE /v1/games/{id}/engine`; an `opponent` or `chess2_player` is freed when its game ends (resign or abort it). Counted by the node that runs the game: in a cluster each node lists the sessions it runs.",
    responses(
        (status = 200, description = "The client's engine sessions.", body = crate::api::routes::engines::EngineSessions),
        (status = 401, description = "`api_key_required`: an `X-API-Key` header naming no configured key (`auth.api_keys`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn sessions(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, false)?;
    let sessions = state
        .admission
        .engine_uses(&client)
        .into_iter()
        .map(|u| EngineSession {
            game: u.game,
            engine: u.engine,
            role: u.role.as_str().to_string(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(EngineSessions {
        limit: state.admission.max_engines_per_client(),
        sessions,
    }))
}

/// `POST /v1/games/{id}/engine` body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = AttachEngine)]
pub(crate) struct AttachBody {
    /// The configured engine's name.
    pub name: String,
    /// Reset the game to this FEN first (admin only).
    pub fen: Option<String>,
}

/// `POST /v1/games/{id}/engine`: attach an engine by name (any seat or the admin; with `fen`,
/// the admin).
#[utoipa::path(
    post,
    path = "/v1/games/{id}/engine",
    operation_id = "attachEngine",
    tag = "engines",
    summary = "Attach an engine",
    description = "Starts (or connects to) the configured engine and completes the UCI handshake (`uci`/`uciok`, configured `setoption`s checked against the declared options, `isready`/`readyok`), replacing any attached engine. With `fen` the game is reset to it first (admin). Binbo's `new_uci_game`. While an engine opponent plays an unfinished game only the admin may replace it (`403 forbidden` for a seat). A finished game takes no engine (`409 game_over`): analyse it with `POST …/engine/analysis` and `engine`, which starts one for the analysis. An engine that cannot play the game (a Chess960 game for an engine without `UCI_Chess960`) is refused with `422 engine_unsupported`.",
    params(crate::api::openapi_types::GameId),
    request_body(content = crate::api::routes::engines::AttachBody),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, description = "Attached.", body = crate::game::replies::EngineView),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, description = "`api_key_required`: an `X-API-Key` header naming no configured key (`auth.api_keys`).", body = crate::api::error::ErrorBody<'static>),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`engine_busy` (the engine is choosing a move for this game); `game_over` (a finished game takes no engine: analyse it with `POST …/engine/analysis`); `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "`engine_not_found` (no engine of that name is configured: `GET /v1/engines` lists them); `invalid_fen`; `engine_unsupported` (the engine cannot play this game, e.g. Chess960 without `UCI_Chess960`).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`quota_exceeded`: this client's engine quota is used up; try again after `Retry-After` seconds.", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again."))),
        (status = 502, response = crate::api::openapi_types::EngineFailed),
        (status = 503, description = "`too_many_engines`: the server runs as many engines as it allows.", body = crate::api::error::ErrorBody<'static>)
    )
)]
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
#[utoipa::path(
    get,
    path = "/v1/games/{id}/engine",
    operation_id = "getEngine",
    tag = "engines",
    summary = "The game's engine",
    description = "Its name, what it declared in the handshake, and what it is doing.",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The engine.", body = crate::game::replies::EngineView),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine`: none attached; `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn view(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let view = find(&state, &id).await?.engine_view().await?;
    Ok(HttpResponse::Ok().json(view))
}

/// `DELETE /v1/games/{id}/engine`: detach (the engine quits and is killed).
#[utoipa::path(
    delete,
    path = "/v1/games/{id}/engine",
    operation_id = "detachEngine",
    tag = "engines",
    summary = "Detach the engine",
    description = "Sends `quit`, then kills the process; a running search fails with `engine_died`. While an engine opponent plays an unfinished game only the admin may detach it (`403 forbidden` for a seat: the game would wait forever).",
    params(crate::api::openapi_types::GameId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 204, description = "Detached."),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine`; `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>)
    )
)]
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
#[utoipa::path(
    post,
    path = "/v1/games/{id}/engine/bestmove",
    operation_id = "engineBestMove",
    tag = "engines",
    summary = "Best move hint",
    description = "The engine's best move for the current position, with the game's whole history (Binbo's `uci_bestmove`). The game does not change. Engine output streams to the game's WebSocket meanwhile.",
    params(crate::api::openapi_types::GameId),
    request_body(content = Option<crate::api::openapi_types::BestMoveRequest>),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, description = "The engine's move.", body = crate::game::replies::BestMoveReply),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine` (none attached), `engine_busy` (it is already searching for this game, or an analysis runs, or it is choosing its move), `game_over`; `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "`engine_unsupported`: the engine cannot play this game (a Chess960 game for an engine without `UCI_Chess960`).", body = crate::api::error::ErrorBody<'static>),
        (status = 502, response = crate::api::openapi_types::EngineFailed),
        (status = 504, response = crate::api::openapi_types::EngineTimedOut)
    )
)]
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
#[derive(Debug, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = PlayRequest)]
pub(crate) struct PlayBody {
    /// The player's move first: UCI (`e2e4`) or SAN (`e4`).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The engine's search limits (default `movetime 1000`).
    #[schema(value_type = Option<crate::api::openapi_types::FiniteGoLimits>)]
    pub go: Option<GoLimits>,
}

/// The answer to play.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = PlayReply)]
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
#[utoipa::path(
    post,
    path = "/v1/games/{id}/engine/play",
    operation_id = "enginePlay",
    tag = "engines",
    summary = "Play with the engine",
    description = "Optionally plays the player's `move`, then the engine answers and its move is played too (Binbo's `uci_play`), atomically: while the engine thinks, moves and resets of the game are refused with `engine_busy`. A failing engine never loses the player's move (it stays played; the error is returned). Without `move`, the engine moves for the side to move. In a game with an engine opponent, a seat must give its `move` (the engine never plays a seat's move for it: `403 forbidden`); the admin may do either. `searchmoves` must be legal in the position the engine searches (after `move`; `422 illegal_move`), checked before the move is played.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = Option<crate::api::routes::engines::PlayBody>),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, description = "Both moves and the game afterwards.", body = crate::api::routes::engines::PlayAnswer, headers(("Idempotent-Replayed" = String, description = "`true` on the kept first answer to a request sent again with its `Idempotency-Key`."))),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine` (none attached), `engine_busy` (it is already searching for this game, or an analysis runs, or it is choosing its move), `game_over`, `not_your_turn`; `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "The player's move: `illegal_move`, `ambiguous_move`; `engine_unsupported` (the engine cannot play this game).", body = crate::api::error::ErrorBody<'static>),
        (status = 502, response = crate::api::openapi_types::EngineFailed),
        (status = 504, response = crate::api::openapi_types::EngineTimedOut)
    )
)]
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
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EnginePosition)]
pub(crate) struct PositionBody {
    /// FEN (default: the standard start).
    pub fen: Option<String>,
    /// UCI moves from there.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// `POST /v1/games/{id}/engine/position` (admin): reset the game to a position and tell the
/// engine, as Binbo's `uci_set_position`.
#[utoipa::path(
    post,
    path = "/v1/games/{id}/engine/position",
    operation_id = "engineSetPosition",
    tag = "engines",
    summary = "Set a position",
    description = "Resets the game to `fen` (default the start) plus `moves`, as Binbo's `uci_set_position` does, then sends it to the engine and waits for `readyok`.",
    params(crate::api::openapi_types::GameId),
    request_body(content = Option<crate::api::routes::engines::PositionBody>),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
    responses(
        (status = 200, description = "The game afterwards.", body = crate::api::routes::game_view::GameView),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine` (none attached), `engine_busy` (it is already searching for this game, or an analysis runs, or it is choosing its move); `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "`invalid_fen`, `illegal_move`.", body = crate::api::error::ErrorBody<'static>),
        (status = 502, response = crate::api::openapi_types::EngineFailed),
        (status = 504, response = crate::api::openapi_types::EngineTimedOut)
    )
)]
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
#[utoipa::path(
    post,
    path = "/v1/games/{id}/engine/sync",
    operation_id = "engineSync",
    tag = "engines",
    summary = "Resynchronise the engine",
    description = "Sends the game's position (start and whole history) to the engine and waits for `readyok` (Binbo's `uci_sync_position`).",
    params(crate::api::openapi_types::GameId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, description = "The game afterwards.", body = crate::api::routes::game_view::GameView),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine` (none attached), `engine_busy` (it is already searching for this game, or an analysis runs, or it is choosing its move); `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>),
        (status = 422, description = "`engine_unsupported`: the engine cannot play this game (a Chess960 game for an engine without `UCI_Chess960`).", body = crate::api::error::ErrorBody<'static>),
        (status = 502, response = crate::api::openapi_types::EngineFailed),
        (status = 504, response = crate::api::openapi_types::EngineTimedOut)
    )
)]
pub(crate) async fn sync(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let snap = find(&state, &id).await?.engine_sync(bearer(&req)).await?;
    Ok(HttpResponse::Ok().json(GameView::from(&snap)))
}

/// `POST /v1/games/{id}/engine/command` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EngineCommand)]
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
#[utoipa::path(
    post,
    path = "/v1/games/{id}/engine/command",
    operation_id = "engineCommand",
    tag = "engines",
    summary = "Send a raw UCI line",
    description = "One line as is (Binbo's `uci_command_call`/`uci_command_cast`). Refused: newlines, `quit` (detach instead), and `setoption` of `string` options (they name files on the server; configure them instead). Operator-only: without an operator token configured every call is `403 operator_disabled`; a line outside the allow-list is `422 command_refused`.",
    params(crate::api::openapi_types::GameId),
    request_body(content = crate::api::routes::engines::CommandBody),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("operator"))),
    responses(
        (status = 200, description = "Written (or queued, without wait).", body = crate::api::openapi_types::EngineCommandReply),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, description = "`operator_disabled` (no operator token is configured) or `forbidden` (a wrong operator token); nothing is sent.", body = crate::api::error::ErrorBody<'static>),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine` (none attached), `engine_busy` (it is already searching for this game, or an analysis runs, or it is choosing its move); `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "`command_refused`: the raw UCI line is not in the allow-list; `illegal_move`: a `go searchmoves` move that is not legal in the game's position. Nothing is sent.", body = crate::api::error::ErrorBody<'static>),
        (status = 502, response = crate::api::openapi_types::EngineFailed)
    )
)]
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
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = AnalysisRequest)]
pub(crate) struct AnalysisBody {
    /// Lines to search (MultiPV, default 1).
    #[schema(minimum = 1)]
    pub multipv: Option<u32>,
    /// Search limits (default `infinite`).
    pub go: Option<GoLimits>,
    /// The configured engine to analyse with (started for the game when it is not attached).
    pub engine: Option<String>,
    /// Analyse the position after this many plies instead of the current one.
    #[schema(maximum = 18446744073709551615_usize)]
    pub ply: Option<usize>,
}

/// `POST /v1/games/{id}/engine/analysis`: start analysing (lines stream as `engine_info`).
#[utoipa::path(
    post,
    path = "/v1/games/{id}/engine/analysis",
    operation_id = "startAnalysis",
    tag = "engines",
    summary = "Start analysing",
    description = "Infinite search (by default) with `multipv` lines; they stream to the WebSocket as `engine_info`, each with the score's point of view (`pov`) and White's (`white_score`). An analysis of the current position follows the game: after a move or reset it restarts on the new position, and stops when the game ends. With `ply` it analyses that position of the game and stays there. With `engine` that configured engine is started for the analysis when it is not the attached one. Finished games can be analysed (what players do after a game): the engine (`engine`, else the default one) is started on demand and released when the analysis ends. Not while an engine opponent plays the game. An analysis with limits that ends by itself sends `engine_analysis_done` and keeps its result. Limits are checked as a raw `go` is (`depth 0`, `movetime 0`: `400 invalid_request`), `searchmoves` must be legal in the analysed position (`422 illegal_move`), and `ponder` is taken as `infinite`.",
    params(crate::api::openapi_types::GameId),
    request_body(content = Option<crate::api::routes::engines::AnalysisBody>),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, description = "Started.", body = crate::game::replies::AnalysisStarted),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine` (none attached in an unfinished game, and no `engine` given), `engine_busy` (the engine is searching for this game, or it is the engine opponent of an unfinished game); `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "`engine_not_found` (`engine` names no configured engine); `engine_unsupported`: the engine cannot play this game (a Chess960 game for an engine without `UCI_Chess960`).", body = crate::api::error::ErrorBody<'static>),
        (status = 502, response = crate::api::openapi_types::EngineFailed)
    )
)]
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
#[utoipa::path(
    delete,
    path = "/v1/games/{id}/engine/analysis",
    operation_id = "stopAnalysis",
    tag = "engines",
    summary = "Stop analysing",
    description = "Sends `stop`, waits for `bestmove` and returns the last line of each PV. When no analysis runs: the result of the last analysis that ended by itself (kept until the next one starts), else empty lines.",
    params(crate::api::openapi_types::GameId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, description = "The last lines.", body = crate::game::replies::AnalysisReport),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_engine`; `wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's).", body = crate::api::error::ErrorBody<'static>),
        (status = 502, response = crate::api::openapi_types::EngineFailed)
    )
)]
pub(crate) async fn stop_analysis(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let report = find(&state, &id).await?.stop_analysis(bearer(&req)).await?;
    Ok(HttpResponse::Ok().json(report))
}

#[allow(dead_code, reason = "schema-only: list() writes the same shape")]
/// `GET /v1/engines`
#[derive(utoipa::ToSchema)]
pub(crate) struct EngineList {
    /// The configured engines.
    pub engines: Vec<EngineListItem>,
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
