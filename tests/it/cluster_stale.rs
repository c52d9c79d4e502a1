//! A node that gets a shard back never serves its stale copy of a game.
//!
//! Node a loads a game under its lease of the shard; the shard moves to node b, which plays on;
//! then a holds the shard again under a newer lease. Node a's copy in memory is stale (found by
//! the cluster chaos test: a node whose load of a game raced with the loss of its shard kept
//! the copy, and served it once it held the shard again). The game layer must refuse it and
//! bring the stored game back. Two game layers over one real PostgreSQL store stand for the two
//! nodes; the shard's tokens are real leases, and who owns the shard is set by hand.

use std::sync::{
    atomic::{AtomicI64, Ordering},
    Arc,
};

use chessd_core::{game::Game, Position};
use chessd_server::{
    admission::{Admission, ClientKey},
    config::Config,
    game::{
        command::{Action, MoveInput},
        engines::EngineFactory,
        hooks::Hooks,
        options::GameOptions,
        ownership::Ownership,
        service::{Games, GamesParts, NewGame},
        GameError,
    },
    store::{Fence, SqliteSync, Store},
};
use uuid::Uuid;

use crate::common;

/// A node's view of the one shard: the token it holds (0: none).
struct OneShard(AtomicI64);

impl Ownership for OneShard {
    fn fence(&self, id: &Uuid) -> Result<Option<Fence>, GameError> {
        match self.0.load(Ordering::SeqCst) {
            0 => Err(GameError::Unavailable(format!("shard of {id} not held"))),
            token => Ok(Some(Fence { shard: 0, token })),
        }
    }

    fn new_id(&self) -> Result<Uuid, GameError> {
        Ok(Uuid::new_v4())
    }
}

/// A node's game layer over `store`, owning what `shard` says.
fn node(store: &Store, shard: Arc<OneShard>) -> Arc<Games> {
    let config = Config::defaults();
    let admission = Admission::from_config(&config);
    Games::new(GamesParts {
        max_games: 100,
        hooks: Arc::new(Hooks::new(&config.webhooks, store.clone(), None)),
        event_history: 100,
        keys_per_caller: 8,
        engines: EngineFactory::new(config.engines.clone(), admission.clone()),
        admission,
        store: store.clone(),
        evict_after: None,
        ownership: shard,
    })
}

/// The game's moves in UCI, as node `games` serves it.
async fn moves(games: &Games, id: &str) -> Result<Vec<String>, GameError> {
    let snapshot = games.get(id).await?.snapshot().await?;
    Ok(snapshot.game.chess()?.uci_history())
}

async fn play(games: &Games, id: &str, secret: &str, uci: &str) {
    games
        .get(id)
        .await
        .unwrap()
        .act(
            Some(secret.to_string()),
            Action::Move(MoveInput::Uci(uci.into())),
        )
        .await
        .unwrap();
}

#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn a_node_holding_its_shard_again_serves_the_stored_game_not_its_stale_copy() {
    let pg = common::postgres::PgServer::start();
    let store = Store::open(&pg.url, SqliteSync::Full, 64).await.unwrap();
    let db = store.cluster_db(std::time::Duration::from_secs(1)).unwrap();
    db.init_shards(1).await.unwrap();
    let shard_a = Arc::new(OneShard(AtomicI64::new(0)));
    let shard_b = Arc::new(OneShard(AtomicI64::new(0)));
    let a = node(&store, shard_a.clone());
    let b = node(&store, shard_b.clone());

    // Node a holds the shard, creates the game and plays e2e4.
    let first = db.acquire(0, "a", 60_000).await.unwrap().unwrap();
    shard_a.0.store(first, Ordering::SeqCst);
    let client = ClientKey::Address("127.0.0.1".parse().unwrap());
    let new = NewGame {
        game: Game::new(Position::startpos()).into(),
        options: GameOptions::default(),
        opponents: Vec::new(),
        players: None,
    };
    let (handle, secrets) = a.create(&client, new).await.unwrap();
    let id = handle.id().to_string();
    play(&a, &id, &secrets.white, "e2e4").await;

    // The shard moves to b (a's lease is gone; its copy stays in memory, as when its load
    // raced with the loss), and the game goes on there.
    shard_a.0.store(0, Ordering::SeqCst);
    db.leave("a").await.unwrap();
    let second = db.acquire(0, "b", 60_000).await.unwrap().unwrap();
    shard_b.0.store(second, Ordering::SeqCst);
    assert_eq!(moves(&b, &id).await.unwrap(), ["e2e4"]);
    play(&b, &id, &secrets.black, "e7e5").await;

    // While a does not hold the shard, it serves nothing of the game.
    assert!(matches!(
        moves(&a, &id).await,
        Err(GameError::Unavailable(_))
    ));

    // The shard comes back to a under a newer lease: a serves the stored game, not its copy.
    shard_b.0.store(0, Ordering::SeqCst);
    db.leave("b").await.unwrap();
    let third = db.acquire(0, "a", 60_000).await.unwrap().unwrap();
    assert!(third > second && second > first);
    shard_a.0.store(third, Ordering::SeqCst);
    assert_eq!(moves(&a, &id).await.unwrap(), ["e2e4", "e7e5"]);
    // And it plays on from there, under its new lease.
    play(&a, &id, &secrets.white, "g1f3").await;
    let stored = store.load_game(&handle.id()).await.unwrap().unwrap();
    assert_eq!(stored.entries.len(), 3, "one stored entry a move");
    assert_eq!(moves(&a, &id).await.unwrap(), ["e2e4", "e7e5", "g1f3"]);
}
