//! Property tests: the FEN, UCI and SAN parsers never panic, on random text and on random
//! mutations of valid input, and whatever they accept is consistent (a parsed FEN writes back
//! to a FEN that parses to the same position; an accepted move is legal).

use crate::common;

use chessd_core::{FenMode, Position};
use proptest::prelude::*;

const SAMPLE_FENS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/5bk1/8/2Pp4/8/1K6/8/8 w - d6 0 1",
];

/// A FEN with one character replaced, inserted or deleted.
fn mutated_fen() -> impl Strategy<Value = String> {
    common::mutated(
        &SAMPLE_FENS,
        "pnbrqkPNBRQK12345678/ -wbKQkqabcdefghAH0123456789x\u{e9}",
    )
}

fn check_fen(text: &str) {
    for mode in [FenMode::Strict, FenMode::Lenient] {
        if let Ok(pos) = Position::from_fen(text, mode) {
            let again = Position::from_fen(&pos.fen(), FenMode::Lenient)
                .expect("our own FEN output parses");
            assert_eq!(again.fen(), pos.fen());
            assert_eq!(again.hash(), pos.hash());
            // Move generation must work on anything accepted.
            let _ = pos.legal_moves();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn fen_parser_never_panics_on_random_text(text in ".{0,100}") {
        check_fen(&text);
    }

    #[test]
    fn fen_parser_never_panics_on_mutations(text in mutated_fen()) {
        check_fen(&text);
    }

    #[test]
    fn move_parsers_never_panic(
        fen in prop::sample::select(&SAMPLE_FENS[..]),
        text in "[a-hKQRBNOo0x=+#!?1-8 .-]{0,10}|.{0,12}",
    ) {
        let pos = Position::from_fen(fen, FenMode::Lenient).expect("sample FENs parse");
        if let Ok(mv) = pos.parse_uci(&text) {
            prop_assert!(pos.is_legal(mv));
        }
        if let Ok(mv) = pos.parse_san(&text) {
            prop_assert!(pos.is_legal(mv));
        }
    }
}
