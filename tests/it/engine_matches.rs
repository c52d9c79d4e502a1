//! Engine matches as normal games: `opponents` gives each side its own engine, both engines
//! keep their sessions for the whole game, and the game is watched like any other (moves on
//! the WebSocket, PGN naming both engines). Refusals leave nothing behind. With real engines:
//! Stockfish against Toga II to the end of the game, on both clocks.

use std::time::{Duration, Instant};

use chessd_core::{game::Game, Position};
use serde_json::{json, Value};

use crate::common::{
    self,
    engines::{self, children_named, start, Api},
    ws_connect, ws_json, GameSecrets,
};

fn code(v: &Value) -> Option<&str> {
    v["error"]["code"].as_str()
}

/// Replays the game's moves in the core from its start: each is legal and its SAN is the
/// server's; the core reaches the same end.
fn replay(state: &Value) -> Game {
    let start = Position::from_fen(
        state["start_fen"].as_str().unwrap(),
        chessd_core::FenMode::Strict,
    )
    .unwrap();
    let mut game = Game::new(start);
    for m in state["moves"].as_array().unwrap() {
        let played = game.play_uci(m["uci"].as_str().unwrap()).unwrap();
        assert_eq!(played.san, m["san"].as_str().unwrap());
    }
    game
}

/// The engine processes (`chessd engine`) the server has running.
fn builtin_engines(server: &common::Server) -> usize {
    children_named(server.pid(), "chessd").len()
}

