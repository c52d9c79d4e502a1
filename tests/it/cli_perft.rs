//! Black-box tests of `chessd perft`: the built binary, its JSON output and exit codes.

use std::process::{Command, Output};

use serde_json::Value;

fn chessd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessd"))
        .args(args)
        .output()
        .expect("the chessd binary runs")
}

fn json(args: &[&str]) -> Value {
    let out = chessd(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "one JSON object: {text}");
    serde_json::from_str(&text).unwrap()
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn json_nodes_for_the_start_position() {
    let v = json(&["perft", "4", "--json"]);
    assert_eq!(v["nodes"], 197_281);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["nps"].is_u64());
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
}

#[test]
fn json_statistics_for_kiwipete_depth_3() {
    // Published (Grand Chess Tree) Kiwipete depth 3: 97862 nodes, 17102 captures, 45 en
    // passant, 3162 castles, 992 direct checks and 1 direct mate.
    let v = json(&[
        "perft",
        "3",
        "--fen",
        KIWIPETE,
        "--stats",
        "--threads",
        "2",
        "--hash",
        "4",
        "--json",
    ]);
    assert_eq!(v["nodes"], 97_862);
    assert_eq!(v["captures"], 17_102);
    assert_eq!(v["enpassants"], 45);
    assert_eq!(v["castles"], 3_162);
    assert_eq!(v["promotions"], 0);
    assert_eq!(v["checks"], 993);
    assert_eq!(v["discovered_checks"], 0);
    assert_eq!(v["double_checks"], 0);
    assert_eq!(v["check_mates"], 1);
    let classes = &v["classes"];
    assert_eq!(classes["direct_checks"], 992);
    assert_eq!(classes["direct_mates"], 1);
    for key in [
        "single_discovered_checks",
        "direct_discovered_checks",
        "double_discovered_checks",
        "single_discovered_mates",
        "direct_discovered_mates",
        "double_discovered_mates",
    ] {
        assert_eq!(classes[key], 0, "{key}");
    }
}

#[test]
fn json_divide_uses_uci_with_king_squares_for_castling() {
    let v = json(&["perft", "2", "--fen", KIWIPETE, "--divide", "--json"]);
    let divide = v["divide"].as_object().unwrap();
    assert_eq!(divide.len(), 48);
    let sum: u64 = divide.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(sum, 2039);
    assert_eq!(v["nodes"], 2039);
    assert!(
        divide.contains_key("e1g1") && divide.contains_key("e1c1"),
        "{divide:?}"
    );
    assert!(!divide.contains_key("e1h1"));
}

#[test]
fn human_output_has_the_table() {
    let out = chessd(&["perft", "3", "--stats"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("| nodes "), "{text}");
    assert!(text.contains("8902"), "{text}");
    assert!(text.contains("| direct_checks "), "{text}");
}

#[test]
fn bad_fen_is_a_usage_error() {
    for fen in [
        "not a fen",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    ] {
        let out = chessd(&["perft", "2", "--fen", fen, "--json"]);
        assert_eq!(out.status.code(), Some(2), "{fen}");
        assert!(out.stdout.is_empty(), "{fen}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("invalid FEN"), "{err}");
    }
}

#[test]
fn bad_depth_is_a_usage_error() {
    for depth in ["x", "-1", "1000", ""] {
        let out = chessd(&["perft", depth, "--json"]);
        assert_eq!(out.status.code(), Some(2), "{depth:?}");
        assert!(out.stdout.is_empty(), "{depth:?}");
        assert!(!out.stderr.is_empty(), "{depth:?}");
    }
    let missing = chessd(&["perft"]);
    assert_eq!(missing.status.code(), Some(2));
}

/// The Reaper-against-Reaper row of the Go engine's perft file (`tests/data/chess2/`):
/// 165 / 26905 / 4365224.
const CHESS2_REAPERS: &str = "r3k2r/pnbq1bnp/8/8/8/8/PNBQ1BNP/R3K2R w KQkq - 0 1 rr 33";

#[test]
fn chess2_perft_counts_the_go_engines_rows() {
    let v = json(&[
        "perft",
        "2",
        "--variant",
        "chess2",
        "--fen",
        CHESS2_REAPERS,
        "--json",
    ]);
    assert_eq!(v["nodes"], 26_905);
    // Without --fen: both armies Classic, which is standard chess at this depth.
    let v = json(&["perft", "3", "--variant", "chess2", "--json"]);
    assert_eq!(v["nodes"], 8_902);
    // Divide: one count per root move (the Go engine's move strings), adding up.
    let v = json(&[
        "perft",
        "2",
        "--variant",
        "chess2",
        "--fen",
        CHESS2_REAPERS,
        "--divide",
        "--json",
    ]);
    let divide = v["divide"].as_object().unwrap();
    assert_eq!(divide.len(), 165);
    assert_eq!(
        divide.values().map(|n| n.as_u64().unwrap()).sum::<u64>(),
        26_905
    );
    // The human form names the variant and the EPD.
    let out = chessd(&["perft", "1", "--variant", "chess2", "--fen", CHESS2_REAPERS]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("chess2") && text.contains("rr 33"), "{text}");
}

#[test]
fn chess2_perft_refuses_bad_input() {
    let out = chessd(&[
        "perft",
        "1",
        "--variant",
        "chess2",
        "--fen",
        "8/8/8/8/8/8/8/8 w - - 0 1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Chess 2 EPD"));
    let out = chessd(&["perft", "1", "--variant", "chess2", "--stats"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
