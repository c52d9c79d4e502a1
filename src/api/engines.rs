//! `/v1/engines` and `/v1/games/{id}/engine…`: the configured UCI engines and a game's engine
//! (Binbo's `new_uci_game`, `uci_bestmove`, `uci_play`, `uci_set_position`, `uci_sync_position`,
//! `uci_command_call/cast`; output streams to the game's WebSocket).
//!
//! Every game route checks the secret first (before reading the body or starting anything), so
//! a refusal is always `forbidden` and changes nothing.

use std::{sync::Arc, time::Duration};

use actix::Addr;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::{
    admission::{ClientKey, Permit},
    api::{bearer, client::client_key, games::GameView, optional_json},
    config::{Endpoint, EngineConfig},
    error::{ApiError, ErrorCode},
    game::actor::{
        AttachEngine, Authorize, DetachEngine, EngineBestMove, EngineCommand, EnginePlay,
        EngineSetPosition, EngineSync, GameActor, GetEngine, MoveInput, Need, Opponent,
        StartAnalysis, StopAnalysis,
    },
    transport::{resolve_program, self_exe},
    uci::{
        engine::{Engine, EngineEvent},
        protocol::{looks_like_uci_move, GoLimits},
    },
    views::{MoveView, Side},
    AppState,
};

/// One configured engine in `GET /v1/engines`.
#[derive(Debug, Serialize, Deserialize)]
pub struct EngineListItem {
    /// Its name (what clients ask for).
    pub name: String,
    /// `builtin`, `command` or `tcp`.
    pub kind: String,
    /// A quick check: the program exists, or the address accepts a connection in time.
    pub reachable: bool,
    /// Whether it is the default engine (`builtin` if configured, else the first).
    pub default: bool,
}

/// The configured engine names' default: `builtin` if configured, else the first.
pub fn default_engine(state: &AppState) -> Option<&str> {
    let engines = &state.config.engines;
    if engines.contains_key("builtin") {
        return Some("builtin");
    }
    engines.keys().next().map(String::as_str)
}

async fn reachable(config: &EngineConfig) -> (String, bool) {
    match config.endpoint.endpoint() {
        Ok(Endpoint::Builtin) => ("builtin".into(), self_exe().is_file()),
        Ok(Endpoint::Command { program, .. }) => {
            ("command".into(), resolve_program(&program).is_some())
        }
        Ok(Endpoint::Tcp(addr)) => {
            let limit = config.endpoint.connect_timeout();
            let ok = matches!(
                tokio::time::timeout(limit, tokio::net::TcpStream::connect(&addr)).await,
                Ok(Ok(_))
            );
            ("tcp".into(), ok)
        }
        Err(_) => ("invalid".into(), false),
    }
}

/// `GET /v1/engines`
pub async fn list(state: web::Data<AppState>) -> HttpResponse {
    let default = default_engine(&state).map(str::to_string);
    let checks = state
        .config
        .engines
        .iter()
        .map(|(name, config)| async move { (name.clone(), reachable(config).await) });
    let engines: Vec<EngineListItem> = futures_util::future::join_all(checks)
        .await
        .into_iter()
        .map(|(name, (kind, reachable))| EngineListItem {
            default: default.as_deref() == Some(name.as_str()),
            name,
            kind,
            reachable,
        })
        .collect();
    HttpResponse::Ok().json(serde_json::json!({ "engines": engines }))
}

/// A started engine: the session, its configuration, its events, and its place in the
/// engine-session counts (held for as long as the session lives).
pub struct StartedEngine {
    engine: Engine,
    config: EngineConfig,
    events: mpsc::UnboundedReceiver<EngineEvent>,
    permit: Permit,
}

/// Starts the configured engine `name` for `client`, its events going to the returned receiver.
/// The client's and the server's engine-session places are taken before anything is started.
pub async fn start_engine(
    state: &AppState,
    client: &ClientKey,
    name: &str,
) -> Result<StartedEngine, ApiError> {
    let config = state.config.engines.get(name).cloned().ok_or_else(|| {
        let known: Vec<&str> = state.config.engines.keys().map(String::as_str).collect();
        ApiError::new(
            ErrorCode::EngineNotFound,
            format!(
                "no engine named {name:?} is configured (configured: {})",
                known.join(", ")
            ),
        )
    })?;
    let permit = state.admission.acquire_engine(client)?;
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = Arc::new(move |event| {
        let _ = tx.send(event);
    });
    let engine = Engine::start(name, &config, sink).await?;
    Ok(StartedEngine {
        engine,
        config,
        events: rx,
        permit,
    })
}

