//! A game's UCI engine: attach/detach, best-move hints, engine moves (on request and as an
//! automatic opponent), position set/sync, raw commands and analysis.
//!
//! The actor never waits on the engine: a search is a future run in the actor's context
//! (`ResponseActFuture` or `ctx.spawn`), so the game keeps answering every other message while
//! the engine thinks. One search at a time per game: a second request gets `engine_busy` (no
//! queue). While the engine chooses a move for the game (`play` or the opponent), moves and
//! re-initialisations of the game are refused with `engine_busy`, so nothing can interleave
//! between the player's move and the engine's reply; a hint or an analysis does not lock the
//! game. Engine output reaches the actor as a stream and is published to WebSocket subscribers
//! as transient events (not versioned, not replayed).

use std::{collections::BTreeMap, time::Duration};

use actix::{
    fut::{ready, ActorFutureExt, WrapFuture},
    AsyncContext, Context, Handler, Message, ResponseActFuture, StreamHandler,
};
use chessd_core::{game::Game, Color, FenMode, Position};
use serde::Serialize;
use tokio::sync::mpsc;

use super::{Caller, GameActor, GameSnapshot, MoveInput};
use crate::{
    admission::Permit,
    config::EngineConfig,
    error::{ApiError, ErrorCode},
    game::{
        clock::Clock,
        events::{EngineInfoView, EventKind},
    },
    uci::{
        engine::{Engine, EngineEvent, PositionSpec, SearchRequest, SearchResult},
        policy::{self, AllowedCommand, EngineCaps},
        protocol::{EngineLine, GoLimits, Info, OptionDecl, StartPosition},
    },
    views::MoveView,
};

/// The `go` of `play` and `bestmove` when none is given (Binbo's default).
const DEFAULT_MOVETIME_MS: u64 = 1000;

/// Longest raw engine line sent to WebSocket clients, in bytes (longer ones are cut).
pub const MAX_EVENT_LINE: usize = 4096;

/// The opponent's `go` when none is given and the game has no clocks.
pub const DEFAULT_OPPONENT_MOVETIME_MS: u64 = 500;

/// An engine playing one side of the game by itself.
#[derive(Clone, Debug)]
pub struct Opponent {
    /// The side it plays.
    pub plays: Color,
    /// Its search limits; `None`: the clocks when the game is timed, else `movetime 500`.
    pub go: Option<GoLimits>,
}

/// The opponent as JSON.
#[derive(Clone, Debug, Serialize)]
pub struct OpponentView {
    /// The side it plays.
    pub plays: crate::views::Side,
    /// Its search limits, when given.
    pub go: Option<GoLimits>,
}

/// What the engine is doing for the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Busy {
    /// A best-move hint.
    Hint,
    /// Choosing a move the game will play (play or opponent): the game is locked.
    Move,
    /// A position sync.
    Sync,
}

/// A running analysis.
#[derive(Clone, Debug)]
struct Analysis {
    seq: u64,
    limits: GoLimits,
    multipv: u32,
}

/// The engine attached to a game.
pub(super) struct Attached {
    name: String,
    config: EngineConfig,
    engine: Engine,
    generation: u64,
    busy: Option<Busy>,
    analysis: Option<Analysis>,
    /// The position the current (or last) search started from, for the SAN of PVs.
    root: Position,
    /// The last line of each PV of the running analysis.
    lines: BTreeMap<u32, Info>,
    /// Its place in the engine-session counts, given back when it is detached.
    _permit: Permit,
}

impl Attached {
    /// Whether the game must refuse moves and re-initialisations now.
    pub(super) fn locks_game(&self) -> bool {
        self.busy == Some(Busy::Move)
    }
}

/// Which secret an engine route needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A seat's or the admin's.
    SeatOrAdmin,
    /// The admin's.
    Admin,
}

/// Checks a secret before any work is done for a request (so refusals come first).
#[derive(Message)]
#[rtype(result = "Result<(), ApiError>")]
pub struct Authorize {
    /// The bearer secret.
    pub token: Option<String>,
    /// What the route needs.
    pub need: Need,
}

