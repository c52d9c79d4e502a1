//! Engines that play: the opponent's (and rival's) moves as the game goes on, and `play` (the
//! player's move and the engine's reply, as one request).

use actix::{fut::ActorFutureExt, AsyncContext, Context, WrapFuture};
use chessd_core::{game::PlayedMove, Color, Position};
use chessd_protocol::uci::GoLimits;

use crate::{
    engine::{handle::SearchResult, EngineError},
    game::{
        actor::GameActor,
        command::{EngineReply, MoveInput, Reply},
        engine_state::{
            checked_move, finite_limits, Busy, Opponent, Slot, DEFAULT_OPPONENT_MOVETIME_MS,
        },
        idempotency::{Conditions, KeyCheck, KeyScope},
        replies::PlayReply,
        secrets::Caller,
        GameError,
    },
};

use super::busy_error;

impl GameActor {
    /// Limits of the opponent's search now.
    pub(in crate::game::actor) fn opponent_limits(&self, opponent: &Opponent) -> GoLimits {
        if let Some(go) = &opponent.go {
            return go.clone();
        }
        match &self.clock {
            Some(clock) => {
                let now = std::time::Instant::now();
                let inc = clock.control().increment_ms;
                GoLimits {
                    wtime: Some(clock.remaining(Color::White, now)),
                    btime: Some(clock.remaining(Color::Black, now)),
                    winc: Some(inc),
                    binc: Some(inc),
                    ..GoLimits::default()
                }
            }
            None => GoLimits {
                movetime: Some(DEFAULT_OPPONENT_MOVETIME_MS),
                ..GoLimits::default()
            },
        }
    }

    /// Lets the engine playing the side to move (the opponent, or the rival) move when it is
    /// free.
    pub(in crate::game::actor) fn engine_turn(&mut self, ctx: &mut Context<Self>) {
        if self.follow_ponder(ctx) {
            // Still pondering on the player's time, or the ponder search is now its move.
            return;
        }
        if self.game.is_over() {
            return;
        }
        let Ok(game) = self.game.chess() else {
            return; // no engine plays Chess 2
        };
        let Some((slot, opponent)) = self.engine.player_of(game.position().turn()) else {
            return;
        };
        if !self.engine.slot(slot).is_some_and(|a| a.is_idle()) {
            return;
        }
        let limits = self.opponent_limits(&opponent);
        let search = match self.begin_search(slot, Busy::Move, limits, None, None) {
            Ok(s) => s,
            Err(e) => {
                // The opponent cannot move here (e.g. a Chess960 position loaded for an
                // engine without Chess960): say so rather than wait in silence.
                if let (GameError::Engine(_), Some(generation)) =
                    (&e, self.engine.slot(slot).map(|a| a.generation))
                {
                    self.report_engine_error(generation, &e);
                }
                return;
            }
        };
        self.spawn_search(search, ctx, move |act, done, ctx| {
            let generation = done.generation;
            let ponder = done.result.as_ref().ok().and_then(|r| r.ponder.clone());
            match act.apply_engine_move(generation, &done.root, done.result, ctx) {
                Ok(_) => {
                    act.start_ponder(generation, ponder, ctx);
                    act.engine_turn(ctx);
                }
                Err(e) => act.report_engine_error(generation, &e),
            }
            // The move ended the game, or the game ended while the engine thought (its own
            // flag fell): the engines go.
            act.release_engine_if_over();
        });
    }

    /// Plays the engine's move from `result` on the game, which must still be at `root`.
    pub(in crate::game::actor) fn apply_engine_move(
        &mut self,
        generation: u64,
        root: &Position,
        result: Result<SearchResult, EngineError>,
        ctx: &mut Context<Self>,
    ) -> Result<chessd_core::game::PlayedMove, GameError> {
        let result = result?;
        let (uci, _) = checked_move(root, result.best.as_deref())?;
        if self.engine.current(generation).is_none() {
            return Err(GameError::NoEngine);
        }
        if self.game.chess()?.position() != root {
            return Err(busy_error("the game changed while the engine was thinking"));
        }
        let played = self.play_move(Caller::Admin, MoveInput::Uci(uci), ctx)?;
        self.after_game_change(ctx);
        Ok(played)
    }

    /// Follows a change of the game: an analysis of the current position restarts on the new
    /// one (or stops when the game is over); an analysis of a given ply goes on while that ply
    /// still shows the position it analyses, and restarts (or stops, past the game's end) when
    /// the game was replaced.
    pub(in crate::game::actor) fn after_game_change(&mut self, ctx: &mut Context<Self>) {
        let Some((analysis, root)) = self
            .engine
            .attached
            .as_ref()
            .and_then(|a| a.analysis.clone().map(|an| (an, a.root)))
        else {
            return;
        };
        let restart = match analysis.ply {
            None => !self.game.is_over(),
            Some(ply) if ply <= self.game.chess().map_or(0, |g| g.history().len()) => {
                if self.position_at(ply).is_ok_and(|(_, at)| at == root) {
                    return;
                }
                true
            }
            Some(_) => false,
        };
        if restart {
            let _ = self.run_analysis(analysis.limits, analysis.multipv, analysis.ply, ctx);
            return;
        }
        if let Some(a) = self.engine.attached.as_mut() {
            a.analysis = None;
            let engine = a.engine.clone();
            ctx.spawn(
                async move {
                    let _ = engine.stop().await;
                }
                .into_actor(self)
                .map(|_, act, _| act.release_engine_if_over()),
            );
        }
    }

