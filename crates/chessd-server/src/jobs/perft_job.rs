//! Perft jobs: the parameters, their checks against the limits, and the computation, on the job
//! pool's threads with the core's parallel [`Perft`] or through a [`TaskRunner`] (the pool of
//! Grand Chess Tree workers, or a cluster's shared queue; both in `workers/`). Either way the
//! tasks are those of [`perft::split`] at a split depth chosen when the job is checked and kept
//! with it, so that a job interrupted by a restart resumes the very same task list.

use std::{
    sync::{atomic::AtomicBool, Arc},
    time::{Duration, Instant},
};

use chessd_core::{
    perft::{self, Perft, PerftProgress, PerftResult, PerftStats},
    Position,
};
use uuid::Uuid;

use super::{
    error::{JobEnd, JobError},
    limits::JobLimits,
    workers::runner::{PerftTask, Runners, TaskBatch, TaskRunner},
};

/// A perft as asked for: the position and the caller's choices, not yet checked against the
/// limits (`None`: the default).
#[derive(Clone, Debug)]
pub struct PerftParams {
    /// The position.
    pub pos: Position,
    /// Depth in plies.
    pub depth: u32,
    /// Collect leaf statistics.
    pub stats: bool,
    /// Pool threads (default: the most a job may have).
    pub threads: Option<usize>,
    /// Hash table in MiB (default 0: none).
    pub hash_mb: Option<usize>,
    /// Hand the tasks to the configured Grand Chess Tree workers (default: true when any are
    /// configured).
    pub workers: Option<bool>,
}

/// A checked perft job.
#[derive(Clone)]
pub struct PerftSpec {
    /// The position.
    pub pos: Position,
    /// Depth in plies.
    pub depth: u32,
    /// Whether leaf statistics are collected.
    pub stats: bool,
    /// Pool threads (0 when workers compute).
    pub threads: usize,
    /// Hash table in MiB.
    pub hash_mb: usize,
    /// The workers that compute, if any.
    pub workers: Option<Arc<dyn TaskRunner>>,
    /// Plies below the root where the tasks are taken (fixes the task list).
    pub split_plies: u32,
}

/// A finished task: its index in the split and the statistics of one occurrence of its
/// position (only `nodes` without statistics).
pub(crate) type TaskDone = (usize, PerftStats);

/// The job a perft runs as.
pub struct JobRun<'a> {
    /// The job's id (the shared queue's tasks are its).
    pub id: Uuid,
    /// The job's cancel flag.
    pub cancel: &'a Arc<AtomicBool>,
    /// Set when another node took the job over: it ends here without an end of its own.
    pub interrupted: &'a AtomicBool,
    /// Set when its result holds task results of remote workers that no node counted again.
    pub unverified: &'a AtomicBool,
}

impl std::fmt::Debug for PerftSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerftSpec")
            .field("fen", &self.pos.fen())
            .field("depth", &self.depth)
            .field("stats", &self.stats)
            .field("threads", &self.threads)
            .field("hash_mb", &self.hash_mb)
            .field("workers", &self.worker_names())
            .field("split_plies", &self.split_plies)
            .finish()
    }
}

impl PerftSpec {
    /// Checks parameters against the limits; `runners` are what may compute the tasks besides
    /// the job's own threads.
    pub fn from_params(
        req: &PerftParams,
        limits: &JobLimits,
        runners: &Runners,
    ) -> Result<PerftSpec, JobError> {
        let jobs = &limits.config;
        if req.depth > jobs.max_perft_depth {
            return Err(limit(format!(
                "depth {} is over the limit {} = {}",
                req.depth,
                limits.key("perft_depth"),
                jobs.max_perft_depth
            )));
        }
        let max_threads = limits.max_threads();
        let threads = req.threads.unwrap_or(max_threads);
        if threads == 0 {
            return Err(JobError::InvalidRequest(
                "threads must be at least 1".into(),
            ));
        }
        if threads > max_threads {
            return Err(limit(format!(
                "threads {threads} is over the limit {} = {max_threads}",
                limits.key("threads")
            )));
        }
        let hash_mb = req.hash_mb.unwrap_or(0);
        if hash_mb > jobs.max_hash_mb {
            return Err(limit(format!(
                "hash_mb {hash_mb} is over the limit {} = {}",
                limits.key("hash_mb"),
                jobs.max_hash_mb
            )));
        }
        let shared = runners
            .shared
            .as_ref()
            .filter(|(_, task_depth)| *task_depth > 0 && req.depth > *task_depth);
        let (workers, split_plies) = match (req.workers, &runners.workers, shared) {
            (Some(true), None, _) => {
                return Err(JobError::InvalidRequest(
                    "no Grand Chess Tree workers are configured (gct_workers)".into(),
                ))
            }
            (None, _, Some((queue, task_depth))) => (
                Some(Arc::clone(queue)),
                shared_split_plies(&req.pos, req.depth, *task_depth),
            ),
            (Some(false), ..) | (None, None, _) => {
                (None, local_split_plies(&req.pos, req.depth, threads))
            }
            (_, Some(w), _) => (
                Some(Arc::clone(w)),
                worker_split_plies(&req.pos, req.depth, w.names().len().max(1)),
            ),
        };
        Ok(PerftSpec {
            pos: req.pos,
            depth: req.depth,
            stats: req.stats,
            threads: if workers.is_some() { 0 } else { threads },
            hash_mb,
            workers,
            split_plies,
        })
    }

