//! Stopping a search: cancellation flag, deadline, node budget, and "enough found".

use std::{
    sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed},
    time::Instant,
};

/// Why a search stopped before finishing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The cancellation flag was set.
    Cancelled,
    /// The deadline passed.
    TimeLimit,
    /// The node budget was used up.
    NodeLimit,
}

/// Nodes a searcher visits between two looks at the limits.
pub(crate) const CHECK_INTERVAL: u64 = 1024;

/// The nodes a search has visited, reported to its [`Limits`] every [`CHECK_INTERVAL`], and why
/// it stopped once a limit was hit.
#[derive(Debug, Default)]
pub(super) struct NodeCount {
    /// Nodes visited.
    pub(super) nodes: u64,
    /// Nodes not yet reported.
    batch: u64,
    /// Why the search stopped (a limit hit, or the caller's cancellation).
    pub(super) stopped: Option<StopReason>,
}

impl NodeCount {
    /// Counts one node; whether the search must stop.
    pub(super) fn visit(&mut self, limits: &Limits<'_>) -> bool {
        self.nodes += 1;
        self.batch += 1;
        if self.batch >= CHECK_INTERVAL {
            let batch = std::mem::take(&mut self.batch);
            if limits.report(batch) {
                self.stopped = limits.stop_reason().or(Some(StopReason::Cancelled));
            }
        }
        self.stopped.is_some()
    }

    /// The error of a search that stopped (with no mate ruled out at any length), if it did;
    /// `start` is when it began.
    pub(super) fn check(&self, start: Instant) -> Result<(), super::SolveError> {
        match self.stopped {
            None => Ok(()),
            Some(reason) => Err(super::SolveError::Stopped {
                reason,
                no_mate_within: 0,
                nodes: self.nodes,
                elapsed: start.elapsed(),
            }),
        }
    }
}

/// The limits shared by every searcher of one solve.
pub(crate) struct Limits<'a> {
    cancel: Option<&'a AtomicBool>,
    /// The caller's counter of nodes searched so far, if it watches the search.
    progress: Option<&'a AtomicU64>,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    /// Nodes reported so far by all searchers.
    nodes: AtomicU64,
    /// 0 while running, else 1 + the index of the [`StopReason`].
    reason: AtomicU8,
    /// Set when the current root iteration has found what it needs (one key suffices).
    enough: AtomicBool,
}

impl<'a> Limits<'a> {
    /// The limits `solver` was given.
    pub(super) fn of(solver: &super::Solver<'a>) -> Limits<'a> {
        Limits {
            cancel: solver.cancel,
            progress: solver.progress,
            deadline: solver.deadline,
            node_limit: solver.node_limit,
            nodes: AtomicU64::new(0),
            reason: AtomicU8::new(0),
            enough: AtomicBool::new(false),
        }
    }

    /// Adds `batch` visited nodes and tells whether the search must stop now.
    pub(super) fn report(&self, batch: u64) -> bool {
        let total = self.nodes.fetch_add(batch, Relaxed) + batch;
        if let Some(progress) = self.progress {
            progress.fetch_add(batch, Relaxed);
        }
        if self.reason.load(Relaxed) != 0 {
            return true;
        }
        let reason = if self.cancel.is_some_and(|c| c.load(Relaxed)) {
            Some(StopReason::Cancelled)
        } else if self.node_limit.is_some_and(|limit| total >= limit) {
            Some(StopReason::NodeLimit)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(StopReason::TimeLimit)
        } else {
            None
        };
        match reason {
            Some(r) => {
                self.reason.store(r as u8 + 1, Relaxed);
                true
            }
            None => self.enough.load(Relaxed),
        }
    }

    /// Checks the limits without visiting nodes (before starting work).
    pub(super) fn check_now(&self) -> Option<StopReason> {
        self.report(0);
        self.stop_reason()
    }

    /// Why the search stopped, if a limit was hit.
    pub(super) fn stop_reason(&self) -> Option<StopReason> {
        match self.reason.load(Relaxed) {
            0 => None,
            1 => Some(StopReason::Cancelled),
            2 => Some(StopReason::TimeLimit),
            _ => Some(StopReason::NodeLimit),
        }
    }

    /// Whether the current root iteration has found what it needs.
    pub(super) fn is_enough(&self) -> bool {
        self.enough.load(Relaxed)
    }

    /// Tells every searcher of the current iteration to stop (a key was found and one is
    /// enough), or clears that request.
    pub(super) fn set_enough(&self, enough: bool) {
        self.enough.store(enough, Relaxed);
    }
}
