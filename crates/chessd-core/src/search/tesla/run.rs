//! One Tesla search: the promotion loop over the tree, the batch of leaves, the stop rules.
//!
//! Each step descends from the root, which (with the best child of every node on the way
//! from it) is a *principal variation* node. Below, every node is asked a question with a
//! threshold `t`, "is your value at least `t`?", at a desired depth — the bounds that
//! alpha-beta keeps, searched best-first:
//!
//! - a principal variation node searches its best child first, as a principal variation
//!   node, however unlikely its disproof (a dominant line is verified); each other child
//!   must stay at most the best (threshold: the best's value);
//! - a node whose value reaches `t` (it *holds*) needs one child to keep it so: its best,
//!   deepened to disprove it;
//! - a node below `t` needs every child to stay below `t`.
//!
//! A child's desired depth is its parent's less one, less one more ply for each factor
//! `EBF` by which the probability that it changes the answer
//! ([`TeslaParams::cdf`] of the gap to the threshold in half-widths `m·c`, `m` its missing
//! depth) falls short of one half; below the floor it is not deepened at all (benefit over
//! cost decides how deep each child is searched). Children are visited in the order of that
//! probability over the cost `(EBF - 1)·EBF^depth`. A move that gives check gets the full
//! depth. A node found to need nothing more *settles*: it remembers the bound and depth
//! (until an update comes up through it), so the next desired depth re-opens only what its
//! new bounds need. The descent promotes what it reaches:
//!
//! - a child known only by its policy value joins the batch (depth -1 to 0), with its
//!   next-ranked unevaluated siblings while the batch has room;
//! - an evaluated leaf is expanded (depth 0 to 1): its children are generated with policy
//!   values (the node's value plus the move's exchange gain), and as exact draws when they
//!   repeat a position of the game or the path, reach the fifty-move rule or leave too
//!   little material to mate.
//!
//! The batch goes to the [`BatchEvaluator`] when full, or when nothing but its leaves is
//! left to promote, each leaf with its threshold; each value is propagated up to the root.
//! When nothing at all is left, the root is settled at `D`: `D` grows by one (an `info`
//! line is printed).
//!
//! The search stops at the time limit, the node limit, the depth limit, a full tree, the
//! stop flag, or when satisfied: the root's last ratio times the nodes that the remaining
//! time (or node budget) buys is below [`TeslaParams::satisfaction`]. The move played is
//! the best of the last settled `D`, unless another has been verified better since.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{
    evaluator::{BatchEvaluator, EXACT},
    model::TeslaParams,
    packed::PackedMove,
    table::TeslaTable,
    tree::{negate, pv, recompute, Node, State, TERMINAL_DEPTH},
    TeslaStats,
};
use crate::search::score::{DRAW, MATE, MATE_BOUND};
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
/// The probability of change from which a child is given the full desired depth.
const FULL_DEPTH_P: f64 = 0.5;
/// The most plies a child's desired depth is reduced by.
const MAX_REDUCTION: i32 = 8;
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
    /// The threshold each leaf of the batch is compared with (from its side to move).
    pub(super) batch_t: Vec<i32>,
    values: Vec<i32>,
    /// Ranked candidates of the levels being descended.
    scratch: Vec<(f64, u32, i32, i32)>,
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
    /// The root's best child when the last desired depth was settled.
    completed_best: Option<usize>,
    /// `reduce_at[r]`: a probability of change below this costs the child `r + 1` plies.
    reduce_at: Vec<f64>,
}

