//! The JSON of the job routes: the bodies of `POST /v1/perft` and `POST /v1/puzzles` (read into
//! the jobs layer's parameters), the job views answered by REST and carried by WebSocket
//! events, and the job list. The views are written from a job's snapshot, which holds the
//! core's own values (perft progress and result, the mate solution).

use chessd_core::{
    display::parse_diagram,
    solver::{Stipulation, StipulationError},
    Color, FenMode, Position,
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::api::wire::{
    perft::{nps, PerftResultJson, StatsJson},
    solution::{solution_json, SolutionJson},
    stipulation::{help_json, self_json, HelpJson, SelfJson},
};
use crate::jobs::{
    perft_job::PerftParams,
    puzzle_job::{PuzzleParams, PuzzleResult},
    state::{JobKind, JobSnapshot, JobState},
    supervisor::{Job, JobListing, Work},
    workers::WorkerStatus,
    JobError,
};

/// The body of `POST /v1/perft`.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreatePerft)]
pub(crate) struct PerftRequest {
    /// `standard` (default) or `chess2` (then `fen` is an EPD, default the Classic armies'
    /// start, and only node counts on the job's threads: no `stats`, `hash_mb` or `workers`).
    #[schema(value_type = Option<crate::schemas::VariantName>)]
    pub variant: Option<String>,
    /// The position (lenient FEN); default: the start position.
    pub fen: Option<String>,
    /// Depth in plies.
    pub depth: u32,
    /// Collect leaf statistics (default false).
    #[serde(default)]
    pub stats: bool,
    /// Pool threads (default: the most a job may have).
    #[schema(minimum = 1, maximum = 18446744073709551615_usize)]
    pub threads: Option<usize>,
    /// Hash table in MiB (default 0: none).
    #[schema(maximum = 18446744073709551615_usize)]
    pub hash_mb: Option<usize>,
    /// Hand the tasks to the configured Grand Chess Tree workers (default: true when any are
    /// configured).
    pub workers: Option<bool>,
}

impl PerftRequest {
    /// The Chess 2 position asked for, when the request is for Chess 2 (`None`: standard
    /// chess); refuses what a Chess 2 perft does not take.
    pub(crate) fn chess2(&self) -> Result<Option<chessd_core::chess2::Chess2Position>, JobError> {
        match self.variant.as_deref() {
            None | Some("standard") => return Ok(None),
            Some("chess2") => {}
            Some(other) => {
                return Err(JobError::InvalidRequest(format!(
                    "variant '{other}' is not standard or chess2"
                )))
            }
        }
        if self.stats || self.hash_mb.unwrap_or(0) > 0 || self.workers == Some(true) {
            return Err(JobError::InvalidRequest(
                "a Chess 2 perft counts nodes on the job's threads: no stats, hash_mb or workers"
                    .into(),
            ));
        }
        match &self.fen {
            None => Ok(Some(chessd_core::chess2::Chess2Position::start(
                chessd_core::chess2::Army::Classic,
                chessd_core::chess2::Army::Classic,
            ))),
            Some(epd) => chessd_core::chess2::Chess2Position::from_epd(epd)
                .map(Some)
                .map_err(|e| JobError::InvalidPosition(e.to_string())),
        }
    }

    /// The parameters asked for, with the position read (`invalid_fen` when it cannot be).
    pub(crate) fn params(&self) -> Result<PerftParams, JobError> {
        let pos = match &self.fen {
            None => Position::startpos(),
            Some(fen) => Position::from_fen(fen, FenMode::Lenient)?,
        };
        Ok(PerftParams {
            pos,
            depth: self.depth,
            stats: self.stats,
            threads: self.threads,
            hash_mb: self.hash_mb,
            workers: self.workers,
        })
    }
}

/// The body of `POST /v1/puzzles`.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreatePuzzle)]
pub(crate) struct PuzzleRequest {
    /// The position as strict FEN (or give `board`).
    pub fen: Option<String>,
    /// The position as the 8-line diagram the board printer writes.
    pub board: Option<String>,
    /// The side to move with `board` (default white).
    #[schema(value_type = Option<crate::schemas::Side>)]
    pub turn: Option<Color>,
    /// Mate in at most this many moves (give it or `stipulation`; with both, the same N).
    #[schema(minimum = 1)]
    pub mate_in: Option<u32>,
    /// What the problem asks: `#N` (the default: `#` + `mate_in`), `h#N` (helpmate: the side
    /// to move begins and is mated, both cooperating; every solution listed; N up to
    /// `jobs.max_helpmate_in`) or `s#N` (selfmate: the side to move forces the other side to
    /// mate it; every key with its tree; N up to `jobs.max_selfmate_in`).
    #[schema(example = "h#2", pattern = r"^\s*[hHsS]?#[0-9]{1,3}\s*$")]
    pub stipulation: Option<String>,
    /// Time limit in milliseconds (default `jobs.default_solver_time_ms`).
    #[schema(minimum = 1, maximum = 18446744073709551615_usize)]
    pub time_limit_ms: Option<u64>,
    /// Find every key, deciding uniqueness (default true; the exact mode only).
    pub find_all_keys: Option<bool>,
    /// Solver threads (default 1; the find mode uses one).
    #[schema(minimum = 1, maximum = 18446744073709551615_usize)]
    pub threads: Option<usize>,
    /// `exact` (default): the shortest mate and every key; `find`: a proven mate in at most
    /// `mate_in` (up to `jobs.max_find_mate_in`), not necessarily the shortest, with one
    /// complete proof tree.
    pub mode: Option<PuzzleMode>,
    /// With `find`: search again one move shorter, and so on, within the time limit; the
    /// result's `shortest` says whether the mate was proven the shortest (default false).
    pub shortest: Option<bool>,
}

/// How a puzzle is solved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PuzzleMode {
    /// The shortest mate, every key, uniqueness.
    #[default]
    Exact,
    /// A proven mate in at most N (proof-number search), not necessarily the shortest.
    Find,
}

