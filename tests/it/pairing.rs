//! Quick pairing (issue 32): pools listed with their counts, two clients joining a pool paired
//! into one game with a seat each, never a client with itself, leaving, limits, expiry, the
//! lobby socket telling the holder of its pairing on the real binary, and two nodes on one
//! PostgreSQL pairing players of either node, each entry into one game only. (The widening
//! rule itself is unit-tested in `lobby::pairing::matcher`.)

use std::{
    collections::{BTreeMap, BTreeSet},
    net::{IpAddr, Ipv4Addr, SocketAddr},
    time::Duration,
};

use actix_web::{http::StatusCode, test::TestRequest};
use serde_json::{json, Value};

use crate::common::{
    self,
    app::{request, TestApp},
    Server,
};

/// The app with unlimited quotas (in-process requests come from the peers the tests choose),
/// pairing every 50 ms.
async fn app(tweak: impl FnOnce(&mut chessd_server::Config)) -> TestApp {
    TestApp::tweaked(|c| {
        c.quotas = chessd_server::config::QuotasConfig::unlimited();
        c.pairing.interval_ms = 50;
        tweak(c);
    })
    .await
}

/// A client of its own: requests from 10.0.0.`n`.
fn peer(n: u8) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, n)), 40_000)
}

fn from(req: TestRequest, n: u8) -> TestRequest {
    req.peer_addr(peer(n))
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// Client `n` joins `pool`; asserts 201: (id, secret).
async fn join(app: &TestApp, pool: &str, n: u8) -> (String, String) {
    let (status, v) = app
        .call(from(
            request("POST", &format!("/v1/pairing/{pool}"), None, None),
            n,
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    assert_eq!(v["status"], "waiting");
    assert_eq!(v["pool"], pool);
    (
        v["id"].as_str().unwrap().to_string(),
        v["secret"].as_str().unwrap().to_string(),
    )
}

/// The entry as its holder reads it.
async fn poll(app: &TestApp, pool: &str, id: &str, secret: &str) -> (StatusCode, Value) {
    app.call(request(
        "GET",
        &format!("/v1/pairing/{pool}/{id}"),
        Some(secret),
        None,
    ))
    .await
}

/// Polls until the entry is paired; panics after 10 s.
async fn paired(app: &TestApp, pool: &str, id: &str, secret: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = poll(app, pool, id, secret).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        if v["status"] == "paired" {
            return v;
        }
        assert_eq!(v["status"], "waiting", "{v}");
        assert!(tokio::time::Instant::now() < deadline, "never paired: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many wait in `pool`, as listed.
async fn waiting(app: &TestApp, pool: &str) -> i64 {
    let list = app.get_ok("/v1/pairing").await;
    list["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == pool)
        .unwrap_or_else(|| panic!("no pool {pool}: {list}"))["waiting"]
        .as_i64()
        .unwrap()
}

#[actix_web::test]
async fn the_pools_are_listed_from_config_with_their_counts() {
    let app = app(|_| {}).await;
    let list = app.get_ok("/v1/pairing").await;
    let ids: Vec<&str> = list["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["1-0", "3-2", "5-3", "10-0", "15-10", "chess2-5-3"]);
    let blitz = &list["pools"][1];
    assert_eq!(blitz["name"], "3+2");
    assert_eq!(blitz["variant"], "standard");
    assert_eq!(blitz["class"], "blitz");
    assert_eq!(
        blitz["time_control"],
        json!({"initial_ms": 180000, "increment_ms": 2000})
    );
    assert_eq!(list["pools"][0]["class"], "bullet");
    assert_eq!(list["pools"][4]["class"], "rapid");
    assert_eq!(list["pools"][5]["variant"], "chess2");
    assert!(list["pools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["waiting"] == 0));
    let (status, v) = app
        .call(from(request("POST", "/v1/pairing/2-1", None, None), 1))
        .await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::NOT_FOUND, "pool_not_found"),
        "{v}"
    );
}

#[actix_web::test]
async fn two_clients_are_paired_into_one_game_each_with_its_own_seat() {
    let app = app(|_| {}).await;
    let (a, a_secret) = join(&app, "3-2", 1).await;
    assert_eq!(waiting(&app, "3-2").await, 1);
    // Alone it waits.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, v) = poll(&app, "3-2", &a, &a_secret).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "waiting", "{v}");
    assert!(v.get("game").is_none());
    // Its secret only.
    let uri = format!("/v1/pairing/3-2/{a}");
    let (status, v) = app.get(&uri).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (status, v) = poll(&app, "3-2", &a, "0123456789abcdef0123456789abcdef").await;
    assert_eq!((status, code(&v)), (StatusCode::FORBIDDEN, "forbidden"));
    let (status, v) = poll(&app, "5-3", &a, &a_secret).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::NOT_FOUND, "pairing_entry_not_found")
    );

    let (b, b_secret) = join(&app, "3-2", 2).await;
    let pa = paired(&app, "3-2", &a, &a_secret).await;
    let pb = paired(&app, "3-2", &b, &b_secret).await;
    assert_eq!(pa["game"]["id"], pb["game"]["id"], "{pa} {pb}");
    let mut colours = [
        pa["game"]["color"].as_str().unwrap(),
        pb["game"]["color"].as_str().unwrap(),
    ];
    colours.sort_unstable();
    assert_eq!(colours, ["black", "white"]);
    assert_ne!(pa["game"]["secret"], pb["game"]["secret"]);
    assert_eq!(waiting(&app, "3-2").await, 0);

    // The pool's game: 3+2, standard.
    let game = pa["game"]["id"].as_str().unwrap();
    let view = app.get_ok(&format!("/v1/games/{game}")).await;
    assert_eq!(
        view["options"]["time_control"],
        json!({"initial_ms": 180000, "increment_ms": 2000}),
        "{view}"
    );
    // Each seat moves for its own colour only.
    let (white, black) = if pa["game"]["color"] == "white" {
        (&pa, &pb)
    } else {
        (&pb, &pa)
    };
    let white = white["game"]["secret"].as_str().unwrap();
    let black = black["game"]["secret"].as_str().unwrap();
    let moves = format!("/v1/games/{game}/moves");
    let (status, v) = app.post(&moves, Some(black), json!({"uci": "e2e4"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    let (status, v) = app.post(&moves, Some(white), json!({"uci": "e2e4"})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (status, v) = app.post(&moves, Some(white), json!({"uci": "e7e5"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    let (status, v) = app.post(&moves, Some(black), json!({"uci": "e7e5"})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // The entry's secret itself is no seat.
    let (status, v) = app
        .post(&moves, Some(&a_secret), json!({"uci": "g1f3"}))
        .await;
    assert!(
        status == StatusCode::FORBIDDEN || status == StatusCode::UNAUTHORIZED,
        "{v}"
    );
    // A paired entry cannot leave.
    let (status, v) = app.delete(&uri, Some(&a_secret)).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "pairing_entry_paired"),
        "{v}"
    );
}

#[actix_web::test]
async fn a_chess2_pool_makes_a_chess2_game() {
    let app = app(|_| {}).await;
    let (a, a_secret) = join(&app, "chess2-5-3", 1).await;
    let (b, b_secret) = join(&app, "chess2-5-3", 2).await;
    let pa = paired(&app, "chess2-5-3", &a, &a_secret).await;
    let pb = paired(&app, "chess2-5-3", &b, &b_secret).await;
    assert_eq!(pa["game"]["id"], pb["game"]["id"]);
    let view = app
        .get_ok(&format!("/v1/games/{}", pa["game"]["id"].as_str().unwrap()))
        .await;
    assert!(view["chess2"].is_object(), "{view}");
    assert_eq!(view["options"]["time_control"]["initial_ms"], 300000);
}

#[actix_web::test]
async fn one_client_joining_twice_is_never_paired_with_itself() {
    let app = app(|_| {}).await;
    let (a1, s1) = join(&app, "1-0", 7).await;
    let (a2, s2) = join(&app, "1-0", 7).await;
    assert_eq!(waiting(&app, "1-0").await, 2);
    // Twenty rounds and more: still both waiting.
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        for (id, secret) in [(&a1, &s1), (&a2, &s2)] {
            let (status, v) = poll(&app, "1-0", id, secret).await;
            assert_eq!(status, StatusCode::OK, "{v}");
            assert_eq!(v["status"], "waiting", "{v}");
        }
    }
    // Another client is paired with the longer waiting one; the other still waits.
    let (b, sb) = join(&app, "1-0", 8).await;
    let pb = paired(&app, "1-0", &b, &sb).await;
    let p1 = paired(&app, "1-0", &a1, &s1).await;
    assert_eq!(pb["game"]["id"], p1["game"]["id"]);
    let (_, v) = poll(&app, "1-0", &a2, &s2).await;
    assert_eq!(v["status"], "waiting", "{v}");
}

#[actix_web::test]
async fn leaving_removes_the_entry_with_its_secret_only() {
    let app = app(|_| {}).await;
    let (id, secret) = join(&app, "10-0", 1).await;
    let uri = format!("/v1/pairing/10-0/{id}");
    let (status, v) = app.delete(&uri, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (status, v) = app
        .delete(&uri, Some("0123456789abcdef0123456789abcdef"))
        .await;
    assert_eq!((status, code(&v)), (StatusCode::FORBIDDEN, "forbidden"));
    assert_eq!(waiting(&app, "10-0").await, 1);
    let (status, v) = app.delete(&uri, Some(&secret)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{v}");
    assert_eq!(waiting(&app, "10-0").await, 0);
    let (status, v) = poll(&app, "10-0", &id, &secret).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::NOT_FOUND, "pairing_entry_not_found")
    );
    // Gone, it is paired with nobody.
    let (b, sb) = join(&app, "10-0", 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, v) = poll(&app, "10-0", &b, &sb).await;
    assert_eq!(v["status"], "waiting", "{v}");
}

#[actix_web::test]
async fn joins_are_limited_per_client_and_in_total() {
    let app = app(|c| c.quotas.max_pairing_entries = 1).await;
    let (id, secret) = join(&app, "5-3", 1).await;
    for pool in ["5-3", "1-0"] {
        let (status, v) = app
            .call(from(
                request("POST", &format!("/v1/pairing/{pool}"), None, None),
                1,
            ))
            .await;
        assert_eq!(
            (status, code(&v)),
            (StatusCode::TOO_MANY_REQUESTS, "quota_exceeded"),
            "{v}"
        );
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("quotas.max_pairing_entries"),
            "{v}"
        );
    }
    assert_eq!(waiting(&app, "5-3").await, 1);
    assert_eq!(waiting(&app, "1-0").await, 0);
    // The place comes back when the entry leaves.
    let (status, _) = app
        .delete(&format!("/v1/pairing/5-3/{id}"), Some(&secret))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    join(&app, "1-0", 1).await;

    // In total (one client, so that nothing is paired meanwhile).
    let app = app_total(2).await;
    join(&app, "5-3", 1).await;
    join(&app, "15-10", 1).await;
    let (status, v) = app
        .call(from(request("POST", "/v1/pairing/5-3", None, None), 1))
        .await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::SERVICE_UNAVAILABLE, "too_many_pairing_entries"),
        "{v}"
    );
    assert_eq!(waiting(&app, "5-3").await, 1);
}

async fn app_total(total: usize) -> TestApp {
    app(|c| c.limits.max_pairing_entries = total).await
}

#[actix_web::test]
async fn an_entry_nobody_polls_is_gone_after_the_grace_period() {
    let app = app(|c| c.pairing.grace_secs = 1).await;
    let (kept, kept_secret) = join(&app, "3-2", 1).await;
    let (left, left_secret) = join(&app, "3-2", 1).await;
    // One is polled every 300 ms, the other never.
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (status, v) = poll(&app, "3-2", &kept, &kept_secret).await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    let (status, v) = poll(&app, "3-2", &left, &left_secret).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::NOT_FOUND, "pairing_entry_not_found"),
        "{v}"
    );
    assert_eq!(waiting(&app, "3-2").await, 1);
}

#[actix_web::test]
async fn without_a_database_pairing_says_so() {
    let app = app(|c| c.store.url = "memory".into()).await;
    let (status, v) = app.get("/v1/pairing").await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::SERVICE_UNAVAILABLE, "lobby_unavailable")
    );
    let (status, v) = app
        .call(from(request("POST", "/v1/pairing/1-0", None, None), 1))
        .await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::SERVICE_UNAVAILABLE, "lobby_unavailable")
    );
}

/// Joins `pool` on `base` as the client of API key `key`: (id, secret).
async fn join_as(c: &awc::Client, base: &str, pool: &str, key: &str) -> (String, String) {
    let mut resp = c
        .post(format!("{base}/v1/pairing/{pool}"))
        .insert_header(("X-API-Key", key))
        .send()
        .await
        .expect("request sent");
    let status = resp.status().as_u16();
    let v: Value = serde_json::from_slice(&resp.body().await.expect("body")).unwrap_or_default();
    assert_eq!(status, 201, "{v}");
    (
        v["id"].as_str().unwrap().to_string(),
        v["secret"].as_str().unwrap().to_string(),
    )
}

/// Polls an entry on `base` until it is paired; panics after 30 s.
async fn paired_on(c: &awc::Client, base: &str, pool: &str, id: &str, secret: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mut resp = c
            .get(format!("{base}/v1/pairing/{pool}/{id}"))
            .bearer_auth(secret)
            .send()
            .await
            .expect("request sent");
        let status = resp.status().as_u16();
        let v: Value =
            serde_json::from_slice(&resp.body().await.expect("body")).unwrap_or_default();
        assert_eq!(status, 200, "{v}");
        if v["status"] == "paired" {
            return v;
        }
        assert_eq!(v["status"], "waiting", "{v}");
        assert!(tokio::time::Instant::now() < deadline, "never paired: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The next JSON frame of `type` on a lobby socket, skipping others; panics after 10 s.
async fn frame_of(conn: &mut common::WsConn, kind: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        assert!(tokio::time::Instant::now() < deadline, "no {kind} frame");
        let v = common::ws_json(conn).await;
        if v["type"] == kind {
            return v;
        }
    }
}

#[actix_web::test]
async fn the_lobby_socket_holds_an_entry_and_tells_its_pairing() {
    let server = Server::start(&[
        ("CHESSD_AUTH__API_KEYS", "[\"key-a\", \"key-b\"]"),
        ("CHESSD_PAIRING__INTERVAL_MS", "50"),
        ("CHESSD_PAIRING__GRACE_SECS", "1"),
    ]);
    let base = server.base.clone();
    let c = common::client();
    let ws_url = format!("{}/v1/lobby/ws", base.replacen("http", "ws", 1));
    let (a, a_secret) = join_as(&c, &base, "5-3", "key-a").await;
    let mut socket = common::ws_connect(&c, &ws_url).await;
    frame_of(&mut socket, "seeks").await;
    common::ws_send(
        &mut socket,
        &json!({"type": "hold_pairing", "id": a, "secret": "wrong"}),
    )
    .await;
    assert_eq!(frame_of(&mut socket, "error").await["code"], "forbidden");
    common::ws_send(
        &mut socket,
        &json!({"type": "hold_pairing", "id": a, "secret": a_secret}),
    )
    .await;
    let holding = frame_of(&mut socket, "holding_pairing").await;
    assert_eq!(holding["id"], a.as_str());
    assert_eq!(holding["pool"], "5-3");
    // Held, it outlives the grace period without a poll.
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let (_, list) = common::get_json(&c, &format!("{base}/v1/pairing")).await;
    assert_eq!(list["pools"][2]["waiting"], 1, "{list}");

    // Another client joins and polls: both are told the same game, with their own seats.
    let (b, b_secret) = join_as(&c, &base, "5-3", "key-b").await;
    let told = frame_of(&mut socket, "paired").await;
    assert_eq!(told["entry"], a.as_str());
    assert_eq!(told["pool"], "5-3");
    let pb = paired_on(&c, &base, "5-3", &b, &b_secret).await;
    assert_eq!(told["game"]["id"], pb["game"]["id"], "{told} {pb}");
    assert_ne!(told["game"]["color"], pb["game"]["color"]);
    let game = pb["game"]["id"].as_str().unwrap();
    let (white, black) = if told["game"]["color"] == "white" {
        (&told["game"]["secret"], &pb["game"]["secret"])
    } else {
        (&pb["game"]["secret"], &told["game"]["secret"])
    };
    let moves = format!("{base}/v1/games/{game}/moves");
    let (status, v) = common::post_json(&c, &moves, white.as_str(), &json!({"uci": "d2d4"})).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = common::post_json(&c, &moves, black.as_str(), &json!({"uci": "d7d5"})).await;
    assert_eq!(status, 200, "{v}");

    // A held entry goes the grace period after its socket closes.
    let (d, d_secret) = join_as(&c, &base, "10-0", "key-a").await;
    common::ws_send(
        &mut socket,
        &json!({"type": "hold_pairing", "id": d, "secret": d_secret}),
    )
    .await;
    frame_of(&mut socket, "holding_pairing").await;
    drop(socket);
    tokio::time::sleep(Duration::from_millis(1800)).await;
    let mut resp = c
        .get(format!("{base}/v1/pairing/10-0/{d}"))
        .bearer_auth(&d_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 404, "{:?}", resp.body().await);
}

#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn players_on_two_nodes_meet_and_no_entry_is_ever_in_two_games() {
    use crate::common::{
        cluster::{settled, start_node},
        postgres::PgServer,
    };
    const PLAYERS: usize = 40;
    let keys: Vec<String> = (0..PLAYERS).map(|i| format!("player-key-{i}")).collect();
    let key_list = serde_json::to_string(&keys).unwrap();
    let pg = PgServer::start();
    let env = [
        ("CHESSD_PAIRING__INTERVAL_MS", "20"),
        ("CHESSD_AUTH__API_KEYS", key_list.as_str()),
    ];
    let a = start_node(&pg, 1500, &env);
    let b = start_node(&pg, 1500, &env);
    let c = common::client();
    settled(&c, &a.base, 2).await;

    // One on A, one on B: one game, each playing from its own node.
    let (x, xs) = join_as(&c, &a.base, "3-2", &keys[0]).await;
    let (y, ys) = join_as(&c, &b.base, "3-2", &keys[1]).await;
    let px = paired_on(&c, &a.base, "3-2", &x, &xs).await;
    let py = paired_on(&c, &b.base, "3-2", &y, &ys).await;
    assert_eq!(px["game"]["id"], py["game"]["id"], "{px} {py}");
    let game = px["game"]["id"].as_str().unwrap();
    let (first, second) = if px["game"]["color"] == "white" {
        ((&a, &px), (&b, &py))
    } else {
        ((&b, &py), (&a, &px))
    };
    for ((node, seat), mv) in [(first, "e2e4"), (second, "c7c5")] {
        let url = format!("{}/v1/games/{game}/moves", node.base);
        let (status, v) = common::post_json(
            &c,
            &url,
            seat["game"]["secret"].as_str(),
            &json!({"uci": mv}),
        )
        .await;
        assert_eq!(status, 200, "{mv} on {}: {v}", node.base);
    }

    // Many at once, half on each node, both nodes pairing every 20 ms: every entry is paired,
    // each game has exactly two entries, one of each colour, and no other game was made.
    let joins = keys.iter().enumerate().map(|(i, key)| {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        let c = &c;
        async move { (base.clone(), join_as(c, base, "1-0", key).await) }
    });
    let entries = futures_util::future::join_all(joins).await;
    let polls = entries.iter().map(|(base, (id, secret))| {
        let c = &c;
        async move { paired_on(c, base, "1-0", id, secret).await }
    });
    let seats = futures_util::future::join_all(polls).await;
    let mut games: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for seat in &seats {
        games
            .entry(seat["game"]["id"].as_str().unwrap().to_string())
            .or_default()
            .push(seat["game"]["color"].as_str().unwrap().to_string());
    }
    assert_eq!(games.len(), PLAYERS / 2, "{games:?}");
    for (game, mut colours) in games.clone() {
        colours.sort();
        assert_eq!(colours, ["black", "white"], "game {game}");
    }
    let secrets: BTreeSet<&str> = seats
        .iter()
        .map(|s| s["game"]["secret"].as_str().unwrap())
        .collect();
    assert_eq!(secrets.len(), PLAYERS);
    // The store holds those games and the first one, no more.
    let (status, list) = common::get_json(&c, &format!("{}/v1/games?limit=100", a.base)).await;
    assert_eq!(status, 200, "{list}");
    let stored: BTreeSet<&str> = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    let mut expected: BTreeSet<&str> = games.keys().map(String::as_str).collect();
    expected.insert(game);
    assert_eq!(stored, expected);
}
