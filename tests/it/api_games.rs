//! In-process tests of the game routes: the same `configure_app` as `main`, driven by
//! `actix_web::test`. Every rejected request is checked to leave the game unchanged.

use actix_web::{
    http::{header, StatusCode},
    test::TestRequest,
};
use chessd_server::Config;
use serde_json::{json, Value};

use crate::common::{
    self,
    app::{request, TestApp},
};

#[actix_web::test]
async fn create_returns_id_fen_status_version_and_secrets() {
    let app = TestApp::start().await;
    let (status, v) = app.post("/v1/games", None, json!({})).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(
        v["status"],
        json!({"result": "ongoing", "reason": null, "note": null})
    );
    assert_eq!(v["version"], 0);
    for seat in ["white", "black", "admin"] {
        assert_eq!(v["secrets"][seat].as_str().unwrap().len(), 32);
    }
}

#[actix_web::test]
async fn scholars_mate_over_rest_in_three_notations() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    let uri = format!("/v1/games/{}/moves", g.id);
    let moves = [
        (json!({"uci": "e2e4"}), &g.white, "e4"),
        (json!({"san": "e5"}), &g.black, "e5"),
        (json!({"from": 5, "to": 26}), &g.white, "Bc4"),
        (json!({"san": "Nc6"}), &g.black, "Nc6"),
        (json!({"uci": "d1h5"}), &g.white, "Qh5"),
        (json!({"san": "Nf6"}), &g.black, "Nf6"),
        (json!({"san": "Qxf7#"}), &g.white, "Qxf7#"),
    ];
    for (i, (body, secret, san)) in moves.iter().enumerate() {
        let (status, v) = app.post(&uri, Some(secret), body.clone()).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        assert_eq!(v["san"], *san);
        assert_eq!(v["version"], i as u64 + 1);
    }
    let status = app.get_ok(&format!("/v1/games/{}/status", g.id)).await;
    assert_eq!(
        status["status"],
        json!({"result": "white_wins", "reason": "checkmate", "note": null})
    );
    assert_eq!(status["winner"], "white");
    // After the game every move is refused with game_over, and nothing changes.
    let (code, v) = app.post(&uri, Some(&g.black), json!({"san": "Ke7"})).await;
    assert_eq!(code, StatusCode::CONFLICT);
    assert_eq!(v["error"]["code"], "game_over");
    let view = app.get_ok(&format!("/v1/games/{}", g.id)).await;
    assert_eq!(view["version"], 7);
    assert_eq!(view["moves"].as_array().unwrap().len(), 7);
    let lm = app
        .get_ok(&format!("/v1/games/{}/legal-moves?format=count", g.id))
        .await;
    assert_eq!(lm["count"], 0);
    let _ = g.admin;
}

