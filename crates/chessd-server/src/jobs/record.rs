//! How jobs are written in the store and read back: the checked request (JSON), the canonical
//! request key under which a finished result is found again, the result, the error and the
//! finished perft tasks. These are stored records of domain values (the core's serde forms),
//! not the API's views: the API writes the JSON clients see from the values read back.
//!
//! The request key holds what decides the result and nothing else, so that every spelling of
//! the same request has the same key:
//! - the position as the four FEN fields move generation depends on: placement, side to move,
//!   castling rights and an en-passant square only when a capture there is legal (the clocks
//!   change neither a perft count nor a mate search, which ignores the fifty-move rule);
//! - perft: the depth and whether statistics are counted (threads, hash and workers change how
//!   it is computed, not what);
//! - puzzle: the mate length and whether every key is searched (threads only change the time;
//!   a time limit only decides whether a result is found, and only found results are kept),
//!   and the stipulation when it is not a direct mate.

use chessd_core::{
    perft::{PerftResult, PerftStats},
    solver::{HelpSolution, SelfSolution, Solution, Stipulation, StipulationError},
    FenMode, Position,
};
use serde::{Deserialize, Serialize};

use super::{
    chess2_perft_job::Chess2PerftSpec,
    error::JobError,
    limits::JobLimits,
    perft_job::PerftSpec,
    puzzle_job::{PuzzleResult, PuzzleSpec},
    workers::runner::Runners,
};

/// A perft request as stored.
#[derive(Debug, Serialize, Deserialize)]
struct PerftRequest {
    fen: String,
    depth: u32,
    stats: bool,
    threads: usize,
    hash_mb: usize,
    workers: bool,
    /// Its tasks went to a cluster's shared queue (absent in requests stored before there was
    /// one).
    #[serde(default)]
    shared: bool,
    split_plies: u32,
}

/// A puzzle request as stored.
#[derive(Debug, Serialize, Deserialize)]
struct PuzzleRequest {
    fen: String,
    mate_in: u32,
    time_limit_ms: u64,
    find_all_keys: bool,
    threads: usize,
    /// The find mode (absent in records made before it: the exact mode).
    #[serde(default)]
    find: bool,
    /// In the find mode, tighten the mate.
    #[serde(default)]
    shortest: bool,
    /// `h#N` or `s#N` (absent for `#N`, and in records made before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stipulation: Option<String>,
}

/// A helpmate's or selfmate's result as stored (a direct mate's is the core's [`Solution`]
/// itself, as before them).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum OtherResult {
    Help(HelpSolution),
    #[serde(rename = "selfmate")]
    SelfMate(SelfSolution),
}

/// A perft result as stored (its depth is the request's).
#[derive(Debug, Serialize, Deserialize)]
struct PerftOutcome {
    stats: PerftStats,
    split_plies: u32,
    tasks: usize,
    threads: usize,
    elapsed: std::time::Duration,
}

/// A failure as stored.
#[derive(Debug, Serialize, Deserialize)]
struct Failure {
    code: String,
    message: String,
}

/// The position as its request key writes it: the four fields move generation depends on.
fn position_key(pos: &Position) -> String {
    let fen = pos.fen();
    let mut fields = fen.split(' ');
    let (placement, turn, castling) = (
        fields.next().unwrap_or_default(),
        fields.next().unwrap_or_default(),
        fields.next().unwrap_or_default(),
    );
    let ep = pos
        .ep_square()
        .map_or_else(|| "-".to_string(), |s| s.to_string());
    format!("{placement} {turn} {castling} {ep}")
}

/// The request key of a perft.
pub fn perft_key(spec: &PerftSpec) -> String {
    let mode = if spec.stats { "stats" } else { "nodes" };
    format!(
        "perft {} depth {} {mode}",
        position_key(&spec.pos),
        spec.depth
    )
}

/// The request key of a puzzle.
pub fn puzzle_key(spec: &PuzzleSpec) -> String {
    let keys = if spec.find_all_keys { "all" } else { "first" };
    // The exact mode keeps the key it had before the find mode.
    let mode = match (spec.find, spec.shortest) {
        (false, _) => "",
        (true, false) => " find",
        (true, true) => " find shortest",
    };
    // A direct mate keeps the key it had before helpmates and selfmates.
    let genre = match spec.stipulation {
        Stipulation::Direct(_) => String::new(),
        other => format!(" stipulation {other}"),
    };
    format!(
        "puzzle {} mate {} keys {keys}{mode}{genre}",
        position_key(&spec.pos),
        spec.mate_in
    )
}

