//! `/v1/games/{id}/ws`: online play over WebSocket (actix-ws).
//!
//! Players connect with their seat secret (`?token=` or `Authorization: Bearer`), spectators
//! without. The server first sends `hello` (role and version), then either the full `state` (new
//! connection, or `resync` when the missed events are no longer held) or exactly the events the
//! client missed since `?since=<version>`, then every event live.
//!
//! Client frames (JSON, field `type`): `move` (`uci` or `san`, optional `ack` id), `resign`,
//! `draw_offer`, `draw_accept`, `draw_decline`, `draw_claim`, `ping`. Each command is answered at
//! once with `ack` (or `error` with a code), before the event it causes.
//!
//! The game's engine output (`engine_info`, `engine_line`, `engine_error`, `engine_attached`,
//! `engine_detached`) arrives through the same subscription: transient frames carrying the
//! current version, never replayed on reconnect (see `game::actor`'s engine module). With an
//! engine opponent, its reply to a move is the next `move` event.

use std::sync::Arc;

use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Session};
use chessd_protocol::ws::{parse_client_frame, ClientFrame};
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::{
    admission::Permit,
    api::{
        client::client_key,
        conditions,
        error::ApiError,
        routes::{chess2_games::DuelBody, game_view::GameView},
        socket_bearer, ws_limits,
        ws_pace::{Heartbeat, MessageRate},
    },
    game::{
        command::{Action, MoveInput},
        events::EventFrame,
        idempotency::{Acted, Conditions, IdempotencyKey, KeptAnswer, MAX_KEY_LEN},
        replies::ActionReply,
        secrets::Caller,
        GameError, GameHandle,
    },
    AppState,
};

/// Query of the WebSocket route.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct WsQuery {
    /// Seat secret (browsers cannot set headers on WebSockets).
    #[param(nullable = false)]
    #[allow(
        dead_code,
        reason = "documents the parameter; socket_bearer() reads the secret"
    )]
    pub token: Option<String>,
    /// The last version the client saw, when reconnecting.
    #[param(nullable = false)]
    pub since: Option<u64>,
}

/// Events queued per connection before a slow client is dropped (it reconnects and catches up).
const QUEUE: usize = 1024;

