//! The find mode (`Solver::find`, df-pn) against Stockfish's `go mate N`, in one run.
//!
//! Positions: by default `tests/data/puzzles/matetrack_find.csv`, 20 `dev` and 20 `report`
//! positions for each N = 4, 6, 8, 10, 12, 15, 20 whose fastest known mate is exactly N, from
//! the Stockfish mate-tracking suite (vondele/matetrack; `pick_matetrack.py` and the puzzles
//! README tell how). With `CHESSD_BENCH_DATA=games`, the older game mates made here by
//! `generate_mates.py`: for N = 4, 6, 8 the rows of `mates_2_8.csv` whose Stockfish mate is N,
//! for N = 10, 12, 15, 20 the rows of `mates_9_20.csv` in that bucket (Stockfish's mate in 9-10,
//! 11-12, 13-15, 16-20). Both sides are asked for a mate in at most N; one thread each, the same
//! cap (`CHESSD_BENCH_CAP` seconds, default 10); a position not solved within it counts as the
//! cap in the medians. The two are timed alternately position by position (chessd first on
//! even rows, Stockfish first on odd ones), so that the load of a shared machine falls on both.
//!
//! chessd's time is the whole `find()` call: the proof and the complete proof tree (every
//! defence answered to mate), checked here to be complete and of length at most N. Stockfish's
//! is from `go mate N` to `bestmove` (after `ucinewgame`, `position` and `isready`); it proves
//! nothing, only reports a mate score.
//!
//! Run with `cargo bench -p chessd-core --bench solver_find` (it needs only the core). Environment: `CHESSD_BENCH_SET=dev` (the set to
//! tune on; `report` by default), `CHESSD_BENCH_N=4,6` (only those N), `CHESSD_BENCH_PER_N=20`
//! (the most positions per N, in file order), `CHESSD_BENCH_DATA=games` (the game mates),
//! `CHESSD_BENCH_ONLY=chessd` (or `stockfish`),
//! `CHESSD_BENCH_VERBOSE=1` (every position: times and chessd's nodes), `STOCKFISH=/path`.

use std::time::{Duration, Instant};

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

const SHALLOW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/mates_2_8.csv"
);
const DEEP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/mates_9_20.csv"
);
const MATETRACK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/matetrack_find.csv"
);

/// The N of the report table.
const NS: [u32; 7] = [4, 6, 8, 10, 12, 15, 20];

/// One position to solve.
struct Case {
    id: String,
    fen: String,
    /// The fastest known mate (matetrack's `bm #N`), or Stockfish's length in its deep analysis
    /// (the game mates).
    mate: u32,
    /// The N both are asked for.
    n: u32,
}

/// One position's outcomes: chessd's, Stockfish's.
type Row = (Option<Outcome>, Option<Outcome>);

fn load_cases(data: &str, set: &str, ns: &[u32], per_n: usize) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let rows: Vec<_> = if data == "games" {
        // A missing file gives no rows (the deep file is optional while it is generated).
        read_csv(SHALLOW)
            .into_iter()
            .flatten()
            .chain(read_csv(DEEP).into_iter().flatten())
            .collect()
    } else {
        read_csv(MATETRACK).expect("tests/data/puzzles/matetrack_find.csv")
    };
    for r in rows.into_iter().filter(|r| r["set"] == set) {
        // matetrack rows: `n` is the exact mate; game rows: `mate`, and `bucket` for the deep ones.
        let mate: u32 = r
            .get("mate")
            .unwrap_or_else(|| &r["n"])
            .parse()
            .expect("a mate length");
        let n = r
            .get("bucket")
            .map_or(mate, |b| b.parse().expect("a bucket"));
        if !ns.contains(&n) || cases.iter().filter(|c| c.n == n).count() >= per_n {
            continue;
        }
        cases.push(Case {
            id: r["id"].clone(),
            fen: r["fen"].clone(),
            mate,
            n,
        });
    }
    cases
}

