//! The find mode (df-pn, `Solver::find`): every answer's proof tree replayed against shakmaty
//! (an independent move generator), on the shared Lichess sample, the game mates of
//! `tests/data/puzzles/` (`mates_2_8.csv`, and the deeper `mates_9_20.csv` within a node
//! budget) and the 280 matetrack positions of `matetrack_find.csv` (mates in 4 to 20, within a
//! node budget); positions without a mate within N report none.

use std::collections::BTreeSet;

use crate::common;
use chessd_core::{
    solver::{MateTree, Solution, SolveError, Solver, StopReason},
    FenMode, Position,
};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, Position as _};

const GAMES_2_8: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/mates_2_8.csv"
);

const MATETRACK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/matetrack_find.csv"
);

/// (id, fen, mate) of every row of a game-mates CSV (`mate_column`: the mate length's column).
fn game_mates(path: &str, mate_column: &str) -> Vec<(String, String, u32)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap();
    let (id, fen, mate) = (col("id"), col("fen"), col(mate_column));
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[id].to_string(),
                f[fen].to_string(),
                f[mate].parse().unwrap(),
            )
        })
        .collect()
}

fn shakmaty(fen: &str) -> Chess {
    let fen: Fen = fen.parse().unwrap();
    fen.into_position(CastlingMode::Standard).unwrap()
}

/// Replays `tree` with shakmaty from `theirs` (ours: the same position in chessd, to name
/// moves): the move is legal, the defences are exactly shakmaty's legal moves, every leaf is
/// checkmate, nothing is cut, and the mate takes `mate_in <= budget` moves. Returns the length.
fn replay(ours: &Position, theirs: &Chess, tree: &MateTree, budget: u32) -> u32 {
    assert!(budget >= 1, "longer than allowed at {}", ours.fen());
    assert!(!tree.truncated, "cut at {}", ours.fen());
    let uci = ours.uci(tree.mv);
    let mv = uci
        .parse::<UciMove>()
        .unwrap()
        .to_move(theirs)
        .unwrap_or_else(|e| panic!("{uci} illegal in {} for shakmaty: {e}", ours.fen()));
    let child = theirs.clone().play(mv).unwrap();
    let ours_child = ours.after(tree.mv);
    let legal: BTreeSet<String> = child
        .legal_moves()
        .iter()
        .map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string())
        .collect();
    if legal.is_empty() {
        assert!(
            child.is_checkmate(),
            "leaf {} is not mate",
            ours_child.fen()
        );
        assert!(tree.defences.is_empty());
        assert_eq!(tree.mate_in, 1);
        return 1;
    }
    let defences: BTreeSet<String> = tree.defences.iter().map(|d| ours_child.uci(d.mv)).collect();
    assert_eq!(defences.len(), tree.defences.len(), "repeated defence");
    assert_eq!(defences, legal, "defences after {}", ours_child.fen());
    let longest = tree
        .defences
        .iter()
        .map(|d| {
            let uci = ours_child.uci(d.mv);
            let dm = uci.parse::<UciMove>().unwrap().to_move(&child).unwrap();
            replay(
                &ours_child.after(d.mv),
                &child.clone().play(dm).unwrap(),
                &d.reply,
                budget - 1,
            )
        })
        .max()
        .unwrap();
    assert_eq!(tree.mate_in, 1 + longest);
    1 + longest
}

/// Checks a find answer for `fen` with N = `n`: a complete tree replaying to mate within
/// `n`, the key and main line consistent with it.
fn check_found(fen: &str, n: u32, s: &Solution) -> u32 {
    let mate = s.mate.unwrap_or_else(|| panic!("no mate found in {fen}"));
    assert!(mate <= n);
    assert!(s.tree_complete, "incomplete tree for {fen}");
    assert_eq!(s.trees.len(), 1);
    assert_eq!(s.keys, [s.trees[0].mv]);
    let ours = Position::from_fen(fen, FenMode::Strict).unwrap();
    assert_eq!(replay(&ours, &shakmaty(fen), &s.trees[0], n), mate, "{fen}");
    assert_eq!(s.main_line_moves.len() as u32, 2 * mate - 1);
    let mut q = ours;
    for mv in &s.main_line_moves {
        q.play(*mv).unwrap();
    }
    assert!(q.is_checkmate());
    mate
}

