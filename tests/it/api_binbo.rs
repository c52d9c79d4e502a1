//! Every Binbo game-level case through the REST API, in process (`configure_app` driven by
//! `actix_web::test`): draw rules under both draw policies, castling, en passant, promotion,
//! manual results, resignation, state save/restore (including corrupt states), pieces, board,
//! PGN export/load, FEN load, options, stop and legal moves.
//!
//! Expected positions are written out by hand from the rules; every refused request is checked to
//! leave the game exactly as it was.

use actix_web::http::{header, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{request, TestApp};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn status(result: &str, reason: Option<&str>, note: Option<&str>) -> Value {
    json!({ "result": result, "reason": reason, "note": note })
}

fn ongoing() -> Value {
    status("ongoing", None, None)
}

// ----- Draw rules -----

const KNIGHT_SHUFFLE: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

#[actix_web::test]
async fn threefold_repetition_ends_the_game_under_the_automatic_policy() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    for (ply, m) in KNIGHT_SHUFFLE.iter().cycle().take(7).enumerate() {
        let v = api.play(&g, &[m]).await;
        assert_eq!(v["status"], ongoing(), "ply {}", ply + 1);
    }
    // The 8th ply brings the start position back a third time.
    let v = api.play(&g, &["f6g8"]).await;
    assert_eq!(
        v["status"],
        status("draw", Some("threefold_repetition"), None)
    );
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5"
    );
    let view = api.view(&g).await;
    assert_eq!(view["claimable_draw"], Value::Null);
    assert_eq!(view["options"]["draw_policy"], "automatic");
    let st = api.get_ok(&g.uri("/status")).await;
    assert_eq!(st["winner"], Value::Null);
    assert_eq!(st["status"]["reason"], "threefold_repetition");
    api.refused_move(
        &g,
        json!({"uci": "g1f3"}),
        StatusCode::CONFLICT,
        "game_over",
    )
    .await;
}

#[actix_web::test]
async fn threefold_is_only_claimable_under_the_claims_policy_and_fivefold_ends_it() {
    let api = TestApp::start().await;
    // One game is claimed at the third occurrence, the other plays on to the fifth.
    let claimed = api.create_game(json!({"draw_policy": "claims"})).await;
    let played = api.create_game(json!({"draw_policy": "claims"})).await;
    for g in [&claimed, &played] {
        let (st, v) = api
            .post(&g.uri("/draw-claim"), Some(&g.white), json!({}))
            .await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::CONFLICT, Some("no_draw_to_claim")),
            "nothing to claim yet: {v}"
        );
        for m in KNIGHT_SHUFFLE.iter().cycle().take(8) {
            api.play(g, &[m]).await;
        }
        let view = api.view(g).await;
        assert_eq!(view["status"], ongoing());
        assert_eq!(view["claimable_draw"], "threefold_repetition");
        assert_eq!(view["options"]["draw_policy"], "claims");
        let st = api.get_ok(&g.uri("/status")).await;
        assert_eq!(st["claimable_draw"], "threefold_repetition");
    }

    // Spectators may not claim; a player may.
    let before = api.view(&claimed).await;
    let (st, v) = api.post(&claimed.uri("/draw-claim"), None, json!({})).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("unauthorized"))
    );
    assert_eq!(api.view(&claimed).await, before);
    let (st, v) = api
        .post(&claimed.uri("/draw-claim"), Some(&claimed.white), json!({}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["status"],
        status("draw", Some("threefold_repetition"), None)
    );
    assert_eq!(v["claimable_draw"], Value::Null);
    assert_eq!(v["version"], before["version"].as_u64().unwrap() + 1);
    api.refused_move(
        &claimed,
        json!({"uci": "g1f3"}),
        StatusCode::CONFLICT,
        "game_over",
    )
    .await;

    // Fourth occurrence after 12 plies: still only claimable; the fifth (16 plies) ends it.
    for (i, m) in KNIGHT_SHUFFLE.iter().cycle().take(8).enumerate() {
        let v = api.play(&played, &[m]).await;
        if i < 7 {
            assert_eq!(v["status"], ongoing(), "ply {}", 9 + i);
        } else {
            assert_eq!(
                v["status"],
                status("draw", Some("fivefold_repetition"), None)
            );
        }
    }
    let (st, v) = api
        .post(&played.uri("/draw-claim"), Some(&played.black), json!({}))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("already_has_status"))
    );
}

