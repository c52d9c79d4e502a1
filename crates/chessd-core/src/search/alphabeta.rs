//! The tree search of one iteration: principal variation search (negamax alpha-beta with
//! null windows after the first move), check extension, transposition-table cutoffs,
//! reverse futility pruning, null-move pruning, late-move reductions, and a quiescence
//! search over captures and queen promotions (all evasions when in check).
//!
//! Repetitions of any earlier position (game history or search path) since the last
//! capture or pawn move, the fifty-move rule and bare material score as draws.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

use super::{
    eval::{evaluate, is_dead_draw},
    ordering::{is_tactical, History, Killers, MovePicker},
    quiescence::{self, Start},
    score::{from_table, is_mate, to_table, DRAW, INFINITE, MATE, MATE_BOUND, MAX_PLY},
    table::{Bound, Table},
};
use crate::{Color, Move, Position, Role};

/// Nodes between two looks at the stop flag and the clock.
const CHECK_EVERY: u64 = 1024;

/// Late-move reductions by depth and move number.
pub(crate) type ReductionTable = [[u8; 64]; 64];

/// The reduction table: `0.5 + ln(depth) * ln(moves) / 2.25` plies.
pub(crate) fn reductions() -> Box<ReductionTable> {
    let mut t = Box::new([[0u8; 64]; 64]);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            let v = 0.5 + (d as f64).ln() * (m as f64).ln() / 2.25;
            *r = v.clamp(0.0, 60.0) as u8;
        }
    }
    t
}

/// A root move with what the search learnt about it.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    /// The move.
    pub mv: Move,
    /// Its score in the last iteration that raised alpha with it (else `-INFINITE`).
    pub score: i32,
    /// The iteration (depth) that last gave it `score`.
    pub depth: u32,
    /// Its principal variation from that iteration (starting with `mv`).
    pub pv: Vec<Move>,
}

/// The state of one search: tables, counters, limits and the path.
pub(crate) struct Worker<'a> {
    tt: &'a mut Table,
    history: &'a mut History,
    lmr: &'a ReductionTable,
    killers: Killers,
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    node_limit: u64,
    /// Nodes searched so far.
    pub nodes: u64,
    /// The deepest ply reached.
    pub seldepth: usize,
    /// Whether a limit or the stop flag ended the search.
    pub stopped: bool,
    /// Keys of the positions before the current node: game history, then the search path.
    hashes: Vec<u64>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
}

