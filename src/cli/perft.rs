//! `chessd perft <depth> [--fen FEN] [--stats] [--threads N] [--hash MiB] [--divide] [--json]
//! [--variant chess2]`

use std::{collections::BTreeMap, process::ExitCode};

use chessd_core::{
    perft::{Perft, PerftProgress, PerftResult, PerftStats},
    FenMode, Position,
};
use chessd_server::api::wire::perft::ClassesJson;
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{progress, table, usage_error};

/// The deepest perft the command accepts.
const MAX_DEPTH: i64 = 32;

/// Arguments of `chessd perft`.
#[derive(Debug, Args)]
pub(crate) struct PerftArgs {
    /// Depth in plies.
    #[arg(value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH))]
    pub depth: u32,
    /// The position (lenient FEN: also positions that cannot arise in play) [default: the
    /// start position].
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    /// Count captures, en passant, castles, promotions, checks and mates at the leaves.
    #[arg(long)]
    pub stats: bool,
    /// Worker threads (0: one per core).
    #[arg(long, short = 't', value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Hash table size in MiB (0: no hashing).
    #[arg(long, value_name = "MiB", default_value_t = 0)]
    pub hash: usize,
    /// Split the work this many plies below the root [default: automatic].
    #[arg(long, value_name = "PLIES")]
    pub split: Option<u32>,
    /// Also print the node count of each root move (UCI notation).
    #[arg(long)]
    pub divide: bool,
    /// Print exactly one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// The game: standard chess (and Chess960 FENs), or Chess 2, whose `--fen` is an EPD with
    /// the armies and stones (`… w KQkq - 0 1 cc 33`).
    #[arg(long, value_enum, default_value_t = Variant::Standard)]
    pub variant: Variant,
}

/// The games `chessd perft` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Variant {
    /// Standard chess and Chess960.
    Standard,
    /// Chess 2 (duels are never started while counting, as the Go engine counts).
    Chess2,
}

