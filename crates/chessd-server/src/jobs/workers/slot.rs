//! One configured worker of the pool: its connection, kept between runs, its counters, and its
//! share of a run: start or connect, run tasks, restart after a loss, give up after
//! [`MAX_CONSECUTIVE_FAILURES`].

use std::{
    sync::{
        atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed},
        Mutex,
    },
    time::{Duration, Instant},
};

use chessd_core::perft::PerftStats;
use tokio::sync::mpsc;

use super::{
    connection::{Connection, TaskError},
    plan::{Plan, Stop},
    WorkerPoolError, POLL,
};
use crate::{config::Endpoint, transport::ChildGuard};
use chessd_protocol::gct::TaskResult;

/// Failures in a row (lost connections, failed restarts) after which a worker is given up for
/// the rest of a run.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// One configured worker and its connection, if open.
pub(super) struct Slot {
    pub(super) name: String,
    pub(super) endpoint: Result<Endpoint, String>,
    pub(super) timeout: Duration,
    pub(super) conn: tokio::sync::Mutex<Option<Connection>>,
    pub(super) connected: AtomicBool,
    pub(super) pid: AtomicU32,
    pub(super) tasks_done: AtomicU64,
    pub(super) failures: AtomicU64,
    pub(super) connects: AtomicU64,
    pub(super) last_error: Mutex<Option<String>>,
}

impl Slot {
    pub(super) fn note_failure(&self, why: &str) {
        self.failures.fetch_add(1, Relaxed);
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(why.to_string());
        }
    }

    pub(super) fn set_connection(&self, conn: &mut Option<Connection>, new: Option<Connection>) {
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

/// Waits until `stop` is set, or at most `limit`.
async fn stopped(stop: &Stop, limit: Option<Duration>) {
    let deadline = limit.map(|l| Instant::now() + l);
    while !stop.is_set() && deadline.is_none_or(|d| Instant::now() < d) {
        tokio::time::sleep(POLL).await;
    }
}

/// One worker's share of a run: connect (or reconnect), take a task, run it, repeat, until
/// no task is left, the run is stopped, or the worker failed too often (`Err` with why).
pub(super) async fn drive(
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
