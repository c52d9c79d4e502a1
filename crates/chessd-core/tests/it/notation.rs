//! Move notation: SAN and UCI writing and parsing.
//!
//! The expected SAN in the tables below was written by hand from the rules of chess (no engine
//! output). The round-trip tests run over every legal move of the shared perft suites.

use chessd_core::{
    san::SanError, uci::UciError, FenMode, IllegalReason, Move, Position, Role, Square,
};

const PERFT_SUITE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/perft/perft_suite.epd"
));
const PERFT_960: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/perft/perft_chess960.epd"
));

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, FenMode::Lenient).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The FENs of an EPD file (the part before the first `;`).
fn epd_fens(epd: &str) -> impl Iterator<Item = &str> {
    epd.lines()
        .map(|line| line.split(';').next().unwrap_or("").trim())
        .filter(|fen| !fen.is_empty())
}

// ----- Writing, by hand -----

/// (FEN, move in UCI, SAN).
const SAN_TABLE: &[(&str, &str, &str)] = &[
    // Start position.
    (START, "e2e4", "e4"),
    (START, "a2a3", "a3"),
    (START, "g1f3", "Nf3"),
    (START, "b1c3", "Nc3"),
    // Two knights reach d2: the file tells them apart.
    (KNIGHTS, "b1d2", "Nbd2"),
    (KNIGHTS, "f3d2", "Nfd2"),
    (KNIGHTS, "b1c3", "Nc3"),
    (KNIGHTS, "f3e5", "Ne5"),
    // Two rooks on the a-file: the rank tells them apart.
    (ROOKS, "a1a3", "R1a3"),
    (ROOKS, "a5a3", "R5a3"),
    (ROOKS, "a1a2", "R1a2"),
    (ROOKS, "a1a4", "R1a4"),
    (ROOKS, "a5a6", "Ra6"),
    (ROOKS, "a1d1", "Rd1"),
    (ROOKS, "a5a8", "Ra8+"),
    // Three queens reach e1: file, both, rank.
    (QUEENS, "e4e1", "Qee1"),
    (QUEENS, "h4e1", "Qh4e1"),
    (QUEENS, "h1e1", "Q1e1"),
    (QUEENS, "h4d8", "Qd8+"),
    (QUEENS, "e4c6", "Qc6+"),
    // Two knights on the b-file capture on d2: the rank tells them apart.
    (KNIGHTS_FILE, "b1d2", "N1xd2"),
    (KNIGHTS_FILE, "b3d2", "N3xd2"),
    (KNIGHTS_FILE, "e1d2", "Kxd2"),
    (KNIGHTS_FILE, "b3c1", "Nc1"),
    (KNIGHTS_FILE, "b3d4", "Nd4"),
    // The pinned knight on c3 cannot go to e2, so Ne2 needs no disambiguation.
    (PINNED, "g1e2", "Ne2"),
    (PINNED, "g1f3", "Nf3"),
    // Black rooks.
    (BLACK_ROOKS, "a8d8", "Rad8"),
    (BLACK_ROOKS, "h8d8", "Rhd8"),
    (BLACK_ROOKS, "a8e8", "Rae8+"),
    (BLACK_ROOKS, "h8e8", "Rhe8+"),
    (BLACK_ROOKS, "a8a3", "Ra3"),
    (BLACK_ROOKS, "h8h1", "Rh1+"),
    // Pawn captures and en passant.
    (PAWN_CAPTURE, "e4d5", "exd5"),
    (PAWN_CAPTURE, "e4e5", "e5"),
    (EN_PASSANT, "e5d6", "exd6"),
    (EN_PASSANT, "e5e6", "e6"),
    // Promotions, with capture and check.
    (PROMOTION, "b7a8q", "bxa8=Q+"),
    (PROMOTION, "b7a8r", "bxa8=R+"),
    (PROMOTION, "b7a8b", "bxa8=B"),
    (PROMOTION, "b7a8n", "bxa8=N"),
    (PROMOTION, "b7b8q", "b8=Q+"),
    (PROMOTION, "b7b8r", "b8=R+"),
    (PROMOTION, "b7b8b", "b8=B"),
    (PROMOTION, "b7b8n", "b8=N"),
    (BLACK_PROMOTION, "e2e1q", "e1=Q+"),
    (BLACK_PROMOTION, "e2e1r", "e1=R+"),
    (BLACK_PROMOTION, "e2e1b", "e1=B"),
    (BLACK_PROMOTION, "e2e1n", "e1=N"),
    // Castling, with check and mate.
    (CASTLE_CHECK_SHORT, "e1g1", "O-O+"),
    (CASTLE_CHECK_SHORT, "h1h8", "Rh8+"),
    (CASTLE_CHECK_SHORT, "e1f1", "Kf1"),
    (CASTLE_CHECK_LONG, "e1c1", "O-O-O+"),
    (CASTLE_MATE, "e1g1", "O-O#"),
    (BACK_RANK, "a1a8", "Ra8#"),
    (BACK_RANK, "e1c1", "O-O-O"),
    // Chess960: castling is named by the rook's side.
    (C960, "b1a1", "O-O-O"),
    (C960, "b1h1", "O-O"),
    (C960, "b1c1", "Kc1"),
];

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KNIGHTS: &str = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
const ROOKS: &str = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
const QUEENS: &str = "2k5/8/8/8/4Q2Q/8/K7/7Q w - - 0 1";
const KNIGHTS_FILE: &str = "4k3/8/8/8/8/1N6/3n4/1N2K3 w - - 0 1";
const PINNED: &str = "4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1";
const BLACK_ROOKS: &str = "r6r/8/8/8/8/8/k7/4K3 b - - 0 1";
const PAWN_CAPTURE: &str = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1";
const EN_PASSANT: &str = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
const PROMOTION: &str = "r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
const BLACK_PROMOTION: &str = "4k3/8/8/8/8/8/4p3/K7 b - - 0 1";
const CASTLE_CHECK_SHORT: &str = "5k2/8/8/8/8/8/8/4K2R w K - 0 1";
const CASTLE_CHECK_LONG: &str = "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1";
const CASTLE_MATE: &str = "4rkr1/4p1p1/8/8/8/8/8/4K2R w K - 0 1";
const BACK_RANK: &str = "6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1";
const C960: &str = "6k1/8/8/8/8/8/8/RK5R w HA - 0 1";
const PAWN_OR_BISHOP: &str = "4k3/8/8/8/8/2n5/1P6/4BK2 w - - 0 1";
const THROUGH_CHECK: &str = "r3k2r/8/8/8/8/8/5r2/R3K2R w KQ - 0 1";
const KING_NEAR_ROOK: &str = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";

