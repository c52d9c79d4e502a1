//! The mate solver against the shared Lichess sample (mate length, every key, uniqueness,
//! trees replayed move by move) and against positions built here, checked by an independent
//! full-width brute force written in this file.

use std::{
    collections::HashSet,
    sync::atomic::{AtomicBool, AtomicU64, Ordering},
    time::{Duration, Instant},
};

use crate::common::{self, Puzzle};
use chessd_core::{
    solver::{MateTree, Solution, SolveError, Solver, StopReason},
    FenMode, Move, Position,
};

/// The whole sample, checked to be the 50 puzzles it holds.
fn puzzles() -> Vec<Puzzle> {
    let rows = common::puzzles();
    assert_eq!(rows.len(), 50);
    rows
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, FenMode::Strict).unwrap()
}

fn solve(p: &Position, n: u32) -> Solution {
    Solver::new(*p)
        .mate_in(n)
        .find_all_keys(true)
        .solve()
        .unwrap()
}

fn uci_set(p: &Position, moves: &[Move]) -> HashSet<String> {
    moves.iter().map(|&m| p.uci(m)).collect()
}

// ----- Independent brute force: full width, no table, no pruning -----

/// Whether the side to move mates within `n` moves.
fn brute_mates_within(p: &Position, n: u32) -> bool {
    n > 0
        && p.legal_moves()
            .iter()
            .any(|&m| brute_mated(&p.after(m), n - 1))
}

/// Whether the side to move (the defender) is mated now or loses to a mate within `k`
/// attacker moves whatever it plays.
fn brute_mated(p: &Position, k: u32) -> bool {
    let moves = p.legal_moves();
    if moves.is_empty() {
        return p.is_check();
    }
    k > 0 && moves.iter().all(|&d| brute_mates_within(&p.after(d), k))
}

/// The shortest mate (at most `n`) and every first move mating within it.
fn brute_solve(p: &Position, n: u32) -> (Option<u32>, HashSet<String>) {
    for len in 1..=n {
        let keys: HashSet<String> = p
            .legal_moves()
            .iter()
            .filter(|&&m| brute_mated(&p.after(m), len - 1))
            .map(|&m| p.uci(m))
            .collect();
        if !keys.is_empty() {
            return (Some(len), keys);
        }
    }
    (None, HashSet::new())
}

// ----- Checking a solution by replaying it -----

/// Replays `tree` (its move played in `p`): the move is legal, the defences are exactly the
/// legal defender moves, every leaf is checkmate, and `mate_in` is the real length (at most
/// `budget`). Returns the length.
fn verify_tree(p: &Position, tree: &MateTree, budget: u32) -> u32 {
    assert!(budget >= 1, "mate takes longer than allowed in {}", p.fen());
    assert!(p.is_legal(tree.mv), "{:?} illegal in {}", tree.mv, p.fen());
    assert!(!tree.truncated);
    let child = p.after(tree.mv);
    let legal = child.legal_moves();
    if legal.is_empty() {
        assert!(child.is_checkmate(), "leaf {} is not mate", child.fen());
        assert!(tree.defences.is_empty());
        assert_eq!(tree.mate_in, 1);
        return 1;
    }
    let expected: HashSet<Move> = legal.iter().copied().collect();
    let got: HashSet<Move> = tree.defences.iter().map(|d| d.mv).collect();
    assert_eq!(got.len(), tree.defences.len(), "repeated defence");
    assert_eq!(got, expected, "defences after {}", child.fen());
    let longest = tree
        .defences
        .iter()
        .map(|d| verify_tree(&child.after(d.mv), &d.reply, budget - 1))
        .max()
        .unwrap();
    assert_eq!(tree.mate_in, 1 + longest);
    1 + longest
}

/// Everything a solution promises, checked against the position alone.
fn verify_solution(p: &Position, s: &Solution) {
    let Some(mate) = s.mate else {
        assert!(s.keys.is_empty() && s.trees.is_empty() && s.main_line.is_empty());
        assert!(!s.unique);
        return;
    };
    assert!(s.tree_complete);
    assert_eq!(s.trees.len(), s.keys.len());
    for (key, tree) in s.keys.iter().zip(&s.trees) {
        assert_eq!(tree.mv, *key);
        assert_eq!(verify_tree(p, tree, mate), mate, "tree of {}", p.uci(*key));
    }
    // The main line: starts with the first key, the defender resists longest, ends in mate.
    assert_eq!(s.main_line_moves.first(), s.keys.first());
    assert_eq!(s.main_line_moves.len() as u32, 2 * mate - 1);
    let mut q = *p;
    for (mv, san) in s.main_line_moves.iter().zip(&s.main_line) {
        assert_eq!(&q.san(*mv), san);
        q.play(*mv).unwrap();
    }
    assert!(q.is_checkmate(), "main line ends in {}", q.fen());
    assert!(s.main_line.last().unwrap().ends_with('#'));
    assert_eq!(s.unique, s.keys.len() == 1);
}

