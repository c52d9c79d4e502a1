//! Chess 2 rules: perft against the Go engine's counts (`tests/data/chess2/chess2_perft.epd`)
//! for the positions whose armies chessd generates moves for so far (Classic, Nemesis,
//! Empowered), and each army's movement in positions checked by hand against the rulebook.
//! The rows of the other armies are checked by the next steps of `docs/chess2.md`.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::BTreeSet;

use chessd_core::chess2::{perft, Chess2Position};

const PERFT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/chess2/chess2_perft.epd"
);

#[test]
fn classic_nemesis_and_empowered_rows_match_the_go_engine() {
    let text = std::fs::read_to_string(PERFT).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (epd, counts) = line.split_once(';').unwrap();
        let pos = Chess2Position::from_epd(epd.trim()).unwrap();
        if !pos.is_supported() {
            continue;
        }
        let expected: Vec<u64> = counts
            .trim()
            .split('/')
            .map(|n| n.parse().unwrap())
            .collect();
        for (depth, &count) in (1..).zip(&expected) {
            assert_eq!(perft(&pos, depth), count, "{} depth {depth}", epd.trim());
        }
        checked += 1;
    }
    // cc, nc, ec from the start; cc, nn, ee from the castling position.
    assert_eq!(checked, 6);
}

/// The legal moves of `epd` from `from` (all of them when `from` is empty), as strings.
fn moves_from(epd: &str, from: &str) -> BTreeSet<String> {
    let pos = Chess2Position::from_epd(epd).unwrap();
    pos.legal_moves()
        .iter()
        .map(ToString::to_string)
        .filter(|m| m.starts_with(from))
        .collect()
}

fn set(moves: &[&str]) -> BTreeSet<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

#[test]
fn the_nemesis_takes_and_is_taken_only_by_kings() {
    // Black's Nemesis on d4, White's rook on d2: neither takes the other.
    let epd = "4k3/8/8/8/3q4/8/3R4/4K3 w - - 0 1 cn 33";
    assert_eq!(moves_from(epd, "d2d"), set(&["d2d1", "d2d3"]));
    let epd = "4k3/8/8/8/3q4/8/3R4/4K3 b - - 0 1 cn 33";
    assert!(!moves_from(epd, "d4").contains("d4d2"));
    assert!(moves_from(epd, "d4").contains("d4d3"));
    // Next to the king it gives check; the king may take it or step out of its lines.
    let epd = "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1 cn 33";
    let pos = Chess2Position::from_epd(epd).unwrap();
    assert!(pos.is_threatened(chessd_core::Color::White));
    assert_eq!(moves_from(epd, ""), set(&["e1d2", "e1f1"]));
}

#[test]
fn nemesis_pawns_step_toward_the_enemy_king_and_never_double_step() {
    // Black's king up and to the right of the pawn: forward, right, and forward-right.
    let epd = "4k3/8/8/8/8/8/2P5/4K3 w - - 0 1 nc 33";
    assert_eq!(moves_from(epd, "c2"), set(&["c2c3", "c2d2", "c2d3"]));
    // With the king behind it, a pawn may step back toward it; it still takes only forward
    // (Black's pawn on c3 takes d2, not b4; White's king on e4 is up and to the right).
    let epd = "4k3/8/8/8/1P2K3/2p5/3P4/8 b - - 0 1 cn 33";
    assert_eq!(
        moves_from(epd, "c3"),
        set(&["c3c2", "c3c4", "c3d2", "c3d3", "c3d4"])
    );
    // A Classic pawn has neither power.
    let epd = "4k3/8/8/8/8/8/2P5/4K3 w - - 0 1 cc 33";
    assert_eq!(moves_from(epd, "c2"), set(&["c2c3", "c2c4"]));
}

#[test]
fn empowered_pieces_share_moves_with_orthogonal_neighbours_only() {
    // Rook a1 and knight b1 side by side: the rook also jumps, the knight also slides.
    let epd = "4k3/8/8/8/8/8/8/RN2K3 w - - 0 1 ec 33";
    let rook: BTreeSet<String> = ["a2", "a3", "a4", "a5", "a6", "a7", "a8", "b3", "c2"]
        .iter()
        .map(|to| format!("a1{to}"))
        .collect();
    assert_eq!(moves_from(epd, "a1"), rook);
    let knight: BTreeSet<String> = [
        "a3", "c3", "d2", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "c1", "d1",
    ]
    .iter()
    .map(|to| format!("b1{to}"))
    .collect();
    assert_eq!(moves_from(epd, "b1"), knight);
    // A bishop only diagonally next to the rook lends it nothing.
    let epd = "4k3/8/8/8/8/8/1B6/R3K3 w - - 0 1 ec 33";
    assert!(moves_from(epd, "a1")
        .iter()
        .all(|m| m.as_bytes()[2] == b'a' || m.as_bytes()[3] == b'1'));
    // The Empowered queen moves only as a king.
    let epd = "4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1 ec 33";
    assert_eq!(moves_from(epd, "d4").len(), 8);
}

#[test]
fn only_the_classic_army_castles() {
    let classic = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 cc 33";
    assert!(moves_from(classic, "e1").contains("e1g1"));
    assert!(moves_from(classic, "e1").contains("e1c1"));
    for army in ['n', 'e'] {
        let epd = format!("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 {army}c 33");
        let king = moves_from(&epd, "e1");
        assert!(!king.contains("e1g1") && !king.contains("e1c1"), "{army}");
    }
}

#[test]
fn a_king_across_the_midline_ends_the_game() {
    // White's king steps onto the fifth rank: no move is left for Black.
    let pos = Chess2Position::from_epd("4k3/8/8/8/3K4/8/8/8 w - - 0 1 cc 33").unwrap();
    let mv = "d4d5".parse().unwrap();
    let next = pos.after(mv);
    assert_eq!(next.midline_winner(), Some(chessd_core::Color::White));
    assert!(next.legal_moves().is_empty());
    // Black's goes the other way: the fourth rank.
    let pos = Chess2Position::from_epd("8/8/8/3k4/8/8/8/4K3 b - - 0 1 cc 33").unwrap();
    assert_eq!(
        pos.after("d5d4".parse().unwrap()).midline_winner(),
        Some(chessd_core::Color::Black)
    );
}

#[test]
fn taking_an_enemy_pawn_earns_a_stone_up_to_six() {
    let pos = Chess2Position::from_epd("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 56").unwrap();
    let next = pos.after("e4d5".parse().unwrap());
    assert_eq!(next.stones(), [6, 6]);
    let pos = Chess2Position::from_epd("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 16").unwrap();
    assert_eq!(pos.after("e4d5".parse().unwrap()).stones(), [2, 6]);
}
