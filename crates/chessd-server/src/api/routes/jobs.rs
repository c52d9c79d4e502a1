//! Perft and puzzle jobs over REST and WebSocket: `POST /v1/perft`, `GET|DELETE
//! /v1/perft/{id}`, `GET /v1/perft/{id}/events`, the same under `/v1/puzzles`, and
//! `GET /v1/jobs`.
//!
//! The events WebSocket sends `{"type": "progress", "job": <view>}` at once and then every
//! 200 ms while the job is queued or running, and a final `{"type": "done" | "cancelled" |
//! "failed", "job": <view>}` as soon as it ends, then closes (normal closure). A client that
//! connects after the end gets the final message at once. Client frames are not needed; pings
//! are answered, and the server pings every `websocket.heartbeat_secs`.
//!
//! A job is kept in the store: a request whose identical request already finished is answered
//! at once with a new job, done, `cached: true`; a job no longer held is read from the store.

use std::time::{Duration, Instant};

use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Session};

use crate::{
    api::{
        client::client_key,
        error::ApiError,
        wire::jobs::{JobEvent, JobList, JobView, PerftRequest, PuzzleRequest},
        ws_limits,
    },
    jobs::{
        state::JobKind,
        supervisor::{Job, Work},
    },
    AppState,
};

/// How often a running job's progress is sent over its WebSocket.
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// How long `DELETE` waits for a running job to stop before answering `202`.
const CANCEL_WAIT: Duration = Duration::from_secs(2);

/// `POST /v1/perft`
#[utoipa::path(
    post,
    path = "/v1/perft",
    operation_id = "startPerft",
    tag = "jobs",
    summary = "Start a perft job",
    description = "Counts the leaves of the move tree (optionally with statistics). The root is split into the unique positions some plies down with their occurrence counts, computed on the job pool's threads (or on the configured Grand Chess Tree workers) and multiplied back. The job is kept in the store: a request whose identical request (the same position and depth, with or without statistics) is done already is answered at once with a new job, done, `cached: true`, carrying that result; an unfinished job interrupted by a restart or a crash resumes from the tasks it had finished.",
    request_body(content = crate::api::wire::jobs::PerftRequest),
    responses(
        (status = 202, description = "The job, queued or already running; or, for a request done already, a new job done at once with the stored result (`cached: true`).", body = crate::api::wire::jobs::PerftView),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "A parameter over a configured limit in `[jobs]` (`limit_exceeded`, the message names the limit) or `invalid_fen`.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "The server already holds `jobs.max_jobs` unfinished (queued or running) jobs (`too_many_jobs`), or the store could not keep the job (`store_unavailable`).", body = crate::api::error::ErrorBody<'static>),
        (status = 401, description = "`api_key_required`: the server requires an API key (`auth.require_api_key`) and the request has no `X-API-Key` header, or the header names no configured key.", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`rate_limited` (too many requests from this client; try again after `Retry-After` seconds) or `quota_exceeded` (this client's quota is used up).", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again.")))
    )
)]
pub(crate) async fn create_perft(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<PerftRequest>,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let anonymous = client.is_anonymous();
    let work = match body.chess2()? {
        Some(pos) => state
            .jobs
            .chess2_perft_work(pos, body.depth, body.threads, anonymous)?,
        None => state.jobs.perft_work(&body.params()?, anonymous)?,
    };
    submit(&state, &client, work).await
}

/// `POST /v1/puzzles`
#[utoipa::path(
    post,
    path = "/v1/puzzles",
    operation_id = "startPuzzle",
    tag = "jobs",
    summary = "Start a puzzle job",
    description = "Solves a mate-in-N problem exactly: the shortest mate (at most N), every key (uniqueness), the main line and the solution tree; or, with `\"mode\": \"find\"`, finds a proven mate in at most N (up to `jobs.max_find_mate_in`), not necessarily the shortest (`shortest: true` tightens it within the time limit), with one complete proof tree. `stipulation` asks instead for a helpmate (`h#N`: every solution, and whether it is sound) or a selfmate (`s#N`: every key with a complete tree), up to `jobs.max_helpmate_in` / `jobs.max_selfmate_in`. The result is the object `chessd solve --json` prints. The job is kept in the store: a request whose identical request (the same position, `mate_in`, `stipulation`, `find_all_keys`, `mode` and `shortest`) is done already is answered at once with a new job, done, `cached: true`, carrying that result; an unfinished puzzle interrupted by a restart or a crash starts again (at most three starts).",
    request_body(content = crate::api::wire::jobs::PuzzleRequest),
    responses(
        (status = 202, description = "The job, queued or already running; or, for a request done already, a new job done at once with the stored result (`cached: true`).", body = crate::api::wire::jobs::PuzzleView),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "A parameter over a configured limit in `[jobs]` (`limit_exceeded`, the message names the limit) or `invalid_fen` (a bad FEN or board, or the side not to move in check).", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "The server already holds `jobs.max_jobs` unfinished (queued or running) jobs (`too_many_jobs`), or the store could not keep the job (`store_unavailable`).", body = crate::api::error::ErrorBody<'static>),
        (status = 401, description = "`api_key_required`: the server requires an API key (`auth.require_api_key`) and the request has no `X-API-Key` header, or the header names no configured key.", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`rate_limited` (too many requests from this client; try again after `Retry-After` seconds) or `quota_exceeded` (this client's quota is used up).", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again.")))
    )
)]
pub(crate) async fn create_puzzle(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<PuzzleRequest>,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let work = state
        .jobs
        .puzzle_work(&body.params()?, client.is_anonymous())?;
    submit(&state, &client, work).await
}

