//! The built-in engine (`chessd engine`, the default `builtin` entry) through the real server:
//! a whole engine-vs-engine game, Lichess mates in two (from `tests/data/puzzles`) played out
//! with the default limits, and an engine opponent answering REST moves.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{
    self,
    engines::{self, start, Api},
};

const PUZZLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/puzzles/lichess_m2_m3_sample50.csv"
);

#[actix_web::test]
async fn the_builtin_engine_plays_a_whole_game() {
    let server = start(&[]);
    let api = Api::new(&server);
    let (_, list) = api.get("/v1/engines").await;
    let builtin = list["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "builtin")
        .unwrap()
        .clone();
    assert_eq!(
        builtin,
        json!({"name": "builtin", "kind": "builtin", "reachable": true, "default": true,
            "variants": ["standard", "chess2"]})
    );
    let g = api.game(json!({})).await;
    let view = api.attach(&g, "builtin").await;
    assert!(
        view["id_name"].as_str().unwrap().starts_with("chessd"),
        "{view}"
    );
    let end = api.self_play(&g, json!({"depth": 2}), 1200).await;
    assert_ne!(end["status"]["result"], "ongoing");
}

#[actix_web::test]
async fn the_builtin_engine_mates_in_two_with_default_limits() {
    let text = std::fs::read_to_string(PUZZLES).expect("the shared puzzle data");
    // One client attaches an engine to a game per puzzle: lift its engine quotas.
    let server = start(&[
        ("CHESSD_QUOTAS__MAX_ENGINES".into(), "1000".into()),
        ("CHESSD_ENGINES__MAX_PROCESSES".into(), "1000".into()),
    ]);
    let api = Api::new(&server);
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let (fen, mate, firsts) = (fields[1], fields[2], fields[4]);
        if mate != "2" || checked == 3 {
            continue;
        }
        checked += 1;
        let g = api.game(json!({ "fen": fen })).await;
        api.attach(&g, "builtin").await;
        let mover = if fen.split(' ').nth(1) == Some("w") {
            "white_wins"
        } else {
            "black_wins"
        };
        // Mover, defender, mover: each with the default `go` (movetime 1000).
        for ply in 0..3 {
            let (status, v) = api
                .post(
                    &format!("/v1/games/{}/engine/play", g.id),
                    Some(&g.admin),
                    json!({}),
                )
                .await;
            assert_eq!(status, 200, "{fen} ply {ply}: {v}");
            if ply == 0 {
                let first = v["engine_move"]["uci"].as_str().unwrap();
                assert!(
                    firsts.split(' ').any(|m| m == first),
                    "{fen}: {first} is not a key"
                );
            }
        }
        let end = api.state(&g).await;
        assert_eq!(end["status"]["result"], mover, "{fen}: {end}");
        assert_eq!(end["status"]["reason"], "checkmate", "{fen}");
    }
    assert_eq!(checked, 3);
}

#[actix_web::test]
async fn the_builtin_opponent_answers_rest_moves() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api
        .game(json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 3}}}))
        .await;
    for (ply, mv) in ["e2e4", "d2d4"].iter().enumerate() {
        let (status, v) = api
            .post(
                &format!("/v1/games/{}/moves", g.id),
                Some(&g.white),
                json!({"uci": mv}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        let want = 2 * ply + 2;
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let state = api.state(&g).await;
            let n = state["moves"].as_array().unwrap().len();
            if n == want {
                assert_eq!(state["turn"], "white");
                break;
            }
            assert!(Instant::now() < deadline, "no reply to {mv}: {state}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

#[actix_web::test]
async fn engine_play_without_a_move_in_a_finished_game_is_game_over() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "builtin").await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/resign", g.id),
            Some(&g.white),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    for body in [json!({}), json!({"go": {"depth": 1}})] {
        let (status, v) = api
            .post(
                &format!("/v1/games/{}/engine/play", g.id),
                Some(&g.black),
                body,
            )
            .await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (409, Some("game_over")),
            "{v}"
        );
    }
}

#[actix_web::test]
async fn pgn_tags_say_what_the_server_knows() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api
        .game(json!({
            "time_control": {"initial_ms": 300000, "increment_ms": 2000},
            "opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 1}}
        }))
        .await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/resign", g.id),
            Some(&g.white),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let mut resp = api
        .client
        .get(format!("{}/v1/games/{}/pgn", api.base, g.id))
        .send()
        .await
        .unwrap();
    let pgn = String::from_utf8(resp.body().await.unwrap().to_vec()).unwrap();
    let today = {
        // The date the server wrote, checked against this machine's clock (UTC).
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let out = std::process::Command::new("date")
            .args(["-u", "-d", &format!("@{secs}"), "+%Y.%m.%d"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    for tag in [
        format!("[Date \"{today}\"]"),
        // A seat without a name is PGN's unknown player.
        "[White \"?\"]".to_string(),
        "[Black \"builtin\"]".to_string(),
        "[Result \"0-1\"]".to_string(),
        "[TimeControl \"300+2\"]".to_string(),
        "[Termination \"normal\"]".to_string(),
    ] {
        assert!(pgn.contains(&tag), "{tag} missing in:\n{pgn}");
    }
    // No other placeholder: everything else the server knows.
    let others = pgn.replace("[White \"?\"]", "");
    assert!(!others.contains("\"?"), "placeholders left:\n{pgn}");
}

#[actix_web::test]
async fn a_finished_game_releases_its_engine_process() {
    // One engine session per client: a second game against the computer is possible only if
    // the first one's engine was released when that game ended.
    let server = start(&[("CHESSD_QUOTAS__MAX_ENGINES".into(), "1".into())]);
    let api = Api::new(&server);
    let body = json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 1}}});
    let first = api.game(body.clone()).await;
    let (status, v) = api.post("/v1/games", None, body.clone()).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (429, Some("quota_exceeded")),
        "{v}"
    );
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/resign", first.id),
            Some(&first.white),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = api.get(&format!("/v1/games/{}/engine", first.id)).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (409, Some("no_engine")),
        "{v}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !engines::children_named(server.pid(), "chessd").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the engine process lives on"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let second = api.game(body).await;
    let (status, v) = api.get(&format!("/v1/games/{}/engine", second.id)).await;
    assert_eq!(status, 200, "{v}");
}

