//! The OpenAPI document (generated from the code by `chessd_server::openapi`, served at
//! `/openapi.json`) against the server: every route of the app's route table
//! (`chessd_server::api::routes::route_table`, which is what the app registers) is documented and
//! nothing else is, every error code of `ErrorCode::ALL` is listed (in the document and in the
//! error table of `docs/api.md`, with its status), the documented secrets are the ones the server
//! enforces, and real answers match the documented schemas (checked with the `jsonschema` crate).

use std::collections::{BTreeMap, BTreeSet};

use actix_web::http::{header, StatusCode};
use chessd_server::api::error::ErrorCode;
use serde_json::{json, Value};

use crate::common::{
    app::{request, TestApp},
    schema::check as validate,
};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn document() -> Value {
    crate::common::schema::document()
}

fn source(path: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every (METHOD, path) of the app's route table: what `chessd_server::api::configure` registers.
fn registered_routes() -> BTreeSet<(String, String)> {
    let table = chessd_server::api::routes::route_table();
    let routes: BTreeSet<(String, String)> = table
        .iter()
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect();
    assert_eq!(routes.len(), table.len(), "a route twice in the table");
    routes
}

/// Every (METHOD, path) in the document.
fn documented_routes(doc: &Value) -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths object") {
        for m in METHODS {
            if item.get(m).is_some() {
                routes.insert((m.to_ascii_uppercase(), path.clone()));
            }
        }
    }
    routes
}

/// `schema` itself, or what its `$ref` names.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r.strip_prefix('#').expect("local $ref");
            let target = doc
                .pointer(pointer)
                .unwrap_or_else(|| panic!("unresolved $ref {r}"));
            resolve(doc, target)
        }
        None => schema,
    }
}

// ----- In-process service -----

async fn app() -> TestApp {
    // Every in-process request is the same client; security.rs tests the quotas.
    TestApp::tweaked(|c| c.quotas = chessd_server::config::QuotasConfig::unlimited()).await
}

/// The documented schema of an answer (JSON only).
fn response_schema<'a>(doc: &'a Value, path: &str, method: &str, status: u16) -> &'a Value {
    let responses = &doc["paths"][path][method]["responses"];
    let resp = resolve(doc, &responses[status.to_string()]);
    assert!(
        resp.is_object(),
        "{} {path} does not document status {status}",
        method.to_uppercase()
    );
    &resp["content"]["application/json"]["schema"]
}

/// Asserts that a real answer is documented for its operation and matches the schema.
fn assert_documented(doc: &Value, path: &str, method: &str, status: StatusCode, body: &Value) {
    let schema = response_schema(doc, path, method, status.as_u16());
    if let Err(e) = validate(doc, schema, body, "body") {
        panic!(
            "{} {path} answered {status} not as documented: {e}",
            method.to_uppercase()
        );
    }
}

// ----- The tests -----

