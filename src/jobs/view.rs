//! JSON shapes of jobs: the job views answered by REST and carried by WebSocket events, the
//! perft statistics, and the short listing.

use std::sync::Arc;

use chessd_core::perft::PerftStats;
use serde::{Serialize, Serializer};
use uuid::Uuid;

use super::error::JobError;
use super::{solution::SolutionJson, workers::WorkerStatus};

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
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
    /// Ended with an error (see the view's `error`).
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

    /// The state as it appears in JSON.
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

/// What a job computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A perft count.
    Perft,
    /// A mate-in-N puzzle.
    Puzzle,
}

/// Why a job failed: `{"code", "message"}` with a code of the error table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorView {
    /// The stable error code.
    pub code: &'static str,
    /// What went wrong, for people.
    pub message: String,
}

impl From<&JobError> for ErrorView {
    fn from(e: &JobError) -> ErrorView {
        ErrorView {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

/// The eight Grand Chess Tree check and mate classes (each check in exactly one class, mates
/// apart from checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClassesView {
    /// One checker, the moved piece (not mate).
    pub direct_checks: u64,
    /// One checker, not the moved piece (not mate).
    pub single_discovered_checks: u64,
    /// Two checkers, one of them the moved piece (not mate).
    pub direct_discovered_checks: u64,
    /// Two checkers, neither the moved piece (not mate).
    pub double_discovered_checks: u64,
    /// Mate with one checker, the moved piece.
    pub direct_mates: u64,
    /// Mate with one checker, not the moved piece.
    pub single_discovered_mates: u64,
    /// Mate with two checkers, one of them the moved piece.
    pub direct_discovered_mates: u64,
    /// Mate with two checkers, neither the moved piece.
    pub double_discovered_mates: u64,
}

impl From<&PerftStats> for ClassesView {
    fn from(s: &PerftStats) -> ClassesView {
        ClassesView {
            direct_checks: s.direct_checks,
            single_discovered_checks: s.single_discovered_checks,
            direct_discovered_checks: s.direct_discovered_checks,
            double_discovered_checks: s.double_discovered_checks,
            direct_mates: s.direct_mates,
            single_discovered_mates: s.single_discovered_mates,
            direct_discovered_mates: s.direct_discovered_mates,
            double_discovered_mates: s.double_discovered_mates,
        }
    }
}

/// Leaf statistics in the Grand Chess Tree worker's summary form (`checks`,
/// `discovered_checks` and `double_checks` include mates; `checkmates` is every mate), plus
/// the eight classes (null when they were not counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StatsView {
    /// Leaf nodes.
    pub nodes: u64,
    /// Leaf moves that capture (en passant included).
    pub captures: u64,
    /// Leaf moves that capture en passant.
    pub enpassants: u64,
    /// Leaf moves that castle.
    pub castles: u64,
    /// Leaf moves that promote.
    pub promotions: u64,
    /// Checking leaf moves, mates included.
    pub checks: u64,
    /// Checking leaf moves whose moved piece is not a checker, mates included.
    pub discovered_checks: u64,
    /// Leaf moves giving two checks, mates included.
    pub double_checks: u64,
    /// Mating leaf moves.
    pub checkmates: u64,
    /// The eight classes, or null.
    pub classes: Option<ClassesView>,
}

impl StatsView {
    /// The view of `s`; `classes` says whether its eight classes are real counts.
    pub fn new(s: &PerftStats, classes: bool) -> StatsView {
        StatsView {
            nodes: s.nodes,
            captures: s.captures,
            enpassants: s.enpassants,
            castles: s.castles,
            promotions: s.promotions,
            checks: s.checks(),
            discovered_checks: s.discovered_checks(),
            double_checks: s.double_checks(),
            checkmates: s.check_mates(),
            classes: classes.then(|| ClassesView::from(s)),
        }
    }
}

/// The final result of a perft job: the statistics' fields (null without statistics) plus
/// `nodes`, `seconds` and `nps`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PerftResultView {
    /// Leaf nodes.
    pub nodes: u64,
    /// See [`StatsView`]; null without statistics.
    pub captures: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub enpassants: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub castles: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub promotions: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub checks: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub discovered_checks: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub double_checks: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub checkmates: Option<u64>,
    /// See [`StatsView`]; null without statistics.
    pub classes: Option<ClassesView>,
    /// Time of the computation.
    pub seconds: f64,
    /// Leaf nodes per second.
    pub nps: u64,
}

impl PerftResultView {
    /// The result of `nodes` (with their statistics when `stats` is some) in `seconds`.
    pub fn new(nodes: u64, stats: Option<StatsView>, seconds: f64) -> PerftResultView {
        PerftResultView {
            nodes,
            captures: stats.map(|s| s.captures),
            enpassants: stats.map(|s| s.enpassants),
            castles: stats.map(|s| s.castles),
            promotions: stats.map(|s| s.promotions),
            checks: stats.map(|s| s.checks),
            discovered_checks: stats.map(|s| s.discovered_checks),
            double_checks: stats.map(|s| s.double_checks),
            checkmates: stats.map(|s| s.checkmates),
            classes: stats.and_then(|s| s.classes),
            seconds,
            nps: nps(nodes, seconds),
        }
    }
}