fn find(fen: &str, n: u32, nodes: u64) -> Result<Solution, SolveError> {
    let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
    Solver::new(pos)
        .mate_in(n)
        .table_mb(16)
        .node_limit(nodes)
        .find()
}

#[test]
fn finds_and_proves_every_sample_puzzle() {
    let puzzles = common::puzzles();
    assert_eq!(puzzles.len(), 50);
    for pz in puzzles {
        let s = find(&pz.fen, pz.mate, 5_000_000).unwrap();
        // The sample's mates are the shortest, so a find cannot be shorter.
        assert_eq!(check_found(&pz.fen, pz.mate, &s), pz.mate, "{}", pz.id);
        assert!(pz.keys.contains(
            &Position::from_fen(&pz.fen, FenMode::Strict)
                .unwrap()
                .uci(s.keys[0])
        ));
    }
}

#[test]
fn reports_no_mate_one_move_shorter_than_the_sample_shortest() {
    for pz in common::puzzles() {
        let s = find(&pz.fen, pz.mate - 1, 5_000_000).unwrap();
        assert_eq!(s.mate, None, "{} has no mate in {}", pz.id, pz.mate - 1);
        assert!(s.trees.is_empty() && s.keys.is_empty() && s.main_line.is_empty());
    }
}

#[test]
fn finds_and_proves_game_mates_in_2_to_8() {
    const BUDGET: u64 = 1_000_000;
    let rows = game_mates(GAMES_2_8, "mate");
    assert_eq!(rows.len(), 280);
    let mut unsolved = Vec::new();
    for (id, fen, mate) in &rows {
        match find(fen, *mate, BUDGET) {
            // The budget may run out while the tree is built, after the proof.
            Ok(s) if !s.tree_complete && s.nodes >= BUDGET => unsolved.push(id.clone()),
            Ok(s) => {
                check_found(fen, *mate, &s);
            }
            Err(SolveError::Stopped {
                reason: StopReason::NodeLimit,
                ..
            }) => unsolved.push(id.clone()),
            Err(e) => panic!("{id}: {e}"),
        }
    }
    // Stockfish found a mate in every one; the node budget (a few tenths of a second each,
    // to keep the test cheap) leaves some of the longer ones unsolved: 51 of 280 when written.
    assert!(
        unsolved.len() <= 60,
        "{} unsolved within the budget: {unsolved:?}",
        unsolved.len()
    );
}

#[test]
fn shortest_tightens_to_the_proven_shortest_mate() {
    for pz in common::puzzles().iter().take(10) {
        let pos = Position::from_fen(&pz.fen, FenMode::Strict).unwrap();
        let s = Solver::new(pos)
            .mate_in(pz.mate + 4)
            .shortest(true)
            .find()
            .unwrap();
        assert_eq!(check_found(&pz.fen, pz.mate + 4, &s), pz.mate, "{}", pz.id);
        assert!(s.shortest_proven, "{}", pz.id);
    }
}

#[test]
fn finds_and_proves_matetrack_mates_in_4_to_20() {
    const BUDGET: u64 = 1_000_000;
    let rows = game_mates(MATETRACK, "n");
    assert_eq!(rows.len(), 280);
    let mut solved = 0;
    for (id, fen, n) in &rows {
        match find(fen, *n, BUDGET) {
            Ok(s) if !s.tree_complete && s.nodes >= BUDGET => {}
            Ok(s) => {
                // matetrack's N is the fastest known mate: none shorter is expected, but a
                // shorter proven one would still be a mate within N, so only `<= n` is checked.
                check_found(fen, *n, &s);
                solved += 1;
            }
            Err(SolveError::Stopped {
                reason: StopReason::NodeLimit,
                ..
            }) => {}
            Err(e) => panic!("{id}: {e}"),
        }
    }
    // Every answer found was replayed above; the budget (a fraction of a second each) leaves
    // the harder ones unsolved: 196 of 280 were solved when written.
    assert!(solved >= 190, "{solved} of 280 solved within the budget");
}
