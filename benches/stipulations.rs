//! Helpmates and selfmates: chessd against Popeye on the problems of
//! `tests/data/stipulations/popeye_h_s.tsv` (its README tells where they come from), in one run.
//!
//! Both solve every problem completely, one thread each: chessd's `Solver::helpmate` (every
//! solution) or `Solver::selfmate` (every key, with a complete tree per key); Popeye its default
//! solving of the same stipulation (every solution; for selfmates every key with its threats
//! and variations). chessd's time is the whole call, in process. Popeye's is the `Time = … s`
//! it prints itself (its start-up and the writing of the input not counted; it prints
//! milliseconds, so its times under 1 ms show as 0.000-0.001). Each problem is timed
//! `CHESSD_BENCH_RUNS` times (default 3) alternately, and the median taken; the table gives the
//! median over the problems of each genre and N. chessd's answers are checked against the
//! recorded Popeye answers as they are timed.
//!
//! Run with `POPEYE=/tmp/popeye/py cargo bench -p chessd-core --bench stipulations` (it needs
//! only the core; without `POPEYE` only chessd is timed). `CHESSD_BENCH_VERBOSE=1` prints
//! every problem; `CHESSD_BENCH_ONLY=text` times only the problems whose id or stipulation
//! contains `text` (e.g. `s#3`).

use std::{
    collections::{BTreeMap, BTreeSet},
    time::Instant,
};

use chessd_core::{
    solver::{Solver, Stipulation},
    FenMode, Position,
};

#[path = "support/env.rs"]
mod env;
#[path = "support/popeye.rs"]
mod popeye;
use popeye::{median, popeye_input, popeye_own};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/stipulations/popeye_h_s.tsv"
);

/// chessd's answer in the data file's form (sorted) and its time in seconds.
fn chessd(pos: Position, stip: Stipulation) -> (BTreeSet<String>, f64) {
    let start = Instant::now();
    let solver = Solver::new(pos).mate_in(stip.moves());
    let answer: BTreeSet<String> = match stip {
        Stipulation::Help(_) => {
            let help = solver.helpmate().expect("solves");
            help.solutions
                .iter()
                .map(|line| {
                    let mut p = pos;
                    line.iter()
                        .map(|&mv| {
                            let u = p.uci(mv);
                            p.play_unchecked(mv);
                            u
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        }
        _ => {
            let sol = solver.selfmate().expect("solves");
            assert!(sol.tree_complete);
            sol.keys.iter().map(|&k| pos.uci(k)).collect()
        }
    };
    (answer, start.elapsed().as_secs_f64())
}

fn main() {
    let py = std::env::var("POPEYE").ok();
    let runs: usize = env::env_or("CHESSD_BENCH_RUNS", 3);
    let verbose = std::env::var("CHESSD_BENCH_VERBOSE").is_ok();
    let only = std::env::var("CHESSD_BENCH_ONLY").unwrap_or_default();
    let text = std::fs::read_to_string(DATA).expect("the data file");
    // (genre, N) -> (chessd medians, Popeye medians)
    let mut table: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        if !(f[0].contains(&only) || f[1].contains(&only)) {
            continue;
        }
        let stip: Stipulation = f[1].parse().expect("a stipulation");
        let pos = Position::from_fen(f[2], FenMode::Strict).expect("a FEN");
        let sep = if matches!(stip, Stipulation::Help(_)) {
            ';'
        } else {
            ' '
        };
        let expected: BTreeSet<String> = f[3]
            .split(sep)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let input = popeye_input(f[2], f[1]);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for run in 0..runs {
            let popeye = |theirs: &mut Vec<f64>| {
                if let Some(py) = &py {
                    theirs
                        .push(popeye::popeye(py, &input).map_or(f64::NAN, |run| popeye_own(&run)));
                }
            };
            if run % 2 == 1 {
                popeye(&mut theirs);
            }
            let (answer, secs) = chessd(pos, stip);
            assert_eq!(answer, expected, "{}: chessd differs from Popeye", f[0]);
            ours.push(secs);
            if run % 2 == 0 {
                popeye(&mut theirs);
            }
        }
        let (o, t) = (median(ours), median(theirs));
        if verbose {
            println!(
                "{:24} {:4} chessd {:9.4} s  Popeye {:9.4} s",
                f[0], f[1], o, t
            );
        }
        let key = format!(
            "{} {}",
            &f[1][..f[1].find('#').map_or(0, |i| i + 1)],
            stip.moves()
        );
        let e = table.entry(key).or_default();
        e.0.push(o);
        e.1.push(t);
    }
    println!(
        "| stipulation | problems | chessd median (ms) | Popeye median (ms) | Popeye / chessd |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (key, (ours, theirs)) in table {
        let n = ours.len();
        let (o, t) = (median(ours) * 1e3, median(theirs) * 1e3);
        println!("| {key} | {n} | {o:.3} | {t:.1} | {:.1}x |", t / o);
    }
}
