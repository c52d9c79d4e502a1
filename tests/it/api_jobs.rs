//! Perft and puzzle jobs through the API: results from the shared reference data, limits and
//! their error codes, cancellation (state and threads), the events WebSocket, game moves
//! answered quickly while a job computes, and puzzles (the Lichess sample, a board diagram, a
//! cook, no mate, bad input).
//!
//! Counting and solving tests run in process (`configure_app` with `actix_web::test`); the
//! WebSocket, thread and latency tests start the real binary (`common`).

use std::{
    collections::BTreeSet,
    time::{Duration, Instant},
};

use actix_web::http::StatusCode;
use chessd_server::Config;
use serde_json::{json, Value};

use crate::common::{self, app::TestApp, gct};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// A file of the shared reference data.
fn data(path: &str) -> String {
    let file = format!("{DATA}/{path}");
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn config(pool_threads: usize, max_jobs: usize) -> Config {
    let mut c = Config::defaults();
    // Every in-process request is the same client; security.rs tests the quotas.
    c.quotas = chessd_server::config::QuotasConfig::unlimited();
    c.jobs.pool_threads = pool_threads;
    c.jobs.max_jobs = max_jobs;
    common::keyed_limits_for_all(&mut c);
    c
}

/// Submits a job (asserting 202) and polls it until it ends; returns the final view.
async fn run_job(app: &TestApp, route: &str, body: Value) -> Value {
    let (status, created) = app.post(route, None, body.clone()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}: {created}");
    let id = created["id"].as_str().unwrap().to_string();
    wait_for(app, &format!("{route}/{id}")).await
}

/// Polls a job until it ends (60 s at most).
async fn wait_for(app: &TestApp, uri: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, view) = app.get(uri).await;
        assert_eq!(status, StatusCode::OK, "{view}");
        if ["done", "cancelled", "failed"].contains(&view["state"].as_str().unwrap()) {
            return view;
        }
        assert!(Instant::now() < deadline, "{uri} did not end: {view}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

// ----- perft -----

/// A row of perft_gct_stats.csv.
struct GctRow {
    name: String,
    fen: String,
    depth: u32,
    /// nodes, captures, enpassants, castles, promotions, the four check classes,
    /// total_checks, the four mate classes, total_mates.
    values: Vec<u64>,
}

fn gct_rows() -> Vec<GctRow> {
    let text = data("perft/perft_gct_stats.csv");
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("position,fen,depth,nodes,captures,enpassants,castles,promotions,direct_checks,single_discovered_checks,direct_discovered_checks,double_discovered_checks,total_checks,direct_mates,single_discovered_mates,direct_discovered_mates,double_discovered_mates,total_mates"), "{header}");
    lines
        .map(|line| {
            let (name, rest) = line.split_once(",\"").unwrap();
            let (fen, rest) = rest.split_once("\",").unwrap();
            let fields: Vec<&str> = rest.split(',').collect();
            GctRow {
                name: name.to_string(),
                fen: fen.to_string(),
                depth: fields[0].parse().unwrap(),
                values: fields[1..16].iter().map(|v| v.parse().unwrap()).collect(),
            }
        })
        .collect()
}

#[actix_web::test]
async fn perft_jobs_reproduce_every_grand_chess_tree_statistic() {
    let app = TestApp::new(config(2, 64)).await;
    let rows: Vec<GctRow> = gct_rows()
        .into_iter()
        .filter(|r| r.values[0] <= 10_000_000)
        .collect();
    assert!(rows.len() >= 15, "{} rows", rows.len());
    for row in &rows {
        let body = json!({"fen": row.fen, "depth": row.depth, "stats": true, "threads": 2});
        let view = run_job(&app, "/v1/perft", body).await;
        let at = format!("{} d{}", row.name, row.depth);
        assert_eq!(view["state"], "done", "{at}: {view}");
        assert_eq!(view["kind"], "perft");
        assert_eq!(view["error"], Value::Null);
        let r = &view["result"];
        let v = &row.values;
        let c = &r["classes"];
        let got = [
            &r["nodes"],
            &r["captures"],
            &r["enpassants"],
            &r["castles"],
            &r["promotions"],
            &c["direct_checks"],
            &c["single_discovered_checks"],
            &c["direct_discovered_checks"],
            &c["double_discovered_checks"],
            &c["direct_mates"],
            &c["single_discovered_mates"],
            &c["direct_discovered_mates"],
            &c["double_discovered_mates"],
        ];
        let expected = [
            v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[10], v[11], v[12], v[13],
        ];
        for (g, e) in got.iter().zip(expected) {
            assert_eq!(g.as_u64(), Some(e), "{at}: {r}");
        }
        // The worker-protocol summaries: checks and double checks include mates.
        let (total_checks, total_mates) = (v[9], v[14]);
        assert_eq!(
            r["checks"].as_u64(),
            Some(total_checks + total_mates),
            "{at}"
        );
        assert_eq!(r["checkmates"].as_u64(), Some(total_mates), "{at}");
        assert_eq!(
            r["double_checks"].as_u64(),
            Some(v[7] + v[8] + v[12] + v[13]),
            "{at}"
        );
        assert_eq!(
            r["discovered_checks"].as_u64(),
            Some(v[6] + v[8] + v[11] + v[13]),
            "{at}"
        );
        // The running statistics end equal to the result.
        assert_eq!(view["statistics"]["nodes"], r["nodes"], "{at}");
        assert_eq!(view["statistics"]["checks"], r["checks"], "{at}");
        assert_eq!(view["nodes"], r["nodes"], "{at}");
        assert_eq!(view["progress"]["done"], view["progress"]["total"], "{at}");
        assert_eq!(view["depth"], row.depth);
        assert_eq!(view["stats"], true);
        assert_eq!(view["threads"], 2);
        assert_eq!(view["workers"], json!([]));
    }
}

#[actix_web::test]
async fn perft_jobs_reproduce_the_perft_suite() {
    let app = TestApp::new(config(2, 64)).await;
    let text = data("perft/perft_suite.epd");
    let mut jobs = 0;
    for (i, line) in text.lines().enumerate() {
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim();
        // The deepest count of at most 10^6 nodes (10^7 every 16th line), to stay fast; a line
        // with only larger counts gives its smallest (at most 1.2 * 10^7 in this file).
        let cap = if i % 16 == 0 { 10_000_000 } else { 1_000_000 };
        let counts: Vec<(u32, u64)> = parts
            .map(|p| {
                let (d, n) = p.trim().split_once(' ').unwrap();
                (
                    d.trim_start_matches('D').parse::<u32>().unwrap(),
                    n.parse::<u64>().unwrap(),
                )
            })
            .collect();
        let (depth, nodes) = counts
            .iter()
            .filter(|(_, n)| *n <= cap)
            .max()
            .or_else(|| counts.iter().min_by_key(|(_, n)| *n))
            .copied()
            .unwrap();
        assert!(nodes <= 12_000_000, "line {}", i + 1);
        // Alternate hashing, statistics and thread counts: none may change the count.
        let body = json!({
            "fen": fen,
            "depth": depth,
            "threads": 1 + i % 2,
            "hash_mb": if i % 3 == 0 { 8 } else { 0 },
            "stats": i % 5 == 0,
        });
        let view = run_job(&app, "/v1/perft", body).await;
        assert_eq!(view["state"], "done", "line {}: {view}", i + 1);
        assert_eq!(
            view["result"]["nodes"].as_u64(),
            Some(nodes),
            "line {} D{depth}",
            i + 1
        );
        if i % 5 != 0 {
            assert_eq!(view["result"]["captures"], Value::Null);
            assert_eq!(view["statistics"], Value::Null);
        }
        jobs += 1;
    }
    assert_eq!(jobs, 161);
}

#[actix_web::test]
async fn perft_defaults_and_the_job_list() {
    let app = TestApp::new(config(2, 8)).await;
    let (status, created) = app.post("/v1/perft", None, json!({"depth": 3})).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(
        created["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert!(["queued", "running", "done"].contains(&created["state"].as_str().unwrap()));
    // Threads default to the most a job may have (the pool here).
    assert_eq!(created["threads"], 2);
    assert_eq!(created["stats"], false);
    assert_eq!(created["hash_mb"], 0);
    let id = created["id"].as_str().unwrap();
    let done = wait_for(&app, &format!("/v1/perft/{id}")).await;
    assert_eq!(done["result"]["nodes"], 8902);
    assert!(done["result"]["seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(done["result"]["checks"], Value::Null);
    assert_eq!(done["result"]["classes"], Value::Null);
    // Only the creator's secret cancels: it is in the creation answer, never in a view.
    let secret = created["secret"].as_str().unwrap();
    assert_eq!(done.get("secret"), None);
    // (A secret in the query is not read outside WebSocket routes.)
    for (uri, secret, expected, code) in [
        (
            format!("/v1/perft/{id}"),
            None,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            format!("/v1/perft/{id}"),
            Some("wrong"),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            format!("/v1/perft/{id}?token={secret}"),
            None,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
    ] {
        let (status, refused) = app.delete(&uri, secret).await;
        assert_eq!(
            (status, &refused["error"]["code"]),
            (expected, &json!(code))
        );
    }
    // The DELETE of a finished job answers its view unchanged.
    let (status, after) = app.delete(&format!("/v1/perft/{id}"), Some(secret)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(after["state"], "done");
    assert_eq!(after["result"], done["result"]);
    let (status, list) = app.get("/v1/jobs").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        list["jobs"],
        json!([{"id": id, "kind": "perft", "state": "done", "elapsed_ms": done["elapsed_ms"]}])
    );
    assert_eq!(list["pool_threads"], 2);
    assert_eq!(list["busy_threads"], 0);
    assert_eq!(list["workers"], json!([]));
}

#[actix_web::test]
async fn limits_and_bad_requests_get_their_codes() {
    let mut c = config(2, 2);
    c.jobs.max_perft_depth = 9;
    c.jobs.max_hash_mb = 64;
    let app = TestApp::new(c).await;
    let cases = [
        (
            json!({"depth": 10}),
            422,
            "limit_exceeded",
            "jobs.max_perft_depth",
        ),
        (
            json!({"depth": 3, "threads": 3}),
            422,
            "limit_exceeded",
            "jobs.max_threads",
        ),
        (
            json!({"depth": 3, "hash_mb": 65}),
            422,
            "limit_exceeded",
            "jobs.max_hash_mb",
        ),
        (
            json!({"depth": 3, "threads": 0}),
            400,
            "invalid_request",
            "threads",
        ),
        (
            json!({"depth": 3, "fen": "8/8/8 w - -"}),
            422,
            "invalid_fen",
            "FEN",
        ),
        (
            json!({"depth": 3, "workers": true}),
            400,
            "invalid_request",
            "workers",
        ),
        (
            json!({"depth": -1}),
            400,
            "invalid_request",
            "invalid JSON body",
        ),
        (json!({"fen": KIWIPETE}), 400, "invalid_request", "depth"),
        (
            json!({"depth": 3, "colour": "red"}),
            400,
            "invalid_request",
            "colour",
        ),
    ];
    for (body, status, code, text) in cases {
        let (s, v) = app.post("/v1/perft", None, body.clone()).await;
        assert_eq!(s.as_u16(), status, "{body}: {v}");
        assert_eq!(v["error"]["code"], code, "{body}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains(text), "{body}: {message}");
    }
    // Two unfinished jobs are the limit: a third is refused, whatever its size.
    let deep = json!({"depth": 9, "threads": 1});
    let (s1, a) = app.post("/v1/perft", None, deep.clone()).await;
    let (s2, b) = app.post("/v1/perft", None, deep.clone()).await;
    assert_eq!((s1, s2), (StatusCode::ACCEPTED, StatusCode::ACCEPTED));
    let (s, v) = app.post("/v1/perft", None, json!({"depth": 1})).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert_eq!(v["error"]["code"], "too_many_jobs");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("jobs.max_jobs"));
    let (s, v) = app
        .post("/v1/puzzles", None, json!({"fen": KIWIPETE, "mate_in": 2}))
        .await;
    assert_eq!(
        (s, &v["error"]["code"]),
        (StatusCode::SERVICE_UNAVAILABLE, &json!("too_many_jobs"))
    );
    for job in [&a, &b] {
        let uri = format!("/v1/perft/{}", job["id"].as_str().unwrap());
        let (s, v) = app.delete(&uri, job["secret"].as_str()).await;
        assert_eq!(
            (s, &v["state"]),
            (StatusCode::OK, &json!("cancelled")),
            "{v}"
        );
    }
    let (s, _) = app.post("/v1/perft", None, json!({"depth": 1})).await;
    assert_eq!(s, StatusCode::ACCEPTED);
    // Unknown, malformed and wrong-kind ids.
    let unknown = "00000000-0000-4000-8000-000000000000";
    for uri in [
        format!("/v1/perft/{unknown}"),
        "/v1/perft/not-an-id".to_string(),
        format!("/v1/puzzles/{unknown}"),
        format!("/v1/puzzles/{}", a["id"].as_str().unwrap()),
    ] {
        let (s, v) = app.get(&uri).await;
        assert_eq!(
            (s, &v["error"]["code"]),
            (StatusCode::NOT_FOUND, &json!("job_not_found")),
            "{uri}"
        );
        let (s, v) = app.delete(&uri, None).await;
        assert_eq!(
            (s, &v["error"]["code"]),
            (StatusCode::NOT_FOUND, &json!("job_not_found")),
            "{uri}"
        );
    }
}

#[actix_web::test]
async fn a_queued_job_waits_for_threads_and_cancels_at_once() {
    let app = TestApp::new(config(2, 8)).await;
    let (_, big) = app
        .post("/v1/perft", None, json!({"depth": 9, "threads": 2}))
        .await;
    let (_, small) = app
        .post("/v1/perft", None, json!({"depth": 4, "threads": 1}))
        .await;
    assert_eq!(big["state"], "running");
    assert_eq!(small["state"], "queued");
    assert_eq!(small["elapsed_ms"], 0);
    let (_, list) = app.get("/v1/jobs").await;
    assert_eq!(list["busy_threads"], 2);
    let small_uri = format!("/v1/perft/{}", small["id"].as_str().unwrap());
    let (s, v) = app.delete(&small_uri, small["secret"].as_str()).await;
    assert_eq!((s, &v["state"]), (StatusCode::OK, &json!("cancelled")));
    assert_eq!(v["result"], Value::Null);
    let big_uri = format!("/v1/perft/{}", big["id"].as_str().unwrap());
    let (s, v) = app.delete(&big_uri, big["secret"].as_str()).await;
    assert_eq!((s, &v["state"]), (StatusCode::OK, &json!("cancelled")));
    assert!(v["nodes"].as_u64().is_some());
    let (_, list) = app.get("/v1/jobs").await;
    assert_eq!(list["busy_threads"], 0);
}

// ----- the real server: cancellation, WebSocket, latency -----

/// Threads of a process (Linux).
/// Threads of the process's jobs: a job's thread is named `chessd-job-…`, and the threads it
/// starts (perft workers) inherit its name. Other threads (the runtime's blocking pool, the
/// store's) come and go with the load, so they are not counted.
fn job_threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|name| name.starts_with("chessd-job"))
                })
                .count()
        })
        .unwrap_or(0)
}

