//! What a perft job hands to workers: its tasks ([`PerftTask`], [`TaskBatch`]) and the runners
//! that get them counted ([`TaskRunner`]: the GCT worker pool, or a cluster's shared queue).

use std::sync::{atomic::AtomicBool, Arc};

use chessd_core::perft::PerftStats;
use uuid::Uuid;

use super::pool::WorkerStatus;
use crate::jobs::error::JobError;

/// One task handed to a worker: a unique position, the depth left, and how many move
/// sequences reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftTask {
    /// Its index in the job's split (the same whenever the job runs).
    pub index: usize,
    /// The position as FEN.
    pub fen: String,
    /// Plies to count below it.
    pub depth: u32,
    /// Move sequences from the root reaching it (its result is multiplied by this).
    pub occurrences: u64,
}

/// The tasks of one run of a job, for a [`TaskRunner`].
pub struct TaskBatch<'a> {
    /// The job.
    pub job: Uuid,
    /// The tasks left to count.
    pub tasks: Vec<PerftTask>,
    /// Whether the leaf statistics are counted (else the nodes only).
    pub stats: bool,
    /// Set when the job is cancelled.
    pub cancel: Arc<AtomicBool>,
    /// Set by the runner when the job is no longer this node's to run (another node took it
    /// over): it then stops without an end of its own.
    pub interrupted: &'a AtomicBool,
    /// Set by the runner when some results it hands over came from remote workers and were
    /// not counted again by a node: the job's result is then never answered to a later request.
    pub unverified: &'a AtomicBool,
}

/// A runner: where a job hands the perft tasks it does not count on its own threads, to be
/// counted by workers (the pool of Grand Chess Tree workers, `workers::pool_runner`, or a
/// cluster's shared queue, `workers::queue_runner`). A runner counts nothing itself.
pub trait TaskRunner: Send + Sync {
    /// The names of the workers, for the job view.
    fn names(&self) -> Vec<String>;

    /// What is known about each worker (for `GET /v1/jobs`).
    fn status(&self) -> Vec<WorkerStatus> {
        Vec::new()
    }

    /// Whether this is a cluster's shared task queue: its queue workers store each task's result
    /// themselves, so the job does not store it again.
    fn shared(&self) -> bool {
        false
    }

    /// Computes every task, calling `on_done(i, stats)` once per task (`i` its place in
    /// `batch.tasks`) with the statistics of **one** occurrence of its position; returns when
    /// all are done, when `batch.cancel` is set (soon after), or with an error when the tasks
    /// cannot be completed (`JobError::Internal`) or a result is found wrong
    /// (`JobError::ResultMismatch`).
    fn run(
        &self,
        batch: TaskBatch<'_>,
        on_done: &mut dyn FnMut(usize, PerftStats),
    ) -> Result<(), JobError>;
}

/// What may compute a perft job's tasks besides the job's own threads.
#[derive(Clone, Default)]
pub struct Runners {
    /// The configured Grand Chess Tree workers.
    pub workers: Option<Arc<dyn TaskRunner>>,
    /// A cluster's shared task queue, and the plies each of its tasks counts: jobs deeper than
    /// that go there (unless they ask for the workers or decline them).
    pub shared: Option<(Arc<dyn TaskRunner>, u32)>,
}
