//! Queue workers (once called *takers*): loops that lease a cluster's shared perft tasks, count
//! them and submit the results; a node runs `cluster.task_threads` of them against the queue in
//! PostgreSQL ([`NodeWorkers`]), `chessd worker --server` against a node's work API.

use std::{
    future::Future,
    sync::{
        atomic::{AtomicBool, Ordering::Relaxed},
        Arc, OnceLock,
    },
    time::Duration,
};

use chessd_core::{
    perft::{BulkHash, Perft, PerftStats, StatsHash},
    FenMode, Position,
};

use crate::store::perft_tasks::{Leased, LeasedTask, Submission, Submitted, TaskQueue};

/// How long an idle queue worker waits before asking for a task again.
const IDLE: Duration = Duration::from_millis(200);

/// How long a queue worker waits after its source failed.
const BACKOFF: Duration = Duration::from_secs(1);

/// Times a result is offered before it is given up (the task is leased again later).
const SUBMIT_TRIES: u32 = 5;

/// Where a queue worker gets tasks and gives results: the queue itself, or a node's work API.
pub trait TaskSource {
    /// Leases a task; `None` when there is none now.
    fn lease(&self) -> impl Future<Output = Result<Option<LeasedTask>, String>>;
    /// Extends the lease; `false` when the task is no longer this worker's.
    fn renew(&self, task: &LeasedTask) -> impl Future<Output = Result<bool, String>>;
    /// Submits the result of a task.
    fn submit(
        &self,
        task: &LeasedTask,
        stats: &PerftStats,
    ) -> impl Future<Output = Result<Submitted, String>>;
    /// How long a lease lasts without renewal.
    fn lease_ms(&self) -> u64;
}

/// Hash tables kept from task to task (positions repeat across a job's tasks), made at first
/// use.
pub struct TaskTables {
    mib: usize,
    stats: OnceLock<StatsHash>,
    bulk: OnceLock<BulkHash>,
}

impl TaskTables {
    /// Tables of `mib` MiB each (0: none).
    pub fn new(mib: usize) -> TaskTables {
        TaskTables {
            mib,
            stats: OnceLock::new(),
            bulk: OnceLock::new(),
        }
    }
}

/// Counts `depth` plies below `fen` on the calling thread (all the statistics, or the nodes
/// only); `Err` for a FEN that does not read, `Ok(None)` when `cancel` was set.
pub fn count_task(
    fen: &str,
    depth: u32,
    stats: bool,
    cancel: &AtomicBool,
    tables: &TaskTables,
) -> Result<Option<PerftStats>, String> {
    let pos = Position::from_fen(fen, FenMode::Lenient).map_err(|e| e.to_string())?;
    let mut perft = Perft::new(pos)
        .depth(depth)
        .threads(1)
        .stats(stats)
        .cancel(cancel);
    if tables.mib > 0 {
        perft = if stats {
            perft.stats_table(tables.stats.get_or_init(|| StatsHash::new(tables.mib)))
        } else {
            perft.bulk_table(tables.bulk.get_or_init(|| BulkHash::new(tables.mib)))
        };
    }
    Ok(perft.run(|_| {}).ok().map(|r| r.stats))
}

/// Runs one queue worker on `source` until `stop` is set: leases a task, counts it on a
/// blocking thread while renewing the lease (a third of the lease time apart), and submits
/// the result, one task at a time. When a renewal says the task is no longer ours (its job
/// ended or was cancelled, or the lease ran out and the task went to another worker) the count
/// stops at once. Results are the statistics of one occurrence of the task's position, as
/// [`crate::jobs::record::task`] stores them; a result submitted twice is counted once by the
/// queue.
pub async fn work_on_queue<S: TaskSource>(source: &S, tables: Arc<TaskTables>, stop: &AtomicBool) {
    while !stop.load(Relaxed) {
        match source.lease().await {
            Ok(Some(task)) => count_leased(source, task, &tables, stop).await,
            Ok(None) => tokio::time::sleep(IDLE).await,
            Err(e) => {
                tracing::warn!(error = %e, "no perft task could be leased");
                tokio::time::sleep(BACKOFF).await;
            }
        }
    }
}

