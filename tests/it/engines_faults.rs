//! Engine faults through the real server, with fake engines (`tests/fixtures/fake_engine.sh`, run
//! by `sh`) and closed or unroutable TCP addresses: a handshake that never ends, garbage output,
//! illegal moves, a search that overruns its deadline, a busy engine, and unreachable engines,
//! also at game creation (no game is created).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{
    engines::{assert_documented, conforms, fake_engine, openapi, start, Api},
    free_port, ws_connect, ws_json,
};

/// The operator token of the servers that take raw engine lines.
const OPERATOR: &str = "test-operator";

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

#[actix_web::test]
async fn a_handshake_without_uciok_fails_at_its_deadline_and_creates_no_game() {
    let mut env = fake_engine("mute", "no_uciok");
    env.push((
        "CHESSD_ENGINES__MUTE__HANDSHAKE_TIMEOUT_MS".into(),
        "400".into(),
    ));
    let server = start(&env);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    let t = Instant::now();
    let (status, v) = api
        .post(
            &format!("/v1/games/{}/engine", g.id),
            Some(&g.white),
            json!({"name": "mute"}),
        )
        .await;
    let took = t.elapsed();
    assert_eq!((status, code(&v)), (502, "engine_handshake_failed"), "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("uciok"),
        "{v}"
    );
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (status, v) = api.get(&format!("/v1/games/{}/engine", g.id)).await;
    assert_eq!((status, code(&v)), (409, "no_engine"));

    // As an opponent at creation: an error and no game.
    let (_, health) = api.get("/health").await;
    let games = health["games"].as_u64().unwrap();
    for (opponent, want) in [
        (
            json!({"engine": "mute", "plays": "black"}),
            (502, "engine_handshake_failed"),
        ),
        (
            json!({"engine": "nope", "plays": "black"}),
            (422, "engine_not_found"),
        ),
        (
            json!({"engine": "mute", "plays": "blue"}),
            (400, "invalid_request"),
        ),
    ] {
        let (status, v) = api
            .post("/v1/games", None, json!({ "opponent": opponent }))
            .await;
        assert_eq!((status, code(&v)), want, "{v}");
    }
    let (_, health) = api.get("/health").await;
    assert_eq!(
        health["games"].as_u64().unwrap(),
        games,
        "a game was created"
    );
}

#[actix_web::test]
async fn closed_and_unroutable_tcp_addresses_are_unreachable_within_the_connect_timeout() {
    let closed = format!("127.0.0.1:{}", free_port());
    let env: Vec<(String, String)> = vec![
        ("CHESSD_ENGINES__CLOSED__TCP".into(), closed),
        // TEST-NET-1 (RFC 5737): never routed, so connecting hangs (or fails at once).
        (
            "CHESSD_ENGINES__BLACKHOLE__TCP".into(),
            "192.0.2.1:9".into(),
        ),
        (
            "CHESSD_ENGINES__BLACKHOLE__CONNECT_TIMEOUT_MS".into(),
            "300".into(),
        ),
        (
            "CHESSD_ENGINES__MISSING__COMMAND".into(),
            "no-such-engine-chessd".into(),
        ),
    ];
    let server = start(&env);
    let api = Api::new(&server);
    let (_, list) = api.get("/v1/engines").await;
    for e in list["engines"].as_array().unwrap() {
        if ["closed", "blackhole", "missing"].contains(&e["name"].as_str().unwrap()) {
            assert_eq!(e["reachable"], false, "{e}");
        }
    }
    let g = api.game(json!({})).await;
    for (name, limit) in [("closed", 1000), ("blackhole", 300), ("missing", 1000)] {
        let t = Instant::now();
        let (status, v) = api
            .post(
                &format!("/v1/games/{}/engine", g.id),
                Some(&g.admin),
                json!({"name": name}),
            )
            .await;
        let took = t.elapsed();
        assert_eq!(
            (status, code(&v)),
            (502, "engine_unreachable"),
            "{name}: {v}"
        );
        assert!(
            took < Duration::from_millis(limit + 500),
            "{name}: {took:?}"
        );
    }
}

