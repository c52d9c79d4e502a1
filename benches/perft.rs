//! Perft speed: chessd-core against cozy-chess and shakmaty, in one process and one run.
//!
//! Every case is a named perft run (group, library, position, depth, expected node count),
//! timed `CHESSD_BENCH_RUNS` times (default 5) round-robin over all cases, so that a change in
//! machine load affects every library alike; the table shows the median time of each case and
//! every run's node count is asserted. Cases are grouped by what they measure (`bulk`: bulk
//! counting at the last ply, one thread, no hash table); within a group and position the speed
//! of chessd-core is compared with every other library's row.
//!
//! Run with `cargo bench --bench perft`. `CHESSD_BENCH_FILTER=text` keeps only the cases whose
//! group, library or position contains `text`.
//!
//! `CHESSD_BENCH_DEEP=1` adds two long groups (about a minute per round on a quiet machine):
//! - `bulk6`: chessd-core and cozy-chess on the six standard positions (lines 1-7 of
//!   `tests/data/perft/perft_suite.epd`: position 4 comes with its colour mirror) at the
//!   smallest depth whose reference count reaches 10^9 nodes, or the deepest listed one when
//!   none does. Reference counts come from that file and the Grand Chess Tree table
//!   `perft_gct_stats.csv` (which adds the start position's depth 7), never from our output.
//! - `statsbulk`: chessd-core's statistics perft (library `chessd`) against its own bulk
//!   counting (library `chessd-bulk`), start position depth 7 and Kiwipete depth 6; every
//!   statistics column of every run is checked against the Grand Chess Tree row.
//!
//! The same file is also registered as chessd-core's bench (`cargo bench -p chessd-core
//! --bench perft`), which builds only the chess core and the two peers, not the server.

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use shakmaty::Position as _;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE_FEN: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// The library whose speed the others are compared with.
const OURS: &str = "chessd";

/// One timed perft run (the library's position is set up before timing starts).
struct Case {
    /// What is measured; ratios are only taken between rows of the same group and position.
    group: &'static str,
    library: &'static str,
    position: &'static str,
    depth: u32,
    expected: u64,
    /// Runs the perft once (setup already done) and returns the node count.
    run: Box<dyn Fn() -> u64>,
}

/// The measured outcome of a case.
struct Row {
    group: &'static str,
    library: &'static str,
    position: &'static str,
    depth: u32,
    nodes: u64,
    median: Duration,
}

impl Row {
    fn mnps(&self) -> f64 {
        self.nodes as f64 / self.median.as_secs_f64() / 1e6
    }
}

// ----- chessd-core -----

fn chessd_position(fen: &str) -> chessd_core::Position {
    chessd_core::Position::from_fen(fen, chessd_core::FenMode::Strict).expect("valid FEN")
}

// ----- cozy-chess -----

/// cozy-chess bulk perft: `PieceMoves::len` at the last ply, clone and `play_unchecked` above.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => {
            let mut nodes = 0;
            board.generate_moves(|moves| {
                nodes += moves.len() as u64;
                false
            });
            nodes
        }
        _ => {
            let mut nodes = 0;
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    nodes += cozy_perft(&child, depth - 1);
                }
                false
            });
            nodes
        }
    }
}

fn cozy_board(fen: &str) -> cozy_chess::Board {
    cozy_chess::Board::from_fen(fen, false).expect("valid FEN")
}

// ----- shakmaty -----

/// shakmaty bulk perft: `legal_moves().len()` at the last ply, clone and `play_unchecked`
/// above.
fn shakmaty_perft(pos: &shakmaty::Chess, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                shakmaty_perft(&child, depth - 1)
            })
            .sum(),
    }
}

fn shakmaty_position(fen: &str) -> shakmaty::Chess {
    let fen: shakmaty::fen::Fen = fen.parse().expect("valid FEN");
    fen.into_position(shakmaty::CastlingMode::Standard)
        .expect("legal position")
}

// ----- The cases -----

