//! A Chess 2 game ([`Chess2Game`]): moves whose duels are played as steps of their own, draws,
//! and results set from outside. Each step is a [`Chess2Action`] with a text form, so that a
//! game can be stored as the list of its steps and replayed.

use std::sync::Arc;

use super::{Chess2Move, Chess2Position, PlayError};
use crate::{
    game::{DrawPolicy, Reason, Status},
    Color,
};

mod action;
mod duels;
mod ending;
mod error;

pub use action::{ActionParseError, Chess2Action};
pub use duels::{DuelStage, DuelTerms, PendingDuel};
pub use error::Chess2GameError;

/// One move of a Chess 2 game, with every duel it led to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chess2Played {
    /// The move with its duel fields (trailing declined duels left out).
    pub mv: Chess2Move,
    /// Who played it.
    pub by: Color,
    /// The position after it, in EPD.
    pub epd: String,
}

/// Which moves a step may make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Allow {
    /// The legal moves.
    Legal,
    /// Also those a game stored under earlier rules may hold (an empty Whirlwind).
    Stored,
}

/// A Chess 2 game in progress or finished.
///
/// Cloning is cheap: the history and the positions kept for repetitions are shared.
///
/// ```
/// use chessd_core::chess2::{Army, Chess2Action, Chess2Game, Chess2Position, DuelStage};
/// use chessd_core::game::DrawPolicy;
/// use chessd_core::Color;
///
/// let start = Chess2Position::from_epd("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33").unwrap();
/// let mut game = Chess2Game::new(start, DrawPolicy::Automatic);
/// game.act(Color::White, "e4d5".parse().unwrap()).unwrap();
/// // Black may challenge the capture of its pawn.
/// assert_eq!(game.pending_duel().unwrap().stage(), DuelStage::Challenge);
/// for (by, step) in [(Color::Black, "challenge"), (Color::Black, "bid:b:1"), (Color::White, "bid:w:0-")] {
///     game.act(by, step.parse::<Chess2Action>().unwrap()).unwrap();
/// }
/// // Black bid more: the pawn that took is destroyed too.
/// assert_eq!(game.history()[0].mv.to_string(), "e4d5:10-");
/// assert_eq!(game.position().to_epd(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1 cc 43");
/// ```
#[derive(Clone, Debug)]
pub struct Chess2Game {
    start: Chess2Position,
    position: Chess2Position,
    history: Arc<Vec<Chess2Played>>,
    /// Every step taken, in order (bids with their amounts): replaying them rebuilds the game.
    steps: Arc<Vec<Chess2Action>>,
    /// The positions since the last irreversible move (for repetitions).
    repetitions: Arc<Vec<Chess2Position>>,
    status: Status,
    policy: DrawPolicy,
    pending: Option<PendingDuel>,
}

