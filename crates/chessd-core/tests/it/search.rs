//! The game-playing search: always a legal move (checked against shakmaty), mates from the
//! shared Lichess sample (keys checked by the mate solver and the sample's own key list),
//! terminal positions, every limit (depth, nodes, time, mate, searchmoves, stop flag) and
//! the draw rules (repetition against the game history, the fifty-move rule).

use std::{
    sync::atomic::{AtomicBool, Ordering},
    thread,
    time::{Duration, Instant},
};

use crate::common::{self, Puzzle};
use chessd_core::{
    game::{Game, Reason},
    search::{Info, Limits, Score, SearchResult, Searcher},
    solver::Solver,
    FenMode, Move, Position, START_FEN,
};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess};

/// The sample's puzzles that mate in `mate`.
fn puzzles(mate: u32) -> Vec<Puzzle> {
    common::puzzles()
        .into_iter()
        .filter(|p| p.mate == mate)
        .collect()
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, FenMode::Strict).unwrap()
}

/// Searches without history or stop, collecting the info lines.
fn search(pos: &Position, limits: &Limits) -> (SearchResult, Vec<Info>) {
    let mut searcher = Searcher::new(4);
    let stop = AtomicBool::new(false);
    let mut infos = Vec::new();
    let result = searcher.search(pos, &[], limits, &stop, |i| infos.push(i.clone()));
    (result, infos)
}