/// Answers checked work from the store when its request is done already (costing the client
/// nothing), else starts it (a place among the client's jobs, held until it ends).
async fn submit(
    state: &AppState,
    client: &crate::admission::ClientKey,
    work: Work,
) -> Result<HttpResponse, ApiError> {
    if let Some(job) = state.jobs.cached_job(&work).await? {
        return created(&job);
    }
    let permit = state.admission.acquire_job(client)?;
    let job = state.jobs.start(work, Some(permit)).await?;
    created(&job)
}

/// `202` with the job's view and, for its creator only, the secret that cancels it.
fn created(job: &Job) -> Result<HttpResponse, ApiError> {
    let mut body = serde_json::to_value(JobView::of(job)).map_err(ApiError::internal)?;
    if let (Some(fields), Some(secret)) = (body.as_object_mut(), job.secret()) {
        fields.insert("secret".into(), secret.into());
    }
    Ok(HttpResponse::Accepted().json(body))
}

/// `GET /v1/perft/{id}`
#[utoipa::path(
    get,
    path = "/v1/perft/{id}",
    operation_id = "perftJob",
    tag = "jobs",
    summary = "A perft job",
    description = "State, progress and, once done, the result.",
    params(crate::api::openapi_types::PerftId),
    responses(
        (status = 200, description = "The job.", body = crate::api::wire::jobs::PerftView),
        (status = 404, response = crate::api::openapi_types::JobNotFound)
    )
)]
pub(crate) async fn perft_view(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    view(&state, &id, JobKind::Perft).await
}

/// `GET /v1/puzzles/{id}`
#[utoipa::path(
    get,
    path = "/v1/puzzles/{id}",
    operation_id = "puzzleJob",
    tag = "jobs",
    summary = "A puzzle job",
    description = "State, progress and, once done, the result.",
    params(crate::api::openapi_types::PuzzleId),
    responses(
        (status = 200, description = "The job.", body = crate::api::wire::jobs::PuzzleView),
        (status = 404, response = crate::api::openapi_types::JobNotFound)
    )
)]
pub(crate) async fn puzzle_view(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    view(&state, &id, JobKind::Puzzle).await
}

async fn view(state: &AppState, id: &str, kind: JobKind) -> Result<HttpResponse, ApiError> {
    let job = state.jobs.find(id, kind).await?;
    Ok(HttpResponse::Ok().json(JobView::of(&job)))
}

/// `DELETE /v1/perft/{id}` (the job's secret)
#[utoipa::path(
    delete,
    path = "/v1/perft/{id}",
    operation_id = "cancelPerft",
    tag = "jobs",
    summary = "Cancel a perft job",
    description = "A queued job ends at once; a running one is told to stop (its work stops and its threads are free within 100 ms) and the answer waits for that, up to 2 s. A finished job is answered unchanged. Needs the job's secret (from the creation answer); anyone else gets `403 forbidden`.",
    params(crate::api::openapi_types::PerftId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("job"))),
    responses(
        (status = 200, description = "The job after the cancel (`cancelled`, or its earlier final state).", body = crate::api::wire::jobs::PerftView),
        (status = 202, description = "Still stopping after 2 s: the cancel is requested.", body = crate::api::wire::jobs::PerftView),
        (status = 404, response = crate::api::openapi_types::JobNotFound),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden)
    )
)]
pub(crate) async fn cancel_perft(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    cancel(&state, &req, &id, JobKind::Perft).await
}

