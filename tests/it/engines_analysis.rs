//! Engines through the real server, in play and in analysis: who may change an engine
//! opponent, analyses that end by themselves keep their result (and say so on the WebSocket),
//! finished games analysed with an engine started on demand (any ply), scores with their point
//! of view, search limits and `searchmoves` checked as client errors, the engine list probing
//! TCP engines at most every few seconds, a Chess960 game refused to a real engine without
//! `UCI_Chess960` (Toga II) while Stockfish plays it, and Stockfish pondering on the player's
//! time.

use std::{
    io::Read,
    net::TcpListener,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use serde_json::{json, Value};

use crate::common::{
    self,
    engines::{self, start, ws_until, Api},
    ws_connect, ws_json, GameSecrets, WsConn,
};

/// A Chess960 start (position 518 is the standard one; this is another) with its castling
/// rights in Shredder form.
const CHESS960: &str = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";

/// Fool's mate: Black mates on ply 4.
const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];

async fn play(api: &Api, g: &GameSecrets, moves: &[&str]) {
    for (i, mv) in moves.iter().enumerate() {
        let seat = if i % 2 == 0 { &g.white } else { &g.black };
        let (status, v) = api
            .post(
                &format!("/v1/games/{}/moves", g.id),
                Some(seat),
                json!({ "uci": mv }),
            )
            .await;
        assert_eq!(status, 200, "{mv}: {v}");
    }
}

fn code(v: &Value) -> Option<&str> {
    v["error"]["code"].as_str()
}

/// The next WebSocket frame of type `kind`, skipping others.
async fn next_of(conn: &mut WsConn, kind: &str) -> Value {
    let seen = ws_until(conn, |v| v["type"] == kind).await;
    seen.last().unwrap().clone()
}

#[actix_web::test]
async fn only_the_admin_changes_an_engine_opponent() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api
        .game(json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 1}}}))
        .await;
    let engine = format!("/v1/games/{}/engine", g.id);
    for seat in [&g.white, &g.black] {
        let (status, v) = api
            .post(&engine, Some(seat), json!({"name": "builtin"}))
            .await;
        assert_eq!((status, code(&v)), (403, Some("forbidden")), "attach: {v}");
        let (status, v) = api.delete(&engine, Some(seat)).await;
        assert_eq!((status, code(&v)), (403, Some("forbidden")), "detach: {v}");
        // Without a move, play would make the opponent's engine play the human's move.
        let (status, v) = api
            .post(&format!("{engine}/play"), Some(seat), json!({}))
            .await;
        assert_eq!((status, code(&v)), (403, Some("forbidden")), "play: {v}");
    }
    // Nothing changed: the opponent still answers a move.
    play(&api, &g, &["e2e4"]).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while api.state(&g).await["moves"].as_array().unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "the opponent did not answer");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, view) = api.get(&engine).await;
    assert_eq!(view["opponent"]["plays"], "black", "{view}");
    // Any client sees who the engine opponent is in the game's view.
    assert_eq!(
        api.state(&g).await["options"]["opponent"],
        json!({"engine": "builtin", "plays": "black"})
    );
    // The admin may.
    let (status, v) = api.delete(&engine, Some(&g.admin)).await;
    assert_eq!(status, 204, "{v}");
}

#[actix_web::test]
async fn a_finite_analysis_keeps_its_result_and_says_when_it_ends() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    play(&api, &g, &["e2e4"]).await;
    api.attach(&g, "builtin").await;
    let mut ws = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine/analysis", g.id),
            Some(&g.black),
            json!({"go": {"depth": 4}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["engine"], "builtin");
    // Black to move: each line says so, and gives the score from White's side too.
    let info = next_of(&mut ws, "engine_info").await;
    assert_eq!(info["pov"], "black", "{info}");
    if let Some(cp) = info["score"]["cp"].as_i64() {
        assert_eq!(info["white_score"]["cp"].as_i64(), Some(-cp), "{info}");
    }
    let done = next_of(&mut ws, "engine_analysis_done").await;
    let best = done["bestmove"].as_str().unwrap().to_string();
    assert!(!done["lines"].as_array().unwrap().is_empty(), "{done}");
    // After it ended, DELETE still answers it (it used to answer empty lines).
    let (status, report) = api
        .delete(
            &format!("/v1/games/{}/engine/analysis", g.id),
            Some(&g.black),
        )
        .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["bestmove"], best.as_str(), "{report}");
    assert_eq!(report["lines"], done["lines"]);
    assert!(report["san"].is_string(), "{report}");
}

