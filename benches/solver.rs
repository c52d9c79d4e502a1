//! Mate solver speed: chessd's prover against Stockfish's `go mate N`, in one run.
//!
//! Two sets of positions:
//! - **puzzles**: the 50 shared Lichess puzzles (`tests/data/puzzles/lichess_m2_m3_sample50.csv`,
//!   25 mates in 2 and 25 mates in 3), whose keys are known: every answer is checked against
//!   the CSV (mate length, keys, uniqueness; Stockfish's mate score and best move);
//! - **games**: forced mates in 2 to 8 from engine games (`tests/data/puzzles/mates_2_8.csv`,
//!   made by `generate_mates.py`; its README tells how), at least 20 per length in the
//!   `report` set. The `mate` column is Stockfish's own deep analysis, so both are asked for a
//!   mate in that many moves. chessd must prove a mate of at most that length, and, when
//!   Stockfish also reports one, of at most Stockfish's length (chessd's is the proven
//!   shortest); a proof that there is none fails the bench.
//!
//! chessd does more than Stockfish: it proves the shortest mate (every shorter length is
//! refuted first) and finds every key (`find_all_keys`). Stockfish only has to find a mate
//! within N. Both get one thread and the same cap (`CHESSD_BENCH_CAP` seconds, default 20) on
//! each position; a position not solved within it counts as the cap in the medians. Per group:
//! how many each solved, the median time, and the ratio of the medians (Stockfish / chessd,
//! above 1 when chessd is faster). For the mates in 6 to 8, chessd also runs with two threads
//! and the group shows the median speed-up.
//!
//! Timing: chessd, the `solve()` call (a fresh solver and table each time); Stockfish, from
//! sending `go mate N` to reading `bestmove`, after `ucinewgame`, `position fen …` and an
//! `isready`/`readyok` round trip. The puzzles run `CHESSD_BENCH_RUNS` times each (default 5,
//! the median kept), the game positions once (`CHESSD_BENCH_GAME_RUNS`, default 1).
//!
//! Run with `cargo bench --bench solver`. Environment:
//! - `CHESSD_BENCH_SET=dev` times the `dev` set instead of `report` (the set to work on; the
//!   figures reported come from `report`);
//! - `CHESSD_BENCH_MATES=6,7,8` keeps only those lengths (the puzzles count as 2 and 3);
//! - `CHESSD_BENCH_KEYS=first` has chessd stop at the first key on the game positions (the
//!   shortest mate is still proven; the puzzles always check every key);
//! - `CHESSD_BENCH_ONLY=chessd` (or `stockfish`) times only that side,
//!   `CHESSD_BENCH_THREADS=1` skips the two-thread runs;
//! - `CHESSD_BENCH_VERBOSE=1` prints every position; `STOCKFISH=/path` picks another Stockfish
//!   (default `/usr/games/stockfish`).

use std::{
    collections::BTreeSet,
    time::{Duration, Instant},
};

use chessd_core::{
    solver::{SolveError, Solver},
    FenMode, Position,
};

#[path = "support/env.rs"]
mod env;
#[path = "support/mates.rs"]
mod mates;
use env::env_or;
use mates::{median, ms, read_csv, Outcome, Stockfish};

/// Runs Stockfish's `go mate N` on `case` and checks its answer against the known keys.
fn stockfish_solve(sf: &mut Stockfish, case: &Case, cap: Duration) -> Outcome {
    let (outcome, best) = sf.go_mate(&case.fen, case.mate, cap);
    if let Some(keys) = &case.keys {
        assert!(
            outcome.mate.is_some(),
            "Stockfish found no mate for {}",
            case.id
        );
        assert!(
            keys.contains(&best),
            "Stockfish's move {best} for {} is not a key {keys:?}",
            case.id
        );
    }
    outcome
}

const PUZZLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/puzzles/lichess_m2_m3_sample50.csv"
);
const GAMES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/puzzles/mates_2_8.csv"
);

/// One position to solve.
struct Case {
    id: String,
    /// "puzzles" or "games".
    source: &'static str,
    fen: String,
    mate: u32,
    /// The known keys (puzzles only).
    keys: Option<BTreeSet<String>>,
}

