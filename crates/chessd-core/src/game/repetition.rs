//! The positions since the last irreversible move, for exact repetition counting.

use std::sync::Arc;

use crate::Position;

/// The positions reached since the last capture, pawn move or loss of a castling right
/// (earlier ones can never recur). Shared on clone until the next move.
#[derive(Clone, Debug)]
pub(crate) struct RepetitionTable {
    positions: Arc<Vec<Position>>,
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
    /// A table holding only the starting position.
    pub(crate) fn new(start: Position) -> RepetitionTable {
        RepetitionTable {
            positions: Arc::new(vec![start]),
        }
    }

    /// Records the position reached after a move from `before`.
    pub(crate) fn push(&mut self, before: &Position, after: Position) {
        let positions = Arc::make_mut(&mut self.positions);
        if after.halfmoves() == 0 || after.castling_rooks() != before.castling_rooks() {
            positions.clear();
        }
        positions.push(after);
    }

    /// How often `pos` has occurred since the last irreversible move (the current position
    /// counts once).
    pub(crate) fn count(&self, pos: &Position) -> u32 {
        self.positions
            .iter()
            .filter(|p| same_position(p, pos))
            .count() as u32
    }
}
