//! The WebSocket side of forwarding: a client's WebSocket for a game another node owns is
//! connected through to the owner's, frame by frame, both ways. The forwarding node holds a
//! connection too: it counts against the client's sockets here, and the client's frames are
//! held to the same limits as on the owner (`[websocket]`), before their payload is read.

use std::time::Duration;

use actix_web::{
    http::{header, StatusCode},
    web, HttpRequest, HttpResponse,
};
use futures_util::{SinkExt, StreamExt};

use super::{client_headers, forwarded_for, unreachable_owner, FORWARDED};
use crate::{
    api::{
        client::client_key,
        error::{ApiError, ErrorCode},
        ws_limits,
    },
    AppState,
};

/// Connects to the owner's WebSocket first (so that its refusal, a wrong secret or an unknown
/// game, reaches the client as an HTTP error), then accepts the client's and passes frames
/// both ways until either side closes.
pub(super) async fn forward_ws(
    req: &HttpRequest,
    payload: web::Payload,
    url: &str,
    node: &str,
) -> Result<HttpResponse, ApiError> {
    let Some(state) = req.app_data::<web::Data<AppState>>() else {
        return Err(ApiError::internal("forwarding without the app state"));
    };
    let client = client_key(req, &state.config.auth, false)?;
    let permit = state.admission.acquire_socket(&client)?;
    let limits = state.config.websocket.clone();
    let ws_url = url.replacen("http://", "ws://", 1);
    let mut out = awc::Client::builder()
        .timeout(Duration::from_secs(10))
        .finish()
        .ws(ws_url.as_str())
        .max_frame_size(16 * 1024 * 1024)
        .set_header(FORWARDED, node.to_string())
        .set_header("x-forwarded-for", forwarded_for(req));
    for (name, value) in client_headers(req, node) {
        out = out.set_header(name, value);
    }
    if let Some(auth) = req.headers().get(header::AUTHORIZATION) {
        out = out.set_header(header::AUTHORIZATION, auth.clone());
    }
    let (_, upstream) = match out.connect().await {
        Ok(connected) => connected,
        Err(awc::error::WsClientError::InvalidResponseStatus(status)) => {
            return Err(refused_upgrade(status));
        }
        Err(e) => return Err(unreachable_owner(url, e)),
    };
    let (response, mut session, mut client) = ws_limits::handle(req, payload, &limits)
        .await
        .map_err(|e| ApiError::invalid_request(format!("WebSocket handshake: {e}")))?;
    let (mut up_tx, mut up_rx) = upstream.split();
    actix_web::rt::spawn(async move {
        use actix_ws::AggregatedMessage as In;
        use awc::ws::{Frame, Message as Out};
        // The connection's place in the client's and the server's socket counts.
        let _permit = permit;
        loop {
            tokio::select! {
                from_client = client.recv() => {
                    let out = match from_client {
                        Some(Ok(In::Text(t))) => Out::Text(t),
                        Some(Ok(In::Binary(b))) => Out::Binary(b),
                        Some(Ok(In::Ping(b))) => Out::Ping(b),
                        Some(Ok(In::Pong(b))) => Out::Pong(b),
                        Some(Ok(In::Close(reason))) => {
                            let _ = up_tx.send(Out::Close(reason)).await;
                            break;
                        }
                        // Over the limits (1009) or a protocol error: both sides are closed.
                        Some(Err(reason)) => {
                            let _ = session.close(Some(reason)).await;
                            let _ = up_tx.send(Out::Close(None)).await;
                            break;
                        }
                        None => {
                            let _ = up_tx.send(Out::Close(None)).await;
                            break;
                        }
                    };
                    if up_tx.send(out).await.is_err() {
                        let _ = session.close(None).await;
                        break;
                    }
                }
                from_owner = up_rx.next() => {
                    let sent = match from_owner {
                        Some(Ok(Frame::Text(t))) => match String::from_utf8(t.to_vec()) {
                            Ok(text) => session.text(text).await,
                            Err(_) => continue,
                        },
                        Some(Ok(Frame::Binary(b))) => session.binary(b).await,
                        Some(Ok(Frame::Ping(b))) => session.ping(&b).await,
                        Some(Ok(Frame::Pong(b))) => session.pong(&b).await,
                        Some(Ok(Frame::Close(reason))) => {
                            let _ = session.close(reason).await;
                            break;
                        }
                        Some(Ok(Frame::Continuation(_))) => continue,
                        Some(Err(_)) | None => {
                            // The owner went away: the client reconnects (to any node) and
                            // catches up with `since`.
                            let _ = session.close(Some(actix_ws::CloseCode::Away.into())).await;
                            break;
                        }
                    };
                    if sent.is_err() {
                        let _ = up_tx.send(Out::Close(None)).await;
                        break;
                    }
                }
            }
        }
    });
    Ok(response)
}

/// The error for an owner that refused the WebSocket upgrade with `status`.
fn refused_upgrade(status: StatusCode) -> ApiError {
    let code = match status {
        StatusCode::NOT_FOUND => ErrorCode::GameNotFound,
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::QuotaExceeded,
        StatusCode::BAD_REQUEST => ErrorCode::InvalidRequest,
        _ => ErrorCode::GameUnavailable,
    };
    ApiError::new(
        code,
        format!("the node serving this game refused the WebSocket connection ({status})"),
    )
}