/// The real server: one HTTP worker, a pool of `pool` threads.
fn server(pool: usize) -> common::Server {
    server_with(pool, &[])
}

/// The real server with one HTTP worker, a pool of `pool` threads and more environment.
fn server_with(pool: usize, env: &[(&str, &str)]) -> common::Server {
    let pool = pool.to_string();
    let mut vars = vec![
        ("CHESSD_WORKERS", "1"),
        ("CHESSD_JOBS__POOL_THREADS", pool.as_str()),
    ];
    vars.extend_from_slice(&common::KEYED_LIMITS_FOR_ALL);
    vars.extend_from_slice(env);
    common::Server::start(&vars)
}

/// Polls until the job is running and has counted some nodes.
async fn wait_running(c: &awc::Client, url: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, v) = common::get_json(c, url).await;
        if v["state"] == "running" && v["nodes"].as_u64().unwrap_or(0) > 0 {
            return v;
        }
        assert!(Instant::now() < deadline, "never running: {v}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[actix_web::test]
async fn cancel_stops_a_deep_job_within_100_ms_and_frees_its_threads() {
    let srv = server(2);
    let pid = srv.pid();
    let c = common::client();
    let (s, _) = common::get_json(&c, &format!("{}/v1/jobs", srv.base)).await;
    assert_eq!(s, 200);
    assert_eq!(job_threads(pid), 0, "no job yet");
    let (s, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", srv.base),
        None,
        &json!({"depth": 9, "threads": 2}),
    )
    .await;
    assert_eq!(s, 202, "{job}");
    let url = format!("{}/v1/perft/{}", srv.base, job["id"].as_str().unwrap());
    let secret = job["secret"].as_str().unwrap();
    let running = wait_running(&c, &url).await;
    assert!(running["progress"]["total"].as_u64().unwrap() > 0);
    // The job thread and its two workers.
    assert!(job_threads(pid) >= 3, "{}", job_threads(pid));
    let start = Instant::now();
    let (s, v) = common::delete_authed(&c, &url, secret).await;
    let took = start.elapsed();
    assert_eq!((s, &v["state"]), (200, &json!("cancelled")), "{v}");
    eprintln!("cancel of a running perft answered in {took:?}");
    assert!(took < Duration::from_millis(100), "cancel took {took:?}");
    // Every thread of the job is gone (well, within the same 100 ms).
    while job_threads(pid) > 0 && start.elapsed() < Duration::from_millis(100) {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(job_threads(pid), 0, "job threads after cancel");
    let (_, list) = common::get_json(&c, &format!("{}/v1/jobs", srv.base)).await;
    assert_eq!(list["busy_threads"], 0);
    // The nodes stay where they stopped.
    let (_, later) = common::get_json(&c, &url).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, again) = common::get_json(&c, &url).await;
    assert_eq!(later["nodes"], again["nodes"]);
    assert_eq!(again["state"], "cancelled");
}

#[actix_web::test]
async fn the_events_websocket_sends_progress_then_the_end() {
    let srv = server(2);
    let c = common::client();
    let (s, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", srv.base),
        None,
        &json!({"fen": KIWIPETE, "depth": 5, "stats": true, "threads": 1}),
    )
    .await;
    assert_eq!(s, 202, "{job}");
    let id = job["id"].as_str().unwrap();
    let ws = format!(
        "{}/v1/perft/{id}/events",
        srv.base.replacen("http", "ws", 1)
    );
    let mut conn = common::ws_connect(&c, &ws).await;
    let mut progress = Vec::new();
    let (code, texts) = common::ws_until_close(&mut conn, Duration::from_secs(60)).await;
    assert_eq!(code, Some(awc::ws::CloseCode::Normal));
    let (last, rest) = texts.split_last().unwrap();
    assert_eq!(last["type"], "done", "{last}");
    assert_eq!(last["job"]["state"], "done");
    assert_eq!(last["job"]["result"]["nodes"], 193_690_690);
    assert_eq!(last["job"]["result"]["captures"], 35_043_416);
    assert!(rest.len() >= 2, "{} progress messages", rest.len());
    for m in rest {
        assert_eq!(m["type"], "progress", "{m}");
        assert_eq!(m["job"]["id"], id);
        assert!(["queued", "running"].contains(&m["job"]["state"].as_str().unwrap()));
        progress.push(m["job"]["nodes"].as_u64().unwrap());
    }
    assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
    assert!(
        progress.iter().any(|&n| n > 0 && n < 193_690_690),
        "{progress:?}"
    );
    // After the end: the final message at once, then the close.
    let mut late = common::ws_connect(&c, &ws).await;
    let start = Instant::now();
    let (code, texts) = common::ws_until_close(&mut late, Duration::from_secs(5)).await;
    assert!(start.elapsed() < Duration::from_secs(1));
    assert_eq!(code, Some(awc::ws::CloseCode::Normal));
    assert_eq!(texts.len(), 1);
    assert_eq!(texts[0]["type"], "done");
    assert_eq!(texts[0]["job"], last["job"]);
}

#[actix_web::test]
async fn progress_messages_are_spaced_and_a_cancel_ends_the_stream() {
    let srv = server(2);
    let c = common::client();
    let (_, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", srv.base),
        None,
        &json!({"depth": 9, "threads": 1}),
    )
    .await;
    let id = job["id"].as_str().unwrap();
    let ws = format!(
        "{}/v1/perft/{id}/events",
        srv.base.replacen("http", "ws", 1)
    );
    let mut conn = common::ws_connect(&c, &ws).await;
    let mut times = Vec::new();
    for _ in 0..4 {
        let m = common::ws_json(&mut conn).await;
        assert_eq!(m["type"], "progress");
        times.push(Instant::now());
    }
    for w in times.windows(2) {
        let gap = w[1] - w[0];
        assert!(
            gap >= Duration::from_millis(100) && gap <= Duration::from_millis(400),
            "gap {gap:?}"
        );
    }
    let secret = job["secret"].as_str().unwrap();
    let (s, _) = common::delete_authed(&c, &format!("{}/v1/perft/{id}", srv.base), secret).await;
    assert_eq!(s, 200);
    let (code, texts) = common::ws_until_close(&mut conn, Duration::from_secs(5)).await;
    assert_eq!(code, Some(awc::ws::CloseCode::Normal));
    let last = texts.last().unwrap();
    assert_eq!(last["type"], "cancelled");
    assert_eq!(last["job"]["state"], "cancelled");
}

#[actix_web::test]
async fn games_answer_moves_quickly_while_a_perft_job_runs() {
    let srv = server(2);
    let c = common::client();
    let (_, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", srv.base),
        None,
        &json!({"depth": 9, "threads": 2, "hash_mb": 64}),
    )
    .await;
    let job_url = format!("{}/v1/perft/{}", srv.base, job["id"].as_str().unwrap());
    wait_running(&c, &job_url).await;
    let game = common::create_game(&c, &srv.base, &json!({})).await;
    let moves = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1",
        "b7b5", "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6a5", "b3c2", "c7c5",
    ];
    let url = format!("{}/v1/games/{}/moves", srv.base, game.id);
    let mut latencies = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        let seat = if i % 2 == 0 { &game.white } else { &game.black };
        let start = Instant::now();
        let (s, v) = common::post_json(&c, &url, Some(seat), &json!({"uci": mv})).await;
        latencies.push(start.elapsed());
        assert_eq!(s, 200, "{mv}: {v}");
    }
    let (_, during) = common::get_json(&c, &job_url).await;
    assert_eq!(during["state"], "running", "the job ran during every move");
    let worst = latencies.iter().max().unwrap();
    eprintln!("move latencies while perft runs: worst {worst:?} of {latencies:?}");
    // Moves never wait for the job (a depth-9 perft runs for minutes); the bound leaves room
    // for a machine busy with other tests: this checks that the job does not block the game,
    // not how fast a move is (benchmarks measure that).
    assert!(
        *worst < Duration::from_secs(1),
        "move latencies while perft runs: {latencies:?}"
    );
    let secret = job["secret"].as_str().unwrap();
    let (s, _) = common::delete_authed(&c, &job_url, secret).await;
    assert_eq!(s, 200);
}

