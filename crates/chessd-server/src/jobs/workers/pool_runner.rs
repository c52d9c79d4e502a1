//! The pool of Grand Chess Tree workers as a job's [`TaskRunner`]: a job's thread blocks on a
//! run of the pool, which outlives the job (connections and hash tables stay warm).

use std::collections::BTreeMap;

use chessd_core::perft::PerftStats;

use super::{
    runner::{TaskBatch, TaskRunner},
    WorkerPool, WorkerPoolError, WorkerStatus, WorkerTask,
};
use crate::{config::EndpointConfig, jobs::error::JobError};

/// The configured Grand Chess Tree workers ([`WorkerPool`]) as a [`TaskRunner`]: the pool
/// runs on a small runtime of its own, so that its connections (and local worker processes,
/// hash tables warm) live from one job to the next; a job's thread blocks on its run.
pub struct PoolRunner {
    pool: WorkerPool,
    runtime: Option<tokio::runtime::Runtime>,
}

impl PoolRunner {
    /// The workers of `[gct_workers]`, or `None` when there are none (or their runtime cannot
    /// be built, which is logged).
    pub fn from_config(config: &BTreeMap<String, EndpointConfig>) -> Option<PoolRunner> {
        if config.is_empty() {
            return None;
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("chessd-gct")
            .enable_all()
            .build();
        match runtime {
            Ok(runtime) => Some(PoolRunner {
                pool: WorkerPool::new(config),
                runtime: Some(runtime),
            }),
            Err(e) => {
                tracing::error!(error = %e, "cannot start the Grand Chess Tree workers' runtime");
                None
            }
        }
    }

    /// The pool.
    pub fn pool(&self) -> &WorkerPool {
        &self.pool
    }
}

impl Drop for PoolRunner {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which is not allowed inside another runtime (where the
        // server state may be dropped): let it end in the background.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl TaskRunner for PoolRunner {
    fn names(&self) -> Vec<String> {
        self.pool.names()
    }

    fn status(&self) -> Vec<WorkerStatus> {
        self.pool.status()
    }

    fn run(
        &self,
        batch: TaskBatch<'_>,
        on_done: &mut dyn FnMut(usize, PerftStats),
    ) -> Result<(), JobError> {
        let Some(runtime) = &self.runtime else {
            return Err(JobError::Internal(
                "the workers' runtime has stopped".into(),
            ));
        };
        let cancel = batch.cancel;
        let tasks = batch
            .tasks
            .into_iter()
            .map(|t| WorkerTask {
                fen: t.fen,
                depth: t.depth,
                occurrences: t.occurrences,
            })
            .collect();
        match runtime.block_on(self.pool.run(tasks, cancel, on_done)) {
            Ok(()) | Err(WorkerPoolError::Cancelled) => Ok(()),
            Err(e) => Err(JobError::Internal(e.to_string())),
        }
    }
}
