//! The frames a WebSocket client sends a game (`/v1/games/{id}/ws`), typed: a JSON object
//! whose `type` names the command. The server's answers and events are the server's own types.

use chessd_core::Color;
use serde::Deserialize;

/// A client frame: a JSON object whose `type` names the command. Every command may carry an
/// `ack` id (any JSON value), echoed in its answer; unknown fields are refused.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "utoipa", schema(as = WsClientFrame))]
pub enum ClientFrame {
    /// `move`: play a move, given as exactly one of `uci` or `san` (checked when handled).
    Move {
        /// The move in UCI notation.
        uci: Option<String>,
        /// The move in SAN.
        san: Option<String>,
        /// Refuse the move unless the game is at this version (`version_mismatch`).
        version: Option<u64>,
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `resign`.
    Resign {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `draw_offer`.
    DrawOffer {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `draw_accept`.
    DrawAccept {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `draw_decline`.
    DrawDecline {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `draw_claim`.
    DrawClaim {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `duel`: a Chess 2 duel step, as `POST /v1/games/{id}/duel` takes it.
    Duel {
        /// `challenge`, `decline` or `bid`.
        action: String,
        /// A bid's stones.
        stones: Option<u8>,
        /// The attacker's choice if both bid 0.
        gain: Option<bool>,
        /// The side that bids (the admin names it).
        #[cfg_attr(feature = "utoipa", schema(value_type = Option<crate::schema::Side>))]
        side: Option<Color>,
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `abort`: abort the game in its first moves.
    Abort {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `takeback_offer`: offer to take back the last move (accepts the opponent's offer).
    TakebackOffer {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `takeback_accept`.
    TakebackAccept {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `takeback_decline`.
    TakebackDecline {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `rematch_offer`: offer a rematch of the finished game (accepts the opponent's offer).
    RematchOffer {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `rematch_accept`: the answer's `ack` frame carries the rematch's `id`, `color` and `secret`.
    RematchAccept {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `rematch_decline`.
    RematchDecline {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `chat`: a message to the caller's room (players' for a seat, else spectators').
    Chat {
        /// The message.
        text: String,
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
    /// `ping`: answered by `pong`.
    Ping {
        /// The client's id for the answer.
        ack: Option<serde_json::Value>,
    },
}

/// Parses the text of one WebSocket client frame (what the server does with every text frame it
/// receives). Only a JSON object is a frame: serde would also read a struct from an array of its
/// fields in order (`["ping", 1]`), which the protocol does not define.
///
/// ```
/// use chessd_protocol::ws::{parse_client_frame, ClientFrame};
/// assert!(matches!(parse_client_frame(r#" {"type": "ping"}"#), Ok(ClientFrame::Ping { .. })));
/// assert!(parse_client_frame(r#"["ping", 1]"#).is_err());
/// ```
pub fn parse_client_frame(text: &str) -> Result<ClientFrame, serde_json::Error> {
    let json_whitespace = [' ', '\t', '\n', '\r'];
    if !text.trim_start_matches(json_whitespace).starts_with('{') {
        return Err(serde::de::Error::custom("a frame is a JSON object"));
    }
    serde_json::from_str(text)
}
