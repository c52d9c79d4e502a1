//! Forwarding in a cluster: a request (or a WebSocket connection) for a game that another
//! node owns is passed to that node's advertised address as it came, and its answer passed
//! back, so that clients and load balancers need no knowledge of placement. Only the public
//! HTTP API crosses between nodes: no protocol of our own.
//!
//! A forwarded request carries `x-chessd-forwarded` (it is never forwarded twice: a node that
//! no longer owns the game answers `game_unavailable`) and the client's address appended to
//! `X-Forwarded-For` (list the nodes in `auth.trusted_proxies` so that quotas count the real
//! client).

use std::time::Duration;

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::header,
    middleware::Next,
    web, FromRequest, HttpRequest, HttpResponse, ResponseError,
};
use futures_util::StreamExt;
use uuid::Uuid;

use crate::{
    admission::ClientKey,
    api::{
        client::{client_key, client_proof, FORWARDED, FORWARDED_CLIENT, FORWARDED_CLIENT_PROOF},
        error::{ApiError, ErrorCode},
    },
    cluster::Placement,
    AppState,
};

mod ws;

use ws::forward_ws;

/// How long a forwarded request may take (engine searches included).
const FORWARD_TIMEOUT: Duration = Duration::from_secs(600);

thread_local! {
    /// The HTTP client forwarded requests go through: one per worker thread, so that the
    /// connections to the other nodes are kept alive and reused.
    static CLIENT: awc::Client = awc::Client::builder()
        .timeout(FORWARD_TIMEOUT)
        .disable_redirects()
        .connector(awc::Connector::new().limit(0))
        .finish();

    /// The client for requests that must not be sent twice (no idempotency key, not a read):
    /// each goes on a new connection, so that a connection refused proves that the owner never
    /// saw it. On a reused connection the owner may have died after the last answer, and a
    /// request written into it is lost without proof that it was never read.
    static FRESH: awc::Client = awc::Client::builder()
        .timeout(FORWARD_TIMEOUT)
        .disable_redirects()
        .connector(
            awc::Connector::new()
                .limit(0)
                .conn_keep_alive(Duration::ZERO)
                .conn_lifetime(Duration::ZERO),
        )
        .finish();
}

/// Headers that belong to one connection and are not passed on.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

/// The game id of a request path `/v1/games/{id}…`, if it names one.
fn game_id(path: &str) -> Option<Uuid> {
    let rest = path.strip_prefix("/v1/games/")?;
    let id = rest.split('/').next()?;
    Uuid::parse_str(id).ok()
}

/// The job id of a request path `/v1/perft/{id}…` or `/v1/puzzles/{id}…`, if it names one.
fn job_id(path: &str) -> Option<Uuid> {
    let rest = path
        .strip_prefix("/v1/perft/")
        .or_else(|| path.strip_prefix("/v1/puzzles/"))?;
    Uuid::parse_str(rest.split('/').next()?).ok()
}

/// The address of the node running the job a request names, when that is another live node
/// and this one does not hold the job.
async fn job_elsewhere(req: &ServiceRequest) -> Option<String> {
    let state = req.app_data::<web::Data<AppState>>()?;
    let cluster = state.cluster.as_ref()?;
    if req.headers().contains_key(FORWARDED) {
        return None;
    }
    let id = job_id(req.path())?;
    if state.jobs.holds(&id) {
        return None;
    }
    cluster.job_elsewhere(&id).await
}

/// Whether a request is for a game this node does not serve.
fn elsewhere(req: &ServiceRequest) -> bool {
    let Some(state) = req.app_data::<web::Data<AppState>>() else {
        return false;
    };
    let Some(cluster) = &state.cluster else {
        return false;
    };
    if req.headers().contains_key(FORWARDED) {
        return false;
    }
    game_id(req.path()).is_some_and(|id| cluster.placement(&id) != Placement::Local)
}

