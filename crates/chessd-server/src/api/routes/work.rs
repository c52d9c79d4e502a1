//! The work API of a cluster's shared perft queue, in the manner of the Grand Chess Tree's:
//! remote workers (`chessd worker --server URL --token T`) lease a task, renew the lease while
//! they count, and submit the result. Only bearers of a token of `auth.worker_tokens` may, and
//! only on a cluster node (the queue is in PostgreSQL); any node serves any task.
//!
//! A lease is a random UUID bound to the worker token that took it (its SHA-256, never the
//! token): only that token may renew it or submit under it, while it has not run out.
//!
//! - `POST /v1/work/lease` `{"worker": NAME}`: `200` a task, `204` when there is none now, or
//!   `429 quota_exceeded` when the token holds `cluster.worker_max_leases` leases already.
//! - `POST /v1/work/{job}/{task}/renew` `{"lease": L}`: `200`, or `409 task_gone` when the task
//!   is no longer the worker's (finished, its job ended, or leased again): stop counting it.
//! - `POST /v1/work/{job}/{task}/result` `{"worker": NAME, "lease": L, "stats": {…}}`: `200
//!   {"counted": true}` for the task's first result under a lease the token holds, `{"counted":
//!   false}` once the task has a result (so a retried submission is harmless), `409
//!   lease_not_held` when the task is open but not under that lease of this token (never
//!   leased to it, another worker's, run out), `409 task_gone` when its job has ended.

use actix_web::{web, HttpRequest, HttpResponse};
use chessd_core::perft::PerftStats;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::api::{
    bearer,
    error::{ApiError, ErrorCode},
};
use crate::{
    jobs::record,
    store::perft_tasks::{Leased, LeasedTask, Submission, Submitted, TaskQueue},
    AppState,
};

/// Longest worker name.
const MAX_WORKER_NAME: usize = 64;

/// `POST /v1/work/lease`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LeaseRequest {
    /// The worker's name (letters, digits, `.`, `_`, `-`), as the results record it.
    pub worker: String,
}

/// A leased task and how long its lease lasts.
#[derive(Debug, Serialize)]
pub(crate) struct LeaseAnswer {
    /// The task.
    #[serde(flatten)]
    pub task: LeasedTask,
    /// Milliseconds the lease lasts without renewal.
    pub lease_ms: u64,
}

/// `POST /v1/work/{job}/{task}/renew`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenewRequest {
    /// The lease's token.
    pub lease: String,
}

/// `POST /v1/work/{job}/{task}/result`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResultRequest {
    /// The worker's name.
    pub worker: String,
    /// The lease the task was counted under (the one its lease answer carried).
    pub lease: String,
    /// The statistics of the task's position (one occurrence), the thirteen Grand Chess Tree
    /// counters (only `nodes` when the task asked for nodes only).
    pub stats: PerftStats,
}

