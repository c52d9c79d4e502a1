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
use chessd_core::{
    game::{Game, PlayedMove},
    Color, FenMode, Position,
};

use super::GameActor;
use crate::{
    game::{
        clock::Clock,
        command::{AnalysisRequest, EngineAction, EngineReply, MoveInput, Reply},
        engine_state::{
            allowance, bounded_limits, check_can_play, checked_limits, checked_move, finite_limits,
            Analysis, Attached, Busy, Opponent, Rival, Slot, DEFAULT_OPPONENT_MOVETIME_MS,
            MAX_EVENT_LINE,
        },
        engines::StartedEngine,
        events::EventKind,
        idempotency::{Conditions, KeyCheck, KeyScope},
        replies::{AnalysisReport, AnalysisStarted, BestMoveReply, EngineInfoView, PlayReply},
        secrets::Caller,
        GameError,
    },
    uci::{
        engine::{Engine, EngineEvent, Identity, PositionSpec, SearchRequest, SearchResult},
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

    /// The standard game engines work on. Engine requests for a Chess 2 game are refused
    /// before they reach the engine code ([`GameActor::handle_engine`]) and no engine is ever
    /// attached to one, so the empty placeholder is never what an engine sees.
    pub(super) fn chess_game(&self) -> &Game {
        static PLACEHOLDER: std::sync::LazyLock<Game> = std::sync::LazyLock::new(Game::default);
        self.game.chess().unwrap_or(&PLACEHOLDER)
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
        let rival = self.engine.rival.as_ref().map(|r| &r.attached);
        for a in self.engine.attached.iter().chain(rival) {
            check_can_play(
                &a.name,
                a.engine.identity(),
                self.chess_game().start_position(),
            )?;
        }
        Ok(())
    }

    /// The position after `ply` plies of the game (at most the game's length) and its spec.
    fn position_at(&self, ply: usize) -> (PositionSpec, Position) {
        let mut spec = self.position_spec();
        let history = self.chess_game().history();
        let ply = ply.min(history.len());
        spec.moves.truncate(ply);
        let mut root = *self.chess_game().start_position();
        for played in &history[..ply] {
            root = root.after(played.mv);
        }
        (spec, root)
    }

    /// Checks that every move of a `searchmoves` list is legal in the current position.
    fn check_searchmoves(&self, moves: &[String]) -> Result<(), GameError> {
        self.check_searchmoves_in(self.chess_game().position(), moves)
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
    pub(super) fn position_spec(&self) -> PositionSpec {
        let start = self.chess_game().start_position();
        let chess960 = start.is_chess960();
        let fen = start.fen();
        let start = if !chess960 && fen == chessd_core::fen::START_FEN {
            StartPosition::StartPos
        } else {
            StartPosition::Fen(fen)
        };
        PositionSpec {
            start,
            moves: self
                .chess_game()
                .history()
                .iter()
                .map(|p| p.uci.clone())
                .collect(),
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
            self.engine.rival.take().map(|r| r.attached)
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

    /// Attaches a started engine (replacing any other), as the game's opponent if given.
    pub(super) fn install_engine(
        &mut self,
        started: StartedEngine,
        opponent: Option<Opponent>,
        ctx: &mut Context<Self>,
    ) {
        if let Some(old) = self.engine.attached.take() {
            self.publish_transient(EventKind::EngineDetached { name: old.name });
        }
        let attached = self.attachment(started, ctx);
        let (name, id_name) = (
            attached.name.clone(),
            attached.engine.identity().name.clone(),
        );
        self.engine.attached = Some(attached);
        if let Some(opponent) = opponent {
            self.engine.seat(opponent.plays, &name);
            self.engine.opponent = Some(opponent);
            if let Some(a) = self.engine.attached.as_ref() {
                // UCI: a GUI that will ponder says so with the engine's `Ponder` option.
                if a.config.ponder && a.engine.identity().option("Ponder").is_some() {
                    let _ = a.engine.cast("setoption name Ponder value true".into());
                }
            }
        }
        self.publish_transient(EventKind::EngineAttached { name, id_name });
        self.engine_turn(ctx);
    }

    /// Attaches a started engine as the rival: the engine playing the other side of a game
    /// two engines play (it never ponders: both engines would think on each other's time).
    pub(super) fn install_rival(
        &mut self,
        started: StartedEngine,
        opponent: Opponent,
        ctx: &mut Context<Self>,
    ) {
        let attached = self.attachment(started, ctx);
        let (name, id_name) = (
            attached.name.clone(),
            attached.engine.identity().name.clone(),
        );
        self.engine.seat(opponent.plays, &name);
        self.engine.rival = Some(Rival { attached, opponent });
        self.publish_transient(EventKind::EngineAttached { name, id_name });
        self.engine_turn(ctx);
    }

    /// A started engine as a new attachment, its output streamed to the actor.
    fn attachment(&mut self, started: StartedEngine, ctx: &mut Context<Self>) -> Attached {
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
            root: *self.chess_game().position(),
            lines: BTreeMap::new(),
            pondering: None,
            _permit: started.permit,
        }
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
        let starting = async move { factory.start(&client, &name).await };
        ctx.spawn(starting.into_actor(self).map(move |started, act, ctx| {
            let answer = started.and_then(|started| {
                if act.engine.locks_game() {
                    return Err(busy_error("the engine is choosing a move for this game"));
                }
                let start_of_game = start.as_ref().unwrap_or(act.chess_game().start_position());
                check_can_play(&started.name, started.engine.identity(), start_of_game)?;
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

    /// Claims the engine in `slot` for a search of the current position.
    fn begin_search(
        &mut self,
        slot: Slot,
        busy: Busy,
        limits: GoLimits,
        multipv: Option<u32>,
        timeout: Option<Duration>,
    ) -> Result<(Engine, SearchRequest, u64), GameError> {
        if self.game.is_over() {
            return Err(GameError::over(self.game.status()));
        }
        self.check_attached_can_play()?;
        self.check_searchmoves(&limits.searchmoves)?;
        let position = self.position_spec();
        let root = *self.chess_game().position();
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

    /// Limits of the opponent's search now.
    pub(super) fn opponent_limits(&self, opponent: &Opponent) -> GoLimits {
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
    pub(super) fn engine_turn(&mut self, ctx: &mut Context<Self>) {
        if self.follow_ponder(ctx) {
            // Still pondering on the player's time, or the ponder search is now its move.
            return;
        }
        if self.game.is_over() {
            return;
        }
        let Some((slot, opponent)) = self.engine.player_of(self.chess_game().position().turn())
        else {
            return;
        };
        if !self.engine.slot(slot).is_some_and(|a| a.is_idle()) {
            return;
        }
        let limits = self.opponent_limits(&opponent);
        let (engine, request, generation) =
            match self.begin_search(slot, Busy::Move, limits, None, None) {
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
        let root = *self.chess_game().position();
        let search = engine.search(request);
        ctx.spawn(search.into_actor(self).map(move |result, act, ctx| {
            if let Some(a) = act.engine.current(generation) {
                a.busy = None;
            }
            let ponder = result.as_ref().ok().and_then(|r| r.ponder.clone());
            match act.apply_engine_move(generation, &root, result, ctx) {
                Ok(_) => {
                    act.start_ponder(generation, ponder, ctx);
                    act.engine_turn(ctx);
                }
                Err(e) => act.report_engine_error(generation, &e),
            }
            // The move ended the game, or the game ended while the engine thought (its own
            // flag fell): the engines go.
            act.release_engine_if_over();
        }));
    }

    /// Plays the engine's move from `result` on the game, which must still be at `root`.
    pub(super) fn apply_engine_move(
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
        if self.chess_game().position() != root {
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
    pub(super) fn after_game_change(&mut self, ctx: &mut Context<Self>) {
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
            Some(ply) if ply <= self.chess_game().history().len() => {
                if self.position_at(ply).1 == root {
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

    /// Starts an analysis search of the position after `ply` plies (the current position when
    /// `None`), replacing a running one.
    fn run_analysis(
        &mut self,
        limits: GoLimits,
        multipv: u32,
        ply: Option<usize>,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        self.check_attached_can_play()?;
        let (position, root) = self.position_at(ply.unwrap_or(usize::MAX));
        self.check_searchmoves_in(&root, &limits.searchmoves)?;
        let white = root.turn() == Color::White;
        self.engine.next_analysis += 1;
        let seq = self.engine.next_analysis;
        self.engine.last_analysis = None;
        let a = self.engine.attached()?;
        if a.busy.is_some() {
            return Err(busy_error("the engine is already searching for this game"));
        }
        a.analysis = Some(Analysis {
            seq,
            limits: limits.clone(),
            multipv,
            ply,
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
        // No analysis runs for ever, nor for nobody.
        let caps = self.env.engines.config();
        let (longest, unwatched) = (
            Duration::from_secs(caps.max_analysis_secs.max(1)),
            Duration::from_secs(caps.unwatched_analysis_secs.max(1)),
        );
        ctx.run_later(longest, move |act, ctx| {
            act.end_analysis(seq, "engines.max_analysis_secs", ctx);
        });
        if self.subscribers.is_empty() {
            self.end_analysis_unwatched(unwatched, ctx);
        }
        ctx.spawn(search.into_actor(self).map(move |result, act, ctx| {
            let Some(a) = act.engine.current(generation) else {
                return;
            };
            if a.analysis.as_ref().is_none_or(|an| an.seq != seq) {
                return;
            }
            // A finite analysis ended by itself: its result is kept and announced.
            a.analysis = None;
            let stored = std::mem::take(&mut a.lines);
            let root = a.root;
            match result {
                Ok(result) => {
                    let report = analysis_report(&root, result, stored);
                    act.engine.last_analysis = Some(report.clone());
                    act.publish_transient(EventKind::EngineAnalysisDone(report));
                }
                Err(e) => act.report_engine_error(generation, &e.into()),
            }
            act.engine_turn(ctx);
            act.release_engine_if_over();
        }));
        Ok(())
    }

    /// Ends the analysis `seq` if it still runs: stopped, its last lines kept and announced
    /// (`engine_analysis_done`) as when an analysis ends by itself, because it reached `why`.
    pub(super) fn end_analysis(&mut self, seq: u64, why: &'static str, ctx: &mut Context<Self>) {
        let Some(a) = self.engine.attached.as_mut() else {
            return;
        };
        if a.analysis.as_ref().is_none_or(|an| an.seq != seq) {
            return;
        }
        a.analysis = None;
        let (engine, root, generation) = (a.engine.clone(), a.root, a.generation);
        tracing::info!(game = %self.id, why, "analysis stopped");
        ctx.spawn(engine.stop().into_actor(self).map(move |result, act, ctx| {
            if let Ok(report) = act.analysis_stopped(generation, &root, result) {
                act.publish_transient(EventKind::EngineAnalysisDone(report));
            }
            act.engine_turn(ctx);
            act.release_engine_if_over();
        }));
    }

    /// The report of an analysis of attachment `generation` at `root` that was told to stop
    /// and answered `result`: its last lines taken, kept as the last analysis.
    fn analysis_stopped(
        &mut self,
        generation: u64,
        root: &Position,
        result: Result<Option<SearchResult>, EngineError>,
    ) -> Result<AnalysisReport, GameError> {
        let stored = self
            .engine
            .current(generation)
            .map(|a| std::mem::take(&mut a.lines))
            .unwrap_or_default();
        let result = result?;
        let report = analysis_report(root, result.unwrap_or_default(), stored);
        self.engine.last_analysis = Some(report.clone());
        Ok(report)
    }

    /// Ends the running analysis after `grace` unless someone watches the game by then.
    pub(super) fn end_analysis_unwatched(&mut self, grace: Duration, ctx: &mut Context<Self>) {
        let Some(seq) = self
            .engine
            .attached
            .as_ref()
            .and_then(|a| a.analysis.as_ref())
            .map(|an| an.seq)
        else {
            return;
        };
        ctx.run_later(grace, move |act, ctx| {
            if act.subscribers.is_empty() {
                act.end_analysis(seq, "engines.unwatched_analysis_secs", ctx);
            }
        });
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

    /// Replaces the game by `game` (as a FEN load does) for engine routes.
    fn reset_game(&mut self, game: Game, ctx: &mut Context<Self>) {
        let clock = self.options.time_control.map(Clock::new);
        self.reinitialise(game.into(), clock, None, ctx);
    }

    fn best_move(
        &mut self,
        limits: GoLimits,
        timeout: Option<Duration>,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let start = finite_limits(limits)
            .and_then(|limits| self.bounded(limits))
            .and_then(|limits| self.begin_search(Slot::Main, Busy::Hint, limits, None, timeout));
        let (engine, request, generation) = match start {
            Ok(s) => s,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        let root = *self.chess_game().position();
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
        conditions: Conditions<PlayReply>,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let keyed = conditions.key.zip(KeyScope::of(caller));
        if let Some((key, scope)) = &keyed {
            let checked = if self.engine_play_key.as_ref() == Some(&(*scope, key.key.clone())) {
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
        let (engine, request, generation) = match searched {
            Ok(s) => s,
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        self.engine_play_key = keyed.as_ref().map(|(key, scope)| (*scope, key.key.clone()));
        let root = *self.chess_game().position();
        ctx.spawn(
            engine
                .search(request)
                .into_actor(self)
                .map(move |result, act, ctx| {
                    if let Some(a) = act.engine.current(generation) {
                        a.busy = None;
                    }
                    act.engine_play_key = None;
                    if keyed.is_some() {
                        act.collecting = Some(Vec::new());
                    }
                    let answer = match act.apply_engine_move(generation, &root, result, ctx) {
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
                }),
        );
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
            let mut after = self.chess_game().clone();
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
        if let Err(e) = self.check_attached_can_play() {
            self.answer(reply, Err(e));
            return;
        }
        let position = self.position_spec();
        let root = *self.chess_game().position();
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

    /// Starts (or restarts) an analysis; starts the engine first when another one is asked
    /// for, or when a finished game has none (analysis is what players do after a game).
    fn start_analysis(
        &mut self,
        mut request: AnalysisRequest,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let over = self.game.is_over();
        // A ply past the game's end is its end (the answer says which ply is analysed).
        let len = self.chess_game().history().len();
        request.ply = request.ply.map(|p| p.min(len));
        let checked = (|| {
            if self.engine.has_opponent() && !over {
                return Err(busy_error(
                    "the engine plays in this game; it cannot analyse it too (analyse it once \
                     the game is over)",
                ));
            }
            // Everything that can be checked before an engine is started is checked first.
            self.bounded(analysis_limits(&request)?)?;
            let attached = self.engine.attached.as_ref();
            let start = match (&request.engine, attached) {
                (Some(name), Some(a)) if *name == a.name => None,
                (Some(name), _) => Some(name.clone()),
                (None, Some(_)) => None,
                (None, None) if over => Some(
                    self.env
                        .engines
                        .default_engine()
                        .map(str::to_string)
                        .ok_or_else(|| {
                            EngineError::NotConfigured("no engine is configured".into())
                        })?,
                ),
                (None, None) => return Err(GameError::NoEngine),
            };
            if start.is_some() && attached.is_some_and(|a| a.busy.is_some()) {
                return Err(busy_error("the engine is already searching for this game"));
            }
            Ok(start)
        })();
        match checked {
            Err(e) => self.answer(reply, Err(e)),
            Ok(None) => {
                let started = self
                    .begin_analysis(&request, ctx)
                    .map(EngineReply::AnalysisStarted);
                self.answer(reply, started);
            }
            Ok(Some(name)) => {
                let factory = self.env.engines.clone();
                let client = request.client.clone();
                let starting = async move { factory.start(&client, &name).await };
                ctx.spawn(starting.into_actor(self).map(move |started, act, ctx| {
                    let answer = started.and_then(|started| {
                        if act
                            .engine
                            .attached
                            .as_ref()
                            .is_some_and(|a| a.busy.is_some())
                        {
                            return Err(busy_error(
                                "the engine is already searching for this game",
                            ));
                        }
                        check_can_play(
                            &started.name,
                            started.engine.identity(),
                            act.chess_game().start_position(),
                        )?;
                        analysis_multipv(started.engine.identity(), request.multipv)?;
                        act.install_engine(started, None, ctx);
                        let begun = act.begin_analysis(&request, ctx);
                        if begun.is_err() {
                            act.release_engine_if_over();
                        }
                        begun.map(EngineReply::AnalysisStarted)
                    });
                    act.answer(reply, answer);
                }));
            }
        }
    }

    /// Starts the analysis `request` asks for with the attached engine.
    fn begin_analysis(
        &mut self,
        request: &AnalysisRequest,
        ctx: &mut Context<Self>,
    ) -> Result<AnalysisStarted, GameError> {
        let a = self.engine.attached.as_ref().ok_or(GameError::NoEngine)?;
        let name = a.name.clone();
        let multipv = analysis_multipv(a.engine.identity(), request.multipv)?;
        let limits = analysis_limits(request)?;
        self.run_analysis(limits.clone(), multipv, request.ply, ctx)?;
        Ok(AnalysisStarted {
            analysing: true,
            engine: name,
            ply: request.ply,
            multipv,
            go: limits,
        })
    }

    /// Stops the analysis and answers its last lines; when none runs, the result of the last
    /// analysis that ended by itself (or an empty report).
    fn stop_analysis(&mut self, reply: Reply<EngineReply>, ctx: &mut Context<Self>) {
        let started = self.engine.attached().map(|a| {
            let running = a.analysis.take().is_some();
            (running, a.engine.clone(), a.root, a.generation)
        });
        let (running, engine, root, generation) = match started {
            Ok(s) => s,
            Err(GameError::NoEngine) if self.engine.last_analysis.is_some() => {
                let last = self.engine.last_analysis.clone().unwrap_or_default();
                self.answer(reply, Ok(EngineReply::AnalysisReport(last)));
                return;
            }
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        if !running {
            let last = self.engine.last_analysis.clone().unwrap_or_default();
            self.answer(reply, Ok(EngineReply::AnalysisReport(last)));
            return;
        }
        ctx.spawn(engine.stop().into_actor(self).map(move |result, act, ctx| {
            let answer = act
                .analysis_stopped(generation, &root, result)
                .map(EngineReply::AnalysisReport);
            act.engine_turn(ctx);
            act.release_engine_if_over();
            act.answer(reply, answer);
        }));
    }
}

/// The lines an analysis asks of an engine: 1 by default, at most what its `MultiPV` allows.
fn analysis_multipv(identity: &Identity, asked: Option<u32>) -> Result<u32, GameError> {
    let multipv = asked.unwrap_or(1);
    let max = match identity.option("MultiPV") {
        Some(o) => o.max.unwrap_or(1).clamp(1, 500) as u32,
        None => 1,
    };
    if multipv == 0 || multipv > max {
        return Err(GameError::invalid(format!(
            "multipv must be 1 to {max} for this engine"
        )));
    }
    Ok(multipv)
}

/// An analysis's limits: `infinite` when none are given, and for `ponder` (an analysis has
/// nothing to ponder on: it searches until stopped either way); checked as a raw `go` is.
fn analysis_limits(request: &AnalysisRequest) -> Result<GoLimits, GameError> {
    let mut limits = match &request.limits {
        Some(l) if !l.is_empty() => l.clone(),
        _ => GoLimits {
            infinite: true,
            ..GoLimits::default()
        },
    };
    if limits.ponder {
        limits.ponder = false;
        limits.infinite = true;
    }
    checked_limits(&limits)?;
    Ok(limits)
}

/// An analysis's report from its search result, or from the lines seen when the result has
/// none; PVs and the best move in SAN from `root`.
fn analysis_report(
    root: &Position,
    result: SearchResult,
    seen: BTreeMap<u32, Info>,
) -> AnalysisReport {
    let lines: Vec<Info> = if result.lines.is_empty() {
        seen.into_values().collect()
    } else {
        result.lines
    };
    let san = result
        .best
        .as_deref()
        .and_then(|b| root.parse_uci(b).ok())
        .map(|m| root.san(m));
    AnalysisReport {
        bestmove: result.best,
        san,
        lines: lines.iter().map(|i| EngineInfoView::new(i, root)).collect(),
    }
}

impl StreamHandler<EngineOutput> for GameActor {
    fn handle(&mut self, item: EngineOutput, _ctx: &mut Context<Self>) {
        self.on_engine_event(item.0, item.1);
    }

    /// The end of an engine's events is not the end of the game.
    fn finished(&mut self, _ctx: &mut Context<Self>) {}
}