/// Polls a job of the real server until it ends.
async fn wait_end(c: &awc::Client, url: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (s, v) = common::get_json(c, url).await;
        assert_eq!(s, 200, "{v}");
        if ["done", "cancelled", "failed"].contains(&v["state"].as_str().unwrap()) {
            return v;
        }
        assert!(Instant::now() < deadline, "{url} did not end: {v}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[actix_web::test]
#[cfg_attr(
    not(has_socat),
    ignore = "socat is not installed (apt-get install socat)"
)]
async fn perft_jobs_on_workers_with_a_tcp_worker_survive_a_worker_death() {
    let socat = gct::Socat::start("--hash 16");
    let srv = server_with(
        2,
        &[
            ("CHESSD_GCT_WORKERS__LOCAL__BUILTIN", "true"),
            ("CHESSD_GCT_WORKERS__REMOTE__TCP", socat.addr.as_str()),
        ],
    );
    let c = common::client();
    let perft = format!("{}/v1/perft", srv.base);

    // Kiwipete d4: every statistic, computed by both workers (one of them over TCP).
    let row = gct::gct_row("kiwipete", 4);
    let (s, job) = common::post_json(
        &c,
        &perft,
        None,
        &json!({"fen": row.fen, "depth": row.depth, "stats": true}),
    )
    .await;
    assert_eq!(s, 202, "{job}");
    assert_eq!(job["workers"], json!(["local", "remote"]));
    assert_eq!(job["threads"], 0);
    let url = format!("{perft}/{}", job["id"].as_str().unwrap());
    let view = wait_end(&c, &url).await;
    assert_eq!(view["state"], "done", "{view}");
    gct::assert_gct_row(&view["result"], &row);
    let (_, list) = common::get_json(&c, &format!("{}/v1/jobs", srv.base)).await;
    let workers = list["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 2, "{list}");
    for w in workers {
        assert!(
            w["tasks_done"].as_u64().unwrap() > 0,
            "both workers computed: {list}"
        );
    }
    assert_eq!(workers[1]["kind"], "tcp");

    // CPW position 6 d5: the local worker is killed while the job runs; its task goes back
    // to the queue and the totals stay exact.
    let row = gct::gct_row("cpw-pos6", 5);
    let (s, job) = common::post_json(
        &c,
        &perft,
        None,
        &json!({"fen": row.fen, "depth": row.depth, "stats": true}),
    )
    .await;
    assert_eq!(s, 202, "{job}");
    let url = format!("{perft}/{}", job["id"].as_str().unwrap());
    let local_pid = workers[0]["pid"].as_u64().unwrap() as u32;
    assert!(gct::is_chessd_worker(local_pid));
    let running = wait_running(&c, &url).await;
    gct::kill9(local_pid);
    let view = wait_end(&c, &url).await;
    assert!(
        running["nodes"].as_u64() < view["result"]["nodes"].as_u64(),
        "the worker died during the job"
    );
    assert_eq!(view["state"], "done", "{view}");
    gct::assert_gct_row(&view["result"], &row);
    let (_, list) = common::get_json(&c, &format!("{}/v1/jobs", srv.base)).await;
    let local = &list["workers"][0];
    assert!(local["failures"].as_u64().unwrap() >= 1, "{list}");
    assert!(
        local["connects"].as_u64().unwrap() >= 2,
        "restarted: {list}"
    );
    drop(socat);
}

// ----- puzzles -----

/// A row of the Lichess sample.
struct PuzzleRow {
    id: String,
    fen: String,
    mate: u32,
    keys: BTreeSet<String>,
}

fn puzzle_rows() -> Vec<PuzzleRow> {
    let text = data("puzzles/lichess_m2_m3_sample50.csv");
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with(
        "puzzle_id,fen,mate,solution_uci,mating_first_moves_uci,n_mating_first_moves"
    ));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let keys: BTreeSet<String> = f[4].split(' ').map(str::to_string).collect();
            assert_eq!(keys.len(), f[5].parse::<usize>().unwrap());
            PuzzleRow {
                id: f[0].to_string(),
                fen: f[1].to_string(),
                mate: f[2].parse().unwrap(),
                keys,
            }
        })
        .collect()
}

