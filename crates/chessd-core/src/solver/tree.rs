//! The solution tree: for an attacker move, every defence with the attacker's shortest
//! mating answer, down to mate; and the main line through it.

use super::search::Searcher;
use crate::{Move, Position};

/// An attacker move and, when it does not mate at once, every legal defence against it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MateTree {
    /// The attacker's move.
    pub mv: Move,
    /// Attacker moves to mate from here, this one included, against the best defence
    /// (1: `mv` mates).
    pub mate_in: u32,
    /// Every legal defence after `mv`, in move generation order, each with the attacker's
    /// shortest mating answer. Empty when `mv` mates (or when the tree was cut, see
    /// [`MateTree::truncated`]).
    pub defences: Vec<Defence>,
    /// Whether the defences were left out because the tree reached its size limit or the
    /// search was stopped while building it (`mate_in` is then an upper bound).
    pub truncated: bool,
}

/// A defence and the attacker's answer to it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Defence {
    /// The defender's move.
    pub mv: Move,
    /// The attacker's shortest mating answer and what follows.
    pub reply: MateTree,
}

impl MateTree {
    /// The number of attacker moves in the tree (its size).
    pub fn attacker_moves(&self) -> usize {
        1 + self
            .defences
            .iter()
            .map(|d| d.reply.attacker_moves())
            .sum::<usize>()
    }

    /// The main line from this node: the move, then the most stubborn defence (the one
    /// resisting longest; the first of those in generation order), the answer, and so on to
    /// mate.
    pub fn main_line(&self) -> Vec<Move> {
        let mut line = vec![self.mv];
        let mut node = self;
        while let Some(d) = node.defences.iter().rev().max_by_key(|d| d.reply.mate_in) {
            line.push(d.mv);
            line.push(d.reply.mv);
            node = &d.reply;
        }
        line
    }
}

/// Builds solution trees with a searcher, up to a total number of attacker moves.
pub(crate) struct TreeBuilder<'s, 'a> {
    searcher: &'s mut Searcher<'a>,
    budget: usize,
    /// Whether every tree built so far is complete.
    pub complete: bool,
}

impl<'s, 'a> TreeBuilder<'s, 'a> {
    /// A builder allowed `budget` attacker moves in all.
    pub(super) fn new(searcher: &'s mut Searcher<'a>, budget: usize) -> TreeBuilder<'s, 'a> {
        TreeBuilder {
            searcher,
            budget,
            complete: true,
        }
    }

    /// The tree of `mv` played in `pos`, known to mate within `k` attacker moves.
    pub(super) fn build(&mut self, pos: &Position, mv: Move, k: u32) -> MateTree {
        let child = pos.after(mv);
        let moves = child.legal_moves();
        let mut node = MateTree {
            mv,
            mate_in: 1,
            defences: Vec::new(),
            truncated: false,
        };
        if moves.is_empty() {
            return node;
        }
        if moves.len() > self.budget {
            return self.cut(node, k);
        }
        self.budget -= moves.len();
        node.defences.reserve_exact(moves.len());
        for &d in moves.iter() {
            let grand = child.after(d);
            let Some(reply) = self.shortest_mate(&grand, k - 1) else {
                node.defences.clear();
                return self.cut(node, k);
            };
            let sub = self.build(&grand, reply.0, reply.1);
            node.mate_in = node.mate_in.max(1 + sub.mate_in);
            node.defences.push(Defence { mv: d, reply: sub });
        }
        node
    }

    fn cut(&mut self, mut node: MateTree, k: u32) -> MateTree {
        self.complete = false;
        node.mate_in = k;
        node.truncated = true;
        node
    }

    /// The first move mating in the fewest moves (at most `k`), with that number; `None`
    /// when the search was stopped.
    fn shortest_mate(&mut self, pos: &Position, k: u32) -> Option<(Move, u32)> {
        for j in 1..=k {
            if let Some(mv) = self.searcher.mating_move(pos, j)? {
                return Some((mv, j));
            }
        }
        // Unreachable for a proven mate; treat like a stop.
        None
    }
}
