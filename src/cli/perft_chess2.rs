//! `chessd perft --variant chess2 [--fen EPD] [--divide] [--json] <depth>`: Chess 2 perft, one
//! thread, no duels (as the Go engine CGamesPlay/chess2 counts).

use std::{collections::BTreeMap, process::ExitCode, time::Instant};

use chessd_core::chess2::{perft, Army, Chess2Position};
use serde::Serialize;

use super::{perft::PerftArgs, table, usage_error};

/// The JSON object of `--json`.
#[derive(Debug, Serialize)]
struct JsonOutput {
    nodes: u64,
    seconds: f64,
    nps: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    divide: Option<BTreeMap<String, u64>>,
}

/// Runs a Chess 2 perft.
pub(crate) fn run(args: &PerftArgs) -> ExitCode {
    if args.stats || args.threads != 1 || args.hash != 0 || args.split.is_some() {
        return usage_error(
            "perft",
            "--stats, --threads, --hash and --split are for standard chess, not --variant chess2",
        );
    }
    let pos = match &args.fen {
        None => Chess2Position::start(Army::Classic, Army::Classic),
        Some(epd) => match Chess2Position::from_epd(epd) {
            Ok(pos) => pos,
            Err(e) => return usage_error("perft", &format!("invalid Chess 2 EPD '{epd}': {e}")),
        },
    };
    let start = Instant::now();
    let mut divide = BTreeMap::new();
    let nodes = if args.divide && args.depth > 0 {
        let mut total = 0;
        for mv in pos.legal_moves() {
            let count = perft(&pos.after(mv), args.depth - 1);
            divide.insert(mv.to_string(), count);
            total += count;
        }
        total
    } else {
        perft(&pos, args.depth)
    };
    let seconds = start.elapsed().as_secs_f64();
    let nps = (nodes as f64 / seconds.max(1e-9)) as u64;
    if args.json {
        let out = JsonOutput {
            nodes,
            seconds,
            nps,
            divide: args.divide.then_some(divide),
        };
        match serde_json::to_string(&out) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("chessd perft: cannot write JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    let mut text = String::new();
    if args.divide {
        for (mv, count) in &divide {
            text.push_str(&format!("{mv}: {count}\n"));
        }
        text.push('\n');
    }
    text.push_str(&format!("epd: {}\n", pos.to_epd()));
    let rows: Vec<(&str, String)> = vec![
        ("variant", "chess2".to_string()),
        ("depth", args.depth.to_string()),
        ("seconds", format!("{seconds:.3}")),
        ("nps", nps.to_string()),
        ("nodes", nodes.to_string()),
    ];
    text.push_str(&table::render(&rows));
    print!("{text}");
    ExitCode::SUCCESS
}
