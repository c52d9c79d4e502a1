//! Splitting a perft into tasks: the unique positions some plies below the root, each with the
//! number of move sequences that reach it (the Grand Chess Tree method).
//!
//! Positions are merged only when they are the same for move generation: same pieces, side to
//! move, castling rights and (legal) en-passant square. The clocks do not matter for perft,
//! so transpositions with different half-move clocks merge too. The Zobrist key only picks the
//! hash bucket; equality compares the full position.

use std::{
    collections::{hash_map::Entry, HashMap},
    hash::{Hash, Hasher},
};

use crate::{Bitboard, Color, Position, Role, Square};

/// Everything about a position that perft depends on.
#[derive(Clone, Copy, PartialEq, Eq)]
struct PerftKey {
    zobrist: u64,
    roles: [Bitboard; 6],
    white: Bitboard,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

impl PerftKey {
    fn of(pos: &Position) -> PerftKey {
        PerftKey {
            zobrist: pos.hash(),
            roles: Role::ALL.map(|r| pos.by_role(r)),
            white: pos.by_color(Color::White),
            turn: pos.turn(),
            castling: pos.castling_rooks(),
            ep: pos.ep_square(),
        }
    }
}

impl Hash for PerftKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.zobrist);
    }
}

/// Merges one more ply below `frontier`: every child of every position, with summed counts.
/// Positions without legal moves drop out (they have no leaves further down).
pub(crate) fn expand(frontier: &[(Position, u64)]) -> Vec<(Position, u64)> {
    let mut index: HashMap<PerftKey, usize> = HashMap::new();
    let mut next: Vec<(Position, u64)> = Vec::new();
    for (pos, count) in frontier {
        pos.generate_moves(|group| {
            for mv in group {
                let child = pos.after(mv);
                match index.entry(PerftKey::of(&child)) {
                    Entry::Occupied(e) => next[*e.get()].1 += count,
                    Entry::Vacant(e) => {
                        e.insert(next.len());
                        next.push((child, *count));
                    }
                }
            }
            false
        });
    }
    next
}

/// The unique positions `plies` half-moves below `pos`, each with the number of move sequences
/// reaching it, in a deterministic order (first reached first). The counts sum to
/// `perft(pos, plies)`, and `perft(pos, plies + d)` is the sum of `count * perft(child, d)`.
///
/// ```
/// use chessd_core::{perft, Position};
/// let tasks = perft::split(&Position::startpos(), 2);
/// assert_eq!(tasks.len(), 400); // no transpositions after two plies
/// assert_eq!(tasks.iter().map(|(_, n)| n).sum::<u64>(), 400);
/// ```
pub fn split(pos: &Position, plies: u32) -> Vec<(Position, u64)> {
    let mut frontier = vec![(*pos, 1)];
    for _ in 0..plies {
        frontier = expand(&frontier);
    }
    frontier
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::perft;

    #[test]
    fn counts_sum_to_perft_and_transpositions_merge() {
        let start = Position::startpos();
        let three = split(&start, 3);
        assert_eq!(three.iter().map(|(_, n)| n).sum::<u64>(), 8902);
        // 1.Nf3 a6 2.Nc3 and 1.Nc3 a6 2.Nf3 transpose: fewer unique positions than paths.
        assert!(three.len() < 8902);
        let total: u64 = three.iter().map(|(p, n)| n * perft(p, 2)).sum();
        assert_eq!(total, perft(&start, 5));
    }

    #[test]
    fn zero_plies_is_the_root() {
        let start = Position::startpos();
        let root = split(&start, 0);
        assert_eq!(root.len(), 1);
        assert_eq!(root[0], (start, 1));
    }

    #[test]
    fn clocks_do_not_prevent_merging() {
        // 1.Nf3 Nf6 2.Ng1 Ng8 reaches the start position again with other clocks.
        let start = Position::startpos();
        let four = split(&start, 4);
        let back_home = four
            .iter()
            .filter(|(p, _)| PerftKey::of(p) == PerftKey::of(&start))
            .map(|(_, n)| *n)
            .sum::<u64>();
        // White's and Black's knights each go out and back: 4 ways for each side.
        assert_eq!(back_home, 16);
    }
}