// ----- The shared sample -----

#[test]
fn every_sample_puzzle_has_its_mate_length_and_unique_key() {
    for pz in puzzles() {
        let p = pos(&pz.fen);
        let s = solve(&p, pz.mate);
        assert_eq!(s.mate, Some(pz.mate), "{}", pz.id);
        let expected: HashSet<String> = pz.keys.iter().cloned().collect();
        assert_eq!(uci_set(&p, &s.keys), expected, "{}", pz.id);
        assert!(s.unique && s.all_keys, "{}", pz.id);
        verify_solution(&p, &s);
        assert!(s.nodes > 0);
    }
}

#[test]
fn sample_puzzles_asked_for_longer_mates_report_the_shortest() {
    for pz in puzzles().iter().step_by(5) {
        let p = pos(&pz.fen);
        let s = solve(&p, pz.mate + 1);
        assert_eq!(s.mate, Some(pz.mate), "{}", pz.id);
        assert_eq!(
            uci_set(&p, &s.keys),
            pz.keys.iter().cloned().collect(),
            "{}",
            pz.id
        );
        verify_solution(&p, &s);
    }
}

#[test]
fn mate_in_three_puzzles_have_no_mate_in_two() {
    for pz in puzzles().iter().filter(|pz| pz.mate == 3) {
        let s = solve(&pos(&pz.fen), 2);
        assert_eq!(s.mate, None, "{}", pz.id);
        assert!(s.keys.is_empty() && s.trees.is_empty() && !s.unique);
    }
}

#[test]
fn brute_force_agrees_on_the_mate_in_two_sample() {
    for pz in puzzles().iter().filter(|pz| pz.mate == 2) {
        let p = pos(&pz.fen);
        let (mate, keys) = brute_solve(&p, 2);
        let s = solve(&p, 2);
        assert_eq!(s.mate, mate, "{}", pz.id);
        assert_eq!(uci_set(&p, &s.keys), keys, "{}", pz.id);
    }
}

#[test]
fn two_threads_and_a_tiny_table_give_the_same_answers() {
    for pz in puzzles().iter().filter(|pz| pz.mate == 3) {
        let p = pos(&pz.fen);
        for (threads, table_mb) in [(2, 8), (1, 0)] {
            let s = Solver::new(p)
                .mate_in(3)
                .threads(threads)
                .table_mb(table_mb)
                .find_all_keys(true)
                .solve()
                .unwrap();
            assert_eq!(s.mate, Some(3), "{} threads {threads}", pz.id);
            assert_eq!(uci_set(&p, &s.keys), pz.keys.iter().cloned().collect());
            verify_solution(&p, &s);
        }
    }
}

#[test]
fn parallel_root_search_agrees_on_longer_mates() {
    // King and rook against king: mates in six and seven (some cooked), big enough for the
    // deeper iterations to be shared between threads.
    for (fen, mate) in [
        ("7k/8/8/8/4K3/8/8/R7 w - - 0 1", 6),
        ("7k/8/8/8/8/4K3/8/R7 w - - 0 1", 6),
        ("8/6k1/8/4K3/8/8/8/R7 w - - 0 1", 7),
    ] {
        let p = pos(fen);
        let one = solve(&p, 8);
        assert_eq!(one.mate, Some(mate), "{fen}");
        verify_solution(&p, &one);
        assert_eq!(solve(&p, mate - 1).mate, None, "{fen}");
        let two = Solver::new(p)
            .mate_in(8)
            .threads(2)
            .find_all_keys(true)
            .solve()
            .unwrap();
        assert_eq!(two.mate, Some(mate));
        assert_eq!(uci_set(&p, &two.keys), uci_set(&p, &one.keys), "{fen}");
        verify_solution(&p, &two);
        let first = Solver::new(p).mate_in(8).threads(2).solve().unwrap();
        assert_eq!(first.mate, Some(mate));
        assert!(!first.keys.is_empty());
        assert!(first.keys.iter().all(|k| one.keys.contains(k)), "{fen}");
    }
}

