//! The find mode (`Solver::find`, df-pn) against Stockfish's `go mate N`, in one run.
//!
//! Positions: game mates from `tests/data/puzzles/` (made by `generate_mates.py`; its README
//! tells how): for N = 4, 6, 8 the rows of `mates_2_8.csv` whose Stockfish mate is N, for
//! N = 10, 12, 15, 20 the rows of `mates_9_20.csv` in that bucket (Stockfish's mate in 9-10,
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
//! (the most positions per N, in file order), `CHESSD_BENCH_ONLY=chessd` (or `stockfish`),
//! `CHESSD_BENCH_VERBOSE=1` (every position), `STOCKFISH=/path`.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    time::{Duration, Instant},
};

use chessd_core::{
    solver::{SolveError, Solver},
    FenMode, Position,
};

const SHALLOW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/mates_2_8.csv"
);
const DEEP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/mates_9_20.csv"
);

/// The N of the report table.
const NS: [u32; 7] = [4, 6, 8, 10, 12, 15, 20];

/// One position to solve.
struct Case {
    id: String,
    fen: String,
    /// Stockfish's mate length in its deep analysis.
    mate: u32,
    /// The N both are asked for.
    n: u32,
}

/// One position's outcomes: chessd's, Stockfish's.
type Row = (Option<Outcome>, Option<Outcome>);

/// What one solve gave: the time and, when solved within the cap, the mate length.
#[derive(Clone, Copy)]
struct Outcome {
    time: Duration,
    mate: Option<u32>,
}

/// The rows of a CSV file as maps from column to value (none when the file is missing).
fn read_csv(path: &str) -> Vec<std::collections::HashMap<String, String>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header line")
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            header
                .iter()
                .cloned()
                .zip(line.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn load_cases(set: &str, ns: &[u32], per_n: usize) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let rows = read_csv(SHALLOW).into_iter().chain(read_csv(DEEP));
    for r in rows.filter(|r| r["set"] == set) {
        let mate: u32 = r["mate"].parse().expect("a mate length");
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

/// Finds a mate in at most N with chessd (one thread, the cap as deadline) and checks it.
fn chessd_find(case: &Case, cap: Duration) -> Outcome {
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
                return Outcome {
                    time: cap,
                    mate: None,
                };
            }
            Outcome {
                time,
                mate: Some(mate),
            }
        }
        Err(SolveError::Stopped { .. }) => Outcome {
            time: cap,
            mate: None,
        },
        Err(e) => panic!("{}: {e}", case.id),
    }
}

/// A Stockfish process speaking UCI, one thread; its output read on a thread of its own so
/// that a search can be stopped at the cap.
struct Stockfish {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Stockfish {
    fn start(program: &str) -> Option<Stockfish> {
        let mut child = Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        let stdout = BufReader::new(child.stdout.take()?);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut sf = Stockfish {
            child,
            stdin,
            lines,
        };
        sf.send("uci");
        sf.wait_for("uciok");
        sf.send("setoption name Threads value 1");
        sf.sync();
        Some(sf)
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("Stockfish reads its input");
        self.stdin.flush().expect("Stockfish reads its input");
    }

    fn read_line(&mut self) -> String {
        self.lines.recv().expect("Stockfish closed its output")
    }

    fn wait_for(&mut self, prefix: &str) -> String {
        loop {
            let line = self.read_line();
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    fn sync(&mut self) {
        self.send("isready");
        self.wait_for("readyok");
    }

    /// Runs `go mate N` on `case` (stopped at the cap) and checks the answer; returns the
    /// time from `go` to `bestmove` and the mate it reported within N, if any.
    fn solve(&mut self, case: &Case, cap: Duration) -> Outcome {
        self.send("ucinewgame");
        self.send(&format!("position fen {}", case.fen));
        self.sync();
        let start = Instant::now();
        self.send(&format!("go mate {}", case.n));
        let mut last_mate = None;
        let mut stopped = false;
        let best = loop {
            let line = if stopped {
                self.read_line()
            } else {
                match self.lines.recv_timeout(cap.saturating_sub(start.elapsed())) {
                    Ok(line) => line,
                    Err(RecvTimeoutError::Timeout) => {
                        self.send("stop");
                        stopped = true;
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => panic!("Stockfish closed its output"),
                }
            };
            if let Some(rest) = line.strip_prefix("bestmove ") {
                break rest.split_whitespace().next().unwrap_or("").to_string();
            }
            if line.starts_with("info") {
                let words: Vec<&str> = line.split_whitespace().collect();
                if let Some(i) = words.windows(2).position(|w| w == ["score", "mate"]) {
                    last_mate = words.get(i + 2).and_then(|m| m.parse::<i32>().ok());
                }
            }
        };
        let time = start.elapsed().min(cap);
        let mate = last_mate
            .filter(|&m| m >= 1 && m as u32 <= case.n)
            .map(|m| m as u32);
        let _ = best;
        Outcome { time, mate }
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    match v.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
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
    let cases = load_cases(&set, &ns, per_n);

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
        for side in 0..2 {
            if (side + i) % 2 == 0 {
                if only != "stockfish" {
                    ours = Some(chessd_find(case, cap));
                }
            } else if let Some(sf) = &mut stockfish {
                theirs = Some(sf.solve(case, cap));
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
                "{:<10} N={:<2} sf#{:<2} {:>18} {:>18}",
                case.id,
                case.n,
                case.mate,
                show(ours),
                show(theirs)
            );
        }
        rows.push((ours, theirs));
    }

    println!(
        "find-mode benchmark: set {set}, cap {:.0} s a position, one thread each; chessd \
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
