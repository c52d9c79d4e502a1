//! Tesla: the best-first, depth-promoting search of the seed document "Tesla", a second
//! search of the built-in engine beside the principal variation search ([`super::Searcher`]).
//!
//! The tree is kept in memory; every node has a promoted depth and a desired depth (the
//! root's is `D`, a child's one less than its parent's). A value missing `m` plies of its
//! desired depth is taken to lie within `m·c` centipawns ([`TeslaParams::error_cp`]). Nodes
//! are promoted by one ply in the order of the probability that this changes the best move
//! (a logistic CDF of the gap, [`model`]) over the cost `(EBF - 1)·EBF^depth`; leaves are
//! statically evaluated in batches through a [`BatchEvaluator`]; repetitions, the fifty-move
//! rule and dead material are exact draws whose value propagates upward like any other. The
//! search stops when satisfied (the best benefit/cost no longer worth the time left), or at a
//! limit. See `docs/tesla.md` (and the `run` module) for the details.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use chessd_core::{search::{tesla::TeslaSearcher, Limits, Score}, FenMode, Position};
//!
//! // White mates in one (Ra8#).
//! let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", FenMode::Strict).unwrap();
//! let mut tesla = TeslaSearcher::new(1);
//! let result = tesla.search(&pos, &[], &Limits::nodes(20_000), &AtomicBool::new(false), |_| {});
//! assert_eq!(pos.uci(result.best.unwrap()), "a1a8");
//! assert_eq!(result.score, Score::Mate(1));
//! ```

pub mod evaluator;
pub mod model;
pub mod packed;
mod run;
pub mod table;
mod tree;

use std::{
    sync::atomic::AtomicBool,
    time::{Duration, Instant},
};

pub use evaluator::{BatchEvaluator, BuiltinEvaluator};
pub use model::TeslaParams;
pub use packed::PackedMove;
pub use table::{TeslaEntry, TeslaTable};

use super::{
    limits::TimePlan, score::MATE, without_moves, Info, Limits, Score, SearchResult, MAX_DEPTH,
};
use crate::Position;
use run::{Run, Step};

/// Counters of one search, for measuring the search (`chessd engine --bench --search tesla`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TeslaStats {
    /// Leaves statically evaluated.
    pub evaluated: u64,
    /// Batches sent to the evaluator.
    pub batches: u64,
    /// Updates that came up through a node's best child.
    pub best_updates: u64,
    /// Of those, how many changed the node's best child (the best child disproved).
    pub disproved: u64,
    /// Updates through another child that made it the best (promoted to best).
    pub overtaken: u64,
    /// Root choices that promoted the root's best child.
    pub best_promotions: u64,
    /// Nodes in the tree at the end.
    pub tree_nodes: u64,
    /// Desired depth reached.
    pub desired: u32,
}

/// Tesla's state kept between searches: its transposition table, parameters and evaluator.
pub struct TeslaSearcher {
    tt: TeslaTable,
    tree_mib: usize,
    params: TeslaParams,
    evaluator: Box<dyn BatchEvaluator + Send>,
    stats: TeslaStats,
}

