//! The job supervisor: hands out job ids, enforces the `[jobs]` limits, queues jobs until the
//! pool has threads for them, runs each on its own OS threads (never on an HTTP thread),
//! answers snapshots, cancels, and forgets finished jobs after `jobs.keep_finished_secs` (and the
//! oldest beyond `jobs.keep_finished_max`).
//!
//! The pool is a thread budget of `jobs.pool_threads` (0: one per core): a job holds the
//! threads it computes with while it runs, and queued jobs start fairly between clients
//! (`fair.rs`: the client with the fewest running jobs first, first in first out within a
//! client, no client holding more than `jobs.max_client_threads`) as soon as the budget has
//! room for the next one. A job that runs past `jobs.max_run_secs`, its runs before restarts
//! included, is stopped and fails with `job_timed_out` (`watchdog.rs`). A job's computation is
//! the core's own (the parallel [`chessd_core::perft::Perft`] or the mate
//! [`chessd_core::solver::Solver`]), which runs its threads on the job's thread, reports
//! progress into the job's shared status and stops through the job's cancel flag.
//!
//! The supervisor is a shared structure rather than an actor: the work runs on plain threads
//! owned by the core's runners, so an actor per job would only forward messages; reads (REST
//! views, WebSocket progress every 200 ms) take a short lock instead of queuing in a mailbox;
//! and admission (limits, scheduling, cancel) is one critical section under one mutex, as
//! atomic as an actor's message handling. State changes are published on a
//! [`tokio::sync::watch`] channel per job, which WebSocket sessions and `DELETE` wait on.
//!
//! Every job is kept in the store (`durable.rs`): created before its creation is answered,
//! its perft tasks as they finish, its end before the end is published. A request whose
//! identical request already finished is answered from the store at once; at start, jobs the
//! server was running are started again (a perft from its finished tasks), and recently
//! finished ones are held again. A job not held any more is read from the store.

mod durable;
mod fair;
mod job;
mod watchdog;

use std::{
    collections::{HashMap, VecDeque},
    panic::AssertUnwindSafe,
    sync::{atomic::Ordering::Relaxed, Arc, Mutex, MutexGuard, Weak},
    time::Duration,
};

use uuid::Uuid;

use super::{
    error::{JobEnd, JobError},
    limits::JobLimits,
    perft_job::PerftParams,
    state::{JobKind, JobState},
    workers::{
        pool_runner::PoolRunner,
        runner::{Runners, TaskRunner},
    },
};
pub(crate) use job::{Job, JobListing, Work};
use job::{Outcome, Wait};

use crate::{
    admission::Permit,
    config::{Config, JobsConfig},
    store::{Committed, Store},
};

/// The supervisor's tables, under one lock.
#[derive(Default)]
struct Table {
    /// Every job held, by id.
    jobs: HashMap<Uuid, (u64, Arc<Job>)>,
    /// Jobs waiting for threads, oldest first.
    queue: VecDeque<Arc<Job>>,
    /// Jobs running on the pool.
    running: Vec<Arc<Job>>,
    /// Pool threads held by running jobs.
    busy: usize,
    /// Hash memory (MiB) held by running jobs.
    hash_busy: usize,
    /// Jobs created so far (orders the list).
    created: u64,
}

struct Inner {
    limits: JobLimits,
    workers: Option<Arc<dyn TaskRunner>>,
    /// A cluster's shared task queue and the plies of its tasks (set when the node joins).
    shared: std::sync::OnceLock<(Arc<dyn TaskRunner>, u32)>,
    table: Mutex<Table>,
    store: Store,
    /// The cluster node this supervisor runs on (its jobs are stored with it).
    node: std::sync::OnceLock<String>,
}

impl Drop for Inner {
    /// The server is going away: every job still running stops, and stays unfinished in the
    /// store.
    fn drop(&mut self) {
        let table = self.table.get_mut().unwrap_or_else(|e| e.into_inner());
        for (_, job) in table.jobs.values() {
            job.interrupted.store(true, Relaxed);
        }
        for job in table.queue.drain(..) {
            job.finish(Err(JobEnd::Cancelled), Wait::No);
        }
        for (_, job) in table.jobs.values() {
            job.cancel.store(true, Relaxed);
        }
    }
}