/// `GET /v1/games/{id}/ws`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/ws",
    operation_id = "connectWebSocket",
    tag = "websocket",
    summary = "WebSocket: online play and spectating",
    description = "Online play over WebSocket (JSON text frames with a `type` field).\n\nPlayers connect with their seat secret (`?token=<secret>`, since browsers cannot set headers on WebSockets, or `Authorization: Bearer`), spectators without. The server first sends `hello` (`role`: `white`, `black`, `admin` or `spectator`, and the current `version`), then either the full `state` (a new connection, or `resync` when a reconnecting client's missed events are no longer held) or exactly the events the client missed since `?since=<version>`, then every event live.\n\nClient frames (`WsClientFrame`): `move` (`uci` or `san`, optional `ack` id), `resign`, `draw_offer`, `draw_accept`, `draw_decline`, `draw_claim`, `ping`. Each command is answered at once with `ack` (`{\"type\": \"ack\", \"ack\": <id>, \"version\": N}`) or `error` (`{\"type\": \"error\", \"ack\": <id>, \"code\": ..., \"message\": ...}`, nothing changed), before the event it causes. `ping` is answered with `pong`.\n\nServer events (`WsServerFrame`), each with the game's `version`: `move` (ply, UCI, SAN, FEN, status, both clocks), `draw_offered`, `draw_declined`, `game_end` (status, clocks), `reset` (the game was re-initialised), `stopped` (the actor stopped; the connection then closes). Engine output (transient: carries the current `version` without bumping it, never replayed on reconnect): `engine_info` (parsed info lines: `multipv`, `depth`, `score`, `pv_uci`, `pv_san`, `nodes`, `nps` …), `engine_line` (every other engine line, raw), `engine_error`, `engine_attached`, `engine_detached`, `engine_analysis_done` (an analysis with limits ended by itself: `bestmove`, `san`, `lines`). `engine_info` carries `pov` (whose point of view `score` is: the side to move) and `white_score` (the score from White's side). With an engine opponent, its reply to a move arrives as the next `move` event.\n\nLimits (config `[websocket]`): a frame whose header announces more than `max_frame_bytes`, or a message (a frame and its continuation frames) over `max_message_bytes`, closes the connection with code 1009 at once, before its payload is read; more than `max_messages_per_sec` frames in a second with 1008 (policy), a client silent for `client_timeout_secs` (the server pings every `heartbeat_secs`) with 1001; a client that cannot keep up with the events is disconnected (1001) and catches up by reconnecting with `?since=`.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::WsHandshake, crate::api::routes::ws::WsQuery),
    security((), ("tokenQuery" = []), ("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-optional"))),
    responses(
        (status = 101, description = "Switching protocols; frames as described above (schemas `WsClientFrame` and `WsServerFrame`)."),
        (status = 400, description = "Not a WebSocket handshake (empty body), or an invalid query (`invalid_request`).", body = crate::api::error::ErrorBody<'static>),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 426, description = "`Sec-WebSocket-Version` is not 13 (`invalid_request`).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`quota_exceeded`: this client holds `quotas.max_sockets` WebSocket connections already.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`too_many_connections`: the server holds `websocket.max_connections` WebSocket connections already.", body = crate::api::error::ErrorBody<'static>),
        (status = 401, description = "`api_key_required`: an `X-API-Key` header naming no configured key (`auth.api_keys`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn connect(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: web::Query<WsQuery>,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    let game = state.games.get(&id).await.map_err(ApiError::from)?;
    let client = client_key(&req, &state.config.auth, false)?;
    let permit = state
        .admission
        .acquire_socket(&client)
        .map_err(ApiError::from)?;
    let token = socket_bearer(&req);
    let ws = state.config.websocket.clone();
    let (response, session, stream) = ws_limits::handle(&req, body, &ws).await?;
    let (tx, rx) = mpsc::channel(QUEUE);
    let subscription = game
        .subscribe(token.clone(), query.since, tx)
        .await
        .map_err(ApiError::from)?;
    let connection = Connection {
        game,
        token,
        session,
        limits: ws,
        state: state.clone(),
        client,
        role: subscription.caller,
        _permit: permit,
    };
    actix_web::rt::spawn(connection.run(stream, rx, subscription, query.since.is_some()));
    Ok(response)
}

struct Connection {
    game: GameHandle,
    token: Option<String>,
    session: Session,
    limits: crate::config::WebSocketConfig,
    /// The server (for chat limits and rematches).
    state: web::Data<AppState>,
    /// Who the client is (its chat rate, its games).
    client: crate::admission::ClientKey,
    /// The connection's role in the game.
    role: Caller,
    /// The connection's place in the client's and the server's socket counts.
    _permit: Permit,
}

fn role_name(caller: Caller) -> &'static str {
    match caller {
        Caller::Seat(chessd_core::Color::White) => "white",
        Caller::Seat(chessd_core::Color::Black) => "black",
        Caller::Admin => "admin",
        Caller::Anonymous => "spectator",
    }
}

impl Connection {
    async fn send_json(&mut self, value: &serde_json::Value) -> bool {
        self.session.text(value.to_string()).await.is_ok()
    }

    async fn run(
        mut self,
        mut stream: ws_limits::LimitedStream,
        mut rx: mpsc::Receiver<Arc<EventFrame>>,
        sub: crate::game::command::Subscription,
        reconnecting: bool,
    ) {
        let hello = serde_json::json!({
            "type": "hello",
            "role": role_name(sub.caller),
            "version": sub.snapshot.version,
        });
        let mut ok = self.send_json(&hello).await;
        match sub.missed {
            Some(events) => {
                for e in events {
                    ok = ok && self.session.text(e.json.clone()).await.is_ok();
                }
            }
            None => {
                // A reconnecting client whose missed events are gone gets a resync.
                let kind = if reconnecting { "resync" } else { "state" };
                let mut state =
                    serde_json::to_value(GameView::from(&sub.snapshot)).unwrap_or_default();
                state["type"] = serde_json::json!(kind);
                ok = ok && self.send_json(&state).await;
            }
        }
        let mut heartbeat = Heartbeat::new(&self.limits);
        let mut rate = MessageRate::new(&self.limits);
        let mut close: Option<CloseReason> = None;

        while ok {
            tokio::select! {
                event = rx.recv() => match event {
                    Some(frame) => {
                        ok = self.session.text(frame.json.clone()).await.is_ok();
                        if ok {
                            ok = self.after_event(&frame).await;
                        }
                    }
                    // The game dropped us (queue full) or stopped: close; the client reconnects.
                    None => { close = Some(CloseReason { code: CloseCode::Away, description: Some("game event stream ended".into()) }); break; }
                },
                msg = stream.recv() => {
                    heartbeat.seen();
                    let Some(msg) = msg else { break };
                    let msg = match msg {
                        Ok(m) => m,
                        // Over the limits (1009) or a protocol error (1002).
                        Err(reason) => { close = Some(reason); break; }
                    };
                    // Rate limit: at most max_messages_per_sec frames per second.
                    if let Err(reason) = rate.admit() { close = Some(reason); break; }
                    match msg {
                        AggregatedMessage::Text(text) => ok = self.handle_text(&text).await,
                        AggregatedMessage::Binary(_) => ok = self.send_json(&serde_json::json!({"type": "error", "code": "invalid_request", "message": "binary frames are not accepted"})).await,
                        AggregatedMessage::Ping(bytes) => ok = self.session.pong(&bytes).await.is_ok(),
                        AggregatedMessage::Pong(_) => {}
                        AggregatedMessage::Close(_) => break,
                    }
                },
                _ = heartbeat.ticker.tick() => {
                    if let Some(reason) = heartbeat.expired() { close = Some(reason); break; }
                    ok = self.session.ping(b"").await.is_ok();
                }
            }
        }
        self.game.unsubscribe(sub.id);
        let _ = self.session.close(close).await;
    }