async fn until_no_engines(server: &common::Server) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while builtin_engines(server) > 0 {
        assert!(
            Instant::now() < deadline,
            "engine processes outlived the game"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn two_builtins() -> Vec<(String, String)> {
    vec![("CHESSD_ENGINES__MINI__BUILTIN".into(), "true".into())]
}

#[actix_web::test]
async fn two_engines_play_a_whole_game_anyone_can_watch() {
    // Every event is kept, however long the game: the spectator catches up from the start.
    // White thinks for a fixed time on every move, so the game is still running when the
    // engine view is read below (at depth 2 a whole game can end before the spectator is in).
    let mut env = two_builtins();
    env.push(("CHESSD_GAMES__EVENT_HISTORY".into(), "100000".into()));
    let server = start(&env);
    let api = Api::new(&server);
    let (status, created) = api
        .post(
            "/v1/games",
            None,
            json!({"opponents": [
                {"engine": "mini", "plays": "black", "go": {"depth": 1}},
                {"engine": "builtin", "plays": "white", "go": {"movetime": 250}},
            ]}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let g = GameSecrets::from_answer(&created);
    let options = &created["options"];
    assert_eq!(options["opponent"], Value::Null, "{options}");
    assert_eq!(
        options["opponents"],
        json!([{"engine": "builtin", "plays": "white"}, {"engine": "mini", "plays": "black"}])
    );
    // A spectator watches from the start.
    let mut ws = ws_connect(&api.client, &server.ws_url(&g.id, "since=0")).await;
    // The game's engine view shows both: the attached one and its rival.
    let (status, engine) = api.get(&format!("/v1/games/{}/engine", g.id)).await;
    assert_eq!(status, 200, "{engine}");
    let names = [engine["name"].clone(), engine["rival"]["name"].clone()];
    assert!(
        names.contains(&json!("builtin")) && names.contains(&json!("mini")),
        "{engine}"
    );
    // Only the admin may change the engines; a seat cannot take them away.
    let (status, v) = api
        .delete(&format!("/v1/games/{}/engine", g.id), Some(&g.white))
        .await;
    assert_eq!((status, code(&v)), (403, Some("forbidden")), "{v}");

    let state = api.until_over(&g.id, Duration::from_secs(120)).await;
    let game = replay(&state);
    assert_eq!(
        serde_json::to_value(game.status()).unwrap()["result"],
        state["status"]["result"],
        "{state}"
    );
    let plies = state["moves"].as_array().unwrap().len();
    assert!(plies >= 4, "{state}");
    // The spectator saw every move, White's and Black's engines alike.
    let mut seen = 0;
    let deadline = Instant::now() + Duration::from_secs(20);
    while seen < plies {
        assert!(Instant::now() < deadline, "saw {seen} of {plies} moves");
        let frame = ws_json(&mut ws).await;
        if frame["type"] == "move" {
            assert_eq!(frame["uci"], state["moves"][seen]["uci"], "{frame}");
            seen += 1;
        }
    }
    // Both engines are released with the game's end, and the PGN names them.
    until_no_engines(&server).await;
    let pgn = api.text(&format!("/v1/games/{}/pgn", g.id)).await;
    assert!(pgn.contains("[White \"builtin\"]"), "{pgn}");
    assert!(pgn.contains("[Black \"mini\"]"), "{pgn}");
}

#[actix_web::test]
async fn engine_matches_that_cannot_be_played_are_refused_and_cost_nothing() {
    let server = start(&two_builtins());
    let api = Api::new(&server);
    let white = json!({"engine": "builtin", "plays": "white"});
    let black = json!({"engine": "mini", "plays": "black"});
    let (status, v) = api
        .post(
            "/v1/games",
            None,
            json!({"opponents": [white, {"engine": "mini", "plays": "white"}]}),
        )
        .await;
    assert_eq!((status, code(&v)), (422, Some("invalid_opponents")), "{v}");
    let refused = [
        json!({"opponent": white, "opponents": [black]}),
        json!({"opponents": [white, black, black]}),
        json!({"opponents": [white, {"engine": "mini", "plays": "black", "go": {"infinite": true}}]}),
    ];
    for body in refused {
        let (status, v) = api.post("/v1/games", None, body.clone()).await;
        assert_eq!(
            (status, code(&v)),
            (400, Some("invalid_request")),
            "{body}: {v}"
        );
    }
    // An unknown second engine: the first one, already started, is given back.
    let (status, v) = api
        .post(
            "/v1/games",
            None,
            json!({"opponents": [white, {"engine": "nope", "plays": "black"}]}),
        )
        .await;
    assert_eq!(status, 422, "{v}");
    until_no_engines(&server).await;
    let (status, list) = api.get("/v1/games").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["games"].as_array().map(Vec::len), Some(0), "{list}");
    // One opponent in the list is the same as `opponent`.
    let (status, v) = api
        .post("/v1/games", None, json!({"opponents": [black]}))
        .await;
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["options"]["opponent"], black_view(), "{v}");
    assert_eq!(v["options"]["opponents"], json!([black_view()]), "{v}");
}

fn black_view() -> Value {
    json!({"engine": "mini", "plays": "black"})
}

#[actix_web::test]
#[cfg_attr(
    not(all(has_stockfish, has_toga2)),
    ignore = "Stockfish or Toga II is not installed (apt-get install stockfish toga2)"
)]
async fn stockfish_and_toga_play_a_game_to_its_end_on_both_clocks() {
    let env = vec![
        (
            "CHESSD_ENGINES__SF__COMMAND".to_string(),
            engines::stockfish(),
        ),
        (
            "CHESSD_ENGINES__TOGA__COMMAND".to_string(),
            "/usr/games/toga2".to_string(),
        ),
    ];
    let server = start(&env);
    let api = Api::new(&server);
    let initial_ms = 4_000;
    let increment_ms = 100;
    let (status, created) = api
        .post(
            "/v1/games",
            None,
            json!({
                "time_control": {"initial_ms": initial_ms, "increment_ms": increment_ms},
                "opponents": [
                    {"engine": "sf", "plays": "white"},
                    {"engine": "toga", "plays": "black"},
                ],
            }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let g = GameSecrets::from_answer(&created);
    // Two real engine processes, one per side.
    let sf = children_named(server.pid(), "stockfish");
    let toga = children_named(server.pid(), "toga2");
    assert_eq!((sf.len(), toga.len()), (1, 1), "{sf:?} {toga:?}");

    // Each engine's clock is its own: a few moves in, both have been charged.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = api.state(&g).await;
        let plies = state["moves"].as_array().unwrap().len() as u64;
        if plies >= 6 {
            let clocks = &state["clocks"];
            // Without any thinking each side would have its initial time plus its
            // increments (three each).
            let unspent = initial_ms + 3 * increment_ms;
            assert!(clocks["white_ms"].as_u64().unwrap() < unspent, "{clocks}");
            assert!(clocks["black_ms"].as_u64().unwrap() < unspent, "{clocks}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the engines do not move: {state}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The same sessions play the whole game: no engine is started again.
    let state = api.until_over(&g.id, Duration::from_secs(300)).await;
    for (name, pids) in [("stockfish", &sf), ("toga2", &toga)] {
        let now = children_named(server.pid(), name);
        assert!(now.is_empty() || now == *pids, "{name} was started again");
    }
    let reason = state["status"]["reason"].as_str().unwrap_or("");
    assert!(
        [
            "checkmate",
            "stalemate",
            "threefold_repetition",
            "fivefold_repetition",
            "fifty_moves",
            "seventy_five_moves",
            "insufficient_material",
            "timeout"
        ]
        .contains(&reason),
        "the game ended by the rules or a clock: {state}"
    );
    let game = replay(&state);
    if reason != "timeout" {
        assert_eq!(
            serde_json::to_value(game.status()).unwrap(),
            state["status"],
            "the core ends the game the same way"
        );
    }
    let pgn = api.text(&format!("/v1/games/{}/pgn", g.id)).await;
    assert!(pgn.contains("[White \"sf\"]"), "{pgn}");
    assert!(pgn.contains("[Black \"toga\"]"), "{pgn}");
    assert!(pgn.contains("[TimeControl \"4+0.1\"]"), "{pgn}");
    // Both processes end with the game.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(children_named(server.pid(), "stockfish").is_empty()
        && children_named(server.pid(), "toga2").is_empty())
    {
        assert!(
            Instant::now() < deadline,
            "an engine outlived its game: {state}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!(
        "sf vs toga: {} after {} plies, clocks {}",
        state["status"]["result"],
        state["moves"].as_array().unwrap().len(),
        state["clocks"]
    );
}