fn keys_of(result: &Value) -> BTreeSet<String> {
    result["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect()
}

#[actix_web::test]
async fn puzzles_from_the_lichess_sample() {
    let app = TestApp::new(config(2, 8)).await;
    let rows = puzzle_rows();
    assert_eq!(rows.len(), 50);
    // Every fifth row: five mates in 2 and five in 3 of the sample.
    for row in rows.iter().step_by(5) {
        // Asked for one more move than needed: the shortest mate must still be found.
        let body = json!({"fen": row.fen, "mate_in": row.mate + 1});
        let view = run_job(&app, "/v1/puzzles", body).await;
        assert_eq!(view["state"], "done", "{}: {view}", row.id);
        assert_eq!(view["kind"], "puzzle");
        assert_eq!(view["mate_in"], row.mate + 1);
        assert_eq!(view["find_all_keys"], true);
        let r = &view["result"];
        assert_eq!(r["mate"], row.mate, "{}", row.id);
        assert_eq!(keys_of(r), row.keys, "{}", row.id);
        assert_eq!(r["unique"], row.keys.len() == 1, "{}", row.id);
        let line = r["line"].as_array().unwrap();
        assert_eq!(line.len() as u32, 2 * row.mate - 1, "{}", row.id);
        assert!(line.last().unwrap().as_str().unwrap().ends_with('#'));
        assert_eq!(r["tree"]["uci"], r["keys"][0]);
        assert_eq!(view["nodes"], r["nodes"]);
        assert!(view["nodes"].as_u64().unwrap() > 0);
    }
}

#[actix_web::test]
async fn a_puzzle_job_result_is_the_object_chessd_solve_prints() {
    let app = TestApp::new(config(2, 8)).await;
    let row = &puzzle_rows()[30];
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": row.fen, "mate_in": row.mate}),
    )
    .await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessd"))
        .args([
            "solve",
            &row.fen,
            "--mate",
            &row.mate.to_string(),
            "--all-keys",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut job = view["result"].clone();
    // Everything but the wall time is the same (one thread: the same search, the same nodes).
    assert!(cli["seconds"].is_f64() && job["seconds"].is_f64());
    cli["seconds"] = json!(0);
    job["seconds"] = json!(0);
    assert_eq!(job, cli);
}

#[actix_web::test]
async fn a_board_diagram_puzzle() {
    let app = TestApp::new(config(2, 8)).await;
    // Lichess 00s8j (Black mates in 2 with Rc1+), drawn by the board printer.
    let pos = chessd_core::Position::from_fen(
        "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 35",
        chessd_core::FenMode::Strict,
    )
    .unwrap();
    let board = chessd_core::display::board_diagram(&pos, Default::default());
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"board": board, "turn": "black", "mate_in": 2}),
    )
    .await;
    assert_eq!(view["state"], "done", "{view}");
    assert_eq!(view["fen"], "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 1");
    assert_eq!(view["result"]["mate"], 2);
    assert_eq!(view["result"]["keys"], json!(["c6c1"]));
    assert_eq!(view["result"]["line"], json!(["Rc1+", "Rd1", "Rxd1#"]));
    assert_eq!(view["result"]["unique"], true);
    // The same board with White to move: Black's king is not mated in two by White.
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"board": board, "turn": "white", "mate_in": 1}),
    )
    .await;
    assert_eq!(view["state"], "done", "{view}");
    assert_eq!(view["fen"], "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 w - - 0 1");
}

