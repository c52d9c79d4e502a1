//! The game actor's engine work: attach/detach, best-move hints, engine moves (on request and
//! as an automatic opponent), position set/sync, raw commands and analysis, over the plain
//! [`EngineState`](crate::game::engine_state::EngineState) the actor owns. One file a job:
//! `attach.rs`, `opponent.rs` (engines that play), `analysis.rs`, `commands.rs` (hints, position
//! set and sync, raw lines); this file dispatches the requests and holds what they share.
//!
//! The actor never waits on the engine: a search is a future spawned in the actor's context,
//! answering its request when it ends, so the game keeps answering every other request while
//! the engine thinks. One search at a time per game: a second request gets `engine_busy` (no
//! queue). While the engine chooses a move for the game (`play` or the opponent), moves and
//! re-initialisations of the game are refused with `engine_busy`, so nothing can interleave
//! between the player's move and the engine's reply; a hint or an analysis does not lock the
//! game. Engine output reaches the actor as a stream and is published to WebSocket subscribers
//! as transient events (not versioned, not replayed).

use std::time::Duration;

use actix::{ActorFutureExt, AsyncContext, Context, StreamHandler, WrapFuture};
use chessd_core::{Color, Position};
use chessd_protocol::uci::{EngineLine, GoLimits, StartPosition};

use super::GameActor;

use crate::{
    engine::{
        handle::{Engine, EngineEvent, PositionSpec, SearchRequest, SearchResult},
        EngineError,
    },
    game::{
        command::{EngineAction, EngineReply, Reply},
        engine_state::{allowance, bounded_limits, check_can_play, Busy, Slot, MAX_EVENT_LINE},
        events::EventKind,
        replies::EngineInfoView,
        secrets::Caller,
        GameError,
    },
};

mod analysis;
mod attach;
mod commands;
mod opponent;

/// A search claimed for an engine and not yet started: see [`GameActor::begin_search`].
struct BegunSearch {
    engine: Engine,
    request: SearchRequest,
    generation: u64,
    root: Position,
}

/// How a search ended, with what it searched: see [`GameActor::spawn_search`].
struct SearchOutcome {
    /// The engine's answer.
    result: Result<SearchResult, EngineError>,
    /// The position searched.
    root: Position,
    /// The attachment that searched.
    generation: u64,
}

/// An engine event tagged with the attachment it came from.
pub(crate) struct EngineOutput(u64, EngineEvent);

fn busy_error(message: &str) -> GameError {
    GameError::busy(message)
}

impl GameActor {
    /// Handles one engine action (its need is already checked).
    pub(super) fn handle_engine(
        &mut self,
        caller: Caller,
        action: EngineAction,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let guarded = matches!(action, EngineAction::Attach { .. } | EngineAction::Detach)
            || matches!(
                action,
                EngineAction::Play {
                    player_move: None,
                    ..
                }
            );
        if guarded {
            if let Err(e) = self.guard_opponent(caller) {
                self.answer(reply, Err(e));
                return;
            }
        }
        // UCI and XBoard engines play standard chess and Chess960 only.
        if let Err(e) = self.game.chess() {
            self.answer(reply, Err(e));
            return;
        }
        match action {
            EngineAction::Attach { client, name, fen } => {
                self.attach_engine(client, name, fen, reply, ctx)
            }
            EngineAction::View => {
                self.answer(reply, self.engine.view().map(EngineReply::View));
            }
            EngineAction::Detach => {
                let done = self.detach_engine().map(|()| EngineReply::Done);
                self.answer(reply, done);
            }
            EngineAction::BestMove { limits, timeout } => {
                self.best_move(limits, timeout, reply, ctx)
            }
            EngineAction::Play {
                player_move,
                limits,
                conditions,
            } => self.engine_play(caller, player_move, limits, conditions, reply, ctx),
            EngineAction::SetPosition { fen, moves } => self.set_position(fen, moves, reply, ctx),
            EngineAction::Sync => self.sync_engine(reply, ctx),
            EngineAction::Raw { line, wait } => self.raw_command(line, wait, reply, ctx),
            EngineAction::StartAnalysis(request) => self.start_analysis(request, reply, ctx),
            EngineAction::StopAnalysis => self.stop_analysis(reply, ctx),
        }
    }