/// Who a worker token's leases belong to: `token:` and the start of its SHA-256 (never the
/// token itself, which would be readable in the database).
fn owner_of(token: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(token.as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("token:{hex}")
}

/// The queue and the owner of the leases, for a bearer of a worker token.
fn queue(state: &AppState, req: &HttpRequest) -> Result<(TaskQueue, String), ApiError> {
    const NEEDS_TOKEN: &str =
        "the work API needs a worker token (Authorization: Bearer <token>, auth.worker_tokens)";
    let Some(given) = bearer(req) else {
        return Err(ApiError::unauthorized(NEEDS_TOKEN));
    };
    let tokens = &state.config.auth.worker_tokens;
    let Some(queue) = state.tasks.clone().filter(|_| !tokens.is_empty()) else {
        return Err(ApiError::new(
            ErrorCode::WorkDisabled,
            "the shared perft queue needs a cluster node (cluster.advertise_url, a postgres:// \
             store) and worker tokens (auth.worker_tokens)",
        ));
    };
    if tokens
        .iter()
        .any(|t| constant_time_eq::constant_time_eq(t.as_bytes(), given.as_bytes()))
    {
        Ok((queue, owner_of(&given)))
    } else {
        Err(ApiError::forbidden(NEEDS_TOKEN))
    }
}

fn check_worker(name: &str) -> Result<(), ApiError> {
    let fine = !name.is_empty()
        && name.len() <= MAX_WORKER_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if fine {
        Ok(())
    } else {
        Err(ApiError::invalid_request(format!(
            "worker: 1 to {MAX_WORKER_NAME} letters, digits, '.', '_' or '-'"
        )))
    }
}

fn task_path(path: &(String, String)) -> Result<(Uuid, i64), ApiError> {
    let job = Uuid::parse_str(&path.0)
        .map_err(|_| ApiError::invalid_request(format!("{:?} is not a job id", path.0)))?;
    let task = path
        .1
        .parse::<i64>()
        .ok()
        .filter(|t| *t >= 0)
        .ok_or_else(|| ApiError::invalid_request(format!("{:?} is not a task index", path.1)))?;
    Ok((job, task))
}

fn task_gone(job: &Uuid, task: i64) -> ApiError {
    ApiError::new(
        ErrorCode::TaskGone,
        format!("task {task} of job {job} is not open: it is done, or its job has ended"),
    )
}

fn store_error(e: crate::store::StoreError) -> ApiError {
    ApiError::new(ErrorCode::StoreUnavailable, e.to_string())
}

/// `POST /v1/work/lease`: the oldest open task, leased to the worker.
pub(crate) async fn lease(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<LeaseRequest>,
) -> Result<HttpResponse, ApiError> {
    let (queue, owner) = queue(&state, &req)?;
    check_worker(&body.worker)?;
    let lease_ms = state.config.cluster.task_lease_ms;
    let max = state.config.cluster.worker_max_leases;
    let holder = format!("worker:{}", body.worker);
    match queue
        .lease(&holder, &owner, lease_ms, (max > 0).then_some(max))
        .await
        .map_err(store_error)?
    {
        Leased::None => Ok(HttpResponse::NoContent().finish()),
        Leased::Task(task) => Ok(HttpResponse::Ok().json(LeaseAnswer { task, lease_ms })),
        Leased::Capped => Err(ApiError::new(
            ErrorCode::QuotaExceeded,
            format!(
                "this worker token holds its limit of {max} task leases \
                 (cluster.worker_max_leases): submit or let one run out first"
            ),
        )),
    }
}

/// `POST /v1/work/{job}/{task}/renew`: the lease lasts `lease_ms` more.
pub(crate) async fn renew(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Json<RenewRequest>,
) -> Result<HttpResponse, ApiError> {
    let (queue, owner) = queue(&state, &req)?;
    let (job, task) = task_path(&path)?;
    let lease_ms = state.config.cluster.task_lease_ms;
    if queue
        .renew(&job, task, &body.lease, &owner, lease_ms)
        .await
        .map_err(store_error)?
    {
        Ok(HttpResponse::Ok().json(serde_json::json!({ "lease_ms": lease_ms })))
    } else {
        Err(task_gone(&job, task))
    }
}

/// `POST /v1/work/{job}/{task}/result`: the task's result, counted once.
pub(crate) async fn submit(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Json<ResultRequest>,
) -> Result<HttpResponse, ApiError> {
    let (queue, owner) = queue(&state, &req)?;
    let (job, task) = task_path(&path)?;
    check_worker(&body.worker)?;
    let holder = format!("worker:{}", body.worker);
    let result = record::task(&body.stats);
    let submission = Submission {
        job: &job,
        task,
        lease: &body.lease,
        owner: &owner,
        worker: &holder,
        result: &result,
    };
    match queue.submit(&submission).await.map_err(store_error)? {
        Submitted::Counted => Ok(HttpResponse::Ok().json(serde_json::json!({ "counted": true }))),
        Submitted::Duplicate => {
            Ok(HttpResponse::Ok().json(serde_json::json!({ "counted": false })))
        }
        Submitted::NotHeld => Err(ApiError::new(
            ErrorCode::LeaseNotHeld,
            format!(
                "task {task} of job {job} is not leased to this worker token under that lease \
                 (never leased to it, another worker's, or run out): the result is not counted"
            ),
        )),
        Submitted::Unknown => Err(task_gone(&job, task)),
    }
}