impl Chess2Game {
    /// A game from `start`; a start that is already decided makes a finished game.
    pub fn new(start: Chess2Position, policy: DrawPolicy) -> Chess2Game {
        let mut game = Chess2Game {
            start,
            position: start,
            history: Arc::new(Vec::new()),
            steps: Arc::new(Vec::new()),
            repetitions: Arc::new(vec![start]),
            status: Status::ongoing(),
            policy,
            pending: None,
        };
        game.status = game.evaluate();
        game
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Chess2Position {
        &self.start
    }

    /// The current position (before the pending move, while a duel is being settled).
    pub fn position(&self) -> &Chess2Position {
        &self.position
    }

    /// The moves played, oldest first.
    pub fn history(&self) -> &[Chess2Played] {
        &self.history
    }

    /// Every step taken so far, in order, bids with their amounts (keep them from the other
    /// side until the duel is settled): [`Chess2Game::replay`] of these rebuilds the game.
    pub fn steps(&self) -> &[Chess2Action] {
        &self.steps
    }

    /// The game's status.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The draw policy.
    pub fn policy(&self) -> DrawPolicy {
        self.policy
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.status.is_over()
    }

    /// The capture whose duel is being settled, if any.
    pub fn pending_duel(&self) -> Option<&PendingDuel> {
        self.pending.as_ref()
    }

    /// The side that must act now: the side to move, or the side a duel waits for.
    pub fn to_act(&self) -> Color {
        match &self.pending {
            Some(p) => p.to_act(),
            None => self.position.turn(),
        }
    }

    /// Whether the game waits for a step from `color`: its move, its choice as defender, or
    /// its bid (both sides may owe a bid at once).
    pub fn awaits(&self, color: Color) -> bool {
        if self.is_over() {
            return false;
        }
        match &self.pending {
            None => self.position.turn() == color,
            Some(p) => match p.stage {
                DuelStage::Challenge => p.defender() == color,
                DuelStage::Bids { .. } => p.awaits_bid_from(color),
            },
        }
    }

    /// The moves the side to move may make now (none while a duel waits or once the game is
    /// over).
    pub fn legal_moves(&self) -> Vec<Chess2Move> {
        if self.is_over() || self.pending.is_some() {
            return Vec::new();
        }
        self.position.legal_moves()
    }

    /// The bids `color` may make in the duel waiting for bids (empty if none is).
    pub fn allowed_bids(&self, color: Color) -> Vec<u8> {
        let Some(p) = &self.pending else {
            return Vec::new();
        };
        if !matches!(p.stage, DuelStage::Bids { .. }) {
            return Vec::new();
        }
        if color == p.attacker {
            self.attacker_bids(p)
        } else {
            self.defender_bids(p)
        }
    }

    /// Takes one step for `by`. A refused step changes nothing. Returns the move played when
    /// the step completed one. The step is kept [normalized](Chess2Action::normalized).
    pub fn act(
        &mut self,
        by: Color,
        action: Chess2Action,
    ) -> Result<Option<&Chess2Played>, Chess2GameError> {
        self.take(by, action, Allow::Legal)
    }

    /// Takes a recorded step (one of [`Chess2Game::steps`]) as the side it belongs to: a bid
    /// names its side, every other step is the turn of the side that must act.
    ///
    /// Games stored under earlier rules replay as they were played: an empty Whirlwind (see
    /// [`Chess2Position::is_empty_whirlwind`]) is taken, and a game the current rules end for
    /// want of any other move goes on with it.
    pub fn replay(
        &mut self,
        action: Chess2Action,
    ) -> Result<Option<&Chess2Played>, Chess2GameError> {
        if self.lost_before_stored_whirlwind(action) {
            self.status = Status::ongoing();
        }
        self.take(self.side_of(action), action, Allow::Stored)
    }

    /// Whether the game is lost for want of a legal move where `action`, a stored empty
    /// Whirlwind, was played under the rules that allowed it.
    fn lost_before_stored_whirlwind(&self, action: Chess2Action) -> bool {
        let Chess2Action::Move(mv) = action else {
            return false;
        };
        self.status.reason == Some(Reason::NoLegalMoves)
            && self.pending.is_none()
            && self.position.is_empty_whirlwind(mv)
    }

    /// [`Chess2Game::act`], with the moves `allow` lets through.
    fn take(
        &mut self,
        by: Color,
        action: Chess2Action,
        allow: Allow,
    ) -> Result<Option<&Chess2Played>, Chess2GameError> {
        let action = action.normalized();
        if self.is_over() {
            return Err(Chess2GameError::GameOver(self.status.clone()));
        }
        let done = match action {
            Chess2Action::Move(mv) => self.start_move(by, mv, allow)?,
            Chess2Action::Challenge => self.answer_challenge(by, true)?,
            Chess2Action::Decline => self.answer_challenge(by, false)?,
            Chess2Action::Bid {
                by: bidder,
                stones,
                gain,
            } => {
                if bidder != by {
                    return Err(Chess2GameError::NotYourStep(by));
                }
                self.bid(by, stones, gain)?
            }
        };
        Arc::make_mut(&mut self.steps).push(action);
        Ok(if done { self.history.last() } else { None })
    }

    /// The side a recorded step belongs to: a bid names its side, every other step is the
    /// turn of the side that must act.
    pub fn side_of(&self, action: Chess2Action) -> Color {
        match action {
            Chess2Action::Bid { by, .. } => by,
            _ => self.to_act(),
        }
    }

    /// A move by the side to move: played at once, or stopped at its first duel.
    fn start_move(
        &mut self,
        by: Color,
        mv: Chess2Move,
        allow: Allow,
    ) -> Result<bool, Chess2GameError> {
        if self.pending.is_some() {
            return Err(Chess2GameError::DuelPending);
        }
        if by != self.position.turn() {
            return Err(Chess2GameError::NotYourStep(by));
        }
        if !mv.duels().is_empty() {
            return Err(Chess2GameError::DuelFieldsInGame);
        }
        let stored = allow == Allow::Stored && self.position.is_empty_whirlwind(mv);
        if !stored && !self.position.legal_moves().contains(&mv) {
            return Err(Chess2GameError::Play(PlayError::Illegal));
        }
        self.pending = Some(PendingDuel {
            bare: mv,
            attacker: by,
            taken: self.position.taken_by(mv),
            settled: Vec::new(),
            stage: DuelStage::Challenge,
        });
        Ok(self.advance())
    }

    /// Plays the pending move with its settled duels.
    fn finish_move(&mut self) {
        let Some(p) = self.pending.take() else { return };
        let mut duels = p.settled;
        while duels.last().is_some_and(|d| !d.is_started()) {
            duels.pop();
        }
        let next = self
            .position
            .resolve_duels(p.bare, &duels)
            .unwrap_or_else(|_| self.position.after(p.bare));
        let mv = p.bare.with_duels(&duels).unwrap_or(p.bare);
        let before = self.position;
        self.position = next;
        let positions = Arc::make_mut(&mut self.repetitions);
        if next.halfmove_clock() == 0
            || next.stones() != before.stones()
            || next.castling != before.castling
        {
            positions.clear();
        }
        positions.push(next);
        Arc::make_mut(&mut self.history).push(Chess2Played {
            mv,
            by: p.attacker,
            epd: next.to_epd(),
        });
        self.status = self.evaluate();
    }
}
