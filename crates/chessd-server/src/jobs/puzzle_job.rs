//! Puzzle jobs: a mate-in-N problem (or a helpmate, a selfmate: see [`Stipulation`]), checked
//! against the configured limits and solved by the core's [`Solver`] with a time limit. The
//! result is the core's [`Solution`] (or [`HelpSolution`], [`SelfSolution`]): a
//! [`PuzzleResult`].

use std::{
    sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed},
    time::{Duration, Instant},
};

use chessd_core::{
    solver::{
        HelpSolution, SelfSolution, Solution, SolveError, Solver, Stipulation, StopReason, MAX_MATE,
    },
    Position,
};

use super::{
    error::{JobEnd, JobError},
    limits::JobLimits,
};

/// What a puzzle job found, by genre.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PuzzleResult {
    /// `#N`: the mate solver's solution.
    Mate(Solution),
    /// `h#N`: every helpmate solution.
    Help(HelpSolution),
    /// `s#N`: every selfmate key with its tree.
    SelfMate(SelfSolution),
}

impl PuzzleResult {
    /// Positions searched.
    pub fn nodes(&self) -> u64 {
        match self {
            PuzzleResult::Mate(s) => s.nodes,
            PuzzleResult::Help(s) => s.nodes,
            PuzzleResult::SelfMate(s) => s.nodes,
        }
    }

    /// Wall time of the solve.
    pub fn elapsed(&self) -> Duration {
        match self {
            PuzzleResult::Mate(s) => s.elapsed,
            PuzzleResult::Help(s) => s.elapsed,
            PuzzleResult::SelfMate(s) => s.elapsed,
        }
    }
}

/// A puzzle as asked for: the position and the caller's choices, not yet checked against the
/// limits (`None`: the default).
#[derive(Clone, Debug)]
pub struct PuzzleParams {
    /// The position; the side to move mates.
    pub pos: Position,
    /// Mate in at most this many moves.
    pub mate_in: u32,
    /// The stipulation (default `#` + `mate_in`; its N is `mate_in`).
    pub stipulation: Option<Stipulation>,
    /// Time limit in milliseconds (default `jobs.default_solver_time_ms`).
    pub time_limit_ms: Option<u64>,
    /// Find every key, deciding uniqueness (default true; exact mode only).
    pub find_all_keys: Option<bool>,
    /// Solver threads (default 1; the find mode uses one).
    pub threads: Option<usize>,
    /// The find mode: a proven mate in at most N, not necessarily the shortest (default
    /// false: the exact mode).
    pub find: bool,
    /// In the find mode, tighten the mate within the time limit (default false).
    pub shortest: Option<bool>,
}

/// A checked puzzle job.
#[derive(Clone, Debug)]
pub struct PuzzleSpec {
    /// The position; the side to move mates.
    pub pos: Position,
    /// Mate in at most this many moves (the stipulation's N).
    pub mate_in: u32,
    /// What the problem asks (`#N`, `h#N` or `s#N`, N = `mate_in`).
    pub stipulation: Stipulation,
    /// Time limit of the search.
    pub time_limit_ms: u64,
    /// Find every key.
    pub find_all_keys: bool,
    /// Solver threads.
    pub threads: usize,
    /// Solver table size in MiB.
    pub table_mb: usize,
    /// The find mode ([`Solver::find`]) rather than the exact one.
    pub find: bool,
    /// In the find mode, tighten the mate ([`Solver::shortest`]).
    pub shortest: bool,
}

