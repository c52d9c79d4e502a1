//! An in-process match of the Tesla search against the principal variation search, for
//! iterating on Tesla without building the server: the ten openings of `chessd match`, each
//! with both colours, judged by the core's `Game`, a draw at 300 plies.
//!
//! `cargo run --release -p chessd-core --example tesla_match -- GAMES nodes N` (deterministic)
//! or `… GAMES movetime MS`. Tesla's parameters may be overridden with the environment
//! variables `TESLA_ERROR`, `TESLA_EBF`, `TESLA_BATCH`, `TESLA_CDF`, `TESLA_FLOOR`,
//! `TESLA_SAT` (the UCI options' units).

use std::{sync::atomic::AtomicBool, time::Duration};

use chessd_core::{
    game::GameResult,
    search::{
        tesla::{TeslaParams, TeslaSearcher},
        Limits, Searcher,
    },
    Color,
};

// The very openings of `chessd match`, so that this harness and the match play the same games.
#[path = "../../../src/cli/engine_match/openings.rs"]
mod openings;

const MAX_PLIES: usize = 300;

fn env(name: &str) -> Option<f64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn params() -> TeslaParams {
    let mut p = TeslaParams::default();
    if let Some(v) = env("TESLA_ERROR") {
        p.error_cp = v;
    }
    if let Some(v) = env("TESLA_EBF") {
        p.ebf = v / 100.0;
    }
    if let Some(v) = env("TESLA_BATCH") {
        p.batch = v as usize;
    }
    if let Some(v) = env("TESLA_CDF") {
        p.cdf_k = v / 100.0;
    }
    if let Some(v) = env("TESLA_FLOOR") {
        p.cdf_floor = v / 1000.0;
    }
    if let Some(v) = env("TESLA_SAT") {
        p.satisfaction = v / 100.0;
    }
    p
}

/// Plays game `index`; Tesla's score (1, 0.5, 0).
fn play(index: usize, limits: &Limits) -> f64 {
    let mut game = openings::start(index as u32).expect("the openings are legal");
    let tesla_side = if index.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    let mut tesla = TeslaSearcher::new(16);
    tesla.set_params(params());
    let mut pvs = Searcher::new(16);
    let stop = AtomicBool::new(false);
    while !game.is_over() && game.history().len() < MAX_PLIES {
        let mut pos = *game.start_position();
        let mut history = Vec::new();
        for &mv in game.history() {
            history.push(pos.hash());
            pos.play_unchecked(mv);
        }
        let result = if game.turn() == tesla_side {
            tesla.search(&pos, &history, limits, &stop, |_| {})
        } else {
            pvs.search(&pos, &history, limits, &stop, |_| {})
        };
        if std::env::var("DEPTHS").is_ok() {
            eprintln!(
                "{} depth {} nodes {}",
                if game.turn() == tesla_side {
                    "tesla"
                } else {
                    "pvs"
                },
                result.depth,
                result.nodes
            );
        }
        let mv = result.best.expect("a move");
        game.play(mv).expect("a legal move");
    }
    match game.status().result {
        GameResult::WhiteWins if tesla_side == Color::White => 1.0,
        GameResult::BlackWins if tesla_side == Color::Black => 1.0,
        GameResult::WhiteWins | GameResult::BlackWins => 0.0,
        _ => 0.5,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: usize = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(20);
    let amount: u64 = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(5000);
    let limits = match args.get(2).map(String::as_str) {
        Some("movetime") => Limits::movetime(Duration::from_millis(amount)),
        Some("depth") => Limits::depth(amount as u32),
        _ => Limits::nodes(amount),
    };
    let threads: usize = env("THREADS").map_or(1, |t| t as usize).max(1);
    let scores: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let limits = limits.clone();
                s.spawn(move || {
                    (t..games)
                        .step_by(threads)
                        .map(|i| (i, play(i, &limits)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, f64)> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("a game thread"))
            .collect();
        all.sort_by_key(|&(i, _)| i);
        all.into_iter().map(|(_, s)| s).collect()
    });
    let line: String = scores
        .iter()
        .map(|&s| match s {
            1.0 => '1',
            0.0 => '0',
            _ => '=',
        })
        .collect();
    let (w, d, l) = (
        scores.iter().filter(|&&s| s == 1.0).count(),
        scores.iter().filter(|&&s| s == 0.5).count(),
        scores.iter().filter(|&&s| s == 0.0).count(),
    );
    let total: f64 = scores.iter().sum();
    let frac = total / games as f64;
    let elo = if frac <= 0.0 || frac >= 1.0 {
        f64::NAN
    } else {
        -400.0 * (1.0 / frac - 1.0).log10()
    };
    println!("{line}\ntesla +{w} ={d} -{l}  {total}/{games}  elo {elo:.0}");
}