    async fn handle_text(&mut self, text: &str) -> bool {
        let mut if_version = None;
        let frame = match parse_client_frame(text) {
            Ok(f) => f,
            Err(e) => {
                return self
                    .send_json(&serde_json::json!({"type": "error", "ack": null, "code": "invalid_request", "message": format!("invalid frame: {e}")}))
                    .await
            }
        };
        let (action, ack) = match frame {
            ClientFrame::Ping { ack } => {
                return self.send_json(&serde_json::json!({"type": "pong", "ack": ack})).await;
            }
            ClientFrame::Move {
                uci,
                san,
                version,
                ack,
            } => match (uci, san) {
                (Some(u), None) => {
                    if_version = version;
                    (Action::Move(MoveInput::Uci(u)), ack)
                }
                (None, Some(s)) => {
                    if_version = version;
                    (Action::Move(MoveInput::San(s)), ack)
                }
                _ => {
                    return self
                        .send_json(&serde_json::json!({"type": "error", "ack": ack, "code": "invalid_request", "message": "a move needs exactly one of uci or san"}))
                        .await
                }
            },
            ClientFrame::Resign { ack } => (Action::Resign(None), ack),
            ClientFrame::Abort { ack } => (Action::Abort, ack),
            ClientFrame::TakebackOffer { ack } => (Action::OfferTakeback, ack),
            ClientFrame::TakebackAccept { ack } => (Action::AcceptTakeback, ack),
            ClientFrame::TakebackDecline { ack } => (Action::DeclineTakeback, ack),
            ClientFrame::RematchDecline { ack } => (Action::DeclineRematch, ack),
            ClientFrame::RematchOffer { ack } => return self.rematch(true, ack).await,
            ClientFrame::RematchAccept { ack } => return self.rematch(false, ack).await,
            ClientFrame::Chat { text, ack } => return self.chat(&text, ack).await,
            ClientFrame::DrawOffer { ack } => (Action::OfferDraw, ack),
            ClientFrame::DrawAccept { ack } => (Action::AcceptDraw, ack),
            ClientFrame::DrawDecline { ack } => (Action::DeclineDraw, ack),
            ClientFrame::DrawClaim { ack } => (Action::ClaimDraw, ack),
            ClientFrame::Duel {
                action,
                stones,
                gain,
                side,
                ack,
            } => {
                let body = DuelBody {
                    action,
                    stones,
                    gain,
                    side,
                };
                match body.step() {
                    Ok(step) => (Action::Duel(step), ack),
                    Err(e) => {
                        return self
                            .send_json(&serde_json::json!({"type": "error", "ack": ack, "code": e.code.as_str(), "message": e.message}))
                            .await
                    }
                }
            }
        };
        let key = match command_key(text, &ack) {
            Ok(key) => key,
            Err(e) => return self.send_error(&ack, e).await,
        };
        let conditions = Conditions { key, if_version };
        let answer = match self
            .game
            .act_under(self.token.clone(), action, conditions)
            .await
        {
            Ok(Acted::Done(reply)) => ack_frame(&ack, &reply),
            Ok(Acted::Replayed(kept)) => {
                let mut frame: serde_json::Value =
                    serde_json::from_str(&kept.body).unwrap_or_default();
                frame["replayed"] = true.into();
                frame
            }
            Err(e) => return self.send_error(&ack, ApiError::from(e)).await,
        };
        self.send_json(&answer).await
    }

