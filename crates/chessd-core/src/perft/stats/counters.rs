//! The leaf statistics ([`PerftStats`]) and their sums. Every statistic counts leaf moves
//! only (the last ply); the moved piece is the one on the move's destination (the rook when
//! castling). A check falls in one of four classes by its number of checkers and whether the
//! moved piece is one; a checking move that mates counts in the matching `*_mates` class.

use std::{
    iter::Sum,
    ops::{Add, AddAssign, Mul, MulAssign},
};

/// Leaf statistics of a perft run (Grand Chess Tree classes, with derived summaries for the
/// GCT worker protocol and the chessprogramming.org convention).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PerftStats {
    /// Leaf nodes.
    pub nodes: u64,
    /// Leaf moves that capture (en passant included).
    pub captures: u64,
    /// Leaf moves that capture en passant.
    pub enpassants: u64,
    /// Leaf moves that castle.
    pub castles: u64,
    /// Leaf moves that promote (each promotion role counts).
    pub promotions: u64,
    /// One checker, the moved piece (not mate).
    pub direct_checks: u64,
    /// One checker, not the moved piece (not mate).
    pub single_discovered_checks: u64,
    /// Two checkers, one of them the moved piece (not mate).
    pub direct_discovered_checks: u64,
    /// Two checkers, neither the moved piece (not mate).
    pub double_discovered_checks: u64,
    /// Mate with one checker, the moved piece.
    pub direct_mates: u64,
    /// Mate with one checker, not the moved piece.
    pub single_discovered_mates: u64,
    /// Mate with two checkers, one of them the moved piece.
    pub direct_discovered_mates: u64,
    /// Mate with two checkers, neither the moved piece.
    pub double_discovered_mates: u64,
}

/// The number of counters in [`PerftStats`].
pub(crate) const STATS_WORDS: usize = 13;

impl PerftStats {
    /// The statistics of a single node (depth 0): one node, no leaf move.
    pub const ONE_NODE: PerftStats =
        PerftStats::from_array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

