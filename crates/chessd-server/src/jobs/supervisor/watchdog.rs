//! The run-time watchdog of a supervisor: a thread that looks at the running jobs four times a
//! second, stops those that have run past `jobs.max_run_secs` (their runs before restarts
//! included), and every few seconds keeps each running job's run time in the store, so that a
//! job resumed after a crash keeps counting from about where it was. It ends with its
//! supervisor.

use std::{
    sync::{atomic::Ordering::Relaxed, Arc, Weak},
    time::{Duration, Instant},
};

use super::{Inner, Job};

/// How often the running jobs are looked at.
const TICK: Duration = Duration::from_millis(250);

/// How often running jobs' run times are kept in the store.
const KEEP_EVERY: Duration = Duration::from_secs(5);

/// Starts the watchdog of `inner` (nothing when there is no limit and no store to keep run
/// times in).
pub(super) fn start(inner: &Arc<Inner>) {
    let limit = inner.limits.config.max_run_secs;
    if limit == 0 && !inner.store.is_durable() {
        return;
    }
    let weak = Arc::downgrade(inner);
    let spawned = std::thread::Builder::new()
        .name("chessd-runtimes".into()) // not "chessd-job…": that names job threads
        .spawn(move || watch(weak, Duration::from_secs(limit)));
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the jobs' watchdog: jobs.max_run_secs is not enforced");
    }
}

fn watch(inner: Weak<Inner>, limit: Duration) {
    let mut kept = Instant::now();
    loop {
        std::thread::sleep(TICK);
        let Some(inner) = inner.upgrade() else {
            return;
        };
        let running: Vec<Arc<Job>> = inner.lock().running.clone();
        let keep = kept.elapsed() >= KEEP_EVERY;
        if keep {
            kept = Instant::now();
        }
        for job in &running {
            if !limit.is_zero() && job.run_time() >= limit && !job.timed_out.swap(true, Relaxed) {
                tracing::info!(job = %job.id, limit_secs = limit.as_secs(), "a job ran past jobs.max_run_secs: stopped");
                job.cancel.store(true, Relaxed);
            }
            if keep {
                job.record_run_time();
            }
        }
    }
}
