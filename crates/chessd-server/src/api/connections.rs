//! What one client may hold of the server's connections: at most
//! `limits.max_connections_per_address` open from one network (trusted proxies excepted), and
//! no request body that trickles in (`limits.body_idle_timeout_ms`, `body_timeout_ms`). A
//! connection over the count, or a body too slow, is answered and closed, so that a client
//! sending `Content-Length: 100000` and one byte a minute holds nothing for long.

use std::{
    any::Any,
    net::IpAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{Extensions, ServiceRequest, ServiceResponse},
    http::header,
    middleware::Next,
    web, HttpMessage, ResponseError,
};
use dashmap::DashMap;
use futures_util::StreamExt;

use crate::{
    api::{
        client::network_of,
        error::{ApiError, ErrorCode},
    },
    config::Config,
    AppState,
};

/// Open connections by client network, shared by every worker thread.
#[derive(Clone, Default)]
pub(crate) struct ConnectionCounts {
    open: Arc<DashMap<IpAddr, usize>>,
}

/// A connection's place in its network's count: given back when the connection closes (the
/// connection's data is dropped).
pub(crate) struct ConnectionPlace {
    counts: ConnectionCounts,
    network: IpAddr,
    /// Whether the network held its limit already when this connection opened.
    over: bool,
}

impl Drop for ConnectionPlace {
    fn drop(&mut self) {
        if let Some(mut n) = self.counts.open.get_mut(&self.network) {
            *n = n.saturating_sub(1);
        }
        self.counts.open.remove_if(&self.network, |_, n| *n == 0);
    }
}

impl ConnectionCounts {
    /// The `HttpServer::on_connect` callback: counts each new TCP connection against its peer's
    /// network, and marks it over the limit when the network already held its limit.
    pub(crate) fn on_connect(
        &self,
        config: &Config,
    ) -> impl Fn(&dyn Any, &mut Extensions) + Send + Sync {
        let counts = self.clone();
        let auth = config.auth.clone();
        let limit = config.limits.max_connections_per_address.max(1);
        move |conn, data| {
            let Some(stream) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() else {
                return;
            };
            let Ok(peer) = stream.peer_addr() else {
                return;
            };
            if auth.trusted_proxies.contains(&peer.ip()) {
                return;
            }
            data.insert(counts.place(network_of(peer.ip(), &auth), limit));
        }
    }

    fn place(&self, network: IpAddr, limit: usize) -> ConnectionPlace {
        let mut n = self.open.entry(network).or_insert(0);
        *n += 1;
        ConnectionPlace {
            counts: self.clone(),
            network,
            over: *n > limit,
        }
    }
}

/// Middleware: a request on a connection over its network's limit is answered `503
/// too_many_connections` and the connection closed; a request's body is read here, in time
/// (`408 request_timeout` and the connection closed otherwise), before anything else sees it.
pub(crate) async fn guard_connection(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let limits = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.config.limits.clone());
    let Some(limits) = limits else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let over = req
        .conn_data::<ConnectionPlace>()
        .is_some_and(|place| place.over);
    if over {
        let error = ApiError::new(
            ErrorCode::TooManyConnections,
            format!(
                "this client holds limits.max_connections_per_address ({}) connections already",
                limits.max_connections_per_address
            ),
        );
        return Ok(closing(req, error));
    }
    if has_body(&req) {
        let mut payload = req.take_payload();
        let idle = Duration::from_millis(limits.body_idle_timeout_ms.max(1));
        let deadline = Instant::now() + Duration::from_millis(limits.body_timeout_ms.max(1));
        let mut body = web::BytesMut::new();
        loop {
            let wait = idle.min(deadline.saturating_duration_since(Instant::now()));
            match tokio::time::timeout(wait, payload.next()).await {
                Ok(Some(Ok(chunk))) => {
                    if body.len() + chunk.len() > limits.max_body_bytes {
                        let error = ApiError::new(
                            ErrorCode::PayloadTooLarge,
                            format!(
                                "the body is larger than limits.max_body_bytes ({})",
                                limits.max_body_bytes
                            ),
                        );
                        return Ok(closing(req, error));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Ok(Some(Err(e))) => {
                    return Ok(closing(req, ApiError::invalid_request(e.to_string())));
                }
                Err(_) => {
                    let error = ApiError::new(
                        ErrorCode::RequestTimeout,
                        "the request body came too slowly (limits.body_idle_timeout_ms, \
                         limits.body_timeout_ms)",
                    );
                    return Ok(closing(req, error));
                }
            }
        }
        req.set_payload(actix_web::dev::Payload::from(body.freeze()));
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

/// Whether a request has a body to read here (not a WebSocket's upgrade).
fn has_body(req: &ServiceRequest) -> bool {
    if req.headers().contains_key(header::UPGRADE) {
        return false;
    }
    let length = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    length.is_some_and(|n| n > 0) || req.headers().contains_key(header::TRANSFER_ENCODING)
}

/// `error` as the answer, closing the connection after it.
fn closing(req: ServiceRequest, error: ApiError) -> ServiceResponse<BoxBody> {
    let mut answer = error.error_response();
    answer
        .head_mut()
        .set_connection_type(actix_web::http::ConnectionType::Close);
    req.into_response(answer)
}

/// The connections each worker thread may hold so that the server holds at most
/// `limits.max_connections` (or, when 0, three quarters of the open-file limit, raised first to
/// its hard limit).
pub(crate) fn per_worker_connections(config: &Config, workers: usize) -> usize {
    let total = match config.limits.max_connections {
        0 => file_limit() / 4 * 3,
        n => n,
    };
    (total / workers.max(1)).max(1)
}

/// The process's open-file limit, raised to its hard limit first.
fn file_limit() -> usize {
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    usize::try_from(limit).unwrap_or(usize::MAX).min(1 << 20)
}
