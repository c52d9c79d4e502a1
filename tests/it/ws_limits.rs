//! Black-box WebSocket tests against the real binary: frame size and message rate limits,
//! heartbeat timeouts, error frames for bad input and illegal or out-of-turn moves, resync of
//! reconnecting clients whose missed events are no longer held, and draw offers over WebSocket.
//! The size limits are also checked against hostile clients writing raw frames (huge frame
//! headers, fragmented messages) on the game and perft events sockets, with the server's memory
//! read from `/proc/<pid>/status`.
//!
//! The awc client never answers pings by itself, and these helpers never answer them either, so
//! a silent client really is silent.

use std::time::{Duration, Instant};

use awc::ws::{CloseCode, Frame, Message};
use futures_util::SinkExt;
use serde_json::{json, Value};

use crate::common::{
    self, client, create_game, get_json, post_json, ws_connect, ws_frame, ws_json, ws_send,
    ws_until_close, GameSecrets, Server, WsConn,
};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Connects and consumes `hello` and the initial `state`; returns the connection.
async fn join(c: &awc::Client, server: &Server, g: &GameSecrets, token: Option<&str>) -> WsConn {
    let query = token.map(|t| format!("token={t}")).unwrap_or_default();
    let mut conn = ws_connect(c, &server.ws_url(&g.id, &query)).await;
    let hello = ws_json(&mut conn).await;
    assert_eq!(hello["type"], "hello", "{hello}");
    let state = ws_json(&mut conn).await;
    assert_eq!(state["type"], "state", "{state}");
    conn
}

/// Sends a `ping` command and returns the next JSON frame, which must be its `pong`: proof that
/// the connection is open and that nothing else was queued before it.
async fn ping(conn: &mut WsConn, ack: Value) {
    ws_send(conn, &json!({"type": "ping", "ack": ack})).await;
    let pong = ws_json(conn).await;
    assert_eq!(pong, json!({"type": "pong", "ack": ack}));
}

async fn game_view(c: &awc::Client, server: &Server, g: &GameSecrets) -> Value {
    let (status, v) = get_json(c, &format!("{}/v1/games/{}", server.base, g.id)).await;
    assert_eq!(status, 200, "{v}");
    v
}

