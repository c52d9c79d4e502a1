//! Games with real Stockfish (`/usr/games/stockfish`) through the real server: a local process
//! and over TCP through socat; whole engine-vs-engine games; Binbo's UCI suite steps (hint leaves
//! the game unchanged, play with and without a player move, set/sync position, raw commands, the
//! handler — here the WebSocket — receiving engine output); an engine opponent over WebSocket;
//! analysis; `kill -9` in the middle of a search. Skipped (with a message) where Stockfish or
//! socat is missing, unless `CI=true`.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{
    self,
    engines::{children_named, socat, start, stockfish, ws_until, Api, Socat},
    ws_connect, ws_json, ws_send,
};

/// The operator token the servers of these tests are configured with.
const OPERATOR: &str = "test-operator";

/// The server with Stockfish configured as `sf` (Hash 16, one thread), and an operator token.
fn sf_env(path: &str) -> Vec<(String, String)> {
    vec![
        ("CHESSD_AUTH__OPERATOR_TOKEN".into(), OPERATOR.into()),
        ("CHESSD_ENGINES__SF__COMMAND".into(), path.into()),
        (
            "CHESSD_ENGINES__SF__OPTIONS".into(),
            "{Hash = 16, Threads = 1}".into(),
        ),
    ]
}

#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
#[cfg_attr(
    all(has_stockfish, not(has_socat)),
    ignore = "socat is not installed (apt-get install socat)"
)]
async fn stockfish_plays_whole_games_locally_and_over_tcp() {
    let (sf, socat_path) = (stockfish(), socat());
    let bridge = Socat::start(&socat_path, &sf);
    let mut env = sf_env(&sf);
    env.push(("CHESSD_ENGINES__REMOTE__TCP".into(), bridge.addr()));
    let server = start(&env);
    let api = Api::new(&server);
    let (status, list) = api.get("/v1/engines").await;
    assert_eq!(status, 200);
    let engines = list["engines"].as_array().unwrap();
    let find = |n: &str| engines.iter().find(|e| e["name"] == n).unwrap().clone();
    assert_eq!(find("sf")["kind"], "command");
    assert_eq!(find("sf")["reachable"], true);
    assert_eq!(find("remote")["kind"], "tcp");
    assert_eq!(find("remote")["reachable"], true);
    assert_eq!(find("builtin")["default"], true);
    for name in ["sf", "remote"] {
        let g = api.game(json!({})).await;
        let view = api.attach(&g, name).await;
        assert!(
            view["id_name"].as_str().unwrap().starts_with("Stockfish"),
            "{view}"
        );
        let end = api.self_play(&g, json!({"depth": 2}), 1200).await;
        let status = &end["status"];
        assert_ne!(status["result"], "ongoing");
        assert!(!status["reason"].is_null(), "{end}");
        // The server agrees with its own answer.
        let (_, again) = api.get(&format!("/v1/games/{}/status", g.id)).await;
        assert_eq!(&again["status"], status);
    }
}

