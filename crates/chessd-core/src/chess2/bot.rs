//! chessd's Chess 2 player: a small alpha-beta search for its moves, and simple rules for
//! its duels.
//!
//! - **Moves.** Iterative deepening negamax with alpha-beta, captures first, within a node
//!   budget. Every capture is searched as if it succeeds (duels are not searched). The
//!   evaluation counts material (valued per army), stones, and how far each king has
//!   advanced toward the midline. A Two Kings king turn is the same side moving again, so its
//!   score is not negated.
//! - **Duels.** As defender it challenges when the piece at stake is worth at least a rook, or
//!   when the capturer is worth more than it; it bids 2 in the first case, else 1 (or the most
//!   it may). As attacker it bids 2 to keep a piece worth at least a rook, else 1 (or the most
//!   it may), and chooses to gain a stone if both bid 0.
//!
//! ```
//! use chessd_core::chess2::{bot, Chess2Position};
//!
//! // White's king is one step from the midline: the bot crosses it.
//! let pos = Chess2Position::from_epd("4k3/8/8/8/4K3/8/8/8 w - - 0 1 cc 33").unwrap();
//! let choice = bot::best_move(&pos, 3, 10_000).unwrap();
//! assert_eq!(pos.after(choice).midline_winner(), Some(chessd_core::Color::White));
//! ```

use super::{Army, Chess2Action, Chess2Game, Chess2Move, Chess2Position, DuelStage};
use crate::{Color, Piece, Role};

/// A won position's score (less the plies to reach it, so that quicker wins score higher).
const WIN: i32 = 30_000;

/// A piece's value in centipawns, read in its owner's army.
pub fn piece_value(army: Army, role: Role) -> i32 {
    match (army, role) {
        (_, Role::King) => 0,
        (Army::Nemesis, Role::Pawn) => 120,
        (_, Role::Pawn) => 100,
        (Army::Empowered, Role::Knight | Role::Bishop) => 400,
        (Army::Animals, Role::Knight | Role::Bishop) => 350,
        (_, Role::Knight) => 300,
        (_, Role::Bishop) => 320,
        (Army::Empowered, Role::Rook) => 550,
        (Army::Reaper, Role::Rook) => 250,
        (Army::Animals, Role::Rook) => 450,
        (_, Role::Rook) => 500,
        (Army::Empowered, Role::Queen) => 200,
        (Army::Nemesis, Role::Queen) => 600,
        (Army::Reaper, Role::Queen) => 800,
        (Army::Animals, Role::Queen) => 850,
        (_, Role::Queen) => 900,
    }
}

fn value_of(pos: &Chess2Position, piece: Piece) -> i32 {
    piece_value(pos.army(piece.color), piece.role)
}

/// The position's score for the side to move.
fn evaluate(pos: &Chess2Position) -> i32 {
    let mut score = [0i32; 2];
    for color in Color::ALL {
        let army = pos.army(color);
        for role in Role::ALL {
            let pieces = pos.pieces(color, role);
            score[color as usize] += piece_value(army, role) * pieces.count() as i32;
            if role == Role::King {
                for sq in pieces {
                    // Ranks advanced from home, 0..7: the midline is crossed at 4.
                    let advanced = sq.rank().relative(color).index() as i32;
                    score[color as usize] += advanced * advanced * 6;
                }
            }
        }
        score[color as usize] += i32::from(pos.stones()[color as usize]) * 40;
    }
    let us = pos.turn() as usize;
    score[us] - score[1 - us]
}

/// Search state: nodes visited against the budget.
struct Search {
    nodes: u64,
    budget: u64,
}