#[actix_web::test]
async fn garbage_output_is_survived() {
    let server = start(&fake_engine("junk", "garbage"));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    let view = api.attach(&g, "junk").await;
    assert_eq!(view["id_name"], "Garbage");
    assert_eq!(view["options"].as_array().unwrap().len(), 1, "{view}");
    let mut conn = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    assert_eq!(ws_json(&mut conn).await["type"], "hello");
    assert_eq!(ws_json(&mut conn).await["type"], "state");
    let path = |sub: &str| format!("/v1/games/{}{sub}", g.id);
    let (status, hint) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.white),
            json!({"movetime": 10}),
        )
        .await;
    assert_eq!(status, 200, "{hint}");
    assert_eq!(hint["bestmove"], "e2e4");
    assert_eq!(hint["ponder"], "e7e5");
    assert_eq!(hint["info"]["score"]["cp"], 13);
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.white),
            json!({"move": "e4", "go": {"movetime": 10}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["engine_move"], json!({"uci": "e7e5", "san": "e5"}));
    // The junk reached the WebSocket as raw lines; the PV's SAN stops at the bogus move.
    let mut lines = Vec::new();
    let mut infos = Vec::new();
    while lines.len() < 8 || infos.is_empty() {
        let f = ws_json(&mut conn).await;
        match f["type"].as_str().unwrap() {
            "engine_line" => lines.push(f["line"].as_str().unwrap().to_string()),
            "engine_info" => infos.push(f),
            _ => {}
        }
    }
    assert!(lines.iter().any(|l| l.contains("not utf-8")), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.len() == 4096 && l.bytes().all(|b| b == b'x')),
        "the long line is cut"
    );
    assert!(lines.contains(&"info string partial line split across writes".to_string()));
    assert_eq!(infos[0]["pv_uci"], json!(["e2e4", "bogus"]));
    assert_eq!(infos[0]["pv_san"], json!(["e4"]));
}

#[actix_web::test]
async fn an_illegal_engine_move_is_refused_and_never_applied() {
    let server = start(&fake_engine("liar", "illegal"));
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "liar").await;
    let path = |sub: &str| format!("/v1/games/{}{sub}", g.id);
    let mut conn = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    assert_eq!(ws_json(&mut conn).await["type"], "hello");
    assert_eq!(ws_json(&mut conn).await["type"], "state");
    let before = api.state(&g).await;
    let (status, v) = api
        .post(
            &path("/engine/bestmove"),
            Some(&g.white),
            json!({"movetime": 10}),
        )
        .await;
    assert_eq!((status, code(&v)), (502, "engine_illegal_move"), "{v}");
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.white),
            json!({"go": {"movetime": 10}}),
        )
        .await;
    assert_eq!((status, code(&v)), (502, "engine_illegal_move"), "{v}");
    assert_eq!(api.state(&g).await, before, "the illegal move was applied");
    // With a player's move: the player's move stays, the engine's is refused.
    let (status, v) = api
        .post(
            &path("/engine/play"),
            Some(&g.white),
            json!({"move": "d2d4"}),
        )
        .await;
    assert_eq!((status, code(&v)), (502, "engine_illegal_move"), "{v}");
    let after = api.state(&g).await;
    assert_eq!(after["moves"], json!([{"uci": "d2d4", "san": "d4"}]));
    let mut errors = 0;
    while errors < 3 {
        let f = ws_json(&mut conn).await;
        if f["type"] == "engine_error" {
            assert_eq!(f["code"], "engine_illegal_move");
            errors += 1;
        }
    }
    // The engine stays attached and free.
    let (_, view) = api.get(&path("/engine")).await;
    assert_eq!(view["busy"], false, "{view}");
}