/// Owns the perft and puzzle jobs of a server (a cheap handle: clones share the jobs).
#[derive(Clone)]
pub struct JobSupervisor {
    inner: Arc<Inner>,
}

impl JobSupervisor {
    /// The supervisor of a configuration (its `[jobs]` limits and its `[gct_workers]`),
    /// keeping its jobs in `store`. Call [`JobSupervisor::restore`] to take back the jobs the
    /// store holds.
    pub fn from_config(config: &Config, store: Store) -> JobSupervisor {
        let workers = PoolRunner::from_config(&config.gct_workers)
            .map(|w| Arc::new(w) as Arc<dyn TaskRunner>);
        JobSupervisor::with_store(config.jobs.clone(), workers, store)
    }

    /// Marks this supervisor as running on cluster node `node`: the jobs it creates are stored
    /// with it, so that another node takes them over if this one dies.
    pub fn set_node(&self, node: &str) {
        let _ = self.inner.node.set(node.to_string());
    }

    /// A supervisor with the `[jobs]` limits, keeping nothing; `workers` compute perft tasks
    /// when configured.
    pub fn new(config: JobsConfig, workers: Option<Arc<dyn TaskRunner>>) -> JobSupervisor {
        JobSupervisor::with_store(config, workers, Store::memory())
    }

    /// A supervisor with the `[jobs]` limits, keeping its jobs in `store`.
    pub fn with_store(
        config: JobsConfig,
        workers: Option<Arc<dyn TaskRunner>>,
        store: Store,
    ) -> JobSupervisor {
        let inner = Arc::new(Inner {
            limits: JobLimits::new(config),
            workers,
            shared: std::sync::OnceLock::new(),
            table: Mutex::new(Table::default()),
            store,
            node: std::sync::OnceLock::new(),
        });
        watchdog::start(&inner);
        JobSupervisor { inner }
    }

    /// Sends the tasks of perft jobs deeper than `task_depth` plies to a cluster's shared queue
    /// (`queue`), which every node takes tasks from.
    pub fn share_tasks(&self, queue: Arc<dyn TaskRunner>, task_depth: u32) {
        let _ = self.inner.shared.set((queue, task_depth));
    }

    /// The limits in force.
    pub fn limits(&self) -> &JobLimits {
        &self.inner.limits
    }

    /// Checks and queues a perft job (it starts at once when the pool has room). `permit`, its
    /// place among its client's jobs, is held until the job finishes.
    pub fn submit_perft(
        &self,
        req: &PerftParams,
        permit: Option<Permit>,
    ) -> Result<Arc<Job>, JobError> {
        let anonymous = permit.as_ref().is_some_and(Permit::anonymous);
        self.submit(self.perft_work(req, anonymous)?, permit)
    }

    /// Queues checked work (its creation is kept in the store without waiting; see
    /// [`JobSupervisor::start`], which waits).
    pub fn submit(&self, work: Work, permit: Option<Permit>) -> Result<Arc<Job>, JobError> {
        self.submit_queued(work, permit).map(|(job, _)| job)
    }