#[test]
fn the_document_is_openapi_3_with_info_paths_and_components() {
    let doc = document();
    let version = doc["openapi"].as_str().expect("an openapi version");
    assert!(version.starts_with("3."), "OpenAPI {version}");
    assert!(doc["info"]["title"].is_string() && doc["info"]["version"].is_string());
    assert!(!doc["paths"].as_object().unwrap().is_empty());
    assert!(doc["components"]["schemas"].is_object());
    assert_eq!(
        doc["components"]["securitySchemes"]["bearerAuth"]["scheme"],
        "bearer"
    );
    // Every $ref names something that exists.
    fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(o) => {
                if let Some(r) = o.get("$ref").and_then(Value::as_str) {
                    out.push(r);
                }
                o.values().for_each(|x| refs(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(all.len() > 50, "the document uses shared schemas");
    for r in all {
        let pointer = r.strip_prefix('#').expect("local refs only");
        assert!(doc.pointer(pointer).is_some(), "dangling $ref {r}");
    }
    // Every operation has a unique id and at least one success answer.
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for m in METHODS {
            let Some(op) = item.get(m) else { continue };
            let id = op["operationId"].as_str().expect("operationId");
            assert!(ids.insert(id), "duplicate operationId {id}");
            let responses = op["responses"].as_object().expect("responses");
            assert!(
                responses.keys().any(|k| k.starts_with('2') || k == "101"),
                "{m} {path} documents no success"
            );
        }
    }
}

#[test]
fn the_route_table_holds_the_known_routes() {
    let routes = registered_routes();
    for (m, p) in [
        ("GET", "/health"),
        ("GET", "/openapi.json"),
        ("GET", "/v1/position"),
        ("POST", "/v1/games"),
        ("GET", "/v1/games"),
        ("GET", "/v1/games/{id}"),
        ("DELETE", "/v1/games/{id}"),
        ("POST", "/v1/games/{id}/moves"),
        ("GET", "/v1/games/{id}/moves"),
        ("POST", "/v1/games/{id}/draw-offer/accept"),
        ("PATCH", "/v1/games/{id}/options"),
        ("GET", "/v1/games/{id}/ws"),
    ] {
        assert!(
            routes.contains(&(m.to_string(), p.to_string())),
            "the table misses {m} {p}: {routes:?}"
        );
    }
    assert!(routes.len() >= 30, "{routes:?}");
    assert!(
        !routes.contains(&("GET".to_string(), "/v1/position/move".to_string())),
        "POST-only route read as GET"
    );
}

#[actix_web::test]
async fn the_app_answers_every_route_of_its_table() {
    // The table is what is registered: each of its routes reaches a handler (no 404 from the
    // fallback, no 405), whatever the handler then says about the unknown id.
    let app = app().await;
    let unknown = "00000000-0000-4000-8000-000000000000";
    for route in chessd_server::api::routes::route_table() {
        let method = route.method.as_str().to_ascii_lowercase();
        let uri = route.path.replace("{id}", unknown);
        let (status, _, body) = app.exchange(request(&method, &uri, None, None)).await;
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{route:?}: {body}");
        assert_ne!(body["error"]["code"], "not_found", "{route:?}: {body}");
    }
}

#[test]
fn every_registered_route_is_documented_and_no_other() {
    let registered = registered_routes();
    let documented = documented_routes(&document());
    let missing: Vec<_> = registered.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&registered).collect();
    assert!(
        missing.is_empty(),
        "routes not in the document: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "the document has routes that do not exist: {extra:?}"
    );
}

#[actix_web::test]
async fn the_server_answers_every_documented_route_and_refuses_other_methods() {
    let doc = document();
    let app = app().await;
    let unknown_game = "00000000-0000-4000-8000-000000000000";
    for (path, item) in doc["paths"].as_object().unwrap() {
        let uri = path.replace("{id}", unknown_game);
        let documented: BTreeSet<String> = METHODS
            .iter()
            .filter(|m| item.get(**m).is_some())
            .map(|m| m.to_ascii_uppercase())
            .collect();
        for m in METHODS {
            let (status, _, body) = app.exchange(request(m, &uri, None, None)).await;
            if item.get(m).is_some() {
                assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{m} {path}");
                assert_ne!(body["error"]["code"], "not_found", "{m} {path}: {body}");
                if status.is_client_error() && body.get("error").is_some() {
                    // A documented operation's errors are documented too.
                    let responses = &item[m]["responses"];
                    assert!(
                        responses.get(status.as_str()).is_some(),
                        "{m} {path} answered an undocumented {status}: {body}"
                    );
                }
            } else {
                assert_eq!(
                    status,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{m} {path} is not documented but answered: {body}"
                );
                assert_eq!(
                    allowed_methods(&app, m, &uri).await,
                    documented,
                    "the 405 to {m} {path} lists the documented methods in `Allow`"
                );
            }
        }
    }
    let (status, _, body) = app
        .exchange(request("get", "/v1/nowhere", None, None))
        .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (StatusCode::NOT_FOUND, &json!("not_found"))
    );
}

