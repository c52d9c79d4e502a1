//! PGN reading and writing: Binbo's PGN files (expectations from the files themselves, from
//! Binbo's own test suite and from replaying the moves with shakmaty), the grammar (comments,
//! escapes, variations, NAGs, FEN and Chess960 setups), error reports and recovery, streaming
//! input, the writer's round trip and line width, and a fuzz test.

use chessd_core::{
    codec::{encode_moves, MoveReader},
    game::{DrawPolicy, Game, GameError, GameResult, Reason},
    pgn::{
        read_game, write_game, write_noted_game, write_played_game, PgnError, PgnErrorKind,
        PgnGame, PgnMove, PgnParser, PgnReader, Variation, LINE_WIDTH,
    },
    san::SanError,
    IllegalReason, Position, Role, Square,
};
use proptest::prelude::*;

const BINBO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/pgn/binbo/");

const FILES: [&str; 9] = [
    "deep-blue-kasparov-1997-g6-no-result.pgn",
    "fifty-move-rule-Karpov-Kasparov.pgn",
    "fifty-move-rule-Lputian-Harutjunyan.pgn",
    "fifty-move-rule-Nguyen-Vachier-Lagrave.pgn",
    "fifty-move-rule-Timman-Lutz.pgn",
    "nightmare-annotated.pgn",
    "queen-castling.pgn",
    "simple.pgn",
    "threefold-repetition-Spassky-Fischer.pgn",
];

fn binbo(name: &str) -> String {
    std::fs::read_to_string(format!("{BINBO}{name}")).unwrap()
}

/// Reads a text that must hold exactly one valid game.
fn one_game(text: &str) -> PgnGame {
    let games: Vec<_> = PgnReader::new(text).collect();
    assert_eq!(games.len(), 1, "expected one game");
    games.into_iter().next().unwrap().unwrap()
}

fn read_all(text: &str) -> Vec<Result<PgnGame, PgnError>> {
    PgnReader::new(text).collect()
}

fn sans(moves: &[PgnMove]) -> Vec<&str> {
    moves.iter().map(|m| m.san.as_str()).collect()
}

// ----- Independent replay with shakmaty -----

type Sk = shakmaty::Chess;

fn sk_position(fen: &str, chess960: bool) -> Sk {
    use shakmaty::{fen::Fen, CastlingMode};
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    Fen::from_ascii(fen.as_bytes())
        .unwrap()
        .into_position(mode)
        .unwrap()
}

fn sk_fen(pos: &Sk) -> String {
    use shakmaty::{fen::Fen, EnPassantMode};
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Plays `moves` with shakmaty from `pos`, checking that each SAN we wrote is the SAN
/// shakmaty writes for the move we parsed; recurses into the variations, each from the
/// position before the move it replaces. Returns the position after the line and the deepest
/// variation nesting seen.
fn sk_check_line(mut pos: Sk, moves: &[PgnMove]) -> (Sk, usize) {
    use shakmaty::san::SanPlus;
    let mut depth = 0;
    for m in moves {
        for v in &m.variations {
            let (_, d) = sk_check_line(pos.clone(), &v.moves);
            depth = depth.max(d + 1);
        }
        let parsed = SanPlus::from_ascii(m.san.as_bytes())
            .unwrap()
            .san
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("shakmaty refuses {}: {e}", m.san));
        let written = SanPlus::from_move_and_play_unchecked(&mut pos, parsed);
        assert_eq!(written.to_string(), m.san);
    }
    (pos, depth)
}

/// The final FEN of the main line by shakmaty, and the variation depth.
fn sk_replay(game: &PgnGame) -> (String, usize) {
    let start = sk_position(&game.start.fen(), game.start.is_chess960());
    let (end, depth) = sk_check_line(start, &game.moves);
    (sk_fen(&end), depth)
}

// ----- Binbo's files -----

#[test]
fn every_binbo_file_loads_and_agrees_with_shakmaty() {
    for name in FILES {
        let game = one_game(&binbo(name));
        let (fen, _) = sk_replay(&game);
        assert_eq!(game.position().fen(), fen, "{name}");
        assert_eq!(game.game.history().len(), game.moves.len(), "{name}");
        for (played, m) in game.game.notated_history().iter().zip(&game.moves) {
            assert_eq!((played.mv, &played.san), (m.mv, &m.san), "{name}");
        }
    }
}

