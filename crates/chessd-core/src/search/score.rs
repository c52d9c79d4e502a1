//! Search scores: centipawns inside the search, mate distances at the interface.
//!
//! Inside the search a score is an `i32` from the side to move's point of view. Mates are
//! `±(MATE - plies)` counted from the root, so shorter mates score higher; the
//! transposition table stores them relative to the node (see [`to_table`] and
//! [`from_table`]).

use std::fmt;

/// The score of being checkmated at the root (negated: mating at the root).
pub(crate) const MATE: i32 = 32_000;

/// Larger than every score.
pub(crate) const INFINITE: i32 = 32_001;

/// The deepest ply the search reaches (iterations, extensions and quiescence together).
pub(crate) const MAX_PLY: usize = 128;

/// Scores at least this large (in absolute value) are mates.
pub(crate) const MATE_BOUND: i32 = MATE - MAX_PLY as i32;

/// The score of a draw.
pub(crate) const DRAW: i32 = 0;

/// Whether `score` says that one side mates.
#[inline]
pub(crate) fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// A score converted from root-relative to node-relative mate distances, for storing.
#[inline]
pub(crate) fn to_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored node-relative score converted back to root-relative mate distances.
#[inline]
pub(crate) fn from_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// A score as the UCI protocol reports it, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// An evaluation in centipawns (positive: the side to move stands better).
    Cp(i32),
    /// A forced mate in this many moves: positive when the side to move mates, negative when
    /// it is mated (`Mate(0)` never occurs: a mated root has no search).
    Mate(i32),
}

impl Score {
    /// The interface score for an internal score.
    pub(crate) fn from_internal(score: i32) -> Score {
        if score >= MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            Score::Mate(-(MATE + score) / 2)
        } else {
            Score::Cp(score)
        }
    }

    /// The mate distance in moves if this is a mate score.
    pub fn mate(self) -> Option<i32> {
        match self {
            Score::Mate(n) => Some(n),
            Score::Cp(_) => None,
        }
    }

    /// The centipawn value if this is not a mate score.
    pub fn cp(self) -> Option<i32> {
        match self {
            Score::Cp(cp) => Some(cp),
            Score::Mate(_) => None,
        }
    }
}

impl Default for Score {
    fn default() -> Score {
        Score::Cp(0)
    }
}

impl fmt::Display for Score {
    /// UCI style: `cp 31` or `mate -2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_convert_to_moves() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-(MATE - 2)), Score::Mate(-1));
        assert_eq!(Score::from_internal(-(MATE - 4)), Score::Mate(-2));
        assert_eq!(Score::from_internal(35), Score::Cp(35));
        assert_eq!(Score::Mate(-2).to_string(), "mate -2");
    }

    #[test]
    fn table_conversion_round_trips() {
        for score in [MATE - 5, -(MATE - 7), 120, -3] {
            assert_eq!(from_table(to_table(score, 4), 4), score);
        }
        // A mate found 3 plies below a node at ply 4 is "mate in 3 plies" from that node.
        assert_eq!(to_table(MATE - 7, 4), MATE - 3);
    }
}
