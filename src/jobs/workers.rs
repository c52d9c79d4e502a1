//! A pool of named Grand Chess Tree workers (from `[gct_workers]` in the configuration) that
//! perft jobs hand tasks to: each worker is a local process (`builtin = true` runs
//! `chessd worker`, or a `command`) or a TCP peer (`tcp = "host:port"`, e.g.
//! `socat TCP-LISTEN:9020,reuseaddr,fork EXEC:"chessd worker"`), spoken to with the protocol of
//! [`super::gct`].
//!
//! [`WorkerPool::run`] shares a list of tasks between the workers, one task per worker at a
//! time, and hands every result to a callback. A worker is started (or connected to) when a
//! run first needs it and kept between runs, hash table warm. When a worker dies, closes the
//! connection or breaks the protocol during a task, the task goes back to the queue (so the
//! total stays exact) and the worker is restarted or reconnected; a worker that fails
//! [`MAX_CONSECUTIVE_FAILURES`] times in a row is given up for the run, and when every worker
//! is given up with tasks left the run fails. A task that fails on too many attempts fails the
//! run too (it would otherwise kill worker after worker).
//!
//! Cancelling stops handing out tasks at once; busy workers get `reset` (abandoning their
//! task) and the run returns without waiting for them: the `ready` that answers the reset is
//! awaited when the worker is next used.
//!
//! Results are asked for with the `:classes` extension, so that the eight check and mate
//! classes come back exactly; a worker that does not report them (not a chessd worker) fails
//! the run with a clear error.
//!
//! The pool does its I/O on a small Tokio runtime of its own (one thread, started with the first
//! run), so that worker connections outlive the callers: [`WorkerPool::run`] can be awaited
//! from any async context and [`WorkerPool::run_blocking`] called from a plain thread (a job
//! pool thread).

use std::{
    collections::{BTreeMap, VecDeque},
    sync::{
        atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed},
        Arc, Mutex, OnceLock,
    },
    time::{Duration, Instant},
};

use chessd_core::{perft::PerftStats, FenMode, Position};
use serde::Serialize;
use tokio::{sync::mpsc, task::JoinHandle};

use super::gct::{result_fen, Begin, Command, Reply, ResultCollector, TaskResult, MAX_DEPTH};
use crate::{
    config::{Endpoint, EndpointConfig},
    transport::{ChildGuard, LineWriter, Transport},
};

/// Failures in a row (lost connections, failed restarts) after which a worker is given up for
/// the rest of a run.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// How long a worker may take to answer `reset` with `ready` (clearing a large table).
const RESET_TIMEOUT: Duration = Duration::from_secs(30);

/// The least time a freshly started worker gets to say `ready` (the endpoint's connect
/// timeout applies when longer).
const MIN_STARTUP_TIMEOUT: Duration = Duration::from_secs(5);

/// How often a waiting driver looks at the cancellation flag.
const POLL: Duration = Duration::from_millis(10);

/// Lines buffered from a worker before its reader waits.
const LINE_BUFFER: usize = 64;

/// A perft task for a worker: the position, the depth below it, and how many times the
/// position occurs in the job's split (the caller multiplies the result by it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerTask {
    /// The position (FEN).
    pub fen: String,
    /// Plies to count below it.
    pub depth: u32,
    /// How often the position occurs (not used by the pool; for the caller).
    pub occurrences: u64,
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WorkerPoolError {
    /// The pool has no workers.
    #[error("no Grand Chess Tree workers are configured")]
    NoWorkers,
    /// The cancellation flag was set before every task was done.
    #[error("the run was cancelled")]
    Cancelled,
    /// A task cannot be sent (bad FEN or depth); nothing was started.
    #[error("task {index} is invalid: {message}")]
    InvalidTask {
        /// The task's index.
        index: usize,
        /// Why.
        message: String,
    },
    /// A worker refused a task with an `error:` line, or answered without what the pool
    /// needs.
    #[error("worker {worker} refused task {index}: {message}")]
    Rejected {
        /// The worker's name.
        worker: String,
        /// The task's index.
        index: usize,
        /// The worker's reason.
        message: String,
    },
    /// A task was lost with its worker too many times.
    #[error("task {index} failed {attempts} times (last: {last_error})")]
    TaskFailed {
        /// The task's index.
        index: usize,
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        last_error: String,
    },
    /// The pool's own runtime could not be started or stopped.
    #[error("the worker pool's runtime: {0}")]
    Runtime(String),
    /// Every worker failed and could not be restarted or reconnected; tasks were left.
    #[error("every Grand Chess Tree worker is gone with {left} tasks left: {reasons}")]
    AllWorkersGone {
        /// Tasks not done.
        left: usize,
        /// Each worker's last failure, `name: reason; …`.
        reasons: String,
    },
}

