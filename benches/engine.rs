//! What chessd adds to an engine call: `cargo bench --bench engine`.
//!
//! Starts the real server (`chessd serve`, this build) with Stockfish configured, and measures:
//! - **attach**: `POST /v1/games/{id}/engine` (process start + `uci`/`uciok` + options +
//!   `isready`/`readyok`), median and max;
//! - **bestmove overhead**: `POST /v1/games/{id}/engine/bestmove {"movetime": 100}` wall time
//!   through REST, against Stockfish's own time for the same search spoken to directly over a
//!   pipe (`position`, `go movetime 100` → `bestmove`), alternating the two. Reported: the REST
//!   wall time minus 100 ms, the direct time minus 100 ms, and their difference (chessd's cost),
//!   median and p99.
//!
//! - **pure overhead**: the same REST call answered by an engine that replies at once (the
//!   `instant` fake engine of `tests/fixtures/fake_engine.sh`), next to `GET /v1/games/{id}`:
//!   chessd's whole path (HTTP, actor, session, pipe, parsing, move check) without any search
//!   time and without Stockfish's own timing noise.
//!
//! `CHESSD_BENCH_SAMPLES` (default 200) sets the number of searches of each kind. Needs
//! Stockfish (`/usr/games/stockfish`); without it the bench says so and exits.

#![allow(clippy::unwrap_used)] // a benchmark: fail loudly

use std::{
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

const MOVETIME_MS: u64 = 100;

fn stockfish() -> Option<&'static str> {
    [
        "/usr/games/stockfish",
        "/usr/bin/stockfish",
        "/usr/local/bin/stockfish",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file())
}