impl<'a> Worker<'a> {
    /// A worker for one search from a root whose predecessors have the keys `history`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        tt: &'a mut Table,
        history: &'a mut History,
        lmr: &'a ReductionTable,
        stop: &'a AtomicBool,
        deadline: Option<Instant>,
        node_limit: u64,
        game_history: &[u64],
    ) -> Worker<'a> {
        let mut hashes = Vec::with_capacity(game_history.len() + MAX_PLY + 2);
        hashes.extend_from_slice(game_history);
        Worker {
            tt,
            history,
            lmr,
            killers: Killers::new(),
            stop,
            deadline,
            node_limit,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            hashes,
            pv: Box::new([[super::table::NO_MOVE; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
        }
    }

    /// The table (for probing ponder moves and hashfull after the search).
    pub(super) fn table(&self) -> &Table {
        self.tt
    }

    /// Whether the stop flag is raised or the deadline passed (checked now).
    pub(super) fn should_stop_now(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Counts a node and looks at the limits; true when the search must unwind.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.stopped = true;
        }
        if self.nodes.is_multiple_of(CHECK_EVERY) && self.should_stop_now() {
            self.stopped = true;
        }
        self.stopped
    }

    /// Whether the position at a node below the root is drawn by rule or repetition.
    fn is_draw(&self, pos: &Position) -> bool {
        let halfmoves = pos.halfmoves() as usize;
        if halfmoves >= 100 && (!pos.is_check() || pos.has_legal_moves()) {
            return true;
        }
        // A position recurs at the earliest four plies later, with the same side to move.
        let n = self.hashes.len();
        let key = pos.hash();
        let mut d = 4;
        while d <= halfmoves && d <= n {
            if self.hashes[n - d] == key {
                return true;
            }
            d += 2;
        }
        is_dead_draw(pos)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = mv;
        for j in ply + 1..child_len {
            self.pv[ply][j] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = child_len;
    }

    /// Searches the root moves to `depth` in the window (`alpha`, `beta`). The move that
    /// raises alpha moves to the front of `root_moves` with its score and PV. Returns the
    /// best score (fail-soft); meaningless when [`Worker::stopped`].
    pub(super) fn search_root(
        &mut self,
        pos: &Position,
        root_moves: &mut [RootMove],
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.pv_len[0] = 0;
        let mut best = -INFINITE;
        let key = pos.hash();
        let d = depth as i32;
        for i in 0..root_moves.len() {
            let mv = root_moves[i].mv;
            let child = pos.after(mv);
            self.hashes.push(key);
            let score = if i == 0 {
                -self.negamax(&child, d - 1, -beta, -alpha, 1, true, true)
            } else {
                let s = -self.negamax(&child, d - 1, -alpha - 1, -alpha, 1, false, true);
                if s > alpha && s < beta {
                    -self.negamax(&child, d - 1, -beta, -alpha, 1, true, true)
                } else {
                    s
                }
            };
            self.hashes.pop();
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                self.update_pv(0, mv);
                let pv = self.pv[0][..self.pv_len[0]].to_vec();
                let rm = &mut root_moves[i];
                rm.score = score;
                rm.depth = depth;
                rm.pv = pv;
                root_moves[..=i].rotate_right(1);
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        if !self.stopped {
            if let Some(first) = root_moves.first() {
                let bound = if best >= beta {
                    Bound::Lower
                } else if first.depth == depth && first.score == best {
                    Bound::Exact
                } else {
                    Bound::Upper
                };
                let mv = (bound != Bound::Upper).then_some(first.mv);
                self.tt.store(key, mv, to_table(best, 0), d, bound);
            }
        }
        best
    }

    /// Negamax with alpha-beta (fail-soft) from a node at `ply` (> 0).
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv_node: bool,
        allow_null: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        let in_check = pos.is_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.is_draw(pos) {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(pos);
        }
        // Mate distance pruning: no line from here beats a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = pos.hash();
        let mut tt_move = None;
        if let Some(hit) = self.tt.probe(key) {
            tt_move = hit.mv;
            if !pv_node && hit.depth >= depth {
                let s = from_table(hit.score, ply);
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let static_eval = if in_check { -INFINITE } else { evaluate(pos) };
        if !pv_node && !in_check && !is_mate(beta) {
            // Reverse futility: far above beta near the leaves.
            if depth <= 6 && static_eval - 90 * depth >= beta {
                return static_eval;
            }
            // Null move: if passing still fails high, a real move will too (not in pawn
            // endings, where zugzwang is common).
            if allow_null && depth >= 3 && static_eval >= beta && has_pieces(pos, pos.turn()) {
                let r = 3 + depth / 6;
                let mut child = *pos;
                child.play_null();
                self.hashes.push(key);
                let s = -self.negamax(
                    &child,
                    depth - 1 - r,
                    -beta,
                    -beta + 1,
                    ply + 1,
                    false,
                    false,
                );
                self.hashes.pop();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    return if is_mate(s) { beta } else { s };
                }
            }
        }
        // Internal iterative reduction: without a move to try first, search a bit shallower.
        if pv_node && tt_move.is_none() && depth >= 5 {
            depth -= 1;
        }

        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        let mut picker = MovePicker::new(pos, moves, tt_move, &self.killers, self.history, ply);
        let orig_alpha = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut quiets = [super::table::NO_MOVE; 32];
        let mut n_quiets = 0;
        let mut searched = 0usize;
        while let Some(mv) = picker.next_move() {
            let tactical = is_tactical(pos, mv);
            let child = pos.after(mv);
            let gives_check = child.is_check();
            // Futility: a quiet move cannot lift a hopeless static score near the leaves.
            if !pv_node
                && !in_check
                && !tactical
                && !gives_check
                && best > -MATE_BOUND
                && depth <= 3
                && static_eval + 120 * depth <= alpha
            {
                continue;
            }
            let new_depth = depth - 1;
            self.hashes.push(key);
            let score = if searched == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, pv_node, true)
            } else {
                let mut r = 0;
                if depth >= 3 && searched >= 3 && !tactical && !in_check && !gives_check {
                    r = i32::from(self.lmr[depth.min(63) as usize][searched.min(63)]);
                    if pv_node {
                        r -= 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(
                    &child,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    false,
                    true,
                );
                if s > alpha && r > 0 {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, false, true);
                }
                if pv_node && s > alpha && s < beta {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true, true);
                }
                s
            };
            self.hashes.pop();
            if self.stopped {
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if alpha >= beta {
                        if !tactical {
                            self.killers.record(ply, mv);
                            let bonus = (16 * depth * depth).min(4000);
                            self.history.update(pos, mv, bonus);
                            for &q in &quiets[..n_quiets] {
                                self.history.update(pos, q, -bonus);
                            }
                        }
                        break;
                    }
                }
            }
            if !tactical && n_quiets < quiets.len() {
                quiets[n_quiets] = mv;
                n_quiets += 1;
            }
        }
        if searched == 0 {
            // Every move was pruned as futile: the static score bounds the node from above.
            return alpha.max(static_eval);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, to_table(best, ply), depth, bound);
        best
    }

    /// Quiescence: stand pat on the static score, then captures and queen promotions that do
    /// not lose material; when in check, every evasion (and mate is detected).
    fn qsearch(&mut self, pos: &Position, alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.is_draw(pos) {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(pos);
        }
        let in_check = pos.is_check();
        let (mut best, mut alpha, moves) = match quiescence::start(pos, alpha, beta, ply) {
            Start::Done(value) => return value,
            Start::Moves { best, alpha, moves } => (best, alpha, moves),
        };
        let key = pos.hash();
        let mut picker = MovePicker::tactical(pos, moves);
        while let Some(mv) = picker.next_move() {
            if !in_check && quiescence::futile(pos, mv, best, alpha) {
                continue;
            }
            let child = pos.after(mv);
            self.hashes.push(key);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            self.hashes.pop();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// Whether `color` has a piece other than pawns and the king.
fn has_pieces(pos: &Position, color: Color) -> bool {
    (pos.by_color(color) - pos.by_role(Role::Pawn) - pos.by_role(Role::King)).nonempty()
}
