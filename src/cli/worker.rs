//! `chessd worker [--threads N] [--hash MiB]`: a Grand Chess Tree worker on stdin and stdout.
//!
//! It speaks the protocol of [`chessd_protocol::gct`]: `ready` at start; `begin:<depth>:<fen>`
//! is answered by `processing`, then the result lines and `done`; `reset` clears the hash
//! table (abandoning a running task) and answers `ready`; `quit` (or the end of the input)
//! ends it with exit code 0. A command that cannot be carried out gets `error: <why>` and
//! changes nothing. Commands are read while a task runs, so `reset` and `quit` act at once.
//!
//! Over TCP: `socat TCP-LISTEN:9020,reuseaddr,fork EXEC:"chessd worker"`.
//!
//! With `--server URL` it is instead a remote worker of a cluster's shared perft queue
//! (`work_client.rs`): it takes tasks from the node's work API until interrupted.

use std::{
    io::{BufRead, Write},
    process::ExitCode,
    sync::{
        atomic::{AtomicBool, Ordering::Relaxed},
        mpsc, Arc,
    },
    thread::JoinHandle,
};

use chessd_core::perft::{Perft, StatsHash};
use chessd_protocol::gct::{Begin, Command, Reply, TaskResult};
use clap::Args;

/// Longest command line read, in bytes; the rest of a longer line is dropped.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// Arguments of `chessd worker`.
#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// Threads per task (0: one per core).
    #[arg(long, short = 't', value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Hash table size in MiB (0: no hashing), kept from task to task until `reset`.
    #[arg(long, value_name = "MiB", default_value_t = 64)]
    pub hash: usize,
    /// Take tasks from a cluster's shared perft queue through this node's work API
    /// (`http://HOST:PORT`) instead of speaking the protocol on stdin and stdout.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The worker token the server knows (`auth.worker_tokens`), with `--server`.
    #[arg(
        long,
        env = "CHESSD_WORKER_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// This worker's name, as results record it, with `--server` (default: `worker-<pid>`).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Tasks counted at once, one thread each, with `--server`.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub tasks: usize,
}

/// What the main loop waits for.
enum Event {
    /// A line of input.
    Line(String),
    /// The input ended.
    Eof,
    /// Task `id` finished (`None`: it was abandoned).
    Finished(u64, Option<Box<TaskResult>>),
}

