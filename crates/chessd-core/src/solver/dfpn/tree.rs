//! The proof tree of a proven find: every legal defence answered down to checkmate.
//!
//! The tree is read from the table: at an attacker node the move whose defender node is
//! proven with the shortest mate, at a defender node every legal move. Where the table lost an
//! entry (replaced by another), the node is proven again by the search. Near the leaves
//! (see [`LEAF_DEPTH`]) the leaf solver finds the shortest mating move. Every leaf is checked
//! to be a checkmate (in check, no legal move) while the tree is built, so a tree is a proof
//! by construction, whatever the table says.

use super::search::{Search, LEAF_DEPTH};
use crate::{
    solver::{checks::mate_in_one, tree::Defence, MateTree},
    Move, Position,
};

/// Builds proof trees from a finished search, up to a total number of attacker moves.
pub(super) struct ProofBuilder<'s, 'a> {
    search: &'s mut Search<'a>,
    budget: usize,
    /// Whether every tree built so far is complete.
    pub complete: bool,
}

impl<'s, 'a> ProofBuilder<'s, 'a> {
    /// A builder allowed `budget` attacker moves in all.
    pub(super) fn new(search: &'s mut Search<'a>, budget: usize) -> ProofBuilder<'s, 'a> {
        ProofBuilder {
            search,
            budget,
            complete: true,
        }
    }

    /// The attacker move of `pos` that mates within `depth` moves by the shortest proven
    /// mate, with that mate's length; `None` when the search was stopped (or, which a sound
    /// search never gives, no move is proven).
    pub(super) fn mating_move(&mut self, pos: &Position, depth: u32) -> Option<(Move, u32)> {
        if let Some(mv) = mate_in_one(pos) {
            return Some((mv, 1));
        }
        // A node proven at another depth may have been settled by the leaf solver there
        // (the table answers every depth at least as long as the mate), so its children
        // are not in the proof-number table: the leaf solver finds the move again.
        let leaf_len = match self.search.table.get(pos.hash(), depth) {
            Some(e) if e.pn == 0 && u32::from(e.len) <= LEAF_DEPTH => u32::from(e.len),
            _ => depth,
        };
        if leaf_len <= LEAF_DEPTH {
            // Settled by the leaf solver, whose table the proof-number table does not see.
            for j in 2..=leaf_len {
                if let Some(mv) = self.search.leaf.mating_move(pos, j)? {
                    return Some((mv, j));
                }
            }
            return None;
        }
        for _ in 0..2 {
            let mut best: Option<(Move, u32)> = None;
            for &mv in pos.legal_moves().iter() {
                let child = pos.after(mv);
                if let Some(e) = self.search.table.get(child.hash(), depth - 1) {
                    if e.pn == 0 && best.is_none_or(|(_, l)| u32::from(e.len) + 1 < l) {
                        best = Some((mv, u32::from(e.len) + 1));
                    }
                }
            }
            if best.is_some() {
                return best;
            }
            let num = self.search.prove_again(pos, depth);
            if num.pn != 0 {
                return None;
            }
        }
        None
    }

    /// The tree of the attacker's `mv` in `pos`, proven to mate within `depth` moves.
    pub(super) fn build(&mut self, pos: &Position, mv: Move, depth: u32) -> MateTree {
        let child = pos.after(mv);
        let moves = child.legal_moves();
        let mut node = MateTree {
            mv,
            mate_in: 1,
            defences: Vec::new(),
            truncated: false,
        };
        if moves.is_empty() {
            if !child.is_check() {
                // Stalemate: not a proof (a sound search never gets here).
                return self.cut(node, depth);
            }
            return node;
        }
        if depth <= 1 || moves.len() > self.budget {
            return self.cut(node, depth);
        }
        self.budget -= moves.len();
        node.defences.reserve_exact(moves.len());
        for &d in moves.iter() {
            let grand = child.after(d);
            let Some((reply, _)) = self.mating_move(&grand, depth - 1) else {
                node.defences.clear();
                return self.cut(node, depth);
            };
            let sub = self.build(&grand, reply, depth - 1);
            node.mate_in = node.mate_in.max(1 + sub.mate_in);
            node.defences.push(Defence { mv: d, reply: sub });
        }
        node
    }

    fn cut(&mut self, mut node: MateTree, depth: u32) -> MateTree {
        self.complete = false;
        node.mate_in = depth;
        node.truncated = true;
        node
    }
}
