//! Durable games against the real binary: clients play games over REST and WebSocket while the
//! server is killed with `kill -9` at random moments; after each restart on the same store,
//! every acknowledged move is there, every game replays through the rules to the position the
//! server shows, seat secrets still work, and a WebSocket client catches up with `since`.
//!
//! Run on SQLite (the default store) and on a real PostgreSQL the test starts itself.

use std::{
    cell::RefCell,
    rc::Rc,
    time::{Duration, Instant},
};

use chessd_core::{game::Game, Position};
use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::common::{
    self, client, scratch_store, ws_connect, ws_json, ws_send, GameSecrets, Rng, Server,
};

/// Kills per store.
const KILLS: usize = 20;
/// Games played over REST at once, and over WebSocket.
const REST_GAMES: usize = 4;

/// What the clients know of a game: the moves the server acknowledged, and a move sent whose
/// answer never came (it may or may not have been committed), with the idempotency key (or
/// WebSocket `ack`) it was sent with.
struct Tracked {
    secrets: GameSecrets,
    acked: Vec<String>,
    /// The version acknowledged with the last move.
    version: u64,
    in_flight: Option<(String, u64)>,
    /// Keys (and acks) used so far: each request gets a new one.
    keys: u64,
    over: bool,
}

impl Tracked {
    fn game(&self) -> Game {
        let mut game = Game::new(Position::startpos());
        for m in &self.acked {
            game.play_uci(m).unwrap();
        }
        game
    }

    /// A random legal move from the acknowledged position, or `None` when the game is over.
    fn next_move(&self, rng: &mut Rng) -> Option<String> {
        let game = self.game();
        if game.is_over() {
            return None;
        }
        let pos = game.position();
        let moves = pos.legal_moves();
        let m = moves[rng.below(moves.len())];
        Some(pos.uci(m))
    }
}

/// A POST with an idempotency key that reports a failed connection instead of panicking (the
/// server may be dead).
async fn try_post(
    c: &awc::Client,
    url: &str,
    secret: &str,
    key: u64,
    body: &Value,
) -> Option<(u16, Value)> {
    let mut resp = c
        .post(url)
        .bearer_auth(secret)
        .insert_header(("Idempotency-Key", format!("move-{key}")))
        .send_json(body)
        .await
        .ok()?;
    let bytes = resp.body().await.ok()?;
    Some((
        resp.status().as_u16(),
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    ))
}

/// Plays random moves over REST with the seat secrets until the server dies or the game ends.
async fn play_rest(c: awc::Client, base: String, game: Rc<RefCell<Tracked>>, seed: u64) {
    let mut rng = Rng(seed | 1);
    loop {
        let (url, secret, mv) = {
            let t = game.borrow();
            let Some(mv) = t.next_move(&mut rng) else {
                drop(t);
                game.borrow_mut().over = true;
                return;
            };
            let side = if t.acked.len().is_multiple_of(2) {
                "white"
            } else {
                "black"
            };
            (
                format!("{base}/v1/games/{}/moves", t.secrets.id),
                t.secrets.seat(side).to_string(),
                mv,
            )
        };
        let key = {
            let mut t = game.borrow_mut();
            t.keys += 1;
            t.in_flight = Some((mv.clone(), t.keys));
            t.keys
        };
        match try_post(&c, &url, &secret, key, &json!({ "uci": mv })).await {
            Some((200, v)) => {
                let mut t = game.borrow_mut();
                t.in_flight = None;
                t.acked.push(mv);
                t.version = v["version"].as_u64().unwrap();
            }
            Some((status, v)) => panic!("move {mv} refused with {status}: {v}"),
            None => return,
        }
    }
}

