//! SAN: `Position::append_san` over every move of 300 random games of 80 plies (uniformly
//! random legal moves from the start, a fixed seed), the median of `CHESSD_BENCH_RUNS` runs
//! (default 15) in ns a move. Replay, the game view and the PGN export write one SAN a move.
//!
//! Run with `cargo bench -p chessd-core --bench san`.

use std::{hint::black_box, time::Instant};

use chessd_core::{Move, Position};

fn main() {
    let runs: usize = std::env::var("CHESSD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut moves: Vec<(Position, Move)> = Vec::new();
    for _ in 0..300 {
        let mut pos = Position::startpos();
        for _ in 0..80 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mv = legal[(seed % legal.len() as u64) as usize];
            moves.push((pos, mv));
            pos.play_unchecked(mv);
        }
    }
    let mut out = String::new();
    let mut per_move: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            let mut bytes = 0;
            for (pos, mv) in &moves {
                out.clear();
                pos.append_san(*mv, &mut out);
                bytes += out.len();
            }
            black_box(bytes);
            start.elapsed().as_secs_f64() * 1e9 / moves.len() as f64
        })
        .collect();
    per_move.sort_by(f64::total_cmp);
    println!(
        "append_san over {} moves of random games: median {:.1} ns a move",
        moves.len(),
        per_move[per_move.len() / 2]
    );
}
