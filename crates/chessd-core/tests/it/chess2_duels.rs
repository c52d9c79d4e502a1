//! Chess 2 duels, stones and outcomes, in positions checked by hand against the rulebook
//! (version 2.4) and `docs/chess2.md`.

use chessd_core::{
    chess2::{Chess2Outcome, Chess2Position, PlayError},
    Color, Square,
};

fn pos(epd: &str) -> Chess2Position {
    Chess2Position::from_epd(epd).unwrap()
}

fn play(epd: &str, mv: &str) -> Result<Chess2Position, PlayError> {
    pos(epd).play(mv.parse().unwrap())
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// A white pawn on e4 can take a black pawn on d5; the stones are the last field.
fn pawns(stones: &str) -> String {
    format!("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc {stones}")
}

#[test]
fn a_capture_without_a_duel_earns_the_pawn_stone() {
    for mv in ["e4d5", "e4d5:"] {
        let next = play(&pawns("33"), mv).unwrap();
        assert_eq!(next.stones(), [4, 3], "{mv}");
        assert!(next.piece_at(sq("d5")).is_some());
    }
}

#[test]
fn the_attacker_wins_ties_and_the_defender_wins_by_bidding_more() {
    // 1 against 1: the attacker wins; both pay; the pawn taken earns a stone.
    let next = play(&pawns("33"), "e4d5:11").unwrap();
    assert_eq!(next.stones(), [3, 2]);
    assert_eq!(next.piece_at(sq("d5")).unwrap().color, Color::White);
    // 2 against 1: the defender wins; the attacking pawn is destroyed too, and its loss
    // earns the defender a stone.
    let next = play(&pawns("33"), "e4d5:21").unwrap();
    assert_eq!(next.stones(), [3, 2]);
    assert_eq!(next.piece_at(sq("d5")), None);
    assert_eq!(next.piece_at(sq("e4")), None);
    assert_eq!(next.turn(), Color::Black);
}

#[test]
fn a_called_bluff_gains_a_stone_or_takes_one() {
    assert_eq!(play(&pawns("33"), "e4d5:00+").unwrap().stones(), [5, 3]);
    assert_eq!(play(&pawns("33"), "e4d5:00-").unwrap().stones(), [4, 2]);
    // Never above six.
    assert_eq!(play(&pawns("63"), "e4d5:00+").unwrap().stones(), [6, 3]);
}

#[test]
fn duelling_a_higher_piece_costs_the_defender_a_stone() {
    // The queen outranks the pawn it takes: the defender pays 1 more to duel.
    let epd = "4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1 cc 33";
    let next = play(epd, "d1d5:21").unwrap();
    assert_eq!(next.stones(), [3, 0]);
    assert_eq!(next.piece_at(sq("d5")), None, "the queen is destroyed");
    assert_eq!(next.piece_at(sq("d1")), None);
    let epd = "4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1 cc 32";
    assert_eq!(play(epd, "d1d5:20-"), Err(PlayError::NotEnoughStones));
    assert!(play(epd, "d1d5:10-").is_ok());
}

#[test]
fn stones_limit_who_may_duel_and_how() {
    // A defender without stones cannot start a duel.
    assert_eq!(
        play(&pawns("30"), "e4d5:00-"),
        Err(PlayError::NotEnoughStones)
    );
    // No one bids more than it has.
    assert_eq!(
        play(&pawns("13"), "e4d5:12"),
        Err(PlayError::NotEnoughStones)
    );
    // Against an attacker without stones the defender bids 1, and wins.
    assert_eq!(play(&pawns("03"), "e4d5:20-"), Err(PlayError::MustBidOne));
    let next = play(&pawns("03"), "e4d5:10-").unwrap();
    assert_eq!(next.stones(), [1, 3]);
    assert_eq!(next.piece_at(sq("d5")), None);
}

#[test]
fn kings_and_own_pieces_never_duel() {
    let epd = "4k3/3P4/8/8/8/8/8/4K3 b - - 0 1 cc 33";
    assert_eq!(play(epd, "e8d7:10-"), Err(PlayError::NotDuelable));
    assert!(play(epd, "e8d7").is_ok());
    // A Wild Horse taking its own pawn.
    let epd = "4k3/8/8/8/8/2P5/8/1N2K3 w - - 0 1 ac 33";
    assert_eq!(play(epd, "b1c3:10-"), Err(PlayError::NotDuelable));
    assert_eq!(play(epd, "b1c3").unwrap().stones(), [3, 3]);
}

#[test]
fn bad_duel_fields_and_illegal_moves_are_refused() {
    assert_eq!(play(&pawns("33"), "e4d5:1"), Err(PlayError::Unanswered));
    assert_eq!(play(&pawns("33"), "e4d5::"), Err(PlayError::TooManyDuels));
    assert_eq!(play(&pawns("33"), "e4e5:11"), Err(PlayError::TooManyDuels));
    assert_eq!(play(&pawns("33"), "e4f5"), Err(PlayError::Illegal));
    assert!(!PlayError::Illegal.to_string().is_empty());
}

#[test]
fn a_rampage_has_a_duel_per_piece_and_ends_where_the_elephant_loses() {
    // The Elephant on a1 rampages to d1 over knights on b1 and c1.
    let epd = "4k3/8/8/8/8/8/8/Rnn1K3 w - - 0 1 ac 33";
    // No duel for b1; the defender wins the one for c1 (the Elephant outranks the knight:
    // 1 + 2 stones).
    let next = play(epd, "a1d1::21").unwrap();
    assert_eq!(next.stones(), [2, 0]);
    for square in ["a1", "b1", "c1", "d1"] {
        assert_eq!(next.piece_at(sq(square)), None, "{square}");
    }
    // Lost at b1: the knight on c1 is not reached.
    let next = play(epd, "a1d1:21").unwrap();
    assert_eq!(next.piece_at(sq("b1")), None);
    assert!(next.piece_at(sq("c1")).is_some());
    assert_eq!(next.piece_at(sq("d1")), None);
    // Won both: the Elephant stands on d1.
    let next = play(epd, "a1d1:11:01").unwrap();
    assert_eq!(next.piece_at(sq("d1")).unwrap().color, Color::White);
    assert_eq!(next.stones(), [1, 0]);
}

#[test]
fn no_duel_follows_one_the_elephant_lost() {
    // A White Elephant on c6 rampages to c8 over a pawn (c7) and a bishop (c8). Black pays
    // 1 + 1 (the Elephant outranks the pawn) and outbids it at c7: the rampage stops there,
    // so the bishop is not reached and no duel over it can be fought.
    let epd = "rnb1kbn1/pppppppp/2R5/8/4P3/2K5/PPPr1PPP/5BNR w - - 11 9 ar 32";
    let next = play(epd, "c6c8:10+").unwrap();
    assert_eq!(next.piece_at(sq("c6")), None);
    assert_eq!(next.piece_at(sq("c7")), None);
    assert!(next.piece_at(sq("c8")).is_some());
    for mv in ["c6c8:10+:22", "c6c8:10+:00+", "c6c8:10-:01"] {
        assert_eq!(play(epd, mv), Err(PlayError::DuelAfterLoss), "{mv}");
    }
    // With stones to pay for both, the second duel is still refused.
    let rich = "4k3/8/8/8/8/8/8/Rnn1K3 w - - 0 1 ac 66";
    assert!(play(rich, "a1d1:21").is_ok());
    assert_eq!(play(rich, "a1d1:21:11"), Err(PlayError::DuelAfterLoss));
    // A declined field after the loss says nothing and is accepted, as before.
    assert!(play(rich, "a1d1:21:").is_ok());
    assert!(!PlayError::DuelAfterLoss.to_string().is_empty());
}

#[test]
fn a_tiger_that_loses_its_duel_is_destroyed_at_home() {
    let epd = "4k3/8/8/8/3n4/8/1B6/4K3 w - - 0 1 ac 33";
    let next = play(epd, "b2d4:21").unwrap();
    assert_eq!(next.piece_at(sq("b2")), None);
    assert_eq!(next.piece_at(sq("d4")), None);
    let next = play(epd, "b2d4:12").unwrap();
    assert!(next.piece_at(sq("b2")).is_some());
    assert_eq!(next.piece_at(sq("d4")), None);
}

#[test]
fn games_end_by_checkmate_by_having_no_move_and_by_midline_invasion() {
    let mated = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3 cc 33");
    assert_eq!(
        mated.outcome(),
        Some(Chess2Outcome::Checkmate(Color::Black))
    );
    // No stalemate: without a move, Black loses.
    let stuck = pos("k7/8/1Q6/8/8/8/8/4K3 b - - 0 1 cc 33");
    assert_eq!(stuck.outcome(), Some(Chess2Outcome::NoMoves(Color::White)));
    assert_eq!(stuck.outcome().unwrap().winner(), Color::White);
    let crossed = pos("4k3/8/8/3K4/8/8/8/8 b - - 0 1 cc 33");
    assert_eq!(
        crossed.outcome(),
        Some(Chess2Outcome::MidlineInvasion(Color::White))
    );
    assert_eq!(
        crossed.play("e8e7".parse().unwrap()),
        Err(PlayError::GameOver)
    );
    assert_eq!(pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1 cc 33").outcome(), None);
}