/// What a pool knows about one of its workers (for status pages and tests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct WorkerStatus {
    /// The configured name.
    pub name: String,
    /// `builtin`, `command`, `tcp`, or `invalid` (a configuration error).
    pub kind: &'static str,
    /// Whether a connection (or process) is open now.
    pub connected: bool,
    /// The process id of a local worker while it runs.
    pub pid: Option<u32>,
    /// Tasks completed.
    pub tasks_done: u64,
    /// Connections lost or refused, and failed starts.
    pub failures: u64,
    /// Connections made (starts and restarts).
    pub connects: u64,
    /// The last failure, if any.
    pub last_error: Option<String>,
}

/// The named workers perft jobs hand tasks to.
pub struct WorkerPool {
    slots: Arc<Vec<Slot>>,
    runtime: OnceLock<tokio::runtime::Runtime>,
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which is not allowed inside async code: let it go in the
        // background (the worker processes are killed when their connections drop).
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// When a run must stop: the caller's cancellation flag, the caller gave up on the run, or
/// the run failed.
#[derive(Clone)]
struct Stop {
    cancel: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
    failed: Arc<AtomicBool>,
}

impl Stop {
    fn is_set(&self) -> bool {
        self.cancel.load(Relaxed) || self.dropped.load(Relaxed) || self.failed.load(Relaxed)
    }
}

/// Sets [`Stop::dropped`] when the caller's side of a run ends early (its future dropped).
struct DropGuard(Arc<AtomicBool>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.store(true, Relaxed);
    }
}

/// A run in progress on the pool's runtime: results as they come, then the outcome.
struct Started {
    results: mpsc::UnboundedReceiver<(usize, PerftStats)>,
    outcome: tokio::sync::oneshot::Receiver<Result<(), WorkerPoolError>>,
    _guard: DropGuard,
}

impl std::fmt::Debug for WorkerPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPool")
            .field("workers", &self.names())
            .finish()
    }
}

/// One configured worker and its connection, if open.
struct Slot {
    name: String,
    endpoint: Result<Endpoint, String>,
    timeout: Duration,
    conn: tokio::sync::Mutex<Option<Connection>>,
    connected: AtomicBool,
    pid: AtomicU32,
    tasks_done: AtomicU64,
    failures: AtomicU64,
    connects: AtomicU64,
    last_error: Mutex<Option<String>>,
}

impl Slot {
    fn note_failure(&self, why: &str) {
        self.failures.fetch_add(1, Relaxed);
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(why.to_string());
        }
    }

    fn set_connection(&self, conn: &mut Option<Connection>, new: Option<Connection>) {
        self.connected.store(new.is_some(), Relaxed);
        self.pid.store(
            new.as_ref()
                .and_then(|c| c.child.as_ref())
                .and_then(ChildGuard::id)
                .unwrap_or(0),
            Relaxed,
        );
        *conn = new;
    }
}

