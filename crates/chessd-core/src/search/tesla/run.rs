//! One Tesla search: the promotion loop over the tree, the batch of leaves, the stop rules.
//!
//! Each step descends from the root. At every expanded node the children that miss depth
//! (their desired depth is the node's less one; the root's is the search's desired depth
//! `D`) are ranked by benefit/cost: the probability that deepening the child by one ply
//! changes the node's best child ([`TeslaParams::change_probability`], the best child trying
//! to be disproved by the runner-up, the others to overtake the best) over the cost
//! `(EBF - 1)·EBF^depth`. The descent follows the best ratio (the next one when a subtree
//! has nothing left to promote) down to a node it promotes at once:
//!
//! - a child known only by its policy value joins the batch (depth -1 to 0);
//! - an evaluated leaf is expanded (depth 0 to 1): its children are generated with policy
//!   values (the node's value plus the move's exchange gain), from the table when it knows
//!   them, and as exact draws when they repeat a position of the game or the path, reach the
//!   fifty-move rule or leave too little material to mate.
//!
//! The batch goes to the [`BatchEvaluator`] when full, or when nothing but its leaves is
//! left to promote; each value is propagated up to the root. When nothing at all is left,
//! the tree is as deep as desired: `D` grows by one (an `info` line is printed).
//!
//! The search stops at the time limit, the node limit, the depth limit, a full tree, the
//! stop flag, or when satisfied: the root's best ratio times the nodes that the remaining
//! time (or node budget) buys is below [`TeslaParams::satisfaction`].

use std::sync::atomic::{AtomicBool, Ordering};

use super::{
    evaluator::BatchEvaluator,
    model::TeslaParams,
    packed::PackedMove,
    table::TeslaTable,
    tree::{negate, pv, recompute, Node, State, TERMINAL_DEPTH},
    TeslaStats,
};
use crate::search::score::{DRAW, MATE};
use crate::{
    search::{
        eval::{is_dead_draw, pst_gain},
        see::see,
        MAX_DEPTH,
    },
    Move, Position,
};

/// Policy value of a quiet move, relative to the position's value.
const QUIET_POLICY: i32 = -15;
/// Policy bonus of the table's move.
const TT_POLICY: i32 = 40;

/// The state of one search.
pub(super) struct Run<'a> {
    pub(super) nodes: Vec<Node>,
    pub(super) params: TeslaParams,
    pub(super) tt: &'a mut TeslaTable,
    pub(super) evaluator: &'a mut dyn BatchEvaluator,
    /// Keys of the game before the root, then of the path being descended.
    pub(super) keys: Vec<u64>,
    /// The desired depth of the root.
    pub(super) desired: i32,
    /// The batch being filled: node indices and their positions.
    pub(super) batch: Vec<u32>,
    pub(super) batch_pos: Vec<Position>,
    values: Vec<i32>,
    /// Ranked candidates of the levels being descended.
    scratch: Vec<(f64, u32)>,
    /// Nodes visited (expansions and the evaluator's nodes).
    pub(super) visited: u64,
    /// The most nodes the tree may hold.
    pub(super) capacity: usize,
    /// The benefit/cost ratio of the last root choice.
    pub(super) last_ratio: f64,
    pub(super) seldepth: u32,
    pub(super) stats: TeslaStats,
    /// Root moves allowed (`searchmoves`), empty for all.
    pub(super) root_moves: Vec<Move>,
}

/// What a descent did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Promoted something.
    Promoted,
    /// Nothing promotable outside the batch.
    Blocked,
    /// The tree is full.
    Full,
}