#[actix_web::test]
async fn bad_input_catalogue_leaves_the_game_unchanged() {
    let app = TestApp::new(Config {
        limits: chessd_server::config::Limits {
            max_body_bytes: 1024,
            max_games: 100,
            ..Config::defaults().limits
        },
        ..Config::defaults()
    })
    .await;
    let g = app.create_game(json!({})).await;
    let uri = format!("/v1/games/{}/moves", g.id);
    let before = app.get_ok(&format!("/v1/games/{}", g.id)).await;

    let cases: Vec<(TestRequest, StatusCode, &str)> = vec![
        (
            request("POST", &uri, Some(&g.white), None)
                .insert_header((header::CONTENT_TYPE, "application/json"))
                .set_payload("{\"uci\": "),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            request(
                "POST",
                &uri,
                Some(&g.white),
                Some(&json!({"uci": "e2e4", "extra": 1})),
            ),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            request("POST", &uri, Some(&g.white), Some(&json!({"uci": 42}))),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            request(
                "POST",
                &uri,
                Some(&g.white),
                Some(&json!({"uci": "e2e4", "san": "e4"})),
            ),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            request(
                "POST",
                &uri,
                Some(&g.white),
                Some(&json!({"san": "x".repeat(2000)})),
            ),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
        (
            request("POST", &uri, Some(&g.white), Some(&json!({"uci": "e2e5"}))),
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_move",
        ),
        (
            request("POST", &uri, Some(&g.white), Some(&json!({"san": "Nd7"}))),
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_move",
        ),
        (
            request(
                "POST",
                &uri,
                Some(&g.white),
                Some(&json!({"from": 64, "to": 1})),
            ),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            request("POST", &uri, Some(&g.black), Some(&json!({"uci": "e7e5"}))),
            StatusCode::CONFLICT,
            "not_your_turn",
        ),
        (
            request("POST", &uri, None, Some(&json!({"uci": "e2e4"}))),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            request("POST", &uri, Some("wrong"), Some(&json!({"uci": "e2e4"}))),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            request(
                "POST",
                "/v1/games/00000000-0000-0000-0000-000000000000/moves",
                Some(&g.white),
                Some(&json!({"uci": "e2e4"})),
            ),
            StatusCode::NOT_FOUND,
            "game_not_found",
        ),
        (
            request(
                "POST",
                "/v1/games/not-a-uuid/moves",
                Some(&g.white),
                Some(&json!({"uci": "e2e4"})),
            ),
            StatusCode::NOT_FOUND,
            "game_not_found",
        ),
        (
            request(
                "POST",
                &format!("/v1/games/{}/draw", g.id),
                Some(&g.white),
                Some(&json!({"note": "x"})),
            ),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            request(
                "PUT",
                &format!("/v1/games/{}/state", g.id),
                Some(&g.admin),
                None,
            )
            .set_payload("{\"format\": 1}"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_state",
        ),
        (
            request(
                "PUT",
                &format!("/v1/games/{}/position", g.id),
                Some(&g.admin),
                Some(&json!({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"})),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_fen",
        ),
        (
            request(
                "POST",
                "/v1/games",
                None,
                Some(&json!({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1"})),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_fen",
        ),
        (
            request("GET", "/v1/nowhere", None, None),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
    ];
    for (req, status, code) in cases {
        let (got, v) = app.call(req).await;
        assert_eq!(
            (got, v["error"]["code"].as_str()),
            (status, Some(code)),
            "{v}"
        );
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    let after = app.get_ok(&format!("/v1/games/{}", g.id)).await;
    assert_eq!(before, after, "rejected requests changed the game");
}

#[actix_web::test]
async fn ambiguous_san_lists_candidates() {
    let app = TestApp::start().await;
    let g = app
        .create_game(json!({"fen": "k7/8/8/8/8/8/8/KN3N2 w - - 0 1"}))
        .await;
    let (status, v) = app
        .post(
            &format!("/v1/games/{}/moves", g.id),
            Some(&g.white),
            json!({"san": "Nd2"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["code"], "ambiguous_move");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("Nbd2") && msg.contains("Nfd2"), "{msg}");
}

#[actix_web::test]
async fn state_save_and_restore_round_trip() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    for (m, s) in [("e2e4", &g.white), ("e7e5", &g.black), ("g1f3", &g.white)] {
        let (st, _) = app
            .post(
                &format!("/v1/games/{}/moves", g.id),
                Some(s),
                json!({"uci": m}),
            )
            .await;
        assert_eq!(st, StatusCode::OK);
    }
    let saved = app.get_ok(&format!("/v1/games/{}/state", g.id)).await;
    assert_eq!(saved["moves"], json!(["e2e4", "e7e5", "g1f3"]));
    let other = app.create_game(json!({})).await;
    let (st, v) = app
        .put(
            &format!("/v1/games/{}/state", other.id),
            Some(&other.admin),
            &saved,
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    // A corrupt state (an illegal move) is refused with 422 and changes nothing.
    let mut bad = saved.clone();
    bad["moves"] = json!(["e2e4", "e7e5", "g1g3"]);
    let (st, v) = app
        .put(
            &format!("/v1/games/{}/state", other.id),
            Some(&other.admin),
            &bad,
        )
        .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"]["code"], "invalid_state");
    let now = app.get_ok(&format!("/v1/games/{}/fen", other.id)).await;
    assert_eq!(
        now["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
}

#[actix_web::test]
async fn manual_draw_and_winner_follow_binbo() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    let (st, v) = app
        .post(
            &format!("/v1/games/{}/draw", g.id),
            Some(&g.admin),
            json!({"note": "by agreement"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["status"],
        json!({"result": "draw", "reason": "manual", "note": "by agreement"})
    );
    let (st, v) = app
        .post(
            &format!("/v1/games/{}/winner", g.id),
            Some(&g.admin),
            json!({"winner": "white"}),
        )
        .await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(v["error"]["code"], "already_has_status");
}

#[actix_web::test]
async fn draw_offer_and_accept() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    let (st, v) = app
        .post(
            &format!("/v1/games/{}/draw-offer", g.id),
            Some(&g.white),
            json!({}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["draw_offer"], "white");
    let (st, v) = app
        .post(
            &format!("/v1/games/{}/draw-offer/accept", g.id),
            Some(&g.white),
            json!({}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("no_draw_to_claim"))
    );
    let (st, v) = app
        .post(
            &format!("/v1/games/{}/draw-offer/accept", g.id),
            Some(&g.black),
            json!({}),
        )
        .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        v["status"],
        json!({"result": "draw", "reason": "agreement", "note": null})
    );
}

#[actix_web::test]
async fn reads_pieces_board_pgn_and_stateless_calls() {
    let app = TestApp::start().await;
    let g = app
        .create_game(json!({"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}))
        .await;
    let p = app
        .get_ok(&format!("/v1/games/{}/pieces?squares=index", g.id))
        .await;
    assert_eq!(p["pieces"].as_array().unwrap().len(), 3);
    assert!(p["pieces"]
        .as_array()
        .unwrap()
        .contains(&json!({"square": 12, "color": "white", "piece": "pawn"})));
    let lm = app.get_ok(&format!("/v1/games/{}/legal-moves", g.id)).await;
    assert_eq!(lm["count"], 6);
    let board = app
        .send(request(
            "GET",
            &format!("/v1/games/{}/board?style=unicode&flipped=true", g.id),
            None,
            None,
        ))
        .await;
    assert_eq!(board.status, StatusCode::OK);
    let text = board.text();
    assert!(text.contains('♔') && text.contains('♚'), "{text}");

    let (st, v) = app
        .post(
            "/v1/position/move",
            None,
            json!({"fen": "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", "move": "Qb8"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["san"], "Qb8#");
    assert_eq!(v["status"]["reason"], "checkmate");
    assert_eq!(v["legal_moves"], json!([]));
    let v = app
        .get_ok("/v1/position?fen=7k/8/6K1/8/8/8/8/1Q6%20w%20-%20-%200%201&format=count")
        .await;
    assert_eq!(v["status"]["result"], "ongoing");
    assert!(v["count"].as_u64().unwrap() > 20);
}

#[actix_web::test]
async fn metrics_count_games_moves_and_errors() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    let (st, _) = app
        .post(
            &format!("/v1/games/{}/moves", g.id),
            Some(&g.white),
            json!({"uci": "e2e4"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK);
    let (st, _) = app
        .post(
            &format!("/v1/games/{}/moves", g.id),
            Some(&g.black),
            json!({"uci": "e2e4"}),
        )
        .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    let metrics = app.send(request("GET", "/metrics", None, None)).await;
    assert_eq!(metrics.status, StatusCode::OK);
    let text = metrics.text();
    let value = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} missing in\n{text}"))
    };
    // Metrics are process-wide and tests run in parallel: assert lower bounds.
    assert!(value("chessd_games_alive") >= 1.0);
    assert!(value("chessd_moves_total") >= 1.0);
    assert!(value("chessd_errors_total{code=\"illegal_move\"}") >= 1.0);
    assert!(
        text.contains(
            "chessd_request_seconds_bucket{method=\"POST\",route=\"/v1/games/{id}/moves\""
        ),
        "{text}"
    );
    let (st, v) = app.get("/health").await;
    assert_eq!((st, v["status"].as_str()), (StatusCode::OK, Some("ok")));
}

#[actix_web::test]
async fn errors_actix_answers_itself_are_json_too() {
    let app = TestApp::new(Config {
        limits: chessd_server::config::Limits {
            max_body_bytes: 512,
            max_games: 100,
            ..Config::defaults().limits
        },
        ..Config::defaults()
    })
    .await;
    let (st, v) = app.call(request("POST", "/health", None, None)).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::METHOD_NOT_ALLOWED, Some("method_not_allowed"))
    );
    let g = app.create_game(json!({})).await;
    let big = "x".repeat(4096);
    let (st, v) = app
        .call(
            request(
                "PUT",
                &format!("/v1/games/{}/state", g.id),
                Some(&g.admin),
                None,
            )
            .set_payload(big),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::PAYLOAD_TOO_LARGE, Some("payload_too_large"))
    );
    // A WebSocket route called without the handshake headers.
    let (st, v) = app.get(&format!("/v1/games/{}/ws", g.id)).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_request"))
    );
}

#[actix_web::test]
async fn optional_bodies_are_still_checked() {
    let app = TestApp::start().await;
    for body in [
        "{\"fenn\": \"x\"}",
        "{\"draw_policy\": \"claimz\"}",
        "{not json",
        "[]",
        " ",
        "\n\t",
    ] {
        let (st, v) = app
            .call(
                request("POST", "/v1/games", None, None)
                    .insert_header((header::CONTENT_TYPE, "application/json"))
                    .set_payload(body),
            )
            .await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_request")),
            "{body}"
        );
    }
    // An empty body is a default game.
    let (st, _) = app.call(request("POST", "/v1/games", None, None)).await;
    assert_eq!(st, StatusCode::CREATED);
    let g = app.create_game(json!({})).await;
    let (st, v) = app
        .post(
            &format!("/v1/games/{}/resign", g.id),
            Some(&g.white),
            json!({"side": "blak"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_request"))
    );
    let status = app.get_ok(&format!("/v1/games/{}/status", g.id)).await;
    assert_eq!(status["status"]["result"], "ongoing");
    let (st, v) = app
        .post(
            "/v1/games",
            None,
            json!({"webhook_url": "https://127.0.0.1/hook"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("webhook_not_allowed")
        )
    );
}

#[actix_web::test]
async fn finished_positions_and_token_parameters() {
    let app = TestApp::start().await;
    let mate = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1";
    let v = app
        .get_ok(&format!(
            "/v1/position?fen={}&format=count",
            mate.replace(' ', "%20")
        ))
        .await;
    assert_eq!(v["count"], 0);
    assert_eq!(v["status"]["reason"], "checkmate");
    let (st, _) = app
        .get(&format!(
            "/v1/position?fen={}&format=bogus",
            mate.replace(' ', "%20")
        ))
        .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let g = app.create_game(json!({})).await;
    for route in ["pieces", "board", "legal-moves"] {
        let uri = format!("/v1/games/{}/{route}?token={}", g.id, g.white);
        let answer = app.send(request("GET", &uri, None, None)).await;
        assert_eq!(answer.status, StatusCode::OK, "{route}");
    }
    // A secret in the query is read by WebSocket routes only: a move with one has none.
    let (status, v) = app
        .post(
            &format!("/v1/games/{}/moves?token={}", g.id, g.white),
            None,
            json!({"uci": "e2e4"}),
        )
        .await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("unauthorized"))
    );
}

#[actix_web::test]
async fn restoring_a_state_takes_its_time_control_and_checks_the_clocks() {
    let app = TestApp::start().await;
    let g = app
        .create_game(json!({"time_control": {"initial_ms": 60000, "increment_ms": 1000}}))
        .await;
    let mut saved = app.get_ok(&format!("/v1/games/{}/state", g.id)).await;
    saved["clock"] = json!({"control": {"initial_ms": 5000, "increment_ms": 0}, "white_ms": 4000, "black_ms": 3000});
    let (st, v) = app
        .put(&format!("/v1/games/{}/state", g.id), Some(&g.admin), &saved)
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["options"]["time_control"],
        json!({"initial_ms": 5000, "increment_ms": 0})
    );
    assert_eq!(v["clocks"]["white_ms"], 4000);
    saved["clock"]["white_ms"] = json!(u64::MAX);
    let (st, v) = app
        .put(&format!("/v1/games/{}/state", g.id), Some(&g.admin), &saved)
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_state"))
    );
}

#[actix_web::test]
async fn in_process_terminate_callback_runs_once_per_game() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<(String, String, usize)>>> = Arc::default();
    let store = seen.clone();
    let callback: chessd_server::TerminateCallback =
        Arc::new(move |info: &chessd_server::game::hooks::TerminateInfo| {
            store.lock().unwrap().push((
                info.id.to_string(),
                info.reason.as_str().to_string(),
                info.state.moves.len(),
            ));
        });
    let app = TestApp::with_callback(Config::defaults(), Some(callback)).await;
    let g = app.create_game(json!({})).await;
    let (st, _) = app
        .post(
            &format!("/v1/games/{}/moves", g.id),
            Some(&g.white),
            json!({"uci": "d2d4"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK);
    // Only the admin may stop a game.
    let (st, _) = app
        .delete(&format!("/v1/games/{}", g.id), Some(&g.white))
        .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = app
        .delete(&format!("/v1/games/{}", g.id), Some(&g.admin))
        .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    // The callback runs off the actor's thread; give it a moment.
    for _ in 0..100 {
        if !seen.lock().unwrap().is_empty() {
            break;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(g.id.clone(), "stopped".to_string(), 1)]
    );
    let (st, v) = app.get(&format!("/v1/games/{}", g.id)).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("game_not_found"))
    );
}

#[actix_web::test]
async fn a_slow_terminate_callback_blocks_no_game() {
    use std::{
        sync::{
            atomic::{AtomicUsize, Ordering},
            Arc,
        },
        time::{Duration, Instant},
    };
    let done = Arc::new(AtomicUsize::new(0));
    let counter = done.clone();
    let callback: chessd_server::TerminateCallback =
        Arc::new(move |_info: &chessd_server::game::hooks::TerminateInfo| {
            std::thread::sleep(Duration::from_millis(1500));
            counter.fetch_add(1, Ordering::SeqCst);
        });
    let app = TestApp::with_callback(Config::defaults(), Some(callback)).await;
    let stopped = app.create_game(json!({})).await;
    let other = app.create_game(json!({})).await;
    let (st, _) = app
        .delete(&format!("/v1/games/{}", stopped.id), Some(&stopped.admin))
        .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    // While the callback sleeps, the other game (on the same thread) answers at once.
    let start = Instant::now();
    for (uci, secret) in [
        ("e2e4", &other.white),
        ("e7e5", &other.black),
        ("g1f3", &other.white),
    ] {
        let (st, _) = app
            .post(
                &format!("/v1/games/{}/moves", other.id),
                Some(secret),
                json!({"uci": uci}),
            )
            .await;
        assert_eq!(st, StatusCode::OK);
    }
    assert!(
        start.elapsed() < Duration::from_millis(500),
        "moves waited for the hook: {:?}",
        start.elapsed()
    );
    assert_eq!(done.load(Ordering::SeqCst), 0, "the hook is still running");
    for _ in 0..300 {
        if done.load(Ordering::SeqCst) == 1 {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(done.load(Ordering::SeqCst), 1);
}

#[actix_web::test]
async fn a_fen_with_full_move_number_zero_is_read_as_one() {
    let app = TestApp::start().await;
    let (st, v) = app
        .post(
            "/v1/games",
            None,
            json!({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0"}),
        )
        .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(
        v["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    let (st, v) = app
        .get("/v1/position?fen=8/8/8/8/8/8/8/K6k%20w%20-%20-%200%200&format=count")
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
}

#[actix_web::test]
async fn stored_games_are_listed_newest_first_a_page_at_a_time() {
    let app = TestApp::start().await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(app.create_game(json!({})).await);
    }
    // The second game is resigned, the fourth stopped.
    let (st, _) = app
        .post(&ids[1].uri("/resign"), Some(&ids[1].white), json!({}))
        .await;
    assert_eq!(st, StatusCode::OK);
    let (st, _, _) = app
        .raw(request(
            "DELETE",
            &ids[3].uri(""),
            Some(&ids[3].admin),
            None,
        ))
        .await;
    assert_eq!(st, StatusCode::NO_CONTENT);

    let page = |query: &str| format!("/v1/games{query}");
    let listed = |v: &Value| -> Vec<String> {
        v["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect()
    };
    let newest_first: Vec<String> = ids.iter().rev().map(|g| g.id.clone()).collect();
    let first = app.get_ok(&page("?limit=2")).await;
    assert_eq!(listed(&first), newest_first[..2]);
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let second = app
        .get_ok(&page(&format!("?limit=2&cursor={cursor}")))
        .await;
    assert_eq!(listed(&second), newest_first[2..4]);
    let cursor = second["next_cursor"].as_str().unwrap().to_string();
    let last = app
        .get_ok(&page(&format!("?limit=2&cursor={cursor}")))
        .await;
    assert_eq!(listed(&last), newest_first[4..]);
    assert_eq!(last["next_cursor"], Value::Null);
    // Nothing secret is listed.
    assert!(!first.to_string().contains(&ids[4].admin));
    // A cursor past the newest game lists from the newest (found by schemathesis).
    let far = app
        .get_ok(&page("?limit=1&cursor=9585660627395470530"))
        .await;
    assert_eq!(listed(&far), newest_first[..1]);

    let finished = app.get_ok(&page("?status=finished")).await;
    assert_eq!(listed(&finished), [ids[1].id.clone()]);
    assert_eq!(finished["games"][0]["result"], "black_wins");
    assert_eq!(finished["games"][0]["live"], true);
    let won = app.get_ok(&page("?status=black_wins")).await;
    assert_eq!(listed(&won), [ids[1].id.clone()]);
    let ongoing = app.get_ok(&page("?status=ongoing")).await;
    assert_eq!(ongoing["games"].as_array().unwrap().len(), 4);
    let stopped = ongoing["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == ids[3].id.as_str())
        .unwrap();
    assert_eq!(stopped["live"], false);

    for bad in [
        "?status=won",
        "?limit=0",
        "?limit=101",
        "?cursor=x",
        "?cursor=-1",
        "?page=2",
    ] {
        let (st, v) = app.get(&page(bad)).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_request")),
            "{bad}: {v}"
        );
    }
}

// Exactly once: idempotency keys and If-Match.

/// Sends `body` to `uri` with a bearer secret and extra headers; the whole answer.
async fn post_with(
    app: &TestApp,
    uri: &str,
    secret: &str,
    body: Value,
    headers: &[(&str, &str)],
) -> common::app::Answer {
    let mut req = request("POST", uri, Some(secret), Some(&body));
    for (name, value) in headers {
        req = req.insert_header((*name, *value));
    }
    app.send(req).await
}

/// Both sides may castle short: a castling move applied twice would castle White, then Black.
const BOTH_CASTLE: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

#[actix_web::test]
async fn a_move_sent_again_with_its_idempotency_key_is_answered_the_same_and_played_once() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({ "fen": BOTH_CASTLE })).await;
    let uri = g.uri("/moves");
    let key = [("Idempotency-Key", "castle-1")];
    let first = post_with(&app, &uri, &g.admin, json!({"san": "O-O"}), &key).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    assert!(first.headers.get("idempotent-replayed").is_none());
    let again = post_with(&app, &uri, &g.admin, json!({"san": "O-O"}), &key).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text());
    assert_eq!(
        again.header(header::HeaderName::from_static("idempotent-replayed")),
        "true"
    );
    assert_eq!(
        again.body, first.body,
        "the repeat is answered with the first body"
    );
    let view = app.view(&g).await;
    assert_eq!(view["moves"].as_array().unwrap().len(), 1, "{view}");
    assert_eq!(view["version"], 1);
    assert_eq!(view["turn"], "black", "Black has not castled: {view}");

    // The same key for another request is refused, and changes nothing.
    let reused = post_with(&app, &uri, &g.admin, json!({"san": "O-O-O"}), &key).await;
    assert_eq!(reused.status, StatusCode::CONFLICT);
    assert_eq!(reused.json()["error"]["code"], "idempotency_key_reused");
    assert_eq!(app.view(&g).await, view);
    // Whitespace and key order do not make another request.
    let spaced = app
        .send(
            request("POST", &uri, Some(&g.admin), None)
                .insert_header(("Idempotency-Key", "castle-1"))
                .insert_header((header::CONTENT_TYPE, "application/json"))
                .set_payload("{ \"san\" :  \"O-O\" }"),
        )
        .await;
    assert_eq!(spaced.status, StatusCode::OK, "{}", spaced.text());
    assert_eq!(spaced.body, first.body);

    // Each seat has keys of its own: Black's "castle-1" is a new request.
    let black = post_with(&app, &uri, &g.black, json!({"san": "O-O"}), &key).await;
    assert_eq!(black.status, StatusCode::OK, "{}", black.text());
    assert_eq!(app.view(&g).await["version"], 2);
}

#[actix_web::test]
async fn a_bad_idempotency_key_is_refused_before_anything_is_done() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    let long = "k".repeat(65);
    for bad in [long.as_str(), "two words"] {
        let answer = post_with(
            &app,
            &g.uri("/moves"),
            &g.white,
            json!({"uci": "e2e4"}),
            &[("Idempotency-Key", bad)],
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(answer.json()["error"]["code"], "invalid_request");
    }
    assert_eq!(app.view(&g).await["version"], 0);
}

#[actix_web::test]
async fn every_state_changing_game_route_answers_a_repeat_without_doing_it_again() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    app.play(&g, &["e2e4", "e7e5"]).await;
    let offer = [("Idempotency-Key", "offer")];
    let first = post_with(&app, &g.uri("/draw-offer"), &g.white, json!(null), &offer).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    let decline = [("Idempotency-Key", "decline")];
    let declined = post_with(
        &app,
        &g.uri("/draw-offer/decline"),
        &g.black,
        json!(null),
        &decline,
    )
    .await;
    assert_eq!(declined.status, StatusCode::OK, "{}", declined.text());
    // Offering again under the first key is not a second offer.
    let again = post_with(&app, &g.uri("/draw-offer"), &g.white, json!(null), &offer).await;
    assert_eq!(
        (again.status, again.body.clone()),
        (StatusCode::OK, first.body.clone())
    );
    assert!(app.view(&g).await["draw_offer"].is_null());
    let resign = [("Idempotency-Key", "resign")];
    let resigned = post_with(&app, &g.uri("/resign"), &g.black, json!({}), &resign).await;
    assert_eq!(resigned.status, StatusCode::OK, "{}", resigned.text());
    // A repeat after the game ended gets the first answer, not `game_over`.
    let again = post_with(&app, &g.uri("/resign"), &g.black, json!({}), &resign).await;
    assert_eq!(
        (again.status, again.body.clone()),
        (StatusCode::OK, resigned.body.clone())
    );
    assert_eq!(app.view(&g).await["version"], 5);
}

#[actix_web::test]
async fn if_match_refuses_a_move_made_on_a_version_the_game_has_left() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    let uri = g.uri("/moves");
    let ok = post_with(
        &app,
        &uri,
        &g.white,
        json!({"uci": "e2e4"}),
        &[("If-Match", "\"0\"")],
    )
    .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text());
    let before = app.view(&g).await;
    let stale = post_with(
        &app,
        &uri,
        &g.black,
        json!({"uci": "e7e5"}),
        &[("If-Match", "\"0\"")],
    )
    .await;
    assert_eq!(stale.status, StatusCode::CONFLICT);
    assert_eq!(stale.json()["error"]["code"], "version_mismatch");
    let stale = post_with(
        &app,
        &uri,
        &g.black,
        json!({"uci": "e7e5", "version": 0}),
        &[],
    )
    .await;
    assert_eq!(stale.json()["error"]["code"], "version_mismatch");
    let disagree = post_with(
        &app,
        &uri,
        &g.black,
        json!({"uci": "e7e5", "version": 1}),
        &[("If-Match", "2")],
    )
    .await;
    assert_eq!(disagree.status, StatusCode::CONFLICT);
    assert_eq!(disagree.json()["error"]["code"], "version_mismatch");
    assert_eq!(app.view(&g).await, before);
    let ok = post_with(
        &app,
        &uri,
        &g.black,
        json!({"uci": "e7e5", "version": 1}),
        &[],
    )
    .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text());
    // The game's version is its ETag.
    let read = app.send(request("GET", &g.uri(""), None, None)).await;
    assert_eq!(read.header(header::ETAG), "\"2\"");
}

#[actix_web::test]
async fn an_idempotency_key_outlives_the_games_eviction_from_memory() {
    let mut config = Config::defaults();
    config.store.evict_after_secs = 1;
    let (state, scratch) = common::app::scratch_state(config, None).await;
    let games = state.games.clone();
    let app = TestApp::with_scratch_state(state, scratch).await;
    let g = app.create_game(json!({ "fen": BOTH_CASTLE })).await;
    let key = [("Idempotency-Key", "before-eviction")];
    let first = post_with(
        &app,
        &g.uri("/moves"),
        &g.admin,
        json!({"san": "O-O"}),
        &key,
    )
    .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    // Untouched, the game leaves memory; the repeat brings it back from the store.
    common::app::until_no_game_in_memory(&games, "the game never left memory").await;
    let again = post_with(
        &app,
        &g.uri("/moves"),
        &g.admin,
        json!({"san": "O-O"}),
        &key,
    )
    .await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text());
    assert_eq!(again.body, first.body);
    assert_eq!(
        again.header(header::HeaderName::from_static("idempotent-replayed")),
        "true"
    );
    assert_eq!(app.view(&g).await["version"], 1);
}
