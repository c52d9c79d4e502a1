//! The holes an outside probe found, each closed and shown closed through the real binary:
//! raw UCI lines that wrote files (real Stockfish), webhooks that followed redirects or reached
//! any local port, engine processes without a cap, one client filling the server with games,
//! and the `max_games` race. Also the quotas that replace them: per client (an address, an API
//! key, or the address a trusted proxy names), rates with `Retry-After`, and games nobody plays.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{IpAddr, SocketAddr, TcpListener},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

use crate::common::{
    self,
    engines::{children_named, start, stockfish, Api},
};

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// One HTTP/1.1 request from a chosen source address (so one test can be several clients).
/// Returns the status, the headers (lower-case names) and the JSON body.
async fn http_from(
    source: IpAddr,
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (u16, Vec<(String, String)>, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr: SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(source, 0)).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (
        status,
        headers,
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

// ---------------------------------------------------------------------------------------------
// 1. Raw UCI lines: operator only, allow-listed, never a file written.
// ---------------------------------------------------------------------------------------------

#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn raw_uci_lines_cannot_write_files_whatever_their_spelling() {
    let sf = stockfish();
    let dir = std::env::temp_dir().join(format!("chessd-security-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("written-by-stockfish.log");
    let t = target.display().to_string();
    let operator = "operator-secret-for-this-test";
    let server = start(&env(&[
        ("CHESSD_ENGINES__SF__COMMAND", &sf),
        ("CHESSD_ENGINES__SF__OPTIONS", "{Hash = 16, Threads = 1}"),
        ("CHESSD_ENGINES__SF__MAX_HASH_MB", "64"),
        ("CHESSD_AUTH__OPERATOR_TOKEN", operator),
    ]));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "sf").await;
    let path = format!("/v1/games/{}/engine/command", g.id);

    // Every variant the probe used, and a few more, from the operator: refused, nothing sent.
    let variants = [
        format!("setoption name Debug Log File value {t}"),
        format!("setoption NAME Debug Log File value {t}"),
        format!("setoption x Debug Log File value {t}"),
        format!("setoption name Debug  Log File value {t}"),
        format!("setoption name Debug\tLog File value {t}"),
        format!("   setoption name debug log file value {t}"),
        format!("SETOPTION NAME DEBUG LOG FILE VALUE {t}"),
        format!("setoption name Hash value 16\nsetoption name Debug Log File value {t}"),
        format!("isready\rsetoption name Debug Log File value {t}"),
        format!("setoption name SyzygyPath value {}", dir.display()),
        "setoption name Hash value 1024".to_string(),
        "setoption name Threads value 2".to_string(),
        "setoption name MultiPV value 100000".to_string(),
        "quit".to_string(),
        "uci".to_string(),
        "position startpos moves e2e4".to_string(),
        "go depth 0".to_string(),
        "go searchmoves e7e5".to_string(),
        "go depth 5 bogus".to_string(),
    ];
    for line in &variants {
        let (status, v) = api
            .post(&path, Some(operator), json!({ "command": line }))
            .await;
        // searchmoves that are not legal here are refused as a move would be.
        let want = if line.contains("searchmoves") {
            (422, "illegal_move")
        } else {
            (422, "command_refused")
        };
        assert_eq!((status, code(&v)), want, "{line:?}: {v}");
    }
    // What the allow-list lets through still works, in the engine's spelling.
    for line in [
        "isready",
        "setoption NAME hash VALUE 32",
        "setoption name Clear Hash",
        "ucinewgame",
        "go depth 3 searchmoves e2e4 d2d4",
        "stop",
    ] {
        let (status, v) = api
            .post(&path, Some(operator), json!({ "command": line }))
            .await;
        assert_eq!(status, 200, "{line:?}: {v}");
    }
    // The game's own admin and seats are not the operator.
    for secret in [&g.admin, &g.white] {
        let (status, v) = api
            .post(&path, Some(secret), json!({ "command": "isready" }))
            .await;
        assert_eq!((status, code(&v)), (403, "forbidden"), "{v}");
    }
    // The engine is still fine, and no file was ever created.
    let (status, hint) = api
        .post(
            &format!("/v1/games/{}/engine/bestmove", g.id),
            Some(&g.white),
            json!({"depth": 4}),
        )
        .await;
    assert_eq!(status, 200, "{hint}");
    assert!(!target.exists(), "Stockfish wrote {t}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[actix_web::test]
async fn without_an_operator_token_raw_lines_are_off() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "builtin").await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine/command", g.id),
            Some(&g.admin),
            json!({"command": "isready"}),
        )
        .await;
    assert_eq!((status, code(&v)), (403, "operator_disabled"), "{v}");
}

// ---------------------------------------------------------------------------------------------
// 2. Webhooks: allowed listeners are host:port, none by default, redirects never followed.
// ---------------------------------------------------------------------------------------------

/// Asserts that a game with each of these webhook URLs is refused with `webhook_not_allowed`.
async fn assert_webhooks_refused(api: &Api, urls: impl IntoIterator<Item = String>) {
    for url in urls {
        let (status, v) = api
            .post("/v1/games", None, json!({ "webhook_url": url }))
            .await;
        assert_eq!(
            (status, code(&v)),
            (422, "webhook_not_allowed"),
            "{url}: {v}"
        );
    }
}

/// A listener that answers every request with `answer` and records each request's first line.
fn listener(answer: String) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let store = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut first = String::new();
            let mut length = 0usize;
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                if first.is_empty() {
                    first = line.trim().to_string();
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            store.lock().unwrap().push(first);
            let _ = reader.into_inner().write_all(answer.as_bytes());
        }
    });
    (addr, seen)
}