    /// The names of the workers computing (empty: local threads).
    pub fn worker_names(&self) -> Vec<String> {
        self.workers.as_ref().map(|w| w.names()).unwrap_or_default()
    }

    /// Runs the perft, going on from the tasks `resume` holds (finished before a restart),
    /// reporting progress (about every 50 ms) through `report` and each task it counts through
    /// `on_task`.
    pub fn run(
        &self,
        cancel: &Arc<AtomicBool>,
        resume: &[TaskDone],
        report: &mut dyn FnMut(PerftProgress),
        on_task: &mut dyn FnMut(usize, &PerftStats),
    ) -> Result<PerftResult, JobEnd> {
        let (interrupted, unverified) = (AtomicBool::new(false), AtomicBool::new(false));
        let job = JobRun {
            id: Uuid::nil(),
            cancel,
            interrupted: &interrupted,
            unverified: &unverified,
        };
        self.run_job(&job, resume, report, on_task)
    }

    /// [`PerftSpec::run`] as job `job.id`, which a runner may mark `job.interrupted`.
    pub fn run_job(
        &self,
        job: &JobRun<'_>,
        resume: &[TaskDone],
        report: &mut dyn FnMut(PerftProgress),
        on_task: &mut dyn FnMut(usize, &PerftStats),
    ) -> Result<PerftResult, JobEnd> {
        match &self.workers {
            Some(workers) if self.depth > 0 => {
                self.run_on_workers(workers.as_ref(), job, resume, report, on_task)
            }
            _ => self.run_local(job.cancel, resume, report, on_task),
        }
    }

    fn run_local(
        &self,
        cancel: &AtomicBool,
        resume: &[TaskDone],
        report: &mut dyn FnMut(PerftProgress),
        on_task: &mut dyn FnMut(usize, &PerftStats),
    ) -> Result<PerftResult, JobEnd> {
        Perft::new(self.pos)
            .depth(self.depth)
            .threads(self.threads.max(1))
            .hash_mb(self.hash_mb)
            .stats(self.stats)
            .split_plies(self.split_plies)
            .resume(resume)
            .cancel(cancel)
            .run_tasks(|p| report(*p), |i, s| on_task(i, s))
            .map_err(|_| JobEnd::Cancelled)
    }