#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn binbo_uci_suite_steps() {
    let sf = stockfish();
    let server = start(&sf_env(&sf));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    let path = |sub: &str| format!("/v1/games/{}{sub}", g.id);

    // new_uci_game with a FEN (admin only: it resets the game).
    let fen = "r1bqkbnr/pp1ppp1p/2n3p1/1Bp5/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4";
    let (status, v) = api
        .post(
            &path("/engine"),
            Some(&g.white),
            json!({"name": "sf", "fen": fen}),
        )
        .await;
    assert_eq!((status, &v["error"]["code"]), (403, &json!("forbidden")));
    let (status, v) = api
        .post(
            &path("/engine"),
            Some(&g.admin),
            json!({"name": "sf", "fen": fen}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert!(v["options"]
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["name"] == "Hash" && o["type"] == "spin"));
    assert_eq!(
        (v["busy"].clone(), v["analysing"].clone()),
        (json!(false), json!(false))
    );
    let before = api.state(&g).await;
    assert_eq!(before["fen"], fen);

    // uci_bestmove: a legal hint, and the game does not change.
    let legal = api.legal(&g).await;
    for go in [
        json!({"movetime": 50}),
        json!({"depth": 6}),
        json!({"nodes": 5000}),
    ] {
        let (status, hint) = api
            .post(&path("/engine/bestmove"), Some(&g.black), go.clone())
            .await;
        assert_eq!(status, 200, "{go}: {hint}");
        let best = hint["bestmove"].as_str().unwrap();
        assert!(legal.iter().any(|m| m == best), "{best} not legal");
        assert!(!hint["san"].as_str().unwrap().is_empty());
        let info = &hint["info"];
        assert!(info["depth"].as_u64().unwrap() >= 1, "{hint}");
        assert!(
            info["score"]["cp"].is_i64() || info["score"]["mate"].is_i64(),
            "{hint}"
        );
        assert_eq!(info["pv"][0], best, "the PV starts with the best move");
        assert_eq!(api.state(&g).await, before, "a hint changed the game");
    }
    let (status, v) = api
        .post(&path("/engine/bestmove"), None, json!({"movetime": 50}))
        .await;
    assert_eq!((status, &v["error"]["code"]), (401, &json!("unauthorized")));
    let (status, v) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.admin),
            json!({"infinite": true}),
        )
        .await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (400, &json!("invalid_request"))
    );
    let (status, v) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.admin),
            json!({"movtime": 5}),
        )
        .await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (400, &json!("invalid_request"))
    );

    // uci_play without a move: the engine moves for the side to move (white).
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.admin),
            json!({"go": {"movetime": 50}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert!(v["player_move"].is_null());
    let first = v["engine_move"]["uci"].as_str().unwrap().to_string();
    assert!(legal.contains(&first));
    assert_eq!(v["state"]["moves"][0]["uci"], first.as_str());
    assert_eq!(v["state"]["turn"], "black");

    // uci_play with the player's move (black, by its seat, in SAN), then the engine's reply.
    let legal = api.legal(&g).await;
    let (player, player_uci) = if legal.iter().any(|m| m == "a7a6") {
        ("a6".to_string(), "a7a6".to_string())
    } else {
        (legal[0].clone(), legal[0].clone())
    };
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.black),
            json!({"move": player, "go": {"depth": 4}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["player_move"]["uci"], player_uci.as_str());
    let moves = v["state"]["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3);
    assert_eq!(moves[1]["uci"], player_uci.as_str());
    assert_eq!(moves[2]["uci"], v["engine_move"]["uci"]);
    // The wrong seat, an illegal move: refused, nothing changes, the engine stays free.
    let now = api.state(&g).await;
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.white),
            json!({"move": "a7a6"}),
        )
        .await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (409, &json!("not_your_turn"))
    );
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.black),
            json!({"move": "e1e5"}),
        )
        .await;
    assert_eq!((status, &v["error"]["code"]), (422, &json!("illegal_move")));
    assert_eq!(api.state(&g).await, now);
    let (_, view) = api.get(&path("/engine")).await;
    assert_eq!(view["busy"], false);

    // uci_set_position: the game is reset to the FEN and moves; hints follow it.
    let (status, v) = api
        .post(
            &path("/engine/position"),
            Some(&g.black),
            json!({"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}),
        )
        .await;
    assert_eq!((status, &v["error"]["code"]), (403, &json!("forbidden")));
    let (status, v) = api
        .post(
            &path("/engine/position"),
            Some(&g.admin),
            json!({"moves": ["e2e4", "e7e5"]}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["start_fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    let (status, v) = api
        .post(
            &path("/engine/position"),
            Some(&g.admin),
            json!({"moves": ["e2e5"]}),
        )
        .await;
    assert_eq!((status, &v["error"]["code"]), (422, &json!("illegal_move")));
    assert_eq!(api.state(&g).await["moves"].as_array().unwrap().len(), 2);
    let (status, v) = api
        .post(
            &path("/engine/position"),
            Some(&g.admin),
            json!({"fen": "7k/8/6K1/8/8/8/8/R7 w - - 0 1"}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let (status, hint) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.admin),
            json!({"depth": 5}),
        )
        .await;
    assert_eq!(status, 200, "{hint}");
    assert_eq!(hint["bestmove"], "a1a8", "mate in one: {hint}");
    assert_eq!(hint["san"], "Ra8#");
    assert_eq!(hint["info"]["score"]["mate"], 1);

    // uci_sync_position: a move the engine did not see, then sync; hints follow the game.
    let (status, v) = api
        .post(&path("/engine/position"), Some(&g.admin), json!({}))
        .await;
    assert_eq!(status, 200, "{v}");
    let (status, _) = api
        .post(&path("/moves"), Some(&g.white), json!({"uci": "f2f3"}))
        .await;
    assert_eq!(status, 200);
    let (status, _) = api
        .post(&path("/moves"), Some(&g.black), json!({"uci": "e7e5"}))
        .await;
    assert_eq!(status, 200);
    let (status, _) = api
        .post(&path("/moves"), Some(&g.white), json!({"uci": "g2g4"}))
        .await;
    assert_eq!(status, 200);
    let (status, v) = api
        .post(&path("/engine/sync"), Some(&g.black), json!({}))
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["moves"].as_array().unwrap().len(), 3);
    let (status, hint) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.black),
            json!({"depth": 8}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(hint["bestmove"], "d8h4", "fool's mate: {hint}");

    // uci_command_call / cast: the operator's allow-listed lines only (see security.rs).
    for (body, want) in [
        (json!({"command": "setoption name Hash value 32"}), 200),
        (json!({"command": "ucinewgame", "wait": false}), 200),
        (json!({"command": "quit"}), 422),
        (json!({"command": "isready\nquit"}), 422),
        (
            json!({"command": "setoption name Debug Log File value /tmp/x"}),
            422,
        ),
        (json!({}), 400),
    ] {
        let (status, v) = api
            .post(&path("/engine/command"), Some(OPERATOR), body.clone())
            .await;
        assert_eq!(status, want, "{body}: {v}");
    }
    for secret in [&g.white, &g.admin] {
        let (status, _) = api
            .post(
                &path("/engine/command"),
                Some(secret),
                json!({"command": "isready"}),
            )
            .await;
        assert_eq!(status, 403);
    }
    let (status, hint) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.black),
            json!({"movetime": 30}),
        )
        .await;
    assert_eq!(status, 200, "still usable after raw commands: {hint}");

    // Detach: the engine quits; engine routes say so; attach by an unknown name.
    let (status, _) = api.delete(&path("/engine"), Some(&g.white)).await;
    assert_eq!(status, 204);
    let (status, v) = api.get(&path("/engine")).await;
    assert_eq!((status, &v["error"]["code"]), (409, &json!("no_engine")));
    let (status, v) = api
        .post(&path("/engine/bestmove"), Some(&g.white), json!({}))
        .await;
    assert_eq!((status, &v["error"]["code"]), (409, &json!("no_engine")));
    let (status, v) = api
        .post(&path("/engine"), Some(&g.white), json!({"name": "nope"}))
        .await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (422, &json!("engine_not_found"))
    );
}