/// Expectations from Binbo's test suite (`pgn_SUITE.erl`) for its fifty-move-rule files: the
/// final FEN, the status after loading, and a next move refused because the game is over.
#[test]
fn fifty_move_rule_files_end_in_a_draw_under_the_automatic_policy() {
    let cases = [
        (
            "fifty-move-rule-Karpov-Kasparov.pgn",
            "7k/4N3/5K2/5BN1/8/8/8/r7 b - - 100 113",
            "Ra6+",
        ),
        (
            "fifty-move-rule-Lputian-Harutjunyan.pgn",
            "7k/1q6/7P/6P1/3Q3K/8/8/8 b - - 100 136",
            "Kh7",
        ),
        (
            "fifty-move-rule-Nguyen-Vachier-Lagrave.pgn",
            "4R3/kr6/2K5/2B5/8/8/8/8 b - - 100 121",
            "Ka6",
        ),
    ];
    for (name, fen, refused) in cases {
        let game = one_game(&binbo(name));
        assert_eq!(game.position().fen(), fen, "{name}");
        // The last move number is the full-move number of the final position.
        let plies = game.moves.len();
        assert_eq!(plies, (game.position().fullmoves() as usize - 1) * 2 + 1);
        assert_eq!(game.game.status().result, GameResult::Draw, "{name}");
        assert_eq!(
            game.game.status().reason,
            Some(Reason::FiftyMoves),
            "{name}"
        );
        assert_eq!(game.result, None, "{name}: no result token");
        assert_eq!(game.tag("Result"), None);
        let mut after = game.game.clone();
        assert!(matches!(
            after.play_san(refused),
            Err(GameError::GameOver(_))
        ));
        // The comment before the first move is kept.
        assert_eq!(game.prelude.len(), 1);
        assert!(game.prelude[0].starts_with("Original PGN https://www.chessgames.com/"));
        assert!(game.prelude[0].ends_with("fifty-move rule in Binbo application."));
    }
}

#[test]
fn timman_lutz_stops_one_move_short_of_the_fifty_move_rule() {
    let game = one_game(&binbo("fifty-move-rule-Timman-Lutz.pgn"));
    assert_eq!(game.moves.len(), 236);
    assert_eq!(
        game.position().fen(),
        "6R1/7k/8/8/1r3B2/5K2/8/8 w - - 99 119"
    );
    assert!(!game.game.is_over());
    let mut g = game.game.clone();
    g.play_san("Rg5").unwrap();
    assert_eq!(g.status().reason, Some(Reason::FiftyMoves));
    assert!(matches!(g.play_san("Ra4"), Err(GameError::GameOver(_))));
}

#[test]
fn spassky_fischer_repeats_a_third_time_with_qh6() {
    let game = one_game(&binbo("threefold-repetition-Spassky-Fischer.pgn"));
    assert_eq!(game.tag("PlyCount"), Some("94"));
    assert_eq!(game.moves.len(), 94);
    assert_eq!(game.result, Some(GameResult::Draw));
    assert_eq!(game.tag("Result"), Some("1/2-1/2"));
    assert_eq!(game.tag("White"), Some("Robert James Fischer"));
    assert_eq!(game.tags.len(), 12);
    assert!(!game.game.is_over());
    assert_eq!(game.game.repetition_count(), 2);
    let mut g = game.game.clone();
    g.play_san("Qh6").unwrap();
    assert_eq!(g.status().reason, Some(Reason::ThreefoldRepetition));
    assert_eq!(sans(&game.moves[90..]), ["Qh6", "Qf3", "Qh7", "Qc6"]);
}

#[test]
fn deep_blue_game_has_a_result_tag_but_no_result_token() {
    let game = one_game(&binbo("deep-blue-kasparov-1997-g6-no-result.pgn"));
    assert_eq!(game.moves.len(), 30);
    assert_eq!(game.result, None);
    assert_eq!(game.tag("Result"), Some("1-0"));
    assert_eq!(game.tag("Opening"), Some("Caro-Kann: 4...Nd7"));
    assert!(!game.game.is_over());
    // 10... Kd8 carries a comment in Cyrillic.
    assert_eq!(game.moves[19].san, "Kd8");
    assert_eq!(game.moves[19].comments, ["Каспаров встряхнул головой"]);
    assert_eq!(game.moves[16].san, "O-O");
    assert_eq!(game.moves[12].san, "N1f3");
    assert_eq!(sans(&game.moves[28..]), ["axb5", "cxb5"]);
}

