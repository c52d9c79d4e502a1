//! The search tree: an arena of nodes, children of a node side by side, values negamax
//! (every node's value is from its own side to move's point of view; mates are scored by
//! their distance from the node).
//!
//! A node's depth is how far it has been promoted: -1 for a child known only by its policy
//! value, 0 once statically evaluated, and for an expanded node the deepest desired depth at
//! which a descent found it *settled* (see `run`). Checkmates, stalemates and draws are
//! terminal: exact, with [`TERMINAL_DEPTH`].
//!
//! A settled node also remembers the bound it was settled for, as alpha-beta's table does:
//! "its value is at least `t`, searched `d` plies" (`hold`) or "below `t`, searched `d`
//! plies" (`fail`). Any update coming up through a node forgets both.

use super::packed::PackedMove;
use crate::{search::score::MATE_BOUND, Move};

/// The depth of a terminal node (exact: never promoted).
pub(super) const TERMINAL_DEPTH: i16 = 120;

/// No bound recorded.
pub(super) const NO_BOUND: i16 = i16::MIN;

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
    /// Settled with its value at least `hold_t`, to desired depth `hold_d`.
    pub(super) hold_d: i16,
    pub(super) hold_t: i32,
    /// Settled with its value below `fail_t`, to desired depth `fail_d`.
    pub(super) fail_d: i16,
    pub(super) fail_t: i32,
    /// Settled as a principal variation node (exact) to desired depth `pv_d`.
    pub(super) pv_d: i16,
    /// The move to this node gives check.
    pub(super) check: bool,
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
            hold_d: NO_BOUND,
            hold_t: 0,
            fail_d: NO_BOUND,
            fail_t: 0,
            pv_d: NO_BOUND,
            check: false,
        }
    }

    /// Forgets the bounds the node was settled for (something below it changed).
    pub(super) fn unsettle(&mut self) {
        self.hold_d = NO_BOUND;
        self.fail_d = NO_BOUND;
        self.pv_d = NO_BOUND;
    }

    /// Whether the node is settled for "is the value at least `t`?" at desired depth `d`.
    pub(super) fn settled(&self, d: i32, t: i32) -> bool {
        if self.eval >= t {
            i32::from(self.hold_d) >= d && t <= self.hold_t
        } else {
            i32::from(self.fail_d) >= d && t >= self.fail_t
        }
    }

    /// Records that the node is settled for threshold `t` at desired depth `d`.
    pub(super) fn settle(&mut self, d: i32, t: i32) {
        let d16 = d.clamp(0, i32::from(TERMINAL_DEPTH) - 1) as i16;
        if self.eval >= t {
            self.hold_d = d16;
            self.hold_t = t;
        } else {
            self.fail_d = d16;
            self.fail_t = t;
        }
        self.depth = self.depth.max(d16);
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

/// Recomputes an expanded node's value and best child from its children; `from` is the
/// child (absolute index) whose update caused this.
pub(super) fn recompute(nodes: &mut [Node], i: usize, from: usize) -> Change {
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
    let old_best = range.start + node.best as usize;
    let n = &mut nodes[i];
    n.eval = best_v;
    n.best = (best - range.start) as u16;
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
