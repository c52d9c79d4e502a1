//! Perft and puzzle jobs in the store: a row per job (its request, its canonical request key,
//! its state and its end) and the finished tasks of perft jobs, kept as they finish so that an
//! interrupted job resumes from them (tables of `migrations/*/0002_jobs.sql`).
//!
//! Writes go through the store's writer ([`WriteOp::Job`]), so that they share its group
//! commits with games, in the order they were queued; reads are `jobs_db.rs`'s. [`Store::queue`] queues without waiting,
//! for the job threads and the supervisor's critical sections, which must not block on the
//! database; the answer ([`Committed`]) can be awaited or waited for on a plain thread.

use tokio::sync::oneshot;
use uuid::Uuid;

use super::{Pending, Store, StoreError, WriteOp};

/// A job to insert.
#[derive(Clone, Debug)]
pub struct NewJobRow {
    /// Its id.
    pub id: Uuid,
    /// `perft` or `puzzle`.
    pub kind: &'static str,
    /// The request in its canonical form.
    pub request_key: String,
    /// JSON: the checked request.
    pub request: String,
    /// Its state (`queued`, or `done` for a job answered from an earlier result).
    pub state: &'static str,
    /// JSON: its result, when created done.
    pub result: Option<String>,
    /// SHA-256 of its secret.
    pub secret: Vec<u8>,
    /// Whether it was answered with an earlier job's result.
    pub cached: bool,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// The cluster node running it (`None` on a single node).
    pub node: Option<String>,
}

/// One write of a job.
#[derive(Clone, Debug)]
pub enum JobWrite {
    /// Inserts a job.
    Create(NewJobRow),
    /// The job starts running (once more after a restart).
    Start {
        /// The job.
        id: Uuid,
        /// Now (Unix ms).
        now_ms: i64,
    },
    /// A perft task finished. Written at most once: a result already there is kept.
    Task {
        /// The job.
        id: Uuid,
        /// The task's index in the job's split.
        task: i64,
        /// JSON: its statistics.
        result: String,
        /// Now (Unix ms).
        now_ms: i64,
    },
    /// How long the job has run in all its runs so far (kept while it runs, and when the
    /// server stops it, so that a resumed job keeps counting towards `jobs.max_run_secs`).
    Ran {
        /// The job.
        id: Uuid,
        /// Milliseconds run, all runs together.
        ran_ms: i64,
    },
    /// The job ended (`done`, `cancelled` or `failed`): its tasks, finished and open, are
    /// dropped. A job that has ended already keeps its first end.
    End {
        /// The job.
        id: Uuid,
        /// Its final state.
        state: &'static str,
        /// JSON: its result, when done.
        result: Option<String>,
        /// JSON: its error, when failed.
        error: Option<String>,
        /// A done job whose result holds task results of remote workers no node counted
        /// again: never answered to a later request.
        unverified: bool,
        /// Now (Unix ms).
        now_ms: i64,
    },
}

/// A job as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredJob {
    /// Its row key (creation order).
    pub seq: i64,
    /// Its id.
    pub id: Uuid,
    /// `perft` or `puzzle`.
    pub kind: String,
    /// The request in its canonical form.
    pub request_key: String,
    /// JSON: the checked request.
    pub request: String,
    /// `queued`, `running`, `done`, `cancelled` or `failed`.
    pub state: String,
    /// JSON: its result, when done.
    pub result: Option<String>,
    /// JSON: its error, when failed.
    pub error: Option<String>,
    /// SHA-256 of its secret.
    pub secret: Vec<u8>,
    /// Whether it was answered with an earlier job's result.
    pub cached: bool,
    /// Times it was started.
    pub runs: i64,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// When it last changed (Unix ms): its end, once ended.
    pub updated_ms: i64,
    /// Milliseconds it has run, all runs together (as last kept).
    pub ran_ms: i64,
}

/// A finished perft task as stored.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredTask {
    /// Its index in the job's split.
    pub task: i64,
    /// JSON: its statistics.
    pub result: String,
}

/// The answer to a queued write: its result once committed.
#[derive(Debug)]
pub struct Committed(Option<oneshot::Receiver<Result<i64, StoreError>>>);

impl Committed {
    /// Waits for the commit.
    pub async fn wait(self) -> Result<i64, StoreError> {
        match self.0 {
            None => Ok(0),
            Some(answer) => answer.await.map_err(|_| StoreError::Closed)?,
        }
    }

    /// Waits for the commit on a plain thread (never inside an async runtime).
    pub fn wait_blocking(self) -> Result<i64, StoreError> {
        match self.0 {
            None => Ok(0),
            Some(answer) => answer.blocking_recv().map_err(|_| StoreError::Closed)?,
        }
    }
}

impl Store {
    /// Queues `op` for the writer now, without waiting for anything: [`StoreError::Busy`] when
    /// the queue is full. In memory it is answered at once.
    pub fn queue(&self, op: WriteOp) -> Result<Committed, StoreError> {
        let Some(inner) = &self.inner else {
            return Ok(Committed(None));
        };
        let (done, answer) = oneshot::channel();
        inner
            .writes
            .try_send(Pending {
                op: Some(op),
                fence: None,
                done,
            })
            .map_err(|e| match e {
                tokio::sync::mpsc::error::TrySendError::Full(_) => StoreError::Busy,
                tokio::sync::mpsc::error::TrySendError::Closed(_) => StoreError::Closed,
            })?;
        Ok(Committed(Some(answer)))
    }

