//! Chess 2 games with duels as steps: the defender's challenge, the hidden bids, the stones
//! they cost, rampages with several duels, draws and results, from hand-checked positions;
//! and, over random games of every army pair, that the moves a game records (with their
//! duel fields) replay through `Chess2Position::play` to the same positions.

use crate::common;

use chessd_core::chess2::{
    Army, Chess2Action, Chess2Game, Chess2GameError, Chess2Position, DuelStage, PlayError,
};
use chessd_core::game::{DrawPolicy, GameResult, Reason};
use chessd_core::Color::{self, Black, White};
use common::Rng;

fn game(epd: &str) -> Chess2Game {
    Chess2Game::new(
        Chess2Position::from_epd(epd).unwrap(),
        DrawPolicy::Automatic,
    )
}

fn step(game: &mut Chess2Game, by: Color, text: &str) -> Result<Option<String>, Chess2GameError> {
    let action: Chess2Action = text.parse().unwrap();
    game.act(by, action)
        .map(|played| played.map(|p| p.mv.to_string()))
}

fn steps(game: &mut Chess2Game, list: &[(Color, &str)]) -> Option<String> {
    let mut last = None;
    for (by, text) in list {
        last = step(game, *by, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    last
}

/// A white pawn on e4 that can take a black pawn on d5.
const PAWN_TAKES_PAWN: &str = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33";

#[test]
fn a_declined_duel_lets_the_capture_happen_and_the_pawn_earns_a_stone() {
    let mut g = game(PAWN_TAKES_PAWN);
    assert_eq!(step(&mut g, White, "e4d5").unwrap(), None);
    assert_eq!(g.to_act(), Black, "the defender decides");
    assert!(g.legal_moves().is_empty(), "no move while a duel waits");
    assert_eq!(
        step(&mut g, Black, "decline").unwrap().as_deref(),
        Some("e4d5")
    );
    assert_eq!(
        g.position().to_epd(),
        "4k3/8/8/3P4/8/8/8/4K3 b - - 0 1 cc 43"
    );
    assert!(g.pending_duel().is_none());
}

#[test]
fn the_attacker_wins_ties() {
    let mut g = game(PAWN_TAKES_PAWN);
    let played = steps(
        &mut g,
        &[
            (White, "e4d5"),
            (Black, "challenge"),
            (White, "bid:w:1"),
            (Black, "bid:b:1"),
        ],
    );
    assert_eq!(played.as_deref(), Some("e4d5:11"));
    // Both paid 1; White took a pawn (+1).
    assert_eq!(
        g.position().to_epd(),
        "4k3/8/8/3P4/8/8/8/4K3 b - - 0 1 cc 32"
    );
}

#[test]
fn bids_stay_hidden_until_both_are_in_and_either_side_may_bid_first() {
    let mut g = game(PAWN_TAKES_PAWN);
    steps(&mut g, &[(White, "e4d5"), (Black, "challenge")]);
    assert_eq!(g.to_act(), Black, "the defender's clock runs first");
    step(&mut g, White, "bid:w:2").unwrap();
    let pending = g.pending_duel().unwrap();
    assert_eq!(
        pending.stage(),
        DuelStage::Bids {
            defender: None,
            attacker: Some((2, true))
        }
    );
    assert!(
        pending.settled().is_empty(),
        "nothing settled before both bids"
    );
    assert_eq!(g.to_act(), Black);
    assert_eq!(
        step(&mut g, White, "bid:w:1"),
        Err(Chess2GameError::AlreadyBid(White))
    );
    assert_eq!(
        step(&mut g, Black, "bid:b:2").unwrap().as_deref(),
        Some("e4d5:22")
    );
}

#[test]
fn a_capturer_that_outranks_its_victim_costs_the_defender_a_stone() {
    // A white queen takes a pawn; Black holds one stone: the duel costs it, so it may bid 0
    // only.
    let mut g = game("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1 cc 31");
    steps(&mut g, &[(White, "d1d5"), (Black, "challenge")]);
    assert_eq!(g.allowed_bids(Black), vec![0]);
    assert_eq!(g.allowed_bids(White), vec![0, 1, 2]);
    assert_eq!(
        step(&mut g, Black, "bid:b:1"),
        Err(Chess2GameError::BadBid {
            stones: 1,
            allowed: vec![0]
        })
    );
    // Both 0, and the attacker takes a stone from the defender rather than gaining one.
    let played = steps(&mut g, &[(Black, "bid:b:0"), (White, "bid:w:0-")]);
    assert_eq!(played.as_deref(), Some("d1d5:00-"));
    // Black paid its stone for the duel (0 left, nothing more to lose); White +1 for the pawn.
    assert_eq!(
        g.position().to_epd(),
        "4k3/8/8/3Q4/8/8/8/4K3 b - - 0 1 cc 40"
    );
}

#[test]
fn both_bidding_nothing_gains_the_attacker_a_stone_by_default() {
    let mut g = game(PAWN_TAKES_PAWN);
    let played = steps(
        &mut g,
        &[
            (White, "e4d5"),
            (Black, "challenge"),
            (Black, "bid:b:0"),
            (White, "bid:w:0"),
        ],
    );
    assert_eq!(played.as_deref(), Some("e4d5:00+"));
    assert_eq!(g.position().stones(), [5, 3]);
}

#[test]
fn a_defender_without_stones_is_never_asked_and_kings_never_duel() {
    let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 30");
    assert_eq!(
        step(&mut g, White, "e4d5").unwrap().as_deref(),
        Some("e4d5")
    );
    // A king's capture: no duel.
    let mut g = game("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1 cc 33");
    assert_eq!(
        step(&mut g, White, "e1d2").unwrap().as_deref(),
        Some("e1d2")
    );
}

#[test]
fn against_an_attacker_without_stones_the_defender_bids_one_and_wins_at_once() {
    let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 03");
    steps(&mut g, &[(White, "e4d5"), (Black, "challenge")]);
    // The attacker's bid is taken as 0 without asking.
    assert_eq!(g.to_act(), Black);
    assert_eq!(g.allowed_bids(Black), vec![1]);
    assert_eq!(
        step(&mut g, White, "bid:w:0"),
        Err(Chess2GameError::AlreadyBid(White))
    );
    let played = step(&mut g, Black, "bid:b:1").unwrap();
    assert_eq!(played.as_deref(), Some("e4d5:10-"));
    // The pawn that took is destroyed; each side's stones: White 0 + 1 (pawn taken), Black
    // 3 - 1 + 1 (destroyed a pawn).
    assert_eq!(g.position().to_epd(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1 cc 13");
}

#[test]
fn a_rampage_offers_each_capture_in_path_order_and_stops_at_a_lost_duel() {
    // An Animals Elephant on a1 rampages up the file through pawns on a2 and a3 to a4.
    let epd = "4k3/8/8/8/8/p7/p7/R3K3 w - - 0 1 ac 33";
    let mut g = game(epd);
    step(&mut g, White, "a1a4").unwrap();
    assert_eq!(g.pending_duel().unwrap().at_stake().0.to_string(), "a2");
    step(&mut g, Black, "decline").unwrap();
    assert_eq!(g.pending_duel().unwrap().at_stake().0.to_string(), "a3");
    let played = steps(
        &mut g,
        &[(Black, "challenge"), (Black, "bid:b:2"), (White, "bid:w:0")],
    );
    // The Elephant is destroyed where the whole move would have left it; the a2 pawn is gone.
    assert_eq!(played.as_deref(), Some("a1a4::20+"));
    assert_eq!(g.history()[0].epd, g.position().to_epd());
    let replayed = Chess2Position::from_epd(epd)
        .unwrap()
        .play("a1a4::20+".parse().unwrap())
        .unwrap();
    assert_eq!(g.position(), &replayed);
}

#[test]
fn refused_steps_change_nothing() {
    let mut g = game(PAWN_TAKES_PAWN);
    let before = format!("{:?}", g);
    assert_eq!(
        step(&mut g, Black, "e8e7"),
        Err(Chess2GameError::NotYourStep(Black))
    );
    assert_eq!(
        step(&mut g, White, "e4d5:1"),
        Err(Chess2GameError::DuelFieldsInGame)
    );
    assert_eq!(
        step(&mut g, White, "e4e6"),
        Err(Chess2GameError::Play(PlayError::Illegal))
    );
    assert_eq!(
        step(&mut g, Black, "challenge"),
        Err(Chess2GameError::NoDuel)
    );
    assert_eq!(format!("{:?}", g), before);

    step(&mut g, White, "e4d5").unwrap();
    let pending = format!("{:?}", g);
    assert_eq!(
        step(&mut g, White, "e1e2"),
        Err(Chess2GameError::DuelPending)
    );
    assert_eq!(
        step(&mut g, White, "decline"),
        Err(Chess2GameError::NotYourStep(White))
    );
    assert_eq!(step(&mut g, Black, "bid:b:1"), Err(Chess2GameError::NoDuel));
    assert_eq!(
        step(&mut g, Black, "bid:w:1"),
        Err(Chess2GameError::NotYourStep(Black))
    );
    assert_eq!(format!("{:?}", g), pending);
}

#[test]
fn midline_invasion_and_no_legal_moves_end_the_game() {
    let mut g = game("4k3/8/8/8/8/4K3/8/8 w - - 0 1 cc 33");
    step(&mut g, White, "e3e4").unwrap();
    assert!(!g.is_over(), "rank 4 is still White's half");
    step(&mut g, Black, "e8d8").unwrap();
    step(&mut g, White, "e4e5").unwrap();
    assert_eq!(g.status().result, GameResult::WhiteWins);
    assert_eq!(g.status().reason, Some(Reason::MidlineInvasion));
    assert!(matches!(
        step(&mut g, Black, "d8d7"),
        Err(Chess2GameError::GameOver(_))
    ));

    // Black to move, not in check, no move: Black loses (no stalemate in Chess 2).
    let g = game("k7/2Q5/8/8/8/8/8/4K3 b - - 0 1 cc 33");
    assert_eq!(g.status().result, GameResult::WhiteWins);
    assert_eq!(g.status().reason, Some(Reason::NoLegalMoves));
}

#[test]
fn threefold_repetition_draws_and_can_be_claimed_under_claims() {
    let shuffle = [
        (White, "g1f3"),
        (Black, "g8f6"),
        (White, "f3g1"),
        (Black, "f6g8"),
        (White, "g1f3"),
        (Black, "g8f6"),
        (White, "f3g1"),
        (Black, "f6g8"),
    ];
    let start = Chess2Position::start(Army::Classic, Army::Classic);
    let mut g = Chess2Game::new(start, DrawPolicy::Automatic);
    steps(&mut g, &shuffle);
    assert_eq!(g.status().reason, Some(Reason::ThreefoldRepetition));

    let mut g = Chess2Game::new(start, DrawPolicy::Claims);
    steps(&mut g, &shuffle);
    assert!(!g.is_over());
    assert_eq!(g.claimable_draw(), Some(Reason::ThreefoldRepetition));
    g.claim_draw().unwrap();
    assert_eq!(g.status().result, GameResult::Draw);
}

#[test]
fn a_result_set_during_a_duel_drops_the_pending_capture() {
    let mut g = game(PAWN_TAKES_PAWN);
    steps(&mut g, &[(White, "e4d5"), (Black, "challenge")]);
    g.resign(Black).unwrap();
    assert!(g.pending_duel().is_none());
    assert_eq!(g.status().result, GameResult::WhiteWins);
    assert!(g.history().is_empty());
    assert!(g.resign(White).is_err());
}

#[test]
fn the_two_kings_king_turn_and_its_pass_are_steps_of_the_same_side() {
    let mut g = Chess2Game::new(
        Chess2Position::start(Army::TwoKings, Army::Classic),
        DrawPolicy::Automatic,
    );
    step(&mut g, White, "e2e4").unwrap();
    assert_eq!(g.to_act(), White, "the king turn");
    assert!(g.position().is_king_turn());
    step(&mut g, White, "0000").unwrap();
    assert_eq!(g.to_act(), Black);
}

#[test]
fn a_bid_of_stones_is_stored_without_a_gain_choice_and_replays() {
    // `{"action": "bid", "stones": 2, "gain": true}`: the choice is for a 0–0 duel, which a
    // bid of 2 rules out, so the step is kept (and written) without it.
    let mut g = game(PAWN_TAKES_PAWN);
    steps(
        &mut g,
        &[(White, "e4d5"), (Black, "challenge"), (Black, "bid:b:1")],
    );
    let bid = Chess2Action::Bid {
        by: White,
        stones: 2,
        gain: Some(true),
    };
    assert_eq!(
        g.act(White, bid).unwrap().map(|p| p.mv.to_string()),
        Some("e4d5:12".to_string())
    );
    let texts: Vec<String> = g.steps().iter().map(ToString::to_string).collect();
    assert_eq!(texts, ["e4d5", "challenge", "bid:b:1", "bid:w:2"]);
    let mut again = game(PAWN_TAKES_PAWN);
    for text in &texts {
        again.replay(text.parse().unwrap()).unwrap();
    }
    assert_eq!(format!("{again:?}"), format!("{g:?}"));
}

#[test]
fn bids_stored_with_a_gain_after_stones_read_as_the_bid_alone() {
    // Stores written before the gain was dropped hold `bid:w:2+`: they still load.
    for (old, by, stones) in [
        ("bid:w:2+", White, 2),
        ("bid:w:1-", White, 1),
        ("bid:b:2-", Black, 2),
    ] {
        let action: Chess2Action = old.parse().unwrap();
        assert_eq!(
            action,
            Chess2Action::Bid {
                by,
                stones,
                gain: None
            },
            "{old}"
        );
        assert_eq!(action.to_string(), old[..old.len() - 1], "{old}");
    }
    let mut g = game(PAWN_TAKES_PAWN);
    for text in ["e4d5", "challenge", "bid:b:1", "bid:w:2+"] {
        g.replay(text.parse().unwrap()).unwrap();
    }
    assert_eq!(g.history()[0].mv.to_string(), "e4d5:12");
}

#[test]
fn an_empty_whirlwind_is_no_move_so_kings_with_nothing_else_lose() {
    // Warrior kings on d2 and g1 with nothing next to them: no Whirlwind to pass a turn with.
    let mut g = game("4k3/8/8/8/8/8/3K4/6K1 w - - 0 1 kc 33");
    assert_eq!(
        step(&mut g, White, "d2d2"),
        Err(Chess2GameError::Play(PlayError::Illegal))
    );
    assert!(g.steps().is_empty());
    // Kings on a1 and h1 whose every step is covered: no legal move, and the game is lost.
    let g = game("4k3/8/8/8/8/2n2n2/3r4/K6K w - - 0 1 kc 33");
    assert_eq!(g.status().result, GameResult::BlackWins);
    assert_eq!(g.status().reason, Some(Reason::NoLegalMoves));
}

#[test]
fn games_stored_with_an_empty_whirlwind_replay_as_they_were_played() {
    // Stored when a warrior king could Whirlwind with nothing beside it.
    let mut g = game("4k3/8/8/8/8/8/3K4/6K1 w - - 0 1 kc 33");
    for text in ["d2d2", "0000", "e8e7", "g1g2"] {
        g.replay(text.parse().unwrap())
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    let moves: Vec<String> = g.history().iter().map(|p| p.mv.to_string()).collect();
    assert_eq!(moves, ["d2d2", "0000", "e8e7", "g1g2"]);
    assert_eq!(
        g.position().to_epd(),
        "8/4k3/8/8/8/8/3K2K1/8 K - - 3 2 kc 33"
    );
    // Kings whose only moves were empty Whirlwinds: lost today, played on then.
    let mut g = game("4k3/8/8/8/8/2n2n2/3r4/K6K w - - 0 1 kc 33");
    assert_eq!(g.status().reason, Some(Reason::NoLegalMoves));
    for text in ["a1a1", "0000"] {
        g.replay(text.parse().unwrap())
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    assert!(!g.is_over());
    assert_eq!(g.to_act(), Black);
    // Only what the earlier rules allowed: a Classic king never whirlwinds.
    assert_eq!(
        g.replay("e8e8".parse().unwrap()),
        Err(Chess2GameError::Play(PlayError::Illegal))
    );
}

#[test]
fn step_texts_round_trip() {
    for text in [
        "challenge",
        "decline",
        "bid:w:0",
        "bid:b:2",
        "bid:w:0+",
        "bid:b:0-",
        "e2e4",
        "e7e8Q",
        "0000",
    ] {
        let action: Chess2Action = text.parse().unwrap();
        assert_eq!(action.to_string(), text);
    }
    for bad in [
        "bid:w:3",
        "bid:w:3+",
        "bid:x:1",
        "bid:w:1+-",
        "bid:w",
        "bid:w:",
        "chalenge",
        "e2e4:1x",
    ] {
        assert!(bad.parse::<Chess2Action>().is_err(), "{bad}");
    }
}

#[test]
fn random_games_with_random_duels_replay_through_play_and_their_steps_rebuild_them() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut moves = 0;
    let mut duels = 0;
    for white in Army::ALL {
        for black in Army::ALL {
            for _ in 0..3 {
                let start = Chess2Position::start(white, black);
                let mut g = Chess2Game::new(start, DrawPolicy::Automatic);
                for _ in 0..120 {
                    if g.is_over() {
                        break;
                    }
                    let by = g.to_act();
                    let action = match g.pending_duel().map(|p| p.stage()) {
                        None => {
                            let legal = g.legal_moves();
                            Chess2Action::Move(legal[rng.below(legal.len())])
                        }
                        Some(DuelStage::Challenge) => {
                            if rng.below(2) == 0 {
                                duels += 1;
                                Chess2Action::Challenge
                            } else {
                                Chess2Action::Decline
                            }
                        }
                        Some(DuelStage::Bids { .. }) => {
                            let allowed = g.allowed_bids(by);
                            Chess2Action::Bid {
                                by,
                                stones: allowed[rng.below(allowed.len())],
                                gain: Some(rng.below(2) == 0),
                            }
                        }
                    };
                    let before = *g.position();
                    if let Some(played) = g.act(by, action).unwrap() {
                        moves += 1;
                        let replayed = before.play(played.mv).unwrap();
                        assert_eq!(replayed.to_epd(), played.epd, "{}", played.mv);
                    }
                }
                // The recorded steps rebuild the same game, a duel half-way included.
                let mut again = Chess2Game::new(start, DrawPolicy::Automatic);
                for step in g.steps() {
                    again.replay(*step).unwrap();
                }
                assert_eq!(format!("{again:?}"), format!("{g:?}"));
            }
        }
    }
    assert!(moves > 5_000 && duels > 100, "{moves} moves, {duels} duels");
}

#[test]
fn a_duels_terms_are_exactly_the_bids_the_game_accepts() {
    // A pawn taking a pawn (no extra stone) and a rook taking a pawn (the defender owes one),
    // with every count of stones on either side.
    for (board, mv, cost) in [
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc", "e4d5", 0),
        ("4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1 cc", "d1d5", 1),
    ] {
        for white in 0..=3 {
            for black in 0..=3 {
                let epd = format!("{board} {white}{black}");
                let mut g = game(&epd);
                step(&mut g, White, mv).unwrap();
                let Some(terms) = g.duel_terms() else {
                    // No duel offered: the move was played at once.
                    assert!(g.pending_duel().is_none(), "{epd}");
                    continue;
                };
                assert_eq!(terms.challenge_cost, cost, "{epd}");
                // Black may challenge exactly when it has a bid to make.
                assert!(!terms.defender_bids.is_empty(), "{epd}: a duel with no bid");
                step(&mut g, Black, "challenge").unwrap();
                let after = g.duel_terms().unwrap();
                assert_eq!(after, terms, "{epd}: the terms change with the challenge");
                for bid in 0..=2u8 {
                    let mut trial = g.clone();
                    let accepted = step(&mut trial, Black, &format!("bid:b:{bid}")).is_ok();
                    assert_eq!(
                        accepted,
                        terms.defender_bids.contains(&bid),
                        "{epd}: Black's bid {bid}, terms {terms:?}"
                    );
                    if g.pending_duel().unwrap().awaits_bid_from(White) {
                        let mut trial = g.clone();
                        let accepted = step(&mut trial, White, &format!("bid:w:{bid}")).is_ok();
                        assert_eq!(
                            accepted,
                            terms.attacker_bids.contains(&bid),
                            "{epd}: White's bid {bid}, terms {terms:?}"
                        );
                    }
                }
            }
        }
    }
}
