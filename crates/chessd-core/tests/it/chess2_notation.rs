//! Chess 2 notation against the Go engine's own data: every position of its perft file and
//! the HTTP API examples of its README read and write back unchanged.

use crate::common;

use chessd_core::chess2::{Army, Chess2Move, Chess2Position};

const PERFT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/chess2/chess2_perft.epd"
);

#[test]
fn every_perft_position_reads_and_writes_back() {
    let text = std::fs::read_to_string(PERFT).unwrap();
    let mut rows = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (epd, counts) = line.split_once(';').unwrap();
        let epd = epd.trim();
        let pos = Chess2Position::from_epd(epd).unwrap_or_else(|e| panic!("{epd}: {e}"));
        assert_eq!(pos.to_epd(), epd);
        assert_eq!(pos.stones(), [3, 3]);
        // Three counts a row, depths 1 to 3.
        assert_eq!(counts.trim().split('/').count(), 3, "{line}");
        rows += 1;
    }
    assert_eq!(rows, 12);
}

#[test]
fn the_readme_examples_read() {
    // `http :8080/new white==c black==k` and the EPD of its `/move` example.
    let start = Chess2Position::start(Army::Classic, Army::TwoKings);
    assert_eq!(
        start.to_epd(),
        "rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ck 33"
    );
    assert_eq!(
        Chess2Position::from_epd("rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ck 33")
            .unwrap(),
        start
    );
    let mv: Chess2Move = "d2d4".parse().unwrap();
    assert_eq!(mv.to_string(), "d2d4");
    assert!(mv.duels().is_empty());
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const SAMPLE_EPDS: [&str; 4] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 cc 33",
        "r3k2r/pnbk1bnp/8/8/8/8/PNBK1BNP/R3K2R w KQkq - 0 1 kk 33",
        "4k3/8/8/3pP3/8/8/8/3KK3 K - d6 7 31 ka 06",
        "rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - e3 0 1 ck 60",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The EPD parser never panics, and what it accepts writes back to itself.
        #[test]
        fn epds_never_panic_and_round_trip(
            text in common::mutated(&SAMPLE_EPDS, "pnbrqkPNBRQK12345678/ -wbKQkqcneraxdh0123456789\u{e9}")
        ) {
            if let Ok(pos) = Chess2Position::from_epd(&text) {
                let again = Chess2Position::from_epd(&pos.to_epd()).expect("our own EPD parses");
                prop_assert_eq!(again, pos);
            }
        }

        /// The move parser never panics, and what it accepts writes back to a string that
        /// parses to the same move.
        #[test]
        fn moves_never_panic_and_round_trip(
            text in common::mutated(
                &["e2e4", "a7a8q:22", "a8d8::10+", "h1h4:00-:12:2", "0000", "e1e1:"],
                "abcdefgh123456780:+-qrbnkpQ@ x",
            )
        ) {
            if let Ok(mv) = text.parse::<Chess2Move>() {
                let again: Chess2Move = mv.to_string().parse().expect("our own move string parses");
                prop_assert_eq!(again, mv);
            }
        }
    }
}
