//! A Chess 2 game: moves whose duels are played as steps of their own, draws, and results set
//! from outside.
//!
//! A capture that can be duelled stops the game until the duel is settled:
//! 1. the defender **challenges** or **declines**;
//! 2. after a challenge both sides **bid** 0 to 2 stones, each unseen by the other (the
//!    server shows a bid only once both are in);
//! 3. the duel is settled: an Elephant's rampage then offers its next capture, else the move
//!    is played with every duel in its notation.
//!
//! Each step is a [`Chess2Action`] with a text form, so that a game can be stored as the
//! list of its steps and replayed.
//!
//! ```
//! use chessd_core::chess2::{Army, Chess2Action, Chess2Game, Chess2Position, DuelStage};
//! use chessd_core::game::DrawPolicy;
//! use chessd_core::Color;
//!
//! let start = Chess2Position::from_epd("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33").unwrap();
//! let mut game = Chess2Game::new(start, DrawPolicy::Automatic);
//! game.act(Color::White, "e4d5".parse().unwrap()).unwrap();
//! // Black may challenge the capture of its pawn.
//! assert_eq!(game.pending_duel().unwrap().stage(), DuelStage::Challenge);
//! for (by, step) in [(Color::Black, "challenge"), (Color::Black, "bid:b:1"), (Color::White, "bid:w:0-")] {
//!     game.act(by, step.parse::<Chess2Action>().unwrap()).unwrap();
//! }
//! // Black bid more: the pawn that took is destroyed too.
//! assert_eq!(game.history()[0].mv.to_string(), "e4d5:10-");
//! assert_eq!(game.position().to_epd(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1 cc 43");
//! ```

use std::{fmt, str::FromStr, sync::Arc};

use super::{
    duel_rank, Chess2Move, Chess2Outcome, Chess2Position, Duel, MoveParseError, PlayError,
};
use crate::{
    game::{DrawPolicy, GameResult, Reason, Status},
    Color, Piece, Square,
};

/// One step of a Chess 2 game, as a player takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chess2Action {
    /// A move by the side to move, without duel fields (the duels are their own steps).
    Move(Chess2Move),
    /// The defender starts a duel over the capture at stake.
    Challenge,
    /// The defender lets the capture at stake happen.
    Decline,
    /// A side's hidden bid in a duel.
    Bid {
        /// Who bids.
        by: Color,
        /// Stones bid, 0 to 2.
        stones: u8,
        /// For the attacker, when both bid 0: gain a stone (`true`) or take one from the
        /// defender (`false`); `None` for the default (gain, unless at the most stones).
        /// Only a bid of 0 keeps it (see [`Chess2Action::normalized`]).
        gain: Option<bool>,
    },
}

impl Chess2Action {
    /// The step as a game keeps and writes it: a bid of 1 or 2 stones rules out a 0–0 duel,
    /// so the choice for one is dropped (`bid:w:2+` is `bid:w:2`).
    pub fn normalized(self) -> Chess2Action {
        match self {
            Chess2Action::Bid { by, stones, .. } if stones > 0 => Chess2Action::Bid {
                by,
                stones,
                gain: None,
            },
            other => other,
        }
    }
}

/// Why a Chess 2 step text was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionParseError {
    /// A move string that does not parse.
    Move(MoveParseError),
    /// A bid that is not `bid:<w|b>:<0..2>` with an optional `+` or `-`.
    BadBid(String),
}

impl fmt::Display for ActionParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionParseError::Move(e) => e.fmt(f),
            ActionParseError::BadBid(text) => write!(
                f,
                "'{text}' is not a bid: write bid:<w|b>:<0..2>, with + or - after 0 for the \
                 attacker"
            ),
        }
    }
}

impl std::error::Error for ActionParseError {}

impl FromStr for Chess2Action {
    type Err = ActionParseError;

    /// Reads `challenge`, `decline`, `bid:w:1`, `bid:b:0+` or a move string (`e2e4`). A bid of
    /// stones stored with a sign by older servers (`bid:w:2+`) reads as the bid alone.
    fn from_str(text: &str) -> Result<Chess2Action, ActionParseError> {
        match text {
            "challenge" => return Ok(Chess2Action::Challenge),
            "decline" => return Ok(Chess2Action::Decline),
            _ => {}
        }
        if let Some(rest) = text.strip_prefix("bid:") {
            return parse_bid(rest)
                .map(Chess2Action::normalized)
                .ok_or_else(|| ActionParseError::BadBid(text.to_string()));
        }
        text.parse()
            .map(Chess2Action::Move)
            .map_err(ActionParseError::Move)
    }
}