    pub(super) fn engine_play(
        &mut self,
        caller: Caller,
        player_move: Option<MoveInput>,
        limits: GoLimits,
        conditions: Conditions<PlayReply>,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let keyed = conditions.key.zip(KeyScope::of(caller));
        if let Some((key, scope)) = &keyed {
            let waiting = self.seats.as_ref().and_then(|s| s.engine_play_key.as_ref());
            let checked = if waiting == Some(&(*scope, key.key.clone())) {
                Err(GameError::InProgress(
                    "the first request with this idempotency key is waiting for the engine's \
                     move; ask again in a moment"
                        .into(),
                ))
            } else {
                self.keys.check(*scope, key)
            };
            match checked {
                Ok(KeyCheck::New) => {}
                Ok(KeyCheck::Replay(kept)) => {
                    self.answer(reply, Ok(EngineReply::Replayed(kept)));
                    return;
                }
                Err(e) => {
                    self.answer(reply, Err(e));
                    return;
                }
            }
        }
        if let Some(expected) = conditions.if_version {
            let current = self.log.version();
            if expected != current {
                self.answer(reply, Err(GameError::VersionMismatch { expected, current }));
                return;
            }
        }
        if keyed.is_some() {
            self.collecting = Some(Vec::new());
        }
        let prepared = self.play_before_engine(caller, player_move, limits, ctx);
        let mut writes = self.collecting.take().unwrap_or_default();
        let (player_move, limits) = match prepared {
            Ok(p) => p,
            Err(e) => {
                self.flush_writes(writes, ctx);
                self.answer(reply, Err(e));
                return;
            }
        };
        if self.game.is_over() {
            // The player's move ended the game: nothing for the engine to do.
            self.release_engine_if_over();
            let answer = PlayReply {
                player_move,
                engine_move: None,
                snapshot: self.snapshot(),
            };
            if let Some((key, scope)) = keyed {
                let kept = (key.render)(Ok(&answer));
                writes.extend(self.keep_key(scope, key, kept));
            }
            self.flush_writes(writes, ctx);
            self.answer(reply, Ok(EngineReply::Play(answer)));
            return;
        }
        let searched = self.begin_search(Slot::Main, Busy::Move, limits, None, None);
        if let (Some((key, scope)), true) = (&keyed, player_move.is_some()) {
            // The player's move is kept with an answer saying the engine's was lost: what a
            // repeat gets if this node stops before the engine answers.
            let lost = match &searched {
                Ok(_) => GameError::Engine(EngineError::Died(
                    "the player's move was played; the engine's answer was lost (the game's \
                     node stopped while the engine searched)"
                        .into(),
                )),
                Err(e) => e.clone(),
            };
            let kept = (key.render)(Err(&lost));
            writes.extend(self.keep_key(*scope, key.clone(), kept));
        }
        self.flush_writes(writes, ctx);
        let search = match searched {
            Ok(s) => s,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        match &keyed {
            Some((key, scope)) => {
                self.seats_mut().engine_play_key = Some((*scope, key.key.clone()))
            }
            None => {
                if let Some(seats) = &mut self.seats {
                    seats.engine_play_key = None;
                }
            }
        }
        self.spawn_search(search, ctx, move |act, done, ctx| {
            let generation = done.generation;
            if let Some(seats) = &mut act.seats {
                seats.engine_play_key = None;
            }
            if keyed.is_some() {
                act.collecting = Some(Vec::new());
            }
            let answer = match act.apply_engine_move(generation, &done.root, done.result, ctx) {
                Ok(mv) => Ok(PlayReply {
                    player_move,
                    engine_move: Some(mv),
                    snapshot: act.snapshot(),
                }),
                Err(e) => {
                    act.report_engine_error(generation, &e);
                    Err(e)
                }
            };
            let mut writes = act.collecting.take().unwrap_or_default();
            if let Some((key, scope)) = keyed {
                let kept = (key.render)(answer.as_ref());
                writes.extend(act.keep_key(scope, key, kept));
            }
            act.flush_writes(writes, ctx);
            act.engine_turn(ctx);
            act.answer(reply, answer.map(EngineReply::Play));
        });
    }

    /// The part of an engine play before the engine searches: its checks, and the player's
    /// move when one is given.
    fn play_before_engine(
        &mut self,
        caller: Caller,
        player_move: Option<MoveInput>,
        limits: GoLimits,
        ctx: &mut Context<Self>,
    ) -> Result<(Option<PlayedMove>, GoLimits), GameError> {
        let limits = self.bounded(finite_limits(limits)?)?;
        // A finished game is over for moves, with or without one (its engine is released).
        if self.game.is_over() {
            return Err(GameError::over(self.game.status()));
        }
        // Refuse before the player's move is played if the engine cannot answer.
        let a = self.engine.attached.as_ref().ok_or(GameError::NoEngine)?;
        if !a.is_idle() {
            return Err(busy_error(
                "the engine is already searching for this game (or analysing)",
            ));
        }
        if !limits.searchmoves.is_empty() {
            // The engine's moves are searched after the player's: check them there, before
            // the player's move is played.
            let mut after = self.game.chess()?.clone();
            let ready = match &player_move {
                Some(input) => input.play_on(&mut after).is_ok(),
                None => true,
            };
            if ready {
                self.check_searchmoves_in(after.position(), &limits.searchmoves)?;
            }
        }
        let player_move = match player_move {
            Some(input) => {
                let played = self.play_move(caller, input, ctx)?;
                self.after_game_change(ctx);
                Some(played)
            }
            None => None,
        };
        Ok((player_move, limits))
    }
}
