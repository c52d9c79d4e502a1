//! `GameActor`: one actix actor per game. Every change is one message handled atomically:
//! check who asks, validate, apply, bump the version, publish the event, re-arm the idle timer.
//! A rejected message changes nothing.

use std::{sync::Arc, time::Duration};

use actix::{
    Actor, ActorContext, AsyncContext, Context, Handler, Message, MessageResult, SpawnHandle,
};
use chessd_core::{
    game::{DrawPolicy, Game, PlayedMove},
    pgn, Color, FenMode, Position, Role, Square,
};
use tokio::sync::mpsc;
use uuid::Uuid;

mod engine;

pub use engine::{
    AnalysisReport, AnalysisStarted, AttachEngine, Authorize, BestMoveReply, DetachEngine,
    EngineBestMove, EngineCommand, EnginePlay, EngineSetPosition, EngineSync, EngineView,
    GetEngine, Need, Opponent, OpponentView, PlayReply, StartAnalysis, StopAnalysis,
    DEFAULT_OPPONENT_MOVETIME_MS,
};

use crate::{
    admission::Permit,
    error::{ApiError, ErrorCode},
    game::{
        clock::{Clock, ClockView, TimeControl},
        events::{EventFrame, EventKind, EventLog},
        hooks::{Hooks, StopReason, TerminateInfo},
        registry::{GameRegistry, Reservation},
        state::{SavedClock, SavedState},
    },
    views::{PolicyView, Side},
};

/// What every game actor shares: the registry, the hooks and event settings.
pub struct GameShared {
    /// Live games.
    pub registry: GameRegistry,
    /// Terminate hooks.
    pub hooks: Arc<Hooks>,
    /// Events kept per game for reconnecting clients.
    pub event_history: usize,
}

/// A game's options.
#[derive(Clone, Debug)]
pub struct GameOptions {
    /// Stop after this long without a message (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// Stop with reason `abandoned` when no move is played this long after creation (`None`:
    /// never).
    pub abandon_after: Option<Duration>,
    /// POSTed to when the game's actor stops.
    pub webhook: Option<url::Url>,
    /// Clocks, when the game is timed.
    pub time_control: Option<TimeControl>,
    /// Draw rules.
    pub draw_policy: DrawPolicy,
}

/// The secrets handed out at creation.
#[derive(Clone, Debug)]
pub struct Secrets {
    /// White's seat.
    pub white: String,
    /// Black's seat.
    pub black: String,
    /// The game's administrator.
    pub admin: String,
}

impl Secrets {
    /// Three fresh random secrets.
    pub fn generate() -> Secrets {
        let token = || Uuid::new_v4().simple().to_string();
        Secrets {
            white: token(),
            black: token(),
            admin: token(),
        }
    }
}

/// Who sent a message, as established from its secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The player of a seat.
    Seat(Color),
    /// The administrator.
    Admin,
    /// No or an unknown secret.
    Anonymous,
}

/// A move as a client sends it.
#[derive(Clone, Debug)]
pub enum MoveInput {
    /// UCI text.
    Uci(String),
    /// SAN text.
    San(String),
    /// Square indices (a1 = 0 … h8 = 63) with an optional promotion.
    Squares {
        /// Origin.
        from: Square,
        /// Target.
        to: Square,
        /// Promotion piece.
        promotion: Option<Role>,
    },
}

/// Changes to a game's options (absent fields stay as they are).
#[derive(Clone, Debug, Default)]
pub struct OptionsPatch {
    /// New idle timeout in seconds (0 = never).
    pub idle_timeout_secs: Option<u64>,
    /// New draw policy.
    pub draw_policy: Option<DrawPolicy>,
}

/// Everything a client can ask a game to do.
#[derive(Clone, Debug)]
pub enum Action {
    /// Play a move (side to move's seat or admin).
    Move(MoveInput),
    /// Resign (a seat resigns itself; the admin names the side).
    Resign(Option<Color>),
    /// Offer a draw (a seat).
    OfferDraw,
    /// Accept the opponent's draw offer (a seat).
    AcceptDraw,
    /// Decline the opponent's draw offer (a seat).
    DeclineDraw,
    /// Claim a draw by threefold repetition or the fifty-move rule (claims policy).
    ClaimDraw,
    /// Set a draw with a note (admin).
    SetDraw(Option<String>),
    /// Set a winner with a note (admin).
    SetWinner(Color, Option<String>),
    /// Re-initialise from a FEN (admin).
    LoadFen(String),
    /// Re-initialise from a PGN (admin).
    LoadPgn(String),
    /// Re-initialise from a saved state (admin).
    Restore(Box<SavedState>),
    /// Change options (admin).
    SetOptions(OptionsPatch),
    /// Stop the game's actor (admin).
    Stop,
}

