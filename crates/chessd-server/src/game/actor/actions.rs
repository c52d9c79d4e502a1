//! How a game actor applies a request: the seat check, moves, re-initialisation, and the
//! actions (resign, draws, duels, saves), each behind its idempotency key.

use std::time::Duration;

use actix::Context;
use chessd_core::{
    chess2::{Chess2Game, Chess2Position},
    game::{Game, PlayedMove},
    pgn, Color, FenMode, Position,
};

use super::GameActor;
use crate::game::{
    board::Board,
    clock::Clock,
    command::{Action, MoveInput},
    events::EventKind,
    hooks::StopReason,
    idempotency::{Acted, Conditions, KeyCheck, KeyScope},
    replies::ActionReply,
    secrets::Caller,
    GameError,
};

impl GameActor {
    /// The seat of a caller whose request needs a seat (checked before it is handled).
    pub(super) fn seat_of(caller: Caller) -> Result<Color, GameError> {
        match caller {
            Caller::Seat(c) => Ok(c),
            _ => Err(crate::game::command::Need::Seat.refusal(true)),
        }
    }

    pub(super) fn play_move(
        &mut self,
        caller: Caller,
        input: MoveInput,
        ctx: &mut Context<Self>,
    ) -> Result<PlayedMove, GameError> {
        let turn = self.game.to_act();
        match caller {
            Caller::Admin => {}
            Caller::Seat(c) if c == turn => {}
            Caller::Seat(_) => return Err(GameError::NotYourTurn(turn)),
            Caller::Anonymous => {
                return Err(GameError::forbidden(
                    "a move needs the secret of the side to move (Authorization: Bearer <secret>)",
                ))
            }
        }
        if self.game.is_over() {
            return Err(GameError::over(self.game.status()));
        }
        if self.check_flag(ctx) {
            return Err(GameError::Flagged(turn));
        }
        let Board::Chess(game) = &mut self.game else {
            return Err(GameError::WrongVariant(
                "a Chess 2 move is sent as {\"uci\": \"e2e4\"} (the Go engine's move string, \
                 without duel fields); SAN and square indices are standard chess's"
                    .into(),
            ));
        };
        let first_move = game.history().is_empty();
        let played = input.play_on(game)?.clone();
        self.moved = true;
        crate::metrics::count_move();

        let now = std::time::Instant::now();
        if let Some(clock) = self.clock.as_mut() {
            // The flag was checked above, so the mover had time left.
            let _ = clock.on_move(turn, first_move, now);
            if self.game.is_over() {
                clock.stop(now);
            }
        }
        if self.draw_offer == Some(!turn) {
            self.draw_offer = None;
            self.publish(EventKind::DrawDeclined { by: turn }, ctx);
        }
        self.withdraw_takeback(turn, ctx);
        if self.game.is_over() {
            self.draw_offer = None;
        }
        let clocks = self.clock.as_ref().map(|c| c.view(now));
        self.publish(
            EventKind::Move {
                ply: self.game.plies(),
                uci: played.uci.clone(),
                san: played.san.clone(),
                fen: self.game.fen(),
                status: self.game.status().clone(),
                clocks,
            },
            ctx,
        );
        self.arm_flag_timer(ctx);
        Ok(played)
    }

    /// Replaces the game (new position, PGN or restored state), keeping id, secrets and options.
    pub(super) fn reinitialise(
        &mut self,
        game: Board,
        clock: Option<Clock>,
        draw_offer: Option<Color>,
        ctx: &mut Context<Self>,
    ) {
        self.game = game;
        self.clock = clock;
        self.draw_offer = draw_offer;
        // A game loaded with moves is a game under way, not one nobody plays.
        if self.game.has_started() {
            self.moved = true;
        }
        // A game that is under way resumes with the side to move's time running; a game with no
        // move yet starts its clocks with the first move, as a new game does.
        if let Some(clock) = self.clock.as_mut() {
            if !self.game.is_over() && self.game.has_started() {
                clock.start(self.game.to_act(), std::time::Instant::now());
            }
        }
        self.log.clear_history();
        self.publish(
            EventKind::Reset {
                fen: self.game.fen(),
                status: self.game.status().clone(),
            },
            ctx,
        );
        self.arm_flag_timer(ctx);
    }

