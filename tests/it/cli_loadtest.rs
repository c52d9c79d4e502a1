//! Black-box test of `chessd loadtest`: a tiny run of every part, checked through its JSON.

use std::process::Command;

use serde_json::Value;

/// A figure that must be a positive number.
fn positive(v: &Value, path: &str) -> f64 {
    let x = path
        .split('.')
        .fold(v, |v, key| &v[key])
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number in {v}"));
    assert!(x > 0.0, "{path} = {x} is not positive in {v}");
    x
}

fn zero(v: &Value, path: &str) {
    let x = path.split('.').fold(v, |v, key| &v[key]);
    assert_eq!(x.as_u64(), Some(0), "{path} in {v}");
}

#[test]
fn small_run_of_every_part_reports_every_figure() {
    let start = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_chessd"))
        .args([
            "loadtest",
            "all",
            "--seconds",
            "1",
            "--players",
            "20",
            "--games",
            "500",
            "--played-games",
            "20",
            "--json",
        ])
        .output()
        .expect("chessd runs");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "one JSON object: {text}");
    let v: Value = serde_json::from_str(&text).unwrap();

    for path in [
        "rest.health_per_sec",
        "rest.moves_per_sec",
        "rest.move_to_health_ratio",
        "rest.move_latency_ms.p50",
        "rest.move_latency_ms.p99",
        "rest.health_requests",
        "rest.moves",
        "rest.games_created",
        "ws.setup_seconds",
        "ws.max_rate.moves_per_sec",
        "ws.max_rate.moves",
        "ws.max_rate.latency_ms.p50",
        "ws.max_rate.latency_ms.p95",
        "ws.max_rate.latency_ms.p99",
        "ws.paced.pace_ms",
        "ws.paced.offered_moves_per_sec",
        "ws.paced.moves_per_sec",
        "ws.paced.moves",
        "ws.paced.latency_ms.p50",
        "ws.paced.latency_ms.p95",
        "ws.paced.latency_ms.p99",
        "ws.paced_under_load.moves",
        "ws.paced_under_load.latency_ms.p99",
        "ws.load_moves_per_sec",
        "rest.move_to_health_per_core",
        "rest_memory.moves_per_sec",
        "rest_memory.health_per_sec",
        "memory.create_per_sec",
        "memory.create_seconds",
        "memory.rss_before_bytes",
        "memory.rss_after_bytes",
        "memory.rss_after_mib",
        "memory.bytes_per_game",
    ] {
        positive(&v, path);
    }
    for path in [
        "rest.errors",
        "ws.setup_errors",
        "ws.max_rate.errors",
        "ws.paced.errors",
        "ws.paced_under_load.errors",
        "rest_memory.errors",
        "memory.errors",
    ] {
        zero(&v, path);
    }
    // The figures agree with each other.
    assert_eq!(v["ws"]["players"], 20);
    assert_eq!(v["ws"]["games"], 10);
    assert_eq!(v["memory"]["created"], 500);
    assert_eq!(v["memory"]["alive"], 500, "the server holds every game");
    // Games played to 40 and to 80 plies, every one to its last move.
    let played = v["memory"]["played"].as_array().expect("played rows");
    let plies: Vec<u64> = played.iter().filter_map(|p| p["plies"].as_u64()).collect();
    assert_eq!(plies, [40, 80], "{played:?}");
    for row in played {
        assert_eq!(row["completed"], 20, "{row}");
        assert_eq!(row["errors"], 0, "{row}");
        assert!(row["rss_after_bytes"].as_u64() > Some(0), "{row}");
    }
    let p = &v["ws"]["paced"]["latency_ms"];
    assert!(p["p50"].as_f64() <= p["p95"].as_f64() && p["p95"].as_f64() <= p["p99"].as_f64());
    // Ten games at one move per 500 ms (the default pace) ask for 20 moves per second.
    assert_eq!(positive(&v, "ws.paced.offered_moves_per_sec"), 20.0);
    let ratio = positive(&v, "rest.move_to_health_ratio");
    let computed = positive(&v, "rest.moves_per_sec") / positive(&v, "rest.health_per_sec");
    assert!((ratio - computed).abs() < 0.01, "{ratio} vs {computed}");
    assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["loadtest", "--seconds", "0"][..],
        &["loadtest", "--players", "1"],
        &["loadtest", "sideways"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_chessd"))
            .args(args)
            .output()
            .expect("chessd runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