impl PuzzleRequest {
    /// The parameters asked for, with the position read from exactly one of `fen` and `board`
    /// (`turn` goes with `board` only).
    pub(crate) fn params(&self) -> Result<PuzzleParams, JobError> {
        let pos = match (&self.fen, &self.board) {
            (Some(fen), None) => {
                if self.turn.is_some() {
                    return Err(JobError::InvalidRequest(
                        "turn goes with board; a FEN names the side to move itself".into(),
                    ));
                }
                Position::from_fen(fen, FenMode::Strict)?
            }
            (None, Some(board)) => {
                let turn = self.turn.unwrap_or(Color::White);
                parse_diagram(board, turn)
                    .map_err(|e| JobError::InvalidPosition(format!("invalid board: {e}")))?
            }
            _ => {
                return Err(JobError::InvalidRequest(
                    "give exactly one of fen and board".into(),
                ))
            }
        };
        let stipulation = match &self.stipulation {
            None => None,
            Some(text) => Some(text.parse::<Stipulation>().map_err(|e| match e {
                // Well-formed, but no mate length chessd solves.
                StipulationError::Length(_) => {
                    JobError::LimitExceeded(format!("stipulation {text:?}: {e}"))
                }
                StipulationError::Syntax(_) => {
                    JobError::InvalidRequest(format!("invalid stipulation: {e}"))
                }
            })?),
        };
        let mate_in = match (self.mate_in, stipulation) {
            (Some(n), Some(s)) if n != s.moves() => {
                return Err(JobError::InvalidStipulation(format!(
                    "mate_in {n} disagrees with stipulation {s}"
                )))
            }
            (_, Some(s)) => s.moves(),
            (Some(n), None) => n,
            (None, None) => {
                return Err(JobError::InvalidRequest(
                    "give mate_in or stipulation".into(),
                ))
            }
        };
        Ok(PuzzleParams {
            pos,
            mate_in,
            stipulation,
            time_limit_ms: self.time_limit_ms,
            find_all_keys: self.find_all_keys,
            threads: self.threads,
            find: self.mode == Some(PuzzleMode::Find),
            shortest: self.shortest,
        })
    }
}