#[actix_web::test]
async fn fifty_move_rule_from_a_fen_with_halfmove_clock_99() {
    let api = TestApp::start().await;
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 99 80";
    // Automatic: one quiet move ends the game.
    let g = api.create_game(json!({ "fen": fen })).await;
    assert_eq!(api.view(&g).await["status"], ongoing());
    let v = api.ok_move(&g, json!({"san": "Ra2"})).await;
    assert_eq!(v["fen"], "4k3/8/8/8/8/8/R7/4K3 b - - 100 80");
    assert_eq!(v["status"], status("draw", Some("fifty_moves"), None));

    // A pawn move resets the clock instead.
    let g = api
        .create_game(json!({"fen": "4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80"}))
        .await;
    let v = api.ok_move(&g, json!({"uci": "e2e3"})).await;
    assert_eq!(v["fen"], "4k3/8/8/8/8/4P3/8/R3K3 b - - 0 80");
    assert_eq!(v["status"], ongoing());

    // Checkmate on the hundredth half-move is checkmate.
    let g = api
        .create_game(json!({"fen": "7k/8/6K1/8/8/8/8/R7 w - - 99 80"}))
        .await;
    let v = api.ok_move(&g, json!({"san": "Ra8"})).await;
    assert_eq!(v["san"], "Ra8#");
    assert_eq!(v["status"], status("white_wins", Some("checkmate"), None));

    // Claims: the fifty-move draw is claimable; 75 moves end the game by themselves.
    let g = api
        .create_game(json!({ "fen": fen, "draw_policy": "claims" }))
        .await;
    let v = api.ok_move(&g, json!({"san": "Ra2"})).await;
    assert_eq!(v["status"], ongoing());
    assert_eq!(api.view(&g).await["claimable_draw"], "fifty_moves");
    let (st, v) = api
        .post(&g.uri("/draw-claim"), Some(&g.black), json!({}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("draw", Some("fifty_moves"), None));

    let g = api
        .create_game(json!({"fen": "4k3/8/8/8/8/8/8/R3K3 w - - 149 100", "draw_policy": "claims"}))
        .await;
    let v = api.ok_move(&g, json!({"uci": "a1a2"})).await;
    assert_eq!(
        v["status"],
        status("draw", Some("seventy_five_moves"), None)
    );
}

#[actix_web::test]
async fn insufficient_material_after_a_capture() {
    let api = TestApp::start().await;
    let g = api
        .create_game(json!({"fen": "4k3/8/8/8/8/8/3r4/2B1K3 w - - 0 1"}))
        .await;
    assert_eq!(api.view(&g).await["status"], ongoing());
    let v = api.ok_move(&g, json!({"san": "Bxd2"})).await;
    assert_eq!(v["fen"], "4k3/8/8/8/8/8/3B4/4K3 b - - 0 1");
    assert_eq!(
        v["status"],
        status("draw", Some("insufficient_material"), None)
    );
    api.refused_move(&g, json!({"san": "Kd7"}), StatusCode::CONFLICT, "game_over")
        .await;
    let lm = api.get_ok(&g.uri("/legal-moves")).await;
    assert_eq!(lm, json!({"moves": [], "count": 0}));

    // A pawn promoting by capture to a lone knight leaves king and knight against king.
    let g = api
        .create_game(json!({"fen": "4k3/8/8/8/8/8/6p1/4K2R b - - 0 1"}))
        .await;
    let v = api.ok_move(&g, json!({"uci": "g2h1n"})).await;
    assert_eq!(v["san"], "gxh1=N");
    assert_eq!(v["fen"], "4k3/8/8/8/8/8/8/4K2n w - - 0 2");
    assert_eq!(
        v["status"],
        status("draw", Some("insufficient_material"), None)
    );
}

// ----- Castling -----

const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

#[actix_web::test]
async fn castling_on_both_sides_in_three_notations() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({ "fen": CASTLING })).await;
    let lm = api.get_ok(&g.uri("/legal-moves")).await;
    let uci: Vec<&str> = lm["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(uci.contains(&"e1g1") && uci.contains(&"e1c1"), "{uci:?}");
    let idx = api.get_ok(&g.uri("/legal-moves?format=index")).await;
    let idx = idx["moves"].as_array().unwrap();
    assert!(
        idx.contains(&json!([4, 6])) && idx.contains(&json!([4, 2])),
        "{idx:?}"
    );

    let v = api.ok_move(&g, json!({"uci": "e1g1"})).await;
    assert_eq!(
        (v["san"].as_str(), v["uci"].as_str()),
        (Some("O-O"), Some("e1g1"))
    );
    assert_eq!(v["fen"], "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    let v = api.ok_move(&g, json!({"san": "O-O-O"})).await;
    assert_eq!(
        (v["san"].as_str(), v["uci"].as_str()),
        (Some("O-O-O"), Some("e8c8"))
    );
    assert_eq!(v["fen"], "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");

    let g = api.create_game(json!({ "fen": CASTLING })).await;
    let v = api.ok_move(&g, json!({"from": 4, "to": 2})).await;
    assert_eq!(v["san"], "O-O-O");
    assert_eq!(v["fen"], "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");
    let v = api.ok_move(&g, json!({"from": 60, "to": 62})).await;
    assert_eq!(v["san"], "O-O");
    assert_eq!(v["fen"], "r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2");
}

#[actix_web::test]
async fn castling_rights_are_lost_after_king_and_rook_moves() {
    let api = TestApp::start().await;
    // King moves lose both rights, even when the king comes back.
    let g = api.create_game(json!({ "fen": CASTLING })).await;
    let v = api.play(&g, &["e1e2"]).await;
    assert_eq!(v["fen"], "r3k2r/8/8/8/8/8/4K3/R6R b kq - 1 1");
    let v = api.play(&g, &["h8g8"]).await;
    assert_eq!(v["fen"], "r3k1r1/8/8/8/8/8/4K3/R6R w q - 2 2");
    let v = api.play(&g, &["e2e1", "g8h8"]).await;
    assert_eq!(v["fen"], "r3k2r/8/8/8/8/8/8/R3K2R w q - 4 3");
    for body in [
        json!({"uci": "e1g1"}),
        json!({"uci": "e1c1"}),
        json!({"san": "O-O"}),
        json!({"san": "O-O-O"}),
        json!({"from": 4, "to": 6}),
    ] {
        api.refused_because(&g, body, "cannot_move_there").await;
    }
    let lm = api.get_ok(&g.uri("/legal-moves")).await;
    let uci: Vec<&str> = lm["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(!uci.contains(&"e1g1") && !uci.contains(&"e1c1"), "{uci:?}");
    api.play(&g, &["h1h2"]).await;
    // Black's h-rook went away and came back: only the queen side is left.
    api.refused_because(&g, json!({"san": "O-O"}), "cannot_move_there")
        .await;
    let v = api.ok_move(&g, json!({"san": "O-O-O"})).await;
    assert_eq!(v["fen"], "2kr3r/8/8/8/8/8/7R/R3K3 w - - 6 4");

    // A rook move loses only its own side.
    let g = api.create_game(json!({ "fen": CASTLING })).await;
    let v = api.play(&g, &["a1b1"]).await;
    assert_eq!(v["fen"], "r3k2r/8/8/8/8/8/8/1R2K2R b Kkq - 1 1");
    let v = api.play(&g, &["a8a7"]).await;
    assert_eq!(v["fen"], "4k2r/r7/8/8/8/8/8/1R2K2R w Kk - 2 2");
    api.refused_because(&g, json!({"uci": "e1c1"}), "cannot_move_there")
        .await;
    let v = api.ok_move(&g, json!({"san": "O-O"})).await;
    assert_eq!(v["fen"], "4k2r/r7/8/8/8/8/8/1R3RK1 b k - 3 2");
}

#[actix_web::test]
async fn castling_through_into_or_out_of_check_is_refused() {
    let api = TestApp::start().await;
    // f1 is attacked by the bishop on c4: no king-side castling; the queen side is free.
    let g = api
        .create_game(json!({"fen": "4k3/8/8/8/2b5/8/8/R3K2R w KQ - 0 1"}))
        .await;
    for body in [
        json!({"uci": "e1g1"}),
        json!({"uci": "e1h1"}),
        json!({"san": "O-O"}),
        json!({"from": 4, "to": 6}),
    ] {
        // Passing through an attacked square counts as leaving the king in check.
        api.refused_because(&g, body, "own_king_in_check").await;
    }
    assert_eq!(api.view(&g).await["version"], 0);
    let v = api.ok_move(&g, json!({"san": "O-O-O"})).await;
    assert_eq!(v["fen"], "4k3/8/8/8/2b5/8/8/2KR3R b - - 1 1");

    // g1 attacked by the rook on g8: castling into check.
    let g = api
        .create_game(json!({"fen": "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1"}))
        .await;
    api.refused_because(&g, json!({"san": "O-O"}), "own_king_in_check")
        .await;
    // In check from the rook on e7: no castling at all.
    let g = api
        .create_game(json!({"fen": "4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1"}))
        .await;
    assert_eq!(api.view(&g).await["check"], true);
    for body in [json!({"san": "O-O"}), json!({"san": "O-O-O"})] {
        api.refused_because(&g, body, "own_king_in_check").await;
    }
}

// ----- En passant -----

#[actix_web::test]
async fn en_passant_only_immediately() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    let v = api.play(&g, &["e2e4", "a7a6", "e4e5", "d7d5"]).await;
    assert_eq!(
        v["fen"],
        "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    );
    let lm = api.get_ok(&g.uri("/legal-moves")).await;
    assert!(lm["moves"].as_array().unwrap().contains(&json!("e5d6")));
    let v = api.ok_move(&g, json!({"from": 36, "to": 43})).await;
    assert_eq!(v["san"], "exd6");
    assert_eq!(
        v["fen"],
        "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
    );

    // One move later the right is gone.
    let g = api.create_game(json!({})).await;
    let v = api
        .play(&g, &["e2e4", "a7a6", "e4e5", "d7d5", "h2h3", "h7h6"])
        .await;
    assert_eq!(
        v["fen"],
        "rnbqkbnr/1pp1ppp1/p6p/3pP3/8/7P/PPPP1PP1/RNBQKBNR w KQkq - 0 4"
    );
    for body in [
        json!({"uci": "e5d6"}),
        json!({"san": "exd6"}),
        json!({"from": 36, "to": 43}),
    ] {
        api.refused_because(&g, body, "cannot_move_there").await;
    }
    let lm = api.get_ok(&g.uri("/legal-moves")).await;
    assert!(!lm["moves"].as_array().unwrap().contains(&json!("e5d6")));
}

// ----- Promotion -----

const PROMO: &str = "8/4P2p/8/8/8/8/8/k3K3 w - - 0 1";

#[actix_web::test]
async fn promotion_in_every_notation() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({ "fen": PROMO })).await;
    // King: d1 d2 e2 f1 f2; pawn: four promotions.
    let lm = api.get_ok(&g.uri("/legal-moves")).await;
    assert_eq!(lm["count"], 9);
    let uci = lm["moves"].as_array().unwrap();
    for p in ["q", "r", "b", "n"] {
        assert!(uci.contains(&json!(format!("e7e8{p}"))), "{uci:?}");
    }
    let idx = api.get_ok(&g.uri("/legal-moves?format=index")).await;
    let idx = idx["moves"].as_array().unwrap();
    for p in ["q", "r", "b", "n"] {
        assert!(idx.contains(&json!([52, 60, p])), "{idx:?}");
    }
    assert!(idx.contains(&json!([4, 12])));

    let cases = [
        (
            json!({"uci": "e7e8q"}),
            "e8=Q",
            "4Q3/7p/8/8/8/8/8/k3K3 b - - 0 1",
        ),
        (
            json!({"san": "e8=N"}),
            "e8=N",
            "4N3/7p/8/8/8/8/8/k3K3 b - - 0 1",
        ),
        (
            json!({"from": 52, "to": 60, "promotion": "r"}),
            "e8=R",
            "4R3/7p/8/8/8/8/8/k3K3 b - - 0 1",
        ),
        (
            json!({"from": 52, "to": 60, "promotion": "b"}),
            "e8=B",
            "4B3/7p/8/8/8/8/8/k3K3 b - - 0 1",
        ),
        // Without a promotion piece the pawn becomes a queen, as in Binbo.
        (
            json!({"from": 52, "to": 60}),
            "e8=Q",
            "4Q3/7p/8/8/8/8/8/k3K3 b - - 0 1",
        ),
        (
            json!({"uci": "e7e8"}),
            "e8=Q",
            "4Q3/7p/8/8/8/8/8/k3K3 b - - 0 1",
        ),
        (
            json!({"san": "e8"}),
            "e8=Q",
            "4Q3/7p/8/8/8/8/8/k3K3 b - - 0 1",
        ),
    ];
    for (body, san, fen) in cases {
        let g = api.create_game(json!({ "fen": PROMO })).await;
        let v = api.ok_move(&g, body.clone()).await;
        assert_eq!(
            (v["san"].as_str(), v["fen"].as_str()),
            (Some(san), Some(fen)),
            "{body}"
        );
        assert_eq!(v["status"], ongoing());
        assert_eq!(api.view(&g).await["moves"][0]["san"], san);
    }

    // Kings are not promotion pieces.
    let g = api.create_game(json!({ "fen": PROMO })).await;
    api.refused_move(
        &g,
        json!({"from": 52, "to": 60, "promotion": "k"}),
        StatusCode::BAD_REQUEST,
        "invalid_request",
    )
    .await;
    api.refused_move(
        &g,
        json!({"uci": "e7e8k"}),
        StatusCode::UNPROCESSABLE_ENTITY,
        "illegal_move",
    )
    .await;
    api.refused_because(&g, json!({"san": "e8=K"}), "bad_promotion")
        .await;
    api.refused_move(
        &g,
        json!({"uci": "e7e8", "promotion": "q"}),
        StatusCode::BAD_REQUEST,
        "invalid_request",
    )
    .await;
    // Unlike Binbo, a role with a move that is not a promotion is refused, not ignored.
    api.refused_because(
        &g,
        json!({"from": 4, "to": 12, "promotion": "q"}),
        "bad_promotion",
    )
    .await;
    let v = api.ok_move(&g, json!({"from": 4, "to": 12})).await;
    assert_eq!(v["san"], "Ke2");
    let g = api.create_game(json!({})).await;
    api.refused_because(
        &g,
        json!({"from": 9, "to": 17, "promotion": "q"}),
        "bad_promotion",
    )
    .await;
}