/// A consistent copy of a game's state, for reads outside the actor.
#[derive(Clone, Debug)]
pub struct GameSnapshot {
    /// The game id.
    pub id: Uuid,
    /// The game (cheap to clone: the history is shared).
    pub game: Game,
    /// The event version.
    pub version: u64,
    /// Both clocks, when timed.
    pub clocks: Option<ClockView>,
    /// A pending draw offer.
    pub draw_offer: Option<Side>,
    /// Idle timeout in seconds (0 = never).
    pub idle_timeout_secs: u64,
    /// The time control.
    pub time_control: Option<TimeControl>,
    /// Whether a terminate webhook is set.
    pub has_webhook: bool,
    /// When the game was created.
    pub created: std::time::SystemTime,
    /// The engine opponent's side and configured name, if the game has one.
    pub engine_seat: Option<(Color, String)>,
}

impl GameSnapshot {
    /// The draw policy.
    pub fn draw_policy(&self) -> PolicyView {
        self.game.policy().into()
    }
}

/// The answer to a successful action.
#[derive(Clone, Debug)]
pub struct ActionReply {
    /// The state after the action.
    pub snapshot: GameSnapshot,
    /// The move played, for moves.
    pub played: Option<PlayedMove>,
}

/// Read the current state.
#[derive(Message)]
#[rtype(result = "GameSnapshot")]
pub struct GetSnapshot;

/// Do something, as the holder of `token`.
#[derive(Message)]
#[rtype(result = "Result<ActionReply, ApiError>")]
pub struct Command {
    /// The bearer secret, if any.
    pub token: Option<String>,
    /// What to do.
    pub action: Action,
}

/// Read the raw saved state.
#[derive(Message)]
#[rtype(result = "SavedState")]
pub struct SaveState;

/// Receive this game's events from now on; `since` asks for the events after a version.
#[derive(Message)]
#[rtype(result = "Subscription")]
pub struct Subscribe {
    /// The last version the client saw, if reconnecting.
    pub since: Option<u64>,
    /// Where events go. A subscriber that cannot keep up is dropped (it reconnects and catches up).
    pub events: mpsc::Sender<Arc<EventFrame>>,
    /// The secret the subscriber connected with (to tell players from spectators).
    pub token: Option<String>,
}

/// The answer to [`Subscribe`].
#[derive(Debug)]
pub struct Subscription {
    /// Identifies the subscription for [`Unsubscribe`].
    pub id: u64,
    /// Who the subscriber is.
    pub caller: Caller,
    /// The state now.
    pub snapshot: GameSnapshot,
    /// The missed events, or `None` when the client must resynchronise from `snapshot`.
    pub missed: Option<Vec<Arc<EventFrame>>>,
}

/// Stop receiving events.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Unsubscribe(pub u64);

/// Stop the game because the server shuts down.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Shutdown;

/// One game.
pub struct GameActor {
    id: Uuid,
    game: Game,
    options: GameOptions,
    secrets: Secrets,
    clock: Option<Clock>,
    draw_offer: Option<Color>,
    subscribers: Vec<(u64, mpsc::Sender<Arc<EventFrame>>)>,
    next_subscriber: u64,
    log: EventLog,
    idle_timer: Option<SpawnHandle>,
    flag_timer: Option<SpawnHandle>,
    stop_reason: StopReason,
    shared: Arc<GameShared>,
    /// The attached UCI engine.
    engine: Option<engine::Attached>,
    /// The engine opponent (plays one side by itself).
    opponent: Option<Opponent>,
    /// Attachments so far (tags engine output with its attachment).
    next_engine: u64,
    /// Analyses so far (tells a restarted analysis from the one it replaced).
    next_analysis: u64,
    /// The creator's place among its unfinished games; given back when the game ends.
    permit: Option<Permit>,
    /// Whether a move has been played since the actor started (else it may be abandoned).
    moved: bool,
    /// When the game was created.
    created: std::time::SystemTime,
    /// The engine opponent's side and configured name (kept after its engine is released).
    engine_seat: Option<(Color, String)>,
}

