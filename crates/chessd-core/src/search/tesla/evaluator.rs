//! Leaf evaluation in batches: the search hands over the positions of a batch of depth-0
//! leaves at once, through [`BatchEvaluator`], so that an evaluator that gains from batching
//! (a neural network on a GPU) can be plugged in. [`BuiltinEvaluator`] is the engine's
//! classical evaluation behind a capture-only quiescence search, so that a leaf's value does
//! not hang on a pending capture.

use crate::{
    search::{
        eval::evaluate,
        ordering::MovePicker,
        quiescence::{self, Start},
        score::INFINITE,
    },
    Position,
};

/// Evaluates batches of positions.
pub trait BatchEvaluator {
    /// Writes into `out` (cleared first) the value of each position of `batch`, in
    /// centipawns from its side to move's point of view; returns the nodes spent (positions
    /// visited, at least one per position).
    fn evaluate_batch(&mut self, batch: &[Position], out: &mut Vec<i32>) -> u64;

    /// As [`BatchEvaluator::evaluate_batch`], told for each position the threshold `t` the
    /// search compares its value with: an evaluator may answer only on which side of `t`
    /// the value lies, with a bound (fail-soft, as an alpha-beta leaf does). The default
    /// ignores the thresholds.
    fn evaluate_batch_around(
        &mut self,
        batch: &[Position],
        thresholds: &[i32],
        out: &mut Vec<i32>,
    ) -> u64 {
        let _ = thresholds;
        self.evaluate_batch(batch, out)
    }
}

/// The classical evaluation ([`evaluate`]) after a quiescence search over winning and equal
/// captures and promotions (every evasion when in check), at most [`QS_PLIES`] deep.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuiltinEvaluator;

/// The deepest quiescence.
pub const QS_PLIES: usize = 12;

impl BatchEvaluator for BuiltinEvaluator {
    fn evaluate_batch(&mut self, batch: &[Position], out: &mut Vec<i32>) -> u64 {
        // No thresholds: every position gets the full window.
        self.evaluate_batch_around(batch, &[], out)
    }

    fn evaluate_batch_around(
        &mut self,
        batch: &[Position],
        thresholds: &[i32],
        out: &mut Vec<i32>,
    ) -> u64 {
        out.clear();
        let mut nodes = 0;
        for (k, pos) in batch.iter().enumerate() {
            let value = match thresholds.get(k).filter(|&&t| t != EXACT) {
                Some(&t) => {
                    let w = WINDOW;
                    let lo = t.saturating_sub(w).max(-INFINITE);
                    let hi = t.saturating_add(w).min(INFINITE);
                    qsearch(pos, lo, hi, 0, &mut nodes).clamp(lo, hi)
                }
                None => qsearch(pos, -INFINITE, INFINITE, 0, &mut nodes),
            };
            out.push(value);
        }
        nodes
    }
}

/// The threshold of a leaf whose exact value is wanted (a principal variation leaf).
pub const EXACT: i32 = i32::MIN;

/// Half-width of the quiescence window around a leaf's threshold.
pub const WINDOW: i32 = 300;

/// Fail-soft quiescence; mates are scored by distance from `pos`.
fn qsearch(pos: &Position, alpha: i32, beta: i32, ply: usize, nodes: &mut u64) -> i32 {
    *nodes += 1;
    if ply >= QS_PLIES {
        return evaluate(pos);
    }
    let in_check = pos.is_check();
    let (mut best, mut alpha, moves) = match quiescence::start(pos, alpha, beta, ply) {
        Start::Done(value) => return value,
        Start::Moves { best, alpha, moves } => (best, alpha, moves),
    };
    let mut picker = MovePicker::tactical(pos, moves);
    while let Some(mv) = picker.next_move() {
        if !in_check && quiescence::futile(pos, mv, best, alpha) {
            continue;
        }
        let score = -qsearch(&pos.after(mv), -beta, -alpha, ply + 1, nodes);
        if score > best {
            best = score;
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}