impl std::fmt::Debug for TeslaSearcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeslaSearcher")
            .field("hash_bytes", &self.tt.bytes())
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl TeslaSearcher {
    /// A searcher with a table of `mib` MiB; the tree may hold as much again.
    pub fn new(mib: usize) -> TeslaSearcher {
        TeslaSearcher {
            tt: TeslaTable::new(mib),
            tree_mib: mib.max(1),
            params: TeslaParams::default(),
            evaluator: Box::new(BuiltinEvaluator),
            stats: TeslaStats::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> TeslaParams {
        self.params
    }

    /// Sets the parameters (the batch is at least 1).
    pub fn set_params(&mut self, params: TeslaParams) {
        self.params = TeslaParams {
            batch: params.batch.max(1),
            ..params
        };
    }

    /// Replaces the leaf evaluator.
    pub fn set_evaluator(&mut self, evaluator: Box<dyn BatchEvaluator + Send>) {
        self.evaluator = evaluator;
    }

    /// The counters of the last search.
    pub fn stats(&self) -> TeslaStats {
        self.stats
    }

    /// Forgets everything learnt (UCI `ucinewgame`).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// A new table of `mib` MiB, and as much for the tree (UCI `Hash`).
    pub fn resize(&mut self, mib: usize) {
        self.tt = TeslaTable::new(0);
        self.tt = TeslaTable::new(mib);
        self.tree_mib = mib.max(1);
    }

    /// Searches `pos` as [`super::Searcher::search`] does (same arguments, same result);
    /// `info` is reported each time the desired depth grows, and once at the end. `depth` in
    /// the limits bounds the desired depth.
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        mut on_info: impl FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();
        self.tt.new_search();
        self.stats = TeslaStats::default();
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return without_moves(pos, start, self.tt.hashfull(), &mut on_info);
        }
        let deadline = deadline(limits, pos, start);
        let node_limit = limits.nodes;
        let max_desired = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH) as i32;
        let capacity = self.tree_mib.saturating_mul(1 << 20) / std::mem::size_of::<tree::Node>();
        let params = self.params;
        let mut run = Run::new(
            pos,
            history,
            params,
            &mut self.tt,
            self.evaluator.as_mut(),
            capacity,
            limits.searchmoves.clone(),
        );
        let single = run.nodes[0].count == 1 && limits.uses_clock(pos.turn());
        let mut stopped = false;
        let mut completed = 0;
        loop {
            let now = Instant::now();
            if Run::stop_raised(stop)
                || deadline.is_some_and(|d| now >= d)
                || node_limit.is_some_and(|n| run.visited >= n)
            {
                stopped = true;
                break;
            }
            match run.step(pos) {
                Step::Promoted => {
                    if run.batch.len() >= params.batch {
                        run.flush();
                    }
                    if run.root_depth() >= 2 && satisfied(&run, deadline, node_limit, start, now) {
                        break;
                    }
                }
                Step::Blocked if !run.batch.is_empty() => run.flush(),
                Step::Blocked | Step::Settled => {
                    let before = completed;
                    completed = completed.max(run.root_depth());
                    if let Some((line, score)) = run.best_line().filter(|_| completed > before) {
                        let elapsed = start.elapsed();
                        on_info(&Info {
                            depth: completed,
                            seldepth: run.seldepth.max(completed),
                            score: Score::from_internal(score),
                            nodes: run.visited,
                            nps: nps(run.visited, elapsed),
                            time: elapsed,
                            pv: line,
                            hashfull: run.tt.hashfull(),
                        });
                        if let Some(n) = limits.mate {
                            if score >= MATE - (2 * n.min(MAX_DEPTH) as i32 - 1) {
                                break;
                            }
                        }
                    }
                    if run.desired >= max_desired || single || run.proven_win() {
                        break;
                    }
                    run.desired += 1;
                }
                Step::Full => {
                    stopped = true;
                    break;
                }
            }
        }
        run.abandon_batch();
        run.store_tree();
        let (pv, score) = run.best_line().unwrap_or_default();
        let elapsed = start.elapsed();
        let depth = completed.max(run.root_depth());
        on_info(&Info {
            depth,
            seldepth: run.seldepth.max(depth),
            score: Score::from_internal(score),
            nodes: run.visited,
            nps: nps(run.visited, elapsed),
            time: elapsed,
            pv: pv.clone(),
            hashfull: run.tt.hashfull(),
        });
        let mut stats = run.stats;
        stats.tree_nodes = run.nodes.len() as u64;
        stats.desired = run.desired as u32;
        let (nodes, seldepth) = (run.visited, run.seldepth);
        drop(run);
        self.stats = stats;
        SearchResult {
            best: pv.first().copied(),
            ponder: pv.get(1).copied(),
            score: Score::from_internal(score),
            depth,
            seldepth,
            nodes,
            time: start.elapsed(),
            pv,
            stopped,
        }
    }
}

/// When a timed search must end: the move time, or with a clock the time manager's budget
/// (its soft limit is 60% of the budget), never after its hard limit.
fn deadline(limits: &Limits, pos: &Position, start: Instant) -> Option<Instant> {
    let plan = TimePlan::new(limits, pos.turn(), start);
    if limits.uses_clock(pos.turn()) {
        let soft = plan.soft?.saturating_duration_since(start);
        let budget = start + soft / 3 * 5;
        return Some(plan.hard.map_or(budget, |h| h.min(budget)));
    }
    plan.hard
}

/// The satisfaction rule: the root's last benefit/cost ratio times the nodes still to spend
/// (by the node limit, or by the time left at the rate so far) is below the threshold. A
/// search without time or node limit is never satisfied.
fn satisfied(
    run: &Run<'_>,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    start: Instant,
    now: Instant,
) -> bool {
    let mut budget = f64::INFINITY;
    if let Some(n) = node_limit {
        budget = n.saturating_sub(run.visited) as f64;
    }
    if let Some(d) = deadline {
        let spent = now.saturating_duration_since(start).as_secs_f64().max(1e-6);
        let rate = run.visited as f64 / spent;
        budget = budget.min(d.saturating_duration_since(now).as_secs_f64() * rate);
    }
    budget.is_finite() && run.last_ratio * budget < run.params.satisfaction
}

fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let micros = elapsed.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}
