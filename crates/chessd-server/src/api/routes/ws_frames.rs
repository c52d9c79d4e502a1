//! The WebSocket's frames as OpenAPI schemas (schema-only: the connection writes its frames
//! with `serde_json`), for the document's `WsServerFrame`.

#![allow(
    dead_code,
    reason = "schema-only types: utoipa reads their shape, nothing builds them"
)]

use crate::api::error::ErrorCode;
use crate::schemas::IllegalReasonName;
use serde::Serialize;
use utoipa::{
    openapi::{ObjectBuilder, RefOr, Schema},
    PartialSchema, ToSchema,
};

/// The role a WebSocket connection holds.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum WsRole {
    /// White's seat.
    White,
    /// Black's seat.
    Black,
    /// The admin.
    Admin,
    /// No secret: watches only.
    Spectator,
}

/// First frame of every connection.
#[derive(ToSchema)]
pub(crate) struct WsHello {
    /// `hello`
    #[schema(rename = "type", inline)]
    pub kind: WsHelloType,
    /// The connection's role.
    pub role: WsRole,
    /// The game's version.
    pub version: u64,
}

/// `hello`
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WsHelloType {
    /// The only one.
    Hello,
}

/// `state` (a new connection) or `resync` (a reconnection whose missed events are no longer
/// held): the whole game view plus `type`.
#[derive(ToSchema)]
pub(crate) struct WsState {
    /// `state` or `resync`.
    #[schema(rename = "type", inline)]
    pub kind: WsStateType,
    /// The game.
    #[schema(inline)]
    pub game: crate::api::routes::game_view::GameView,
}

/// `state` or `resync`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WsStateType {
    /// A new connection.
    State,
    /// A reconnection whose missed events are no longer held.
    Resync,
}

/// A command was done (sent before the event it causes), refused, or a `ping` answered.
#[derive(ToSchema)]
pub(crate) struct WsReply {
    /// `ack`, `error` or `pong`.
    #[schema(rename = "type", inline)]
    pub kind: WsReplyType,
    /// The command's `ack`, echoed (any JSON value).
    pub ack: Option<serde_json::Value>,
    /// The game's version after the command (`ack`).
    pub version: Option<u64>,
    /// Why the command was refused (`error`).
    pub code: Option<ErrorCode>,
    /// What went wrong (`error`).
    pub message: Option<String>,
    /// Why a move is illegal (`error` with `illegal_move`).
    pub reason: Option<IllegalReasonName>,
}

/// The kinds of answers to commands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WsReplyType {
    /// A command was done.
    Ack,
    /// A command was refused (nothing changed) or a frame was invalid.
    Error,
    /// The answer to `ping`.
    Pong,
}

/// A game event with the game's version after it (engine events, which are transient, carry
/// the current version).
#[derive(ToSchema)]
pub(crate) struct WsEvent {
    /// The game's version.
    pub version: u64,
    /// The event.
    #[schema(inline)]
    pub event: crate::game::events::EventKind,
}

/// Every frame the server sends on a game's WebSocket.
pub(crate) struct WsServerFrame;

impl PartialSchema for WsServerFrame {
    fn schema() -> RefOr<Schema> {
        // The state and event frames are their parts side by side in one object (serde's
        // flatten): the parts' schemas, all of them.
        let flat = |parts: Vec<RefOr<Schema>>| -> RefOr<Schema> {
            let mut all = utoipa::openapi::AllOfBuilder::new();
            for part in parts {
                all = all.item(part);
            }
            all.into()
        };
        let state = flat(vec![
            crate::api::routes::game_view::GameView::schema(),
            ObjectBuilder::new()
                .property("type", WsStateType::schema())
                .required("type")
                .into(),
        ]);
        let event = flat(vec![
            crate::game::events::EventKind::schema(),
            ObjectBuilder::new()
                .property("version", u64::schema())
                .required("version")
                .into(),
        ]);
        utoipa::openapi::OneOfBuilder::new()
            .description(Some("Every frame the server sends on a game's WebSocket."))
            .item(WsHello::schema())
            .item(state)
            .item(WsReply::schema())
            .item(event)
            .into()
    }
}

impl ToSchema for WsServerFrame {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        <crate::api::routes::game_view::GameView as ToSchema>::schemas(schemas);
        schemas.push((
            "GameView".to_string(),
            crate::api::routes::game_view::GameView::schema(),
        ));
        <crate::game::events::EventKind as ToSchema>::schemas(schemas);
        <WsReply as ToSchema>::schemas(schemas);
        <WsHello as ToSchema>::schemas(schemas);
    }
}