impl GameActor {
    /// A new game actor (not started).
    pub fn new(
        id: Uuid,
        game: Game,
        options: GameOptions,
        secrets: Secrets,
        shared: Arc<GameShared>,
        permit: Option<Permit>,
    ) -> GameActor {
        let clock = options.time_control.map(Clock::new);
        let log = EventLog::new(shared.event_history);
        // A game created with moves (from a PGN) is a game under way, not one nobody plays.
        let moved = !game.history().is_empty();
        GameActor {
            id,
            game,
            options,
            secrets,
            clock,
            draw_offer: None,
            subscribers: Vec::new(),
            next_subscriber: 0,
            log,
            idle_timer: None,
            flag_timer: None,
            stop_reason: StopReason::Stopped,
            shared,
            engine: None,
            opponent: None,
            next_engine: 0,
            next_analysis: 0,
            permit,
            moved,
            created: std::time::SystemTime::now(),
            engine_seat: None,
        }
    }

    fn caller(&self, token: Option<&str>) -> Caller {
        let Some(token) = token else {
            return Caller::Anonymous;
        };
        let eq =
            |secret: &str| constant_time_eq::constant_time_eq(secret.as_bytes(), token.as_bytes());
        if eq(&self.secrets.admin) {
            Caller::Admin
        } else if eq(&self.secrets.white) {
            Caller::Seat(Color::White)
        } else if eq(&self.secrets.black) {
            Caller::Seat(Color::Black)
        } else {
            Caller::Anonymous
        }
    }

    fn snapshot(&self) -> GameSnapshot {
        let now = std::time::Instant::now();
        GameSnapshot {
            id: self.id,
            game: self.game.clone(),
            version: self.log.version(),
            clocks: self.clock.as_ref().map(|c| c.view(now)),
            draw_offer: self.draw_offer.map(Into::into),
            idle_timeout_secs: self.options.idle_timeout.map_or(0, |d| d.as_secs()),
            time_control: self.options.time_control,
            has_webhook: self.options.webhook.is_some(),
            created: self.created,
            engine_seat: self.engine_seat.clone(),
        }
    }

    /// Re-arms the idle timer; called for every message.
    fn touch(&mut self, ctx: &mut Context<Self>) {
        if let Some(handle) = self.idle_timer.take() {
            ctx.cancel_future(handle);
        }
        if let Some(idle) = self.options.idle_timeout {
            self.idle_timer = Some(ctx.run_later(idle, |act, ctx| {
                act.stop_reason = StopReason::IdleTimeout;
                ctx.stop();
            }));
        }
    }

    /// Schedules the flag check for the running clock.
    fn arm_flag_timer(&mut self, ctx: &mut Context<Self>) {
        if let Some(handle) = self.flag_timer.take() {
            ctx.cancel_future(handle);
        }
        let now = std::time::Instant::now();
        if let Some(wait) = self.clock.as_ref().and_then(|c| c.time_to_flag(now)) {
            self.flag_timer = Some(ctx.run_later(wait + Duration::from_millis(1), |act, ctx| {
                act.flag_timer = None;
                act.check_flag(ctx);
            }));
        }
    }

    /// Ends the game if the running side's time is out. Returns whether it did.
    fn check_flag(&mut self, ctx: &mut Context<Self>) -> bool {
        let now = std::time::Instant::now();
        let Some(loser) = self.clock.as_ref().and_then(|c| c.flagged(now)) else {
            if self.clock.as_ref().is_some_and(|c| c.running().is_some()) {
                self.arm_flag_timer(ctx);
            }
            return false;
        };
        if self.game.flag(loser).is_ok() {
            self.end_without_move(now);
            self.after_game_change(ctx);
            self.release_engine_if_over();
        }
        true
    }

    /// Stops the clocks and publishes the end of a game decided without a move.
    fn end_without_move(&mut self, now: std::time::Instant) {
        if let Some(c) = self.clock.as_mut() {
            c.stop(now);
        }
        self.draw_offer = None;
        let clocks = self.clock.as_ref().map(|c| c.view(now));
        self.publish(EventKind::GameEnd {
            status: self.game.status().into(),
            clocks,
        });
    }

    fn publish(&mut self, event: EventKind) {
        // Every change of the game is published: a finished game stops counting against its
        // creator's unfinished games here, whichever way it ended.
        if self.game.is_over() {
            self.permit = None;
        }
        let frame = self.log.push(&event);
        crate::metrics::count_event();
        // A subscriber whose queue is full or closed is dropped; it reconnects and catches up.
        self.subscribers
            .retain(|(_, tx)| tx.try_send(frame.clone()).is_ok());
    }

