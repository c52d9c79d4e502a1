//! The engine requests that neither play nor analyse: best-move hints, setting and syncing the
//! engine's position, and raw UCI lines (the operator's).

use std::time::Duration;

use actix::{fut::ActorFutureExt, AsyncContext, Context, WrapFuture};
use chessd_core::{game::Game, FenMode, Position};
use chessd_protocol::uci::GoLimits;

use crate::{
    engine::{
        policy::{self, AllowedCommand, EngineCaps},
        EngineError,
    },
    game::{
        actor::GameActor,
        clock::Clock,
        command::{EngineReply, Reply},
        engine_state::{checked_move, finite_limits, Busy, Slot},
        replies::BestMoveReply,
        GameError,
    },
};

use super::busy_error;

impl GameActor {
    /// Replaces the game by `game` (as a FEN load does) for engine routes.
    pub(super) fn reset_game(&mut self, game: Game, ctx: &mut Context<Self>) {
        let clock = self.options.time_control.map(Clock::new);
        self.reinitialise(game.into(), clock, None, ctx);
    }

    pub(super) fn best_move(
        &mut self,
        limits: GoLimits,
        timeout: Option<Duration>,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let start = finite_limits(limits)
            .and_then(|limits| self.bounded(limits))
            .and_then(|limits| self.begin_search(Slot::Main, Busy::Hint, limits, None, timeout));
        let search = match start {
            Ok(s) => s,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        self.spawn_search(search, ctx, move |act, done, ctx| {
            act.end_search(done.generation, ctx);
            let answer = done.result.map_err(GameError::from).and_then(|r| {
                let (bestmove, san) = checked_move(&done.root, r.best.as_deref())?;
                Ok(EngineReply::BestMove(BestMoveReply {
                    bestmove,
                    san,
                    ponder: r.ponder,
                    info: r.info,
                }))
            });
            if let Err(e) = &answer {
                act.report_engine_error(done.generation, e);
            }
            act.answer(reply, answer);
        });
    }

    pub(super) fn set_position(
        &mut self,
        fen: Option<String>,
        moves: Vec<String>,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let game = (|| {
            let a = self.engine.attached.as_ref().ok_or(GameError::NoEngine)?;
            if a.busy.is_some() {
                return Err(busy_error("the engine is already searching for this game"));
            }
            let start = match &fen {
                Some(fen) => Position::from_fen(fen, FenMode::Strict)?,
                None => Position::startpos(),
            };
            let mut game = Game::with_policy(start, self.options.draw_policy);
            for text in &moves {
                game.play_uci(text)?;
            }
            Ok(game)
        })();
        match game {
            Ok(game) => {
                self.reset_game(game, ctx);
                self.sync_engine(reply, ctx);
            }
            Err(e) => {
                self.answer(reply, Err(e));
            }
        }
    }

    /// Sends the game's position to the engine and waits for `readyok` (an analysis restarts
    /// on the position instead).
    pub(super) fn sync_engine(&mut self, reply: Reply<EngineReply>, ctx: &mut Context<Self>) {
        let snapshot_reply = |act: &GameActor| EngineReply::Snapshot(Box::new(act.snapshot()));
        if self
            .engine
            .attached
            .as_ref()
            .is_some_and(|a| a.analysis.is_some())
        {
            self.after_game_change(ctx);
            self.engine_turn(ctx);
            self.answer(reply, Ok(snapshot_reply(self)));
            return;
        }
        let checked = self.check_attached_can_play().and_then(|()| {
            let position = self.position_spec()?;
            Ok((position, *self.game.chess()?.position()))
        });
        let (position, root) = match checked {
            Ok(p) => p,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        let a = match self.engine.attached() {
            Ok(a) => a,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        if a.busy.is_some() {
            self.answer(
                reply,
                Err(busy_error("the engine is already searching for this game")),
            );
            return;
        }
        a.busy = Some(Busy::Sync);
        a.root = root;
        let generation = a.generation;
        let sync = a.engine.sync(Some(position));
        ctx.spawn(sync.into_actor(self).map(move |result, act, ctx| {
            act.end_search(generation, ctx);
            let answer = match result {
                Ok(()) => Ok(snapshot_reply(act)),
                Err(e) => {
                    let e = GameError::from(e);
                    act.report_engine_error(generation, &e);
                    Err(e)
                }
            };
            act.answer(reply, answer);
        }));
    }

    pub(super) fn raw_command(
        &mut self,
        line: String,
        wait: bool,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let checked = (|| {
            let a = self.engine.attached.as_ref().ok_or(GameError::NoEngine)?;
            let caps = EngineCaps {
                max_hash_mb: a.config.max_hash_mb,
                max_threads: a.config.max_threads,
            };
            let command = policy::check_raw_command(&line, &a.engine.identity().options, caps)
                .map_err(|e| EngineError::CommandRefused(e.to_string()))?;
            if let AllowedCommand::Go(limits) = &command {
                self.check_searchmoves(&limits.searchmoves)?;
            }
            Ok((a.engine.clone(), command.to_string()))
        })();
        let (engine, line) = match checked {
            Ok(c) => c,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        if wait {
            ctx.spawn(engine.send(line).into_actor(self).map(|result, act, _| {
                act.answer(
                    reply,
                    result.map(|()| EngineReply::Done).map_err(Into::into),
                );
            }));
        } else {
            self.answer(
                reply,
                engine
                    .cast(line)
                    .map(|()| EngineReply::Done)
                    .map_err(Into::into),
            );
        }
    }
}