#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn an_engine_opponent_answers_websocket_moves_and_streams_its_thinking() {
    let sf = stockfish();
    let server = start(&sf_env(&sf));
    let api = Api::new(&server);

    // It plays white: it moves first, by itself.
    let g = api
        .game(json!({"opponent": {"engine": "sf", "plays": "white", "go": {"depth": 3}}}))
        .await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while api.state(&g).await["moves"].as_array().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the white engine never moved");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, view) = api.get(&format!("/v1/games/{}/engine", g.id)).await;
    assert_eq!(view["opponent"]["plays"], "white");

    // It plays black: a human's WebSocket move is answered by the next move event.
    let g = api
        .game(json!({"opponent": {"engine": "sf", "plays": "black", "go": {"movetime": 60}}}))
        .await;
    let mut conn = ws_connect(
        &api.client,
        &server.ws_url(&g.id, &format!("token={}", g.white)),
    )
    .await;
    assert_eq!(ws_json(&mut conn).await["type"], "hello");
    assert_eq!(ws_json(&mut conn).await["type"], "state");
    ws_send(&mut conn, &json!({"type": "move", "uci": "e2e4", "ack": 1})).await;
    let frames = ws_until(&mut conn, |v| v["type"] == "move" && v["ply"] == 2).await;
    let types: Vec<&str> = frames.iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert_eq!(types[0], "ack", "{types:?}");
    assert_eq!(frames[1]["type"], "move");
    assert_eq!(frames[1]["uci"], "e2e4");
    let infos: Vec<&Value> = frames
        .iter()
        .filter(|f| f["type"] == "engine_info")
        .collect();
    assert!(!infos.is_empty(), "no engine_info among {types:?}");
    for info in &infos {
        let uci = info["pv_uci"].as_array().unwrap();
        let san = info["pv_san"].as_array().unwrap();
        assert!(!uci.is_empty() && san.len() == uci.len(), "{info}");
        assert_eq!(info["multipv"], 1);
        assert!(info["score"].is_object());
        // Transient: the version is the game's current one (1, after e2e4).
        assert_eq!(info["version"], 1);
    }
    assert!(
        frames
            .iter()
            .any(|f| f["type"] == "engine_line"
                && f["line"].as_str().unwrap().starts_with("bestmove")),
        "{types:?}"
    );
    let reply = frames.last().unwrap();
    assert_eq!(reply["version"], 2);
    assert_eq!(reply["uci"], infos.last().unwrap()["pv_uci"][0]);
    // The next move is answered too.
    ws_send(&mut conn, &json!({"type": "move", "uci": "d2d4", "ack": 2})).await;
    let frames = ws_until(&mut conn, |v| v["type"] == "move" && v["ply"] == 4).await;
    assert!(frames.iter().any(|f| f["type"] == "ack" && f["ack"] == 2));

    // A reconnecting client replays only the versioned events, not the engine output.
    let mut again = ws_connect(
        &api.client,
        &server.ws_url(&g.id, &format!("token={}&since=0", g.white)),
    )
    .await;
    assert_eq!(ws_json(&mut again).await["type"], "hello");
    for ply in 1..=4 {
        let v = ws_json(&mut again).await;
        assert_eq!(
            (v["type"].clone(), v["ply"].clone()),
            (json!("move"), json!(ply))
        );
    }
}

