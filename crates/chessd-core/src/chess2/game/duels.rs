//! A capture's duels as steps of their own: the defender challenges or declines, then both
//! sides bid 0 to 2 stones unseen by the other; a settled duel offers the move's next capture
//! (an Elephant's rampage) or plays the move with every duel in its notation.

use super::{Chess2Game, Chess2GameError};
use crate::{
    chess2::{duel_rank, Chess2Move, Duel, MAX_STONES},
    Color, Piece, Square,
};

/// Where a duel stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuelStage {
    /// Waiting for the defender to challenge or decline.
    Challenge,
    /// Waiting for the bids; those already in are kept hidden until both are.
    Bids {
        /// The defender's bid, once made.
        defender: Option<u8>,
        /// The attacker's bid and its choice for a 0–0 duel, once made.
        attacker: Option<(u8, bool)>,
    },
}

/// A capturing move waiting for its duels to be settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingDuel {
    pub(super) bare: Chess2Move,
    pub(super) attacker: Color,
    pub(super) taken: Vec<(Square, Piece)>,
    pub(super) settled: Vec<Duel>,
    pub(super) stage: DuelStage,
}

impl PendingDuel {
    /// The move, without duel fields.
    pub fn mv(&self) -> Chess2Move {
        self.bare
    }

    /// The side that moved.
    pub fn attacker(&self) -> Color {
        self.attacker
    }

    /// The side whose piece is at stake.
    pub fn defender(&self) -> Color {
        !self.attacker
    }

    /// The square and piece at stake now.
    pub fn at_stake(&self) -> (Square, Piece) {
        self.taken[self.settled.len()]
    }

    /// The duels of the move settled so far, in path order (declined ones included).
    pub fn settled(&self) -> &[Duel] {
        &self.settled
    }

    /// Where the current duel stands.
    pub fn stage(&self) -> DuelStage {
        self.stage
    }

    /// Which side must act now: the defender to challenge, then whoever has not bid (the
    /// defender first).
    pub fn to_act(&self) -> Color {
        match self.stage {
            DuelStage::Bids { defender: None, .. } | DuelStage::Challenge => self.defender(),
            DuelStage::Bids { .. } => self.attacker,
        }
    }

    /// Whether `color` has yet to bid in the current duel.
    pub fn awaits_bid_from(&self, color: Color) -> bool {
        match self.stage {
            DuelStage::Challenge => false,
            DuelStage::Bids { defender, attacker } => {
                if color == self.attacker {
                    attacker.is_none()
                } else {
                    defender.is_none()
                }
            }
        }
    }
}

/// What the waiting duel allows, as both sides may see it (it tells nothing of a hidden bid).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuelTerms {
    /// The stone the defender owes on top of its bid to start the duel (1 when the capturing
    /// piece ranks above the piece at stake, else 0).
    pub challenge_cost: u8,
    /// The bids the defender may make.
    pub defender_bids: Vec<u8>,
    /// The bids the attacker may make.
    pub attacker_bids: Vec<u8>,
}

impl Chess2Game {
    /// The terms of the duel waiting to be settled, if any: what starting it costs the
    /// defender and the bids each side may make.
    pub fn duel_terms(&self) -> Option<DuelTerms> {
        let p = self.pending.as_ref()?;
        let (_, victim) = p.at_stake();
        let Chess2Move::Play { from, .. } = p.bare else {
            return None;
        };
        let attacker_rank = self.position.piece_at(from).and_then(|a| duel_rank(a.role));
        Some(DuelTerms {
            challenge_cost: u8::from(attacker_rank > duel_rank(victim.role)),
            defender_bids: self.defender_bids(p),
            attacker_bids: self.attacker_bids(p),
        })
    }

    /// The defender's challenge (`true`) or decline of the capture at stake. Returns whether
    /// the move was played.
    pub(super) fn answer_challenge(
        &mut self,
        by: Color,
        challenge: bool,
    ) -> Result<bool, Chess2GameError> {
        let p = self.pending.as_mut().ok_or(Chess2GameError::NoDuel)?;
        if p.stage != DuelStage::Challenge {
            return Err(Chess2GameError::NoDuel);
        }
        if by != p.defender() {
            return Err(Chess2GameError::NotYourStep(by));
        }
        if !challenge {
            p.settled.push(Duel::DECLINED);
            return Ok(self.advance());
        }
        p.stage = DuelStage::Bids {
            defender: None,
            attacker: None,
        };
        self.fill_forced_bid();
        Ok(false)
    }