/// Bulk perft of `fen` to `depth` in each library: the idiomatic fastest way each allows
/// (chessd-core and cozy-chess count move groups at the last ply; shakmaty counts its legal
/// move list), single-threaded, without a hash table.
fn bulk_cases(position: &'static str, fen: &'static str, depth: u32, expected: u64) -> Vec<Case> {
    let ours = chessd_position(fen);
    let cozy = cozy_board(fen);
    let shak = shakmaty_position(fen);
    let case = |library, run: Box<dyn Fn() -> u64>| Case {
        group: "bulk",
        library,
        position,
        depth,
        expected,
        run,
    };
    vec![
        case(
            OURS,
            Box::new(move || chessd_core::perft::perft(black_box(&ours), depth)),
        ),
        case(
            "cozy-chess",
            Box::new(move || cozy_perft(black_box(&cozy), depth)),
        ),
        case(
            "shakmaty",
            Box::new(move || shakmaty_perft(black_box(&shak), depth)),
        ),
    ]
}

/// Statistics shakmaty's way: make every leaf move and classify it (capture, en passant,
/// castle, promotion; checks by the moved piece or discovered, double, mate).
#[derive(Default, Debug, PartialEq, Eq, Clone, Copy)]
struct LeafStats {
    nodes: u64,
    captures: u64,
    enpassants: u64,
    castles: u64,
    promotions: u64,
    checks: u64,
    discovered: u64,
    double: u64,
    mates: u64,
}

fn shakmaty_stats(pos: &shakmaty::Chess, depth: u32, out: &mut LeafStats) {
    use shakmaty::Position as _;
    let moves = pos.legal_moves();
    if depth == 1 {
        for m in moves {
            out.nodes += 1;
            out.captures += u64::from(m.is_capture());
            out.enpassants += u64::from(m.is_en_passant());
            out.castles += u64::from(m.is_castle());
            out.promotions += u64::from(m.is_promotion());
            let moved_to = match m.castling_side() {
                Some(side) => side.rook_to(pos.turn()),
                None => m.to(),
            };
            let mut after = pos.clone();
            after.play_unchecked(m);
            let checkers = after.checkers();
            if checkers.is_empty() {
                continue;
            }
            out.checks += 1;
            out.discovered += u64::from(!checkers.contains(moved_to));
            out.double += u64::from(checkers.count() > 1);
            out.mates += u64::from(after.legal_moves().is_empty());
        }
        return;
    }
    for m in moves {
        let mut after = pos.clone();
        after.play_unchecked(m);
        shakmaty_stats(&after, depth - 1, out);
    }
}

fn ours_stats(pos: &chessd_core::Position, depth: u32) -> LeafStats {
    let s = chessd_core::perft::perft_stats(pos, depth);
    LeafStats {
        nodes: s.nodes,
        captures: s.captures,
        enpassants: s.enpassants,
        castles: s.castles,
        promotions: s.promotions,
        checks: s.checks(),
        discovered: s.discovered_checks(),
        double: s.double_checks(),
        mates: s.check_mates(),
    }
}

/// Statistics perft: chessd-core (counting what it can without making moves) against shakmaty
/// making and classifying every leaf. The two must agree on every column before timing starts.
fn stats_cases(position: &'static str, fen: &'static str, depth: u32, expected: u64) -> Vec<Case> {
    let ours = chessd_position(fen);
    let shak = shakmaty_position(fen);
    let mut theirs = LeafStats::default();
    shakmaty_stats(&shak, depth, &mut theirs);
    assert_eq!(
        ours_stats(&ours, depth),
        theirs,
        "statistics differ on {position}"
    );
    let case = |library, run: Box<dyn Fn() -> u64>| Case {
        group: "stats",
        library,
        position,
        depth,
        expected,
        run,
    };
    vec![
        case(
            OURS,
            Box::new(move || chessd_core::perft::perft_stats(black_box(&ours), depth).nodes),
        ),
        case(
            "shakmaty",
            Box::new(move || {
                let mut out = LeafStats::default();
                shakmaty_stats(black_box(&shak), depth, &mut out);
                out.nodes
            }),
        ),
    ]
}

/// Hashed, two-thread perft (256 MiB, a fresh table every run) against plain single-thread
/// bulk perft of chessd-core itself.
fn hash_cases(position: &'static str, fen: &'static str, depth: u32, expected: u64) -> Vec<Case> {
    let plain = chessd_position(fen);
    let hashed = plain;
    let case = |library, run: Box<dyn Fn() -> u64>| Case {
        group: "hash",
        library,
        position,
        depth,
        expected,
        run,
    };
    vec![
        case(
            OURS,
            Box::new(move || {
                chessd_core::perft::Perft::new(black_box(hashed))
                    .depth(depth)
                    .threads(2)
                    .hash_mb(256)
                    .run(|_| {})
                    .expect("not cancelled")
                    .nodes()
            }),
        ),
        case(
            "chessd-1t-nohash",
            Box::new(move || chessd_core::perft::perft(black_box(&plain), depth)),
        ),
    ]
}