impl Search {
    /// Negamax score of `pos` for its side to move, `depth` plies deep (0: evaluation).
    /// `None` when the node budget ran out.
    fn score(
        &mut self,
        pos: &Chess2Position,
        depth: u32,
        ply: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        let moves = pos.legal_moves();
        if let Some(outcome) = pos.outcome_given(&moves) {
            return Some(if outcome.winner() == pos.turn() {
                WIN - ply
            } else {
                ply - WIN
            });
        }
        if depth == 0 {
            return Some(evaluate(pos));
        }
        let mut best = -WIN - 1;
        for mv in ordered(pos, moves) {
            let child = pos.after(mv);
            let score = if child.turn() == pos.turn() {
                self.score(&child, depth - 1, ply + 1, alpha, beta)?
            } else {
                -self.score(&child, depth - 1, ply + 1, -beta, -alpha)?
            };
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        Some(best)
    }
}

/// `moves`, captures of the most valuable pieces first.
fn ordered(pos: &Chess2Position, moves: Vec<Chess2Move>) -> Vec<Chess2Move> {
    let mut keyed: Vec<(i32, Chess2Move)> = moves
        .into_iter()
        .map(|mv| {
            let gain: i32 = pos
                .taken_by(mv)
                .iter()
                .map(|&(_, p)| {
                    if p.color == pos.turn() {
                        -value_of(pos, p)
                    } else {
                        value_of(pos, p)
                    }
                })
                .sum();
            (-gain, mv)
        })
        .collect();
    keyed.sort_by_key(|&(key, _)| key);
    keyed.into_iter().map(|(_, mv)| mv).collect()
}

/// The move the bot plays in `pos`: the best of the deepest search (up to `depth` plies)
/// finished within `budget` nodes; `None` when there is no legal move.
pub fn best_move(pos: &Chess2Position, depth: u32, budget: u64) -> Option<Chess2Move> {
    let moves = ordered(pos, pos.legal_moves());
    let mut best = *moves.first()?;
    let mut search = Search { nodes: 0, budget };
    for d in 1..=depth.max(1) {
        let mut alpha = -WIN - 1;
        let mut choice = None;
        for &mv in &moves {
            let child = pos.after(mv);
            let score = if child.turn() == pos.turn() {
                search.score(&child, d - 1, 1, alpha, WIN + 1)
            } else {
                search.score(&child, d - 1, 1, -WIN - 1, -alpha).map(|s| -s)
            };
            let Some(score) = score else {
                return Some(best);
            };
            if score > alpha {
                alpha = score;
                choice = Some(mv);
            }
        }
        if let Some(mv) = choice {
            best = mv;
        }
        if alpha >= WIN - 64 {
            break;
        }
    }
    Some(best)
}

/// The bot's step for `color` in `game`, when one is due from it: its move, or its answer in
/// a duel. `None` when it is not `color`'s step or the game is over.
pub fn next_step(game: &Chess2Game, color: Color, depth: u32, budget: u64) -> Option<Chess2Action> {
    if game.is_over() {
        return None;
    }
    let Some(pending) = game.pending_duel() else {
        if game.to_act() != color {
            return None;
        }
        return best_move(game.position(), depth, budget).map(Chess2Action::Move);
    };
    let pos = game.position();
    let (_, victim) = pending.at_stake();
    let Chess2Move::Play { from, .. } = pending.mv() else {
        return None;
    };
    let attacker = pos.piece_at(from)?;
    let stake = value_of(pos, victim);
    let rook = piece_value(Army::Classic, Role::Rook);
    match pending.stage() {
        DuelStage::Challenge if color == pending.defender() => {
            Some(if stake >= rook || value_of(pos, attacker) > stake {
                Chess2Action::Challenge
            } else {
                Chess2Action::Decline
            })
        }
        DuelStage::Bids { .. } if pending.awaits_bid_from(color) => {
            let allowed = game.allowed_bids(color);
            let at_stake = if color == pending.defender() {
                stake
            } else {
                value_of(pos, attacker)
            };
            let wanted = if at_stake >= rook { 2 } else { 1 };
            let stones = allowed
                .iter()
                .copied()
                .filter(|&b| b <= wanted)
                .max()
                .or_else(|| allowed.first().copied())?;
            // The gain choice only means something in a bid of 0 (a 0–0 duel).
            Some(Chess2Action::Bid {
                by: color,
                stones,
                gain: (color == pending.attacker() && stones == 0).then_some(true),
            })
        }
        _ => None,
    }
}
