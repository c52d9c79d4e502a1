//! Distributed perft. A *worker* counts a perft job's tasks away from the job's threads: a *GCT
//! worker* (`[gct_workers]`, a process or TCP peer) is handed tasks by the [`WorkerPool`], a
//! *queue worker* leases them from a cluster's shared queue ([`queue_worker`]). A *runner*
//! ([`runner::TaskRunner`]) is the job's side and counts nothing: `pool_runner` or
//! [`queue_runner`] take a job's tasks and get them counted by workers.

mod connection;
mod plan;
pub(crate) mod pool;
pub(crate) mod pool_runner;
pub mod queue_runner;
pub mod queue_worker;
pub mod runner;
mod slot;
pub(crate) mod verify;

pub use pool::{WorkerPool, WorkerPoolError, WorkerStatus, WorkerTask};
pub use slot::MAX_CONSECUTIVE_FAILURES;

/// How often a waiting driver looks at the cancellation flag.
const POLL: std::time::Duration = std::time::Duration::from_millis(10);
