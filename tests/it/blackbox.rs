//! Black-box tests: the real `chessd` binary on a free loopback port, driven by a real HTTP
//! client and real WebSocket clients (awc).

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpListener,
    sync::{Arc, Mutex},
    time::Duration,
};

use awc::ws;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};

use crate::common::{self, client, get_json, post_json, Server};

const SCHOLARS_MATE: [&str; 7] = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"];

struct Game {
    id: String,
    white: String,
    black: String,
    admin: String,
}

async fn create(c: &awc::Client, server: &Server, body: Value) -> Game {
    let (status, v) = post_json(c, &format!("{}/v1/games", server.base), None, &body).await;
    assert_eq!(status, 201, "{v}");
    let s = |k: &str| v["secrets"][k].as_str().expect("secret").to_string();
    Game {
        id: v["id"].as_str().expect("id").to_string(),
        white: s("white"),
        black: s("black"),
        admin: s("admin"),
    }
}

type Conn = actix_codec::Framed<awc::BoxedSocket, ws::Codec>;

async fn connect(c: &awc::Client, url: &str) -> Conn {
    let (_resp, conn) = c.ws(url).connect().await.expect("websocket connects");
    conn
}

/// The next JSON text frame (skipping pings), or panics after 10 s.
async fn next_json(conn: &mut Conn) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), conn.next())
            .await
            .expect("a frame within 10 s")
            .expect("connection open")
            .expect("valid frame");
        match frame {
            ws::Frame::Text(bytes) => return serde_json::from_slice(&bytes).expect("JSON frame"),
            ws::Frame::Ping(p) => conn.send(ws::Message::Pong(p)).await.expect("pong"),
            _ => {}
        }
    }
}

async fn send(conn: &mut Conn, v: Value) {
    conn.send(ws::Message::Text(v.to_string().into()))
        .await
        .expect("send");
}

#[actix_web::test]
async fn full_game_to_checkmate_over_rest() {
    let server = Server::start(&[]);
    let c = client();
    let g = create(&c, &server, json!({})).await;
    for (i, uci) in SCHOLARS_MATE.iter().enumerate() {
        let secret = if i % 2 == 0 { &g.white } else { &g.black };
        let (status, v) = post_json(
            &c,
            &format!("{}/v1/games/{}/moves", server.base, g.id),
            Some(secret),
            &json!({"uci": uci}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
    }
    let (_, v) = get_json(&c, &format!("{}/v1/games/{}/status", server.base, g.id)).await;
    assert_eq!(
        v["status"],
        json!({"result": "white_wins", "reason": "checkmate", "note": null})
    );
    let (status, health) = get_json(&c, &format!("{}/health", server.base)).await;
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
}

#[actix_web::test]
async fn full_game_over_websocket_with_a_spectator() {
    let server = Server::start(&[]);
    let c = client();
    let g = create(&c, &server, json!({})).await;
    let mut white = connect(&c, &server.ws_url(&g.id, &format!("token={}", g.white))).await;
    let mut black = connect(&c, &server.ws_url(&g.id, &format!("token={}", g.black))).await;
    let mut spectator = connect(&c, &server.ws_url(&g.id, "")).await;
    for (conn, role) in [
        (&mut white, "white"),
        (&mut black, "black"),
        (&mut spectator, "spectator"),
    ] {
        let hello = next_json(conn).await;
        assert_eq!(
            (hello["type"].as_str(), hello["role"].as_str()),
            (Some("hello"), Some(role))
        );
        let state = next_json(conn).await;
        assert_eq!(state["type"], "state");
        assert_eq!(state["version"], 0);
    }
    // The spectator (a socket without a secret) may not move.
    send(
        &mut spectator,
        json!({"type": "move", "uci": "e2e4", "ack": 0}),
    )
    .await;
    let e = next_json(&mut spectator).await;
    assert_eq!(
        (e["type"].as_str(), e["code"].as_str()),
        (Some("error"), Some("unauthorized"))
    );

    for (i, uci) in SCHOLARS_MATE.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut white } else { &mut black };
        send(mover, json!({"type": "move", "uci": uci, "ack": i})).await;
        let ack = next_json(mover).await;
        assert_eq!(
            (ack["type"].as_str(), ack["ack"].as_u64()),
            (Some("ack"), Some(i as u64)),
            "{ack}"
        );
        for conn in [&mut white, &mut black, &mut spectator] {
            let event = next_json(conn).await;
            assert_eq!(event["type"], "move");
            assert_eq!(event["version"], i as u64 + 1);
            assert_eq!(event["uci"], *uci);
        }
    }
    // An out-of-turn or late move gets an error frame and changes nothing.
    send(
        &mut black,
        json!({"type": "move", "san": "Ke7", "ack": "late"}),
    )
    .await;
    let e = next_json(&mut black).await;
    assert_eq!(
        (e["code"].as_str(), e["ack"].as_str()),
        (Some("game_over"), Some("late"))
    );
    let (_, v) = get_json(&c, &format!("{}/v1/games/{}", server.base, g.id)).await;
    assert_eq!(v["status"]["reason"], "checkmate");
    assert_eq!(v["version"], 7);
    let _ = g.admin;
}

