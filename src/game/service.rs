//! [`Games`]: the game layer's front door. It creates games (taking every place a game needs
//! before anything is built: the server's, the client's rate and quota, the opponent engine's
//! session) and finds them by id.

use std::sync::Arc;

use chessd_core::game::Game;
use uuid::Uuid;

use crate::{
    admission::{Admission, ClientKey},
    game::{
        actor::{start_game, GameEnv, GameOptions, Secrets},
        command::OpponentSpec,
        engines::EngineFactory,
        hooks::Hooks,
        registry::GameRegistry,
        GameError, GameHandle,
    },
};

/// Every live game, and what creating one needs.
pub struct Games {
    registry: Arc<GameRegistry>,
    env: Arc<GameEnv>,
    admission: Admission,
}

/// A game to create.
pub struct NewGame {
    /// The starting game (a position, or a PGN's moves played).
    pub game: Game,
    /// Its options.
    pub options: GameOptions,
    /// An engine that plays one side by itself.
    pub opponent: Option<OpponentSpec>,
}

impl Games {
    /// No games yet; at most `max_games` at once.
    pub fn new(
        max_games: usize,
        hooks: Arc<Hooks>,
        event_history: usize,
        engines: EngineFactory,
        admission: Admission,
    ) -> Games {
        let registry = Arc::new(GameRegistry::new(max_games));
        let forget = Arc::clone(&registry);
        let env = GameEnv {
            hooks,
            event_history,
            engines,
            on_stop: Arc::new(move |id| forget.remove(&id)),
        };
        Games {
            registry,
            env: Arc::new(env),
            admission,
        }
    }

    /// The game with this id (text from a URL).
    pub fn get(&self, raw_id: &str) -> Result<GameHandle, GameError> {
        let id = Uuid::parse_str(raw_id).map_err(|_| GameError::NotFound(raw_id.to_string()))?;
        self.registry.get(&id)
    }

    /// Creates a game for `client`. Every place the game needs is taken before anything is
    /// built, so a refusal costs nothing: the server's place, the client's rate and unfinished
    /// games, then the opponent's engine session. The opponent engine is started (and its
    /// handshake done) before the game exists, so an engine failure creates no game.
    pub async fn create(
        &self,
        client: &ClientKey,
        new: NewGame,
    ) -> Result<(GameHandle, Secrets), GameError> {
        let reservation = self.registry.reserve()?;
        self.admission.check_game_rate(client)?;
        let permit = self.admission.acquire_game(client)?;
        let opponent = match new.opponent {
            Some(spec) => Some((
                self.env.engines.start(client, &spec.engine).await?,
                spec.opponent,
            )),
            None => None,
        };
        let (id, secrets, addr) = start_game(
            Arc::clone(&self.env),
            new.game,
            new.options,
            Some(permit),
            opponent,
        );
        let handle = GameHandle::new(id, addr);
        self.registry.insert(reservation, handle.clone());
        Ok((handle, secrets))
    }

    /// The engine factory games use.
    pub fn engines(&self) -> &EngineFactory {
        &self.env.engines
    }

    /// The terminate hooks.
    pub fn hooks(&self) -> &Arc<Hooks> {
        &self.env.hooks
    }

    /// How many games are alive.
    pub fn len(&self) -> usize {
        self.registry.len()
    }

    /// Whether no game is alive.
    pub fn is_empty(&self) -> bool {
        self.registry.is_empty()
    }

    /// Refuses new games and tells every live game to stop (server shutdown).
    pub fn shut_down(&self) {
        for game in self.registry.close() {
            game.shutdown();
        }
    }
}