/// Attach a started engine (replacing any other), optionally resetting the game to a FEN.
#[derive(Message)]
#[rtype(result = "Result<EngineView, ApiError>")]
pub struct AttachEngine {
    /// The bearer secret.
    pub token: Option<String>,
    /// The engine's configured name.
    pub name: String,
    /// Its configuration (timeouts).
    pub config: EngineConfig,
    /// The started engine.
    pub engine: Engine,
    /// Its event stream (from the engine's sink).
    pub events: mpsc::UnboundedReceiver<EngineEvent>,
    /// Its place in the engine-session counts (kept while it is attached).
    pub permit: Permit,
    /// Reset the game to this FEN first (needs the admin secret).
    pub fen: Option<String>,
    /// Make it the game's opponent.
    pub opponent: Option<Opponent>,
}

/// Detach the engine (`quit`, then kill).
#[derive(Message)]
#[rtype(result = "Result<(), ApiError>")]
pub struct DetachEngine {
    /// The bearer secret.
    pub token: Option<String>,
}

/// Read the attached engine.
#[derive(Message)]
#[rtype(result = "Result<EngineView, ApiError>")]
pub struct GetEngine;

/// The attached engine as JSON.
#[derive(Clone, Debug, Serialize)]
pub struct EngineView {
    /// Its configured name.
    pub name: String,
    /// Its `id name`.
    pub id_name: Option<String>,
    /// Its `id author`.
    pub id_author: Option<String>,
    /// Its declared options.
    pub options: Vec<OptionDecl>,
    /// Whether it is searching for a hint, a move or a sync.
    pub busy: bool,
    /// Whether an analysis runs.
    pub analysing: bool,
    /// The engine opponent of the game, if any.
    pub opponent: Option<OpponentView>,
}

/// Ask for the best move of the current position (the game does not change).
#[derive(Message)]
#[rtype(result = "Result<BestMoveReply, ApiError>")]
pub struct EngineBestMove {
    /// The bearer secret.
    pub token: Option<String>,
    /// Search limits (empty: `movetime 1000`).
    pub limits: GoLimits,
    /// The whole time allowed, overriding the configured allowance.
    pub timeout: Option<Duration>,
}

/// The answer to [`EngineBestMove`].
#[derive(Clone, Debug, Serialize)]
pub struct BestMoveReply {
    /// The best move, UCI.
    pub bestmove: String,
    /// The best move, SAN.
    pub san: String,
    /// The expected reply, UCI.
    pub ponder: Option<String>,
    /// The last `info` of the main line.
    pub info: Option<Info>,
}

/// Optionally play the caller's move, then let the engine answer; both are applied.
#[derive(Message)]
#[rtype(result = "Result<PlayReply, ApiError>")]
pub struct EnginePlay {
    /// The bearer secret.
    pub token: Option<String>,
    /// The player's move first.
    pub player_move: Option<MoveInput>,
    /// Search limits (empty: `movetime 1000`).
    pub limits: GoLimits,
}

/// The answer to [`EnginePlay`].
#[derive(Clone, Debug)]
pub struct PlayReply {
    /// The player's move, when one was given.
    pub player_move: Option<MoveView>,
    /// The engine's move; `None` when the player's move ended the game.
    pub engine_move: Option<MoveView>,
    /// The game after both.
    pub snapshot: GameSnapshot,
}

/// Reset the game to a position (a FEN and/or moves) and tell the engine (Binbo's
/// `uci_set_position`); needs the admin secret.
#[derive(Message)]
#[rtype(result = "Result<GameSnapshot, ApiError>")]
pub struct EngineSetPosition {
    /// The bearer secret.
    pub token: Option<String>,
    /// The FEN (default: the standard start).
    pub fen: Option<String>,
    /// Moves from there (UCI).
    pub moves: Vec<String>,
}

/// Send the game's position to the engine and wait for `readyok` (Binbo's `uci_sync_position`).
#[derive(Message)]
#[rtype(result = "Result<GameSnapshot, ApiError>")]
pub struct EngineSync {
    /// The bearer secret.
    pub token: Option<String>,
}