/// Why a job failed: `{"code", "message"}` with a code of the error table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = JobError)]
pub(crate) struct ErrorView {
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

/// Tasks finished out of all tasks, and where the finished ones come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub(crate) struct ProgressView {
    /// Tasks finished.
    pub done: usize,
    /// Tasks in all (0 until the root is split).
    pub total: usize,
    /// Tasks finished before a restart, taken back from the store (not counted again).
    pub resumed: usize,
    /// Tasks counted since the job last started.
    pub computed: usize,
}

/// A perft job as JSON.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(as = PerftJob)]
pub(crate) struct PerftView {
    /// The job id.
    pub id: Uuid,
    /// Always `perft`.
    pub kind: JobKind,
    /// Where the job is.
    pub state: JobState,
    /// Answered with the result of an earlier identical request, without computing.
    pub cached: bool,
    /// `standard` or `chess2`.
    pub variant: &'static str,
    /// The position (its full FEN; for Chess 2 its EPD).
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
    #[schema(value_type = Option<crate::api::openapi_types::PerftStatistics>)]
    pub statistics: Option<StatsJson>,
    /// The final result once done.
    #[schema(value_type = Option<crate::api::openapi_types::PerftResult>)]
    pub result: Option<PerftResultJson>,
    /// Why it failed.
    pub error: Option<ErrorView>,
}

/// A puzzle job as JSON.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(as = PuzzleJob)]
pub(crate) struct PuzzleView {
    /// The job id.
    pub id: Uuid,
    /// Always `puzzle`.
    pub kind: JobKind,
    /// Where the job is.
    pub state: JobState,
    /// Answered with the result of an earlier identical request, without computing.
    pub cached: bool,
    /// The position (its full FEN; from a diagram: no castling, no en passant, clocks 0 1).
    pub fen: String,
    /// Mate in at most this many moves (the stipulation's N).
    pub mate_in: u32,
    /// The stipulation: `#N`, `h#N` or `s#N`.
    pub stipulation: String,
    /// Whether every key is searched for (deciding uniqueness).
    pub find_all_keys: bool,
    /// `exact` or `find`.
    pub mode: PuzzleMode,
    /// In the find mode, whether the mate is tightened.
    pub shortest: bool,
    /// The time limit of the search.
    pub time_limit_ms: u64,
    /// Solver threads.
    pub threads: usize,
    /// Time since the job started running (0 while queued).
    pub elapsed_ms: u64,
    /// Positions searched so far (reported every thousand or so while the search runs; exact
    /// once it has ended).
    pub nodes: u64,
    /// Positions searched a second so far (`nodes` over `elapsed_ms`; 0 before the start).
    pub nps: u64,
    /// The solution once done: the object `chessd solve --json` prints (a helpmate's or
    /// selfmate's form for `h#N`, `s#N`).
    pub result: Option<PuzzleResultJson>,
    /// Why it failed.
    pub error: Option<ErrorView>,
}

/// A puzzle's result: the mate solver's solution, or a helpmate's, or a selfmate's.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub(crate) enum PuzzleResultJson {
    /// `#N`.
    Mate(Box<SolutionJson>),
    /// `h#N`.
    Help(Box<HelpJson>),
    /// `s#N`.
    SelfMate(Box<SelfJson>),
}

impl PuzzleResultJson {
    fn new(pos: &Position, result: &PuzzleResult) -> PuzzleResultJson {
        match result {
            PuzzleResult::Mate(s) => PuzzleResultJson::Mate(Box::new(solution_json(pos, s))),
            PuzzleResult::Help(h) => PuzzleResultJson::Help(Box::new(help_json(pos, h))),
            PuzzleResult::SelfMate(s) => PuzzleResultJson::SelfMate(Box::new(self_json(pos, s))),
        }
    }
}

/// Any job as JSON.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub(crate) enum JobView {
    /// A perft job.
    Perft(Box<PerftView>),
    /// A puzzle job.
    Puzzle(Box<PuzzleView>),
}

/// What a perft job's view says of its request (the rest comes from the job).
struct PerftShape {
    variant: &'static str,
    fen: String,
    depth: u32,
    stats: bool,
    threads: usize,
    hash_mb: usize,
    workers: Vec<String>,
}