impl PuzzleSpec {
    /// Checks parameters against the limits.
    pub fn from_params(req: &PuzzleParams, limits: &JobLimits) -> Result<PuzzleSpec, JobError> {
        let jobs = &limits.config;
        let stipulation = req.stipulation.unwrap_or(Stipulation::Direct(req.mate_in));
        let direct = matches!(stipulation, Stipulation::Direct(_));
        if !direct && req.find {
            return Err(JobError::InvalidStipulation(format!(
                "mode find is for #N only, not {stipulation}"
            )));
        }
        let (max_mate, key) = match stipulation {
            Stipulation::Help(_) => (jobs.max_helpmate_in.min(MAX_MATE), "jobs.max_helpmate_in"),
            Stipulation::SelfMate(_) => {
                (jobs.max_selfmate_in.min(MAX_MATE), "jobs.max_selfmate_in")
            }
            Stipulation::Direct(_) if req.find => {
                (jobs.max_find_mate_in.min(MAX_MATE), "jobs.max_find_mate_in")
            }
            Stipulation::Direct(_) => (jobs.max_mate_in.min(MAX_MATE), "jobs.max_mate_in"),
        };
        if req.mate_in == 0 {
            return Err(JobError::InvalidRequest(
                "mate_in must be at least 1".into(),
            ));
        }
        // The flags of the other mode are read as what that mode always does, not refused:
        // the exact mode proves the shortest mate whatever `shortest` says, and the find mode
        // gives one key (its result says `all_keys: false`) whatever `find_all_keys` says.
        if req.mate_in > max_mate {
            return Err(limit(format!(
                "{stipulation} is over the limit {key} = {max_mate}"
            )));
        }
        let time_limit_ms = req.time_limit_ms.unwrap_or(jobs.default_solver_time_ms);
        if time_limit_ms == 0 {
            return Err(JobError::InvalidRequest(
                "time_limit_ms must be at least 1".into(),
            ));
        }
        if time_limit_ms > jobs.max_solver_time_ms {
            return Err(limit(format!(
                "time_limit_ms {time_limit_ms} is over the limit jobs.max_solver_time_ms = {}",
                jobs.max_solver_time_ms
            )));
        }
        // The find mode, helpmates and selfmates search on one thread.
        let threads = if req.find || !direct {
            1
        } else {
            req.threads.unwrap_or(1)
        };
        let max_threads = limits.max_threads();
        if threads == 0 {
            return Err(JobError::InvalidRequest(
                "threads must be at least 1".into(),
            ));
        }
        if threads > max_threads {
            return Err(limit(format!(
                "threads {threads} is over the limit {} = {max_threads}",
                limits.key("threads")
            )));
        }
        Ok(PuzzleSpec {
            pos: req.pos,
            mate_in: req.mate_in,
            stipulation,
            time_limit_ms,
            find_all_keys: direct && !req.find && req.find_all_keys.unwrap_or(true),
            threads,
            table_mb: jobs.solver_table_mb,
            find: req.find,
            shortest: req.find && req.shortest.unwrap_or(false),
        })
    }

    /// Solves the puzzle. A time limit reached is a failure with `limit_exceeded`; its message
    /// says how far mates were ruled out. `searched` counts the positions searched as the
    /// search goes (every thousand or so), and holds the exact count once it has ended.
    pub fn run(&self, cancel: &AtomicBool, searched: &AtomicU64) -> Result<PuzzleResult, JobEnd> {
        let deadline = Instant::now() + Duration::from_millis(self.time_limit_ms);
        let solver = Solver::new(self.pos)
            .mate_in(self.mate_in)
            .threads(self.threads)
            .table_mb(self.table_mb)
            .find_all_keys(self.find_all_keys)
            .shortest(self.shortest)
            .cancel(cancel)
            .progress(searched)
            .deadline(deadline);
        let result = match self.stipulation {
            Stipulation::Help(_) => solver.helpmate().map(PuzzleResult::Help),
            Stipulation::SelfMate(_) => solver.selfmate().map(PuzzleResult::SelfMate),
            Stipulation::Direct(_) if self.find => solver.find().map(PuzzleResult::Mate),
            Stipulation::Direct(_) => solver.solve().map(PuzzleResult::Mate),
        };
        match result {
            Ok(result) => {
                searched.store(result.nodes(), Relaxed);
                Ok(result)
            }
            Err(SolveError::Stopped {
                reason,
                no_mate_within,
                nodes,
                ..
            }) => {
                searched.store(nodes, Relaxed);
                match reason {
                    StopReason::Cancelled => Err(JobEnd::Cancelled),
                    StopReason::TimeLimit | StopReason::NodeLimit => {
                        let ruled_out = match no_mate_within {
                            0 => String::new(),
                            n => format!("; no mate in {n} or fewer"),
                        };
                        Err(JobEnd::Failed(JobError::LimitExceeded(format!(
                            "the time limit of {} ms was reached after {nodes} nodes{ruled_out}",
                            self.time_limit_ms
                        ))))
                    }
                }
            }
            Err(e @ SolveError::OpponentInCheck) => {
                Err(JobEnd::Failed(JobError::InvalidPosition(e.to_string())))
            }
            Err(e @ SolveError::InvalidMateLength(_)) => {
                Err(JobEnd::Failed(JobError::InvalidRequest(e.to_string())))
            }
        }
    }
}

