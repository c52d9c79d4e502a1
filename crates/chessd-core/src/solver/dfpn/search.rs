//! Depth-first proof-number search (Nagai's df-pn) over nodes (position, attacker moves left).
//!
//! `mid` is Nagai's multiple iterative deepening: a node is searched until its proof number
//! reaches `thpn` or its disproof number reaches `thdn`; the child with the smallest proof
//! (attacker node) or disproof (defender node) number is searched with thresholds from its
//! best sibling, so the search moves to another branch only when this one becomes worse than
//! that sibling. The child threshold uses the 1+ε trick (Pawlewicz and Lew): the best child
//! may go ε = 1/4 past its sibling before the search switches, which cuts the re-expansions
//! of two branches of nearly equal numbers.
//!
//! The remaining depth is part of a node, and it falls by one with each attacker move, so the
//! search graph has no cycles: the graph-history interaction (GHI) problem of df-pn does not
//! arise (repetitions are ignored, as in the exact solver), and a node never waits for itself.
//! With one attacker move left a node is settled at once: an attacker node by a mate-in-one
//! test, a defender node by a mate-in-one test after every defence.

use super::{
    numbers,
    table::{Entry, Table, INF, LARGE},
};
use crate::{
    solver::{
        limits::{Limits, CHECK_INTERVAL},
        search::Searcher,
    },
    Position,
};

/// Attacker nodes with at most this many moves left (and defender nodes with one fewer) are
/// settled by the exact solver's depth-first search instead (the leaf solver of tsume-shogi
/// df-pn solvers, whose mate-in-3 routines play the same part): near the leaves a fixed-depth
/// search with killers and its own table costs less than proof numbers.
pub(super) const LEAF_DEPTH: u32 = 3;

/// A node's proof number, disproof number and (when proven) mate length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Numbers {
    pub pn: u32,
    pub dn: u32,
    pub len: u32,
}

impl Numbers {
    const PROVEN_NOW: Numbers = Numbers {
        pn: 0,
        dn: INF,
        len: 0,
    };
    const DISPROVEN: Numbers = Numbers {
        pn: INF,
        dn: 0,
        len: 0,
    };

    fn proven(len: u32) -> Numbers {
        Numbers {
            len,
            ..Numbers::PROVEN_NOW
        }
    }

