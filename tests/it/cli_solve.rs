//! Black-box tests of `chessd solve`: the built binary, its JSON output and exit codes.

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

/// Lichess puzzle 00s8j of the shared sample: mate in 2, key Rc1+.
const M2: &str = "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 35";
/// Lichess puzzle 063Cg: mate in 3, key Qxh3+.
const M3: &str = "5k1r/pp1q1p2/5Qp1/3p4/1P6/P3PBpN/5PKP/2RR4 b - - 0 27";
/// White Kc7, Qb1 against Ka8: four mates in one (a cook).
const COOK: &str = "k7/2K5/8/8/8/8/8/1Q6 w - - 0 1";

#[test]
fn json_for_a_mate_in_two() {
    let v = json(&["solve", M2, "--mate", "2", "--all-keys", "--json"]);
    assert_eq!(v["mate"], 2);
    assert_eq!(v["keys"], serde_json::json!(["c6c1"]));
    assert_eq!(v["unique"], true);
    assert_eq!(v["line"], serde_json::json!(["Rc1+", "Rd1", "Rxd1#"]));
    let tree = &v["tree"];
    assert_eq!(tree["move"], "Rc1+");
    assert_eq!(tree["uci"], "c6c1");
    let defences = tree["defences"].as_array().unwrap();
    assert_eq!(defences.len(), 1);
    assert_eq!(defences[0]["move"], "Rd1");
    assert_eq!(defences[0]["uci"], "d8d1");
    assert_eq!(defences[0]["reply"]["move"], "Rxd1#");
    assert_eq!(defences[0]["reply"]["defences"], serde_json::json!([]));
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn json_for_a_mate_in_three_asked_as_four() {
    let v = json(&["solve", M3, "--mate", "4", "--all-keys", "--json"]);
    assert_eq!(v["mate"], 3);
    assert_eq!(v["keys"], serde_json::json!(["d7h3"]));
    assert_eq!(v["unique"], true);
    let line = v["line"].as_array().unwrap();
    assert_eq!(line.len(), 5);
    assert_eq!(line[0], "Qxh3+");
    assert!(line[4].as_str().unwrap().ends_with('#'));
}

#[test]
fn a_cook_is_not_unique_and_lists_every_key() {
    let v = json(&["solve", COOK, "--mate", "1", "--all-keys", "--json"]);
    assert_eq!(v["mate"], 1);
    let mut keys: Vec<&str> = v["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["b1a1", "b1a2", "b1b7", "b1b8"]);
    assert_eq!(v["unique"], false);
    assert_eq!(v["cooks"].as_array().unwrap().len(), 3);
}

#[test]
fn no_mate_is_null() {
    let v = json(&["solve", M3, "--mate", "2", "--json"]);
    assert_eq!(v["mate"], Value::Null);
    assert_eq!(v["keys"], serde_json::json!([]));
    assert_eq!(v["unique"], false);
    assert_eq!(v["tree"], Value::Null);
}

#[test]
fn human_output_shows_keys_uniqueness_and_the_tree() {
    let out = chessd(&["solve", M2, "--mate", "2", "--all-keys"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("mate in 2"), "{text}");
    assert!(text.contains("keys: Rc1+"), "{text}");
    assert!(text.contains("unique: yes"), "{text}");
    assert!(text.contains("35... Rc1+ 36. Rd1 Rxd1#"), "{text}");
    assert!(text.contains("36. Rd1 Rxd1#"), "{text}");
}

#[test]
fn bad_input_exits_with_code_2() {
    for args in [
        &["solve", "not a fen", "--mate", "2"][..],
        // Strict mode: White is in check with Black to move.
        &["solve", "4k3/8/8/8/8/8/8/r3K3 b - - 0 1", "--mate", "2"],
        &["solve", M2, "--mate", "0"],
        &["solve", M2, "--mate", "9"],
        &["solve", M2],
    ] {
        let out = chessd(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn a_time_limit_ends_with_an_error_object_and_code_1() {
    let out = chessd(&["solve", M3, "--mate", "3", "--time-limit-ms", "0", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mate"], Value::Null);
    assert!(v["error"].as_str().unwrap().contains("time limit"), "{v}");
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("time limit"));
}

#[test]
fn within_lists_slower_keys() {
    let v = json(&[
        "solve",
        COOK,
        "--mate",
        "2",
        "--all-keys",
        "--within",
        "--json",
    ]);
    assert_eq!(v["mate"], 1);
    let within = v["keys_within"].as_array().unwrap();
    assert!(within.len() > 4, "{within:?}");
    for key in v["keys"].as_array().unwrap() {
        assert!(within.contains(key));
    }
    assert!(json(&["solve", COOK, "--mate", "2", "--json"])
        .get("keys_within")
        .is_none());
}

#[test]
fn every_key_and_uniqueness_by_default_as_in_the_api() {
    let v = json(&["solve", COOK, "--mate", "1", "--json"]);
    assert_eq!(v["all_keys"], true);
    assert_eq!(v["unique"], false);
    assert_eq!(v["keys"].as_array().unwrap().len(), 4, "{v}");
    let v = json(&["solve", M2, "--mate", "2", "--json"]);
    assert_eq!(v["unique"], true);
    let v = json(&["solve", COOK, "--mate", "1", "--first-key", "--json"]);
    assert_eq!(v["all_keys"], false);
    assert_eq!(v["keys"].as_array().unwrap().len(), 1, "{v}");
}

/// A game position (`tests/data/puzzles/mates_9_20.csv`, dev row g3003p053) where Stockfish's
/// deep analysis reports a mate in 9 for Black.
const DEEP: &str = "2k5/2p1b2p/1n2b3/5p2/P3pNpP/4P3/2qB1PP1/1r3RK1 b - h3 0 29";

/// Walks a JSON proof tree (its move played in `pos`): every defence legal and every legal
/// defence present, leaves checkmate; returns the mate's length.
fn walk(pos: &chessd_core::Position, tree: &Value) -> u32 {
    use chessd_core::{Move, Position};
    let mv: Move = pos.parse_uci(tree["uci"].as_str().unwrap()).unwrap();
    let child: Position = pos.after(mv);
    let defences = tree["defences"].as_array().unwrap();
    assert_eq!(defences.len(), child.legal_moves().len(), "{}", child.fen());
    if defences.is_empty() {
        assert!(child.is_checkmate(), "{}", child.fen());
        return 1;
    }
    1 + defences
        .iter()
        .map(|d| {
            let dm = child.parse_uci(d["uci"].as_str().unwrap()).unwrap();
            walk(&child.after(dm), &d["reply"])
        })
        .max()
        .unwrap()
}

#[test]
fn find_proves_a_deep_mate_with_a_complete_tree() {
    let v = json(&["solve", DEEP, "--find", "--mate", "10", "--json"]);
    let mate = v["mate"].as_u64().unwrap() as u32;
    assert!((1..=10).contains(&mate), "{v}");
    assert_eq!(v["tree_complete"], true);
    assert_eq!(v["shortest"], false);
    assert_eq!(v["all_keys"], false);
    assert_eq!(v["keys"].as_array().unwrap().len(), 1);
    let pos = chessd_core::Position::from_fen(DEEP, chessd_core::FenMode::Strict).unwrap();
    assert_eq!(walk(&pos, &v["tree"]), mate);
    assert_eq!(v["line"].as_array().unwrap().len() as u32, 2 * mate - 1);
}

#[test]
fn find_with_shortest_proves_the_shortest_mate() {
    let v = json(&["solve", M3, "--find", "--shortest", "--mate", "6", "--json"]);
    assert_eq!(v["mate"], 3);
    assert_eq!(v["shortest"], true);
    assert_eq!(v["keys"], serde_json::json!(["d7h3"]));
    let text =
        String::from_utf8(chessd(&["solve", M3, "--find", "--shortest", "--mate", "6"]).stdout)
            .unwrap();
    assert!(
        text.contains("mate in 3 (found; proven shortest)"),
        "{text}"
    );
    // The exact mode's answer, with the shortest proven there too.
    assert_eq!(
        json(&["solve", M3, "--mate", "6", "--json"])["shortest"],
        true
    );
}

#[test]
fn find_reports_no_mate_and_checks_its_options() {
    let v = json(&["solve", M3, "--find", "--mate", "2", "--json"]);
    assert_eq!(v["mate"], Value::Null);
    assert_eq!(v["keys"], serde_json::json!([]));
    for args in [
        &["solve", M2, "--find", "--mate", "33"][..],
        &["solve", M2, "--shortest", "--mate", "2"],
        &["solve", M2, "--find", "--all-keys", "--mate", "2"],
    ] {
        let out = chessd(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    }
}

/// Popeye's BEISPIEL/castling.inp problem 19 (h#2): two solutions, both ending in castling
/// (Popeye's answer, recorded in tests/data/stipulations/).
const HELP2: &str = "8/8/8/8/8/1P1k1p2/7r/R3K2R b KQ - 0 1";
/// Popeye's TESTS/battle_play.inp problem 24 (s#2 with a short solution): key Rc4.
const SELF2: &str = "8/8/8/2p5/8/kpR5/p7/K7 w - - 0 1";

#[test]
fn json_for_a_helpmate_lists_every_solution() {
    let v = json(&["solve", HELP2, "--stipulation", "h#2", "--json"]);
    assert_eq!(v["stipulation"], "h#2");
    assert_eq!(v["sound"], false);
    let mut lines: Vec<(Value, Value)> = v["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["san"].clone(), s["uci"].clone()))
        .collect();
    lines.sort_by_key(|l| l.1.to_string());
    assert_eq!(
        lines,
        [
            (
                serde_json::json!(["Kc2", "Ra2+", "Kc1", "O-O#"]),
                serde_json::json!(["d3c2", "a1a2", "c2c1", "e1g1"])
            ),
            (
                serde_json::json!(["Rf2", "O-O-O+", "Ke2", "Rhe1#"]),
                serde_json::json!(["h2f2", "e1c1", "d3e2", "h1e1"])
            ),
        ]
    );
}

#[test]
fn json_for_a_selfmate_gives_the_key_and_its_tree() {
    let v = json(&["solve", SELF2, "--stipulation", "s#2", "--json"]);
    assert_eq!(v["keys"], serde_json::json!(["c3c4"]));
    assert_eq!(v["keys_san"], serde_json::json!(["Rc4"]));
    assert_eq!(v["sound"], true);
    assert_eq!(v["tree_complete"], true);
    let tree = &v["trees"][0];
    assert_eq!(tree["move"], "Rc4");
    assert_eq!(
        tree["defences"],
        serde_json::json!([{"move": "b2#", "uci": "b3b2", "mates": true}])
    );
}

#[test]
fn a_bad_stipulation_is_a_usage_error() {
    for bad in [
        &["solve", SELF2, "--stipulation", "x#2"][..],
        &["solve", SELF2, "--stipulation", "h#9"],
        &["solve", SELF2, "--stipulation", "s#2", "--find"],
        &["solve", SELF2, "--stipulation", "s#2", "--mate", "2"],
    ] {
        let out = chessd(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
    // `#N` is the direct mate of --mate N.
    let v = json(&["solve", M2, "--stipulation", "#2", "--json"]);
    assert_eq!(v["keys"], serde_json::json!(["c6c1"]));
}
