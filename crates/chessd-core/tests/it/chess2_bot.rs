//! chessd's Chess 2 player: its moves in positions with one clear best move, its duel
//! answers by the rules `chess2::bot` states, and whole games of every army pair in which
//! every step it takes is accepted by the game.

use chessd_core::chess2::{bot, Army, Chess2Action, Chess2Game, Chess2Position};
use chessd_core::game::{DrawPolicy, GameResult};
use chessd_core::Color::{Black, White};

fn pos(epd: &str) -> Chess2Position {
    Chess2Position::from_epd(epd).unwrap()
}

fn game(epd: &str) -> Chess2Game {
    Chess2Game::new(pos(epd), DrawPolicy::Automatic)
}

#[test]
fn it_takes_a_queen_left_en_prise() {
    // White's rook on d1 takes the undefended black queen on d6.
    let p = pos("4k3/8/3q4/8/8/8/8/3RK3 w - - 0 1 cc 33");
    assert_eq!(bot::best_move(&p, 2, 50_000).unwrap().to_string(), "d1d6");
}

#[test]
fn it_stops_a_king_from_crossing_the_midline() {
    // Black's king on e5 crosses at its next move unless White's queen checks it now (or
    // guards every square it could reach): whatever White plays, Black must not win at once.
    let p = pos("8/8/8/4k3/8/8/8/Q3K3 w - - 0 1 cc 33");
    let mv = bot::best_move(&p, 2, 100_000).unwrap();
    let after = p.after(mv);
    for reply in after.legal_moves() {
        assert_ne!(
            after.after(reply).midline_winner(),
            Some(Black),
            "after {mv}, {reply} crosses"
        );
    }
}

#[test]
fn it_defends_a_rook_and_lets_a_pawn_trade_go() {
    // A black pawn takes a white rook: the bot (White) challenges and bids 2.
    let mut g = game("4k3/8/8/8/8/3p4/4R3/4K3 b - - 0 1 cc 33");
    g.act(Black, "d3e2".parse().unwrap()).unwrap();
    assert_eq!(
        bot::next_step(&g, White, 1, 1_000),
        Some(Chess2Action::Challenge)
    );
    assert_eq!(
        bot::next_step(&g, Black, 1, 1_000),
        None,
        "not Black's step"
    );
    g.act(White, Chess2Action::Challenge).unwrap();
    assert_eq!(
        bot::next_step(&g, White, 1, 1_000),
        Some(Chess2Action::Bid {
            by: White,
            stones: 2,
            gain: None
        })
    );
    // The attacker, a pawn, bids 1: with no 0–0 duel possible, its bid carries no gain choice.
    assert_eq!(
        bot::next_step(&g, Black, 1, 1_000),
        Some(Chess2Action::Bid {
            by: Black,
            stones: 1,
            gain: None
        })
    );

    // A pawn takes a pawn: the defender declines.
    let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33");
    g.act(White, "e4d5".parse().unwrap()).unwrap();
    assert_eq!(
        bot::next_step(&g, Black, 1, 1_000),
        Some(Chess2Action::Decline)
    );
}

#[test]
fn it_bids_no_more_than_it_may() {
    // A white queen takes a pawn and Black holds one stone: the duel costs it, so it bids 0.
    let mut g = game("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1 cc 31");
    g.act(White, "d1d5".parse().unwrap()).unwrap();
    assert_eq!(
        bot::next_step(&g, Black, 1, 1_000),
        Some(Chess2Action::Challenge)
    );
    g.act(Black, Chess2Action::Challenge).unwrap();
    assert_eq!(
        bot::next_step(&g, Black, 1, 1_000),
        Some(Chess2Action::Bid {
            by: Black,
            stones: 0,
            gain: None
        })
    );
}

#[test]
fn every_army_pair_plays_whole_games_whose_every_step_is_accepted() {
    let mut decided = 0;
    for white in Army::ALL {
        for black in Army::ALL {
            let mut g = Chess2Game::new(Chess2Position::start(white, black), DrawPolicy::Automatic);
            for _ in 0..400 {
                if g.is_over() {
                    break;
                }
                let side = if g.awaits(White) { White } else { Black };
                let step = bot::next_step(&g, side, 1, 2_000)
                    .unwrap_or_else(|| panic!("{white}-{black}: no step for {side}"));
                g.act(side, step)
                    .unwrap_or_else(|e| panic!("{white}-{black}: {step}: {e}"));
            }
            if g.status().result != GameResult::Ongoing {
                decided += 1;
            }
        }
    }
    assert!(
        decided >= 30,
        "only {decided} of 36 games ended within 400 steps"
    );
}

#[test]
fn every_step_it_takes_is_written_in_a_form_that_replays() {
    // Its bids as attacker once carried a gain choice whatever they were (`bid:w:2+`),
    // which the step parser refused: none of its games could be reloaded.
    let mut bids = 0;
    for white in Army::ALL {
        for black in Army::ALL {
            let start = Chess2Position::start(white, black);
            let mut g = Chess2Game::new(start, DrawPolicy::Automatic);
            for _ in 0..200 {
                if g.is_over() {
                    break;
                }
                let side = if g.awaits(White) { White } else { Black };
                let step = bot::next_step(&g, side, 1, 500).unwrap();
                bids += usize::from(matches!(step, Chess2Action::Bid { .. }));
                g.act(side, step).unwrap();
            }
            let mut again = Chess2Game::new(start, DrawPolicy::Automatic);
            for step in g.steps() {
                let text = step.to_string();
                let read: Chess2Action = text
                    .parse()
                    .unwrap_or_else(|e| panic!("{white}-{black}: '{text}': {e}"));
                again.replay(read).unwrap();
            }
            assert_eq!(format!("{again:?}"), format!("{g:?}"), "{white}-{black}");
        }
    }
    assert!(bids > 20, "only {bids} bids");
}
