//! Every journal the server writes replays to the game that was played: random games of both
//! variants (standard chess, and Chess 2 with random armies), each side played at random or
//! by chessd's own player (the built-in search for standard chess, `chess2::bot` for Chess 2),
//! Chess 2 duels with random bids and gain choices, draw offers and results set without a
//! move. Each event is turned into its entry and stored text exactly as the actor does it
//! ([`Entry::for_event`], [`Entry::encode`]), read back with [`Entry::decode`] and replayed.

use std::{sync::atomic::AtomicBool, time::Instant};

use chessd_core::{
    chess2::{bot, Army, Chess2Action, Chess2Game, Chess2Position, DuelStage},
    game::{DrawPolicy, Game},
    pgn::{write_noted_game, write_played_game},
    search::{Limits, Searcher},
    Color, Position,
};

use super::{packed, replay, setup_of, Entry};
use crate::{
    game::{board::Board, events::EventKind, state::SavedState},
    test_games::Rng,
};

/// A game being played and the stored texts of its journal so far.
struct Recorder {
    board: Board,
    texts: Vec<String>,
}

impl Recorder {
    /// Stores `event` as the actor does.
    fn record(&mut self, event: &EventKind) {
        let entry = Entry::for_event(event, || -> SavedState { unreachable!("no reset") })
            .expect("every event played here is stored");
        self.texts.push(entry.encode());
    }

    /// Now and then a draw offer, declined by the other side.
    fn maybe_offer(&mut self, rng: &mut Rng) {
        if rng.below(12) == 0 && !self.board.is_over() {
            let by = self.board.to_act();
            self.record(&EventKind::DrawOffered { by });
            self.record(&EventKind::DrawDeclined { by: !by });
        }
    }

    /// At the end, maybe a result set without a move: a resignation, an agreed draw, a claim.
    fn maybe_end(&mut self, rng: &mut Rng) {
        if self.board.is_over() {
            return;
        }
        let ended = match rng.below(4) {
            0 => self.board.resign(self.board.to_act()).is_ok(),
            1 => self.board.draw_by_agreement().is_ok(),
            2 => self.board.claim_draw().is_ok(),
            _ => false,
        };
        if ended {
            let status = self.board.status().clone();
            self.record(&EventKind::GameEnd {
                status,
                clocks: None,
            });
        }
    }

    /// The game the stored texts rebuild from `setup`.
    fn replayed(&self, setup: &SavedState, policy: DrawPolicy) -> Board {
        let entries: Vec<(u64, Entry)> = (1..)
            .zip(&self.texts)
            .map(|(v, text)| {
                let entry = Entry::decode(text).unwrap_or_else(|e| panic!("'{text}': {e}"));
                (v, entry)
            })
            .collect();
        replay(setup, policy, &entries, 16, Instant::now())
            .unwrap_or_else(|e| panic!("the journal {:?} does not replay: {e}", self.texts))
            .game
    }
}

/// A standard game's move: chessd's search at depth 1 or 2, or a random legal move.
fn chess_move(game: &Game, bot: bool, rng: &mut Rng) -> chessd_core::Move {
    let pos = game.position();
    if bot {
        let limits = Limits::depth(1 + rng.below(2) as u32);
        let stop = AtomicBool::new(false);
        let found = Searcher::new(1).search(pos, &[], &limits, &stop, |_| {});
        if let Some(mv) = found.best {
            return mv;
        }
    }
    let legal = pos.legal_moves();
    legal[rng.below(legal.len())]
}

/// Plays a random standard game (up to 80 plies) from the start, recording its journal.
fn play_chess(policy: DrawPolicy, bots: [bool; 2], rng: &mut Rng) -> (SavedState, Recorder) {
    let start: Board = Game::with_policy(Position::default(), policy).into();
    let setup = setup_of(&start, None);
    let mut rec = Recorder {
        board: start,
        texts: Vec::new(),
    };
    for _ in 0..80 {
        let Board::Chess(game) = &mut rec.board else {
            unreachable!("a standard game")
        };
        if game.is_over() {
            break;
        }
        let mv = chess_move(game, bots[game.turn() as usize], rng);
        let played = game.play(mv).expect("a legal move").clone();
        let event = EventKind::Move {
            ply: game.history().len(),
            uci: played.uci,
            san: played.san,
            fen: game.position().fen(),
            status: game.status().clone(),
            clocks: None,
        };
        rec.record(&event);
        rec.maybe_offer(rng);
    }
    rec.maybe_end(rng);
    (setup, rec)
}

