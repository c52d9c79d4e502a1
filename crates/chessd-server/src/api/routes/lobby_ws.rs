//! `/v1/lobby/ws`: the lobby socket (actix-ws), apart from the game sockets as lila-ws keeps them.
//!
//! On connect the server sends `seeks` (every open seek), then `seek_added` and `seek_removed`
//! as seeks open and close on any node (see `lobby::watch`: each node reads the store every
//! `lobby.poll_ms` while lobby sockets are open). A seek's owner sends `{"type": "hold", "id",
//! "secret"}`: the seek then lives while the socket is open (and `lobby.seek_grace_secs` after),
//! and when it is accepted the socket gets `accepted` with the game and the owner's seat.
//! Quick pairing's entries are held the same way (`hold_pairing`), and their pairing is told
//! (`paired`, or `pairing_failed`).

use std::{collections::HashMap, sync::Arc};

use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseReason, Session};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast;

use crate::{
    admission::Permit,
    api::{
        client::client_key,
        error::ApiError,
        routes::{
            pairing::{self, EntryView},
            seeks::{owner_seat, SeekView},
        },
        ws_limits,
        ws_pace::{Heartbeat, MessageRate},
    },
    lobby::{pairing::HoldGuard as PairingHold, HoldGuard, Lobby, LobbyEvent, SocketGuard},
    store::pairing::EntryRow,
    AppState,
};

/// What a lobby socket's client sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum LobbyFrame {
    /// Holds the client's own seek (with its secret).
    Hold {
        /// The seek's id.
        id: String,
        /// The seek's secret.
        secret: String,
    },
    /// Holds the client's own quick-pairing entry (with its secret).
    HoldPairing {
        /// The entry's id.
        id: String,
        /// The entry's secret.
        secret: String,
    },
    /// Answered with `pong`.
    Ping,
}

/// Seeks (and, apart, pairing entries) one socket may hold at once.
const MAX_HELD: usize = 16;

