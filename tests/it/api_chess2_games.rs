//! Chess 2 games under `/v1/games`: created with armies or an EPD, played through the same
//! actors as standard games, with each duel's steps (the defender's challenge or decline,
//! then both bids, hidden until both are in) over REST and the WebSocket; refused where a
//! route is for standard chess only; and, against the real binary, kept through `kill -9`
//! with a duel half-way.

use std::time::Duration;

use actix_web::http::StatusCode;
use serde_json::{json, Value};

use crate::common::{
    self, app::TestApp, client, get_json, post_json, ws_connect, ws_json, ws_send, Rng, Server,
};

/// A white pawn on e4 that can take a black pawn on d5.
const PAWN_TAKES_PAWN: &str = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33";

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or_default()
}

#[actix_web::test]
async fn a_chess2_game_starts_from_its_armies_and_shows_them() {
    let app = TestApp::start().await;
    let (g, v) = app
        .create_game_answer(json!({"variant": "chess2", "armies": {"white": "k", "black": "a"}}))
        .await;
    assert_eq!(v["variant"], "chess2");
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 ka 33"
    );
    assert_eq!(v["start_fen"], v["fen"]);
    assert_eq!(v["chess2"]["armies"], json!({"white": "k", "black": "a"}));
    assert_eq!(v["chess2"]["stones"], json!({"white": 3, "black": 3}));
    assert_eq!(v["chess2"]["to_act"], "white");
    assert_eq!(v["chess2"]["duel"], Value::Null);
    let moves = app.get_ok(&g.uri("/legal-moves")).await;
    assert_eq!(moves["count"], 20);
    let list: Vec<&str> = moves["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(list.windows(2).all(|w| w[0] < w[1]), "sorted: {list:?}");
    let (st, v) = app.get(&g.uri("/legal-moves?format=index")).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::CONFLICT, "wrong_variant"),
        "{v}"
    );
    assert_eq!(
        app.get_ok(&g.uri("/legal-moves?format=count")).await["count"],
        20
    );
    // The king turn: after White's move, White (Two Kings) moves a king or passes.
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e2e4"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["turn"], "white");
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"uci": "0000"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["turn"], "black");
    let view = app.view(&g).await;
    assert_eq!(
        view["moves"],
        json!([
            {"uci": "e2e4", "san": "e2e4", "by": "white",
             "epd": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBKKBNR K KQkq e3 0 1 ka 33"},
            {"uci": "0000", "san": "0000", "by": "white",
             "epd": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBKKBNR b KQkq e3 0 1 ka 33"},
        ]),
        "each move says who played it (White twice: its move and its king turn) and the EPD after it"
    );
}

#[actix_web::test]
async fn bad_creations_get_clear_errors_and_create_nothing() {
    let app = TestApp::start().await;
    for (body, status, want) in [
        (
            json!({"armies": {"white": "k"}}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess2", "armies": {"white": "x"}}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess3"}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess2", "pgn": "1. e4 *"}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess2", "fen": PAWN_TAKES_PAWN, "armies": {"white": "c"}}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess2", "fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 1"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_fen",
        ),
        (
            json!({"variant": "chess2", "opponent": {"engine": "nosuch", "plays": "black"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "engine_not_found",
        ),
        (
            json!({"variant": "chess2",
                "opponent": {"engine": "builtin", "plays": "black", "go": {"movetime": 100}}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "engine_unsupported",
        ),
        (
            json!({"variant": "chess2",
                "opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 9}}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "engine_unsupported",
        ),
    ] {
        let (st, v) = app.post("/v1/games", None, body.clone()).await;
        assert_eq!((st, code(&v)), (status, want), "{body}: {v}");
    }
    let list = app.get_ok("/v1/games").await;
    assert_eq!(list["games"], json!([]), "{list}");
}

#[actix_web::test]
async fn a_duel_goes_step_by_step_and_never_shows_a_bid_before_both_are_in() {
    let app = TestApp::start().await;
    let g = app
        .create_game(json!({"variant": "chess2", "fen": PAWN_TAKES_PAWN}))
        .await;
    let duel = g.uri("/duel");
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e4d5"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["uci"], "e4d5");
    assert_eq!(v["turn"], "black", "the defender decides");
    assert_eq!(v["duel"]["stage"], "challenge");
    assert_eq!(v["duel"]["square"], "d5");
    // Nothing else while the duel waits; steps by the wrong side are refused.
    for (secret, body, status, want) in [
        (
            &g.black,
            json!({"action": "bid", "stones": 1}),
            StatusCode::CONFLICT,
            "no_duel",
        ),
        (
            &g.white,
            json!({"action": "challenge"}),
            StatusCode::CONFLICT,
            "not_your_turn",
        ),
        (
            &g.white,
            json!({"action": "launch"}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ] {
        let (st, v) = app.post(&duel, Some(secret), body.clone()).await;
        assert_eq!((st, code(&v)), (status, want), "{body}: {v}");
    }
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.black), json!({"uci": "e8e7"}))
        .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::CONFLICT, "duel_pending"),
        "{v}"
    );
    let (st, v) = app.post(&duel, None, json!({"action": "challenge"})).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::UNAUTHORIZED, "unauthorized"),
        "{v}"
    );

    let (st, v) = app
        .post(&duel, Some(&g.black), json!({"action": "challenge"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["chess2"]["duel"]["stage"], "bids");
    // White bids first; everyone sees only that White's bid is in.
    let (st, v) = app
        .post(&duel, Some(&g.white), json!({"action": "bid", "stones": 2}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let shown = v["chess2"]["duel"].clone();
    assert_eq!(shown["bids_in"], json!(["white"]));
    assert_eq!(shown["settled"], json!([]));
    // The terms (cost, allowed bids) are public; nothing else, and no bid's amount.
    assert_eq!(
        shown.as_object().unwrap().len(),
        11,
        "no other field: {shown}"
    );
    let (_, _, saved) = app
        .exchange(
            actix_web::test::TestRequest::get()
                .uri(&g.uri("/state"))
                .insert_header(("Authorization", format!("Bearer {}", g.black))),
        )
        .await;
    assert!(
        !saved.to_string().contains("bid:w"),
        "a seat's saved state shows the other side's hidden bid: {saved}"
    );
    let (st, v) = app
        .post(&duel, Some(&g.white), json!({"action": "bid", "stones": 1}))
        .await;
    assert_eq!((st, code(&v)), (StatusCode::CONFLICT, "already_bid"), "{v}");
    let (st, v) = app
        .post(&duel, Some(&g.black), json!({"action": "bid", "stones": 3}))
        .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::BAD_REQUEST, "invalid_request"),
        "{v}"
    );
    let (st, v) = app
        .post(&duel, Some(&g.black), json!({"action": "bid", "stones": 1}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    // The attacker bid more: the capture stands. Black paid 1, White 2, and took a pawn.
    assert_eq!(
        v["moves"],
        json!([{"uci": "e4d5:12", "san": "e4d5:12", "by": "white",
                "epd": "4k3/8/8/3P4/8/8/8/4K3 b - - 0 1 cc 22"}])
    );
    assert_eq!(v["fen"], "4k3/8/8/3P4/8/8/8/4K3 b - - 0 1 cc 22");
    assert_eq!(v["chess2"]["duel"], Value::Null);
    assert_eq!(v["turn"], "black");
    // The archive writes the move with its duel.
    let pgn = app
        .send(actix_web::test::TestRequest::get().uri(&g.uri("/pgn")))
        .await
        .text();
    assert!(pgn.contains("[Variant \"Chess 2\"]"), "{pgn}");
    assert!(
        pgn.contains(&format!("[FEN \"{PAWN_TAKES_PAWN}\"]")),
        "{pgn}"
    );
    assert!(pgn.contains("1. e4d5:12 *"), "{pgn}");
}

/// A white rook takes a black pawn; each side holds one stone.
const ROOK_TAKES_PAWN_ONE_STONE: &str = "4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1 cc 11";

#[actix_web::test]
async fn a_duel_shows_its_cost_and_the_bids_each_side_may_make() {
    let app = TestApp::start().await;
    // A pawn taking a pawn: no extra stone, both sides may bid up to their stones (3 each).
    let g = app
        .create_game(json!({"variant": "chess2", "fen": PAWN_TAKES_PAWN}))
        .await;
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e4d5"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["duel"]["challenge_cost"], 0, "{v}");
    assert_eq!(v["duel"]["defender_bids"], json!([0, 1, 2]), "{v}");
    assert_eq!(v["duel"]["attacker_bids"], json!([0, 1, 2]), "{v}");

    // A rook taking a pawn: the defender owes a stone to challenge, so its single stone
    // leaves it only a bid of 0; the attacker may bid its one stone or nothing.
    let g = app
        .create_game(json!({"variant": "chess2", "fen": ROOK_TAKES_PAWN_ONE_STONE}))
        .await;
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"uci": "d1d5"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["duel"]["stage"], "challenge", "{v}");
    assert_eq!(v["duel"]["challenge_cost"], 1, "{v}");
    assert_eq!(v["duel"]["defender_bids"], json!([0]), "{v}");
    assert_eq!(v["duel"]["attacker_bids"], json!([0, 1]), "{v}");
    // The state says the same, and a bid beyond it is refused with what is allowed.
    let (st, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.black),
            json!({"action": "challenge"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["chess2"]["duel"]["defender_bids"], json!([0]), "{v}");
    let (st, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.black),
            json!({"action": "bid", "stones": 1}),
        )
        .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::UNPROCESSABLE_ENTITY, "invalid_bid"),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("allowed: [0]"),
        "{v}"
    );
}

#[actix_web::test]
async fn routes_for_the_other_variant_are_refused_and_change_nothing() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({"variant": "chess2"})).await;
    let before = app.view(&g).await;
    for (method, tail, body) in [
        ("put", "/pgn", Some(json!({"pgn": "1. e4 *"}))),
        ("post", "/engine", Some(json!({"name": "builtin"}))),
        ("get", "/board", None),
    ] {
        let req = match method {
            "put" => actix_web::test::TestRequest::put(),
            "post" => actix_web::test::TestRequest::post(),
            _ => actix_web::test::TestRequest::get(),
        }
        .uri(&g.uri(tail))
        .insert_header(("Authorization", format!("Bearer {}", g.admin)));
        let req = match &body {
            Some(b) => req.set_json(b),
            None => req,
        };
        let (st, v) = app.call(req).await;
        assert_eq!(
            (st, code(&v)),
            (StatusCode::CONFLICT, "wrong_variant"),
            "{tail}: {v}"
        );
    }
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"san": "e4"}))
        .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::CONFLICT, "wrong_variant"),
        "{v}"
    );
    let (st, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e2e5"}))
        .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::UNPROCESSABLE_ENTITY, "illegal_move"),
        "{v}"
    );
    assert_eq!(app.view(&g).await, before);
    // And a duel step in a standard game.
    let s = app.create_game(json!({})).await;
    let (st, v) = app
        .post(
            &s.uri("/duel"),
            Some(&s.black),
            json!({"action": "decline"}),
        )
        .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::CONFLICT, "wrong_variant"),
        "{v}"
    );
}

