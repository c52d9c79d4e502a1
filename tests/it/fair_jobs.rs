//! Issue 27, "No client can starve the others", the perft jobs' row, through the real binary:
//! one client's deep jobs never block another client's small one (fair scheduling and a
//! per-client share of the pool), a job past `jobs.max_run_secs` ends timed out (also when a
//! restart came in between: the run time before it counts), and clients without an API key
//! have lower limits than clients with one.

use std::{
    net::{IpAddr, SocketAddr},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

use crate::common::{self, client, get_json, Server};

/// POSTs JSON from a chosen loopback source address (so that one test is several clients),
/// with an API key or none; the status and the JSON body.
async fn post_from(
    source: &str,
    base: &str,
    path: &str,
    api_key: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr: SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(source.parse::<IpAddr>().unwrap(), 0))
        .unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let body = body.to_string();
    let key = api_key
        .map(|k| format!("X-API-Key: {k}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{key}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// A server with a pool of two threads and one HTTP worker, and more environment.
fn server(env: &[(&str, &str)]) -> Server {
    let mut vars = vec![("CHESSD_WORKERS", "1"), ("CHESSD_JOBS__POOL_THREADS", "2")];
    vars.extend_from_slice(env);
    Server::start(&vars)
}

/// Polls a job until `done(view)` holds (or `limit` passes: a panic).
async fn wait_until(
    c: &awc::Client,
    url: &str,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + limit;
    loop {
        let (status, v) = get_json(c, url).await;
        assert_eq!(status, 200, "{v}");
        if done(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{url}: not in time: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn ended(v: &Value) -> bool {
    ["done", "cancelled", "failed"].contains(&v["state"].as_str().unwrap_or(""))
}

#[actix_web::test]
async fn one_clients_deep_jobs_never_block_another_clients_small_one() {
    let srv = server(&[]);
    let c = client();
    // Client A (127.0.0.1, no key) asks for two deep jobs with the most threads it may have.
    let (s, a1) = post_from(
        "127.0.0.1",
        &srv.base,
        "/v1/perft",
        None,
        &json!({"depth": 8, "stats": true}),
    )
    .await;
    assert_eq!(s, 202, "{a1}");
    let (s, a2) = post_from(
        "127.0.0.1",
        &srv.base,
        "/v1/perft",
        None,
        &json!({"depth": 8, "stats": true}),
    )
    .await;
    assert_eq!(s, 202, "{a2}");
    let a1_url = format!("{}/v1/perft/{}", srv.base, a1["id"].as_str().unwrap());
    let a2_url = format!("{}/v1/perft/{}", srv.base, a2["id"].as_str().unwrap());
    wait_until(&c, &a1_url, Duration::from_secs(20), |v| {
        v["state"] == "running"
    })
    .await;
    // Client B (127.0.0.2) asks for a depth-4 perft: it runs on the thread A may not take.
    let start = Instant::now();
    let (s, b) = post_from(
        "127.0.0.2",
        &srv.base,
        "/v1/perft",
        None,
        &json!({"depth": 4}),
    )
    .await;
    assert_eq!(s, 202, "{b}");
    let b_url = format!("{}/v1/perft/{}", srv.base, b["id"].as_str().unwrap());
    let done = wait_until(&c, &b_url, Duration::from_secs(20), ended).await;
    eprintln!(
        "client B's depth-4 job, behind client A's two depth-8 jobs, ended in {:?}",
        start.elapsed()
    );
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["result"]["nodes"], 197_281);
    // A holds its share (the pool less one thread): its first job runs, its second waits.
    let (_, a1_now) = get_json(&c, &a1_url).await;
    let (_, a2_now) = get_json(&c, &a2_url).await;
    assert_eq!(
        (a1_now["state"].as_str(), a1_now["threads"].as_u64()),
        (Some("running"), Some(1)),
        "{a1_now}"
    );
    assert_eq!(a2_now["state"], "queued", "{a2_now}");
    let (_, list) = get_json(&c, &format!("{}/v1/jobs", srv.base)).await;
    assert_eq!(list["busy_threads"], 1, "{list}");
}

#[actix_web::test]
async fn a_job_past_max_run_secs_ends_timed_out_on_its_view_and_its_events() {
    let srv = server(&[("CHESSD_JOBS__MAX_RUN_SECS", "2")]);
    let c = client();
    let (s, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", srv.base),
        None,
        &json!({"depth": 8}),
    )
    .await;
    assert_eq!(s, 202, "{job}");
    let id = job["id"].as_str().unwrap();
    let ws = format!(
        "{}/v1/perft/{id}/events",
        srv.base.replacen("http", "ws", 1)
    );
    let mut conn = common::ws_connect(&c, &ws).await;
    let (code, texts) = common::ws_until_close(&mut conn, Duration::from_secs(60)).await;
    assert_eq!(code, Some(awc::ws::CloseCode::Normal));
    let last = texts.last().unwrap();
    assert_eq!(last["type"], "failed", "{last}");
    assert_eq!(last["job"]["error"]["code"], "job_timed_out", "{last}");
    let message = last["job"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("jobs.max_run_secs"), "{message}");
    let (_, view) = get_json(&c, &format!("{}/v1/perft/{id}", srv.base)).await;
    assert_eq!(
        (&view["state"], &view["error"]["code"]),
        (&json!("failed"), &json!("job_timed_out")),
        "{view}"
    );
    assert!(view["elapsed_ms"].as_u64().unwrap() >= 2000, "{view}");
    eprintln!(
        "a depth-8 job with jobs.max_run_secs = 2 ended after {} ms: {message}",
        view["elapsed_ms"]
    );
}

#[actix_web::test]
async fn a_resumed_job_keeps_counting_its_run_time_before_the_restart() {
    let store = common::scratch_store();
    let url = format!("sqlite://{}", store.display());
    let env = [
        ("CHESSD_STORE__URL", url.as_str()),
        ("CHESSD_JOBS__MAX_RUN_SECS", "8"),
    ];
    let c = client();
    let mut first = server(&env);
    let (s, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", first.base),
        None,
        &json!({"depth": 8}),
    )
    .await;
    assert_eq!(s, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    // Five of its eight seconds, then a graceful stop: the job stays unfinished in the store.
    let view_url = format!("{}/v1/perft/{id}", first.base);
    wait_until(&c, &view_url, Duration::from_secs(30), |v| {
        v["elapsed_ms"].as_u64().unwrap_or(0) >= 5000
    })
    .await;
    assert!(
        first.terminate(Duration::from_secs(20)),
        "the server did not stop"
    );
    drop(first);
    let second = server(&env);
    let view_url = format!("{}/v1/perft/{id}", second.base);
    let view = wait_until(&c, &view_url, Duration::from_secs(60), ended).await;
    assert_eq!(
        (&view["state"], &view["error"]["code"]),
        (&json!("failed"), &json!("job_timed_out")),
        "{view}"
    );
    // This run lasted what was left of the eight seconds (about three), not eight more.
    let ran = view["elapsed_ms"].as_u64().unwrap();
    eprintln!("after the restart the job ran {ran} ms more before it timed out");
    assert!(
        ran < 7000,
        "the run before the restart was not counted: {view}"
    );
    drop(second);
    common::remove_sqlite(&store);
}

#[actix_web::test]
async fn clients_without_an_api_key_have_lower_limits_and_keyed_ones_keep_theirs() {
    let srv = server(&[("CHESSD_AUTH__API_KEYS", "[\"key-1\"]")]);
    let c = client();
    let perft = "/v1/perft";
    // The job of the issue: depth 9, statistics, 1 GiB of hash, without a key.
    for (body, key) in [
        (
            json!({"depth": 9, "stats": true, "hash_mb": 1024}),
            "jobs.anonymous_max_perft_depth",
        ),
        (
            json!({"depth": 8, "hash_mb": 1024}),
            "jobs.anonymous_max_hash_mb",
        ),
        (
            json!({"depth": 8, "threads": 2}),
            "jobs.anonymous_max_threads",
        ),
    ] {
        let (s, v) = post_from("127.0.0.1", &srv.base, perft, None, &body).await;
        assert_eq!(
            (s, &v["error"]["code"]),
            (422, &json!("limit_exceeded")),
            "{body}: {v}"
        );
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains(key), "{body}: {message}");
    }
    let (s, v) = post_from(
        "127.0.0.1",
        &srv.base,
        "/v1/puzzles",
        None,
        &json!({"fen": "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 1", "mate_in": 2, "threads": 2}),
    )
    .await;
    assert_eq!(
        (s, &v["error"]["code"]),
        (422, &json!("limit_exceeded")),
        "{v}"
    );
    // Within them, a client without a key may.
    let (s, v) = post_from(
        "127.0.0.1",
        &srv.base,
        perft,
        None,
        &json!({"depth": 8, "hash_mb": 64}),
    )
    .await;
    assert_eq!((s, &v["threads"]), (202, &json!(1)), "{v}");
    let cancel = format!("{}/v1/perft/{}", srv.base, v["id"].as_str().unwrap());
    let secret = v["secret"].as_str().unwrap();
    assert_eq!(common::delete_authed(&c, &cancel, secret).await.0, 200);
    // A client with a key keeps the limits of [jobs].
    let (s, v) = post_from(
        "127.0.0.3",
        &srv.base,
        perft,
        Some("key-1"),
        &json!({"depth": 9, "stats": true, "hash_mb": 1024}),
    )
    .await;
    assert_eq!(s, 202, "{v}");
    assert_eq!(
        (&v["depth"], &v["hash_mb"]),
        (&json!(9), &json!(1024)),
        "{v}"
    );
    let cancel = format!("{}/v1/perft/{}", srv.base, v["id"].as_str().unwrap());
    let secret = v["secret"].as_str().unwrap();
    assert_eq!(common::delete_authed(&c, &cancel, secret).await.0, 200);
}
