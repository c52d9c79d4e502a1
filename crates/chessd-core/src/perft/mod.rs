//! Perft: counting the leaves of the legal move tree, the standard test of move generation.

use crate::{Move, Position};

/// Leaf count at `depth`, with bulk counting at the last ply.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal() as u64,
        _ => {
            let mut nodes = 0;
            pos.generate_moves(|group| {
                for mv in group {
                    nodes += perft(&pos.after(mv), depth - 1);
                }
                false
            });
            nodes
        }
    }
}

/// Leaf counts per root move (`divide`), in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let mut out = Vec::new();
    if depth == 0 {
        return out;
    }
    pos.generate_moves(|group| {
        for mv in group {
            out.push((mv, perft(&pos.after(mv), depth - 1)));
        }
        false
    });
    out
}
