//! Where a job is and what it has found: its state, its kind, and a snapshot holding the core's
//! own progress, result and solution. Domain values only: the API writes the JSON of jobs
//! (`api/wire/jobs.rs`); the two enums serialize as their names, as the core's enums do.

use std::{sync::Arc, time::Duration};

use chessd_core::perft::{PerftProgress, PerftResult, PerftStats};
use serde::Serialize;

use super::{error::JobError, puzzle_job::PuzzleResult};

/// Where a job is in its life (serialized as its snake_case name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for pool threads.
    Queued,
    /// Computing.
    Running,
    /// Finished with a result.
    Done,
    /// Stopped by a cancel request.
    Cancelled,
    /// Ended with an error (see [`JobSnapshot::error`]).
    Failed,
}

impl JobState {
    /// Whether the job has ended (done, cancelled or failed).
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            JobState::Done | JobState::Cancelled | JobState::Failed
        )
    }

    /// The state's snake_case name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Cancelled => "cancelled",
            JobState::Failed => "failed",
        }
    }
}

/// What a job computes (serialized as its snake_case name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A perft count.
    Perft,
    /// A mate-in-N puzzle.
    Puzzle,
}

impl JobKind {
    /// The kind's snake_case name (as serialized, and as the store keeps it).
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Perft => "perft",
            JobKind::Puzzle => "puzzle",
        }
    }
}

/// A job at one moment, copied under its lock.
#[derive(Clone, Debug)]
pub struct JobSnapshot {
    /// Where the job is.
    pub state: JobState,
    /// Time since the job started running (zero while queued, fixed once it has ended).
    pub elapsed: Duration,
    /// Perft jobs: tasks done and in all, and the statistics of the tasks done (the totals
    /// once done). Zero for puzzles.
    pub progress: PerftProgress,
    /// Perft jobs: the result, once done.
    pub perft: Option<PerftResult>,
    /// Perft jobs: tasks finished before a restart, taken back from the store.
    pub resumed: usize,
    /// Perft jobs: tasks counted since the job started (last started: after a restart, the
    /// tasks left).
    pub computed: usize,
    /// Puzzle jobs: positions searched so far (reported every thousand or so while the search
    /// runs; exact once it has ended).
    pub nodes: u64,
    /// Puzzle jobs: the solution, once done.
    pub solution: Option<Arc<PuzzleResult>>,
    /// Why it failed.
    pub error: Option<JobError>,
}

/// No perft progress yet: no task done of none known.
pub(crate) fn no_progress() -> PerftProgress {
    PerftProgress {
        done: 0,
        total: 0,
        stats: PerftStats::default(),
        elapsed: Duration::ZERO,
    }
}
