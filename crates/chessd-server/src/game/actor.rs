//! `GameActor`: one actix actor per game. Every request is one [`Envelope`] handled
//! atomically: establish the caller once, check what the request needs, validate, apply, bump
//! the version, publish the event, re-arm the idle timer. A rejected request changes nothing.
//!
//! With a store, a change is written before anyone hears of it: its event and the request's
//! answer are held until the write is committed, and requests that come meanwhile wait, so that
//! no one ever sees a change that a crash could take back.
//!
//! Here: the actor, its start and stop, and the envelope handler. `actions.rs` applies requests,
//! `commits.rs` keeps and publishes them, `timers.rs` holds the idle, eviction and flag timers;
//! `engine/`, `ponder.rs` and `chess2.rs` are the engines' and the Chess 2 bot's turns.

use std::{collections::VecDeque, sync::Arc, time::Duration};

use actix::{Actor, ActorContext, Context, Handler, SpawnHandle};
use chessd_core::Color;
use tokio::sync::mpsc;
use uuid::Uuid;

mod actions;
mod chess2;
mod commits;
mod engine;
mod in_game;
mod ponder;
mod timers;

use crate::{
    admission::Permit,
    game::{
        board::Board,
        clock::Clock,
        command::{Envelope, Request, Subscription},
        engine_state::{EngineState, Opponent},
        engines::{EngineFactory, StartedEngine},
        events::{EventFrame, EventKind, EventLog},
        hooks::{Hooks, StopReason, TerminateInfo},
        idempotency::{KeptAnswer, KeptKey, KeyBook, KeyScope},
        journal::StoredOpponent,
        replies::GameSnapshot,
        secrets::Caller,
        secrets::SecretDigests,
        state::{SavedClock, SavedState},
        GameError,
    },
    store::{Fence, Store, WriteOp},
};

pub(crate) use crate::game::{options::GameOptions, secrets::Secrets};

/// Called with a game's id when its actor stops (the registry forgets it).
pub(crate) type OnStop = Arc<dyn Fn(Uuid) + Send + Sync>;

/// What every game actor shares: hooks, event settings, the engine factory, and who to tell
/// when a game stops.
pub(crate) struct GameEnv {
    /// Terminate hooks.
    pub hooks: Arc<Hooks>,
    /// Events kept per game for reconnecting clients.
    pub event_history: usize,
    /// Idempotency keys kept per game and caller.
    pub keys_per_caller: usize,
    /// Starts the engines games attach.
    pub engines: EngineFactory,
    /// Told when a game's actor stops.
    pub on_stop: OnStop,
    /// Where games are kept.
    pub store: Store,
    /// A stored game untouched this long leaves memory (it comes back at its next request).
    pub evict_after: Option<Duration>,
    /// Where chessd's Chess 2 player thinks.
    pub bots: crate::game::bot_pool::BotPool,
    /// Packs the journals of stored games that leave memory.
    pub packer: Arc<crate::game::packing::Packer>,
    /// Wakes games at their deadlines (idle timeout, abandonment, eviction).
    pub sweeper: crate::game::sweeper::Sweeper<GameActor>,
}

