//! One job: what it computes, its status (state, progress, result, error) behind its lock and
//! watch channel, and how it runs, reports and ends. The supervisor (`supervisor.rs`) admits,
//! queues, starts and forgets jobs.

use std::{
    sync::{
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed},
        Arc, Mutex, MutexGuard,
    },
    time::{Duration, Instant},
};

use chessd_core::perft::{PerftProgress, PerftResult, PerftStats};
use sha2::{Digest, Sha256};
use tokio::sync::watch;
use uuid::Uuid;

use crate::{
    admission::Permit,
    jobs::{
        chess2_perft_job::Chess2PerftSpec,
        error::{JobEnd, JobError},
        perft_job::{JobRun, PerftSpec, TaskDone},
        puzzle_job::{PuzzleResult, PuzzleSpec},
        record,
        state::{no_progress, JobKind, JobSnapshot, JobState},
        workers::WorkerStatus,
    },
    store::{now_ms, Committed, JobWrite, Store, WriteOp},
};

/// What a job computes.
#[derive(Clone, Debug)]
pub enum Work {
    /// A perft.
    Perft(PerftSpec),
    /// A Chess 2 perft (node counts only).
    Chess2Perft(Chess2PerftSpec),
    /// A puzzle.
    Puzzle(PuzzleSpec),
}

/// A job's result.
#[derive(Clone, Debug)]
pub(super) enum Outcome {
    Perft(PerftResult),
    Puzzle(PuzzleResult),
}

/// The mutable part of a job.
#[derive(Debug)]
pub(super) struct Status {
    pub(super) state: JobState,
    pub(super) started: Option<Instant>,
    pub(super) ended: Option<Instant>,
    pub(super) progress: PerftProgress,
    pub(super) perft: Option<PerftResult>,
    pub(super) nodes: u64,
    pub(super) solution: Option<Arc<PuzzleResult>>,
    pub(super) error: Option<JobError>,
    /// Perft tasks counted since the job started.
    pub(super) computed: usize,
}

impl Status {
    /// Time since the job started running (zero while queued, fixed once it has ended).
    pub(super) fn elapsed(&self) -> Duration {
        match self.started {
            Some(start) => self.ended.unwrap_or_else(Instant::now) - start,
            None => Duration::ZERO,
        }
    }
}

/// Every job a supervisor holds and the use of its pool, read in one critical section.
#[derive(Clone, Debug)]
pub struct JobListing {
    /// The jobs, oldest first.
    pub jobs: Vec<Arc<Job>>,
    /// Threads of the job pool.
    pub pool_threads: usize,
    /// Pool threads held by running jobs.
    pub busy_threads: usize,
    /// The configured Grand Chess Tree workers and what is known about them.
    pub workers: Vec<WorkerStatus>,
}

/// One job: what it computes, its cancel flag and its status.
#[derive(Debug)]
pub struct Job {
    pub(super) id: Uuid,
    /// Handed to the creator only (held only for jobs this process created); needed to cancel.
    pub(super) secret: Option<String>,
    /// SHA-256 of the secret: all that is kept of it.
    pub(super) digest: [u8; 32],
    /// Answered with the result of an earlier job of the same request.
    pub(super) cached: bool,
    pub(super) work: Work,
    /// Pool threads it asks for.
    pub(super) threads: usize,
    /// Pool threads it was given when it started (at most its client's share).
    pub(super) granted: AtomicUsize,
    /// Who it is scheduled as (the client's stored form; `None`: taken back from the store).
    pub(super) client: Option<String>,
    /// Time it ran before this run (earlier runs, before restarts).
    pub(super) prior: Duration,
    /// Set by the watchdog when it ran past `jobs.max_run_secs`.
    pub(super) timed_out: AtomicBool,
    /// Set when its result holds task results of remote workers no node counted again.
    pub(super) unverified: AtomicBool,
    /// Hash memory (MiB) it holds while running, counted against `jobs.max_hash_total_mb`.
    pub(super) hash_mb: usize,
    /// Its place among its client's jobs, given back when it finishes.
    pub(super) permit: Mutex<Option<Permit>>,
    pub(super) cancel: Arc<AtomicBool>,
    /// Puzzle jobs: positions searched so far, as the search reports them (exact once it
    /// has ended).
    pub(super) searched: AtomicU64,
    pub(super) status: Mutex<Status>,
    pub(super) state_tx: watch::Sender<JobState>,
    /// Perft: the tasks finished before a restart.
    pub(super) resume: Vec<TaskDone>,
    /// Where the job is kept.
    pub(super) store: Store,
    /// Set when the server stops it: its end is not stored, so that it starts again.
    pub(super) interrupted: AtomicBool,
    /// The commit of an end recorded off the job's thread (a queued job cancelled).
    pub(super) end_commit: Mutex<Option<Committed>>,
}

