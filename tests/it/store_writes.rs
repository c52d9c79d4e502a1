//! The store's writer on both backends: a batch of every kind of write commits together; a
//! version written twice (a stale writer) fails alone with a conflict, never forking a game;
//! a packed record replaces the rows it holds, whose versions stay unwritable; the webhook
//! outbox keeps what the stop put there.

use chessd_server::store::{NewGameRow, OutboxRow, SqliteSync, Store, StoreError, WriteOp};
use futures_util::future::join_all;
use uuid::Uuid;

use crate::common;

fn new_game() -> NewGameRow {
    NewGameRow {
        id: Uuid::new_v4(),
        created_ms: 1_000,
        secrets: vec![7; 96],
        setup: "{}".into(),
        options: "{}".into(),
        status: "ongoing".into(),
    }
}

fn append(game: i64, version: i64, body: &str, status: Option<&str>) -> WriteOp {
    WriteOp::Append {
        game,
        version,
        body: body.into(),
        status: status.map(str::to_string),
        now_ms: 2_000,
    }
}

async fn writes_and_fencing(url: &str) {
    let store = Store::open(url, SqliteSync::Full, 512).await.unwrap();
    let row = new_game();
    let game = store.write(WriteOp::Create(row.clone())).await.unwrap();
    assert!(game > 0);
    // Many moves at once: they share commits (one statement each), in any number.
    let moves = (1..=300).map(|v| store.write(append(game, v, &format!("m{v} \"q\""), None)));
    for result in join_all(moves).await {
        assert_eq!(result.unwrap(), 0);
    }
    // A stale writer of version 300 fails alone; the writes batched with it commit.
    let (stale, next, options) = tokio::join!(
        store.write(append(game, 300, "fork", None)),
        store.write(append(game, 301, "{\"kind\":\"end\"}", Some("draw"))),
        store.write(WriteOp::Options {
            game,
            options: "{\"x\":1}".into(),
            now_ms: 3_000,
        }),
    );
    assert!(
        matches!(stale, Err(StoreError::Conflict { version: 300 })),
        "{stale:?}"
    );
    assert_eq!((next.unwrap(), options.unwrap()), (0, 0));
    let stored = store.load_game(&row.id).await.unwrap().unwrap();
    assert_eq!(stored.entries.len(), 301);
    let versions: Vec<i64> = stored.entries.iter().map(|e| e.version).collect();
    assert_eq!(versions, (1..=301).collect::<Vec<_>>());
    assert_eq!(stored.entries[299].body, "m300 \"q\"");
    assert_eq!(stored.entries[300].body, "{\"kind\":\"end\"}");
    assert_eq!(
        (stored.result.as_str(), stored.options.as_str()),
        ("draw", "{\"x\":1}")
    );
    assert!(stored.live);
    // Packing: the record replaces the rows it holds, and the setup (and the options, still
    // the ones read); a version it holds cannot be written again, in a batch or alone.
    let pack = |through: i64, options_read: &str| WriteOp::Pack {
        game,
        through,
        packed: vec![1, 2, 3],
        options_read: options_read.into(),
    };
    store.write(pack(250, "{\"x\":1}")).await.unwrap();
    let (stale, next) = tokio::join!(
        store.write(append(game, 250, "fork", None)),
        store.write(append(game, 302, "m302", None)),
    );
    assert!(
        matches!(stale, Err(StoreError::Conflict { version: 250 })),
        "{stale:?}"
    );
    next.unwrap();
    // An older record (a slower packer) changes nothing; options changed since are kept.
    store.write(pack(200, "{\"y\":2}")).await.unwrap();
    let stored = store.load_game(&row.id).await.unwrap().unwrap();
    assert_eq!(
        (stored.packed.as_deref(), stored.packed_through),
        (Some(&[1u8, 2, 3][..]), 250)
    );
    assert_eq!((stored.setup.as_str(), stored.options.as_str()), ("", ""));
    let versions: Vec<i64> = stored.entries.iter().map(|e| e.version).collect();
    assert_eq!(versions, (251..=302).collect::<Vec<_>>());
    store
        .write(WriteOp::Options {
            game,
            options: "{\"z\":3}".into(),
            now_ms: 3_500,
        })
        .await
        .unwrap();
    store.write(pack(302, "{\"x\":1}")).await.unwrap();
    let stored = store.load_game(&row.id).await.unwrap().unwrap();
    assert_eq!((stored.packed_through, stored.entries.len()), (302, 0));
    assert_eq!(
        stored.options, "{\"z\":3}",
        "options written after the read stay"
    );
    // A stop puts the game's webhook in the outbox, in the same transaction.
    let hook = OutboxRow {
        key: format!("terminate-{}", row.id),
        url: "http://127.0.0.1:9/hook".into(),
        body: "{}".into(),
        attempts: 0,
        next_ms: 5_000,
        expires_ms: 9_000,
    };
    store
        .write(WriteOp::Stop {
            game,
            now_ms: 4_000,
            webhook: Some(hook.clone()),
        })
        .await
        .unwrap();
    assert!(!store.load_game(&row.id).await.unwrap().unwrap().live);
    assert_eq!(store.pending_webhooks().await.unwrap(), vec![hook.clone()]);
    store
        .write(WriteOp::WebhookRetry {
            key: hook.key.clone(),
            attempts: 2,
            next_ms: 6_000,
        })
        .await
        .unwrap();
    let retried = store.pending_webhooks().await.unwrap();
    assert_eq!((retried[0].attempts, retried[0].next_ms), (2, 6_000));
    store
        .write(WriteOp::WebhookDone { key: hook.key })
        .await
        .unwrap();
    assert!(store.pending_webhooks().await.unwrap().is_empty());
    store.close().await;
}

