//! Mate solver speed: chessd's prover against Stockfish's `go mate N`, in one run, on the 50
//! shared Lichess puzzles (`tests/data/puzzles/lichess_m2_m3_sample50.csv`, 25 mates in 2
//! and 25 mates in 3).
//!
//! Both sides get one thread. chessd does more than Stockfish: it proves the shortest mate
//! length (every shorter length is refuted first) and decides uniqueness (every key is
//! searched for, `find_all_keys`). Before anything is timed, each puzzle is solved once and
//! checked against the CSV: the mate length, the keys (exactly the CSV's mating first moves)
//! and uniqueness. Stockfish's every answer is checked too: `score mate M` with `1 <= M <= N`
//! and a best move that is one of the CSV's keys.
//!
//! Timing: chessd, the `solve()` call (a fresh solver and table each time); Stockfish, from
//! sending `go mate N` to reading `bestmove`, after `ucinewgame`, `position fen …` and an
//! `isready`/`readyok` round trip (so the new game and position setup are not timed). Puzzle
//! after puzzle, chessd solves it `CHESSD_BENCH_RUNS` times (default 5) back to back, then
//! Stockfish does, so both run warm and a change in machine load, lasting longer than a few
//! milliseconds, affects both alike; a puzzle's time is the median of its runs and the table
//! shows, per group, the median over the group's puzzles.
//!
//! Run with `cargo bench --bench solver`. `CHESSD_BENCH_VERBOSE=1` also prints every puzzle.
//! `STOCKFISH=/path` picks another Stockfish binary (default `/usr/games/stockfish`).

use std::{
    collections::BTreeSet,
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    time::{Duration, Instant},
};

use chessd_core::{solver::Solver, FenMode, Position};

const PUZZLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/puzzles/lichess_m2_m3_sample50.csv"
);

/// One puzzle of the CSV.
struct Puzzle {
    id: String,
    fen: String,
    mate: u32,
    keys: BTreeSet<String>,
}