    fn require_admin(caller: Caller) -> Result<(), ApiError> {
        match caller {
            Caller::Admin => Ok(()),
            _ => Err(ApiError::forbidden(
                "this action needs the game's admin secret",
            )),
        }
    }

    fn require_seat(caller: Caller) -> Result<Color, ApiError> {
        match caller {
            Caller::Seat(c) => Ok(c),
            _ => Err(ApiError::forbidden(
                "this action needs a player's seat secret",
            )),
        }
    }

    fn play_move(
        &mut self,
        caller: Caller,
        input: MoveInput,
        ctx: &mut Context<Self>,
    ) -> Result<PlayedMove, ApiError> {
        let turn = self.game.position().turn();
        match caller {
            Caller::Admin => {}
            Caller::Seat(c) if c == turn => {}
            Caller::Seat(_) => {
                return Err(ApiError::new(
                    ErrorCode::NotYourTurn,
                    format!("it is {turn}'s move"),
                ))
            }
            Caller::Anonymous => {
                return Err(ApiError::forbidden(
                    "a move needs the secret of the side to move (Authorization: Bearer <secret>)",
                ))
            }
        }
        if self.game.is_over() {
            return Err(ApiError::from(chessd_core::game::GameError::GameOver(
                self.game.status().clone(),
            )));
        }
        if self.check_flag(ctx) {
            return Err(ApiError::new(
                ErrorCode::GameOver,
                format!("{turn} ran out of time; the game is over"),
            ));
        }
        let first_move = self.game.history().is_empty();
        let played = match input {
            MoveInput::Uci(text) => self.game.play_uci(&text),
            MoveInput::San(text) => self.game.play_san(&text),
            MoveInput::Squares {
                from,
                to,
                promotion,
            } => self.game.play_squares(from, to, promotion),
        }
        .map_err(ApiError::from)?
        .clone();
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
            self.publish(EventKind::DrawDeclined { by: turn.into() });
        }
        if self.game.is_over() {
            self.draw_offer = None;
        }
        let clocks = self.clock.as_ref().map(|c| c.view(now));
        self.publish(EventKind::Move {
            ply: self.game.history().len(),
            uci: played.uci.clone(),
            san: played.san.clone(),
            fen: self.game.position().fen(),
            status: self.game.status().into(),
            clocks,
        });
        self.arm_flag_timer(ctx);
        Ok(played)
    }

    /// Replaces the game (new position, PGN or restored state), keeping id, secrets and options.
    fn reinitialise(
        &mut self,
        game: Game,
        clock: Option<Clock>,
        draw_offer: Option<Color>,
        ctx: &mut Context<Self>,
    ) {
        self.game = game;
        self.clock = clock;
        self.draw_offer = draw_offer;
        // A game loaded with moves is a game under way, not one nobody plays.
        if !self.game.history().is_empty() {
            self.moved = true;
        }
        // A game that is under way resumes with the side to move's time running; a game with no
        // move yet starts its clocks with the first move, as a new game does.
        if let Some(clock) = self.clock.as_mut() {
            if !self.game.is_over() && !self.game.history().is_empty() {
                clock.start(self.game.position().turn(), std::time::Instant::now());
            }
        }
        self.log.clear_history();
        self.publish(EventKind::Reset {
            fen: self.game.position().fen(),
            status: self.game.status().into(),
        });
        self.arm_flag_timer(ctx);
    }

    fn act(
        &mut self,
        caller: Caller,
        action: Action,
        ctx: &mut Context<Self>,
    ) -> Result<Option<PlayedMove>, ApiError> {
        let now = std::time::Instant::now();
        match action {
            Action::Move(input) => return self.play_move(caller, input, ctx).map(Some),
            Action::Resign(side) => {
                let loser = match (caller, side) {
                    (Caller::Seat(c), None) => c,
                    (Caller::Seat(c), Some(s)) if c == s => c,
                    (Caller::Admin, Some(s)) => s,
                    (Caller::Admin, None) => {
                        return Err(ApiError::invalid_request(
                            "the admin must name the side that resigns",
                        ))
                    }
                    _ => {
                        return Err(ApiError::forbidden(
                            "only a player may resign for their side",
                        ))
                    }
                };
                self.game.resign(loser)?;
                self.end_without_move(now);
            }
            Action::OfferDraw => {
                let by = Self::require_seat(caller)?;
                if self.game.is_over() {
                    return Err(ApiError::from(chessd_core::game::GameError::GameOver(
                        self.game.status().clone(),
                    )));
                }
                if self.draw_offer == Some(!by) {
                    self.game.draw_by_agreement()?;
                    self.end_without_move(now);
                } else if self.draw_offer != Some(by) {
                    self.draw_offer = Some(by);
                    self.publish(EventKind::DrawOffered { by: by.into() });
                }
            }
            Action::AcceptDraw => {
                let by = Self::require_seat(caller)?;
                if self.draw_offer != Some(!by) {
                    return Err(ApiError::new(
                        ErrorCode::NoDrawToClaim,
                        "there is no draw offer from the opponent",
                    ));
                }
                self.game.draw_by_agreement()?;
                self.end_without_move(now);
            }
            Action::DeclineDraw => {
                let by = Self::require_seat(caller)?;
                if self.draw_offer != Some(!by) {
                    return Err(ApiError::new(
                        ErrorCode::NoDrawToClaim,
                        "there is no draw offer from the opponent",
                    ));
                }
                self.draw_offer = None;
                self.publish(EventKind::DrawDeclined { by: by.into() });
            }
            Action::ClaimDraw => {
                if caller == Caller::Anonymous {
                    return Err(ApiError::forbidden(
                        "a claim needs a player's or the admin's secret",
                    ));
                }
                self.game.claim_draw()?;
                self.end_without_move(now);
            }
            Action::SetDraw(note) => {
                Self::require_admin(caller)?;
                self.game.set_draw(note)?;
                self.end_without_move(now);
            }
            Action::SetWinner(color, note) => {
                Self::require_admin(caller)?;
                self.game.set_winner(color, note)?;
                self.end_without_move(now);
            }
            Action::LoadFen(fen) => {
                Self::require_admin(caller)?;
                let pos = Position::from_fen(&fen, FenMode::Strict)?;
                let game = Game::with_policy(pos, self.options.draw_policy);
                let clock = self.options.time_control.map(Clock::new);
                self.reinitialise(game, clock, None, ctx);
            }
            Action::LoadPgn(text) => {
                Self::require_admin(caller)?;
                let parsed = pgn::PgnReader::new(&text)
                    .with_policy(self.options.draw_policy)
                    .next()
                    .ok_or_else(|| ApiError::new(ErrorCode::InvalidPgn, "the PGN holds no game"))?
                    .map_err(|e| ApiError::new(ErrorCode::InvalidPgn, e.to_string()))?;
                let clock = self.options.time_control.map(Clock::new);
                self.reinitialise(parsed.game, clock, None, ctx);
            }
            Action::Restore(state) => {
                Self::require_admin(caller)?;
                let game = state.restore()?;
                let clock = state
                    .clock
                    .map(|c| Clock::with_remaining(c.control, c.white_ms, c.black_ms));
                self.options.time_control = clock.as_ref().map(Clock::control);
                self.options.draw_policy = game.policy();
                self.reinitialise(game, clock, state.draw_offer.map(Into::into), ctx);
            }
            Action::SetOptions(patch) => {
                Self::require_admin(caller)?;
                if let Some(policy) = patch.draw_policy.filter(|p| *p != self.game.policy()) {
                    if self.game.is_over() {
                        return Err(ApiError::new(
                            ErrorCode::GameOver,
                            "the draw policy of a finished game cannot change",
                        ));
                    }
                    // Replaying under the new policy re-derives the status (a repetition that
                    // was only claimable may now end the game).
                    let mut game = Game::with_policy(*self.game.start_position(), policy);
                    for played in self.game.history() {
                        game.play(played.mv).map_err(ApiError::internal)?;
                    }
                    self.options.draw_policy = policy;
                    self.game = game;
                    if self.game.is_over() {
                        self.end_without_move(now);
                    }
                }
                if let Some(secs) = patch.idle_timeout_secs {
                    self.options.idle_timeout = (secs > 0).then(|| Duration::from_secs(secs));
                    self.touch(ctx);
                }
            }
            Action::Stop => {
                Self::require_admin(caller)?;
                self.stop_reason = StopReason::Stopped;
                ctx.stop();
            }
        }
        Ok(None)
    }

    fn saved_state(&self) -> SavedState {
        let now = std::time::Instant::now();
        let clock = self.clock.as_ref().map(|c| SavedClock {
            control: c.control(),
            white_ms: c.remaining(Color::White, now),
            black_ms: c.remaining(Color::Black, now),
        });
        SavedState::capture(&self.game, clock, self.draw_offer.map(Into::into))
    }
}