#[test]
fn nightmare_annotated_game_reads_with_its_variations() {
    let game = one_game(&binbo("nightmare-annotated.pgn"));
    // 40... Rd8# ends the main line: checkmate, as the Result tag and token say.
    assert_eq!(game.moves.len(), 80);
    assert_eq!(game.moves[79].san, "Rd8#");
    assert_eq!(game.result, Some(GameResult::BlackWins));
    assert_eq!(game.tag("Result"), Some("0-1"));
    assert_eq!(game.game.status().result, GameResult::BlackWins);
    assert_eq!(game.game.status().reason, Some(Reason::Checkmate));
    assert_eq!(
        game.prelude,
        ["B84: Sicilian Scheveningen: 6 Be2 a6, lines without early Be3"]
    );
    // 1... c5 between tabs, with two comments.
    assert_eq!(game.moves[1].san, "c5");
    assert_eq!(
        game.moves[1].comments,
        ["% !!! INCLUDE TABS FOR TEST !!! %", "37"]
    );
    // 8... e5 has three alternatives: 8... b5, 8... Qb6, 8... Qc7.
    let e5 = &game.moves[15];
    assert_eq!(e5.san, "e5");
    let firsts: Vec<&str> = e5
        .variations
        .iter()
        .map(|v| v.moves[0].san.as_str())
        .collect();
    assert_eq!(firsts, ["b5", "Qb6", "Qc7"]);
    // 8... b5 ( 8... Qb6 ( 8... Qc7 9. a3 ( 9. Qe1 Nbd7 10. a4 ( 10. Bf3 ... ) ... ) ... ) ...
    // 9. Kh1 ... ) ( 8... Qc7 ... ) 9. Bf3 Ra7 ... ): five levels of nesting.
    let b5 = &e5.variations[0];
    assert_eq!(sans(&b5.moves[..3]), ["b5", "Bf3", "Ra7"]);
    assert_eq!(b5.moves.len(), 30);
    assert_eq!(
        b5.moves[29].comments,
        ["Bueno Perez,L (2200)-Soler,A (2345) Cienfuegos 1976 1/2-1/2 (44)"]
    );
    let alternatives: Vec<&str> = b5.moves[0]
        .variations
        .iter()
        .map(|v| v.moves[0].san.as_str())
        .collect();
    assert_eq!(alternatives, ["Qb6", "Qc7"]);
    let qb6 = &b5.moves[0].variations[0];
    assert_eq!(sans(&qb6.moves[..3]), ["Qb6", "Kh1", "Nbd7"]);
    let qc7 = &qb6.moves[0].variations[0];
    assert_eq!(sans(&qc7.moves[..3]), ["Qc7", "a3", "O-O"]);
    let qe1 = &qc7.moves[1].variations[0];
    assert_eq!(sans(&qe1.moves[..4]), ["Qe1", "Nbd7", "a4", "b6"]);
    let bf3 = &qe1.moves[2].variations[0];
    assert_eq!(bf3.moves[0].san, "Bf3");
    assert_eq!(bf3.moves.len(), 30);
    assert!(bf3.moves.iter().all(|m| m.variations.is_empty()));
    assert_eq!(
        bf3.moves[29].comments,
        ["Zuckerman,B (2450)-Benko,P (2480) New York 1976 1-0 (38)"]
    );
    // NAGs in variations: 10... Qxd1 ... 12. exf5 $11; 16. Ne4 $142.
    let o_o = &game.moves[19];
    assert_eq!(o_o.san, "O-O");
    let qxd1 = &o_o.variations[0];
    assert_eq!(qxd1.moves.last().unwrap().san, "exf5");
    assert_eq!(qxd1.moves.last().unwrap().nags, [11]);
    let rf2 = &game.moves[30];
    assert_eq!(rf2.san, "Rf2");
    assert_eq!(rf2.variations[0].moves[0].san, "Ne4");
    assert_eq!(rf2.variations[0].moves[0].nags, [142]);
    // Every variation move is legal where it stands (checked by shakmaty), five levels deep.
    let (_, depth) = sk_replay(&game);
    assert_eq!(depth, 5);
}

#[test]
fn queen_side_castling_file() {
    let game = one_game(&binbo("queen-castling.pgn"));
    assert!(game.tags.is_empty());
    assert_eq!(game.moves.len(), 84);
    assert_eq!(game.result, Some(GameResult::BlackWins));
    let castle = &game.moves[30];
    assert_eq!(castle.san, "O-O-O");
    assert!(castle.mv.is_castle());
    assert_eq!(castle.mv.king_destination(), Square::C1);
    assert_eq!(game.game.uci_history()[30], "e1c1");
    // 42... Qc2+ is the last move; Black won (White resigned), the game itself goes on.
    assert_eq!(game.moves[83].san, "Qc2+");
    assert!(!game.game.is_over());
}