    /// While an engine opponent plays an unfinished game, only the admin may replace or detach
    /// it, or have it choose a move without one of the player's (a seat would otherwise take
    /// its opponent away, or have it play the seat's own move).
    fn guard_opponent(&self, caller: Caller) -> Result<(), GameError> {
        if self.engine.has_opponent() && !self.game.is_over() && caller != Caller::Admin {
            return Err(GameError::forbidden(
                "this game's engine opponent can be changed, detached or asked to move only by \
                 the game's admin; a player moves with POST /v1/games/{id}/move (or play with a \
                 move) and the engine answers by itself",
            ));
        }
        Ok(())
    }

    /// Refuses a game the attached engine (or the rival) cannot play (see
    /// [`check_can_play`]).
    fn check_attached_can_play(&self) -> Result<(), GameError> {
        let start = self.game.chess()?.start_position();
        let rival = self.engine.rival.as_ref().map(|r| &r.attached);
        for a in self.engine.attached.as_deref().into_iter().chain(rival) {
            check_can_play(&a.name, a.engine.identity(), start)?;
        }
        Ok(())
    }

    /// The position after `ply` plies of the game (at most the game's length) and its spec.
    fn position_at(&self, ply: usize) -> Result<(PositionSpec, Position), GameError> {
        let mut spec = self.position_spec()?;
        let game = self.game.chess()?;
        let history = game.history();
        let ply = ply.min(history.len());
        spec.moves.truncate(ply);
        let mut root = *game.start_position();
        for &mv in &history[..ply] {
            root = root.after(mv);
        }
        Ok((spec, root))
    }

    /// Checks that every move of a `searchmoves` list is legal in the current position.
    fn check_searchmoves(&self, moves: &[String]) -> Result<(), GameError> {
        self.check_searchmoves_in(self.game.chess()?.position(), moves)
    }

    /// Checks that every move of a `searchmoves` list is legal in `pos`.
    /// A move that is not legal there is `illegal_move`, as a move would be.
    fn check_searchmoves_in(&self, pos: &Position, moves: &[String]) -> Result<(), GameError> {
        for text in moves {
            pos.parse_uci(text)
                .map_err(chessd_core::game::GameError::IllegalUci)?;
        }
        Ok(())
    }

    /// The position the engine is told about: start and the whole history.
    pub(super) fn position_spec(&self) -> Result<PositionSpec, GameError> {
        let game = self.game.chess()?;
        let start = game.start_position();
        let chess960 = start.is_chess960();
        let fen = start.fen();
        let start = if !chess960 && fen == chessd_core::fen::START_FEN {
            StartPosition::StartPos
        } else {
            StartPosition::Fen(fen)
        };
        Ok(PositionSpec {
            start,
            moves: game.uci_history(),
            chess960,
        })
    }

    /// Publishes an engine event to subscribers without versioning or keeping it. While events
    /// wait for their commit it waits behind them, so that nobody hears the engine think about
    /// a move before the move itself (nor at all, if its write fails).
    fn publish_transient(&mut self, event: EventKind) {
        if self.subscribers.is_empty() {
            return;
        }
        let frame = self.log.transient(&event);
        match &mut self.waiting {
            Some(waiting) if !waiting.held.is_empty() => waiting.held.push_back(frame),
            _ => self.broadcast(frame),
        }
    }

    /// Reports a failure of attachment `generation` to subscribers. A dead engine is detached
    /// at once (its session's `Died` event, which may arrive later, is then ignored).
    pub(super) fn report_engine_error(&mut self, generation: u64, error: &GameError) {
        if let GameError::Engine(e) = error {
            if e.is_died() {
                let closed = self
                    .engine
                    .current(generation)
                    .is_some_and(|a| a.engine.is_closed());
                if closed {
                    self.engine_gone(generation, e.clone());
                }
                return;
            }
        }
        let code = match error {
            GameError::Engine(e) => e.code(),
            GameError::EngineBusy(_) => "engine_busy",
            GameError::NoEngine => "no_engine",
            _ => "internal",
        };
        self.publish_transient(EventKind::EngineError {
            code: code.to_string(),
            message: error.to_string(),
        });
    }

    /// Forgets the engine of attachment `generation` (the attached one or the rival), which
    /// died, and tells subscribers.
    fn engine_gone(&mut self, generation: u64, error: EngineError) {
        let gone = if self
            .engine
            .rival
            .as_ref()
            .is_some_and(|r| r.attached.generation == generation)
        {
            self.engine.rival.take().map(|r| Box::new(r.attached))
        } else if self.engine.current(generation).is_some() {
            self.engine.attached.take()
        } else {
            None
        };
        if let Some(a) = gone {
            self.publish_transient(EventKind::EngineError {
                code: error.code().to_string(),
                message: error.to_string(),
            });
            self.publish_transient(EventKind::EngineDetached { name: a.name });
        }
    }

