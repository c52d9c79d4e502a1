//! XBoard (CECP) engines through the real server: Sjeng plays a whole game as a game's engine
//! opponent against legal moves from the API, Phalanx gives best-move hints and streams an
//! analysis over the WebSocket, and handshakes fail with the engine's own words when a program
//! speaks the other protocol. Skipped (with a message) where Sjeng or Phalanx is missing,
//! unless `CI=true`.

use std::time::{Duration, Instant};

use chessd_core::{
    game::{Game, GameResult},
    Position,
};
use serde_json::json;

use crate::common::{
    engines::{required, start, ws_until, Api},
    ws_connect, ws_json,
};

/// A middlegame out of the engines' opening books.
const MIDDLEGAME: &str = "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10";

/// The server with `name` configured as the XBoard engine at `path`.
fn xboard_env(name: &str, path: &str) -> Vec<(String, String)> {
    let key = name.to_uppercase();
    vec![
        (format!("CHESSD_ENGINES__{key}__COMMAND"), path.into()),
        (format!("CHESSD_ENGINES__{key}__PROTOCOL"), "xboard".into()),
    ]
}

fn sjeng() -> String {
    required("sjeng", &["/usr/games/sjeng", "/usr/bin/sjeng"])
}

fn phalanx() -> String {
    required("phalanx", &["/usr/games/phalanx", "/usr/bin/phalanx"])
}

#[actix_web::test]
#[cfg_attr(
    not(has_sjeng),
    ignore = "sjeng is not installed (apt-get install sjeng)"
)]
async fn sjeng_plays_a_whole_game_as_the_engine_opponent() {
    let server = start(&xboard_env("sjeng", &sjeng()));
    let api = Api::new(&server);
    let g = api
        .game(json!({"opponent": {"engine": "sjeng", "plays": "black", "go": {"movetime": 100}}}))
        .await;
    let (_, view) = api.get(&format!("/v1/games/{}/engine", g.id)).await;
    assert_eq!(view["id_name"], "Sjeng 11.2", "{view}");
    let path = format!("/v1/games/{}/moves", g.id);
    let mut state = api.state(&g).await;
    for ply in (0..300).step_by(2) {
        if state["status"]["result"] != "ongoing" {
            break;
        }
        // White: a legal move from the API (a weak, varied choice, so the game ends soon).
        let legal = api.legal(&g).await;
        let uci = legal[(ply * 7) % legal.len()].clone();
        let (status, v) = api.post(&path, Some(&g.white), json!({"uci": uci})).await;
        assert_eq!(status, 200, "ply {ply}: {uci}: {v}");
        // Black: Sjeng answers by itself.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            state = api.state(&g).await;
            let moves = state["moves"].as_array().unwrap().len();
            if moves >= ply + 2 || state["status"]["result"] != "ongoing" {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "sjeng did not answer at ply {ply}: {state}"
            );
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
    }
    let status = &state["status"];
    assert_ne!(status["result"], "ongoing", "{state}");
    assert!(!status["reason"].is_null(), "{state}");
    // The game replays in the core to the same end.
    let mut game = Game::new(Position::startpos());
    for m in state["moves"].as_array().unwrap() {
        game.play_uci(m["uci"].as_str().unwrap()).unwrap();
    }
    let result = match game.status().result {
        GameResult::WhiteWins => "white_wins",
        GameResult::BlackWins => "black_wins",
        GameResult::Draw => "draw",
        GameResult::Ongoing => "ongoing",
        GameResult::Aborted => "aborted",
    };
    assert_eq!(status["result"], result, "{state}");
}

#[actix_web::test]
#[cfg_attr(
    not(has_phalanx),
    ignore = "phalanx is not installed (apt-get install phalanx)"
)]
async fn phalanx_gives_hints_and_streams_an_analysis() {
    let server = start(&xboard_env("phalanx", &phalanx()));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    let path = |sub: &str| format!("/v1/games/{}{sub}", g.id);
    let (status, view) = api
        .post(
            &path("/engine"),
            Some(&g.admin),
            json!({"name": "phalanx", "fen": MIDDLEGAME}),
        )
        .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["id_name"], "Phalanx XXV");
    let legal = api.legal(&g).await;
    let before = api.state(&g).await;
    // (Phalanx ignores `sd`: depth limits are not tried here.)
    for go in [json!({"movetime": 150}), json!({"movetime": 1200})] {
        let (status, hint) = api
            .post(&path("/engine/bestmove"), Some(&g.white), go.clone())
            .await;
        assert_eq!(status, 200, "{go}: {hint}");
        let best = hint["bestmove"].as_str().unwrap();
        assert!(legal.iter().any(|m| m == best), "{best} not legal");
        let info = &hint["info"];
        assert!(info["depth"].as_u64().unwrap() >= 1, "{hint}");
        assert!(info["score"]["cp"].is_i64(), "{hint}");
        let first = info["pv"][0]
            .as_str()
            .unwrap_or_else(|| panic!("{go}: {hint}"));
        assert!(legal.iter().any(|m| m == first), "{hint}");
        assert_eq!(api.state(&g).await, before, "a hint changed the game");
    }
    // Node limits: Phalanx does not declare them.
    let (status, v) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.white),
            json!({"nodes": 1000}),
        )
        .await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (422, &json!("engine_unsupported")),
        "{v}"
    );

    // Analysis: engine_info events with depth, score and a UCI PV; stopping it gives its move.
    let mut conn = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    assert_eq!(ws_json(&mut conn).await["type"], "hello");
    assert_eq!(ws_json(&mut conn).await["type"], "state");
    let (status, v) = api
        .post(&path("/engine/analysis"), Some(&g.white), json!({}))
        .await;
    assert_eq!(status, 200, "{v}");
    let frames = ws_until(&mut conn, |v| {
        v["type"] == "engine_info" && v["depth"].as_u64().unwrap_or(0) >= 4
    })
    .await;
    let info = frames.last().unwrap();
    assert!(
        info["score"]["cp"].is_i64() || info["score"]["mate"].is_i64(),
        "{info}"
    );
    let first = info["pv_uci"][0].as_str().unwrap();
    assert!(legal.iter().any(|m| m == first), "{info}");
    let (status, report) = api.delete(&path("/engine/analysis"), Some(&g.white)).await;
    assert_eq!(status, 200, "{report}");
    assert!(
        legal
            .iter()
            .any(|m| m == report["bestmove"].as_str().unwrap()),
        "{report}"
    );
    let (status, hint) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.white),
            json!({"movetime": 100}),
        )
        .await;
    assert_eq!(status, 200, "usable after the analysis: {hint}");
}

