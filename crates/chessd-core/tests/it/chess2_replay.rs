//! Every step a Chess 2 game records is written in a form that reads back and replays to the
//! same game. Random games of random armies, each side played either at random (moves,
//! challenges, declines, bids of 0 to 2 stones with every gain choice, refused ones included)
//! or by chessd's own player; the steps are written as the server stores them, read back and
//! replayed into a new game, which must equal the one played. Stores written before a bid of
//! stones lost its gain sign (`bid:w:2+`) replay too.

use crate::common;

use chessd_core::chess2::{bot, Army, Chess2Action, Chess2Game, Chess2Position, DuelStage};
use chessd_core::game::DrawPolicy;
use chessd_core::Color::{self, Black, White};
use common::Rng;
use proptest::prelude::*;

/// The gain choices a client may send with a bid.
const GAINS: [Option<bool>; 3] = [None, Some(true), Some(false)];

/// A random step for `by`: a legal move, a challenge or a decline, or a bid of 0 to 2 stones
/// (possibly more than it may bid: the game refuses it) with any gain choice.
fn random_step(game: &Chess2Game, by: Color, rng: &mut Rng) -> Chess2Action {
    match game.pending_duel().map(|p| p.stage()) {
        None => {
            let legal = game.legal_moves();
            Chess2Action::Move(legal[rng.below(legal.len())])
        }
        Some(DuelStage::Challenge) if rng.below(2) == 0 => Chess2Action::Challenge,
        Some(DuelStage::Challenge) => Chess2Action::Decline,
        Some(DuelStage::Bids { .. }) => Chess2Action::Bid {
            by,
            stones: rng.below(3) as u8,
            gain: GAINS[rng.below(GAINS.len())],
        },
    }
}

/// The side that acts next: when both owe a bid, either.
fn next_side(game: &Chess2Game, rng: &mut Rng) -> Color {
    match (game.awaits(White), game.awaits(Black)) {
        (true, true) if rng.below(2) == 0 => Black,
        (true, true) | (true, false) => White,
        _ => Black,
    }
}

/// Plays up to `steps` steps of a game from `start`; `bots[side]` says whether chessd's
/// player takes that side's steps. Refused random steps are retried with another.
fn play(start: Chess2Position, policy: DrawPolicy, bots: [bool; 2], seed: u64) -> Chess2Game {
    let mut rng = Rng(seed | 1);
    let mut game = Chess2Game::new(start, policy);
    let mut tries = 0;
    while !game.is_over() && game.steps().len() < 150 && tries < 600 {
        tries += 1;
        let by = next_side(&game, &mut rng);
        let step = if bots[by as usize] {
            bot::next_step(&game, by, 1, 300).unwrap()
        } else {
            random_step(&game, by, &mut rng)
        };
        if let Err(e) = game.act(by, step) {
            // Only a random bid over what the side may bid is refused.
            assert!(
                !bots[by as usize],
                "chessd's player's {step} was refused: {e}"
            );
            assert!(matches!(step, Chess2Action::Bid { .. }), "{step}: {e}");
        }
    }
    game
}

/// The game the written steps `texts` rebuild from `start`.
fn replayed(start: Chess2Position, policy: DrawPolicy, texts: &[String]) -> Chess2Game {
    let mut again = Chess2Game::new(start, policy);
    for text in texts {
        let step: Chess2Action = text
            .parse()
            .unwrap_or_else(|e| panic!("'{text}' does not read back: {e}"));
        again
            .replay(step)
            .unwrap_or_else(|e| panic!("'{text}' does not replay: {e}"));
    }
    again
}

/// Asserts that `again` is the game `game` is: position (stones and turn included), status,
/// moves, steps, and the duel waiting.
fn assert_same(again: &Chess2Game, game: &Chess2Game) {
    assert_eq!(again.position().to_epd(), game.position().to_epd());
    assert_eq!(again.position().stones(), game.position().stones());
    assert_eq!(again.status(), game.status());
    assert_eq!(again.history(), game.history());
    assert_eq!(again.steps(), game.steps());
    assert_eq!(again.pending_duel(), game.pending_duel());
    assert_eq!(format!("{again:?}"), format!("{game:?}"));
}

/// The texts as a store written before bids of stones lost their sign: each such bid with a
/// `+` or `-`.
fn old_form(texts: &[String], rng: &mut Rng) -> Vec<String> {
    texts
        .iter()
        .map(|t| match t.parse::<Chess2Action>() {
            Ok(Chess2Action::Bid { stones, .. }) if stones > 0 => {
                format!("{t}{}", ["+", "-"][rng.below(2)])
            }
            _ => t.clone(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_recorded_step_is_written_in_a_form_that_replays(
        seed in any::<u64>(),
        white in 0..6usize,
        black in 0..6usize,
        bots in 0..4usize,
        claims in any::<bool>(),
    ) {
        let start = Chess2Position::start(Army::ALL[white], Army::ALL[black]);
        let policy = if claims { DrawPolicy::Claims } else { DrawPolicy::Automatic };
        let game = play(start, policy, [bots & 1 != 0, bots & 2 != 0], seed);
        let texts: Vec<String> = game.steps().iter().map(ToString::to_string).collect();
        assert_same(&replayed(start, policy, &texts), &game);
        let old = old_form(&texts, &mut Rng(seed ^ 0x5555));
        assert_same(&replayed(start, policy, &old), &game);
    }
}

#[test]
fn random_games_bid_stones_with_a_gain_choice_and_bots_play_duels() {
    // The property above is only as good as the games it plays: they must hold the steps the
    // fault was in (bids of stones sent with a gain choice) and steps of chessd's player.
    let (mut signed, mut bot_bids) = (0, 0);
    for seed in 1..40u64 {
        let start = Chess2Position::start(Army::ALL[seed as usize % 6], Army::Animals);
        let bots = [seed % 3 == 0, seed % 2 == 0];
        let game = play(start, DrawPolicy::Automatic, bots, seed * 7919);
        let mut rng = Rng(seed);
        let texts: Vec<String> = game.steps().iter().map(ToString::to_string).collect();
        signed += old_form(&texts, &mut rng)
            .iter()
            .zip(&texts)
            .filter(|(a, b)| a != b)
            .count();
        bot_bids += game
            .steps()
            .iter()
            .filter(|s| matches!(s, Chess2Action::Bid { by, .. } if bots[*by as usize]))
            .count();
    }
    assert!(
        signed > 20 && bot_bids > 20,
        "{signed} bids of stones, {bot_bids} by bots"
    );
}