// ----- Why a move is illegal -----

#[actix_web::test]
async fn illegal_moves_say_why_in_every_notation() {
    let api = TestApp::start().await;
    const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
    const GUARDED: &str = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";
    // (position, move in UCI, squares as indices, SAN when SAN can say it, reason)
    let cases = [
        (
            START,
            json!({"uci": "e3e4"}),
            json!({"from": 20, "to": 28}),
            None,
            "no_piece",
        ),
        (
            START,
            json!({"uci": "e7e5"}),
            json!({"from": 52, "to": 36}),
            None,
            "wrong_side",
        ),
        (
            START,
            json!({"uci": "e2e2"}),
            json!({"from": 12, "to": 12}),
            None,
            "same_square",
        ),
        (
            START,
            json!({"uci": "d1d2"}),
            json!({"from": 3, "to": 11}),
            Some("Qxd2"),
            "own_piece",
        ),
        (
            START,
            json!({"uci": "e1e2"}),
            json!({"from": 4, "to": 12}),
            Some("Ke2"),
            "own_piece",
        ),
        (
            START,
            json!({"uci": "e2e5"}),
            json!({"from": 12, "to": 36}),
            Some("e5"),
            "cannot_move_there",
        ),
        (
            START,
            json!({"uci": "g1g3"}),
            json!({"from": 6, "to": 22}),
            Some("Ng3"),
            "cannot_move_there",
        ),
        (
            START,
            json!({"uci": "b2b3q"}),
            json!({"from": 9, "to": 17, "promotion": "q"}),
            Some("b3=Q"),
            "bad_promotion",
        ),
        (
            PINNED,
            json!({"uci": "e2d3"}),
            json!({"from": 12, "to": 19}),
            Some("Bd3"),
            "own_king_in_check",
        ),
        (
            GUARDED,
            json!({"uci": "e1d1"}),
            json!({"from": 4, "to": 3}),
            Some("Kd1"),
            "own_king_in_check",
        ),
    ];
    for (fen, uci, index, san, reason) in cases {
        let g = api.create_game(json!({ "fen": fen })).await;
        api.refused_because(&g, uci, reason).await;
        api.refused_because(&g, index, reason).await;
        if let Some(san) = san {
            api.refused_because(&g, json!({ "san": san }), reason).await;
        }
    }
    // The message says it in words too.
    let g = api.create_game(json!({ "fen": PINNED })).await;
    let (_, v) = api.mv(&g, json!({"uci": "e2d3"})).await;
    assert_eq!(
        v["error"]["message"],
        "e2d3 is not a legal move in this position: the move would leave the mover's king in check"
    );
    // A move that is not written as a move at all has no rules reason.
    let (st, v) = api.mv(&g, json!({"uci": "banana"})).await;
    assert_eq!(
        (st, v["error"]["code"].as_str(), &v["error"]["reason"]),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("illegal_move"),
            &Value::Null
        ),
        "{v}"
    );
}