/// Middleware: a request for a game this node does not serve goes to the node that does;
/// every other request goes on to the routes.
pub(crate) async fn route_elsewhere(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let target = if elsewhere(&req) {
        Target::Game
    } else if let Some(url) = job_elsewhere(&req).await {
        Target::Job(url)
    } else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let (http, mut payload) = req.into_parts();
    let Some(state) = http.app_data::<web::Data<AppState>>().cloned() else {
        let answer = ApiError::internal("forwarding without the app state").error_response();
        return Ok(ServiceResponse::new(http, answer));
    };
    let answer = match target {
        Target::Game => match web::Payload::from_request(&http, &mut payload).await {
            Ok(payload) => forward(http.clone(), payload, state).await,
            Err(e) => Err(ApiError::invalid_request(e.to_string())),
        },
        Target::Job(url) if is_websocket(&http) => {
            match web::Payload::from_request(&http, &mut payload).await {
                Ok(payload) => {
                    crate::metrics::count_forwarded();
                    let node = state.cluster.as_ref().map_or("", |c| c.node());
                    forward_ws(&http, payload, &at(&url, &http), node).await
                }
                Err(e) => Err(ApiError::invalid_request(e.to_string())),
            }
        }
        Target::Job(url) => {
            let id = job_id(http.path());
            let body = match read_body(
                web::Payload::from_request(&http, &mut payload)
                    .await
                    .map_err(|e| ApiError::invalid_request(e.to_string()))?,
                state.config.limits.max_body_bytes,
            )
            .await
            {
                Ok(body) => body,
                Err(e) => return Ok(ServiceResponse::new(http, e.error_response())),
            };
            match forward_job(&http, body.clone(), &state, url, id).await {
                Some(answer) => answer,
                // The job's node is gone: this node answers from the store (or, once it has
                // taken the job over, from memory).
                None => {
                    let local =
                        ServiceRequest::from_parts(http, actix_web::dev::Payload::from(body));
                    return next
                        .call(local)
                        .await
                        .map(ServiceResponse::map_into_boxed_body);
                }
            }
        }
    }
    .unwrap_or_else(|e| e.error_response());
    Ok(ServiceResponse::new(http, answer))
}

/// Passes a job's request to the node running it, asking again (wherever the job then runs)
/// while that node cannot be reached, until `cluster.placement_wait_ms`; `None` when no other
/// live node runs the job any more.
async fn forward_job(
    req: &HttpRequest,
    body: web::Bytes,
    state: &AppState,
    mut target: String,
    id: Option<Uuid>,
) -> Option<Result<HttpResponse, ApiError>> {
    let (Some(cluster), Some(id)) = (&state.cluster, id) else {
        return None;
    };
    let deadline = std::time::Instant::now() + state.config.cluster.placement_wait();
    loop {
        match forward_to(req, body.clone(), state, &target).await {
            Err(Unreached::Sent(e)) if !may_resend(req) => {
                return Some(Err(outcome_unknown(&target, e)))
            }
            Err(Unreached::NotSent(e) | Unreached::Sent(e))
                if std::time::Instant::now() < deadline =>
            {
                tracing::debug!(%target, error = %e, "the job's node cannot be reached");
                tokio::time::sleep(Duration::from_millis(100)).await;
                target = cluster.job_elsewhere(&id).await?;
            }
            Err(Unreached::NotSent(e) | Unreached::Sent(e)) => {
                return Some(Err(unreachable_owner(&target, e)))
            }
            Err(Unreached::Other(e)) => return Some(Err(e)),
            Ok(answer) => return Some(Ok(answer)),
        }
    }
}

/// Why a request was not answered by the node it was passed to.
enum Unreached {
    /// The node could not be connected to: not one byte of the request was sent.
    NotSent(awc::error::SendRequestError),
    /// The request was sent (or may have been), and no answer came.
    Sent(awc::error::SendRequestError),
    /// Anything else (the answer is this error).
    Other(ApiError),
}

impl Unreached {
    /// How an attempt to pass a request on failed.
    fn of(e: awc::error::SendRequestError) -> Unreached {
        if never_sent(&e) {
            Unreached::NotSent(e)
        } else {
            Unreached::Sent(e)
        }
    }
}

/// Whether a failed attempt provably sent nothing: the connection to the node could not be
/// made (refused, timed out, unresolved). awc reports a connection that closes after the
/// request was written as `Connect(Disconnected)`: that one may have been carried out.
fn never_sent(e: &awc::error::SendRequestError) -> bool {
    use awc::error::{ConnectError, SendRequestError};
    match e {
        SendRequestError::Connect(ConnectError::Disconnected | ConnectError::H2(_)) => false,
        SendRequestError::Connect(_) | SendRequestError::Url(_) => true,
        _ => false,
    }
}

/// Whether a request that may have reached its node can be sent again without being carried
/// out twice: a read, or a request with an idempotency key (the game answers a repeat as the
/// first time).
fn may_resend(req: &HttpRequest) -> bool {
    matches!(
        *req.method(),
        actix_web::http::Method::GET | actix_web::http::Method::HEAD
    ) || req
        .headers()
        .contains_key(super::conditions::IDEMPOTENCY_KEY)
}

