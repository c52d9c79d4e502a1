//! The game codec (`chessd_core::codec`): bytes per game and encode/decode speed.
//!
//! Game sets, 80 plies each (games that end sooner are replaced):
//! - `random`: uniformly random legal moves from the start position (300 games);
//! - `engine`: the built-in engine at 300 to 3000 nodes a move, the first 4 plies and one
//!   move in 16 random (100 games; a different seed from the one the rank table was
//!   derived with);
//! - `chess2`: random Chess 2 steps (moves, challenges, bids) over every army pair, 80
//!   steps (144 games).
//!
//! `export` is what an export does with each game in the core: decode writing each move's SAN,
//! replay into a `Game`, write its PGN.
//!
//! Each set is measured without clocks and with clocks of a 5+3 game (one record: moves,
//! then clocks) whose think times are random: 0.5 to 8 s mostly, a long think of up to 40 s
//! one move in ten, at most a tenth of what is left. Speeds are the median of
//! `CHESSD_BENCH_RUNS` runs (default 5) over the whole set.
//!
//! Run with `cargo bench -p chessd-core --bench codec`.

use std::{
    hint::black_box,
    sync::atomic::AtomicBool,
    time::{Duration, Instant},
};

use chessd_core::{
    chess2::{Army, Chess2Action, Chess2Game, Chess2Position, DuelStage},
    codec::{
        encode_chess2, Chess2StepReader, ClockReader, ClockWriter, MoveReader, MoveWriter,
        TimeControl,
    },
    game::{DrawPolicy, Game},
    pgn::write_noted_game,
    search::{Limits, Searcher},
    Color, Move, Position,
};

const PLIES: usize = 80;
const TC: TimeControl = TimeControl {
    initial_ms: 300_000,
    increment_ms: 3_000,
};

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % n
    }
}

/// A game of `PLIES` moves chosen by `pick`, or `None` if it ended sooner.
fn game_of(mut pick: impl FnMut(&Game, &[u64]) -> Move) -> Option<Vec<Move>> {
    let mut game = Game::new(Position::startpos());
    let mut hashes = Vec::new();
    while game.history().len() < PLIES {
        if game.is_over() {
            return None;
        }
        let mv = pick(&game, &hashes);
        hashes.push(game.position().hash());
        game.play(mv).ok()?;
    }
    Some(game.history().to_vec())
}

fn random_games(n: usize, rng: &mut Rng) -> Vec<Vec<Move>> {
    let mut games = Vec::new();
    while games.len() < n {
        if let Some(g) = game_of(|game, _| {
            let legal = game.position().legal_moves();
            legal[rng.below(legal.len() as u64) as usize]
        }) {
            games.push(g);
        }
    }
    games
}

fn engine_games(n: usize, rng: &mut Rng) -> Vec<Vec<Move>> {
    let mut searcher = Searcher::new(4);
    let stop = AtomicBool::new(false);
    let mut games = Vec::new();
    while games.len() < n {
        searcher.clear();
        if let Some(g) = game_of(|game, hashes| {
            let pos = game.position();
            let legal = pos.legal_moves();
            if game.history().len() < 4 || rng.below(16) == 0 {
                legal[rng.below(legal.len() as u64) as usize]
            } else {
                let limits = Limits::nodes(300 + rng.below(2700));
                let result = searcher.search(pos, hashes, &limits, &stop, |_| {});
                result.best.unwrap_or(legal[0])
            }
        }) {
            games.push(g);
        }
    }
    games
}

fn chess2_games(rng: &mut Rng) -> Vec<Chess2Game> {
    let mut games = Vec::new();
    for white in Army::ALL {
        for black in Army::ALL {
            let mut made = 0;
            while made < 4 {
                let start = Chess2Position::start(white, black);
                let mut g = Chess2Game::new(start, DrawPolicy::Automatic);
                while g.steps().len() < PLIES && !g.is_over() {
                    let action = match g.pending_duel().map(|p| p.stage()) {
                        None => {
                            let legal = g.legal_moves();
                            Chess2Action::Move(legal[rng.below(legal.len() as u64) as usize])
                        }
                        Some(DuelStage::Challenge) => {
                            if rng.below(2) == 0 {
                                Chess2Action::Challenge
                            } else {
                                Chess2Action::Decline
                            }
                        }
                        Some(DuelStage::Bids { .. }) => {
                            let by = g.to_act();
                            let allowed = g.allowed_bids(by);
                            Chess2Action::Bid {
                                by,
                                stones: allowed[rng.below(allowed.len() as u64) as usize],
                                gain: None,
                            }
                        }
                    };
                    g.replay(action).expect("a legal step");
                }
                if g.steps().len() == PLIES {
                    games.push(g);
                    made += 1;
                }
            }
        }
    }
    games
}

