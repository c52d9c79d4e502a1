//! The workers of distributed perft (the word is the Grand Chess Tree's): whatever counts a
//! perft job's tasks away from the job's own threads, and the *runners* a job hands its tasks
//! to ([`crate::jobs::perft_job::TaskRunner`]). See `docs/architecture.md` for the two kinds.

mod connection;
mod plan;
pub mod pool;
pub mod queue_runner;
pub mod queue_worker;
mod slot;
pub mod verify;

pub use pool::{WorkerPool, WorkerPoolError, WorkerStatus, WorkerTask};
pub use slot::MAX_CONSECUTIVE_FAILURES;

/// How often a waiting driver looks at the cancellation flag.
const POLL: std::time::Duration = std::time::Duration::from_millis(10);