/// Plays random moves over one WebSocket (the admin's, which may move for both sides), each
/// with an `ack` id, until the server dies or the game ends.
async fn play_ws(c: awc::Client, server_ws: String, game: Rc<RefCell<Tracked>>, seed: u64) {
    let mut rng = Rng(seed | 1);
    let Ok((_, mut conn)) = c.ws(server_ws).connect().await else {
        return;
    };
    use futures_util::StreamExt;
    loop {
        let Some(mv) = game.borrow().next_move(&mut rng) else {
            game.borrow_mut().over = true;
            return;
        };
        // An ack is the command's idempotency key: it is never used twice for a seat, across
        // connections too.
        let ack = {
            let mut t = game.borrow_mut();
            t.keys += 1;
            t.in_flight = Some((mv.clone(), t.keys));
            t.keys
        };
        let frame = json!({"type": "move", "uci": mv, "ack": ack});
        if futures_util::SinkExt::send(&mut conn, awc::ws::Message::Text(frame.to_string().into()))
            .await
            .is_err()
        {
            return;
        }
        // Events and pings may come before the ack.
        loop {
            let bytes = match conn.next().await {
                Some(Ok(awc::ws::Frame::Text(bytes))) => bytes,
                Some(Ok(_)) => continue,
                None | Some(Err(_)) => return,
            };
            let v: Value = serde_json::from_slice(&bytes).unwrap();
            match v["type"].as_str() {
                Some("ack") if v["ack"] == ack => {
                    let mut t = game.borrow_mut();
                    t.in_flight = None;
                    t.acked.push(mv.clone());
                    t.version = v["version"].as_u64().unwrap();
                    break;
                }
                Some("error") => panic!("move {mv} refused: {v}"),
                _ => {}
            }
        }
    }
}

/// Sends a game's move in flight again with its key (over REST, or with its `ack` over the
/// admin's WebSocket for the first game): it must be answered as done, whether it had been
/// committed before the kill or not.
async fn resend_in_flight(
    c: &awc::Client,
    server: &Server,
    game: &Rc<RefCell<Tracked>>,
    ws: bool,
) -> bool {
    let (id, admin, in_flight, side) = {
        let t = game.borrow();
        let side = if t.acked.len().is_multiple_of(2) {
            "white"
        } else {
            "black"
        };
        (
            t.secrets.id.clone(),
            t.secrets.admin.clone(),
            t.in_flight.clone(),
            t.secrets.seat(side).to_string(),
        )
    };
    let Some((mv, key)) = in_flight else {
        return false;
    };
    if ws {
        let mut conn = ws_connect(c, &server.ws_url(&id, &format!("token={admin}"))).await;
        ws_send(&mut conn, &json!({"type": "move", "uci": mv, "ack": key})).await;
        loop {
            let v = ws_json(&mut conn).await;
            match v["type"].as_str() {
                Some("ack") => {
                    assert_eq!(v["ack"], key, "{v}");
                    break;
                }
                Some("error") => panic!("move {mv} sent again with ack {key}: {v}"),
                _ => {}
            }
        }
    } else {
        let url = format!("{}/v1/games/{id}/moves", server.base);
        let answer = try_post(c, &url, &side, key, &json!({ "uci": mv })).await;
        let (status, v) = answer.expect("the restarted server answers");
        assert_eq!(status, 200, "move {mv} sent again with its key: {v}");
    }
    let mut t = game.borrow_mut();
    t.acked.push(mv);
    t.in_flight = None;
    true
}

/// After a restart: the move each game had in flight is sent again with its key and answered;
/// then each game holds exactly the acknowledged moves (the move in flight once, never twice),
/// replays to the FEN the server shows, and its seats still move.
async fn check_after_restart(
    c: &awc::Client,
    server: &Server,
    games: &[Rc<RefCell<Tracked>>],
) -> usize {
    let mut resent = 0;
    for (i, game) in games.iter().enumerate() {
        resent += usize::from(resend_in_flight(c, server, game, i == 0).await);
        let id = game.borrow().secrets.id.clone();
        let url = format!("{}/v1/games/{id}", server.base);
        let mut resp = c.get(&url).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200, "game {id} is back");
        let view: Value = serde_json::from_slice(&resp.body().await.unwrap()).unwrap();
        let mut t = game.borrow_mut();
        let stored: Vec<String> = view["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            stored, t.acked,
            "game {}: the stored moves are not exactly the acknowledged ones",
            t.secrets.id
        );
        let version = view["version"].as_u64().unwrap();
        assert!(
            version >= t.version,
            "version went back: {version} < {}",
            t.version
        );
        t.version = version;
        // Replayed through the rules here, the game reaches the position the server shows.
        let replayed = t.game();
        assert_eq!(
            view["fen"].as_str(),
            Some(replayed.position().fen().as_str())
        );
        t.over = replayed.is_over();
    }
    resent
}