// ----- Manual results and resignation -----

#[actix_web::test]
async fn manual_draw_and_winner_with_notes_then_already_has_status() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    api.play(&g, &["e2e4"]).await;
    let (st, v) = api
        .post(
            &g.uri("/draw"),
            Some(&g.admin),
            json!({"note": "by_agreement"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["status"],
        status("draw", Some("manual"), Some("by_agreement"))
    );
    let st = api.get_ok(&g.uri("/status")).await;
    assert_eq!(st["status"]["note"], "by_agreement");
    assert_eq!(st["winner"], Value::Null);
    let before = api.view(&g).await;
    for (path, body) in [
        ("/draw", json!({"note": "other_reason"})),
        ("/winner", json!({"winner": "white", "note": "x"})),
        ("/resign", json!({"side": "black"})),
    ] {
        let (st, v) = api.post(&g.uri(path), Some(&g.admin), body).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::CONFLICT, Some("already_has_status")),
            "{path}: {v}"
        );
    }
    api.refused_move(
        &g,
        json!({"uci": "e7e5"}),
        StatusCode::CONFLICT,
        "game_over",
    )
    .await;
    assert_eq!(api.view(&g).await, before);

    let g = api.create_game(json!({})).await;
    // Seats cannot set results.
    let (st, _) = api
        .post(
            &g.uri("/winner"),
            Some(&g.white),
            json!({"winner": "white"}),
        )
        .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, v) = api
        .post(
            &g.uri("/winner"),
            Some(&g.admin),
            json!({"winner": "black", "note": "white_lost_on_time"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["status"],
        status("black_wins", Some("manual"), Some("white_lost_on_time"))
    );
    assert_eq!(api.get_ok(&g.uri("/status")).await["winner"], "black");
    let (st, v) = api
        .post(
            &g.uri("/winner"),
            Some(&g.admin),
            json!({"winner": "white"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("already_has_status"))
    );

    // A draw without a note; then a game ended by checkmate has a status already too.
    let g = api.create_game(json!({})).await;
    let (st, v) = api
        .call(request("POST", &g.uri("/draw"), Some(&g.admin), None))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("draw", Some("manual"), None));
    let g = api.create_game(json!({})).await;
    api.play(&g, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    let (st, v) = api
        .post(&g.uri("/draw"), Some(&g.admin), json!({"note": "late"}))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("already_has_status"))
    );
    assert_eq!(
        api.view(&g).await["status"],
        status("black_wins", Some("checkmate"), None)
    );
}