#[test]
fn san_table_written_by_hand() {
    for &(fen, uci, san) in SAN_TABLE {
        let p = pos(fen);
        let mv = p
            .parse_uci(uci)
            .unwrap_or_else(|e| panic!("{fen}: {uci}: {e}"));
        assert_eq!(p.san(mv), san, "{fen}: {uci}");
        assert_eq!(p.parse_san(san), Ok(mv), "{fen}: {san}");
        let mut appended = String::from("1. ");
        p.append_san(mv, &mut appended);
        assert_eq!(appended, format!("1. {san}"));
    }
}

#[test]
fn checkmate_suffix_matches_the_position() {
    for &(fen, uci, san) in SAN_TABLE {
        let p = pos(fen);
        let after = p.after(p.parse_uci(uci).unwrap());
        assert_eq!(san.ends_with('#'), after.is_checkmate(), "{fen}: {san}");
        assert_eq!(
            san.ends_with('+'),
            after.is_check() && !after.is_checkmate(),
            "{fen}: {san}"
        );
    }
}

// ----- Parsing: lenient forms -----

/// (FEN, text, the move it names in UCI).
const LENIENT: &[(&str, &str, &str)] = &[
    (START, "e4", "e2e4"),
    (START, "e2-e4", "e2e4"),
    (START, "e2e4", "e2e4"),
    (START, " e4 ", "e2e4"),
    (START, "e4!?", "e2e4"),
    (START, "Pe4", "e2e4"),
    (START, "Nf3", "g1f3"),
    (START, "Ng1f3", "g1f3"),
    (START, "Ng1-f3", "g1f3"),
    (START, "Ng1xf3", "g1f3"),
    (START, "g1f3", "g1f3"),
    (START, "Ngf3", "g1f3"),
    (START, "N1f3", "g1f3"),
    (START, "Nf3+", "g1f3"),
    (START, "Nf3#", "g1f3"),
    (START, "Nf3!", "g1f3"),
    (START, "Nf3?", "g1f3"),
    (START, "Nf3!!", "g1f3"),
    (START, "Nf3??", "g1f3"),
    (START, "Nf3!?", "g1f3"),
    (START, "Nf3?!", "g1f3"),
    (CASTLE_CHECK_SHORT, "O-O", "e1g1"),
    (CASTLE_CHECK_SHORT, "O-O+", "e1g1"),
    (CASTLE_CHECK_SHORT, "0-0", "e1g1"),
    (CASTLE_CHECK_SHORT, "0-0+", "e1g1"),
    (CASTLE_CHECK_SHORT, "o-o", "e1g1"),
    (CASTLE_CHECK_SHORT, "e1g1", "e1g1"),
    (CASTLE_CHECK_SHORT, "e1h1", "e1g1"),
    (CASTLE_CHECK_SHORT, "Ke1g1", "e1g1"),
    (CASTLE_CHECK_LONG, "O-O-O", "e1c1"),
    (CASTLE_CHECK_LONG, "0-0-0", "e1c1"),
    (CASTLE_CHECK_LONG, "0-0-0+", "e1c1"),
    (CASTLE_CHECK_LONG, "e1c1", "e1c1"),
    (CASTLE_CHECK_LONG, "e1a1", "e1c1"),
    (CASTLE_MATE, "O-O#", "e1g1"),
    (CASTLE_MATE, "O-O+", "e1g1"),
    (PROMOTION, "b8=Q", "b7b8q"),
    (PROMOTION, "b8=q", "b7b8q"),
    (PROMOTION, "b8q", "b7b8q"),
    (PROMOTION, "b8Q", "b7b8q"),
    (PROMOTION, "b8=n", "b7b8n"),
    (PROMOTION, "b8b", "b7b8b"),
    (PROMOTION, "bxa8=Q+", "b7a8q"),
    (PROMOTION, "bxa8=q", "b7a8q"),
    (PROMOTION, "bxa8q", "b7a8q"),
    (PROMOTION, "ba8=R", "b7a8r"),
    (PROMOTION, "b7a8q", "b7a8q"),
    (PROMOTION, "b7xa8=Q", "b7a8q"),
    (PROMOTION, "b7-b8=N", "b7b8n"),
    (PAWN_CAPTURE, "ed5", "e4d5"),
    (PAWN_CAPTURE, "e4xd5", "e4d5"),
    (PAWN_CAPTURE, "e:d5", "e4d5"),
    (EN_PASSANT, "exd6", "e5d6"),
    (EN_PASSANT, "exd6 e.p.", "e5d6"),
    (EN_PASSANT, "exd6e.p.", "e5d6"),
    (EN_PASSANT, "ed6", "e5d6"),
    (EN_PASSANT, "e5d6", "e5d6"),
    // Missing `x` on a piece capture; superfluous disambiguation.
    (KNIGHTS_FILE, "N1d2", "b1d2"),
    (KNIGHTS_FILE, "Nb1d2", "b1d2"),
    (KNIGHTS_FILE, "Nb1xd2", "b1d2"),
    (KNIGHTS_FILE, "Kd2", "e1d2"),
    (KNIGHTS, "Nbd2", "b1d2"),
    (KNIGHTS, "Nfd2", "f3d2"),
    (KNIGHTS, "Nf3d2", "f3d2"),
    (KNIGHTS, "Nb1c3", "b1c3"),
    (QUEENS, "Qh4e1", "h4e1"),
    (QUEENS, "Q1e1", "h1e1"),
    (PINNED, "Nge2", "g1e2"),
    (PINNED, "Ne2", "g1e2"),
    // Lower-case `b` is a file, upper-case `B` a bishop.
    (PAWN_OR_BISHOP, "bxc3", "b2c3"),
    (PAWN_OR_BISHOP, "bc3", "b2c3"),
    (PAWN_OR_BISHOP, "Bxc3", "e1c3"),
    (PAWN_OR_BISHOP, "Bc3", "e1c3"),
    (PAWN_OR_BISHOP, "b4", "b2b4"),
    (PAWN_OR_BISHOP, "b3", "b2b3"),
    (THROUGH_CHECK, "O-O-O", "e1c1"),
    (KING_NEAR_ROOK, "Kxd2", "e1d2"),
    (KING_NEAR_ROOK, "Kf1", "e1f1"),
    (C960, "O-O-O", "b1a1"),
    (C960, "O-O", "b1h1"),
    (C960, "b1a1", "b1a1"),
    (C960, "b1c1", "b1c1"),
    (C960, "b1g1", "b1h1"),
];