/// The `opponent` of `POST /v1/games`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpponentBody {
    /// The configured engine's name.
    pub engine: String,
    /// The side it plays.
    pub plays: Side,
    /// Its search limits (default: the clocks when timed, else `movetime 500`).
    pub go: Option<GoLimits>,
}

/// A started opponent engine, ready to attach.
pub struct StartedOpponent {
    body: OpponentBody,
    started: StartedEngine,
}

/// Starts the opponent engine of a game `client` is about to create.
pub async fn start_opponent(
    state: &AppState,
    client: &ClientKey,
    body: OpponentBody,
) -> Result<StartedOpponent, ApiError> {
    let started = start_engine(state, client, &body.engine).await?;
    Ok(StartedOpponent { body, started })
}

/// Attaches the opponent to its newly created game (whose admin secret is `admin`).
pub async fn attach_opponent(
    addr: &Addr<GameActor>,
    admin: &str,
    started: StartedOpponent,
) -> Result<(), ApiError> {
    let StartedOpponent { body, started } = started;
    addr.send(AttachEngine {
        token: Some(admin.to_string()),
        name: body.engine,
        config: started.config,
        engine: started.engine,
        events: started.events,
        permit: started.permit,
        fen: None,
        opponent: Some(Opponent {
            plays: body.plays.into(),
            go: body.go,
        }),
    })
    .await
    .map_err(ApiError::internal)??;
    Ok(())
}

fn game(state: &AppState, raw: &str) -> Result<Addr<GameActor>, ApiError> {
    let id = Uuid::parse_str(raw).map_err(|_| ApiError::game_not_found(raw))?;
    state.games.registry.get(&id)
}

/// Finds the game and checks the caller's secret, before anything else is done.
async fn authorized(
    state: &AppState,
    req: &HttpRequest,
    raw: &str,
    need: Need,
) -> Result<(Addr<GameActor>, Option<String>), ApiError> {
    let addr = game(state, raw)?;
    let token = bearer(req);
    addr.send(Authorize {
        token: token.clone(),
        need,
    })
    .await
    .map_err(|_| ApiError::game_not_found(raw))??;
    Ok((addr, token))
}

async fn ask<M>(addr: &Addr<GameActor>, raw: &str, msg: M) -> Result<M::Result, ApiError>
where
    M: actix::Message + Send + 'static,
    M::Result: Send,
    GameActor: actix::Handler<M>,
{
    addr.send(msg)
        .await
        .map_err(|_| ApiError::game_not_found(raw))
}

/// `POST /v1/games/{id}/engine` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachBody {
    /// The configured engine's name.
    pub name: String,
    /// Reset the game to this FEN first (admin only).
    pub fen: Option<String>,
}

/// `POST /v1/games/{id}/engine`: attach an engine by name (any seat or the admin; with `fen`,
/// the admin).
pub async fn attach(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::SeatOrAdmin).await?;
    let client = client_key(&req, &state.config.auth, false)?;
    let body: AttachBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::invalid_request(format!("invalid JSON body: {e}")))?;
    if body.fen.is_some() {
        authorized(&state, &req, &id, Need::Admin).await?;
    }
    let started = start_engine(&state, &client, &body.name).await?;
    let view = ask(
        &addr,
        &id,
        AttachEngine {
            token,
            name: body.name,
            config: started.config,
            engine: started.engine,
            events: started.events,
            permit: started.permit,
            fen: body.fen,
            opponent: None,
        },
    )
    .await??;
    Ok(HttpResponse::Ok().json(view))
}

/// `GET /v1/games/{id}/engine`
pub async fn view(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let addr = game(&state, &id)?;
    let view = ask(&addr, &id, GetEngine).await??;
    Ok(HttpResponse::Ok().json(view))
}