/// Clocks `[white, black]` after each of `steps` steps by `movers`, with random think times.
fn clocks_for(movers: &[Color], rng: &mut Rng) -> Vec<[u64; 2]> {
    let mut now = [TC.initial_ms; 2];
    movers
        .iter()
        .map(|&mover| {
            let me = mover.index();
            let mut think = 500 + rng.below(7_500);
            if rng.below(10) == 0 {
                think += rng.below(32_000);
            }
            let think = think.min(now[me] / 10);
            now[me] = now[me] - think + TC.increment_ms;
            now
        })
        .collect()
}

fn movers(n: usize) -> Vec<Color> {
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            }
        })
        .collect()
}

fn encode_standard(moves: &[Move], clocks: Option<&[[u64; 2]]>) -> Vec<u8> {
    let mut writer = MoveWriter::new();
    let mut pos = Position::startpos();
    for &mv in moves {
        writer.push(&pos, mv).expect("legal");
        pos.play_unchecked(mv);
    }
    match clocks {
        None => writer.finish(),
        Some(clocks) => {
            let mut w = ClockWriter::with_bits(writer.into_bits(), TC);
            for (i, &c) in clocks.iter().enumerate() {
                w.push(
                    if i % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    },
                    c,
                );
            }
            w.finish()
        }
    }
}

fn decode_standard(bytes: &[u8], with_clocks: bool) -> u64 {
    let mut reader = MoveReader::new(Position::startpos(), bytes, PLIES);
    let mut sum = 0u64;
    for mv in reader.by_ref() {
        sum += u64::from(mv.expect("decodes").to_u16());
    }
    if with_clocks {
        let mut clocks = ClockReader::from_bits(TC, reader.into_bits());
        for i in 0..PLIES {
            let mover = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            sum += clocks.next_clocks(mover).expect("decodes")[0];
        }
    }
    sum
}