/// An open worker: lines to it, lines from it (read by a task of their own, so that waiting
/// for a line can be given up without losing part of one).
struct Connection {
    writer: LineWriter,
    lines: mpsc::Receiver<String>,
    reader: JoinHandle<()>,
    child: Option<ChildGuard>,
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
enum TaskError {
    /// The run was cancelled (the worker got `reset`).
    Cancelled,
    /// The worker refused the task (`error: …`) or cannot serve it.
    Rejected(String),
    /// The worker died, closed the connection or broke the protocol.
    Lost(String),
}

impl Connection {
    /// Starts or connects to `endpoint` and waits for the worker's `ready`.
    async fn open(endpoint: &Endpoint, timeout: Duration) -> Result<Connection, String> {
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
    async fn run_task(&mut self, line: &str, cancel: &Stop) -> Result<TaskResult, TaskError> {
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

/// The tasks of one run and who has what.
struct Plan {
    /// The `begin` line of each task.
    lines: Vec<String>,
    /// The result FEN each task must report.
    fens: Vec<String>,
    max_attempts: u32,
    state: Mutex<PlanState>,
    /// Set with the error, so that busy workers stop at once.
    failed: Arc<AtomicBool>,
}

struct PlanState {
    pending: VecDeque<usize>,
    running: usize,
    done: usize,
    attempts: Vec<u32>,
    error: Option<WorkerPoolError>,
}

impl Plan {
    fn state(&self) -> std::sync::MutexGuard<'_, PlanState> {
        // The lock is never held across a panic; recover the data if it ever were.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stopped(&self, cancel: &Stop) -> bool {
        cancel.is_set() || self.state().error.is_some()
    }

    /// The next task to run, if any is waiting.
    fn claim(&self) -> Option<usize> {
        let mut s = self.state();
        if s.error.is_some() {
            return None;
        }
        let index = s.pending.pop_front()?;
        s.running += 1;
        Some(index)
    }

    /// Whether no task is waiting or running.
    fn idle(&self) -> bool {
        let s = self.state();
        s.pending.is_empty() && s.running == 0
    }

    fn complete(&self) {
        let mut s = self.state();
        s.running -= 1;
        s.done += 1;
    }

    /// Puts a task back (cancelled, or its worker could not take it).
    fn release(&self, index: usize) {
        let mut s = self.state();
        s.running -= 1;
        s.pending.push_front(index);
    }

    /// Puts a task back after its worker was lost, unless it has failed too often.
    fn requeue(&self, index: usize, why: &str) {
        let mut s = self.state();
        s.running -= 1;
        s.attempts[index] += 1;
        if s.attempts[index] >= self.max_attempts {
            let attempts = s.attempts[index];
            s.error.get_or_insert(WorkerPoolError::TaskFailed {
                index,
                attempts,
                last_error: why.to_string(),
            });
            self.failed.store(true, Relaxed);
        } else {
            s.pending.push_front(index);
        }
    }

    fn fail(&self, index: usize, error: WorkerPoolError) {
        let mut s = self.state();
        s.running -= 1;
        s.pending.push_front(index);
        s.error.get_or_insert(error);
        self.failed.store(true, Relaxed);
    }
}

impl WorkerPool {
    /// A pool of the configured workers (none is started yet). An entry that is not exactly
    /// one of builtin, command or tcp is kept and fails when used, with its configuration
    /// error.
    pub fn new(config: &BTreeMap<String, EndpointConfig>) -> WorkerPool {
        let slots = config
            .iter()
            .map(|(name, c)| Slot {
                name: name.clone(),
                endpoint: c.endpoint(),
                timeout: c.connect_timeout(),
                conn: tokio::sync::Mutex::new(None),
                connected: AtomicBool::new(false),
                pid: AtomicU32::new(0),
                tasks_done: AtomicU64::new(0),
                failures: AtomicU64::new(0),
                connects: AtomicU64::new(0),
                last_error: Mutex::new(None),
            })
            .collect();
        WorkerPool {
            slots: Arc::new(slots),
            runtime: OnceLock::new(),
        }
    }

    /// The workers' names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.name.clone()).collect()
    }

    /// Whether the pool has no workers.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// What the pool knows about each worker.
    pub fn status(&self) -> Vec<WorkerStatus> {
        self.slots
            .iter()
            .map(|s| WorkerStatus {
                name: s.name.clone(),
                kind: match &s.endpoint {
                    Ok(Endpoint::Builtin) => "builtin",
                    Ok(Endpoint::Command { .. }) => "command",
                    Ok(Endpoint::Tcp(_)) => "tcp",
                    Err(_) => "invalid",
                },
                connected: s.connected.load(Relaxed),
                pid: Some(s.pid.load(Relaxed)).filter(|&p| p != 0),
                tasks_done: s.tasks_done.load(Relaxed),
                failures: s.failures.load(Relaxed),
                connects: s.connects.load(Relaxed),
                last_error: s.last_error.lock().ok().and_then(|e| e.clone()),
            })
            .collect()
    }

    /// Runs every task on the workers and calls `on_done(index, stats)` for each finished
    /// task with its own statistics (not multiplied by its occurrences), in completion order,
    /// each task exactly once. Returns when all are done, or with the reason they were not:
    /// [`WorkerPoolError::Cancelled`] soon after `cancel` is set. Dropping the future
    /// abandons the run (busy workers get `reset`).
    pub async fn run(
        &self,
        tasks: Vec<WorkerTask>,
        cancel: Arc<AtomicBool>,
        mut on_done: impl FnMut(usize, PerftStats),
    ) -> Result<(), WorkerPoolError> {
        let mut started = match self.start(tasks, cancel)? {
            Some(started) => started,
            None => return Ok(()),
        };
        while let Some((index, stats)) = started.results.recv().await {
            on_done(index, stats);
        }
        started
            .outcome
            .await
            .unwrap_or_else(|_| Err(runtime_gone()))
    }

    /// [`WorkerPool::run`] for plain threads: blocks until the run ends. Must not be called
    /// from async code (it would block the executor; it panics there).
    pub fn run_blocking(
        &self,
        tasks: Vec<WorkerTask>,
        cancel: Arc<AtomicBool>,
        mut on_done: impl FnMut(usize, PerftStats),
    ) -> Result<(), WorkerPoolError> {
        let mut started = match self.start(tasks, cancel)? {
            Some(started) => started,
            None => return Ok(()),
        };
        while let Some((index, stats)) = started.results.blocking_recv() {
            on_done(index, stats);
        }
        started
            .outcome
            .blocking_recv()
            .unwrap_or_else(|_| Err(runtime_gone()))
    }

    /// Checks the tasks and starts the run on the pool's runtime (`None`: nothing to do).
    fn start(
        &self,
        tasks: Vec<WorkerTask>,
        cancel: Arc<AtomicBool>,
    ) -> Result<Option<Started>, WorkerPoolError> {
        if tasks.is_empty() {
            return Ok(None);
        }
        if self.slots.is_empty() {
            return Err(WorkerPoolError::NoWorkers);
        }
        let mut lines = Vec::with_capacity(tasks.len());
        let mut fens = Vec::with_capacity(tasks.len());
        for (index, task) in tasks.iter().enumerate() {
            let (line, fen) = begin_line(task)
                .map_err(|message| WorkerPoolError::InvalidTask { index, message })?;
            lines.push(line);
            fens.push(fen);
        }
        let failed = Arc::new(AtomicBool::new(false));
        let plan = Arc::new(Plan {
            failed: failed.clone(),
            lines,
            fens,
            max_attempts: (2 * self.slots.len() as u32).max(3),
            state: Mutex::new(PlanState {
                pending: (0..tasks.len()).collect(),
                running: 0,
                done: 0,
                attempts: vec![0; tasks.len()],
                error: None,
            }),
        });
        let runtime = self.runtime()?;
        let dropped = Arc::new(AtomicBool::new(false));
        let stop = Stop {
            cancel,
            dropped: dropped.clone(),
            failed,
        };
        let (results_tx, results) = mpsc::unbounded_channel();
        let (outcome_tx, outcome) = tokio::sync::oneshot::channel();
        let slots = self.slots.clone();
        runtime.spawn(async move {
            let outcome = run_plan(&slots, &plan, &stop, results_tx).await;
            let _ = outcome_tx.send(outcome);
        });
        Ok(Some(Started {
            results,
            outcome,
            _guard: DropGuard(dropped),
        }))
    }

    /// The pool's runtime, started on first use.
    fn runtime(&self) -> Result<&tokio::runtime::Runtime, WorkerPoolError> {
        if let Some(rt) = self.runtime.get() {
            return Ok(rt);
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("gct-workers")
            .enable_all()
            .build()
            .map_err(|e| WorkerPoolError::Runtime(e.to_string()))?;
        // Another run may have started one meanwhile: keep the first (ours is dropped unused).
        if let Err(unused) = self.runtime.set(rt) {
            unused.shutdown_background();
        }
        self.runtime
            .get()
            .ok_or_else(|| WorkerPoolError::Runtime("not started".into()))
    }

    /// Ends every open worker: `quit`, a moment to exit, then the process is killed (local
    /// workers) or the connection closed. Waits for a running run's workers to be free.
    pub async fn close(&self) {
        let Some(runtime) = self.runtime.get() else {
            return;
        };
        let slots = self.slots.clone();
        let _ = runtime
            .spawn(async move {
                for slot in slots.iter() {
                    let mut guard = slot.conn.lock().await;
                    if let Some(mut conn) = guard.take() {
                        let _ = conn.writer.send("quit").await;
                        if let Some(child) = conn.child.take() {
                            child.shutdown(Duration::from_millis(500)).await;
                        }
                    }
                    slot.set_connection(&mut guard, None);
                }
            })
            .await;
    }
}

fn runtime_gone() -> WorkerPoolError {
    WorkerPoolError::Runtime("the pool's runtime stopped".into())
}

/// Runs a plan with one driver per worker; the outcome of the run.
async fn run_plan(
    slots: &[Slot],
    plan: &Plan,
    stop: &Stop,
    results: mpsc::UnboundedSender<(usize, PerftStats)>,
) -> Result<(), WorkerPoolError> {
    let outcomes = futures_util::future::join_all(
        slots
            .iter()
            .map(|slot| drive(slot, plan, stop, results.clone())),
    )
    .await;
    drop(results);
    let s = plan.state();
    let total = plan.lines.len();
    if s.done == total {
        return Ok(());
    }
    if let Some(e) = &s.error {
        return Err(e.clone());
    }
    if stop.cancel.load(Relaxed) || stop.dropped.load(Relaxed) {
        return Err(WorkerPoolError::Cancelled);
    }
    let reasons = slots
        .iter()
        .zip(outcomes)
        .filter_map(|(slot, outcome)| outcome.err().map(|why| format!("{}: {why}", slot.name)))
        .collect::<Vec<_>>()
        .join("; ");
    Err(WorkerPoolError::AllWorkersGone {
        left: total - s.done,
        reasons,
    })
}

/// The `begin` line of a task and the FEN its result must show, or why it cannot be sent.
fn begin_line(task: &WorkerTask) -> Result<(String, String), String> {
    if task.depth > MAX_DEPTH {
        return Err(format!("depth {} is over {MAX_DEPTH}", task.depth));
    }
    let pos = Position::from_fen(&task.fen, FenMode::Lenient).map_err(|e| e.to_string())?;
    let line = Command::Begin(Begin {
        depth: task.depth,
        fen: task.fen.trim().to_string(),
        pos,
        classes: true,
    })
    .to_string();
    // The line must read back as the same task (no stray `:` or line breaks in the FEN).
    match Command::parse(&line) {
        Ok(Some(Command::Begin(b))) if b.pos == pos && b.depth == task.depth => {
            Ok((line, result_fen(&pos)))
        }
        _ => Err(format!("'{}' cannot be sent as one begin line", task.fen)),
    }
}

/// Waits until `stop` is set, or at most `limit`.
async fn stopped(stop: &Stop, limit: Option<Duration>) {
    let deadline = limit.map(|l| Instant::now() + l);
    while !stop.is_set() && deadline.is_none_or(|d| Instant::now() < d) {
        tokio::time::sleep(POLL).await;
    }
}

/// One worker's share of a run: connect (or reconnect), take a task, run it, repeat, until
/// no task is left, the run is stopped, or the worker failed too often (`Err` with why).
async fn drive(
    slot: &Slot,
    plan: &Plan,
    cancel: &Stop,
    results: mpsc::UnboundedSender<(usize, PerftStats)>,
) -> Result<(), String> {
    let endpoint = slot.endpoint.clone()?;
    let mut failures = 0u32;
    loop {
        if plan.stopped(cancel) {
            return Ok(());
        }
        let mut guard = slot.conn.lock().await;
        if guard.is_none() {
            let opened = tokio::select! {
                opened = Connection::open(&endpoint, slot.timeout) => opened,
                () = stopped(cancel, None) => return Ok(()),
            };
            match opened {
                Ok(conn) => {
                    slot.connects.fetch_add(1, Relaxed);
                    slot.set_connection(&mut guard, Some(conn));
                }
                Err(why) => {
                    drop(guard);
                    slot.note_failure(&why);
                    failures += 1;
                    if failures >= MAX_CONSECUTIVE_FAILURES {
                        return Err(why);
                    }
                    let pause = Duration::from_millis(100 * u64::from(failures));
                    stopped(cancel, Some(pause)).await;
                    continue;
                }
            }
        }
        let Some(index) = plan.claim() else {
            drop(guard);
            if plan.idle() {
                return Ok(());
            }
            // Others are still running tasks that may come back: wait.
            tokio::time::sleep(POLL).await;
            continue;
        };
        let Some(conn) = guard.as_mut() else {
            plan.release(index);
            continue;
        };
        match conn.run_task(&plan.lines[index], cancel).await {
            Ok(result) if result.fen != plan.fens[index] => {
                let why = format!(
                    "answered for '{}' instead of '{}'",
                    result.fen, plan.fens[index]
                );
                slot.note_failure(&why);
                slot.set_connection(&mut guard, None);
                plan.requeue(index, &why);
                failures += 1;
                if failures >= MAX_CONSECUTIVE_FAILURES {
                    return Err(why);
                }
            }
            Ok(TaskResult {
                stats: Some(stats), ..
            }) => {
                plan.complete();
                slot.tasks_done.fetch_add(1, Relaxed);
                failures = 0;
                // The receiver lives until every driver is done.
                let _ = results.send((index, stats));
            }
            Ok(TaskResult { stats: None, .. }) => {
                let message =
                    "reported no check and mate classes (not a chessd worker?)".to_string();
                slot.note_failure(&message);
                plan.fail(
                    index,
                    WorkerPoolError::Rejected {
                        worker: slot.name.clone(),
                        index,
                        message,
                    },
                );
                return Ok(());
            }
            Err(TaskError::Cancelled) => {
                plan.release(index);
                return Ok(());
            }
            Err(TaskError::Rejected(message)) => {
                slot.note_failure(&message);
                plan.fail(
                    index,
                    WorkerPoolError::Rejected {
                        worker: slot.name.clone(),
                        index,
                        message,
                    },
                );
                return Ok(());
            }
            Err(TaskError::Lost(why)) => {
                slot.note_failure(&why);
                slot.set_connection(&mut guard, None);
                plan.requeue(index, &why);
                failures += 1;
                if failures >= MAX_CONSECUTIVE_FAILURES {
                    return Err(why);
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn begin_lines_ask_for_classes_and_refuse_bad_tasks() {
        let task = |fen: &str, depth| WorkerTask {
            fen: fen.to_string(),
            depth,
            occurrences: 1,
        };
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let (line, fen) = begin_line(&task(start, 3)).unwrap();
        assert_eq!(line, format!("begin:3:{start}:classes"));
        assert_eq!(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        assert!(begin_line(&task(start, MAX_DEPTH + 1)).is_err());
        assert!(begin_line(&task("not a fen", 1)).is_err());
        assert!(begin_line(&task(&format!("{start}\nquit"), 1)).is_err());
    }

    #[tokio::test]
    async fn an_empty_pool_or_an_invalid_entry_fails_clearly() {
        let cancel = Arc::new(AtomicBool::new(false));
        let task = WorkerTask {
            fen: "4k3/8/8/8/8/8/8/4K3 w - - 0 1".into(),
            depth: 1,
            occurrences: 1,
        };
        let empty = WorkerPool::new(&BTreeMap::new());
        assert!(empty.is_empty());
        assert_eq!(
            empty.run(Vec::new(), cancel.clone(), |_, _| {}).await,
            Ok(())
        );
        assert_eq!(
            empty
                .run(vec![task.clone()], cancel.clone(), |_, _| {})
                .await,
            Err(WorkerPoolError::NoWorkers)
        );
        let mut config = BTreeMap::new();
        config.insert("bad".to_string(), EndpointConfig::default());
        let pool = WorkerPool::new(&config);
        assert_eq!(pool.names(), ["bad"]);
        match pool
            .run(vec![task], cancel, |_, _| panic!("no result"))
            .await
        {
            Err(WorkerPoolError::AllWorkersGone { left: 1, reasons }) => {
                assert!(reasons.starts_with("bad: give exactly one"), "{reasons}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(pool.status()[0].kind, "invalid");
    }
}