/// One game.
pub(crate) struct GameActor {
    id: Uuid,
    game: Board,
    options: GameOptions,
    secrets: SecretDigests,
    clock: Option<Clock>,
    draw_offer: Option<Color>,
    subscribers: Vec<(u64, crate::game::chat::Room, mpsc::Sender<Arc<EventFrame>>)>,
    next_subscriber: u64,
    log: EventLog,
    /// When the actor started (a game nobody moves in is abandoned from then).
    started: std::time::Instant,
    /// When the game last had a request.
    last_request: std::time::Instant,
    /// The sweeper's tick this game is to be woken at to check its deadlines (0: none).
    check_tick: u32,
    flag_timer: Option<SpawnHandle>,
    stop_reason: StopReason,
    env: Arc<GameEnv>,
    /// The game's engine work.
    engine: EngineState,
    /// The creator's place among its unfinished games; given back when the game ends.
    permit: Option<Permit>,
    /// Whether a move has been played since the actor started (else it may be abandoned).
    moved: bool,
    /// When the game was created.
    created: std::time::SystemTime,
    /// The game's row in the store, when the store keeps games.
    stored: Option<i64>,
    /// The shard lease its writes are made under (in a cluster).
    fence: Option<Fence>,
    /// The result last written to the store (the games row's `status`).
    stored_result: chessd_core::game::GameResult,
    /// Writes sent to the store and not yet committed. While there are any, new requests wait
    /// in the backlog, and events and answers are held.
    in_flight: u32,
    /// What waits for the writes in flight (events, answers, requests): boxed, and only
    /// while something waits, since an idle game has nothing waiting.
    waiting: Option<Box<Waiting>>,
    /// The actor stops once the writes in flight are committed.
    stopping: bool,
    /// The terminate webhook stored with the game's stop, delivered once the actor stops.
    outbox: Option<Box<crate::store::OutboxRow>>,
    /// Whether chessd's Chess 2 player is searching its move.
    chess2_thinking: bool,
    /// The answers kept for the idempotency keys of recent requests.
    keys: KeyBook,
    /// While a keyed request is carried out: its writes, sent together with its key once it
    /// is done (so that the change and the key are committed together or not at all).
    collecting: Option<Vec<WriteOp>>,
    /// The game's engine seats as set up: boxed, and only for games that have some.
    seats: Option<Box<Seats>>,
    /// Takeback and rematch offers and the chat: boxed, and only once a game has some.
    in_game: Option<Box<in_game::InGame>>,
    /// Who plays the game, for a game created with players (a seek accepted by players).
    players: Option<Arc<crate::game::players::GamePlayers>>,
}

/// A game's engine seats as set up (most games have none).
#[derive(Default)]
pub(super) struct Seats {
    /// Opponent engines started with the game (one, or two when engines play both sides),
    /// attached when the actor starts.
    pub(super) pending_opponents: Vec<(StartedEngine, Opponent)>,
    /// The engine sessions chessd's Chess 2 players count as; given back when the game ends.
    pub(super) bot_permits: Vec<Permit>,
    /// The engine opponents the game was created with, as stored (kept in its options).
    pub(super) stored_opponents: Vec<StoredOpponent>,
    /// The keyed engine play waiting for the engine's move (a repeat meanwhile is told so).
    pub(super) engine_play_key: Option<(KeyScope, String)>,
}

/// An answer held until the writes before it are committed; told the error if one failed.
type HeldAnswer = Box<dyn FnOnce(Option<&str>)>;

/// What waits for a game's writes in flight to be committed.
#[derive(Default)]
pub(super) struct Waiting {
    /// Events waiting for their commit before they go to subscribers.
    pub(super) held: VecDeque<Arc<EventFrame>>,
    /// Answers waiting for the commit of what they report.
    pub(super) answers: VecDeque<HeldAnswer>,
    /// Requests that came while writes were in flight: handled, in order, once they are
    /// committed, so that every request sees only committed state.
    pub(super) backlog: VecDeque<Envelope>,
}

