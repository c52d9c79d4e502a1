//! The game actor's engine work: attach/detach, best-move hints, engine moves (on request and
//! as an automatic opponent), position set/sync, raw commands and analysis, over the plain
//! [`EngineState`](crate::game::engine_state::EngineState) the actor owns.
//!
//! The actor never waits on the engine: a search is a future spawned in the actor's context,
//! answering its request when it ends, so the game keeps answering every other request while
//! the engine thinks. One search at a time per game: a second request gets `engine_busy` (no
//! queue). While the engine chooses a move for the game (`play` or the opponent), moves and
//! re-initialisations of the game are refused with `engine_busy`, so nothing can interleave
//! between the player's move and the engine's reply; a hint or an analysis does not lock the
//! game. Engine output reaches the actor as a stream and is published to WebSocket subscribers
//! as transient events (not versioned, not replayed).

use std::{collections::BTreeMap, time::Duration};

use actix::{fut::ActorFutureExt, AsyncContext, Context, StreamHandler, WrapFuture};
use chessd_core::{game::Game, Color, FenMode, Position};

use super::GameActor;
use crate::{
    game::{
        clock::Clock,
        command::{Caller, EngineAction, EngineReply, MoveInput, Reply},
        engine_state::{
            allowance, checked_move, finite_limits, Analysis, AnalysisReport, AnalysisStarted,
            Attached, BestMoveReply, Busy, Opponent, PlayReply, DEFAULT_OPPONENT_MOVETIME_MS,
            MAX_EVENT_LINE,
        },
        engines::StartedEngine,
        events::{EngineInfoView, EventKind},
        GameError,
    },
    uci::{
        engine::{Engine, EngineEvent, PositionSpec, SearchRequest, SearchResult},
        policy::{self, AllowedCommand, EngineCaps},
        protocol::{EngineLine, GoLimits, Info, StartPosition},
        EngineError,
    },
};

