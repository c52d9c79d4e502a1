//! The workers a perft job's tasks may go to: a pool of Grand Chess Tree workers, and a
//! cluster's shared task queue with the loops that take tasks from it.

pub mod pool;
pub mod queue_runner;
pub mod queue_worker;
pub mod verify;

pub use pool::{WorkerPool, WorkerPoolError, WorkerStatus, WorkerTask, MAX_CONSECUTIVE_FAILURES};
