//! What the two mate benches (`solver.rs`, the exact mode, and `solver_find.rs`, the find
//! mode) share: a Stockfish process asked for `go mate N` with a cap, the CSV reader of the
//! position files, and the medians of their reports. Each bench includes
//! it with `#[path = "support/mates.rs"] mod mates;` (they live in different crates).

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    time::{Duration, Instant},
};

/// What one solve gave: the time and, when solved within the cap, the mate length.
#[derive(Clone, Copy)]
pub(crate) struct Outcome {
    /// From the start of the search to its answer (the cap at most).
    pub(crate) time: Duration,
    /// The mate found within the asked length, if any.
    pub(crate) mate: Option<u32>,
}

/// The rows of the CSV file at `path` as maps from column to value; `None` when it cannot be
/// read. Fields hold no commas (the files are written so).
pub(crate) fn read_csv(path: &str) -> Option<Vec<HashMap<String, String>>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header line")
        .split(',')
        .map(str::to_string)
        .collect();
    Some(
        lines
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                header
                    .iter()
                    .cloned()
                    .zip(line.split(',').map(str::to_string))
                    .collect()
            })
            .collect(),
    )
}

/// The median of `v` (zero when empty).
pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    match v.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

/// `d` in milliseconds.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A Stockfish process speaking UCI, one thread; its output read on a thread of its own so
/// that a search can be stopped at the cap.
pub(crate) struct Stockfish {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Stockfish {
    pub(crate) fn start(program: &str) -> Option<Stockfish> {
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

    /// Runs `go mate N` on `fen` (stopped at `cap`); returns the time from `go` to
    /// `bestmove` with the mate it reported within N, if any, and its best move.
    pub(crate) fn go_mate(&mut self, fen: &str, n: u32, cap: Duration) -> (Outcome, String) {
        self.send("ucinewgame");
        self.send(&format!("position fen {fen}"));
        self.sync();
        let start = Instant::now();
        self.send(&format!("go mate {n}"));
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
            .filter(|&m| m >= 1 && m as u32 <= n)
            .map(|m| m as u32);
        (Outcome { time, mate }, best)
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}