/// Connects with `?since=` an earlier version and checks that the missed moves come, in order.
async fn check_catch_up(c: &awc::Client, server: &Server, game: &Rc<RefCell<Tracked>>) {
    let (id, version, acked) = {
        let t = game.borrow();
        (t.secrets.id.clone(), t.version, t.acked.clone())
    };
    if version < 3 {
        return;
    }
    let since = version - 3;
    let url = server.ws_url(&id, &format!("since={since}"));
    let mut conn = ws_connect(c, &url).await;
    let hello = ws_json(&mut conn).await;
    assert_eq!(hello["type"], "hello", "{hello}");
    for v in since + 1..=version {
        let event = ws_json(&mut conn).await;
        assert_eq!(event["version"], v, "catching up from {since}: {event}");
        assert_eq!(event["type"], "move", "{event}");
        let ply = event["ply"].as_u64().unwrap() as usize;
        assert_eq!(event["uci"].as_str(), Some(acked[ply - 1].as_str()));
    }
    ws_send(&mut conn, &json!({"type": "ping", "ack": "caught up"})).await;
    assert_eq!(ws_json(&mut conn).await["type"], "pong");
}

/// The whole scenario on the store at `url`.
async fn kill_and_restart(url: &str) {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("seed {seed}");
    let mut rng = Rng(seed | 1);
    let c = client();
    let env = [("CHESSD_STORE__URL", url)];
    let mut games: Vec<Rc<RefCell<Tracked>>> = Vec::new();
    let mut acknowledged = 0;
    let mut resent = 0;
    let started = Instant::now();
    for round in 0..KILLS {
        let server = Server::start(&env);
        resent += check_after_restart(&c, &server, &games).await;
        let caught_up = games.iter().find(|g| g.borrow().version >= 3).cloned();
        if let Some(g) = caught_up {
            check_catch_up(&c, &server, &g).await;
        }
        // Finished games are replaced by new ones.
        games.retain(|g| !g.borrow().over);
        while games.len() < REST_GAMES + 1 {
            let v = common::create_game(&c, &server.base, &json!({})).await;
            games.push(Rc::new(RefCell::new(Tracked {
                secrets: v,
                acked: Vec::new(),
                version: 0,
                in_flight: None,
                keys: 0,
                over: false,
            })));
        }
        let mut players = Vec::new();
        for (i, g) in games.iter().enumerate() {
            let seed = rng.next_u64() % u64::MAX;
            if i == 0 {
                let id = g.borrow().secrets.id.clone();
                let admin = g.borrow().secrets.admin.clone();
                let ws = server.ws_url(&id, &format!("token={admin}"));
                players.push(Box::pin(play_ws(c.clone(), ws, g.clone(), seed))
                    as std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>);
            } else {
                players.push(Box::pin(play_rest(
                    c.clone(),
                    server.base.clone(),
                    g.clone(),
                    seed,
                )));
            }
        }
        let before: usize = games.iter().map(|g| g.borrow().acked.len()).sum();
        let lifetime = Duration::from_millis(50 + rng.below(400) as u64);
        let pid = server.pid();
        let killer = async move {
            tokio::time::sleep(lifetime).await;
            std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status()
                .unwrap();
        };
        let play = join_all(players);
        futures_util::future::join(play, killer).await;
        drop(server);
        let after: usize = games.iter().map(|g| g.borrow().acked.len()).sum();
        acknowledged += after - before;
        println!("round {round}: {} moves acknowledged", after - before);
    }
    // One last restart to check the last kill.
    let server = Server::start(&env);
    resent += check_after_restart(&c, &server, &games).await;
    // Every game is listed, page by page, newest first, once.
    let mut listed = Vec::new();
    let mut cursor = String::new();
    loop {
        let url = format!("{}/v1/games?limit=3{cursor}", server.base);
        let mut resp = c.get(&url).send().await.unwrap();
        let page: Value = serde_json::from_slice(&resp.body().await.unwrap()).unwrap();
        for g in page["games"].as_array().unwrap() {
            listed.push(g["id"].as_str().unwrap().to_string());
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = format!("&cursor={next}"),
            None => break,
        }
    }
    let mut unique = listed.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), listed.len(), "a game listed twice");
    for g in &games {
        assert!(
            listed.contains(&g.borrow().secrets.id),
            "a game is not listed"
        );
    }
    println!(
        "{KILLS} kills, {acknowledged} acknowledged moves, all there, {resent} moves in flight \
         sent again with their keys, each there once, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        acknowledged > KILLS,
        "the clients hardly played: {acknowledged} moves"
    );
}