#[actix_web::test]
async fn a_cook_and_no_mate() {
    let app = TestApp::new(config(2, 8)).await;
    // White Kc7, Qb1 against Ka8: four mates in one.
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": "k7/2K5/8/8/8/8/8/1Q6 w - - 0 1", "mate_in": 2}),
    )
    .await;
    let r = &view["result"];
    assert_eq!(r["mate"], 1);
    let expected: BTreeSet<String> = ["b1a1", "b1a2", "b1b7", "b1b8"].map(String::from).into();
    assert_eq!(keys_of(r), expected);
    assert_eq!(r["unique"], false);
    assert_eq!(r["cooks"].as_array().unwrap().len(), 3);
    // Only the first key when asked: uniqueness is then not claimed.
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": "k7/2K5/8/8/8/8/8/1Q6 w - - 0 1", "mate_in": 1, "find_all_keys": false}),
    )
    .await;
    assert_eq!(view["result"]["keys"].as_array().unwrap().len(), 1);
    assert_eq!(view["result"]["unique"], false);
    assert_eq!(view["find_all_keys"], false);
    // Lichess 063Cg is a mate in 3: none in 2.
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": "5k1r/pp1q1p2/5Qp1/3p4/1P6/P3PBpN/5PKP/2RR4 b - - 0 27", "mate_in": 2}),
    )
    .await;
    assert_eq!(view["state"], "done");
    assert_eq!(view["result"]["mate"], Value::Null);
    assert_eq!(view["result"]["keys"], json!([]));
    assert_eq!(view["result"]["tree"], Value::Null);
    assert_eq!(view["result"]["unique"], false);
}