/// `DELETE /v1/puzzles/{id}` (the job's secret)
#[utoipa::path(
    delete,
    path = "/v1/puzzles/{id}",
    operation_id = "cancelPuzzle",
    tag = "jobs",
    summary = "Cancel a puzzle job",
    description = "A queued job ends at once; a running one is told to stop (its work stops and its threads are free within 100 ms) and the answer waits for that, up to 2 s. A finished job is answered unchanged. Needs the job's secret (from the creation answer); anyone else gets `403 forbidden`.",
    params(crate::api::openapi_types::PuzzleId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("job"))),
    responses(
        (status = 200, description = "The job after the cancel (`cancelled`, or its earlier final state).", body = crate::api::wire::jobs::PuzzleView),
        (status = 202, description = "Still stopping after 2 s: the cancel is requested.", body = crate::api::wire::jobs::PuzzleView),
        (status = 404, response = crate::api::openapi_types::JobNotFound),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden)
    )
)]
pub(crate) async fn cancel_puzzle(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    cancel(&state, &req, &id, JobKind::Puzzle).await
}

/// Cancels and waits (up to [`CANCEL_WAIT`]) for the job to stop and its end to be stored:
/// `200` with the final view, or `202` with the view of a job still stopping. A finished job is
/// answered unchanged.
async fn cancel(
    state: &AppState,
    req: &HttpRequest,
    id: &str,
    kind: JobKind,
) -> Result<HttpResponse, ApiError> {
    let token = crate::api::bearer(req);
    let job = state.jobs.cancel_any(id, kind, token.as_deref()).await?;
    if job.wait_finished(CANCEL_WAIT).await {
        job.end_committed().await;
        Ok(HttpResponse::Ok().json(JobView::of(&job)))
    } else {
        Ok(HttpResponse::Accepted().json(JobView::of(&job)))
    }
}

/// `GET /v1/jobs`: the pool's use for everyone; the jobs and the workers (their processes and
/// errors) for the operator only.
#[utoipa::path(
    get,
    path = "/v1/jobs",
    operation_id = "listJobs",
    tag = "jobs",
    summary = "Every job",
    description = "Every job the server holds (finished ones until `jobs.keep_finished_secs` after their end, also across a restart), oldest first, and the pool's use. A job no longer held is still read by its id from the store. `jobs` and `workers` are listed to the operator only (the operator token, or a loopback client when `auth.loopback_is_operator`); anyone else gets them empty, with the pool's use.",
    responses(
        (status = 200, description = "The jobs.", body = crate::api::wire::jobs::JobList)
    )
)]
pub(crate) async fn list(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    let mut list = JobList::from(state.jobs.list());
    let anonymous = client_key(&req, &state.config.auth, false).is_ok_and(|c| c.is_anonymous());
    list.client_threads = state.jobs.client_threads(anonymous);
    if !crate::api::client::is_operator(&req, &state.config.auth) {
        list.jobs.clear();
        list.workers.clear();
    }
    HttpResponse::Ok().json(list)
}