#[actix_web::test]
async fn a_finished_game_is_analysed_with_an_engine_started_for_it() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    play(&api, &g, &FOOLS_MATE).await;
    assert_eq!(api.state(&g).await["status"]["result"], "black_wins");
    let analysis = format!("/v1/games/{}/engine/analysis", g.id);
    // A plain attach would only hold a process: refused, with the way to analyse.
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine", g.id),
            Some(&g.white),
            json!({"name": "builtin"}),
        )
        .await;
    assert_eq!((status, code(&v)), (409, Some("game_over")), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("analysis"));
    // The position before the mate (ply 3, Black to move): the engine finds Qh4#.
    let mut ws = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    let (status, v) = api
        .post(
            &analysis,
            Some(&g.white),
            json!({"engine": "builtin", "ply": 3, "go": {"depth": 3}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (v["engine"].as_str(), v["ply"].as_u64()),
        (Some("builtin"), Some(3))
    );
    let done = next_of(&mut ws, "engine_analysis_done").await;
    assert_eq!(done["bestmove"], "d8h4", "{done}");
    assert_eq!(done["san"], "Qh4#", "{done}");
    assert_eq!(done["lines"][0]["pov"], "black");
    // The engine was released once the analysis ended; its result stays.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, _) = api.get(&format!("/v1/games/{}/engine", g.id)).await;
        if status == 409 {
            break;
        }
        assert!(Instant::now() < deadline, "the analysis engine was kept");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, report) = api.delete(&analysis, Some(&g.white)).await;
    assert_eq!((status, report["bestmove"].as_str()), (200, Some("d8h4")));
    // Without naming one, a finished game gets the default engine; a ply past the end is the
    // end, and the answer says so.
    let (status, v) = api.post(&analysis, Some(&g.black), json!({"ply": 9})).await;
    assert_eq!(
        (status, v["engine"].as_str(), v["ply"].as_u64()),
        (200, Some("builtin"), Some(4)),
        "{v}"
    );
    let (status, report) = api.delete(&analysis, Some(&g.black)).await;
    assert_eq!(status, 200, "{report}");
    // Spectators may not.
    let (status, v) = api.post(&analysis, None, json!({"ply": 0})).await;
    assert_eq!((status, code(&v)), (401, Some("unauthorized")), "{v}");
}

#[actix_web::test]
async fn search_limits_and_searchmoves_are_client_errors() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "builtin").await;
    let base = format!("/v1/games/{}/engine", g.id);
    // Malformed limits are 400; moves that are not legal where the engine searches are 422
    // illegal_move, as a move would be.
    let refusals = [
        ("bestmove", json!({"depth": 0}), 400, "invalid_request"),
        ("bestmove", json!({"movetime": 0}), 400, "invalid_request"),
        ("bestmove", json!({"depth": 257}), 400, "invalid_request"),
        (
            "bestmove",
            json!({"depth": 1, "searchmoves": ["e2e5"]}),
            422,
            "illegal_move",
        ),
        (
            "bestmove",
            json!({"depth": 1, "searchmoves": ["e7e5"]}),
            422,
            "illegal_move",
        ),
        ("play", json!({"go": {"depth": 0}}), 400, "invalid_request"),
        // e7e5 is legal after the player's e2e4; d2d4 is not: refused before e2e4 is played.
        (
            "play",
            json!({"move": "e2e4", "go": {"depth": 1, "searchmoves": ["e7e5", "d2d4"]}}),
            422,
            "illegal_move",
        ),
        (
            "analysis",
            json!({"go": {"depth": 0}}),
            400,
            "invalid_request",
        ),
        (
            "analysis",
            json!({"go": {"searchmoves": ["a1a8"]}}),
            422,
            "illegal_move",
        ),
    ];
    for (route, body, status_wanted, code_wanted) in refusals {
        let (status, v) = api
            .post(&format!("{base}/{route}"), Some(&g.white), body.clone())
            .await;
        assert_eq!(
            (status, code(&v)),
            (status_wanted, Some(code_wanted)),
            "{route} {body}: {v}"
        );
    }
    // Nothing was played or started.
    let state = api.state(&g).await;
    assert!(state["moves"].as_array().unwrap().is_empty(), "{state}");
    let (_, view) = api.get(&base).await;
    assert_eq!(
        (view["busy"].as_bool(), view["analysing"].as_bool()),
        (Some(false), Some(false))
    );
    // The same limits, legal, work.
    let (status, v) = api
        .post(
            &format!("{base}/bestmove"),
            Some(&g.white),
            json!({"depth": 1, "searchmoves": ["g1f3"]}),
        )
        .await;
    assert_eq!((status, v["bestmove"].as_str()), (200, Some("g1f3")), "{v}");
    // An opponent's limits are checked when the game is created.
    let (status, v) = api
        .post(
            "/v1/games",
            None,
            json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 0}}}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, Some("invalid_request")), "{v}");
    let (status, v) = api
        .post(
            "/v1/games",
            None,
            json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"infinite": true}}}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, Some("invalid_request")), "{v}");
}