/// Send a raw UCI line (admin).
#[derive(Message)]
#[rtype(result = "Result<(), ApiError>")]
pub struct EngineCommand {
    /// The line, as the operator wrote it (checked by [`policy::check_raw_command`] and sent in
    /// its canonical form). The operator's token is checked before this message is sent.
    pub line: String,
    /// Wait until written (call) rather than fire and forget (cast).
    pub wait: bool,
}

/// Start (or restart) an analysis of the current position.
#[derive(Message)]
#[rtype(result = "Result<AnalysisStarted, ApiError>")]
pub struct StartAnalysis {
    /// The bearer secret.
    pub token: Option<String>,
    /// Lines to search (default 1).
    pub multipv: Option<u32>,
    /// Search limits (default `infinite`).
    pub limits: Option<GoLimits>,
}

/// The answer to [`StartAnalysis`].
#[derive(Clone, Debug, Serialize)]
pub struct AnalysisStarted {
    /// Always true.
    pub analysing: bool,
    /// Lines searched.
    pub multipv: u32,
    /// The `go` sent.
    pub go: GoLimits,
}

/// Stop the analysis and return its last lines.
#[derive(Message)]
#[rtype(result = "Result<AnalysisReport, ApiError>")]
pub struct StopAnalysis {
    /// The bearer secret.
    pub token: Option<String>,
}

/// The answer to [`StopAnalysis`].
#[derive(Clone, Debug, Serialize)]
pub struct AnalysisReport {
    /// The engine's best move when it stopped (UCI).
    pub bestmove: Option<String>,
    /// Its SAN.
    pub san: Option<String>,
    /// The last line of each PV.
    pub lines: Vec<EngineInfoView>,
}

/// An engine event tagged with the attachment it came from.
pub struct EngineOutput(u64, EngineEvent);

fn busy_error(message: &str) -> ApiError {
    ApiError::new(ErrorCode::EngineBusy, message)
}

fn no_engine() -> ApiError {
    ApiError::new(
        ErrorCode::NoEngine,
        "no engine is attached to this game (POST /v1/games/{id}/engine)",
    )
}

/// The whole allowance of a search: `timeout` if given, none for infinite searches, else the
/// search's own time bound (or none) plus `search_timeout_ms`.
fn allowance(
    config: &EngineConfig,
    limits: &GoLimits,
    white: bool,
    timeout: Option<Duration>,
) -> Option<Duration> {
    if timeout.is_some() {
        return timeout;
    }
    if limits.infinite || limits.ponder {
        return None;
    }
    let extra = config.search_timeout_ms;
    let total = limits
        .time_bound_ms(white)
        .map_or(extra, |t| t.saturating_add(extra));
    Some(Duration::from_millis(total))
}

/// Limits for a search that must end by itself.
fn finite_limits(limits: GoLimits) -> Result<GoLimits, ApiError> {
    if limits.infinite || limits.ponder {
        return Err(ApiError::invalid_request(
            "infinite and ponder searches never end by themselves: use the analysis route",
        ));
    }
    let without_moves = GoLimits {
        searchmoves: Vec::new(),
        ..limits.clone()
    };
    if without_moves.is_empty() {
        return Ok(GoLimits {
            movetime: Some(DEFAULT_MOVETIME_MS),
            ..limits
        });
    }
    Ok(limits)
}

impl GameActor {
    fn authorize(&self, token: Option<&str>, need: Need) -> Result<Caller, ApiError> {
        let caller = self.caller(token);
        match (need, caller) {
            (_, Caller::Anonymous) => Err(ApiError::forbidden(
                "engine routes need a player's or the admin's secret (Authorization: Bearer <secret>)",
            )),
            (Need::Admin, Caller::Seat(_)) => Err(ApiError::forbidden(
                "this engine action needs the game's admin secret",
            )),
            _ => Ok(caller),
        }
    }

    /// Checks that every move of a `searchmoves` list is legal in the current position.
    fn check_searchmoves(&self, moves: &[String]) -> Result<(), ApiError> {
        let pos = self.game.position();
        for text in moves {
            pos.parse_uci(text).map_err(|e| {
                ApiError::invalid_request(format!(
                    "searchmoves: {text} is not a legal move here: {e}"
                ))
            })?;
        }
        Ok(())
    }