/// Stockfish spoken to directly over pipes.
struct Direct {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Direct {
    /// Starts Stockfish and completes the handshake (as chessd does for an attach).
    fn start(path: &str) -> Direct {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut d = Direct {
            child,
            stdin,
            lines,
        };
        d.send("uci");
        d.until("uciok");
        d.send("setoption name Hash value 16");
        d.send("setoption name Threads value 1");
        d.send("isready");
        d.until("readyok");
        d
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn until(&mut self, prefix: &str) {
        for line in self.lines.by_ref() {
            if line.unwrap().starts_with(prefix) {
                return;
            }
        }
        panic!("stockfish ended before {prefix}");
    }

    /// One `movetime` search of the start position: its wall time.
    fn search(&mut self) -> Duration {
        self.send("position startpos");
        let t = Instant::now();
        self.send(&format!("go movetime {MOVETIME_MS}"));
        self.until("bestmove");
        t.elapsed()
    }
}

impl Drop for Direct {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server process, killed on drop.
struct Server {
    child: std::process::Child,
    base: String,
}

impl Server {
    fn start(stockfish: &str) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessd"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            // These benchmarks measure engines and jobs, not the store.
            .env("CHESSD_STORE__URL", "memory")
            .env("RUST_LOG", "warn")
            .env("CHESSD_ENGINES__SF__COMMAND", stockfish)
            .env("CHESSD_ENGINES__SF__OPTIONS", "{Hash = 16, Threads = 1}")
            .env("CHESSD_ENGINES__INSTANT__COMMAND", "sh")
            .env(
                "CHESSD_ENGINES__INSTANT__ARGS",
                format!(
                    "[\"{}/tests/fixtures/fake_engine.sh\", \"instant\"]",
                    env!("CARGO_MANIFEST_DIR")
                ),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let base = first
            .strip_prefix("chessd listening on ")
            .unwrap()
            .to_string();
        std::thread::spawn(move || for _ in lines {});
        Server { child, base }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn post(c: &awc::Client, url: &str, secret: &str, body: Value) -> (u16, Value) {
    let mut resp = c
        .post(url)
        .bearer_auth(secret)
        .send_json(&body)
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let bytes = resp.body().await.unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The `q` quantile (nearest rank) of `xs`.
fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let Some(sf) = stockfish() else {
        println!("engine bench skipped: Stockfish is not installed (apt-get install stockfish)");
        return;
    };
    let samples: usize = std::env::var("CHESSD_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
        .max(1);
    let server = Server::start(sf);
    let mut direct_attach = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        drop(Direct::start(sf));
        direct_attach.push(ms(t.elapsed()));
    }
    let mut direct = Direct::start(sf);
    // Warm up the direct engine (NNUE load, first allocation).
    direct.search();
    let base = server.base.clone();
    actix_web::rt::System::new().block_on(async move {
        let c = awc::Client::builder()
            .timeout(Duration::from_secs(30))
            .finish();
        let mut resp = c
            .post(format!("{base}/v1/games"))
            .send_json(&json!({}))
            .await
            .unwrap();
        let game: Value = serde_json::from_slice(&resp.body().await.unwrap()).unwrap();
        let id = game["id"].as_str().unwrap().to_string();
        let admin = game["secrets"]["admin"].as_str().unwrap().to_string();
        let engine_url = format!("{base}/v1/games/{id}/engine");

        let mut attach = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            let (status, v) = post(&c, &engine_url, &admin, json!({"name": "sf"})).await;
            assert_eq!(status, 200, "{v}");
            attach.push(ms(t.elapsed()));
        }

        let best_url = format!("{base}/v1/games/{id}/engine/bestmove");
        // Warm up the attached engine.
        post(&c, &best_url, &admin, json!({"movetime": MOVETIME_MS})).await;
        let (mut rest, mut pipe, mut diff) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..samples {
            let t = Instant::now();
            let (status, v) = post(&c, &best_url, &admin, json!({"movetime": MOVETIME_MS})).await;
            let wall = ms(t.elapsed());
            assert_eq!(status, 200, "{v}");
            let own = ms(direct.search());
            rest.push(wall - MOVETIME_MS as f64);
            pipe.push(own - MOVETIME_MS as f64);
            diff.push(wall - own);
        }
        // Pure overhead: an engine that answers at once, and a plain read for comparison.
        let (status, v) = post(&c, &engine_url, &admin, json!({"name": "instant"})).await;
        assert_eq!(status, 200, "{v}");
        let (mut instant, mut read) = (Vec::new(), Vec::new());
        let state_url = format!("{base}/v1/games/{id}");
        for _ in 0..samples {
            let t = Instant::now();
            let (status, v) = post(&c, &best_url, &admin, json!({"depth": 1})).await;
            instant.push(ms(t.elapsed()));
            assert_eq!(status, 200, "{v}");
            let t = Instant::now();
            let mut resp = c.get(&state_url).send().await.unwrap();
            resp.body().await.unwrap();
            read.push(ms(t.elapsed()));
        }
        let row = |name: &str, xs: &[f64]| {
            println!(
                "{name:<44} median {:>7.2} ms   p99 {:>7.2} ms",
                quantile(xs, 0.5),
                quantile(xs, 0.99)
            );
        };
        println!(
            "engine bench: Stockfish {sf}, {samples} searches of movetime {MOVETIME_MS} each way"
        );
        println!(
            "{:<44} median {:>7.2} ms   max {:>7.2} ms",
            "attach (start + handshake + options)",
            quantile(&attach, 0.5),
            quantile(&attach, 1.0)
        );
        println!(
            "{:<44} median {:>7.2} ms   max {:>7.2} ms",
            "  the same directly over a pipe",
            quantile(&direct_attach, 0.5),
            quantile(&direct_attach, 1.0)
        );
        row("REST bestmove wall - movetime", &rest);
        row("direct pipe wall - movetime (Stockfish)", &pipe);
        row("chessd overhead (REST wall - direct wall)", &diff);
        row("bestmove via an instant engine (REST wall)", &instant);
        row("GET /v1/games/{id} (REST wall)", &read);
    });
}