/// Nodes per second (0 for no time).
pub fn nps(nodes: u64, seconds: f64) -> u64 {
    if seconds > 0.0 {
        (nodes as f64 / seconds) as u64
    } else {
        0
    }
}

/// Tasks finished out of all tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProgressView {
    /// Tasks finished.
    pub done: usize,
    /// Tasks in all (0 until the root is split).
    pub total: usize,
}

/// A perft job as JSON.
#[derive(Clone, Debug, Serialize)]
pub struct PerftView {
    /// The job id.
    pub id: Uuid,
    /// Always `perft`.
    pub kind: JobKind,
    /// Where the job is.
    pub state: JobState,
    /// The position (its full FEN).
    pub fen: String,
    /// The depth in plies.
    pub depth: u32,
    /// Whether leaf statistics are collected.
    pub stats: bool,
    /// Pool threads computing (0 when workers compute).
    pub threads: usize,
    /// Hash table size in MiB (0: none).
    pub hash_mb: usize,
    /// Names of the Grand Chess Tree workers computing (empty: local threads).
    pub workers: Vec<String>,
    /// Tasks done and in all.
    pub progress: ProgressView,
    /// Leaf nodes counted so far (the total when done).
    pub nodes: u64,
    /// Nodes per second so far.
    pub nps: u64,
    /// Time since the job started running (0 while queued).
    pub elapsed_ms: u64,
    /// Running statistics (null without statistics).
    pub statistics: Option<StatsView>,
    /// The final result once done.
    pub result: Option<PerftResultView>,
    /// Why it failed.
    pub error: Option<ErrorView>,
}

/// A puzzle job as JSON.
#[derive(Clone, Debug, Serialize)]
pub struct PuzzleView {
    /// The job id.
    pub id: Uuid,
    /// Always `puzzle`.
    pub kind: JobKind,
    /// Where the job is.
    pub state: JobState,
    /// The position (its full FEN; from a diagram: no castling, no en passant, clocks 0 1).
    pub fen: String,
    /// Mate in at most this many moves.
    pub mate_in: u32,
    /// Whether every key is searched for (deciding uniqueness).
    pub find_all_keys: bool,
    /// The time limit of the search.
    pub time_limit_ms: u64,
    /// Solver threads.
    pub threads: usize,
    /// Time since the job started running (0 while queued).
    pub elapsed_ms: u64,
    /// Positions searched (known when the search ends).
    pub nodes: u64,
    /// The solution once done: the object `chessd solve --json` prints.
    #[serde(serialize_with = "arc_solution")]
    pub result: Option<Arc<SolutionJson>>,
    /// Why it failed.
    pub error: Option<ErrorView>,
}

fn arc_solution<S: Serializer>(v: &Option<Arc<SolutionJson>>, s: S) -> Result<S::Ok, S::Error> {
    v.as_deref().serialize(s)
}

/// Any job as JSON.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum JobView {
    /// A perft job.
    Perft(Box<PerftView>),
    /// A puzzle job.
    Puzzle(PuzzleView),
}

impl JobView {
    /// The job's state.
    pub fn state(&self) -> JobState {
        match self {
            JobView::Perft(v) => v.state,
            JobView::Puzzle(v) => v.state,
        }
    }
}

/// A WebSocket event: `{"type": "progress" | "done" | "cancelled" | "failed", "job": <view>}`.
#[derive(Clone, Debug, Serialize)]
pub struct JobEvent {
    /// `progress` while queued or running, else the final state.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The job.
    pub job: JobView,
}

impl From<JobView> for JobEvent {
    fn from(job: JobView) -> JobEvent {
        let state = job.state();
        JobEvent {
            kind: if state.is_finished() {
                state.as_str()
            } else {
                "progress"
            },
            job,
        }
    }
}

/// One line of the job list.
#[derive(Clone, Debug, Serialize)]
pub struct JobSummary {
    /// The job id.
    pub id: Uuid,
    /// Perft or puzzle.
    pub kind: JobKind,
    /// Where the job is.
    pub state: JobState,
    /// Time since the job started running (0 while queued).
    pub elapsed_ms: u64,
}

/// `GET /v1/jobs`: every job the server holds, oldest first, and the pool's use.
#[derive(Clone, Debug, Serialize)]
pub struct JobList {
    /// The jobs.
    pub jobs: Vec<JobSummary>,
    /// Threads of the job pool.
    pub pool_threads: usize,
    /// Pool threads held by running jobs.
    pub busy_threads: usize,
    /// The configured Grand Chess Tree workers and what is known about them.
    pub workers: Vec<WorkerStatus>,
}
