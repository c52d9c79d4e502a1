//! The cost of running a perft as a job through the API, against the core's own parallel
//! perft on the same position, depth and threads.
//!
//! The API side starts the real `chessd` binary (one HTTP worker, a pool of the case's
//! threads), then per run: `POST /v1/perft`, open `GET /v1/perft/{id}/events`, and stop the
//! clock at the final `done` message. The core side times `Perft::new(pos)…run` in this
//! process. Runs alternate between the two (`CHESSD_BENCH_RUNS`, default 5, per side and
//! case), node counts are asserted on every run, and the table shows the medians and the
//! overhead (target: at most 5 %).
//!
//! Run with `cargo bench --bench perft_job`.

#![allow(clippy::unwrap_used)] // a benchmark fails loudly

use std::{
    io::BufRead,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use chessd_core::{perft::Perft, FenMode, Position};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

struct Case {
    name: &'static str,
    fen: &'static str,
    depth: u32,
    stats: bool,
    threads: usize,
    nodes: u64,
}

const CASES: [Case; 3] = [
    Case {
        name: "startpos bulk",
        fen: START,
        depth: 7,
        stats: false,
        threads: 2,
        nodes: 3_195_901_860,
    },
    Case {
        name: "kiwipete stats",
        fen: KIWIPETE,
        depth: 5,
        stats: true,
        threads: 2,
        nodes: 193_690_690,
    },
    Case {
        name: "kiwipete bulk",
        fen: KIWIPETE,
        depth: 5,
        stats: false,
        threads: 1,
        nodes: 193_690_690,
    },
];

/// The server, killed on drop.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(pool: usize) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chessd"))
        .args(["serve", "--bind", "127.0.0.1:0"])
        // These benchmarks measure engines and jobs, not the store.
        .env("CHESSD_STORE__URL", "memory")
        .env("RUST_LOG", "warn")
        .env("CHESSD_WORKERS", "1")
        .env("CHESSD_JOBS__POOL_THREADS", pool.to_string())
        .env("CHESSD_JOBS__MAX_PERFT_DEPTH", "12")
        // The bench is one client without an API key measuring the pool: the keyed limits,
        // and the whole pool for one client (issue 27's defaults leave a thread to others).
        .env("CHESSD_JOBS__ANONYMOUS_MAX_PERFT_DEPTH", "12")
        .env("CHESSD_JOBS__ANONYMOUS_MAX_THREADS", "0")
        .env("CHESSD_JOBS__ANONYMOUS_MAX_HASH_MB", "1024")
        .env("CHESSD_JOBS__MAX_CLIENT_THREADS", "1024")
        .stdout(Stdio::piped())
        .spawn()
        .expect("start chessd");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let base = line
        .strip_prefix("chessd listening on ")
        .unwrap()
        .to_string();
    std::thread::spawn(move || for _ in lines {});
    Server { child, base }
}

/// One core run: (wall time, nodes).
fn core_run(case: &Case) -> (Duration, u64) {
    let pos = Position::from_fen(case.fen, FenMode::Lenient).unwrap();
    let start = Instant::now();
    let result = Perft::new(pos)
        .depth(case.depth)
        .threads(case.threads)
        .stats(case.stats)
        .run(|_| {})
        .unwrap();
    (start.elapsed(), result.nodes())
}

/// One API run: POST, then the events WebSocket until the final message.
async fn api_run(client: &awc::Client, base: &str, case: &Case) -> (Duration, u64) {
    let body =
        json!({"fen": case.fen, "depth": case.depth, "stats": case.stats, "threads": case.threads});
    let start = Instant::now();
    let mut resp = client
        .post(format!("{base}/v1/perft"))
        .send_json(&body)
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 202);
    let created: Value = resp.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let url = format!("{}/v1/perft/{id}/events", base.replacen("http", "ws", 1));
    let (_, mut conn) = client.ws(url).connect().await.unwrap();
    loop {
        match conn.next().await.unwrap().unwrap() {
            awc::ws::Frame::Text(bytes) => {
                let event: Value = serde_json::from_slice(&bytes).unwrap();
                if event["type"] != "progress" {
                    let elapsed = start.elapsed();
                    assert_eq!(event["type"], "done", "{event}");
                    return (elapsed, event["job"]["result"]["nodes"].as_u64().unwrap());
                }
            }
            awc::ws::Frame::Ping(bytes) => conn.send(awc::ws::Message::Pong(bytes)).await.unwrap(),
            awc::ws::Frame::Close(reason) => panic!("closed before the end: {reason:?}"),
            _ => {}
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("CHESSD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let system = actix_web::rt::System::new();
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(600))
        .finish();
    let max_threads = CASES.iter().map(|c| c.threads).max().unwrap_or(1);
    let server = start_server(max_threads);
    println!(
        "{:<16} {:>5} {:>7} {:>14} {:>10} {:>10} {:>9}",
        "case", "depth", "threads", "nodes", "core s", "api s", "overhead"
    );
    let mut worst: f64 = 0.0;
    for case in &CASES {
        let (mut core, mut api) = (Vec::new(), Vec::new());
        // One warm-up of each side (page cache, CPU frequency), not counted.
        core_run(case);
        system.block_on(api_run(&client, &server.base, case));
        for _ in 0..runs {
            let (t, nodes) = core_run(case);
            assert_eq!(nodes, case.nodes, "{}", case.name);
            core.push(t);
            let (t, nodes) = system.block_on(api_run(&client, &server.base, case));
            assert_eq!(nodes, case.nodes, "{}", case.name);
            api.push(t);
        }
        let (c, a) = (median(core), median(api));
        let overhead = a.as_secs_f64() / c.as_secs_f64() - 1.0;
        worst = worst.max(overhead);
        println!(
            "{:<16} {:>5} {:>7} {:>14} {:>10.3} {:>10.3} {:>8.1}%",
            case.name,
            case.depth,
            case.threads,
            case.nodes,
            c.as_secs_f64(),
            a.as_secs_f64(),
            overhead * 100.0
        );
    }
    // The fixed cost of a job through the API (POST, WebSocket, final message), from a job
    // with next to no work: what the overhead of a longer job should be made of.
    let tiny = Case {
        name: "startpos d1",
        fen: START,
        depth: 1,
        stats: false,
        threads: 1,
        nodes: 20,
    };
    let fixed: Vec<Duration> = (0..11)
        .map(|_| system.block_on(api_run(&client, &server.base, &tiny)).0)
        .collect();
    println!(
        "fixed cost of a job through the API (depth 1, median of 11): {:.2} ms",
        median(fixed).as_secs_f64() * 1e3
    );
    println!(
        "worst overhead {:.1}% (target at most 5%): {}",
        worst * 100.0,
        if worst <= 0.05 { "met" } else { "NOT met" }
    );
}