#[actix_web::test]
async fn resignation_seat_resigns_itself_admin_names_the_side() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    api.play(&g, &["e2e4"]).await;
    let before = api.view(&g).await;
    // A seat may not resign for the other side; the admin must name the side; spectators nothing.
    let refused = [
        (
            Some(g.white.as_str()),
            json!({"side": "black"}),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            Some(g.admin.as_str()),
            json!({}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            None,
            json!({"side": "white"}),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (Some("wrong"), json!({}), StatusCode::FORBIDDEN, "forbidden"),
        (
            Some(g.admin.as_str()),
            json!({"side": "green"}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ];
    for (secret, body, code, name) in refused {
        let (st, v) = api.post(&g.uri("/resign"), secret, body.clone()).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (code, Some(name)),
            "{body}: {v}"
        );
    }
    assert_eq!(api.view(&g).await, before);
    // White resigns while it is Black's move: allowed.
    let (st, v) = api.post(&g.uri("/resign"), Some(&g.white), json!({})).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("black_wins", Some("resignation"), None));
    let (st, v) = api.post(&g.uri("/resign"), Some(&g.black), json!({})).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("already_has_status"))
    );

    let g = api.create_game(json!({})).await;
    let (st, v) = api
        .post(&g.uri("/resign"), Some(&g.black), json!({"side": "black"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("white_wins", Some("resignation"), None));

    let g = api.create_game(json!({})).await;
    let (st, v) = api
        .post(&g.uri("/resign"), Some(&g.admin), json!({"side": "white"}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("black_wins", Some("resignation"), None));
}

// ----- State save and restore -----

#[actix_web::test]
async fn state_round_trips_a_finished_game_with_a_manual_result() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    api.play(&g, &["e2e4", "e7e5"]).await;
    let (st, _) = api
        .post(
            &g.uri("/winner"),
            Some(&g.admin),
            json!({"winner": "black", "note": "white forfeited"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK);
    let saved = api.get_ok(&g.uri("/state")).await;
    assert_eq!(saved["format"], "chessd.game/1");
    assert_eq!(saved["start_fen"], START);
    assert_eq!(saved["moves"], json!(["e2e4", "e7e5"]));
    assert_eq!(
        saved["set_result"],
        json!({"result": "black_wins", "reason": "manual", "note": "white forfeited"})
    );
    assert_eq!(
        saved["status"],
        status("black_wins", Some("manual"), Some("white forfeited"))
    );

    let other = api.create_game(json!({})).await;
    api.play(&other, &["d2d4"]).await;
    let (st, v) = api
        .put(&other.uri("/state"), Some(&other.admin), saved.clone())
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (a, b) = (api.view(&g).await, api.view(&other).await);
    for key in ["fen", "start_fen", "status", "moves", "turn"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    api.refused_move(
        &other,
        json!({"uci": "g1f3"}),
        StatusCode::CONFLICT,
        "game_over",
    )
    .await;
    assert_eq!(api.get_ok(&other.uri("/state")).await, saved);

    // Resignation and a pending draw offer survive too.
    let g = api.create_game(json!({"draw_policy": "claims"})).await;
    api.play(&g, &["e2e4"]).await;
    let (st, _) = api
        .post(&g.uri("/draw-offer"), Some(&g.black), json!({}))
        .await;
    assert_eq!(st, StatusCode::OK);
    let saved = api.get_ok(&g.uri("/state")).await;
    assert_eq!(saved["draw_offer"], "black");
    assert_eq!(saved["draw_policy"], "claims");
    let other = api.create_game(json!({})).await;
    let (st, v) = api
        .put(&other.uri("/state"), Some(&other.admin), saved)
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["draw_offer"], "black");
    assert_eq!(v["options"]["draw_policy"], "claims");
    let (st, v) = api
        .post(
            &other.uri("/draw-offer/accept"),
            Some(&other.white),
            json!({}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("draw", Some("agreement"), None));
    let saved = api.get_ok(&other.uri("/state")).await;
    assert_eq!(
        saved["set_result"],
        json!({"result": "draw", "reason": "agreement", "note": null})
    );
    let third = api.create_game(json!({})).await;
    let (st, v) = api
        .put(&third.uri("/state"), Some(&third.admin), saved)
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("draw", Some("agreement"), None));
}

#[actix_web::test]
async fn state_round_trips_a_timed_games_clocks() {
    let api = TestApp::start().await;
    let tc = json!({"initial_ms": 300_000, "increment_ms": 2_000});
    let g = api.create_game(json!({ "time_control": tc })).await;
    api.play(&g, &["e2e4", "e7e5"]).await;
    let saved = api.get_ok(&g.uri("/state")).await;
    assert_eq!(saved["clock"]["control"], tc);
    // White's first move is free; Black used a little time and got the increment.
    assert!(saved["clock"]["white_ms"].as_u64().unwrap() <= 300_000);
    let black = saved["clock"]["black_ms"].as_u64().unwrap();
    assert!((300_000..=302_000).contains(&black), "{black}");

    // Restore exact remaining times into an untimed game: it becomes timed with those clocks.
    let mut state = saved.clone();
    state["clock"]["white_ms"] = json!(123_456);
    state["clock"]["black_ms"] = json!(234_567);
    let other = api.create_game(json!({})).await;
    assert_eq!(api.view(&other).await["clocks"], Value::Null);
    let (st, v) = api
        .put(&other.uri("/state"), Some(&other.admin), state)
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    // The game is under way, so White's time runs from the restore on.
    assert_eq!(v["clocks"]["running"], "white");
    assert!((120_000..=123_456).contains(&v["clocks"]["white_ms"].as_u64().unwrap()));
    assert_eq!(v["clocks"]["black_ms"], 234_567);
    assert_eq!(v["options"]["time_control"], tc);
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    let saved2 = api.get_ok(&other.uri("/state")).await;
    assert_eq!(saved2["clock"]["control"], tc);
    assert!((120_000..=123_456).contains(&saved2["clock"]["white_ms"].as_u64().unwrap()));
    assert_eq!(saved2["clock"]["black_ms"], 234_567);
    // Play resumes: after White's move Black's clock runs.
    let v = api.ok_move(&other, json!({"san": "Nf3"})).await;
    assert_eq!(v["clocks"]["running"], "black");
    assert!(v["clocks"]["white_ms"].as_u64().unwrap() >= 123_456);
    assert!(v["clocks"]["black_ms"].as_u64().unwrap() <= 234_567);
}

#[actix_web::test]
async fn corrupt_states_are_refused_and_change_nothing() {
    let api = TestApp::start().await;
    let src = api.create_game(json!({})).await;
    api.play(&src, &["e2e4", "e7e5", "g1f3"]).await;
    let good = api.get_ok(&src.uri("/state")).await;

    let g = api.create_game(json!({})).await;
    api.play(&g, &["d2d4", "d7d5"]).await;
    let before = api.view(&g).await;

    let with = |key: &str, value: Value| {
        let mut s = good.clone();
        s[key] = value;
        s.to_string()
    };
    let cases: Vec<(&str, String)> = vec![
        ("wrong format", with("format", json!("chessd.game/2"))),
        ("format of the wrong type", with("format", json!(1))),
        (
            "illegal move",
            with("moves", json!(["e2e4", "e7e5", "e1e3"])),
        ),
        ("not UCI", with("moves", json!(["e2e4", "banana"]))),
        ("moves of the wrong type", with("moves", json!("e2e4"))),
        (
            "status that does not follow",
            with("status", status("white_wins", Some("checkmate"), None)),
        ),
        (
            "status of the wrong shape",
            with("status", json!("ongoing")),
        ),
        ("unknown field", with("extra", json!(true))),
        (
            "bad start FEN",
            with("start_fen", json!("8/8/8/8/8/8/8/8 w - - 0 1")),
        ),
        ("bad draw policy", with("draw_policy", json!("sometimes"))),
        (
            "result that does not go with its reason",
            with(
                "set_result",
                json!({"result": "draw", "reason": "resignation", "note": null}),
            ),
        ),
        (
            "unknown result",
            with(
                "set_result",
                json!({"result": "nobody", "reason": "manual"}),
            ),
        ),
        (
            "result with an unknown field",
            with(
                "set_result",
                json!({"result": "draw", "reason": "manual", "why": "x"}),
            ),
        ),
        ("draw offer in a finished game", {
            let mut s = good.clone();
            s["moves"] = json!(["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]);
            s["status"] = status("white_wins", Some("checkmate"), None);
            s["draw_offer"] = json!("black");
            s.to_string()
        }),
        ("move after the end", {
            let mut s = good.clone();
            s["moves"] = json!(["f2f3", "e7e5", "g2g4", "d8h4", "e1f2"]);
            s["status"] = Value::Null;
            s.to_string()
        }),
        ("clock with an unknown field", {
            let mut s = good.clone();
            s["clock"] =
                json!({"control": {"initial_ms": 1000}, "white_ms": 1, "black_ms": 1, "x": 0});
            s.to_string()
        }),
        (
            "clock without time",
            with(
                "clock",
                json!({"control": {"initial_ms": 0}, "white_ms": 1, "black_ms": 1}),
            ),
        ),
        (
            "clock with a remaining time that would overflow",
            with(
                "clock",
                json!({"control": {"initial_ms": 1000, "increment_ms": 1000}, "white_ms": u64::MAX, "black_ms": 1}),
            ),
        ),
        ("not JSON", "{\"format\": ".to_string()),
        ("empty body", String::new()),
        ("a JSON array", "[]".to_string()),
    ];
    for (what, body) in cases {
        let (st, v) = api
            .call(
                request("PUT", &g.uri("/state"), Some(&g.admin), None)
                    .insert_header((header::CONTENT_TYPE, "application/json"))
                    .set_payload(body),
            )
            .await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_state")),
            "{what}: {v}"
        );
        assert_eq!(api.view(&g).await, before, "{what} changed the game");
    }
    // A good state with a seat's secret is forbidden.
    let (st, _) = api
        .put(&g.uri("/state"), Some(&g.white), good.clone())
        .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert_eq!(api.view(&g).await, before);
    // And the good state itself is accepted.
    let (st, v) = api.put(&g.uri("/state"), Some(&g.admin), good).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
}

// ----- Reads: pieces, board, legal moves -----

#[actix_web::test]
async fn pieces_list_by_name_and_by_index() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    let by_name = api.get_ok(&g.uri("/pieces")).await;
    let list = by_name["pieces"].as_array().unwrap();
    assert_eq!(list.len(), 32);
    // Binbo's order: from h8 down to a1.
    assert_eq!(
        list[0],
        json!({"square": "h8", "color": "black", "piece": "rook"})
    );
    assert_eq!(
        list[31],
        json!({"square": "a1", "color": "white", "piece": "rook"})
    );
    assert!(list.contains(&json!({"square": "e1", "color": "white", "piece": "king"})));
    assert!(list.contains(&json!({"square": "d8", "color": "black", "piece": "queen"})));
    assert_eq!(api.get_ok(&g.uri("/pieces?squares=name")).await, by_name);

    let by_index = api.get_ok(&g.uri("/pieces?squares=index")).await;
    let list = by_index["pieces"].as_array().unwrap();
    assert_eq!(list.len(), 32);
    assert_eq!(
        list[0],
        json!({"square": 63, "color": "black", "piece": "rook"})
    );
    assert_eq!(
        list[31],
        json!({"square": 0, "color": "white", "piece": "rook"})
    );
    assert!(list.contains(&json!({"square": 60, "color": "black", "piece": "king"})));
    let squares: Vec<u64> = list.iter().map(|p| p["square"].as_u64().unwrap()).collect();
    assert!(squares.windows(2).all(|w| w[0] > w[1]), "{squares:?}");

    api.play(&g, &["e2e4", "d7d5", "e4d5"]).await;
    let list = api.get_ok(&g.uri("/pieces?squares=index")).await["pieces"].clone();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 31);
    assert!(list.contains(&json!({"square": 35, "color": "white", "piece": "pawn"})));
    assert!(!list.iter().any(|p| p["square"] == 12 || p["square"] == 28));

    let (st, v) = api.get(&g.uri("/pieces?squares=fen")).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_request"))
    );
}

#[actix_web::test]
async fn board_as_ascii_or_unicode_flipped_or_not() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    api.play(&g, &["e2e4"]).await;
    let board = |q: &'static str| {
        let uri = g.uri(&format!("/board{q}"));
        let api = &api;
        async move {
            let (st, ctype, text) = api.raw(request("GET", &uri, None, None)).await;
            assert_eq!(st, StatusCode::OK, "{text}");
            assert!(ctype.starts_with("text/plain"), "{ctype}");
            text
        }
    };
    let ascii = board("").await;
    assert!(
        ascii.starts_with(
            "8 r n b q k b n r\n7 p p p p p p p p\n6 . . . . . . . .\n5 . . . . . . . .\n\
             4 . . . . P . . .\n3 . . . . . . . .\n2 P P P P . P P P\n1 R N B Q K B N R\n  a b c d e f g h\n"
        ),
        "{ascii}"
    );
    assert!(ascii.contains("FEN: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"));
    assert!(ascii.contains("e4 (e2e4)"), "{ascii}");
    assert_eq!(board("?style=ascii&flipped=false").await, ascii);

    let flipped = board("?flipped=true").await;
    assert!(
        flipped.starts_with(
            "1 R N B K Q B N R\n2 P P P . P P P P\n3 . . . . . . . .\n4 . . . P . . . .\n"
        ),
        "{flipped}"
    );
    assert!(
        flipped.contains("8 r n b k q b n r\n  h g f e d c b a\n"),
        "{flipped}"
    );

    let unicode = board("?style=unicode").await;
    assert!(unicode.starts_with("8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜\n"), "{unicode}");
    assert!(unicode.contains("\n4 · · · · ♙ · · ·\n"), "{unicode}");
    assert!(unicode.contains("\n1 ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖\n"), "{unicode}");
    let both = board("?style=unicode&flipped=true").await;
    assert!(both.starts_with("1 ♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖\n"), "{both}");

    for q in ["?style=fancy", "?flipped=maybe", "?color=red"] {
        let (st, v) = api.get(&g.uri(&format!("/board{q}"))).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{q}: {v}");
        assert_eq!(v["error"]["code"], "invalid_request");
    }
}

