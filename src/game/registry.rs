//! The registry of live games: finds a game's actor by id and forgets it when the actor stops.

use std::sync::atomic::{AtomicBool, Ordering};

use actix::Addr;
use dashmap::DashMap;
use uuid::Uuid;

use crate::{
    error::{ApiError, ErrorCode},
    game::actor::GameActor,
};

/// Live games by id.
pub struct GameRegistry {
    games: DashMap<Uuid, Addr<GameActor>>,
    max_games: usize,
    closed: AtomicBool,
}

impl GameRegistry {
    /// An empty registry holding at most `max_games` games.
    pub fn new(max_games: usize) -> GameRegistry {
        GameRegistry {
            games: DashMap::new(),
            max_games,
            closed: AtomicBool::new(false),
        }
    }

    /// Checks that one more game may be created.
    pub fn check_capacity(&self) -> Result<(), ApiError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ApiError::new(
                ErrorCode::ShuttingDown,
                "the server is shutting down",
            ));
        }
        if self.games.len() >= self.max_games {
            return Err(ApiError::new(
                ErrorCode::TooManyGames,
                format!("the server holds its limit of {} games", self.max_games),
            ));
        }
        Ok(())
    }

    /// Adds a game.
    pub fn insert(&self, id: Uuid, addr: Addr<GameActor>) {
        self.games.insert(id, addr);
        crate::metrics::set_games_alive(self.games.len());
    }

    /// The actor of a game.
    pub fn get(&self, id: &Uuid) -> Result<Addr<GameActor>, ApiError> {
        self.games
            .get(id)
            .map(|a| a.value().clone())
            .ok_or_else(|| ApiError::game_not_found(id))
    }

    /// Forgets a game (called by the actor when it stops).
    pub fn remove(&self, id: &Uuid) {
        self.games.remove(id);
        crate::metrics::set_games_alive(self.games.len());
    }

    /// How many games are alive.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether no game is alive.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Refuses new games from now on and returns every live game's actor (for shutdown).
    pub fn close(&self) -> Vec<Addr<GameActor>> {
        self.closed.store(true, Ordering::Release);
        self.games.iter().map(|e| e.value().clone()).collect()
    }
}
