//! The pool of Grand Chess Tree workers as a job's [`TaskRunner`]: a job's thread blocks on a
//! run of the pool, which outlives the job (connections and hash tables stay warm).

use std::collections::BTreeMap;

use chessd_core::perft::PerftStats;

use super::{
    runner::{TaskBatch, TaskRunner},
    WorkerPool, WorkerPoolError, WorkerStatus, WorkerTask,
};
use crate::{config::EndpointConfig, jobs::error::JobError};

/// The configured Grand Chess Tree workers ([`WorkerPool`]) as a [`TaskRunner`]: a job's
/// thread blocks on a run of the pool ([`WorkerPool::run_blocking`]), whose own runtime keeps
/// its connections (and local worker processes, hash tables warm) from one job to the next.
pub(crate) struct PoolRunner {
    pool: WorkerPool,
}

impl PoolRunner {
    /// The workers of `[gct_workers]`, or `None` when there are none.
    pub(crate) fn from_config(config: &BTreeMap<String, EndpointConfig>) -> Option<PoolRunner> {
        if config.is_empty() {
            return None;
        }
        Some(PoolRunner {
            pool: WorkerPool::new(config),
        })
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
        match self.pool.run_blocking(tasks, cancel, on_done) {
            Ok(()) | Err(WorkerPoolError::Cancelled) => Ok(()),
            Err(e) => Err(JobError::Internal(e.to_string())),
        }
    }
}
