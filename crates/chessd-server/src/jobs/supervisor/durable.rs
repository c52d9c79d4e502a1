//! The supervisor and the store: answering a request from an earlier identical result,
//! starting a job once its creation is committed, finding a job the supervisor no longer
//! holds, and taking the store's jobs back at start.
//!
//! Decisions (see `docs/api.md`, Jobs):
//! - A request answered from the store is a **new job** (a new id and secret), created done
//!   with the stored result and `cached: true`, and kept like any job: its creator can read it
//!   by its own id (also after a restart) and `DELETE` it with its secret (a finished job is
//!   answered unchanged), exactly as for a computed job. The earlier job is left as it is.
//! - Only jobs that ended `done` are answered again; cancelled and failed ones never are.
//! - At start, queued and running perft jobs resume from their finished tasks; puzzles start
//!   again from scratch (a mate search cannot resume, and its time limit bounds the work
//!   redone), at most [`MAX_PUZZLE_RUNS`] times. Cancelled jobs stay cancelled.
//! - The store keeps every job and result (answering repeats and `GET` by id forever);
//!   `jobs.keep_finished_secs` and `jobs.keep_finished_max` bound what is held in memory and
//!   listed, and at start the jobs that ended within that window are held again.

use std::{
    sync::{atomic::Ordering::Relaxed, Arc},
    time::{Duration, Instant},
};

use uuid::Uuid;

use super::{refused, Inner, Job, JobSupervisor, Outcome, Table, Wait, Work};
use crate::{
    admission::Permit,
    jobs::{
        chess2_perft_job::Chess2PerftSpec,
        error::{JobEnd, JobError},
        perft_job::{PerftParams, PerftSpec, TaskDone},
        puzzle_job::{PuzzleParams, PuzzleSpec},
        record,
        state::JobKind,
    },
    store::{now_ms, JobWrite, NewJobRow, StoreError, StoredJob, WriteOp},
};

/// Starts of a puzzle after which a restart no longer starts it: a puzzle that brought the
/// server down must not do so at every start.
pub(super) const MAX_PUZZLE_RUNS: i64 = 3;

/// The kind, request key and stored request of work.
fn request_of(work: &Work) -> (&'static str, String, String) {
    match work {
        Work::Perft(spec) => (
            "perft",
            record::perft_key(spec),
            record::perft_request(spec),
        ),
        Work::Chess2Perft(spec) => (
            "chess2_perft",
            record::chess2_perft_key(spec),
            record::chess2_perft_request(spec),
        ),
        Work::Puzzle(spec) => (
            "puzzle",
            record::puzzle_key(spec),
            record::puzzle_request(spec),
        ),
    }
}

/// The store's write creating `job`, queued.
pub(super) fn creation(job: &Job, node: Option<&str>) -> WriteOp {
    let (kind, request_key, request) = request_of(&job.work);
    WriteOp::Job(JobWrite::Create(NewJobRow {
        id: job.id,
        kind,
        request_key,
        request,
        state: "queued",
        result: None,
        secret: job.digest.to_vec(),
        cached: false,
        created_ms: now_ms(),
        node: node.map(str::to_string),
    }))
}

/// The result of `work` read from its stored form.
fn read_outcome(work: &Work, text: &str) -> Result<Outcome, String> {
    match work {
        Work::Perft(spec) => record::read_perft_result(text, spec.depth).map(Outcome::Perft),
        Work::Chess2Perft(spec) => record::read_perft_result(text, spec.depth).map(Outcome::Perft),
        Work::Puzzle(_) => record::read_solution(text).map(Outcome::Puzzle),
    }
}

