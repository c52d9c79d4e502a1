//! One run of the pool: which tasks wait, which run, how often each was lost, and when the
//! run must stop.

use std::{
    collections::VecDeque,
    sync::{
        atomic::{AtomicBool, Ordering::Relaxed},
        Arc, Mutex,
    },
};

use super::WorkerPoolError;

/// When a run must stop: the caller's cancellation flag, the caller gave up on the run, or
/// the run failed.
#[derive(Clone)]
pub(super) struct Stop {
    pub(super) cancel: Arc<AtomicBool>,
    pub(super) dropped: Arc<AtomicBool>,
    pub(super) failed: Arc<AtomicBool>,
}

impl Stop {
    pub(super) fn is_set(&self) -> bool {
        self.cancel.load(Relaxed) || self.dropped.load(Relaxed) || self.failed.load(Relaxed)
    }
}

/// Sets [`Stop::dropped`] when the caller's side of a run ends early (its future dropped).
pub(super) struct DropGuard(pub(super) Arc<AtomicBool>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.store(true, Relaxed);
    }
}

/// The tasks of one run and who has what.
pub(super) struct Plan {
    /// The `begin` line of each task.
    pub(super) lines: Vec<String>,
    /// The result FEN each task must report.
    pub(super) fens: Vec<String>,
    pub(super) max_attempts: u32,
    pub(super) state: Mutex<PlanState>,
    /// Set with the error, so that busy workers stop at once.
    pub(super) failed: Arc<AtomicBool>,
}

pub(super) struct PlanState {
    pub(super) pending: VecDeque<usize>,
    pub(super) running: usize,
    pub(super) done: usize,
    pub(super) attempts: Vec<u32>,
    pub(super) error: Option<WorkerPoolError>,
}

impl Plan {
    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, PlanState> {
        // The lock is never held across a panic; recover the data if it ever were.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn stopped(&self, cancel: &Stop) -> bool {
        cancel.is_set() || self.state().error.is_some()
    }

    /// The next task to run, if any is waiting.
    pub(super) fn claim(&self) -> Option<usize> {
        let mut s = self.state();
        if s.error.is_some() {
            return None;
        }
        let index = s.pending.pop_front()?;
        s.running += 1;
        Some(index)
    }

    /// Whether no task is waiting or running.
    pub(super) fn idle(&self) -> bool {
        let s = self.state();
        s.pending.is_empty() && s.running == 0
    }

    pub(super) fn complete(&self) {
        let mut s = self.state();
        s.running -= 1;
        s.done += 1;
    }

    /// Puts a task back (cancelled, or its worker could not take it).
    pub(super) fn release(&self, index: usize) {
        let mut s = self.state();
        s.running -= 1;
        s.pending.push_front(index);
    }

    /// Puts a task back after its worker was lost, unless it has failed too often.
    pub(super) fn requeue(&self, index: usize, why: &str) {
        let mut s = self.state();
        s.running -= 1;
        s.attempts[index] += 1;
        if s.attempts[index] >= self.max_attempts {
            let attempts = s.attempts[index];
            s.error.get_or_insert(WorkerPoolError::TaskFailed {
                index,
                attempts,
                last_error: why.to_string(),
            });
            self.failed.store(true, Relaxed);
        } else {
            s.pending.push_front(index);
        }
    }

    pub(super) fn fail(&self, index: usize, error: WorkerPoolError) {
        let mut s = self.state();
        s.running -= 1;
        s.pending.push_front(index);
        s.error.get_or_insert(error);
        self.failed.store(true, Relaxed);
    }
}