    /// Queues checked work; the creation's commit comes with the job.
    fn submit_queued(
        &self,
        work: Work,
        permit: Option<Permit>,
    ) -> Result<(Arc<Job>, Committed), JobError> {
        let inner = &self.inner;
        let mut table = inner.lock();
        inner.sweep(&mut table);
        let unfinished = table
            .jobs
            .values()
            .filter(|(_, j)| !j.state().is_finished())
            .count();
        let max = inner.limits.config.max_jobs;
        if unfinished >= max {
            return Err(JobError::TooManyJobs(format!(
                "the server already holds {unfinished} unfinished jobs (jobs.max_jobs = {max})"
            )));
        }
        let job = Arc::new(Job::new(work, permit, inner.store.clone()));
        let hash_total = inner.limits.config.max_hash_total_mb;
        if job.hash_mb > hash_total {
            // Never dispatched, it would block the queue behind it.
            return Err(JobError::LimitExceeded(format!(
                    "a hash of {} MiB is over the server's budget jobs.max_hash_total_mb = {hash_total}",
                    job.hash_mb
                ),
            ));
        }
        if job.threads > inner.limits.pool_threads {
            // Never dispatched, it would block the queue behind it.
            return Err(JobError::LimitExceeded(format!(
                "threads {} is over the pool size jobs.pool_threads = {}",
                job.threads, inner.limits.pool_threads
            )));
        }
        // Queued for the store before the job can start: its creation is written before
        // anything the job writes.
        let commit = inner.store.queue(durable::creation(
            &job,
            inner.node.get().map(String::as_str),
        ))?;
        inner.hold(&mut table, &job, true);
        inner.dispatch(&mut table, &self.inner);
        Ok((job, commit))
    }

    /// The job with this id (text from a URL) and kind.
    pub fn get(&self, id: &str, kind: JobKind) -> Result<Arc<Job>, JobError> {
        let mut table = self.inner.lock();
        self.inner.sweep(&mut table);
        Inner::find(&table, id, kind)
    }

    /// Cancels a job: a queued one ends at once, a running one is told to stop (it ends well
    /// within 100 ms, see [`Job::wait_finished`]), a finished one is left as it is.
    /// Only the creator may cancel: `token` must be the secret the creation answer carried.
    pub fn cancel(
        &self,
        id: &str,
        kind: JobKind,
        token: Option<&str>,
    ) -> Result<Arc<Job>, JobError> {
        let mut table = self.inner.lock();
        self.inner.sweep(&mut table);
        let job = Inner::find(&table, id, kind)?;
        if !job.is_secret(token) {
            return Err(refused(token.is_some()));
        }
        self.inner.stop(&mut table, &job);
        Ok(job)
    }

    /// Whether this supervisor holds the job `id` (running, queued or recently ended).
    pub fn holds(&self, id: &Uuid) -> bool {
        self.inner.lock().jobs.contains_key(id)
    }

    /// Every job held, oldest first, and the pool's use.
    pub fn list(&self) -> JobListing {
        let mut table = self.inner.lock();
        self.inner.sweep(&mut table);
        let mut jobs: Vec<&(u64, Arc<Job>)> = table.jobs.values().collect();
        jobs.sort_by_key(|(order, _)| *order);
        JobListing {
            jobs: jobs.iter().map(|(_, j)| Arc::clone(j)).collect(),
            pool_threads: self.inner.limits.pool_threads,
            busy_threads: table.busy,
            workers: self
                .inner
                .workers
                .as_ref()
                .map(|w| w.status())
                .unwrap_or_default(),
        }
    }

    /// Pool threads held by running jobs.
    pub fn busy_threads(&self) -> usize {
        self.inner.lock().busy
    }

    /// Tells every unfinished job to stop (server shutdown). They stay unfinished in the
    /// store, so that the next start takes them up again.
    pub fn interrupt_all(&self) {
        let mut table = self.inner.lock();
        for (_, job) in table.jobs.values() {
            job.interrupted.store(true, Relaxed);
        }
        // Their run times so far, queued before the store closes: they count after a restart.
        for job in &table.running {
            job.record_run_time();
        }
        for job in std::mem::take(&mut table.queue) {
            job.cancel.store(true, Relaxed);
            job.finish(Err(JobEnd::Cancelled), Wait::No);
        }
        for (_, job) in table.jobs.values() {
            job.cancel.store(true, Relaxed);
        }
    }
}

/// The error of a cancel without the job's secret: `Unauthorized` when the request carried no
/// secret at all.
fn refused(secret_given: bool) -> JobError {
    let message = "cancelling a job needs the secret its creation answer carried".to_string();
    if secret_given {
        JobError::Forbidden(message)
    } else {
        JobError::Unauthorized(message)
    }
}