impl JobSupervisor {
    /// The limits a client is checked against: the lower `jobs.anonymous_*` ones for a
    /// client without an API key.
    fn limits_for(&self, anonymous: bool) -> std::borrow::Cow<'_, crate::jobs::JobLimits> {
        if anonymous {
            std::borrow::Cow::Owned(self.inner.limits.anonymous())
        } else {
            std::borrow::Cow::Borrowed(&self.inner.limits)
        }
    }

    /// The most threads a job of a client (`anonymous`: without an API key) may run on: its
    /// limit of threads, within its share of the pool.
    pub fn client_threads(&self, anonymous: bool) -> usize {
        let limits = self.limits_for(anonymous);
        limits.max_threads().min(limits.client_threads()).max(1)
    }

    /// A perft request checked against the limits (`anonymous`: of a client without an API
    /// key).
    pub fn perft_work(&self, req: &PerftParams, anonymous: bool) -> Result<Work, JobError> {
        PerftSpec::from_params(req, &self.limits_for(anonymous), &self.inner.runners())
            .map(Work::Perft)
    }

    /// A Chess 2 perft request checked against the limits (`anonymous`: of a client without
    /// an API key).
    pub fn chess2_perft_work(
        &self,
        pos: chessd_core::chess2::Chess2Position,
        depth: u32,
        threads: Option<usize>,
        anonymous: bool,
    ) -> Result<Work, JobError> {
        Chess2PerftSpec::new(pos, depth, threads, &self.limits_for(anonymous))
            .map(Work::Chess2Perft)
    }

    /// A puzzle request checked against the limits (`anonymous`: of a client without an API
    /// key).
    pub fn puzzle_work(&self, req: &PuzzleParams, anonymous: bool) -> Result<Work, JobError> {
        PuzzleSpec::from_params(req, &self.limits_for(anonymous)).map(Work::Puzzle)
    }

    /// When a job of the same request (by its request key) is done in the store: a new job,
    /// done with its result and marked cached, committed before it is returned. Nothing is
    /// computed and no pool thread is taken. `None` otherwise (and always in memory).
    pub async fn cached_job(&self, work: &Work) -> Result<Option<Arc<Job>>, JobError> {
        let inner = &self.inner;
        if !inner.store.is_durable() {
            return Ok(None);
        }
        let (kind, request_key, request) = request_of(work);
        let Some(done) = inner.store.done_job(&request_key).await? else {
            return Ok(None);
        };
        let Some(result) = done.result else {
            return Ok(None);
        };
        let outcome = match read_outcome(work, &result) {
            Ok(outcome) => outcome,
            Err(e) => {
                tracing::warn!(job = %done.id, error = %e, "a stored result does not read");
                return Ok(None);
            }
        };
        let mut job = Job::new(work.clone(), None, inner.store.clone());
        job.cached = true;
        job.publish_end(Ok(outcome));
        let row = NewJobRow {
            id: job.id,
            kind,
            request_key,
            request,
            state: "done",
            result: Some(result),
            secret: job.digest.to_vec(),
            cached: true,
            created_ms: now_ms(),
            node: None,
        };
        inner
            .store
            .queue(WriteOp::Job(JobWrite::Create(row)))?
            .wait()
            .await?;
        let job = Arc::new(job);
        let mut table = inner.lock();
        inner.sweep(&mut table);
        inner.hold(&mut table, &job, false);
        Ok(Some(job))
    }

    /// Queues checked work and returns once its creation is committed. When the store fails,
    /// the job is stopped (it was not kept) and the error returned.
    pub async fn start(&self, work: Work, permit: Option<Permit>) -> Result<Arc<Job>, JobError> {
        let (job, commit) = self.submit_queued(work, permit)?;
        if let Err(e) = commit.wait().await {
            job.interrupted.store(true, Relaxed);
            let mut table = self.inner.lock();
            self.inner.stop(&mut table, &job);
            return Err(e.into());
        }
        Ok(job)
    }

    /// The job with this id (text from a URL) and kind: held, or else read from the store.
    pub async fn find(&self, id: &str, kind: JobKind) -> Result<Arc<Job>, JobError> {
        match self.get(id, kind) {
            Err(JobError::NotFound(message)) => self
                .stored(id, kind)
                .await?
                .ok_or(JobError::NotFound(message)),
            held => held,
        }
    }

    /// [`JobSupervisor::cancel`], for a job read from the store too (one no longer held has
    /// ended: it is answered as it is, to its creator only).
    pub async fn cancel_any(
        &self,
        id: &str,
        kind: JobKind,
        token: Option<&str>,
    ) -> Result<Arc<Job>, JobError> {
        match self.cancel(id, kind, token) {
            Err(JobError::NotFound(message)) => {
                let job = self
                    .stored(id, kind)
                    .await?
                    .ok_or(JobError::NotFound(message))?;
                if !job.is_secret(token) {
                    return Err(refused(token.is_some()));
                }
                Ok(job)
            }
            other => other,
        }
    }

    /// A job read from the store, as it was stored.
    async fn stored(&self, id: &str, kind: JobKind) -> Result<Option<Arc<Job>>, JobError> {
        let Ok(uuid) = Uuid::parse_str(id) else {
            return Ok(None);
        };
        let Some(row) = self.inner.store.load_job(&uuid).await? else {
            return Ok(None);
        };
        if row.kind != kind.as_str() {
            return Ok(None);
        }
        self.inner
            .job_from_row(&row, Vec::new())
            .map(|job| Some(Arc::new(job)))
            .map_err(JobError::Internal)
    }

    /// Takes back the store's jobs at start: those queued or running start again (a perft
    /// from its finished tasks), in their order; those that ended within
    /// `jobs.keep_finished_secs` (at most `jobs.keep_finished_max`) are held again. Returns
    /// how many jobs start again.
    pub async fn restore(&self) -> Result<usize, StoreError> {
        let inner = &self.inner;
        if !inner.store.is_durable() {
            return Ok(0);
        }
        let config = &inner.limits.config;
        let keep_ms = i64::try_from(config.keep_finished_secs)
            .unwrap_or(i64::MAX)
            .saturating_mul(1000);
        let max = i64::try_from(config.keep_finished_max).unwrap_or(i64::MAX);
        let mut held: Vec<(i64, Arc<Job>, bool)> = Vec::new();
        for row in inner
            .store
            .jobs_ended_since(now_ms().saturating_sub(keep_ms), max)
            .await?
        {
            match inner.job_from_row(&row, Vec::new()) {
                Ok(job) => held.push((row.seq, Arc::new(job), false)),
                Err(e) => tracing::warn!(job = %row.id, error = %e, "a stored job does not read"),
            }
        }
        let rows = inner.store.unfinished_jobs().await?;
        let resumed = self.resume_rows(rows, &mut held).await?;
        held.sort_by_key(|(seq, ..)| *seq);
        let mut table = inner.lock();
        for (_, job, queue) in &held {
            inner.hold(&mut table, job, *queue);
        }
        inner.dispatch(&mut table, inner);
        Ok(resumed)
    }

    /// Takes over jobs this node claimed in a cluster (their node died): each starts again
    /// from its finished tasks. Returns how many start again.
    pub async fn adopt(&self, ids: &[uuid::Uuid]) -> Result<usize, StoreError> {
        let mut rows = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(row) = self.inner.store.load_job(id).await? {
                rows.push(row);
            }
        }
        let mut held = Vec::new();
        let resumed = self.resume_rows(rows, &mut held).await?;
        held.sort_by_key(|(seq, ..)| *seq);
        let inner = &self.inner;
        let mut table = inner.lock();
        for (_, job, queue) in &held {
            inner.hold(&mut table, job, *queue);
        }
        inner.dispatch(&mut table, inner);
        Ok(resumed)
    }

    /// Unfinished stored jobs made ready to start again (into `held`, queued); a puzzle that
    /// started too often is failed instead. Returns how many start again.
    async fn resume_rows(
        &self,
        rows: Vec<StoredJob>,
        held: &mut Vec<(i64, Arc<Job>, bool)>,
    ) -> Result<usize, StoreError> {
        let inner = &self.inner;
        let mut resumed = 0;
        for row in rows {
            let resume = self.finished_tasks(&row).await?;
            let job = match inner.job_from_row(&row, resume) {
                Ok(job) => Arc::new(job),
                Err(e) => {
                    tracing::warn!(job = %row.id, error = %e, "a stored job cannot start again");
                    inner.fail_row(&row, &e);
                    continue;
                }
            };
            if row.kind == "puzzle" && row.runs >= MAX_PUZZLE_RUNS {
                let e = JobError::Internal(format!(
                    "the server stopped {} times while this puzzle was solved: it is not \
                     started again",
                    row.runs
                ));
                job.finish(Err(JobEnd::Failed(e)), Wait::No);
                held.push((row.seq, job, false));
                continue;
            }
            tracing::info!(job = %row.id, kind = %row.kind, tasks = job.resume.len(), "job resumed");
            held.push((row.seq, job, true));
            resumed += 1;
        }
        Ok(resumed)
    }

    /// The finished tasks of a stored perft job (none for a puzzle). A task that does not
    /// read is left out: it is counted again.
    async fn finished_tasks(&self, row: &StoredJob) -> Result<Vec<TaskDone>, StoreError> {
        if row.kind != "perft" {
            return Ok(Vec::new());
        }
        let mut done = Vec::new();
        for task in self.inner.store.job_tasks(&row.id).await? {
            match (usize::try_from(task.task), record::read_task(&task.result)) {
                (Ok(index), Ok(stats)) => done.push((index, stats)),
                (_, Err(e)) => tracing::warn!(job = %row.id, error = %e, "a stored task"),
                (Err(_), _) => tracing::warn!(job = %row.id, task = task.task, "a stored task"),
            }
        }
        Ok(done)
    }
}

