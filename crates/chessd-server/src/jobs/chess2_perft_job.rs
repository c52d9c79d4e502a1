//! Chess 2 perft jobs: the leaf count of a Chess 2 position (`chessd_core::chess2::perft`),
//! split into the positions a few plies below the root, counted on the job's threads, with
//! progress, cancellation between tasks, and each finished task kept so that a job resumes
//! after a restart. Only node counts: the Grand Chess Tree statistics are standard chess's, and
//! its workers and the shared queue count standard positions only.

use std::{
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use chessd_core::{
    chess2::{self, Chess2Position},
    perft::{PerftProgress, PerftResult, PerftStats},
};

use crate::jobs::{error::JobEnd, limits::JobLimits, perft_job::TaskDone, JobError};

/// A checked Chess 2 perft request.
#[derive(Clone, Debug)]
pub struct Chess2PerftSpec {
    /// The position.
    pub pos: Chess2Position,
    /// Depth in plies (a Two Kings king turn is a ply).
    pub depth: u32,
    /// Threads counting the tasks.
    pub threads: usize,
}

/// Progress is reported at most this often.
const REPORT_EVERY: Duration = Duration::from_millis(50);

impl Chess2PerftSpec {
    /// Checks a request against the limits (`threads`: default the most a job may have).
    pub fn new(
        pos: Chess2Position,
        depth: u32,
        threads: Option<usize>,
        limits: &JobLimits,
    ) -> Result<Chess2PerftSpec, JobError> {
        let max_depth = limits.config.max_perft_depth;
        if depth > max_depth {
            return Err(JobError::LimitExceeded(format!(
                "depth {depth} is over the limit {} = {max_depth}",
                limits.key("perft_depth")
            )));
        }
        let max_threads = limits.max_threads();
        let threads = threads.unwrap_or(max_threads);
        if threads == 0 {
            return Err(JobError::InvalidRequest(
                "threads must be at least 1".into(),
            ));
        }
        if threads > max_threads {
            return Err(JobError::LimitExceeded(format!(
                "threads {threads} is over the limit {} = {max_threads}",
                limits.key("threads")
            )));
        }
        Ok(Chess2PerftSpec {
            pos,
            depth,
            threads,
        })
    }

    /// The plies below the root where the work is split: enough tasks to share among the
    /// threads and to cancel between, never the whole depth.
    pub fn split_plies(&self) -> u32 {
        self.depth.saturating_sub(1).min(2)
    }

    /// The positions `split_plies` below the root, in move-generation order (the same list
    /// whenever the job runs, so that stored task results line up).
    pub fn tasks(&self) -> Vec<Chess2Position> {
        let mut level = vec![self.pos];
        for _ in 0..self.split_plies() {
            level = level
                .iter()
                .flat_map(|p| p.legal_moves().into_iter().map(move |mv| p.after(mv)))
                .collect();
        }
        level
    }

    /// Counts the leaves, going on from the tasks `resume` holds, reporting progress through
    /// `report` and each task counted through `on_task`.
    pub fn run(
        &self,
        cancel: &AtomicBool,
        resume: &[TaskDone],
        report: &mut dyn FnMut(PerftProgress),
        on_task: &mut dyn FnMut(usize, &PerftStats),
    ) -> Result<PerftResult, JobEnd> {
        let started = Instant::now();
        let tasks = self.tasks();
        let below = self.depth - self.split_plies();
        let mut done = vec![false; tasks.len()];
        let mut nodes = 0u64;
        let mut finished = 0;
        for (index, stats) in resume {
            if let Some(slot) = done.get_mut(*index).filter(|d| !**d) {
                *slot = true;
                nodes += stats.nodes;
                finished += 1;
            }
        }
        let todo: Vec<usize> = (0..tasks.len()).filter(|&i| !done[i]).collect();
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<(usize, u64)>();
        let progress = |finished: usize, nodes: u64| PerftProgress {
            done: finished,
            total: tasks.len(),
            stats: PerftStats {
                nodes,
                ..PerftStats::default()
            },
            elapsed: started.elapsed(),
        };
        std::thread::scope(|scope| {
            for _ in 0..self.threads.min(todo.len()).max(1) {
                let tx = tx.clone();
                let (next, todo, tasks) = (&next, &todo, &tasks);
                scope.spawn(move || {
                    while !cancel.load(Ordering::Relaxed) {
                        let Some(&index) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        let count = chess2::perft(&tasks[index], below);
                        if tx.send((index, count)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut last_report = Instant::now();
            for (index, count) in rx {
                nodes += count;
                finished += 1;
                on_task(
                    index,
                    &PerftStats {
                        nodes: count,
                        ..PerftStats::default()
                    },
                );
                if last_report.elapsed() >= REPORT_EVERY {
                    report(progress(finished, nodes));
                    last_report = Instant::now();
                }
            }
        });
        if cancel.load(Ordering::Relaxed) && finished < tasks.len() {
            return Err(JobEnd::Cancelled);
        }
        report(progress(finished, nodes));
        Ok(PerftResult {
            depth: self.depth,
            stats: PerftStats {
                nodes,
                ..PerftStats::default()
            },
            divide: Vec::new(),
            split_plies: self.split_plies(),
            tasks: tasks.len(),
            threads: self.threads,
            elapsed: started.elapsed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessd_core::chess2::Army;

    fn limits() -> JobLimits {
        JobLimits::new(crate::config::Config::defaults().jobs)
    }

    #[test]
    fn split_counts_add_up_to_the_plain_perft_and_resume_skips_what_is_done() {
        let pos = Chess2Position::start(Army::TwoKings, Army::Animals);
        let plain = chess2::perft(&pos, 3);
        let spec = Chess2PerftSpec::new(pos, 3, Some(2), &limits()).unwrap();
        let mut seen = Vec::new();
        let result = spec
            .run(&AtomicBool::new(false), &[], &mut |_| {}, &mut |i, s| {
                seen.push((i, *s))
            })
            .unwrap();
        assert_eq!(result.nodes(), plain);
        assert_eq!(seen.len(), spec.tasks().len());
        // Resuming from half the tasks counts the others only, and the same total.
        let half: Vec<TaskDone> = seen.iter().take(seen.len() / 2).cloned().collect();
        let mut counted = 0;
        let again = spec
            .run(&AtomicBool::new(false), &half, &mut |_| {}, &mut |_, _| {
                counted += 1
            })
            .unwrap();
        assert_eq!(again.nodes(), plain);
        assert_eq!(counted, seen.len() - half.len());
    }

    #[test]
    fn a_cancelled_job_ends_cancelled() {
        let spec = Chess2PerftSpec::new(
            Chess2Position::start(Army::Classic, Army::Classic),
            4,
            Some(1),
            &limits(),
        )
        .unwrap();
        let cancel = AtomicBool::new(true);
        assert!(matches!(
            spec.run(&cancel, &[], &mut |_| {}, &mut |_, _| {}),
            Err(JobEnd::Cancelled)
        ));
    }
}
