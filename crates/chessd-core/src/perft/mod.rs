//! Perft: counting the leaves of the legal move tree, the standard test of move generation.
//!
//! - [`perft`] and [`divide`]: plain bulk counting, one thread.
//! - [`perft_stats`]: leaf statistics ([`PerftStats`]: captures, en passant, castles,
//!   promotions and the Grand Chess Tree check and mate classes).
//! - [`PerftHash`]: a lock-free table shared between threads, for both modes.
//! - [`split`]: the unique positions some plies down, with occurrence counts.
//! - [`Perft`]: the configurable runner (threads, hashing, statistics, divide, progress and
//!   cancellation).

mod hash;
mod parallel;
mod split;
mod stats;
mod tally;

pub use hash::{BulkHash, HashValue, PerftHash, StatsHash};
pub use parallel::{Cancelled, Perft, PerftProgress, PerftResult};
pub use split::split;
pub use stats::{perft_stats, PerftStats};

use crate::{movegen::ReplyCounter, Move, MoveGroupKind, Position};

/// Leaf count at `depth`, with bulk counting at the last ply.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal() as u64,
        2 => {
            // The last two plies inline: the children are only counted, never recursed into,
            // and the opponent's pieces a move leaves alone are counted once for all of them.
            let mut nodes = 0;
            let replies = ReplyCounter::new(pos);
            pos.generate_moves(|group| {
                if group.kind == MoveGroupKind::Normal {
                    for to in group.to {
                        nodes += replies.after_plain(pos, group.role, group.from, to) as u64;
                    }
                } else {
                    for mv in group {
                        nodes += pos.after_unhashed(mv).count_legal() as u64;
                    }
                }
                false
            });
            nodes
        }
        _ => {
            let mut nodes = 0;
            pos.generate_moves(|group| {
                if group.kind == MoveGroupKind::Normal {
                    for to in group.to {
                        let child = pos.after_plain_unhashed(group.role, group.from, to);
                        nodes += perft(&child, depth - 1);
                    }
                } else {
                    for mv in group {
                        nodes += perft(&pos.after_unhashed(mv), depth - 1);
                    }
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
            out.push((mv, perft(&pos.after_unhashed(mv), depth - 1)));
        }
        false
    });
    out
}
