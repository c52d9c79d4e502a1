//! Three chessd nodes on one real PostgreSQL (started by the test), on loopback ports: games
//! created and played through every node (requests for a game owned elsewhere are forwarded),
//! a spectator on a node that does not own the game sees its moves, then a node is killed with
//! `kill -9` and its games are served again by the others within 5 s, with every acknowledged
//! move there (each game replayed by shakmaty to the server's FEN), and a restarted node takes
//! its part again. A perft job survives the death of the node that started it: another node
//! takes it over and ends it from the tasks it had finished, with the reference statistics.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use shakmaty::{fen::Fen, CastlingMode, EnPassantMode, Position};

use crate::common::{
    self, client,
    cluster::{replay, settled, start_node},
    gct, get_json, post_json,
    postgres::PgServer,
    Server,
};

/// A game and the moves the servers acknowledged.
struct Played {
    id: String,
    white: String,
    black: String,
    acked: Vec<String>,
}

fn node(pg: &PgServer) -> Server {
    start_node(pg, 1500, &[])
}

/// A request retried while the game's shard moves (503 game_unavailable), up to `limit`.
async fn post_retrying(
    c: &awc::Client,
    url: &str,
    secret: Option<&str>,
    body: &Value,
    limit: Duration,
) -> (u16, Value) {
    let deadline = Instant::now() + limit;
    loop {
        let (status, v) = post_json(c, url, secret, body).await;
        if status != 503 || Instant::now() >= deadline {
            return (status, v);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The next move of a game: the first legal move in shakmaty's order after `acked`.
fn next_move(acked: &[String], salt: usize) -> Option<String> {
    let pos = replay(acked);
    let moves = pos.legal_moves();
    (!moves.is_empty()).then(|| {
        moves[salt % moves.len()]
            .to_uci(CastlingMode::Standard)
            .to_string()
    })
}

/// Plays one move of `game` through `base`; records it when acknowledged.
async fn play(c: &awc::Client, base: &str, game: &mut Played, salt: usize, limit: Duration) {
    let Some(mv) = next_move(&game.acked, salt) else {
        return;
    };
    let secret = if game.acked.len().is_multiple_of(2) {
        &game.white
    } else {
        &game.black
    };
    let url = format!("{base}/v1/games/{}/moves", game.id);
    let (status, v) = post_retrying(c, &url, Some(secret), &json!({ "uci": mv }), limit).await;
    assert_eq!(status, 200, "move {mv} of {} through {base}: {v}", game.id);
    assert_eq!(
        v["version"].as_u64(),
        Some(game.acked.len() as u64 + 1),
        "{v}"
    );
    game.acked.push(mv);
}

/// Every node shows every game with exactly its acknowledged moves.
async fn check_games(c: &awc::Client, bases: &[&str], games: &[Played]) {
    for g in games {
        let fen = Fen::from_position(&replay(&g.acked), EnPassantMode::Legal).to_string();
        for base in bases {
            let (status, v) = get_json(c, &format!("{base}/v1/games/{}", g.id)).await;
            assert_eq!(status, 200, "{v}");
            assert_eq!(v["fen"], fen, "game {} through {base}: {v}", g.id);
            assert_eq!(v["version"].as_u64(), Some(g.acked.len() as u64), "{v}");
        }
    }
}

#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn three_nodes_forward_and_survive_the_death_of_one() {
    let pg = PgServer::start();
    let mut nodes = vec![node(&pg), node(&pg), node(&pg)];
    let c = client();
    settled(&c, &nodes[0].base, 3).await;

    // Games created through every node, played through every node.
    let mut games = Vec::new();
    for i in 0..12 {
        let base = &nodes[i % 3].base;
        let (status, v) = post_retrying(
            &c,
            &format!("{base}/v1/games"),
            None,
            &json!({}),
            Duration::from_secs(5),
        )
        .await;
        assert_eq!(status, 201, "{v}");
        let secrets = common::GameSecrets::from_answer(&v);
        games.push(Played {
            id: secrets.id,
            white: secrets.white,
            black: secrets.black,
            acked: Vec::new(),
        });
    }
    for round in 0..6 {
        for (i, g) in games.iter_mut().enumerate() {
            let base = nodes[(i + round) % 3].base.clone();
            play(&c, &base, g, i + round, Duration::from_secs(5)).await;
        }
    }
    let bases: Vec<String> = nodes.iter().map(|n| n.base.clone()).collect();
    let all: Vec<&str> = bases.iter().map(String::as_str).collect();
    check_games(&c, &all, &games).await;

    // A spectator on one node sees a move made through another.
    let g = &mut games[0];
    let mut spectator = common::ws_connect(&c, &nodes[1].ws_url(&g.id, "")).await;
    let hello = common::ws_json(&mut spectator).await;
    assert!(hello.is_object(), "{hello}");
    play(&c, &bases[2], g, 1, Duration::from_secs(5)).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let event = common::ws_json(&mut spectator).await;
        if event["version"].as_u64() == Some(g.acked.len() as u64) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the spectator never saw the move"
        );
    }
    drop(spectator);

    // kill -9 one node: the others serve every game again, with every acknowledged move.
    let mut killed = nodes.remove(0);
    killed.kill_now();
    let died = Instant::now();
    let survivors: Vec<String> = nodes.iter().map(|n| n.base.clone()).collect();
    let mut worst = Duration::ZERO;
    for (i, g) in games.iter_mut().enumerate() {
        play(&c, &survivors[i % 2], g, i, Duration::from_secs(10)).await;
        worst = worst.max(died.elapsed());
    }
    assert!(
        worst < Duration::from_secs(8),
        "every game served again after {worst:?}"
    );
    eprintln!("games served again {worst:?} after the kill");
    drop(killed);
    let alive: Vec<&str> = survivors.iter().map(String::as_str).collect();
    check_games(&c, &alive, &games).await;

    // A node started again takes its part, and the games go on through it.
    nodes.push(node(&pg));
    settled(&c, &nodes[0].base, 3).await;
    let bases: Vec<String> = nodes.iter().map(|n| n.base.clone()).collect();
    for (i, g) in games.iter_mut().enumerate() {
        play(&c, &bases[(i + 2) % 3], g, i + 7, Duration::from_secs(10)).await;
    }
    let all: Vec<&str> = bases.iter().map(String::as_str).collect();
    check_games(&c, &all, &games).await;
}

