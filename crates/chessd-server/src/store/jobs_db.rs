//! The SQL that reads jobs and their finished tasks, the same for SQLite and PostgreSQL (the
//! writes are `jobs.rs`'s, executed by the writer).

use sqlx::Row;
use uuid::Uuid;

use super::{
    db::{with_pool, Db},
    jobs::{StoredJob, StoredTask},
    StoreError,
};

/// The columns of a job, as `decode_job!` reads them.
const JOB_COLUMNS: &str = "seq, id, kind, request_key, request, state, result, error, secret, \
                           cached, runs, created_ms, updated_ms, ran_ms";

/// Reads a row of [`JOB_COLUMNS`].
macro_rules! decode_job {
    ($row:expr) => {{
        let row = $row;
        let db_err = |e| StoreError::from_db(e, None);
        let id: Vec<u8> = row.try_get("id").map_err(db_err)?;
        Ok::<StoredJob, StoreError>(StoredJob {
            seq: row.try_get("seq").map_err(db_err)?,
            id: Uuid::from_slice(&id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            kind: row.try_get("kind").map_err(db_err)?,
            request_key: row.try_get("request_key").map_err(db_err)?,
            request: row.try_get("request").map_err(db_err)?,
            state: row.try_get("state").map_err(db_err)?,
            result: row.try_get("result").map_err(db_err)?,
            error: row.try_get("error").map_err(db_err)?,
            secret: row.try_get("secret").map_err(db_err)?,
            cached: row.try_get::<i64, _>("cached").map_err(db_err)? != 0,
            runs: row.try_get("runs").map_err(db_err)?,
            created_ms: row.try_get("created_ms").map_err(db_err)?,
            updated_ms: row.try_get("updated_ms").map_err(db_err)?,
            ran_ms: row.try_get("ran_ms").map_err(db_err)?,
        })
    }};
}

/// Runs the query `$sql`, its parameters bound by `$bind` (over `$q`), with either pool and
/// reads every row as a job.
macro_rules! fetch_jobs {
    ($db:expr, $sql:expr, |$q:ident| $bind:expr) => {
        with_pool!($db, pool => {
            let $q = sqlx::query($sql);
            let rows = $bind
                .fetch_all(pool)
                .await
                .map_err(|e| StoreError::from_db(e, None))?;
            rows.into_iter()
                .map(|r| decode_job!(r))
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
        let db_err = |e| StoreError::from_db(e, None);
        let sql = "SELECT task, result FROM job_tasks WHERE job = $1 AND result IS NOT NULL \
                   ORDER BY task";
        macro_rules! tasks {
            ($pool:expr) => {
                sqlx::query(sql)
                    .bind(id.as_bytes().as_slice())
                    .fetch_all($pool)
                    .await
                    .map_err(db_err)?
                    .into_iter()
                    .map(|r| {
                        Ok(StoredTask {
                            task: r.try_get("task").map_err(db_err)?,
                            result: r.try_get("result").map_err(db_err)?,
                        })
                    })
                    .collect()
            };
        }
        match self {
            Db::Sqlite(pool) => tasks!(pool),
            Db::Postgres(pool) => tasks!(pool),
        }
    }
}
