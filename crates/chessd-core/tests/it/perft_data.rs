//! Perft against the published reference data in `tests/data/perft/` (see its README for the
//! statistics conventions), plus consistency of the parallel, hashed and split runners.
//!
//! The default run checks every statistics row up to 2·10^8 nodes, and every suite and Chess960
//! position to depth 3 and deeper while a depth has at most 10^6 nodes (about 5 s on 2 cores).
//! The ignored tests add every listed suite depth (about 10 s), every Chess960 depth (about
//! 10 min) and the GCT statistics rows up to 10^10 nodes (about 25 s):
//! `cargo test -p chessd-core --release --test perft_data -- --ignored`.

use std::collections::HashMap;

use chessd_core::{
    perft::{self, BulkHash, Perft, PerftStats},
    FenMode, Position,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/perft/");

/// Statistics rows up to this many nodes run by default.
const STATS_NODE_LIMIT: u64 = 200_000_000;
/// Suite depths beyond 3 run by default while they have at most this many nodes.
const SUITE_NODE_LIMIT: u64 = 1_000_000;

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DATA}{name}"))
        .unwrap_or_else(|e| panic!("cannot read {DATA}{name}: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(fen, FenMode::Lenient).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

// ----- Data files -----

/// One line of an EPD suite: the FEN and its (depth, nodes) entries.
struct EpdEntry {
    fen: String,
    depths: Vec<(u32, u64)>,
}

fn epd(name: &str) -> Vec<EpdEntry> {
    read(name)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let depths = parts
                .map(|p| {
                    let (d, n) = p.trim().split_once(' ').unwrap();
                    (
                        d.trim_start_matches('D').parse().unwrap(),
                        n.parse().unwrap(),
                    )
                })
                .collect();
            EpdEntry { fen, depths }
        })
        .collect()
}

/// One row of a statistics CSV: the columns by name.
struct CsvRow {
    text: HashMap<String, String>,
}

impl CsvRow {
    fn get(&self, column: &str) -> u64 {
        self.text[column]
            .parse()
            .unwrap_or_else(|e| panic!("column {column}: {e}"))
    }
    fn str(&self, column: &str) -> &str {
        &self.text[column]
    }
}

/// Splits one CSV line (fields may be double-quoted; the data has no escaped quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

fn csv(name: &str) -> Vec<CsvRow> {
    let text = read(name);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = csv_fields(lines.next().unwrap());
    lines
        .map(|line| {
            let fields = csv_fields(line);
            assert_eq!(fields.len(), header.len(), "{line}");
            CsvRow {
                text: header.iter().cloned().zip(fields).collect(),
            }
        })
        .collect()
}

// ----- Runners -----

fn stats_run(fen: &str, depth: u32) -> PerftStats {
    Perft::new(position(fen))
        .depth(depth)
        .threads(2)
        .hash_mb(64)
        .stats(true)
        .run(|_| {})
        .unwrap()
        .stats
}

fn bulk_run(pos: &Position, depth: u32, table: &BulkHash) -> u64 {
    Perft::new(*pos)
        .depth(depth)
        .threads(2)
        .bulk_table(table)
        .run(|_| {})
        .unwrap()
        .nodes()
}

/// Checks every (position, depth) entry of an EPD file that `select` admits; returns how many.
fn check_epd(name: &str, select: impl Fn(u32, u64) -> bool) -> usize {
    let table = BulkHash::new(64);
    let mut checked = 0;
    for entry in epd(name) {
        let pos = position(&entry.fen);
        for &(depth, nodes) in &entry.depths {
            if select(depth, nodes) {
                assert_eq!(
                    bulk_run(&pos, depth, &table),
                    nodes,
                    "{} depth {depth}",
                    entry.fen
                );
                checked += 1;
            }
        }
    }
    checked
}

fn default_selection(depth: u32, nodes: u64) -> bool {
    depth <= 3 || nodes <= SUITE_NODE_LIMIT
}

// ----- Statistics -----