/// The view of a perft job of `shape`, standard or Chess 2, with its progress and result.
fn perft_view(
    job: &Job,
    snap: JobSnapshot,
    error: Option<ErrorView>,
    shape: PerftShape,
) -> PerftView {
    let nodes = snap.progress.stats.nodes;
    let stats = shape.stats;
    PerftView {
        id: job.id(),
        kind: JobKind::Perft,
        state: snap.state,
        cached: job.cached(),
        variant: shape.variant,
        fen: shape.fen,
        depth: shape.depth,
        stats,
        threads: shape.threads,
        hash_mb: shape.hash_mb,
        workers: shape.workers,
        progress: ProgressView {
            done: snap.progress.done,
            total: snap.progress.total,
            resumed: snap.resumed,
            computed: snap.computed,
        },
        nodes,
        nps: nps(nodes, snap.elapsed.as_secs_f64()),
        elapsed_ms: snap.elapsed.as_millis() as u64,
        // chessd's workers report the eight classes too (their `:classes` extension), so they
        // are real counts whenever statistics are.
        statistics: stats.then_some(StatsJson {
            stats: snap.progress.stats,
            classes: stats,
        }),
        result: snap.perft.map(|result| PerftResultJson { result, stats }),
        error,
    }
}

impl JobView {
    /// The view of `job` as it stands now.
    pub(crate) fn of(job: &Job) -> JobView {
        let snap = job.snapshot();
        let elapsed_ms = snap.elapsed.as_millis() as u64;
        let error = snap.error.as_ref().map(ErrorView::from);
        match job.work() {
            Work::Perft(spec) => JobView::Perft(Box::new(perft_view(
                job,
                snap,
                error,
                PerftShape {
                    variant: "standard",
                    fen: spec.pos.fen(),
                    depth: spec.depth,
                    stats: spec.stats,
                    threads: job.threads(),
                    hash_mb: spec.hash_mb,
                    workers: spec.worker_names(),
                },
            ))),
            Work::Chess2Perft(spec) => JobView::Perft(Box::new(perft_view(
                job,
                snap,
                error,
                PerftShape {
                    variant: "chess2",
                    fen: spec.pos.to_epd(),
                    depth: spec.depth,
                    stats: false,
                    threads: job.threads(),
                    hash_mb: 0,
                    workers: Vec::new(),
                },
            ))),
            Work::Puzzle(spec) => JobView::Puzzle(Box::new(PuzzleView {
                id: job.id(),
                kind: JobKind::Puzzle,
                state: snap.state,
                cached: job.cached(),
                fen: spec.pos.fen(),
                mate_in: spec.mate_in,
                stipulation: spec.stipulation.to_string(),
                find_all_keys: spec.find_all_keys,
                mode: if spec.find {
                    PuzzleMode::Find
                } else {
                    PuzzleMode::Exact
                },
                shortest: spec.shortest,
                time_limit_ms: spec.time_limit_ms,
                threads: job.threads(),
                elapsed_ms,
                nodes: snap.nodes,
                nps: nps(snap.nodes, snap.elapsed.as_secs_f64()),
                result: snap.solution.map(|s| PuzzleResultJson::new(&spec.pos, &s)),
                error,
            })),
        }
    }

    /// The job's state.
    pub(crate) fn state(&self) -> JobState {
        match self {
            JobView::Perft(v) => v.state,
            JobView::Puzzle(v) => v.state,
        }
    }
}