impl Inner {
    /// What may compute perft tasks besides a job's own threads.
    fn runners(&self) -> Runners {
        Runners {
            workers: self.workers.clone(),
            shared: self.shared.get().cloned(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // Every critical section leaves the table consistent before anything that could panic.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops a job: a queued one ends at once, a running one is told to stop, a finished one
    /// is left as it is.
    fn stop(self: &Arc<Inner>, table: &mut Table, job: &Arc<Job>) {
        if let Some(i) = table.queue.iter().position(|j| j.id == job.id) {
            table.queue.remove(i);
            job.cancel.store(true, Relaxed);
            job.finish(Err(JobEnd::Cancelled), Wait::No);
            // A smaller job behind it may fit now.
            self.dispatch(table, self);
        } else if !job.state().is_finished() {
            job.cancel.store(true, Relaxed);
        }
    }

    fn find(table: &Table, id: &str, kind: JobKind) -> Result<Arc<Job>, JobError> {
        let not_found = || {
            let what = match kind {
                JobKind::Perft => "perft",
                JobKind::Puzzle => "puzzle",
            };
            JobError::NotFound(format!("no {what} job with id {id}"))
        };
        let uuid = Uuid::parse_str(id).map_err(|_| not_found())?;
        match table.jobs.get(&uuid) {
            Some((_, job)) if job.kind() == kind => Ok(Arc::clone(job)),
            _ => Err(not_found()),
        }
    }

    /// Forgets jobs that ended more than `keep_finished_secs` ago, and the oldest finished ones
    /// beyond `keep_finished_max`.
    fn sweep(&self, table: &mut Table) {
        let keep = Duration::from_secs(self.limits.config.keep_finished_secs);
        table.jobs.retain(|_, (_, job)| {
            let status = job.status();
            status.ended.is_none_or(|t| t.elapsed() < keep)
        });
        // However quickly finished jobs pile up, at most `keep_finished_max` stay: oldest go first.
        let max = self.limits.config.keep_finished_max;
        let mut finished: Vec<(u64, Uuid)> = table
            .jobs
            .iter()
            .filter(|(_, (_, job))| job.state().is_finished())
            .map(|(id, (order, _))| (*order, *id))
            .collect();
        if finished.len() > max {
            finished.sort_unstable();
            for (_, id) in &finished[..finished.len() - max] {
                table.jobs.remove(id);
            }
        }
    }

    /// Starts queued jobs, fairly between clients (`fair.rs`), while the pool has threads and
    /// the hash budget has memory for the next one.
    fn dispatch(&self, table: &mut Table, this: &Arc<Inner>) {
        let hash_total = self.limits.config.max_hash_total_mb;
        let client_threads = self.limits.client_threads();
        loop {
            let choice = {
                let queued: Vec<fair::Queued<'_>> = table
                    .queue
                    .iter()
                    .map(|j| fair::Queued {
                        client: j.client.as_deref(),
                        threads: j.threads,
                    })
                    .collect();
                let running: Vec<fair::Running<'_>> = table
                    .running
                    .iter()
                    .map(|j| fair::Running {
                        client: j.client.as_deref(),
                        threads: j.granted.load(Relaxed),
                    })
                    .collect();
                fair::next(&queued, &running, client_threads)
            };
            let Some((index, granted)) = choice else {
                break;
            };
            let Some(job) = table.queue.get(index) else {
                break;
            };
            if granted > self.limits.pool_threads.saturating_sub(table.busy)
                || job.hash_mb > hash_total.saturating_sub(table.hash_busy)
            {
                break;
            }
            let Some(job) = table.queue.remove(index) else {
                break;
            };
            job.granted.store(granted, Relaxed);
            table.busy += granted;
            table.hash_busy += job.hash_mb;
            table.running.push(Arc::clone(&job));
            {
                let mut status = job.status();
                job.set_state(&mut status, JobState::Running);
            }
            job.record_start();
            let weak = Arc::downgrade(this);
            let runner = Arc::clone(&job);
            let spawned = std::thread::Builder::new()
                .name(format!("chessd-job-{}", &job.id.simple().to_string()[..8]))
                .spawn(move || run_job(weak, runner));
            if let Err(e) = spawned {
                table.busy -= granted;
                table.hash_busy -= job.hash_mb;
                table.running.retain(|j| j.id != job.id);
                job.finish(
                    Err(JobEnd::Failed(JobError::Internal(format!(
                        "cannot start a job thread: {e}"
                    )))),
                    Wait::No,
                );
            }
        }
    }

    /// A running job ended: its threads and hash go back to the pool and queued jobs may start.
    fn release(self: &Arc<Inner>, job: &Job) {
        let mut table = self.lock();
        table.busy = table.busy.saturating_sub(job.granted.load(Relaxed));
        table.hash_busy = table.hash_busy.saturating_sub(job.hash_mb);
        table.running.retain(|j| j.id != job.id);
        self.dispatch(&mut table, self);
    }
}

/// The body of a job thread: compute, give the threads back, publish the end.
fn run_job(supervisor: Weak<Inner>, job: Arc<Job>) {
    let ending =
        std::panic::catch_unwind(AssertUnwindSafe(|| job.compute())).unwrap_or_else(|_| {
            Err(JobEnd::Failed(JobError::Internal(
                "the job's computation panicked".into(),
            )))
        });
    // The computation's threads have all been joined: give them back before the end is
    // published, so that whoever sees the end finds the pool free.
    if let Some(inner) = supervisor.upgrade() {
        inner.release(&job);
    }
    if job.interrupted.load(Relaxed) {
        // Stopped by the server (or taken over): its run time so far counts after a restart.
        job.record_run_time();
    }
    job.finish(ending, Wait::Commit);
    // A job another node took over (this one was paused or slow past its lease) is not this
    // node's to show any more: forgotten here, its requests go to the node running it. (A job
    // the shutdown stopped is forgotten too; the store keeps it for the next start.)
    if job.interrupted.load(Relaxed) {
        if let Some(inner) = supervisor.upgrade() {
            inner.lock().jobs.remove(&job.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::{config::Config, jobs::perft_job::PerftSpec};

    fn config(pool: usize, max_jobs: usize, keep: u64) -> JobsConfig {
        let mut c = Config::defaults().jobs;
        c.pool_threads = pool;
        c.max_jobs = max_jobs;
        c.keep_finished_secs = keep;
        // One client may hold the whole pool here (`fair.rs` tests the shares).
        c.max_client_threads = pool;
        c
    }

    fn perft(depth: u32, threads: usize) -> PerftParams {
        PerftParams {
            pos: chessd_core::Position::startpos(),
            depth,
            stats: false,
            threads: Some(threads),
            hash_mb: None,
            workers: None,
        }
    }

    fn wait(job: &Job) -> JobState {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !job.state().is_finished() {
            assert!(Instant::now() < deadline, "job did not end");
            std::thread::sleep(Duration::from_millis(2));
        }
        job.state()
    }

    #[test]
    fn jobs_queue_for_threads_and_start_in_order() {
        let sup = JobSupervisor::new(config(2, 8, 3600), None);
        let big = sup.submit_perft(&perft(9, 2), None).unwrap();
        let small = sup.submit_perft(&perft(3, 1), None).unwrap();
        assert_eq!(big.state(), JobState::Running);
        // First in, first out: the small job waits even though nothing else would block it.
        assert_eq!(small.state(), JobState::Queued);
        assert_eq!(sup.busy_threads(), 2);
        let id = big.id().to_string();
        sup.cancel(&id, JobKind::Perft, big.secret()).unwrap();
        assert_eq!(wait(&big), JobState::Cancelled);
        assert_eq!(wait(&small), JobState::Done);
        assert_eq!(small.snapshot().perft.unwrap().stats.nodes, 8902);
        assert_eq!(sup.busy_threads(), 0);
        let list = sup.list();
        assert_eq!(list.jobs.len(), 2);
        assert_eq!(list.jobs[0].id(), big.id());
    }

    #[test]
    fn too_many_jobs_and_queued_cancellation() {
        let sup = JobSupervisor::new(config(1, 2, 3600), None);
        let a = sup.submit_perft(&perft(9, 1), None).unwrap();
        let b = sup.submit_perft(&perft(9, 1), None).unwrap();
        let err = sup.submit_perft(&perft(1, 1), None).unwrap_err();
        assert_eq!(err.code(), "too_many_jobs");
        assert!(
            err.to_string().contains("jobs.max_jobs"),
            "{}",
            err.to_string()
        );
        // The queued one ends at once.
        sup.cancel(&b.id().to_string(), JobKind::Perft, b.secret())
            .unwrap();
        assert_eq!(b.state(), JobState::Cancelled);
        sup.cancel(&a.id().to_string(), JobKind::Perft, a.secret())
            .unwrap();
        assert_eq!(wait(&a), JobState::Cancelled);
        // A slot is free again.
        let c = sup.submit_perft(&perft(2, 1), None).unwrap();
        assert_eq!(wait(&c), JobState::Done);
        // Wrong kind or unknown id.
        let id = c.id().to_string();
        assert_eq!(
            sup.get(&id, JobKind::Puzzle).unwrap_err().code(),
            "job_not_found"
        );
        assert_eq!(
            sup.get("nope", JobKind::Perft).unwrap_err().code(),
            "job_not_found"
        );
    }

    #[test]
    fn finished_jobs_are_forgotten_after_the_keep_time() {
        let sup = JobSupervisor::new(config(1, 8, 0), None);
        let job = sup.submit_perft(&perft(2, 1), None).unwrap();
        let id = job.id().to_string();
        wait(&job);
        assert_eq!(
            sup.get(&id, JobKind::Perft).unwrap_err().code(),
            "job_not_found"
        );
        assert!(sup.list().jobs.is_empty());
    }

    #[test]
    fn at_most_keep_finished_max_finished_jobs_stay_oldest_forgotten_first() {
        let mut c = config(1, 8, 3600);
        c.keep_finished_max = 2;
        let sup = JobSupervisor::new(c, None);
        let ids: Vec<String> = (0..4)
            .map(|_| {
                let job = sup.submit_perft(&perft(1, 1), None).unwrap();
                wait(&job);
                job.id().to_string()
            })
            .collect();
        let kept: Vec<String> = sup.list().jobs.iter().map(|j| j.id().to_string()).collect();
        assert_eq!(kept, ids[2..]);
        assert_eq!(
            sup.get(&ids[0], JobKind::Perft).unwrap_err().code(),
            "job_not_found"
        );
    }

    #[test]
    fn dropping_the_supervisor_stops_its_jobs() {
        let sup = JobSupervisor::new(config(1, 8, 3600), None);
        let job = sup.submit_perft(&perft(9, 1), None).unwrap();
        let queued = sup.submit_perft(&perft(9, 1), None).unwrap();
        assert_eq!(queued.state(), JobState::Queued);
        drop(sup);
        assert_eq!(wait(&job), JobState::Cancelled);
        assert_eq!(queued.state(), JobState::Cancelled);
    }

    #[test]
    fn work_wider_than_the_pool_is_refused() {
        let sup = JobSupervisor::new(config(1, 8, 3600), None);
        let mut req = perft(2, 1);
        let mut spec = PerftSpec::from_params(&req, sup.limits(), &Runners::default()).unwrap();
        spec.threads = 2;
        let err = sup.submit(Work::Perft(spec), None).unwrap_err();
        assert_eq!(err.code(), "limit_exceeded");
        req.threads = Some(2);
        assert_eq!(
            sup.submit_perft(&req, None).unwrap_err().code(),
            "limit_exceeded"
        );
    }
}