#[test]
fn lenient_forms() {
    for &(fen, text, uci) in LENIENT {
        let p = pos(fen);
        let expected = p.parse_uci(uci).unwrap();
        assert_eq!(p.parse_san(text), Ok(expected), "{fen}: {text:?}");
    }
}

// ----- Parsing: errors -----

#[test]
fn ambiguous_san_lists_every_candidate() {
    let cases: &[(&str, &str, &[&str])] = &[
        (KNIGHTS, "Nd2", &["Nbd2", "Nfd2"]),
        (KNIGHTS_FILE, "Nd2", &["N1xd2", "N3xd2"]),
        (KNIGHTS_FILE, "Nxd2", &["N1xd2", "N3xd2"]),
        (KNIGHTS_FILE, "Nbd2", &["N1xd2", "N3xd2"]),
        (ROOKS, "Ra3", &["R1a3", "R5a3"]),
        (QUEENS, "Qe1", &["Q1e1", "Qee1", "Qh4e1"]),
        (QUEENS, "Qhe1", &["Q1e1", "Qh4e1"]),
        (QUEENS, "Q4e1", &["Qee1", "Qh4e1"]),
        (BLACK_ROOKS, "Rd8", &["Rad8", "Rhd8"]),
        (BLACK_ROOKS, "Re8+", &["Rae8+", "Rhe8+"]),
        // A promotion without a piece: never a silent queen.
        (PROMOTION, "b8", &["b8=B", "b8=N", "b8=Q+", "b8=R+"]),
        (
            PROMOTION,
            "bxa8",
            &["bxa8=B", "bxa8=N", "bxa8=Q+", "bxa8=R+"],
        ),
        (PROMOTION, "b7b8", &["b8=B", "b8=N", "b8=Q+", "b8=R+"]),
    ];
    for &(fen, text, expected) in cases {
        let p = pos(fen);
        match p.parse_san(text) {
            Err(SanError::Ambiguous {
                text: echoed,
                mut candidates,
            }) => {
                assert_eq!(echoed, text);
                candidates.sort();
                assert_eq!(candidates, expected, "{fen}: {text}");
                // Every candidate parses to a distinct legal move.
                let moves: Vec<Move> = candidates.iter().map(|c| p.parse_san(c).unwrap()).collect();
                for (i, a) in moves.iter().enumerate() {
                    assert!(moves[i + 1..].iter().all(|b| b != a));
                }
            }
            other => panic!("{fen}: {text}: expected ambiguity, got {other:?}"),
        }
    }
    let err = pos(KNIGHTS).parse_san("Nd2").unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("Nbd2") && message.contains("Nfd2"),
        "{message}"
    );
}

