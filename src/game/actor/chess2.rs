//! The steps of a Chess 2 game in its actor: moves, and a capture's duel (the defender's
//! challenge or decline, then both hidden bids). Each step is checked by the rules, timed on
//! the clock of the side that must act, stored, and published as one `chess2_step` event,
//! whose text never shows a bid before both are in.

use actix::Context;
use chessd_core::chess2::{Chess2Action, Chess2Move};

use super::GameActor;
use crate::game::{
    board::chess2_step_event,
    command::{Caller, DuelStep},
    events::EventKind,
    GameError,
};

impl GameActor {
    /// A Chess 2 move sent as text (the Go engine's move string, without duel fields).
    pub(super) fn play_chess2_move(
        &mut self,
        caller: Caller,
        text: &str,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let mv: Chess2Move = text.parse().map_err(|e| {
            GameError::Chess2Notation(format!("'{text}' is not a Chess 2 move: {e}"))
        })?;
        self.take_chess2_step(caller, Chess2Action::Move(mv), ctx)
    }

    /// A duel step: a bid's side is the seat's own; the admin names it.
    pub(super) fn take_duel_step(
        &mut self,
        caller: Caller,
        step: DuelStep,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let action = match step {
            DuelStep::Challenge => Chess2Action::Challenge,
            DuelStep::Decline => Chess2Action::Decline,
            DuelStep::Bid { side, stones, gain } => {
                let by = match (caller, side) {
                    (Caller::Seat(seat), Some(side)) if seat != side => {
                        return Err(GameError::forbidden("a seat bids only for its own side"))
                    }
                    (Caller::Seat(seat), _) => seat,
                    (Caller::Admin, Some(side)) => side,
                    _ => {
                        return Err(GameError::invalid(
                            "the admin names the side that bids (side)",
                        ))
                    }
                };
                Chess2Action::Bid { by, stones, gain }
            }
        };
        self.take_chess2_step(caller, action, ctx)
    }

    /// Takes one Chess 2 step for `caller`: a seat acts for itself, the admin for the side
    /// that must act (or the side a bid names).
    pub(super) fn take_chess2_step(
        &mut self,
        caller: Caller,
        action: Chess2Action,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let game = self.game.chess2()?;
        let to_act = game.to_act();
        let by = match (caller, action) {
            (Caller::Seat(c), _) => c,
            (Caller::Admin, Chess2Action::Bid { by, .. }) => by,
            (Caller::Admin, _) => to_act,
            (Caller::Anonymous, _) => {
                return Err(GameError::forbidden(
                    "a step needs a player's secret (Authorization: Bearer <secret>)",
                ))
            }
        };
        if game.is_over() {
            return Err(GameError::over(game.status()));
        }
        let first_step = game.steps().is_empty();
        if self.check_flag(ctx) {
            return Err(GameError::Flagged(to_act));
        }
        let game = self.game.chess2_mut()?;
        let played = game.act(by, action)?.cloned();
        self.moved = true;
        if played.is_some() {
            crate::metrics::count_move();
        }
        let now = std::time::Instant::now();
        let over = self.game.is_over();
        let next = self.game.to_act();
        if let Some(clock) = self.clock.as_mut() {
            if let Some(p) = &played {
                // The flag was checked above: the mover had time left.
                let _ = clock.on_move(p.by, first_step, now);
            }
            if over {
                clock.stop(now);
            } else if clock.running().is_some() {
                clock.start(next, now);
            }
        }
        if played.is_some() && self.draw_offer == Some(!by) {
            self.draw_offer = None;
            self.publish(EventKind::DrawDeclined { by }, ctx);
        }
        if over {
            self.draw_offer = None;
        }
        let game = self.game.chess2()?;
        let clocks = self.clock.as_ref().map(|c| c.view(now));
        let event = chess2_step_event(game, by, action, played.as_ref(), clocks);
        self.publish(event, ctx);
        self.arm_flag_timer(ctx);
        Ok(())
    }
}