/// `DELETE /v1/games/{id}/engine`: detach (the engine quits and is killed).
pub async fn detach(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::SeatOrAdmin).await?;
    ask(&addr, &id, DetachEngine { token }).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /v1/games/{id}/engine/bestmove`: the best move as a hint; the game does not change.
/// Body: go limits plus an optional `timeout_ms`.
pub async fn bestmove(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::SeatOrAdmin).await?;
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
    let reply = ask(
        &addr,
        &id,
        EngineBestMove {
            token,
            limits,
            timeout,
        },
    )
    .await??;
    Ok(HttpResponse::Ok().json(reply))
}

/// `POST /v1/games/{id}/engine/play` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayBody {
    /// The player's move first: UCI (`e2e4`) or SAN (`e4`).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The engine's search limits (default `movetime 1000`).
    pub go: Option<GoLimits>,
}

/// The answer to play.
#[derive(Debug, Serialize)]
pub struct PlayAnswer {
    /// The player's move, when one was given.
    pub player_move: Option<MoveView>,
    /// The engine's move (`null` when the player's move ended the game).
    pub engine_move: Option<MoveView>,
    /// The game afterwards, as `GET /v1/games/{id}` shows it.
    pub state: GameView,
}

/// `POST /v1/games/{id}/engine/play`: optionally the player's move, then the engine's reply;
/// both are played. A failing engine leaves the player's move played.
pub async fn play(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::SeatOrAdmin).await?;
    let body: PlayBody = optional_json(&body)?;
    let player_move = body.mv.map(|m| {
        if looks_like_uci_move(&m) {
            MoveInput::Uci(m)
        } else {
            MoveInput::San(m)
        }
    });
    let reply = ask(
        &addr,
        &id,
        EnginePlay {
            token,
            player_move,
            limits: body.go.unwrap_or_default(),
        },
    )
    .await??;
    Ok(HttpResponse::Ok().json(PlayAnswer {
        player_move: reply.player_move,
        engine_move: reply.engine_move,
        state: GameView::from(&reply.snapshot),
    }))
}

/// `POST /v1/games/{id}/engine/position` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionBody {
    /// FEN (default: the standard start).
    pub fen: Option<String>,
    /// UCI moves from there.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// `POST /v1/games/{id}/engine/position` (admin): reset the game to a position and tell the
/// engine, as Binbo's `uci_set_position`.
pub async fn set_position(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::Admin).await?;
    let body: PositionBody = optional_json(&body)?;
    let snap = ask(
        &addr,
        &id,
        EngineSetPosition {
            token,
            fen: body.fen,
            moves: body.moves,
        },
    )
    .await??;
    Ok(HttpResponse::Ok().json(GameView::from(&snap)))
}

/// `POST /v1/games/{id}/engine/sync`: send the game's position to the engine, wait for
/// `readyok` (Binbo's `uci_sync_position`).
pub async fn sync(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::SeatOrAdmin).await?;
    let snap = ask(&addr, &id, EngineSync { token }).await??;
    Ok(HttpResponse::Ok().json(GameView::from(&snap)))
}

/// `POST /v1/games/{id}/engine/command` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandBody {
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
    let Some(operator) = state.config.auth.operator_token() else {
        return Err(ApiError::new(
            ErrorCode::OperatorDisabled,
            "raw engine commands need the server operator's token, and none is configured \
             (auth.operator_token)",
        ));
    };
    let given = bearer(req).unwrap_or_default();
    if constant_time_eq::constant_time_eq(operator.as_bytes(), given.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            "raw engine commands need the server operator's token (Authorization: Bearer <token>)",
        ))
    }
}

/// `POST /v1/games/{id}/engine/command` (the server operator only): one raw UCI line (Binbo's
/// `uci_command_call`/`uci_command_cast`), checked against the allow-list of
/// [`crate::uci::policy`] and sent in its canonical form.
pub async fn command(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    require_operator(&state, &req)?;
    let addr = game(&state, &id)?;
    let body: CommandBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::invalid_request(format!("invalid JSON body: {e}")))?;
    let wait = body.wait;
    ask(
        &addr,
        &id,
        EngineCommand {
            line: body.command,
            wait,
        },
    )
    .await??;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "sent": true, "wait": wait })))
}

/// `POST /v1/games/{id}/engine/analysis` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisBody {
    /// Lines to search (MultiPV, default 1).
    pub multipv: Option<u32>,
    /// Search limits (default `infinite`).
    pub go: Option<GoLimits>,
}

/// `POST /v1/games/{id}/engine/analysis`: start analysing (lines stream as `engine_info`).
pub async fn start_analysis(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::SeatOrAdmin).await?;
    let body: AnalysisBody = optional_json(&body)?;
    let started = ask(
        &addr,
        &id,
        StartAnalysis {
            token,
            multipv: body.multipv,
            limits: body.go,
        },
    )
    .await??;
    Ok(HttpResponse::Ok().json(started))
}

/// `DELETE /v1/games/{id}/engine/analysis`: stop; the last line of each PV.
pub async fn stop_analysis(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (addr, token) = authorized(&state, &req, &id, Need::SeatOrAdmin).await?;
    let report = ask(&addr, &id, StopAnalysis { token }).await??;
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