#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn analysis_streams_lines_follows_moves_and_stops() {
    let sf = stockfish();
    let server = start(&sf_env(&sf));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "sf").await;
    let path = |sub: &str| format!("/v1/games/{}{sub}", g.id);
    let mut conn = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    assert_eq!(ws_json(&mut conn).await["type"], "hello");
    assert_eq!(ws_json(&mut conn).await["type"], "state");
    let (status, v) = api
        .post(
            &path("/engine/analysis"),
            Some(&g.white),
            json!({"multipv": 2}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["go"], json!({"infinite": true}));
    ws_until(&mut conn, |v| {
        v["type"] == "engine_info" && v["multipv"] == 2
    })
    .await;
    // Busy while analysing.
    let (status, v) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.white),
            json!({"movetime": 10}),
        )
        .await;
    assert_eq!((status, &v["error"]["code"]), (409, &json!("engine_busy")));
    let (_, view) = api.get(&path("/engine")).await;
    assert_eq!(view["analysing"], true);
    // A move: the analysis restarts on the new position (its PVs start with a black move).
    let (status, _) = api
        .post(&path("/moves"), Some(&g.white), json!({"uci": "g1f3"}))
        .await;
    assert_eq!(status, 200);
    let black_moves = api.legal(&g).await;
    ws_until(&mut conn, |v| {
        v["type"] == "engine_info"
            && v["pv_uci"][0]
                .as_str()
                .is_some_and(|m| black_moves.iter().any(|b| b == m))
            && v["depth"].as_u64().unwrap_or(0) >= 5
    })
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, report) = api.delete(&path("/engine/analysis"), Some(&g.black)).await;
    assert_eq!(status, 200, "{report}");
    let lines = report["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{report}");
    assert!(black_moves
        .iter()
        .any(|m| m == report["bestmove"].as_str().unwrap()));
    for line in lines {
        assert!(black_moves
            .iter()
            .any(|m| m == line["pv_uci"][0].as_str().unwrap()));
    }
    let (_, view) = api.get(&path("/engine")).await;
    assert_eq!(view["analysing"], false);
    let (status, hint) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.white),
            json!({"movetime": 20}),
        )
        .await;
    assert_eq!(status, 200, "usable after the analysis: {hint}");
    let (status, v) = api
        .post(
            &path("/engine/analysis"),
            Some(&g.white),
            json!({"multipv": 1000}),
        )
        .await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (422, &json!("engine_unsupported"))
    );
}