#[test]
fn illegal_san_is_refused() {
    let cases: &[(&str, &str, IllegalReason)] = &[
        (START, "e5", IllegalReason::CannotMoveThere),
        (START, "Nf4", IllegalReason::CannotMoveThere),
        (START, "Ke2", IllegalReason::OwnPiece),
        (START, "O-O", IllegalReason::CannotMoveThere),
        (START, "O-O-O", IllegalReason::CannotMoveThere),
        (START, "Bb5", IllegalReason::CannotMoveThere),
        (START, "e2e5", IllegalReason::CannotMoveThere),
        (START, "e7e5", IllegalReason::WrongSide),
        (START, "e4=Q", IllegalReason::BadPromotion),
        (START, "Nf3=Q", IllegalReason::BadPromotion),
        (START, "Qd1d1", IllegalReason::SameSquare),
        // The pinned knight.
        (PINNED, "Nce2", IllegalReason::OwnKingInCheck),
        (PINNED, "Nc3e2", IllegalReason::OwnKingInCheck),
        // A king walking into check.
        (KING_NEAR_ROOK, "Kd1", IllegalReason::OwnKingInCheck),
        (KING_NEAR_ROOK, "Ke2", IllegalReason::OwnKingInCheck),
        (KING_NEAR_ROOK, "Kf2", IllegalReason::OwnKingInCheck),
        // Castling through check, in every notation.
        (THROUGH_CHECK, "O-O", IllegalReason::OwnKingInCheck),
        (THROUGH_CHECK, "0-0", IllegalReason::OwnKingInCheck),
        (THROUGH_CHECK, "e1g1", IllegalReason::OwnKingInCheck),
        (THROUGH_CHECK, "e1h1", IllegalReason::OwnKingInCheck),
        // En passant without the right; the pawn push does not reach d6 either.
        (PAWN_CAPTURE, "d5", IllegalReason::NoPiece),
        (PAWN_CAPTURE, "exd6", IllegalReason::CannotMoveThere),
        // Promotion to king or pawn.
        (PROMOTION, "b8=K", IllegalReason::BadPromotion),
        (PROMOTION, "b8=P", IllegalReason::BadPromotion),
        (PROMOTION, "b8k", IllegalReason::BadPromotion),
        // A wrong piece letter on a long-algebraic move.
        (START, "Bg1f3", IllegalReason::NoPiece),
        // Capturing one's own piece.
        (START, "Nxd2", IllegalReason::OwnPiece),
    ];
    for &(fen, text, reason) in cases {
        assert_eq!(
            pos(fen).parse_san(text),
            Err(SanError::Illegal(text.to_string(), reason)),
            "{fen}: {text}"
        );
    }
}

