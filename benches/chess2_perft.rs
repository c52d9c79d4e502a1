//! Chess 2 perft speed: the Go engine's whole perft file (`tests/data/chess2/chess2_perft.epd`,
//! 12 positions) at depth 3, single thread, against that engine in the same run.
//!
//! Every count is checked against the file first. chessd's time is the twelve `perft` calls;
//! the Go engine's is its `chess2_perft -d 3` process reading the file (start-up included,
//! a few milliseconds). The target is 10× faster than the Go engine's published
//! "fast" time, 2.45 s.
//!
//! Run with `cargo bench --bench chess2_perft`. `CHESSD_BENCH_RUNS` runs each (default 5,
//! median shown). `CHESS2_GO_PERFT=/path/to/chess2_perft` times the Go engine beside it
//! (built from CGamesPlay/chess2's `cmd/chess2_perft`; see docs/performance.md).

use std::{
    io::Write,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use chessd_core::chess2::{perft, Chess2Position};

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/chess2/chess2_perft.epd"
);

/// The Go engine's published "fast" time for this file at depth 3.
const GO_PUBLISHED: Duration = Duration::from_millis(2450);

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("CHESSD_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&r| r > 0)
        .unwrap_or(5);
    let text = std::fs::read_to_string(FILE).expect("the perft file is readable");
    let rows: Vec<(Chess2Position, u64)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (epd, counts) = line.split_once(';').expect("an EPD ; counts line");
            let pos = Chess2Position::from_epd(epd.trim()).expect("a valid EPD");
            let d3 = counts
                .trim()
                .split('/')
                .nth(2)
                .and_then(|n| n.parse().ok())
                .expect("a depth-3 count");
            (pos, d3)
        })
        .collect();
    // Correctness first.
    for (pos, d3) in &rows {
        assert_eq!(perft(pos, 3), *d3, "{}", pos.to_epd());
    }
    let nodes: u64 = rows.iter().map(|(_, d3)| d3).sum();

    let ours: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            for (pos, _) in &rows {
                std::hint::black_box(perft(pos, 3));
            }
            start.elapsed()
        })
        .collect();
    let ours = median(ours);

    let go = std::env::var("CHESS2_GO_PERFT").ok().map(|program| {
        median(
            (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    let mut child = Command::new(&program)
                        .args(["-d", "3"])
                        .stdin(Stdio::piped())
                        .stdout(Stdio::null())
                        .spawn()
                        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
                    child
                        .stdin
                        .take()
                        .expect("a pipe")
                        .write_all(text.as_bytes())
                        .expect("the Go engine reads the file");
                    assert!(child.wait().expect("it ends").success());
                    start.elapsed()
                })
                .collect(),
        )
    });

    println!(
        "Chess 2 perft, the Go engine's file (12 positions) at depth 3: {nodes} leaves, \
         median of {runs} runs, one thread"
    );
    println!(
        "chessd:                     {:>9.1} ms  ({:.1} M leaves/s)",
        ours.as_secs_f64() * 1e3,
        nodes as f64 / ours.as_secs_f64() / 1e6
    );
    if let Some(go) = go {
        println!(
            "Go engine (this machine):   {:>9.1} ms  -> chessd {:.1}x faster",
            go.as_secs_f64() * 1e3,
            go.as_secs_f64() / ours.as_secs_f64()
        );
    }
    println!(
        "Go engine (published fast): {:>9.1} ms  -> chessd {:.1}x faster (target: 10x)",
        GO_PUBLISHED.as_secs_f64() * 1e3,
        GO_PUBLISHED.as_secs_f64() / ours.as_secs_f64()
    );
}