/// Runs `chessd perft` for standard chess (`main` sends `--variant chess2` to the Chess 2
/// command).
pub(crate) fn run(args: &PerftArgs) -> ExitCode {
    let pos = match &args.fen {
        None => Position::startpos(),
        Some(fen) => match Position::from_fen(fen, FenMode::Lenient) {
            Ok(pos) => pos,
            Err(e) => return usage_error("perft", &format!("invalid FEN '{fen}': {e}")),
        },
    };
    let mut perft = Perft::new(pos)
        .depth(args.depth)
        .threads(args.threads)
        .hash_mb(args.hash)
        .stats(args.stats)
        .divide(args.divide);
    if let Some(plies) = args.split {
        perft = perft.split_plies(plies);
    }
    let mut line = progress::ProgressLine::new();
    let result = perft.run(|p| line.draw(&progress_text(p)));
    line.clear();
    let result = match result {
        Ok(result) => result,
        // Nothing sets the cancellation flag here; keep the arm for completeness.
        Err(e) => {
            eprintln!("chessd perft: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        match serde_json::to_string(&JsonOutput::new(&pos, &result, args)) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("chessd perft: cannot write JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", human_output(&pos, &result, args));
    }
    ExitCode::SUCCESS
}

fn progress_text(p: &PerftProgress) -> String {
    format!(
        "{} {}/{} tasks  {} nodes  {} nps",
        progress::bar(p.done, p.total, 30),
        p.done,
        p.total,
        p.nodes(),
        p.nps()
    )
}

/// Root moves in UCI with their node counts, sorted by move text.
fn divide_counts(pos: &Position, result: &PerftResult) -> BTreeMap<String, u64> {
    result
        .divide
        .iter()
        .map(|(mv, s)| (pos.uci(*mv), s.nodes))
        .collect()
}

/// The statistics rows: GCT worker summaries first, then the eight classes.
fn stats_rows(s: &PerftStats) -> Vec<(&'static str, u64)> {
    vec![
        ("captures", s.captures),
        ("enpassants", s.enpassants),
        ("castles", s.castles),
        ("promotions", s.promotions),
        ("checks", s.checks()),
        ("discovered_checks", s.discovered_checks()),
        ("double_checks", s.double_checks()),
        ("check_mates", s.check_mates()),
        ("direct_checks", s.direct_checks),
        ("single_discovered_checks", s.single_discovered_checks),
        ("direct_discovered_checks", s.direct_discovered_checks),
        ("double_discovered_checks", s.double_discovered_checks),
        ("direct_mates", s.direct_mates),
        ("single_discovered_mates", s.single_discovered_mates),
        ("direct_discovered_mates", s.direct_discovered_mates),
        ("double_discovered_mates", s.double_discovered_mates),
    ]
}

fn human_output(pos: &Position, result: &PerftResult, args: &PerftArgs) -> String {
    let mut out = String::new();
    if args.divide {
        for (uci, nodes) in divide_counts(pos, result) {
            out.push_str(&format!("{uci}: {nodes}\n"));
        }
        out.push('\n');
    }
    out.push_str(&format!("fen: {}\n", pos.fen()));
    // The Grand Chess Tree client's rows (depth, workers, processed, nps, nodes, statistics),
    // with this run's settings beside them.
    let mut rows: Vec<(&str, String)> = vec![
        ("depth", result.depth.to_string()),
        ("workers", result.threads.to_string()),
        ("processed", format!("{}/{}", result.tasks, result.tasks)),
        ("split_plies", result.split_plies.to_string()),
        ("hash_mib", args.hash.to_string()),
        ("seconds", format!("{:.3}", result.elapsed.as_secs_f64())),
        ("nps", result.nps().to_string()),
        ("nodes", result.nodes().to_string()),
    ];
    if args.stats {
        rows.extend(
            stats_rows(&result.stats)
                .into_iter()
                .map(|(k, v)| (k, v.to_string())),
        );
    }
    out.push_str(&table::render(&rows));
    out
}

/// The JSON object of `--json`.
#[derive(Debug, Serialize)]
struct JsonOutput {
    nodes: u64,
    seconds: f64,
    nps: u64,
    #[serde(flatten)]
    stats: Option<JsonStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    divide: Option<BTreeMap<String, u64>>,
}

/// Statistics in GCT worker form, with the eight classes.
#[derive(Debug, Serialize)]
struct JsonStats {
    captures: u64,
    enpassants: u64,
    castles: u64,
    promotions: u64,
    checks: u64,
    discovered_checks: u64,
    double_checks: u64,
    check_mates: u64,
    classes: ClassesJson,
}

impl JsonOutput {
    fn new(pos: &Position, result: &PerftResult, args: &PerftArgs) -> JsonOutput {
        let s = &result.stats;
        JsonOutput {
            nodes: result.nodes(),
            seconds: result.elapsed.as_secs_f64(),
            nps: result.nps(),
            stats: args.stats.then(|| JsonStats {
                captures: s.captures,
                enpassants: s.enpassants,
                castles: s.castles,
                promotions: s.promotions,
                checks: s.checks(),
                discovered_checks: s.discovered_checks(),
                double_checks: s.double_checks(),
                check_mates: s.check_mates(),
                classes: ClassesJson(*s),
            }),
            divide: args.divide.then(|| divide_counts(pos, result)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn divide_keys(fen: &str) -> Vec<String> {
        let pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
        let result = Perft::new(pos).depth(2).divide(true).run(|_| {}).unwrap();
        divide_counts(&pos, &result).into_keys().collect()
    }

    #[test]
    fn divide_writes_castling_with_the_king_square_in_standard_chess() {
        let moves = divide_keys("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert!(moves.contains(&"e1g1".to_string()), "{moves:?}");
        assert!(moves.contains(&"e1c1".to_string()), "{moves:?}");
        assert!(!moves.contains(&"e1h1".to_string()), "{moves:?}");
    }

    #[test]
    fn divide_writes_promotions_with_a_lower_case_suffix() {
        let moves = divide_keys("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        for m in ["a7a8q", "a7a8r", "a7a8b", "a7a8n"] {
            assert!(moves.contains(&m.to_string()), "{moves:?}");
        }
    }

    #[test]
    fn json_has_statistics_only_when_asked() {
        let pos = Position::startpos();
        let result = Perft::new(pos).depth(3).stats(true).run(|_| {}).unwrap();
        let args = |stats| PerftArgs {
            depth: 3,
            fen: None,
            stats,
            threads: 1,
            hash: 0,
            split: None,
            divide: false,
            json: true,
            variant: Variant::Standard,
        };
        let with = serde_json::to_value(JsonOutput::new(&pos, &result, &args(true))).unwrap();
        assert_eq!(with["captures"], 34);
        assert_eq!(with["classes"]["direct_checks"], 12);
        let without = serde_json::to_value(JsonOutput::new(&pos, &result, &args(false))).unwrap();
        assert_eq!(without.as_object().unwrap().len(), 3);
    }
}