impl<'a> Run<'a> {
    /// A run from `root` with the game's `history` keys.
    pub(super) fn new(
        root: &Position,
        history: &[u64],
        params: TeslaParams,
        tt: &'a mut TeslaTable,
        evaluator: &'a mut dyn BatchEvaluator,
        capacity: usize,
        root_moves: Vec<Move>,
    ) -> Run<'a> {
        let mut keys = history.to_vec();
        keys.push(root.hash());
        let mut run = Run {
            nodes: Vec::with_capacity(capacity.min(1 << 16)),
            params,
            tt,
            evaluator,
            keys,
            desired: 1,
            batch: Vec::new(),
            batch_pos: Vec::new(),
            values: Vec::new(),
            scratch: Vec::new(),
            visited: 0,
            capacity: capacity.max(256),
            last_ratio: f64::INFINITY,
            seldepth: 0,
            stats: TeslaStats::default(),
            root_moves,
        };
        run.visited += run
            .evaluator
            .evaluate_batch(std::slice::from_ref(root), &mut run.values);
        let eval = run.values.first().copied().unwrap_or(0);
        run.nodes.push(Node::new(
            root.hash(),
            Move::normal(crate::Square::A1, crate::Square::A1),
            PackedMove::NONE,
            0,
            eval,
            State::Evaluated,
        ));
        run.expand(0, root);
        run
    }

    /// One descent from the root.
    pub(super) fn step(&mut self, root: &Position) -> Step {
        if self.nodes.len() + 256 > self.capacity {
            return Step::Full;
        }
        match self.descend(0, root, 0) {
            Some(_) => Step::Promoted,
            None => Step::Blocked,
        }
    }

    /// Ranks the children of expanded node `i` (at `ply`) and promotes in the best-ranked
    /// subtree that has something to promote; the ratio of the choice made, if any.
    fn descend(&mut self, i: usize, pos: &Position, ply: i32) -> Option<f64> {
        let node = self.nodes[i];
        let range = node.children();
        if range.is_empty() {
            return None;
        }
        let best = range.start + node.best as usize;
        let best_v = negate(self.nodes[best].eval);
        let second_v = range
            .clone()
            .filter(|&c| c != best)
            .map(|c| negate(self.nodes[c].eval))
            .max();
        let child_desired = self.desired - ply - 1;
        // The candidates of this level sit at the end of the shared scratch stack, above
        // those of the levels above.
        let start = self.scratch.len();
        for c in range.clone() {
            let child = &self.nodes[c];
            if matches!(child.state, State::Terminal | State::Pending) {
                continue;
            }
            let missing = child_desired - i32::from(child.depth);
            if missing <= 0 {
                continue;
            }
            let p = if c == best {
                match second_v {
                    Some(s) => self.params.change_probability(s - best_v, missing),
                    // The only move: deepening it is the only way to deepen the node.
                    None => 1.0,
                }
            } else {
                self.params
                    .change_probability(negate(child.eval) - best_v, missing)
            };
            if p > 0.0 {
                self.scratch
                    .push((p / self.params.cost(i32::from(child.depth)), c as u32));
            }
        }
        self.scratch[start..].sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let mut chosen = None;
        for k in start..self.scratch.len() {
            let (ratio, c) = self.scratch[k];
            let c = c as usize;
            let promoted = match self.nodes[c].state {
                State::Fresh => {
                    // This leaf and the next-ranked unevaluated siblings fill the batch.
                    let mut k = k;
                    loop {
                        let c = self.scratch[k].1 as usize;
                        if self.nodes[c].state == State::Fresh {
                            self.nodes[c].state = State::Pending;
                            self.batch.push(c as u32);
                            self.batch_pos.push(pos.after(self.nodes[c].mv));
                        }
                        k += 1;
                        if k >= self.scratch.len() || self.batch.len() >= self.params.batch {
                            break;
                        }
                    }
                    true
                }
                State::Evaluated => {
                    let child = pos.after(self.nodes[c].mv);
                    self.keys.push(child.hash());
                    self.expand(c, &child);
                    self.keys.pop();
                    true
                }
                State::Expanded => {
                    let child = pos.after(self.nodes[c].mv);
                    self.keys.push(child.hash());
                    let found = self.descend(c, &child, ply + 1).is_some();
                    self.keys.pop();
                    found
                }
                State::Pending | State::Terminal => false,
            };
            if promoted {
                self.seldepth = self.seldepth.max(ply as u32 + 1);
                if ply == 0 {
                    self.last_ratio = ratio;
                    if c == best {
                        self.stats.best_promotions += 1;
                    }
                }
                chosen = Some(ratio);
                break;
            }
        }
        self.scratch.truncate(start);
        chosen
    }

    /// Generates the children of node `i` (position `pos`, its key last in `keys`).
    fn expand(&mut self, i: usize, pos: &Position) {
        self.visited += 1;
        let mut moves = pos.legal_moves();
        if i == 0 && moves.iter().any(|m| self.root_moves.contains(m)) {
            moves.retain(|m| self.root_moves.contains(m));
        }
        if moves.is_empty() {
            let node = &mut self.nodes[i];
            node.state = State::Terminal;
            node.depth = TERMINAL_DEPTH;
            node.eval = if pos.is_check() { -MATE } else { DRAW };
            self.backup(i);
            return;
        }
        let tt_move = self.tt.probe(pos).and_then(|e| e.best().unpack(pos));
        let base = self.nodes[i].eval;
        let first = self.nodes.len() as u32;
        for &mv in moves.iter() {
            let child = pos.after(mv);
            let key = child.hash();
            let packed = PackedMove::pack(pos, mv);
            let node = if self.is_draw(&child) {
                Node::new(key, mv, packed, i as u32, DRAW, State::Terminal)
            } else if let Some(hit) = self.tt.probe(&child).filter(|e| e.depth() >= 0) {
                Node::new(key, mv, packed, i as u32, hit.eval(), State::Evaluated)
            } else {
                let gain = if pos.captured_role(mv).is_some() || mv.is_promotion() {
                    see(pos, mv)
                } else {
                    QUIET_POLICY + pst_gain(pos, mv.from(), mv.king_destination())
                } + if Some(mv) == tt_move { TT_POLICY } else { 0 };
                Node::new(key, mv, packed, i as u32, -(base + gain), State::Fresh)
            };
            self.nodes.push(node);
        }
        let node = &mut self.nodes[i];
        node.first = first;
        node.count = moves.len() as u16;
        node.state = State::Expanded;
        recompute(&mut self.nodes, i, usize::MAX, &self.params);
        self.backup(i);
    }

    /// Whether `child` (after the position whose key is last in `keys`) is a draw by rule:
    /// a repetition of the game or the path since the last irreversible move, the fifty-move
    /// rule (unless mated), or too little material.
    fn is_draw(&self, child: &Position) -> bool {
        let key = child.hash();
        let back = (child.halfmoves() as usize).min(self.keys.len());
        if self.keys[self.keys.len() - back..].contains(&key) {
            return true;
        }
        if child.halfmoves() >= 100 && !(child.is_check() && child.legal_moves().is_empty()) {
            return true;
        }
        is_dead_draw(child)
    }

    /// Propagates node `i`'s new value up to the root.
    fn backup(&mut self, mut i: usize) {
        while i != 0 {
            let parent = self.nodes[i].parent as usize;
            let change = recompute(&mut self.nodes, parent, i, &self.params);
            if change.was_best {
                self.stats.best_updates += 1;
                if change.changed {
                    self.stats.disproved += 1;
                }
            } else if change.changed {
                self.stats.overtaken += 1;
            }
            i = parent;
        }
    }

    /// Evaluates the batch and propagates its values.
    pub(super) fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        self.stats.batches += 1;
        self.stats.evaluated += self.batch.len() as u64;
        self.visited += self
            .evaluator
            .evaluate_batch(&self.batch_pos, &mut self.values);
        let batch = std::mem::take(&mut self.batch);
        for (k, &i) in batch.iter().enumerate() {
            let i = i as usize;
            let node = &mut self.nodes[i];
            node.eval = self.values.get(k).copied().unwrap_or(node.eval);
            node.state = State::Evaluated;
            node.depth = 0;
            self.tt
                .store(node.key, node.eval, PackedMove::NONE, false, 0);
            self.backup(i);
        }
        self.batch = batch;
        self.batch.clear();
        self.batch_pos.clear();
    }

    /// Drops the batch unevaluated (the search stopped): its leaves keep their policy values.
    pub(super) fn abandon_batch(&mut self) {
        for &i in &self.batch {
            self.nodes[i as usize].state = State::Fresh;
        }
        self.batch.clear();
        self.batch_pos.clear();
    }

    /// The root's promoted depth (at most the desired depth).
    pub(super) fn root_depth(&self) -> u32 {
        i32::from(self.nodes[0].depth).clamp(0, self.desired.min(MAX_DEPTH as i32)) as u32
    }

    /// The root's best child: the best of those evaluated at least statically (a move known
    /// only by its policy value is not played when another is known better).
    pub(super) fn best_child(&self) -> Option<usize> {
        let range = self.nodes[0].children();
        let known = range
            .clone()
            .filter(|&c| self.nodes[c].depth >= 0)
            .max_by_key(|&c| (negate(self.nodes[c].eval), std::cmp::Reverse(c)));
        known.or_else(|| range.max_by_key(|&c| (negate(self.nodes[c].eval), std::cmp::Reverse(c))))
    }

    /// Whether the root's best child is a checkmate: no search can find better.
    pub(super) fn proven_win(&self) -> bool {
        self.best_child()
            .is_some_and(|c| self.nodes[c].state == State::Terminal && self.nodes[c].eval < 0)
    }

    /// The principal variation starting with the root's best child, and its score.
    pub(super) fn best_line(&self) -> Option<(Vec<Move>, i32)> {
        let c = self.best_child()?;
        let mut line = vec![self.nodes[c].mv];
        line.extend(pv(&self.nodes, c));
        Some((line, negate(self.nodes[c].eval)))
    }

    /// Stores every expanded node in the table, and the principal variation tagged PV.
    pub(super) fn store_tree(&mut self) {
        for n in &self.nodes {
            if n.state == State::Expanded && n.count > 0 {
                let best = self.nodes[n.first as usize + n.best as usize].packed;
                let depth = n.depth.clamp(0, 127) as i8;
                self.tt.store(n.key, n.eval, best, false, depth);
            }
        }
        let mut i = 0;
        while self.nodes[i].state == State::Expanded && self.nodes[i].count > 0 {
            let n = self.nodes[i];
            let c = n.first as usize + n.best as usize;
            let depth = n.depth.clamp(0, 127) as i8;
            self.tt
                .store(n.key, n.eval, self.nodes[c].packed, true, depth);
            i = c;
        }
    }

    /// Whether the stop flag is raised.
    pub(super) fn stop_raised(stop: &AtomicBool) -> bool {
        stop.load(Ordering::Relaxed)
    }
}
