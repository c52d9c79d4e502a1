//! Selfmates (`s#N`): the side to move (the attacker, White in a problem) begins and forces
//! the other side (the defender) to checkmate it within N defender moves, the defender trying
//! not to. At the last move the defender must have legal moves and every one of them must
//! mate; earlier, a defence that mates the attacker is the attacker's success, and every other
//! defence must be answered. A stalemated side, or an attacker move that mates the defender,
//! fails.
//!
//! The search is a depth-first AND/OR search with a table of proven results per position and
//! moves left (a win within n is a win within n + 1, so each entry is exact for its n). Every
//! first move is searched at N, so the keys are all the first moves that work; the tree of
//! each key answers every defence with the attacker's shortest continuation.

use std::{collections::HashMap, time::Instant};

use super::{
    limits::{Limits, NodeCount},
    SolveError, Solver,
};
use crate::{Move, Position};

/// The solution of a selfmate.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfSolution {
    /// The defender moves N.
    pub moves: u32,
    /// Every first move that forces the defender to mate within N, in move generation order.
    pub keys: Vec<Move>,
    /// One tree per key, in the order of [`SelfSolution::keys`].
    pub trees: Vec<SelfTree>,
    /// Whether the trees are complete (none cut at the size limit).
    pub tree_complete: bool,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time of the solve.
    pub elapsed: std::time::Duration,
}

impl SelfSolution {
    /// Whether there is exactly one key.
    pub fn unique(&self) -> bool {
        self.keys.len() == 1
    }
}

/// An attacker move and every legal defence against it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfTree {
    /// The attacker's move.
    pub mv: Move,
    /// Defender moves to the forced mate from here, against the most stubborn defence.
    pub mate_in: u32,
    /// Every legal defence, in move generation order (empty only when the tree was cut).
    pub defences: Vec<SelfDefence>,
    /// Whether the defences were left out at the tree size limit.
    pub truncated: bool,
}

/// A defence in a selfmate tree: it mates the attacker, or the attacker answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfDefence {
    /// The defender's move.
    pub mv: Move,
    /// Whether this move checkmates the attacker (the tree ends here).
    pub mates: bool,
    /// The attacker's shortest forcing answer, when the move does not mate.
    pub reply: Option<SelfTree>,
}

impl SelfTree {
    /// The number of attacker moves in the tree.
    pub fn attacker_moves(&self) -> usize {
        1 + self
            .defences
            .iter()
            .filter_map(|d| d.reply.as_ref())
            .map(SelfTree::attacker_moves)
            .sum::<usize>()
    }
}

/// Solves the selfmate in `solver`'s N.
pub(super) fn solve(solver: &Solver<'_>, start: Instant) -> Result<SelfSolution, SolveError> {
    let limits = Limits::of(solver);
    let mut search = SelfSearch {
        limits: &limits,
        table: HashMap::new(),
        cap: (solver.table_mb.max(1) << 20) / 32,
        count: NodeCount::default(),
    };
    let n = solver.mate_in;
    let pos = &solver.pos;
    let mut keys = Vec::new();
    for &mv in pos.legal_moves().iter() {
        let won = search.forced(&pos.after(mv), n);
        search.count.check(start)?;
        if won {
            keys.push(mv);
        }
    }
    let mut budget = solver.tree_limit;
    let mut complete = true;
    let trees = keys
        .iter()
        .map(|&key| search.tree(pos, key, n, &mut budget, &mut complete))
        .collect();
    Ok(SelfSolution {
        moves: n,
        keys,
        trees,
        tree_complete: complete && search.count.stopped.is_none(),
        nodes: search.count.nodes,
        elapsed: start.elapsed(),
    })
}

/// Whether the side to move is checkmated.
fn is_mate(pos: &Position) -> bool {
    pos.is_check() && pos.count_legal() == 0
}

struct SelfSearch<'l, 'a> {
    limits: &'l Limits<'a>,
    /// (position key, defender moves left) → whether the attacker wins; both sides' nodes.
    table: HashMap<(u64, u32), bool>,
    cap: usize,
    count: NodeCount,
}

impl SelfSearch<'_, '_> {
    fn visit(&mut self) -> bool {
        self.count.visit(self.limits)
    }

    fn store(&mut self, key: (u64, u32), value: bool) -> bool {
        if self.count.stopped.is_none() {
            if self.table.len() >= self.cap {
                self.table.clear();
            }
            self.table.insert(key, value);
        }
        value
    }

    /// Attacker to move: whether some move forces the defender to mate within `n`.
    fn wins(&mut self, pos: &Position, n: u32) -> bool {
        if n == 0 || self.visit() {
            return false;
        }
        let key = (pos.hash(), 2 * n);
        if let Some(&v) = self.table.get(&key) {
            return v;
        }
        let mut won = false;
        for &mv in pos.legal_moves().iter() {
            if self.forced(&pos.after(mv), n) {
                won = true;
                break;
            }
            if self.count.stopped.is_some() {
                return false;
            }
        }
        self.store(key, won)
    }

    /// Defender to move: whether every defence mates the attacker or (with moves left) leads
    /// to a position the attacker wins within `n - 1`.
    fn forced(&mut self, pos: &Position, n: u32) -> bool {
        if self.visit() {
            return false;
        }
        let key = (pos.hash(), 2 * n + 1);
        if let Some(&v) = self.table.get(&key) {
            return v;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return self.store(key, false);
        }
        // Cheap refutations first: a defence that neither checks nor mates, at the last move.
        let mut all = true;
        for &d in moves.iter() {
            if n == 1 && !pos.gives_check(d) {
                all = false;
                break;
            }
        }
        if all {
            for &d in moves.iter() {
                let child = pos.after(d);
                if is_mate(&child) {
                    continue;
                }
                if n == 1 || !self.wins(&child, n - 1) {
                    all = false;
                    break;
                }
            }
        }
        if self.count.stopped.is_some() {
            return false;
        }
        self.store(key, all)
    }

    /// The tree of attacker move `mv` in `pos`, known to force a mate within `n`.
    fn tree(
        &mut self,
        pos: &Position,
        mv: Move,
        n: u32,
        budget: &mut usize,
        complete: &mut bool,
    ) -> SelfTree {
        let child = pos.after(mv);
        let moves = child.legal_moves();
        let mut node = SelfTree {
            mv,
            mate_in: 1,
            defences: Vec::with_capacity(moves.len()),
            truncated: false,
        };
        if *budget == 0 {
            *complete = false;
            node.mate_in = n;
            node.truncated = true;
            return node;
        }
        *budget -= 1;
        for &d in moves.iter() {
            let grand = child.after(d);
            if is_mate(&grand) {
                node.defences.push(SelfDefence {
                    mv: d,
                    mates: true,
                    reply: None,
                });
                continue;
            }
            // The shortest forcing answer (one exists: the position is proven won).
            let answer = (1..n).find_map(|j| {
                grand
                    .legal_moves()
                    .iter()
                    .copied()
                    .find(|&a| self.forced(&grand.after(a), j))
                    .map(|a| (a, j))
            });
            let Some((a, j)) = answer else {
                *complete = false;
                node.truncated = true;
                node.mate_in = n;
                continue;
            };
            let sub = self.tree(&grand, a, j, budget, complete);
            node.mate_in = node.mate_in.max(1 + sub.mate_in);
            node.defences.push(SelfDefence {
                mv: d,
                mates: false,
                reply: Some(sub),
            });
        }
        node
    }
}