/// Reads what follows `bid:`: the side, `:`, the stones 0 to 2, then an optional `+` or `-`.
fn parse_bid(rest: &str) -> Option<Chess2Action> {
    let (side, amount) = rest.split_once(':')?;
    let by = match side {
        "w" => Color::White,
        "b" => Color::Black,
        _ => return None,
    };
    let (digit, gain) = match amount.as_bytes() {
        [d] => (*d, None),
        [d, b'+'] => (*d, Some(true)),
        [d, b'-'] => (*d, Some(false)),
        _ => return None,
    };
    if !(b'0'..=b'2').contains(&digit) {
        return None;
    }
    Some(Chess2Action::Bid {
        by,
        stones: digit - b'0',
        gain,
    })
}

impl fmt::Display for Chess2Action {
    /// Writes the step as a game stores it: a bid's `+` or `-` only after 0 (see
    /// [`Chess2Action::normalized`]), so that what is written always reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chess2Action::Move(mv) => mv.fmt(f),
            Chess2Action::Challenge => f.write_str("challenge"),
            Chess2Action::Decline => f.write_str("decline"),
            Chess2Action::Bid { by, stones, gain } => {
                let side = if *by == Color::White { 'w' } else { 'b' };
                let sign = match gain {
                    Some(true) if *stones == 0 => "+",
                    Some(false) if *stones == 0 => "-",
                    _ => "",
                };
                write!(f, "bid:{side}:{stones}{sign}")
            }
        }
    }
}

/// Why a step of a Chess 2 game is refused (the game is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chess2GameError {
    /// The game is over.
    GameOver(Status),
    /// The game already has a result.
    AlreadyHasStatus(Status),
    /// The move cannot be played.
    Play(PlayError),
    /// A move sent with duel fields: in a game, duels are their own steps.
    DuelFieldsInGame,
    /// A move while a duel waits to be settled.
    DuelPending,
    /// A duel step with no duel waiting for it.
    NoDuel,
    /// The step is not this side's to take now.
    NotYourStep(Color),
    /// A side has already bid in this duel.
    AlreadyBid(Color),
    /// A bid this side may not make (its stones, or the rule that makes a defender facing an
    /// attacker without stones bid 1).
    BadBid {
        /// The bid.
        stones: u8,
        /// The bids allowed.
        allowed: Vec<u8>,
    },
    /// No draw can be claimed.
    NothingToClaim,
    /// A bid made for no named side (by someone who holds no seat: the game's admin).
    BidSideMissing,
}

impl fmt::Display for Chess2GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chess2GameError::GameOver(status) => write!(f, "the game is over ({status})"),
            Chess2GameError::AlreadyHasStatus(status) => {
                write!(f, "the game already has a result ({status})")
            }
            Chess2GameError::Play(e) => e.fmt(f),
            Chess2GameError::DuelFieldsInGame => f.write_str(
                "send the move without duel fields: in a game the defender challenges and both \
                 sides bid as steps of their own",
            ),
            Chess2GameError::DuelPending => {
                f.write_str("a duel waits to be settled: challenge, decline or bid first")
            }
            Chess2GameError::NoDuel => f.write_str("no duel is waiting for this step"),
            Chess2GameError::NotYourStep(color) => {
                write!(f, "this step is not {color}'s to take now")
            }
            Chess2GameError::AlreadyBid(color) => write!(f, "{color} has already bid"),
            Chess2GameError::BadBid { stones, allowed } => {
                write!(
                    f,
                    "a bid of {stones} is not allowed here; allowed: {allowed:?}"
                )
            }
            Chess2GameError::BidSideMissing => {
                f.write_str("name the side that bids (side): only a seat bids for itself")
            }
            Chess2GameError::NothingToClaim => {
                f.write_str("no draw can be claimed (no threefold repetition or fifty-move rule)")
            }
        }
    }
}

impl std::error::Error for Chess2GameError {}

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
    bare: Chess2Move,
    attacker: Color,
    taken: Vec<(Square, Piece)>,
    settled: Vec<Duel>,
    stage: DuelStage,
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

/// The moves each side may make without a capture or a pawn move before the game is drawn
/// (counted in plies: 50 moves each), or may be claimed drawn under [`DrawPolicy::Claims`].
const FIFTY_MOVES: u32 = 100;
/// The automatic limit under [`DrawPolicy::Claims`] (75 moves each).
const SEVENTY_FIVE_MOVES: u32 = 150;