#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn kill_9_mid_search_fails_at_once_and_reattach_works() {
    let sf = stockfish();
    let server = start(&sf_env(&sf));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    let path = |sub: &str| format!("/v1/games/{}{sub}", g.id);
    let mut conn = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    assert_eq!(ws_json(&mut conn).await["type"], "hello");
    assert_eq!(ws_json(&mut conn).await["type"], "state");

    for round in 0..2 {
        api.attach(&g, "sf").await;
        let pids = children_named(server.pid(), "stockfish");
        assert_eq!(pids.len(), 1, "round {round}: {pids:?}");
        let before = api.state(&g).await;
        // Round 0: a hint; round 1: play with a player's move, which must stay played.
        let (route, body) = if round == 0 {
            ("/engine/bestmove", json!({"movetime": 10000}))
        } else {
            (
                "/engine/play",
                json!({"move": "e2e4", "go": {"movetime": 10000}}),
            )
        };
        let url = path(route);
        let request = api.post(&url, Some(&g.admin), body);
        let killer = async {
            tokio::time::sleep(Duration::from_millis(400)).await;
            let killed_at = Instant::now();
            let status = std::process::Command::new("kill")
                .args(["-9", &pids[0].to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            killed_at
        };
        let ((status, v), killed_at) = tokio::join!(request, killer);
        let waited = killed_at.elapsed();
        assert_eq!(
            (status, &v["error"]["code"]),
            (502, &json!("engine_died")),
            "{v}"
        );
        assert!(
            waited < Duration::from_secs(1),
            "failed {waited:?} after the kill"
        );
        let after = api.state(&g).await;
        if round == 0 {
            assert_eq!(after, before, "the game changed");
        } else {
            assert_eq!(after["moves"].as_array().unwrap().len(), 1);
            assert_eq!(
                after["moves"][0]["uci"], "e2e4",
                "the player's move was lost"
            );
        }
        let (status, v) = api.get(&path("/engine")).await;
        assert_eq!((status, &v["error"]["code"]), (409, &json!("no_engine")));
        let frames = ws_until(&mut conn, |v| v["type"] == "engine_detached").await;
        assert!(
            frames
                .iter()
                .any(|f| f["type"] == "engine_error" && f["code"] == "engine_died"),
            "{frames:?}"
        );
    }
    // Re-attach works and the game goes on.
    api.attach(&g, "sf").await;
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.admin),
            json!({"go": {"movetime": 30}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["state"]["moves"].as_array().unwrap().len(), 2);
}

/// A burst of Stockfish starts on a small, busy machine: at most four engine sessions per core
/// (the default `engines.max_processes`) are started, the others refused at once with 503
/// `too_many_engines`, and none of those started fails its handshake, although the deadline
/// set (1 s) is short for so many starts at once: engines start one per core at a time, each
/// handshake's deadline running from its turn.
#[actix_web::test]
#[cfg_attr(
    not(has_stockfish),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
async fn a_burst_of_engine_starts_is_capped_by_the_cores_and_none_fails_its_handshake() {
    const CLIENTS: usize = 15;
    let keys: Vec<String> = (0..CLIENTS).map(|i| format!("client-{i}")).collect();
    let mut env = sf_env(&stockfish());
    env.push((
        "CHESSD_AUTH__API_KEYS".into(),
        serde_json::to_string(&keys).unwrap(),
    ));
    env.push((
        "CHESSD_ENGINES__SF__HANDSHAKE_TIMEOUT_MS".into(),
        "1000".into(),
    ));
    let server = start(&env);
    let c = common::client();
    // The machine is busy: perft jobs take every core meanwhile.
    let mut jobs = Vec::new();
    for key in &keys[..2] {
        let mut resp = c
            .post(format!("{}/v1/perft", server.base))
            .insert_header(("X-API-Key", key.as_str()))
            .send_json(&json!({"depth": 8, "threads": 1}))
            .await
            .unwrap();
        let job: Value = resp.json().await.unwrap();
        assert_eq!(resp.status().as_u16(), 202, "{job}");
        jobs.push(job);
    }
    let mut games = Vec::new();
    for key in &keys {
        let mut resp = c
            .post(format!("{}/v1/games", server.base))
            .insert_header(("X-API-Key", key.as_str()))
            .send_json(&json!({}))
            .await
            .unwrap();
        let v: Value = resp.json().await.unwrap();
        games.push((key.clone(), common::GameSecrets::from_answer(&v)));
    }
    let attaches = games.iter().map(|(key, g)| {
        let c = c.clone();
        let url = format!("{}/v1/games/{}/engine", server.base, g.id);
        let (key, admin) = (key.clone(), g.admin.clone());
        async move {
            let mut resp = c
                .post(&url)
                .bearer_auth(&admin)
                .insert_header(("X-API-Key", key.as_str()))
                .timeout(Duration::from_secs(60))
                .send_json(&json!({"name": "sf"}))
                .await
                .unwrap();
            let v: Value = resp.json().await.unwrap_or(Value::Null);
            (
                resp.status().as_u16(),
                v["error"]["code"].as_str().map(str::to_string),
            )
        }
    });
    let answers = futures_util::future::join_all(attaches).await;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let started = answers.iter().filter(|(s, _)| *s == 200).count();
    let refused = answers
        .iter()
        .filter(|(s, c)| *s == 503 && c.as_deref() == Some("too_many_engines"))
        .count();
    assert_eq!(
        (started, refused),
        ((4 * cores).min(CLIENTS), CLIENTS - (4 * cores).min(CLIENTS)),
        "{answers:?}"
    );
    for job in jobs {
        let secret = job["secret"].as_str().unwrap();
        let job_url = format!("{}/v1/perft/{}", server.base, job["id"].as_str().unwrap());
        common::delete_authed(&c, &job_url, secret).await;
    }
}