impl Actor for GameActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        self.touch(ctx);
        if let Some(after) = self.options.abandon_after {
            ctx.run_later(after, |act, ctx| {
                if !act.moved {
                    act.stop_reason = StopReason::Abandoned;
                    ctx.stop();
                }
            });
        }
    }

    fn stopped(&mut self, ctx: &mut Context<Self>) {
        engine::on_stop(self, ctx);
        self.shared.registry.remove(&self.id);
        self.publish(EventKind::Stopped {
            reason: self.stop_reason.as_str().to_string(),
        });
        self.subscribers.clear();
        let info = TerminateInfo {
            id: self.id,
            reason: self.stop_reason,
            state: self.saved_state(),
        };
        tracing::info!(game = %self.id, reason = self.stop_reason.as_str(), "game stopped");
        self.shared.hooks.fire(self.options.webhook.take(), info);
    }
}

impl Handler<GetSnapshot> for GameActor {
    type Result = MessageResult<GetSnapshot>;
    fn handle(&mut self, _: GetSnapshot, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        MessageResult(self.snapshot())
    }
}

impl Handler<SaveState> for GameActor {
    type Result = MessageResult<SaveState>;
    fn handle(&mut self, _: SaveState, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        MessageResult(self.saved_state())
    }
}

impl Handler<Command> for GameActor {
    type Result = Result<ActionReply, ApiError>;
    fn handle(&mut self, msg: Command, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        let caller = self.caller(msg.token.as_deref());
        let changes_game = matches!(
            msg.action,
            Action::Move(_) | Action::LoadFen(_) | Action::LoadPgn(_) | Action::Restore(_)
        );
        if changes_game && self.engine.as_ref().is_some_and(|a| a.locks_game()) {
            // Checked after the secret, so a stranger still learns nothing but `forbidden`.
            if caller == Caller::Anonymous {
                return Err(ApiError::forbidden("this action needs a secret"));
            }
            return Err(ApiError::new(
                ErrorCode::EngineBusy,
                "the engine is choosing its move for this game; wait for it",
            ));
        }
        let played = self.act(caller, msg.action, ctx)?;
        if changes_game {
            self.after_game_change(ctx);
            self.engine_turn(ctx);
        }
        self.release_engine_if_over();
        Ok(ActionReply {
            snapshot: self.snapshot(),
            played,
        })
    }
}

