//! The perft recursion shared by bulk and statistics counting, with optional hashing and
//! cancellation.

use std::{
    ops::AddAssign,
    sync::atomic::{AtomicBool, Ordering::Relaxed},
};

use super::{
    hash::{HashValue, PerftHash},
    stats::{classify_by_making, leaf_stats, perft_stats, PerftStats},
};
use crate::{Move, MoveGroupKind, Position};

/// What a perft counts at its leaves: bulk node counts (`u64`) or [`PerftStats`].
pub(crate) trait Tally: HashValue + Default + AddAssign + Send + Sync + 'static {
    /// The tally of a single node (depth 0).
    fn one() -> Self;
    /// The tally of every legal move of `pos` (depth 1).
    fn leaves(pos: &Position) -> Self;
    /// The tally of `pos` at depth 2, when this tally has a faster way to it than summing
    /// the children's leaves (bulk counts share the work between siblings).
    fn two_plies(_pos: &Position) -> Option<Self> {
        None
    }
    /// The tally of the single legal move `mv` of `pos`.
    fn of_move(pos: &Position, mv: Move) -> Self;
    /// The tally multiplied by an occurrence count.
    fn times(self, count: u64) -> Self;
    /// As statistics (bulk counts fill only `nodes`).
    fn into_stats(self) -> PerftStats;
    /// From statistics (bulk counts keep only `nodes`).
    fn from_stats(stats: &PerftStats) -> Self;
}

impl Tally for u64 {
    #[inline]
    fn one() -> u64 {
        1
    }
    #[inline]
    fn leaves(pos: &Position) -> u64 {
        pos.count_legal() as u64
    }
    #[inline]
    fn two_plies(pos: &Position) -> Option<u64> {
        Some(super::perft(pos, 2))
    }
    fn of_move(_: &Position, _: Move) -> u64 {
        1
    }
    #[inline]
    fn times(self, count: u64) -> u64 {
        self * count
    }
    #[inline]
    fn into_stats(self) -> PerftStats {
        PerftStats::from_nodes(self)
    }
    #[inline]
    fn from_stats(stats: &PerftStats) -> u64 {
        stats.nodes
    }
}

impl Tally for PerftStats {
    #[inline]
    fn one() -> PerftStats {
        PerftStats::ONE_NODE
    }
    #[inline]
    fn leaves(pos: &Position) -> PerftStats {
        leaf_stats(pos)
    }
    #[inline]
    fn two_plies(pos: &Position) -> Option<PerftStats> {
        Some(perft_stats(pos, 2))
    }
    fn of_move(pos: &Position, mv: Move) -> PerftStats {
        let mut s = PerftStats::default();
        classify_by_making(pos, mv, &mut s);
        s
    }
    #[inline]
    fn times(self, count: u64) -> PerftStats {
        self * count
    }
    #[inline]
    fn into_stats(self) -> PerftStats {
        self
    }
    #[inline]
    fn from_stats(stats: &PerftStats) -> PerftStats {
        *stats
    }
}

/// What a counting run may use: a shared table and a cancellation flag.
pub(crate) struct Counter<'a, T: Tally> {
    pub(crate) table: Option<&'a PerftHash<T>>,
    pub(crate) cancel: Option<&'a AtomicBool>,
}

impl<T: Tally> Counter<'_, T> {
    /// Whether the run was cancelled (results computed since are partial).
    #[inline]
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Relaxed))
    }

    /// The tally of `pos` at `depth`. After a cancellation the result is partial (and never
    /// stored in the table).
    pub(crate) fn count(&self, pos: &Position, depth: u32) -> T {
        match depth {
            0 => T::one(),
            // Depth 1 is not worth a probe: counting the moves is about as cheap, and shallow
            // entries would push deeper ones out of the table (measured for both tallies).
            1 => T::leaves(pos),
            _ => {
                if self.cancelled() {
                    return T::default();
                }
                let Some(table) = self.table else {
                    return self.sum_below(pos, depth);
                };
                if let Some(v) = table.probe(pos.hash(), depth) {
                    return v;
                }
                let total = if depth >= 3 {
                    self.sum_children_prefetching(table, pos, depth)
                } else {
                    self.sum_below(pos, depth)
                };
                if !self.cancelled() {
                    table.store(pos.hash(), depth, total);
                }
                total
            }
        }
    }

    /// The sum of the children's tallies, by the tally's own way at depth 2 if it has one.
    #[inline]
    fn sum_below(&self, pos: &Position, depth: u32) -> T {
        if depth == 2 {
            if let Some(total) = T::two_plies(pos) {
                return total;
            }
        }
        self.sum_children(pos, depth)
    }

    /// The sum of the children's tallies.
    fn sum_children(&self, pos: &Position, depth: u32) -> T {
        let mut total = T::default();
        // Without a table no key is ever read below, so the children need none.
        let hashed = self.table.is_some();
        pos.generate_moves(|group| {
            if !hashed && group.kind == MoveGroupKind::Normal {
                for to in group.to {
                    let child = pos.after_plain_unhashed(group.role, group.from, to);
                    total += self.count(&child, depth - 1);
                }
                return false;
            }
            for mv in group {
                let child = if hashed {
                    pos.after(mv)
                } else {
                    pos.after_unhashed(mv)
                };
                total += self.count(&child, depth - 1);
            }
            false
        });
        total
    }

    /// The sum of the children's tallies when the children probe the table: all children are
    /// made and their buckets fetched into cache first, so that the memory accesses overlap
    /// (a probe that hits is too quick to hide the next child's fetch behind).
    fn sum_children_prefetching(&self, table: &PerftHash<T>, pos: &Position, depth: u32) -> T {
        let moves = pos.legal_moves();
        let children: Vec<Position> = moves.iter().map(|&mv| pos.after(mv)).collect();
        for child in &children {
            table.prefetch(child.hash(), depth - 1);
        }
        let mut total = T::default();
        for child in &children {
            total += self.count(child, depth - 1);
        }
        total
    }
}