    /// After an event went out: a `rematch` event is followed, on a seat's connection, by
    /// that seat's own `rematch_seat` (its secret in the rematch, made from its secret here).
    async fn after_event(&mut self, frame: &EventFrame) -> bool {
        let (Caller::Seat(me), Some(token)) = (self.role, self.token.as_deref()) else {
            return true;
        };
        if !frame.json.contains("\"type\":\"rematch\"") {
            return true;
        }
        let event: serde_json::Value = serde_json::from_str(&frame.json).unwrap_or_default();
        let Some(id) = event["game"].as_str() else {
            return true;
        };
        let seat = crate::api::routes::in_game::RematchSeat {
            id: id.to_string(),
            color: (!me).name().to_string(),
            secret: crate::game::secrets::rematch_secret(token, self.game.id()),
        };
        let mut value = serde_json::to_value(seat).unwrap_or_default();
        value["type"] = "rematch_seat".into();
        self.send_json(&value).await
    }

    /// `rematch_offer` (which accepts a waiting offer of the opponent) or `rematch_accept`:
    /// an accept is answered with the caller's seat in the rematch.
    async fn rematch(&mut self, offer: bool, ack: Option<serde_json::Value>) -> bool {
        let Some(token) = self.token.clone() else {
            return self
                .send_error(&ack, crate::game::command::Need::Seat.refusal(false).into())
                .await;
        };
        let me = match self.role {
            Caller::Seat(me) => me,
            _ => {
                return self
                    .send_error(&ack, crate::game::command::Need::Seat.refusal(true).into())
                    .await
            }
        };
        if offer {
            let seat = crate::game::secrets::digest(&crate::game::secrets::rematch_secret(
                &token,
                self.game.id(),
            ));
            let reply = match self
                .game
                .act(Some(token.clone()), Action::OfferRematch(seat))
                .await
            {
                Ok(reply) => reply,
                Err(e) => return self.send_error(&ack, e.into()).await,
            };
            let offers = &reply.snapshot.offers;
            let theirs = matches!(offers.rematch, Some((by, _)) if by != me);
            if !theirs && offers.rematch_game.is_none() {
                return self.send_json(&ack_frame(&ack, &reply)).await;
            }
        }
        let state = self.state.clone();
        match crate::api::routes::in_game::accept_rematch(&state, &self.client, &self.game, &token)
            .await
        {
            Ok((seat, _)) => {
                let frame = serde_json::json!({"type": "ack", "ack": ack, "rematch": seat});
                self.send_json(&frame).await
            }
            Err(e) => self.send_error(&ack, e).await,
        }
    }

    /// `chat`: a message to the caller's room, answered with `ack` (or `error`).
    async fn chat(&mut self, text: &str, ack: Option<serde_json::Value>) -> bool {
        let state = self.state.clone();
        match crate::api::routes::in_game::send_chat(
            &state,
            &self.client,
            &self.game,
            self.token.clone(),
            text,
        )
        .await
        {
            Ok(_) => {
                self.send_json(&serde_json::json!({"type": "ack", "ack": ack}))
                    .await
            }
            Err(e) => self.send_error(&ack, e).await,
        }
    }

    /// Answers a command with an `error` frame.
    async fn send_error(&mut self, ack: &Option<serde_json::Value>, e: ApiError) -> bool {
        crate::metrics::count_error(e.code.as_str());
        let mut frame = serde_json::json!({"type": "error", "ack": ack, "code": e.code.as_str(), "message": e.message});
        if let Some(reason) = e.reason {
            frame["reason"] = reason.into();
        }
        self.send_json(&frame).await
    }
}

/// The `ack` frame answering a command carried out.
fn ack_frame(ack: &Option<serde_json::Value>, reply: &ActionReply) -> serde_json::Value {
    serde_json::json!({"type": "ack", "ack": ack, "version": reply.snapshot.version})
}

/// The idempotency key a command's `ack` makes (none without one): a command sent again with
/// the same `ack` and the same fields is answered as the first time and changes nothing.
fn command_key(
    text: &str,
    ack: &Option<serde_json::Value>,
) -> Result<Option<IdempotencyKey>, ApiError> {
    let Some(ack) = ack.as_ref().filter(|a| !a.is_null()) else {
        return Ok(None);
    };
    let key = format!("ws:{ack}");
    if !conditions::valid_key(&key) {
        return Err(ApiError::invalid_request(format!(
            "a command's ack is its idempotency key: at most {} characters of JSON without spaces",
            MAX_KEY_LEN - 3
        )));
    }
    // What the command asks: every field but its ack.
    let mut fields: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    if let Some(map) = fields.as_object_mut() {
        map.remove("ack");
    }
    let ack = Some(ack.clone());
    Ok(Some(IdempotencyKey {
        key,
        fingerprint: conditions::fingerprint("ws", fields.to_string().as_bytes()),
        render: Arc::new(move |reply: Result<&ActionReply, &GameError>| KeptAnswer {
            status: 200,
            body: reply
                .map(|reply| ack_frame(&ack, reply).to_string())
                .unwrap_or_default()
                .into(),
        }),
    }))
}
