//! The Go Chess 2 engine's HTTP API as chessd serves it under `/chess2`: the README's two
//! calls, duels, wins, and chessd's JSON errors where the Go server crashes or answers 200.

use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use chessd_core::{
    chess2::{Chess2Action, Chess2Game, Chess2Position, DuelStage},
    game::DrawPolicy,
};
use serde_json::{json, Value};

use crate::common::app::TestApp;

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

/// The moves with duel fields a game can end up playing for `mv` in `epd`: every way of
/// taking its duel steps (challenge or decline, then every bid each side is allowed, the
/// attacker choosing to gain on a 0–0 duel), without the move with no duel at all.
fn moves_a_game_can_play(epd: &str, mv: &str) -> BTreeSet<String> {
    let start = Chess2Position::from_epd(epd).unwrap();
    let mut game = Chess2Game::new(start, DrawPolicy::Automatic);
    let by = game.to_act();
    game.act(by, Chess2Action::Move(mv.parse().unwrap()))
        .unwrap();
    let mut out = BTreeSet::new();
    every_duel_ending(&game, &mut out);
    out.remove(mv);
    out
}

/// Walks every step the duel waiting in `game` allows, collecting the moves played.
fn every_duel_ending(game: &Chess2Game, out: &mut BTreeSet<String>) {
    let Some(pending) = game.pending_duel() else {
        out.insert(game.history().last().unwrap().mv.to_string());
        return;
    };
    let (defender, attacker) = (pending.defender(), pending.attacker());
    let mut next = Vec::new();
    match pending.stage() {
        DuelStage::Challenge => {
            next.push((defender, Chess2Action::Challenge));
            next.push((defender, Chess2Action::Decline));
        }
        DuelStage::Bids { defender: None, .. } => {
            for stones in game.allowed_bids(defender) {
                let gain = None;
                next.push((
                    defender,
                    Chess2Action::Bid {
                        by: defender,
                        stones,
                        gain,
                    },
                ));
            }
        }
        DuelStage::Bids { .. } => {
            for stones in game.allowed_bids(attacker) {
                let gain = Some(true);
                next.push((
                    attacker,
                    Chess2Action::Bid {
                        by: attacker,
                        stones,
                        gain,
                    },
                ));
            }
        }
    }
    for (by, action) in next {
        let mut after = game.clone();
        after.act(by, action).unwrap();
        every_duel_ending(&after, out);
    }
}

#[actix_web::test]
async fn the_duels_listed_for_a_move_are_those_a_game_can_play() {
    let app = TestApp::start().await;
    for (epd, mv) in [
        // An Elephant's rampage over a pawn and a bishop: a duel it loses at the pawn ends it.
        (
            "rnb1kbn1/pppppppp/2R5/8/4P3/2K5/PPPr1PPP/5BNR w - - 11 9 ar 32",
            "c6c8",
        ),
        ("4k3/8/8/8/8/8/8/Rnn1K3 w - - 0 1 ac 66", "a1d1"),
        ("4k3/8/8/8/8/p7/p7/R3K3 w - - 0 1 ac 33", "a1a4"),
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33", "e4d5"),
    ] {
        let (st, v) = app
            .post("/chess2/move", None, json!({"epd": epd, "move": mv}))
            .await;
        assert_eq!(st, StatusCode::OK, "{v}");
        let listed: BTreeSet<String> = v["available_duels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{mv}{}", d.as_str().unwrap()))
            .collect();
        assert_eq!(listed, moves_a_game_can_play(epd, mv), "{epd} {mv}");
        for with_duels in &listed {
            let (st, v) = app
                .post(
                    "/chess2/move",
                    None,
                    json!({"epd": epd, "move": with_duels}),
                )
                .await;
            assert_eq!(st, StatusCode::OK, "{with_duels}: {v}");
        }
    }
    // A duel over the bishop after the Elephant lost at the pawn is refused.
    let epd = "rnb1kbn1/pppppppp/2R5/8/4P3/2K5/PPPr1PPP/5BNR w - - 11 9 ar 32";
    let (st, v) = app
        .post(
            "/chess2/move",
            None,
            json!({"epd": epd, "move": "c6c8:10+:22"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("illegal_move")),
        "{v}"
    );
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