    /// A stored job (`None` when absent, or in memory).
    pub async fn load_job(&self, id: &Uuid) -> Result<Option<StoredJob>, StoreError> {
        match &self.inner {
            None => Ok(None),
            Some(inner) => inner.db.load_job(id).await,
        }
    }

    /// The finished tasks of a job, by index.
    pub async fn job_tasks(&self, id: &Uuid) -> Result<Vec<StoredTask>, StoreError> {
        match &self.inner {
            None => Ok(Vec::new()),
            Some(inner) => inner.db.job_tasks(id).await,
        }
    }

    /// The oldest job done (not cancelled, not failed) with this request key.
    pub async fn done_job(&self, request_key: &str) -> Result<Option<StoredJob>, StoreError> {
        match &self.inner {
            None => Ok(None),
            Some(inner) => inner.db.done_job(request_key).await,
        }
    }

    /// Every job queued or running, oldest first (to start again after a restart).
    pub async fn unfinished_jobs(&self) -> Result<Vec<StoredJob>, StoreError> {
        match &self.inner {
            None => Ok(Vec::new()),
            Some(inner) => inner.db.unfinished_jobs().await,
        }
    }

    /// The newest `limit` jobs that ended at `since_ms` or later, oldest first.
    pub async fn jobs_ended_since(
        &self,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<StoredJob>, StoreError> {
        match &self.inner {
            None => Ok(Vec::new()),
            Some(inner) => inner.db.jobs_ended_since(since_ms, limit).await,
        }
    }
}

/// Executes one job write in the transaction `$tx`, giving 0.
macro_rules! execute_job_write {
    ($tx:expr, $op:expr) => {{
        let db_err = |e| StoreError::from_db(e, None);
        match $op {
            JobWrite::Create(j) => sqlx::query(
                "INSERT INTO jobs (id, kind, request_key, request, state, result, secret, cached, \
                 created_ms, updated_ms, node) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10)",
            )
            .bind(j.id.as_bytes().as_slice())
            .bind(j.kind)
            .bind(j.request_key.as_str())
            .bind(j.request.as_str())
            .bind(j.state)
            .bind(j.result.as_deref())
            .bind(j.secret.as_slice())
            .bind(i64::from(j.cached))
            .bind(j.created_ms)
            .bind(j.node.as_deref())
            .execute(&mut *$tx)
            .await
            .map(|_| 0)
            .map_err(db_err),
            JobWrite::Start { id, now_ms } => sqlx::query(
                "UPDATE jobs SET state = 'running', runs = runs + 1, updated_ms = $1 \
                 WHERE id = $2 AND state IN ('queued', 'running')",
            )
            .bind(*now_ms)
            .bind(id.as_bytes().as_slice())
            .execute(&mut *$tx)
            .await
            .map(|_| 0)
            .map_err(db_err),
            // Insert-or-ignore: a task's first result stays (a row without one is completed).
            JobWrite::Task {
                id,
                task,
                result,
                now_ms,
            } => sqlx::query(
                "INSERT INTO job_tasks (job, task, result, finished_ms) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (job, task) DO UPDATE SET result = excluded.result, \
                 finished_ms = excluded.finished_ms WHERE job_tasks.result IS NULL",
            )
            .bind(id.as_bytes().as_slice())
            .bind(*task)
            .bind(result.as_str())
            .bind(*now_ms)
            .execute(&mut *$tx)
            .await
            .map(|_| 0)
            .map_err(db_err),
            JobWrite::Ran { id, ran_ms } => sqlx::query(
                "UPDATE jobs SET ran_ms = $1 WHERE id = $2 AND state IN ('queued', 'running')",
            )
            .bind(*ran_ms)
            .bind(id.as_bytes().as_slice())
            .execute(&mut *$tx)
            .await
            .map(|_| 0)
            .map_err(db_err),
            JobWrite::End {
                id,
                state,
                result,
                error,
                unverified,
                now_ms,
            } => {
                let ended = sqlx::query(
                    "UPDATE jobs SET state = $1, result = $2, error = $3, updated_ms = $4, \
                     unverified = $6 WHERE id = $5 AND state IN ('queued', 'running')",
                )
                .bind(*state)
                .bind(result.as_deref())
                .bind(error.as_deref())
                .bind(*now_ms)
                .bind(id.as_bytes().as_slice())
                .bind(i64::from(*unverified))
                .execute(&mut *$tx)
                .await;
                let finished = match ended {
                    Err(e) => Err(db_err(e)),
                    Ok(_) => sqlx::query("DELETE FROM job_tasks WHERE job = $1")
                        .bind(id.as_bytes().as_slice())
                        .execute(&mut *$tx)
                        .await
                        .map_err(db_err),
                };
                // Its tasks still open in the shared queue (a cluster's) go with it.
                match finished {
                    Err(e) => Err(e),
                    Ok(_) => sqlx::query("DELETE FROM perft_tasks WHERE job = $1")
                        .bind(id.as_bytes().as_slice())
                        .execute(&mut *$tx)
                        .await
                        .map(|_| 0)
                        .map_err(db_err),
                }
            }
        }
    }};
}
pub(super) use execute_job_write;