/// Where a forwarded request goes.
enum Target {
    /// The node owning the game the path names.
    Game,
    /// The node running the job the path names, at this address.
    Job(String),
}

/// Passes a request for a job to the node running it at `target`.
async fn forward_to(
    req: &HttpRequest,
    body: web::Bytes,
    state: &AppState,
    target: &str,
) -> Result<HttpResponse, Unreached> {
    let Some(cluster) = &state.cluster else {
        return Err(Unreached::Other(ApiError::new(
            ErrorCode::NotFound,
            "no such route",
        )));
    };
    crate::metrics::count_forwarded();
    match outgoing(req, &at(target, req), cluster.node())
        .send_body(body)
        .await
    {
        Ok(answer) => Ok(passed_back(answer)),
        Err(e) => Err(Unreached::of(e)),
    }
}

/// The URL of `req`'s path and query on the node at `base`.
fn at(base: &str, req: &HttpRequest) -> String {
    let path = req
        .uri()
        .path_and_query()
        .map_or(req.path(), |p| p.as_str());
    format!("{}{path}", base.trim_end_matches('/'))
}

/// Whether a request asks for a WebSocket.
fn is_websocket(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// The request as it is passed on to `url`: its method and end-to-end headers, marked as
/// forwarded by `node`, with the client's address appended to `X-Forwarded-For` and the client
/// this node resolved, signed ([`client_headers`]).
fn outgoing(req: &HttpRequest, url: &str, node: &str) -> awc::ClientRequest {
    let client = if may_resend(req) { &CLIENT } else { &FRESH };
    let mut out = client.with(Clone::clone).request(req.method().clone(), url);

    for (name, value) in req.headers() {
        if !passed_on(name.as_str()) {
            continue;
        }
        out = out.append_header((name.clone(), value.clone()));
    }
    for (name, value) in client_headers(req, node) {
        out = out.insert_header((name, value));
    }
    out.insert_header((FORWARDED, node.to_string()))
        .insert_header(("x-forwarded-for", forwarded_for(req)))
}

/// Whether a header of the client's request is passed on to the owner (not a connection's own,
/// and not one the forwarding node writes itself).
fn passed_on(name: &str) -> bool {
    !HOP_BY_HOP.contains(&name)
        && !matches!(
            name,
            "x-forwarded-for" | FORWARDED | FORWARDED_CLIENT | FORWARDED_CLIENT_PROOF
        )
}

/// The headers naming the client this node resolved for `req` (its address: an API key goes
/// on in its own header) with their proof under the cluster's secret, for a request forwarded
/// by `node`: the owner counts the request against that client.
pub(super) fn client_headers(req: &HttpRequest, node: &str) -> Vec<(&'static str, String)> {
    let Some(state) = req.app_data::<web::Data<AppState>>() else {
        return Vec::new();
    };
    let (Some(cluster), Ok(ClientKey::Address(client))) =
        (&state.cluster, client_key(req, &state.config.auth, false))
    else {
        return Vec::new();
    };
    let client = client.to_string();
    let path = req
        .uri()
        .path_and_query()
        .map_or(req.path(), |p| p.as_str());
    let proof = client_proof(cluster.secret(), node, &client, req.method().as_str(), path);
    vec![(FORWARDED_CLIENT, client), (FORWARDED_CLIENT_PROOF, proof)]
}

/// The owner's answer, passed back as it came (its end-to-end headers, its body streamed).
fn passed_back<S>(answer: awc::ClientResponse<S>) -> HttpResponse
where
    S: futures_util::Stream<Item = Result<web::Bytes, awc::error::PayloadError>> + Unpin + 'static,
{
    let mut back = HttpResponse::build(answer.status());
    for (name, value) in answer.headers() {
        if !HOP_BY_HOP.contains(&name.as_str()) && name != header::CONTENT_LENGTH {
            back.append_header((name.clone(), value.clone()));
        }
    }
    back.streaming(answer)
}

/// Passes a request for a game owned by another node to that node.
async fn forward(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (Some(cluster), Some(id)) = (&state.cluster, game_id(req.path())) else {
        return Err(ApiError::new(ErrorCode::NotFound, "no such route"));
    };
    let target = match cluster.placement_settled(&id).await {
        Placement::Remote(url) => url,
        // It came back here meanwhile: this node's own address serves it.
        Placement::Local => state.config.cluster.advertise_url.clone(),
        Placement::Unowned => {
            return Err(ApiError {
                retry_after_secs: Some(1),
                ..ApiError::new(
                    ErrorCode::GameUnavailable,
                    format!("no node serves game {id} right now (a failover is under way)"),
                )
            })
        }
    };
    crate::metrics::count_forwarded();
    if is_websocket(&req) {
        return forward_ws(&req, payload, &at(&target, &req), cluster.node()).await;
    }
    let limit = state.config.limits.max_body_bytes;
    let body = read_body(payload, limit).await?;
    // A request that provably did not reach the owner (it died and its lease has not ended
    // yet) is sent again wherever the game is placed next, until cluster.placement_wait_ms; so
    // is one that may have reached it when a repeat cannot be carried out twice. Any other is
    // answered `outcome_unknown`: only the client can tell whether to send it again.
    let deadline = std::time::Instant::now() + state.config.cluster.placement_wait();
    let mut target = target;
    let answer = loop {
        let out = outgoing(&req, &at(&target, &req), cluster.node());
        // Sent to `target` while the game is placed there: an owner that stops answering (a
        // paused process) loses its lease, and then the request is answered from here.
        let placed = cluster.placement(&id);
        let moved = async {
            loop {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if cluster.placement(&id) != placed {
                    return;
                }
            }
        };
        let failure = tokio::select! {
            sent = out.send_body(body.clone()) => match sent {
                Ok(answer) => break answer,
                Err(e) => Unreached::of(e),
            },
            () = moved => {
                if !may_resend(&req) {
                    return Err(moved_meanwhile(&id));
                }
                Unreached::Sent(awc::error::SendRequestError::Timeout)
            }
        };
        let e = match failure {
            Unreached::Sent(e) if !may_resend(&req) => return Err(outcome_unknown(&target, e)),
            Unreached::NotSent(e) | Unreached::Sent(e) => e,
            Unreached::Other(e) => return Err(e),
        };
        if std::time::Instant::now() >= deadline {
            return Err(unreachable_owner(&target, e));
        }
        tracing::debug!(%target, error = %e, "the game's node did not answer; sending again");
        tokio::time::sleep(Duration::from_millis(100)).await;
        target = match cluster.placement(&id) {
            Placement::Remote(url) => url,
            Placement::Local => state.config.cluster.advertise_url.clone(),
            Placement::Unowned => target,
        };
    };
    Ok(passed_back(answer))
}

/// The request's `X-Forwarded-For` with the peer's address appended.
fn forwarded_for(req: &HttpRequest) -> String {
    let peer = req
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    let earlier: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .collect();
    if earlier.is_empty() {
        peer
    } else {
        format!("{}, {peer}", earlier.join(", "))
    }
}

async fn read_body(mut payload: web::Payload, limit: usize) -> Result<web::Bytes, ApiError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::invalid_request(e.to_string()))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!("the body is larger than limits.max_body_bytes ({limit})"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

fn moved_meanwhile(id: &Uuid) -> ApiError {
    ApiError::new(
        ErrorCode::OutcomeUnknown,
        format!(
            "game {id} moved to another node while the request was under way (its node \
             stopped answering), so it may or may not have been carried out: read the game, \
             or send the request again with an Idempotency-Key"
        ),
    )
}

fn outcome_unknown(target: &str, e: impl std::fmt::Debug) -> ApiError {
    tracing::warn!(%target, error = ?e, "the game's node took the request and did not answer");
    ApiError::new(
        ErrorCode::OutcomeUnknown,
        "the node serving this game took the request and did not answer, so it may or may not \
         have been carried out: read the game, or send the request again with an \
         Idempotency-Key (a repeat with the same key is never carried out twice)",
    )
}

fn unreachable_owner(target: &str, e: impl std::fmt::Debug) -> ApiError {
    tracing::warn!(%target, error = ?e, "the game's node did not answer");
    ApiError {
        retry_after_secs: Some(1),
        ..ApiError::new(
            ErrorCode::GameUnavailable,
            "the node serving this game did not answer (a failover may be under way)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_game_paths_name_a_game() {
        let id = Uuid::new_v4();
        assert_eq!(game_id(&format!("/v1/games/{id}")), Some(id));
        assert_eq!(game_id(&format!("/v1/games/{id}/moves")), Some(id));
        assert_eq!(game_id("/v1/games/export"), None);
        assert_eq!(game_id("/v1/games"), None);
        assert_eq!(game_id(&format!("/v1/perft/{id}")), None);
        assert_eq!(job_id(&format!("/v1/perft/{id}/events")), Some(id));
        assert_eq!(job_id(&format!("/v1/puzzles/{id}")), Some(id));
        assert_eq!(job_id("/v1/perft"), None);
    }
}
