//! The Go Chess 2 engine's HTTP API as chessd serves it under `/chess2`: the README's two
//! calls, duels, wins, and chessd's JSON errors where the Go server crashes or answers 200.

#![allow(clippy::unwrap_used)] // test helpers may fail loudly

mod common;

use actix_web::http::StatusCode;
use common::app::TestApp;
use serde_json::{json, Value};

const CK: &str = "rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ck 33";

fn sorted(v: &Value) -> bool {
    let moves: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    moves.windows(2).all(|w| w[0] < w[1])
}

#[actix_web::test]
async fn the_readme_calls_answer_as_the_go_api_does() {
    let app = TestApp::start().await;
    // `http :8080/new white==c black==k`
    let v = app.get_ok("/chess2/new?white=c&black=k").await;
    assert_eq!(v["epd"], CK);
    assert_eq!(v["legal_moves"].as_array().unwrap().len(), 20);
    assert!(sorted(&v["legal_moves"]));
    assert_eq!(v["game_over"], false);
    assert_eq!(v["winner"], Value::Null);
    assert!(v.get("available_duels").is_none());
    // `http :8080/move epd=… move=d2d4`
    let (st, v) = app
        .post("/chess2/move", None, json!({"epd": CK, "move": "d2d4"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["epd"],
        "rnbkkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1 ck 33"
    );
    // Black (Two Kings) has the same 20 first moves.
    assert_eq!(v["legal_moves"].as_array().unwrap().len(), 20);
    assert!(sorted(&v["legal_moves"]));
    assert_eq!(v["available_duels"], json!([]));
}

#[actix_web::test]
async fn a_capture_lists_its_duels_and_plays_the_one_sent() {
    let app = TestApp::start().await;
    let epd = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33";
    let (st, v) = app
        .post("/chess2/move", None, json!({"epd": epd, "move": "e4d5:21"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    // The defender won: both pawns gone; stones 3 - 1 + 1 and 3 - 2 + 1.
    assert_eq!(v["epd"], "4k3/8/8/8/8/8/8/4K3 b - - 0 1 cc 32");
    let duels: Vec<&str> = v["available_duels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    for duel in [":00+", ":11", ":12", ":21", ":22"] {
        assert!(duels.contains(&duel), "{duels:?}");
    }
    assert_eq!(duels.len(), 9, "{duels:?}");
}

#[actix_web::test]
async fn a_king_over_the_midline_wins() {
    let app = TestApp::start().await;
    let epd = "4k3/8/8/8/3K4/8/8/8 w - - 0 1 cc 33";
    let (st, v) = app
        .post("/chess2/move", None, json!({"epd": epd, "move": "d4d5"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["game_over"], true);
    assert_eq!(v["winner"], "white");
    assert_eq!(v["legal_moves"], json!([]));
}

#[actix_web::test]
async fn bad_input_gets_json_errors() {
    let app = TestApp::start().await;
    for uri in [
        "/chess2/new?white=x&black=c",
        "/chess2/new?white=cc&black=c",
        "/chess2/new?white=c",
        "/chess2/new",
    ] {
        let (st, v) = app.get(uri).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{uri}: {v}");
        assert_eq!(v["error"]["code"], "invalid_request", "{uri}");
    }
    let cases = [
        (
            json!({"epd": "not an epd", "move": "e2e4"}),
            422,
            "invalid_fen",
        ),
        (json!({"epd": CK, "move": "e2e5"}), 422, "illegal_move"),
        (json!({"epd": CK, "move": "e2"}), 422, "illegal_move"),
        (json!({"epd": CK, "move": "0000"}), 422, "illegal_move"),
        (json!({"epd": CK, "move": "e2e4:11"}), 422, "illegal_move"),
        (
            json!({"epd": CK, "move": "e2e4", "x": 1}),
            400,
            "invalid_request",
        ),
        (json!({"epd": CK}), 400, "invalid_request"),
        (
            json!({"epd": "4k3/8/8/3K4/8/8/8/8 b - - 0 1 cc 33", "move": "e8e7"}),
            409,
            "game_over",
        ),
    ];
    for (body, status, code) in cases {
        let (st, v) = app.post("/chess2/move", None, body.clone()).await;
        assert_eq!(st.as_u16(), status, "{body}: {v}");
        assert_eq!(v["error"]["code"], code, "{body}");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
    }
}