/// A WebSocket event: `{"type": "progress" | "done" | "cancelled" | "failed", "job": <view>}`.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct JobEvent {
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
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct JobSummary {
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
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct JobList {
    /// The jobs.
    pub jobs: Vec<JobSummary>,
    /// Threads of the job pool.
    pub pool_threads: usize,
    /// Pool threads held by running jobs.
    pub busy_threads: usize,
    /// The most threads a job of the asking client may run on (its limits, with or without an
    /// API key, and its share of the pool).
    #[schema(minimum = 1)]
    pub client_threads: usize,
    /// The configured Grand Chess Tree workers and what is known about them.
    pub workers: Vec<WorkerStatus>,
}

impl From<JobListing> for JobList {
    fn from(listing: JobListing) -> JobList {
        let jobs = listing
            .jobs
            .iter()
            .map(|job| {
                let snap = job.snapshot();
                JobSummary {
                    id: job.id(),
                    kind: job.kind(),
                    state: snap.state,
                    elapsed_ms: snap.elapsed.as_millis() as u64,
                }
            })
            .collect();
        JobList {
            jobs,
            pool_threads: listing.pool_threads,
            busy_threads: listing.busy_threads,
            client_threads: listing.pool_threads,
            workers: listing.workers,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU64};

    use super::*;
    use crate::{
        config::Config,
        jobs::{puzzle_job::PuzzleSpec, JobLimits},
    };

    fn perft() -> PerftRequest {
        PerftRequest {
            variant: None,
            fen: None,
            depth: 1,
            stats: true,
            threads: Some(1),
            hash_mb: None,
            workers: None,
        }
    }

    fn puzzle() -> PuzzleRequest {
        PuzzleRequest {
            fen: Some("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1".into()),
            board: None,
            turn: None,
            mate_in: Some(2),
            stipulation: None,
            time_limit_ms: None,
            find_all_keys: None,
            threads: None,
            mode: None,
            shortest: None,
        }
    }

    #[test]
    fn a_stipulation_sets_the_genre_and_n() {
        let mut req = puzzle();
        req.mate_in = None;
        req.stipulation = Some("h#3".into());
        let params = req.params().unwrap();
        assert_eq!(
            (params.mate_in, params.stipulation),
            (3, Some(Stipulation::Help(3)))
        );
        req.mate_in = Some(2);
        assert_eq!(req.params().unwrap_err().code(), "invalid_stipulation");
        req.stipulation = Some("h#99".into());
        assert_eq!(req.params().unwrap_err().code(), "limit_exceeded");
        req.stipulation = Some("x#2".into());
        let e = req.params().unwrap_err();
        assert_eq!(e.code(), "invalid_request");
        assert!(e.to_string().contains("stipulation"), "{e}");
        req.stipulation = None;
        req.mate_in = None;
        assert_eq!(req.params().unwrap_err().code(), "invalid_request");
    }

    #[test]
    fn a_perft_body_reads_its_position() {
        let mut req = perft();
        assert_eq!(req.params().unwrap().pos, Position::startpos());
        req.fen = Some("not a fen".into());
        assert_eq!(req.params().unwrap_err().code(), "invalid_fen");
    }

    #[test]
    fn a_board_diagram_with_the_side_to_move() {
        let mut req = puzzle();
        req.fen = None;
        req.board = Some(
            "8 . . . . . . k .\n7 . . . . . p p p\n6 . . . . . . . .\n5 . . . . . . . .\n\
             4 . . . . . . . .\n3 . . . . . . . .\n2 r . . . . . . .\n1 . . . . . . K .\n\
             \x20 a b c d e f g h\n"
                .into(),
        );
        req.turn = Some(Color::Black);
        let limits = JobLimits::new(Config::defaults().jobs);
        let spec = PuzzleSpec::from_params(&req.params().unwrap(), &limits).unwrap();
        assert_eq!(spec.pos.fen(), "6k1/5ppp/8/8/8/8/r7/6K1 b - - 0 1");
        let nodes = AtomicU64::new(0);
        let out = spec.run(&AtomicBool::new(false), &nodes).unwrap();
        assert_eq!(nodes.into_inner(), out.nodes());
        let PuzzleResult::Mate(out) = out else {
            panic!("a direct mate's result");
        };
        // A lone rook cannot mate the king on g1 in two: nothing guards the second rank.
        assert_eq!(out.mate, None);
    }

    #[test]
    fn bad_puzzle_positions_get_their_codes() {
        // The limits' own checks (mate_in, time, threads) are the jobs layer's.
        let code = |req: &PuzzleRequest| req.params().unwrap_err().code();
        let mut req = puzzle();
        req.turn = Some(Color::White);
        assert_eq!(code(&req), "invalid_request");
        req.turn = None;
        req.board = Some("8/8".into());
        assert_eq!(code(&req), "invalid_request");
        req.fen = None;
        assert_eq!(code(&req), "invalid_fen");
        req.board = None;
        req.fen = Some("8/8/8/8/8/8/8/8 w - - 0 1".into());
        assert_eq!(code(&req), "invalid_fen");
    }
}
