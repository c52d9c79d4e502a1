//! The pool of Grand Chess Tree workers (`[gct_workers]`) that perft jobs hand tasks to: its
//! public face ([`WorkerPool::run`], status, close), its runtime, and how a run's tasks are
//! checked, shared between the workers' drivers (`slot.rs`) and ended.

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed},
        Arc, Mutex, OnceLock,
    },
    time::Duration,
};

use chessd_core::{perft::PerftStats, FenMode, Position};
use serde::Serialize;
use tokio::sync::mpsc;

use super::{
    plan::{DropGuard, Plan, PlanState, Stop},
    slot::{drive, Slot},
};
use crate::config::{Endpoint, EndpointConfig};
use chessd_protocol::gct::{result_fen, Begin, Command, MAX_DEPTH};

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

/// The named workers perft jobs hand tasks to: each a local process (`builtin = true` runs
/// `chessd worker`, or a `command`) or a TCP peer (`tcp = "host:port"`, e.g.
/// `socat TCP-LISTEN:9020,reuseaddr,fork EXEC:"chessd worker"`), spoken to with the protocol of
/// [`chessd_protocol::gct`].
///
/// [`WorkerPool::run`] shares a list of tasks between the workers, one task per worker at a
/// time, and hands every result to a callback. A worker is started (or connected to) when a
/// run first needs it and kept between runs, hash table warm. When a worker dies, closes the
/// connection or breaks the protocol during a task, the task goes back to the queue (so the
/// total stays exact) and the worker is restarted or reconnected; a worker that fails
/// [`MAX_CONSECUTIVE_FAILURES`](super::MAX_CONSECUTIVE_FAILURES) times in a row is given up for
/// the run, and when every worker is given up with tasks left the run fails. A task that fails
/// on too many attempts fails the run too (it would otherwise kill worker after worker).
///
/// Cancelling stops handing out tasks at once; busy workers get `reset` (abandoning their
/// task) and the run returns without waiting for them: the `ready` that answers the reset is
/// awaited when the worker is next used.
///
/// Results are asked for with the `:classes` extension, so that the eight check and mate
/// classes come back exactly; a worker that does not report them (not a chessd worker) fails
/// the run with a clear error.
///
/// The pool does its I/O on a small Tokio runtime of its own (one thread, started with the
/// first run), so that worker connections outlive the callers: [`WorkerPool::run`] can be
/// awaited from any async context and [`WorkerPool::run_blocking`] called from a plain thread
/// (a job pool thread).
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