/// `GET /v1/perft/{id}/events`
#[utoipa::path(
    get,
    path = "/v1/perft/{id}/events",
    operation_id = "perftEvents",
    tags = ["jobs", "websocket"],
    summary = "WebSocket: progress of a perft job",
    description = "WebSocket of the job's progress (JSON text frames). The server sends `{\"type\": \"progress\", \"job\": <view>}` at once and every 200 ms while the job is queued or running, then `{\"type\": \"done\" | \"cancelled\" | \"failed\", \"job\": <final view>}` as soon as it ends, and closes the connection (1000). A client connecting after the end gets the final message at once. Client frames are not needed; the server pings every `websocket.heartbeat_secs` and drops a client silent for `websocket.client_timeout_secs`; the game socket's size and rate limits apply (1009, 1008).",
    params(crate::api::openapi_types::PerftId, crate::api::openapi_types::WsHandshake),
    responses(
        (status = 101, description = "Switching to the WebSocket protocol; frames are `JobEvent`s.", body = crate::api::wire::jobs::JobEvent),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 404, response = crate::api::openapi_types::JobNotFound),
        (status = 426, description = "`Sec-WebSocket-Version` is not 13 (`invalid_request`).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`quota_exceeded`: this client holds `quotas.max_sockets` WebSocket connections already.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`too_many_connections`: the server holds `websocket.max_connections` WebSocket connections already.", body = crate::api::error::ErrorBody<'static>),
        (status = 401, description = "`api_key_required`: an `X-API-Key` header naming no configured key (`auth.api_keys`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn perft_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    events(&state, &req, &id, JobKind::Perft, body).await
}

/// `GET /v1/puzzles/{id}/events`
#[utoipa::path(
    get,
    path = "/v1/puzzles/{id}/events",
    operation_id = "puzzleEvents",
    tags = ["jobs", "websocket"],
    summary = "WebSocket: progress of a puzzle job",
    description = "WebSocket of the job's progress (JSON text frames). The server sends `{\"type\": \"progress\", \"job\": <view>}` at once and every 200 ms while the job is queued or running, then `{\"type\": \"done\" | \"cancelled\" | \"failed\", \"job\": <final view>}` as soon as it ends, and closes the connection (1000). A client connecting after the end gets the final message at once. Client frames are not needed; the server pings every `websocket.heartbeat_secs` and drops a client silent for `websocket.client_timeout_secs`; the game socket's size and rate limits apply (1009, 1008).",
    params(crate::api::openapi_types::PuzzleId, crate::api::openapi_types::WsHandshake),
    responses(
        (status = 101, description = "Switching to the WebSocket protocol; frames are `JobEvent`s.", body = crate::api::wire::jobs::JobEvent),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 404, response = crate::api::openapi_types::JobNotFound),
        (status = 426, description = "`Sec-WebSocket-Version` is not 13 (`invalid_request`).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`quota_exceeded`: this client holds `quotas.max_sockets` WebSocket connections already.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`too_many_connections`: the server holds `websocket.max_connections` WebSocket connections already.", body = crate::api::error::ErrorBody<'static>),
        (status = 401, description = "`api_key_required`: an `X-API-Key` header naming no configured key (`auth.api_keys`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn puzzle_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    events(&state, &req, &id, JobKind::Puzzle, body).await
}

async fn events(
    state: &AppState,
    req: &HttpRequest,
    id: &str,
    kind: JobKind,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    let job = state.jobs.find(id, kind).await.map_err(ApiError::from)?;
    let client = client_key(req, &state.config.auth, false)?;
    let permit = state
        .admission
        .acquire_socket(&client)
        .map_err(ApiError::from)?;
    let limits = state.config.websocket.clone();
    let (response, session, stream) = ws_limits::handle(req, body, &limits).await?;
    actix_web::rt::spawn(async move {
        stream_events(job, session, stream, limits).await;
        drop(permit);
    });
    Ok(response)
}

async fn send(session: &mut Session, job: &Job) -> bool {
    match serde_json::to_string(&JobEvent::from(JobView::of(job))) {
        Ok(text) => session.text(text).await.is_ok(),
        Err(_) => false,
    }
}

/// Sends progress until the job ends, then the final event, then closes.
async fn stream_events(
    job: std::sync::Arc<Job>,
    mut session: Session,
    mut stream: ws_limits::LimitedStream,
    limits: crate::config::WebSocketConfig,
) {
    let mut states = job.subscribe();
    let mut progress = tokio::time::interval(PROGRESS_EVERY);
    progress.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let heartbeat = Duration::from_secs(limits.heartbeat_secs.max(1));
    let client_timeout = Duration::from_secs(limits.client_timeout_secs.max(1));
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + heartbeat, heartbeat);
    let mut last_seen = Instant::now();
    let mut window = (Instant::now(), 0u32);
    let mut close = None;
    loop {
        if job.state().is_finished() {
            // The final view, with the final state (read after the end was published).
            if send(&mut session, &job).await {
                close = Some(CloseReason {
                    code: CloseCode::Normal,
                    description: Some(format!("job {}", job.state().as_str())),
                });
            }
            break;
        }
        tokio::select! {
            changed = states.changed() => {
                if changed.is_err() {
                    break;
                }
            }
            _ = progress.tick() => {
                if !job.state().is_finished() && !send(&mut session, &job).await {
                    break;
                }
            }
            msg = stream.recv() => {
                last_seen = Instant::now();
                let Some(Ok(msg)) = msg else {
                    // Over the limits (1009), a protocol error (1002), or the client is gone.
                    close = msg.and_then(Result::err);
                    break;
                };
                if window.0.elapsed() >= Duration::from_secs(1) {
                    window = (Instant::now(), 0);
                }
                window.1 += 1;
                if window.1 > limits.max_messages_per_sec {
                    close = Some(CloseReason { code: CloseCode::Policy, description: Some("too many messages".into()) });
                    break;
                }
                match msg {
                    AggregatedMessage::Ping(bytes) => {
                        if session.pong(&bytes).await.is_err() {
                            break;
                        }
                    }
                    AggregatedMessage::Close(_) => break,
                    AggregatedMessage::Text(_) | AggregatedMessage::Binary(_) | AggregatedMessage::Pong(_) => {}
                }
            }
            _ = pings.tick() => {
                if last_seen.elapsed() > client_timeout {
                    close = Some(CloseReason { code: CloseCode::Away, description: Some("heartbeat timeout".into()) });
                    break;
                }
                if session.ping(b"").await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = session.close(close).await;
}