fn load_cases(set: &str, mates: &Option<Vec<u32>>) -> Vec<Case> {
    let wanted = |mate: u32| mates.as_ref().is_none_or(|m| m.contains(&mate));
    let mut cases: Vec<Case> = read_csv(PUZZLES)
        .unwrap_or_else(|| panic!("cannot read {PUZZLES}"))
        .into_iter()
        .map(|r| Case {
            id: r["puzzle_id"].clone(),
            source: "puzzles",
            fen: r["fen"].clone(),
            mate: r["mate"].parse().expect("a mate length"),
            keys: Some(
                r["mating_first_moves_uci"]
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            ),
        })
        .collect();
    assert_eq!(cases.len(), 50, "the shared sample has 50 puzzles");
    cases.extend(
        read_csv(GAMES)
            .unwrap_or_else(|| panic!("cannot read {GAMES}"))
            .into_iter()
            .filter(|r| r["set"] == set)
            .map(|r| Case {
                id: r["id"].clone(),
                source: "games",
                fen: r["fen"].clone(),
                mate: r["mate"].parse().expect("a mate length"),
                keys: None,
            }),
    );
    cases.retain(|c| wanted(c.mate));
    cases
}

/// Solves `case` with chessd (every key, `threads` threads, the cap as deadline) and checks
/// the answer.
fn chessd_solve(case: &Case, threads: usize, cap: Duration, all_keys: bool) -> Outcome {
    let pos = Position::from_fen(&case.fen, FenMode::Strict).expect("a valid FEN");
    let start = Instant::now();
    let result = Solver::new(pos)
        .mate_in(case.mate)
        .threads(threads)
        .find_all_keys(all_keys || case.keys.is_some())
        .deadline(start + cap)
        .solve();
    let time = start.elapsed();
    let solution = match result {
        Ok(solution) => solution,
        Err(SolveError::Stopped { .. }) => {
            return Outcome {
                time: cap,
                mate: None,
            }
        }
        Err(e) => panic!("{}: {e}", case.id),
    };
    let Some(mate) = solution.mate else {
        panic!(
            "{}: chessd proves there is no mate in {}, which {} claims",
            case.id,
            case.mate,
            if case.source == "puzzles" {
                "the CSV"
            } else {
                "Stockfish's analysis"
            }
        );
    };
    if let Some(keys) = &case.keys {
        assert_eq!(mate, case.mate, "mate length of {}", case.id);
        let found: BTreeSet<String> = solution.keys.iter().map(|&mv| pos.uci(mv)).collect();
        assert_eq!(&found, keys, "keys of {}", case.id);
        assert_eq!(
            solution.unique,
            keys.len() == 1,
            "uniqueness of {}",
            case.id
        );
    }
    Outcome {
        time,
        mate: Some(mate),
    }
}

/// The run with the median time of several runs of one position.
fn median_outcome(mut runs: Vec<Outcome>) -> Outcome {
    runs.sort_by_key(|o| o.time);
    runs[runs.len() / 2]
}

/// One position's outcomes: chessd with one thread, Stockfish, chessd with two threads.
#[derive(Default)]
struct Row {
    ours: Option<Outcome>,
    theirs: Option<Outcome>,
    ours2: Option<Outcome>,
}