    pub(super) fn act(
        &mut self,
        caller: Caller,
        action: Action,
        ctx: &mut Context<Self>,
    ) -> Result<Option<PlayedMove>, GameError> {
        let now = std::time::Instant::now();
        match action {
            Action::Move(MoveInput::Uci(text)) if matches!(self.game, Board::Chess2(_)) => {
                self.play_chess2_move(caller, &text, ctx)?;
            }
            Action::Move(input) => return self.play_move(caller, input, ctx).map(Some),
            Action::Duel(step) => self.take_duel_step(caller, step, ctx)?,
            Action::Resign(side) => {
                let loser = match (caller, side) {
                    (Caller::Seat(c), None) => c,
                    (Caller::Seat(c), Some(s)) if c == s => c,
                    (Caller::Admin, Some(s)) => s,
                    (Caller::Admin, None) => {
                        return Err(GameError::invalid(
                            "the admin must name the side that resigns",
                        ))
                    }
                    _ => {
                        return Err(GameError::forbidden(
                            "only a player may resign for their side",
                        ))
                    }
                };
                self.game.resign(loser)?;
                self.end_without_move(now, ctx);
            }
            Action::OfferDraw => {
                let by = Self::seat_of(caller)?;
                if self.game.is_over() {
                    return Err(GameError::over(self.game.status()));
                }
                if self.draw_offer == Some(!by) {
                    self.game.draw_by_agreement()?;
                    self.end_without_move(now, ctx);
                } else if self.draw_offer != Some(by) {
                    self.draw_offer = Some(by);
                    self.publish(EventKind::DrawOffered { by }, ctx);
                }
            }
            Action::AcceptDraw => {
                let by = Self::seat_of(caller)?;
                if self.draw_offer != Some(!by) {
                    return Err(GameError::NoDrawOffer);
                }
                self.game.draw_by_agreement()?;
                self.end_without_move(now, ctx);
            }
            Action::DeclineDraw => {
                let by = Self::seat_of(caller)?;
                if self.draw_offer != Some(!by) {
                    return Err(GameError::NoDrawOffer);
                }
                self.draw_offer = None;
                self.publish(EventKind::DrawDeclined { by }, ctx);
            }
            Action::ClaimDraw => {
                self.game.claim_draw()?;
                self.end_without_move(now, ctx);
            }
            Action::Abort => self.abort(caller, ctx)?,
            Action::OfferTakeback => self.offer_takeback(caller, ctx)?,
            Action::AcceptTakeback => self.accept_takeback(caller, ctx)?,
            Action::DeclineTakeback => self.decline_takeback(caller, ctx)?,
            Action::OfferRematch(seat) => self.offer_rematch(caller, seat, ctx)?,
            Action::AcceptRematch => self.accept_rematch(caller)?,
            Action::DeclineRematch => self.decline_rematch(caller, ctx)?,
            Action::RematchMade(game) => self.rematch_made(caller, game, ctx)?,
            Action::RematchFailed => self.rematch_failed(caller)?,
            Action::SetDraw(note) => {
                self.game.set_draw(note)?;
                self.end_without_move(now, ctx);
            }
            Action::SetWinner(color, note) => {
                self.game.set_winner(color, note)?;
                self.end_without_move(now, ctx);
            }
            Action::LoadFen(fen) => {
                let game = match &self.game {
                    Board::Chess(_) => {
                        let pos = Position::from_fen(&fen, FenMode::Strict)?;
                        Game::with_policy(pos, self.options.draw_policy).into()
                    }
                    Board::Chess2(_) => {
                        let pos = Chess2Position::from_epd(&fen)
                            .map_err(|e| GameError::InvalidEpd(e.to_string()))?;
                        Chess2Game::new(pos, self.options.draw_policy).into()
                    }
                };
                let clock = self.options.time_control.map(Clock::new);
                self.reinitialise(game, clock, None, ctx);
            }
            Action::LoadPgn(text) => {
                self.game.chess()?;
                let parsed = pgn::PgnReader::new(&text)
                    .with_policy(self.options.draw_policy)
                    .next()
                    .ok_or_else(|| GameError::Pgn("the PGN holds no game".into()))?
                    .map_err(|e| GameError::Pgn(e.to_string()))?;
                let clock = self.options.time_control.map(Clock::new);
                self.reinitialise(parsed.game.into(), clock, None, ctx);
            }
            Action::Restore(state) => {
                let game = state.restore()?;
                if matches!(game, Board::Chess2(_)) != matches!(self.game, Board::Chess2(_)) {
                    // A game keeps its variant (and so the engines and routes that go with it).
                    return Err(GameError::WrongVariant(format!(
                        "this game is {}; a saved state of another variant makes a new game \
                         (POST /v1/games)",
                        self.game.variant()
                    )));
                }
                let clock = state
                    .clock
                    .map(|c| Clock::with_remaining(c.control, c.white_ms, c.black_ms));
                self.options.time_control = clock.as_ref().map(Clock::control);
                self.options.draw_policy = game.policy();
                self.write_options(ctx);
                self.reinitialise(game, clock, state.draw_offer, ctx);
            }
            Action::SetOptions(patch) => {
                if let Some(policy) = patch.draw_policy.filter(|p| *p != self.game.policy()) {
                    if self.game.is_over() {
                        return Err(GameError::Finished(
                            "the draw policy of a finished game cannot change".into(),
                        ));
                    }
                    // Replaying under the new policy re-derives the status (a repetition that
                    // was only claimable may now end the game).
                    let game = self.game.with_policy(policy)?;
                    self.options.draw_policy = policy;
                    self.game = game;
                    if self.game.is_over() {
                        self.end_without_move(now, ctx);
                    }
                }
                if let Some(secs) = patch.idle_timeout_secs {
                    self.options.idle_timeout = (secs > 0).then(|| Duration::from_secs(secs));
                    // A shorter timeout may fall before the wake-up asked for.
                    self.touch(ctx);
                    self.schedule_check(ctx);
                }
                self.write_options(ctx);
            }
            Action::Stop => {
                self.end_actor(StopReason::Stopped, ctx);
            }
        }
        Ok(None)
    }