impl GameActor {
    /// A new game actor (not started). `opponents`, engines already started, are attached as
    /// the game's opponent (and rival, when two engines play) when the actor starts.
    pub(crate) fn new(
        id: Uuid,
        game: Board,
        options: GameOptions,
        secrets: SecretDigests,
        env: Arc<GameEnv>,
        permit: Option<Permit>,
        opponents: Vec<(StartedEngine, Opponent)>,
    ) -> GameActor {
        let clock = options.time_control.map(Clock::new);
        let log = EventLog::new(env.event_history);
        let env_keys = env.keys_per_caller;
        // A game created with moves (from a PGN) is a game under way, not one nobody plays.
        let moved = game.has_started();
        let mut engine = EngineState::default();
        // chessd's Chess 2 player names its seats as an engine opponent does.
        for bot in &options.chess2_bots {
            engine.seat(bot.plays, &bot.engine);
        }
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
            started: std::time::Instant::now(),
            last_request: std::time::Instant::now(),
            check_tick: 0,
            flag_timer: None,
            stop_reason: StopReason::Stopped,
            env,
            engine,
            permit,
            moved,
            created: std::time::SystemTime::now(),
            stored: None,
            fence: None,
            stored_result: chessd_core::game::GameResult::Ongoing,
            in_flight: 0,
            waiting: None,
            stopping: false,
            outbox: None,
            chess2_thinking: false,
            keys: KeyBook::new(env_keys),
            collecting: None,
            seats: (!opponents.is_empty()).then(|| {
                Box::new(Seats {
                    pending_opponents: opponents,
                    ..Seats::default()
                })
            }),
            in_game: None,
            players: None,
        }
    }

    /// Sends `value` to `reply` now, or once the writes in flight are committed (with the
    /// store's error instead if one fails).
    pub(super) fn answer<T: 'static>(
        &mut self,
        reply: crate::game::command::Reply<T>,
        value: Result<T, GameError>,
    ) {
        if self.in_flight == 0 {
            let _ = reply.send(value);
            return;
        }
        self.waiting().answers.push_back(Box::new(move |failure| {
            let _ = reply.send(match failure {
                Some(e) => Err(GameError::Store(e.to_string())),
                None => value,
            });
        }));
    }

    /// The engine seats, made when first needed.
    pub(super) fn seats_mut(&mut self) -> &mut Seats {
        self.seats.get_or_insert_with(Box::default)
    }

    /// The engine opponents the game was created with, as stored.
    pub(super) fn stored_opponents(&self) -> &[StoredOpponent] {
        self.seats.as_ref().map_or(&[], |s| &s.stored_opponents)
    }

    /// Sets the opponents as stored and the Chess 2 players' permits (a box only when there
    /// are some).
    fn set_seats(&mut self, stored_opponents: Vec<StoredOpponent>, bot_permits: Vec<Permit>) {
        if !stored_opponents.is_empty() || !bot_permits.is_empty() {
            let seats = self.seats_mut();
            seats.stored_opponents = stored_opponents;
            seats.bot_permits = bot_permits;
        }
    }

    /// What waits for the writes in flight, made when first needed.
    pub(super) fn waiting(&mut self) -> &mut Waiting {
        self.waiting.get_or_insert_with(Box::default)
    }

    /// Whether no request waits for the writes in flight.
    pub(super) fn no_backlog(&self) -> bool {
        self.waiting.as_ref().is_none_or(|w| w.backlog.is_empty())
    }

    /// Stops the actor for `reason`. A stop that ends the game is stored first, so that the
    /// game cannot come back from the store once the stop is answered.
    fn end_actor(&mut self, reason: StopReason, ctx: &mut Context<Self>) {
        self.stop_reason = reason;
        match self.stored {
            Some(game) if reason.ends_the_game() => {
                self.stopping = true;
                let now_ms = crate::store::now_ms();
                // The webhook enters the outbox in the stop's own transaction.
                self.outbox = self.options.webhook.as_ref().map(|url| {
                    let info = self.terminate_info();
                    Box::new(self.env.hooks.terminate_webhook(url, &info))
                });
                let webhook = self.outbox.as_deref().cloned();
                self.write(
                    WriteOp::Stop {
                        game,
                        now_ms,
                        webhook,
                    },
                    ctx,
                );
            }
            _ => ctx.stop(),
        }
    }

    /// What the terminate hooks receive.
    fn terminate_info(&self) -> TerminateInfo {
        TerminateInfo {
            id: self.id,
            reason: self.stop_reason,
            state: self.public_state(),
        }
    }

    fn caller(&self, token: Option<&str>) -> Caller {
        self.secrets.caller(token)
    }

    fn snapshot(&self) -> GameSnapshot {
        let now = std::time::Instant::now();
        GameSnapshot {
            id: self.id,
            game: self.game.clone(),
            version: self.log.version(),
            clocks: self.clock.as_ref().map(|c| c.view(now)),
            draw_offer: self.draw_offer,
            idle_timeout_secs: self.options.idle_timeout.map_or(0, |d| d.as_secs()),
            time_control: self.options.time_control,
            has_webhook: self.options.webhook.is_some(),
            created: self.created,
            engine_seats: self.engine.seats.clone(),
            offers: self.offers(),
            players: self.players.clone(),
        }
    }

    fn saved_clock(&self) -> Option<SavedClock> {
        let now = std::time::Instant::now();
        self.clock.as_ref().map(|c| SavedClock {
            control: c.control(),
            white_ms: c.remaining(Color::White, now),
            black_ms: c.remaining(Color::Black, now),
        })
    }

    /// The whole state, as the store keeps it (a Chess 2 bid not yet revealed included).
    fn saved_state(&self) -> SavedState {
        SavedState::capture(&self.game, self.saved_clock(), self.draw_offer)
    }

    /// The state as clients and webhooks may see it: [`SavedState::capture_public`].
    fn public_state(&self) -> SavedState {
        SavedState::capture_public(&self.game, self.saved_clock(), self.draw_offer)
    }
}