/// Whether shakmaty (an independent move generator) accepts `uci` in the position `fen`.
fn shakmaty_legal(fen: &str, uci: &str) -> bool {
    let setup: Fen = fen.parse().unwrap();
    let chess: Chess = setup
        .into_position(CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .unwrap();
    let mv: UciMove = uci.parse().unwrap();
    mv.to_move(&chess).is_ok()
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn always_returns_a_legal_move_in_random_positions() {
    let mut rng = Rng(0x5EED_CAFE);
    let mut searcher = Searcher::new(2);
    let stop = AtomicBool::new(false);
    let starts = [
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];
    let (mut searched, mut terminal) = (0, 0);
    for game in 0..24 {
        let mut p = pos(starts[game % starts.len()]);
        let plies = rng.below(120);
        for _ in 0..plies {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.play_unchecked(moves[rng.below(moves.len())]);
        }
        // A search per position of the playout's tail, with varied small limits.
        for k in 0..4 {
            let fen = p.fen();
            let limits = match k {
                0 => Limits::depth(1),
                1 => Limits::nodes(1 + rng.below(3000) as u64),
                2 => Limits::depth(3),
                _ => Limits::nodes(50),
            };
            let result = searcher.search(&p, &[], &limits, &stop, |_| {});
            let legal = p.legal_moves();
            match result.best {
                Some(mv) => {
                    assert!(legal.contains(&mv), "{fen}: {mv:?} is not legal");
                    assert!(shakmaty_legal(&fen, &p.uci(mv)), "{fen}: {}", p.uci(mv));
                    if let Some(reply) = result.ponder {
                        assert!(p.after(mv).is_legal(reply), "{fen}: ponder {reply:?}");
                    }
                    // The PV is a legal line.
                    let mut line = p;
                    for &m in &result.pv {
                        assert!(line.is_legal(m), "{fen}: PV {:?}", result.pv);
                        line.play_unchecked(m);
                    }
                    searched += 1;
                    p.play_unchecked(mv);
                }
                None => {
                    assert!(legal.is_empty(), "{fen}: no move returned");
                    terminal += 1;
                    break;
                }
            }
        }
    }
    assert!(searched > 60, "searched {searched}, terminal {terminal}");
}

#[test]
fn finds_every_lichess_mate_in_two() {
    let puzzles = puzzles(2);
    assert_eq!(puzzles.len(), 25);
    let mut searcher = Searcher::new(8);
    let stop = AtomicBool::new(false);
    for p in &puzzles {
        let position = pos(&p.fen);
        searcher.clear();
        let limits = Limits {
            depth: Some(8),
            nodes: Some(2_000_000),
            ..Limits::default()
        };
        let result = searcher.search(&position, &[], &limits, &stop, |_| {});
        let best = result.best.unwrap();
        assert_eq!(result.score, Score::Mate(2), "{}: {result:?}", p.id);
        // The oracle: the mate solver's keys (all of them) and the sample's own list.
        let solution = Solver::new(position)
            .mate_in(2)
            .find_all_keys(true)
            .solve()
            .unwrap();
        assert_eq!(solution.mate, Some(2), "{}", p.id);
        assert!(solution.keys.contains(&best), "{}: {best:?}", p.id);
        assert!(p.keys.contains(&position.uci(best)), "{}", p.id);
        // The principal variation really mates: three moves, the last one checkmates.
        let mut game = Game::new(position);
        for &m in &result.pv {
            game.play(m).unwrap();
        }
        assert_eq!(result.pv.len(), 3, "{}: {:?}", p.id, result.pv);
        assert_eq!(game.status().reason, Some(Reason::Checkmate), "{}", p.id);
    }
}

#[test]
fn finds_lichess_mates_in_three_with_a_mate_limit() {
    let mut searcher = Searcher::new(8);
    let stop = AtomicBool::new(false);
    for p in puzzles(3).iter().take(25) {
        let position = pos(&p.fen);
        let limits = Limits {
            mate: Some(3),
            nodes: Some(5_000_000),
            ..Limits::default()
        };
        let result = searcher.search(&position, &[], &limits, &stop, |_| {});
        assert_eq!(result.score, Score::Mate(3), "{}: {result:?}", p.id);
        let best = position.uci(result.best.unwrap());
        assert!(p.keys.contains(&best), "{}: {best}", p.id);
    }
}

#[test]
fn mate_in_one_is_found_at_depth_one() {
    for (fen, key) in [
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"),
        (
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "h5f7",
        ),
        ("7k/8/8/8/8/8/r4PPP/7K b - - 0 1", "a2a1"),
    ] {
        let p = pos(fen);
        let (result, infos) = search(&p, &Limits::depth(1));
        let best = result.best.unwrap();
        assert_eq!(p.uci(best), key, "{fen}");
        assert_eq!(result.score, Score::Mate(1));
        assert!(p.after(best).is_checkmate());
        assert_eq!(infos.len(), 1);
        assert_eq!(infos[0].score, Score::Mate(1));
    }
}

#[test]
fn mated_and_stalemated_roots_have_no_move() {
    let mated = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let (result, infos) = search(&mated, &Limits::depth(5));
    assert_eq!(result.best, None);
    assert_eq!(result.ponder, None);
    assert_eq!(result.score, Score::Mate(0));
    assert_eq!(infos.len(), 1);
    assert_eq!(infos[0].depth, 0);

    let stalemate = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    let (result, _) = search(&stalemate, &Limits::default());
    assert_eq!(result.best, None);
    assert_eq!(result.score, Score::Cp(0));
}

#[test]
fn getting_mated_is_scored_as_a_negative_mate() {
    // Black's only move is Ka7, then Ra1 mates.
    let p = pos("k7/2K5/8/8/8/8/8/1R6 b - - 0 1");
    let (result, _) = search(&p, &Limits::depth(4));
    assert_eq!(result.score, Score::Mate(-1), "{result:?}");
    assert_eq!(p.uci(result.best.unwrap()), "a8a7");
}

#[test]
fn depth_limit_is_exact() {
    let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    for depth in [1, 4, 6] {
        let (result, infos) = search(&p, &Limits::depth(depth));
        assert_eq!(result.depth, depth);
        assert!(!result.stopped);
        let depths: Vec<u32> = infos.iter().map(|i| i.depth).collect();
        assert_eq!(depths, (1..=depth).collect::<Vec<_>>());
        let last = infos.last().unwrap();
        assert_eq!(last.pv.first(), result.best.as_ref());
        assert_eq!(last.nodes, result.nodes);
        assert!(last.seldepth >= depth);
    }
    // Depth 0 still answers (as depth 1).
    let (result, _) = search(&p, &Limits::depth(0));
    assert!(result.best.is_some());
    assert_eq!(result.depth, 1);
}

#[test]
fn node_limit_is_honoured() {
    let p = Position::startpos();
    for nodes in [1, 100, 10_000] {
        let (result, _) = search(&p, &Limits::nodes(nodes));
        assert!(result.nodes <= nodes, "{} > {nodes}", result.nodes);
        assert!(p.is_legal(result.best.unwrap()));
    }
    let (big, _) = search(&p, &Limits::nodes(10_000));
    assert!(big.nodes >= 9_000 && big.stopped, "{big:?}");
}

#[test]
fn searchmoves_restrict_the_root() {
    let p = Position::startpos();
    let only = vec![p.parse_uci("a2a3").unwrap(), p.parse_uci("h2h4").unwrap()];
    let limits = Limits {
        depth: Some(5),
        searchmoves: only.clone(),
        ..Limits::default()
    };
    let (result, infos) = search(&p, &limits);
    assert!(only.contains(&result.best.unwrap()));
    assert!(infos.iter().all(|i| only.contains(&i.pv[0])));

    // Without the mating move, the mate is not played.
    let mate = pos("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    let limits = Limits {
        depth: Some(3),
        searchmoves: vec![mate.parse_uci("g1f1").unwrap()],
        ..Limits::default()
    };
    let (result, _) = search(&mate, &limits);
    assert_eq!(mate.uci(result.best.unwrap()), "g1f1");

    // Only illegal moves given: every legal move is searched (the mate is found).
    let limits = Limits {
        depth: Some(3),
        searchmoves: vec![Move::normal(
            chessd_core::Square::E4,
            chessd_core::Square::E5,
        )],
        ..Limits::default()
    };
    let (result, _) = search(&mate, &limits);
    assert_eq!(mate.uci(result.best.unwrap()), "a1a8");
}

#[test]
fn stop_flag_ends_an_unbounded_search_promptly() {
    let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let stop = AtomicBool::new(false);
    let mut searcher = Searcher::new(4);
    let (result, stopped_after) = thread::scope(|s| {
        let handle = s.spawn(|| searcher.search(&p, &[], &Limits::default(), &stop, |_| {}));
        thread::sleep(Duration::from_millis(150));
        let raised = Instant::now();
        stop.store(true, Ordering::Relaxed);
        let result = handle.join().unwrap();
        (result, raised.elapsed())
    });
    assert!(
        stopped_after < Duration::from_millis(500),
        "{stopped_after:?}"
    );
    assert!(result.stopped);
    assert!(result.depth >= 3, "{result:?}");
    assert!(p.is_legal(result.best.unwrap()));

    // Raised before the search starts: still a legal move, at once.
    let t = Instant::now();
    let result = searcher.search(&p, &[], &Limits::default(), &stop, |_| {});
    assert!(t.elapsed() < Duration::from_millis(200));
    assert_eq!(result.depth, 0);
    assert!(p.is_legal(result.best.unwrap()));
}

#[test]
fn time_limits_are_kept() {
    let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let t = Instant::now();
    let (result, _) = search(&p, &Limits::movetime(Duration::from_millis(100)));
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(90) && took < Duration::from_secs(1),
        "{took:?}"
    );
    assert!(p.is_legal(result.best.unwrap()));

    // One second on the clock: the move comes well within it.
    let limits = Limits {
        wtime: Some(Duration::from_secs(1)),
        btime: Some(Duration::from_secs(1)),
        ..Limits::default()
    };
    let t = Instant::now();
    let (result, _) = search(&p, &limits);
    assert!(
        t.elapsed() < Duration::from_millis(700),
        "{:?}",
        t.elapsed()
    );
    assert!(result.best.is_some());

    // Infinite ignores the move time (stopped by the depth here).
    let limits = Limits {
        infinite: true,
        movetime: Some(Duration::from_millis(1)),
        depth: Some(5),
        ..Limits::default()
    };
    let (result, _) = search(&p, &limits);
    assert_eq!(result.depth, 5);
}

#[test]
fn a_mate_limit_alone_ends_without_a_mate() {
    // No mate in 2 here: the search ends by itself after 2 * 2 + 4 plies.
    let p = Position::startpos();
    let limits = Limits {
        mate: Some(2),
        ..Limits::default()
    };
    let (result, _) = search(&p, &limits);
    assert_eq!(result.depth, 8);
    assert!(matches!(result.score, Score::Cp(_)));
}

/// White (a queen up) to move; no capture or pawn move is possible.
const QUEEN_UP: &str = "8/8/8/3k4/8/8/1Q6/6K1 w - - 40 80";

#[test]
fn repeating_the_game_history_scores_a_draw() {
    let root = pos(QUEEN_UP);
    let (free, _) = search(&root, &Limits::depth(4));
    assert!(matches!(free.score, Score::Cp(cp) if cp > 500), "{free:?}");

    // A history in which every position after White's move occurred before (with Black to
    // move, an even number of plies before that child): every move repeats.
    let children: Vec<u64> = root
        .legal_moves()
        .iter()
        .map(|&m| root.after(m).hash())
        .collect();
    let mut history = Vec::new();
    for &h in &children {
        history.push(h); // Black to move
        history.push(0x1234_5678 ^ h); // White to move (no repetition)
    }
    history.push(0xFEED); // Black to move, just before the root
                          // The half-move clock covers the whole history (a repetition is only looked for since
                          // the last capture or pawn move).
    let in_budget = pos(&QUEEN_UP.replace(" 40 80", &format!(" {} 80", history.len() + 2)));
    assert_eq!(in_budget.hash(), root.hash());
    let mut searcher = Searcher::new(4);
    let stop = AtomicBool::new(false);
    let result = searcher.search(&in_budget, &history, &Limits::depth(4), &stop, |_| {});
    assert_eq!(result.score, Score::Cp(0), "{result:?}");

    // A real game: the queen shuffled b2-c2-b2 while the king went d5-e5-d5. Repeating
    // Qc2 is a draw; the winning side plays something else.
    let mut game = Game::new(root);
    let mut keys = Vec::new();
    for mv in ["b2c2", "d5e5", "c2b2", "e5d5"] {
        keys.push(game.position().hash());
        game.play_uci(mv).unwrap();
    }
    let now = *game.position();
    assert_eq!(now.hash(), root.hash());
    let result = searcher.search(&now, &keys, &Limits::depth(5), &stop, |_| {});
    let best = result.best.unwrap();
    assert_ne!(now.uci(best), "b2c2");
    assert!(!keys.contains(&now.after(best).hash()));
    assert!(
        matches!(result.score, Score::Cp(cp) if cp > 500),
        "{result:?}"
    );
}

#[test]
fn the_fifty_move_rule_is_avoided_when_winning() {
    // 99 half-moves without a capture or pawn move: every piece move draws, the pawn move
    // resets the count.
    let p = pos("8/8/8/3k4/8/8/1Q5P/6K1 w - - 99 120");
    let (result, _) = search(&p, &Limits::depth(4));
    let best = p.uci(result.best.unwrap());
    assert!(best == "h2h3" || best == "h2h4", "{best}");
    assert!(
        matches!(result.score, Score::Cp(cp) if cp > 500),
        "{result:?}"
    );

    // Without the pawn: a draw whatever White does (and no mate in one to save it).
    let p = pos(&QUEEN_UP.replace(" 40 80", " 99 120"));
    let (result, _) = search(&p, &Limits::depth(4));
    assert_eq!(result.score, Score::Cp(0), "{result:?}");
}

#[test]
fn clear_and_resize_keep_the_searcher_usable() {
    let mut searcher = Searcher::new(1);
    assert_eq!(searcher.hash_bytes(), 1 << 20);
    searcher.resize(2);
    assert_eq!(searcher.hash_bytes(), 2 << 20);
    searcher.clear();
    let stop = AtomicBool::new(false);
    let p = Position::startpos();
    let a = searcher.search(&p, &[], &Limits::depth(5), &stop, |_| {});
    searcher.clear();
    let b = searcher.search(&p, &[], &Limits::depth(5), &stop, |_| {});
    // Deterministic after a clear.
    assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
}