#[tokio::test]
async fn writes_commit_together_and_a_stale_version_fails_alone_on_sqlite() {
    let path = common::scratch_store();
    writes_and_fencing(&format!("sqlite://{}", path.display())).await;
    common::remove_sqlite(&path);
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[tokio::test]
async fn writes_commit_together_and_a_stale_version_fails_alone_on_postgresql() {
    let pg = common::postgres::PgServer::start();
    writes_and_fencing(&pg.url).await;
}

/// Loads asked at once are read together (one statement for all that wait): each gets its
/// own game with its own journal, a game asked twice is given to both, and an unknown id is
/// `None` beside found ones.
async fn loads_at_once(url: &str) {
    let store = Store::open(url, SqliteSync::Full, 512).await.unwrap();
    let mut rows = Vec::new();
    for n in 0..40 {
        let row = new_game();
        let game = store.write(WriteOp::Create(row.clone())).await.unwrap();
        for v in 1..=n % 5 {
            store
                .write(append(game, v, &format!("g{n} m{v}"), None))
                .await
                .unwrap();
        }
        rows.push((row.id, n));
    }
    let unknown = Uuid::new_v4();
    let mut asked: Vec<(Uuid, Option<i64>)> = rows.iter().map(|&(id, n)| (id, Some(n))).collect();
    asked.push((unknown, None));
    asked.push((rows[3].0, Some(3)));
    asked.push((rows[3].0, Some(3)));
    asked.push((unknown, None));
    let loads = asked.iter().map(|(id, _)| store.load_game(id));
    for ((id, n), loaded) in asked.iter().zip(join_all(loads).await) {
        let loaded = loaded.unwrap();
        match n {
            None => assert!(loaded.is_none(), "{id} is no game"),
            Some(n) => {
                let game = loaded.unwrap_or_else(|| panic!("game {n} not found"));
                assert_eq!(game.id, *id);
                let bodies: Vec<String> = game.entries.iter().map(|e| e.body.clone()).collect();
                let expected: Vec<String> = (1..=n % 5).map(|v| format!("g{n} m{v}")).collect();
                assert_eq!(bodies, expected, "game {n}");
            }
        }
    }
    store.close().await;
}

#[tokio::test]
async fn loads_at_once_are_read_together_on_sqlite() {
    let path = common::scratch_store();
    loads_at_once(&format!("sqlite://{}", path.display())).await;
    common::remove_sqlite(&path);
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[tokio::test]
async fn loads_at_once_are_read_together_on_postgresql() {
    let pg = common::postgres::PgServer::start();
    loads_at_once(&pg.url).await;
}

/// Shard leases on a real PostgreSQL: a write under a token that is no longer the shard's
/// (another node took the shard after the lease ended) is refused, alone in its batch, and a
/// node that still holds its lease keeps it.
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[tokio::test]
async fn a_write_under_a_lost_shard_lease_is_refused() {
    use chessd_server::store::Fence;
    let pg = common::postgres::PgServer::start();
    let store = Store::open(&pg.url, SqliteSync::Full, 512).await.unwrap();
    let db = store
        .cluster_db(std::time::Duration::from_secs(1))
        .expect("PostgreSQL has the cluster tables");
    db.init_shards(4).await.unwrap();
    assert!(
        db.init_shards(8).await.is_err(),
        "another shard count is refused"
    );

    // Node a takes shards 0 and 1 with a short lease.
    let a0 = db.acquire(0, "a", 50).await.unwrap().unwrap();
    let a1 = db.acquire(1, "a", 60_000).await.unwrap().unwrap();
    assert_eq!(
        db.acquire(1, "b", 60_000).await.unwrap(),
        None,
        "a holds shard 1"
    );
    let row = new_game();
    let game = store
        .write_fenced(
            WriteOp::Create(row.clone()),
            Some(Fence {
                shard: 0,
                token: a0,
            }),
        )
        .await
        .unwrap();
    // a's lease of shard 0 ends; b takes it with the next token.
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    let b0 = db.acquire(0, "b", 60_000).await.unwrap().unwrap();
    assert_eq!(b0, a0 + 1);
    assert!(db
        .renew("a", 60_000)
        .await
        .unwrap()
        .iter()
        .all(|(s, _)| *s != 0));

    // In one batch: a's stale write to shard 0 fails alone; b's and a's shard-1 writes commit.
    let (stale, fresh, other) = tokio::join!(
        store.write_fenced(
            append(game, 1, "stale", None),
            Some(Fence {
                shard: 0,
                token: a0
            })
        ),
        store.write_fenced(
            append(game, 1, "fresh", None),
            Some(Fence {
                shard: 0,
                token: b0
            })
        ),
        store.write_fenced(
            WriteOp::Options {
                game,
                options: "{}".into(),
                now_ms: 5
            },
            Some(Fence {
                shard: 1,
                token: a1
            })
        ),
    );
    assert!(
        matches!(stale, Err(StoreError::Fenced { shard: 0 })),
        "{stale:?}"
    );
    fresh.unwrap();
    other.unwrap();
    let stored = store.load_game(&row.id).await.unwrap().unwrap();
    assert_eq!(stored.entries.len(), 1);
    assert_eq!(stored.entries[0].body, "fresh");

    // A node leaving gives its shards up at once.
    db.leave("a").await.unwrap();
    let shards = db.shards().await.unwrap();
    assert!(
        shards.iter().all(|s| s.owner.as_deref() != Some("a")),
        "{shards:?}"
    );
    store.close().await;
}

/// A node that stalls (SIGSTOP, a frozen machine) inside a game write keeps the shard's row
/// locked (FOR KEY SHARE) while its lease runs out. The node taking the shard must wait for
/// that write (nothing may be written under the old token afterwards), but never for longer
/// than the cluster pool's bound: it gives up for this tick, goes on renewing its own leases,
/// and takes the shard once the write has ended.
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[tokio::test]
async fn taking_a_shard_waits_for_a_stalled_write_only_as_long_as_the_bound() {
    use sqlx::Connection;
    use std::time::{Duration, Instant};
    let pg = common::postgres::PgServer::start();
    let store = Store::open(&pg.url, SqliteSync::Full, 512).await.unwrap();
    let bound = Duration::from_millis(300);
    let db = store.cluster_db(bound).unwrap();
    db.init_shards(4).await.unwrap();
    let a0 = db.acquire(0, "a", 50).await.unwrap().unwrap();
    db.acquire(1, "b", 60_000).await.unwrap().unwrap();

    // a's write checks its fence, and a stalls before it commits.
    let mut stalled = sqlx::PgConnection::connect(&pg.url).await.unwrap();
    let mut write = stalled.begin().await.unwrap();
    sqlx::query("SELECT shard FROM cluster_shards WHERE shard = 0 FOR KEY SHARE")
        .execute(&mut *write)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    // b, taking the shard whose lease ended, waits for the write, but only as long as the bound.
    let began = Instant::now();
    assert_eq!(db.acquire(0, "b", 60_000).await.unwrap(), None);
    let waited = began.elapsed();
    assert!(
        waited >= bound && waited < bound * 4,
        "b waited {waited:?} for the stalled write (bound {bound:?})"
    );
    // b's own lease is renewed meanwhile, and shard 0 is still a's to be taken.
    let renewed = db.renew("b", 60_000).await.unwrap();
    assert_eq!(renewed.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [1]);

    // Once the write ends (here rolled back), b takes the shard with the next token.
    write.rollback().await.unwrap();
    assert_eq!(db.acquire(0, "b", 60_000).await.unwrap(), Some(a0 + 1));
    store.close().await;
}