#[actix_web::test]
async fn a_busy_or_late_engine_is_refused_or_timed_out_and_the_game_stays_playable() {
    let mut env = fake_engine("slow", "slow");
    env.push((
        "CHESSD_ENGINES__SLOW__SEARCH_TIMEOUT_MS".into(),
        "300".into(),
    ));
    env.push((
        "CHESSD_ENGINES__SLOW__HANDSHAKE_TIMEOUT_MS".into(),
        "500".into(),
    ));
    let server = start(&env);
    let api = Api::new(&server);
    let g = api.game(json!({})).await;
    api.attach(&g, "slow").await;
    let path = |sub: &str| format!("/v1/games/{}{sub}", g.id);
    // While the engine chooses its move, the game refuses other moves and engine requests;
    // reads still answer at once.
    let play_url = path("/engine/play");
    let play = api.post(&play_url, Some(&g.admin), json!({"go": {"movetime": 10}}));
    let others = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let (s1, v1) = api
            .post(&path("/moves"), Some(&g.white), json!({"uci": "e2e4"}))
            .await;
        let (s2, v2) = api
            .post(
                &path("/engine/bestmove"),
                Some(&g.black),
                json!({"movetime": 10}),
            )
            .await;
        let t = Instant::now();
        let (s3, _) = api.get(&path("")).await;
        let read = t.elapsed();
        let (_, view) = api.get(&path("/engine")).await;
        ((s1, v1), (s2, v2), (s3, read), view)
    };
    let ((status, v), ((s1, v1), (s2, v2), (s3, read), view)) = tokio::join!(play, others);
    assert_eq!((s1, code(&v1)), (409, "engine_busy"), "{v1}");
    assert_eq!((s2, code(&v2)), (409, "engine_busy"), "{v2}");
    assert_eq!(s3, 200);
    assert!(read < Duration::from_millis(200), "a read waited {read:?}");
    assert_eq!(view["busy"], true);
    // movetime 10 + search_timeout 300: the engine (which sleeps 2 s) is too late.
    assert_eq!((status, code(&v)), (504, "engine_timeout"), "{v}");
    assert!(api.state(&g).await["moves"].as_array().unwrap().is_empty());
    // The game is playable at once; the hung engine is killed after its grace.
    let (status, v) = api
        .post(&path("/moves"), Some(&g.white), json!({"uci": "e2e4"}))
        .await;
    assert_eq!(status, 200, "{v}");
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (status, _) = api.get(&path("/engine")).await;
        if status == 409 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the hung engine was never dropped"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn answers_match_the_openapi_document() {
    let mut env = fake_engine("junk", "garbage");
    env.extend(fake_engine("liar", "illegal"));
    env.push(("CHESSD_AUTH__OPERATOR_TOKEN".into(), OPERATOR.into()));
    let server = start(&env);
    let api = Api::new(&server);
    let doc = openapi();
    // The checker itself refuses what does not match.
    let view = json!({"$ref": "#/components/schemas/EngineView"});
    assert!(conforms(&doc, &view, &json!({"name": "x"}), "x").is_err());
    let go = json!({"$ref": "#/components/schemas/GoLimits"});
    assert!(conforms(&doc, &go, &json!({"movtime": 1}), "x").is_err());
    assert!(conforms(&doc, &go, &json!({"movetime": "1"}), "x").is_err());
    let (status, v) = api.get("/v1/engines").await;
    assert_documented(&doc, "/v1/engines", "get", status, &v);
    let (status, v) = api
        .post(
            "/v1/games",
            None,
            json!({"opponent": {"engine": "nope", "plays": "white"}}),
        )
        .await;
    assert_documented(&doc, "/v1/games", "post", status, &v);
    let g = api.game(json!({})).await;
    let p = |sub: &str| format!("/v1/games/{}/engine{sub}", g.id);
    let d = |sub: &str| format!("/v1/games/{{id}}/engine{sub}");
    let mut conn = ws_connect(&api.client, &server.ws_url(&g.id, "")).await;
    let (status, v) = api.get(&p("")).await;
    assert_eq!(status, 409);
    assert_documented(&doc, &d(""), "get", status, &v);
    let (status, v) = api.post(&p("/bestmove"), Some(&g.white), json!({})).await;
    assert_eq!(status, 409);
    assert_documented(&doc, &d("/bestmove"), "post", status, &v);
    let admin = Some(g.admin.as_str());
    let calls = [
        ("post", "", json!({"name": "liar"}), 200),
        ("post", "/bestmove", json!({"movetime": 5}), 502),
        ("post", "/play", json!({"move": "e4"}), 502),
        ("post", "", json!({"name": "junk"}), 200),
        ("get", "", json!(null), 200),
        (
            "post",
            "/bestmove",
            json!({"movetime": 5, "timeout_ms": 2000}),
            200,
        ),
        ("post", "/play", json!({"go": {"depth": 1}}), 200),
        ("post", "/position", json!({"moves": ["e2e4"]}), 200),
        ("post", "/sync", json!({}), 200),
        (
            "post",
            "/command",
            json!({"command": "isready", "wait": false}),
            200,
        ),
        ("post", "/command", json!({"command": "quit"}), 422),
        ("post", "/analysis", json!({"go": {"depth": 1}}), 200),
        ("delete", "/analysis", json!(null), 200),
        ("delete", "", json!(null), 204),
        ("delete", "", json!(null), 409),
    ];
    for (method, sub, body, want) in calls {
        // Raw lines are the operator's; everything else the game's admin.
        let secret = if sub == "/command" {
            Some(OPERATOR)
        } else {
            admin
        };
        let (status, v) = match method {
            "get" => api.get(&p(sub)).await,
            "delete" => api.delete(&p(sub), secret).await,
            _ => api.post(&p(sub), secret, body.clone()).await,
        };
        assert_eq!(status, want, "{method} {sub} {body}: {v}");
        assert_documented(&doc, &d(sub), method, status, &v);
    }
    // The WebSocket's engine frames are documented server frames.
    let frame = &doc["components"]["schemas"]["WsServerFrame"];
    let mut kinds = std::collections::BTreeSet::new();
    while kinds.len() < 5 {
        let f = ws_json(&mut conn).await;
        if let Err(e) = conforms(&doc, frame, &f, "ws") {
            panic!("{e}");
        }
        let kind = f["type"].as_str().unwrap().to_string();
        if kind.starts_with("engine_") {
            kinds.insert(kind);
        }
    }
}
