//! Helpmates and selfmates against Popeye: the problems of `tests/data/stipulations/`
//! (composed problems from Popeye's own example files and a few public pages, and Lichess game
//! positions, see its README), whose expected
//! answers are Popeye's output. Every helpmate solution chessd reports must be the same set as
//! Popeye's and replay, in shakmaty, as legal moves ending in checkmate of the side that began;
//! every selfmate must have Popeye's keys, and each key's tree must hold every legal defence
//! (checked by shakmaty's move generator) down to leaves where the defender mates.

use std::collections::BTreeSet;

use chessd_core::{
    solver::{SelfTree, SolveError, Solver, Stipulation},
    FenMode, Position,
};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, Position as _};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/stipulations/popeye_h_s.tsv"
);

/// One problem of the data file.
struct Problem {
    id: String,
    stipulation: Stipulation,
    fen: String,
    /// Helpmates: every solution as space-separated UCI moves; selfmates: every key.
    popeye: BTreeSet<String>,
}

fn problems() -> Vec<Problem> {
    crate::common::tsv_rows(DATA)
        .into_iter()
        .map(|f| {
            let stipulation: Stipulation = f[1].parse().unwrap();
            let sep = if matches!(stipulation, Stipulation::Help(_)) {
                ';'
            } else {
                ' '
            };
            Problem {
                id: f[0].to_string(),
                stipulation,
                fen: f[2].to_string(),
                popeye: f[3]
                    .split(sep)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            }
        })
        .collect()
}

fn theirs(fen: &str) -> Chess {
    let fen: Fen = fen.parse().unwrap();
    fen.into_position(CastlingMode::Standard).unwrap()
}

/// Plays `uci` in shakmaty's position, which must find it legal.
fn play(pos: &Chess, uci: &str, id: &str) -> Chess {
    let mv = uci
        .parse::<UciMove>()
        .unwrap()
        .to_move(pos)
        .unwrap_or_else(|e| panic!("{id}: shakmaty finds {uci} illegal: {e}"));
    pos.clone().play(mv).unwrap()
}

/// Asserts chessd's answer set equals Popeye's, naming a few of the differences.
fn same(ours: &BTreeSet<String>, popeye: &BTreeSet<String>, id: &str) {
    let only_ours: Vec<_> = ours.difference(popeye).take(5).collect();
    let only_popeye: Vec<_> = popeye.difference(ours).take(5).collect();
    assert!(
        only_ours.is_empty() && only_popeye.is_empty(),
        "{id}: {} answers from chessd, {} from Popeye; only chessd: {only_ours:?}; only Popeye: {only_popeye:?}",
        ours.len(),
        popeye.len()
    );
}

#[test]
fn the_data_holds_twenty_solved_helpmates_and_twenty_solved_selfmates() {
    let all = problems();
    let solved = |help: bool, min_n: u32| {
        all.iter()
            .filter(|p| !p.popeye.is_empty())
            .filter(|p| match p.stipulation {
                Stipulation::Help(n) => help && n >= min_n,
                Stipulation::SelfMate(n) => !help && n >= min_n,
                _ => false,
            })
            .count()
    };
    // With a solution (Popeye's), and some of them longer than two moves.
    let (help, selfm) = (solved(true, 1), solved(false, 1));
    assert!(
        help >= 20 && selfm >= 20,
        "{help} helpmates, {selfm} selfmates"
    );
    assert!(solved(true, 3) >= 10 && solved(false, 3) >= 4);
}

