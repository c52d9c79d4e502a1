//! `chessd engine [--hash MiB]`: the built-in UCI engine on stdin/stdout.
//! `chessd engine --bench [--depth N | --nodes N] [--search pvs|tesla]`: its search speed
//! (nodes per second) over a fixed set of positions, for benchmarks; with `--search tesla`
//! also the Tesla search's counters (evaluations, batches, how often the best child was
//! disproved).

use std::{
    io::{self, BufRead},
    process::ExitCode,
    sync::atomic::AtomicBool,
    time::Duration,
};

use chessd_core::{
    search::{tesla::TeslaSearcher, Limits, SearchResult, Searcher, DEFAULT_HASH_MIB},
    FenMode, Position,
};
use chessd_server::engine::builtin;
use clap::Args;

/// Arguments of `chessd engine`.
#[derive(Debug, Args)]
pub(crate) struct EngineArgs {
    /// Transposition table size in MiB (the UCI `Hash` option can change it).
    #[arg(long, value_name = "MiB", default_value_t = DEFAULT_HASH_MIB, value_parser = hash_mib)]
    pub hash: usize,
    /// Measure the search speed instead of speaking UCI: search each bench position to
    /// `--depth` and print nodes per second (median over the positions).
    #[arg(long)]
    pub bench: bool,
    /// Depth of each bench search.
    #[arg(long, value_name = "N", default_value_t = 11, requires = "bench",
          value_parser = clap::value_parser!(u32).range(1..=30))]
    pub depth: u32,
    /// Bound each bench search by nodes instead of depth.
    #[arg(long, value_name = "N", requires = "bench")]
    pub nodes: Option<u64>,
    /// The search to bench: `pvs` (the default) or `tesla`.
    #[arg(long, value_name = "SEARCH", default_value = "pvs", requires = "bench",
          value_parser = ["pvs", "tesla"])]
    pub search: String,
}

/// Positions of the speed benchmark: openings, middlegames (perft suite positions 2, 5 and 6
/// among them) and endgames.
pub(crate) const BENCH_FENS: [&str; 10] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/R2Q1RK1 w - - 0 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2N2B2/PPPQ2PP/R4RK1 w - - 0 14",
    "6k1/pp3ppp/4p3/8/1P1r4/P3R1P1/5P1P/6K1 w - - 0 30",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/5pk1/6p1/7p/7P/5KP1/8/8 w - - 0 50",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

/// Parses `--hash`: 1 to [`builtin::MAX_HASH_MIB`].
fn hash_mib(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=builtin::MAX_HASH_MIB).contains(&n) => Ok(n),
        _ => Err(format!("expected 1 to {} (MiB)", builtin::MAX_HASH_MIB)),
    }
}

/// Runs `chessd engine`.
pub(crate) fn run(args: &EngineArgs) -> ExitCode {
    if args.bench {
        return bench(args);
    }
    let stdin = io::stdin();
    let input: Box<dyn BufRead> = Box::new(stdin.lock());
    builtin::run(input, io::stdout(), args.hash);
    ExitCode::SUCCESS
}

/// `--bench`: one search per position from a cleared table; prints a line per position and
/// the totals.
fn bench(args: &EngineArgs) -> ExitCode {
    let mut searcher = Searcher::new(args.hash);
    let mut tesla = TeslaSearcher::new(args.hash);
    let is_tesla = args.search == "tesla";
    let limits = match args.nodes {
        Some(n) => Limits::nodes(n),
        None => Limits::depth(args.depth),
    };
    let stop = AtomicBool::new(false);
    let mut rates = Vec::with_capacity(BENCH_FENS.len());
    let (mut nodes, mut time) = (0u64, Duration::ZERO);
    let bound = match args.nodes {
        Some(n) => format!("nodes {n}"),
        None => format!("depth {}", args.depth),
    };
    println!(
        "chessd engine --bench: search {}, {bound}, hash {} MiB, one thread",
        args.search, args.hash
    );
    let (mut evaluated, mut batches, mut best_updates, mut disproved) = (0, 0, 0, 0);
    for fen in BENCH_FENS {
        let pos = match Position::from_fen(fen, FenMode::Strict) {
            Ok(pos) => pos,
            Err(e) => {
                eprintln!("chessd engine: bench FEN '{fen}': {e}");
                return ExitCode::FAILURE;
            }
        };
        let result: SearchResult = if is_tesla {
            tesla.clear();
            let r = tesla.search(&pos, &[], &limits, &stop, |_| {});
            let st = tesla.stats();
            evaluated += st.evaluated;
            batches += st.batches;
            best_updates += st.best_updates;
            disproved += st.disproved;
            r
        } else {
            searcher.clear();
            searcher.search(&pos, &[], &limits, &stop, |_| {})
        };
        let secs = result.time.as_secs_f64().max(1e-9);
        let nps = result.nodes as f64 / secs;
        rates.push(nps);
        nodes += result.nodes;
        time += result.time;
        let best = result
            .best
            .map_or_else(|| "0000".to_string(), |m| pos.uci(m));
        println!(
            "{:>10} nodes {:>8.1} ms {:>9.0} nps  depth {:>2} best {best:<5} score {}  {fen}",
            result.nodes,
            secs * 1e3,
            nps,
            result.depth,
            result.score
        );
    }
    rates.sort_by(f64::total_cmp);
    let median = match rates.len() {
        0 => 0.0,
        n if n % 2 == 1 => rates[n / 2],
        n => (rates[n / 2 - 1] + rates[n / 2]) / 2.0,
    };
    println!(
        "total {nodes} nodes in {:.3} s: {:.0} nps overall, median {:.0} nps over {} positions",
        time.as_secs_f64(),
        nodes as f64 / time.as_secs_f64().max(1e-9),
        median,
        rates.len()
    );
    if is_tesla {
        println!(
            "tesla: {evaluated} leaves evaluated in {batches} batches ({:.1} a batch); the best \
             child disproved in {disproved} of {best_updates} updates through it ({:.1}%)",
            evaluated as f64 / (batches.max(1)) as f64,
            100.0 * disproved as f64 / (best_updates.max(1)) as f64
        );
    }
    ExitCode::SUCCESS
}