fn json<T: Serialize>(value: &T) -> String {
    // Plain structs of numbers, strings and the core's values: nothing that fails to serialize.
    serde_json::to_string(value).unwrap_or_default()
}

fn read<'a, T: Deserialize<'a>>(text: &'a str, what: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("a stored {what} does not read: {e}"))
}

/// A perft request as stored.
pub fn perft_request(spec: &PerftSpec) -> String {
    json(&PerftRequest {
        fen: spec.pos.fen(),
        depth: spec.depth,
        stats: spec.stats,
        threads: spec.threads,
        hash_mb: spec.hash_mb,
        workers: spec.workers.as_ref().is_some_and(|w| !w.shared()),
        shared: spec.workers.as_ref().is_some_and(|w| w.shared()),
        split_plies: spec.split_plies,
    })
}

/// A stored perft request, fitted to the runners and limits in force now: the workers or the
/// shared queue it used when they are still there (else the pool's threads), and the hash
/// budget. The split is kept, so that the tasks are the same.
pub fn read_perft_request(
    text: &str,
    limits: &JobLimits,
    runners: &Runners,
) -> Result<PerftSpec, String> {
    let r: PerftRequest = read(text, "perft request")?;
    let pos = Position::from_fen(&r.fen, FenMode::Lenient).map_err(|e| e.to_string())?;
    let workers = if r.shared {
        runners.shared.as_ref().map(|(queue, _)| queue.clone())
    } else {
        runners.workers.clone().filter(|_| r.workers)
    };
    let threads = match (&workers, r.threads) {
        (Some(_), _) => 0,
        (None, 0) => limits.max_threads(),
        (None, n) => n.min(limits.max_threads()),
    };
    Ok(PerftSpec {
        pos,
        depth: r.depth,
        stats: r.stats,
        threads,
        hash_mb: r.hash_mb.min(limits.config.max_hash_total_mb),
        workers,
        split_plies: r.split_plies,
    })
}

/// A Chess 2 perft request as stored.
#[derive(Debug, Serialize, Deserialize)]
struct Chess2PerftRequest {
    epd: String,
    depth: u32,
    threads: usize,
}

/// The request key of a Chess 2 perft: the EPD without its move counters (the leaf count
/// does not depend on them).
pub fn chess2_perft_key(spec: &Chess2PerftSpec) -> String {
    let epd = spec.pos.to_epd();
    let fields: Vec<&str> = epd.split(' ').collect();
    let key: Vec<&str> = fields
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 4 && *i != 5)
        .map(|(_, f)| *f)
        .collect();
    format!("chess2-perft {} depth {}", key.join(" "), spec.depth)
}

/// A Chess 2 perft request as stored.
pub fn chess2_perft_request(spec: &Chess2PerftSpec) -> String {
    json(&Chess2PerftRequest {
        epd: spec.pos.to_epd(),
        depth: spec.depth,
        threads: spec.threads,
    })
}

/// A stored Chess 2 perft request, with its threads fitted to the limits in force now.
pub fn read_chess2_perft_request(
    text: &str,
    limits: &JobLimits,
) -> Result<Chess2PerftSpec, String> {
    let r: Chess2PerftRequest = read(text, "Chess 2 perft request")?;
    let pos = chessd_core::chess2::Chess2Position::from_epd(&r.epd).map_err(|e| e.to_string())?;
    Ok(Chess2PerftSpec {
        pos,
        depth: r.depth,
        threads: r.threads.clamp(1, limits.max_threads().max(1)),
    })
}

/// A puzzle request as stored.
pub fn puzzle_request(spec: &PuzzleSpec) -> String {
    json(&PuzzleRequest {
        fen: spec.pos.fen(),
        mate_in: spec.mate_in,
        time_limit_ms: spec.time_limit_ms,
        find_all_keys: spec.find_all_keys,
        threads: spec.threads,
        find: spec.find,
        shortest: spec.shortest,
        stipulation: match spec.stipulation {
            Stipulation::Direct(_) => None,
            other => Some(other.to_string()),
        },
    })
}

/// A stored puzzle request, its threads fitted to the pool and its table to the configuration.
pub fn read_puzzle_request(text: &str, limits: &JobLimits) -> Result<PuzzleSpec, String> {
    let r: PuzzleRequest = read(text, "puzzle request")?;
    let pos = Position::from_fen(&r.fen, FenMode::Lenient).map_err(|e| e.to_string())?;
    let stipulation = match &r.stipulation {
        None => Stipulation::Direct(r.mate_in),
        Some(text) => text.parse().map_err(|e: StipulationError| e.to_string())?,
    };
    Ok(PuzzleSpec {
        pos,
        mate_in: r.mate_in,
        stipulation,
        time_limit_ms: r.time_limit_ms,
        find_all_keys: r.find_all_keys,
        threads: r.threads.clamp(1, limits.max_threads()),
        table_mb: limits.config.solver_table_mb,
        find: r.find,
        shortest: r.shortest,
    })
}

