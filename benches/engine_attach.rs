//! Attach time by protocol: how long [`Engine::start`] takes (process start and the whole
//! handshake: UCI `uci` … `readyok`; XBoard `xboard`/`protover 2` … `done=1`, `ping`/`pong`)
//! for Stockfish (UCI) against Sjeng and Phalanx (XBoard), alternating engines, each session
//! dropped (`quit`) before the next.
//!
//! A measurement, not a test (nothing is asserted about times); run it with
//!
//! ```sh
//! cargo test --release --bench engine_attach -- --ignored --nocapture
//! ```
//!
//! `CHESSD_BENCH_SAMPLES` (default 25) sets the attaches per engine; engines that are not
//! installed are skipped with a message.

#![allow(clippy::unwrap_used)] // a benchmark: fail loudly

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use chessd_server::{
    config::EngineConfig,
    engine::handle::{Engine, EventSink},
};

/// The engines measured: name, path, protocol.
const ENGINES: [(&str, &str, &str); 3] = [
    ("stockfish", "/usr/games/stockfish", "uci"),
    ("sjeng", "/usr/games/sjeng", "xboard"),
    ("phalanx", "/usr/games/phalanx", "xboard"),
];

fn config(path: &str, protocol: &str) -> EngineConfig {
    serde_json::from_value(serde_json::json!({
        "command": path,
        "protocol": protocol,
    }))
    .unwrap()
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

#[test]
#[ignore = "a measurement: cargo test --release --bench engine_attach -- --ignored --nocapture"]
fn attach_time_by_protocol() {
    let samples: usize = std::env::var("CHESSD_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(25);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let engines: Vec<_> = ENGINES
        .iter()
        .filter(|(name, path, _)| {
            let there = std::path::Path::new(path).is_file();
            if !there {
                println!("{name}: not installed ({path}), skipped");
            }
            there
        })
        .collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); engines.len()];
    runtime.block_on(async {
        let sink: EventSink = Arc::new(|_| {});
        for _ in 0..samples {
            for (i, (name, path, protocol)) in engines.iter().enumerate() {
                let config = config(path, protocol);
                let t = Instant::now();
                let engine = Engine::start(name, &config, sink.clone()).await.unwrap();
                times[i].push(t.elapsed());
                drop(engine);
                // Let it quit before the next one starts.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    });
    println!("attach (Engine::start), {samples} samples each:");
    for ((name, _, protocol), samples) in engines.iter().zip(times.iter_mut()) {
        let max = samples.iter().max().copied().unwrap_or_default();
        let med = median(samples);
        println!("  {name:<10} {protocol:<7} median {med:>10.2?}  max {max:>10.2?}");
    }
}