#[actix_web::test]
async fn reconnecting_client_gets_exactly_the_missed_events() {
    let server = Server::start(&[]);
    let c = client();
    let g = create(&c, &server, json!({})).await;
    let moves_url = format!("{}/v1/games/{}/moves", server.base, g.id);
    for (i, uci) in SCHOLARS_MATE[..3].iter().enumerate() {
        let s = if i % 2 == 0 { &g.white } else { &g.black };
        assert_eq!(
            post_json(&c, &moves_url, Some(s), &json!({"uci": uci}))
                .await
                .0,
            200
        );
    }
    let mut conn = connect(&c, &server.ws_url(&g.id, &format!("token={}", g.black))).await;
    assert_eq!(next_json(&mut conn).await["version"], 3);
    assert_eq!(next_json(&mut conn).await["type"], "state");
    drop(conn);
    for (i, uci) in SCHOLARS_MATE[3..6].iter().enumerate() {
        let s = if i % 2 == 0 { &g.black } else { &g.white };
        assert_eq!(
            post_json(&c, &moves_url, Some(s), &json!({"uci": uci}))
                .await
                .0,
            200
        );
    }
    let mut conn = connect(
        &c,
        &server.ws_url(&g.id, &format!("token={}&since=3", g.black)),
    )
    .await;
    let hello = next_json(&mut conn).await;
    assert_eq!(
        (hello["type"].as_str(), hello["version"].as_u64()),
        (Some("hello"), Some(6))
    );
    let missed: Vec<Value> = vec![
        next_json(&mut conn).await,
        next_json(&mut conn).await,
        next_json(&mut conn).await,
    ];
    let got: Vec<(u64, &str)> = missed
        .iter()
        .map(|e| {
            (
                e["version"].as_u64().unwrap_or(0),
                e["uci"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(got, [(4, "b8c6"), (5, "d1h5"), (6, "g8f6")]);
    // And play goes on over the new connection without losing anything.
    let mut white = connect(
        &c,
        &server.ws_url(&g.id, &format!("token={}&since=6", g.white)),
    )
    .await;
    assert_eq!(next_json(&mut white).await["type"], "hello");
    send(
        &mut white,
        json!({"type": "move", "san": "Qxf7#", "ack": 1}),
    )
    .await;
    assert_eq!(next_json(&mut white).await["type"], "ack");
    let mate = next_json(&mut conn).await;
    assert_eq!(
        (mate["version"].as_u64(), mate["status"]["reason"].as_str()),
        (Some(7), Some("checkmate"))
    );
}

/// The variable allowing webhooks to the listener of `url` (`http://host:port/…`).
fn allow_webhooks_to(url: &str) -> (&'static str, String) {
    let listener = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("host:port");
    (
        "CHESSD_WEBHOOKS__ALLOWED_HOSTS",
        format!("[\"{listener}\"]"),
    )
}

/// A one-thread HTTP listener that records the bodies POSTed to it.
fn webhook_listener() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let store = bodies.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_ok() {
                store
                    .lock()
                    .expect("lock")
                    .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
            }
            let mut stream = reader.into_inner();
            let _ = stream.write_all(
                b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    (url, bodies)
}

#[actix_web::test]
async fn idle_timeout_fires_the_webhook_exactly_once() {
    let (url, bodies) = webhook_listener();
    let (key, allowed) = allow_webhooks_to(&url);
    let server = Server::start(&[(key, &allowed)]);
    let c = client();
    let g = create(
        &c,
        &server,
        json!({"idle_timeout_secs": 1, "webhook_url": url}),
    )
    .await;
    assert_eq!(
        post_json(
            &c,
            &format!("{}/v1/games/{}/moves", server.base, g.id),
            Some(&g.white),
            &json!({"san": "e4"})
        )
        .await
        .0,
        200
    );
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let (status, v) = get_json(&c, &format!("{}/v1/games/{}", server.base, g.id)).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (404, Some("game_not_found"))
    );
    let got = bodies.lock().expect("lock").clone();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["id"], g.id.as_str());
    assert_eq!(got[0]["reason"], "idle_timeout");
    assert_eq!(got[0]["state"]["moves"], json!(["e2e4"]));
    // A webhook to a host not allowed in config is refused.
    let (status, v) = post_json(
        &c,
        &format!("{}/v1/games", server.base),
        None,
        &json!({"webhook_url": "http://example.com/x"}),
    )
    .await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (422, Some("webhook_not_allowed"))
    );
}

#[actix_web::test]
async fn a_game_flags_on_time() {
    let server = Server::start(&[]);
    let c = client();
    let g = create(
        &c,
        &server,
        json!({"time_control": {"initial_ms": 400, "increment_ms": 0}}),
    )
    .await;
    let mut spectator = connect(&c, &server.ws_url(&g.id, "")).await;
    next_json(&mut spectator).await;
    next_json(&mut spectator).await;
    let (status, v) = post_json(
        &c,
        &format!("{}/v1/games/{}/moves", server.base, g.id),
        Some(&g.white),
        &json!({"san": "e4"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["clocks"]["running"], "black");
    let moved = next_json(&mut spectator).await;
    assert_eq!(moved["clocks"]["white_ms"], 400);
    // Black never moves: the flag falls by itself and everyone is told.
    let end = next_json(&mut spectator).await;
    assert_eq!(end["type"], "game_end");
    assert_eq!(
        end["status"],
        json!({"result": "white_wins", "reason": "timeout", "note": null})
    );
    assert_eq!(end["clocks"]["black_ms"], 0);
    let (status, v) = post_json(
        &c,
        &format!("{}/v1/games/{}/moves", server.base, g.id),
        Some(&g.black),
        &json!({"san": "e5"}),
    )
    .await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (409, Some("game_over"))
    );
}

#[actix_web::test]
async fn sigterm_in_memory_ends_games_with_reason_shutdown_and_runs_hooks() {
    let (url, bodies) = webhook_listener();
    let (key, allowed) = allow_webhooks_to(&url);
    let mut server = Server::start(&[(key, &allowed), ("CHESSD_STORE__URL", "memory")]);
    let c = client();
    let a = create(&c, &server, json!({"webhook_url": url})).await;
    let b = create(&c, &server, json!({"webhook_url": url})).await;
    assert!(
        server.terminate(Duration::from_secs(15)),
        "chessd exits after SIGTERM"
    );
    let mut got: Vec<(String, String)> = bodies
        .lock()
        .expect("lock")
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap_or("").to_string(),
                v["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        (a.id, "shutdown".to_string()),
        (b.id, "shutdown".to_string()),
    ];
    want.sort();
    assert_eq!(got, want);
}

#[actix_web::test]
async fn sigterm_with_a_store_keeps_games_for_the_next_start() {
    let (url, bodies) = webhook_listener();
    let (key, allowed) = allow_webhooks_to(&url);
    let path = common::scratch_store();
    let store = format!("sqlite://{}", path.display());
    let env = [
        (key, allowed.as_str()),
        ("CHESSD_STORE__URL", store.as_str()),
    ];
    let mut server = Server::start(&env);
    let c = client();
    let g = create(&c, &server, json!({"webhook_url": url})).await;
    let (status, _) = post_json(
        &c,
        &format!("{}/v1/games/{}/moves", server.base, g.id),
        Some(&g.white),
        &json!({"uci": "e2e4"}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        server.terminate(Duration::from_secs(15)),
        "chessd exits after SIGTERM"
    );
    // The game is not over: no terminate hook.
    assert!(bodies.lock().expect("lock").is_empty());
    let server = Server::start(&env);
    let (status, v) = post_json(
        &c,
        &format!("{}/v1/games/{}/moves", server.base, g.id),
        Some(&g.black),
        &json!({"uci": "e7e5"}),
    )
    .await;
    assert_eq!(
        (status, v["version"].as_u64(), v["fen"].as_str()),
        (
            200,
            Some(2),
            Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
        ),
        "{v}"
    );
    drop(server);
    common::remove_sqlite(&path);
}

/// A command whose answer a dropped connection lost is sent again with its `ack` on a new
/// connection: it is answered as the first time (`replayed`), and carried out once.
#[actix_web::test]
async fn a_websocket_command_sent_again_with_its_ack_is_carried_out_once() {
    let server = Server::start(&[]);
    let c = client();
    let g = create(
        &c,
        &server,
        json!({"fen": "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"}),
    )
    .await;
    let admin = server.ws_url(&g.id, &format!("token={}", g.admin));
    let castle = json!({"type": "move", "san": "O-O", "ack": "castle-1"});
    let mut first = connect(&c, &admin).await;
    assert_eq!(next_json(&mut first).await["type"], "hello");
    assert_eq!(next_json(&mut first).await["type"], "state");
    send(&mut first, castle.clone()).await;
    let ack = next_json(&mut first).await;
    assert_eq!(
        (ack["type"].as_str(), ack["version"].as_u64()),
        (Some("ack"), Some(1)),
        "{ack}"
    );
    drop(first);

    // The admin may move both sides: carried out again, this would castle Black.
    let mut second = connect(&c, &format!("{admin}&since=1")).await;
    assert_eq!(next_json(&mut second).await["type"], "hello");
    send(&mut second, castle.clone()).await;
    let again = next_json(&mut second).await;
    assert_eq!(
        (
            again["type"].as_str(),
            again["ack"].as_str(),
            again["version"].as_u64(),
            again["replayed"].as_bool()
        ),
        (Some("ack"), Some("castle-1"), Some(1), Some(true)),
        "{again}"
    );
    // The same ack for another command is refused.
    send(
        &mut second,
        json!({"type": "move", "san": "O-O-O", "ack": "castle-1"}),
    )
    .await;
    let reused = next_json(&mut second).await;
    assert_eq!(reused["code"], "idempotency_key_reused", "{reused}");
    // A version the game has left is refused too.
    send(
        &mut second,
        json!({"type": "move", "san": "O-O", "version": 0, "ack": "stale"}),
    )
    .await;
    let stale = next_json(&mut second).await;
    assert_eq!(stale["code"], "version_mismatch", "{stale}");
    let (_, v) = get_json(&c, &format!("{}/v1/games/{}", server.base, g.id)).await;
    assert_eq!(
        (v["version"].as_u64(), v["turn"].as_str()),
        (Some(1), Some("black")),
        "{v}"
    );
    let _ = (g.white, g.black);
}

/// A client may ask for any idle timeout: one past the clock's range (schemathesis sent
/// `u64::MAX` seconds) used to panic the game's arbiter thread; it means "never".
#[actix_web::test]
async fn an_idle_timeout_past_the_clocks_range_never_comes_and_breaks_nothing() {
    let server = Server::start(&[]);
    let c = client();
    let game = create(&c, &server, json!({"idle_timeout_secs": u64::MAX})).await;
    let (status, v) = post_json(
        &c,
        &format!("{}/v1/games/{}/moves", server.base, game.id),
        Some(&game.white),
        &json!({"uci": "e2e4"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    // The server still serves other games.
    let other = create(&c, &server, json!({})).await;
    let (status, v) = get_json(&c, &format!("{}/v1/games/{}", server.base, other.id)).await;
    assert_eq!(status, 200, "{v}");
}