#[actix_web::test]
async fn webhooks_never_follow_redirects_and_need_an_allowed_port() {
    let (elsewhere, elsewhere_seen) = listener(
        "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
    );
    let (redirector, redirector_seen) = listener(format!(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://{elsewhere}/stolen\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ));
    let allowed = format!("[\"{redirector}\"]");
    let server = start(&env(&[("CHESSD_WEBHOOKS__ALLOWED_HOSTS", &allowed)]));
    let api = Api::new(&server);

    // The same host on another port is not allowed; nor is a host without the port.
    assert_webhooks_refused(
        &api,
        [
            format!("http://{elsewhere}/hook"),
            "http://127.0.0.1/hook".to_string(),
            "http://localhost/hook".to_string(),
        ],
    )
    .await;

    let g = api
        .game(json!({ "webhook_url": format!("http://{redirector}/hook") }))
        .await;
    let (status, _) = api
        .delete(&format!("/v1/games/{}", g.id), Some(&g.admin))
        .await;
    assert!(status < 300, "{status}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while redirector_seen.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Time for a redirect to be followed, if it were.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(redirector_seen.lock().unwrap().len(), 1);
    assert!(
        elsewhere_seen.lock().unwrap().is_empty(),
        "the redirect was followed: {:?}",
        elsewhere_seen.lock().unwrap()
    );
}

#[actix_web::test]
async fn by_default_no_webhook_is_allowed() {
    let server = start(&[]);
    let api = Api::new(&server);
    let port = common::free_port();
    assert_webhooks_refused(
        &api,
        [
            format!("http://127.0.0.1:{port}/hook"),
            "http://127.0.0.1/hook".to_string(),
            "http://localhost:8080/hook".to_string(),
        ],
    )
    .await;
}

// ---------------------------------------------------------------------------------------------
// 3. Engine processes: a cap in total and per client, taken before anything starts.
// ---------------------------------------------------------------------------------------------

#[actix_web::test]
async fn engine_processes_are_capped_in_total_and_per_client() {
    let server = start(&env(&[
        ("CHESSD_ENGINES__MAX_PROCESSES", "3"),
        ("CHESSD_QUOTAS__MAX_ENGINES", "2"),
    ]));
    let api = Api::new(&server);
    let attach = |id: String, secret: String, source: IpAddr| {
        let base = server.base.clone();
        async move {
            http_from(
                source,
                &base,
                "POST",
                &format!("/v1/games/{id}/engine"),
                &[("Authorization", &format!("Bearer {secret}"))],
                Some(&json!({"name": "builtin"})),
            )
            .await
        }
    };
    let mut games = Vec::new();
    for _ in 0..5 {
        games.push(api.game(json!({})).await);
    }
    // Client 127.0.0.1: two engines, then its own quota.
    for g in &games[..2] {
        let (status, _, v) = attach(g.id.clone(), g.admin.clone(), ip("127.0.0.1")).await;
        assert_eq!(status, 200, "{v}");
    }
    let (status, _, v) = attach(games[2].id.clone(), games[2].admin.clone(), ip("127.0.0.1")).await;
    assert_eq!((status, code(&v)), (429, "quota_exceeded"), "{v}");
    // Client 127.0.0.2: one more, then the server's total.
    let (status, _, v) = attach(games[2].id.clone(), games[2].admin.clone(), ip("127.0.0.2")).await;
    assert_eq!(status, 200, "{v}");
    let (status, _, v) = attach(games[3].id.clone(), games[3].admin.clone(), ip("127.0.0.3")).await;
    assert_eq!((status, code(&v)), (503, "too_many_engines"), "{v}");
    // Nothing was started for the refusals.
    let engines = || children_named(server.pid(), "chessd").len();
    assert_eq!(engines(), 3);
    // A detach gives its place back.
    let (status, _) = api
        .delete(
            &format!("/v1/games/{}/engine", games[0].id),
            Some(&games[0].admin),
        )
        .await;
    assert_eq!(status, 204);
    let (status, _, v) = attach(games[3].id.clone(), games[3].admin.clone(), ip("127.0.0.3")).await;
    assert_eq!(status, 200, "{v}");
    // An opponent at creation counts too, and a refusal creates no game.
    let (status, _, v) = http_from(
        ip("127.0.0.4"),
        &server.base,
        "POST",
        "/v1/games",
        &[],
        Some(&json!({"opponent": {"engine": "builtin", "plays": "black"}})),
    )
    .await;
    assert_eq!((status, code(&v)), (503, "too_many_engines"), "{v}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while engines() > 3 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(engines(), 3);
}

// ---------------------------------------------------------------------------------------------
// 4. One client cannot deny service to another.
// ---------------------------------------------------------------------------------------------

#[actix_web::test]
async fn a_client_creating_games_flat_out_is_limited_while_another_plays_normally() {
    let server = start(&env(&[("CHESSD_QUOTAS__GAMES_PER_MINUTE", "30")]));
    let base = server.base.clone();
    // The flooder: as fast as it can, from 127.0.0.1, in 8 parallel streams, for 2 s.
    let flood = {
        let base = base.clone();
        async move {
            let stop = Instant::now() + Duration::from_secs(2);
            let stream = |base: String| async move {
                let (mut created, mut limited, mut retry_after) = (0, 0, None);
                while Instant::now() < stop {
                    let (status, headers, v) = http_from(
                        ip("127.0.0.1"),
                        &base,
                        "POST",
                        "/v1/games",
                        &[],
                        Some(&json!({})),
                    )
                    .await;
                    match status {
                        201 => created += 1,
                        429 => {
                            assert_eq!(code(&v), "rate_limited", "{v}");
                            limited += 1;
                            retry_after = header(&headers, "retry-after").map(str::to_string);
                        }
                        other => panic!("{other}: {v}"),
                    }
                }
                (created, limited, retry_after)
            };
            futures_util::future::join_all((0..8).map(|_| stream(base.clone()))).await
        }
    };
    // The other client, from 127.0.0.2, creates a game and plays moves meanwhile.
    let player = {
        let base = base.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let (status, _, g) = http_from(
                ip("127.0.0.2"),
                &base,
                "POST",
                "/v1/games",
                &[],
                Some(&json!({})),
            )
            .await;
            assert_eq!(status, 201, "{g}");
            let id = g["id"].as_str().unwrap().to_string();
            let mut worst = Duration::ZERO;
            for (side, mv) in [
                ("white", "e2e4"),
                ("black", "e7e5"),
                ("white", "g1f3"),
                ("black", "b8c6"),
                ("white", "f1b5"),
                ("black", "a7a6"),
            ] {
                let secret = g["secrets"][side].as_str().unwrap();
                let auth = format!("Bearer {secret}");
                let start = Instant::now();
                let (status, _, v) = http_from(
                    ip("127.0.0.2"),
                    &base,
                    "POST",
                    &format!("/v1/games/{id}/moves"),
                    &[("Authorization", &auth)],
                    Some(&json!({ "uci": mv })),
                )
                .await;
                worst = worst.max(start.elapsed());
                assert_eq!(status, 200, "{v}");
            }
            worst
        }
    };
    let (streams, worst) = futures_util::future::join(flood, player).await;
    let created: u32 = streams.iter().map(|s| s.0).sum();
    let limited: u32 = streams.iter().map(|s| s.1).sum();
    // The burst of 30 and at most one more from the refill over 2 s.
    assert!((30..=32).contains(&created), "created {created}");
    assert!(limited > 100, "limited {limited}");
    let retry: u64 = streams
        .iter()
        .find_map(|s| s.2.clone())
        .expect("a Retry-After")
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "Retry-After {retry}");
    eprintln!(
        "flood from 127.0.0.1 for 2 s: {created} created, {limited} refused (429, Retry-After {retry}); \
         127.0.0.2's slowest of 6 moves meanwhile: {worst:?}"
    );
    assert!(worst < Duration::from_millis(250), "worst move {worst:?}");
}

#[actix_web::test]
async fn ongoing_games_are_counted_per_client_until_they_end() {
    let server = start(&env(&[("CHESSD_QUOTAS__MAX_ONGOING_GAMES", "2")]));
    let api = Api::new(&server);
    let a = api.game(json!({})).await;
    let _b = api.game(json!({})).await;
    let (status, v) = api.post("/v1/games", None, json!({})).await;
    assert_eq!((status, code(&v)), (429, "quota_exceeded"), "{v}");
    // Another client is not affected.
    let (status, _, v) = http_from(
        ip("127.0.0.2"),
        &server.base,
        "POST",
        "/v1/games",
        &[],
        Some(&json!({})),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    // A game that ends frees its place.
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/resign", a.id),
            Some(&a.white),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = api.post("/v1/games", None, json!({})).await;
    assert_eq!(status, 201, "{v}");
}

#[actix_web::test]
async fn games_with_no_move_are_abandoned() {
    let server = start(&env(&[("CHESSD_GAMES__ABANDON_AFTER_SECS", "1")]));
    let api = Api::new(&server);
    let idle = api.game(json!({})).await;
    let played = api.game(json!({})).await;
    // A game created from a PGN with moves is under way.
    let loaded = api.game(json!({"pgn": "1. e4 e5 2. Nf3 *"})).await;
    let (status, _) = api
        .post(
            &format!("/v1/games/{}/moves", played.id),
            Some(&played.white),
            json!({"uci": "e2e4"}),
        )
        .await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let (status, v) = api.get(&format!("/v1/games/{}", idle.id)).await;
    assert_eq!((status, code(&v)), (404, "game_not_found"), "{v}");
    let (status, v) = api.get(&format!("/v1/games/{}", played.id)).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = api.get(&format!("/v1/games/{}", loaded.id)).await;
    assert_eq!(status, 200, "{v}");
}

// ---------------------------------------------------------------------------------------------
// 5. max_games holds under concurrent creators.
// ---------------------------------------------------------------------------------------------

#[actix_web::test]
async fn max_games_holds_under_64_concurrent_creators() {
    // Many HTTP workers and keep-alive connections, so creations really run side by side.
    let server = start(&env(&[
        ("CHESSD_WORKERS", "16"),
        ("CHESSD_LIMITS__MAX_GAMES", "2000"),
        ("CHESSD_QUOTAS__GAMES_PER_MINUTE", "0"),
        ("CHESSD_QUOTAS__MAX_ONGOING_GAMES", "100000"),
    ]));
    let base = server.base.clone();
    let c = awc::Client::builder()
        .connector(awc::Connector::new().limit(64))
        .timeout(Duration::from_secs(30))
        .finish();
    let post = |_| {
        let (c, base) = (c.clone(), base.clone());
        async move { common::post_json(&c, &format!("{base}/v1/games"), None, &json!({})).await }
    };
    let won = |v: &Value| {
        (
            v["id"].as_str().unwrap().to_string(),
            v["secrets"]["admin"].as_str().unwrap().to_string(),
        )
    };
    // 64 creators fill the server.
    let creator = |_| {
        let post = &post;
        async move {
            let mut created = Vec::new();
            loop {
                let (status, v) = post(0).await;
                match status {
                    201 => created.push(won(&v)),
                    503 => {
                        assert_eq!(code(&v), "too_many_games", "{v}");
                        return created;
                    }
                    other => panic!("{other}: {v}"),
                }
            }
        }
    };
    let mut held: Vec<(String, String)> = futures_util::future::join_all((0..64).map(creator))
        .await
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(held.len(), 2000);
    // Then, 150 times, one place is freed and 64 creators race for it: exactly one wins.
    for round in 0..150 {
        let (id, admin) = held.pop().unwrap();
        let resp = c
            .delete(format!("{base}/v1/games/{id}"))
            .bearer_auth(admin)
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success());
        // The stopped game leaves the registry just after its 204: race until someone wins.
        for attempt in 0.. {
            let answers = futures_util::future::join_all((0..64).map(post)).await;
            let winners: Vec<&Value> = answers
                .iter()
                .filter(|(s, _)| *s == 201)
                .map(|(_, v)| v)
                .collect();
            assert!(
                winners.len() <= 1,
                "round {round}: {} games for one place",
                winners.len()
            );
            if let Some(winner) = winners.first() {
                held.push(won(winner));
                break;
            }
            assert!(
                attempt < 20,
                "round {round}: the freed place never came back"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Who a client is: API keys, and addresses named by trusted proxies.
// ---------------------------------------------------------------------------------------------

#[actix_web::test]
async fn api_keys_are_required_when_configured_and_counted_apart() {
    let server = start(&env(&[
        ("CHESSD_AUTH__API_KEYS", "[\"key-one\", \"key-two\"]"),
        ("CHESSD_AUTH__REQUIRE_API_KEY", "true"),
        ("CHESSD_QUOTAS__MAX_ONGOING_GAMES", "1"),
    ]));
    let post = |headers: Vec<(&'static str, &'static str)>| {
        let base = server.base.clone();
        async move {
            http_from(
                ip("127.0.0.1"),
                &base,
                "POST",
                "/v1/games",
                &headers,
                Some(&json!({})),
            )
            .await
        }
    };
    let (status, _, v) = post(vec![]).await;
    assert_eq!((status, code(&v)), (401, "api_key_required"), "{v}");
    let (status, _, v) = post(vec![("X-API-Key", "key-three")]).await;
    assert_eq!((status, code(&v)), (401, "api_key_required"), "{v}");
    let (status, _, v) = post(vec![("X-API-Key", "key-one")]).await;
    assert_eq!(status, 201, "{v}");
    let (status, _, v) = post(vec![("X-API-Key", "key-one")]).await;
    assert_eq!((status, code(&v)), (429, "quota_exceeded"), "{v}");
    // The same address with another key is another client.
    let (status, _, v) = post(vec![("X-API-Key", "key-two")]).await;
    assert_eq!(status, 201, "{v}");
    // Jobs need a key too.
    let (status, _, v) = http_from(
        ip("127.0.0.1"),
        &server.base,
        "POST",
        "/v1/perft",
        &[],
        Some(&json!({"depth": 1})),
    )
    .await;
    assert_eq!((status, code(&v)), (401, "api_key_required"), "{v}");
}

#[actix_web::test]
async fn forwarded_for_counts_only_behind_a_trusted_proxy() {
    let server = start(&env(&[
        ("CHESSD_AUTH__TRUSTED_PROXIES", "[\"127.0.0.1\"]"),
        ("CHESSD_QUOTAS__MAX_ONGOING_GAMES", "1"),
    ]));
    let post = |source: &'static str, xff: &'static str| {
        let base = server.base.clone();
        async move {
            http_from(
                ip(source),
                &base,
                "POST",
                "/v1/games",
                &[("X-Forwarded-For", xff)],
                Some(&json!({})),
            )
            .await
        }
    };
    // Behind the trusted proxy, two forwarded clients are two clients.
    assert_eq!(post("127.0.0.1", "10.0.0.1").await.0, 201);
    assert_eq!(post("127.0.0.1", "10.0.0.2").await.0, 201);
    assert_eq!(post("127.0.0.1", "10.0.0.1").await.0, 429);
    // An untrusted peer cannot pose as others: it is counted as itself.
    assert_eq!(post("127.0.0.5", "10.0.0.3").await.0, 201);
    assert_eq!(post("127.0.0.5", "10.0.0.4").await.0, 429);
}

// ---------------------------------------------------------------------------------------------
// 7. Jobs: per client, and a server-wide hash budget.
// ---------------------------------------------------------------------------------------------

#[actix_web::test]
async fn jobs_are_counted_per_client_and_hash_has_a_budget() {
    let mut pairs = vec![
        ("CHESSD_QUOTAS__MAX_JOBS", "1"),
        ("CHESSD_JOBS__MAX_HASH_TOTAL_MB", "64"),
        ("CHESSD_JOBS__MAX_HASH_MB", "1024"),
    ];
    pairs.extend_from_slice(&common::KEYED_LIMITS_FOR_ALL);
    let server = start(&env(&pairs));
    let post = |source: &'static str, body: Value| {
        let base = server.base.clone();
        async move { http_from(ip(source), &base, "POST", "/v1/perft", &[], Some(&body)).await }
    };
    // A hash larger than the whole budget is refused outright.
    let (status, _, v) = post("127.0.0.1", json!({"depth": 9, "hash_mb": 128})).await;
    assert_eq!((status, code(&v)), (422, "limit_exceeded"), "{v}");
    // One deep job per client.
    let (status, _, first) = post(
        "127.0.0.1",
        json!({"depth": 9, "hash_mb": 48, "threads": 1}),
    )
    .await;
    assert_eq!(status, 202, "{first}");
    let (status, _, v) = post("127.0.0.1", json!({"depth": 1})).await;
    assert_eq!((status, code(&v)), (429, "quota_exceeded"), "{v}");
    // Another client's job that does not fit the remaining hash waits in the queue.
    let (status, _, second) = post(
        "127.0.0.2",
        json!({"depth": 9, "hash_mb": 48, "threads": 1}),
    )
    .await;
    assert_eq!(status, 202, "{second}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let api = Api::new(&server);
    let second_id = second["id"].as_str().unwrap();
    let (_, v) = api.get(&format!("/v1/perft/{second_id}")).await;
    assert_eq!(v["state"], "queued", "{v}");
    // Cancelling the first lets the second run, and gives the first client its place back.
    let first_id = first["id"].as_str().unwrap();
    let (status, v) = api
        .delete(&format!("/v1/perft/{first_id}"), first["secret"].as_str())
        .await;
    assert!(status < 300, "{status} {v}");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, v) = api.get(&format!("/v1/perft/{second_id}")).await;
        if v["state"] == "running" {
            break;
        }
        assert!(Instant::now() < deadline, "second job never started: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The place comes back once the cancelled job has stopped (its threads gone), which may be
    // a moment after the answer to DELETE.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let (status, _, v) = post("127.0.0.1", json!({"depth": 1})).await;
        if status == 202 {
            break;
        }
        assert_eq!((status, code(&v)), (429, "quota_exceeded"), "{v}");
        assert!(
            Instant::now() < deadline,
            "the first client's place never came back"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, v) = api
        .delete(&format!("/v1/perft/{second_id}"), second["secret"].as_str())
        .await;
    assert!(status < 300, "{status} {v}");
}

// ---------------------------------------------------------------------------------------------
// 8. WebSocket connections: per client and in total, refused before the upgrade.
// ---------------------------------------------------------------------------------------------

#[actix_web::test]
async fn websocket_connections_are_capped_per_client_and_in_total() {
    let server = start(&env(&[
        ("CHESSD_QUOTAS__MAX_SOCKETS", "2"),
        ("CHESSD_WEBSOCKET__MAX_CONNECTIONS", "3"),
    ]));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    let path = format!("/v1/games/{}/ws", g.id);
    let upgrade = [
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];
    // Held connections: opened with awc from 127.0.0.1 (two), and one raw from 127.0.0.2.
    let c = common::client();
    let url = server.ws_url(&g.id, "");
    let first = common::ws_connect(&c, &url).await;
    let second = common::ws_connect(&c, &url).await;
    let (status, _, v) =
        http_from(ip("127.0.0.1"), &server.base, "GET", &path, &upgrade, None).await;
    assert_eq!((status, code(&v)), (429, "quota_exceeded"), "{v}");
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let held = {
        use tokio::io::AsyncWriteExt;
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(ip("127.0.0.2"), 0)).unwrap();
        let mut stream = socket.connect(addr).await.unwrap();
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n");
        for (k, v) in upgrade {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        stream
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, _, v) =
        http_from(ip("127.0.0.3"), &server.base, "GET", &path, &upgrade, None).await;
    assert_eq!((status, code(&v)), (503, "too_many_connections"), "{v}");
    // Closing connections gives their places back.
    drop((first, second, held));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match c.ws(&url).connect().await {
            Ok(_) => break,
            Err(e) => assert!(Instant::now() < deadline, "places never given back: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The operator's routes (metrics, the cluster's state, the jobs' details) answer the operator
/// only; the SQLite file (and its log) is its owner's alone.
#[actix_web::test]
async fn operator_routes_need_the_operator_and_the_data_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let server = common::Server::start(&[
        ("CHESSD_AUTH__LOOPBACK_IS_OPERATOR", "false"),
        ("CHESSD_AUTH__OPERATOR_TOKEN", "op-secret"),
    ]);
    let c = common::client();
    let (status, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", server.base),
        None,
        &json!({"depth": 3}),
    )
    .await;
    assert_eq!(status, 202, "{job}");
    for path in ["/metrics", "/v1/cluster"] {
        let url = format!("{}{path}", server.base);
        let resp = c.get(&url).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 401, "{path} without the token");
        let resp = c.get(&url).bearer_auth("wrong").send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 403, "{path} with a wrong token");
        let resp = c.get(&url).bearer_auth("op-secret").send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{path} with the token");
    }
    // The job list shows the pool to anyone, the jobs and workers to the operator.
    let (_, public) = common::get_json(&c, &format!("{}/v1/jobs", server.base)).await;
    assert!(public["pool_threads"].as_u64().unwrap() > 0, "{public}");
    assert_eq!(public["jobs"], json!([]), "{public}");
    let mut resp = c
        .get(format!("{}/v1/jobs", server.base))
        .bearer_auth("op-secret")
        .send()
        .await
        .unwrap();
    let listed: Value = resp.json().await.unwrap();
    assert_eq!(listed["jobs"].as_array().unwrap().len(), 1, "{listed}");

    let path = server.store_path().unwrap().to_path_buf();
    for file in [path.clone(), path.with_extension("sqlite-wal")] {
        if file.exists() {
            let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{} is {mode:o}", file.display());
        }
    }
    assert!(path.exists());
}

/// Quotas count a network, not an address: with `auth.client_ipv4_prefix = 24`, clients on
/// 127.0.0.2, .3, .4 and .5 share one quota of unfinished games.
#[actix_web::test]
async fn addresses_of_one_network_share_a_quota() {
    let server = common::Server::start(&[
        ("CHESSD_AUTH__CLIENT_IPV4_PREFIX", "24"),
        ("CHESSD_QUOTAS__MAX_ONGOING_GAMES", "3"),
    ]);
    let mut statuses = Vec::new();
    for last in 2..=5u8 {
        let source = IpAddr::from([127, 0, 0, last]);
        let request = common::raw_json("POST", "/v1/games", "{}");
        let (status, body) = common::raw_request_from(source, server.addr(), &request).await;
        statuses.push((status, body.contains("quota_exceeded")));
    }
    assert_eq!(
        statuses,
        vec![(201, false), (201, false), (201, false), (429, true)],
        "four addresses of one /24 hold one client's three games"
    );
}

/// A client that opens many connections and sends their bodies a byte at a time holds no more
/// than `limits.max_connections_per_address` connections, each for no longer than the body's
/// idle timeout; another client is served meanwhile.
#[actix_web::test]
async fn a_client_trickling_bodies_holds_few_connections_for_little_time() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = common::Server::start(&[
        ("CHESSD_LIMITS__MAX_CONNECTIONS_PER_ADDRESS", "8"),
        ("CHESSD_LIMITS__BODY_IDLE_TIMEOUT_MS", "1000"),
    ]);
    let slow = IpAddr::from([127, 0, 0, 2]);
    let mut conns = Vec::new();
    for _ in 0..12 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(slow, 0)).unwrap();
        let mut stream = socket.connect(server.addr()).await.unwrap();
        let head = "POST /v1/games HTTP/1.1\r\nHost: chessd\r\nContent-Type: application/json\r\n\
                    Content-Length: 100000\r\n\r\n{";
        stream.write_all(head.as_bytes()).await.unwrap();
        conns.push(stream);
    }
    // Another client is served at once.
    let started = Instant::now();
    let request = common::raw_json("POST", "/v1/games", "{}");
    let (status, body) =
        common::raw_request_from(IpAddr::from([127, 0, 0, 3]), server.addr(), &request).await;
    assert_eq!(status, 201, "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // The slow client: four connections over its count refused, eight timed out.
    let mut answers = Vec::new();
    for mut stream in conns {
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer));
        assert!(read.await.is_ok(), "a slow connection was never closed");
        let text = String::from_utf8_lossy(&answer).to_string();
        let code = ["too_many_connections", "request_timeout"]
            .into_iter()
            .find(|c| text.contains(c))
            .unwrap_or("none");
        answers.push((text.split(' ').nth(1).unwrap_or("").to_string(), code));
    }
    let count = |status: &str, code: &str| {
        answers
            .iter()
            .filter(|(s, c)| s == status && *c == code)
            .count()
    };
    assert_eq!(count("503", "too_many_connections"), 4, "{answers:?}");
    assert_eq!(count("408", "request_timeout"), 8, "{answers:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