/// What an export does with a stored game, in the core: decodes its moves writing their SAN,
/// replays them into a [`Game`] and writes its PGN with those SAN and the tags a server
/// writes.
fn export_standard(bytes: &[u8], tags: &[(String, String)]) -> usize {
    let mut game = Game::with_policy(Position::startpos(), DrawPolicy::Claims);
    let mut reader = MoveReader::new(Position::startpos(), bytes, PLIES);
    // One buffer for every SAN (the server holds each inline): no allocation a move.
    let (mut text, mut ends) = (String::with_capacity(8 * PLIES), Vec::with_capacity(PLIES));
    while let Some(mv) = reader.next_noted(&mut text) {
        game.replay_decoded(mv.expect("decodes")).expect("replays");
        ends.push(text.len());
    }
    let sans: Vec<&str> = ends
        .iter()
        .scan(0, |start, &end| {
            let san = &text[*start..end];
            *start = end;
            Some(san)
        })
        .collect();
    write_noted_game(&game, &sans, tags).len()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn sizes(label: &str, sizes: &[usize]) {
    let mut s = sizes.to_vec();
    s.sort_unstable();
    let mean = s.iter().sum::<usize>() as f64 / s.len() as f64;
    println!(
        "{label:<22} {:>5} games  bytes/game: median {:>4}  mean {:>6.1}  min {:>4}  max {:>4}  ({:.2} bits/ply at the median)",
        s.len(),
        s[s.len() / 2],
        mean,
        s[0],
        s[s.len() - 1],
        s[s.len() / 2] as f64 * 8.0 / PLIES as f64,
    );
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    Duration::from_secs_f64(median(std::mem::take(&mut times)))
}

fn speed(label: &str, games: usize, elapsed: Duration) {
    let secs = elapsed.as_secs_f64();
    println!(
        "{label:<22} {:>9.0} games/s  {:>6.2} M moves/s  ({:.1} µs a game)",
        games as f64 / secs,
        (games * PLIES) as f64 / secs / 1e6,
        secs * 1e6 / games as f64,
    );
}

fn main() {
    let runs: usize = std::env::var("CHESSD_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let mut rng = Rng(0xBE9C_4C0D_EC00_0001);
    let t = Instant::now();
    let sets = [
        ("random", random_games(300, &mut rng)),
        ("engine", engine_games(100, &mut rng)),
    ];
    let chess2 = chess2_games(&mut rng);
    println!(
        "games generated in {:.1} s; {PLIES} plies a game; time control 5+3",
        t.elapsed().as_secs_f64()
    );
    println!();
    // The tags a server writes for an export (`GameRecord::pgn_tags`).
    let tags: Vec<(String, String)> = [
        ("Event", "Casual game"),
        (
            "Site",
            "http://127.0.0.1:8080/games/9f4c1f36-0d1e-4f5b-9a3c-2b7e8d6a5c41",
        ),
        ("Date", "2026.11.29"),
        ("White", "?"),
        ("Black", "?"),
        ("TimeControl", "300+3"),
        ("Termination", "unterminated"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (name, games) in &sets {
        let clocks: Vec<Vec<[u64; 2]>> = games
            .iter()
            .map(|_| clocks_for(&movers(PLIES), &mut rng))
            .collect();
        let plain: Vec<Vec<u8>> = games.iter().map(|g| encode_standard(g, None)).collect();
        let timed: Vec<Vec<u8>> = games
            .iter()
            .zip(&clocks)
            .map(|(g, c)| encode_standard(g, Some(c)))
            .collect();
        sizes(name, &plain.iter().map(Vec::len).collect::<Vec<_>>());
        sizes(
            &format!("{name} + clocks"),
            &timed.iter().map(Vec::len).collect::<Vec<_>>(),
        );
        let enc = time(runs, || {
            for g in games {
                black_box(encode_standard(black_box(g), None));
            }
        });
        speed(&format!("{name} encode"), games.len(), enc);
        let dec = time(runs, || {
            for b in &plain {
                black_box(decode_standard(black_box(b), false));
            }
        });
        speed(&format!("{name} decode"), games.len(), dec);
        let dec = time(runs, || {
            for b in &timed {
                black_box(decode_standard(black_box(b), true));
            }
        });
        speed(&format!("{name} decode + clocks"), games.len(), dec);
        let exp = time(runs, || {
            for b in &plain {
                black_box(export_standard(black_box(b), &tags));
            }
        });
        speed(&format!("{name} export"), games.len(), exp);
        println!();
    }

    let plain: Vec<Vec<u8>> = chess2
        .iter()
        .map(|g| encode_chess2(g).expect("encodes"))
        .collect();
    sizes(
        "chess2 (80 steps)",
        &plain.iter().map(Vec::len).collect::<Vec<_>>(),
    );
    let timed: Vec<usize> = chess2
        .iter()
        .zip(&plain)
        .map(|(g, _)| {
            let start = Chess2Game::new(*g.start_position(), g.policy());
            let mut writer = chessd_core::codec::Chess2StepWriter::new(start);
            let mut movers = Vec::new();
            for &step in g.steps() {
                movers.push(writer.game().side_of(step));
                writer.push(step).expect("encodes");
            }
            let clocks = clocks_for(&movers, &mut rng);
            let mut w = ClockWriter::with_bits(writer.into_bits(), TC);
            for (m, c) in movers.into_iter().zip(clocks) {
                w.push(m, c);
            }
            w.finish().len()
        })
        .collect();
    sizes("chess2 + clocks", &timed);
    let enc = time(runs, || {
        for g in &chess2 {
            black_box(encode_chess2(black_box(g)).expect("encodes"));
        }
    });
    speed("chess2 encode", chess2.len(), enc);
    let dec = time(runs, || {
        for (g, b) in chess2.iter().zip(&plain) {
            let start = Chess2Game::new(*g.start_position(), g.policy());
            let reader = Chess2StepReader::new(start, black_box(b), PLIES);
            for step in reader {
                black_box(step.expect("decodes"));
            }
        }
    });
    speed("chess2 decode", chess2.len(), dec);
}