#[test]
fn first_key_only_leaves_uniqueness_undecided() {
    let pz = &puzzles()[30];
    let p = pos(&pz.fen);
    let s = Solver::new(p).mate_in(pz.mate).solve().unwrap();
    assert_eq!(s.mate, Some(pz.mate));
    assert_eq!(p.uci(s.keys[0]), pz.keys[0]);
    assert!(!s.all_keys && !s.unique);
    verify_solution(&p, &Solution { unique: true, ..s });
}

// ----- Positions built here -----

/// White Kc7, Qb1 against Ka8: Qa1, Qa2, Qb7 and Qb8 all mate at once.
const QUEEN_COOK: &str = "k7/2K5/8/8/8/8/8/1Q6 w - - 0 1";
/// Kf6, Ra1 against Kh8: no mate in one (Ra8+ Kh7), several keys for mate in two.
const ROOK_COOK: &str = "7k/8/5K2/8/8/8/8/R7 w - - 0 1";

#[test]
fn several_mates_in_one_are_a_cook() {
    let p = pos(QUEEN_COOK);
    let s = solve(&p, 1);
    let (mate, keys) = brute_solve(&p, 1);
    assert_eq!(mate, Some(1));
    assert_eq!(
        keys,
        ["b1a1", "b1a2", "b1b7", "b1b8"].map(String::from).into()
    );
    assert_eq!(s.mate, Some(1));
    assert_eq!(uci_set(&p, &s.keys), keys);
    assert!(!s.unique);
    verify_solution(&p, &s);
}

#[test]
fn a_mate_in_two_with_several_keys_is_a_cook() {
    let p = pos(ROOK_COOK);
    let (mate, keys) = brute_solve(&p, 2);
    assert_eq!(mate, Some(2));
    assert!(keys.len() >= 2, "{keys:?}");
    // Kf7 (Kh7 Rh1#) and Kg6 (Kg8 Ra8#) are among them.
    assert!(keys.contains("f6f7") && keys.contains("f6g6"), "{keys:?}");
    let s = solve(&p, 2);
    assert_eq!(s.mate, Some(2));
    assert_eq!(uci_set(&p, &s.keys), keys);
    assert!(!s.unique);
    verify_solution(&p, &s);
    // Asked for mate in three, the shortest length and its keys are the same.
    let s3 = solve(&p, 3);
    assert_eq!((s3.mate, uci_set(&p, &s3.keys)), (Some(2), keys));
}