/// The methods a request's answer lists in its `Allow` header (RFC 9110 requires one on a 405).
async fn allowed_methods(app: &TestApp, method: &str, uri: &str) -> BTreeSet<String> {
    let answer = app.send(request(method, uri, None, None)).await;
    let allow = answer
        .headers
        .get(header::ALLOW)
        .unwrap_or_else(|| panic!("{method} {uri}: no Allow header"))
        .to_str()
        .unwrap();
    allow
        .split(',')
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

#[test]
fn every_error_code_is_documented_with_its_status() {
    let doc = document();
    let schema = &doc["components"]["schemas"]["ErrorCode"];
    let listed: Vec<&str> = schema["enum"]
        .as_array()
        .expect("an ErrorCode enum")
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let known: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        listed, known,
        "the document's ErrorCode enum and ErrorCode::ALL differ"
    );
    let description = schema["description"].as_str().unwrap();
    let guide = source("docs/api.md");
    for code in ErrorCode::ALL {
        let (code, status) = (code.as_str(), code.status().as_u16());
        assert!(
            description.contains(&format!("`{code}` ({status})")),
            "the ErrorCode description lacks `{code}` ({status})"
        );
        assert!(
            guide.contains(&format!("| `{code}` | {status} |")),
            "the error table of docs/api.md lacks `{code}` with status {status}"
        );
    }
    // The error body is {error: {code, message}}.
    let error = json!({"$ref": "#/components/schemas/Error"});
    validate(
        &doc,
        &error,
        &json!({"error": {"code": "illegal_move", "message": "no"}}),
        "error",
    )
    .unwrap();
    assert!(validate(
        &doc,
        &error,
        &json!({"error": {"code": "nope", "message": "no"}}),
        "e"
    )
    .is_err());
}

/// Who is refused (401 without a secret, 403 with another) by an operation that needs `secret`.
fn refused(secret: &str, caller: &str) -> bool {
    match (secret, caller) {
        (_, "anonymous" | "wrong") => true,
        ("admin", _) => caller != "admin",
        ("seat", _) => caller == "admin",
        ("seat-or-admin" | "side-to-move", _) => false,
        // The server operator's token, which no game secret is (and none is configured here).
        ("operator", _) => true,
        (other, _) => panic!("unknown x-chessd-secret {other}"),
    }
}

/// A valid body for each operation that takes one.
fn sample_body(op_id: &str, saved_state: &Value) -> Option<Value> {
    match op_id {
        "makeMove" => Some(json!({"uci": "e2e4"})),
        "duelStep" => Some(json!({"action": "challenge"})),
        "loadPgn" => Some(json!({"pgn": "1. d4 d5 *"})),
        "loadFen" => Some(json!({"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"})),
        "restoreState" => Some(saved_state.clone()),
        "setDraw" => Some(json!({"note": "rain"})),
        "setWinner" => Some(json!({"winner": "black"})),
        "setOptions" => Some(json!({"idle_timeout_secs": 0})),
        _ => None,
    }
}