#[test]
fn helpmates_equal_popeyes_solutions_and_replay_to_mate() {
    let mut checked = 0;
    for p in problems() {
        let Stipulation::Help(n) = p.stipulation else {
            continue;
        };
        let pos = Position::from_fen(&p.fen, FenMode::Strict).unwrap();
        let help = Solver::new(pos).mate_in(n).helpmate().unwrap();
        let mut ours = BTreeSet::new();
        for line in &help.solutions {
            assert!(
                line.len() % 2 == 0 && line.len() <= 2 * n as usize,
                "{}",
                p.id
            );
            // Replay in shakmaty: every move legal, mate only at the end, of the side that began.
            let mut theirs_pos = theirs(&p.fen);
            let mut ours_pos = pos;
            let mut ucis = Vec::new();
            for (i, &mv) in line.iter().enumerate() {
                assert!(!theirs_pos.is_checkmate(), "{}: mate before move {i}", p.id);
                let uci = ours_pos.uci(mv);
                theirs_pos = play(&theirs_pos, &uci, &p.id);
                ours_pos.play_unchecked(mv);
                ucis.push(uci);
            }
            assert!(theirs_pos.is_checkmate(), "{}: {ucis:?} is not mate", p.id);
            assert_eq!(theirs_pos.turn(), theirs(&p.fen).turn(), "{}", p.id);
            assert!(ours.insert(ucis.join(" ")), "{}: reported twice", p.id);
        }
        same(&ours, &p.popeye, &p.id);
        assert_eq!(help.unique(), p.popeye.len() == 1, "{}", p.id);
        checked += 1;
    }
    assert!(checked >= 20);
}

/// Checks `tree` (its move played in `pos`, a forced selfmate within `n`) with shakmaty:
/// every legal defence present, each either mating the attacker (a leaf) or answered.
fn check_self_tree(ours: &Position, pos: &Chess, tree: &SelfTree, n: u32, id: &str) {
    assert!(!tree.truncated, "{id}: tree cut");
    assert!(n >= 1 && tree.mate_in <= n, "{id}: {} > {n}", tree.mate_in);
    let uci = ours.uci(tree.mv);
    let after = play(pos, &uci, id);
    let ours_after = ours.after(tree.mv);
    assert!(!after.is_game_over(), "{id}: {uci} ends the game");
    let legal: BTreeSet<String> = after
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect();
    let listed: BTreeSet<String> = tree.defences.iter().map(|d| ours_after.uci(d.mv)).collect();
    assert_eq!(listed, legal, "{id}: every defence after {uci}");
    for d in &tree.defences {
        let duci = ours_after.uci(d.mv);
        let grand = play(&after, &duci, id);
        assert_eq!(d.mates, grand.is_checkmate(), "{id}: {duci}");
        match &d.reply {
            None => assert!(d.mates, "{id}: {duci} unanswered"),
            Some(reply) => {
                assert!(n > 1, "{id}: no moves left after {duci}");
                check_self_tree(&ours_after.after(d.mv), &grand, reply, n - 1, id);
            }
        }
    }
}

#[test]
fn selfmates_have_popeyes_keys_and_complete_trees() {
    let mut checked = 0;
    for p in problems() {
        let Stipulation::SelfMate(n) = p.stipulation else {
            continue;
        };
        let pos = Position::from_fen(&p.fen, FenMode::Strict).unwrap();
        let solution = Solver::new(pos).mate_in(n).selfmate().unwrap();
        let keys: BTreeSet<String> = solution.keys.iter().map(|&k| pos.uci(k)).collect();
        same(&keys, &p.popeye, &p.id);
        assert!(solution.tree_complete, "{}", p.id);
        assert_eq!(solution.trees.len(), solution.keys.len());
        for tree in &solution.trees {
            check_self_tree(&pos, &theirs(&p.fen), tree, n, &p.id);
        }
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn a_shorter_helpmate_is_listed_first_and_limits_stop_the_search() {
    // 1...Kh8 2.Ra8# is an h#1; as in Popeye, an h#2 lists it first (a short solution).
    let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1", FenMode::Strict).unwrap();
    let h1 = Solver::new(pos).mate_in(1).helpmate().unwrap();
    assert_eq!(h1.solutions.len(), 1);
    let h2 = Solver::new(pos).mate_in(2).helpmate().unwrap();
    assert_eq!(h2.solutions[0], h1.solutions[0]);
    assert!(h2.solutions[1..].iter().all(|l| l.len() == 4));
    assert!(!h2.unique());
    // A node limit stops a big search with the stop reported, never a partial answer.
    let start = Position::startpos();
    let stopped = Solver::new(start).mate_in(4).node_limit(5_000).selfmate();
    assert!(
        matches!(stopped, Err(SolveError::Stopped { .. })),
        "{stopped:?}"
    );
    let stopped = Solver::new(start).mate_in(4).node_limit(5_000).helpmate();
    assert!(
        matches!(stopped, Err(SolveError::Stopped { .. })),
        "{stopped:?}"
    );
}