    fn attached(&mut self) -> Result<&mut Attached, ApiError> {
        self.engine.as_mut().ok_or_else(no_engine)
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

    fn engine_view(&self) -> Result<EngineView, ApiError> {
        let a = self.engine.as_ref().ok_or_else(no_engine)?;
        let id = a.engine.identity();
        Ok(EngineView {
            name: a.name.clone(),
            id_name: id.name.clone(),
            id_author: id.author.clone(),
            options: id.options.clone(),
            busy: a.busy.is_some(),
            analysing: a.analysis.is_some(),
            opponent: self.opponent.as_ref().map(|o| OpponentView {
                plays: o.plays.into(),
                go: o.go.clone(),
            }),
        })
    }

    /// Publishes an engine event to subscribers without versioning or keeping it.
    fn publish_transient(&mut self, event: EventKind) {
        if self.subscribers.is_empty() {
            return;
        }
        let frame = self.log.transient(&event);
        self.subscribers
            .retain(|(_, tx)| tx.try_send(frame.clone()).is_ok());
    }

    /// Reports a failure of attachment `generation` to subscribers. A dead engine is detached
    /// at once (its session's `Died` event, which may arrive later, is then ignored).
    fn report_engine_error(&mut self, generation: u64, error: &ApiError) {
        let current = self.engine.as_ref().filter(|a| a.generation == generation);
        if error.code == ErrorCode::EngineDied {
            if current.is_some_and(|a| a.engine.is_closed()) {
                self.engine_gone(error.clone());
            }
            return;
        }
        self.publish_transient(EventKind::EngineError {
            code: error.code.as_str().to_string(),
            message: error.message.clone(),
        });
    }

    /// Forgets the attached engine, which died, and tells subscribers.
    fn engine_gone(&mut self, error: ApiError) {
        if let Some(a) = self.engine.take() {
            self.publish_transient(EventKind::EngineError {
                code: error.code.as_str().to_string(),
                message: error.message,
            });
            self.publish_transient(EventKind::EngineDetached { name: a.name });
        }
    }

    /// Claims the engine for a search of the current position.
    fn begin_search(
        &mut self,
        busy: Busy,
        limits: GoLimits,
        multipv: Option<u32>,
        timeout: Option<Duration>,
    ) -> Result<(Engine, SearchRequest, u64), ApiError> {
        if self.game.is_over() {
            return Err(ApiError::from(chessd_core::game::GameError::GameOver(
                self.game.status().clone(),
            )));
        }
        let position = self.position_spec();
        let root = *self.game.position();
        let white = root.turn() == Color::White;
        let a = self.attached()?;
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
        if let Some(a) = self.engine.as_mut().filter(|a| a.generation == generation) {
            a.busy = None;
        }
        self.engine_turn(ctx);
        self.release_engine_if_over();
    }

    /// A finished game needs no engine: once the game is over and its engine idle, the engine
    /// is released (its process ends and its place in the engine-session counts is given back),
    /// so finished games against the computer do not keep a process each.
    pub(super) fn release_engine_if_over(&mut self) {
        let idle = self
            .engine
            .as_ref()
            .is_some_and(|a| a.busy.is_none() && a.analysis.is_none());
        if self.game.is_over() && idle {
            if let Some(old) = self.engine.take() {
                self.publish_transient(EventKind::EngineDetached { name: old.name });
            }
        }
    }

    /// The engine's move from `result`, checked against `root`; an illegal or missing move is
    /// `engine_illegal_move`.
    fn checked_move(root: &Position, result: &SearchResult) -> Result<MoveView, ApiError> {
        let Some(best) = result.best.as_deref() else {
            return Err(ApiError::new(
                ErrorCode::EngineIllegalMove,
                "the engine answered bestmove (none) in a position with legal moves",
            ));
        };
        let mv = root.parse_uci(best).map_err(|e| {
            ApiError::new(
                ErrorCode::EngineIllegalMove,
                format!("the engine's move was refused: {e}"),
            )
        })?;
        Ok(MoveView {
            uci: root.uci(mv),
            san: root.san(mv),
        })
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
        let Some(opponent) = self.opponent.clone() else {
            return;
        };
        let free = self
            .engine
            .as_ref()
            .is_some_and(|a| a.busy.is_none() && a.analysis.is_none());
        if !free || self.game.is_over() || self.game.position().turn() != opponent.plays {
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
            if let Some(a) = act.engine.as_mut().filter(|a| a.generation == generation) {
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
        result: Result<SearchResult, ApiError>,
        ctx: &mut Context<Self>,
    ) -> Result<MoveView, ApiError> {
        let result = result?;
        let mv = Self::checked_move(root, &result)?;
        if self.engine.as_ref().map(|a| a.generation) != Some(generation) {
            return Err(no_engine());
        }
        if self.game.position() != root {
            return Err(busy_error("the game changed while the engine was thinking"));
        }
        let played = self.play_move(Caller::Admin, MoveInput::Uci(mv.uci.clone()), ctx)?;
        self.after_game_change(ctx);
        Ok(MoveView {
            uci: played.uci,
            san: played.san,
        })
    }

    /// Follows a change of the game: a running analysis restarts on the new position (or stops
    /// when the game is over).
    pub(super) fn after_game_change(&mut self, ctx: &mut Context<Self>) {
        let Some(analysis) = self.engine.as_ref().and_then(|a| a.analysis.clone()) else {
            return;
        };
        if self.game.is_over() {
            if let Some(a) = self.engine.as_mut() {
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
    ) -> Result<(), ApiError> {
        if self.game.is_over() {
            return Err(ApiError::from(chessd_core::game::GameError::GameOver(
                self.game.status().clone(),
            )));
        }
        let position = self.position_spec();
        let root = *self.game.position();
        let white = root.turn() == Color::White;
        self.next_analysis += 1;
        let seq = self.next_analysis;
        let a = self.attached()?;
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
            let Some(a) = act.engine.as_mut().filter(|a| a.generation == generation) else {
                return;
            };
            if a.analysis.as_ref().is_some_and(|an| an.seq == seq) {
                // A finite analysis ended by itself.
                a.analysis = None;
                if let Err(e) = result {
                    act.report_engine_error(generation, &e);
                }
                act.engine_turn(ctx);
            }
        }));
        Ok(())
    }

    fn on_engine_event(&mut self, generation: u64, event: EngineEvent, ctx: &mut Context<Self>) {
        let Some(a) = self.engine.as_mut().filter(|a| a.generation == generation) else {
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
            EngineEvent::Died(error) => {
                self.engine_gone(error);
                // The opponent waits for a new engine; nothing else to do.
                let _ = ctx;
            }
        }
    }

    /// Replaces the game by `game` (as a FEN load does) for engine routes.
    fn reset_game(&mut self, game: Game, ctx: &mut Context<Self>) {
        let clock = self.options.time_control.map(Clock::new);
        self.reinitialise(game, clock, None, ctx);
    }
}

impl StreamHandler<EngineOutput> for GameActor {
    fn handle(&mut self, item: EngineOutput, ctx: &mut Context<Self>) {
        self.on_engine_event(item.0, item.1, ctx);
    }

    /// The end of an engine's events is not the end of the game.
    fn finished(&mut self, _ctx: &mut Context<Self>) {}
}

impl Handler<Authorize> for GameActor {
    type Result = Result<(), ApiError>;
    fn handle(&mut self, msg: Authorize, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        self.authorize(msg.token.as_deref(), msg.need).map(|_| ())
    }
}

impl Handler<AttachEngine> for GameActor {
    type Result = Result<EngineView, ApiError>;
    fn handle(&mut self, msg: AttachEngine, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        let need = if msg.fen.is_some() {
            Need::Admin
        } else {
            Need::SeatOrAdmin
        };
        self.authorize(msg.token.as_deref(), need)?;
        if self.engine.as_ref().is_some_and(Attached::locks_game) {
            return Err(busy_error("the engine is choosing a move for this game"));
        }
        if let Some(fen) = &msg.fen {
            let pos = Position::from_fen(fen, FenMode::Strict)?;
            self.reset_game(Game::with_policy(pos, self.options.draw_policy), ctx);
        }
        self.next_engine += 1;
        let generation = self.next_engine;
        let events = futures_util::stream::unfold(msg.events, move |mut rx| async move {
            rx.recv().await.map(|e| (EngineOutput(generation, e), rx))
        });
        ctx.add_stream(events);
        let id_name = msg.engine.identity().name.clone();
        if let Some(old) = self.engine.take() {
            self.publish_transient(EventKind::EngineDetached { name: old.name });
        }
        self.engine = Some(Attached {
            name: msg.name.clone(),
            config: msg.config,
            engine: msg.engine,
            generation,
            busy: None,
            analysis: None,
            root: *self.game.position(),
            lines: BTreeMap::new(),
            _permit: msg.permit,
        });
        if let Some(opponent) = msg.opponent {
            self.engine_seat = Some((opponent.plays, msg.name.clone()));
            self.opponent = Some(opponent);
        }
        self.publish_transient(EventKind::EngineAttached {
            name: msg.name,
            id_name,
        });
        self.engine_turn(ctx);
        self.engine_view()
    }
}

impl Handler<DetachEngine> for GameActor {
    type Result = Result<(), ApiError>;
    fn handle(&mut self, msg: DetachEngine, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        self.authorize(msg.token.as_deref(), Need::SeatOrAdmin)?;
        let old = self.engine.take().ok_or_else(no_engine)?;
        // Dropping the handle quits the engine (a running search fails with engine_died).
        self.publish_transient(EventKind::EngineDetached { name: old.name });
        Ok(())
    }
}

impl Handler<GetEngine> for GameActor {
    type Result = Result<EngineView, ApiError>;
    fn handle(&mut self, _: GetEngine, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        self.engine_view()
    }
}

impl Handler<EngineBestMove> for GameActor {
    type Result = ResponseActFuture<Self, Result<BestMoveReply, ApiError>>;
    fn handle(&mut self, msg: EngineBestMove, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        let start = self
            .authorize(msg.token.as_deref(), Need::SeatOrAdmin)
            .and_then(|_| finite_limits(msg.limits))
            .and_then(|limits| self.begin_search(Busy::Hint, limits, None, msg.timeout));
        let (engine, request, generation) = match start {
            Ok(s) => s,
            Err(e) => return Box::pin(ready(Err(e))),
        };
        let root = *self.game.position();
        Box::pin(
            engine
                .search(request)
                .into_actor(self)
                .map(move |result, act, ctx| {
                    act.end_search(generation, ctx);
                    let reply = result.and_then(|r| {
                        let mv = GameActor::checked_move(&root, &r)?;
                        Ok(BestMoveReply {
                            bestmove: mv.uci,
                            san: mv.san,
                            ponder: r.ponder,
                            info: r.info,
                        })
                    });
                    if let Err(e) = &reply {
                        act.report_engine_error(generation, e);
                    }
                    reply
                }),
        )
    }
}

impl Handler<EnginePlay> for GameActor {
    type Result = ResponseActFuture<Self, Result<PlayReply, ApiError>>;
    fn handle(&mut self, msg: EnginePlay, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        let prepared = (|| {
            let caller = self.authorize(msg.token.as_deref(), Need::SeatOrAdmin)?;
            let limits = finite_limits(msg.limits)?;
            // A finished game is over for moves, with or without one (its engine is released).
            if self.game.is_over() {
                return Err(ApiError::from(chessd_core::game::GameError::GameOver(
                    self.game.status().clone(),
                )));
            }
            // Refuse before the player's move is played if the engine cannot answer.
            let a = self.engine.as_ref().ok_or_else(no_engine)?;
            if a.busy.is_some() || a.analysis.is_some() {
                return Err(busy_error(
                    "the engine is already searching for this game (or analysing)",
                ));
            }
            let player_move = match msg.player_move {
                Some(input) => {
                    let played = self.play_move(caller, input, ctx)?;
                    self.after_game_change(ctx);
                    Some(MoveView {
                        uci: played.uci,
                        san: played.san,
                    })
                }
                None => None,
            };
            Ok((player_move, limits))
        })();
        let (player_move, limits) = match prepared {
            Ok(p) => p,
            Err(e) => return Box::pin(ready(Err(e))),
        };
        if self.game.is_over() {
            // The player's move ended the game: nothing for the engine to do.
            self.release_engine_if_over();
            return Box::pin(ready(Ok(PlayReply {
                player_move,
                engine_move: None,
                snapshot: self.snapshot(),
            })));
        }
        let (engine, request, generation) = match self.begin_search(Busy::Move, limits, None, None)
        {
            Ok(s) => s,
            Err(e) => return Box::pin(ready(Err(e))),
        };
        let root = *self.game.position();
        Box::pin(
            engine
                .search(request)
                .into_actor(self)
                .map(move |result, act, ctx| {
                    if let Some(a) = act.engine.as_mut().filter(|a| a.generation == generation) {
                        a.busy = None;
                    }
                    let applied = act.apply_engine_move(generation, &root, result, ctx);
                    let reply = match applied {
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
                    act.engine_turn(ctx);
                    reply
                }),
        )
    }
}

impl Handler<EngineSetPosition> for GameActor {
    type Result = ResponseActFuture<Self, Result<GameSnapshot, ApiError>>;
    fn handle(&mut self, msg: EngineSetPosition, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        let game = (|| {
            self.authorize(msg.token.as_deref(), Need::Admin)?;
            let a = self.engine.as_ref().ok_or_else(no_engine)?;
            if a.busy.is_some() {
                return Err(busy_error("the engine is already searching for this game"));
            }
            let start = match &msg.fen {
                Some(fen) => Position::from_fen(fen, FenMode::Strict)?,
                None => Position::startpos(),
            };
            let mut game = Game::with_policy(start, self.options.draw_policy);
            for text in &msg.moves {
                game.play_uci(text).map_err(ApiError::from)?;
            }
            Ok(game)
        })();
        let game = match game {
            Ok(g) => g,
            Err(e) => return Box::pin(ready(Err(e))),
        };
        self.reset_game(game, ctx);
        self.sync_engine(ctx)
    }
}

impl GameActor {
    /// Sends the game's position to the engine and waits for `readyok` (an analysis restarts
    /// on the position instead).
    fn sync_engine(
        &mut self,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, Result<GameSnapshot, ApiError>> {
        if self.engine.as_ref().is_some_and(|a| a.analysis.is_some()) {
            self.after_game_change(ctx);
            self.engine_turn(ctx);
            return Box::pin(ready(Ok(self.snapshot())));
        }
        let position = self.position_spec();
        let root = *self.game.position();
        let a = match self.attached() {
            Ok(a) => a,
            Err(e) => return Box::pin(ready(Err(e))),
        };
        if a.busy.is_some() {
            return Box::pin(ready(Err(busy_error(
                "the engine is already searching for this game",
            ))));
        }
        a.busy = Some(Busy::Sync);
        a.root = root;
        let generation = a.generation;
        Box::pin(
            a.engine
                .sync(Some(position))
                .into_actor(self)
                .map(move |result, act, ctx| {
                    act.end_search(generation, ctx);
                    match result {
                        Ok(()) => Ok(act.snapshot()),
                        Err(e) => {
                            act.report_engine_error(generation, &e);
                            Err(e)
                        }
                    }
                }),
        )
    }
}

impl Handler<EngineSync> for GameActor {
    type Result = ResponseActFuture<Self, Result<GameSnapshot, ApiError>>;
    fn handle(&mut self, msg: EngineSync, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        if let Err(e) = self.authorize(msg.token.as_deref(), Need::SeatOrAdmin) {
            return Box::pin(ready(Err(e)));
        }
        self.sync_engine(ctx)
    }
}

impl Handler<EngineCommand> for GameActor {
    type Result = ResponseActFuture<Self, Result<(), ApiError>>;
    fn handle(&mut self, msg: EngineCommand, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        let checked = (|| {
            let a = self.engine.as_ref().ok_or_else(no_engine)?;
            let caps = EngineCaps {
                max_hash_mb: a.config.max_hash_mb,
                max_threads: a.config.max_threads,
            };
            let command = policy::check_raw_command(&msg.line, &a.engine.identity().options, caps)
                .map_err(|e| ApiError::new(ErrorCode::CommandRefused, e.to_string()))?;
            if let AllowedCommand::Go(limits) = &command {
                self.check_searchmoves(&limits.searchmoves)?;
            }
            Ok((a.engine.clone(), command.to_string()))
        })();
        let (engine, line) = match checked {
            Ok(c) => c,
            Err(e) => return Box::pin(ready(Err(e))),
        };
        if msg.wait {
            Box::pin(engine.send(line).into_actor(self))
        } else {
            Box::pin(ready(engine.cast(line)))
        }
    }
}

impl Handler<StartAnalysis> for GameActor {
    type Result = Result<AnalysisStarted, ApiError>;
    fn handle(&mut self, msg: StartAnalysis, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        self.authorize(msg.token.as_deref(), Need::SeatOrAdmin)?;
        if self.opponent.is_some() {
            return Err(busy_error(
                "the engine plays in this game; it cannot analyse it too",
            ));
        }
        let a = self.engine.as_ref().ok_or_else(no_engine)?;
        let multipv = msg.multipv.unwrap_or(1);
        let max = match a.engine.identity().option("MultiPV") {
            Some(o) => o.max.unwrap_or(1).clamp(1, 500) as u32,
            None => 1,
        };
        if multipv == 0 || multipv > max {
            return Err(ApiError::invalid_request(format!(
                "multipv must be 1 to {max} for this engine"
            )));
        }
        let limits = match msg.limits {
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
}

impl Handler<StopAnalysis> for GameActor {
    type Result = ResponseActFuture<Self, Result<AnalysisReport, ApiError>>;
    fn handle(&mut self, msg: StopAnalysis, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        let started = (|| {
            self.authorize(msg.token.as_deref(), Need::SeatOrAdmin)?;
            let a = self.attached()?;
            let running = a.analysis.take().is_some();
            Ok((running, a.engine.clone(), a.root, a.generation))
        })();
        let (running, engine, root, generation) = match started {
            Ok(s) => s,
            Err(e) => return Box::pin(ready(Err(e))),
        };
        if !running {
            return Box::pin(ready(Ok(AnalysisReport {
                bestmove: None,
                san: None,
                lines: Vec::new(),
            })));
        }
        Box::pin(engine.stop().into_actor(self).map(move |result, act, ctx| {
            let stored = act
                .engine
                .as_mut()
                .filter(|a| a.generation == generation)
                .map(|a| std::mem::take(&mut a.lines))
                .unwrap_or_default();
            act.engine_turn(ctx);
            let result = result?.unwrap_or_default();
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
            Ok(AnalysisReport {
                bestmove: result.best,
                san,
                lines: lines
                    .iter()
                    .map(|i| EngineInfoView::new(i, &root))
                    .collect(),
            })
        }))
    }
}

/// Stops the actor's engine work when the game stops (dropping the handle quits the engine).
pub(super) fn on_stop(actor: &mut GameActor, _ctx: &mut Context<GameActor>) {
    actor.engine = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_allowances() {
        let empty = finite_limits(GoLimits::default()).unwrap();
        assert_eq!(empty.movetime, Some(DEFAULT_MOVETIME_MS));
        assert!(finite_limits(GoLimits {
            infinite: true,
            ..GoLimits::default()
        })
        .is_err());
        let depth = GoLimits {
            depth: Some(3),
            ..GoLimits::default()
        };
        assert_eq!(finite_limits(depth.clone()).unwrap(), depth);
        let config: EngineConfig = serde_json::from_value(serde_json::json!({
            "tcp": "127.0.0.1:1", "search_timeout_ms": 1000
        }))
        .unwrap();
        let movetime = GoLimits {
            movetime: Some(100),
            ..GoLimits::default()
        };
        assert_eq!(
            allowance(&config, &movetime, true, None),
            Some(Duration::from_millis(1100))
        );
        assert_eq!(
            allowance(&config, &depth, true, None),
            Some(Duration::from_millis(1000))
        );
        assert_eq!(
            allowance(&config, &depth, true, Some(Duration::from_millis(5))),
            Some(Duration::from_millis(5))
        );
        let infinite = GoLimits {
            infinite: true,
            ..GoLimits::default()
        };
        assert_eq!(allowance(&config, &infinite, true, None), None);
    }
}
