//! The search tree: an arena of nodes, children of a node side by side, values negamax
//! (every node's value is from its own side to move's point of view; mates are scored by
//! their distance from the node).
//!
//! A node's depth is how far it has been promoted: -1 for a child known only by its policy
//! value, 0 once statically evaluated, and for an expanded node one more than the shallowest
//! of its *contenders* — the children whose value lies within [`CONTENDER_PLIES`] error
//! intervals of the best — so that a node counts as searched `d` plies only when every move
//! that could still be the best has been searched `d - 1` plies. Checkmates, stalemates and
//! draws are terminal: exact, with [`TERMINAL_DEPTH`].

use super::{model::TeslaParams, packed::PackedMove};
use crate::{search::score::MATE_BOUND, Move};

/// The depth of a terminal node (exact: never promoted).
pub(super) const TERMINAL_DEPTH: i16 = 120;

/// Children within this many error constants of the best bound the node's depth.
pub(super) const CONTENDER_PLIES: f64 = 2.0;

/// Where a node stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    /// Known only by its policy value (depth -1).
    Fresh,
    /// In the batch being filled, waiting for its static evaluation.
    Pending,
    /// Statically evaluated (depth 0), children not generated.
    Evaluated,
    /// Children generated.
    Expanded,
    /// Checkmate, stalemate or a draw by rule: exact.
    Terminal,
}

/// One node.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// The position's key.
    pub(super) key: u64,
    /// The move from the parent, and the same in the document's 18-bit form.
    pub(super) mv: Move,
    pub(super) packed: PackedMove,
    /// Index of the parent (the root is its own parent).
    pub(super) parent: u32,
    /// Index of the first child, and the number of children.
    pub(super) first: u32,
    pub(super) count: u16,
    /// Offset of the best child among the children.
    pub(super) best: u16,
    /// The value, from this node's side to move.
    pub(super) eval: i32,
    /// The promoted depth.
    pub(super) depth: i16,
    pub(super) state: State,
}

impl Node {
    /// A node known by `eval` at `depth`.
    pub(super) fn new(
        key: u64,
        mv: Move,
        packed: PackedMove,
        parent: u32,
        eval: i32,
        state: State,
    ) -> Node {
        let depth = match state {
            State::Fresh | State::Pending => -1,
            State::Terminal => TERMINAL_DEPTH,
            State::Evaluated | State::Expanded => 0,
        };
        Node {
            key,
            mv,
            packed,
            parent,
            first: 0,
            count: 0,
            best: 0,
            eval,
            depth,
            state,
        }
    }

    /// The children's index range.
    pub(super) fn children(&self) -> std::ops::Range<usize> {
        self.first as usize..self.first as usize + self.count as usize
    }
}

/// A child's value seen from its parent: negated, and a mate one ply further away.
#[inline]
pub(super) fn negate(v: i32) -> i32 {
    let v = -v;
    if v >= MATE_BOUND {
        v - 1
    } else if v <= -MATE_BOUND {
        v + 1
    } else {
        v
    }
}

/// What an update of a node did to its best child.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Change {
    /// The child updated was the best before.
    pub(super) was_best: bool,
    /// The best child changed.
    pub(super) changed: bool,
}

/// Recomputes an expanded node's value, best child and depth from its children; `from` is
/// the child (absolute index) whose update caused this.
pub(super) fn recompute(nodes: &mut [Node], i: usize, from: usize, params: &TeslaParams) -> Change {
    let node = nodes[i];
    if node.state != State::Expanded || node.count == 0 {
        return Change::default();
    }
    let range = node.children();
    let mut best = range.start;
    let mut best_v = i32::MIN;
    for c in range.clone() {
        let v = negate(nodes[c].eval);
        if v > best_v {
            best_v = v;
            best = c;
        }
    }
    let window = (CONTENDER_PLIES * params.error_cp) as i32;
    let mut depth = TERMINAL_DEPTH;
    for c in range.clone() {
        if c == best || negate(nodes[c].eval) >= best_v - window {
            depth = depth.min(nodes[c].depth);
        }
    }
    let old_best = range.start + node.best as usize;
    let n = &mut nodes[i];
    n.eval = best_v;
    n.best = (best - range.start) as u16;
    n.depth = (depth + 1).min(TERMINAL_DEPTH);
    Change {
        was_best: from == old_best,
        changed: best != old_best,
    }
}

/// The principal variation from node `i`: its best children while they have children or
/// are exact.
pub(super) fn pv(nodes: &[Node], mut i: usize) -> Vec<Move> {
    let mut line = Vec::new();
    while nodes[i].state == State::Expanded && nodes[i].count > 0 && line.len() < 64 {
        let c = nodes[i].first as usize + nodes[i].best as usize;
        line.push(nodes[c].mv);
        i = c;
    }
    line
}