/// Counts one leased task, renewing its lease, and submits the result.
async fn count_leased<S: TaskSource>(
    source: &S,
    task: LeasedTask,
    tables: &Arc<TaskTables>,
    stop: &AtomicBool,
) {
    let cancel = Arc::new(AtomicBool::new(false));
    let counting = {
        let (cancel, tables) = (Arc::clone(&cancel), Arc::clone(tables));
        let (fen, depth, stats) = (task.fen.clone(), task.depth, task.stats);
        tokio::task::spawn_blocking(move || count_task(&fen, depth, stats, &cancel, &tables))
    };
    tokio::pin!(counting);
    let every = Duration::from_millis((source.lease_ms() / 3).max(50));
    let mut renewals = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let counted = loop {
        tokio::select! {
            counted = &mut counting => break counted,
            _ = renewals.tick() => {
                if stop.load(Relaxed) {
                    cancel.store(true, Relaxed);
                }
                match source.renew(&task).await {
                    Ok(true) => {}
                    Ok(false) => cancel.store(true, Relaxed),
                    Err(e) => tracing::debug!(error = %e, "a task's lease was not renewed"),
                }
            }
        }
    };
    let stats = match counted {
        Ok(Ok(Some(stats))) => stats,
        Ok(Ok(None)) => return, // stopped: the task is not ours any more, or we stop
        Ok(Err(e)) => {
            tracing::warn!(job = %task.job, task = task.task, error = %e, "a task cannot be counted");
            return;
        }
        Err(e) => {
            tracing::warn!(job = %task.job, task = task.task, error = %e, "a task's count failed");
            return;
        }
    };
    for attempt in 1..=SUBMIT_TRIES {
        match source.submit(&task, &stats).await {
            Ok(submitted) => {
                tracing::debug!(job = %task.job, task = task.task, ?submitted, "task submitted");
                return;
            }
            Err(e) if attempt < SUBMIT_TRIES => {
                tracing::debug!(error = %e, attempt, "a task's result was not taken; again");
                tokio::time::sleep(BACKOFF).await;
            }
            Err(e) => tracing::warn!(job = %task.job, task = task.task, error = %e,
                "a task's result was not taken: the task will be leased again"),
        }
    }
}

/// The queue in PostgreSQL as a node's queue workers see it.
pub struct QueueSource {
    queue: TaskQueue,
    holder: String,
    /// Who the leases belong to: `node:` and the holder.
    owner: String,
    lease_ms: u64,
}

impl QueueSource {
    /// The queue, taken from as `holder` (a node) with leases of `lease_ms`.
    pub fn new(queue: TaskQueue, holder: &str, lease_ms: u64) -> QueueSource {
        QueueSource {
            queue,
            holder: holder.to_string(),
            owner: format!("node:{holder}"),
            lease_ms,
        }
    }
}

impl TaskSource for QueueSource {
    async fn lease(&self) -> Result<Option<LeasedTask>, String> {
        // A node's own queue workers are as many as its task threads: not capped.
        match self
            .queue
            .lease(&self.holder, &self.owner, self.lease_ms, None)
            .await
            .map_err(|e| e.to_string())?
        {
            Leased::Task(task) => Ok(Some(task)),
            Leased::None | Leased::Capped => Ok(None),
        }
    }

    async fn renew(&self, task: &LeasedTask) -> Result<bool, String> {
        self.queue
            .renew(
                &task.job,
                task.task,
                &task.lease,
                &self.owner,
                self.lease_ms,
            )
            .await
            .map_err(|e| e.to_string())
    }

    async fn submit(&self, task: &LeasedTask, stats: &PerftStats) -> Result<Submitted, String> {
        let result = crate::jobs::record::task(stats);
        let submission = Submission {
            job: &task.job,
            task: task.task,
            lease: &task.lease,
            owner: &self.owner,
            worker: &self.holder,
            result: &result,
        };
        let submitted = self
            .queue
            .submit(&submission)
            .await
            .map_err(|e| e.to_string())?;
        crate::metrics::count_perft_task(match submitted {
            Submitted::Counted => "counted",
            Submitted::Duplicate => "duplicate",
            Submitted::NotHeld => "not_held",
            Submitted::Unknown => "gone",
        });
        Ok(submitted)
    }

    fn lease_ms(&self) -> u64 {
        self.lease_ms
    }
}

/// A node's queue workers (`cluster.task_threads`): `threads` loops over the queue, stopped
/// together.
pub struct NodeWorkers {
    stop: Arc<AtomicBool>,
}

impl NodeWorkers {
    /// Starts `threads` queue workers on the current thread's local task set (the server's; tasks
    /// are counted on the runtime's blocking pool).
    pub fn start(source: QueueSource, threads: usize, hash_mb: usize) -> NodeWorkers {
        let stop = Arc::new(AtomicBool::new(false));
        let source = Arc::new(source);
        let tables = Arc::new(TaskTables::new(hash_mb));
        for _ in 0..threads {
            let (source, tables, stop) =
                (Arc::clone(&source), Arc::clone(&tables), Arc::clone(&stop));
            tokio::task::spawn_local(
                async move { work_on_queue(source.as_ref(), tables, &stop).await },
            );
        }
        NodeWorkers { stop }
    }

    /// Stops every queue worker: a task being counted is dropped (its lease runs out and
    /// another worker counts it).
    pub fn stop(&self) {
        self.stop.store(true, Relaxed);
    }
}

impl Drop for NodeWorkers {
    fn drop(&mut self) {
        self.stop();
    }
}