    /// Whether the node is proven or disproven.
    pub(super) fn settled(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// A child of an expanded node.
struct Child {
    pos: Position,
    num: Numbers,
}

/// The search state: the table, the limits and the node count.
pub(super) struct Search<'a> {
    pub table: Table,
    /// The leaf solver (see [`LEAF_DEPTH`]).
    pub leaf: Searcher<'a>,
    limits: &'a Limits<'a>,
    /// Nodes visited (node expansions and mate-in-one tests).
    pub nodes: u64,
    pending: u64,
    /// Set when a limit stopped the search.
    pub stopped: bool,
}

/// The 1+ε threshold from the second-best child's number (ε = 1/4).
#[inline]
fn widen(second: u32) -> u32 {
    if second >= LARGE {
        INF
    } else {
        (second + second / 4).max(second + 1).min(LARGE)
    }
}

impl<'a> Search<'a> {
    /// A search over `table` within `limits`.
    pub(super) fn new(table: Table, leaf: Searcher<'a>, limits: &'a Limits<'a>) -> Search<'a> {
        Search {
            table,
            leaf,
            limits,
            nodes: 0,
            pending: 0,
            stopped: false,
        }
    }

    fn count(&mut self, n: u64) {
        self.nodes += n;
        self.pending += n;
        if self.pending >= CHECK_INTERVAL {
            let batch = std::mem::take(&mut self.pending);
            if self.limits.report(batch) {
                self.stopped = true;
            }
        }
    }

    /// Reports the nodes not yet counted by the limits.
    pub(super) fn flush(&mut self) {
        let batch = std::mem::take(&mut self.pending);
        self.limits.report(batch);
        self.leaf.flush();
    }

    /// Nodes visited by the proof-number search and the leaf solver.
    pub(super) fn total_nodes(&self) -> u64 {
        self.nodes + self.leaf.nodes
    }

    /// A node near the leaves, settled by the leaf solver (unsettled when it was stopped).
    fn leaf_node(&mut self, pos: &Position, depth: u32, attacker: bool) -> Numbers {
        let ply = 2 * (LEAF_DEPTH - depth) as usize + usize::from(!attacker);
        let answer = if attacker {
            self.leaf.attack(pos, depth, ply)
        } else {
            self.leaf.defend(pos, depth, ply)
        };
        match answer {
            Some(true) => Numbers::proven(depth),
            Some(false) => Numbers::DISPROVEN,
            None => {
                self.stopped = true;
                Numbers {
                    pn: 1,
                    dn: 1,
                    len: 0,
                }
            }
        }
    }

    /// Searches the attacker node `pos` (`depth` moves left) until it is proven or
    /// disproven, or a limit stops it; returns its numbers.
    pub(super) fn prove(&mut self, pos: &Position, depth: u32) -> Numbers {
        loop {
            let num = self.mid(pos, depth, true, INF, INF);
            if num.settled() || self.stopped {
                return num;
            }
        }
    }

    /// Nagai's MID: searches `pos` (`attacker` to move or not, `depth` attacker moves left)
    /// until its proof number reaches `thpn` or its disproof number `thdn`.
    fn mid(&mut self, pos: &Position, depth: u32, attacker: bool, thpn: u32, thdn: u32) -> Numbers {
        let hash = pos.hash();
        if let Some(e) = self.table.get(hash, depth) {
            let num = Numbers {
                pn: e.pn,
                dn: e.dn,
                len: u32::from(e.len),
            };
            if num.settled() || num.pn >= thpn || num.dn >= thdn {
                return num;
            }
        }
        self.search_node(pos, depth, attacker, thpn, thdn)
    }

    /// Searches the attacker node `pos` again, its own table entry not read (its children's
    /// are), until proven or disproven or stopped: the proof tree's way to find a proven move
    /// of a node whose children's entries were replaced while its own stayed.
    pub(super) fn prove_again(&mut self, pos: &Position, depth: u32) -> Numbers {
        let num = self.search_node(pos, depth, true, INF, INF);
        if num.settled() || self.stopped {
            return num;
        }
        self.prove(pos, depth)
    }

    /// The body of [`Search::mid`] after the table lookup: expands `pos` and searches its
    /// children.
    fn search_node(
        &mut self,
        pos: &Position,
        depth: u32,
        attacker: bool,
        thpn: u32,
        thdn: u32,
    ) -> Numbers {
        let hash = pos.hash();
        let before = self.total_nodes();
        self.count(1);
        if depth < LEAF_DEPTH || (attacker && depth == LEAF_DEPTH) {
            let num = self.leaf_node(pos, depth, attacker);
            if num.settled() {
                let work = self.total_nodes() - before;
                self.table.put(hash, depth, num.pn, num.dn, num.len, work);
            }
            return num;
        }
        let mut children = Vec::new();
        let settled = if attacker {
            self.expand_attacker(pos, depth, &mut children)
        } else {
            self.expand_defender(pos, depth, &mut children)
        };
        if let Some(num) = settled {
            self.table.put(
                hash,
                depth,
                num.pn,
                num.dn,
                num.len,
                self.total_nodes() - before,
            );
            return num;
        }
        let child_depth = if attacker { depth - 1 } else { depth };
        let mut num;
        loop {
            num = aggregate(&children, attacker);
            if num.settled() || num.pn >= thpn || num.dn >= thdn || self.stopped {
                break;
            }
            let (best, second) = select(&children, attacker);
            let c = &children[best].num;
            let (cthpn, cthdn) = if attacker {
                (
                    thpn.min(widen(second)),
                    (thdn - num.dn).saturating_add(c.dn).min(INF),
                )
            } else {
                (
                    (thpn - num.pn).saturating_add(c.pn).min(INF),
                    thdn.min(widen(second)),
                )
            };
            let child = children[best].pos;
            children[best].num = self.mid(&child, child_depth, !attacker, cthpn, cthdn);
        }
        self.table.put(
            hash,
            depth,
            num.pn,
            num.dn,
            num.len,
            self.total_nodes() - before,
        );
        num
    }

    /// The children of an attacker node with `depth >= 2` moves left, unless it is settled
    /// at once (a move mates, or no move avoids stalemating or leaving the defender free).
    fn expand_attacker(
        &mut self,
        pos: &Position,
        depth: u32,
        children: &mut Vec<Child>,
    ) -> Option<Numbers> {
        let moves = pos.legal_moves();
        // The children first, then their table entries in a loop of independent loads (the
        // processor overlaps the cache misses, which dominate the search's time).
        let positions: Vec<Position> = moves.iter().map(|&mv| pos.after(mv)).collect();
        let entries: Vec<Option<Entry>> = positions
            .iter()
            .map(|c| self.table.get(c.hash(), depth - 1))
            .collect();
        let mut best_proof: Option<u32> = None;
        for ((&mv, child), entry) in moves.iter().zip(positions).zip(entries) {
            let num = match entry {
                Some(e) => Numbers {
                    pn: e.pn,
                    dn: e.dn,
                    len: u32::from(e.len),
                },
                None => {
                    // Every move has the defender's replies counted (the initial numbers);
                    // a move that leaves none mates or stalemates.
                    let check = child.is_check();
                    let replies = child.count_legal() as u32;
                    if replies == 0 {
                        if check {
                            return Some(Numbers::proven(1));
                        }
                        // Stalemate: the move fails.
                        continue;
                    }
                    let (pn, dn) = numbers::after_attack(pos, mv, replies, check);
                    Numbers { pn, dn, len: 0 }
                }
            };
            if num.dn == 0 {
                continue;
            }
            if num.pn == 0 {
                best_proof = Some(best_proof.map_or(num.len, |b| b.min(num.len)));
            }
            children.push(Child { pos: child, num });
        }
        if let Some(len) = best_proof {
            return Some(Numbers::proven(1 + len));
        }
        if children.is_empty() {
            return Some(Numbers::DISPROVEN);
        }
        // Stable order: checks and captures with few replies first (ties by generation).
        children.sort_by_key(|c| c.num.pn);
        None
    }

    /// The children of a defender node with `depth >= 2` attacker moves left, unless it is
    /// settled at once (mated, stalemated, or a defence already known to escape).
    fn expand_defender(
        &mut self,
        pos: &Position,
        depth: u32,
        children: &mut Vec<Child>,
    ) -> Option<Numbers> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(if pos.is_check() {
                Numbers::PROVEN_NOW
            } else {
                Numbers::DISPROVEN
            });
        }
        let positions: Vec<Position> = moves.iter().map(|&d| pos.after(d)).collect();
        let entries: Vec<Option<Entry>> = positions
            .iter()
            .map(|c| self.table.get(c.hash(), depth))
            .collect();
        let mut all_proven = true;
        let mut len = 0;
        for (child, entry) in positions.into_iter().zip(entries) {
            let num = match entry {
                Some(e) => Numbers {
                    pn: e.pn,
                    dn: e.dn,
                    len: u32::from(e.len),
                },
                None => {
                    let (pn, dn) = numbers::after_defence();
                    Numbers { pn, dn, len: 0 }
                }
            };
            if num.dn == 0 {
                return Some(Numbers::DISPROVEN);
            }
            if num.pn == 0 {
                len = len.max(num.len);
            } else {
                all_proven = false;
            }
            children.push(Child { pos: child, num });
        }
        if all_proven {
            return Some(Numbers::proven(len));
        }
        None
    }
}