#[test]
fn syntax_garbage_is_refused() {
    let p = pos(START);
    let long = "Nf3".repeat(100_000);
    let many_annotations = format!("e4{}", "!?".repeat(50_000));
    let texts: Vec<&str> = vec![
        "",
        " ",
        "+",
        "!!",
        "e",
        "e9",
        "i4",
        "Nf9",
        "Zf3",
        "nf3",
        "qd4",
        "kd2",
        "Nf3x",
        "xe4",
        "e8=",
        "e8=X",
        "O-O-O-O",
        "O",
        "--",
        "0000",
        "Z0",
        "1. e4",
        "e4 e5",
        "♘f3",
        "Nf3♘",
        "e４",
        "\u{0}",
        "\u{202e}e4",
        "Ng1g1f3",
        &long,
    ];
    for text in texts {
        match p.parse_san(text) {
            Err(SanError::Syntax(echoed)) => {
                assert!(echoed.chars().count() <= 41, "error echo is bounded");
            }
            other => panic!("{text:?}: expected a syntax error, got {other:?}"),
        }
    }
    // Annotation stripping is linear and what is left is a plain move.
    assert_eq!(
        p.parse_san(&many_annotations),
        Ok(Move::normal(Square::E2, Square::E4))
    );
}

#[test]
fn parsers_never_panic_on_short_strings() {
    let alphabet: Vec<char> = "aeh18NBRQKPOo0x=+#-.é♘ b".chars().collect();
    let positions = [pos(START), pos(PROMOTION), pos(C960), pos(EN_PASSANT)];
    let mut accepted = 0;
    let mut text = String::new();
    for &a in &alphabet {
        for &b in &alphabet {
            for &c in &alphabet {
                for &d in &alphabet {
                    text.clear();
                    text.extend([a, b, c, d]);
                    for p in &positions {
                        if let Ok(mv) = p.parse_san(&text) {
                            assert!(p.is_legal(mv));
                            accepted += 1;
                        }
                        if let Ok(mv) = p.parse_uci(&text) {
                            assert!(p.is_legal(mv));
                        }
                        for cut in 0..text.len() {
                            if text.is_char_boundary(cut) {
                                let _ = p.parse_san(&text[..cut]);
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(accepted > 0);
}

// ----- Binbo-style input (from Binbo's README) -----

/// Plays `moves` (SAN as typed) from `fen`; returns the final position and the moves as this
/// crate writes them.
fn play_san(fen: &str, moves: &[&str]) -> (Position, Vec<String>) {
    let mut p = pos(fen);
    let mut written = Vec::new();
    for &san in moves {
        let mv = p
            .parse_san(san)
            .unwrap_or_else(|e| panic!("{}: {san}: {e}", p.fen()));
        written.push(p.san(mv));
        p = p.after(mv);
    }
    (p, written)
}

#[test]
fn binbo_scholars_mate() {
    // Binbo's README types the mate without its `x`; it is written back as strict SAN.
    let (p, written) = play_san(START, &["e4", "e5", "Bc4", "d6", "Qf3", "Nc6", "Qf7#"]);
    assert_eq!(written, ["e4", "e5", "Bc4", "d6", "Qf3", "Nc6", "Qxf7#"]);
    assert!(p.is_checkmate());
    // The same game in Binbo's square notation.
    let mut q = pos(START);
    for uci in ["e2e4", "e7e5", "f1c4", "d7d6", "d1f3", "b8c6", "f3f7"] {
        q = q.after(q.parse_uci(uci).unwrap());
    }
    assert_eq!(q, p);
    // And by square indices (binbo:index_move): e2 = 12, e4 = 28.
    let start = pos(START);
    assert_eq!(
        start.move_from_indices(12, 28, None),
        Ok(Move::normal(Square::E2, Square::E4))
    );
}

#[test]
fn binbo_castling_both_sides_both_colours() {
    let game = [
        "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O", "Nf6", "d3", "O-O",
    ];
    let (p, written) = play_san(START, &game);
    assert_eq!(written, game);
    assert_eq!(
        p.fen(),
        "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 1 6"
    );
    let full = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    for (side, uci, san) in [
        ("w", "e1g1", "O-O"),
        ("w", "e1c1", "O-O-O"),
        ("b", "e8g8", "O-O"),
        ("b", "e8c8", "O-O-O"),
    ] {
        let p = pos(&full.replace(" w ", &format!(" {side} ")));
        let by_uci = p.parse_uci(uci).unwrap();
        assert!(by_uci.is_castle());
        assert_eq!(p.parse_san(san), Ok(by_uci));
        assert_eq!(p.san(by_uci), san);
        assert_eq!(p.uci(by_uci), uci);
    }
}

#[test]
fn binbo_promotions() {
    let white = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        white.parse_san("a8=Q"),
        Ok(Move::promotion(Square::A7, Square::A8, Role::Queen))
    );
    assert_eq!(
        white.parse_san("a8=N"),
        Ok(Move::promotion(Square::A7, Square::A8, Role::Knight))
    );
    assert_eq!(
        white.parse_uci("a7a8n"),
        Ok(Move::promotion(Square::A7, Square::A8, Role::Knight))
    );
    // Binbo reads a bare `a8` / `a7a8` as a queen; here it is refused rather than guessed.
    assert!(matches!(
        white.parse_san("a8"),
        Err(SanError::Ambiguous { .. })
    ));
    assert_eq!(
        white.parse_uci("a7a8"),
        Err(UciError::Illegal(
            "a7a8".to_string(),
            IllegalReason::MissingPromotion
        ))
    );
    let black = pos("4k3/8/8/8/8/8/p7/4K3 b - - 0 1");
    assert_eq!(
        black.parse_san("a1=Q"),
        Ok(Move::promotion(Square::A2, Square::A1, Role::Queen))
    );
    assert_eq!(
        black.parse_san("a1=N"),
        Ok(Move::promotion(Square::A2, Square::A1, Role::Knight))
    );
    assert_eq!(black.san(black.parse_san("a1=Q").unwrap()), "a1=Q+");
}

#[test]
fn binbo_other_examples() {
    // Qxd5
    let game = ["e4", "d5", "exd5", "Qxd5"];
    assert_eq!(play_san(START, &game).1, game);
    // Rdf8
    let p = pos("3r3r/8/8/8/8/8/k7/4K3 b - - 0 1");
    let mv = p.parse_san("Rdf8").unwrap();
    assert_eq!(mv, Move::normal(Square::D8, Square::F8));
    assert_eq!(p.san(mv), "Rdf8");
    // R1a3
    let p = pos(ROOKS);
    assert_eq!(
        p.parse_san("R1a3"),
        Ok(Move::normal(Square::A1, Square::A3))
    );
    // e1e8: long algebraic for a rook.
    let p = pos("7k/8/8/8/8/8/8/K3R3 w - - 0 1");
    let mv = p.parse_san("e1e8").unwrap();
    assert_eq!(mv, Move::normal(Square::E1, Square::E8));
    assert_eq!(p.san(mv), "Re8+");
}

// ----- Round trips over the perft suites -----

/// Checks SAN and UCI round trips for every legal move of `p`; returns the number of moves.
fn round_trip(p: &Position, context: &str) -> usize {
    let moves = p.legal_moves();
    let mut sans: Vec<String> = Vec::with_capacity(moves.len());
    for &mv in moves.iter() {
        let san = p.san(mv);
        assert_eq!(p.parse_san(&san), Ok(mv), "{context}: {} {san}", p.fen());
        let uci = p.uci(mv);
        assert_eq!(p.parse_uci(&uci), Ok(mv), "{context}: {} {uci}", p.fen());
        // UCI text is also accepted as long algebraic SAN.
        assert_eq!(p.parse_san(&uci), Ok(mv), "{context}: {} {uci}", p.fen());
        assert_eq!(
            p.move_from_squares(mv.from(), mv.to(), mv.promotion_role()),
            Ok(mv)
        );
        // The suffix is right.
        let after = p.after(mv);
        let mate = after.is_checkmate();
        assert_eq!(san.ends_with('#'), mate, "{context}: {san}");
        assert_eq!(
            san.ends_with('+'),
            after.is_check() && !mate,
            "{context}: {san}"
        );
        // The SAN without its suffix names the move too.
        let bare = san.trim_end_matches(['+', '#']);
        assert_eq!(p.parse_san(bare), Ok(mv), "{context}: {bare}");
        // Castling is written O-O / O-O-O, in Chess960 too.
        assert_eq!(mv.is_castle(), bare.starts_with("O-O"), "{context}: {san}");
        sans.push(san);
    }
    sans.sort();
    sans.dedup();
    assert_eq!(sans.len(), moves.len(), "{context}: SAN must be unique");
    moves.len()
}

#[test]
fn round_trip_perft_suite() {
    let mut total = 0;
    for (i, fen) in epd_fens(PERFT_SUITE).enumerate() {
        total += round_trip(&pos(fen), &format!("suite line {}", i + 1));
    }
    assert!(total > 2000, "{total}");
}

#[test]
fn round_trip_chess960_suite() {
    let mut total = 0;
    for (i, fen) in epd_fens(PERFT_960).take(100).enumerate() {
        let p = pos(fen);
        total += round_trip(&p, &format!("chess960 line {}", i + 1));
        // Two plies deep as well: castling appears once pieces have moved.
        for mv in p.legal_moves().iter().copied() {
            let q = p.after(mv);
            for reply in q.legal_moves().iter().copied() {
                round_trip(&q.after(reply), &format!("chess960 line {}", i + 1));
            }
        }
    }
    assert!(total > 1500, "{total}");
}

#[test]
fn round_trip_depth_two_from_suite() {
    let mut positions = 0;
    for (i, fen) in epd_fens(PERFT_SUITE).take(20).enumerate() {
        let p = pos(fen);
        for mv in p.legal_moves().iter().copied() {
            let q = p.after(mv);
            round_trip(&q, &format!("suite line {} after {mv:?}", i + 1));
            for reply in q.legal_moves().iter().copied() {
                round_trip(&q.after(reply), &format!("suite line {}", i + 1));
                positions += 1;
            }
        }
    }
    assert!(positions > 9_000, "{positions}");
}
