//! The registry of live games: finds a game's actor by id and forgets it when the actor stops.
//! Its count of games is taken before a game is built ([`GameRegistry::reserve`]), with a
//! compare-and-swap, so concurrent creators can never pass `max_games` together.
//!
//! An entry is only what differs between games, the actor's address and the lease it runs
//! under ([`LiveGame`]): 100 000 idle games hold 100 000 entries, and what every handle shares
//! (how to bring a game back) is added by [`Games`](crate::game::Games) when it makes a handle.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use actix::Addr;
use dashmap::DashMap;
use uuid::Uuid;

use crate::{
    game::{actor::GameActor, GameError},
    store::Fence,
};

/// A live game as the registry keeps it.
#[derive(Clone)]
pub(crate) struct LiveGame {
    /// The game's actor.
    pub(crate) addr: Addr<GameActor>,
    /// The lease the game was loaded or created under (`None`: a single node).
    pub(crate) fence: Option<Fence>,
}

/// Live games by id.
pub(crate) struct GameRegistry {
    games: DashMap<Uuid, LiveGame>,
    /// Games registered plus places reserved for games being built.
    taken: AtomicUsize,
    max_games: usize,
    closed: AtomicBool,
    /// Gives the memory of games that left back to the system.
    trimmer: crate::game::trim::Trimmer,
}

/// A place for one game, taken before the game is built; given back if dropped unused.
#[must_use = "a reservation is given back when dropped"]
pub(crate) struct Reservation<'a> {
    registry: &'a GameRegistry,
    used: bool,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.used {
            self.registry.taken.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl GameRegistry {
    /// An empty registry holding at most `max_games` games.
    pub(crate) fn new(max_games: usize) -> GameRegistry {
        GameRegistry {
            games: DashMap::new(),
            taken: AtomicUsize::new(0),
            max_games,
            closed: AtomicBool::new(false),
            trimmer: crate::game::trim::Trimmer::default(),
        }
    }

    /// Takes a place for one more game, or says why there is none.
    pub(crate) fn reserve(&self) -> Result<Reservation<'_>, GameError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(GameError::ShuttingDown);
        }
        let max = self.max_games;
        self.taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| GameError::TooManyGames(max))?;
        Ok(Reservation {
            registry: self,
            used: false,
        })
    }

    /// Adds a game in the place `reservation` holds.
    pub(crate) fn insert(&self, mut reservation: Reservation<'_>, id: Uuid, game: LiveGame) {
        reservation.used = true;
        if self.games.insert(id, game).is_none() {
            crate::metrics::add_games_alive(1);
        }
    }

    /// A live game.
    pub(crate) fn get(&self, id: &Uuid) -> Result<LiveGame, GameError> {
        self.games
            .get(id)
            .map(|a| a.value().clone())
            .ok_or_else(|| GameError::NotFound(id.to_string()))
    }

    /// Forgets a game (called by the actor when it stops).
    pub(crate) fn remove(&self, id: &Uuid) {
        if self.games.remove(id).is_some() {
            self.taken.fetch_sub(1, Ordering::AcqRel);
            crate::metrics::add_games_alive(-1);
            self.trimmer.game_left();
        }
    }

    /// The live games whose id `pick` picks.
    pub(crate) fn games_where(&self, pick: impl Fn(&Uuid) -> bool) -> Vec<(Uuid, LiveGame)> {
        self.games
            .iter()
            .filter(|e| pick(e.key()))
            .map(|e| (*e.key(), e.value().clone()))
            .collect()
    }

    /// How many live games `pick` picks.
    pub(crate) fn count_where(&self, pick: impl Fn(&Uuid) -> bool) -> usize {
        self.games.iter().filter(|e| pick(e.key())).count()
    }

    /// How many games are alive.
    pub(crate) fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether no game is alive.
    pub(crate) fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Refuses new games from now on and returns every live game (for shutdown).
    pub(crate) fn close(&self) -> Vec<(Uuid, LiveGame)> {
        self.closed.store(true, Ordering::Release);
        self.games
            .iter()
            .map(|e| (*e.key(), e.value().clone()))
            .collect()
    }
}