fn load_puzzles() -> Vec<Puzzle> {
    let text =
        std::fs::read_to_string(PUZZLES).unwrap_or_else(|e| panic!("cannot read {PUZZLES}: {e}"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header line").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let (id, fen, mate, keys) = (
        col("puzzle_id"),
        col("fen"),
        col("mate"),
        col("mating_first_moves_uci"),
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            Puzzle {
                id: f[id].to_string(),
                fen: f[fen].to_string(),
                mate: f[mate].parse().expect("a mate length"),
                keys: f[keys].split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}

/// Solves `p` once with chessd (one thread, every key) and checks the answer; returns the
/// solve time.
fn chessd_solve(p: &Puzzle) -> Duration {
    let pos = Position::from_fen(&p.fen, FenMode::Strict).expect("a valid FEN");
    let solver = Solver::new(pos)
        .mate_in(p.mate)
        .threads(1)
        .find_all_keys(true);
    let start = Instant::now();
    let solution = solver.solve().expect("solved without limits");
    let elapsed = start.elapsed();
    assert_eq!(solution.mate, Some(p.mate), "mate length of {}", p.id);
    let keys: BTreeSet<String> = solution.keys.iter().map(|&mv| pos.uci(mv)).collect();
    assert_eq!(keys, p.keys, "keys of {}", p.id);
    assert_eq!(solution.unique, p.keys.len() == 1, "uniqueness of {}", p.id);
    elapsed
}

/// A Stockfish process speaking UCI, one thread.
struct Stockfish {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
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
        let mut sf = Stockfish {
            child,
            stdin,
            stdout,
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
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("Stockfish output");
        assert!(n > 0, "Stockfish closed its output");
        line.trim_end().to_string()
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

    /// Solves `p` once with `go mate N` and checks the answer; returns the time from `go` to
    /// `bestmove`.
    fn solve(&mut self, p: &Puzzle) -> Duration {
        self.send("ucinewgame");
        self.send(&format!("position fen {}", p.fen));
        self.sync();
        let start = Instant::now();
        self.send(&format!("go mate {}", p.mate));
        let mut last_mate = None;
        let best = loop {
            let line = self.read_line();
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
        let elapsed = start.elapsed();
        let m = last_mate.unwrap_or_else(|| panic!("Stockfish gave no mate score for {}", p.id));
        assert!(
            m >= 1 && m as u32 <= p.mate,
            "Stockfish reported mate {m} for {} (mate in {})",
            p.id,
            p.mate
        );
        assert!(
            p.keys.contains(&best),
            "Stockfish's move {best} for {} is not a key {:?}",
            p.id,
            p.keys
        );
        elapsed
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

fn main() {
    let runs: usize = std::env::var("CHESSD_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&r| r > 0)
        .unwrap_or(5);
    let verbose = std::env::var("CHESSD_BENCH_VERBOSE").is_ok_and(|v| v != "0");
    let program = std::env::var("STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    let puzzles = load_puzzles();
    assert_eq!(puzzles.len(), 50, "the shared sample has 50 puzzles");

    // Correctness first: every answer checked before any timing.
    for p in &puzzles {
        chessd_solve(p);
    }
    let mut stockfish = Stockfish::start(&program);
    match &mut stockfish {
        Some(sf) => {
            for p in &puzzles {
                sf.solve(p);
            }
        }
        None => println!("{program} cannot be started: timing chessd alone"),
    }

    let mut ours: Vec<Vec<Duration>> = vec![Vec::new(); puzzles.len()];
    let mut theirs: Vec<Vec<Duration>> = vec![Vec::new(); puzzles.len()];
    for (i, p) in puzzles.iter().enumerate() {
        for _ in 0..runs {
            ours[i].push(chessd_solve(p));
        }
        if let Some(sf) = &mut stockfish {
            for _ in 0..runs {
                theirs[i].push(sf.solve(p));
            }
        }
    }

    println!(
        "mate solver benchmark: {} puzzles, {runs} runs each, one thread; per puzzle the \
         median run, per group the median puzzle",
        puzzles.len()
    );
    println!("chessd: shortest mate proven + all keys (uniqueness); Stockfish 'go mate N'");
    if verbose {
        println!();
        println!(
            "{:<8} {:>4} {:>12} {:>12}",
            "puzzle", "mate", "chessd ms", "stockfish ms"
        );
        for (i, p) in puzzles.iter().enumerate() {
            println!(
                "{:<8} {:>4} {:>12.3} {:>12.3}",
                p.id,
                p.mate,
                ms(median(ours[i].clone())),
                ms(median(theirs[i].clone()))
            );
        }
    }
    println!();
    println!(
        "{:<10} {:<10} {:>8} {:>12} {:>12} {:>12}",
        "group", "engine", "puzzles", "median ms", "mean ms", "max ms"
    );
    for mate in [2, 3] {
        let idx: Vec<usize> = (0..puzzles.len())
            .filter(|&i| puzzles[i].mate == mate)
            .collect();
        let mut medians = Vec::new();
        for (engine, times) in [("chessd", &ours), ("stockfish", &theirs)] {
            let per: Vec<Duration> = idx
                .iter()
                .filter(|&&i| !times[i].is_empty())
                .map(|&i| median(times[i].clone()))
                .collect();
            if per.is_empty() {
                continue;
            }
            let mean = per.iter().sum::<Duration>() / per.len() as u32;
            let max = per.iter().max().copied().unwrap_or_default();
            let med = median(per.clone());
            medians.push(med);
            println!(
                "{:<10} {:<10} {:>8} {:>12.3} {:>12.3} {:>12.3}",
                format!("mate in {mate}"),
                engine,
                per.len(),
                ms(med),
                ms(mean),
                ms(max)
            );
        }
        if let [ours, theirs] = medians[..] {
            println!(
                "{:<10} {:<10} {:>8} {:>12} (stockfish median / chessd median; >= 1 meets the target)",
                "",
                "ratio",
                "",
                format!("{:.2}", theirs.as_secs_f64() / ours.as_secs_f64().max(1e-9)),
            );
        }
    }
}
