//! Attaching and detaching a game's engines (the engine and the rival of an engine match), and
//! giving them back when the game is over.

use std::collections::BTreeMap;

use actix::{fut::ActorFutureExt, AsyncContext, Context, WrapFuture};
use chessd_core::{game::Game, FenMode, Position};

use crate::admission::EngineRole;
use crate::game::actor::GameActor;
use crate::game::{
    command::{EngineReply, Reply},
    engine_state::{check_can_play, Attached, Opponent, Rival},
    engines::StartedEngine,
    events::EventKind,
    GameError,
};

use super::{busy_error, EngineOutput};

impl GameActor {
    /// Attaches a started engine (replacing any other), as the game's opponent if given
    /// (`wrong_variant` for a Chess 2 game: no engine plays it).
    pub(in crate::game::actor) fn install_engine(
        &mut self,
        started: StartedEngine,
        opponent: Option<Opponent>,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let root = *self.game.chess()?.position();
        if let Some(old) = self.engine.attached.take() {
            self.publish_transient(EventKind::EngineDetached { name: old.name });
        }
        let attached = self.attachment(started, root, ctx);
        let (name, id_name) = (
            attached.name.clone(),
            attached.engine.identity().name.clone(),
        );
        self.engine.attached = Some(Box::new(attached));
        if let Some(opponent) = opponent {
            self.engine.seat(opponent.plays, &name);
            self.engine.opponent = Some(Box::new(opponent));
            if let Some(a) = self.engine.attached.as_ref() {
                // UCI: a GUI that will ponder says so with the engine's `Ponder` option.
                if a.config.ponder && a.engine.identity().option("Ponder").is_some() {
                    let _ = a.engine.cast("setoption name Ponder value true".into());
                }
            }
        }
        self.publish_transient(EventKind::EngineAttached { name, id_name });
        self.engine_turn(ctx);
        Ok(())
    }

    /// Attaches a started engine as the rival: the engine playing the other side of a game
    /// two engines play (it never ponders: both engines would think on each other's time).
    pub(in crate::game::actor) fn install_rival(
        &mut self,
        started: StartedEngine,
        opponent: Opponent,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        let root = *self.game.chess()?.position();
        let attached = self.attachment(started, root, ctx);
        let (name, id_name) = (
            attached.name.clone(),
            attached.engine.identity().name.clone(),
        );
        self.engine.seat(opponent.plays, &name);
        self.engine.rival = Some(Box::new(Rival { attached, opponent }));
        self.publish_transient(EventKind::EngineAttached { name, id_name });
        self.engine_turn(ctx);
        Ok(())
    }

    /// A started engine as a new attachment, its output streamed to the actor.
    pub(super) fn attachment(
        &mut self,
        started: StartedEngine,
        root: Position,
        ctx: &mut Context<Self>,
    ) -> Attached {
        self.engine.next_engine += 1;
        let generation = self.engine.next_engine;
        let events = futures_util::stream::unfold(started.events, move |mut rx| async move {
            rx.recv().await.map(|e| (EngineOutput(generation, e), rx))
        });
        ctx.add_stream(events);
        Attached {
            name: started.name,
            config: started.config,
            engine: started.engine,
            generation,
            busy: None,
            analysis: None,
            root,
            lines: BTreeMap::new(),
            pondering: None,
            _permit: started.permit,
        }
    }

    /// Starts the configured engine and attaches it when it is ready; the answer waits for
    /// the engine's handshake.
    pub(super) fn attach_engine(
        &mut self,
        client: crate::admission::ClientKey,
        name: String,
        fen: Option<String>,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        if self.engine.locks_game() {
            self.answer(
                reply,
                Err(busy_error("the engine is choosing a move for this game")),
            );
            return;
        }
        if self.game.is_over() && fen.is_none() {
            // A finished game's engine would only hold a process: analysis starts its own.
            self.answer(
                reply,
                Err(GameError::Finished(
                    "the game is over: to analyse it, POST /v1/games/{id}/engine/analysis with \
                     {\"engine\": name} (the engine is started for the analysis and released \
                     when it ends)"
                        .into(),
                )),
            );
            return;
        }
        // A bad FEN is refused before anything is started.
        let start = match fen
            .as_deref()
            .map(|f| Position::from_fen(f, FenMode::Strict))
        {
            Some(Err(e)) => {
                self.answer(reply, Err(e.into()));
                return;
            }
            Some(Ok(pos)) => Some(pos),
            None => None,
        };
        let factory = self.env.engines.clone();
        let game = self.id;
        let starting = async move {
            factory
                .start(&client, &name, game, EngineRole::Attached)
                .await
        };
        ctx.spawn(starting.into_actor(self).map(move |started, act, ctx| {
            let answer = started.and_then(|started| {
                if act.engine.locks_game() {
                    return Err(busy_error("the engine is choosing a move for this game"));
                }
                let start_of_game = match &start {
                    Some(pos) => pos,
                    None => act.game.chess()?.start_position(),
                };
                check_can_play(&started.name, started.engine.identity(), start_of_game)?;
                if let Some(pos) = start {
                    act.reset_game(Game::with_policy(pos, act.options.draw_policy), ctx);
                }
                act.install_engine(started, None, ctx)?;
                act.engine.view().map(EngineReply::View)
            });
            act.answer(reply, answer);
        }));
    }

    pub(super) fn detach_engine(&mut self) -> Result<(), GameError> {
        let old = self.engine.attached.take().ok_or(GameError::NoEngine)?;
        // Dropping the handle quits the engine (a running search fails with engine_died).
        self.publish_transient(EventKind::EngineDetached { name: old.name });
        Ok(())
    }

    /// A finished game needs no engine: once the game is over and its engine idle, the engine
    /// is released (its process ends and its place in the engine-session counts is given back),
    /// so finished games against the computer do not keep a process each.
    pub(in crate::game::actor) fn release_engine_if_over(&mut self) {
        if !self.game.is_over() {
            return;
        }
        if let Some(a) = self.engine.attached.as_mut() {
            // A ponder search has nothing to wait for any more.
            if a.pondering.as_ref().is_some_and(|p| !p.hit) {
                a.pondering = None;
                a.busy = None;
            }
        }
        // A move no longer wanted (the game ended while its engine chose one: a resignation, a
        // draw, a flag): the search is told to stop, so that its session is given back at once
        // rather than when its time runs out. Its answer then comes back here.
        let searching = [
            self.engine.attached.as_deref(),
            self.engine.rival.as_ref().map(|r| &r.attached),
        ];
        for a in searching.into_iter().flatten() {
            if matches!(a.busy, Some(crate::game::engine_state::Busy::Move)) {
                let engine = a.engine.clone();
                actix::spawn(async move {
                    let _ = engine.stop().await;
                });
            }
        }
        if self.engine.is_idle() {
            if let Some(old) = self.engine.attached.take() {
                self.publish_transient(EventKind::EngineDetached { name: old.name });
            }
        }
        if self
            .engine
            .rival
            .as_ref()
            .is_some_and(|r| r.attached.busy.is_none())
        {
            if let Some(old) = self.engine.rival.take() {
                self.publish_transient(EventKind::EngineDetached {
                    name: old.attached.name,
                });
            }
        }
    }
}