    /// A tally with only `nodes` set (bulk results in statistics form).
    pub const fn from_nodes(nodes: u64) -> PerftStats {
        PerftStats::from_array([nodes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    /// All counters in declaration order (nodes first).
    pub const fn to_array(&self) -> [u64; STATS_WORDS] {
        [
            self.nodes,
            self.captures,
            self.enpassants,
            self.castles,
            self.promotions,
            self.direct_checks,
            self.single_discovered_checks,
            self.direct_discovered_checks,
            self.double_discovered_checks,
            self.direct_mates,
            self.single_discovered_mates,
            self.direct_discovered_mates,
            self.double_discovered_mates,
        ]
    }

    /// The inverse of [`PerftStats::to_array`].
    pub const fn from_array(a: [u64; STATS_WORDS]) -> PerftStats {
        PerftStats {
            nodes: a[0],
            captures: a[1],
            enpassants: a[2],
            castles: a[3],
            promotions: a[4],
            direct_checks: a[5],
            single_discovered_checks: a[6],
            direct_discovered_checks: a[7],
            double_discovered_checks: a[8],
            direct_mates: a[9],
            single_discovered_mates: a[10],
            direct_discovered_mates: a[11],
            double_discovered_mates: a[12],
        }
    }

    /// GCT `total_checks`: the four check classes, mates excluded.
    pub const fn total_checks(&self) -> u64 {
        self.direct_checks
            + self.single_discovered_checks
            + self.direct_discovered_checks
            + self.double_discovered_checks
    }

    /// GCT `total_mates`: the four mate classes.
    pub const fn total_mates(&self) -> u64 {
        self.direct_mates
            + self.single_discovered_mates
            + self.direct_discovered_mates
            + self.double_discovered_mates
    }

    /// GCT worker `checks`: every checking leaf, mates included.
    pub const fn checks(&self) -> u64 {
        self.total_checks() + self.total_mates()
    }

    /// GCT worker `discovered_checks`: checking leaves where the moved piece is not a checker,
    /// mates included.
    pub const fn discovered_checks(&self) -> u64 {
        self.single_discovered_checks
            + self.double_discovered_checks
            + self.single_discovered_mates
            + self.double_discovered_mates
    }

    /// GCT worker `double_checks`: leaves with two checkers, mates included.
    pub const fn double_checks(&self) -> u64 {
        self.direct_discovered_checks
            + self.double_discovered_checks
            + self.direct_discovered_mates
            + self.double_discovered_mates
    }

    /// GCT worker `check_mates`: every mating leaf.
    pub const fn check_mates(&self) -> u64 {
        self.total_mates()
    }

    /// chessprogramming.org `checks`: every checking leaf, mates included.
    pub const fn cpw_checks(&self) -> u64 {
        self.checks()
    }

    /// chessprogramming.org `discovery checks`: single discovered checks, mates excluded.
    pub const fn cpw_discovery_checks(&self) -> u64 {
        self.single_discovered_checks
    }

    /// chessprogramming.org `double checks`: two checkers, mates excluded.
    pub const fn cpw_double_checks(&self) -> u64 {
        self.direct_discovered_checks + self.double_discovered_checks
    }

    /// chessprogramming.org `checkmates`: every mating leaf.
    pub const fn cpw_checkmates(&self) -> u64 {
        self.total_mates()
    }

    /// Counts one checking leaf in its class: `two` checkers or one, `direct` when the moved
    /// piece is one of them.
    #[inline]
    pub(super) fn add_check(&mut self, two: bool, direct: bool, mate: bool) {
        let counter = match (two, direct, mate) {
            (false, true, false) => &mut self.direct_checks,
            (false, false, false) => &mut self.single_discovered_checks,
            (true, true, false) => &mut self.direct_discovered_checks,
            (true, false, false) => &mut self.double_discovered_checks,
            (false, true, true) => &mut self.direct_mates,
            (false, false, true) => &mut self.single_discovered_mates,
            (true, true, true) => &mut self.direct_discovered_mates,
            (true, false, true) => &mut self.double_discovered_mates,
        };
        *counter += 1;
    }
}

impl Add for PerftStats {
    type Output = PerftStats;
    #[inline]
    fn add(mut self, rhs: PerftStats) -> PerftStats {
        self += rhs;
        self
    }
}

impl AddAssign for PerftStats {
    #[inline]
    fn add_assign(&mut self, rhs: PerftStats) {
        let (a, b) = (self.to_array(), rhs.to_array());
        *self = PerftStats::from_array(std::array::from_fn(|i| a[i] + b[i]));
    }
}

impl Mul<u64> for PerftStats {
    type Output = PerftStats;
    /// Every counter times an occurrence count (for positions that occur several times).
    #[inline]
    fn mul(mut self, count: u64) -> PerftStats {
        self *= count;
        self
    }
}

impl MulAssign<u64> for PerftStats {
    #[inline]
    fn mul_assign(&mut self, count: u64) {
        let a = self.to_array();
        *self = PerftStats::from_array(a.map(|x| x * count));
    }
}

impl Sum for PerftStats {
    fn sum<I: Iterator<Item = PerftStats>>(iter: I) -> PerftStats {
        iter.fold(PerftStats::default(), Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_derived_fields() {
        let s = PerftStats {
            nodes: 100,
            captures: 10,
            enpassants: 1,
            castles: 2,
            promotions: 3,
            direct_checks: 5,
            single_discovered_checks: 4,
            direct_discovered_checks: 3,
            double_discovered_checks: 2,
            direct_mates: 1,
            single_discovered_mates: 6,
            direct_discovered_mates: 7,
            double_discovered_mates: 8,
        };
        assert_eq!(s.total_checks(), 14);
        assert_eq!(s.total_mates(), 22);
        assert_eq!(s.checks(), 36);
        assert_eq!(s.discovered_checks(), 4 + 2 + 6 + 8);
        assert_eq!(s.double_checks(), 3 + 2 + 7 + 8);
        assert_eq!(s.check_mates(), 22);
        assert_eq!(s.cpw_discovery_checks(), 4);
        assert_eq!(s.cpw_double_checks(), 5);
        assert_eq!(s.cpw_checkmates(), 22);
        let sum = s + s * 2;
        assert_eq!(sum, s * 3);
        assert_eq!(sum.nodes, 300);
        assert_eq!(sum.double_discovered_mates, 24);
        assert_eq!([s, s, s].into_iter().sum::<PerftStats>(), sum);
        assert_eq!(PerftStats::from_array(s.to_array()), s);
    }
}