impl Inner {
    /// Holds a job, after those held already; queued for the pool when `queue`.
    pub(super) fn hold(&self, table: &mut Table, job: &Arc<Job>, queue: bool) {
        table.created += 1;
        let order = table.created;
        table.jobs.insert(job.id, (order, Arc::clone(job)));
        if queue {
            table.queue.push_back(Arc::clone(job));
        }
    }

    /// A job as stored, holding `resume`: ended as it ended (at the time it ended, having run
    /// for its result's time), or queued when it had not ended.
    fn job_from_row(&self, row: &StoredJob, resume: Vec<TaskDone>) -> Result<Job, String> {
        let work = match row.kind.as_str() {
            "perft" => Work::Perft(record::read_perft_request(
                &row.request,
                &self.limits,
                &self.runners(),
            )?),
            "chess2_perft" => Work::Chess2Perft(record::read_chess2_perft_request(
                &row.request,
                &self.limits,
            )?),
            "puzzle" => Work::Puzzle(record::read_puzzle_request(&row.request, &self.limits)?),
            other => return Err(format!("a stored job of an unknown kind: {other}")),
        };
        let digest: [u8; 32] = row
            .secret
            .as_slice()
            .try_into()
            .map_err(|_| "a stored secret digest is not 32 bytes".to_string())?;
        let mut job = Job::build(row.id, None, digest, work, None, self.store.clone());
        job.cached = row.cached;
        job.resume = resume;
        job.prior = Duration::from_millis(u64::try_from(row.ran_ms).unwrap_or(0));
        let ending = match row.state.as_str() {
            "queued" | "running" => return Ok(job),
            "done" => Ok(read_outcome(
                &job.work,
                row.result.as_deref().unwrap_or_default(),
            )?),
            "cancelled" => Err(JobEnd::Cancelled),
            "failed" => Err(JobEnd::Failed(row.error.as_deref().map_or_else(
                || JobError::Internal("failed".into()),
                record::read_error,
            ))),
            other => return Err(format!("a stored job in an unknown state: {other}")),
        };
        let ran = match &ending {
            Ok(Outcome::Perft(r)) if !row.cached => r.elapsed,
            Ok(Outcome::Puzzle(s)) if !row.cached => s.elapsed(),
            _ => Duration::ZERO,
        };
        job.publish_end(ending);
        let age = Duration::from_millis(u64::try_from(now_ms() - row.updated_ms).unwrap_or(0));
        let mut status = job.status();
        if let Some(ended) = Instant::now().checked_sub(age) {
            status.ended = Some(ended);
            status.started = (ran > Duration::ZERO)
                .then(|| ended.checked_sub(ran))
                .flatten();
        }
        drop(status);
        Ok(job)
    }

