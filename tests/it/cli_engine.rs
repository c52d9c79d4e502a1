//! Black-box tests of `chessd engine`, the built-in UCI engine: the real binary spoken to over
//! pipes. Handshake, `isready` and `stop` answered while searching, every `go` limit giving a
//! legal move (checked with the core), a Lichess mate in two found within the default time of
//! a bare `go` (one second), garbage ignored, `bestmove 0000` without a legal move, `quit`.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use chessd_core::{solver::Solver, FenMode, Position};

/// A running `chessd engine` with its output lines arriving on a channel.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessd"))
            .args(["engine", "--hash", "8"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chessd engine starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the engine's input (end of file).
    fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Lines up to and including the first one starting with `prefix`; panics after `timeout`.
    fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no '{prefix}' within {timeout:?} ({e:?}); got {seen:?}"),
            }
        }
    }

    /// Nothing arrives for `wait`.
    fn silent_for(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(line);
        }
        seen
    }

    fn handshake(&mut self) -> Vec<String> {
        self.send("uci");
        let lines = self.until("uciok", Duration::from_secs(5));
        self.send("isready");
        self.until("readyok", Duration::from_secs(5));
        lines
    }

    /// Waits for the process to end by itself.
    fn exits_within(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line, checked to be legal in `pos`.
fn legal_best(pos: &Position, lines: &[String]) -> String {
    let last = lines.last().unwrap();
    let mv = last.split_whitespace().nth(1).unwrap().to_string();
    assert!(
        pos.parse_uci(&mv).is_ok(),
        "{last} is not legal in {}",
        pos.fen()
    );
    mv
}

/// The position after `moves` from the start.
fn after(moves: &str) -> Position {
    let mut pos = Position::startpos();
    for m in moves.split_whitespace() {
        pos.play_unchecked(pos.parse_uci(m).unwrap());
    }
    pos
}

#[test]
fn handshake_declares_the_engine_and_its_options() {
    let mut e = Engine::start();
    let lines = e.handshake();
    assert!(lines[0].starts_with("id name chessd "), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    assert!(lines
        .iter()
        .any(|l| l == "option name Hash type spin default 16 min 1 max 4096"));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("option name Move Overhead type spin")));
    e.send("setoption name Hash value 32");
    e.send("setoption name Move Overhead value 50");
    e.send("isready");
    e.until("readyok", Duration::from_secs(5));
    e.send("quit");
    assert!(e.exits_within(Duration::from_secs(2)));
}

#[test]
fn isready_and_stop_are_answered_while_searching() {
    let mut e = Engine::start();
    e.handshake();
    let moves = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6";
    e.send(&format!("position startpos moves {moves}"));
    e.send("go infinite");
    thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.send("isready");
    let lines = e.until("readyok", Duration::from_secs(5));
    let answered = asked.elapsed();
    assert!(
        answered < Duration::from_secs(1),
        "readyok after {answered:?}"
    );
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    // An infinite search does not end by itself.
    let more = e.silent_for(Duration::from_millis(200));
    assert!(more.iter().all(|l| !l.starts_with("bestmove")), "{more:?}");

    let asked = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", Duration::from_secs(5));
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "{:?}",
        asked.elapsed()
    );
    legal_best(&after(moves), &lines);
}

#[test]
fn go_movetime_and_depth_give_legal_moves() {
    let mut e = Engine::start();
    e.handshake();
    let moves = "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4";
    e.send("ucinewgame");
    e.send(&format!("position startpos moves {moves}"));
    let asked = Instant::now();
    e.send("go movetime 200");
    let lines = e.until("bestmove", Duration::from_secs(5));
    let took = asked.elapsed();
    assert!(
        took >= Duration::from_millis(150) && took < Duration::from_secs(2),
        "{took:?}"
    );
    legal_best(&after(moves), &lines);
    assert!(lines.iter().any(|l| l.starts_with("info depth")));

    e.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    e.send("go depth 3");
    let lines = e.until("bestmove", Duration::from_secs(10));
    let depths: Vec<u32> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    assert_eq!(depths, [1, 2, 3], "{lines:?}");
    let kiwipete = Position::from_fen(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        FenMode::Strict,
    )
    .unwrap();
    legal_best(&kiwipete, &lines);

    // Clock limits, nodes and searchmoves.
    e.send("position startpos");
    e.send("go wtime 2000 btime 2000 winc 20 binc 20");
    let lines = e.until("bestmove", Duration::from_secs(3));
    legal_best(&Position::startpos(), &lines);
    e.send("go nodes 5000 searchmoves a2a3 b2b3");
    let lines = e.until("bestmove", Duration::from_secs(3));
    let mv = legal_best(&Position::startpos(), &lines);
    assert!(mv == "a2a3" || mv == "b2b3", "{mv}");
}

#[test]
fn mate_in_two_is_found_with_a_bare_go() {
    // Lichess puzzle 09Ff3 of the shared sample: White mates in two.
    let fen = "3k3r/p1R4P/4p3/4P3/1b3P2/4p3/P2nq3/K1R5 w - - 3 41";
    let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
    let keys = Solver::new(pos)
        .mate_in(2)
        .find_all_keys(true)
        .solve()
        .unwrap()
        .keys;
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position fen {fen}"));
    let asked = Instant::now();
    e.send("go");
    // A bare go thinks for at most one second (less once the mate is certain).
    let lines = e.until("bestmove", Duration::from_secs(3));
    assert!(
        asked.elapsed() < Duration::from_millis(1500),
        "{:?}",
        asked.elapsed()
    );
    let mv = legal_best(&pos, &lines);
    assert!(
        keys.iter().any(|&k| pos.uci(k) == mv),
        "{mv} is not a key: {keys:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains(" score mate 2 ")),
        "{lines:?}"
    );
    // `go mate 2` stops as soon as it has the mate.
    e.send("go mate 2");
    let lines = e.until("bestmove", Duration::from_secs(3));
    assert_eq!(legal_best(&pos, &lines), mv);
}

#[test]
fn garbage_is_ignored_and_no_move_is_0000() {
    let mut e = Engine::start();
    e.handshake();
    for junk in [
        "hello engine",
        "",
        "   ",
        "position fen this is not a fen",
        "position startpos moves e2e4 e7e5 z9z9 g1f3",
        "setoption name No Such Option value 3",
        "setoption name Hash value -5",
        "go depth banana",
        "\u{1F600} \u{0}",
    ] {
        e.send(junk);
    }
    // `go depth banana` is a go without limits: its move arrives within the default second.
    let lines = e.until("bestmove", Duration::from_secs(3));
    // The position is the one before the bad move (e4 e5), the bad FEN was ignored.
    legal_best(&after("e2e4 e7e5"), &lines);
    e.send("isready");
    e.until("readyok", Duration::from_secs(2));

    // Stalemate: no legal move.
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go depth 5");
    let lines = e.until("bestmove", Duration::from_secs(3));
    assert_eq!(lines.last().unwrap(), "bestmove 0000");
}

#[test]
fn quit_ends_a_running_search_and_end_of_input_finishes_one() {
    let mut e = Engine::start();
    e.handshake();
    e.send("go infinite");
    thread::sleep(Duration::from_millis(100));
    e.send("quit");
    assert!(e.exits_within(Duration::from_secs(2)));

    // Input closed after a bounded go: the move is still printed, then the engine exits.
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    e.send("go depth 4");
    e.close_input();
    let lines = e.until("bestmove", Duration::from_secs(5));
    legal_best(&after("e2e4"), &lines);
    assert!(e.exits_within(Duration::from_secs(2)));
}
