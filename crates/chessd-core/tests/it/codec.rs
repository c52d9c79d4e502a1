//! The game codec (`chessd_core::codec`): random legal games of standard chess (from the
//! start, the perft suites' FENs and Chess960 positions) and of Chess 2 (every army pair,
//! random duels) round-trip, with shakmaty agreeing that every decoded move is legal;
//! random clocks round-trip exactly, escapes included; truncated or corrupt bytes give an
//! error, never a panic.

use crate::common;

use chessd_core::{
    chess2::{Army, Chess2Action, Chess2Game, Chess2Position, DuelStage},
    codec::{
        decode_chess2, decode_clocks, decode_moves, encode_chess2, encode_clocks, encode_moves,
        ClockReader, ClockWriter, CodecError, MoveReader, MoveWriter, TimeControl,
    },
    game::{DrawPolicy, Game},
    Color, FenMode, Move, Position,
};
use common::{fens, Rng, CHESS960, SUITE};
use proptest::prelude::*;
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, Position as _};

/// The start positions of the standard games: the start, the perft suite, Chess960.
fn starts() -> Vec<String> {
    let mut all = vec![chessd_core::START_FEN.to_string()];
    all.extend(fens(SUITE));
    all.extend(fens(CHESS960));
    all
}

/// A random game from `fen`: uniformly random legal moves until the game ends or `plies`.
fn random_game(fen: &str, plies: usize, rng: &mut Rng) -> (Position, Vec<Move>) {
    let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
    let mut game = Game::new(start);
    let mut moves = Vec::new();
    while moves.len() < plies && !game.is_over() {
        let legal = game.position().legal_moves();
        let mv = legal[rng.below(legal.len())];
        game.play(mv).unwrap();
        moves.push(mv);
    }
    (start, moves)
}

