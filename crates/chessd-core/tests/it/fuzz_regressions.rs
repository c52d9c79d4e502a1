//! Inputs the fuzz targets (`fuzz/`, see `fuzz/README.md`) found to break a property, kept as
//! plain tests so that `cargo test` catches a regression without the fuzzer. Each input is
//! also in the target's corpus, `fuzz/corpus/<target>/crash-*`.

use chessd_core::{FenMode, Position, MAX_FULLMOVE_NUMBER, MAX_HALFMOVE_CLOCK};

/// `fuzz/corpus/fen/crash-clocks`: a position with both clocks at the largest values a FEN may
/// give wrote, one move on, a FEN with larger ones that the parser refused. The clocks now stop
/// at those values.
#[test]
fn clocks_at_their_limits_still_write_a_fen_that_reads_back() {
    let fen = "k7/8/8/8/8/8/8/K7 b - - 10000 100000";
    for mode in [FenMode::Strict, FenMode::Lenient] {
        let pos = Position::from_fen(fen, mode).unwrap();
        assert_eq!(
            (pos.halfmoves(), pos.fullmoves()),
            (MAX_HALFMOVE_CLOCK, MAX_FULLMOVE_NUMBER)
        );
        for &mv in pos.legal_moves().iter() {
            let child = pos.after(mv);
            assert_eq!(
                (child.halfmoves(), child.fullmoves()),
                (MAX_HALFMOVE_CLOCK, MAX_FULLMOVE_NUMBER)
            );
            assert_eq!(Position::from_fen(&child.fen(), mode), Ok(child));
        }
        let mut null = pos;
        null.play_null();
        assert_eq!(null.halfmoves(), MAX_HALFMOVE_CLOCK);
    }
    // One below the limits the clocks still count.
    let pos = Position::from_fen("k7/8/8/8/8/8/8/K7 b - - 9999 99999", FenMode::Strict).unwrap();
    let child = pos.after(pos.legal_moves()[0]);
    assert_eq!((child.halfmoves(), child.fullmoves()), (10_000, 100_000));
    // And past them a FEN is still refused.
    assert!(Position::from_fen("k7/8/8/8/8/8/8/K7 b - - 10001 1", FenMode::Lenient).is_err());
    assert!(Position::from_fen("k7/8/8/8/8/8/8/K7 b - - 0 100001", FenMode::Lenient).is_err());
}