/// Accepts connections on a loopback port and counts them, closing each at once.
fn counting_listener() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            seen.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 64];
            let _ = stream.set_read_timeout(Some(Duration::from_millis(10)));
            let _ = stream.read(&mut buf);
        }
    });
    (addr, count)
}

#[actix_web::test]
async fn the_engine_list_does_not_connect_to_tcp_engines_on_every_call() {
    let (addr, connections) = counting_listener();
    let server = start(&[("CHESSD_ENGINES__REMOTE__TCP".into(), addr)]);
    let api = Api::new(&server);
    for _ in 0..20 {
        let (status, v) = api.get("/v1/engines").await;
        assert_eq!(status, 200, "{v}");
        let remote = v["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "remote")
            .unwrap()
            .clone();
        assert_eq!(remote["reachable"], true, "{remote}");
    }
    // One probe for twenty calls (the next one comes after 15 s, in the background). The
    // listener's thread counts a connection when it accepts it, which may come after the
    // probe's connect returned: wait for it, then for any other.
    let deadline = Instant::now() + Duration::from_secs(5);
    while connections.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the engine was never probed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[actix_web::test]
#[cfg_attr(
    not(has_toga2),
    ignore = "toga2 is not installed (apt-get install toga2)"
)]
async fn chess960_is_refused_to_an_engine_without_it() {
    let mut env = vec![(
        "CHESSD_ENGINES__TOGA__COMMAND".to_string(),
        "/usr/games/toga2".to_string(),
    )];
    let stockfish = ["/usr/games/stockfish", "/usr/bin/stockfish"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file());
    if let Some(sf) = stockfish {
        env.push(("CHESSD_ENGINES__SF__COMMAND".into(), sf.into()));
    }
    let server = start(&env);
    let api = Api::new(&server);
    let g = api.game(json!({ "fen": CHESS960 })).await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine", g.id),
            Some(&g.white),
            json!({"name": "toga"}),
        )
        .await;
    assert_eq!((status, code(&v)), (422, Some("engine_unsupported")), "{v}");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("UCI_Chess960"));
    let (status, v) = api
        .post(
            "/v1/games",
            None,
            json!({"fen": CHESS960, "opponent": {"engine": "toga", "plays": "black"}}),
        )
        .await;
    assert_eq!((status, code(&v)), (422, Some("engine_unsupported")), "{v}");
    // The game is unchanged, and Toga still plays standard chess.
    assert_eq!(api.state(&g).await["fen"], CHESS960);
    let standard = api.game(json!({})).await;
    api.attach(&standard, "toga").await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine/bestmove", standard.id),
            Some(&standard.white),
            json!({"movetime": 100}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    // An engine that declares UCI_Chess960 plays the Chess960 game.
    if stockfish.is_some() {
        api.attach(&g, "sf").await;
        let (status, v) = api
            .post(
                &format!("/v1/games/{}/engine/play", g.id),
                Some(&g.white),
                json!({"go": {"movetime": 100}}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        assert!(v["engine_move"]["uci"].is_string(), "{v}");
    }
}

/// Reads frames until the engine's next `move` event and its `bestmove` line; returns the move
/// (UCI), the expected reply (`ponder`), the clocks after the move, and how many `engine_info`
/// frames came after the bestmove (the engine thinking on the player's time) within `linger`.
async fn engine_reply(
    conn: &mut WsConn,
    ply: u64,
    linger: Duration,
) -> (String, String, Value, usize) {
    let (mut mv, mut ponder, mut clocks) = (None, None, Value::Null);
    while mv.is_none() || ponder.is_none() {
        let v = ws_json(conn).await;
        match v["type"].as_str() {
            Some("move") if v["ply"] == ply => {
                mv = Some(v["uci"].as_str().unwrap().to_string());
                clocks = v["clocks"].clone();
            }
            Some("engine_line") => {
                let line = v["line"].as_str().unwrap();
                if let Some(rest) = line.strip_prefix("bestmove ") {
                    let words: Vec<&str> = rest.split_whitespace().collect();
                    if words.get(1) == Some(&"ponder") {
                        ponder = Some(words[2].to_string());
                    }
                }
            }
            _ => {}
        }
    }
    let mut thinking = 0;
    let until = Instant::now() + linger;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match tokio::time::timeout(left, ws_json(conn)).await {
            Ok(v) if v["type"] == "engine_info" => thinking += 1,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    (mv.unwrap(), ponder.unwrap(), clocks, thinking)
}

/// A server with Stockfish as `sf`, pondering (and `extra` settings), and a game of 5 minutes
/// a side against it, playing Black with `movetime`, watched over a WebSocket.
async fn pondering_game(
    extra: &[(&str, &str)],
    movetime: u64,
) -> (common::Server, Api, GameSecrets, WsConn) {
    let mut env = vec![
        (
            "CHESSD_ENGINES__SF__COMMAND".to_string(),
            engines::stockfish(),
        ),
        (
            "CHESSD_ENGINES__SF__OPTIONS".into(),
            "{Hash = 16, Threads = 1}".into(),
        ),
        ("CHESSD_ENGINES__SF__PONDER".into(), "true".into()),
    ];
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let server = start(&env);
    let api = Api::new(&server);
    let g = api
        .game(json!({
            "time_control": {"initial_ms": 300000, "increment_ms": 0},
            "opponent": {"engine": "sf", "plays": "black", "go": {"movetime": movetime}}
        }))
        .await;
    let ws = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    (server, api, g, ws)
}

#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn stockfish_ponders_on_the_players_time_with_hits_and_misses() {
    let (server, api, g, mut ws) = pondering_game(&[], 1000).await;
    play(&api, &g, &["e2e4"]).await;
    // Its first reply takes its movetime; then it thinks on White's time about the reply it
    // expects (engine_info frames keep coming while nobody moves).
    let (_, expected, _, thinking) = engine_reply(&mut ws, 2, Duration::from_millis(1300)).await;
    assert!(thinking > 0, "no engine output while it should ponder");
    // A hit: the expected reply gets an answer at once (it has thought longer than its
    // movetime already), and its clock is charged only from White's move on.
    let t = Instant::now();
    play(&api, &g, &[expected.as_str()]).await;
    let (_, expected, clocks, _) = engine_reply(&mut ws, 4, Duration::ZERO).await;
    let hit_reply = t.elapsed();
    assert!(
        hit_reply < Duration::from_millis(800),
        "a ponder hit took {hit_reply:?}"
    );
    let black_ms = clocks["black_ms"].as_u64().unwrap();
    // Two replies: about 1000 ms for the first, next to nothing for the hit (its 1.3 s of
    // pondering were White's time).
    assert!(
        black_ms > 300_000 - 2_000,
        "black was charged for pondering: {clocks}"
    );
    // A miss: another legal move; the ponder search is thrown away and a new one takes its
    // movetime.
    let other = api
        .legal(&g)
        .await
        .into_iter()
        .find(|m| *m != expected)
        .unwrap();
    let t = Instant::now();
    play(&api, &g, &[other.as_str()]).await;
    engine_reply(&mut ws, 6, Duration::ZERO).await;
    let miss_reply = t.elapsed();
    assert!(
        miss_reply >= Duration::from_millis(900),
        "a miss answered in {miss_reply:?}"
    );
    let metrics = api.metrics().await;
    for outcome in ["hit", "miss"] {
        let line = format!("chessd_engine_ponders_total{{outcome=\"{outcome}\"}} 1");
        assert!(metrics.contains(&line), "{line} not in the metrics");
    }
    // The game ends while it ponders: the engine is released (no process is kept).
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/resign", g.id),
            Some(&g.white),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !engines::children_named(server.pid(), "stockfish").is_empty() {
        assert!(Instant::now() < deadline, "the pondering engine lives on");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An engine opponent ponders no longer than `engines.max_ponder_secs` while the player thinks:
/// then it stops (the engine is idle again), and when the player moves it searches as usual.
#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn pondering_stops_when_the_player_thinks_longer_than_its_limit() {
    let (_server, api, g, mut ws) =
        pondering_game(&[("CHESSD_ENGINES__MAX_PONDER_SECS", "1")], 300).await;
    play(&api, &g, &["e2e4"]).await;
    let (_, expected, _, _) = engine_reply(&mut ws, 2, Duration::from_millis(500)).await;
    let engine = format!("/v1/games/{}/engine", g.id);
    let (_, view) = api.get(&engine).await;
    assert_eq!(view["busy"], true, "it ponders: {view}");
    let t = Instant::now();
    loop {
        let (_, view) = api.get(&engine).await;
        if view["busy"] == false {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "it pondered on: {view}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    // The expected reply is now searched as any move (no hit: its pondering was thrown away).
    let t = Instant::now();
    play(&api, &g, &[expected.as_str()]).await;
    engine_reply(&mut ws, 4, Duration::ZERO).await;
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
}