/// Whether two positions are the same for the repetition rules (the move counters aside).
fn same_position(a: &Chess2Position, b: &Chess2Position) -> bool {
    Chess2Position {
        halfmove_clock: 0,
        fullmove_number: 0,
        ..*a
    } == Chess2Position {
        halfmove_clock: 0,
        fullmove_number: 0,
        ..*b
    }
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

    /// The defender's challenge (`true`) or decline of the capture at stake. Returns whether
    /// the move was played.
    fn answer_challenge(&mut self, by: Color, challenge: bool) -> Result<bool, Chess2GameError> {
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

    /// A bid in the waiting duel; settles it once both bids are in.
    fn bid(&mut self, by: Color, stones: u8, gain: Option<bool>) -> Result<bool, Chess2GameError> {
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
            let at_most = self.position.stones()[by as usize] >= super::MAX_STONES;
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
    fn advance(&mut self) -> bool {
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

    fn defender_bids(&self, p: &PendingDuel) -> Vec<u8> {
        self.defender_bids_at(p, p.settled.len())
    }

    /// The attacker's bids: those some allowed defender bid goes with (so that they say
    /// nothing about the defender's hidden bid).
    fn attacker_bids(&self, p: &PendingDuel) -> Vec<u8> {
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

    /// How many times the current position has occurred (this time included).
    pub fn repetition_count(&self) -> u32 {
        self.repetitions
            .iter()
            .filter(|p| same_position(p, &self.position))
            .count() as u32
    }

    /// The status the rules give the current position.
    fn evaluate(&self) -> Status {
        if let Some(outcome) = self.position.outcome() {
            let (winner, reason) = match outcome {
                Chess2Outcome::MidlineInvasion(c) => (c, Reason::MidlineInvasion),
                Chess2Outcome::Checkmate(c) => (c, Reason::Checkmate),
                Chess2Outcome::NoMoves(c) => (c, Reason::NoLegalMoves),
            };
            return Status::over(GameResult::win_for(winner), reason);
        }
        let (move_limit, move_reason, rep_limit, rep_reason) = match self.policy {
            DrawPolicy::Automatic => (
                FIFTY_MOVES,
                Reason::FiftyMoves,
                3,
                Reason::ThreefoldRepetition,
            ),
            DrawPolicy::Claims => (
                SEVENTY_FIVE_MOVES,
                Reason::SeventyFiveMoves,
                5,
                Reason::FivefoldRepetition,
            ),
        };
        if self.position.halfmove_clock() >= move_limit {
            return Status::over(GameResult::Draw, move_reason);
        }
        if self.repetition_count() >= rep_limit {
            return Status::over(GameResult::Draw, rep_reason);
        }
        Status::ongoing()
    }

    /// The draw that can be claimed now, if any (never while a duel waits).
    pub fn claimable_draw(&self) -> Option<Reason> {
        if self.is_over() || self.pending.is_some() {
            None
        } else if self.position.halfmove_clock() >= FIFTY_MOVES {
            Some(Reason::FiftyMoves)
        } else if self.repetition_count() >= 3 {
            Some(Reason::ThreefoldRepetition)
        } else {
            None
        }
    }

    /// Ends the game in a draw by the rule [`Chess2Game::claimable_draw`] names.
    pub fn claim_draw(&mut self) -> Result<(), Chess2GameError> {
        self.ensure_no_status()?;
        let reason = self
            .claimable_draw()
            .ok_or(Chess2GameError::NothingToClaim)?;
        self.end(Status::over(GameResult::Draw, reason));
        Ok(())
    }

    fn ensure_no_status(&self) -> Result<(), Chess2GameError> {
        if self.is_over() {
            Err(Chess2GameError::AlreadyHasStatus(self.status.clone()))
        } else {
            Ok(())
        }
    }

    /// Ends the game; a duel waiting to be settled is dropped with its move.
    fn end(&mut self, status: Status) {
        self.pending = None;
        self.status = status;
    }

    /// Declares a draw by decision, with an optional note.
    pub fn set_draw(&mut self, note: Option<String>) -> Result<(), Chess2GameError> {
        self.ensure_no_status()?;
        self.end(Status {
            result: GameResult::Draw,
            reason: Some(Reason::Manual),
            note,
        });
        Ok(())
    }

    /// Declares `color` the winner by decision, with an optional note.
    pub fn set_winner(
        &mut self,
        color: Color,
        note: Option<String>,
    ) -> Result<(), Chess2GameError> {
        self.ensure_no_status()?;
        self.end(Status {
            result: GameResult::win_for(color),
            reason: Some(Reason::Manual),
            note,
        });
        Ok(())
    }

    /// Ends the game in a draw agreed by the players.
    pub fn draw_by_agreement(&mut self) -> Result<(), Chess2GameError> {
        self.ensure_no_status()?;
        self.end(Status::over(GameResult::Draw, Reason::Agreement));
        Ok(())
    }

    /// `loser` resigns.
    pub fn resign(&mut self, loser: Color) -> Result<(), Chess2GameError> {
        self.ensure_no_status()?;
        self.end(Status::over(
            GameResult::win_for(!loser),
            Reason::Resignation,
        ));
        Ok(())
    }

    /// `loser` ran out of time: the opponent wins (in Chess 2 a lone king can still win by
    /// crossing the midline, so a timeout is never drawn for want of material).
    pub fn flag(&mut self, loser: Color) -> Result<(), Chess2GameError> {
        self.ensure_no_status()?;
        self.end(Status::over(GameResult::win_for(!loser), Reason::Timeout));
        Ok(())
    }
}