impl Actor for GameActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        self.started = std::time::Instant::now();
        self.touch(ctx);
        // A game resumed from the store with its clock running.
        self.arm_flag_timer(ctx);
        let mut opponents = self
            .seats
            .as_mut()
            .map(|s| std::mem::take(&mut s.pending_opponents))
            .unwrap_or_default()
            .into_iter();
        let mut installed = Ok(());
        if let Some((started, opponent)) = opponents.next() {
            installed = self.install_engine(started, Some(opponent), ctx);
        }
        if let Some((started, opponent)) = opponents.next() {
            installed = installed.and_then(|()| self.install_rival(started, opponent, ctx));
        }
        if let Err(e) = installed {
            // Creation refuses engine opponents for a Chess 2 game, so this is a bug's trace.
            tracing::warn!(game = %self.id, error = %e, "engine opponent not installed");
        }
        // A Chess 2 game whose own player is due to act (new, or back from the store).
        self.chess2_bot_turn(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Context<Self>) {
        // Dropping the engines' handles quits them.
        self.engine.attached = None;
        self.engine.rival = None;
        (self.env.on_stop)(self.id);
        // Not a change of the game: it bumps no version, and a game that stays in the store
        // (server shutdown, a failed write) comes back at the version it had.
        let stopped = self.log.transient(&EventKind::Stopped {
            reason: self.stop_reason.as_str().to_string(),
        });
        self.broadcast(stopped);
        self.subscribers.clear();
        // A stored game that leaves memory (evicted, or over) has its journal packed; one that
        // moved to another node is packed there.
        if self.stored.is_some()
            && (self.stop_reason == StopReason::Evicted || self.stop_reason.ends_the_game())
        {
            self.env.packer.pack_later(self.id, self.fence);
        }
        // A game that the store keeps comes back after a shutdown or a failed write; any
        // other stop ends it (in memory, a shutdown ends it too).
        let ends = self.stop_reason.ends_the_game() || self.stored.is_none();
        if !ends {
            tracing::debug!(game = %self.id, reason = self.stop_reason.as_str(), "game left memory");
            return;
        }
        let info = self.terminate_info();
        tracing::info!(game = %self.id, reason = self.stop_reason.as_str(), "game stopped");
        // With a store, the webhook went into the outbox with the stop; in memory it is made now.
        let webhook = match self.stored {
            Some(_) => self.outbox.take().map(|row| *row),
            None => self
                .options
                .webhook
                .as_ref()
                .map(|url| self.env.hooks.terminate_webhook(url, &info)),
        };
        self.env.hooks.fire(webhook, info);
    }
}

impl Handler<Envelope> for GameActor {
    type Result = ();