#[actix_web::test]
async fn the_documented_secrets_are_the_ones_enforced() {
    let doc = document();
    let app = app().await;
    let mut secured = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.contains("{id}") {
            continue;
        }
        for m in METHODS {
            let Some(op) = item.get(m) else { continue };
            let op_id = op["operationId"].as_str().unwrap();
            let secret = op["x-chessd-secret"].as_str();
            if op_id == "connectWebSocket" {
                assert_eq!(secret, Some("seat-optional"));
                continue;
            }
            if let Some(s) = secret {
                secured += 1;
                assert!(op["security"].is_array(), "{op_id} lists no security");
                assert!(
                    op["responses"]["403"].is_object(),
                    "{op_id} documents no 403"
                );
                assert!(
                    op["responses"]["401"].is_object(),
                    "{op_id} documents no 401"
                );
                assert_ne!(s, "seat-optional", "{op_id}");
            } else {
                assert!(op.get("security").is_none(), "{op_id}");
                assert!(
                    op["responses"].get("403").is_none(),
                    "{op_id} documents a 403"
                );
            }
            if secret == Some("job") || secret == Some("seek") {
                // A job's or a seek's own secret, not a game's: api_jobs.rs and lobby.rs
                // refuse the others.
                continue;
            }
            for caller in ["anonymous", "wrong", "white", "black", "admin"] {
                let (game, _) = app.create_game_answer(json!({})).await;
                let uri = path.replace("{id}", &game.id);
                let state_uri = format!("/v1/games/{}/state", game.id);
                let (_, _, saved) = app.exchange(request("get", &state_uri, None, None)).await;
                let view_uri = format!("/v1/games/{}", game.id);
                let (_, _, before) = app.exchange(request("get", &view_uri, None, None)).await;
                let token = match caller {
                    "anonymous" => None,
                    "wrong" => Some("0123456789abcdef0123456789abcdef"),
                    "white" => Some(game.white.as_str()),
                    "black" => Some(game.black.as_str()),
                    _ => Some(game.admin.as_str()),
                };
                let body = sample_body(op_id, &saved);
                let (status, _, answer) =
                    app.exchange(request(m, &uri, token, body.as_ref())).await;
                let expect_refusal = secret.is_some_and(|s| refused(s, caller));
                if expect_refusal {
                    let (expected, code) = match (secret, token) {
                        (_, None) => (StatusCode::UNAUTHORIZED, "unauthorized"),
                        (Some("operator"), _) => (StatusCode::FORBIDDEN, "operator_disabled"),
                        _ => (StatusCode::FORBIDDEN, "forbidden"),
                    };
                    assert_eq!(
                        (status, &answer["error"]["code"]),
                        (expected, &json!(code)),
                        "{op_id} by {caller}: {answer}"
                    );
                    let (_, _, after) = app.exchange(request("get", &view_uri, None, None)).await;
                    assert_eq!(
                        before, after,
                        "{op_id} by {caller} was refused but changed the game"
                    );
                } else {
                    assert!(
                        status != StatusCode::FORBIDDEN && status != StatusCode::UNAUTHORIZED,
                        "{op_id} by {caller}: {status} {answer}"
                    );
                }
            }
        }
    }
    assert!(secured >= 12, "only {secured} operations need a secret");
}