#[actix_web::test]
async fn an_oversized_frame_closes_the_connection_with_1009() {
    let server = Server::start(&[("CHESSD_WEBSOCKET__MAX_FRAME_BYTES", "1024")]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let mut conn = join(&c, &server, &g, Some(&g.white)).await;
    // Just under the limit is fine.
    ping(&mut conn, json!("x".repeat(900))).await;
    // Over it: the connection is closed with "message too big".
    ws_send(&mut conn, &json!({"type": "ping", "ack": "x".repeat(2000)})).await;
    let (code, texts) = ws_until_close(&mut conn, Duration::from_secs(10)).await;
    assert_eq!(code, Some(CloseCode::Size), "{texts:?}");
    assert!(texts.is_empty(), "{texts:?}");
    // The game is untouched and a new connection works.
    assert_eq!(game_view(&c, &server, &g).await["version"], 0);
    let mut again = join(&c, &server, &g, Some(&g.white)).await;
    ping(&mut again, json!(1)).await;
}

#[actix_web::test]
async fn more_messages_than_the_rate_closes_the_connection_with_1008() {
    let server = Server::start(&[("CHESSD_WEBSOCKET__MAX_MESSAGES_PER_SEC", "5")]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;

    // Four messages a second for three seconds stay under the limit.
    let mut calm = join(&c, &server, &g, None).await;
    for second in 0..3 {
        let start = Instant::now();
        for i in 0..4 {
            ping(&mut calm, json!(second * 10 + i)).await;
        }
        actix_web::rt::time::sleep(Duration::from_millis(1100).saturating_sub(start.elapsed()))
            .await;
    }
    ping(&mut calm, json!("still open")).await;

    // Twelve at once: five are answered, the sixth closes the connection.
    let mut flood = join(&c, &server, &g, Some(&g.white)).await;
    actix_web::rt::time::sleep(Duration::from_millis(1100)).await;
    for i in 0..12 {
        flood
            .send(Message::Text(
                json!({"type": "ping", "ack": i}).to_string().into(),
            ))
            .await
            .expect("send");
    }
    let (code, texts) = ws_until_close(&mut flood, Duration::from_secs(10)).await;
    assert_eq!(code, Some(CloseCode::Policy), "{texts:?}");
    let acks: Vec<Value> = texts.iter().map(|t| t["ack"].clone()).collect();
    assert_eq!(acks, (0..5).map(|i| json!(i)).collect::<Vec<_>>());
    // The calm connection is not affected.
    ping(&mut calm, json!("after the flood")).await;
}

#[actix_web::test]
async fn a_client_that_never_answers_pings_is_dropped_with_1001() {
    let server = Server::start(&[
        ("CHESSD_WEBSOCKET__HEARTBEAT_SECS", "1"),
        ("CHESSD_WEBSOCKET__CLIENT_TIMEOUT_SECS", "2"),
    ]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let start = Instant::now();
    let mut silent = join(&c, &server, &g, Some(&g.white)).await;
    let mut lively = join(&c, &server, &g, Some(&g.black)).await;

    // The lively client answers every ping for four seconds while the silent one only listens.
    let lively_task = async {
        let mut pings = 0;
        while start.elapsed() < Duration::from_secs(4) {
            match ws_frame(&mut lively, Duration::from_secs(3)).await {
                Some(Frame::Ping(p)) => {
                    pings += 1;
                    lively.send(Message::Pong(p)).await.expect("pong");
                }
                other => panic!("unexpected frame for the lively client: {other:?}"),
            }
        }
        pings
    };
    let silent_task = async {
        let mut pings = 0;
        loop {
            match ws_frame(&mut silent, Duration::from_secs(10)).await {
                Some(Frame::Ping(_)) => pings += 1,
                Some(Frame::Close(reason)) => {
                    return (reason.map(|r| r.code), pings, start.elapsed())
                }
                other => panic!("unexpected frame for the silent client: {other:?}"),
            }
        }
    };
    let (lively_pings, (code, silent_pings, dropped_after)) =
        futures_util::join!(lively_task, silent_task);
    assert_eq!(code, Some(CloseCode::Away));
    assert!(silent_pings >= 1, "the server pinged before giving up");
    assert!(
        dropped_after >= Duration::from_secs(2) && dropped_after < Duration::from_secs(5),
        "dropped after {dropped_after:?}"
    );
    assert!(lively_pings >= 3, "{lively_pings} pings");
    ping(&mut lively, json!("alive")).await;
}

#[actix_web::test]
async fn malformed_frames_get_error_frames_and_the_connection_stays_usable() {
    let server = Server::start(&[]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let mut white = join(&c, &server, &g, Some(&g.white)).await;

    let bad: [(&str, Value); 7] = [
        ("not json", Value::Null),
        ("{\"type\": \"move\", \"uci\": ", Value::Null),
        ("{\"type\": \"fly\", \"ack\": 1}", Value::Null),
        ("[1, 2, 3]", Value::Null),
        (
            "{\"type\": \"move\", \"uci\": \"e2e4\", \"extra\": 1}",
            Value::Null,
        ),
        ("{\"type\": \"move\", \"ack\": 7}", json!(7)),
        (
            "{\"type\": \"move\", \"uci\": \"e2e4\", \"san\": \"e4\", \"ack\": 8}",
            json!(8),
        ),
    ];
    for (text, ack) in bad {
        white
            .send(Message::Text(text.to_string().into()))
            .await
            .expect("send");
        let e = ws_json(&mut white).await;
        assert_eq!(
            (e["type"].as_str(), e["code"].as_str(), &e["ack"]),
            (Some("error"), Some("invalid_request"), &ack),
            "{text}: {e}"
        );
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    white
        .send(Message::Binary(vec![1u8, 2, 3].into()))
        .await
        .expect("send");
    let e = ws_json(&mut white).await;
    assert_eq!(
        (e["type"].as_str(), e["code"].as_str()),
        (Some("error"), Some("invalid_request"))
    );

    assert_eq!(game_view(&c, &server, &g).await["version"], 0);
    // Still usable: a ping and a move work.
    ping(&mut white, json!("p")).await;
    ws_send(
        &mut white,
        &json!({"type": "move", "uci": "e2e4", "ack": 9}),
    )
    .await;
    let ack = ws_json(&mut white).await;
    assert_eq!(
        (
            ack["type"].as_str(),
            ack["ack"].as_u64(),
            ack["version"].as_u64()
        ),
        (Some("ack"), Some(9), Some(1))
    );
    let event = ws_json(&mut white).await;
    assert_eq!(
        (
            event["type"].as_str(),
            event["uci"].as_str(),
            event["version"].as_u64()
        ),
        (Some("move"), Some("e2e4"), Some(1))
    );
}

#[actix_web::test]
async fn illegal_and_out_of_turn_moves_get_error_frames_and_change_nothing() {
    let server = Server::start(&[]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let mut white = join(&c, &server, &g, Some(&g.white)).await;
    let mut black = join(&c, &server, &g, Some(&g.black)).await;
    let mut spectator = join(&c, &server, &g, None).await;

    // (connection, frame, error code, reason for an illegal move)
    let attempts = [
        (
            0,
            json!({"type": "move", "uci": "e2e5", "ack": 1}),
            "illegal_move",
            Some("cannot_move_there"),
        ),
        (
            0,
            json!({"type": "move", "san": "Nd7", "ack": 2}),
            "illegal_move",
            Some("cannot_move_there"),
        ),
        (
            0,
            json!({"type": "move", "san": "Ke2", "ack": 7}),
            "illegal_move",
            Some("own_piece"),
        ),
        (
            0,
            json!({"type": "move", "uci": "e7e5", "ack": 3}),
            "illegal_move",
            Some("wrong_side"),
        ),
        (
            1,
            json!({"type": "move", "uci": "e7e5", "ack": 4}),
            "not_your_turn",
            None,
        ),
        (
            1,
            json!({"type": "move", "san": "Nf6", "ack": 5}),
            "not_your_turn",
            None,
        ),
        (
            2,
            json!({"type": "move", "san": "e4", "ack": 6}),
            "unauthorized",
            None,
        ),
    ];
    let mut conns = [&mut white, &mut black, &mut spectator];
    for (who, frame, code, reason) in attempts {
        ws_send(conns[who], &frame).await;
        let e = ws_json(conns[who]).await;
        assert_eq!(
            (
                e["type"].as_str(),
                e["code"].as_str(),
                &e["ack"],
                e["reason"].as_str()
            ),
            (Some("error"), Some(code), &frame["ack"], reason),
            "{frame}: {e}"
        );
    }
    let view = game_view(&c, &server, &g).await;
    assert_eq!(
        (view["version"].as_u64(), view["fen"].as_str()),
        (Some(0), Some(START))
    );
    assert_eq!(view["moves"], json!([]));
    // No event was published: each connection's next frame is the answer to its ping.
    for conn in conns.iter_mut() {
        ping(conn, json!("quiet")).await;
    }
    // The right move by the right seat goes through.
    ws_send(&mut white, &json!({"type": "move", "san": "e4", "ack": 10})).await;
    assert_eq!(ws_json(&mut white).await["type"], "ack");
    for conn in [&mut white, &mut black, &mut spectator] {
        let e = ws_json(conn).await;
        assert_eq!(
            (e["type"].as_str(), e["version"].as_u64()),
            (Some("move"), Some(1))
        );
    }
    // Now White is the one out of turn.
    ws_send(&mut white, &json!({"type": "move", "san": "d4", "ack": 11})).await;
    assert_eq!(ws_json(&mut white).await["code"], "not_your_turn");
    assert_eq!(game_view(&c, &server, &g).await["version"], 1);
}

#[actix_web::test]
async fn reconnecting_with_a_version_no_longer_held_or_from_the_future_gets_a_resync() {
    let server = Server::start(&[("CHESSD_GAMES__EVENT_HISTORY", "2")]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"];
    for (i, m) in moves.iter().enumerate() {
        let seat = if i % 2 == 0 { &g.white } else { &g.black };
        let (status, v) = post_json(
            &c,
            &format!("{}/v1/games/{}/moves", server.base, g.id),
            Some(seat),
            &json!({ "uci": m }),
        )
        .await;
        assert_eq!(status, 200, "{v}");
    }
    let view = game_view(&c, &server, &g).await;
    assert_eq!(view["version"], 5);

    for since in [0, 1, 2, 6, 99] {
        let url = server.ws_url(&g.id, &format!("token={}&since={since}", g.black));
        let mut conn = ws_connect(&c, &url).await;
        let hello = ws_json(&mut conn).await;
        assert_eq!(
            (hello["type"].as_str(), hello["version"].as_u64()),
            (Some("hello"), Some(5))
        );
        let resync = ws_json(&mut conn).await;
        assert_eq!(resync["type"], "resync", "since={since}: {resync}");
        for key in [
            "id",
            "version",
            "fen",
            "moves",
            "status",
            "turn",
            "start_fen",
        ] {
            assert_eq!(resync[key], view[key], "since={since}: {key}");
        }
        ping(&mut conn, json!(since)).await;
    }
    // Versions still held are replayed exactly, with no state frame.
    for (since, expected) in [
        (3, vec![(4, "b8c6"), (5, "f1b5")]),
        (4, vec![(5, "f1b5")]),
        (5, vec![]),
    ] {
        let url = server.ws_url(&g.id, &format!("since={since}"));
        let mut conn = ws_connect(&c, &url).await;
        assert_eq!(ws_json(&mut conn).await["type"], "hello");
        let mut got = Vec::new();
        for _ in 0..expected.len() {
            let e = ws_json(&mut conn).await;
            assert_eq!(e["type"], "move", "{e}");
            got.push((
                e["version"].as_u64().unwrap_or(0),
                e["uci"].as_str().unwrap_or("").to_string(),
            ));
        }
        let expected: Vec<(u64, String)> = expected
            .into_iter()
            .map(|(v, u)| (v, u.to_string()))
            .collect();
        assert_eq!(got, expected, "since={since}");
        ping(&mut conn, json!("nothing more")).await;
    }
}

#[actix_web::test]
async fn draw_offer_decline_offer_and_accept_over_websocket() {
    let server = Server::start(&[]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let mut white = join(&c, &server, &g, Some(&g.white)).await;
    let mut black = join(&c, &server, &g, Some(&g.black)).await;
    let mut spectator = join(&c, &server, &g, None).await;

    // Nothing to accept yet; spectators cannot offer.
    ws_send(&mut black, &json!({"type": "draw_accept", "ack": "a0"})).await;
    assert_eq!(ws_json(&mut black).await["code"], "no_draw_to_claim");
    ws_send(&mut spectator, &json!({"type": "draw_offer", "ack": "s"})).await;
    assert_eq!(ws_json(&mut spectator).await["code"], "unauthorized");

    /// Sends a command, checks its ack, then checks that everyone sees `event`.
    async fn step(
        conns: &mut [&mut WsConn; 3],
        who: usize,
        frame: Value,
        version: u64,
        event: Value,
    ) {
        ws_send(conns[who], &frame).await;
        let ack = ws_json(conns[who]).await;
        assert_eq!(
            (ack["type"].as_str(), &ack["ack"], ack["version"].as_u64()),
            (Some("ack"), &frame["ack"], Some(version)),
            "{frame}: {ack}"
        );
        for (i, conn) in conns.iter_mut().enumerate() {
            let mut got = ws_json(conn).await;
            assert_eq!(got["version"], version, "connection {i}: {got}");
            got.as_object_mut().unwrap().remove("version");
            assert_eq!(got, event, "connection {i}");
        }
    }
    let mut conns = [&mut white, &mut black, &mut spectator];
    step(
        &mut conns,
        0,
        json!({"type": "draw_offer", "ack": 1}),
        1,
        json!({"type": "draw_offered", "by": "white"}),
    )
    .await;
    step(
        &mut conns,
        1,
        json!({"type": "draw_decline", "ack": 2}),
        2,
        json!({"type": "draw_declined", "by": "black"}),
    )
    .await;
    step(
        &mut conns,
        1,
        json!({"type": "draw_offer", "ack": 3}),
        3,
        json!({"type": "draw_offered", "by": "black"}),
    )
    .await;
    let view = game_view(&c, &server, &g).await;
    assert_eq!(view["draw_offer"], "black");
    step(
        &mut conns,
        0,
        json!({"type": "draw_accept", "ack": 4}),
        4,
        json!({"type": "game_end", "status": {"result": "draw", "reason": "agreement", "note": null}, "clocks": null}),
    )
    .await;
    let view = game_view(&c, &server, &g).await;
    assert_eq!(view["status"]["reason"], "agreement");
    assert_eq!(view["draw_offer"], Value::Null);
    assert_eq!(view["version"], 4);
    // After the end, moves and offers are refused.
    ws_send(conns[0], &json!({"type": "move", "san": "e4", "ack": 5})).await;
    assert_eq!(ws_json(conns[0]).await["code"], "game_over");
    ws_send(conns[1], &json!({"type": "draw_offer", "ack": 6})).await;
    assert_eq!(ws_json(conns[1]).await["code"], "game_over");
}

/// A WebSocket whose outgoing bytes the test writes itself (after awc's handshake), to send
/// frame headers a well-behaved client never would; incoming frames are decoded by awc's codec.
struct RawWs {
    reader: tokio::io::ReadHalf<awc::BoxedSocket>,
    writer: tokio::io::WriteHalf<awc::BoxedSocket>,
    read_buf: actix_web::web::BytesMut,
    codec: awc::ws::Codec,
}

impl RawWs {
    async fn connect(c: &awc::Client, url: &str) -> RawWs {
        let parts = ws_connect(c, url).await.into_parts();
        let (reader, writer) = tokio::io::split(parts.io);
        RawWs {
            reader,
            writer,
            read_buf: parts.read_buf,
            codec: parts.codec,
        }
    }
}

/// Reads server frames (skipping text, pings and pongs) until the close frame; `None` when the
/// connection ends without one.
async fn raw_until_close(
    reader: &mut tokio::io::ReadHalf<awc::BoxedSocket>,
    read_buf: &mut actix_web::web::BytesMut,
    codec: &mut awc::ws::Codec,
) -> Option<Option<CloseCode>> {
    use actix_codec::Decoder;
    use tokio::io::AsyncReadExt;
    loop {
        match codec.decode(read_buf).expect("a valid server frame") {
            Some(Frame::Close(reason)) => return Some(reason.map(|r| r.code)),
            Some(_) => continue,
            None => {}
        }
        read_buf.reserve(64 << 10);
        match reader.read_buf(read_buf).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// A masked client frame header (mask key 0, so the payload goes as it is) announcing `length`.
fn frame_header(fin: bool, opcode: u8, length: u64) -> Vec<u8> {
    let mut header = vec![if fin { 0x80 } else { 0 } | opcode];
    match length {
        0..=125 => header.push(0x80 | length as u8),
        126..=0xFFFF => {
            header.push(0x80 | 126);
            header.extend_from_slice(&(length as u16).to_be_bytes());
        }
        _ => {
            header.push(0x80 | 127);
            header.extend_from_slice(&length.to_be_bytes());
        }
    }
    header.extend_from_slice(&[0; 4]);
    header
}

/// What a hostile frame got: the close code (`None` inside: a close without a code; outer
/// `None`: no close frame at all) and how long after the header it came.
#[derive(Debug)]
struct Outcome {
    close: Option<Option<CloseCode>>,
    after: Duration,
}

/// Writes a binary frame header announcing `announced` bytes, then up to `send` bytes of its
/// payload as fast as the server takes them, stopping when the server's close arrives (or after
/// `wait`). Never holds the payload in memory: it writes one zeroed 64 KiB chunk again and again.
async fn send_huge_frame(ws: &mut RawWs, announced: u64, send: u64, wait: Duration) -> Outcome {
    use tokio::io::AsyncWriteExt;
    let RawWs {
        reader,
        writer,
        read_buf,
        codec,
    } = ws;
    let closed = std::cell::Cell::new(false);
    let start = Instant::now();
    let write = async {
        if writer
            .write_all(&frame_header(true, 2, announced))
            .await
            .is_err()
        {
            return;
        }
        let chunk = vec![0u8; 64 << 10];
        let mut left = send;
        while left > 0 && !closed.get() {
            let n = left.min(chunk.len() as u64) as usize;
            if writer.write_all(&chunk[..n]).await.is_err() {
                return;
            }
            left -= n as u64;
            tokio::task::yield_now().await;
        }
    };
    let read = async {
        let close = tokio::time::timeout(wait, raw_until_close(reader, read_buf, codec))
            .await
            .unwrap_or(None);
        let after = start.elapsed();
        closed.set(true);
        Outcome { close, after }
    };
    let ((), outcome) = tokio::time::timeout(Duration::from_secs(120), async {
        futures_util::join!(write, read)
    })
    .await
    .expect("the hostile client finished");
    outcome
}

/// A field of `/proc/<pid>/status` in KiB (`VmRSS`, `VmHWM`).
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Measures how far the server's resident memory rises above its current level while `work`
/// runs: resets the peak (`VmHWM`, through `clear_refs`), reads `VmRSS`, runs, reads the peak.
async fn rss_rise_mib<T>(server: &Server, work: impl std::future::Future<Output = T>) -> (u64, T) {
    let pid = server.pid();
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").expect("reset the peak RSS");
    let before = status_kib(pid, "VmRSS");
    let out = work.await;
    let peak = status_kib(pid, "VmHWM");
    (peak.saturating_sub(before) / 1024, out)
}

/// Half a GiB: far more than the server may hold for one connection.
const HALF_GIB: u64 = 512 << 20;

#[actix_web::test]
async fn a_512_mib_frame_closes_with_1009_at_once_without_being_buffered() {
    let server = Server::start(&[]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    // A spectator: no secret needed.
    let mut ws = RawWs::connect(&c, &server.ws_url(&g.id, "")).await;
    let (rise, outcome) = rss_rise_mib(
        &server,
        send_huge_frame(&mut ws, HALF_GIB, HALF_GIB, Duration::from_secs(30)),
    )
    .await;
    assert!(rise < 32, "the server's RSS rose by {rise} MiB");
    assert_eq!(outcome.close, Some(Some(CloseCode::Size)), "{outcome:?}");
    assert!(outcome.after < Duration::from_secs(1), "{outcome:?}");
    // The server is fine: the game answers and a new connection works.
    assert_eq!(game_view(&c, &server, &g).await["version"], 0);
    let mut again = join(&c, &server, &g, None).await;
    ping(&mut again, json!("after")).await;
}

#[actix_web::test]
async fn a_header_announcing_2_pow_62_bytes_closes_with_1009_at_once() {
    let server = Server::start(&[]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let mut ws = RawWs::connect(&c, &server.ws_url(&g.id, "")).await;
    // The header and 1 MiB of payload, then silence: the close must not wait for the heartbeat
    // (15 s of silence by default).
    let outcome = send_huge_frame(&mut ws, 1 << 62, 1 << 20, Duration::from_secs(5)).await;
    assert_eq!(outcome.close, Some(Some(CloseCode::Size)), "{outcome:?}");
    assert!(outcome.after < Duration::from_secs(1), "{outcome:?}");
    // The server drops the connection without waiting for the client's close (actix-http
    // lingers up to its 1 s client_disconnect_timeout, discarding what still arrives).
    let start = Instant::now();
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(3), async {
        use tokio::io::AsyncReadExt;
        let _ = ws.reader.read_to_end(&mut rest).await;
    })
    .await;
    assert!(ended.is_ok(), "the connection was still open after 3 s");
    assert!(rest.is_empty(), "{} bytes after the close", rest.len());
    assert!(start.elapsed() < Duration::from_secs(2));
}

/// Sends `text` as a fragmented text message of `pieces` frames.
async fn send_fragmented(conn: &mut WsConn, text: &str, pieces: usize) {
    use actix_http::ws::Item;
    let bytes = actix_web::web::Bytes::copy_from_slice(text.as_bytes());
    let step = bytes.len().div_ceil(pieces);
    let chunks: Vec<_> = (0..bytes.len())
        .step_by(step)
        .map(|i| bytes.slice(i..(i + step).min(bytes.len())))
        .collect();
    let last = chunks.len() - 1;
    for (i, chunk) in chunks.into_iter().enumerate() {
        let item = match i {
            0 => Item::FirstText(chunk),
            i if i == last => Item::Last(chunk),
            _ => Item::Continue(chunk),
        };
        conn.send(Message::Continuation(item)).await.expect("send");
    }
}

#[actix_web::test]
async fn a_20_kb_message_in_small_continuation_frames_closes_with_1009() {
    let server = Server::start(&[]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let mut conn = join(&c, &server, &g, Some(&g.white)).await;
    // A fragmented message under max_message_bytes (16384) is one command.
    let ack = json!("y".repeat(10_000));
    send_fragmented(
        &mut conn,
        &json!({"type": "ping", "ack": ack}).to_string(),
        10,
    )
    .await;
    assert_eq!(
        ws_json(&mut conn).await,
        json!({"type": "pong", "ack": ack})
    );
    // 20 frames of 1000 bytes, each far under max_frame_bytes: closed as too big.
    send_fragmented(&mut conn, &"x".repeat(20_000), 20).await;
    let start = Instant::now();
    let (code, texts) = ws_until_close(&mut conn, Duration::from_secs(10)).await;
    assert_eq!(code, Some(CloseCode::Size), "{texts:?}");
    assert!(texts.is_empty(), "{texts:?}");
    assert!(start.elapsed() < Duration::from_secs(1));
}

#[actix_web::test]
async fn the_perft_events_socket_has_the_same_limits() {
    let server = Server::start(&common::KEYED_LIMITS_FOR_ALL);
    let c = client();
    // A job that runs for minutes, so the events socket stays open.
    let (status, job) = post_json(
        &c,
        &format!("{}/v1/perft", server.base),
        None,
        &json!({"depth": 9, "threads": 1}),
    )
    .await;
    assert_eq!(status, 202, "{job}");
    let url = format!(
        "{}/v1/perft/{}/events",
        server.base.replacen("http", "ws", 1),
        job["id"].as_str().unwrap()
    );

    let mut ws = RawWs::connect(&c, &url).await;
    let (rise, outcome) = rss_rise_mib(
        &server,
        send_huge_frame(&mut ws, HALF_GIB, HALF_GIB, Duration::from_secs(30)),
    )
    .await;
    assert!(rise < 32, "the server's RSS rose by {rise} MiB");
    assert_eq!(outcome.close, Some(Some(CloseCode::Size)), "{outcome:?}");
    assert!(outcome.after < Duration::from_secs(1), "{outcome:?}");

    let mut ws = RawWs::connect(&c, &url).await;
    let outcome = send_huge_frame(&mut ws, 1 << 62, 1 << 20, Duration::from_secs(5)).await;
    assert_eq!(outcome.close, Some(Some(CloseCode::Size)), "{outcome:?}");
    assert!(outcome.after < Duration::from_secs(1), "{outcome:?}");

    let mut conn = ws_connect(&c, &url).await;
    send_fragmented(&mut conn, &"x".repeat(20_000), 20).await;
    let (code, texts) = ws_until_close(&mut conn, Duration::from_secs(10)).await;
    assert_eq!(code, Some(CloseCode::Size), "{texts:?}");
    assert!(texts.iter().all(|t| t["type"] == "progress"), "{texts:?}");
    // The job itself is untouched.
    let (_, view) = get_json(
        &c,
        &format!("{}/v1/perft/{}", server.base, job["id"].as_str().unwrap()),
    )
    .await;
    assert!(
        ["queued", "running"].contains(&view["state"].as_str().unwrap()),
        "{view}"
    );
}

#[actix_web::test]
async fn big_frames_on_several_sockets_at_once_keep_the_rss_bounded() {
    let server = Server::start(&[]);
    let c = client();
    let g = create_game(&c, &server.base, &json!({})).await;
    let mut sockets = Vec::new();
    for _ in 0..4 {
        sockets.push(RawWs::connect(&c, &server.ws_url(&g.id, "")).await);
    }
    let (rise, outcomes) = rss_rise_mib(
        &server,
        futures_util::future::join_all(
            sockets
                .iter_mut()
                .map(|ws| send_huge_frame(ws, 256 << 20, 256 << 20, Duration::from_secs(30))),
        ),
    )
    .await;
    assert!(rise < 32, "the server's RSS rose by {rise} MiB");
    for outcome in &outcomes {
        assert_eq!(outcome.close, Some(Some(CloseCode::Size)), "{outcomes:?}");
        assert!(outcome.after < Duration::from_secs(1), "{outcomes:?}");
    }
}