    /// Splits the root into unique positions, hands those not finished yet to the workers and
    /// multiplies each result by its occurrence count.
    fn run_on_workers(
        &self,
        workers: &dyn TaskRunner,
        job: &JobRun<'_>,
        resume: &[TaskDone],
        report: &mut dyn FnMut(PerftProgress),
        on_task: &mut dyn FnMut(usize, &PerftStats),
    ) -> Result<PerftResult, JobEnd> {
        let cancel = job.cancel;
        let start = Instant::now();
        let plies = self.split_plies.min(self.depth.saturating_sub(1));
        let split = perft::split(&self.pos, plies);
        let total = split.len();
        let mut seen = vec![false; total];
        let mut update = PerftProgress {
            done: 0,
            total,
            stats: PerftStats::default(),
            elapsed: Duration::ZERO,
        };
        for (i, stats) in resume {
            if let Some((_, count)) = split.get(*i) {
                if !std::mem::replace(&mut seen[*i], true) {
                    update.stats += self.tally(*stats) * *count;
                    update.done += 1;
                }
            }
        }
        if workers.shared() && update.done > 0 {
            // Taken back from the store: who counted them (a node, a remote worker) is not
            // known here, so the result is not answered to later requests.
            job.unverified
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        // The tasks left, and the index in the split of each.
        let left: Vec<usize> = (0..total).filter(|i| !seen[*i]).collect();
        let tasks: Vec<PerftTask> = left
            .iter()
            .map(|&i| PerftTask {
                index: i,
                fen: split[i].0.fen(),
                depth: self.depth - plies,
                occurrences: split[i].1,
            })
            .collect();
        report(update);
        let mut last_report = Instant::now();
        let outcome = if tasks.is_empty() {
            Ok(())
        } else {
            let batch = TaskBatch {
                job: job.id,
                tasks,
                stats: self.stats,
                cancel: Arc::clone(cancel),
                interrupted: job.interrupted,
                unverified: job.unverified,
            };
            workers.run(batch, &mut |j, stats| {
                let Some(&i) = left.get(j) else {
                    return;
                };
                if std::mem::replace(&mut seen[i], true) {
                    return; // a requeued task reported twice: count it once
                }
                let stats = self.tally(stats);
                on_task(i, &stats);
                update.stats += stats * split[i].1;
                update.done += 1;
                if last_report.elapsed() >= Duration::from_millis(50) {
                    last_report = Instant::now();
                    update.elapsed = start.elapsed();
                    report(update);
                }
            })
        };
        if cancel.load(std::sync::atomic::Ordering::Relaxed)
            || job.interrupted.load(std::sync::atomic::Ordering::Relaxed)
        {
            return Err(JobEnd::Cancelled);
        }
        match outcome {
            Ok(()) => {}
            Err(JobError::Internal(e)) => {
                return Err(JobEnd::Failed(JobError::Internal(format!(
                    "the Grand Chess Tree workers failed: {e}"
                ))))
            }
            Err(e) => return Err(JobEnd::Failed(e)),
        }
        if update.done < total {
            return Err(JobEnd::Failed(JobError::Internal(format!(
                "the workers finished {} of {total} tasks",
                update.done
            ))));
        }
        let elapsed = start.elapsed();
        update.elapsed = elapsed;
        report(update);
        Ok(PerftResult {
            depth: self.depth,
            stats: update.stats,
            divide: Vec::new(),
            split_plies: plies,
            tasks: total,
            threads: 0,
            elapsed,
        })
    }
}

impl PerftSpec {
    /// What the job counts of a task's statistics: all of them, or only the nodes.
    fn tally(&self, stats: PerftStats) -> PerftStats {
        if self.stats {
            stats
        } else {
            PerftStats::from_nodes(stats.nodes)
        }
    }
}

/// How far below the root the pool's tasks are taken, as the core would choose: about 64 tasks
/// per thread and at least 1024 (counting move sequences, which bounds the unique positions
/// from above), at most `depth - 3` plies (5 at most) from depth 5 on, `depth - 2` at depths 3
/// and 4, none below.
fn local_split_plies(pos: &Position, depth: u32, threads: usize) -> u32 {
    let deepest = match depth {
        0..=2 => 0,
        3 | 4 => depth - 2,
        _ => (depth - 3).min(5),
    };
    let target = (64 * threads as u64).max(1024);
    let mut plies = 0;
    while plies < deepest && perft::perft(pos, plies) < target {
        plies += 1;
    }
    plies
}

/// How far below the root worker tasks are taken: at least 16 tasks per worker, at most 3
/// plies, and at least one ply left to each task.
fn worker_split_plies(pos: &Position, depth: u32, workers: usize) -> u32 {
    let deepest = depth.saturating_sub(1).min(3);
    let mut plies = 0;
    while plies < deepest && perft::perft(pos, plies) < 16 * workers as u64 {
        plies += 1;
    }
    plies
}

/// How far below the root a cluster's shared tasks are taken: each task counts `task_depth`
/// plies when the job is deep enough for that, and the split goes no further once it has 1024
/// tasks (counting move sequences), so that the queue stays a few thousand rows at most.
fn shared_split_plies(pos: &Position, depth: u32, task_depth: u32) -> u32 {
    let deepest = depth.saturating_sub(task_depth.max(1));
    let mut plies = 0;
    while plies < deepest && perft::perft(pos, plies) < 1024 {
        plies += 1;
    }
    plies
}

fn limit(message: String) -> JobError {
    JobError::LimitExceeded(message)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering::Relaxed;

    use chessd_core::FenMode;

    use super::*;
    use crate::config::Config;

    /// Computes tasks on the calling thread, as a worker would, in reverse order and reporting
    /// one task twice (as after a requeue).
    struct LocalRunner;

    impl TaskRunner for LocalRunner {
        fn names(&self) -> Vec<String> {
            vec!["a".into(), "b".into()]
        }

        fn run(
            &self,
            batch: TaskBatch<'_>,
            on_done: &mut dyn FnMut(usize, PerftStats),
        ) -> Result<(), JobError> {
            for (i, t) in batch.tasks.iter().enumerate().rev() {
                if batch.cancel.load(Relaxed) {
                    return Ok(());
                }
                let pos = Position::from_fen(&t.fen, FenMode::Lenient)
                    .map_err(|e| JobError::Internal(e.to_string()))?;
                let stats = perft::perft_stats(&pos, t.depth);
                on_done(i, stats);
                if i == 0 {
                    on_done(i, stats);
                }
            }
            Ok(())
        }
    }

    fn limits() -> JobLimits {
        JobLimits::new(Config::defaults().jobs)
    }

    fn workers(runner: &Arc<dyn TaskRunner>) -> Runners {
        Runners {
            workers: Some(Arc::clone(runner)),
            shared: None,
        }
    }

    fn request(depth: u32) -> PerftParams {
        PerftParams {
            pos: Position::startpos(),
            depth,
            stats: true,
            threads: Some(1),
            hash_mb: None,
            workers: None,
        }
    }

    #[test]
    fn worker_tasks_multiply_back_to_the_local_totals() {
        let runner: Arc<dyn TaskRunner> = Arc::new(LocalRunner);
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let mut req = request(4);
        req.pos = Position::from_fen(kiwipete, FenMode::Lenient).unwrap();
        let spec = PerftSpec::from_params(&req, &limits(), &workers(&runner)).unwrap();
        assert_eq!(spec.threads, 0);
        assert_eq!(spec.worker_names(), ["a", "b"]);
        let cancel = Arc::new(AtomicBool::new(false));
        let mut updates = Vec::new();
        let mut tasks = Vec::new();
        let out = spec
            .run(&cancel, &[], &mut |u| updates.push(u), &mut |i, s| {
                tasks.push((i, *s))
            })
            .unwrap();
        let expected = perft::perft_stats(&spec.pos, 4);
        assert_eq!(out.stats.nodes, 4_085_603);
        assert_eq!(out.stats, expected);
        let last = updates.last().unwrap();
        assert_eq!((last.done, last.total), (out.tasks, out.tasks));
        assert!(out.tasks >= 32, "{} tasks", out.tasks);
        // Each task once (the one reported twice is counted once).
        assert_eq!(tasks.len(), out.tasks);
        // Resumed from half of them, on workers or on threads: the same totals, the other half
        // counted.
        let half: Vec<TaskDone> = tasks.iter().filter(|(i, _)| i % 2 == 0).copied().collect();
        let mut again = Vec::new();
        let resumed = spec
            .run(&cancel, &half, &mut |_| {}, &mut |i, _| again.push(i))
            .unwrap();
        assert_eq!(resumed.stats, expected);
        assert_eq!(again.len() + half.len(), out.tasks);
        assert!(again.iter().all(|i| i % 2 == 1));
        let mut local = spec.clone();
        local.workers = None;
        local.threads = 2;
        let mut counted = 0;
        let resumed = local
            .run(&cancel, &half, &mut |_| {}, &mut |_, _| counted += 1)
            .unwrap();
        assert_eq!((resumed.stats, resumed.tasks), (expected, out.tasks));
        assert_eq!(counted + half.len(), out.tasks);
    }

    /// A cluster's shared queue, as far as choosing it goes.
    struct Queue;

    impl TaskRunner for Queue {
        fn names(&self) -> Vec<String> {
            vec!["cluster".into()]
        }

        fn shared(&self) -> bool {
            true
        }

        fn run(
            &self,
            _: TaskBatch<'_>,
            _: &mut dyn FnMut(usize, PerftStats),
        ) -> Result<(), JobError> {
            Err(JobError::Internal("not here".into()))
        }
    }

    #[test]
    fn jobs_deeper_than_a_shared_task_go_to_the_shared_queue_unless_they_choose() {
        let gct: Arc<dyn TaskRunner> = Arc::new(LocalRunner);
        let runners = Runners {
            workers: Some(Arc::clone(&gct)),
            shared: Some((Arc::new(Queue), 4)),
        };
        let shared = |spec: &PerftSpec| spec.workers.as_ref().is_some_and(|w| w.shared());
        // Deeper than a task: shared, each task `task_depth` plies deep.
        let spec = PerftSpec::from_params(&request(5), &limits(), &runners).unwrap();
        assert!(shared(&spec));
        assert_eq!((spec.split_plies, spec.threads), (1, 0));
        // Deep jobs stop splitting once there are 1024 move sequences: 8902 at 3 plies.
        let spec = PerftSpec::from_params(&request(9), &limits(), &runners).unwrap();
        assert_eq!(spec.split_plies, 3);
        // Not deeper than a task: where it would run without a cluster (the workers here).
        let spec = PerftSpec::from_params(&request(4), &limits(), &runners).unwrap();
        assert_eq!(spec.worker_names(), ["a", "b"]);
        // Asking for the workers, or declining them, chooses.
        let mut req = request(6);
        req.workers = Some(true);
        let spec = PerftSpec::from_params(&req, &limits(), &runners).unwrap();
        assert!(!shared(&spec) && spec.workers.is_some());
        req.workers = Some(false);
        let spec = PerftSpec::from_params(&req, &limits(), &runners).unwrap();
        assert!(spec.workers.is_none());
        assert_eq!(spec.threads, 1);
        // A depth of 0 shares nothing.
        let none = Runners {
            workers: None,
            shared: Some((Arc::new(Queue), 0)),
        };
        let spec = PerftSpec::from_params(&request(7), &limits(), &none).unwrap();
        assert!(spec.workers.is_none());
        // A shared job read back: shared again where there is a queue, threads where not.
        let spec = PerftSpec::from_params(&request(6), &limits(), &runners).unwrap();
        let text = super::super::record::perft_request(&spec);
        let back = super::super::record::read_perft_request(&text, &limits(), &runners).unwrap();
        assert!(shared(&back));
        assert_eq!(back.split_plies, spec.split_plies);
        let back = super::super::record::read_perft_request(&text, &limits(), &Runners::default())
            .unwrap();
        assert!(back.workers.is_none());
        assert_eq!(back.threads, limits().max_threads());
        assert_eq!(back.split_plies, spec.split_plies);
    }

    #[test]
    fn workers_can_be_declined_and_are_required_when_asked_for() {
        let runner: Arc<dyn TaskRunner> = Arc::new(LocalRunner);
        let mut req = request(3);
        req.workers = Some(false);
        let spec = PerftSpec::from_params(&req, &limits(), &workers(&runner)).unwrap();
        assert!(spec.workers.is_none());
        assert_eq!(spec.threads, 1);
        req.workers = Some(true);
        let err = PerftSpec::from_params(&req, &limits(), &Runners::default()).unwrap_err();
        assert_eq!(err.code(), "invalid_request");
    }

    #[test]
    fn limits_name_the_setting() {
        let l = limits();
        let mut req = request(l.config.max_perft_depth + 1);
        let err = PerftSpec::from_params(&req, &l, &Runners::default()).unwrap_err();
        assert_eq!(err.code(), "limit_exceeded");
        assert!(
            err.to_string().contains("jobs.max_perft_depth"),
            "{}",
            err.to_string()
        );
        req.depth = 1;
        req.threads = Some(l.max_threads() + 1);
        let err = PerftSpec::from_params(&req, &l, &Runners::default()).unwrap_err();
        assert!(
            err.to_string().contains("jobs.max_threads"),
            "{}",
            err.to_string()
        );
        req.threads = None;
        req.hash_mb = Some(l.config.max_hash_mb + 1);
        let err = PerftSpec::from_params(&req, &l, &Runners::default()).unwrap_err();
        assert!(
            err.to_string().contains("jobs.max_hash_mb"),
            "{}",
            err.to_string()
        );
    }

    #[test]
    fn split_depth_for_the_pool() {
        let start = Position::startpos();
        assert_eq!(local_split_plies(&start, 2, 2), 0);
        assert_eq!(local_split_plies(&start, 4, 2), 2);
        // 400 sequences after two plies are too few: three (8902).
        assert_eq!(local_split_plies(&start, 6, 2), 3);
        assert_eq!(local_split_plies(&start, 9, 64), 3);
        assert_eq!(local_split_plies(&start, 9, 200), 4);
    }

    #[test]
    fn split_depth_for_workers() {
        let start = Position::startpos();
        assert_eq!(worker_split_plies(&start, 1, 2), 0);
        assert_eq!(worker_split_plies(&start, 2, 2), 1);
        assert_eq!(worker_split_plies(&start, 6, 2), 2);
        assert_eq!(worker_split_plies(&start, 9, 100), 3);
    }
}