/// `GET /v1/lobby/ws`
#[utoipa::path(
    get,
    path = "/v1/lobby/ws",
    operation_id = "connectLobby",
    tag = "lobby",
    summary = "WebSocket: the lobby, live",
    description = "The lobby over WebSocket (JSON text frames with a `type` field). On connect the server sends `{\"type\": \"seeks\", \"seeks\": [SeekView…]}` (every open seek), then `{\"type\": \"seek_added\", \"seek\": SeekView}` and `{\"type\": \"seek_removed\", \"id\": …}` as seeks open and close on any node of a cluster (each node reads the seeks from the store every `lobby.poll_ms` while lobby sockets are open, so changes arrive within about that).\n\nA seek's owner sends `{\"type\": \"hold\", \"id\": …, \"secret\": …}` (answered `{\"type\": \"holding\", \"id\": …}` or `error`): the seek then lives while this socket is open and `lobby.seek_grace_secs` after it closes (instead of `lobby.seek_ttl_secs`), and when another player accepts it the socket gets `{\"type\": \"accepted\", \"seek\": …, \"game\": {\"id\", \"color\", \"secret\"}}`: the game and the owner's seat. `{\"type\": \"ping\"}` is answered `pong`. Limits as for game sockets (`[websocket]`, `quotas.max_sockets`); a socket holds at most 16 seeks.\n\nA quick-pairing entry's holder sends `{\"type\": \"hold_pairing\", \"id\": …, \"secret\": …}` (answered `{\"type\": \"holding_pairing\", \"id\": …, \"pool\": …}` or `error`): the entry then lives while this socket is open and `pairing.grace_secs` after it closes, and once paired the socket gets `{\"type\": \"paired\", \"entry\": …, \"pool\": …, \"game\": {\"id\", \"color\", \"secret\"}}` (or `{\"type\": \"pairing_failed\", \"entry\", \"pool\", \"code\", \"message\"}` when its game could not be made). A socket holds at most 16 entries.",
    responses(
        (status = 101, description = "Switching protocols; frames as described above."),
        (status = 400, description = "Not a WebSocket handshake (`invalid_request`).", body = crate::api::error::ErrorBody<'static>),
        (status = 401, description = "`api_key_required`: an `X-API-Key` header naming no configured key.", body = crate::api::error::ErrorBody<'static>),
        (status = 426, description = "`Sec-WebSocket-Version` is not 13 (`invalid_request`).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`quota_exceeded`: this client holds `quotas.max_sockets` WebSocket connections already.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`too_many_connections` or `lobby_unavailable` (no database).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn connect(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    let client = client_key(&req, &state.config.auth, false)?;
    let (events, guard) = state.lobby.subscribe().map_err(ApiError::from)?;
    let settled = state.pairing.subscribe();
    let permit = state
        .admission
        .acquire_socket(&client)
        .map_err(ApiError::from)?;
    let limits = state.config.websocket.clone();
    let (response, session, stream) = ws_limits::handle(&req, body, &limits).await?;
    let socket = Socket {
        lobby: state.lobby.clone(),
        state: state.clone(),
        entries: HashMap::new(),
        session,
        limits,
        held: HashMap::new(),
        _guard: guard,
        _permit: permit,
    };
    actix_web::rt::spawn(socket.run(stream, events, settled));
    Ok(response)
}

/// One lobby socket.
struct Socket {
    lobby: Lobby,
    session: Session,
    limits: crate::config::WebSocketConfig,
    /// The seeks it holds: their secrets and holds.
    held: HashMap<String, (String, HoldGuard)>,
    /// The app (quick pairing's pairer makes games through it).
    state: web::Data<AppState>,
    /// The pairing entries it holds: their secrets and holds.
    entries: HashMap<String, (String, PairingHold)>,
    _guard: SocketGuard,
    _permit: Permit,
}

impl Socket {
    async fn send(&mut self, value: serde_json::Value) -> bool {
        self.session.text(value.to_string()).await.is_ok()
    }

    /// The whole list of open seeks.
    async fn send_list(&mut self) -> bool {
        match self.lobby.open_seeks().await {
            Ok(rows) => {
                let seeks: Vec<SeekView> = rows.iter().map(SeekView::of).collect();
                self.send(json!({"type": "seeks", "seeks": seeks})).await
            }
            Err(e) => {
                let e = ApiError::from(e);
                self.send(json!({"type": "error", "code": e.code.as_str(), "message": e.message}))
                    .await
            }
        }
    }

    async fn run(
        mut self,
        mut stream: ws_limits::LimitedStream,
        mut events: broadcast::Receiver<LobbyEvent>,
        mut settled: broadcast::Receiver<Arc<EntryRow>>,
    ) {
        let mut ok = self.send_list().await;
        let mut heartbeat = Heartbeat::new(&self.limits);
        let mut rate = MessageRate::new(&self.limits);
        let mut close: Option<CloseReason> = None;
        while ok {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => ok = self.on_event(event).await,
                    // Too slow: events were missed, so the whole list again.
                    Err(broadcast::error::RecvError::Lagged(_)) => ok = self.send_list().await,
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                entry = settled.recv() => match entry {
                    Ok(entry) => ok = self.on_settled(&entry).await,
                    // Too slow: read the held entries themselves.
                    Err(broadcast::error::RecvError::Lagged(_)) => ok = self.reread_entries().await,
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                msg = stream.recv() => {
                    heartbeat.seen();
                    let Some(msg) = msg else { break };
                    let msg = match msg {
                        Ok(m) => m,
                        Err(reason) => { close = Some(reason); break; }
                    };
                    if let Err(reason) = rate.admit() { close = Some(reason); break; }
                    ok = match msg {
                        AggregatedMessage::Text(text) => self.on_text(&text).await,
                        AggregatedMessage::Binary(_) => self.send(json!({"type": "error", "code": "invalid_request", "message": "binary frames are not accepted"})).await,
                        AggregatedMessage::Ping(bytes) => self.session.pong(&bytes).await.is_ok(),
                        AggregatedMessage::Pong(_) => true,
                        AggregatedMessage::Close(_) => break,
                    };
                },
                _ = heartbeat.ticker.tick() => {
                    if let Some(reason) = heartbeat.expired() { close = Some(reason); break; }
                    ok = self.session.ping(b"").await.is_ok();
                }
            }
        }
        let _ = self.session.close(close).await;
    }

    async fn on_event(&mut self, event: LobbyEvent) -> bool {
        match event {
            LobbyEvent::Added(row) => {
                self.send(json!({"type": "seek_added", "seek": SeekView::of(&row)}))
                    .await
            }
            LobbyEvent::Removed(id) => self.send(json!({"type": "seek_removed", "id": id})).await,
            LobbyEvent::Accepted(row) => match self.held.remove(&row.id) {
                Some((secret, _hold)) => {
                    let game = owner_seat(&row, &secret);
                    self.send(json!({"type": "accepted", "seek": row.id, "game": game}))
                        .await
                }
                None => true,
            },
        }
    }

    /// Tells the holder of a settled entry (if this socket holds it).
    async fn on_settled(&mut self, entry: &EntryRow) -> bool {
        let Some((secret, _hold)) = self.entries.remove(&entry.id) else {
            return true;
        };
        let view = EntryView::of(entry, &secret);
        match (view.game, view.error) {
            (Some(game), _) => {
                self.send(json!({"type": "paired", "entry": entry.id, "pool": entry.pool, "game": game}))
                    .await
            }
            (None, Some(e)) => {
                self.send(json!({"type": "pairing_failed", "entry": entry.id, "pool": entry.pool, "code": e.code, "message": e.message}))
                    .await
            }
            (None, None) => true,
        }
    }

    /// Reads each held entry again and tells those that settled.
    async fn reread_entries(&mut self) -> bool {
        let held: Vec<(String, String)> = self
            .entries
            .iter()
            .map(|(id, (secret, _))| (id.clone(), secret.clone()))
            .collect();
        for (id, secret) in held {
            let Ok(entry) = self.state.pairing.owned(None, &id, Some(&secret)).await else {
                continue;
            };
            let settled = entry.status == "paired" || entry.status == "failed";
            if settled && !self.on_settled(&entry).await {
                return false;
            }
        }
        true
    }

    /// Holds a pairing entry.
    async fn hold_pairing(&mut self, id: String, secret: String) -> bool {
        if self.entries.len() >= MAX_HELD && !self.entries.contains_key(&id) {
            return self
                .send(json!({"type": "error", "id": id, "code": "invalid_request", "message": format!("a lobby socket holds at most {MAX_HELD} pairing entries")}))
                .await;
        }
        let pairing = pairing::started(&self.state).clone();
        match pairing.hold(&id, &secret).await {
            Ok(hold) => {
                let pool = hold.pool().to_string();
                self.entries.insert(id.clone(), (secret, hold));
                self.send(json!({"type": "holding_pairing", "id": id, "pool": pool}))
                    .await
            }
            Err(e) => {
                let e = ApiError::from(e);
                self.send(json!({"type": "error", "id": id, "code": e.code.as_str(), "message": e.message}))
                    .await
            }
        }
    }

    async fn on_text(&mut self, text: &str) -> bool {
        let frame = match serde_json::from_str::<LobbyFrame>(text) {
            Ok(f) => f,
            Err(e) => {
                return self
                    .send(json!({"type": "error", "code": "invalid_request", "message": format!("invalid frame: {e}")}))
                    .await
            }
        };
        match frame {
            LobbyFrame::Ping => self.send(json!({"type": "pong"})).await,
            LobbyFrame::HoldPairing { id, secret } => self.hold_pairing(id, secret).await,
            LobbyFrame::Hold { id, secret } => {
                if self.held.len() >= MAX_HELD && !self.held.contains_key(&id) {
                    return self
                        .send(json!({"type": "error", "id": id, "code": "invalid_request", "message": format!("a lobby socket holds at most {MAX_HELD} seeks")}))
                        .await;
                }
                match self.lobby.hold(&id, &secret).await {
                    Ok(hold) => {
                        self.held.insert(id.clone(), (secret, hold));
                        self.send(json!({"type": "holding", "id": id})).await
                    }
                    Err(e) => {
                        let e = ApiError::from(e);
                        self.send(json!({"type": "error", "id": id, "code": e.code.as_str(), "message": e.message}))
                            .await
                    }
                }
            }
        }
    }
}
