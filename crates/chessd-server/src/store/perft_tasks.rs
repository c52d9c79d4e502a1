//! The shared perft task queue of a cluster (PostgreSQL only), in the manner of the Grand Chess
//! Tree's work API: a job's open tasks are rows that queue workers lease, renew and submit
//! (see [`TaskQueue`]).

use sqlx::postgres::PgPool;
use uuid::Uuid;

use super::StoreError;

/// PostgreSQL's clock in Unix milliseconds, as SQL.
const NOW_MS: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/// The task queue, on the store's PostgreSQL. A queue worker (a node's task thread or a remote
/// `chessd worker --server`) leases a task with `FOR UPDATE SKIP LOCKED`, renews the lease
/// while it counts, and submits the result, which moves the task to `job_tasks` in one
/// transaction. `job_tasks`' primary key lets each task in once, so a result submitted twice
/// (a worker retrying, a lease that ended while its holder still counted) is never counted
/// twice. A lease is a random UUID bound to its owner (a worker token's digest, or a node): a
/// result or a renewal counts only under the task's current, unexpired lease from that owner,
/// and an owner may hold a capped number of leases at once. Every time is PostgreSQL's clock.
#[derive(Clone, Debug)]
pub struct TaskQueue {
    pool: PgPool,
}

/// A task to put in the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedTask {
    /// Its index in the job's split.
    pub task: i64,
    /// The position (FEN).
    pub fen: String,
}

/// A task leased to a queue worker (also its form in the work API).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct LeasedTask {
    /// The job.
    pub job: Uuid,
    /// Its index in the job's split.
    pub task: i64,
    /// The position (FEN).
    pub fen: String,
    /// Plies to count below it.
    pub depth: u32,
    /// Whether the leaf statistics are counted too (else the nodes only).
    pub stats: bool,
    /// The lease's token (random): renewals and the result name it.
    pub lease: String,
}

/// What a lease request got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Leased {
    /// A task, leased.
    Task(LeasedTask),
    /// No task is open now.
    None,
    /// The owner holds its most leases already.
    Capped,
}

/// A task's result as submitted.
#[derive(Clone, Copy, Debug)]
pub struct Submission<'a> {
    /// The job.
    pub job: &'a Uuid,
    /// The task's index in the job's split.
    pub task: i64,
    /// The lease it was counted under.
    pub lease: &'a str,
    /// Who holds the lease (a worker token's digest, or a node).
    pub owner: &'a str,
    /// The name the result is recorded with.
    pub worker: &'a str,
    /// JSON: its statistics.
    pub result: &'a str,
}

/// What became of a submitted result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// It is the task's result, counted once.
    Counted,
    /// The task had a result already: this one is not counted.
    Duplicate,
    /// The task is open but not under that lease held by that owner (never leased to it,
    /// another's lease, or run out): not counted.
    NotHeld,
    /// No such open task: its job ended (or never had it).
    Unknown,
}

/// A job's shared tasks as its coordinator sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedProgress {
    /// The job's state (`queued`, `running`, or how it ended); `None`: no such job.
    pub state: Option<String>,
    /// The node running the job (its coordinator).
    pub node: Option<String>,
    /// Finished tasks among those asked about: index, result (JSON) and who counted it.
    pub done: Vec<(i64, String, Option<String>)>,
    /// The most leases any open task has had.
    pub max_attempts: i32,
}

/// A leased task as `RETURNING` gives it (the job as bytes, the depth as `INTEGER`).
#[derive(sqlx::FromRow)]
struct LeaseRow {
    job: Vec<u8>,
    task: i64,
    fen: String,
    depth: i32,
    stats: bool,
    lease: String,
}

impl TryFrom<LeaseRow> for LeasedTask {
    type Error = StoreError;

    fn try_from(row: LeaseRow) -> Result<LeasedTask, StoreError> {
        Ok(LeasedTask {
            job: Uuid::from_slice(&row.job).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            task: row.task,
            fen: row.fen,
            depth: u32::try_from(row.depth).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            stats: row.stats,
            lease: row.lease,
        })
    }
}