fn shakmaty_position(fen: &str, chess960: bool) -> Chess {
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let fen: Fen = fen.parse().unwrap();
    fen.into_position(mode)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn standard_games_round_trip_and_shakmaty_finds_every_decoded_move_legal(
        seed in any::<u64>(),
        which in any::<prop::sample::Index>(),
        plies in 0usize..200,
    ) {
        let all = starts();
        let fen = &all[which.index(all.len())];
        let mut rng = Rng(seed | 1);
        let (start, moves) = random_game(fen, plies, &mut rng);
        let bytes = encode_moves(&start, &moves).unwrap();
        let decoded = decode_moves(&start, &bytes, moves.len()).unwrap();
        prop_assert_eq!(&decoded, &moves);

        // Incrementally, with the positions, and shakmaty as the judge of legality.
        let mut theirs = shakmaty_position(fen, start.is_chess960());
        let mode = if start.is_chess960() { CastlingMode::Chess960 } else { CastlingMode::Standard };
        let mut reader = MoveReader::new(start, &bytes, moves.len());
        let mut pos = start;
        while let Some(mv) = reader.next() {
            let mv = mv.unwrap();
            let uci: UciMove = pos.uci(mv).parse().unwrap();
            let their = uci.to_move(&theirs);
            prop_assert!(their.is_ok(), "shakmaty refuses {} in {}", pos.uci(mv), pos.fen());
            let their = their.unwrap();
            theirs.play_unchecked(their);
            prop_assert_eq!(UciMove::from_move(their, mode).to_string(), pos.uci(mv));
            pos.play_unchecked(mv);
            prop_assert_eq!(reader.position(), &pos);
        }
        prop_assert_eq!(reader.moves_left(), 0);

        // Every shorter prefix of the bytes fails: each byte holds part of a move.
        for cut in 0..bytes.len() {
            prop_assert!(decode_moves(&start, &bytes[..cut], moves.len()).is_err());
        }
        // One byte more is refused as trailing bits.
        let mut longer = bytes.clone();
        longer.push(0);
        prop_assert_eq!(
            decode_moves(&start, &longer, moves.len()),
            Err(CodecError::TrailingBits)
        );
    }

    #[test]
    fn corrupt_bytes_decode_to_an_error_or_some_legal_game_never_a_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..120),
        count in 0usize..300,
        which in any::<prop::sample::Index>(),
    ) {
        let all = starts();
        let start = Position::from_fen(&all[which.index(all.len())], FenMode::Lenient).unwrap();
        if let Ok(moves) = decode_moves(&start, &bytes, count) {
            // Whatever decodes is a legal game that encodes back to the same bytes.
            prop_assert_eq!(&encode_moves(&start, &moves).unwrap(), &bytes);
        }
        let tc = TimeControl { initial_ms: 180_000, increment_ms: 2_000 };
        let movers = (0..count).map(|i| if i % 2 == 0 { Color::White } else { Color::Black });
        let _ = decode_clocks(tc, &bytes, movers);
        let chess2 = Chess2Position::start(Army::ALL[count % 6], Army::ALL[count / 6 % 6]);
        if let Ok(game) = decode_chess2(chess2, DrawPolicy::Automatic, &bytes, count.min(150)) {
            prop_assert_eq!(&encode_chess2(&game).unwrap(), &bytes);
        }
    }

    #[test]
    fn clocks_round_trip_exactly(
        seed in any::<u64>(),
        initial in prop_oneof![Just(0u64), 1_000u64..10_000_000, Just(u64::MAX)],
        increment in prop_oneof![Just(0u64), 0u64..60_000, Just(u64::MAX)],
        steps in 0usize..200,
    ) {
        let tc = TimeControl { initial_ms: initial, increment_ms: increment };
        let mut rng = Rng(seed | 1);
        let mut clocks = [initial; 2];
        let mut mover = Color::White;
        let mut record = Vec::new();
        for _ in 0..steps {
            let me = mover.index();
            let credit = clocks[me].saturating_add(increment);
            match rng.below(20) {
                // Something odd: the other clock changes, a clock jumps or gains time.
                0 => clocks[1 - me] = rng.below(1 << 30) as u64,
                1 => clocks[me] = credit.saturating_add(rng.below(5_000) as u64),
                2 => clocks[me] = [0, u64::MAX, u64::MAX - 1][rng.below(3)],
                _ => clocks[me] = credit.saturating_sub(rng.below(20_000) as u64),
            }
            record.push((mover, clocks));
            // A Chess 2 side may act twice in a row.
            if rng.below(6) != 0 {
                mover = !mover;
            }
        }
        let bytes = encode_clocks(tc, &record);
        let decoded = decode_clocks(tc, &bytes, record.iter().map(|r| r.0)).unwrap();
        prop_assert_eq!(decoded, record.iter().map(|r| r.1).collect::<Vec<_>>());
        if !record.is_empty() {
            prop_assert!(decode_clocks(tc, &bytes[..bytes.len() - 1], record.iter().map(|r| r.0)).is_err());
        }
    }

    #[test]
    fn chess2_games_round_trip(seed in any::<u64>(), white in 0usize..6, black in 0usize..6, steps in 0usize..250) {
        let mut rng = Rng(seed | 1);
        let start = Chess2Position::start(Army::ALL[white], Army::ALL[black]);
        let game = random_chess2_game(start, steps, &mut rng);
        let bytes = encode_chess2(&game).unwrap();
        let decoded = decode_chess2(start, game.policy(), &bytes, game.steps().len()).unwrap();
        prop_assert_eq!(decoded.steps(), game.steps());
        prop_assert_eq!(format!("{decoded:?}"), format!("{game:?}"));
        for cut in 0..bytes.len() {
            prop_assert!(decode_chess2(start, game.policy(), &bytes[..cut], game.steps().len()).is_err());
        }
    }
}

/// A random Chess 2 game: random moves, challenges, bids (either side first when both owe
/// one) and 0-bid choices, up to `steps` steps or the end.
fn random_chess2_game(start: Chess2Position, steps: usize, rng: &mut Rng) -> Chess2Game {
    let mut g = Chess2Game::new(start, DrawPolicy::Automatic);
    for _ in 0..steps {
        if g.is_over() {
            break;
        }
        let action = match g.pending_duel().map(|p| (p.stage(), p.attacker())) {
            None => {
                let legal = g.legal_moves();
                Chess2Action::Move(legal[rng.below(legal.len())])
            }
            Some((DuelStage::Challenge, _)) => {
                if rng.below(2) == 0 {
                    Chess2Action::Challenge
                } else {
                    Chess2Action::Decline
                }
            }
            Some((DuelStage::Bids { .. }, attacker)) => {
                let owe: Vec<Color> = [attacker, !attacker]
                    .into_iter()
                    .filter(|&c| g.awaits(c))
                    .collect();
                let by = owe[rng.below(owe.len())];
                let allowed = g.allowed_bids(by);
                Chess2Action::Bid {
                    by,
                    stones: allowed[rng.below(allowed.len())],
                    gain: [None, Some(true), Some(false)][rng.below(3)],
                }
            }
        };
        g.replay(action).unwrap();
    }
    g
}

