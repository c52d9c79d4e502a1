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
//! - **the peer**: the same search through python-chess's `chess.engine` (`engine.play`, the
//!   library users would otherwise drive Stockfish with), in a persistent Python process
//!   (`benches/peers/python_chess_engine.py`), alternating with the two above; reported: its wall
//!   time minus 100 ms and chessd's REST wall time minus it (paired). `CHESSD_BENCH_PYTHON`
//!   names the interpreter (default `python3`); without python-chess the rows are skipped, saying
//!   so.
//! - **over TCP**: the same REST call to Stockfish behind `socat … fork,nodelay`, and behind
//!   socat without `nodelay` (when socat is installed).
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

/// python-chess driving Stockfish, in a Python process of its own (see the module doc).
struct PythonPeer {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl PythonPeer {
    /// Starts the peer, or says why it cannot run.
    fn start(stockfish: &str) -> Result<PythonPeer, String> {
        let python = std::env::var("CHESSD_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/peers/python_chess_engine.py"
        );
        let mut child = Command::new(&python)
            .args([script, stockfish, &MOVETIME_MS.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {python}: {e}"))?;
        let stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        match lines.next() {
            Some(Ok(l)) if l == "ready" => Ok(PythonPeer {
                child,
                stdin,
                lines,
            }),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!(
                    "{python} cannot run python-chess (pip install chess; or set                      CHESSD_BENCH_PYTHON to an interpreter that has it)"
                ))
            }
        }
    }

    /// One search's wall time as python-chess measures it.
    fn search(&mut self) -> f64 {
        writeln!(self.stdin, "search").unwrap();
        self.stdin.flush().unwrap();
        self.lines.next().unwrap().unwrap().parse().unwrap()
    }
}

impl Drop for PythonPeer {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

/// `socat TCP-LISTEN:port,…,fork[,nodelay] EXEC:stockfish`, killed on drop.
struct Socat {
    child: std::process::Child,
    addr: String,
}

impl Socat {
    fn start(stockfish: &str, nodelay: bool) -> Option<Socat> {
        let socat = ["/usr/bin/socat", "/usr/local/bin/socat"]
            .into_iter()
            .find(|p| std::path::Path::new(p).is_file())?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let options = if nodelay { ",nodelay" } else { "" };
        let child = Command::new(socat)
            .arg(format!(
                "TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork{options}"
            ))
            .arg(format!("EXEC:{stockfish}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "socat did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Socat { child, addr })
    }
}

impl Drop for Socat {
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
    fn start(stockfish: &str, tcp: &[(&str, &Socat)]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_chessd"));
        for (name, socat) in tcp {
            command.env(
                format!("CHESSD_ENGINES__{}__TCP", name.to_uppercase()),
                &socat.addr,
            );
        }
        let mut child = command
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
    let nodelay = Socat::start(sf, true);
    let delayed = Socat::start(sf, false);
    let tcp: Vec<(&str, &Socat)> = [("tcp_nodelay", &nodelay), ("tcp_delayed", &delayed)]
        .into_iter()
        .filter_map(|(name, s)| s.as_ref().map(|s| (name, s)))
        .collect();
    let server = Server::start(sf, &tcp);
    let tcp_names: Vec<String> = tcp.iter().map(|(n, _)| n.to_string()).collect();
    let mut peer = PythonPeer::start(sf);
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
        let (mut python, mut versus_python) = (Vec::new(), Vec::new());
        for _ in 0..samples {
            let t = Instant::now();
            let (status, v) = post(&c, &best_url, &admin, json!({"movetime": MOVETIME_MS})).await;
            let wall = ms(t.elapsed());
            assert_eq!(status, 200, "{v}");
            let own = ms(direct.search());
            rest.push(wall - MOVETIME_MS as f64);
            pipe.push(own - MOVETIME_MS as f64);
            diff.push(wall - own);
            if let Ok(peer) = peer.as_mut() {
                let theirs = peer.search();
                python.push(theirs - MOVETIME_MS as f64);
                versus_python.push(wall - theirs);
            }
        }
        // Over TCP, behind socat with and without nodelay: fewer searches (each adds 100 ms).
        let tcp_samples = (samples / 4).max(1);
        let mut over_tcp = Vec::new();
        for name in &tcp_names {
            let (status, v) = post(&c, &engine_url, &admin, json!({ "name": name })).await;
            assert_eq!(status, 200, "{v}");
            post(&c, &best_url, &admin, json!({"movetime": MOVETIME_MS})).await;
            let mut walls = Vec::new();
            for _ in 0..tcp_samples {
                let t = Instant::now();
                let (status, v) =
                    post(&c, &best_url, &admin, json!({"movetime": MOVETIME_MS})).await;
                assert_eq!(status, 200, "{v}");
                walls.push(ms(t.elapsed()) - MOVETIME_MS as f64);
            }
            over_tcp.push((name.clone(), walls));
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
        match &peer {
            Ok(_) => {
                row("python-chess engine.play wall - movetime", &python);
                row("REST wall - python-chess wall (paired)", &versus_python);
            }
            Err(why) => println!("python-chess rows skipped: {why}"),
        }
        for (name, walls) in &over_tcp {
            row(&format!("REST bestmove via socat {name} - movetime"), walls);
        }
        if over_tcp.is_empty() {
            println!("TCP rows skipped: socat is not installed (apt-get install socat)");
        }
        row("bestmove via an instant engine (REST wall)", &instant);
        row("GET /v1/games/{id} (REST wall)", &read);
    });
}