/// SHA-256 of a secret.
pub(super) fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Whether a job's end is waited for (committed) before it is published: on the job's own
/// thread, yes; in a critical section of the supervisor, which must not block, no.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Wait {
    Commit,
    No,
}

impl Job {
    /// The secret that lets its creator cancel it (given out once, in the creation answer;
    /// `None` for a job this process did not create).
    pub fn secret(&self) -> Option<&str> {
        self.secret.as_deref()
    }

    /// Whether `token` is the job's secret.
    pub fn is_secret(&self, token: Option<&str>) -> bool {
        token.is_some_and(|t| constant_time_eq::constant_time_eq(&digest(t), &self.digest))
    }

    /// Whether the job was answered with an earlier job's result, without computing.
    pub fn cached(&self) -> bool {
        self.cached
    }

    /// A new job with a fresh id and secret.
    pub(super) fn new(work: Work, permit: Option<Permit>, store: Store) -> Job {
        let secret = Uuid::new_v4().simple().to_string();
        let digest = digest(&secret);
        let client = permit.as_ref().map(|p| p.client().stored());
        let mut job = Job::build(Uuid::new_v4(), Some(secret), digest, work, permit, store);
        job.client = client;
        job
    }

    pub(super) fn build(
        id: Uuid,
        secret: Option<String>,
        digest: [u8; 32],
        work: Work,
        permit: Option<Permit>,
        store: Store,
    ) -> Job {
        let (threads, hash_mb) = match &work {
            Work::Perft(spec) => (spec.threads, spec.hash_mb),
            Work::Chess2Perft(spec) => (spec.threads, 0),
            Work::Puzzle(spec) => (spec.threads, spec.table_mb),
        };
        Job {
            id,
            secret,
            digest,
            cached: false,
            resume: Vec::new(),
            store,
            interrupted: AtomicBool::new(false),
            end_commit: Mutex::new(None),
            work,
            threads,
            granted: AtomicUsize::new(0),
            client: None,
            prior: Duration::ZERO,
            timed_out: AtomicBool::new(false),
            unverified: AtomicBool::new(false),
            hash_mb,
            permit: Mutex::new(permit),
            cancel: Arc::new(AtomicBool::new(false)),
            searched: AtomicU64::new(0),
            status: Mutex::new(Status {
                state: JobState::Queued,
                started: None,
                ended: None,
                progress: no_progress(),
                perft: None,
                nodes: 0,
                solution: None,
                error: None,
                computed: 0,
            }),
            state_tx: watch::Sender::new(JobState::Queued),
        }
    }

    /// The job id.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Perft or puzzle.
    pub fn kind(&self) -> JobKind {
        match self.work {
            Work::Perft(_) | Work::Chess2Perft(_) => JobKind::Perft,
            Work::Puzzle(_) => JobKind::Puzzle,
        }
    }

    /// What the job computes.
    pub fn work(&self) -> &Work {
        &self.work
    }

    /// Pool threads the job computes with: those it was given once started (at most its
    /// client's share), those it asks for before.
    pub fn threads(&self) -> usize {
        match self.granted.load(Relaxed) {
            0 => self.threads,
            n => n,
        }
    }

    /// How long the job has run, its runs before restarts included.
    pub fn run_time(&self) -> Duration {
        self.prior + self.status().elapsed()
    }