/// What a descent did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Promoted something.
    Promoted,
    /// Nothing promotable outside the batch.
    Blocked,
    /// Nothing left to promote at this desired depth.
    Settled,
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
            batch_t: Vec::new(),
            values: Vec::new(),
            scratch: Vec::new(),
            visited: 0,
            capacity: capacity.max(256),
            last_ratio: f64::INFINITY,
            seldepth: 0,
            stats: TeslaStats::default(),
            root_moves,
            completed_best: None,
            reduce_at: (1..=MAX_REDUCTION)
                .map(|r| FULL_DEPTH_P / params.ebf.max(1.0).powi(r))
                .filter(|_| params.ebf > 1.0)
                .collect(),
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
        self.descend_root(root)
    }

    /// The root, a principal variation node.
    fn descend_root(&mut self, pos: &Position) -> Step {
        let outcome = self.descend_pv(0, pos, 0, self.desired);
        if outcome == Step::Settled {
            self.nodes[0].depth = self.nodes[0].depth.max(self.desired as i16);
            self.completed_best = self.current_best();
        }
        outcome
    }

    /// The desired depth child `c` is given out of `d`, when its value must move by `gap`
    /// (centipawns, negative when it must fall or rise towards the threshold) to matter:
    /// the probability `p` of the error model buys depth at the cost model's rate, one ply
    /// less for each factor `EBF` that `p` falls short of [`FULL_DEPTH_P`]; `None` when `p`
    /// is below the floor (the child is not deepened at all). A move that gives check gets
    /// the full depth.
    fn allotted(&self, c: usize, d: i32, gap: i32) -> Option<(i32, f64)> {
        let child = &self.nodes[c];
        let depth = i32::from(child.depth);
        let missing = (d - depth).max(1);
        let p = self.params.cdf(f64::from(gap) / self.params.error(missing));
        let ratio = p.max(1e-9) / self.params.cost(depth);
        if child.check {
            return Some((d, ratio));
        }
        if p < self.params.cdf_floor {
            return None;
        }
        let r = self.reduce_at.iter().take_while(|&&q| p < q).count() as i32;
        Some(((d - r).max(0), ratio))
    }

    /// Queues child `c` of a node searched at desired depth `cd` for a visit against the
    /// threshold `t` (from the child's side), with the depth and benefit/cost its chance earns:
    /// its value must move from where it stands to `target` (from the parent's side) to
    /// matter. A pending child is queued first at the full depth; a child already settled
    /// against `t`, or whose chance is under the floor, is not queued.
    fn queue_child(&mut self, c: usize, cd: i32, t: i32, target: i32) {
        let child = &self.nodes[c];
        if child.state == State::Pending {
            self.scratch.push((f64::INFINITY, c as u32, t, cd));
            return;
        }
        let gap = negate(child.eval) - target;
        if self.child_settled(c, cd, t) {
            return;
        }
        let Some((dc, ratio)) = self.allotted(c, cd, gap) else {
            return;
        };
        if dc < cd && self.child_settled(c, dc, t) {
            return;
        }
        self.scratch.push((ratio, c as u32, t, dc));
    }

    /// A principal variation node `i` (the root, or the best child of one) at desired depth
    /// `d`: its best child is searched as a principal variation node itself, however
    /// unlikely its disproof (a dominant line is verified); the other children must stay at
    /// most the best, and are deepened while their chance to overtake it clears the floor.
    /// Candidates are taken in the order of their benefit/cost ratio.
    fn descend_pv(&mut self, i: usize, pos: &Position, ply: i32, d: i32) -> Step {
        let node = self.nodes[i];
        let range = node.children();
        let best = range.start + node.best as usize;
        let best_v = negate(self.nodes[best].eval);
        let cd = d - 1;
        let start = self.scratch.len();
        for c in range.clone() {
            let child = &self.nodes[c];
            if c == best {
                if matches!(child.state, State::Terminal)
                    || (child.state != State::Fresh && cd <= 0)
                    || (child.state == State::Expanded && i32::from(child.pv_d) >= cd)
                {
                    continue;
                }
                // First, as alpha-beta searches its principal variation first: the other
                // children are then measured against its value at this depth.
                self.scratch.push((f64::MAX, c as u32, i32::MIN, cd));
                continue;
            }
            self.queue_child(c, cd, -best_v, best_v);
        }
        self.scratch[start..].sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let end = self.scratch.len();
        let mut outcome = Step::Settled;
        for k in start..end {
            let (ratio, c, t, dc) = self.scratch[k];
            let c = c as usize;
            let step = if t == i32::MIN {
                self.visit_pv(c, pos, ply, cd)
            } else {
                self.visit(c, pos, ply, dc, t, None)
            };
            match step {
                Step::Promoted => {
                    if i == 0 {
                        self.last_ratio = ratio;
                        if c == best {
                            self.stats.best_promotions += 1;
                        }
                    }
                    outcome = Step::Promoted;
                    break;
                }
                Step::Blocked => outcome = Step::Blocked,
                Step::Settled | Step::Full => {}
            }
        }
        self.scratch.truncate(start);
        outcome
    }

    /// Works on the best child `c` of a principal variation node as a principal variation
    /// node at desired depth `d`.
    fn visit_pv(&mut self, c: usize, pos: &Position, ply: i32, d: i32) -> Step {
        if self.nodes[c].state != State::Expanded || d <= 0 {
            return self.visit(c, pos, ply, d, EXACT, None);
        }
        let child = pos.after(self.nodes[c].mv);
        self.keys.push(child.hash());
        let outcome = self.descend_pv(c, &child, ply + 1, d);
        self.keys.pop();
        if outcome == Step::Settled {
            let n = &mut self.nodes[c];
            n.pv_d = d.clamp(0, i32::from(TERMINAL_DEPTH) - 1) as i16;
            n.depth = n.depth.max(n.pv_d);
        }
        outcome
    }

    /// Whether child `c` needs nothing more for threshold `t` at desired depth `d`.
    fn child_settled(&self, c: usize, d: i32, t: i32) -> bool {
        let n = &self.nodes[c];
        match n.state {
            State::Terminal => true,
            State::Pending | State::Fresh => false,
            State::Evaluated => d <= 0,
            State::Expanded => d <= 0 || n.settled(d, t),
        }
    }

    /// Works on child `c` (of the node at `pos`, `ply`) for "is its value at least `t`?" at
    /// desired depth `d`. `siblings` is the scratch range of ranked siblings whose fresh
    /// leaves may join the batch with it.
    fn visit(
        &mut self,
        c: usize,
        pos: &Position,
        ply: i32,
        d: i32,
        t: i32,
        siblings: Option<(usize, usize)>,
    ) -> Step {
        match self.nodes[c].state {
            State::Terminal => Step::Settled,
            State::Pending => Step::Blocked,
            State::Fresh => {
                self.enqueue(c, pos, t);
                if let Some((from, to)) = siblings {
                    for k in from..to {
                        if self.batch.len() >= self.params.batch {
                            break;
                        }
                        let s = self.scratch[k].1 as usize;
                        if self.nodes[s].state == State::Fresh {
                            self.enqueue(s, pos, t);
                        }
                    }
                }
                self.seldepth = self.seldepth.max(ply as u32 + 1);
                Step::Promoted
            }
            State::Evaluated if d <= 0 => Step::Settled,
            State::Evaluated => {
                let child = pos.after(self.nodes[c].mv);
                self.keys.push(child.hash());
                self.expand(c, &child);
                self.keys.pop();
                self.seldepth = self.seldepth.max(ply as u32 + 1);
                Step::Promoted
            }
            State::Expanded if d <= 0 => Step::Settled,
            State::Expanded => {
                if self.nodes[c].settled(d, t) {
                    return Step::Settled;
                }
                let child = pos.after(self.nodes[c].mv);
                self.keys.push(child.hash());
                let outcome = self.descend(c, &child, ply + 1, d, t);
                self.keys.pop();
                if outcome == Step::Settled {
                    self.nodes[c].settle(d, t);
                }
                outcome
            }
        }
    }

    /// Puts fresh leaf `c` (a child of the node at `pos`) into the batch.
    fn enqueue(&mut self, c: usize, pos: &Position, t: i32) {
        self.nodes[c].state = State::Pending;
        self.batch_t.push(t);
        self.batch.push(c as u32);
        self.batch_pos.push(pos.after(self.nodes[c].mv));
    }

    /// Expanded node `i` (at `ply`), asked "is your value at least `t`?" at desired depth
    /// `d >= 1`. When it is (it *holds*), one child keeps it so: its best, which is
    /// deepened to disprove it unless its chance to fall below `t` is under the floor. When
    /// it is not, every child must stay below `t`: those whose chance to reach `t` clears the
    /// floor are deepened, in the order of benefit/cost.
    fn descend(&mut self, i: usize, pos: &Position, ply: i32, d: i32, t: i32) -> Step {
        let node = self.nodes[i];
        let range = node.children();
        let cd = d - 1;
        let ct = 1 - t;
        if node.eval >= t {
            let best = range.start + node.best as usize;
            let child = self.nodes[best];
            return match self.allotted(best, cd, t - negate(child.eval)) {
                None if child.state != State::Fresh => Step::Settled,
                None => self.visit(best, pos, ply, 0, ct, None),
                Some((dc, _)) => self.visit(best, pos, ply, dc, ct, None),
            };
        }
        let start = self.scratch.len();
        for c in range.clone() {
            self.queue_child(c, cd, ct, t);
        }
        self.scratch[start..].sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let end = self.scratch.len();
        let mut outcome = Step::Settled;
        for k in start..end {
            let (_, c, _, dc) = self.scratch[k];
            match self.visit(c as usize, pos, ply, dc, ct, Some((k + 1, end))) {
                Step::Promoted => {
                    outcome = Step::Promoted;
                    break;
                }
                Step::Blocked => outcome = Step::Blocked,
                Step::Settled | Step::Full => {}
            }
        }
        self.scratch.truncate(start);
        outcome
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
            } else {
                let gain = if pos.captured_role(mv).is_some() || mv.is_promotion() {
                    see(pos, mv)
                } else {
                    QUIET_POLICY + pst_gain(pos, mv.from(), mv.king_destination())
                } + if Some(mv) == tt_move { TT_POLICY } else { 0 };
                let policy = (-(base + gain)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1);
                Node::new(key, mv, packed, i as u32, policy, State::Fresh)
            };
            let mut node = node;
            node.check = child.is_check();
            self.nodes.push(node);
        }
        let node = &mut self.nodes[i];
        node.first = first;
        node.count = moves.len() as u16;
        node.state = State::Expanded;
        recompute(&mut self.nodes, i, usize::MAX);
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
        self.nodes[i].unsettle();
        while i != 0 {
            let parent = self.nodes[i].parent as usize;
            let change = recompute(&mut self.nodes, parent, i);
            self.nodes[parent].unsettle();
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
        self.visited +=
            self.evaluator
                .evaluate_batch_around(&self.batch_pos, &self.batch_t, &mut self.values);
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
        self.batch_t.clear();
    }

    /// Drops the batch unevaluated (the search stopped): its leaves keep their policy values.
    pub(super) fn abandon_batch(&mut self) {
        for &i in &self.batch {
            self.nodes[i as usize].state = State::Fresh;
        }
        self.batch.clear();
        self.batch_pos.clear();
        self.batch_t.clear();
    }

    /// The root's promoted depth (at most the desired depth).
    pub(super) fn root_depth(&self) -> u32 {
        i32::from(self.nodes[0].depth).clamp(0, self.desired.min(MAX_DEPTH as i32)) as u32
    }

    /// The root's best child: the best of the last settled desired depth, unless another
    /// has since been verified better as a principal variation at the depth under way.
    pub(super) fn best_child(&self) -> Option<usize> {
        let current = self.current_best();
        match (self.completed_best, current) {
            (Some(done), Some(c)) if c != done => {
                let n = &self.nodes[c];
                let verified = n.state == State::Terminal
                    || i32::from(n.pv_d) >= self.desired - 1
                    || (n.state != State::Expanded && self.desired <= 1);
                Some(if verified { c } else { done })
            }
            _ => current,
        }
    }

    /// The root's best child now: the best of those evaluated at least statically (a move
    /// known only by its policy value is not played when another is known better).
    fn current_best(&self) -> Option<usize> {
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
