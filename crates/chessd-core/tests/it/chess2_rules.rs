//! Chess 2 rules: perft against the Go engine's counts (`tests/data/chess2/chess2_perft.epd`,
//! all 12 rows, depths 1 to 3), and each army's movement in positions checked by hand
//! against the rulebook.

use std::collections::BTreeSet;

use chessd_core::{
    chess2::{perft, Chess2Outcome, Chess2Position},
    Color,
};

const PERFT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/chess2/chess2_perft.epd"
);

#[test]
fn every_row_matches_the_go_engine_to_depth_three() {
    let text = std::fs::read_to_string(PERFT).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (epd, counts) = line.split_once(';').unwrap();
        let pos = Chess2Position::from_epd(epd.trim()).unwrap();
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
    // Every army from the start against Classic, and each army against itself from the
    // castling position. (Where chessd follows the rulebook over the Go engine, a Whirlwind
    // outside the king turn, none that destroys nothing, an Elephant's rampage through its own
    // king, a Ghost's "threat", no difference shows within three plies of these positions.)
    assert_eq!(checked, 12);
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

#[test]
fn the_reaper_goes_anywhere_but_the_enemy_back_rank_and_never_takes_a_king() {
    // 53 empty squares on ranks 1 to 7, and the knight on b6; not the knight on b8.
    let epd = "1n2k3/8/1n6/8/8/8/8/3QK3 w - - 0 1 rc 33";
    let reaper = moves_from(epd, "d1");
    assert_eq!(reaper.len(), 54);
    assert!(reaper.contains("d1b6") && !reaper.contains("d1b8"));
    assert!(reaper.iter().all(|m| !m.ends_with('8')));
    // Next to the enemy king it gives no check.
    let pos = Chess2Position::from_epd("8/8/8/4k3/3Q4/8/8/4K3 b - - 0 1 rc 33").unwrap();
    assert!(!pos.is_threatened(chessd_core::Color::Black));
}

#[test]
fn ghosts_go_to_any_empty_square_and_are_never_taken() {
    let epd = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 rc 33";
    assert_eq!(moves_from(epd, "a1").len(), 61);
    // A black rook next to the Ghost cannot take it, and the Ghost takes nothing.
    let epd = "4k3/8/8/8/8/8/r7/R3K3 b - - 0 1 rc 33";
    assert!(!moves_from(epd, "a2").contains("a2a1"));
    let epd = "4k3/8/8/8/8/8/r7/R3K3 w - - 0 1 rc 33";
    assert!(!moves_from(epd, "a1").contains("a1a2"));
}

#[test]
fn two_kings_take_a_king_turn_after_each_move() {
    let start = Chess2Position::start(
        chessd_core::chess2::Army::TwoKings,
        chessd_core::chess2::Army::Classic,
    );
    let pos = start.after("e2e4".parse().unwrap());
    assert!(pos.is_king_turn());
    assert_eq!(
        pos.to_epd(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBKKBNR K KQkq e3 0 1 kc 33"
    );
    let king_turn: BTreeSet<String> = pos.legal_moves().iter().map(ToString::to_string).collect();
    assert_eq!(king_turn, set(&["0000", "d1e2", "e1e2"]));
    let pos = pos.after("0000".parse().unwrap());
    assert!(!pos.is_king_turn());
    assert_eq!(pos.turn(), chessd_core::Color::Black);
    // The en-passant square lasts through the king turn.
    assert_eq!(pos.ep_square(), Some("e3".parse().unwrap()));
}

#[test]
fn the_whirlwind_destroys_every_neighbour_but_ghosts() {
    // Kings on d2 and g1; a black knight, pawn and rook and a white knight next to d2.
    let epd = "4k3/8/8/8/8/2npr3/3K4/2N3K1 w - - 0 1 kc 33";
    let pos = Chess2Position::from_epd(epd).unwrap();
    let whirlwind = "d2d2".parse().unwrap();
    // On a normal turn too (the rulebook; the Go engine allows it only in the king turn).
    assert!(pos.legal_moves().contains(&whirlwind));
    let after = pos.after(whirlwind);
    for sq in ["c3", "d3", "e3", "c1"] {
        assert_eq!(after.piece_at(sq.parse().unwrap()), None, "{sq}");
    }
    assert_eq!(after.stones(), [4, 3], "a pawn destroyed earns a stone");
    assert!(after.is_king_turn());
    // Not while the other warrior king is next to it.
    let epd = "4k3/8/8/8/8/2npr3/3K4/2N1K3 w - - 0 1 kc 33";
    assert!(!moves_from(epd, "d2").contains("d2d2"));
    // A Ghost survives it (the pawn on e2 is destroyed).
    let pos = Chess2Position::from_epd("4k3/8/8/8/8/8/2rKp3/6K1 w - - 0 1 kr 33").unwrap();
    assert!(pos.legal_moves().contains(&whirlwind));
    let after = pos.after(whirlwind);
    assert!(after.piece_at("c2".parse().unwrap()).is_some());
    assert_eq!(after.piece_at("e2".parse().unwrap()), None);
}

#[test]
fn a_whirlwind_must_destroy_a_piece() {
    // The rulebook's Whirlwind is an attack that destroys the king's neighbours. With none to
    // destroy the king stays and nothing changes: a pass, which the rules allow only as the
    // skipped king turn. So it is not a move, on either turn.
    let alone = "4k3/8/8/8/8/8/3K4/6K1 w - - 0 1 kc 33";
    assert!(!moves_from(alone, "d2").contains("d2d2"));
    assert!(!moves_from(alone, "g1").contains("g1g1"));
    let king_turn = "4k3/8/8/8/8/8/3K4/6K1 K - - 0 1 kc 33";
    let moves = moves_from(king_turn, "");
    assert!(moves.contains("0000"), "{moves:?}");
    assert!(
        !moves.contains("d2d2") && !moves.contains("g1g1"),
        "{moves:?}"
    );
    // A Ghost beside it is not destroyed, so it does not count.
    assert!(!moves_from("4k3/8/8/8/8/8/2rK4/6K1 w - - 0 1 kr 33", "d2").contains("d2d2"));
    // One piece beside it, of either side, is enough.
    for epd in [
        "4k3/8/8/8/8/8/3KP3/6K1 w - - 0 1 kc 33",
        "4k3/8/8/8/8/4p3/3K4/6K1 w - - 0 1 kc 33",
    ] {
        assert!(moves_from(epd, "d2").contains("d2d2"), "{epd}");
    }
}

#[test]
fn two_kings_with_only_empty_whirlwinds_have_no_move_and_lose() {
    // Kings on a1 and h1, every square next to them covered (the rook on d2 holds the second
    // rank, the knights b1 and g1), nothing next to them: no move, so no stalemate either.
    let pos = Chess2Position::from_epd("4k3/8/8/8/8/2n2n2/3r4/K6K w - - 0 1 kc 33").unwrap();
    assert_eq!(pos.legal_moves(), Vec::new());
    assert_eq!(pos.outcome(), Some(Chess2Outcome::NoMoves(Color::Black)));
}

#[test]
fn animals_move_by_their_own_rules() {
    // The Wild Horse takes its own pawn, never its own king.
    let epd = "4k3/8/8/8/8/2P5/3K4/1N6 w - - 0 1 ac 33";
    assert_eq!(moves_from(epd, "b1"), set(&["b1a3", "b1c3"]));
    // The Tiger: two squares diagonally; it takes and stays where it was.
    let epd = "4k3/8/8/8/3p4/8/1B6/4K3 w - - 0 1 ac 33";
    assert_eq!(
        moves_from(epd, "b2"),
        set(&["b2a1", "b2a3", "b2c1", "b2c3", "b2d4"])
    );
    let pos = Chess2Position::from_epd(epd).unwrap();
    let after = pos.after("b2d4".parse().unwrap());
    assert!(after.piece_at("b2".parse().unwrap()).is_some());
    assert_eq!(after.piece_at("d4".parse().unwrap()), None);
    // The Elephant: once it meets a piece it rampages on to its third square.
    let epd = "4k3/8/8/8/8/8/8/R1n1K3 w - - 0 1 ac 33";
    assert_eq!(
        moves_from(epd, "a1"),
        set(&["a1a2", "a1a3", "a1a4", "a1b1", "a1d1"])
    );
    let after = Chess2Position::from_epd(epd)
        .unwrap()
        .after("a1d1".parse().unwrap());
    assert_eq!(after.piece_at("c1".parse().unwrap()), None);
    // ... but never over its own king.
    let epd = "4k3/8/8/8/8/8/8/R1nK4 w - - 0 1 ac 33";
    assert_eq!(
        moves_from(epd, "a1"),
        set(&["a1a2", "a1a3", "a1a4", "a1b1"])
    );
    // Only pieces within two squares take an Elephant.
    let far = "r3k3/8/8/8/8/8/8/Q3K3 w - - 0 1 ca 33";
    assert!(!moves_from(far, "a1").contains("a1a8"));
    let near = "4k3/8/8/8/8/r7/8/Q3K3 w - - 0 1 ca 33";
    assert!(moves_from(near, "a1").contains("a1a3"));
    // The Jungle Queen: a rook's and a knight's moves, no bishop's.
    let epd = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1 ac 33";
    let queen = moves_from(epd, "a1");
    assert_eq!(queen.len(), 12);
    assert!(queen.contains("a1b3") && !queen.contains("a1b2"));
}

#[test]
fn where_chessd_follows_the_rulebook_over_the_go_engine() {
    use chessd_core::Color;
    // An Elephant cannot rampage over its own king, so it does not threaten the king
    // beyond it (the Go engine's known bug counts this as check).
    let pos = Chess2Position::from_epd("8/8/k7/8/K7/R7/8/8 b - - 0 1 ac 33").unwrap();
    assert!(!pos.is_threatened(Color::Black));
    assert!(moves_from(&pos.to_epd(), "a6").contains("a6a7"));
    // A Ghost captures nothing, so it threatens no square a castling king crosses (the Go
    // engine forbids castling while the enemy has a Ghost on the board).
    let epd = "r3k3/8/8/8/8/8/8/4K2R w K - 0 1 cr 33";
    assert!(moves_from(epd, "e1").contains("e1g1"));
    // A Whirlwind on a normal turn: see the_whirlwind_destroys_every_neighbour_but_ghosts.
    // Every pawn move restarts the halfmove clock, a Nemesis pawn's step too.
    let pos = Chess2Position::from_epd("4k3/8/8/8/8/8/2P5/4K3 w - - 10 9 nc 33").unwrap();
    assert_eq!(pos.after("c2d2".parse().unwrap()).halfmove_clock(), 0);
}