    /// Claims the engine in `slot` for a search of the current position (run it with
    /// [`GameActor::spawn_search`]).
    fn begin_search(
        &mut self,
        slot: Slot,
        busy: Busy,
        limits: GoLimits,
        multipv: Option<u32>,
        timeout: Option<Duration>,
    ) -> Result<BegunSearch, GameError> {
        if self.game.is_over() {
            return Err(GameError::over(self.game.status()));
        }
        self.check_attached_can_play()?;
        self.check_searchmoves(&limits.searchmoves)?;
        let position = self.position_spec()?;
        let root = *self.game.chess()?.position();
        let white = root.turn() == Color::White;
        let a = self.engine.slot(slot).ok_or(GameError::NoEngine)?;
        if a.busy.is_some() {
            return Err(busy_error("the engine is already searching for this game"));
        }
        if a.analysis.is_some() {
            return Err(busy_error(
                "an analysis is running; stop it first (DELETE /v1/games/{id}/engine/analysis)",
            ));
        }
        a.busy = Some(busy);
        a.root = root;
        let request = SearchRequest {
            position,
            timeout: allowance(&a.config, &limits, white, timeout),
            limits,
            multipv,
        };
        Ok(BegunSearch {
            engine: a.engine.clone(),
            request,
            generation: a.generation,
            root,
        })
    }

    /// Runs a search [`GameActor::begin_search`] began: when it ends, its engine is free again
    /// and `then` gets the result with the searched position and the attachment's generation.
    /// The actor goes on answering other requests meanwhile.
    fn spawn_search<F>(&mut self, search: BegunSearch, ctx: &mut Context<Self>, then: F)
    where
        F: FnOnce(&mut GameActor, SearchOutcome, &mut Context<Self>) + 'static,
    {
        let BegunSearch {
            engine,
            request,
            generation,
            root,
        } = search;
        let searching = engine.search(request).into_actor(self);
        ctx.spawn(searching.map(move |result, act, ctx| {
            if let Some(a) = act.engine.current(generation) {
                a.busy = None;
            }
            let outcome = SearchOutcome {
                result,
                root,
                generation,
            };
            then(act, outcome, ctx);
        }));
    }

    /// Releases the engine after a search of attachment `generation`.
    fn end_search(&mut self, generation: u64, ctx: &mut Context<Self>) {
        if let Some(a) = self.engine.current(generation) {
            a.busy = None;
        }
        self.engine_turn(ctx);
        self.release_engine_if_over();
    }

    fn on_engine_event(&mut self, generation: u64, event: EngineEvent) {
        let Some(a) = self.engine.current(generation) else {
            return;
        };
        match event {
            EngineEvent::Line {
                parsed: EngineLine::Info(info),
                ..
            } if info.score.is_some() || !info.pv.is_empty() => {
                let view = EngineInfoView::new(&info, &a.root);
                if a.analysis.is_some() {
                    a.lines.insert(view.multipv, *info);
                }
                self.publish_transient(EventKind::EngineInfo(view));
            }
            EngineEvent::Line { mut raw, .. } => {
                if raw.len() > MAX_EVENT_LINE {
                    let mut cut = MAX_EVENT_LINE;
                    while !raw.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    raw.truncate(cut);
                }
                self.publish_transient(EventKind::EngineLine { line: raw });
            }
            // The opponent waits for a new engine; nothing else to do.
            EngineEvent::Died(error) => self.engine_gone(generation, error),
        }
    }

    /// `limits` a client gave, refused when they give a search more time than
    /// `engines.max_movetime_ms`.
    fn bounded(&self, limits: GoLimits) -> Result<GoLimits, GameError> {
        bounded_limits(&limits, self.env.engines.config().max_movetime_ms)?;
        Ok(limits)
    }
}

impl StreamHandler<EngineOutput> for GameActor {
    fn handle(&mut self, item: EngineOutput, _ctx: &mut Context<Self>) {
        self.on_engine_event(item.0, item.1);
    }

    /// The end of an engine's events is not the end of the game.
    fn finished(&mut self, _ctx: &mut Context<Self>) {}
}
