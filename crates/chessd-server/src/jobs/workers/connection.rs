//! One open Grand Chess Tree worker: its lines in and out, waiting for `ready`, running one
//! task (`begin` … `done`) and abandoning it with `reset`.

use std::time::{Duration, Instant};

use tokio::{sync::mpsc, task::JoinHandle};

use super::{plan::Stop, POLL};
use crate::{
    config::Endpoint,
    transport::{ChildGuard, LineWriter, Transport},
};
use chessd_protocol::gct::{Reply, ResultCollector, TaskResult};

/// How long a worker may take to answer `reset` with `ready` (clearing a large table).
const RESET_TIMEOUT: Duration = Duration::from_secs(30);

/// The least time a freshly started worker gets to say `ready` (the endpoint's connect
/// timeout applies when longer).
const MIN_STARTUP_TIMEOUT: Duration = Duration::from_secs(5);

/// Lines buffered from a worker before its reader waits.
const LINE_BUFFER: usize = 64;

/// An open worker: lines to it, lines from it (read by a task of their own, so that waiting
/// for a line can be given up without losing part of one).
pub(super) struct Connection {
    pub(super) writer: LineWriter,
    lines: mpsc::Receiver<String>,
    reader: JoinHandle<()>,
    pub(super) child: Option<ChildGuard>,
    /// A `reset` was sent and its `ready` not yet read.
    needs_ready: bool,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// What waiting for a line gave.
enum Next {
    Line(String),
    Closed,
    Cancelled,
    TimedOut,
}

/// How a task attempt ended, short of a result.
pub(super) enum TaskError {
    /// The run was cancelled (the worker got `reset`).
    Cancelled,
    /// The worker refused the task (`error: …`) or cannot serve it.
    Rejected(String),
    /// The worker died, closed the connection or broke the protocol.
    Lost(String),
}

impl Connection {
    /// Starts or connects to `endpoint` and waits for the worker's `ready`.
    pub(super) async fn open(endpoint: &Endpoint, timeout: Duration) -> Result<Connection, String> {
        let transport = Transport::open(endpoint, "worker", timeout)
            .await
            .map_err(|e| e.to_string())?;
        let (tx, lines) = mpsc::channel(LINE_BUFFER);
        let mut reader = transport.reader;
        let reader = tokio::spawn(async move {
            while let Ok(Some(line)) = reader.next_line().await {
                if tx.send(line).await.is_err() {
                    break;
                }
            }
        });
        let mut conn = Connection {
            writer: transport.writer,
            lines,
            reader,
            child: transport.child,
            needs_ready: true,
        };
        let startup = timeout.max(MIN_STARTUP_TIMEOUT);
        match conn.wait_ready(startup, None).await {
            Ok(()) => Ok(conn),
            Err(TaskError::Lost(why) | TaskError::Rejected(why)) => Err(why),
            Err(TaskError::Cancelled) => Err("cancelled".to_string()),
        }
    }

    /// The next line, waiting at most until `deadline` and giving up when `cancel` is set.
    async fn next_line(&mut self, cancel: Option<&Stop>, deadline: Option<Instant>) -> Next {
        loop {
            if cancel.is_some_and(Stop::is_set) {
                return Next::Cancelled;
            }
            let wait = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left.min(POLL),
                    _ => return Next::TimedOut,
                },
                None => POLL,
            };
            match tokio::time::timeout(wait, self.lines.recv()).await {
                Ok(Some(line)) => return Next::Line(line),
                Ok(None) => return Next::Closed,
                Err(_) => continue,
            }
        }
    }

    /// Reads until `ready` when one is owed (after start or `reset`); other lines (what an
    /// abandoned task still printed) are skipped.
    async fn wait_ready(
        &mut self,
        limit: Duration,
        cancel: Option<&Stop>,
    ) -> Result<(), TaskError> {
        if !self.needs_ready {
            return Ok(());
        }
        let deadline = Instant::now() + limit;
        loop {
            match self.next_line(cancel, Some(deadline)).await {
                Next::Line(line) if line.trim() == "ready" => {
                    self.needs_ready = false;
                    return Ok(());
                }
                Next::Line(_) => {}
                Next::Closed => {
                    return Err(TaskError::Lost(
                        "closed the connection before saying ready".into(),
                    ))
                }
                Next::Cancelled => return Err(TaskError::Cancelled),
                Next::TimedOut => {
                    return Err(TaskError::Lost(format!(
                        "did not say ready within {limit:?}"
                    )))
                }
            }
        }
    }

    /// Abandons the running task: `reset`, whose `ready` is read before the next task.
    async fn abandon(&mut self) {
        self.needs_ready = true;
        // A failed write shows up as a lost connection on the next use.
        let _ = self.writer.send("reset").await;
    }

    /// Runs one task: sends `line` (a `begin`), reads `processing`, the result lines and
    /// `done`.
    pub(super) async fn run_task(
        &mut self,
        line: &str,
        cancel: &Stop,
    ) -> Result<TaskResult, TaskError> {
        self.wait_ready(RESET_TIMEOUT, Some(cancel)).await?;
        if cancel.is_set() {
            return Err(TaskError::Cancelled);
        }
        self.writer
            .send(line)
            .await
            .map_err(|e| TaskError::Lost(format!("cannot send the task: {e}")))?;
        let mut collector = ResultCollector::default();
        let mut processing = false;
        loop {
            let line = match self.next_line(Some(cancel), None).await {
                Next::Line(line) => line,
                Next::Closed | Next::TimedOut => {
                    return Err(TaskError::Lost("closed the connection".into()))
                }
                Next::Cancelled => {
                    self.abandon().await;
                    return Err(TaskError::Cancelled);
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let reply = Reply::parse(&line).map_err(|e| TaskError::Lost(e.0))?;
            match reply {
                Reply::Processing if !processing => processing = true,
                Reply::Error(why) => return Err(TaskError::Rejected(why)),
                Reply::Field(field) if processing => {
                    collector.push(field).map_err(|e| TaskError::Lost(e.0))?
                }
                Reply::Done if processing => {
                    return collector.finish().map_err(|e| TaskError::Lost(e.0))
                }
                other => {
                    return Err(TaskError::Lost(format!(
                        "unexpected line '{other}' {} processing",
                        if processing { "while" } else { "before" }
                    )))
                }
            }
        }
    }
}