/// A node's numbers from its children's: at an attacker node the smallest proof number and
/// the sum of the disproof numbers, at a defender node the reverse; the mate length when
/// proven.
fn aggregate(children: &[Child], attacker: bool) -> Numbers {
    let mut min = INF;
    let mut sum = 0u32;
    let mut len = if attacker { u32::MAX } else { 0 };
    for c in children {
        let (m, s) = if attacker {
            (c.num.pn, c.num.dn)
        } else {
            (c.num.dn, c.num.pn)
        };
        min = min.min(m);
        // INF absorbs: a proven child makes an attacker node's disproof number INF (and a
        // disproven one a defender node's proof number), whatever its siblings add. (Before,
        // a finite sibling after it brought the sum back to LARGE: a proven node with a
        // finite disproof number, which a defender node could select and search forever.)
        sum = if s >= INF || sum >= INF {
            INF
        } else {
            (sum + s).min(LARGE)
        };
        if c.num.pn == 0 {
            len = if attacker {
                len.min(c.num.len + 1)
            } else {
                len.max(c.num.len)
            };
        }
    }
    if attacker {
        Numbers {
            pn: min,
            dn: sum,
            len: if min == 0 { len } else { 0 },
        }
    } else {
        Numbers {
            pn: sum,
            dn: min,
            len: if sum == 0 { len } else { 0 },
        }
    }
}

/// The index of the child to search (smallest proof number at an attacker node, smallest
/// disproof number at a defender node; the first of equals) and the second-smallest number.
fn select(children: &[Child], attacker: bool) -> (usize, u32) {
    let key = |c: &Child| if attacker { c.num.pn } else { c.num.dn };
    let mut best = 0;
    let mut first = INF;
    let mut second = INF;
    for (i, c) in children.iter().enumerate() {
        let k = key(c);
        if k < first {
            second = first;
            first = k;
            best = i;
        } else if k < second {
            second = k;
        }
    }
    (best, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(pn: u32, dn: u32) -> Child {
        Child {
            pos: Position::default(),
            num: Numbers { pn, dn, len: 1 },
        }
    }

    #[test]
    fn a_settled_child_keeps_its_parent_settled_whatever_its_siblings_add() {
        // Attacker node: a proven child, then finite siblings: proven, disproof number INF
        // (it was LARGE, and a defender node above searched such a node forever).
        let or = aggregate(&[child(3, 2), child(0, INF), child(5, 7)], true);
        assert_eq!((or.pn, or.dn, or.len), (0, INF, 2));
        // Defender node: a disproven child among finite ones: proof number INF.
        let and = aggregate(&[child(2, 3), child(INF, 0), child(4, 1)], false);
        assert_eq!((and.pn, and.dn), (INF, 0));
        // Finite sums still saturate below INF.
        let big = aggregate(&[child(1, LARGE), child(1, LARGE)], true);
        assert_eq!(big.dn, LARGE);
    }
}
