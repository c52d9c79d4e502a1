//! The positions since the last irreversible move, for exact repetition counting, kept as
//! the low 32 bits of their Zobrist keys (4 bytes a ply) and checked exactly by replay when
//! keys match.

use crate::{Move, Position};

/// The positions reached since the last capture, pawn move or loss of a castling right
/// (earlier ones can never recur) before the current one, as the low half of their Zobrist
/// keys: only a filter, since a key match is confirmed by replaying the game, so a collision
/// (of the half or the whole key) never counts as a repetition.
#[derive(Clone, Debug, Default)]
pub(crate) struct RepetitionTable {
    /// The keys of the positions from the one after the last irreversible move (or the start)
    /// to the one before the current position.
    keys: Vec<u32>,
}

/// The part of a position's Zobrist key that the table keeps.
#[inline]
fn short_key(pos: &Position) -> u32 {
    pos.hash as u32
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
            self.keys.push(short_key(before));
        }
    }

    /// How often `pos`, the current position, has occurred since the last irreversible move
    /// (it counts once). `start` and `history` are the game's: the moves from the earliest
    /// recorded position are the last of `history`.
    pub(crate) fn count(&self, pos: &Position, start: &Position, history: &[Move]) -> u32 {
        let wanted = short_key(pos);
        if !self.keys.contains(&wanted) {
            return 1;
        }
        let (before, window) = history.split_at(history.len().saturating_sub(self.keys.len()));
        let mut at = *start;
        for &mv in before {
            at.play_unchecked(mv);
        }
        let mut count = 1;
        for (key, mv) in self.keys.iter().zip(window) {
            if *key == wanted && same_position(&at, pos) {
                count += 1;
            }
            at.play_unchecked(*mv);
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `moves` (UCI) from the start into a table, as a game does: the start, the
    /// current position and the moves.
    fn played(moves: &[&str]) -> (RepetitionTable, Position, Position, Vec<Move>) {
        let start = Position::startpos();
        let (mut table, mut pos, mut history) = (RepetitionTable::default(), start, Vec::new());
        for text in moves {
            let mv = pos.parse_uci(text).expect("a legal move");
            let before = pos;
            pos.play_unchecked(mv);
            table.push(&before, &pos);
            history.push(mv);
        }
        (table, start, pos, history)
    }

    #[test]
    fn a_position_reached_again_counts_each_time() {
        let knights = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let (table, start, pos, history) = played(&knights);
        assert_eq!(table.count(&pos, &start, &history), 2);
        let twice: Vec<&str> = knights.iter().chain(&knights).copied().collect();
        let (table, start, pos, history) = played(&twice);
        assert_eq!(table.count(&pos, &start, &history), 3);
        let (table, start, pos, history) = played(&knights[..2]);
        assert_eq!(table.count(&pos, &start, &history), 1);
    }

    #[test]
    fn a_key_that_collides_is_not_a_repetition() {
        let (mut table, start, pos, history) = played(&["g1f3", "g8f6"]);
        // Another position whose kept key is the current one's: replay tells them apart.
        table.keys[0] = short_key(&pos);
        assert_eq!(table.count(&pos, &start, &history), 1);
        table.keys[1] = short_key(&pos);
        assert_eq!(table.count(&pos, &start, &history), 1);
    }
}