fn db_err(e: sqlx::Error) -> StoreError {
    StoreError::from_db(e, None)
}

impl TaskQueue {
    pub(crate) fn new(pool: PgPool) -> TaskQueue {
        TaskQueue { pool }
    }

    /// Puts a job's tasks in the queue, all at `depth`; a task already queued or already
    /// finished is left as it is (so that a job taken up again queues only what is missing).
    pub async fn enqueue(
        &self,
        job: &Uuid,
        tasks: &[QueuedTask],
        depth: u32,
        stats: bool,
    ) -> Result<(), StoreError> {
        let indices: Vec<i64> = tasks.iter().map(|t| t.task).collect();
        let fens: Vec<&str> = tasks.iter().map(|t| t.fen.as_str()).collect();
        let sql = format!(
            "INSERT INTO perft_tasks (job, task, fen, depth, stats, queued_ms) \
             SELECT $1, t.task, t.fen, $4, $5, {NOW_MS} \
             FROM UNNEST($2::BIGINT[], $3::TEXT[]) AS t(task, fen) \
             WHERE NOT EXISTS (SELECT 1 FROM job_tasks d WHERE d.job = $1 AND d.task = t.task) \
             ON CONFLICT (job, task) DO NOTHING"
        );
        sqlx::query(&sql)
            .bind(job.as_bytes().as_slice())
            .bind(&indices)
            .bind(&fens)
            .bind(depth as i32)
            .bind(stats)
            .execute(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(())
    }

    /// Leases the oldest open task whose lease has ended (or that was never leased) to
    /// `holder` (the name results record) on behalf of `owner` (who may renew and submit it: a
    /// worker token's digest, or a node) for `lease_ms`, under a new random lease. Two workers
    /// never get the same task. With `max_leases`, an owner holding that many unexpired
    /// leases already gets [`Leased::Capped`].
    pub async fn lease(
        &self,
        holder: &str,
        owner: &str,
        lease_ms: u64,
        max_leases: Option<usize>,
    ) -> Result<Leased, StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        if let Some(max) = max_leases {
            // One owner's leases are taken one at a time, so that the count holds.
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))")
                .bind(owner)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            let held: i64 = sqlx::query_scalar(&format!(
                "SELECT count(*) FROM perft_tasks WHERE owner = $1 AND expires_ms >= {NOW_MS}"
            ))
            .bind(owner)
            .fetch_one(&mut *tx)
            .await
            .map_err(db_err)?;
            if held >= i64::try_from(max).unwrap_or(i64::MAX) {
                tx.rollback().await.map_err(db_err)?;
                return Ok(Leased::Capped);
            }
        }
        let sql = format!(
            "UPDATE perft_tasks t SET holder = $1, owner = $3, lease = $4, \
             expires_ms = {NOW_MS} + $2, attempts = t.attempts + 1 \
             FROM (SELECT job, task FROM perft_tasks WHERE expires_ms < {NOW_MS} \
                   ORDER BY queued_ms, job, task LIMIT 1 FOR UPDATE SKIP LOCKED) n \
             WHERE t.job = n.job AND t.task = n.task \
             RETURNING t.job, t.task, t.fen, t.depth, t.stats, t.lease"
        );
        let row = sqlx::query_as::<_, LeaseRow>(&sql)
            .bind(holder)
            .bind(lease_ms as i64)
            .bind(owner)
            .bind(Uuid::new_v4().to_string())
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_err)?;
        tx.commit().await.map_err(db_err)?;
        let Some(row) = row else {
            return Ok(Leased::None);
        };
        Ok(Leased::Task(LeasedTask::try_from(row)?))
    }

    /// Extends lease `lease` of a task, held by `owner`, by `lease_ms` from now; `false` when
    /// the task is no longer held under that lease by that owner (finished, its job ended, the
    /// lease ran out or went to another worker): its holder should stop counting it.
    pub async fn renew(
        &self,
        job: &Uuid,
        task: i64,
        lease: &str,
        owner: &str,
        lease_ms: u64,
    ) -> Result<bool, StoreError> {
        let sql = format!(
            "UPDATE perft_tasks SET expires_ms = {NOW_MS} + $4 \
             WHERE job = $1 AND task = $2 AND lease = $3 AND owner = $5 \
             AND expires_ms >= {NOW_MS}"
        );
        let done = sqlx::query(&sql)
            .bind(job.as_bytes().as_slice())
            .bind(task)
            .bind(lease)
            .bind(lease_ms as i64)
            .bind(owner)
            .execute(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(done.rows_affected() == 1)
    }

    /// Submits a task's result (JSON), computed by `worker` under lease `lease` held by
    /// `owner`: counted only when that lease is the task's current one, held by that owner and
    /// not run out ([`Submitted::NotHeld`] otherwise); a task that has a result already is
    /// answered [`Submitted::Duplicate`] and nothing is counted.
    pub async fn submit(&self, submit: &Submission<'_>) -> Result<Submitted, StoreError> {
        let (job, task) = (submit.job.as_bytes().as_slice(), submit.task);
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let held = sqlx::query(&format!(
            "DELETE FROM perft_tasks WHERE job = $1 AND task = $2 AND lease = $3 \
             AND owner = $4 AND expires_ms >= {NOW_MS}"
        ))
        .bind(job)
        .bind(task)
        .bind(submit.lease)
        .bind(submit.owner)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?
        .rows_affected()
            == 1;
        let submitted = if held {
            let sql = format!(
                "INSERT INTO job_tasks (job, task, result, finished_ms, worker) \
                 VALUES ($1, $2, $3, {NOW_MS}, $4) ON CONFLICT (job, task) DO NOTHING"
            );
            let inserted = sqlx::query(&sql)
                .bind(job)
                .bind(task)
                .bind(submit.result)
                .bind(submit.worker)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?
                .rows_affected();
            if inserted == 1 {
                Submitted::Counted
            } else {
                Submitted::Duplicate
            }
        } else if sqlx::query_scalar::<_, i32>(
            "SELECT 1 FROM job_tasks WHERE job = $1 AND task = $2",
        )
        .bind(job)
        .bind(task)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db_err)?
        .is_some()
        {
            Submitted::Duplicate
        } else {
            let open: Option<i32> =
                sqlx::query_scalar("SELECT 1 FROM perft_tasks WHERE job = $1 AND task = $2")
                    .bind(job)
                    .bind(task)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_err)?;
            if open.is_some() {
                Submitted::NotHeld
            } else {
                Submitted::Unknown
            }
        };
        tx.commit().await.map_err(db_err)?;
        Ok(submitted)
    }

    /// A job's state and node, which of the tasks `awaited` have finished, and the most leases
    /// an open task has had, for its coordinator.
    pub async fn progress(
        &self,
        job: &Uuid,
        awaited: &[i64],
    ) -> Result<SharedProgress, StoreError> {
        let id = job.as_bytes().as_slice();
        let row: Option<(String, Option<String>)> =
            sqlx::query_as("SELECT state, node FROM jobs WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(db_err)?;
        let (state, node) = match row {
            Some((state, node)) => (Some(state), node),
            None => (None, None),
        };
        let done = sqlx::query_as(
            "SELECT task, result, worker FROM job_tasks \
             WHERE job = $1 AND task = ANY($2::BIGINT[]) AND result IS NOT NULL",
        )
        .bind(id)
        .bind(awaited)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        let max_attempts: i32 = sqlx::query_scalar(
            "SELECT COALESCE(MAX(attempts), 0)::INTEGER FROM perft_tasks WHERE job = $1",
        )
        .bind(id)
        .fetch_one(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(SharedProgress {
            state,
            node,
            done,
            max_attempts,
        })
    }
}
