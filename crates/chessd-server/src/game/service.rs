//! [`Games`]: the game layer's front door. It creates games (taking every place a game needs
//! before anything is built: the server's, the client's rate and quota, the opponent engine's
//! session) and finds them by id.

use std::sync::{Arc, Weak};

use dashmap::DashMap;
use uuid::Uuid;

use crate::{
    admission::{Admission, ClientKey, EngineRole, EngineUse},
    game::{
        actor::{resume_game, start_game, ActorStart, GameEnv, GameOptions, Secrets},
        command::OpponentSpec,
        engine_state::{bounded_limits, check_can_play, finite_limits, Opponent},
        engines::EngineFactory,
        handle::Reload,
        hooks::Hooks,
        journal::{setup_of, setup_text, StoredOpponent, StoredOptions},
        options::Chess2Bot,
        ownership::Ownership,
        registry::{GameRegistry, LiveGame, Reservation},
        GameError, GameHandle,
    },
    store::{Fence, GameOrder, GameSummary, NewGameRow, ResultFilter, Store, WriteOp},
};

/// Every game: those in memory, and (through the store) those that are not.
pub struct Games {
    registry: Arc<GameRegistry>,
    env: Arc<GameEnv>,
    admission: Admission,
    /// Games being brought back from the store, so that two requests load a game once.
    loading: DashMap<Uuid, Arc<tokio::sync::Mutex<()>>>,
    /// How a handle brings its game back when the actor has left memory (a stored game's; one
    /// for every handle, so that a handle holds no copy of its own).
    reload: Option<Reload>,
    /// Which games this node may hold (all of them, unless in a cluster).
    ownership: Arc<dyn Ownership>,
}

/// A game to create.
pub struct NewGame {
    /// The starting game (a position, or a PGN's moves played; or a Chess 2 game).
    pub game: crate::game::Board,
    /// Its options.
    pub options: GameOptions,
    /// Engines that play a side by themselves: none, one, or one for each side (an engine
    /// match, played as a normal game).
    pub opponents: Vec<OpponentSpec>,
    /// Who plays it, for a game created with players (stored with the game).
    pub players: Option<crate::game::players::GamePlayers>,
}

/// What [`Games`] is built from.
pub struct GamesParts {
    /// Most games in memory at once.
    pub max_games: usize,
    /// Terminate hooks.
    pub hooks: Arc<Hooks>,
    /// Events kept per game for reconnecting clients.
    pub event_history: usize,
    /// Idempotency keys kept per game and caller.
    pub keys_per_caller: usize,
    /// Starts the engines games attach.
    pub engines: EngineFactory,
    /// What each client may spend.
    pub admission: Admission,
    /// Where games are kept.
    pub store: Store,
    /// A stored game untouched this long leaves memory.
    pub evict_after: Option<std::time::Duration>,
    /// Which games this node may hold.
    pub ownership: Arc<dyn Ownership>,
}

impl Games {
    /// No games in memory yet; at most `max_games` at once. Games are kept in `store`, and
    /// leave memory when untouched for `evict_after`.
    pub fn new(parts: GamesParts) -> Arc<Games> {
        let GamesParts {
            max_games,
            hooks,
            event_history,
            keys_per_caller,
            engines,
            admission,
            store,
            evict_after,
            ownership,
        } = parts;
        let registry = Arc::new(GameRegistry::new(max_games));
        let forget = Arc::clone(&registry);
        let env = GameEnv {
            hooks,
            event_history,
            keys_per_caller,
            engines,
            on_stop: Arc::new(move |id| forget.remove(&id)),
            packer: crate::game::packing::Packer::new(store.clone()),
            store,
            evict_after,
            bots: crate::game::bot_pool::BotPool::default(),
            sweeper: crate::game::sweeper::Sweeper::new(),
        };
        let durable = env.store.is_durable();
        Arc::new_cyclic(|me| Games {
            registry,
            env: Arc::new(env),
            admission,
            loading: DashMap::new(),
            reload: durable.then(|| reload_through(me.clone())),
            ownership,
        })
    }

