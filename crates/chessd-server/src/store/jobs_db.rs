//! The SQL that reads jobs and their finished tasks, the same for SQLite and PostgreSQL (the
//! writes are `jobs.rs`'s, executed by the writer).

use uuid::Uuid;

use super::{
    db::{with_pool, Db},
    jobs::{StoredJob, StoredTask},
    StoreError,
};

/// The columns of a job, as [`JobRow`] reads them.
const JOB_COLUMNS: &str = "seq, id, kind, request_key, request, state, result, error, secret, \
                           cached, runs, created_ms, updated_ms, ran_ms";

/// A row of [`JOB_COLUMNS`] as the database has it (the id as bytes, `cached` as 0 or 1).
#[derive(sqlx::FromRow)]
struct JobRow {
    seq: i64,
    id: Vec<u8>,
    kind: String,
    request_key: String,
    request: String,
    state: String,
    result: Option<String>,
    error: Option<String>,
    secret: Vec<u8>,
    cached: i64,
    runs: i64,
    created_ms: i64,
    updated_ms: i64,
    ran_ms: i64,
}

impl TryFrom<JobRow> for StoredJob {
    type Error = StoreError;

    fn try_from(row: JobRow) -> Result<StoredJob, StoreError> {
        Ok(StoredJob {
            seq: row.seq,
            id: Uuid::from_slice(&row.id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            kind: row.kind,
            request_key: row.request_key,
            request: row.request,
            state: row.state,
            result: row.result,
            error: row.error,
            secret: row.secret,
            cached: row.cached != 0,
            runs: row.runs,
            created_ms: row.created_ms,
            updated_ms: row.updated_ms,
            ran_ms: row.ran_ms,
        })
    }
}

/// Runs the query `$sql`, its parameters bound by `$bind` (over `$q`), with either pool and
/// reads every row as a job.
macro_rules! fetch_jobs {
    ($db:expr, $sql:expr, |$q:ident| $bind:expr) => {
        with_pool!($db, pool => {
            let $q = sqlx::query_as::<_, JobRow>($sql);
            let rows = $bind
                .fetch_all(pool)
                .await
                .map_err(|e| StoreError::from_db(e, None))?;
            rows.into_iter()
                .map(StoredJob::try_from)
                .collect::<Result<Vec<_>, _>>()
        })
    };
}

impl Db {
    /// A stored job, or `None`.
    pub(crate) async fn load_job(&self, id: &Uuid) -> Result<Option<StoredJob>, StoreError> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = $1");
        let jobs = fetch_jobs!(self, &sql, |q| q.bind(id.as_bytes().as_slice()))?;
        Ok(jobs.into_iter().next())
    }

    /// The oldest done job with this request key whose result is verified (no task result
    /// of a remote worker that no node counted again).
    pub(crate) async fn done_job(&self, key: &str) -> Result<Option<StoredJob>, StoreError> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE request_key = $1 AND state = 'done' \
             AND unverified = 0 ORDER BY seq LIMIT 1"
        );
        let jobs = fetch_jobs!(self, &sql, |q| q.bind(key))?;
        Ok(jobs.into_iter().next())
    }

    /// Every queued or running job, oldest first.
    pub(crate) async fn unfinished_jobs(&self) -> Result<Vec<StoredJob>, StoreError> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ('queued', 'running') ORDER BY seq"
        );
        fetch_jobs!(self, &sql, |q| q)
    }

    /// The newest `limit` jobs ended at `since_ms` or later, oldest first.
    pub(crate) async fn jobs_ended_since(
        &self,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<StoredJob>, StoreError> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ('done', 'cancelled', 'failed') \
             AND updated_ms >= $1 ORDER BY seq DESC LIMIT $2"
        );
        let mut jobs = fetch_jobs!(self, &sql, |q| q.bind(since_ms).bind(limit))?;
        jobs.reverse();
        Ok(jobs)
    }

    /// The finished tasks of a job, by index.
    pub(crate) async fn job_tasks(&self, id: &Uuid) -> Result<Vec<StoredTask>, StoreError> {
        let sql = "SELECT task, result FROM job_tasks WHERE job = $1 AND result IS NOT NULL \
                   ORDER BY task";
        with_pool!(self, pool => {
            sqlx::query_as(sql)
                .bind(id.as_bytes().as_slice())
                .fetch_all(pool)
                .await
                .map_err(|e| StoreError::from_db(e, None))
        })
    }
}