fn limit(message: String) -> JobError {
    JobError::LimitExceeded(message)
}

#[cfg(test)]
mod tests {
    use chessd_core::FenMode;

    use super::*;
    use crate::config::Config;

    fn limits() -> JobLimits {
        JobLimits::new(Config::defaults().jobs)
    }

    fn request() -> PuzzleParams {
        PuzzleParams {
            pos: Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", FenMode::Strict).unwrap(),
            mate_in: 2,
            stipulation: None,
            time_limit_ms: None,
            find_all_keys: None,
            threads: None,
            find: false,
            shortest: None,
        }
    }

    #[test]
    fn bad_requests_get_their_codes() {
        // The position's own checks (fen or board, turn) are the API's: `api::jobs_wire`.
        let l = limits();
        let code = |req: &PuzzleParams| PuzzleSpec::from_params(req, &l).unwrap_err().code();
        let mut req = request();
        req.mate_in = 0;
        assert_eq!(code(&req), "invalid_request");
        req.mate_in = l.config.max_mate_in + 1;
        assert_eq!(code(&req), "limit_exceeded");
        req.mate_in = 2;
        req.time_limit_ms = Some(l.config.max_solver_time_ms + 1);
        assert_eq!(code(&req), "limit_exceeded");
        req.time_limit_ms = None;
        // The other mode's flag is read as what this mode does anyway, not refused.
        req.shortest = Some(true);
        let exact = PuzzleSpec::from_params(&req, &l).unwrap();
        assert!(!exact.find && !exact.shortest && exact.find_all_keys);
        req.find = true;
        req.find_all_keys = Some(true);
        let find = PuzzleSpec::from_params(&req, &l).unwrap();
        assert!(find.find && find.shortest && !find.find_all_keys);
        req.find_all_keys = None;
        req.mate_in = l.config.max_find_mate_in + 1;
        assert_eq!(code(&req), "limit_exceeded");
        req.mate_in = l.config.max_mate_in + 1;
        let spec = PuzzleSpec::from_params(&req, &l).unwrap();
        assert!(spec.find && spec.shortest && !spec.find_all_keys);
    }

    #[test]
    fn a_time_limit_reached_fails_with_limit_exceeded() {
        let mut req = request();
        // A rich middlegame with mate far away: mate in 5 takes much longer than 1 ms.
        req.pos = Position::from_fen(
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
            FenMode::Strict,
        )
        .unwrap();
        req.mate_in = 5;
        req.time_limit_ms = Some(1);
        let spec = PuzzleSpec::from_params(&req, &limits()).unwrap();
        match spec.run(&AtomicBool::new(false), &AtomicU64::new(0)) {
            Err(JobEnd::Failed(e)) => {
                assert_eq!(e.code(), "limit_exceeded");
                assert!(e.to_string().contains("1 ms"), "{}", e.to_string());
            }
            other => panic!("expected a time limit failure, got {other:?}"),
        }
    }
}
