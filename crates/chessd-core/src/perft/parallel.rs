//! Parallel perft: the root is split into unique positions a few plies down (see
//! [`super::split`]), and worker threads take them one at a time from a shared index. Each
//! result is multiplied by its occurrence count and summed, so the total does not depend on
//! the number of threads or on timing.
//!
//! ```
//! use chessd_core::{perft::Perft, Position};
//! let result = Perft::new(Position::startpos())
//!     .depth(4)
//!     .threads(2)
//!     .hash_mb(1)
//!     .stats(true)
//!     .run(|_progress| {})
//!     .expect("not cancelled");
//! assert_eq!(result.nodes(), 197_281);
//! assert_eq!(result.stats.captures, 1576);
//! ```

use std::{
    fmt,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed},
        mpsc::{self, RecvTimeoutError},
    },
    time::{Duration, Instant},
};

use super::{
    hash::{BulkHash, PerftHash, StatsHash},
    split::expand,
    stats::PerftStats,
    tally::{Counter, Tally},
};
use crate::{Move, Position};

/// How often (at most) the progress callback hears about finished tasks, and how often (at
/// least) it is called while tasks are running.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

/// A perft run to configure and start: depth, threads, hashing, statistics, divide.
#[derive(Clone, Debug)]
pub struct Perft<'a> {
    pos: Position,
    depth: u32,
    threads: usize,
    hash_mb: usize,
    stats: bool,
    divide: bool,
    split_plies: Option<u32>,
    cancel: Option<&'a AtomicBool>,
    bulk_table: Option<&'a BulkHash>,
    stats_table: Option<&'a StatsHash>,
    resume: &'a [(usize, PerftStats)],
}

/// Where a running perft stands, as handed to the progress callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftProgress {
    /// Tasks (unique split positions) finished.
    pub done: usize,
    /// Tasks in all.
    pub total: usize,
    /// The statistics of the finished tasks (only `nodes` without statistics mode).
    pub stats: PerftStats,
    /// Time since the run started.
    pub elapsed: Duration,
}

impl PerftProgress {
    /// Leaf nodes counted so far.
    pub fn nodes(&self) -> u64 {
        self.stats.nodes
    }

    /// Nodes per second so far.
    pub fn nps(&self) -> u64 {
        nps(self.stats.nodes, self.elapsed)
    }
}

/// The outcome of a finished perft run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftResult {
    /// The depth searched.
    pub depth: u32,
    /// The totals (only `nodes` is filled without statistics mode).
    pub stats: PerftStats,
    /// Per root move totals when divide was asked for (in generation order), else empty.
    pub divide: Vec<(Move, PerftStats)>,
    /// The plies below the root at which the work was split.
    pub split_plies: u32,
    /// The number of tasks (unique positions at the split ply).
    pub tasks: usize,
    /// The worker threads used.
    pub threads: usize,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

impl PerftResult {
    /// Leaf nodes.
    pub fn nodes(&self) -> u64 {
        self.stats.nodes
    }

    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        nps(self.stats.nodes, self.elapsed)
    }
}

/// The run was stopped through its cancellation flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("perft cancelled")
    }
}

impl std::error::Error for Cancelled {}

fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        (nodes as f64 / secs) as u64
    } else {
        0
    }
}

/// One unit of work: a unique position, how often it occurs, and its root move (divide).
struct Task {
    pos: Position,
    count: u64,
    root: usize,
}

/// The split of a run into tasks.
struct Plan {
    tasks: Vec<Task>,
    roots: Vec<Move>,
    plies: u32,
}

/// The deepest automatic split for a depth: leave at least three plies per task from depth 5.
fn auto_split_limit(depth: u32) -> u32 {
    match depth {
        0..=2 => 0,
        3 | 4 => depth - 2,
        _ => (depth - 3).min(5),
    }
}