/// A random Chess 2 step for `by`: a legal move, a challenge or a decline, or a bid of 0 to 2
/// stones (perhaps more than it may: refused) with any gain choice.
fn random_chess2_step(game: &Chess2Game, by: Color, rng: &mut Rng) -> Chess2Action {
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
            gain: [None, Some(true), Some(false)][rng.below(3)],
        },
    }
}

/// Plays a random Chess 2 game (up to 120 steps) of random armies, recording its journal;
/// refused random bids are dropped, as the actor drops refused requests.
fn play_chess2(policy: DrawPolicy, bots: [bool; 2], rng: &mut Rng) -> (SavedState, Recorder) {
    let armies = [Army::ALL[rng.below(6)], Army::ALL[rng.below(6)]];
    let start: Board = Chess2Game::new(Chess2Position::start(armies[0], armies[1]), policy).into();
    let setup = setup_of(&start, None);
    let mut rec = Recorder {
        board: start,
        texts: Vec::new(),
    };
    for _ in 0..160 {
        let Board::Chess2(game) = &mut rec.board else {
            unreachable!("a Chess 2 game")
        };
        if game.is_over() || game.steps().len() >= 120 {
            break;
        }
        // When both owe a bid, either may bid first.
        let white_first = !game.awaits(Color::Black) || rng.below(2) == 0;
        let by = if game.awaits(Color::White) && white_first {
            Color::White
        } else {
            Color::Black
        };
        let step = if bots[by as usize] {
            bot::next_step(game, by, 1, 300).expect("the bot's step is due")
        } else {
            random_chess2_step(game, by, rng)
        };
        let Ok(played) = game.act(by, step) else {
            assert!(matches!(step, Chess2Action::Bid { .. }) && !bots[by as usize]);
            continue;
        };
        let played = played.cloned();
        let event = EventKind::chess2_step(game, by, step, played.as_ref(), None);
        rec.record(&event);
        if played.is_some() {
            rec.maybe_offer(rng);
        }
    }
    rec.maybe_end(rng);
    (setup, rec)
}

/// Asserts that the replayed board is the one played.
fn assert_same(again: &Board, played: &Board, texts: &[String]) {
    assert_eq!(again.fen(), played.fen(), "{texts:?}");
    assert_eq!(again.status(), played.status(), "{texts:?}");
    assert_eq!(again.plies(), played.plies(), "{texts:?}");
    match (again, played) {
        (Board::Chess(a), Board::Chess(b)) => {
            assert_eq!(a.uci_history(), b.uci_history(), "{texts:?}");
        }
        (Board::Chess2(a), Board::Chess2(b)) => {
            assert_eq!(a.position().stones(), b.position().stones(), "{texts:?}");
            assert_eq!(a.history(), b.history(), "{texts:?}");
            assert_eq!(a.steps(), b.steps(), "{texts:?}");
            assert_eq!(a.pending_duel(), b.pending_duel(), "{texts:?}");
        }
        _ => panic!("the replayed game changed variant"),
    }
}

#[test]
fn every_journal_the_server_writes_replays_to_the_game_played() {
    let mut bids_of_stones = 0;
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let policy = [DrawPolicy::Automatic, DrawPolicy::Claims][rng.below(2)];
        let bots = [rng.below(3) == 0, rng.below(3) == 0];
        let (setup, rec) = if seed % 3 == 0 {
            play_chess(policy, bots, &mut rng)
        } else {
            play_chess2(policy, bots, &mut rng)
        };
        bids_of_stones += rec
            .texts
            .iter()
            .filter(|t| t.starts_with("bid:") && !t.contains(":0"))
            .count();
        let again = rec.replayed(&setup, policy);
        assert_same(&again, &rec.board, &rec.texts);
    }
    assert!(bids_of_stones > 20, "only {bids_of_stones} bids of stones");
}