#[actix_web::test]
async fn bad_puzzles_get_their_codes() {
    let app = TestApp::new(config(2, 8)).await;
    let fen = "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 35";
    let cases = [
        (json!({"fen": "nonsense", "mate_in": 2}), 422, "invalid_fen"),
        // Strict FEN: White is in check with Black to move.
        (
            json!({"fen": "4k3/8/8/8/8/8/8/r3K3 b - - 0 1", "mate_in": 2}),
            422,
            "invalid_fen",
        ),
        (
            json!({"board": "8 . . .\n", "mate_in": 2}),
            422,
            "invalid_fen",
        ),
        (json!({"fen": fen, "mate_in": 0}), 400, "invalid_request"),
        (json!({"fen": fen, "mate_in": 6}), 422, "limit_exceeded"),
        (
            json!({"fen": fen, "mate_in": 2, "time_limit_ms": 60_001}),
            422,
            "limit_exceeded",
        ),
        (
            json!({"fen": fen, "mate_in": 2, "time_limit_ms": 0}),
            400,
            "invalid_request",
        ),
        (
            json!({"fen": fen, "mate_in": 2, "threads": 3}),
            422,
            "limit_exceeded",
        ),
        (
            json!({"fen": fen, "board": "x", "mate_in": 2}),
            400,
            "invalid_request",
        ),
        (json!({"mate_in": 2}), 400, "invalid_request"),
        (
            json!({"fen": fen, "turn": "white", "mate_in": 2}),
            400,
            "invalid_request",
        ),
        (json!({"fen": fen}), 400, "invalid_request"),
        (
            json!({"fen": fen, "mate_in": 2, "turn": "green"}),
            400,
            "invalid_request",
        ),
    ];
    for (body, status, code) in cases {
        let (s, v) = app.post("/v1/puzzles", None, body.clone()).await;
        assert_eq!(s.as_u16(), status, "{body}: {v}");
        assert_eq!(v["error"]["code"], code, "{body}: {v}");
    }
    let (s, v) = app
        .get("/v1/puzzles/00000000-0000-4000-8000-000000000000")
        .await;
    assert_eq!(
        (s, &v["error"]["code"]),
        (StatusCode::NOT_FOUND, &json!("job_not_found"))
    );
}

