//! `chessd worker`: a conversation in the Grand Chess Tree worker protocol with the real
//! binary, every answer line checked. Expected counts come from
//! `tests/data/perft/perft_gct_stats.csv` (and the start position's hash from the protocol
//! text's example), never from our own output.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, ExitStatus, Stdio},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    time::{Duration, Instant},
};

use shakmaty::{fen::Fen, zobrist::Zobrist64, CastlingMode, Chess, EnPassantMode, Position as _};

use crate::common::gct::{gct_row, GctRow};

/// Time allowed for any one answer line (the tasks here take milliseconds).
const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// The start position's hash in the protocol text's example (`hash:5060803636482931868`).
const START_HASH: u64 = 5060803636482931868;

/// A running `chessd worker` and its output lines.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Worker {
    fn start(args: &[&str]) -> Worker {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessd"))
            .arg("worker")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("chessd worker starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Worker {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn line(&self) -> String {
        self.lines
            .recv_timeout(LINE_TIMEOUT)
            .unwrap_or_else(|e| panic!("no answer line: {e:?}"))
    }

    fn expect(&self, expected: &str) {
        assert_eq!(self.line(), expected);
    }

    /// Asserts that nothing more is written for a moment.
    fn expect_silence(&self, wait: Duration) {
        match self.lines.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => {}
            other => panic!("unexpected output: {other:?}"),
        }
    }

    /// Waits for the process to exit (up to `limit`).
    fn exit_status(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the worker did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first four FEN fields (what the `fen:` line shows).
fn four_fields(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// The Polyglot key of a FEN, from shakmaty (an independent implementation).
fn polyglot(fen: &str) -> u64 {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let key: Zobrist64 = pos.zobrist_hash(EnPassantMode::PseudoLegal);
    key.0
}

/// Sends `begin:<depth>:<fen><suffix>` and checks every line of the answer against `row`,
/// through `done`.
fn check_task(w: &mut Worker, row: &GctRow, fen: &str, classes: bool) {
    let suffix = if classes { ":classes" } else { "" };
    w.send(&format!("begin:{}:{fen}{suffix}", row.depth));
    w.expect("processing");
    w.expect(&format!("fen:{}", four_fields(fen)));
    w.expect(&format!("hash:{}", polyglot(fen)));
    let nps = w.line();
    let value = nps.strip_prefix("nps:").unwrap_or_else(|| panic!("{nps}"));
    value.parse::<u64>().unwrap_or_else(|_| panic!("{nps}"));
    for (name, count) in row.protocol_counts() {
        w.expect(&format!("{name}:{count}"));
    }
    if classes {
        for (name, count) in row.class_counts() {
            w.expect(&format!("{name}:{count}"));
        }
    }
    w.expect("done");
}

#[test]
fn a_conversation_gets_every_line_right() {
    let mut w = Worker::start(&["--hash", "8"]);
    w.expect("ready");

    // The start position: the hash is the protocol text's own example value.
    let start = gct_row("start", 4);
    assert_eq!(polyglot(&start.fen), START_HASH);
    check_task(&mut w, &start, &start.fen, false);
    // Nothing follows `done` (the worker does not say `ready` again).
    w.expect_silence(Duration::from_millis(200));

    // Kiwipete, with the eight classes of the extension; and from a four-field FEN.
    check_task(
        &mut w,
        &gct_row("kiwipete", 4),
        &gct_row("kiwipete", 4).fen,
        true,
    );
    let pos6 = gct_row("cpw-pos6", 3);
    check_task(&mut w, &pos6, &four_fields(&pos6.fen), false);
    // Depth 0 and 1.
    check_task(
        &mut w,
        &gct_row("kiwipete", 0),
        &gct_row("kiwipete", 0).fen,
        false,
    );
    check_task(
        &mut w,
        &gct_row("cpw-pos6", 1),
        &gct_row("cpw-pos6", 1).fen,
        true,
    );

    // Bad commands: one error line each, and the worker stays ready.
    for bad in [
        "hello",
        "begin",
        "begin:x:8/8/8/8/8/8/8/K6k w - -",
        "begin:3:not a fen",
        "begin:3:8/8/8/8/8/8/8/8 w - -",
        "begin:99:8/8/8/8/8/8/8/K6k w - -",
        "begin:3:8/8/8/8/8/8/8/K6k w - -:colour",
    ] {
        w.send(bad);
        let line = w.line();
        assert!(line.starts_with("error: "), "{bad}: {line}");
    }
    // Blank lines are not commands.
    w.send("");
    w.expect_silence(Duration::from_millis(100));
    check_task(
        &mut w,
        &gct_row("start", 3),
        &gct_row("start", 3).fen,
        false,
    );

    // `reset` clears the table and answers `ready`; the counts stay right after it.
    w.send("reset");
    w.expect("ready");
    check_task(
        &mut w,
        &gct_row("kiwipete", 3),
        &gct_row("kiwipete", 3).fen,
        true,
    );

    w.send("quit");
    assert!(w.exit_status(Duration::from_secs(5)).success());
}

#[test]
fn a_running_task_refuses_another_and_reset_abandons_it() {
    let mut w = Worker::start(&["--hash", "8"]);
    w.expect("ready");
    // Start position depth 9: hours of work, so it is still running below.
    let start = gct_row("start", 9);
    w.send(&format!("begin:9:{}", start.fen));
    w.expect("processing");
    w.send(&format!("begin:1:{}", start.fen));
    assert!(w.line().starts_with("error: busy"));
    let sent = Instant::now();
    w.send("reset");
    // No result lines for the abandoned task: the next line is `ready`, soon.
    w.expect("ready");
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "{:?}",
        sent.elapsed()
    );
    w.expect_silence(Duration::from_millis(200));
    check_task(&mut w, &gct_row("start", 3), &start.fen, false);
    w.send("quit");
    assert!(w.exit_status(Duration::from_secs(5)).success());
}

#[test]
fn quit_while_processing_and_end_of_input_exit_with_success() {
    let start = gct_row("start", 9);
    let mut w = Worker::start(&[]);
    w.expect("ready");
    w.send(&format!("begin:9:{}", start.fen));
    w.expect("processing");
    w.send("quit");
    assert!(w.exit_status(Duration::from_secs(2)).success());

    let mut w = Worker::start(&["--hash", "0", "--threads", "2"]);
    w.expect("ready");
    check_task(
        &mut w,
        &gct_row("cpw-pos6", 3),
        &gct_row("cpw-pos6", 3).fen,
        true,
    );
    w.stdin = None; // closes the worker's input
    assert!(w.exit_status(Duration::from_secs(2)).success());
}