#[actix_web::test]
async fn acknowledged_moves_survive_kill_9_on_sqlite() {
    let path = scratch_store();
    kill_and_restart(&format!("sqlite://{}", path.display())).await;
    common::remove_sqlite(&path);
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[actix_web::test]
async fn acknowledged_moves_survive_kill_9_on_postgresql() {
    let pg = common::postgres::PgServer::start();
    kill_and_restart(&pg.url).await;
}

/// `chessd_games_alive` from `/metrics`.
async fn games_in_memory(c: &awc::Client, server: &Server) -> f64 {
    let mut resp = c
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .unwrap();
    let text = String::from_utf8(resp.body().await.unwrap().to_vec()).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("chessd_games_alive "))
        .unwrap()
        .parse()
        .unwrap()
}

#[actix_web::test]
async fn an_untouched_game_leaves_memory_and_comes_back_at_its_next_request() {
    let server = Server::start(&[("CHESSD_STORE__EVICT_AFTER_SECS", "1")]);
    let c = client();
    let g = common::create_game(&c, &server.base, &json!({})).await;
    let moves = format!("{}/v1/games/{}/moves", server.base, g.id);
    let (status, _) = try_post(&c, &moves, &g.white, 101, &json!({"uci": "e2e4"}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    // A watched game stays.
    let mut watcher = ws_connect(&c, &server.ws_url(&g.id, "")).await;
    assert_eq!(ws_json(&mut watcher).await["type"], "hello");
    tokio::time::sleep(Duration::from_millis(1800)).await;
    assert_eq!(games_in_memory(&c, &server).await, 1.0);
    drop(watcher);
    let deadline = Instant::now() + Duration::from_secs(10);
    while games_in_memory(&c, &server).await != 0.0 {
        assert!(Instant::now() < deadline, "the game never left memory");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Its next request brings it back, as it was.
    let (status, v) = try_post(&c, &moves, &g.black, 102, &json!({"uci": "e7e5"}))
        .await
        .unwrap();
    assert_eq!((status, v["version"].as_u64()), (200, Some(2)), "{v}");
    assert_eq!(games_in_memory(&c, &server).await, 1.0);
    // A stopped game does not come back.
    let mut resp = c
        .delete(format!("{}/v1/games/{}", server.base, g.id))
        .bearer_auth(&g.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 204);
    let _ = resp.body().await;
    let resp = c
        .get(format!("{}/v1/games/{}", server.base, g.id))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 404);
}

#[actix_web::test]
async fn an_engine_opponent_comes_back_with_its_game() {
    let path = scratch_store();
    let store = format!("sqlite://{}", path.display());
    let env = [("CHESSD_STORE__URL", store.as_str())];
    let c = client();
    let mut server = Server::start(&env);
    let g = common::create_game(
        &c,
        &server.base,
        &json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"movetime": 50}}}),
    )
    .await;
    let moves = format!("{}/v1/games/{}/moves", server.base, g.id);
    // The engine answers each move of White's: wait for the version to reach `version`.
    async fn wait_for_version(c: &awc::Client, url: &str, version: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let mut resp = c.get(url).send().await.unwrap();
            let v: Value = serde_json::from_slice(&resp.body().await.unwrap()).unwrap();
            if v["version"].as_u64() >= Some(version) {
                return v;
            }
            assert!(Instant::now() < deadline, "the engine did not move: {v}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let view = format!("{}/v1/games/{}", server.base, g.id);
    let (status, _) = try_post(&c, &moves, &g.white, 103, &json!({"uci": "e2e4"}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    wait_for_version(&c, &view, 2).await;
    assert!(server.terminate(Duration::from_secs(15)));

    // After a restart the game comes back with its engine, which answers again.
    let server = Server::start(&env);
    let moves = format!("{}/v1/games/{}/moves", server.base, g.id);
    let view = format!("{}/v1/games/{}", server.base, g.id);
    let (status, v) = try_post(&c, &moves, &g.white, 104, &json!({"uci": "d2d4"}))
        .await
        .unwrap();
    assert_eq!((status, v["version"].as_u64()), (200, Some(3)), "{v}");
    let v = wait_for_version(&c, &view, 4).await;
    assert_eq!(v["moves"].as_array().unwrap().len(), 4, "{v}");
    let mut resp = c.get(format!("{view}/engine")).send().await.unwrap();
    let engine: Value = serde_json::from_slice(&resp.body().await.unwrap()).unwrap();
    assert_eq!(engine["opponent"]["plays"], "black", "{engine}");
    drop(server);
    common::remove_sqlite(&path);
}

/// A game two engines play comes back after a restart with both engines, which play on from
/// where the store left the game.
#[actix_web::test]
async fn both_engines_of_an_engine_match_come_back_with_their_game() {
    let path = scratch_store();
    let store = format!("sqlite://{}", path.display());
    let env = [
        ("CHESSD_STORE__URL", store.as_str()),
        ("CHESSD_ENGINES__MINI__BUILTIN", "true"),
    ];
    let c = client();
    let mut server = Server::start(&env);
    // Slow enough that the game is still going when the server stops.
    let g = common::create_game(
        &c,
        &server.base,
        &json!({"opponents": [
            {"engine": "builtin", "plays": "white", "go": {"movetime": 150}},
            {"engine": "mini", "plays": "black", "go": {"movetime": 150}},
        ]}),
    )
    .await;
    let view = format!("{}/v1/games/{}", server.base, g.id);
    let before = wait_for_plies(&c, &view, 4).await;
    assert!(server.terminate(Duration::from_secs(15)));

    let server = Server::start(&env);
    let view = format!("{}/v1/games/{}", server.base, g.id);
    let plies = before["moves"].as_array().unwrap().len();
    let after = wait_for_plies(&c, &view, plies + 2).await;
    // The game went on from the stored moves, by both engines.
    assert_eq!(
        after["moves"].as_array().unwrap()[..plies],
        before["moves"].as_array().unwrap()[..plies]
    );
    assert_eq!(
        after["options"]["opponents"],
        json!([{"engine": "builtin", "plays": "white"}, {"engine": "mini", "plays": "black"}])
    );
    let mut resp = c.get(format!("{view}/engine")).send().await.unwrap();
    let engine: Value = serde_json::from_slice(&resp.body().await.unwrap()).unwrap();
    let sides = [
        engine["opponent"]["plays"].clone(),
        engine["rival"]["plays"].clone(),
    ];
    assert!(
        sides.contains(&json!("white")) && sides.contains(&json!("black")),
        "{engine}"
    );
    drop(server);
    common::remove_sqlite(&path);
}

/// Reads the game at `url` until it has `plies` moves (or has ended), within 20 s.
async fn wait_for_plies(c: &awc::Client, url: &str, plies: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut resp = c.get(url).send().await.unwrap();
        let v: Value = serde_json::from_slice(&resp.body().await.unwrap()).unwrap();
        if v["moves"].as_array().map_or(0, Vec::len) >= plies {
            return v;
        }
        assert_eq!(v["status"]["result"], "ongoing", "{v}");
        assert!(Instant::now() < deadline, "the engines did not move: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Sets the database of `url` read-only (or back) for every session, the pool's too.
async fn set_read_only(url: &str, on: bool) {
    use sqlx::Connection;
    let mut admin = sqlx::PgConnection::connect(url).await.unwrap();
    // This session may itself have started read-only.
    sqlx::query("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE")
        .execute(&mut admin)
        .await
        .unwrap();
    let value = if on { "on" } else { "off" };
    sqlx::query(&format!(
        "ALTER DATABASE postgres SET default_transaction_read_only = {value}"
    ))
    .execute(&mut admin)
    .await
    .unwrap();
    // Sessions take the new default when they start: end the server's.
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE pid <> pg_backend_pid() AND datname = 'postgres'",
    )
    .execute(&mut admin)
    .await
    .unwrap();
    admin.close().await.unwrap();
}

/// Health says whether the store takes writes: a database that turned read-only makes
/// `/health` answer 503 with the database's error (a load balancer then stops sending traffic),
/// and `/health` is 200 again once writes commit.
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn health_fails_while_the_database_takes_no_writes() {
    let pg = common::postgres::PgServer::start();
    let server = Server::start(&[("CHESSD_STORE__URL", pg.url.as_str())]);
    let c = client();
    let health = || async {
        let (status, v) = common::get_json(&c, &format!("{}/health", server.base)).await;
        (status, v)
    };
    let (status, v) = health().await;
    assert_eq!((status, v["store"].as_str()), (200, Some("ok")), "{v}");
    let g = common::create_game(&c, &server.base, &json!({})).await;

    set_read_only(&pg.url, true).await;
    // Without any game written since, health finds out by itself within a second or two.
    let deadline = Instant::now() + Duration::from_secs(3);
    let v = loop {
        let (status, v) = health().await;
        // (The server's connections were ended, which health may report first.)
        if status == 503 && v["store"].as_str().is_some_and(|e| e.contains("read-only")) {
            break v;
        }
        assert!(Instant::now() < deadline, "health still says {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(v["status"], "unavailable", "{v}");
    let moves = format!("{}/v1/games/{}/moves", server.base, g.id);
    let (status, v) = try_post(&c, &moves, &g.white, 900, &json!({"uci": "e2e4"}))
        .await
        .unwrap();
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (503, Some("store_unavailable")),
        "{v}"
    );

    set_read_only(&pg.url, false).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = health().await;
        if status == 200 {
            assert_eq!(v["store"], "ok", "{v}");
            break;
        }
        assert!(Instant::now() < deadline, "health never came back: {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The same move, sent again with its key, is played (it was not before).
    let (status, v) = try_post(&c, &moves, &g.white, 900, &json!({"uci": "e2e4"}))
        .await
        .unwrap();
    assert_eq!((status, v["version"].as_u64()), (200, Some(1)), "{v}");
}

/// While PostgreSQL is down, requests are answered within a second (`store_unavailable`), not
/// after a long wait for a connection; once it is back, a move sent again with its key is played
/// once.
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn requests_during_a_postgresql_outage_are_answered_within_a_second() {
    let pg = common::postgres::PgServer::start();
    let server = Server::start(&[("CHESSD_STORE__URL", pg.url.as_str())]);
    let c = client();
    let g = common::create_game(&c, &server.base, &json!({})).await;
    let other = common::create_game(&c, &server.base, &json!({})).await;
    let moves = format!("{}/v1/games/{}/moves", server.base, g.id);
    pg.stop();
    let mut slowest = Duration::ZERO;
    // A move (its write fails), the same move again (the game left memory when its write
    // failed: it must be read from the store), a game in memory, a game the store must be
    // asked for, and health.
    for (i, url) in [
        moves.clone(),
        moves.clone(),
        format!("{}/v1/games/{}", server.base, other.id),
        format!("{}/v1/games/{}", server.base, uuid::Uuid::new_v4()),
        format!("{}/health", server.base),
    ]
    .iter()
    .enumerate()
    {
        let started = Instant::now();
        let status = if i < 2 {
            try_post(&c, url, &g.white, 901, &json!({"uci": "e2e4"}))
                .await
                .unwrap()
                .0
        } else {
            common::get_json(&c, url).await.0
        };
        let took = started.elapsed();
        slowest = slowest.max(took);
        // The other game is still in memory: it is read without the store.
        if i != 2 {
            assert_eq!(status, 503, "{url} during the outage");
        }
    }
    eprintln!("slowest answer during the outage: {slowest:?}");
    assert!(slowest < Duration::from_secs(1), "{slowest:?}");
    pg.start_again();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, v) = try_post(&c, &moves, &g.white, 901, &json!({"uci": "e2e4"}))
            .await
            .unwrap();
        if status == 200 {
            assert_eq!(v["version"], 1, "{v}");
            break;
        }
        assert!(Instant::now() < deadline, "still {status} {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