impl<'a> Perft<'a> {
    /// A perft of `pos` at depth 1, one thread, no hashing, bulk counting.
    pub fn new(pos: Position) -> Perft<'a> {
        Perft {
            pos,
            depth: 1,
            threads: 1,
            hash_mb: 0,
            stats: false,
            divide: false,
            split_plies: None,
            cancel: None,
            bulk_table: None,
            stats_table: None,
            resume: &[],
        }
    }

    /// The depth in plies.
    pub fn depth(mut self, depth: u32) -> Self {
        self.depth = depth;
        self
    }

    /// Worker threads; 0 means one per available core.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Size of the hash table to allocate for this run in MiB (0: no hashing). Ignored when a
    /// table is passed with [`Perft::bulk_table`] or [`Perft::stats_table`].
    pub fn hash_mb(mut self, mib: usize) -> Self {
        self.hash_mb = mib;
        self
    }

    /// Collects [`PerftStats`] at the leaves instead of counting nodes only.
    pub fn stats(mut self, stats: bool) -> Self {
        self.stats = stats;
        self
    }

    /// Also reports totals per root move.
    pub fn divide(mut self, divide: bool) -> Self {
        self.divide = divide;
        self
    }

    /// Splits exactly this many plies below the root (capped at the depth) instead of choosing
    /// automatically.
    pub fn split_plies(mut self, plies: u32) -> Self {
        self.split_plies = Some(plies);
        self
    }

    /// A flag that stops the run soon (well under 100 ms) after it is set; the run then
    /// returns [`Cancelled`]. Do not clear it while the run is going.
    pub fn cancel(mut self, flag: &'a AtomicBool) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// Uses (and fills) this table for bulk counting instead of allocating one.
    pub fn bulk_table(mut self, table: &'a BulkHash) -> Self {
        self.bulk_table = Some(table);
        self
    }

    /// Uses (and fills) this table for statistics instead of allocating one.
    pub fn stats_table(mut self, table: &'a StatsHash) -> Self {
        self.stats_table = Some(table);
        self
    }

    /// Tasks a previous run already counted, each as `(index, tally of one occurrence)` the way
    /// [`Perft::run_tasks`] reported it: they are added in, not counted again. Only meaningful
    /// for the same position, depth and [`Perft::split_plies`] (which fix the task list);
    /// indices past the task list and repeated indices are ignored.
    pub fn resume(mut self, done: &'a [(usize, PerftStats)]) -> Self {
        self.resume = done;
        self
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Relaxed))
    }

    fn thread_count(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// Runs the perft. `progress` is called on the calling thread about every 50 ms while
    /// tasks run, and once more when all are done. Returns [`Cancelled`] if the flag was set.
    pub fn run(&self, progress: impl FnMut(&PerftProgress)) -> Result<PerftResult, Cancelled> {
        self.run_tasks(progress, |_, _| {})
    }

    /// [`Perft::run`], also calling `on_task(index, tally)` on the calling thread for every
    /// task this run counts (not the resumed ones), with the tally of **one** occurrence of its
    /// position (only `nodes` without statistics): what [`Perft::resume`] takes back. The task
    /// list is fixed by the position, depth, split depth and divide; without divide it is the
    /// one [`super::split`] gives for the split depth. (Divide at depth 1 has no tasks: it
    /// reports none and resumes none.)
    pub fn run_tasks(
        &self,
        progress: impl FnMut(&PerftProgress),
        on_task: impl FnMut(usize, &PerftStats),
    ) -> Result<PerftResult, Cancelled> {
        let threads = self.thread_count();
        if self.stats {
            let owned;
            let table = match (self.stats_table, self.hash_mb) {
                (Some(t), _) => Some(t),
                (None, 0) => None,
                (None, mib) => {
                    owned = PerftHash::with_threads(mib, threads, self.cancel);
                    Some(&owned)
                }
            };
            self.run_with::<PerftStats>(table, progress, on_task)
        } else {
            let owned;
            let table = match (self.bulk_table, self.hash_mb) {
                (Some(t), _) => Some(t),
                (None, 0) => None,
                (None, mib) => {
                    owned = PerftHash::with_threads(mib, threads, self.cancel);
                    Some(&owned)
                }
            };
            self.run_with::<u64>(table, progress, on_task)
        }
    }

    /// Splits the root into tasks.
    fn plan(&self, threads: usize) -> Result<Plan, Cancelled> {
        let depth = self.depth;
        let (roots, mut groups, mut plies) = if self.divide && depth > 0 {
            let moves = self.pos.legal_moves();
            let groups = moves
                .iter()
                .map(|&m| vec![(self.pos.after(m), 1)])
                .collect();
            (moves.to_vec(), groups, 1)
        } else {
            (Vec::new(), vec![vec![(self.pos, 1)]], 0)
        };
        // Leaves must stay below the split: the moves into split positions are not counted.
        let deepest = depth.saturating_sub(1).max(plies);
        let (limit, target) = match self.split_plies {
            Some(k) => (k.min(deepest), usize::MAX),
            None => (
                auto_split_limit(depth).min(deepest),
                (64 * threads).max(1024),
            ),
        };
        while plies < limit && groups.iter().map(Vec::len).sum::<usize>() < target {
            if self.cancelled() {
                return Err(Cancelled);
            }
            groups = groups.iter().map(|g| expand(g)).collect();
            plies += 1;
        }
        let tasks = groups
            .into_iter()
            .enumerate()
            .flat_map(|(root, g)| {
                g.into_iter()
                    .map(move |(pos, count)| Task { pos, count, root })
            })
            .collect();
        Ok(Plan {
            tasks,
            roots,
            plies,
        })
    }

    /// Divide at depth 1: every root move is a leaf of its own.
    fn divide_one<T: Tally>(&self, start: Instant) -> PerftResult {
        let divide: Vec<(Move, PerftStats)> = self
            .pos
            .legal_moves()
            .iter()
            .map(|&mv| (mv, T::of_move(&self.pos, mv).into_stats()))
            .collect();
        PerftResult {
            depth: 1,
            stats: divide.iter().map(|(_, s)| *s).sum(),
            tasks: divide.len(),
            divide,
            split_plies: 1,
            threads: 1,
            elapsed: start.elapsed(),
        }
    }

    fn run_with<T: Tally>(
        &self,
        table: Option<&PerftHash<T>>,
        mut progress: impl FnMut(&PerftProgress),
        mut on_task: impl FnMut(usize, &PerftStats),
    ) -> Result<PerftResult, Cancelled> {
        let start = Instant::now();
        if self.divide && self.depth == 1 {
            let result = self.divide_one::<T>(start);
            progress(&PerftProgress {
                done: result.tasks,
                total: result.tasks,
                stats: result.stats,
                elapsed: result.elapsed,
            });
            return Ok(result);
        }
        let threads = self.thread_count();
        let plan = self.plan(threads)?;
        let task_depth = self.depth - plan.plies;
        let n = plan.tasks.len();
        let threads = threads.min(n).max(1);
        let counter = Counter {
            table,
            cancel: self.cancel,
        };
        let next = AtomicUsize::new(0);
        let mut total = T::default();
        let mut per_root: Vec<T> = plan.roots.iter().map(|_| T::default()).collect();
        let mut done = 0;
        // Resumed tasks are added in now and skipped by the workers.
        let mut skip = vec![false; n];
        for (i, stats) in self.resume {
            let Some(task) = plan.tasks.get(*i) else {
                continue;
            };
            if std::mem::replace(&mut skip[*i], true) {
                continue;
            }
            let value = T::from_stats(stats).times(task.count);
            if let Some(r) = per_root.get_mut(task.root) {
                *r += value;
            }
            total += value;
            done += 1;
        }

        std::thread::scope(|scope| {
            // Workers send their results in batches, about twice per progress interval: a
            // message per task would wake this thread thousands of times a second, taking a
            // core from the workers each time.
            let (tx, rx) = mpsc::channel::<Vec<(usize, T)>>();
            for _ in 0..threads {
                let tx = tx.clone();
                let (tasks, counter, next, skip) = (&plan.tasks, &counter, &next, &skip);
                scope.spawn(move || {
                    let mut batch = Vec::new();
                    let mut last_send = Instant::now();
                    loop {
                        let i = next.fetch_add(1, Relaxed);
                        let Some(task) = tasks.get(i) else { break };
                        if skip[i] {
                            continue;
                        }
                        let value = counter.count(&task.pos, task_depth);
                        if counter.cancelled() {
                            return;
                        }
                        batch.push((i, value));
                        if last_send.elapsed() >= PROGRESS_INTERVAL / 2 {
                            if tx.send(std::mem::take(&mut batch)).is_err() {
                                return;
                            }
                            last_send = Instant::now();
                        }
                    }
                    // The receiver outlives the workers; nothing is lost if it does not.
                    let _ = tx.send(batch);
                });
            }
            drop(tx);
            let mut last_report = Instant::now();
            loop {
                match rx.recv_timeout(PROGRESS_INTERVAL) {
                    Ok(batch) => {
                        for (i, value) in batch {
                            let task = &plan.tasks[i];
                            on_task(i, &value.into_stats());
                            let value = value.times(task.count);
                            if let Some(r) = per_root.get_mut(task.root) {
                                *r += value;
                            }
                            total += value;
                            done += 1;
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                if last_report.elapsed() >= PROGRESS_INTERVAL && done < n {
                    last_report = Instant::now();
                    progress(&PerftProgress {
                        done,
                        total: n,
                        stats: total.into_stats(),
                        elapsed: start.elapsed(),
                    });
                }
            }
        });

        // A worker never sends a value it computed after cancellation (nor any value of its
        // batch then), so all `n` values arrived complete unless the run was cancelled.
        if done < n {
            return Err(Cancelled);
        }
        let elapsed = start.elapsed();
        let stats = total.into_stats();
        progress(&PerftProgress {
            done,
            total: n,
            stats,
            elapsed,
        });
        Ok(PerftResult {
            depth: self.depth,
            stats,
            divide: plan
                .roots
                .into_iter()
                .zip(per_root)
                .map(|(m, v)| (m, v.into_stats()))
                .collect(),
            split_plies: plan.plies,
            tasks: n,
            threads,
            elapsed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{perft::perft, FenMode};

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    #[test]
    fn divide_sums_to_the_total_and_matches_plain_perft() {
        let pos = Position::from_fen(KIWIPETE, FenMode::Strict).unwrap();
        let r = Perft::new(pos)
            .depth(3)
            .threads(2)
            .divide(true)
            .run(|_| {})
            .unwrap();
        assert_eq!(r.nodes(), 97_862);
        assert_eq!(r.divide.len(), 48);
        for (mv, s) in &r.divide {
            assert_eq!(s.nodes, perft(&pos.after(*mv), 2));
        }
    }

    #[test]
    fn depth_zero_and_one() {
        let pos = Position::startpos();
        let zero = Perft::new(pos).depth(0).stats(true).run(|_| {}).unwrap();
        assert_eq!(zero.stats, PerftStats::ONE_NODE);
        let one = Perft::new(pos).depth(1).divide(true).run(|_| {}).unwrap();
        assert_eq!(one.nodes(), 20);
        assert!(one.divide.iter().all(|(_, s)| s.nodes == 1));
    }

    #[test]
    fn statistics_survive_splitting_down_to_the_leaves() {
        let pos = Position::from_fen(KIWIPETE, FenMode::Strict).unwrap();
        let expected = crate::perft::perft_stats(&pos, 2);
        assert!(expected.captures > 0 && expected.checks() > 0);
        for plies in 0..=3 {
            let r = Perft::new(pos)
                .depth(2)
                .stats(true)
                .split_plies(plies)
                .run(|_| {})
                .unwrap();
            assert_eq!(r.stats, expected, "split at {plies}");
        }
        let one = Perft::new(pos)
            .depth(1)
            .stats(true)
            .divide(true)
            .run(|_| {})
            .unwrap();
        assert_eq!(one.stats, crate::perft::perft_stats(&pos, 1));
        assert_eq!(one.divide.len(), 48);
        let castles: Vec<_> = one.divide.iter().filter(|(m, _)| m.is_castle()).collect();
        assert_eq!(castles.len(), 2);
        assert!(castles.iter().all(|(_, s)| s.castles == 1 && s.nodes == 1));
    }

    #[test]
    fn cancellation_stops_quickly() {
        let flag = AtomicBool::new(false);
        let started = Instant::now();
        let mut calls = 0;
        let result = Perft::new(Position::startpos())
            .depth(9)
            .threads(2)
            .cancel(&flag)
            .run(|p| {
                calls += 1;
                assert!(p.done <= p.total);
                if p.elapsed >= Duration::from_millis(200) {
                    flag.store(true, Relaxed);
                }
            });
        assert_eq!(result, Err(Cancelled));
        assert!(calls >= 2, "progress was reported {calls} times");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_resumed_run_counts_only_the_tasks_left_and_ends_with_the_same_totals() {
        let pos = Position::from_fen(KIWIPETE, FenMode::Strict).unwrap();
        let perft = |resume: &[(usize, PerftStats)]| {
            let mut tasks = Vec::new();
            let result = Perft::new(pos)
                .depth(4)
                .threads(2)
                .stats(true)
                .split_plies(2)
                .resume(resume)
                .run_tasks(|_| {}, |i, s| tasks.push((i, *s)))
                .unwrap();
            (result, tasks)
        };
        let (full, tasks) = perft(&[]);
        assert_eq!(full.nodes(), 4_085_603);
        assert_eq!(tasks.len(), full.tasks);
        // Every task once, each with the tally of one occurrence of its position.
        let split = crate::perft::split(&pos, 2);
        let mut seen: Vec<usize> = tasks.iter().map(|(i, _)| *i).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..split.len()).collect::<Vec<_>>());
        for (i, s) in &tasks {
            assert_eq!(*s, crate::perft::perft_stats(&split[*i].0, 2), "task {i}");
        }
        // Resume from every third task (one given twice, one out of range): the others only.
        let mut kept: Vec<(usize, PerftStats)> =
            tasks.iter().filter(|(i, _)| i % 3 == 0).copied().collect();
        kept.push(kept[0]);
        kept.push((split.len() + 5, PerftStats::ONE_NODE));
        let (resumed, rest) = perft(&kept);
        assert_eq!(resumed.stats, full.stats);
        assert_eq!(resumed.tasks, full.tasks);
        assert!(rest.iter().all(|(i, _)| i % 3 != 0));
        assert_eq!(rest.len() + kept.len() - 2, full.tasks);
        // Bulk counting resumes from statistics too (their nodes).
        let bulk = Perft::new(pos)
            .depth(4)
            .split_plies(2)
            .resume(&kept)
            .run(|_| {})
            .unwrap();
        assert_eq!(bulk.nodes(), 4_085_603);
        // Everything resumed: nothing is counted.
        let mut counted = 0;
        let all = Perft::new(pos)
            .depth(4)
            .stats(true)
            .split_plies(2)
            .resume(&tasks)
            .run_tasks(|_| {}, |_, _| counted += 1)
            .unwrap();
        assert_eq!((all.stats, counted), (full.stats, 0));
    }

    #[test]
    fn explicit_split_and_final_progress() {
        let mut last = None;
        let r = Perft::new(Position::startpos())
            .depth(4)
            .split_plies(2)
            .run(|p| last = Some(*p))
            .unwrap();
        assert_eq!(r.split_plies, 2);
        assert_eq!(r.tasks, 400);
        let last = last.unwrap();
        assert_eq!((last.done, last.total, last.nodes()), (400, 400, 197_281));
    }
}
