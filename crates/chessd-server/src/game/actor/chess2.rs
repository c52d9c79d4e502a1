//! The steps of a Chess 2 game in its actor: moves, and a capture's duel (the defender's
//! challenge or decline, then both hidden bids). Each step is checked by the rules, timed on
//! the clock of the side that must act, stored, and published as one `chess2_step` event,
//! whose text never shows a bid before both are in.

use actix::{fut::wrap_future, ActorFutureExt, AsyncContext, Context};
use chessd_core::chess2::{bot, Chess2Action, Chess2Move};

use super::GameActor;
use crate::game::{
    board::Board, command::DuelStep, events::EventKind, options::Chess2Bot, secrets::Caller,
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
                        return Err(GameError::Chess2(
                            chessd_core::chess2::Chess2GameError::BidSideMissing,
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
                // The flag was checked above: the running side had time left.
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
        let event = EventKind::chess2_step(game, by, action, played.as_ref(), clocks);
        self.publish(event, ctx);
        self.arm_flag_timer(ctx);
        Ok(())
    }

    /// Lets chessd's Chess 2 player take its step when the game waits for one from it: its
    /// move is searched on a blocking thread, its duel answers are chosen at once. The step
    /// is taken only if the game has not changed meanwhile; then the next one is looked for
    /// (a Two Kings king turn, a bid after its own challenge, the other side's player).
    pub(super) fn chess2_bot_turn(&mut self, ctx: &mut Context<Self>) {
        if self.chess2_thinking {
            return;
        }
        let Board::Chess2(game) = &self.game else {
            return;
        };
        let Some(player) = self
            .options
            .chess2_bots
            .iter()
            .find(|b| game.awaits(b.plays))
            .cloned()
        else {
            return;
        };
        let game = game.clone();
        let (steps, position) = (game.steps().len(), *game.position());
        self.chess2_thinking = true;
        let pool = self.env.bots.clone();
        let search = async move {
            pool.run(&player.client, move || {
                bot::next_step(&game, player.plays, player.depth, Chess2Bot::NODE_BUDGET)
            })
            .await
        };
        ctx.spawn(wrap_future(search).map(move |found, act: &mut GameActor, ctx| {
            act.chess2_thinking = false;
            // Not a step for a game that moved on meanwhile (a result set, a reset).
            let unchanged = act
                .game
                .chess2()
                .is_ok_and(|g| g.steps().len() == steps && *g.position() == position);
            match found {
                Ok(Some(action)) if unchanged => {
                    match act.take_chess2_step(Caller::Admin, action, ctx) {
                        Ok(()) => act.after_game_change(ctx),
                        Err(e) => {
                            tracing::warn!(game = %act.id, error = %e, "chessd's Chess 2 player's step was refused");
                            return;
                        }
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(game = %act.id, error = %e, "chessd's Chess 2 player failed");
                    return;
                }
            }
            act.chess2_bot_turn(ctx);
        }));
    }
}