/// A perft result as stored.
pub fn perft_result(result: &PerftResult) -> String {
    json(&PerftOutcome {
        stats: result.stats,
        split_plies: result.split_plies,
        tasks: result.tasks,
        threads: result.threads,
        elapsed: result.elapsed,
    })
}

/// A stored perft result of a perft of `depth`.
pub fn read_perft_result(text: &str, depth: u32) -> Result<PerftResult, String> {
    let r: PerftOutcome = read(text, "perft result")?;
    Ok(PerftResult {
        depth,
        stats: r.stats,
        divide: Vec::new(),
        split_plies: r.split_plies,
        tasks: r.tasks,
        threads: r.threads,
        elapsed: r.elapsed,
    })
}

/// A puzzle's result as stored (the core's serde forms; a helpmate's or selfmate's tagged).
pub fn solution(result: &PuzzleResult) -> String {
    match result {
        PuzzleResult::Mate(solution) => json(solution),
        PuzzleResult::Help(help) => json(&OtherResult::Help(help.clone())),
        PuzzleResult::SelfMate(sol) => json(&OtherResult::SelfMate(sol.clone())),
    }
}

/// A stored puzzle result.
pub fn read_solution(text: &str) -> Result<PuzzleResult, String> {
    if let Ok(solution) = serde_json::from_str::<Solution>(text) {
        return Ok(PuzzleResult::Mate(solution));
    }
    Ok(match read::<OtherResult>(text, "solution")? {
        OtherResult::Help(help) => PuzzleResult::Help(help),
        OtherResult::SelfMate(sol) => PuzzleResult::SelfMate(sol),
    })
}

/// A failure as stored: its code and message.
pub fn error(e: &JobError) -> String {
    json(&Failure {
        code: e.code().to_string(),
        message: e.to_string(),
    })
}

/// A stored failure, as the error with the same code and message.
pub fn read_error(text: &str) -> JobError {
    let Ok(f) = read::<Failure>(text, "error") else {
        return JobError::Internal(format!("a stored error does not read: {text}"));
    };
    let m = f.message;
    match f.code.as_str() {
        "job_not_found" => JobError::NotFound(m),
        "unauthorized" => JobError::Unauthorized(m),
        "forbidden" => JobError::Forbidden(m),
        "invalid_request" => JobError::InvalidRequest(m),
        "invalid_fen" => JobError::InvalidPosition(m),
        "limit_exceeded" => JobError::LimitExceeded(m),
        "too_many_jobs" => JobError::TooManyJobs(m),
        "store_unavailable" => JobError::Store(m),
        "job_timed_out" => JobError::TimedOut(m),
        "result_mismatch" => JobError::ResultMismatch(m),
        _ => JobError::Internal(m),
    }
}

/// A finished perft task's statistics as stored.
pub fn task(stats: &PerftStats) -> String {
    json(stats)
}