/// A client at its engine limit can see which games hold its sessions (`GET
/// /v1/engines/sessions`), free an attached one, and then start another; another client's list
/// is its own.
#[actix_web::test]
async fn a_client_lists_the_games_holding_its_engine_sessions_and_frees_one() {
    let server = start(&[("CHESSD_QUOTAS__MAX_ENGINES".into(), "2".into())]);
    let api = Api::new(&server);
    let (status, v) = api.get("/v1/engines/sessions").await;
    assert_eq!(
        (status, v.clone()),
        (200, json!({"limit": 2, "sessions": []}))
    );
    let body = json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 1}}});
    let played = api.game(body).await;
    let analysed = api.game(json!({})).await;
    api.attach(&analysed, "tesla").await;
    let (_, v) = api.get("/v1/engines/sessions").await;
    assert_eq!(
        v,
        json!({"limit": 2, "sessions": [
            {"game": played.id, "engine": "builtin", "role": "opponent"},
            {"game": analysed.id, "engine": "tesla", "role": "attached"},
        ]})
    );
    // At the limit: the refusal names the list.
    let third = api.game(json!({})).await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine", third.id),
            Some(&third.admin),
            json!({"name": "builtin"}),
        )
        .await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (429, Some("quota_exceeded")),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/v1/engines/sessions"),
        "{v}"
    );
    // Another client (another loopback address) holds none.
    let addr: std::net::SocketAddr = api.base.trim_start_matches("http://").parse().unwrap();
    let (status, other) = common::raw_request_from(
        "127.0.0.2".parse().unwrap(),
        addr,
        &format!("GET /v1/engines/sessions HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(
        (status, other.as_str()),
        (200, r#"{"limit":2,"sessions":[]}"#)
    );
    let (status, v) = api
        .delete(
            &format!("/v1/games/{}/engine", analysed.id),
            Some(&analysed.admin),
        )
        .await;
    assert!(status == 200 || status == 204, "{status} {v}");
    let (_, v) = api.get("/v1/engines/sessions").await;
    assert_eq!(
        v["sessions"],
        json!([{"game": played.id, "engine": "builtin", "role": "opponent"}])
    );
    api.attach(&third, "builtin").await;
}

/// A game that ends while its engine chooses a move (here the admin declares a draw) stops that
/// search: the engine's session is given back at once, not when its long think would end.
#[actix_web::test]
async fn a_game_ended_while_its_engine_thinks_frees_the_engine_at_once() {
    let server = start(&[]);
    let api = Api::new(&server);
    let go = json!({"movetime": 8000});
    let g = api
        .game(json!({"opponents": [
            {"engine": "builtin", "plays": "white", "go": go},
            {"engine": "tesla", "plays": "black", "go": go},
        ]}))
        .await;
    let (_, v) = api.get("/v1/engines/sessions").await;
    assert_eq!(v["sessions"].as_array().map(Vec::len), Some(2), "{v}");
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/draw", g.id),
            Some(&g.admin),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    // White's search has 8 s to go; its session must be back well before.
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (_, v) = api.get("/v1/engines/sessions").await;
        if v["sessions"] == json!([]) {
            break;
        }
        assert!(Instant::now() < deadline, "still held: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// An engine play sent again with its idempotency key gets the first answer: neither the
/// player's move nor the engine's is played twice; while the first still waits for the engine,
/// a repeat is told so.
#[actix_web::test]
async fn an_engine_play_sent_again_with_its_key_is_played_once() {
    let server = start(&[]);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "builtin").await;
    let url = format!("{}/v1/games/{}/engine/play", server.base, g.id);
    let send = |go: serde_json::Value| {
        let c = common::client();
        let url = url.clone();
        let admin = g.admin.clone();
        async move {
            let mut resp = c
                .post(&url)
                .bearer_auth(&admin)
                .insert_header(("Idempotency-Key", "play-1"))
                .send_json(&json!({"move": "e2e4", "go": go}))
                .await
                .unwrap();
            let replayed = resp.headers().contains_key("idempotent-replayed");
            let body = resp.body().await.unwrap();
            (resp.status().as_u16(), replayed, body)
        }
    };
    let go = json!({"movetime": 600});
    let first = actix_web::rt::spawn(send(go.clone()));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, replayed, body) = send(go.clone()).await;
    assert_eq!((status, replayed), (409, false), "{body:?}");
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["error"]["code"], "request_in_progress", "{v}");
    let (status, replayed, first_body) = first.await.unwrap();
    assert_eq!((status, replayed), (200, false), "{first_body:?}");
    let (status, replayed, again) = send(go.clone()).await;
    assert_eq!((status, replayed), (200, true));
    assert_eq!(again, first_body, "the repeat gets the first answer");
    assert_eq!(
        api.state(&g).await["version"],
        2,
        "e4 and the engine's reply, once each"
    );
    // The same key with another body is refused.
    let (status, _, body) = send(json!({"movetime": 50})).await;
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (409, Some("idempotency_key_reused"))
    );
}