    /// The handle on live game `id`; a stored game's handle brings the game back when its
    /// actor has left memory.
    fn handle(&self, id: Uuid, game: LiveGame) -> GameHandle {
        GameHandle::new(id, game.addr, self.reload.clone(), game.fence)
    }

    /// The handle on live game `id`, if it is in memory.
    fn live(&self, id: &Uuid) -> Result<GameHandle, GameError> {
        self.registry.get(id).map(|game| self.handle(*id, game))
    }

    /// Registers the new actor `addr` of game `id`, made under `fence`, in the place
    /// `reservation` holds; gives its handle.
    fn register(
        &self,
        reservation: Reservation<'_>,
        id: Uuid,
        addr: actix::Addr<crate::game::actor::GameActor>,
        fence: Option<Fence>,
    ) -> GameHandle {
        let game = LiveGame { addr, fence };
        self.registry.insert(reservation, id, game.clone());
        self.handle(id, game)
    }

    /// Whether this node may serve the game in memory behind `handle` now: it holds the game's
    /// shard under the lease the game was loaded under. A game loaded under a lease the node
    /// has since lost is stale, even if the node holds the shard again under a newer lease:
    /// while the shard was elsewhere the game went on there, so its writes are fenced and its
    /// state must not be served either.
    fn standing(&self, handle: &GameHandle) -> Standing {
        match self.ownership.fence(&handle.id()) {
            Ok(fence) if fence == handle.fence() => Standing::Current,
            Ok(_) => Standing::Stale,
            Err(e) => Standing::Unsure(e),
        }
    }