/// Each journal as packed for the store reads back exactly, and replays to the game played:
/// the same random games, half of them timed (random clocks after each move, an end with
/// clocks), with random options.
#[test]
fn every_journal_packs_and_reads_back_as_it_was() {
    use crate::game::{clock::TimeControl, journal::StoredOptions, state::SavedClock};
    let mut packed_moves = (0, 0);
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
        let policy = [DrawPolicy::Automatic, DrawPolicy::Claims][rng.below(2)];
        let bots = [rng.below(3) == 0, rng.below(3) == 0];
        let (mut setup, rec) = if seed % 2 == 0 {
            play_chess(policy, bots, &mut rng)
        } else {
            play_chess2(policy, bots, &mut rng)
        };
        let mut entries: Vec<(u64, Entry)> = (1..)
            .zip(&rec.texts)
            .map(|(v, text)| (v, Entry::decode(text).unwrap()))
            .collect();
        let timed = seed % 4 < 2;
        let control = TimeControl {
            initial_ms: 60_000 * (1 + rng.below(10) as u64),
            increment_ms: 1_000 * rng.below(4) as u64,
        };
        if timed {
            setup.clock = Some(SavedClock {
                control,
                white_ms: control.initial_ms,
                black_ms: control.initial_ms,
            });
            let mut left = [control.initial_ms; 2];
            for (_, entry) in &mut entries {
                let side = rng.below(2);
                left[side] =
                    (left[side] + control.increment_ms).saturating_sub(rng.below(9_000) as u64);
                match entry {
                    Entry::Move { clocks, .. } | Entry::End { clocks, .. } => *clocks = Some(left),
                    _ => {}
                }
            }
        }
        let options = StoredOptions {
            idle_timeout_secs: rng.below(4_000) as u64,
            abandon_after_secs: 600,
            webhook: (rng.below(3) == 0).then(|| "http://127.0.0.1:9/hook".to_string()),
            time_control: timed.then_some(control),
            draw_policy: policy,
            opponent: None,
            rival: None,
            chess2_bots: Vec::new(),
        };
        let record = packed::pack(&setup, Some(&options), &entries)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}: {:?}", rec.texts));
        let back = packed::unpack(&record).unwrap();
        setup.status = None;
        assert_eq!(back.setup, setup, "seed {seed}");
        assert_eq!(back.options.as_ref(), Some(&options), "seed {seed}");
        assert_eq!(back.entries, entries, "seed {seed}");
        let again = replay(&back.setup, policy, &back.entries, 16, Instant::now())
            .unwrap()
            .game;
        assert_same(&again, &rec.board, &rec.texts);
        // Read for an export (SAN, no UCI text or clocks), the record replays to the same
        // game, and the SAN are those of its moves.
        let export = packed::unpack_with(&record, packed::Reading::Export).unwrap();
        let exported = replay(&export.setup, policy, &export.entries, 0, Instant::now())
            .unwrap()
            .game;
        assert_same(&exported, &rec.board, &rec.texts);
        match (&exported, export.sans) {
            (Board::Chess(game), Some(sans)) => assert_eq!(
                write_noted_game(game, &sans, &[]),
                write_played_game(game, &[]),
                "seed {seed}"
            ),
            (Board::Chess2(_), None) => {}
            (_, sans) => panic!("seed {seed}: SAN {sans:?}"),
        }
        if !timed && setup.variant.is_none() && options.webhook.is_none() {
            packed_moves.0 += record.len();
            packed_moves.1 += entries.len();
        }
        // Any prefix of the record is refused, never a panic.
        for cut in 0..record.len() {
            assert!(
                packed::unpack(&record[..cut]).is_err(),
                "seed {seed}, cut {cut}"
            );
        }
    }
    // An untimed standard game's journal takes about half a byte a move (random moves are
    // the dearest), all its setup and options included.
    let (bytes, entries) = packed_moves;
    assert!(
        entries > 100 && bytes * 10 < entries * 9,
        "{bytes} bytes for {entries} entries"
    );
}