#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn a_perft_job_survives_the_death_of_its_node() {
    let pg = PgServer::start();
    let (mut a, b) = (node(&pg), node(&pg));
    let c = client();
    settled(&c, &a.base, 2).await;
    let (status, job) = post_json(
        &c,
        &format!("{}/v1/perft", a.base),
        None,
        &json!({"depth": 7, "stats": true, "threads": 1}),
    )
    .await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    // A job's requests reach the node running it: a second job, started on a, is cancelled
    // through b with its secret.
    let (status, other) = post_json(
        &c,
        &format!("{}/v1/perft", a.base),
        None,
        &json!({"depth": 8, "threads": 1}),
    )
    .await;
    assert_eq!(status, 202, "{other}");
    let other_on_b = format!("{}/v1/perft/{}", b.base, other["id"].as_str().unwrap());
    let secret = other["secret"].as_str().unwrap();
    let (status, v) = common::delete_authed(&c, &other_on_b, secret).await;
    assert_eq!((status, &v["state"]), (200, &json!("cancelled")), "{v}");
    let (_, v) = get_json(
        &c,
        &format!("{}/v1/perft/{}", a.base, other["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(v["state"], "cancelled", "{v}");
    // A quarter of its tasks done on node a, then a dies.
    let on_a = format!("{}/v1/perft/{id}", a.base);
    let deadline = Instant::now() + Duration::from_secs(120);
    let total = loop {
        let (_, v) = get_json(&c, &on_a).await;
        let (done, total) = (
            v["progress"]["done"].as_u64().unwrap_or(0),
            v["progress"]["total"].as_u64().unwrap_or(0),
        );
        if total > 0 && done >= total / 4 {
            assert!(done < total, "the job ended before the kill: {v}");
            break total;
        }
        assert!(Instant::now() < deadline, "the job is stuck: {v}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    a.kill_now();
    drop(a);
    // Node b claims it once a's lease has ended and ends it from the tasks a had finished.
    let on_b = format!("{}/v1/perft/{id}", b.base);
    let deadline = Instant::now() + Duration::from_secs(180);
    let view = loop {
        let (status, v) = get_json(&c, &on_b).await;
        assert_eq!(status, 200, "{v}");
        if v["state"] == "done" {
            break v;
        }
        assert!(
            ["queued", "running"].contains(&v["state"].as_str().unwrap()),
            "{v}"
        );
        assert!(Instant::now() < deadline, "not ended on node b: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let resumed = view["progress"]["resumed"].as_u64().unwrap();
    assert!(
        0 < resumed && resumed < total,
        "{resumed} of {total}: {view}"
    );
    let row = gct::gct_row("start", 7);
    for (i, column) in gct::STATS_COLUMNS[..5].iter().enumerate() {
        assert_eq!(
            view["result"][*column].as_u64(),
            Some(row.stats[i]),
            "{column}: {view}"
        );
    }
}

/// Sends `e2e4` for each of `games` through `bases` (in turn), with an idempotency key, again
/// and again until it is answered 200; gives how long the slowest took.
async fn time_until_all_served(c: &awc::Client, bases: &[String], games: &[Played]) -> Duration {
    let started = Instant::now();
    let each = games.iter().enumerate().map(|(i, g)| {
        let url = format!("{}/v1/games/{}/moves", bases[i % bases.len()], g.id);
        let c = c.clone();
        let white = g.white.clone();
        async move {
            loop {
                let sent = tokio::time::timeout(
                    Duration::from_secs(10),
                    c.post(&url)
                        .bearer_auth(&white)
                        .insert_header(("Idempotency-Key", "failover"))
                        .send_json(&json!({"uci": "e2e4"})),
                )
                .await;
                if let Ok(Ok(resp)) = sent {
                    if resp.status() == 200 {
                        return started.elapsed();
                    }
                }
                assert!(
                    started.elapsed() < Duration::from_secs(30),
                    "game {url} not served"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    });
    futures_util::future::join_all(each)
        .await
        .into_iter()
        .max()
        .unwrap_or_default()
}

/// A node paused with `SIGSTOP` or killed with `kill -9`: every one of its games is served by
/// the others within `lease_ms` + 1 s (the lease must end first; then a node takes the shard
/// within a fifth of a heartbeat, since it looks often while an owner is late).
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn every_game_of_a_paused_or_killed_node_is_served_within_a_second_of_its_lease() {
    const LEASE_MS: u64 = 3000;
    let pg = PgServer::start();
    let lease = LEASE_MS.to_string();
    let start = || {
        start_node(
            &pg,
            LEASE_MS,
            &[("CHESSD_CLUSTER__LEASE_MS", lease.as_str())],
        )
    };
    let mut nodes = vec![start(), start(), start()];
    let c = client();
    for signal in ["-STOP", "-KILL"] {
        settled(&c, &nodes[0].base, 3).await;
        let mut games = Vec::new();
        for i in 0..24 {
            let base = &nodes[i % 3].base;
            let (status, v) = post_json(&c, &format!("{base}/v1/games"), None, &json!({})).await;
            assert_eq!(status, 201, "{v}");
            let s = common::GameSecrets::from_answer(&v);
            games.push(Played {
                id: s.id,
                white: s.white,
                black: s.black,
                acked: Vec::new(),
            });
        }
        let victim = nodes.remove(0);
        let ok = std::process::Command::new("kill")
            .args([signal, &victim.pid().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let survivors: Vec<String> = nodes.iter().map(|n| n.base.clone()).collect();
        let worst = time_until_all_served(&c, &survivors, &games).await;
        eprintln!("{signal}: every game served again {worst:?} after the signal");
        assert!(
            worst <= Duration::from_millis(LEASE_MS + 1000),
            "{signal}: the last game was served {worst:?} after the signal"
        );
        if signal == "-STOP" {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &victim.pid().to_string()])
                .status();
        }
        drop(victim);
        nodes.push(start());
    }
}

/// A shard's lease: its owner and fencing token, and whether it holds now (PostgreSQL's clock).
#[derive(Debug, PartialEq, sqlx::FromRow)]
struct Lease {
    shard: i32,
    owner: Option<String>,
    token: i64,
    holds: bool,
}

/// Every shard's lease, by shard.
async fn leases(db: &mut sqlx::PgConnection) -> Vec<Lease> {
    sqlx::query_as(
        "SELECT shard, owner, token, \
         expires_ms > (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT AS holds \
         FROM cluster_shards ORDER BY shard",
    )
    .fetch_all(db)
    .await
    .unwrap()
}

/// The games' tables locked for three leases (a stuck disk, a long migration, a vacuum): every
/// request that touches them waits, holding its pooled connection, and the nodes' pools run
/// dry. The leases are renewed all along (their own pool; a renewal waits for no game write), so
/// no node loses a shard, and the waiting moves are played once the tables are free.
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn shard_leases_hold_while_every_game_query_waits() {
    use sqlx::Connection;
    let pg = PgServer::start();
    let nodes = [node(&pg), node(&pg)];
    let c = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    settled(&c, &nodes[0].base, 2).await;
    let mut games = Vec::new();
    for i in 0..8 {
        let base = &nodes[i % 2].base;
        let (status, v) = post_json(&c, &format!("{base}/v1/games"), None, &json!({})).await;
        assert_eq!(status, 201, "{v}");
        games.push(common::GameSecrets::from_answer(&v));
    }
    let mut watch = sqlx::PgConnection::connect(&pg.url).await.unwrap();
    let before = leases(&mut watch).await;
    assert!(
        before.iter().all(|l| l.owner.is_some() && l.holds),
        "{before:?}"
    );
    let mut lock = sqlx::PgConnection::connect(&pg.url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut lock).await.unwrap();
    sqlx::query("LOCK TABLE games, game_events IN ACCESS EXCLUSIVE MODE")
        .execute(&mut lock)
        .await
        .unwrap();
    // Moves (their writes wait) and reads of games the store must be asked for (they wait
    // too), more than the pools hold.
    let mut waiting = Vec::new();
    for (i, g) in games.iter().enumerate() {
        let url = format!("{}/v1/games/{}/moves", nodes[i % 2].base, g.id);
        let (c, white) = (c.clone(), g.white.clone());
        waiting.push(actix_web::rt::spawn(async move {
            let resp = c
                .post(&url)
                .bearer_auth(&white)
                .insert_header(("Idempotency-Key", "while-locked"))
                .send_json(&json!({"uci": "e2e4"}))
                .await;
            resp.map(|r| r.status().as_u16()).unwrap_or(0)
        }));
    }
    for i in 0..24 {
        let url = format!("{}/v1/games/{}", nodes[i % 2].base, uuid::Uuid::new_v4());
        let c = c.clone();
        actix_web::rt::spawn(async move {
            let _ = c.get(&url).send().await;
        });
    }
    let held_until = Instant::now() + Duration::from_millis(4_500);
    while Instant::now() < held_until {
        tokio::time::sleep(Duration::from_millis(250)).await;
        // Renewed all along: the same owners and tokens, every lease holding.
        assert_eq!(
            leases(&mut watch).await,
            before,
            "a lease ended or moved while the games' tables were locked"
        );
    }
    sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
    // The moves that waited: each played once (one whose wait outlasted the store's was
    // answered 503: sent again with its key, it is played now).
    for (i, w) in waiting.into_iter().enumerate() {
        let g = &games[i];
        let mut status = w.await.unwrap();
        let url = format!("{}/v1/games/{}/moves", nodes[i % 2].base, g.id);
        let deadline = Instant::now() + Duration::from_secs(10);
        while status != 200 {
            assert!(Instant::now() < deadline, "move of {} still {status}", g.id);
            tokio::time::sleep(Duration::from_millis(100)).await;
            status = c
                .post(&url)
                .bearer_auth(&g.white)
                .insert_header(("Idempotency-Key", "while-locked"))
                .send_json(&json!({"uci": "e2e4"}))
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0);
        }
        let (_, v) = get_json(&c, &format!("{}/v1/games/{}", nodes[0].base, g.id)).await;
        assert_eq!(v["version"], 1, "{v}");
    }
    assert_eq!(leases(&mut watch).await, before);
}

/// A WebSocket through a node that does not own the game counts against the real client on the
/// owner (the forwarding node names it, with a proof under the cluster's secret; a client's own
/// `X-Forwarded-For` proves nothing) and on the forwarding node, whose frame and message limits
/// are the owner's: a message over `websocket.max_message_bytes` closes it with 1009.
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn forwarded_websockets_count_against_their_client_and_keep_the_frame_limits() {
    use std::net::IpAddr;

    use tokio::io::AsyncWriteExt;
    let pg = PgServer::start();
    let quota = [("CHESSD_QUOTAS__MAX_SOCKETS", "2")];
    let (a, b) = (start_node(&pg, 1500, &quota), start_node(&pg, 1500, &quota));
    let c = client();
    settled(&c, &a.base, 2).await;
    // A game created through a is owned by a.
    let (status, v) = post_json(&c, &format!("{}/v1/games", a.base), None, &json!({})).await;
    assert_eq!(status, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let path = format!("/v1/games/{id}/ws");
    let client_ip = IpAddr::from([127, 0, 0, 2]);
    let mut held = Vec::new();
    for _ in 0..2 {
        let (status, stream) = common::raw_websocket(client_ip, a.addr(), &path, "").await;
        assert_eq!(status, 101, "a socket on the owner");
        held.push(stream);
    }
    // A third, through b, claiming to be someone else: the owner knows the client.
    let (status, _) =
        common::raw_websocket(client_ip, b.addr(), &path, "X-Forwarded-For: junk\r\n").await;
    assert_eq!(
        status, 429,
        "a third socket of the client, through the other node"
    );
    drop(held);

    // Another client, through b: a message over the limit, in continuation frames.
    let (status, mut stream) =
        common::raw_websocket(IpAddr::from([127, 0, 0, 3]), b.addr(), &path, "").await;
    assert_eq!(status, 101);
    let chunk = vec![b'x'; 4096];
    let mut frames = common::client_frame(0x01, &chunk);
    for _ in 0..5 {
        frames.extend(common::client_frame(0x00, &chunk));
    }
    stream.write_all(&frames).await.unwrap();
    let code = common::raw_close_code(&mut stream, Duration::from_secs(5)).await;
    assert_eq!(
        code,
        Some(1009),
        "a 24 KiB message through the forwarding node"
    );
}