impl Handler<Subscribe> for GameActor {
    type Result = MessageResult<Subscribe>;
    fn handle(&mut self, msg: Subscribe, ctx: &mut Context<Self>) -> Self::Result {
        self.touch(ctx);
        self.next_subscriber += 1;
        let id = self.next_subscriber;
        self.subscribers.push((id, msg.events));
        let missed = msg.since.and_then(|v| self.log.since(v));
        MessageResult(Subscription {
            id,
            caller: self.caller(msg.token.as_deref()),
            snapshot: self.snapshot(),
            missed,
        })
    }
}

impl Handler<Unsubscribe> for GameActor {
    type Result = ();
    fn handle(&mut self, msg: Unsubscribe, ctx: &mut Context<Self>) {
        self.touch(ctx);
        self.subscribers.retain(|(id, _)| *id != msg.0);
    }
}

impl Handler<Shutdown> for GameActor {
    type Result = ();
    fn handle(&mut self, _: Shutdown, ctx: &mut Context<Self>) {
        self.stop_reason = StopReason::Shutdown;
        ctx.stop();
    }
}

/// Starts a game actor for `game` and registers it. Returns its id and secrets.
/// `reservation` is the game's place in the registry, `permit` its place among its creator's
/// unfinished games.
pub fn spawn_game(
    shared: &Arc<GameShared>,
    reservation: Reservation<'_>,
    game: Game,
    options: GameOptions,
    permit: Option<Permit>,
) -> (Uuid, Secrets, actix::Addr<GameActor>) {
    let id = Uuid::new_v4();
    let secrets = Secrets::generate();
    let actor = GameActor::new(id, game, options, secrets.clone(), shared.clone(), permit);
    let addr = actor.start();
    shared.registry.insert(reservation, id, addr.clone());
    (id, secrets, addr)
}