#[actix_web::test]
async fn legal_moves_in_three_formats() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    let uci = api.get_ok(&g.uri("/legal-moves")).await;
    assert_eq!(uci["count"], 20);
    let moves = uci["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20);
    for m in ["e2e4", "e2e3", "g1f3", "b1a3", "h2h4"] {
        assert!(moves.contains(&json!(m)), "{m}");
    }
    assert_eq!(api.get_ok(&g.uri("/legal-moves?format=uci")).await, uci);
    let idx = api.get_ok(&g.uri("/legal-moves?format=index")).await;
    assert_eq!(idx["count"], 20);
    let moves = idx["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20);
    for m in [[12, 28], [12, 20], [6, 21], [1, 16], [15, 31]] {
        assert!(moves.contains(&json!(m)), "{m:?}");
    }
    assert_eq!(
        api.get_ok(&g.uri("/legal-moves?format=count")).await,
        json!({"count": 20})
    );

    api.play(&g, &["e2e4"]).await;
    assert_eq!(
        api.get_ok(&g.uri("/legal-moves?format=count")).await["count"],
        20
    );
    api.play(&g, &["e7e5"]).await;
    // After 1.e4 e5: pawns 14, Nb1 2, Ng1 3, Bf1 5, Qd1 4, Ke1 1.
    assert_eq!(
        api.get_ok(&g.uri("/legal-moves?format=count")).await["count"],
        29
    );

    for q in ["?format=san", "?format=", "?format=count&extra=1"] {
        let (st, v) = api.get(&g.uri(&format!("/legal-moves{q}"))).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_request")),
            "{q}: {v}"
        );
    }
    let (st, v) = api
        .get("/v1/games/00000000-0000-0000-0000-000000000000/legal-moves")
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("game_not_found"))
    );
}