    /// Ends a stored job that cannot be read back as failed, in the store.
    fn fail_row(&self, row: &StoredJob, why: &str) {
        let e = JobError::Internal(format!("the job could not start again: {why}"));
        let op = WriteOp::Job(JobWrite::End {
            id: row.id,
            state: "failed",
            result: None,
            error: Some(record::error(&e)),
            unverified: false,
            now_ms: now_ms(),
        });
        if let Err(e) = self.store.queue(op) {
            tracing::warn!(job = %row.id, error = %e, "a job's end was not stored");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chessd_core::perft::perft_stats;

    use super::*;
    use crate::{
        config::Config,
        jobs::state::JobState,
        store::{SqliteSync, Store},
    };

    /// A supervisor over a fresh SQLite file (deleted by the caller with [`remove`]).
    async fn supervisor() -> (JobSupervisor, Store, String) {
        let path = std::env::temp_dir().join(format!("chessd-jobs-{}.sqlite", Uuid::new_v4()));
        let path = path.display().to_string();
        let store = Store::open(&format!("sqlite://{path}"), SqliteSync::Normal, 64)
            .await
            .unwrap();
        let mut config = Config::defaults().jobs;
        config.pool_threads = 1;
        (
            JobSupervisor::with_store(config, None, store.clone()),
            store,
            path,
        )
    }

    fn remove(path: &str) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{path}{suffix}"));
        }
    }

    fn creation_row(job: &Job) -> JobWrite {
        match creation(job, None) {
            WriteOp::Job(op) => op,
            other => panic!("{other:?}"),
        }
    }