#[test]
fn brute_force_agrees_on_small_built_positions() {
    let fens = [
        QUEEN_COOK,
        ROOK_COOK,
        // Stalemate traps: Qc7 stalemates.
        "k7/8/8/1K6/8/8/8/2Q5 w - - 0 1",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        // Back rank with two rooks (Ra8# and Re8#).
        "6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 1",
        // Promotion mates, Black to move.
        "8/8/8/8/8/1k6/p7/2K5 b - - 0 1",
        "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1",
        // A knight and a bishop.
        "7k/8/5K2/8/5N2/8/8/6B1 w - - 0 1",
        // King and pawn: no mate at all.
        "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    ];
    for fen in fens {
        let p = pos(fen);
        for n in 1..=2 {
            let (mate, keys) = brute_solve(&p, n);
            let s = solve(&p, n);
            assert_eq!(s.mate, mate, "{fen} n={n}");
            assert_eq!(uci_set(&p, &s.keys), keys, "{fen} n={n}");
            verify_solution(&p, &s);
        }
    }
}

#[test]
fn stalemating_moves_are_not_mates() {
    // White Kb5, Qc1 against Ka8: Qc7 stalemates; there is no mate in one.
    let p = pos("k7/8/8/1K6/8/8/8/2Q5 w - - 0 1");
    let stalemate = p.parse_uci("c1c7").unwrap();
    assert!(p.after(stalemate).is_stalemate());
    assert_eq!(solve(&p, 1).mate, None);
    let s = solve(&p, 3);
    assert!(!s.keys.contains(&stalemate));
    verify_solution(&p, &s);
    // Kb6 vs Ka8 with the queen on c1: Qc8 mates, Qc7 (stalemate) is not a key.
    let p = pos("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1");
    let s = solve(&p, 1);
    assert_eq!(uci_set(&p, &s.keys), ["c1c8".to_string()].into());
    assert!(s.unique);
}

#[test]
fn black_attacker_with_a_stalemating_move() {
    // Black (Kc2, pawn b3) to move against Ka1: ...Kc1 stalemates White, which is no mate.
    let p = pos("8/8/8/8/8/1p6/2k5/K7 b - - 0 1");
    let stalemate = p.parse_uci("c2c1").unwrap();
    assert!(p.after(stalemate).is_stalemate());
    for n in 1..=3 {
        let (mate, keys) = brute_solve(&p, n);
        let s = solve(&p, n);
        assert_eq!(s.mate, mate, "n={n}");
        assert_eq!(uci_set(&p, &s.keys), keys, "n={n}");
        assert!(!s.keys.contains(&stalemate));
        verify_solution(&p, &s);
    }
    assert!(solve(&p, 3).mate.is_some());
}

#[test]
fn no_mate_in_a_dead_draw() {
    for fen in [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",
    ] {
        let s = solve(&pos(fen), 4);
        assert_eq!(s.mate, None, "{fen}");
        assert!(s.keys.is_empty() && s.trees.is_empty() && s.main_line.is_empty());
    }
}

#[test]
fn a_mate_in_one_asked_as_mate_in_three_reports_mate_in_one() {
    let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let s = solve(&p, 3);
    assert_eq!(s.mate, Some(1));
    assert_eq!(s.main_line, ["Ra8#"]);
    assert!(s.unique);
    verify_solution(&p, &s);
}

#[test]
fn checkmated_or_stalemated_side_to_move_has_no_mate() {
    for fen in [
        "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
        "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
    ] {
        let s = solve(&pos(fen), 2);
        assert_eq!(s.mate, None, "{fen}");
    }
}

#[test]
fn keys_within_n_lists_slower_mates_too() {
    for (fen, n) in [(QUEEN_COOK, 2), (ROOK_COOK, 3)] {
        let p = pos(fen);
        let s = Solver::new(p)
            .mate_in(n)
            .find_all_keys(true)
            .keys_within(true)
            .solve()
            .unwrap();
        let (mate, keys) = brute_solve(&p, n);
        assert!(mate < Some(n));
        assert_eq!((s.mate, uci_set(&p, &s.keys)), (mate, keys.clone()));
        let within: HashSet<String> = p
            .legal_moves()
            .iter()
            .filter(|&&m| brute_mated(&p.after(m), n - 1))
            .map(|&m| p.uci(m))
            .collect();
        assert!(within.len() > keys.len(), "{within:?}");
        assert_eq!(uci_set(&p, s.keys_within.as_ref().unwrap()), within);
        verify_solution(&p, &s);
        assert_eq!(solve(&p, n).keys_within, None);
    }
}

// ----- Limits and errors -----

/// A mate in three with many pieces, for the limit tests.
fn busy() -> Position {
    pos(&puzzles()[27].fen)
}

#[test]
fn a_set_cancel_flag_stops_the_search() {
    let flag = AtomicBool::new(true);
    let err = Solver::new(busy())
        .mate_in(3)
        .cancel(&flag)
        .solve()
        .unwrap_err();
    assert!(matches!(
        err,
        SolveError::Stopped {
            reason: StopReason::Cancelled,
            ..
        }
    ));
}

/// A counter given with `progress` hears the nodes as the search goes: all but the last
/// unreported batch of each searcher, never more than the search visited.
#[test]
fn a_watched_search_counts_its_nodes_as_it_goes() {
    for find in [false, true] {
        let seen = AtomicU64::new(0);
        // A quiet middlegame: ruling every mate in 4 out is a search of some size.
        let quiet = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8");
        let solver = Solver::new(quiet).mate_in(4).progress(&seen);
        let s = if find { solver.find() } else { solver.solve() }.unwrap();
        let seen = seen.load(Ordering::Relaxed);
        assert_eq!(s.mate, None);
        assert!(
            s.nodes > 10_000,
            "a search this small says little: {}",
            s.nodes
        );
        assert!(seen <= s.nodes, "{seen} > {}", s.nodes);
        assert!(s.nodes - seen < 4 * 1024, "{seen} of {}", s.nodes);
    }
}

#[test]
fn a_past_deadline_stops_the_search() {
    let err = Solver::new(busy())
        .mate_in(3)
        .deadline(Instant::now() - Duration::from_millis(1))
        .solve()
        .unwrap_err();
    assert!(matches!(
        err,
        SolveError::Stopped {
            reason: StopReason::TimeLimit,
            ..
        }
    ));
}

#[test]
fn the_node_budget_stops_the_search_and_says_what_was_ruled_out() {
    // An eight-move question on a mate in three: the budget runs out in the deep iterations
    // only if the shortest mate were not found first, so ask on a position without mate.
    let p = pos("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let err = Solver::new(p)
        .mate_in(8)
        .node_limit(5_000)
        .solve()
        .unwrap_err();
    match err {
        SolveError::Stopped {
            reason: StopReason::NodeLimit,
            no_mate_within,
            nodes,
            ..
        } => {
            assert!(no_mate_within < 8);
            assert!((5_000..20_000).contains(&nodes), "{nodes}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn mate_lengths_outside_the_range_are_errors() {
    for n in [0, 33] {
        let err = Solver::new(busy()).mate_in(n).solve().unwrap_err();
        assert_eq!(err, SolveError::InvalidMateLength(n));
        assert!(err.to_string().contains(&n.to_string()));
    }
}

#[test]
fn a_position_with_the_opponent_in_check_is_an_error() {
    // FEN parsing refuses such positions; a null move in check makes one: White to move while
    // Black is in check from the rook.
    let mut p = pos("k7/8/8/8/8/8/8/R3K3 b - - 0 1");
    p.play_null();
    let err = Solver::new(p).mate_in(2).solve().unwrap_err();
    assert_eq!(err, SolveError::OpponentInCheck);
}

#[test]
fn a_small_tree_limit_cuts_the_tree_but_not_the_answer() {
    // The sample puzzle with the biggest solution tree, solved with half that tree allowed.
    let (p, size) = puzzles()
        .iter()
        .filter(|pz| pz.mate == 3)
        .map(|pz| {
            let p = pos(&pz.fen);
            (p, solve(&p, 3).trees[0].attacker_moves())
        })
        .max_by_key(|&(_, size)| size)
        .unwrap();
    assert!(size > 4, "{size}");
    let s = Solver::new(p)
        .mate_in(3)
        .find_all_keys(true)
        .tree_limit(size / 2)
        .solve()
        .unwrap();
    assert_eq!(s.mate, Some(3));
    assert!(s.unique);
    assert!(!s.tree_complete);
    assert!(s.trees[0].attacker_moves() <= size / 2 + 1);
    fn has_cut(t: &MateTree) -> bool {
        t.truncated || t.defences.iter().any(|d| has_cut(&d.reply))
    }
    assert!(has_cut(&s.trees[0]));
}

// ----- Game positions (mates found by Stockfish in engine games) -----

const GAME_MATES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/mates_2_8.csv"
);

/// The rows of `mates_2_8.csv` up to `max_mate`: (id, FEN, Stockfish's mate length, its line).
fn game_mates(max_mate: u32) -> Vec<(String, String, u32, Vec<String>)> {
    let text = std::fs::read_to_string(GAME_MATES).expect("the game mates are readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap();
    let (id, fen, mate, pv) = (col("id"), col("fen"), col("mate"), col("stockfish_pv"));
    let rows: Vec<_> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[id].to_string(),
                f[fen].to_string(),
                f[mate].parse::<u32>().unwrap(),
                f[pv].split_whitespace().map(str::to_string).collect(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 280, "20 per set and length 2 to 8");
    rows.into_iter().filter(|r| r.2 <= max_mate).collect()
}

#[test]
fn game_mates_up_to_four_are_proven_no_longer_than_stockfish_found() {
    let rows = game_mates(4);
    assert_eq!(rows.len(), 120);
    let mut shorter = 0;
    for (id, fen, mate, pv) in rows {
        let p = pos(&fen);
        // Stockfish's line is legal and mates in `mate` moves.
        let mut q = p;
        for uci in &pv {
            let mv = q
                .parse_uci(uci)
                .unwrap_or_else(|e| panic!("{id}: {uci}: {e}"));
            q.play(mv).unwrap();
        }
        assert_eq!(pv.len() as u32, 2 * mate - 1, "{id}: Stockfish's line");
        assert!(
            q.is_checkmate(),
            "{id}: Stockfish's line ends in {}",
            q.fen()
        );
        // chessd proves the shortest mate: never longer than that line, and every key's
        // tree replays to mate.
        let s = solve(&p, mate);
        let m = s
            .mate
            .unwrap_or_else(|| panic!("{id}: no mate in {mate} found"));
        assert!(m <= mate, "{id}");
        if m < mate {
            shorter += 1;
        }
        // The trees replay to mate in m (so a shorter mate than Stockfish's is real).
        verify_solution(&p, &s);
    }
    // Stockfish's depth-limited analysis sometimes misses the shortest mate.
    println!("{shorter} of the game mates up to 4 have a shorter mate than Stockfish's");
}