/// A quiet middlegame: no mate within 8 moves, and proving it takes seconds.
const NO_QUICK_MATE: &str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8";

#[actix_web::test]
async fn a_puzzle_time_limit_fails_with_limit_exceeded_and_a_search_shows_progress_then_cancels_quickly(
) {
    let mut c = config(2, 8);
    c.jobs.max_mate_in = 8;
    let app = TestApp::new(c).await;
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": NO_QUICK_MATE, "mate_in": 8, "time_limit_ms": 200}),
    )
    .await;
    assert_eq!(view["state"], "failed", "{view}");
    assert_eq!(view["error"]["code"], "limit_exceeded");
    assert!(view["error"]["message"]
        .as_str()
        .unwrap()
        .contains("200 ms"));
    assert_eq!(view["result"], Value::Null);
    assert!(view["nodes"].as_u64().unwrap() > 0);
    let elapsed = view["elapsed_ms"].as_u64().unwrap();
    assert!((200..1000).contains(&elapsed), "{elapsed} ms");

    let (s, created) = app
        .post(
            "/v1/puzzles",
            None,
            json!({"fen": NO_QUICK_MATE, "mate_in": 8, "time_limit_ms": 60_000}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED);
    let uri = format!("/v1/puzzles/{}", created["id"].as_str().unwrap());
    // While it searches, the view counts the positions searched so far and their rate.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let (_, v) = app.get(&uri).await;
        assert!(v["state"] == "running" || v["state"] == "queued", "{v}");
        let nodes = v["nodes"].as_u64().unwrap();
        if nodes > 0 && seen.last() != Some(&nodes) {
            assert!(v["nps"].as_u64().unwrap() > 0, "{v}");
            seen.push(nodes);
        }
        assert!(Instant::now() < deadline, "no progress: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen[1] > seen[0], "{seen:?}");
    let start = Instant::now();
    let (s, v) = app.delete(&uri, created["secret"].as_str()).await;
    let took = start.elapsed();
    assert_eq!(
        (s, &v["state"]),
        (StatusCode::OK, &json!("cancelled")),
        "{v}"
    );
    assert!(took < Duration::from_millis(100), "{took:?}");
    assert!(v["nodes"].as_u64().unwrap() >= seen[1], "{v}");
}

// ----- Chess 2 perft -----

#[actix_web::test]
async fn chess2_perft_jobs_count_every_row_of_the_go_engines_file_at_depth_three() {
    let app = TestApp::new(config(2, 4)).await;
    for line in data("chess2/chess2_perft.epd").lines() {
        let Some((epd, counts)) = line.split_once(" ; ") else {
            continue;
        };
        let expected: u64 = counts.split('/').nth(2).unwrap().parse().unwrap();
        let view = run_job(
            &app,
            "/v1/perft",
            json!({"variant": "chess2", "fen": epd, "depth": 3}),
        )
        .await;
        assert_eq!(view["state"], "done", "{epd}: {view}");
        assert_eq!(view["variant"], "chess2");
        assert_eq!(view["fen"], epd);
        assert_eq!(view["result"]["nodes"], expected, "{epd}: {view}");
        assert_eq!(view["progress"]["done"], view["progress"]["total"]);
    }
}

#[actix_web::test]
async fn chess2_perft_requests_are_checked() {
    let app = TestApp::new(config(2, 4)).await;
    for (body, status, code) in [
        (
            json!({"variant": "chess2", "depth": 2, "stats": true}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess2", "depth": 2, "workers": true}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess3", "depth": 2}),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"variant": "chess2", "depth": 2, "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_fen",
        ),
        (
            json!({"variant": "chess2", "depth": 99}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "limit_exceeded",
        ),
    ] {
        let (st, v) = app.post("/v1/perft", None, body.clone()).await;
        assert_eq!(
            (st, v["error"]["code"].as_str().unwrap()),
            (status, code),
            "{body}: {v}"
        );
    }
    // The default position is the Classic armies' start.
    let view = run_job(&app, "/v1/perft", json!({"variant": "chess2", "depth": 2})).await;
    assert_eq!(view["result"]["nodes"], 400);
    // A running job is cancelled between its tasks.
    let (st, created) = app
        .post(
            "/v1/perft",
            None,
            json!({"variant": "chess2", "depth": 7, "threads": 1}),
        )
        .await;
    assert_eq!(st, StatusCode::ACCEPTED, "{created}");
    let id = created["id"].as_str().unwrap();
    let secret = created["secret"].as_str().unwrap();
    let (st, v) = app.delete(&format!("/v1/perft/{id}"), Some(secret)).await;
    assert!(st.is_success(), "{v}");
    let view = wait_for(&app, &format!("/v1/perft/{id}")).await;
    assert_eq!(view["state"], "cancelled", "{view}");
}

#[actix_web::test]
async fn a_find_puzzle_proves_a_deep_mate_as_chessd_solve_find_does() {
    let mut c = config(2, 8);
    c.jobs.max_find_mate_in = 12;
    let app = TestApp::new(c).await;
    // A game position where Stockfish's deep analysis reports a mate in 9 for Black
    // (`tests/data/puzzles/mates_9_20.csv`, dev row g3003p053).
    let fen = "2k5/2p1b2p/1n2b3/5p2/P3pNpP/4P3/2qB1PP1/1r3RK1 b - h3 0 29";
    let view = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": fen, "mate_in": 10, "mode": "find", "time_limit_ms": 60000}),
    )
    .await;
    assert_eq!(view["mode"], "find");
    assert_eq!(view["find_all_keys"], false);
    let job = view["result"].clone();
    assert!(job["mate"].as_u64().unwrap() <= 10);
    assert_eq!(job["tree_complete"], true);
    assert_eq!(job["shortest"], false);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessd"))
        .args(["solve", fen, "--find", "--mate", "10", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut job = job;
    // One thread, the same search: everything but the wall time is the same.
    cli["seconds"] = json!(0);
    job["seconds"] = json!(0);
    assert_eq!(job, cli);
    // The other mode's flag is read as what this mode does anyway (not refused: the request
    // is valid as documented), and the job says what it runs.
    for (body, field, runs) in [
        (
            json!({"fen": fen, "mate_in": 4, "mode": "find", "find_all_keys": true}),
            "find_all_keys",
            false,
        ),
        (
            json!({"fen": fen, "mate_in": 4, "shortest": true}),
            "shortest",
            false,
        ),
    ] {
        let (s, v) = app.post("/v1/puzzles", None, body.clone()).await;
        assert!(s.is_success(), "{body}: {v}");
        assert_eq!(v[field], runs, "{body}: {v}");
    }
    // Over the find mode's own limit, and an unknown mode.
    for (body, status, code) in [
        (
            json!({"fen": fen, "mate_in": 13, "mode": "find"}),
            422,
            "limit_exceeded",
        ),
        (
            json!({"fen": fen, "mate_in": 4, "mode": "deep"}),
            400,
            "invalid_request",
        ),
    ] {
        let (s, v) = app.post("/v1/puzzles", None, body.clone()).await;
        assert_eq!(s.as_u16(), status, "{body}: {v}");
        assert_eq!(v["error"]["code"], code, "{body}: {v}");
    }
}

/// Popeye's BEISPIEL/castling.inp problem 19 (h#2, two solutions) and TESTS/battle_play.inp
/// problem 24 (s#2, key Rc4): Popeye's answers, recorded in tests/data/stipulations/.
const HELP2: &str = "8/8/8/8/8/1P1k1p2/7r/R3K2R b KQ - 0 1";
const SELF2: &str = "8/8/8/2p5/8/kpR5/p7/K7 w - - 0 1";

#[actix_web::test]
async fn helpmate_and_selfmate_puzzles_are_what_chessd_solve_prints() {
    let app = TestApp::new(config(2, 8)).await;
    for (fen, stip) in [(HELP2, "h#2"), (SELF2, "s#2")] {
        let view = run_job(
            &app,
            "/v1/puzzles",
            json!({"fen": fen, "stipulation": stip}),
        )
        .await;
        assert_eq!(view["state"], "done", "{view}");
        assert_eq!(view["stipulation"], stip);
        assert_eq!(view["mate_in"], 2);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessd"))
            .args(["solve", fen, "--stipulation", stip, "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let mut cli: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut job = view["result"].clone();
        cli["seconds"] = json!(0);
        job["seconds"] = json!(0);
        assert_eq!(job, cli, "{stip}");
    }
    let help = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": HELP2, "mate_in": 2, "stipulation": "h#2"}),
    )
    .await;
    let r = &help["result"];
    assert_eq!(r["sound"], false);
    let lines: BTreeSet<String> = r["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["uci"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        lines,
        BTreeSet::from([
            "d3c2 a1a2 c2c1 e1g1".to_string(),
            "h2f2 e1c1 d3e2 h1e1".to_string()
        ])
    );
    let selfm = run_job(
        &app,
        "/v1/puzzles",
        json!({"fen": SELF2, "stipulation": "s#2"}),
    )
    .await;
    assert_eq!(selfm["result"]["keys"], json!(["c3c4"]));
    assert_eq!(selfm["result"]["trees"][0]["defences"][0]["mates"], true);
}

#[actix_web::test]
async fn bad_stipulations_get_their_codes() {
    let mut c = config(2, 8);
    c.jobs.max_helpmate_in = 3;
    c.jobs.max_selfmate_in = 2;
    let app = TestApp::new(c).await;
    let cases = [
        (
            json!({"fen": HELP2, "stipulation": "x#2"}),
            400,
            "invalid_request",
        ),
        (
            json!({"fen": HELP2, "stipulation": "h#"}),
            400,
            "invalid_request",
        ),
        (
            json!({"fen": HELP2, "stipulation": "h#2", "mate_in": 3}),
            422,
            "invalid_stipulation",
        ),
        (json!({"fen": HELP2}), 400, "invalid_request"),
        (
            json!({"fen": HELP2, "stipulation": "h#2", "mode": "find"}),
            422,
            "invalid_stipulation",
        ),
        (
            json!({"fen": HELP2, "stipulation": "h#0"}),
            422,
            "limit_exceeded",
        ),
        (
            json!({"fen": HELP2, "stipulation": "h#4"}),
            422,
            "limit_exceeded",
        ),
        (
            json!({"fen": SELF2, "stipulation": "s#3"}),
            422,
            "limit_exceeded",
        ),
    ];
    for (body, status, code) in cases {
        let (s, v) = app.post("/v1/puzzles", None, body.clone()).await;
        assert_eq!(s.as_u16(), status, "{body}: {v}");
        assert_eq!(v["error"]["code"], code, "{body}: {v}");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
    }
    // The limit message names the configuration key.
    let (_, v) = app
        .post(
            "/v1/puzzles",
            None,
            json!({"fen": HELP2, "stipulation": "h#4"}),
        )
        .await;
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("jobs.max_helpmate_in"),
        "{v}"
    );
}