#[test]
fn simple_file() {
    let game = one_game(&binbo("simple.pgn"));
    assert_eq!(sans(&game.moves), ["e4", "e5"]);
    assert_eq!(game.result, Some(GameResult::Ongoing));
    assert_eq!(
        game.position().fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
}

// ----- Grammar -----

#[test]
fn comments_with_brackets_semicolons_and_escape_lines() {
    let text = "[Event \"Comments \\\"quoted\\\" \\\\ here\"]\n\
                [Site \"a ] b\"]\n\
                \n\
                % an escape line: 1. d4 is not a move\n\
                1. e4 {[%clk 0:03:00] has ] inside} e5 ; rest of line ) ( {\n\
                2. Nf3 {spans\n\
                % not an escape here\n\
                lines} Nc6 *\n";
    let game = one_game(text);
    assert_eq!(game.tag("Event"), Some("Comments \"quoted\" \\ here"));
    assert_eq!(game.tag("Site"), Some("a ] b"));
    assert_eq!(sans(&game.moves), ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(game.moves[0].comments, ["[%clk 0:03:00] has ] inside"]);
    assert_eq!(game.moves[1].comments, ["rest of line ) ( {"]);
    assert_eq!(
        game.moves[2].comments,
        ["spans\n% not an escape here\nlines"]
    );
}

#[test]
fn nested_variations_three_deep() {
    let text = "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5 (2... Nf6 3. e5) 3. exd5) 2... d6) \
                (1... e6) 2. Nf3 *";
    let game = one_game(text);
    assert_eq!(sans(&game.moves), ["e4", "e5", "Nf3"]);
    let e5 = &game.moves[1];
    assert_eq!(e5.variations.len(), 2);
    let sicilian = &e5.variations[0];
    assert_eq!(sans(&sicilian.moves), ["c5", "Nf3", "d6"]);
    assert_eq!(sans(&e5.variations[1].moves), ["e6"]);
    let alapin = &sicilian.moves[1].variations[0];
    assert_eq!(sans(&alapin.moves), ["c3", "d5", "exd5"]);
    let nf6 = &alapin.moves[1].variations[0];
    assert_eq!(sans(&nf6.moves), ["Nf6", "e5"]);
    assert!(nf6.moves[1].variations.is_empty());
    let (_, depth) = sk_replay(&game);
    assert_eq!(depth, 3);

    // Plies in variations count from the start of the game.
    let bad = "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5 (2... Nf6 3. Ke3) 3. exd5) 2... d6) 2. Nf3 *";
    let err = read_game(bad).unwrap_err();
    assert_eq!((err.game, err.ply), (1, Some(5)));
    assert_eq!(err.token.as_deref(), Some("Ke3"));
    assert_eq!(
        err.kind,
        PgnErrorKind::San(SanError::Illegal(
            "Ke3".to_string(),
            IllegalReason::CannotMoveThere
        ))
    );
}

#[test]
fn nags_and_suffix_annotations_are_kept_per_move() {
    let game = one_game("1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! $14 4. Ba4 $1 $36 +- *");
    let nags: Vec<&[u8]> = game.moves.iter().map(|m| m.nags.as_slice()).collect();
    assert_eq!(
        nags,
        [&[1][..], &[2], &[3], &[4], &[5], &[6, 14], &[1, 36, 18]]
    );
    assert_eq!(game.moves[6].san, "Ba4");
    let text = write_game(&game);
    assert!(
        text.contains("1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! $14 4. Ba4! $36 $18 *"),
        "{text}"
    );
}

#[test]
fn lenient_move_forms_are_read_and_written_as_san() {
    let game = one_game("1.e2e4 e7-e5 2.Ng1f3 Nb8c6 3.Bb5 a6 4.0-0 *");
    assert_eq!(
        sans(&game.moves),
        ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"]
    );
}

#[test]
fn fen_start_with_black_to_move() {
    let text = "[Event \"From a position\"]\n\
                [SetUp \"1\"]\n\
                [FEN \"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12\"]\n\
                \n\
                12... Nf6 13. Nc3 {a comment} Bc5 14. Nxe5 Nxe5 *\n";
    let game = one_game(text);
    assert_eq!(sans(&game.moves), ["Nf6", "Nc3", "Bc5", "Nxe5", "Nxe5"]);
    assert_eq!(game.start.fullmoves(), 12);
    let (fen, _) = sk_replay(&game);
    assert_eq!(game.position().fen(), fen);
    let out = write_game(&game);
    assert!(out.contains("[SetUp \"1\"]\n[FEN \"r1bqkbnr/"), "{out}");
    assert!(
        out.contains("\n12... Nf6 13. Nc3 { a comment } 13... Bc5 14. Nxe5 Nxe5 *\n"),
        "{out}"
    );
    // A position that cannot arise is refused, naming the tag value.
    let bad = "[FEN \"k7/8/8/8/8/8/8/K6Q w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Kb1 *\n";
    let err = read_game(bad).unwrap_err();
    assert!(matches!(err.kind, PgnErrorKind::Fen(_)));
    assert_eq!(err.ply, None);
    assert_eq!(err.token.as_deref(), Some("k7/8/8/8/8/8/8/K6Q w - - 0 1"));
}

#[test]
fn chess960_castling() {
    for (variant, castling) in [
        ("Chess960", "GBgb"),
        ("chess 960", "KQkq"),
        ("Fischer Random", "KQkq"),
    ] {
        let text = format!(
            "[Variant \"{variant}\"]\n[SetUp \"1\"]\n\
             [FEN \"1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w {castling} - 0 1\"]\n\n\
             1. O-O O-O-O 2. Rb1a1 *\n"
        );
        let game = one_game(&text);
        assert!(game.start.is_chess960(), "{variant}");
        assert_eq!(sans(&game.moves), ["O-O", "O-O-O", "Ra1"]);
        let history = game.game.uci_history();
        // King takes rook in UCI; the king ends on g1 (one step), the rook on f1.
        assert_eq!(history[0], "f1g1");
        assert_eq!(history[1], "f8b8");
        assert_eq!(game.moves[0].mv.king_destination(), Square::G1);
        assert_eq!(
            game.position().fen(),
            "2kr2r1/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b - - 3 2"
        );
        let (fen, _) = sk_replay(&game);
        assert_eq!(fen, game.position().fen());
        let out = write_game(&game);
        assert!(out.contains(&format!("[Variant \"{variant}\"]")), "{out}");
        assert!(out.contains("1. O-O O-O-O 2. Ra1 *"), "{out}");
    }
}

#[test]
fn variants_other_than_chess_are_refused_and_reading_goes_on() {
    let text = "[Event \"a\"]\n[Variant \"Crazyhouse\"]\n\n1. e4 e5 *\n\n\
                [Event \"b\"]\n[Variant \"Standard\"]\n\n1. d4 *\n";
    let games = read_all(text);
    assert_eq!(games.len(), 2);
    let err = games[0].as_ref().unwrap_err();
    assert_eq!(err.game, 1);
    assert_eq!(
        err.kind,
        PgnErrorKind::UnsupportedVariant("Crazyhouse".to_string())
    );
    assert_eq!(
        err.to_string(),
        "game 1 (\"Crazyhouse\"): variant 'Crazyhouse' is not supported (only chess and Chess960)"
    );
    assert_eq!(games[1].as_ref().unwrap().tag("Event"), Some("b"));
}

// ----- Errors and recovery -----

#[test]
fn a_broken_game_in_the_middle_is_reported_and_reading_continues() {
    let text =
        "[Event \"one\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
                [Event \"two\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 Nbd7 \
                7. Rc1 c6 8. Bd3 dxc4 9. Bxc4 Nd5 10. Bxe7 Qxe7 11. Ne4 Nxe9 12. Nf6+ 1-0\n\n\
                [Event \"three\"]\n\n1. c4 { unterminated ( } (1. Nf3 \n\n\
                [Event \"four\"]\n\n1. e4 c5 2. Nf3 *\n\n\
                [Event \"five\"]\n\n1. e4 e5 2. Ke3 *\n\n\
                1. Nf3 d5 1/2-1/2\n";
    let games = read_all(text);
    assert_eq!(games.len(), 6);

    let one = games[0].as_ref().unwrap();
    assert_eq!(one.game.status().reason, Some(Reason::Checkmate));

    let two = games[1].as_ref().unwrap_err();
    assert_eq!((two.game, two.ply), (2, Some(22)));
    assert_eq!(two.token.as_deref(), Some("Nxe9"));
    assert_eq!(two.line, 8);
    assert_eq!(
        two.to_string(),
        "game 2, ply 22 (\"Nxe9\"): 'Nxe9' is not a move in SAN"
    );

    let three = games[2].as_ref().unwrap_err();
    assert_eq!(three.game, 3);
    assert_eq!(three.kind, PgnErrorKind::UnterminatedVariation);

    let four = games[3].as_ref().unwrap();
    assert_eq!((four.number, four.tag("Event")), (4, Some("four")));
    assert_eq!(sans(&four.moves), ["e4", "c5", "Nf3"]);

    let five = games[4].as_ref().unwrap_err();
    assert_eq!((five.game, five.ply), (5, Some(3)));
    assert_eq!(
        five.kind,
        PgnErrorKind::San(SanError::Illegal(
            "Ke3".to_string(),
            IllegalReason::CannotMoveThere
        ))
    );

    let six = games[5].as_ref().unwrap();
    assert_eq!(six.number, 6);
    assert!(six.tags.is_empty());
    assert_eq!(six.result, Some(GameResult::Draw));
}

#[test]
fn structural_errors_name_game_ply_and_token() {
    let cases: [(&str, Option<usize>, Option<&str>, PgnErrorKind); 9] = [
        (
            "1. e4 e5 ) 2. Nf3 *",
            Some(3),
            Some(")"),
            PgnErrorKind::UnmatchedClose,
        ),
        (
            "( 1. e4 ) *",
            Some(1),
            Some("("),
            PgnErrorKind::VariationWithoutMove,
        ),
        (
            "1. e4 (1. d4 1-0) *",
            Some(2),
            Some("1-0"),
            PgnErrorKind::ResultInVariation,
        ),
        ("1. e4 $300 *", Some(2), Some("$300"), PgnErrorKind::BadNag),
        (
            "1. e4 } *",
            Some(2),
            Some("}"),
            PgnErrorKind::UnexpectedChar('}'),
        ),
        (
            "1. e4 \"text\" *",
            Some(2),
            Some("\"text\""),
            PgnErrorKind::UnexpectedToken,
        ),
        (
            "1. e4!!! *",
            Some(1),
            Some("e4!!!"),
            PgnErrorKind::BadAnnotation,
        ),
        (
            "[Event \"x\"\n[Site \"y\"]\n\n1. e4 *",
            None,
            Some("["),
            PgnErrorKind::BadTag,
        ),
        (
            "1. e4 { never closed\n2. d4 *\n",
            Some(2),
            Some("{"),
            PgnErrorKind::UnterminatedComment,
        ),
    ];
    for (text, ply, token, kind) in cases {
        let games = read_all(text);
        assert_eq!(games.len(), 1, "{text}");
        let err = games[0].as_ref().unwrap_err();
        assert_eq!(
            (err.game, err.ply, err.token.as_deref(), &err.kind),
            (1, ply, token, &kind),
            "{text}"
        );
    }
}

#[test]
fn variations_nest_up_to_the_limit_and_long_tokens_are_shortened() {
    use chessd_core::pgn::MAX_VARIATION_DEPTH;
    let nested = |depth: usize| format!("1. e4 {}{} *", "(1. d4 ".repeat(depth), ")".repeat(depth));
    let game = read_game(&nested(MAX_VARIATION_DEPTH)).unwrap();
    let mut line = &game.moves;
    let mut depth = 0;
    while let Some(v) = line[0].variations.first() {
        line = &v.moves;
        depth += 1;
    }
    assert_eq!(depth, MAX_VARIATION_DEPTH);
    assert_eq!(read_game(&write_game(&game)).unwrap().moves.len(), 1);

    let err = read_game(&nested(MAX_VARIATION_DEPTH + 1)).unwrap_err();
    assert_eq!(err.kind, PgnErrorKind::VariationTooDeep);
    assert_eq!((err.ply, err.token.as_deref()), (Some(2), Some("(")));

    let long = format!("1. e4 N{} *", "x".repeat(100));
    let err = read_game(&long).unwrap_err();
    assert_eq!(err.token.map(|t| t.chars().count()), Some(40));
}

#[test]
fn moves_after_an_automatic_draw_are_refused_unless_draws_are_claimed() {
    // The knights go back and forth: the start position occurs a third time after 4... Ng8.
    let text = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 *";
    let err = read_game(text).unwrap_err();
    assert_eq!((err.ply, err.token.as_deref()), (Some(9), Some("e4")));
    assert!(matches!(
        err.kind,
        PgnErrorKind::Game(GameError::GameOver(_))
    ));
    let game = PgnReader::new(text)
        .with_policy(DrawPolicy::Claims)
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(game.moves.len(), 9);
    assert!(!game.game.is_over());
}

#[test]
fn an_unterminated_comment_ends_at_the_next_tag_section() {
    let text = "[Event \"a\"]\n\n1. e4 { oops\n\n[Event \"b\"]\n\n1. d4 *\n";
    let games = read_all(text);
    assert_eq!(games.len(), 2);
    let err = games[0].as_ref().unwrap_err();
    assert_eq!(err.kind, PgnErrorKind::UnterminatedComment);
    assert_eq!(err.line, 3);
    assert_eq!(games[1].as_ref().unwrap().tag("Event"), Some("b"));
}

#[test]
fn empty_and_comment_only_inputs_hold_no_game() {
    assert_eq!(read_all("").len(), 0);
    assert_eq!(read_all("  \n\n\t\n").len(), 0);
    assert_eq!(read_all("{ just a comment }\n% escape\n").len(), 0);
    assert_eq!(read_game("").unwrap_err().kind, PgnErrorKind::NoGame);
    // Tags without movetext: a game with no moves.
    let game = one_game("[Event \"x\"]\n[White \"y\"]\n");
    assert!(game.moves.is_empty());
    assert_eq!(game.result, None);
}

// ----- Streaming -----

fn all_binbo() -> String {
    FILES.iter().map(|f| binbo(f) + "\n").collect()
}

/// What two reads are compared on: tags and moves of each game, or the error.
type Summary = Vec<Result<(Vec<(String, String)>, Vec<PgnMove>), PgnError>>;

fn summary(games: Vec<Result<PgnGame, PgnError>>) -> Summary {
    games
        .into_iter()
        .map(|g| g.map(|g| (g.tags, g.moves)))
        .collect()
}

#[test]
fn chunked_input_reads_like_the_whole_text() {
    let text = all_binbo();
    let whole = summary(read_all(&text));
    assert_eq!(whole.len(), FILES.len());
    assert!(whole.iter().all(Result::is_ok));

    // Byte by byte (splitting UTF-8 characters) through the push parser.
    let mut parser = PgnParser::new();
    let mut games = Vec::new();
    for b in text.as_bytes() {
        parser.feed_bytes(std::slice::from_ref(b));
        while let Some(g) = parser.next_game() {
            games.push(g);
        }
    }
    // Every game ends with a result token or at the next game's tags: all are out before
    // the end of the input.
    assert_eq!(games.len(), FILES.len());
    parser.finish();
    games.extend(std::iter::from_fn(|| parser.next_game()));
    assert_eq!(summary(games), whole);

    // Odd-sized chunks through the pull reader.
    let chunks: Vec<&[u8]> = text.as_bytes().chunks(37).collect();
    let games: Vec<_> = PgnReader::from_chunks(chunks.into_iter()).collect();
    assert_eq!(summary(games), whole);
}

#[test]
fn latin1_lines_and_byte_order_mark() {
    let mut bytes = b"\xEF\xBB\xBF[Event \"Caf".to_vec();
    bytes.push(0xE9); // é in Latin-1, invalid as UTF-8
    bytes.extend_from_slice(b"\"]\r\n\r\n1. e4 {na\xEFve} e5 *\r\n");
    let games: Vec<_> = PgnReader::from_chunks(std::iter::once(bytes)).collect();
    let game = games[0].as_ref().unwrap();
    assert_eq!(game.tag("Event"), Some("Café"));
    assert_eq!(game.moves[0].comments, ["naïve"]);
    assert_eq!(game.moves.len(), 2);
}

// ----- Writer -----

/// Comments with their whitespace normalised (the writer re-flows them).
fn norm(comments: &[String]) -> Vec<String> {
    comments
        .iter()
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

fn same_line(a: &[PgnMove], b: &[PgnMove]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!((x.mv, &x.san, &x.nags), (y.mv, &y.san, &y.nags));
        assert_eq!(norm(&x.comments), norm(&y.comments));
        assert_eq!(x.variations.len(), y.variations.len());
        for (v, w) in x.variations.iter().zip(&y.variations) {
            same_variation(v, w);
        }
    }
}

fn same_variation(a: &Variation, b: &Variation) {
    assert_eq!(norm(&a.prelude), norm(&b.prelude));
    same_line(&a.moves, &b.moves);
}

fn check_width(text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= LINE_WIDTH,
            "line longer than {LINE_WIDTH}: {line}"
        );
    }
}

#[test]
fn writer_round_trip_on_every_binbo_file() {
    for name in FILES {
        let first = one_game(&binbo(name));
        let text = write_game(&first);
        check_width(&text);
        let second = one_game(&text);
        same_line(&first.moves, &second.moves);
        assert_eq!(norm(&first.prelude), norm(&second.prelude));
        assert_eq!(first.start, second.start);
        assert_eq!(first.game.status(), second.game.status(), "{name}");
        // Every tag read comes back with its value; the roster is completed.
        for (tag, value) in &first.tags {
            assert_eq!(second.tag(tag), Some(value.as_str()), "{name}: {tag}");
        }
        let roster: Vec<&str> = second
            .tags
            .iter()
            .take(7)
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(
            roster,
            ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
        );
        assert!(text.contains("]\n\n"));
        // Writing again gives the same text.
        assert_eq!(write_game(&second), text, "{name}");
    }
}

/// The export's writer (`write_played_game`, straight from a game's moves) writes what
/// `PgnGame::from_game` then `write_game` write: for the reference games, and for random games
/// from the standard start, a Chess960 start and a start with Black to move late in a game,
/// with tags that the roster, `Variant`, `SetUp` and `FEN` override.
#[test]
fn a_played_game_is_written_as_from_game_writes_it() {
    let tags = |i: usize| -> Vec<(String, String)> {
        let mut tags = vec![
            ("white".to_string(), format!("Player \"{i}\"")),
            ("Annotator".to_string(), "chessd".to_string()),
        ];
        if i.is_multiple_of(3) {
            tags.push(("FEN".to_string(), "ignored".to_string()));
            tags.push(("Variant".to_string(), "Standard".to_string()));
        }
        tags
    };
    let mut games: Vec<Game> = FILES
        .iter()
        .map(|name| one_game(&binbo(name)).game)
        .collect();
    let starts = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "r3k2r/pp1n1ppp/2p1pn2/q7/3P4/2N2N2/PP2QPPP/R3K2R b KQkq - 3 37",
    ];
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for (i, fen) in starts.iter().cycle().take(60).enumerate() {
        let mut game = Game::from_fen(fen).unwrap();
        for _ in 0..(i * 7 % 150) {
            let legal = game.position().legal_moves();
            if legal.is_empty() || game.is_over() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            game.play(legal[(seed % legal.len() as u64) as usize])
                .unwrap();
        }
        games.push(game);
    }
    for (i, game) in games.iter().enumerate() {
        let expected = PgnGame::from_game(game, tags(i)).to_pgn();
        assert_eq!(write_played_game(game, &tags(i)), expected);
        // The same game with its moves' SAN as a decoder notes them.
        let start = *game.start_position();
        let bytes = encode_moves(&start, game.history()).unwrap();
        let mut reader = MoveReader::new(start, &bytes, game.history().len());
        let mut sans = Vec::new();
        let mut san = String::new();
        while let Some(mv) = reader.next_noted(&mut san) {
            mv.unwrap();
            sans.push(std::mem::take(&mut san));
        }
        assert_eq!(write_noted_game(game, &sans, &tags(i)), expected);
        // SANs that do not match the game's moves in number are not used.
        sans.pop();
        assert_eq!(write_noted_game(game, &sans, &tags(i)), expected);
    }
}