// ----- The deep groups (`CHESSD_BENCH_DEEP=1`) -----

const SUITE_EPD: &str = include_str!("../tests/data/perft/perft_suite.epd");
const GCT_CSV: &str = include_str!("../tests/data/perft/perft_gct_stats.csv");

/// Names of the first seven suite lines: the chessprogramming.org positions 1-6, position 4
/// twice (as published and colour-mirrored).
const SIX_NAMES: [&str; 7] = [
    "startpos",
    "kiwipete",
    "cpw3",
    "cpw4",
    "cpw4-mirror",
    "cpw5",
    "cpw6",
];

/// Deep groups want at least this many nodes per case.
const DEEP_NODES: u64 = 1_000_000_000;

/// The Grand Chess Tree rows: (FEN, depth, the 15 numeric columns from `nodes` on).
fn gct_rows() -> Vec<(&'static str, u32, Vec<u64>)> {
    GCT_CSV
        .lines()
        .skip(1)
        .map(|line| {
            // position,"FEN",depth,nodes,...,source
            let mut quoted = line.split('"');
            let fen = quoted.nth(1).expect("quoted FEN");
            let rest: Vec<&str> = quoted.next().expect("columns").split(',').collect();
            let depth = rest[1].parse().expect("depth");
            let numbers = rest[2..17]
                .iter()
                .map(|n| n.parse().expect("count"))
                .collect();
            (fen, depth, numbers)
        })
        .collect()
}

/// Reference node counts of `fen` by depth, from the suite line and the GCT table (which must
/// agree where both list a depth).
fn reference_counts(suite_line: &'static str) -> (&'static str, Vec<(u32, u64)>) {
    let mut fields = suite_line.split(';');
    let fen = fields.next().expect("FEN").trim();
    let mut counts: Vec<(u32, u64)> = fields
        .map(|f| {
            let (d, n) = f.trim().split_once(' ').expect("Dn count");
            (
                d.trim_start_matches('D').parse().expect("depth"),
                n.parse().expect("count"),
            )
        })
        .collect();
    for (gct_fen, depth, numbers) in gct_rows() {
        if gct_fen != fen {
            continue;
        }
        match counts.iter().find(|&&(d, _)| d == depth) {
            Some(&(_, n)) => assert_eq!(n, numbers[0], "suite and GCT differ at d{depth}"),
            None => counts.push((depth, numbers[0])),
        }
    }
    counts.sort_unstable();
    (fen, counts)
}

/// Bulk perft of chessd-core and cozy-chess on the six standard positions, each at the
/// smallest reference depth with at least [`DEEP_NODES`] nodes, or the deepest listed.
fn bulk6_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (name, line) in SIX_NAMES.into_iter().zip(SUITE_EPD.lines()) {
        let (fen, counts) = reference_counts(line);
        let &(depth, expected) = counts
            .iter()
            .find(|&&(_, n)| n >= DEEP_NODES)
            .or(counts.last())
            .expect("a reference count");
        let ours = chessd_position(fen);
        let cozy = cozy_board(fen);
        for (library, run) in [
            (
                OURS,
                Box::new(move || chessd_core::perft::perft(black_box(&ours), depth))
                    as Box<dyn Fn() -> u64>,
            ),
            (
                "cozy-chess",
                Box::new(move || cozy_perft(black_box(&cozy), depth)),
            ),
        ] {
            cases.push(Case {
                group: "bulk6",
                library,
                position: name,
                depth,
                expected,
                run,
            });
        }
    }
    cases
}