    /// A bid in the waiting duel; settles it once both bids are in.
    pub(super) fn bid(
        &mut self,
        by: Color,
        stones: u8,
        gain: Option<bool>,
    ) -> Result<bool, Chess2GameError> {
        let p = self.pending.as_ref().ok_or(Chess2GameError::NoDuel)?;
        let DuelStage::Bids { defender, attacker } = p.stage else {
            return Err(Chess2GameError::NoDuel);
        };
        if !p.awaits_bid_from(by) {
            return Err(Chess2GameError::AlreadyBid(by));
        }
        let allowed = if by == p.attacker {
            self.attacker_bids(p)
        } else {
            self.defender_bids(p)
        };
        if !allowed.contains(&stones) {
            return Err(Chess2GameError::BadBid { stones, allowed });
        }
        let stage = if by == p.attacker {
            let at_most = self.position.stones()[by as usize] >= MAX_STONES;
            DuelStage::Bids {
                defender,
                attacker: Some((stones, gain.unwrap_or(!at_most))),
            }
        } else {
            DuelStage::Bids {
                defender: Some(stones),
                attacker,
            }
        };
        let p = self.pending.as_mut().ok_or(Chess2GameError::NoDuel)?;
        p.stage = stage;
        let DuelStage::Bids {
            defender: Some(d),
            attacker: Some((a, gain)),
        } = stage
        else {
            return Ok(false);
        };
        let duel = Duel::answered(d, a, gain).ok_or(Chess2GameError::NoDuel)?;
        p.settled.push(duel);
        Ok(self.advance())
    }

    /// After a move or a settled duel: offers the next duel the move allows, or plays the
    /// move. Returns whether the move was played.
    pub(super) fn advance(&mut self) -> bool {
        loop {
            let Some(p) = &self.pending else { return false };
            let i = p.settled.len();
            let attacker_lost = p
                .settled
                .last()
                .is_some_and(|d| d.is_started() && d.response().is_some_and(|r| d.challenge() > r));
            if i == p.taken.len() || attacker_lost {
                self.finish_move();
                return true;
            }
            if !self.defender_bids_at(p, i).is_empty() {
                if let Some(p) = &mut self.pending {
                    p.stage = DuelStage::Challenge;
                }
                return false;
            }
            if let Some(p) = &mut self.pending {
                p.settled.push(Duel::DECLINED);
            }
        }
    }

    /// The bids the defender may make in duel `i` of `p`'s move (empty: no duel allowed).
    fn defender_bids_at(&self, p: &PendingDuel, i: usize) -> Vec<u8> {
        (0..=2)
            .filter(|&b| self.settles(p, i, Duel::answered(b, 0, false)))
            .collect()
    }

    pub(super) fn defender_bids(&self, p: &PendingDuel) -> Vec<u8> {
        self.defender_bids_at(p, p.settled.len())
    }

    /// The attacker's bids: those some allowed defender bid goes with (so that they say
    /// nothing about the defender's hidden bid).
    pub(super) fn attacker_bids(&self, p: &PendingDuel) -> Vec<u8> {
        let i = p.settled.len();
        let defender = self.defender_bids_at(p, i);
        (0..=2)
            .filter(|&r| {
                defender
                    .iter()
                    .any(|&b| self.settles(p, i, Duel::answered(b, r, false)))
            })
            .collect()
    }

    /// Whether duel `i` of `p`'s move may be settled as `duel` (after the ones settled).
    fn settles(&self, p: &PendingDuel, i: usize, duel: Option<Duel>) -> bool {
        let Some(duel) = duel else { return false };
        let (_, victim) = p.taken[i];
        let Chess2Move::Play { from, .. } = p.bare else {
            return false;
        };
        let attacker_role = self.position.piece_at(from).map(|a| a.role);
        if victim.color == p.attacker
            || duel_rank(victim.role).is_none()
            || attacker_role.and_then(duel_rank).is_none()
        {
            return false;
        }
        let mut duels = p.settled[..i].to_vec();
        duels.push(duel);
        self.position.resolve_duels(p.bare, &duels).is_ok()
    }

    /// An attacker without stones cannot bid: its bid of 0 is taken at once.
    fn fill_forced_bid(&mut self) {
        let Some(p) = &self.pending else { return };
        if self.attacker_bids(p) == [0] {
            if let Some(p) = &mut self.pending {
                if let DuelStage::Bids { defender, .. } = p.stage {
                    p.stage = DuelStage::Bids {
                        defender,
                        attacker: Some((0, false)),
                    };
                }
            }
        }
    }
}