#[test]
fn chess2_games_stored_with_an_empty_whirlwind_round_trip_through_the_escape() {
    let start = Chess2Position::from_epd("4k3/8/8/8/8/2n2n2/3r4/K6K w - - 0 1 kc 33").unwrap();
    let mut g = Chess2Game::new(start, DrawPolicy::Automatic);
    for text in ["a1a1", "0000", "e8e7"] {
        g.replay(text.parse().unwrap()).unwrap();
    }
    let bytes = encode_chess2(&g).unwrap();
    let decoded = decode_chess2(start, DrawPolicy::Automatic, &bytes, 3).unwrap();
    assert_eq!(decoded.steps(), g.steps());
    assert_eq!(decoded.position(), g.position());
}

#[test]
fn refused_input_writes_nothing() {
    let pos = Position::startpos();
    let mut writer = MoveWriter::new();
    let bad = Move::normal(chessd_core::Square::E2, chessd_core::Square::E5);
    assert_eq!(writer.push(&pos, bad), Err(CodecError::IllegalMove(bad)));
    assert_eq!(writer.len_bits(), 0);

    let start = Chess2Position::start(Army::Classic, Army::Classic);
    let mut w =
        chessd_core::codec::Chess2StepWriter::new(Chess2Game::new(start, DrawPolicy::Automatic));
    assert!(matches!(
        w.push(Chess2Action::Challenge),
        Err(CodecError::Refused(_))
    ));
    assert!(matches!(
        w.push("e2e5".parse().unwrap()),
        Err(CodecError::Refused(_))
    ));
    assert_eq!(w.len_bits(), 0);
    w.push("e2e4".parse().unwrap()).unwrap();
    assert!(w.len_bits() > 0);
}

#[test]
fn one_record_holds_moves_then_clocks() {
    let mut rng = Rng(0xC10C_C0DE);
    let (start, moves) = random_game(chessd_core::START_FEN, 80, &mut rng);
    let tc = TimeControl {
        initial_ms: 300_000,
        increment_ms: 3_000,
    };
    let mut writer = MoveWriter::new();
    let mut pos = start;
    let mut clocks = Vec::new();
    let mut now = [tc.initial_ms; 2];
    for &mv in &moves {
        writer.push(&pos, mv).unwrap();
        let me = pos.turn().index();
        now[me] = now[me] + tc.increment_ms - rng.below(9_000) as u64;
        clocks.push((pos.turn(), now));
        pos.play_unchecked(mv);
    }
    let mut clock_writer = ClockWriter::with_bits(writer.into_bits(), tc);
    for &(mover, c) in &clocks {
        clock_writer.push(mover, c);
    }
    let bytes = clock_writer.finish();

    let mut reader = MoveReader::new(start, &bytes, moves.len());
    let decoded: Vec<Move> = reader.by_ref().map(Result::unwrap).collect();
    assert_eq!(decoded, moves);
    let mut clock_reader = ClockReader::from_bits(tc, reader.into_bits());
    for &(mover, c) in &clocks {
        assert_eq!(clock_reader.next_clocks(mover).unwrap(), c);
    }
    assert_eq!(clock_reader.into_bits().expect_end(), Ok(()));
}

/// The stored format does not drift: the order of moves is part of it, so a change to the
/// order (or its speed-ups) that decodes stored games differently fails here. The games are
/// fixed (seeded random games from every start position); the digest is of their encodings,
/// taken when the format was set (session 20), and may change only with a new format number
/// and a migration of stored records.
#[test]
fn encodings_of_fixed_games_stay_as_stored() {
    let mut rng = Rng(0x5EED_C0DE);
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    let mut plies = 0;
    for fen in starts() {
        let (start, moves) = random_game(&fen, 120, &mut rng);
        plies += moves.len();
        for byte in encode_moves(&start, &moves).unwrap() {
            digest = (digest ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
        }
    }
    assert!(plies > 10_000, "{plies} plies");
    assert_eq!(digest, 2_634_266_564_473_087_591, "digest of {plies} plies");
}