// ----- PGN and FEN loading -----

#[actix_web::test]
async fn pgn_export_then_load_gives_the_same_game() {
    let api = TestApp::start().await;
    let line = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1", "f8c5", "d2d3", "d7d6", "c1g5",
        "h7h6", "g5f6", "d8f6",
    ];
    let g = api.create_game(json!({})).await;
    let last = api.play(&g, &line).await;
    let (st, ctype, pgn) = api.raw(request("GET", &g.uri("/pgn"), None, None)).await;
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(st, StatusCode::OK);
    assert!(ctype.starts_with("application/x-chess-pgn"), "{ctype}");
    assert!(
        pgn.contains("1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Bc5"),
        "{pgn}"
    );
    assert!(pgn.contains("7. Bxf6 Qxf6"), "{pgn}");
    assert!(
        pgn.contains("[Result \"*\"]") && pgn.trim_end().ends_with('*'),
        "{pgn}"
    );

    let other = api.create_game(json!({})).await;
    let (st, v) = api
        .put(
            &other.uri("/pgn"),
            Some(&other.admin),
            json!({ "pgn": pgn }),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["fen"], last["fen"]);
    assert_eq!(v["moves"], api.view(&g).await["moves"]);
    assert_eq!(v["status"], ongoing());
    // Play goes on from the loaded position.
    api.play(&other, &["f3h4"]).await;

    // A finished game keeps its result; a game from a FEN keeps its start.
    let mate = api.create_game(json!({})).await;
    api.play(
        &mate,
        &["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"],
    )
    .await;
    let (_, _, pgn) = api.raw(request("GET", &mate.uri("/pgn"), None, None)).await;
    assert!(
        pgn.contains("[Result \"1-0\"]") && flat(&pgn).contains("4. Qxf7# 1-0"),
        "{pgn}"
    );
    let (st, v) = api
        .put(
            &other.uri("/pgn"),
            Some(&other.admin),
            json!({ "pgn": pgn }),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("white_wins", Some("checkmate"), None));
    assert_eq!(v["moves"].as_array().unwrap().len(), 7);

    let fen_game = api.create_game(json!({ "fen": PROMO })).await;
    let promoted = api.play(&fen_game, &["e7e8n", "h7h5"]).await;
    let (_, _, pgn) = api
        .raw(request("GET", &fen_game.uri("/pgn"), None, None))
        .await;
    assert!(pgn.contains(&format!("[FEN \"{PROMO}\"]")), "{pgn}");
    assert!(flat(&pgn).contains("1. e8=N h5"), "{pgn}");
    let (st, v) = api
        .put(
            &other.uri("/pgn"),
            Some(&other.admin),
            json!({ "pgn": pgn }),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["fen"], promoted["fen"]);
    assert_eq!(v["start_fen"], PROMO);

    // A bad PGN or a seat's secret is refused and changes nothing.
    let before = api.view(&other).await;
    let (st, v) = api
        .put(
            &other.uri("/pgn"),
            Some(&other.admin),
            json!({"pgn": "1. e4 e5 2. Ke3 *"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_pgn"))
    );
    let (st, v) = api
        .put(&other.uri("/pgn"), Some(&other.admin), json!({"pgn": ""}))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_pgn"))
    );
    let (st, _) = api
        .put(
            &other.uri("/pgn"),
            Some(&other.white),
            json!({"pgn": "1. e4 *"}),
        )
        .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert_eq!(api.view(&other).await, before);
}