/// Finds a mate in at most N with chessd (one thread, the cap as deadline) and checks it;
/// returns the outcome and the nodes searched (0 when stopped).
fn chessd_find(case: &Case, cap: Duration) -> (Outcome, u64) {
    let pos = Position::from_fen(&case.fen, FenMode::Strict).expect("a valid FEN");
    let start = Instant::now();
    let result = Solver::new(pos)
        .mate_in(case.n)
        .deadline(start + cap)
        .find();
    let time = start.elapsed();
    match result {
        Ok(s) => {
            let Some(mate) = s.mate else {
                panic!(
                    "{}: chessd proves there is no mate in {}, Stockfish's analysis found one in {}",
                    case.id, case.n, case.mate
                );
            };
            assert!(mate <= case.n, "{}: mate in {mate} > {}", case.id, case.n);
            if !s.tree_complete {
                // A proof whose tree the cap cut: not counted as solved.
                return (
                    Outcome {
                        time: cap,
                        mate: None,
                    },
                    s.nodes,
                );
            }
            (
                Outcome {
                    time,
                    mate: Some(mate),
                },
                s.nodes,
            )
        }
        Err(SolveError::Stopped { nodes, .. }) => (
            Outcome {
                time: cap,
                mate: None,
            },
            nodes,
        ),
        Err(e) => panic!("{}: {e}", case.id),
    }
}

fn main() {
    let cap = Duration::from_secs_f64(env_or("CHESSD_BENCH_CAP", 10.0));
    let set = std::env::var("CHESSD_BENCH_SET").unwrap_or_else(|_| "report".into());
    let ns: Vec<u32> = std::env::var("CHESSD_BENCH_N").map_or(NS.to_vec(), |m| {
        m.split(',').filter_map(|n| n.trim().parse().ok()).collect()
    });
    let per_n: usize = env_or("CHESSD_BENCH_PER_N", usize::MAX);
    let verbose = std::env::var("CHESSD_BENCH_VERBOSE").is_ok_and(|v| v != "0");
    let only = std::env::var("CHESSD_BENCH_ONLY").unwrap_or_default();
    let program = std::env::var("STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    let data = std::env::var("CHESSD_BENCH_DATA").unwrap_or_else(|_| "matetrack".into());
    let cases = load_cases(&data, &set, &ns, per_n);

    let mut stockfish = if only != "chessd" {
        let sf = Stockfish::start(&program);
        if sf.is_none() {
            println!("{program} cannot be started: timing chessd alone");
        }
        sf
    } else {
        None
    };

    let mut rows: Vec<Row> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let mut ours = None;
        let mut theirs = None;
        let mut nodes = 0;
        for side in 0..2 {
            if (side + i) % 2 == 0 {
                if only != "stockfish" {
                    let (outcome, n) = chessd_find(case, cap);
                    ours = Some(outcome);
                    nodes = n;
                }
            } else if let Some(sf) = &mut stockfish {
                theirs = Some(sf.go_mate(&case.fen, case.n, cap).0);
            }
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
                "{:<10} N={:<2} #{:<2} {:>18} {:>18} {:>12}",
                case.id,
                case.n,
                case.mate,
                show(ours),
                show(theirs),
                nodes
            );
        }
        rows.push((ours, theirs));
    }

    println!(
        "find-mode benchmark: {data} set {set}, cap {:.0} s a position, one thread each; chessd \
         find (proof + complete proof tree) vs Stockfish 'go mate N'",
        cap.as_secs_f64()
    );
    println!("medians count a position not solved within the cap as the cap; ratio = Stockfish median / chessd median (above 1: chessd faster)");
    println!();
    println!(
        "{:<6} {:>5} {:>10} {:>12} {:>8} {:>12} {:>7}",
        "N", "count", "chessd ok", "chessd ms", "sf ok", "sf ms", "ratio"
    );
    for &n in &ns {
        let idx: Vec<usize> = (0..cases.len()).filter(|&i| cases[i].n == n).collect();
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
        let ours = med(|r| r.0);
        let theirs = med(|r| r.1);
        println!(
            "{:<6} {:>5} {:>10} {:>12} {:>8} {:>12} {:>7}",
            format!("#{n}"),
            idx.len(),
            ours.map_or("-".into(), |_| solved(|r| r.0).to_string()),
            ours.map_or("-".into(), |t| format!("{:.1}", ms(t))),
            theirs.map_or("-".into(), |_| solved(|r| r.1).to_string()),
            theirs.map_or("-".into(), |t| format!("{:.1}", ms(t))),
            match (ours, theirs) {
                (Some(o), Some(t)) => format!("{:.2}", t.as_secs_f64() / o.as_secs_f64().max(1e-9)),
                _ => "-".into(),
            },
        );
    }
}