/// Statistics perft against bulk perft of chessd-core itself; every statistics run is checked
/// column by column against the GCT row.
fn stats_vs_bulk_cases(position: &'static str, fen: &'static str, depth: u32) -> Vec<Case> {
    let (_, _, reference) = gct_rows()
        .into_iter()
        .find(|&(f, d, _)| f == fen && d == depth)
        .expect("a GCT row");
    let expected = reference[0];
    let pos = chessd_position(fen);
    let stats = move || {
        let s = chessd_core::perft::perft_stats(black_box(&pos), depth);
        let ours = [
            s.nodes,
            s.captures,
            s.enpassants,
            s.castles,
            s.promotions,
            s.direct_checks,
            s.single_discovered_checks,
            s.direct_discovered_checks,
            s.double_discovered_checks,
            s.total_checks(),
            s.direct_mates,
            s.single_discovered_mates,
            s.direct_discovered_mates,
            s.double_discovered_mates,
            s.total_mates(),
        ];
        assert_eq!(ours[..], reference[..], "statistics of {position} d{depth}");
        s.nodes
    };
    let case = |library, run: Box<dyn Fn() -> u64>| Case {
        group: "statsbulk",
        library,
        position,
        depth,
        expected,
        run,
    };
    vec![
        case(OURS, Box::new(stats)),
        case(
            "chessd-bulk",
            Box::new(move || chessd_core::perft::perft(black_box(&pos), depth)),
        ),
    ]
}

/// Every case, in the order of the table. Further groups (statistics perft against shakmaty
/// classifying every leaf, hashed multi-threaded perft) add their cases here; rows of library
/// [`OURS`] are compared with the other rows of the same group and position.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(bulk_cases("startpos", START_FEN, 6, 119_060_324));
    cases.extend(bulk_cases("kiwipete", KIWIPETE_FEN, 5, 193_690_690));
    cases.extend(stats_cases("startpos", START_FEN, 5, 4_865_609));
    cases.extend(stats_cases("kiwipete", KIWIPETE_FEN, 4, 4_085_603));
    cases.extend(hash_cases("startpos", START_FEN, 7, 3_195_901_860));
    if std::env::var("CHESSD_BENCH_DEEP").is_ok_and(|v| v == "1") {
        cases.extend(bulk6_cases());
        cases.extend(stats_vs_bulk_cases("startpos", START_FEN, 7));
        cases.extend(stats_vs_bulk_cases("kiwipete", KIWIPETE_FEN, 6));
    }
    cases
}

// ----- Running and reporting -----

fn env_runs() -> usize {
    std::env::var("CHESSD_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(5)
}

/// Runs `case` once, checks its node count and returns the time taken.
fn time_once(case: &Case) -> Duration {
    let start = Instant::now();
    let nodes = black_box((case.run)());
    let elapsed = start.elapsed();
    assert_eq!(
        nodes, case.expected,
        "{} {} {} d{}: wrong node count",
        case.group, case.library, case.position, case.depth
    );
    elapsed
}

fn row(case: &Case, mut times: Vec<Duration>) -> Row {
    times.sort();
    Row {
        group: case.group,
        library: case.library,
        position: case.position,
        depth: case.depth,
        nodes: case.expected,
        median: times[times.len() / 2],
    }
}

fn main() {
    let runs = env_runs();
    let filter = std::env::var("CHESSD_BENCH_FILTER").unwrap_or_default();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| {
            filter.is_empty()
                || c.group.contains(&filter)
                || c.library.contains(&filter)
                || c.position.contains(&filter)
        })
        .collect();
    println!("perft benchmark: {runs} runs per case, median shown");
    println!(
        "{:<9} {:<12} {:<12} {:>5} {:>12} {:>10} {:>9}",
        "group", "library", "position", "depth", "nodes", "median s", "Mnps"
    );
    // Round-robin: every case once per round, so that a change in machine load during the
    // benchmark affects all libraries alike.
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); cases.len()];
    for _ in 0..runs {
        for (case, case_times) in cases.iter().zip(&mut times) {
            case_times.push(time_once(case));
        }
    }
    let rows: Vec<Row> = cases
        .iter()
        .zip(times)
        .map(|(case, case_times)| row(case, case_times))
        .collect();
    for row in &rows {
        println!(
            "{:<9} {:<12} {:<12} {:>5} {:>12} {:>10.3} {:>9.1}",
            row.group,
            row.library,
            row.position,
            row.depth,
            row.nodes,
            row.median.as_secs_f64(),
            row.mnps()
        );
    }
    println!();
    println!("speed ratios ({OURS} Mnps / other Mnps; above 1 means {OURS} is faster):");
    for ours in rows.iter().filter(|r| r.library == OURS) {
        for other in rows
            .iter()
            .filter(|r| r.library != OURS && r.group == ours.group && r.position == ours.position)
        {
            println!(
                "{:<9} {:<12} {OURS}/{:<12} {:>6.2}x",
                ours.group,
                ours.position,
                other.library,
                ours.mnps() / other.mnps()
            );
        }
    }
}