#[actix_web::test]
async fn loading_a_fen_reinitialises_the_game() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    api.play(&g, &["e2e4", "e7e5"]).await;
    assert_eq!(api.view(&g).await["version"], 2);
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let (st, v) = api
        .put(&g.uri("/position"), Some(&g.admin), json!({ "fen": fen }))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["version"], 3);
    assert_eq!(v["fen"], fen);
    assert_eq!(v["start_fen"], fen);
    assert_eq!(v["moves"], json!([]));
    assert_eq!(v["status"], ongoing());
    assert_eq!(v["turn"], "white");
    let m = api.ok_move(&g, json!({"san": "Bb5"})).await;
    assert_eq!(m["version"], 4);
    assert_eq!(
        api.view(&g).await["moves"],
        json!([{"uci": "f1b5", "san": "Bb5"}])
    );

    // A finished position loads as a finished game.
    let (st, v) = api
        .put(
            &g.uri("/position"),
            Some(&g.admin),
            json!({"fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], status("draw", Some("stalemate"), None));

    // Bad FEN, extra fields, a seat's secret: refused, nothing changes.
    let before = api.view(&g).await;
    let refused = [
        (
            &g.admin,
            json!({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_fen",
        ),
        (
            &g.admin,
            json!({"fen": START, "x": 1}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            &g.admin,
            json!({}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            &g.white,
            json!({ "fen": START }),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
    ];
    for (secret, body, code, name) in refused {
        let (st, v) = api
            .put(&g.uri("/position"), Some(secret), body.clone())
            .await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (code, Some(name)),
            "{body}: {v}"
        );
    }
    assert_eq!(api.view(&g).await, before);
}

// ----- Options and stop -----

#[actix_web::test]
async fn options_get_and_patch() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    assert_eq!(
        api.get_ok(&g.uri("/options")).await,
        json!({"idle_timeout_secs": 0, "draw_policy": "automatic", "time_control": null, "webhook": false, "opponent": null, "opponents": []})
    );
    let (st, v) = api
        .patch(
            &g.uri("/options"),
            Some(&g.admin),
            json!({"idle_timeout_secs": 600}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["idle_timeout_secs"], 600);
    assert_eq!(
        api.get_ok(&g.uri("/options")).await["idle_timeout_secs"],
        600
    );
    // Policy change before any move.
    let (st, v) = api
        .patch(
            &g.uri("/options"),
            Some(&g.admin),
            json!({"draw_policy": "claims"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["draw_policy"], "claims");
    assert_eq!(v["idle_timeout_secs"], 600);
    assert_eq!(api.view(&g).await["options"]["draw_policy"], "claims");

    let before = api.view(&g).await;
    for (body, secret, code, name) in [
        (
            json!({"idle_timeout_secs": 5}),
            &g.white,
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            json!({"bogus": 1}),
            &g.admin,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"draw_policy": "never"}),
            &g.admin,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"idle_timeout_secs": -1}),
            &g.admin,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ] {
        let (st, v) = api
            .patch(&g.uri("/options"), Some(secret), body.clone())
            .await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (code, Some(name)),
            "{body}: {v}"
        );
    }
    assert_eq!(api.view(&g).await, before);

    // Under claims a threefold repetition is only claimable; switching to automatic ends it.
    for m in KNIGHT_SHUFFLE.iter().cycle().take(8) {
        api.play(&g, &[m]).await;
    }
    let v = api.view(&g).await;
    assert_eq!(
        (v["status"].clone(), v["claimable_draw"].clone()),
        (ongoing(), json!("threefold_repetition"))
    );
    let (st, v) = api
        .patch(
            &g.uri("/options"),
            Some(&g.admin),
            json!({"draw_policy": "automatic"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["draw_policy"], "automatic");
    let v = api.view(&g).await;
    assert_eq!(
        v["status"],
        status("draw", Some("threefold_repetition"), None)
    );
    assert_eq!(v["moves"].as_array().unwrap().len(), 8);
    // A finished game's policy cannot change.
    let (st, v) = api
        .patch(
            &g.uri("/options"),
            Some(&g.admin),
            json!({"draw_policy": "claims"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("game_over"))
    );
    assert_eq!(
        api.get_ok(&g.uri("/options")).await["draw_policy"],
        "automatic"
    );

    // After moves, a policy change on a game still going keeps its moves and position.
    let g = api.create_game(json!({})).await;
    let last = api.play(&g, &["e2e4", "e7e5", "g1f3"]).await;
    let (st, v) = api
        .patch(
            &g.uri("/options"),
            Some(&g.admin),
            json!({"draw_policy": "claims"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let v = api.view(&g).await;
    assert_eq!(
        (v["fen"].clone(), v["moves"].as_array().unwrap().len()),
        (last["fen"].clone(), 3)
    );
    assert_eq!(v["options"]["draw_policy"], "claims");
}

#[actix_web::test]
async fn idle_timeout_set_through_options_stops_the_game() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({"idle_timeout_secs": 1})).await;
    assert_eq!(api.get_ok(&g.uri("/options")).await["idle_timeout_secs"], 1);
    // Messages re-arm the timer.
    for _ in 0..3 {
        actix_web::rt::time::sleep(std::time::Duration::from_millis(500)).await;
        api.get_ok(&g.uri("/fen")).await;
    }
    // Switched off by PATCH, the game outlives the old timeout; switched on again, it stops.
    let (st, _) = api
        .patch(
            &g.uri("/options"),
            Some(&g.admin),
            json!({"idle_timeout_secs": 0}),
        )
        .await;
    assert_eq!(st, StatusCode::OK);
    actix_web::rt::time::sleep(std::time::Duration::from_millis(1500)).await;
    api.get_ok(&g.uri("")).await;
    let (st, _) = api
        .patch(
            &g.uri("/options"),
            Some(&g.admin),
            json!({"idle_timeout_secs": 1}),
        )
        .await;
    assert_eq!(st, StatusCode::OK);
    actix_web::rt::time::sleep(std::time::Duration::from_millis(1600)).await;
    let (st, v) = api.get(&g.uri("")).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("game_not_found"))
    );
}

#[actix_web::test]
async fn stop_with_delete_then_the_game_is_gone() {
    let api = TestApp::start().await;
    let g = api.create_game(json!({})).await;
    api.play(&g, &["e2e4"]).await;
    let (st, v) = api.delete(&g.uri(""), None).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("unauthorized"))
    );
    for secret in [Some(g.white.as_str()), Some(g.black.as_str())] {
        let (st, v) = api.delete(&g.uri(""), secret).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("forbidden"))
        );
    }
    assert_eq!(api.view(&g).await["moves"].as_array().unwrap().len(), 1);
    let (st, body, _) = api
        .raw(request("DELETE", &g.uri(""), Some(&g.admin), None))
        .await;
    assert_eq!(st, StatusCode::NO_CONTENT, "{body}");
    for tail in ["", "/fen", "/state", "/legal-moves", "/pgn"] {
        let (st, v) = api.get(&g.uri(tail)).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::NOT_FOUND, Some("game_not_found")),
            "GET {tail}"
        );
    }
    let (st, v) = api
        .post(&g.uri("/moves"), Some(&g.black), json!({"uci": "e7e5"}))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("game_not_found"))
    );
    let (st, _, _) = api
        .raw(request("DELETE", &g.uri(""), Some(&g.admin), None))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}