#[test]
fn writer_output_for_a_played_game() {
    let mut game = Game::new(Position::startpos());
    for san in ["f3", "e5", "g4", "Qh4#"] {
        game.play_san(san).unwrap();
    }
    let pgn = PgnGame::from_game(&game, vec![("White".into(), "Fool".into())]);
    assert_eq!(
        write_game(&pgn),
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
         [White \"Fool\"]\n[Black \"?\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"
    );
    // A promotion and a start from FEN, wrapped and re-read.
    let mut game = Game::from_fen("8/P6k/8/8/8/8/8/K7 w - - 0 60").unwrap();
    game.play_san("a8=N").unwrap();
    let pgn = PgnGame::from_game(&game, Vec::new());
    let text = pgn.to_pgn();
    assert!(
        text.contains("[FEN \"8/P6k/8/8/8/8/8/K7 w - - 0 60\"]"),
        "{text}"
    );
    assert!(text.ends_with("\n60. a8=N 1/2-1/2\n"), "{text}");
    let again = one_game(&text);
    assert_eq!(again.moves[0].mv.promotion_role(), Some(Role::Knight));
    assert_eq!(
        again.game.status().reason,
        Some(Reason::InsufficientMaterial)
    );
}

#[test]
fn writer_wraps_long_games_and_comments_at_80_columns() {
    let game = one_game(&binbo("fifty-move-rule-Lputian-Harutjunyan.pgn"));
    let mut long = game.clone();
    long.moves[10].comments.push("word ".repeat(60));
    long.moves[11].comments.push("has a } brace".to_string());
    let text = write_game(&long);
    check_width(&text);
    let movetext_lines = text.split("\n\n").nth(1).unwrap().lines().count();
    assert!(movetext_lines > 15, "{movetext_lines}");
    let again = one_game(&text);
    same_line(&long.moves, &again.moves);
}

// ----- Fuzzing -----

const VALID: &str = "[Event \"F\"]\n[Site \"?\"]\n\n\
    1. e4 {c ] [%clk 0:01:00]} e5 (1... c5 2. Nf3 (2. c3 d5 (2... Nf6)) d6) 2. Nf3 $1 Nc6!? \
    ; line comment\n3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 1-0\n\n\
    [Event \"G\"]\n[FEN \"4k3/P7/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. a8=Q+ Kd7 2. O-O *\n";

fn check_reader(text: &str) {
    let games = read_all(text);
    for game in games.iter().flatten() {
        // Any game read can be written and read again with the same moves.
        let again = read_game(&write_game(game)).unwrap();
        same_line(&game.moves, &again.moves);
    }
    // Chunked reading gives the same results.
    let chunks: Vec<&[u8]> = text.as_bytes().chunks(7).collect();
    let chunked: Vec<_> = PgnReader::from_chunks(chunks.into_iter()).collect();
    assert_eq!(summary(chunked), summary(games));
}

#[test]
fn valid_fuzz_seed_reads() {
    let games = read_all(VALID);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].as_ref().unwrap().moves.len(), 16);
    assert_eq!(games[1].as_ref().unwrap().moves.len(), 3);
    check_reader(VALID);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "[\\[\\]{}()\";%$*!?+#=./0-9a-hKQRBNOx \n\t-]{0,200}") {
        check_reader(&text);
    }

    #[test]
    fn mutated_pgn_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<char>()), 1..6)
    ) {
        let mut text: Vec<char> = VALID.chars().collect();
        for (at, op, c) in edits {
            let i = at.index(text.len() + 1);
            match op {
                0 => text.insert(i, c),
                1 if i < text.len() => { text.remove(i); }
                _ if i < text.len() => text[i] = c,
                _ => {}
            }
        }
        let text: String = text.into_iter().collect();
        check_reader(&text);
    }

    #[test]
    fn pgn_punctuation_mutations_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(
            vec!['{', '}', '(', ')', '[', ']', '"', ';', '%', '\n', '$', '*', '\\', '1', '-']
        )), 1..4)
    ) {
        let mut text = VALID.to_string();
        for (at, c) in edits {
            let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let i = boundaries[at.index(boundaries.len())];
            text.insert(i, c);
        }
        check_reader(&text);
    }
}