/// An engine event tagged with the attachment it came from.
pub struct EngineOutput(u64, EngineEvent);

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
            } => self.engine_play(caller, player_move, limits, reply, ctx),
            EngineAction::SetPosition { fen, moves } => self.set_position(fen, moves, reply, ctx),
            EngineAction::Sync => self.sync_engine(reply, ctx),
            EngineAction::Raw { line, wait } => self.raw_command(line, wait, reply, ctx),
            EngineAction::StartAnalysis { multipv, limits } => {
                let started = self
                    .start_analysis(multipv, limits, ctx)
                    .map(EngineReply::AnalysisStarted);
                self.answer(reply, started);
            }
            EngineAction::StopAnalysis => self.stop_analysis(reply, ctx),
        }
    }

    /// Checks that every move of a `searchmoves` list is legal in the current position.
    fn check_searchmoves(&self, moves: &[String]) -> Result<(), GameError> {
        let pos = self.game.position();
        for text in moves {
            pos.parse_uci(text).map_err(|e| {
                GameError::invalid(format!("searchmoves: {text} is not a legal move here: {e}"))
            })?;
        }
        Ok(())
    }

    /// The position the engine is told about: start and the whole history.
    fn position_spec(&self) -> PositionSpec {
        let start = self.game.start_position();
        let chess960 = start.is_chess960();
        let fen = start.fen();
        let start = if !chess960 && fen == chessd_core::fen::START_FEN {
            StartPosition::StartPos
        } else {
            StartPosition::Fen(fen)
        };
        PositionSpec {
            start,
            moves: self.game.history().iter().map(|p| p.uci.clone()).collect(),
            chess960,
        }
    }

    /// Publishes an engine event to subscribers without versioning or keeping it. While events
    /// wait for their commit it waits behind them, so that nobody hears the engine think about
    /// a move before the move itself (nor at all, if its write fails).
    fn publish_transient(&mut self, event: EventKind) {
        if self.subscribers.is_empty() {
            return;
        }
        let frame = self.log.transient(&event);
        if self.held.is_empty() {
            self.broadcast(frame);
        } else {
            self.held.push_back(frame);
        }
    }

    /// Reports a failure of attachment `generation` to subscribers. A dead engine is detached
    /// at once (its session's `Died` event, which may arrive later, is then ignored).
    fn report_engine_error(&mut self, generation: u64, error: &GameError) {
        if let GameError::Engine(e) = error {
            if e.is_died() {
                let closed = self
                    .engine
                    .current(generation)
                    .is_some_and(|a| a.engine.is_closed());
                if closed {
                    self.engine_gone(e.clone());
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

    /// Forgets the attached engine, which died, and tells subscribers.
    fn engine_gone(&mut self, error: EngineError) {
        if let Some(a) = self.engine.attached.take() {
            self.publish_transient(EventKind::EngineError {
                code: error.code().to_string(),
                message: error.to_string(),
            });
            self.publish_transient(EventKind::EngineDetached { name: a.name });
        }
    }

    /// Attaches a started engine (replacing any other), as the game's opponent if given.
    pub(super) fn install_engine(
        &mut self,
        started: StartedEngine,
        opponent: Option<Opponent>,
        ctx: &mut Context<Self>,
    ) {
        self.engine.next_engine += 1;
        let generation = self.engine.next_engine;
        let events = futures_util::stream::unfold(started.events, move |mut rx| async move {
            rx.recv().await.map(|e| (EngineOutput(generation, e), rx))
        });
        ctx.add_stream(events);
        let id_name = started.engine.identity().name.clone();
        if let Some(old) = self.engine.attached.take() {
            self.publish_transient(EventKind::EngineDetached { name: old.name });
        }
        let name = started.name;
        self.engine.attached = Some(Attached {
            name: name.clone(),
            config: started.config,
            engine: started.engine,
            generation,
            busy: None,
            analysis: None,
            root: *self.game.position(),
            lines: BTreeMap::new(),
            _permit: started.permit,
        });
        if let Some(opponent) = opponent {
            self.engine.seat = Some((opponent.plays, name.clone()));
            self.engine.opponent = Some(opponent);
        }
        self.publish_transient(EventKind::EngineAttached { name, id_name });
        self.engine_turn(ctx);
    }

    /// Starts the configured engine and attaches it when it is ready; the answer waits for
    /// the engine's handshake.
    fn attach_engine(
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
        let starting = async move { factory.start(&client, &name).await };
        ctx.spawn(starting.into_actor(self).map(move |started, act, ctx| {
            let answer = started.and_then(|started| {
                if act.engine.locks_game() {
                    return Err(busy_error("the engine is choosing a move for this game"));
                }
                if let Some(pos) = start {
                    act.reset_game(Game::with_policy(pos, act.options.draw_policy), ctx);
                }
                act.install_engine(started, None, ctx);
                act.engine.view().map(EngineReply::View)
            });
            act.answer(reply, answer);
        }));
    }

    fn detach_engine(&mut self) -> Result<(), GameError> {
        let old = self.engine.attached.take().ok_or(GameError::NoEngine)?;
        // Dropping the handle quits the engine (a running search fails with engine_died).
        self.publish_transient(EventKind::EngineDetached { name: old.name });
        Ok(())
    }

    /// Claims the engine for a search of the current position.
    fn begin_search(
        &mut self,
        busy: Busy,
        limits: GoLimits,
        multipv: Option<u32>,
        timeout: Option<Duration>,
    ) -> Result<(Engine, SearchRequest, u64), GameError> {
        if self.game.is_over() {
            return Err(GameError::over(self.game.status()));
        }
        let position = self.position_spec();
        let root = *self.game.position();
        let white = root.turn() == Color::White;
        let a = self.engine.attached()?;
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
        Ok((a.engine.clone(), request, a.generation))
    }

    /// Releases the engine after a search of attachment `generation`.
    fn end_search(&mut self, generation: u64, ctx: &mut Context<Self>) {
        if let Some(a) = self.engine.current(generation) {
            a.busy = None;
        }
        self.engine_turn(ctx);
        self.release_engine_if_over();
    }

    /// A finished game needs no engine: once the game is over and its engine idle, the engine
    /// is released (its process ends and its place in the engine-session counts is given back),
    /// so finished games against the computer do not keep a process each.
    pub(super) fn release_engine_if_over(&mut self) {
        if self.game.is_over() && self.engine.is_idle() {
            if let Some(old) = self.engine.attached.take() {
                self.publish_transient(EventKind::EngineDetached { name: old.name });
            }
        }
    }

    /// Limits of the opponent's search now.
    fn opponent_limits(&self, opponent: &Opponent) -> GoLimits {
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

    /// Lets the opponent engine move when it is its turn and it is free.
    pub(super) fn engine_turn(&mut self, ctx: &mut Context<Self>) {
        let Some(opponent) = self.engine.opponent.clone() else {
            return;
        };
        if !self.engine.is_idle()
            || self.game.is_over()
            || self.game.position().turn() != opponent.plays
        {
            return;
        }
        let limits = self.opponent_limits(&opponent);
        let Ok((engine, request, generation)) = self.begin_search(Busy::Move, limits, None, None)
        else {
            return;
        };
        let root = *self.game.position();
        let search = engine.search(request);
        ctx.spawn(search.into_actor(self).map(move |result, act, ctx| {
            if let Some(a) = act.engine.current(generation) {
                a.busy = None;
            }
            match act.apply_engine_move(generation, &root, result, ctx) {
                Ok(_) => act.engine_turn(ctx),
                Err(e) => act.report_engine_error(generation, &e),
            }
        }));
    }

    /// Plays the engine's move from `result` on the game, which must still be at `root`.
    fn apply_engine_move(
        &mut self,
        generation: u64,
        root: &Position,
        result: Result<SearchResult, EngineError>,
        ctx: &mut Context<Self>,
    ) -> Result<chessd_core::game::PlayedMove, GameError> {
        let result = result?;
        let (uci, _) = checked_move(root, result.best.as_deref())?;
        if self.engine.attached.as_ref().map(|a| a.generation) != Some(generation) {
            return Err(GameError::NoEngine);
        }
        if self.game.position() != root {
            return Err(busy_error("the game changed while the engine was thinking"));
        }
        let played = self.play_move(Caller::Admin, MoveInput::Uci(uci), ctx)?;
        self.after_game_change(ctx);
        Ok(played)
    }

    /// Follows a change of the game: a running analysis restarts on the new position (or stops
    /// when the game is over).
    pub(super) fn after_game_change(&mut self, ctx: &mut Context<Self>) {
        let Some(analysis) = self
            .engine
            .attached
            .as_ref()
            .and_then(|a| a.analysis.clone())
        else {
            return;
        };
        if self.game.is_over() {
            if let Some(a) = self.engine.attached.as_mut() {
                a.analysis = None;
                let engine = a.engine.clone();
                ctx.spawn(
                    async move {
                        let _ = engine.stop().await;
                    }
                    .into_actor(self),
                );
            }
            return;
        }
        let _ = self.run_analysis(analysis.limits, analysis.multipv, ctx);
    }

    /// Starts an analysis search (replacing a running one).
    fn run_analysis(
        &mut self,
        limits: GoLimits,
        multipv: u32,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        if self.game.is_over() {
            return Err(GameError::over(self.game.status()));
        }
        let position = self.position_spec();
        let root = *self.game.position();
        let white = root.turn() == Color::White;
        self.engine.next_analysis += 1;
        let seq = self.engine.next_analysis;
        let a = self.engine.attached()?;
        if a.busy.is_some() {
            return Err(busy_error("the engine is already searching for this game"));
        }
        a.analysis = Some(Analysis {
            seq,
            limits: limits.clone(),
            multipv,
        });
        a.root = root;
        a.lines.clear();
        let request = SearchRequest {
            position,
            timeout: allowance(&a.config, &limits, white, None),
            limits,
            multipv: Some(multipv),
        };
        let generation = a.generation;
        let search = a.engine.search(request);
        ctx.spawn(search.into_actor(self).map(move |result, act, ctx| {
            let Some(a) = act.engine.current(generation) else {
                return;
            };
            if a.analysis.as_ref().is_some_and(|an| an.seq == seq) {
                // A finite analysis ended by itself.
                a.analysis = None;
                if let Err(e) = result {
                    act.report_engine_error(generation, &e.into());
                }
                act.engine_turn(ctx);
            }
        }));
        Ok(())
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
            EngineEvent::Died(error) => self.engine_gone(error),
        }
    }

    /// Replaces the game by `game` (as a FEN load does) for engine routes.
    fn reset_game(&mut self, game: Game, ctx: &mut Context<Self>) {
        let clock = self.options.time_control.map(Clock::new);
        self.reinitialise(game, clock, None, ctx);
    }

    fn best_move(
        &mut self,
        limits: GoLimits,
        timeout: Option<Duration>,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let start = finite_limits(limits)
            .and_then(|limits| self.begin_search(Busy::Hint, limits, None, timeout));
        let (engine, request, generation) = match start {
            Ok(s) => s,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        let root = *self.game.position();
        ctx.spawn(
            engine
                .search(request)
                .into_actor(self)
                .map(move |result, act, ctx| {
                    act.end_search(generation, ctx);
                    let answer = result.map_err(GameError::from).and_then(|r| {
                        let (bestmove, san) = checked_move(&root, r.best.as_deref())?;
                        Ok(EngineReply::BestMove(BestMoveReply {
                            bestmove,
                            san,
                            ponder: r.ponder,
                            info: r.info,
                        }))
                    });
                    if let Err(e) = &answer {
                        act.report_engine_error(generation, e);
                    }
                    act.answer(reply, answer);
                }),
        );
    }

    fn engine_play(
        &mut self,
        caller: Caller,
        player_move: Option<MoveInput>,
        limits: GoLimits,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let prepared = (|| {
            let limits = finite_limits(limits)?;
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
            let player_move = match player_move {
                Some(input) => {
                    let played = self.play_move(caller, input, ctx)?;
                    self.after_game_change(ctx);
                    Some(played)
                }
                None => None,
            };
            Ok((player_move, limits))
        })();
        let (player_move, limits) = match prepared {
            Ok(p) => p,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        if self.game.is_over() {
            // The player's move ended the game: nothing for the engine to do.
            self.release_engine_if_over();
            self.answer(
                reply,
                Ok(EngineReply::Play(PlayReply {
                    player_move,
                    engine_move: None,
                    snapshot: self.snapshot(),
                })),
            );
            return;
        }
        let (engine, request, generation) = match self.begin_search(Busy::Move, limits, None, None)
        {
            Ok(s) => s,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        let root = *self.game.position();
        ctx.spawn(
            engine
                .search(request)
                .into_actor(self)
                .map(move |result, act, ctx| {
                    if let Some(a) = act.engine.current(generation) {
                        a.busy = None;
                    }
                    let answer = match act.apply_engine_move(generation, &root, result, ctx) {
                        Ok(mv) => Ok(EngineReply::Play(PlayReply {
                            player_move,
                            engine_move: Some(mv),
                            snapshot: act.snapshot(),
                        })),
                        Err(e) => {
                            act.report_engine_error(generation, &e);
                            Err(e)
                        }
                    };
                    act.engine_turn(ctx);
                    act.answer(reply, answer);
                }),
        );
    }

    fn set_position(
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
    fn sync_engine(&mut self, reply: Reply<EngineReply>, ctx: &mut Context<Self>) {
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
        let position = self.position_spec();
        let root = *self.game.position();
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

    fn raw_command(
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

    fn start_analysis(
        &mut self,
        multipv: Option<u32>,
        limits: Option<GoLimits>,
        ctx: &mut Context<Self>,
    ) -> Result<AnalysisStarted, GameError> {
        if self.engine.opponent.is_some() {
            return Err(busy_error(
                "the engine plays in this game; it cannot analyse it too",
            ));
        }
        let a = self.engine.attached.as_ref().ok_or(GameError::NoEngine)?;
        let multipv = multipv.unwrap_or(1);
        let max = match a.engine.identity().option("MultiPV") {
            Some(o) => o.max.unwrap_or(1).clamp(1, 500) as u32,
            None => 1,
        };
        if multipv == 0 || multipv > max {
            return Err(GameError::invalid(format!(
                "multipv must be 1 to {max} for this engine"
            )));
        }
        let limits = match limits {
            Some(l) if !l.is_empty() => l,
            _ => GoLimits {
                infinite: true,
                ..GoLimits::default()
            },
        };
        self.run_analysis(limits.clone(), multipv, ctx)?;
        Ok(AnalysisStarted {
            analysing: true,
            multipv,
            go: limits,
        })
    }

    fn stop_analysis(&mut self, reply: Reply<EngineReply>, ctx: &mut Context<Self>) {
        let started = self.engine.attached().map(|a| {
            let running = a.analysis.take().is_some();
            (running, a.engine.clone(), a.root, a.generation)
        });
        let (running, engine, root, generation) = match started {
            Ok(s) => s,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        if !running {
            self.answer(
                reply,
                Ok(EngineReply::AnalysisReport(AnalysisReport {
                    bestmove: None,
                    san: None,
                    lines: Vec::new(),
                })),
            );
            return;
        }
        ctx.spawn(engine.stop().into_actor(self).map(move |result, act, ctx| {
            let stored = act
                .engine
                .current(generation)
                .map(|a| std::mem::take(&mut a.lines))
                .unwrap_or_default();
            act.engine_turn(ctx);
            let answer = result.map_err(GameError::from).map(|result| {
                let result = result.unwrap_or_default();
                let lines: Vec<Info> = if result.lines.is_empty() {
                    stored.into_values().collect()
                } else {
                    result.lines.clone()
                };
                let san = result
                    .best
                    .as_deref()
                    .and_then(|b| root.parse_uci(b).ok())
                    .map(|m| root.san(m));
                EngineReply::AnalysisReport(AnalysisReport {
                    bestmove: result.best,
                    san,
                    lines: lines
                        .iter()
                        .map(|i| EngineInfoView::new(i, &root))
                        .collect(),
                })
            });
            act.answer(reply, answer);
        }));
    }
}

impl StreamHandler<EngineOutput> for GameActor {
    fn handle(&mut self, item: EngineOutput, _ctx: &mut Context<Self>) {
        self.on_engine_event(item.0, item.1);
    }

    /// The end of an engine's events is not the end of the game.
    fn finished(&mut self, _ctx: &mut Context<Self>) {}
}
