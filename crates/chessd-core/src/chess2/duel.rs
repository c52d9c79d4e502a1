//! Playing a Chess 2 move with its duels, and the game's outcome.
//!
//! A move's duel fields match the pieces it takes, in path order (several for an Elephant's
//! rampage), as in the Go engine's notation: a field left empty (or missing) lets that
//! capture happen. A duel is allowed only when an enemy piece is taken and neither piece is
//! a king, and it costs the defender one stone more when the capturing piece outranks the
//! captured one (pawn 1, knight and bishop 2, rook 3, queen 4; special pieces rank as the
//! piece they replace). Both bids are paid; the attacker wins ties; the defender, winning,
//! destroys the capturing piece as well (an Elephant's rampage ends there). Both bidding 0,
//! the attacker gains a stone or the defender loses one, as the attacker chose. Against an
//! attacker with no stones, the defender must bid 1 and wins.

use std::fmt;

use super::{Army, Chess2Move, Chess2Position, Duel, MAX_STONES};
use crate::{Color, Piece, Role, Square};

/// Why a move cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The game is over.
    GameOver,
    /// The move (its duel fields aside) is not legal here.
    Illegal,
    /// More duel fields than the move takes pieces.
    TooManyDuels,
    /// A duel where none is allowed: a king's capture, a king taken, or a side's own piece.
    NotDuelable,
    /// A duel started by a defender without the stones for it, or a bid over a side's stones.
    NotEnoughStones,
    /// Against an attacker with no stones, the defender must bid exactly 1.
    MustBidOne,
    /// A duel without the attacker's answer (a step of a game, not a whole move).
    Unanswered,
    /// A duel over a piece after a duel the attacker lost: its rampage stopped there, so the
    /// piece was never reached.
    DuelAfterLoss,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlayError::GameOver => "the game is over",
            PlayError::Illegal => "the move is not legal in this position",
            PlayError::TooManyDuels => "the move has more duel fields than pieces it takes",
            PlayError::NotDuelable => {
                "no duel is allowed there: a king's capture, a king, or a side's own piece"
            }
            PlayError::NotEnoughStones => "a side does not have the stones for that duel",
            PlayError::MustBidOne => "against an attacker without stones the defender bids 1",
            PlayError::Unanswered => "a duel has no answer from the attacker yet",
            PlayError::DuelAfterLoss => {
                "a duel after one the attacker lost: its rampage stopped there"
            }
        })
    }
}

impl std::error::Error for PlayError {}

/// How a Chess 2 game has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chess2Outcome {
    /// The winner's king (both, for Two Kings) crossed the midline.
    MidlineInvasion(Color),
    /// The side to move was checkmated: the other side wins.
    Checkmate(Color),
    /// The side to move had no legal move and was not in check: it loses (no stalemate).
    NoMoves(Color),
}

impl Chess2Outcome {
    /// The side that won.
    pub fn winner(self) -> Color {
        match self {
            Chess2Outcome::MidlineInvasion(c)
            | Chess2Outcome::Checkmate(c)
            | Chess2Outcome::NoMoves(c) => c,
        }
    }
}

/// The duelling rank of a piece (pawn 1, knight/bishop 2, rook 3, queen 4); kings have none.
pub fn duel_rank(role: Role) -> Option<u8> {
    match role {
        Role::Pawn => Some(1),
        Role::Knight | Role::Bishop => Some(2),
        Role::Rook => Some(3),
        Role::Queen => Some(4),
        Role::King => None,
    }
}

impl Chess2Position {
    /// How the game has ended, if it has (draws are the game's to claim).
    pub fn outcome(&self) -> Option<Chess2Outcome> {
        self.outcome_given(&self.legal_moves())
    }

    /// [`Chess2Position::outcome`] when the position's legal moves are already at hand.
    pub fn outcome_given(&self, legal_moves: &[Chess2Move]) -> Option<Chess2Outcome> {
        if let Some(winner) = self.midline_winner() {
            return Some(Chess2Outcome::MidlineInvasion(winner));
        }
        if !legal_moves.is_empty() {
            return None;
        }
        let us = self.turn();
        Some(if self.is_threatened(us) {
            Chess2Outcome::Checkmate(!us)
        } else {
            Chess2Outcome::NoMoves(!us)
        })
    }

    /// The pieces `mv` takes, in path order (each may have a duel field).
    pub fn taken_by(&self, mv: Chess2Move) -> Vec<(Square, Piece)> {
        let Chess2Move::Play { from, to, .. } = mv else {
            return Vec::new();
        };
        let Some(piece) = self.piece_at(from) else {
            return Vec::new();
        };
        let mut squares: Vec<Square> = self.taken_squares(from, to, piece).collect();
        // Path order (an Elephant's rampage): nearest to the moving piece first.
        squares.sort_by_key(|sq| distance(from, *sq));
        squares
            .into_iter()
            .filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
            .collect()
    }