/// Checks every GCT row with at least `min` and at most `max` nodes; returns how many.
fn check_gct_rows(min: u64, max: u64) -> usize {
    let mut checked = 0;
    for row in csv("perft_gct_stats.csv") {
        if !(min..=max).contains(&row.get("nodes")) {
            continue;
        }
        let (fen, depth) = (row.str("fen"), row.get("depth") as u32);
        let s = stats_run(fen, depth);
        let ours = [
            ("nodes", s.nodes),
            ("captures", s.captures),
            ("enpassants", s.enpassants),
            ("castles", s.castles),
            ("promotions", s.promotions),
            ("direct_checks", s.direct_checks),
            ("single_discovered_checks", s.single_discovered_checks),
            ("direct_discovered_checks", s.direct_discovered_checks),
            ("double_discovered_checks", s.double_discovered_checks),
            ("total_checks", s.total_checks()),
            ("direct_mates", s.direct_mates),
            ("single_discovered_mates", s.single_discovered_mates),
            ("direct_discovered_mates", s.direct_discovered_mates),
            ("double_discovered_mates", s.double_discovered_mates),
            ("total_mates", s.total_mates()),
        ];
        for (column, value) in ours {
            assert_eq!(
                value,
                row.get(column),
                "{} d{depth} {column}",
                row.str("position")
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn gct_statistics_rows_match_in_every_column() {
    // start d0-6, Kiwipete d0-5, CPW position 6 d0-5.
    assert_eq!(check_gct_rows(0, STATS_NODE_LIMIT), 19);
}

#[test]
#[ignore = "about 2·10^10 nodes: run with --release -- --ignored"]
fn gct_statistics_rows_up_to_ten_billion_nodes() {
    // start d7, Kiwipete d6, CPW position 6 d6.
    assert_eq!(check_gct_rows(STATS_NODE_LIMIT + 1, 10_000_000_000), 3);
}

#[test]
fn cpw_statistics_rows_match_in_every_column() {
    let mut checked = 0;
    for row in csv("perft_cpw_stats.csv") {
        if row.get("nodes") > STATS_NODE_LIMIT {
            continue;
        }
        let (fen, depth) = (row.str("fen"), row.get("depth") as u32);
        let s = stats_run(fen, depth);
        let ours = [
            ("nodes", s.nodes),
            ("captures", s.captures),
            ("enpassants", s.enpassants),
            ("castles", s.castles),
            ("promotions", s.promotions),
            ("checks", s.cpw_checks()),
            ("discovery_checks", s.cpw_discovery_checks()),
            ("double_checks", s.cpw_double_checks()),
            ("checkmates", s.cpw_checkmates()),
        ];
        for (column, value) in ours {
            assert_eq!(
                value,
                row.get(column),
                "{} d{depth} {column}",
                row.str("position")
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 23);
}

#[test]
fn gct_worker_summaries_follow_from_the_classes() {
    // The GCT README's worker output for the start position at depth 7 (mates included in
    // checks, discovered and double checks), against the class columns of the CSV row.
    let rows = csv("perft_gct_stats.csv");
    let row = rows
        .iter()
        .find(|r| r.str("position") == "start" && r.get("depth") == 7)
        .unwrap();
    let s = PerftStats {
        nodes: row.get("nodes"),
        captures: row.get("captures"),
        enpassants: row.get("enpassants"),
        castles: row.get("castles"),
        promotions: row.get("promotions"),
        direct_checks: row.get("direct_checks"),
        single_discovered_checks: row.get("single_discovered_checks"),
        direct_discovered_checks: row.get("direct_discovered_checks"),
        double_discovered_checks: row.get("double_discovered_checks"),
        direct_mates: row.get("direct_mates"),
        single_discovered_mates: row.get("single_discovered_mates"),
        direct_discovered_mates: row.get("direct_discovered_mates"),
        double_discovered_mates: row.get("double_discovered_mates"),
    };
    assert_eq!(s.checks(), 33_103_848);
    assert_eq!(s.discovered_checks(), 18_026);
    assert_eq!(s.double_checks(), 1_628);
    assert_eq!(s.check_mates(), 435_767);
}

// ----- Node counts -----

#[test]
fn suite_positions_to_depth_3_and_up_to_a_million_nodes() {
    let checked = check_epd("perft_suite.epd", default_selection);
    assert!(checked >= 161 * 3, "{checked} entries");
}

#[test]
fn chess960_positions_to_depth_3_and_up_to_a_million_nodes() {
    let checked = check_epd("perft_chess960.epd", default_selection);
    assert!(checked >= 960 * 3, "{checked} entries");
}

#[test]
#[ignore = "billions of nodes: run with --release -- --ignored"]
fn suite_positions_at_every_listed_depth() {
    let checked = check_epd("perft_suite.epd", |_, _| true);
    assert_eq!(checked, 811);
}

#[test]
#[ignore = "billions of nodes: run with --release -- --ignored"]
fn chess960_positions_at_every_listed_depth() {
    let checked = check_epd("perft_chess960.epd", |_, _| true);
    assert_eq!(checked, 960 * 6);
}

#[test]
fn statistics_mode_counts_the_same_nodes_on_chess960_positions() {
    // Castling checks in Chess960 go through the slow classification path.
    for entry in epd("perft_chess960.epd").iter().step_by(8) {
        let (depth, nodes) = entry.depths[2];
        assert_eq!(stats_run(&entry.fen, depth).nodes, nodes, "{}", entry.fen);
    }
}

// ----- Consistency of the runners -----

const CONSISTENCY_FENS: [(&str, u32); 5] = [
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        4,
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        4,
    ),
    (
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        4,
    ),
];

#[test]
fn hashing_threads_and_splitting_do_not_change_statistics() {
    for (fen, depth) in CONSISTENCY_FENS {
        let pos = position(fen);
        let plain = perft::perft_stats(&pos, depth);
        assert_eq!(plain.nodes, perft::perft(&pos, depth), "{fen}");
        let one_thread = Perft::new(pos)
            .depth(depth)
            .stats(true)
            .run(|_| {})
            .unwrap();
        let hashed = Perft::new(pos)
            .depth(depth)
            .stats(true)
            .threads(2)
            .hash_mb(4)
            .run(|_| {})
            .unwrap();
        let unsplit = Perft::new(pos)
            .depth(depth)
            .stats(true)
            .split_plies(0)
            .hash_mb(1)
            .run(|_| {})
            .unwrap();
        assert_eq!(one_thread.stats, plain, "{fen}");
        assert_eq!(hashed.stats, plain, "{fen}");
        assert_eq!(unsplit.stats, plain, "{fen}");
        assert!(plain.checks() > 0, "{fen}: a test position without checks");
    }
}

#[test]
fn bulk_runner_and_divide_agree_with_plain_perft() {
    for (fen, depth) in CONSISTENCY_FENS {
        let pos = position(fen);
        let nodes = perft::perft(&pos, depth);
        for (threads, hash) in [(1, 0), (2, 0), (2, 8)] {
            let r = Perft::new(pos)
                .depth(depth)
                .threads(threads)
                .hash_mb(hash)
                .divide(true)
                .run(|_| {})
                .unwrap();
            assert_eq!(r.nodes(), nodes, "{fen} threads {threads} hash {hash}");
            let plain_divide = perft::divide(&pos, depth);
            assert_eq!(r.divide.len(), plain_divide.len());
            for ((m1, s), (m2, n)) in r.divide.iter().zip(&plain_divide) {
                assert_eq!((m1, s.nodes), (m2, *n), "{fen}");
            }
        }
    }
}

#[test]
fn split_counts_sum_to_perft() {
    for entry in epd("perft_suite.epd").iter().step_by(10) {
        let pos = position(&entry.fen);
        for plies in 1..=3 {
            let tasks = perft::split(&pos, plies);
            let paths: u64 = tasks.iter().map(|(_, n)| n).sum();
            assert_eq!(
                paths,
                perft::perft(&pos, plies),
                "{} ply {plies}",
                entry.fen
            );
            let below: u64 = tasks.iter().map(|(p, n)| n * perft::perft(p, 1)).sum();
            assert_eq!(below, perft::perft(&pos, plies + 1), "{}", entry.fen);
        }
    }
}

// ----- An independent classification with shakmaty -----

mod reference {
    use chessd_core::perft::PerftStats;
    use shakmaty::{fen::Fen, CastlingMode, Chess, Move, Position};

    /// Makes and classifies every leaf move with shakmaty.
    pub(super) fn stats(pos: &Chess, depth: u32) -> PerftStats {
        let mut s = PerftStats::default();
        if depth == 0 {
            s.nodes = 1;
            return s;
        }
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            if depth > 1 {
                s += stats(&child, depth - 1);
                continue;
            }
            s.nodes += 1;
            s.captures += u64::from(m.is_capture());
            s.enpassants += u64::from(m.is_en_passant());
            s.castles += u64::from(m.is_castle());
            s.promotions += u64::from(m.is_promotion());
            let checkers = child.checkers();
            if checkers.is_empty() {
                continue;
            }
            let moved_to = match m {
                Move::Castle { .. } => m.castling_side().unwrap().rook_to(pos.turn()),
                _ => m.to(),
            };
            let direct = checkers.contains(moved_to);
            let two = checkers.more_than_one();
            let mate = child.is_checkmate();
            *match (two, direct, mate) {
                (false, true, false) => &mut s.direct_checks,
                (false, false, false) => &mut s.single_discovered_checks,
                (true, true, false) => &mut s.direct_discovered_checks,
                (true, false, false) => &mut s.double_discovered_checks,
                (false, true, true) => &mut s.direct_mates,
                (false, false, true) => &mut s.single_discovered_mates,
                (true, true, true) => &mut s.direct_discovered_mates,
                (true, false, true) => &mut s.double_discovered_mates,
            } += 1;
        }
        s
    }

    /// The position in shakmaty, or `None` for the few it refuses (impossible checks).
    pub(super) fn position(fen: &str) -> Option<Chess> {
        let fen: Fen = fen.parse().ok()?;
        match fen.into_position(CastlingMode::Chess960) {
            Ok(pos) => Some(pos),
            Err(e) => e.ignore_impossible_check().ok(),
        }
    }
}

#[test]
fn statistics_equal_shakmaty_classification_on_every_suite_position() {
    let mut compared = 0;
    let entries = epd("perft_suite.epd");
    let chess960 = epd("perft_chess960.epd");
    for entry in entries.iter().chain(chess960.iter().step_by(16)) {
        let Some(theirs) = reference::position(&entry.fen) else {
            continue;
        };
        let depth = if entry.depths.iter().any(|&(d, n)| d == 3 && n < 200_000) {
            3
        } else {
            2
        };
        let ours = perft::perft_stats(&position(&entry.fen), depth);
        assert_eq!(
            ours,
            reference::stats(&theirs, depth),
            "{} d{depth}",
            entry.fen
        );
        compared += 1;
    }
    assert!(compared >= 150 + 60, "{compared} positions compared");
}

/// `has_legal_moves` takes its own short cuts (king steps, then captures and blocks, with early
/// exits): it must say exactly what full move generation says, in every position of the suite
/// and the first Chess960 starts, and in each of their descendants to depth 3 (at most 20,000 a
/// position), which bring checks, pins, en passant, castling and stalemates; and in three
/// positions whose only way on is one that the short cuts take last.
#[test]
fn has_legal_moves_agrees_with_full_move_generation() {
    fn walk(pos: &Position, depth: u32, budget: &mut u32, seen: &mut [u64; 4]) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let moves = pos.legal_moves();
        assert_eq!(pos.has_legal_moves(), !moves.is_empty(), "{}", pos.fen());
        seen[usize::from(pos.is_check()) * 2 + usize::from(moves.is_empty())] += 1;
        if depth > 0 {
            for &mv in &moves {
                walk(&pos.after(mv), depth - 1, budget, seen);
            }
        }
    }
    // Positions by (in check, no legal move): quiet, stalemate, check, checkmate.
    let mut seen = [0u64; 4];
    let suite = epd("perft_suite.epd");
    let chess960 = epd("perft_chess960.epd");
    for entry in suite.iter().chain(chess960.iter().take(100)) {
        walk(&position(&entry.fen), 3, &mut 20_000, &mut seen);
    }
    // Made here, each move list checked with python-chess 1.11.2: en passant the only legal
    // move; a pinned pawn's capture of its pinner the only one; en passant among the answers
    // to a check.
    for fen in [
        "1r5k/8/5n2/3bpP2/8/8/8/K7 w - e6 0 1",
        "7k/8/8/3b4/8/2b5/1P1n4/K7 w - - 0 1",
        "8/8/8/1r1pP3/4K3/r7/8/7k w - d6 0 1",
    ] {
        let pos = position(fen);
        assert!(pos.has_legal_moves(), "{fen}");
        walk(&pos, 2, &mut 20_000, &mut seen);
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "every kind of position met: {seen:?}"
    );
}
