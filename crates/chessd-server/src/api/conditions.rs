//! Exactly-once and conditional game requests over HTTP: `Idempotency-Key` (a repeat gets the
//! first answer, with `Idempotent-Replayed: true`, and changes nothing) and `If-Match` (or a
//! body's `version`: refused with `version_mismatch` once the game has moved on).

use std::sync::Arc;

use actix_web::{http::StatusCode, HttpRequest, HttpResponse};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{
    api::{
        bearer,
        error::{ApiError, ErrorCode},
    },
    game::{
        command::Action,
        idempotency::{Acted, Conditions, IdempotencyKey, KeptAnswer, Render, MAX_KEY_LEN},
        replies::ActionReply,
        GameError,
    },
    AppState,
};

/// The request header naming an idempotency key.
pub(crate) const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The answer header marking a replayed answer.
pub(crate) const REPLAYED: &str = "idempotent-replayed";

/// The key of a request's `Idempotency-Key` header, if it has one: 1 to 64 visible ASCII
/// characters.
pub(crate) fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .ok()
        .filter(|k| valid_key(k))
        .ok_or_else(|| {
            ApiError::invalid_request(format!(
                "Idempotency-Key must be 1 to {MAX_KEY_LEN} visible ASCII characters"
            ))
        })?;
    Ok(Some(key.to_string()))
}

/// Whether `key` may be an idempotency key: 1 to 64 visible ASCII characters.
pub(crate) fn valid_key(key: &str) -> bool {
    !key.is_empty() && key.len() <= MAX_KEY_LEN && key.bytes().all(|b| b.is_ascii_graphic())
}

/// The version a request's `If-Match` header names (`"12"`, `W/"12"` or `12`; `*` names none).
pub(crate) fn if_match(req: &HttpRequest) -> Result<Option<u64>, ApiError> {
    let Some(value) = req.headers().get(actix_web::http::header::IF_MATCH) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default().trim();
    if text == "*" {
        return Ok(None);
    }
    let bare = text.strip_prefix("W/").unwrap_or(text).trim_matches('"');
    bare.parse().map(Some).map_err(|_| {
        ApiError::invalid_request(format!(
            "If-Match must name one game version (\"12\"), not '{text}'"
        ))
    })
}

/// The version a request expects: its `If-Match` header's or its body's. Two different ones
/// cannot both be the game's: `version_mismatch`.
pub(crate) fn expected_version(
    req: &HttpRequest,
    in_body: Option<u64>,
) -> Result<Option<u64>, ApiError> {
    match (if_match(req)?, in_body) {
        (Some(header), Some(body)) if header != body => Err(ApiError::new(
            ErrorCode::VersionMismatch,
            format!(
                "If-Match names version {header} and the body version {body}: the game cannot \
                 be at both"
            ),
        )),
        (header, body) => Ok(header.or(body)),
    }
}

/// A digest of what a request asks: its kind (method and route, or a WebSocket frame's type)
/// and its body, JSON in a canonical form (keys sorted, no spaces), so that a repeat matches
/// whatever its spacing.
pub(crate) fn fingerprint(kind: &str, body: &[u8]) -> [u8; 32] {
    let canonical = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .map(|v| v.to_string().into_bytes());
    let mut digest = Sha256::new();
    digest.update(kind.as_bytes());
    digest.update([0]);
    digest.update(canonical.as_deref().unwrap_or(body));
    digest.finalize().into()
}

/// Renders a game's reply through `view` as a status and JSON body (an error's own JSON
/// when `view` fails, or when the request ended in an error after changing the game).
pub(crate) fn render<R, T, F>(view: F) -> Render<R>
where
    T: Serialize,
    F: Fn(&R) -> Result<T, ApiError> + Send + Sync + 'static,
{
    Arc::new(move |reply: Result<&R, &GameError>| {
        let answer = match reply {
            Ok(reply) => view(reply).and_then(|v| {
                serde_json::to_string(&v).map_err(|e| ApiError::internal(format!("a view: {e}")))
            }),
            Err(e) => Err(ApiError::from(e.clone())),
        };
        match answer {
            Ok(body) => KeptAnswer {
                status: 200,
                body: body.into(),
            },
            Err(e) => KeptAnswer {
                status: e.code.status().as_u16(),
                body: e.body_json().into(),
            },
        }
    })
}