    /// Plays `mv` with its duels: checks that the move is legal and every duel allowed and
    /// answered (none after one the attacker lost), and returns the position after it.
    pub fn play(&self, mv: Chess2Move) -> Result<Chess2Position, PlayError> {
        if self.midline_winner().is_some() {
            return Err(PlayError::GameOver);
        }
        let bare = match mv {
            Chess2Move::Pass => mv,
            Chess2Move::Play {
                from,
                to,
                promotion,
                ..
            } => Chess2Move::new(from, to, promotion),
        };
        let legal = self.legal_moves();
        if legal.is_empty() {
            return Err(PlayError::GameOver);
        }
        if !legal.contains(&bare) {
            return Err(PlayError::Illegal);
        }
        self.resolve_duels(bare, mv.duels())
    }

    /// The position after `bare`, one of [`Chess2Position::legal_moves`] (without duel
    /// fields), with these duels: checks every duel and resolves them in path order. For
    /// trying several sets of duels on one move without checking its legality each time.
    pub fn resolve_duels(
        &self,
        bare: Chess2Move,
        duels: &[Duel],
    ) -> Result<Chess2Position, PlayError> {
        let taken = self.taken_by(bare);
        if duels.len() > taken.len() {
            return Err(PlayError::TooManyDuels);
        }
        if duels.iter().all(|d| !d.is_started()) {
            return Ok(self.after(bare));
        }
        let Chess2Move::Play { from, to, .. } = bare else {
            return Err(PlayError::NotDuelable);
        };
        let attacker = self.piece_at(from).ok_or(PlayError::Illegal)?;
        let us = attacker.color;
        let (att, def) = (us as usize, (!us) as usize);
        let mut stones = self.stones();
        // Each capture in turn, as the Go engine resolves them; the attacker may be
        // destroyed on the way, and the captures after that do not happen.
        let mut lost_at = None;
        for (i, &(_, victim)) in taken.iter().enumerate() {
            let duel = duels.get(i).copied().unwrap_or(Duel::DECLINED);
            let mut defender_won = false;
            if duel.is_started() {
                let (Some(attacker_rank), Some(victim_rank)) =
                    (duel_rank(attacker.role), duel_rank(victim.role))
                else {
                    return Err(PlayError::NotDuelable);
                };
                if victim.color == us {
                    return Err(PlayError::NotDuelable);
                }
                let response = duel.response().ok_or(PlayError::Unanswered)?;
                let cost = u8::from(attacker_rank > victim_rank);
                if stones[def] == 0 || stones[def] < cost + duel.challenge() {
                    return Err(PlayError::NotEnoughStones);
                }
                if stones[att] == 0 && duel.challenge() != 1 {
                    return Err(PlayError::MustBidOne);
                }
                if response > stones[att] {
                    return Err(PlayError::NotEnoughStones);
                }
                stones[def] -= cost + duel.challenge();
                stones[att] -= response;
                if duel.challenge() == 0 && response == 0 {
                    if duel.gains_stone() {
                        stones[att] = (stones[att] + 1).min(MAX_STONES);
                    } else {
                        stones[def] = stones[def].saturating_sub(1);
                    }
                }
                defender_won = duel.challenge() > response;
            }
            // The piece is taken whoever wins the duel.
            if victim.color != us && victim.role == Role::Pawn {
                stones[att] = (stones[att] + 1).min(MAX_STONES);
            }
            if defender_won {
                if attacker.role == Role::Pawn {
                    stones[def] = (stones[def] + 1).min(MAX_STONES);
                }
                lost_at = Some(i);
                break;
            }
        }
        if lost_at.is_some_and(|i| duels.iter().skip(i + 1).any(Duel::is_started)) {
            return Err(PlayError::DuelAfterLoss);
        }
        let mut next = self.after(bare);
        next.stones = stones;
        if let Some(i) = lost_at {
            // The attacker is destroyed where the whole move would have left it (a Tiger
            // that pounced stays home), and what it had not reached yet is put back.
            let tiger = attacker.role == Role::Bishop && self.army(us) == Army::Animals;
            let end = if tiger { from } else { to };
            if let Some(p) = next.piece_at(end) {
                next.remove(end, p.color, p.role);
            }
            for &(sq, victim) in &taken[i + 1..] {
                next.put(sq, victim);
            }
        }
        Ok(next)
    }
}

/// King-wise distance between two squares.
fn distance(a: Square, b: Square) -> u32 {
    let df = a.file().index().abs_diff(b.file().index());
    let dr = a.rank().index().abs_diff(b.rank().index());
    df.max(dr) as u32
}