    /// Tells a stale game to leave memory and waits (a little) until it has, so that the
    /// stored game can be brought back in its place.
    async fn evict_stale(&self, handle: &GameHandle) -> Result<(), GameError> {
        tracing::warn!(game = %handle.id(), "a stale copy of the game leaves memory (its shard's lease changed)");
        handle.leave_node();
        let deadline = tokio::time::Instant::now() + STALE_EVICTION_WAIT;
        while self.live(&handle.id()).is_ok_and(|h| h.same_actor(handle)) {
            if tokio::time::Instant::now() >= deadline {
                return Err(not_served_now(handle.id()));
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        Ok(())
    }

    /// The game with this id (text from a URL): in memory, or brought back from the store.
    pub async fn get(&self, raw_id: &str) -> Result<GameHandle, GameError> {
        let id = Uuid::parse_str(raw_id).map_err(|_| GameError::NotFound(raw_id.to_string()))?;
        if let Ok(handle) = self.live(&id) {
            match self.standing(&handle) {
                Standing::Current => return Ok(handle),
                Standing::Unsure(e) => return Err(e),
                Standing::Stale => self.evict_stale(&handle).await?,
            }
        }
        if !self.env.store.is_durable() {
            return Err(GameError::NotFound(id.to_string()));
        }
        // One loader per game; the others wait for it and then find the game in memory.
        let lock = self.loading.entry(id).or_default().clone();
        let _loading = lock.lock().await;
        let found = match self.live(&id) {
            Ok(handle) => match self.standing(&handle) {
                Standing::Current => Ok(handle),
                Standing::Unsure(e) => Err(e),
                Standing::Stale => Err(not_served_now(id)),
            },
            Err(_) => self.load(id).await,
        };
        self.loading.remove_if(&id, |_, l| Arc::ptr_eq(l, &lock));
        found
    }

    /// Brings a stored game back into memory.
    async fn load(&self, id: Uuid) -> Result<GameHandle, GameError> {
        let fence = self.ownership.fence(&id)?;
        let reservation = self.registry.reserve()?;
        let stored = self
            .env
            .store
            .load_game(&id)
            .await?
            .filter(|g| g.live)
            .ok_or_else(|| GameError::NotFound(id.to_string()))?;
        let journal = crate::game::journal::read_stored(&stored)?;
        let options = &journal.options;
        let mut opponents = Vec::new();
        if stored.result == "ongoing" {
            for record in options.opponents() {
                opponents.extend(self.restart_opponent(id, &record).await);
            }
        }
        let bot_permits = if stored.result == "ongoing" {
            self.restart_bots(id, &options.chess2_bots)
        } else {
            Vec::new()
        };
        let players = match self.env.store.players().filter(|_| stored.has_players) {
            Some(db) => db
                .game_players(&id)
                .await?
                .map(|row| Arc::new(crate::game::players::GamePlayers::from_row(&row))),
            None => None,
        };
        let addr = resume_game(
            Arc::clone(&self.env),
            stored,
            journal,
            opponents,
            bot_permits,
            fence,
            players,
        )?;
        let handle = self.register(reservation, id, addr, fence);
        tracing::debug!(game = %id, "game brought back from the store");
        // The shard may have moved while the game was read: checked once the game is in the
        // registry, so that either this check or the lease loop's eviction sees it.
        match self.standing(&handle) {
            Standing::Current => Ok(handle),
            Standing::Stale | Standing::Unsure(_) => {
                handle.leave_node();
                Err(not_served_now(id))
            }
        }
    }

    /// Creates a game for `client`. Every place the game needs is taken before anything is
    /// built, so a refusal costs nothing: the server's place, the client's rate and unfinished
    /// games, then the opponents' engine sessions. The opponent engines are started (and their
    /// handshakes done) before the game exists, so an engine failure creates no game.
    pub async fn create(
        &self,
        client: &ClientKey,
        new: NewGame,
    ) -> Result<(GameHandle, Secrets), GameError> {
        self.create_with_seat(client, new, None).await
    }

    /// [`Games::create`], with one seat proven by a secret of which only the digest is given
    /// (a seek's owner's): that seat's entry of the answered secrets is empty.
    pub(crate) async fn create_with_seat(
        &self,
        client: &ClientKey,
        new: NewGame,
        seat: Option<(chessd_core::Color, crate::game::secrets::KeptDigest)>,
    ) -> Result<(GameHandle, Secrets), GameError> {
        self.create_with_seats(client, new, seat.as_slice()).await
    }

    /// [`Games::create`], with the seats of `seats` proven by secrets of which only the digests
    /// are given (a seek's owner's, a rematch's players'): those seats' entries of the answered
    /// secrets are empty.
    pub(crate) async fn create_with_seats(
        &self,
        client: &ClientKey,
        new: NewGame,
        seats: &[(chessd_core::Color, crate::game::secrets::KeptDigest)],
    ) -> Result<(GameHandle, Secrets), GameError> {
        let mut new = new;
        check_opponents(&new.opponents)?;
        if matches!(new.game, crate::game::Board::Chess2(_)) {
            // Chess 2 is played by chessd's own player in the server, not an engine process.
            new.options.chess2_bots = std::mem::take(&mut new.opponents)
                .into_iter()
                .map(|spec| self.chess2_bot(spec, client))
                .collect::<Result<_, _>>()?;
        }
        let max_ms = self.env.engines.config().max_movetime_ms;
        for spec in &mut new.opponents {
            // The opponent's limits must end its searches by themselves, with sane values (no
            // limits at all: the clocks, or `movetime 500`), and within the configured time.
            spec.opponent.go = spec
                .opponent
                .go
                .take()
                .filter(|go| !go.is_empty())
                .map(finite_limits)
                .transpose()?;
            if let Some(go) = &spec.opponent.go {
                bounded_limits(go, max_ms)?;
            }
        }
        let id = self.ownership.new_id()?;
        let fence = self.ownership.fence(&id)?;
        let reservation = self.registry.reserve()?;
        self.admission.check_game_rate(client)?;
        let permit = self.admission.acquire_game(client)?;
        // chessd's Chess 2 players count as engine sessions, as engine opponents do.
        let bot_permits = new
            .options
            .chess2_bots
            .iter()
            .map(|_| self.admission.acquire_engine(client, chess2_player(id)))
            .collect::<Result<Vec<_>, _>>()?;
        let stored_opponents: Vec<StoredOpponent> = new
            .opponents
            .iter()
            .map(|spec| StoredOpponent {
                engine: spec.engine.clone(),
                plays: spec.opponent.plays,
                go: spec.opponent.go.clone(),
                client: client.stored(),
            })
            .collect();
        let mut opponents = Vec::with_capacity(new.opponents.len());
        for spec in new.opponents {
            let started = self
                .env
                .engines
                .start(client, &spec.engine, id, EngineRole::Opponent)
                .await?;
            check_can_play(
                &spec.engine,
                started.engine.identity(),
                new.game.chess()?.start_position(),
            )?;
            opponents.push((started, spec.opponent));
        }
        let created = std::time::SystemTime::now();
        let mut secrets = Secrets::generate();
        let mut digests = secrets.digests();
        for &(color, seat) in seats {
            digests = digests.with_seat(color, seat);
            match color {
                chessd_core::Color::White => secrets.white.clear(),
                chessd_core::Color::Black => secrets.black.clear(),
            }
        }
        // The game exists once it is stored: its creation is acknowledged after the commit.
        let stored = if self.env.store.is_durable() {
            let row = NewGameRow {
                id,
                created_ms: created
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as i64),
                secrets: digests.to_bytes(),
                setup: setup_text(&setup_of(&new.game, new.options.time_control)),
                options: json(&StoredOptions::of(&new.options, &stored_opponents))?,
                status: new.game.status().result.name().to_string(),
            };
            let created_ms = row.created_ms;
            let op = match &new.players {
                None => WriteOp::Create(row),
                // Who plays is committed with the game, or neither is.
                Some(players) => WriteOp::Batch(vec![
                    WriteOp::Create(row),
                    WriteOp::Players(players.row(id, created_ms)),
                ]),
            };
            let seq = self.env.store.write_fenced(op, fence).await?;
            Some(seq)
        } else {
            None
        };
        let addr = start_game(
            Arc::clone(&self.env),
            ActorStart {
                id,
                game: new.game,
                options: new.options,
                secrets: digests,
                stored,
                fence,
                permit: Some(permit),
                bot_permits,
                opponents,
                stored_opponents,
                created,
                players: new.players.map(Arc::new),
            },
        );
        let handle = self.register(reservation, id, addr, fence);
        Ok((handle, secrets))
    }

    /// chessd's Chess 2 player for an opponent asked of a Chess 2 game: a `builtin` engine,
    /// with at most a search depth.
    fn chess2_bot(&self, spec: OpponentSpec, client: &ClientKey) -> Result<Chess2Bot, GameError> {
        self.env.engines.check_chess2_player(&spec.engine)?;
        let go = spec.opponent.go.unwrap_or_default();
        let depth = go.depth.unwrap_or(Chess2Bot::DEFAULT_DEPTH);
        let only_depth = chessd_protocol::uci::GoLimits {
            depth: go.depth,
            ..Default::default()
        };
        if go != only_depth || !(1..=Chess2Bot::MAX_DEPTH).contains(&depth) {
            return Err(crate::engine::EngineError::Unsupported(format!(
                "chessd's Chess 2 player takes only go.depth, 1 to {}",
                Chess2Bot::MAX_DEPTH
            ))
            .into());
        }
        Ok(Chess2Bot {
            engine: spec.engine,
            plays: spec.opponent.plays,
            depth,
            client: client.stored(),
        })
    }

    /// Starts again the engine opponent of an unfinished stored game, counted against the
    /// client that created the game. A game whose engine cannot start comes back without it
    /// (and says so in the log): its moves are never lost for want of an engine.
    async fn restart_opponent(
        &self,
        id: Uuid,
        record: &StoredOpponent,
    ) -> Option<(crate::game::engines::StartedEngine, Opponent)> {
        let Some(client) = self.admission.client_from_stored(&record.client) else {
            tracing::warn!(game = %id, "the client of the engine opponent is no longer configured");
            return None;
        };
        match self
            .env
            .engines
            .start(&client, &record.engine, id, EngineRole::Opponent)
            .await
        {
            Ok(started) => Some((
                started,
                Opponent {
                    plays: record.plays,
                    go: record.go.clone(),
                },
            )),
            Err(e) => {
                tracing::warn!(game = %id, error = %e, "the engine opponent could not start again");
                None
            }
        }
    }

    /// The engine sessions the Chess 2 players of an unfinished stored game count as, taken
    /// again for the client that created it. A player whose place cannot be taken (the client
    /// holds its engines elsewhere now) still plays: its game's moves are never lost for it.
    fn restart_bots(&self, id: Uuid, bots: &[Chess2Bot]) -> Vec<crate::admission::Permit> {
        bots.iter()
            .filter_map(|bot| {
                let client = self.admission.client_from_stored(&bot.client)?;
                match self.admission.acquire_engine(&client, chess2_player(id)) {
                    Ok(permit) => Some(permit),
                    Err(e) => {
                        tracing::warn!(game = %id, error = %e, "a Chess 2 player came back without its engine place");
                        None
                    }
                }
            })
            .collect()
    }

    /// Stored games, in `order`: see [`Store::list_games`].
    pub async fn list(
        &self,
        filter: ResultFilter,
        order: GameOrder,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<GameSummary>, GameError> {
        self.env
            .store
            .list_games(filter, order, before, limit)
            .await
            .map_err(GameError::from)
    }

    /// The store games are kept in.
    pub fn store(&self) -> &Store {
        &self.env.store
    }

    /// The engine factory games use.
    pub fn engines(&self) -> &EngineFactory {
        &self.env.engines
    }

    /// The terminate hooks.
    pub fn hooks(&self) -> &Arc<Hooks> {
        &self.env.hooks
    }

    /// What packs the journals of stored games that leave memory.
    pub fn packer(&self) -> &Arc<crate::game::packing::Packer> {
        &self.env.packer
    }

    /// How many games are alive.
    pub fn len(&self) -> usize {
        self.registry.len()
    }

    /// Whether no game is alive.
    pub fn is_empty(&self) -> bool {
        self.registry.is_empty()
    }

    /// Takes out of memory every game `moved` picks (their shard moved to another node); they
    /// stay in the store. Gives how many were told to leave.
    pub fn leave_node(&self, moved: impl Fn(&Uuid) -> bool) -> usize {
        let leaving = self.registry.games_where(moved);
        for (id, game) in &leaving {
            self.handle(*id, game.clone()).leave_node();
        }
        leaving.len()
    }

    /// How many games `pick` picks are in memory.
    pub fn count_where(&self, pick: impl Fn(&Uuid) -> bool) -> usize {
        self.registry.count_where(pick)
    }

    /// Refuses new games and tells every live game to stop (server shutdown).
    pub fn shut_down(&self) {
        for (id, game) in self.registry.close() {
            self.handle(id, game).shutdown();
        }
    }
}

/// Brings a game back through `games` (while it is there).
fn reload_through(games: Weak<Games>) -> Reload {
    Arc::new(move |id: Uuid| {
        let games = games.clone();
        Box::pin(async move {
            match games.upgrade() {
                Some(games) => games.get(&id.to_string()).await,
                None => Err(GameError::ShuttingDown),
            }
        })
    })
}

/// How long a request waits for a stale copy of its game to leave memory.
const STALE_EVICTION_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Whether a game in memory may be served (see [`Games::standing`]).
enum Standing {
    /// Loaded under the lease this node holds now.
    Current,
    /// Loaded under a lease this node has lost since: the game may have gone on elsewhere.
    Stale,
    /// This node does not surely hold the game's shard now.
    Unsure(GameError),
}

/// The answer for a game this node cannot serve at this moment (the client tries again).
fn not_served_now(id: Uuid) -> GameError {
    GameError::Unavailable(format!(
        "game {id} is not served by this node right now; try again"
    ))
}

fn json(value: &impl serde::Serialize) -> Result<String, GameError> {
    serde_json::to_string(value).map_err(|e| GameError::Internal(e.to_string()))
}

/// Refuses opponents that cannot play one game: more than two, or two for the same side.
fn check_opponents(opponents: &[OpponentSpec]) -> Result<(), GameError> {
    match opponents {
        [_, _, _, ..] => Err(GameError::invalid(
            "a game has at most two engine opponents, one for each side",
        )),
        [a, b] if a.opponent.plays == b.opponent.plays => Err(GameError::Opponents(format!(
            "both engine opponents play {}: each side has at most one engine",
            a.opponent.plays
        ))),
        _ => Ok(()),
    }
}

/// The engine use of one of chessd's Chess 2 players in `game`.
fn chess2_player(game: Uuid) -> EngineUse {
    EngineUse {
        game,
        engine: "builtin".into(),
        role: EngineRole::Chess2Player,
    }
}