/// Waits until the game's engine says it is no longer analysing; gives how long that took.
async fn analysis_ends(api: &Api, g: &common::GameSecrets, limit: Duration) -> Duration {
    let started = Instant::now();
    loop {
        let (_, view) = api.get(&format!("/v1/games/{}/engine", g.id)).await;
        if view["analysing"] == false {
            return started.elapsed();
        }
        assert!(started.elapsed() < limit, "still analysing: {view}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// No search runs for ever: an infinite analysis stops at `engines.max_analysis_secs`, one
/// nobody watches `engines.unwatched_analysis_secs` after its last watcher left, and a client's
/// limits over `engines.max_movetime_ms` (a day of thinking) are refused.
#[actix_web::test]
async fn searches_are_bounded_in_time_and_analyses_end_when_nobody_watches() {
    let server = start(&[
        (
            "CHESSD_ENGINES__MAX_ANALYSIS_SECS".to_string(),
            "2".to_string(),
        ),
        (
            "CHESSD_ENGINES__UNWATCHED_ANALYSIS_SECS".to_string(),
            "1".to_string(),
        ),
        (
            "CHESSD_ENGINES__MAX_MOVETIME_MS".to_string(),
            "60000".to_string(),
        ),
    ]);
    let api = Api::new(&server);
    // A day of thinking, asked three ways.
    let day = json!({"movetime": 86_400_000});
    let (status, v) = api
        .post(
            "/v1/games",
            None,
            json!({"opponent": {"engine": "builtin", "plays": "black", "go": day}}),
        )
        .await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (422, Some("limit_exceeded")),
        "{v}"
    );
    let g = api.game(json!({})).await;
    api.attach(&g, "builtin").await;
    for (route, body) in [("bestmove", day.clone()), ("analysis", json!({"go": day}))] {
        let (status, v) = api
            .post(
                &format!("/v1/games/{}/engine/{route}", g.id),
                Some(&g.white),
                body,
            )
            .await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (422, Some("limit_exceeded")),
            "{route}: {v}"
        );
    }

    // Watched, an infinite analysis runs until its time is up.
    let mut watcher = common::ws_connect(&common::client(), &server.ws_url(&g.id, "")).await;
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine/analysis", g.id),
            Some(&g.white),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let took = analysis_ends(&api, &g, Duration::from_secs(10)).await;
    assert!(
        took >= Duration::from_millis(1500),
        "it stopped after {took:?}"
    );
    let frames = engines::ws_until(&mut watcher, |f| f["type"] == "engine_analysis_done").await;
    assert!(!frames.is_empty());
    drop(watcher);

    // Unwatched, it stops a second after it started.
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine/analysis", g.id),
            Some(&g.white),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let took = analysis_ends(&api, &g, Duration::from_secs(10)).await;
    assert!(
        took < Duration::from_millis(1900),
        "it ran {took:?} for nobody"
    );
    // Its last lines are still there to read.
    let (status, report) = api
        .delete(
            &format!("/v1/games/{}/engine/analysis", g.id),
            Some(&g.white),
        )
        .await;
    assert_eq!(status, 200, "{report}");
}