/// The task being computed.
struct Running {
    id: u64,
    classes: bool,
    cancel: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Running {
    /// Stops the task and waits for its thread (the perft stops within milliseconds).
    fn abandon(self) {
        self.cancel.store(true, Relaxed);
        let _ = self.thread.join();
    }
}

/// Runs `chessd worker`.
pub(crate) fn run(args: &WorkerArgs) -> ExitCode {
    if let Some(server) = &args.server {
        let Some(token) = args.token.clone() else {
            return super::usage_error("worker", "--server needs --token (or CHESSD_WORKER_TOKEN)");
        };
        return super::work_client::run(super::work_client::ServerWorker {
            server: server.clone(),
            token,
            name: args
                .name
                .clone()
                .unwrap_or_else(|| format!("worker-{}", std::process::id())),
            tasks: args.tasks,
            hash_mb: args.hash,
        });
    }
    let (events, inbox) = mpsc::channel();
    let input = events.clone();
    std::thread::spawn(move || read_input(&input));
    let table = (args.hash > 0).then(|| Arc::new(StatsHash::new(args.hash)));
    let mut running: Option<Running> = None;
    let mut next_id = 0u64;
    if send(&[Reply::Ready]).is_err() {
        return ExitCode::SUCCESS;
    }
    loop {
        let replies = match inbox.recv() {
            Err(_) | Ok(Event::Eof) => break,
            Ok(Event::Finished(id, result)) => match running.take() {
                Some(r) if r.id == id => {
                    let _ = r.thread.join();
                    match result {
                        Some(result) => {
                            let mut replies = result.replies(r.classes);
                            replies.push(Reply::Done);
                            replies
                        }
                        None => Vec::new(),
                    }
                }
                // A task abandoned by `reset` (its thread was joined then).
                other => {
                    running = other;
                    Vec::new()
                }
            },
            Ok(Event::Line(line)) => match Command::parse(&line) {
                Ok(None) => Vec::new(),
                Err(e) => vec![Reply::Error(e.0)],
                Ok(Some(Command::Quit)) => break,
                Ok(Some(Command::Reset)) => {
                    if let Some(r) = running.take() {
                        r.abandon();
                    }
                    if let Some(t) = &table {
                        t.clear();
                    }
                    vec![Reply::Ready]
                }
                Ok(Some(Command::Begin(_))) if running.is_some() => vec![Reply::Error(
                    "busy: a task is running (reset abandons it)".to_string(),
                )],
                Ok(Some(Command::Begin(begin))) => {
                    next_id += 1;
                    running = Some(start(
                        next_id,
                        begin,
                        args.threads,
                        table.clone(),
                        events.clone(),
                    ));
                    vec![Reply::Processing]
                }
            },
        };
        if send(&replies).is_err() {
            break;
        }
    }
    if let Some(r) = running {
        r.cancel.store(true, Relaxed);
    }
    ExitCode::SUCCESS
}

/// Starts computing `begin` on a thread of its own; it reports with [`Event::Finished`].
fn start(
    id: u64,
    begin: Begin,
    threads: usize,
    table: Option<Arc<StatsHash>>,
    events: mpsc::Sender<Event>,
) -> Running {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let classes = begin.classes;
    let thread = std::thread::spawn(move || {
        let mut perft = Perft::new(begin.pos)
            .depth(begin.depth)
            .threads(threads)
            .stats(true)
            .cancel(&flag);
        if let Some(t) = &table {
            perft = perft.stats_table(t);
        }
        let result = perft
            .run(|_| {})
            .ok()
            .map(|r| Box::new(TaskResult::computed(&begin.pos, r.stats, r.elapsed)));
        // The main loop may be gone (quit); nothing to do then.
        let _ = events.send(Event::Finished(id, result));
    });
    Running {
        id,
        classes,
        cancel,
        thread,
    }
}

/// Writes whole lines to stdout and flushes; an error means the peer is gone.
fn send(replies: &[Reply]) -> std::io::Result<()> {
    if replies.is_empty() {
        return Ok(());
    }
    let mut text = String::new();
    for reply in replies {
        text.push_str(&reply.to_string());
        text.push('\n');
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Reads stdin line by line (bytes that are not UTF-8 replaced, long lines cut) and forwards
/// each line, then [`Event::Eof`].
fn read_input(events: &mpsc::Sender<Event>) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match read_line(&mut input, &mut buf) {
            Ok(true) => {
                let line = String::from_utf8_lossy(&buf).into_owned();
                if events.send(Event::Line(line)).is_err() {
                    return;
                }
            }
            Ok(false) | Err(_) => break,
        }
    }
    let _ = events.send(Event::Eof);
}

/// Reads one line into `buf` (without its line ending), keeping at most [`MAX_LINE_BYTES`];
/// `Ok(false)` at the end of the input.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any);
        }
        any = true;
        let (used, complete) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..used.min(room)]);
        input.consume(used);
        if complete {
            while matches!(buf.last(), Some(b'\n' | b'\r')) {
                buf.pop();
            }
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_cut_and_ended() {
        let long = "x".repeat(MAX_LINE_BYTES + 10);
        let text = format!("reset\r\n{long}\nquit");
        let mut input = std::io::BufReader::with_capacity(7, text.as_bytes());
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        while read_line(&mut input, &mut buf).unwrap_or(false) {
            lines.push(String::from_utf8_lossy(&buf).into_owned());
            buf.clear();
        }
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "reset");
        assert_eq!(lines[1].len(), MAX_LINE_BYTES);
        assert_eq!(lines[2], "quit");
    }
}
