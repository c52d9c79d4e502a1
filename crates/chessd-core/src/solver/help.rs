//! Helpmates (`h#N`): the side to move begins, both sides cooperate, and the side to move is
//! checkmated by the other side's Nth move. A solution is the whole line of 2N moves; a
//! problem usually has several, and all of them are listed.
//!
//! The search is a full-width depth-first enumeration of the lines (cooperative play has no
//! refutations to cut on), with a table of positions proven to have no solution with a given
//! number of moves left (transpositions are common: the same two moves in either order). The
//! last move only looks at checks; the move before it is skipped at once when the mated side's
//! king could not be mated by any check (no quick test: simply the full check of the last
//! move). As Popeye does, shorter solutions are listed too (first): a mate after k < N move
//! pairs (`h#1` inside an `h#2`) is a solution of `h#N`, and makes the problem unsound.

use std::{collections::HashSet, hash::BuildHasherDefault, time::Instant};

use super::{
    checks::CheckSquares,
    limits::{Limits, NodeCount},
    selfmate::KeyHasher,
    SolveError, Solver,
};
use crate::{Move, PieceMoves, Position};

/// The solutions of a helpmate.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HelpSolution {
    /// The move pairs N (solutions have at most N).
    pub moves: u32,
    /// Every solution, each 2k moves from the start position for some k ≤ N: the shortest
    /// first, then in search order.
    pub solutions: Vec<Vec<Move>>,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time of the solve.
    pub elapsed: std::time::Duration,
}

impl HelpSolution {
    /// Whether the problem is sound in the usual sense: exactly one solution (of N move
    /// pairs: a single shorter one also counts as one, and is reported as such).
    pub fn unique(&self) -> bool {
        self.solutions.len() == 1
    }
}

/// The most entries the no-solution table holds before it is emptied and refilled (about
/// 16 bytes each, so a few tens of MiB at most for the default size).
fn table_cap(table_mb: usize) -> usize {
    (table_mb.max(1) << 20) / 24
}

/// Finds every helpmate in at most `solver`'s N move pairs.
pub(super) fn solve(solver: &Solver<'_>, start: Instant) -> Result<HelpSolution, SolveError> {
    let limits = Limits::of(solver);
    let mut search = HelpSearch {
        limits: &limits,
        failed: HashSet::default(),
        cap: table_cap(solver.table_mb),
        line: Vec::with_capacity(2 * solver.mate_in as usize),
        solutions: Vec::new(),
        count: NodeCount::default(),
    };
    for k in 1..=solver.mate_in {
        search.search(&solver.pos, 2 * k);
        if search.count.stopped.is_some() {
            break;
        }
    }
    search.count.check(start)?;
    Ok(HelpSolution {
        moves: solver.mate_in,
        solutions: search.solutions,
        nodes: search.count.nodes,
        elapsed: start.elapsed(),
    })
}

struct HelpSearch<'l, 'a> {
    limits: &'l Limits<'a>,
    /// (position key, moves left) proven to have no solution.
    failed: HashSet<(u64, u32), BuildHasherDefault<KeyHasher>>,
    cap: usize,
    line: Vec<Move>,
    solutions: Vec<Vec<Move>>,
    count: NodeCount,
}

impl HelpSearch<'_, '_> {
    /// Counts a node; whether the search must stop.
    fn visit(&mut self) -> bool {
        self.count.visit(self.limits)
    }

    /// Records every solution from `pos` with `left` moves (plies) to go; whether any.
    fn search(&mut self, pos: &Position, left: u32) -> bool {
        if self.visit() {
            return false;
        }
        if left == 1 {
            return self.mates(pos);
        }
        let key = (pos.hash(), left);
        if self.failed.contains(&key) {
            return false;
        }
        let mut any = false;
        for &mv in pos.legal_moves().iter() {
            // The last move's position is not looked up, so it needs no hash.
            let child = if left == 2 {
                pos.after_unhashed(mv)
            } else {
                pos.after(mv)
            };
            self.line.push(mv);
            any |= self.search(&child, left - 1);
            self.line.pop();
            if self.count.stopped.is_some() {
                return any;
            }
        }
        if !any {
            if self.failed.len() >= self.cap {
                self.failed.clear();
            }
            self.failed.insert(key);
        }
        any
    }

    /// Records every checkmating move of the side to move; whether any. Only the moves the
    /// check squares allow are made and tested.
    fn mates(&mut self, pos: &Position) -> bool {
        let cs = CheckSquares::new(pos);
        let mut any = false;
        pos.generate_moves(|group| {
            let to = cs.candidates(pos, &group);
            for mv in (PieceMoves { to, ..group }) {
                let child = pos.after_unhashed(mv);
                if child.is_check() && !child.has_legal_moves() {
                    let mut line = self.line.clone();
                    line.push(mv);
                    self.solutions.push(line);
                    any = true;
                }
            }
            false
        });
        any
    }
}