/// A stored task's statistics.
pub fn read_task(text: &str) -> Result<PerftStats, String> {
    read(text, "perft task")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{config::Config, jobs::perft_job::PerftParams};

    fn limits() -> JobLimits {
        JobLimits::new(Config::defaults().jobs)
    }

    fn perft(fen: &str, depth: u32, threads: usize) -> PerftSpec {
        let req = PerftParams {
            pos: Position::from_fen(fen, FenMode::Lenient).unwrap(),
            depth,
            stats: true,
            threads: Some(threads),
            hash_mb: Some(0),
            workers: None,
        };
        PerftSpec::from_params(&req, &limits(), &Runners::default()).unwrap()
    }

    #[test]
    fn every_spelling_of_a_position_has_one_key() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let key = perft_key(&perft(start, 3, 1));
        assert_eq!(
            key,
            "perft rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - depth 3 stats"
        );
        // Other clocks, no clocks, other spacing, other threads: the same request.
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7 40",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            "  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq -  0 1 ",
        ] {
            assert_eq!(perft_key(&perft(fen, 3, 2)), key, "{fen}");
        }
        // An en-passant square no pawn can take on is no en-passant square.
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        let no_ep = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(
            perft_key(&perft(after_e4, 2, 1)),
            perft_key(&perft(no_ep, 2, 1))
        );
        // A real one stays.
        let ep = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3";
        assert!(perft_key(&perft(ep, 2, 1)).contains(" b KQkq e3 "));
        // Another depth or mode is another request.
        assert_ne!(perft_key(&perft(start, 4, 1)), key);
        let mut nodes = perft(start, 3, 1);
        nodes.stats = false;
        assert_ne!(perft_key(&nodes), key);
    }

    #[test]
    fn stored_requests_read_back_fitted_to_the_limits() {
        let spec = perft(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            5,
            2,
        );
        let text = perft_request(&spec);
        let back = read_perft_request(&text, &limits(), &Runners::default()).unwrap();
        assert_eq!(back.pos, spec.pos);
        assert_eq!(
            (back.depth, back.stats, back.threads, back.split_plies),
            (5, true, 2, spec.split_plies)
        );
        let mut small = Config::defaults().jobs;
        small.pool_threads = 1;
        let back = read_perft_request(&text, &JobLimits::new(small), &Runners::default()).unwrap();
        assert_eq!((back.threads, back.split_plies), (1, spec.split_plies));
        assert!(read_perft_request("{}", &limits(), &Runners::default()).is_err());
    }

    #[test]
    fn results_and_errors_read_back() {
        let spec = perft("8/8/8/8/8/8/8/K1k5 w - - 0 1", 2, 1);
        let result = chessd_core::perft::Perft::new(spec.pos)
            .depth(2)
            .stats(true)
            .run(|_| {})
            .unwrap();
        assert_eq!(
            read_perft_result(&perft_result(&result), 2).unwrap(),
            result
        );
        let e = JobError::LimitExceeded("the time limit of 5 ms was reached".into());
        let read = read_error(&error(&e));
        assert_eq!((read.code(), read.to_string()), (e.code(), e.to_string()));
        assert_eq!(read_error("nonsense").code(), "internal");
        let stats = chessd_core::perft::perft_stats(&spec.pos, 2);
        assert_eq!(read_task(&task(&stats)).unwrap(), stats);
    }

    #[test]
    fn find_mode_solutions_read_back_and_older_ones_count_as_shortest() {
        // Lichess 00s8j: Black mates in 2; a find within 3 does not prove 2 the shortest.
        let fen = "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 35";
        let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
        let found = chessd_core::solver::Solver::new(pos)
            .mate_in(3)
            .find()
            .unwrap();
        assert!(!found.shortest_proven);
        let found = PuzzleResult::Mate(found);
        assert_eq!(read_solution(&solution(&found)).unwrap(), found);
        // A record written before the find mode has no `shortest_proven`: exact, so shortest.
        let mut old: serde_json::Value = serde_json::from_str(&solution(&found)).unwrap();
        old.as_object_mut().unwrap().remove("shortest_proven");
        let Ok(PuzzleResult::Mate(old)) = read_solution(&old.to_string()) else {
            panic!("a direct mate reads back as one");
        };
        assert!(old.shortest_proven);
    }

    #[test]
    fn helpmate_and_selfmate_results_and_requests_read_back() {
        let help_pos =
            Position::from_fen("8/8/8/8/8/1P1k1p2/7r/R3K2R b KQ - 0 1", FenMode::Strict).unwrap();
        let solver = chessd_core::solver::Solver::new(help_pos).mate_in(2);
        let help = PuzzleResult::Help(solver.helpmate().unwrap());
        assert_eq!(read_solution(&solution(&help)).unwrap(), help);
        let self_pos =
            Position::from_fen("8/8/8/2p5/8/kpR5/p7/K7 w - - 0 1", FenMode::Strict).unwrap();
        let solver = chessd_core::solver::Solver::new(self_pos).mate_in(2);
        let selfmate = PuzzleResult::SelfMate(solver.selfmate().unwrap());
        assert_eq!(read_solution(&solution(&selfmate)).unwrap(), selfmate);

        let params = crate::jobs::puzzle_job::PuzzleParams {
            pos: help_pos,
            mate_in: 2,
            stipulation: Some(Stipulation::Help(2)),
            time_limit_ms: None,
            find_all_keys: None,
            threads: None,
            find: false,
            shortest: None,
        };
        let spec = PuzzleSpec::from_params(&params, &limits()).unwrap();
        let back = read_puzzle_request(&puzzle_request(&spec), &limits()).unwrap();
        assert_eq!(back.stipulation, Stipulation::Help(2));
        // Another genre, another key; a direct mate's key is unchanged.
        let direct = PuzzleSpec::from_params(
            &crate::jobs::puzzle_job::PuzzleParams {
                stipulation: None,
                ..params
            },
            &limits(),
        )
        .unwrap();
        assert_ne!(puzzle_key(&spec), puzzle_key(&direct));
        assert!(puzzle_key(&direct).ends_with("mate 2 keys all"));
    }
}
