//! How a Chess 2 game ends: the rules' verdict after each move (midline invasion, mate, no
//! moves, fifty moves, repetition), draws claimed, and results set from outside.

use super::{Chess2Game, Chess2GameError};
use crate::{
    chess2::{Chess2Outcome, Chess2Position},
    game::{DrawPolicy, GameResult, Reason, Status},
    Color,
};

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
    /// How many times the current position has occurred (this time included).
    pub fn repetition_count(&self) -> u32 {
        self.repetitions
            .iter()
            .filter(|p| same_position(p, &self.position))
            .count() as u32
    }

    /// The status the rules give the current position.
    pub(super) fn evaluate(&self) -> Status {
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

    /// Aborts the game: over with no result ([`GameResult::Aborted`], no reason).
    pub fn abort(&mut self) -> Result<(), Chess2GameError> {
        self.ensure_no_status()?;
        self.end(Status {
            result: GameResult::Aborted,
            reason: None,
            note: None,
        });
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