    /// Carries out `action` under `conditions`: a repeat of a keyed request is answered as
    /// the first time, a request made on another version is refused, and a keyed request's
    /// changes are written together with its key.
    pub(super) fn act_under(
        &mut self,
        caller: Caller,
        action: Action,
        conditions: Conditions,
        ctx: &mut Context<Self>,
    ) -> Result<Acted, GameError> {
        let keyed = conditions.key.zip(KeyScope::of(caller));
        if let Some((key, scope)) = &keyed {
            if let KeyCheck::Replay(answer) = self.keys.check(*scope, key)? {
                return Ok(Acted::Replayed(answer));
            }
        }
        if let Some(expected) = conditions.if_version {
            let current = self.log.version();
            if expected != current {
                return Err(GameError::VersionMismatch { expected, current });
            }
        }
        let Some((key, scope)) = keyed else {
            return self.handle_action(caller, action, ctx).map(Acted::Done);
        };
        self.collecting = Some(Vec::new());
        let result = self.handle_action(caller, action, ctx);
        let mut writes = self.collecting.take().unwrap_or_default();
        if let Ok(reply) = &result {
            let answer = (key.render)(Ok(reply));
            writes.extend(self.keep_key(scope, key, answer));
        }
        self.flush_writes(writes, ctx);
        result.map(Acted::Done)
    }

    pub(super) fn handle_action(
        &mut self,
        caller: Caller,
        action: Action,
        ctx: &mut Context<Self>,
    ) -> Result<ActionReply, GameError> {
        let changes_game = action.changes_game();
        if changes_game && self.engine.locks_game() {
            return Err(GameError::busy(
                "the engine is choosing its move for this game; wait for it",
            ));
        }
        let played = self.act(caller, action, ctx)?;
        if changes_game {
            self.after_game_change(ctx);
            self.engine_turn(ctx);
            self.chess2_bot_turn(ctx);
        }
        self.release_engine_if_over();
        Ok(ActionReply {
            snapshot: self.snapshot(),
            played,
        })
    }
}