#[actix_web::test]
async fn real_answers_match_the_documented_schemas() {
    let doc = document();
    let app = app().await;
    let body = json!({
        "time_control": {"initial_ms": 600000, "increment_ms": 2000},
        "draw_policy": "claims",
        "idle_timeout_secs": 0
    });
    let (game, created) = app.create_game_answer(body).await;
    assert_documented(&doc, "/v1/games", "post", StatusCode::CREATED, &created);
    let g = |sub: &str| format!("/v1/games/{}{sub}", game.id);
    let moves = "/v1/games/{id}/moves";
    for (secret, mv) in [
        (&game.white, json!({"uci": "e2e4"})),
        (&game.black, json!({"san": "e5"})),
        (&game.white, json!({"from": 6, "to": 21})),
    ] {
        let (status, _, reply) = app
            .exchange(request("post", &g("/moves"), Some(secret), Some(&mv)))
            .await;
        assert_eq!(status, StatusCode::OK, "{reply}");
        assert_documented(&doc, moves, "post", status, &reply);
        assert!(
            reply["clocks"].is_object(),
            "a timed game's move has clocks"
        );
    }
    // Errors are documented for the operation that gives them.
    for (secret, mv, code) in [
        (&game.black, json!({"uci": "e1e2"}), "illegal_move"),
        (&game.white, json!({"uci": "g8f6"}), "not_your_turn"),
        (
            &game.black,
            json!({"uci": "g8f6", "san": "Nf6"}),
            "invalid_request",
        ),
    ] {
        let (status, _, reply) = app
            .exchange(request("post", &g("/moves"), Some(secret), Some(&mv)))
            .await;
        assert_eq!(reply["error"]["code"], code, "{reply}");
        assert_documented(&doc, moves, "post", status, &reply);
    }
    let reads = [
        ("/v1/games/{id}", ""),
        ("/v1/games/{id}/fen", ""),
        ("/v1/games/{id}/status", ""),
        ("/v1/games/{id}/turn", ""),
        ("/v1/games/{id}/legal-moves", ""),
        ("/v1/games/{id}/legal-moves", "?format=index"),
        ("/v1/games/{id}/legal-moves", "?format=count"),
        ("/v1/games/{id}/pieces", ""),
        ("/v1/games/{id}/pieces", "?squares=index"),
        ("/v1/games/{id}/moves", ""),
        ("/v1/games/{id}/state", ""),
        ("/v1/games/{id}/options", ""),
    ];
    for (path, query) in reads {
        let uri = format!("{}{query}", path.replace("{id}", &game.id));
        let (status, _, v) = app.exchange(request("get", &uri, None, None)).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {v}");
        assert_documented(&doc, path, "get", status, &v);
    }
    for (path, media) in [
        ("/v1/games/{id}/board", "text/plain"),
        ("/v1/games/{id}/pgn", "application/x-chess-pgn"),
        ("/v1/games/export", "application/x-chess-pgn"),
        ("/metrics", "text/plain"),
    ] {
        let (status, content_type, _) = app
            .exchange(request("get", &path.replace("{id}", &game.id), None, None))
            .await;
        assert_eq!(status, StatusCode::OK);
        assert!(content_type.starts_with(media), "{path}: {content_type}");
        assert!(doc["paths"][path]["get"]["responses"]["200"]["content"][media].is_object());
    }
    let (_, _, saved) = app.exchange(request("get", &g("/state"), None, None)).await;
    let admin = Some(game.admin.as_str());
    let commands = [
        ("post", "/draw-offer", None, Some(game.black.as_str())),
        (
            "post",
            "/draw-offer/decline",
            None,
            Some(game.white.as_str()),
        ),
        (
            "patch",
            "/options",
            Some(json!({"idle_timeout_secs": 3600})),
            admin,
        ),
        ("put", "/state", Some(saved), admin),
        (
            "put",
            "/position",
            Some(json!({"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"})),
            admin,
        ),
        (
            "put",
            "/pgn",
            Some(json!({"pgn": "1. e4 e5 2. Nf3 *"})),
            admin,
        ),
        ("post", "/draw-claim", None, Some(game.white.as_str())),
        (
            "post",
            "/winner",
            Some(json!({"winner": "white", "note": "fair play"})),
            admin,
        ),
        ("post", "/draw", None, admin),
    ];
    for (method, sub, body, secret) in commands {
        let (status, _, v) = app
            .exchange(request(method, &g(sub), secret, body.as_ref()))
            .await;
        assert_documented(&doc, &format!("/v1/games/{{id}}{sub}"), method, status, &v);
        if !status.is_success() {
            // The claim (nothing to claim) and the second result (already set) are refused.
            assert!(sub == "/draw-claim" || sub == "/draw", "{sub}: {v}");
            assert_eq!(status, StatusCode::CONFLICT, "{sub}: {v}");
        }
    }
    let (status, _, v) = app
        .exchange(request("get", &g("/status"), None, None))
        .await;
    assert_documented(&doc, "/v1/games/{id}/status", "get", status, &v);
    assert_eq!(v["status"]["note"], "fair play");
    let (status, _, v) = app
        .exchange(request(
            "post",
            &g("/resign"),
            admin,
            Some(&json!({"side": "black"})),
        ))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_documented(&doc, "/v1/games/{id}/resign", "post", status, &v);

    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (status, _, v) = app
        .exchange(request(
            "post",
            "/v1/position/move",
            None,
            Some(&json!({"fen": start, "move": "Nf3"})),
        ))
        .await;
    assert_documented(&doc, "/v1/position/move", "post", status, &v);
    let mate = "7k/6Q1/6K1/8/8/8/8/8%20b%20-%20-%200%201";
    for query in [
        format!("?fen={mate}"),
        "?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR%20w%20KQkq%20-%200%201&format=index"
            .to_string(),
    ] {
        let (status, _, v) = app
            .exchange(request("get", &format!("/v1/position{query}"), None, None))
            .await;
        assert_eq!(status, StatusCode::OK, "{v}");
        assert_documented(&doc, "/v1/position", "get", status, &v);
    }
    let (status, _, v) = app
        .exchange(request("get", "/v1/position?fen=nonsense", None, None))
        .await;
    assert_eq!(v["error"]["code"], "invalid_fen");
    assert_documented(&doc, "/v1/position", "get", status, &v);
    let (status, _, v) = app.exchange(request("get", "/health", None, None)).await;
    assert_documented(&doc, "/health", "get", status, &v);
    let (status, _, v) = app.exchange(request("delete", &g(""), admin, None)).await;
    assert_eq!(
        (status, v),
        (StatusCode::NO_CONTENT, Value::String(String::new()))
    );
    assert!(doc["paths"]["/v1/games/{id}"]["delete"]["responses"]["204"].is_object());
}

