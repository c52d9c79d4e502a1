//! Perft and puzzle jobs kept in the store.
//!
//! - The same request again is answered at once from the store (`cached: true`, the very same
//!   result, a job of its own), whatever the spelling of its position; another depth, mode or
//!   mate length is computed; cancelled jobs are never answered again.
//! - Against the real binary, on SQLite and on a real PostgreSQL the test starts: a perft job
//!   killed with `kill -9`, then stopped by a graceful shutdown, resumes each time from the
//!   tasks it had finished (the store's count of them is the job's `resumed`, and only the
//!   others are counted again) and ends with every Grand Chess Tree statistic of the reference
//!   data; a cancelled job stays cancelled; a puzzle starts again; jobs are listed and read
//!   after each restart, and from the store once no longer held.

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use chessd_server::{
    store::{SqliteSync, Store},
    Config,
};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::common::{
    self, app::TestApp, client, delete_json, gct, get_json, post_json, scratch_store, Server,
};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Lichess puzzle 00s8j (tests/data/puzzles): Black mates in 2, the only key c6c1.
const PUZZLE: &str = "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 35";

/// The same position as the diagram the board printer writes.
const PUZZLE_BOARD: &str = "8 . . . R . . . .\n7 p p k . . . . .\n6 . . r . . . . .\n\
                            5 . . . . . Q . .\n4 . . . . p . . .\n3 P . . . . . . .\n\
                            2 . . . . . P P P\n1 . . . . . . K .\n  a b c d e f g h\n";

/// A quiet middlegame: no mate within 8 moves, and proving it takes long.
const NO_QUICK_MATE: &str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8";

// ----- The same request again, in process -----

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

/// Posts a job; asserts 202 and whether it was answered from the store.
async fn post(app: &TestApp, route: &str, body: Value, cached: bool) -> Value {
    let (status, job) = app.post(route, None, body.clone()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}: {job}");
    assert_eq!(job["cached"], cached, "{body}: {job}");
    assert!(job["secret"].is_string(), "{job}");
    job
}

/// Asserts that a job was answered done at once with `result`, as a job of its own.
async fn assert_cached(app: &TestApp, route: &str, job: &Value, first: &Value) {
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["result"], first["result"], "{job}");
    assert_ne!(job["id"], first["id"]);
    assert_eq!(job["elapsed_ms"], 0, "nothing ran: {job}");
    // It is a job of its own: read by its id, deleted (unchanged) with its secret only.
    let uri = format!("{route}/{}", job["id"].as_str().unwrap());
    let view = app.get_ok(&uri).await;
    assert_eq!(
        (&view["cached"], &view["result"]),
        (&json!(true), &first["result"])
    );
    let (status, _) = app.delete(&uri, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, view) = app.delete(&uri, job["secret"].as_str()).await;
    assert_eq!((status, &view["state"]), (StatusCode::OK, &json!("done")));
}

