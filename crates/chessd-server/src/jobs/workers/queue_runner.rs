//! A cluster's shared perft task queue as a job's [`TaskRunner`]: the job's node queues its
//! tasks, follows the results the queue workers store, and counts a sample of the remote
//! workers' results again (`verify.rs`) before the job is accepted.

use std::{
    collections::HashMap,
    future::Future,
    sync::atomic::Ordering::Relaxed,
    time::{Duration, Instant},
};

use chessd_core::perft::PerftStats;

use super::{
    runner::{TaskBatch, TaskRunner},
    verify::{self, RemoteResult},
};
use crate::jobs::{error::JobError, record};
use crate::store::perft_tasks::{QueuedTask, TaskQueue};

/// Leases a task may have without a result before its job fails.
pub const MAX_TASK_LEASES: i32 = 10;

/// How often the coordinator reads the job's finished tasks.
const POLL: Duration = Duration::from_millis(100);

/// Consecutive time the queue may be unreadable before the job fails.
const STORE_PATIENCE: Duration = Duration::from_secs(60);

/// The shared queue, from one node: the node running a job (its coordinator) puts the job's
/// unfinished tasks in the queue, then follows the finished ones as the queue workers store
/// them (every node's task threads and any remote `chessd worker --server`, see
/// `queue_worker.rs`) and hands each to the job once, until all are in (each poll reads only
/// the tasks still awaited).
///
/// The job's thread waits here; the queries run on the server's runtime. It waits while the
/// job's row is not in the store yet (its creation commits while the job already runs). It
/// stops without an end of its own when the job is no longer this node's (another node took
/// it over while this one was paused, or it ended through another node), and fails the job
/// when a task keeps being leased without a result (a position that kills its workers).
pub struct QueueRunner {
    queue: TaskQueue,
    node: String,
    runtime: tokio::runtime::Handle,
    /// Percent of each remote worker's results counted again (`cluster.verify_percent`).
    verify_percent: u32,
}

impl QueueRunner {
    /// The queue seen from node `node`, its queries run on `runtime` (the server's); a job's
    /// remote results are checked with `verify_percent` (see `verify.rs`).
    pub fn new(
        queue: TaskQueue,
        node: &str,
        runtime: tokio::runtime::Handle,
        verify_percent: u32,
    ) -> QueueRunner {
        QueueRunner {
            queue,
            node: node.to_string(),
            runtime,
            verify_percent,
        }
    }

    /// Runs `fut` on the server's runtime and waits for it on this (plain) thread.
    fn wait<T: Send + 'static>(
        &self,
        fut: impl Future<Output = Result<T, crate::store::StoreError>> + Send + 'static,
    ) -> Result<T, String> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.runtime.spawn(async move {
            let _ = tx.send(fut.await);
        });
        match rx.recv() {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err("the server's runtime has stopped".into()),
        }
    }
}

impl TaskRunner for QueueRunner {
    fn names(&self) -> Vec<String> {
        vec!["cluster".into()]
    }

    fn shared(&self) -> bool {
        true
    }

    fn run(
        &self,
        batch: TaskBatch<'_>,
        on_done: &mut dyn FnMut(usize, PerftStats),
    ) -> Result<(), JobError> {
        let mut remote = Vec::new();
        self.follow(&batch, &mut remote, on_done)
            .map_err(JobError::Internal)?;
        if remote.is_empty() || batch.cancel.load(Relaxed) || batch.interrupted.load(Relaxed) {
            return Ok(());
        }
        let checked = verify::check(&remote, batch.stats, self.verify_percent, &batch.cancel)?;
        tracing::info!(job = %batch.job, recounted = checked.recounted, unchecked = checked.unchecked,
            "remote workers' results checked");
        if checked.unchecked > 0 {
            batch.unverified.store(true, Relaxed);
        }
        Ok(())
    }
}

impl QueueRunner {
    /// Queues the batch's tasks and hands their results to `on_done` as they come in, keeping
    /// those of remote workers in `remote` (with the results checked later, when it returns).
    fn follow(
        &self,
        batch: &TaskBatch<'_>,
        remote: &mut Vec<RemoteResult>,
        on_done: &mut dyn FnMut(usize, PerftStats),
    ) -> Result<(), String> {
        let Some(depth) = batch.tasks.first().map(|t| t.depth) else {
            return Ok(());
        };
        let rows: Vec<QueuedTask> = batch
            .tasks
            .iter()
            .map(|t| QueuedTask {
                task: t.index as i64,
                fen: t.fen.clone(),
            })
            .collect();
        let (queue, job, stats) = (self.queue.clone(), batch.job, batch.stats);
        self.wait(async move { queue.enqueue(&job, &rows, depth, stats).await })?;
        // The tasks still awaited: their index in the split, to their place in the batch.
        let mut awaited: HashMap<i64, usize> = batch
            .tasks
            .iter()
            .enumerate()
            .map(|(j, t)| (t.index as i64, j))
            .collect();
        let mut unreadable_since: Option<Instant> = None;
        let mut unwritten_since: Option<Instant> = None;
        while !awaited.is_empty() {
            if batch.cancel.load(Relaxed) {
                return Ok(());
            }
            let queue = self.queue.clone();
            let asked: Vec<i64> = awaited.keys().copied().collect();
            let progress = match self.wait(async move { queue.progress(&job, &asked).await }) {
                Ok(progress) => {
                    unreadable_since = None;
                    progress
                }
                Err(e) => {
                    let since = *unreadable_since.get_or_insert_with(Instant::now);
                    if since.elapsed() > STORE_PATIENCE {
                        return Err(format!("the task queue cannot be read: {e}"));
                    }
                    tracing::warn!(%job, error = %e, "the task queue cannot be read");
                    std::thread::sleep(POLL * 10);
                    continue;
                }
            };
            if progress.state.is_none() {
                // The job's row is not written yet: its creation is committed by the store's
                // writer while the job already runs (the job is cancelled if that write fails).
                // Taken for "not this node's", the job would be forgotten here and shown from
                // the store as queued forever, with no node to take it over.
                let since = *unwritten_since.get_or_insert_with(Instant::now);
                if since.elapsed() > STORE_PATIENCE {
                    return Err("the job's creation never reached the store".into());
                }
                std::thread::sleep(POLL);
                continue;
            }
            let ours = progress.node.as_deref() == Some(self.node.as_str());
            let unfinished = matches!(progress.state.as_deref(), Some("queued" | "running"));
            if !ours || !unfinished {
                tracing::info!(%job, node = ?progress.node, state = ?progress.state,
                    "a shared perft job is no longer this node's: it stops here");
                batch.interrupted.store(true, Relaxed);
                return Ok(());
            }
            for (task, result, worker) in progress.done {
                if let Some(j) = awaited.remove(&task) {
                    let stats = record::read_task(&result)?;
                    if let (Some(worker), Some(t)) = (worker, batch.tasks.get(j)) {
                        if worker.starts_with("worker:") {
                            remote.push(RemoteResult {
                                index: t.index,
                                fen: t.fen.clone(),
                                depth: t.depth,
                                worker,
                                stats,
                            });
                        }
                    }
                    on_done(j, stats);
                }
            }
            if progress.max_attempts > MAX_TASK_LEASES && !awaited.is_empty() {
                return Err(format!(
                    "a task was leased {} times without a result",
                    progress.max_attempts
                ));
            }
            if !awaited.is_empty() {
                std::thread::sleep(POLL);
            }
        }
        Ok(())
    }
}
