//! Prints the `info` lines of Tesla and of the principal variation search on a few positions
//! at a node budget: `cargo run --release -p chessd-core --example tesla_probe -- NODES`.

use std::sync::atomic::AtomicBool;

use chessd_core::{
    search::{tesla::TeslaSearcher, Info, Limits, Searcher},
    FenMode, Position,
};

const FENS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
];

/// Prints one `info` line of the search called `label`.
fn print_info(label: &str, pos: &Position, i: &Info) {
    let pv: Vec<String> = i.pv.iter().map(|&m| pos.uci(m)).collect();
    println!(
        "  {label} depth {} nodes {} score {:?} pv {}",
        i.depth,
        i.nodes,
        i.score,
        pv.join(" ")
    );
}

fn main() {
    let nodes: u64 = std::env::args()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let stop = AtomicBool::new(false);
    let given: Vec<String> = std::env::args().skip(2).collect();
    let fens: Vec<&str> = if given.is_empty() {
        FENS.to_vec()
    } else {
        given.iter().map(String::as_str).collect()
    };
    for fen in fens {
        let pos = Position::from_fen(fen, FenMode::Strict).expect("a valid FEN");
        println!("{fen}");
        let mut t = TeslaSearcher::new(16);
        let r = t.search(&pos, &[], &Limits::nodes(nodes), &stop, |i| {
            print_info("tesla", &pos, i)
        });
        println!(
            "  tesla stats {:?} best {}",
            t.stats(),
            pos.uci(r.best.expect("a legal move"))
        );
        let mut s = Searcher::new(16);
        let r = s.search(&pos, &[], &Limits::nodes(nodes), &stop, |i| {
            print_info("pvs", &pos, i)
        });
        println!("  pvs best {}", pos.uci(r.best.expect("a legal move")));
    }
}