#[actix_web::test]
async fn every_line_of_an_ndjson_export_matches_its_documented_schema() {
    let doc = document();
    let app = app().await;
    // A timed game under way, a finished one, a stopped one, a Chess960 one.
    let timed = app
        .create_game(json!({"time_control": {"initial_ms": 60000, "increment_ms": 1000}}))
        .await;
    app.play(&timed, &["e2e4", "e7e5"]).await;
    let mate = app.create_game(json!({})).await;
    app.play(&mate, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    let stopped = app.create_game(json!({})).await;
    app.delete(&stopped.uri(""), Some(&stopped.admin)).await;
    app.create_game(json!({"fen": "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"}))
        .await;
    let media = "application/x-ndjson";
    let answer = app
        .send(request("get", "/v1/games/export", None, None).insert_header((header::ACCEPT, media)))
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.content_type().starts_with(media));
    let schema =
        &doc["paths"]["/v1/games/export"]["get"]["responses"]["200"]["content"][media]["schema"];
    let text = answer.text();
    assert_eq!(text.lines().count(), 4, "{text}");
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        validate(&doc, schema, &v, "line").unwrap_or_else(|e| panic!("{e}"));
    }
}

#[actix_web::test]
async fn job_answers_match_the_documented_schemas_computed_or_cached() {
    let doc = document();
    let app = app().await;
    let jobs = [
        (
            "/v1/perft",
            json!({"depth": 2, "stats": true, "threads": 1}),
        ),
        (
            "/v1/puzzles",
            json!({"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "mate_in": 1}),
        ),
        // A helpmate and a selfmate (their results have their own schemas and stored forms).
        (
            "/v1/puzzles",
            json!({"fen": "8/8/8/8/8/1P1k1p2/7r/R3K2R b KQ - 0 1", "stipulation": "h#2"}),
        ),
        (
            "/v1/puzzles",
            json!({"fen": "8/8/8/2p5/8/kpR5/p7/K7 w - - 0 1", "stipulation": "s#2"}),
        ),
    ];
    for (path, body) in jobs {
        let item = format!("{path}/{{id}}");
        // The first answer computes, the second comes from the store.
        for cached in [false, true] {
            let (status, answer) = app.post(path, None, body.clone()).await;
            assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
            assert_documented(&doc, path, "post", status, &answer);
            assert_eq!(answer["cached"], cached, "{answer}");
            let uri = format!("{path}/{}", answer["id"].as_str().unwrap());
            let view = loop {
                let (status, view) = app.get(&uri).await;
                assert_documented(&doc, &item, "get", status, &view);
                if view["state"] == "done" {
                    break view;
                }
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            };
            assert_eq!(view["cached"], cached, "{view}");
        }
    }
}

#[actix_web::test]
async fn the_served_document_is_the_generated_one() {
    let app = app().await;
    let (status, content_type, v) = app
        .exchange(request("get", "/openapi.json", None, None))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(content_type.starts_with("application/json"));
    assert_eq!(v, document());
}

/// The value of a link parameter: a runtime expression over the source's answer body, alone
/// (`$response.body#/id`) or embedded in text (`Bearer {$response.body#/secrets/admin}`).
fn link_value(expression: &str, answer: &Value) -> String {
    let resolve = |e: &str| {
        let pointer = e
            .strip_prefix("$response.body#")
            .unwrap_or_else(|| panic!("unsupported link expression {e}"));
        answer
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{e} names no string in the answer {answer}"))
            .to_string()
    };
    match (expression.find('{'), expression.rfind('}')) {
        (Some(open), Some(close)) => format!(
            "{}{}{}",
            &expression[..open],
            resolve(&expression[open + 1..close]),
            &expression[close + 1..]
        ),
        _ => resolve(expression),
    }
}

#[actix_web::test]
async fn links_lead_from_each_creation_to_every_operation_on_what_it_created() {
    let doc = document();
    let app = app().await;
    let mut operations: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for m in METHODS {
            if let Some(id) = item.get(m).and_then(|op| op["operationId"].as_str()) {
                operations.insert(id.to_string(), (path.clone(), m.to_string()));
            }
        }
    }
    let creations = [
        ("/v1/games", "201", json!({})),
        ("/v1/perft", "202", json!({"depth": 1})),
        (
            "/v1/puzzles",
            "202",
            json!({"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "mate_in": 1}),
        ),
    ];
    for (source, status, body) in creations {
        let links = doc["paths"][source]["post"]["responses"][status]["links"]
            .as_object()
            .unwrap_or_else(|| panic!("POST {source} {status} has no links"));
        let mut reached = BTreeSet::new();
        for (name, link) in links {
            let target = link["operationId"].as_str().unwrap();
            let (path, method) = operations
                .get(target)
                .unwrap_or_else(|| panic!("link {name}: no operation {target}"));
            assert!(
                path.starts_with(&format!("{source}/{{id}}")),
                "link {name} leads to {path}, not to what POST {source} created"
            );
            let op = &doc["paths"][path.as_str()][method.as_str()];
            let params = link["parameters"].as_object().unwrap();
            let secured = op.get("security").is_some() && op["x-chessd-secret"] != "seat-optional";
            assert_ne!(
                op["x-chessd-secret"], "operator",
                "link {name}: the operator's token is configuration, not in a creation answer"
            );
            assert_eq!(
                params.contains_key("header.Authorization"),
                secured,
                "link {name}: a secret exactly where {target} needs one"
            );
            // Follow the link from a fresh answer: the resource is found and the secret accepted.
            let (_, _, answer) = app
                .exchange(request("post", source, None, Some(&body)))
                .await;
            let id = link_value(params["path.id"].as_str().unwrap(), &answer);
            let mut req = request(method, &path.replace("{id}", &id), None, None);
            if let Some(auth) = params.get("header.Authorization") {
                req = req.insert_header((
                    header::AUTHORIZATION,
                    link_value(auth.as_str().unwrap(), &answer),
                ));
            }
            if link.get("requestBody").is_none() {
                let (status, _, reply) = app.exchange(req).await;
                assert!(
                    status != StatusCode::FORBIDDEN && status != StatusCode::NOT_FOUND,
                    "link {name}: {method} {path} answered {status}: {reply}"
                );
            }
            reached.insert(target);
        }
        for (id, (path, method)) in &operations {
            let operator_only =
                doc["paths"][path.as_str()][method.as_str()]["x-chessd-secret"] == "operator";
            if path.starts_with(&format!("{source}/{{id}}")) && !operator_only {
                assert!(
                    reached.contains(id.as_str()),
                    "no link from POST {source} to {id}"
                );
            }
        }
    }
}