    /// Keeps the job's run time in the store (all its runs together).
    pub(super) fn record_run_time(&self) {
        if !self.store.is_durable() {
            return;
        }
        let ran_ms = i64::try_from(self.run_time().as_millis()).unwrap_or(i64::MAX);
        let op = WriteOp::Job(JobWrite::Ran {
            id: self.id,
            ran_ms,
        });
        if let Err(e) = self.store.queue(op) {
            tracing::debug!(job = %self.id, error = %e, "a job's run time was not stored");
        }
    }

    /// The work as this run computes it: with the threads the job was given.
    pub(super) fn work_granted(&self) -> Work {
        let granted = self.granted.load(Relaxed);
        let mut work = self.work.clone();
        if granted > 0 {
            match &mut work {
                Work::Perft(spec) if spec.threads > 0 => spec.threads = granted,
                Work::Chess2Perft(spec) => spec.threads = granted,
                Work::Puzzle(spec) => spec.threads = granted,
                Work::Perft(_) => {}
            }
        }
        work
    }

    pub(super) fn status(&self) -> MutexGuard<'_, Status> {
        // A panic while the lock was held cannot leave the status half-written in a way that
        // matters: every update is a plain assignment of finished values.
        self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current state.
    pub fn state(&self) -> JobState {
        self.status().state
    }

    /// A receiver of the job's state changes (it holds the current state already).
    pub fn subscribe(&self) -> watch::Receiver<JobState> {
        self.state_tx.subscribe()
    }