#[actix_web::test]
#[cfg_attr(
    not(has_sjeng),
    ignore = "sjeng is not installed (apt-get install sjeng)"
)]
async fn a_handshake_in_the_wrong_protocol_fails_with_the_engines_words() {
    let sjeng = sjeng();
    let mut env = xboard_env("notxb", "cat");
    env.push((
        "CHESSD_ENGINES__NOTXB__HANDSHAKE_TIMEOUT_MS".into(),
        "1000".into(),
    ));
    env.push(("CHESSD_ENGINES__SJUCI__COMMAND".into(), sjeng));
    env.push((
        "CHESSD_ENGINES__SJUCI__HANDSHAKE_TIMEOUT_MS".into(),
        "1000".into(),
    ));
    let server = start(&env);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    // Attaching `name` fails its handshake; the error's message.
    let refused = |name: &'static str| {
        let (api, g) = (&api, &g);
        async move {
            let (status, v) = api
                .post(
                    &format!("/v1/games/{}/engine", g.id),
                    Some(&g.admin),
                    json!({ "name": name }),
                )
                .await;
            assert_eq!(
                (status, &v["error"]["code"]),
                (502, &json!("engine_handshake_failed")),
                "{v}"
            );
            v["error"]["message"].as_str().unwrap().to_string()
        }
    };
    // A program that is no XBoard engine (cat echoes what it gets).
    let message = refused("notxb").await;
    assert!(message.contains("no XBoard feature"), "{message}");
    assert!(message.contains(r#""protover 2""#), "{message}");
    // An XBoard engine configured as UCI: its answer to `uci` is quoted.
    let message = refused("sjuci").await;
    assert!(message.contains("did not send uciok"), "{message}");
    // Sjeng prints its board when it starts (and buffers the rest outside XBoard mode).
    assert!(message.contains("its last output: "), "{message}");
    assert!(message.contains("|  R |  N |  B |  Q |  K |"), "{message}");
}

/// Fairy-Max (XBoard) and GNU Chess (in its UCI mode, `--uci`) play an engine match to its
/// end, each on its own clock: the two protocols in one game.
#[actix_web::test]
#[cfg_attr(
    not(all(has_fairymax, has_gnuchess)),
    ignore = "fairymax or gnuchess is not installed (apt-get install fairymax gnuchess)"
)]
async fn fairymax_and_gnu_chess_play_a_match_on_their_clocks() {
    let mut env = xboard_env(
        "fairy",
        &required("fairymax", &["/usr/games/fairymax", "/usr/bin/fairymax"]),
    );
    env.push((
        "CHESSD_ENGINES__GNU__COMMAND".into(),
        required("gnuchess", &["/usr/games/gnuchess", "/usr/bin/gnuchess"]),
    ));
    env.push(("CHESSD_ENGINES__GNU__ARGS".into(), "[\"--uci\"]".into()));
    let server = start(&env);
    let api = Api::new(&server);
    let (status, created) = api
        .post(
            "/v1/games",
            None,
            json!({
                "time_control": {"initial_ms": 8000, "increment_ms": 100},
                "opponents": [
                    {"engine": "fairy", "plays": "white"},
                    {"engine": "gnu", "plays": "black"},
                ],
            }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let state = api.until_over(id, Duration::from_secs(120)).await;
    // Both engines moved, every move legal, and the game ended by the rules or a clock.
    let moves = state["moves"].as_array().unwrap();
    assert!(moves.len() >= 10, "{state}");
    let mut game = Game::new(Position::startpos());
    for m in moves {
        game.play_uci(m["uci"].as_str().unwrap()).unwrap();
    }
    let reason = state["status"]["reason"].as_str().unwrap();
    if reason == "timeout" {
        let clocks = &state["clocks"];
        assert!(
            clocks["white_ms"] == 0 || clocks["black_ms"] == 0,
            "{state}"
        );
    } else {
        assert_ne!(game.status().result, GameResult::Ongoing, "{state}");
        assert_eq!(game.status().reason.unwrap().name(), reason, "{state}");
    }
}
