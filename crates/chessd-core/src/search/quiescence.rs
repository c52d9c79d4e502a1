//! What both searches' quiescence share (the principal variation search's, with its table and
//! stop checks, and Tesla's leaf evaluator): how a node starts (the evasions when in check, or
//! the static value as a stand-pat bound and the tactical moves) and which tactical moves are
//! not worth searching (delta pruning and a losing exchange).

use super::{
    eval::{evaluate, SEE_VALUE},
    ordering::tactical_moves,
    score::{INFINITE, MATE},
    see::see,
};
use crate::{Move, MoveList, Position};

/// How a quiescence node at `ply` starts.
// Returned by value once per node, as the tuple it replaces was: boxing the move list would
// allocate on the search's hottest path.
#[allow(clippy::large_enum_variant)]
pub(super) enum Start {
    /// Its value is known without a move: mated, or a stand-pat at or over `beta`.
    Done(i32),
    /// Search `moves` from the best value so far and the raised `alpha`.
    Moves {
        /// The best value so far (the stand-pat, or minus infinity in check).
        best: i32,
        /// `alpha`, raised to the stand-pat.
        alpha: i32,
        /// Every evasion in check, else the captures and promotions.
        moves: MoveList,
    },
}

/// The start of a quiescence node of `pos` at `ply` in the window `alpha..beta`.
pub(super) fn start(pos: &Position, alpha: i32, beta: i32, ply: usize) -> Start {
    if pos.is_check() {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Start::Done(-MATE + ply as i32);
        }
        return Start::Moves {
            best: -INFINITE,
            alpha,
            moves,
        };
    }
    let stand = evaluate(pos);
    if stand >= beta {
        return Start::Done(stand);
    }
    Start::Moves {
        best: stand,
        alpha: alpha.max(stand),
        moves: tactical_moves(pos),
    }
}

/// Whether the tactical move `mv` (out of check) is skipped: even winning its piece cannot
/// reach `alpha` from `best` (delta pruning), or it loses material in the exchange.
pub(super) fn futile(pos: &Position, mv: Move, best: i32, alpha: i32) -> bool {
    let gain = pos.captured_role(mv).map_or(0, |r| SEE_VALUE[r.index()])
        + mv.promotion_role()
            .map_or(0, |r| SEE_VALUE[r.index()] - 100);
    best + gain + 200 <= alpha || see(pos, mv) < 0
}