    /// The one entry of every request: the caller is established and the request's need
    /// checked here, once, before anything is done.
    fn handle(&mut self, msg: Envelope, ctx: &mut Context<Self>) {
        if self.in_flight > 0 || self.stopping {
            self.waiting().backlog.push_back(msg);
            return;
        }
        if !matches!(msg.request, Request::Leave(_) | Request::Unsubscribe(_)) {
            self.touch(ctx);
        }
        let caller = self.caller(msg.token.as_deref());
        let need = msg.request.need();
        if !need.allows(caller) {
            refuse(msg.request, need.refusal(msg.token.is_some()));
            return;
        }
        match msg.request {
            Request::Snapshot(reply) => {
                self.answer(reply, Ok(self.snapshot()));
            }
            Request::SavedState(reply) => {
                self.answer(reply, Ok(self.public_state()));
            }
            Request::Act(action, conditions, reply) => {
                let answer = self.act_under(caller, action, conditions, ctx);
                self.answer(reply, answer);
            }
            Request::Subscribe {
                since,
                events,
                reply,
            } => {
                self.next_subscriber += 1;
                let id = self.next_subscriber;
                self.subscribers
                    .push((id, crate::game::chat::Room::of(caller), events));
                let missed = since.and_then(|v| self.log.since(v, &self.game));
                self.answer(
                    reply,
                    Ok(Subscription {
                        id,
                        caller,
                        snapshot: self.snapshot(),
                        missed,
                    }),
                );
            }
            Request::Unsubscribe(id) => {
                self.touch(ctx);
                self.subscribers.retain(|(sid, ..)| *sid != id);
                if self.subscribers.is_empty() {
                    let grace = self.env.engines.config().unwatched_analysis_secs;
                    self.end_analysis_unwatched(Duration::from_secs(grace.max(1)), ctx);
                }
            }
            Request::Leave(reason) => {
                self.end_actor(reason, ctx);
            }
            Request::Engine(action, reply) => self.handle_engine(caller, action, reply, ctx),
            Request::Authorize(_, reply) => {
                self.answer(reply, Ok(()));
            }
            Request::Chat { text, keep, reply } => {
                let line = self.chat(caller, text, keep);
                self.answer(reply, line);
            }
            Request::ChatLog(reply) => {
                let lines = self.chat_log(caller);
                self.answer(reply, lines);
            }
            Request::Identify(reply) => self.answer(reply, Ok(caller)),
        }
    }
}

/// Answers a refused request with `error`.
fn refuse(request: Request, error: GameError) {
    match request {
        Request::Snapshot(r) => drop(r.send(Err(error))),
        Request::SavedState(r) => drop(r.send(Err(error))),
        Request::Act(_, _, r) => drop(r.send(Err(error))),
        Request::Subscribe { reply, .. } => drop(reply.send(Err(error))),
        Request::Engine(_, r) => drop(r.send(Err(error))),
        Request::Authorize(_, r) => drop(r.send(Err(error))),
        Request::Chat { reply, .. } => drop(reply.send(Err(error))),
        Request::ChatLog(r) => drop(r.send(Err(error))),
        Request::Identify(r) => drop(r.send(Err(error))),
        Request::Unsubscribe(_) | Request::Leave(_) => {}
    }
}

impl GameActor {}

/// What a new game actor starts from.
pub(crate) struct ActorStart {
    /// The game's id.
    pub id: Uuid,
    /// The game.
    pub game: Board,
    /// Its options.
    pub options: GameOptions,
    /// Digests of its secrets.
    pub secrets: SecretDigests,
    /// Its row in the store (`None` in memory).
    pub stored: Option<i64>,
    /// The shard lease its writes are made under (in a cluster).
    pub fence: Option<Fence>,
    /// Its place among its creator's unfinished games.
    pub permit: Option<Permit>,
    /// The engine sessions its Chess 2 players count as.
    pub bot_permits: Vec<Permit>,
    /// Engines already started, to become the game's opponent (and rival, when two engines
    /// play).
    pub opponents: Vec<(StartedEngine, Opponent)>,
    /// The opponents as stored.
    pub stored_opponents: Vec<StoredOpponent>,
    /// When the game was created (as stored, so that its PGN date is the same from memory and
    /// from the store).
    pub created: std::time::SystemTime,
    /// Who plays it, for a game created with players.
    pub players: Option<Arc<crate::game::players::GamePlayers>>,
}

