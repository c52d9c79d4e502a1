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
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WorkLease)]
pub(crate) struct LeaseRequest {
    /// The worker's name (letters, digits, `.`, `_`, `-`), as the results record it.
    #[schema(pattern = r#"^[A-Za-z0-9._-]{1,64}$"#)]
    pub worker: String,
}

/// A leased task and how long its lease lasts.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = WorkTask)]
pub(crate) struct LeaseAnswer {
    /// The task.
    #[serde(flatten)]
    pub task: LeasedTask,
    /// Milliseconds the lease lasts without renewal.
    pub lease_ms: u64,
}

/// `POST /v1/work/{job}/{task}/renew`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WorkRenew)]
pub(crate) struct RenewRequest {
    /// The lease's token.
    pub lease: String,
}

/// `POST /v1/work/{job}/{task}/result`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WorkResult)]
pub(crate) struct ResultRequest {
    /// The worker's name.
    #[schema(pattern = r#"^[A-Za-z0-9._-]{1,64}$"#)]
    pub worker: String,
    /// The lease the task was counted under (the one its lease answer carried).
    pub lease: String,
    /// The statistics of the task's position (one occurrence), the thirteen Grand Chess Tree
    /// counters (only `nodes` when the task asked for nodes only).
    #[schema(value_type = crate::api::openapi_types::WorkStats)]
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
#[utoipa::path(
    post,
    path = "/v1/work/lease",
    operation_id = "leaseWorkTask",
    tag = "jobs",
    summary = "Lease a shared perft task (remote workers)",
    description = "The work API of a cluster's shared perft queue, in the manner of the Grand Chess Tree's: a perft job deeper than `cluster.perft_task_depth` is split into tasks kept in PostgreSQL, which every node's task threads and every remote worker (`chessd worker --server URL`) lease. This leases the oldest open task whose lease has ended (or that was never leased) for `lease_ms`: renew it while counting, then submit the result. `204` when there is none now. The lease is a random UUID bound to the worker token (only that token may renew it or submit under it); one token holds at most `cluster.worker_max_leases` (4) unexpired leases at once, one more is `429 quota_exceeded`. Needs a worker token (`auth.worker_tokens`) as a bearer token, on a cluster node.",
    request_body(content = crate::api::routes::work::LeaseRequest),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("worker"))),
    responses(
        (status = 200, description = "A task, leased to the worker.", body = crate::api::routes::work::LeaseAnswer),
        (status = 204, description = "No open task now: ask again later."),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, description = "`work_disabled` (this server is not a cluster node, or no worker tokens are configured: `auth.worker_tokens`) or `forbidden` (a wrong worker token).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 503, description = "`store_unavailable`: the queue in PostgreSQL could not be reached; nothing changed.", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`quota_exceeded`: this worker token holds `cluster.worker_max_leases` leases already; submit or let one run out first.", body = crate::api::error::ErrorBody<'static>)
    )
)]
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
#[utoipa::path(
    post,
    path = "/v1/work/{job}/{task}/renew",
    operation_id = "renewWorkTask",
    tag = "jobs",
    summary = "Renew a shared perft task's lease",
    description = "The lease of the task lasts `lease_ms` more from now, if this worker token still holds it under that lease token and it has not run out. A worker renews about every third of the lease; a lease not renewed ends, and the task is leased again.",
    params(crate::api::openapi_types::WorkTaskPath),
    request_body(content = crate::api::routes::work::RenewRequest),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("worker"))),
    responses(
        (status = 200, description = "Renewed.", body = crate::api::openapi_types::WorkRenewed),
        (status = 409, description = "`task_gone`: the task is not open (its result is in, its job ended or was cancelled, or its lease ran out and it was leased again): stop counting it.", body = crate::api::error::ErrorBody<'static>),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, description = "`work_disabled` (this server is not a cluster node, or no worker tokens are configured: `auth.worker_tokens`) or `forbidden` (a wrong worker token).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 503, description = "`store_unavailable`: the queue in PostgreSQL could not be reached; nothing changed.", body = crate::api::error::ErrorBody<'static>)
    )
)]
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
#[utoipa::path(
    post,
    path = "/v1/work/{job}/{task}/result",
    operation_id = "submitWorkTask",
    tag = "jobs",
    summary = "Submit a shared perft task's result",
    description = "The statistics of one occurrence of the task's position, under the lease this worker token holds. The first result of a task under its current, unexpired lease from the token that took it is counted (`counted: true`); once the task has a result any later one is not (`counted: false`), so a retried submission is harmless and no task is ever counted twice. A result for a task never leased to this token, under another worker's lease or a lease that ran out is refused (`409 lease_not_held`) and counted nowhere. Before a job counted partly by remote workers is accepted, its node counts a sample of each worker's results again (`cluster.verify_percent`, at least one task each): a difference fails the job with `result_mismatch`, and a result not entirely counted or checked by the nodes is never answered to a later request.",
    params(crate::api::openapi_types::WorkTaskPath),
    request_body(content = crate::api::routes::work::ResultRequest),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("worker"))),
    responses(
        (status = 200, description = "Taken.", body = crate::api::openapi_types::WorkSubmitted),
        (status = 409, description = "`lease_not_held`: the task is open but not under that lease of this worker token (never leased to it, another worker's lease, or it ran out): not counted. `task_gone`: the task is not open (its result is in, its job ended or was cancelled): stop counting it.", body = crate::api::error::ErrorBody<'static>),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, description = "`work_disabled` (this server is not a cluster node, or no worker tokens are configured: `auth.worker_tokens`) or `forbidden` (a wrong worker token).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 503, description = "`store_unavailable`: the queue in PostgreSQL could not be reached; nothing changed.", body = crate::api::error::ErrorBody<'static>)
    )
)]
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