    /// Waits until the job has ended or `limit` has passed; returns whether it ended.
    pub async fn wait_finished(&self, limit: Duration) -> bool {
        let mut rx = self.subscribe();
        tokio::time::timeout(limit, rx.wait_for(|s| s.is_finished()))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Where the job is and what it has found, now.
    pub fn snapshot(&self) -> JobSnapshot {
        let status = self.status();
        JobSnapshot {
            state: status.state,
            elapsed: status.elapsed(),
            progress: status.progress,
            perft: status.perft.clone(),
            resumed: self.resume.len(),
            computed: status.computed,
            // A running search's count grows as it goes; an ended one's is in the status.
            nodes: status.nodes.max(self.searched.load(Relaxed)),
            solution: status.solution.clone(),
            error: status.error.clone(),
        }
    }

    pub(super) fn set_state(&self, status: &mut Status, state: JobState) {
        status.state = state;
        if state == JobState::Running {
            status.started = Some(Instant::now());
        }
        if state.is_finished() {
            status.ended = Some(Instant::now());
        }
        self.state_tx.send_replace(state);
    }

    /// Ends the job: keeps its end in the store (unless the server stopped it), then
    /// publishes it.
    pub(super) fn finish(&self, ending: Result<Outcome, JobEnd>, wait: Wait) {
        if let Some(commit) = self.record_end(&ending, wait) {
            match wait {
                Wait::Commit => {
                    if let Err(e) = commit.wait_blocking() {
                        tracing::warn!(job = %self.id, error = %e, "a job's end was not stored");
                    }
                }
                Wait::No => {
                    *self.end_commit.lock().unwrap_or_else(|e| e.into_inner()) = Some(commit)
                }
            }
        }
        self.publish_end(ending);
    }

    /// Records the end in memory and publishes it.
    pub(super) fn publish_end(&self, ending: Result<Outcome, JobEnd>) {
        let mut status = self.status();
        let state = match ending {
            Ok(Outcome::Perft(result)) => {
                status.progress = PerftProgress {
                    done: result.tasks,
                    total: result.tasks,
                    stats: result.stats,
                    elapsed: result.elapsed,
                };
                status.perft = Some(result);
                JobState::Done
            }
            Ok(Outcome::Puzzle(solution)) => {
                status.nodes = solution.nodes();
                status.solution = Some(Arc::new(solution));
                JobState::Done
            }
            Err(JobEnd::Cancelled) => JobState::Cancelled,
            Err(JobEnd::Failed(e)) => {
                status.error = Some(e);
                JobState::Failed
            }
        };
        self.set_state(&mut status, state);
        drop(status);
        self.permit.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Computes the job on this thread; a job the watchdog stopped fails with
    /// `job_timed_out`.
    pub(super) fn compute(&self) -> Result<Outcome, JobEnd> {
        let ending = self.compute_work();
        if matches!(ending, Err(JobEnd::Cancelled)) && self.timed_out.load(Relaxed) {
            return Err(JobEnd::Failed(JobError::TimedOut(format!(
                "the job ran {} s in all (its runs before restarts included), the limit \
                 jobs.max_run_secs: it was stopped",
                self.run_time().as_secs()
            ))));
        }
        ending
    }

    pub(super) fn compute_work(&self) -> Result<Outcome, JobEnd> {
        match &self.work_granted() {
            Work::Perft(spec) => {
                let run = JobRun {
                    id: self.id,
                    cancel: &self.cancel,
                    interrupted: &self.interrupted,
                    unverified: &self.unverified,
                };
                // A shared queue's workers store each result themselves.
                let stored = spec.workers.as_ref().is_some_and(|w| w.shared());
                spec.run_job(
                    &run,
                    &self.resume,
                    &mut |update| self.status().progress = update,
                    &mut |task, stats| {
                        self.status().computed += 1;
                        if !stored {
                            self.record_task(task, stats);
                        }
                    },
                )
                .map(Outcome::Perft)
            }
            Work::Chess2Perft(spec) => spec
                .run(
                    &self.cancel,
                    &self.resume,
                    &mut |update| self.status().progress = update,
                    &mut |task, stats| {
                        self.status().computed += 1;
                        self.record_task(task, stats);
                    },
                )
                .map(Outcome::Perft),
            Work::Puzzle(spec) => {
                let result = spec.run(&self.cancel, &self.searched);
                self.status().nodes = self.searched.load(Relaxed);
                result.map(Outcome::Puzzle)
            }
        }
    }

    /// Keeps a finished perft task. A write the store cannot take now is dropped: the task is
    /// counted again if the job has to resume.
    pub(super) fn record_task(&self, task: usize, stats: &PerftStats) {
        if !self.store.is_durable() {
            return;
        }
        let op = WriteOp::Job(JobWrite::Task {
            id: self.id,
            task: task as i64,
            result: record::task(stats),
            now_ms: now_ms(),
        });
        if let Err(e) = self.store.queue(op) {
            tracing::debug!(job = %self.id, task, error = %e, "a perft task was not stored");
        }
    }

    /// Keeps the start of a run.
    pub(super) fn record_start(&self) {
        if !self.store.is_durable() {
            return;
        }
        let op = WriteOp::Job(JobWrite::Start {
            id: self.id,
            now_ms: now_ms(),
        });
        if let Err(e) = self.store.queue(op) {
            tracing::warn!(job = %self.id, error = %e, "a job's start was not stored");
        }
    }

    /// Queues the end for the store, unless the server stopped the job. On the job's thread
    /// (`Wait::Commit`) a full queue is waited out.
    pub(super) fn record_end(
        &self,
        ending: &Result<Outcome, JobEnd>,
        wait: Wait,
    ) -> Option<Committed> {
        if !self.store.is_durable() || self.interrupted.load(Relaxed) {
            return None;
        }
        let unverified = self.unverified.load(Relaxed);
        let (state, result, error) = match ending {
            Ok(Outcome::Perft(r)) => ("done", Some(record::perft_result(r)), None),
            Ok(Outcome::Puzzle(s)) => ("done", Some(record::solution(s)), None),
            Err(JobEnd::Cancelled) => ("cancelled", None, None),
            Err(JobEnd::Failed(e)) => ("failed", None, Some(record::error(e))),
        };
        let op = WriteOp::Job(JobWrite::End {
            id: self.id,
            state,
            result,
            error,
            unverified: unverified && state == "done",
            now_ms: now_ms(),
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.store.queue(op.clone()) {
                Ok(commit) => return Some(commit),
                Err(crate::store::StoreError::Busy)
                    if wait == Wait::Commit && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => {
                    tracing::warn!(job = %self.id, error = %e, "a job's end was not stored");
                    return None;
                }
            }
        }
    }

    /// Waits until an end recorded off the job's thread is committed (a queued job
    /// cancelled); at once otherwise.
    pub async fn end_committed(&self) {
        let commit = self
            .end_commit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(commit) = commit {
            if let Err(e) = commit.wait().await {
                tracing::warn!(job = %self.id, error = %e, "a job's end was not stored");
            }
        }
    }
}