#[actix_web::test]
async fn resignation_draws_and_the_admin_work_as_in_every_game() {
    let app = TestApp::start().await;
    let g = app
        .create_game(json!({"variant": "chess2", "fen": PAWN_TAKES_PAWN}))
        .await;
    app.post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e4d5"}))
        .await;
    // The admin acts for the side that must act, and names a bid's side.
    let (st, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.admin),
            json!({"action": "challenge"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.admin),
            json!({"action": "bid", "stones": 0}),
        )
        .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::UNPROCESSABLE_ENTITY, "invalid_bid"),
        "{v}"
    );
    let (st, v) = app
        .post(&g.uri("/draw-offer"), Some(&g.white), json!({}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, v) = app
        .post(&g.uri("/draw-offer/accept"), Some(&g.black), json!({}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"]["reason"], "agreement");
    assert_eq!(
        v["chess2"]["duel"],
        Value::Null,
        "the pending capture is dropped"
    );
    let status = app.get_ok(&g.uri("/status")).await;
    assert_eq!(status["status"]["result"], "draw");
}

/// Waits for the next `chess2_step` event.
async fn next_step(conn: &mut common::WsConn) -> Value {
    for _ in 0..20 {
        let v = ws_json(conn).await;
        if v["type"] == "chess2_step" {
            return v;
        }
    }
    panic!("no chess2_step event");
}

#[actix_web::test]
async fn the_websocket_carries_every_step_and_a_duel_survives_kill_9() {
    let store = common::scratch_store();
    let url = format!("sqlite://{}", store.display());
    let env = [("CHESSD_STORE__URL", url.as_str())];
    let c = client();
    let server = Server::start(&env);
    let (st, created) = post_json(
        &c,
        &format!("{}/v1/games", server.base),
        None,
        &json!({"variant": "chess2", "fen": PAWN_TAKES_PAWN}),
    )
    .await;
    assert_eq!(st, 201, "{created}");
    let g = common::GameSecrets::from_answer(&created);
    let mut black = ws_connect(&c, &server.ws_url(&g.id, &format!("token={}", g.black))).await;
    assert_eq!(ws_json(&mut black).await["type"], "hello");
    assert_eq!(ws_json(&mut black).await["type"], "state");
    let rest = |tail: &str| format!("{}{}", server.base, g.uri(tail));

    let (st, v) = post_json(&c, &rest("/moves"), Some(&g.white), &json!({"uci": "e4d5"})).await;
    assert_eq!(st, 200, "{v}");
    let step = next_step(&mut black).await;
    assert_eq!(
        (step["by"].as_str(), step["action"].as_str()),
        (Some("white"), Some("e4d5"))
    );
    assert_eq!(step["duel"]["stage"], "challenge");
    ws_send(
        &mut black,
        &json!({"type": "duel", "action": "challenge", "ack": 1}),
    )
    .await;
    assert_eq!(ws_json(&mut black).await["type"], "ack");
    assert_eq!(next_step(&mut black).await["action"], "challenge");
    let (st, v) = post_json(
        &c,
        &rest("/duel"),
        Some(&g.white),
        &json!({"action": "bid", "stones": 0, "gain": false}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let step = next_step(&mut black).await;
    assert_eq!(step["action"], "bid");
    assert_eq!(step["duel"]["bids_in"], json!(["white"]));
    assert!(!step.to_string().contains("bid:"), "{step}");
    drop(black);

    // kill -9 with White's bid in and Black's to come.
    std::process::Command::new("kill")
        .args(["-KILL", &server.pid().to_string()])
        .status()
        .unwrap();
    drop(server);
    let server = Server::start(&env);
    let rest = |tail: &str| format!("{}{}", server.base, g.uri(tail));
    let (st, v) = get_json(&c, &rest("")).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["chess2"]["duel"]["bids_in"], json!(["white"]), "{v}");
    let mut white = ws_connect(&c, &server.ws_url(&g.id, &format!("token={}", g.white))).await;
    assert_eq!(ws_json(&mut white).await["type"], "hello");
    assert_eq!(ws_json(&mut white).await["type"], "state");
    let (st, v) = post_json(
        &c,
        &rest("/duel"),
        Some(&g.black),
        &json!({"action": "bid", "stones": 1}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    // White's bid from before the crash settles it: the defender outbid the attacker.
    let step = tokio::time::timeout(Duration::from_secs(10), next_step(&mut white))
        .await
        .unwrap();
    assert_eq!(step["played"], "e4d5:10-");
    assert_eq!(step["epd"], "4k3/8/8/8/8/8/8/4K3 b - - 0 1 cc 43");
    assert_eq!(step["duel"], Value::Null);
    // The archive: the stored game exports as PGN and as NDJSON with its variant.
    let mut resp = c
        .get(format!("{}/v1/games/export", server.base))
        .insert_header(("Accept", "application/x-ndjson"))
        .send()
        .await
        .unwrap();
    let text = String::from_utf8(resp.body().await.unwrap().to_vec()).unwrap();
    let line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(line["variant"], "chess2", "{line}");
    assert_eq!(line["initial_fen"], PAWN_TAKES_PAWN, "{line}");
    assert_eq!(line["moves"][0]["uci"], "e4d5:10-", "{line}");
    let mut resp = c
        .get(format!("{}/v1/games/export", server.base))
        .send()
        .await
        .unwrap();
    let pgn = String::from_utf8(resp.body().await.unwrap().to_vec()).unwrap();
    assert!(
        pgn.contains("[Variant \"Chess 2\"]") && pgn.contains("1. e4d5:10-"),
        "{pgn}"
    );
    drop(server);
    common::remove_sqlite(&store);
}

#[actix_web::test]
async fn the_clock_runs_for_whoever_must_act_and_a_flag_ends_the_game() {
    let app = TestApp::start().await;
    // Black must move first so that the clocks run: a quiet move, then White's capture.
    let fen = "4k3/8/8/3p4/4P3/8/8/4K3 b - - 0 1 cc 33";
    let g = app
        .create_game(json!({"variant": "chess2", "fen": fen,
            "time_control": {"initial_ms": 60000, "increment_ms": 1000}}))
        .await;
    let running = |v: &Value| v["clocks"]["running"].as_str().map(str::to_string);
    app.post(&g.uri("/moves"), Some(&g.black), json!({"uci": "e8e7"}))
        .await;
    let (_, v) = app
        .post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e4d5"}))
        .await;
    assert_eq!(
        running(&v).as_deref(),
        Some("black"),
        "the defender's choice: {v}"
    );
    // White's capture took its increment only once the move is played.
    assert!(v["clocks"]["white_ms"].as_u64().unwrap() <= 60_000, "{v}");
    let (_, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.black),
            json!({"action": "challenge"}),
        )
        .await;
    assert_eq!(
        running(&v).as_deref(),
        Some("black"),
        "the defender bids first: {v}"
    );
    let (_, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.black),
            json!({"action": "bid", "stones": 0}),
        )
        .await;
    assert_eq!(
        running(&v).as_deref(),
        Some("white"),
        "then the attacker: {v}"
    );
    let (_, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.white),
            json!({"action": "bid", "stones": 0}),
        )
        .await;
    assert_eq!(
        running(&v).as_deref(),
        Some("black"),
        "the move is played: {v}"
    );
    assert!(
        v["clocks"]["white_ms"].as_u64().unwrap() > 60_000,
        "increment: {v}"
    );

    // A duel that ends on the defender's bid charges the defender's time, not only the
    // attacker's.
    let g = app
        .create_game(json!({"variant": "chess2", "fen": fen,
            "time_control": {"initial_ms": 60000, "increment_ms": 0}}))
        .await;
    app.post(&g.uri("/moves"), Some(&g.black), json!({"uci": "e8e7"}))
        .await;
    app.post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e4d5"}))
        .await;
    app.post(
        &g.uri("/duel"),
        Some(&g.black),
        json!({"action": "challenge"}),
    )
    .await;
    app.post(
        &g.uri("/duel"),
        Some(&g.white),
        json!({"action": "bid", "stones": 0}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (_, v) = app
        .post(
            &g.uri("/duel"),
            Some(&g.black),
            json!({"action": "bid", "stones": 1}),
        )
        .await;
    assert_eq!(
        running(&v).as_deref(),
        Some("black"),
        "Black moves next: {v}"
    );
    assert!(
        v["clocks"]["black_ms"].as_u64().unwrap() <= 59_600,
        "Black's 400 ms before its bid are charged: {v}"
    );

    // A flag: 1 ms each, and Black's time runs out while it must act.
    let g = app
        .create_game(json!({"variant": "chess2", "fen": fen,
            "time_control": {"initial_ms": 200, "increment_ms": 0}}))
        .await;
    app.post(&g.uri("/moves"), Some(&g.black), json!({"uci": "e8e7"}))
        .await;
    app.post(&g.uri("/moves"), Some(&g.white), json!({"uci": "e4d5"}))
        .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let v = app.view(&g).await;
    assert_eq!(v["status"]["reason"], "timeout", "{v}");
    assert_eq!(v["status"]["result"], "white_wins", "{v}");
}

/// Sends one frame and reads until its answer (`ack` or `error`), counting the events that
/// come meanwhile.
async fn ws_step(conn: &mut common::WsConn, frame: Value, steps_seen: &mut Vec<Value>) -> Value {
    ws_send(conn, &frame).await;
    loop {
        let v = ws_json(conn).await;
        match v["type"].as_str() {
            Some("ack") | Some("error") => return v,
            Some("chess2_step") => steps_seen.push(v),
            _ => {}
        }
    }
}

#[actix_web::test]
async fn a_whole_game_against_chessds_own_player_over_the_websocket() {
    let server = Server::start(&[]);
    let c = client();
    let (st, created) = post_json(
        &c,
        &format!("{}/v1/games", server.base),
        None,
        &json!({"variant": "chess2", "armies": {"white": "c", "black": "a"},
            "opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 2}}}),
    )
    .await;
    assert_eq!(st, 201, "{created}");
    assert_eq!(
        created["options"]["opponent"]["plays"], "black",
        "{created}"
    );
    let g = common::GameSecrets::from_answer(&created);
    let mut ws = ws_connect(&c, &server.ws_url(&g.id, &format!("token={}", g.white))).await;
    assert_eq!(ws_json(&mut ws).await["type"], "hello");
    assert_eq!(ws_json(&mut ws).await["type"], "state");
    let view_url = format!("{}{}", server.base, g.uri(""));
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut seen = Vec::new();
    let mut white_steps = 0;
    let view = loop {
        let (_, view) = get_json(&c, &view_url).await;
        if view["status"]["result"] != "ongoing" {
            break view;
        }
        assert!(white_steps < 400, "the game did not end: {view}");
        let duel = &view["chess2"]["duel"];
        let frame = if duel.is_null() && view["chess2"]["to_act"] == "white" {
            let (_, moves) = get_json(&c, &format!("{view_url}/legal-moves")).await;
            let list = moves["moves"].as_array().unwrap();
            let mv = list[rng.below(list.len())].clone();
            json!({"type": "move", "uci": mv})
        } else if duel["stage"] == "challenge" && duel["defender"] == "white" {
            let action = if rng.below(2) == 0 {
                "challenge"
            } else {
                "decline"
            };
            json!({"type": "duel", "action": action})
        } else if duel["stage"] == "bids"
            && !duel["bids_in"]
                .as_array()
                .unwrap()
                .contains(&json!("white"))
        {
            json!({"type": "duel", "action": "bid", "stones": rng.below(3)})
        } else {
            // chessd's player is due: wait for its step.
            let v = ws_json(&mut ws).await;
            if v["type"] == "chess2_step" {
                seen.push(v);
            }
            continue;
        };
        let answer = ws_step(&mut ws, frame.clone(), &mut seen).await;
        if answer["type"] == "error" {
            // A bid over White's stones: bid what the rules allow instead.
            assert_eq!(answer["code"], "invalid_bid", "{frame}: {answer}");
            for stones in [0, 1] {
                let retry = json!({"type": "duel", "action": "bid", "stones": stones});
                if ws_step(&mut ws, retry, &mut seen).await["type"] == "ack" {
                    break;
                }
            }
        }
        white_steps += 1;
    };
    // Every step came over the WebSocket, chessd's player's included.
    assert!(
        seen.iter().any(|s| s["by"] == "black"),
        "no step of chessd's player was seen"
    );
    // The moves replay through the rules to the position the server shows.
    let mut pos =
        chessd_core::chess2::Chess2Position::from_epd(view["start_fen"].as_str().unwrap()).unwrap();
    for mv in view["moves"].as_array().unwrap() {
        pos = pos
            .play(mv["uci"].as_str().unwrap().parse().unwrap())
            .unwrap();
    }
    assert_eq!(pos.to_epd(), view["fen"], "{view}");
    eprintln!(
        "chessd's player: {} after {} moves ({} of White's steps)",
        view["status"],
        view["moves"].as_array().unwrap().len(),
        white_steps
    );
}

/// chessd's Chess 2 players count as engine sessions: a client holds `quotas.max_engines` of
/// them at once (a game of two counts two), and a finished game gives its players' places back.
#[actix_web::test]
async fn chessds_chess2_players_count_against_the_engine_quota() {
    let server = Server::start(&[("CHESSD_QUOTAS__MAX_ENGINES", "2")]);
    let c = client();
    let games = format!("{}/v1/games", server.base);
    let bot = |plays: &str| json!({"engine": "builtin", "plays": plays, "go": {"depth": 1}});
    let (st, both) = post_json(
        &c,
        &games,
        None,
        &json!({"variant": "chess2", "opponents": [bot("white"), bot("black")]}),
    )
    .await;
    assert_eq!(st, 201, "{both}");
    let (st, v) = post_json(
        &c,
        &games,
        None,
        &json!({"variant": "chess2", "opponent": bot("black")}),
    )
    .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (429, Some("quota_exceeded")),
        "{v}"
    );
    // The two players' game ends (they play it out, or the admin declares a winner): their
    // places come back.
    let g = common::GameSecrets::from_answer(&both);
    let (st, v) = post_json(
        &c,
        &format!("{}{}", server.base, g.uri("/winner")),
        Some(&g.admin),
        &json!({"winner": "white"}),
    )
    .await;
    assert!(
        st == 200 || v["error"]["code"] == "already_has_status",
        "{st} {v}"
    );
    let (st, v) = post_json(
        &c,
        &games,
        None,
        &json!({"variant": "chess2", "opponent": bot("black")}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
}