/// The HTTP answer of a kept (or fresh) answer.
pub(crate) fn respond(answer: &KeptAnswer, replayed: bool) -> HttpResponse {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut out = HttpResponse::build(status);
    out.content_type("application/json");
    if replayed {
        out.insert_header((REPLAYED, "true"));
    }
    if !status.is_success() {
        let code = serde_json::from_str::<serde_json::Value>(&answer.body)
            .ok()
            .and_then(|v| v["error"]["code"].as_str().map(str::to_string));
        crate::metrics::count_error(code.as_deref().unwrap_or("internal"));
    }
    out.body(answer.body.to_string())
}

/// A game route that changes the game: carries `action` out on game `raw` as the holder of
/// the request's bearer secret, once only when the request has an `Idempotency-Key`, and only
/// at the version `If-Match` (or `body_version`) names. `body` (the parsed request body) is what
/// the key's fingerprint covers beside the route; `view` renders the answer.
pub(crate) async fn act<B, T, F>(
    state: &AppState,
    req: &HttpRequest,
    raw: &str,
    action: Action,
    body: &B,
    body_version: Option<u64>,
    view: F,
) -> Result<HttpResponse, ApiError>
where
    B: Serialize,
    T: Serialize,
    F: Fn(&ActionReply) -> Result<T, ApiError> + Send + Sync + 'static,
{
    let render = render(view);
    let conditions = conditions(req, body, body_version, &render)?;
    let game = state.games.get(raw).await?;
    match game.act_under(bearer(req), action, conditions).await? {
        Acted::Done(reply) => Ok(respond(&render(Ok(&reply)), false)),
        Acted::Replayed(answer) => Ok(respond(&answer, true)),
    }
}

/// The conditions a request's headers (and its body's `version`) set, its answers rendered by
/// `render`.
pub(crate) fn conditions<B: Serialize, R>(
    req: &HttpRequest,
    body: &B,
    body_version: Option<u64>,
    render: &Render<R>,
) -> Result<Conditions<R>, ApiError> {
    let key = match idempotency_key(req)? {
        Some(key) => {
            let body = serde_json::to_vec(body).map_err(ApiError::internal)?;
            Some(IdempotencyKey {
                key,
                fingerprint: fingerprint(&route_kind(req), &body),
                render: render.clone(),
            })
        }
        None => None,
    };
    Ok(Conditions {
        key,
        if_version: expected_version(req, body_version)?,
    })
}

/// The method and the route of a game request, without the game's id (`POST moves`).
fn route_kind(req: &HttpRequest) -> String {
    let path = req.path();
    let route = path
        .strip_prefix("/v1/games/")
        .and_then(|rest| rest.split_once('/'))
        .map_or("", |(_, route)| route);
    format!("{} {route}", req.method())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_ignores_json_spacing_and_key_order_but_not_values_or_routes() {
        let a = fingerprint("POST moves", br#"{"uci": "e2e4", "version": 3}"#);
        let b = fingerprint("POST moves", br#"{"version":3,"uci":"e2e4"}"#);
        assert_eq!(a, b);
        assert_ne!(
            a,
            fingerprint("POST moves", br#"{"uci":"e2e4","version":4}"#)
        );
        assert_ne!(
            a,
            fingerprint("POST resign", br#"{"uci":"e2e4","version":3}"#)
        );
        assert_ne!(
            fingerprint("POST draw-offer", b""),
            fingerprint("POST resign", b"")
        );
    }

    #[test]
    fn keys_are_short_visible_ascii() {
        assert!(valid_key("a"));
        assert!(valid_key(&"k".repeat(64)));
        assert!(!valid_key(&"k".repeat(65)));
        assert!(!valid_key(""));
        assert!(!valid_key("with space"));
        assert!(!valid_key("é"));
    }
}