/// Starts a game actor.
pub(crate) fn start_game(env: Arc<GameEnv>, start: ActorStart) -> actix::Addr<GameActor> {
    let mut actor = GameActor::new(
        start.id,
        start.game,
        start.options,
        start.secrets,
        env,
        start.permit,
        start.opponents,
    );
    actor.stored = start.stored;
    actor.fence = start.fence;
    actor.set_seats(start.stored_opponents, start.bot_permits);
    actor.created = start.created;
    actor.players = start.players;
    // The games row holds the result the game was created with (a PGN may end it already).
    actor.stored_result = actor.game.status().result;
    actor.start()
}

/// Brings a stored game back into memory: its journal replayed through the rules, its clocks
/// resumed as they stood, its events kept for clients that catch up.
#[allow(
    clippy::too_many_arguments,
    reason = "the parts of a stored game, each its own"
)]
pub(crate) fn resume_game(
    env: Arc<GameEnv>,
    stored: crate::store::StoredGame,
    journal: crate::game::journal::StoredJournal,
    opponents: Vec<(StartedEngine, Opponent)>,
    bot_permits: Vec<Permit>,
    fence: Option<Fence>,
    players: Option<Arc<crate::game::players::GamePlayers>>,
) -> Result<actix::Addr<GameActor>, GameError> {
    let corrupt = |what: &str, e: &dyn std::fmt::Display| {
        GameError::Internal(format!("stored game {}: {what}: {e}", stored.id))
    };
    let secrets = SecretDigests::from_bytes(&stored.secrets)
        .ok_or_else(|| corrupt("secrets", &"not 96 bytes"))?;
    let replayed = crate::game::journal::replay_stored(
        &journal,
        env.event_history,
        std::time::Instant::now(),
    )?;
    let stored_opponents = journal.options.opponents();
    let options = journal.options.options();
    let mut actor = GameActor::new(
        stored.id,
        replayed.game,
        options,
        secrets,
        env,
        None,
        opponents,
    );
    // The PGN names the engines' seats even when the engines are gone.
    for record in &stored_opponents {
        actor.engine.seat(record.plays, &record.engine);
    }
    actor.set_seats(stored_opponents, bot_permits);
    actor.clock = replayed.clock;
    actor.draw_offer = replayed.draw_offer;
    actor.set_offers(replayed.offers);
    actor.log = replayed.log;
    actor.moved = actor.moved || !journal.entries.is_empty();
    actor.created = std::time::UNIX_EPOCH + Duration::from_millis(stored.created_ms.max(0) as u64);
    actor.stored = Some(stored.seq);
    actor.fence = fence;
    actor.players = players;
    actor.stored_result = actor.game.status().result;
    for row in &stored.keys {
        let (Some(scope), Ok(fingerprint)) = (
            KeyScope::from_code(row.scope),
            <[u8; 32]>::try_from(row.fingerprint.as_slice()),
        ) else {
            return Err(corrupt("idempotency key", &row.key));
        };
        actor.keys.keep(KeptKey {
            scope,
            key: row.key.clone(),
            fingerprint,
            answer: KeptAnswer {
                status: u16::try_from(row.status).unwrap_or(500),
                body: row.body.as_str().into(),
            },
        });
    }
    Ok(actor.start())
}

#[cfg(test)]
mod tests {
    use std::mem::size_of;

    /// Every live game's actor is one allocation of this size (plus its context): what only
    /// some games use (engines, a webhook, an outbox row, an analysis report) is boxed so that
    /// 100 000 idle games fit in 200 MiB (`chessd loadtest memory`).
    #[test]
    fn a_game_actor_stays_small() {
        let actor = size_of::<super::GameActor>();
        assert!(actor <= 896, "GameActor is {actor} bytes");
        let engines = size_of::<crate::game::engine_state::EngineState>();
        assert!(engines <= 96, "EngineState is {engines} bytes");
        let game = size_of::<chessd_core::game::Game>();
        assert!(game <= 288, "Game is {game} bytes");
    }
}
