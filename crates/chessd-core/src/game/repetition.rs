//! The positions since the last irreversible move, for exact repetition counting, kept as
//! their Zobrist keys (8 bytes a ply) and checked exactly by replay when keys match.

use crate::{Move, Position};

/// The positions reached since the last capture, pawn move or loss of a castling right
/// (earlier ones can never recur) before the current one, as their Zobrist keys. A key match
/// is confirmed by replaying the game, so a hash collision never counts as a repetition.
#[derive(Clone, Debug, Default)]
pub(crate) struct RepetitionTable {
    /// The keys of the positions from the one after the last irreversible move (or the start)
    /// to the one before the current position.
    keys: Vec<u64>,
}

/// Whether `a` and `b` are the same position for the repetition rules: same pieces on the
/// same squares, same side to move, same castling rights and the same legal en-passant
/// capture. The Zobrist key is compared first as a fast filter, never alone.
pub(crate) fn same_position(a: &Position, b: &Position) -> bool {
    a.hash == b.hash
        && a.turn == b.turn
        && a.by_color == b.by_color
        && a.by_role == b.by_role
        && a.castling == b.castling
        && a.ep_square == b.ep_square
}

impl RepetitionTable {
    /// Records a move from `before` to `after`.
    pub(crate) fn push(&mut self, before: &Position, after: &Position) {
        if after.halfmoves() == 0 || after.castling_rooks() != before.castling_rooks() {
            self.keys.clear();
        } else {
            self.keys.push(before.hash);
        }
    }

    /// How often `pos`, the current position, has occurred since the last irreversible move
    /// (it counts once). `start` and `history` are the game's: the moves from the earliest
    /// recorded position are the last of `history`.
    pub(crate) fn count(&self, pos: &Position, start: &Position, history: &[Move]) -> u32 {
        if !self.keys.contains(&pos.hash) {
            return 1;
        }
        let (before, window) = history.split_at(history.len().saturating_sub(self.keys.len()));
        let mut at = *start;
        for &mv in before {
            at.play_unchecked(mv);
        }
        let mut count = 1;
        for (key, mv) in self.keys.iter().zip(window) {
            if *key == pos.hash && same_position(&at, pos) {
                count += 1;
            }
            at.play_unchecked(*mv);
        }
        count
    }
}