    async fn write(store: &Store, op: JobWrite) {
        store.queue(WriteOp::Job(op)).unwrap().wait().await.unwrap();
    }

    async fn ended(job: &Job) -> JobState {
        assert!(
            job.wait_finished(Duration::from_secs(30)).await,
            "the job did not end"
        );
        job.state()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_restart_resumes_a_perft_from_its_tasks_and_gives_up_a_puzzle_stopped_three_times() {
        let (sup, store, path) = supervisor().await;
        // A perft stored as running, with its first 100 tasks finished.
        let params = PerftParams {
            pos: chessd_core::Position::startpos(),
            depth: 4,
            stats: true,
            threads: Some(1),
            hash_mb: None,
            workers: None,
        };
        let Work::Perft(spec) = sup.perft_work(&params, false).unwrap() else {
            unreachable!()
        };
        assert_eq!(spec.split_plies, 2);
        let perft = Job::new(Work::Perft(spec.clone()), None, store.clone());
        write(&store, creation_row(&perft)).await;
        write(
            &store,
            JobWrite::Start {
                id: perft.id,
                now_ms: now_ms(),
            },
        )
        .await;
        let split = chessd_core::perft::split(&spec.pos, 2);
        for (i, (pos, _)) in split.iter().enumerate().take(100) {
            let result = record::task(&perft_stats(pos, 2));
            write(
                &store,
                JobWrite::Task {
                    id: perft.id,
                    task: i as i64,
                    result: result.clone(),
                    now_ms: 0,
                },
            )
            .await;
            // A result written twice is kept once.
            write(
                &store,
                JobWrite::Task {
                    id: perft.id,
                    task: i as i64,
                    result,
                    now_ms: 0,
                },
            )
            .await;
        }
        // A puzzle started three times already.
        let puzzle = Job::new(
            sup.puzzle_work(
                &PuzzleParams {
                    pos: chessd_core::Position::startpos(),
                    mate_in: 2,
                    stipulation: None,
                    time_limit_ms: None,
                    find_all_keys: None,
                    threads: None,
                    find: false,
                    shortest: None,
                },
                false,
            )
            .unwrap(),
            None,
            store.clone(),
        );
        write(&store, creation_row(&puzzle)).await;
        for _ in 0..MAX_PUZZLE_RUNS {
            write(
                &store,
                JobWrite::Start {
                    id: puzzle.id,
                    now_ms: now_ms(),
                },
            )
            .await;
        }

        assert_eq!(sup.restore().await.unwrap(), 1);
        let resumed = sup
            .find(&perft.id.to_string(), JobKind::Perft)
            .await
            .unwrap();
        assert_eq!(ended(&resumed).await, JobState::Done);
        let snap = resumed.snapshot();
        // The start position at depth 4 (tests/data/perft/perft_gct_stats.csv).
        let result = snap.perft.unwrap();
        assert_eq!((result.stats.nodes, result.stats.captures), (197_281, 1576));
        assert_eq!((snap.resumed, snap.computed), (100, split.len() - 100));
        let given_up = sup
            .find(&puzzle.id.to_string(), JobKind::Puzzle)
            .await
            .unwrap();
        assert_eq!(given_up.state(), JobState::Failed);
        assert_eq!(given_up.snapshot().error.unwrap().code(), "internal");
        // Both ends are stored: the perft without its tasks.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let p = store.load_job(&perft.id).await.unwrap().unwrap();
            let z = store.load_job(&puzzle.id).await.unwrap().unwrap();
            if p.state == "done" && z.state == "failed" {
                assert_eq!((p.runs, z.runs), (2, MAX_PUZZLE_RUNS));
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{p:?} {z:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(store.job_tasks(&perft.id).await.unwrap().is_empty());
        // Read back from the store alone, the perft is the same, and the same request is
        // answered from it.
        let other = JobSupervisor::with_store(Config::defaults().jobs, None, store.clone());
        let stored = other
            .find(&perft.id.to_string(), JobKind::Perft)
            .await
            .unwrap();
        assert_eq!(stored.snapshot().perft, resumed.snapshot().perft);
        let cached = other.cached_job(&Work::Perft(spec)).await.unwrap().unwrap();
        assert!(cached.cached());
        assert_eq!(cached.snapshot().perft, resumed.snapshot().perft);
        assert_ne!(cached.id(), perft.id);
        drop((sup, other));
        store.close().await;
        remove(&path);
    }
}