#[actix_web::test]
async fn the_same_request_is_answered_from_the_store_at_once() {
    let mut config = Config::defaults();
    config.quotas = chessd_server::config::QuotasConfig::unlimited();
    config.jobs.pool_threads = 2;
    config.jobs.max_mate_in = 8;
    common::keyed_limits_for_all(&mut config);
    let app = TestApp::new(config).await;

    // A perft, computed once.
    let row = gct::gct_row("start", 5);
    let body = json!({"fen": START, "depth": 5, "stats": true, "threads": 1});
    let job = post(&app, "/v1/perft", body.clone(), false).await;
    let first = wait_for(&app, &format!("/v1/perft/{}", job["id"].as_str().unwrap())).await;
    assert_eq!(first["state"], "done", "{first}");
    gct::assert_gct_row(&first["result"], &row);
    // Again, and spelled otherwise (clocks, none, other spacing, the default position, other
    // threads and hash): answered at once, done, with the very same result.
    for body in [
        body,
        json!({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 12 40", "depth": 5, "stats": true}),
        json!({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "depth": 5, "stats": true, "threads": 2, "hash_mb": 16}),
        json!({"fen": " rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w  KQkq - 0 1 ", "depth": 5, "stats": true}),
        json!({"depth": 5, "stats": true}),
    ] {
        let asked = Instant::now();
        let job = post(&app, "/v1/perft", body, true).await;
        let took = asked.elapsed();
        assert_cached(&app, "/v1/perft", &job, &first).await;
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert_eq!(app.get_ok("/v1/jobs").await["busy_threads"], 0);
    }
    // Another depth or mode is another request: computed.
    let row4 = gct::gct_row("start", 4);
    for (body, stats) in [
        (json!({"depth": 4, "stats": true, "threads": 1}), true),
        (json!({"depth": 5, "threads": 1}), false),
    ] {
        let job = post(&app, "/v1/perft", body.clone(), false).await;
        let view = wait_for(&app, &format!("/v1/perft/{}", job["id"].as_str().unwrap())).await;
        assert_eq!(view["state"], "done", "{view}");
        let reference = if stats { &row4 } else { &row };
        assert_eq!(view["result"]["nodes"].as_u64(), Some(reference.stats[0]));
        if stats {
            gct::assert_gct_row(&view["result"], reference);
        } else {
            assert_eq!(view["result"]["captures"], Value::Null, "{view}");
        }
        // Now done, it is answered again too.
        let again = post(&app, "/v1/perft", body, true).await;
        assert_cached(&app, "/v1/perft", &again, &view).await;
    }

    // A puzzle: again as FEN with other clocks and as a diagram, answered from the store.
    let body = json!({"fen": PUZZLE, "mate_in": 2});
    let job = post(&app, "/v1/puzzles", body.clone(), false).await;
    let first = wait_for(
        &app,
        &format!("/v1/puzzles/{}", job["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(first["state"], "done", "{first}");
    assert_eq!(first["result"]["mate"], 2);
    assert_eq!(first["result"]["keys"], json!(["c6c1"]));
    for body in [
        body,
        json!({"fen": "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 1", "mate_in": 2, "threads": 2}),
        json!({"board": PUZZLE_BOARD, "turn": "black", "mate_in": 2, "time_limit_ms": 5000}),
    ] {
        let job = post(&app, "/v1/puzzles", body, true).await;
        assert_cached(&app, "/v1/puzzles", &job, &first).await;
    }
    // Another mate length, or only the first key, is another request.
    for body in [
        json!({"fen": PUZZLE, "mate_in": 3}),
        json!({"fen": PUZZLE, "mate_in": 2, "find_all_keys": false}),
    ] {
        let job = post(&app, "/v1/puzzles", body, false).await;
        let view = wait_for(
            &app,
            &format!("/v1/puzzles/{}", job["id"].as_str().unwrap()),
        )
        .await;
        assert_eq!(view["result"]["mate"], 2, "{view}");
    }

    // Cancelled and failed jobs are never answered again.
    let deep = json!({"depth": 9, "threads": 1});
    let job = post(&app, "/v1/perft", deep.clone(), false).await;
    let uri = format!("/v1/perft/{}", job["id"].as_str().unwrap());
    let (status, view) = app.delete(&uri, job["secret"].as_str()).await;
    assert_eq!(
        (status, &view["state"]),
        (StatusCode::OK, &json!("cancelled"))
    );
    let job = post(&app, "/v1/perft", deep, false).await;
    assert_eq!(job["state"], "running", "{job}");
    let uri = format!("/v1/perft/{}", job["id"].as_str().unwrap());
    app.delete(&uri, job["secret"].as_str()).await;
    let slow = json!({"fen": NO_QUICK_MATE, "mate_in": 8, "time_limit_ms": 50});
    let job = post(&app, "/v1/puzzles", slow.clone(), false).await;
    let view = wait_for(
        &app,
        &format!("/v1/puzzles/{}", job["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(view["error"]["code"], "limit_exceeded", "{view}");
    let job = post(&app, "/v1/puzzles", slow, false).await;
    assert_ne!(job["state"], "done", "{job}");
}

// ----- kill -9 and restarts, against the real binary -----

/// A job of the real server (`GET`, which must answer 200).
async fn job(c: &awc::Client, url: &str) -> Value {
    let (status, view) = get_json(c, url).await;
    assert_eq!(status, 200, "{url}: {view}");
    view
}

/// Polls a perft job until `done` tasks are finished, asserting it runs meanwhile.
async fn wait_tasks(c: &awc::Client, url: &str, done: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let view = job(c, url).await;
        assert_eq!(view["state"], "running", "{view}");
        if view["progress"]["done"].as_u64().unwrap() >= done {
            return view;
        }
        assert!(Instant::now() < deadline, "{url} is stuck: {view}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Polls a job of the real server until it ends.
async fn wait_end(c: &awc::Client, url: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let view = job(c, url).await;
        if ["done", "cancelled", "failed"].contains(&view["state"].as_str().unwrap()) {
            return view;
        }
        assert!(Instant::now() < deadline, "{url} did not end: {view}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the store holds of a job, read with the store's own API while the server is down or
/// beside it: its state, how many times it was started, and its finished tasks.
async fn stored(url: &str, id: &str) -> (String, i64, usize) {
    let store = Store::open(url, SqliteSync::Full, 16).await.unwrap();
    let id = Uuid::parse_str(id).unwrap();
    let row = store
        .load_job(&id)
        .await
        .unwrap()
        .expect("the job is stored");
    let tasks = store.job_tasks(&id).await.unwrap().len();
    store.close().await;
    (row.state, row.runs, tasks)
}

/// The ids `GET /v1/jobs` lists.
async fn listed(c: &awc::Client, base: &str) -> Vec<String> {
    let list = job(c, &format!("{base}/v1/jobs")).await;
    list["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap().to_string())
        .collect()
}

/// Posts a job to the real server; asserts 202: the job.
async fn start(c: &awc::Client, base: &str, route: &str, body: Value) -> Value {
    let (status, job) = post_json(c, &format!("{base}{route}"), None, &body).await;
    assert_eq!(status, 202, "{body}: {job}");
    job
}

/// A job's URL on a server.
fn url(base: &str, route: &str, job: &Value) -> String {
    format!("{base}{route}/{}", job["id"].as_str().unwrap())
}

/// Cancels `job` at `url`, with its secret when `secret`.
async fn cancel(c: &awc::Client, url: &str, job: &Value, secret: bool) -> (u16, Value) {
    match secret {
        true => common::delete_authed(c, url, job["secret"].as_str().unwrap()).await,
        false => delete_json(c, url).await,
    }
}

async fn kill_9_then_shutdown_and_resume(store_url: &str) {
    let row = gct::gct_row("start", 7);
    let mut env = vec![
        ("CHESSD_STORE__URL", store_url),
        ("CHESSD_JOBS__POOL_THREADS", "2"),
        ("CHESSD_JOBS__MAX_MATE_IN", "8"),
        ("CHESSD_QUOTAS__MAX_JOBS", "8"),
    ];
    env.extend_from_slice(&common::KEYED_LIMITS_FOR_ALL);
    let c = client();

    // 1. A deep perft, a puzzle that takes long, and a perft cancelled while queued.
    let server = Server::start(&env);
    let base = server.base.clone();
    let body = json!({"depth": 7, "stats": true, "threads": 1});
    let perft = start(&c, &base, "/v1/perft", body.clone()).await;
    assert_eq!(perft["cached"], false);
    let puzzle = start(
        &c,
        &base,
        "/v1/puzzles",
        json!({"fen": NO_QUICK_MATE, "mate_in": 8, "time_limit_ms": 60_000}),
    )
    .await;
    let doomed = start(&c, &base, "/v1/perft", json!({"depth": 8, "threads": 1})).await;
    assert_eq!(doomed["state"], "queued", "{doomed}");
    let (status, v) = cancel(&c, &url(&base, "/v1/perft", &doomed), &doomed, true).await;
    assert_eq!((status, &v["state"]), (200, &json!("cancelled")), "{v}");
    let perft_url = url(&base, "/v1/perft", &perft);
    let view = wait_tasks(&c, &perft_url, 1).await;
    let total = view["progress"]["total"].as_u64().unwrap();
    assert!(total > 1000, "{view}");
    let view = wait_tasks(&c, &perft_url, total / 4).await;
    assert!(view["progress"]["done"].as_u64().unwrap() < total, "{view}");
    assert_eq!(
        job(&c, &url(&base, "/v1/puzzles", &puzzle)).await["state"],
        "running"
    );
    // kill -9.
    drop(server);
    let (state, runs, before) = stored(store_url, perft["id"].as_str().unwrap()).await;
    assert_eq!((state.as_str(), runs), ("running", 1));
    assert!(
        0 < before && (before as u64) < total,
        "{before} of {total} tasks"
    );
    println!("killed with {before} of {total} tasks kept");

    // 2. Restarted: the perft goes on from the tasks kept, the puzzle starts again, the
    //    cancelled job stays cancelled. A graceful shutdown then stops them.
    let mut server = Server::start(&env);
    let base = server.base.clone();
    let perft_url = url(&base, "/v1/perft", &perft);
    let view = job(&c, &perft_url).await;
    assert_eq!(
        view["progress"]["resumed"].as_u64(),
        Some(before as u64),
        "{view}"
    );
    let puzzle_view = job(&c, &url(&base, "/v1/puzzles", &puzzle)).await;
    assert_eq!(puzzle_view["state"], "running", "{puzzle_view}");
    // Its second start is kept (written beside the restart, not before it).
    let deadline = Instant::now() + Duration::from_secs(10);
    while stored(store_url, puzzle["id"].as_str().unwrap()).await.1 != 2 {
        assert!(
            Instant::now() < deadline,
            "the puzzle's second start is not stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let doomed_view = job(&c, &url(&base, "/v1/perft", &doomed)).await;
    assert_eq!(doomed_view["state"], "cancelled");
    for j in [&perft, &puzzle, &doomed] {
        assert!(listed(&c, &base)
            .await
            .contains(&j["id"].as_str().unwrap().to_string()));
    }
    // The creator's secret still cancels (the puzzle, to free its thread).
    let (status, v) = cancel(&c, &url(&base, "/v1/puzzles", &puzzle), &puzzle, true).await;
    assert_eq!((status, &v["state"]), (200, &json!("cancelled")), "{v}");
    let view = wait_tasks(&c, &perft_url, before as u64 + total / 5).await;
    assert!(view["progress"]["done"].as_u64().unwrap() < total, "{view}");
    assert!(
        server.terminate(Duration::from_secs(15)),
        "no graceful exit"
    );
    let (state, runs, kept) = stored(store_url, perft["id"].as_str().unwrap()).await;
    assert_eq!(
        (state.as_str(), runs),
        ("running", 2),
        "a shutdown is no cancel"
    );
    assert!(
        before < kept && (kept as u64) < total,
        "{kept} of {total} tasks"
    );
    drop(server);

    // 3. Restarted again: the perft ends with the reference's every statistic, having counted
    //    only the tasks it had not kept.
    let server = Server::start(&env);
    let base = server.base.clone();
    let perft_url = url(&base, "/v1/perft", &perft);
    let done = wait_end(&c, &perft_url).await;
    assert_eq!(done["state"], "done", "{done}");
    gct::assert_gct_row(&done["result"], &row);
    let progress = &done["progress"];
    assert_eq!(progress["resumed"].as_u64(), Some(kept as u64), "{done}");
    assert_eq!(
        progress["computed"].as_u64(),
        Some(total - kept as u64),
        "a kept task was counted again: {done}"
    );
    assert_eq!(progress["done"].as_u64(), Some(total), "{done}");
    assert_eq!(done["nodes"].as_u64(), Some(row.stats[0]));
    // A finished job keeps its result, not its tasks.
    let (state, _, tasks) = stored(store_url, perft["id"].as_str().unwrap()).await;
    assert_eq!((state.as_str(), tasks), ("done", 0));
    assert_eq!(
        job(&c, &url(&base, "/v1/puzzles", &puzzle)).await["state"],
        "cancelled"
    );
    assert_eq!(
        job(&c, &url(&base, "/v1/perft", &doomed)).await["state"],
        "cancelled"
    );
    drop(server);

    // 4. Restarted holding no finished job in memory: none is listed, each is read from the
    //    store, the creator's secret still works, and the request is answered from the store.
    let mut env = env.to_vec();
    env.push(("CHESSD_JOBS__KEEP_FINISHED_SECS", "0"));
    let server = Server::start(&env);
    let base = server.base.clone();
    assert!(listed(&c, &base).await.is_empty());
    let view = job(&c, &url(&base, "/v1/perft", &perft)).await;
    assert_eq!(
        (&view["state"], &view["result"]),
        (&json!("done"), &done["result"])
    );
    assert_eq!(
        job(&c, &url(&base, "/v1/perft", &doomed)).await["state"],
        "cancelled"
    );
    let (status, _) = cancel(&c, &url(&base, "/v1/perft", &perft), &perft, false).await;
    assert_eq!(status, 401);
    let (status, v) = cancel(&c, &url(&base, "/v1/perft", &perft), &perft, true).await;
    assert_eq!((status, &v["state"]), (200, &json!("done")), "{v}");
    let unknown = format!("{base}/v1/perft/{}", Uuid::new_v4());
    assert_eq!(get_json(&c, &unknown).await.0, 404);
    let puzzle_as_perft = format!("{base}/v1/perft/{}", puzzle["id"].as_str().unwrap());
    assert_eq!(get_json(&c, &puzzle_as_perft).await.0, 404);
    let again = start(&c, &base, "/v1/perft", body).await;
    assert_eq!(
        (&again["cached"], &again["state"]),
        (&json!(true), &json!("done"))
    );
    assert_eq!(again["result"], done["result"]);
}

#[actix_web::test]
async fn a_perft_resumes_from_its_finished_tasks_after_kill_9_on_sqlite() {
    let path = scratch_store();
    kill_9_then_shutdown_and_resume(&format!("sqlite://{}", path.display())).await;
    common::remove_sqlite(&path);
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[actix_web::test]
async fn a_perft_resumes_from_its_finished_tasks_after_kill_9_on_postgresql() {
    let pg = common::postgres::PgServer::start();
    kill_9_then_shutdown_and_resume(&pg.url).await;
}