fn main() {
    let runs: usize = env_or("CHESSD_BENCH_RUNS", 5).max(1);
    let game_runs: usize = env_or("CHESSD_BENCH_GAME_RUNS", 1).max(1);
    let cap = Duration::from_secs_f64(env_or("CHESSD_BENCH_CAP", 20.0));
    let set = std::env::var("CHESSD_BENCH_SET").unwrap_or_else(|_| "report".into());
    let mates: Option<Vec<u32>> = std::env::var("CHESSD_BENCH_MATES")
        .ok()
        .map(|m| m.split(',').filter_map(|n| n.trim().parse().ok()).collect());
    let verbose = std::env::var("CHESSD_BENCH_VERBOSE").is_ok_and(|v| v != "0");
    let only = std::env::var("CHESSD_BENCH_ONLY").unwrap_or_default();
    let with_stockfish = only != "chessd";
    let with_chessd = only != "stockfish";
    let with_threads = env_or("CHESSD_BENCH_THREADS", 2) >= 2;
    let all_keys = std::env::var("CHESSD_BENCH_KEYS").map_or(true, |k| k != "first");
    let program = std::env::var("STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    let cases = load_cases(&set, &mates);

    let mut stockfish = if with_stockfish {
        let sf = Stockfish::start(&program);
        if sf.is_none() {
            println!("{program} cannot be started: timing chessd alone");
        }
        sf
    } else {
        None
    };

    let mut rows: Vec<Row> = Vec::new();
    for case in &cases {
        let n = if case.source == "puzzles" {
            runs
        } else {
            game_runs
        };
        let mut row = Row::default();
        if with_chessd {
            row.ours = Some(median_outcome(
                (0..n)
                    .map(|_| chessd_solve(case, 1, cap, all_keys))
                    .collect(),
            ));
        }
        if let Some(sf) = &mut stockfish {
            row.theirs = Some(median_outcome(
                (0..n).map(|_| stockfish_solve(sf, case, cap)).collect(),
            ));
        }
        if with_chessd && with_threads && case.mate >= 6 {
            row.ours2 = Some(median_outcome(
                (0..n)
                    .map(|_| chessd_solve(case, 2, cap, all_keys))
                    .collect(),
            ));
        }
        if let (Some(Outcome { mate: Some(m), .. }), Some(Outcome { mate: Some(s), .. })) =
            (row.ours, row.theirs)
        {
            assert!(
                m <= s,
                "{}: chessd proves the shortest mate is {m}, Stockfish found a mate in {s}",
                case.id
            );
        }
        if verbose {
            let show = |o: Option<Outcome>| match o {
                None => "-".to_string(),
                Some(Outcome { time, mate: None }) => format!(">{:.0}", ms(time)),
                Some(Outcome {
                    time,
                    mate: Some(m),
                }) => format!("{:.1} (#{m})", ms(time)),
            };
            println!(
                "{:<10} {:>2} {:>18} {:>18} {:>18}",
                case.id,
                case.mate,
                show(row.ours),
                show(row.theirs),
                show(row.ours2)
            );
        }
        rows.push(row);
    }

    println!(
        "mate solver benchmark: set {set}, cap {:.0} s a position, one thread unless said; \
         puzzles {runs} runs each, game positions {game_runs}",
        cap.as_secs_f64()
    );
    println!(
        "chessd: shortest mate proven + {}; Stockfish: 'go mate N' (first mate within N)",
        if all_keys {
            "all keys"
        } else {
            "the first key on game positions"
        }
    );
    println!(
        "medians count a position not solved within the cap as the cap; ratio = Stockfish \
         median / chessd median (above 1: chessd faster)"
    );
    println!();
    println!(
        "{:<12} {:>5} {:>10} {:>12} {:>10} {:>12} {:>7} {:>9} {:>10}",
        "group",
        "count",
        "chessd ok",
        "chessd ms",
        "sf ok",
        "sf ms",
        "ratio",
        "sf-only",
        "2 threads"
    );
    for source in ["puzzles", "games"] {
        for mate in 1..=32 {
            let idx: Vec<usize> = (0..cases.len())
                .filter(|&i| cases[i].source == source && cases[i].mate == mate)
                .collect();
            if idx.is_empty() {
                continue;
            }
            let solved = |pick: fn(&Row) -> Option<Outcome>| {
                idx.iter()
                    .filter(|&&i| pick(&rows[i]).is_some_and(|o| o.mate.is_some()))
                    .count()
            };
            let med = |pick: fn(&Row) -> Option<Outcome>| {
                let times: Vec<Duration> = idx
                    .iter()
                    .filter_map(|&i| pick(&rows[i]))
                    .map(|o| o.time)
                    .collect();
                (!times.is_empty()).then(|| median(times))
            };
            let ours = med(|r| r.ours).unwrap_or_default();
            let theirs = med(|r| r.theirs);
            // Positions Stockfish solved and chessd did not.
            let sf_only = idx
                .iter()
                .filter(|&&i| {
                    rows[i].theirs.is_some_and(|o| o.mate.is_some())
                        && rows[i].ours.is_some_and(|o| o.mate.is_none())
                })
                .count();
            // Two threads: the median per-position speed-up over the positions one thread
            // solved.
            let speedups: Vec<f64> = idx
                .iter()
                .filter_map(|&i| match (rows[i].ours, rows[i].ours2) {
                    (Some(one @ Outcome { mate: Some(_), .. }), Some(two)) => {
                        Some(one.time.as_secs_f64() / two.time.as_secs_f64().max(1e-9))
                    }
                    _ => None,
                })
                .collect();
            let speedup = if speedups.is_empty() {
                "-".to_string()
            } else {
                let mut s = speedups.clone();
                s.sort_by(f64::total_cmp);
                let m = if s.len() % 2 == 1 {
                    s[s.len() / 2]
                } else {
                    (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2.0
                };
                format!("{m:.2}x")
            };
            println!(
                "{:<12} {:>5} {:>10} {:>12.3} {:>10} {:>12} {:>7} {:>9} {:>10}",
                format!("{source} #{mate}"),
                idx.len(),
                solved(|r| r.ours),
                ms(ours),
                theirs.map_or("-".into(), |_| solved(|r| r.theirs).to_string()),
                theirs.map_or("-".into(), |t| format!("{:.3}", ms(t))),
                theirs.map_or("-".into(), |t| format!(
                    "{:.2}",
                    t.as_secs_f64() / ours.as_secs_f64().max(1e-9)
                )),
                theirs.map_or("-".into(), |_| sf_only.to_string()),
                speedup,
            );
        }
    }
}
