//! Game-level rules: Binbo's documented game behaviour (moves in every notation, castling,
//! en passant, promotion, manual results, pieces list), the draw rules under both policies
//! (repetition with triangulation and en passant, fifty and seventy-five moves, insufficient
//! material cross-checked against shakmaty), flags, and refusal after the end of a game.
//! Binbo's fifty-move and threefold PGN games from tests/data are replayed too.

use chessd_core::display::{game_diagram, parse_diagram, BoardStyle};
use chessd_core::game::{DrawPolicy, Game, GameError, GameResult, Reason, Status};
use chessd_core::san::SanError;
use chessd_core::uci::UciError;
use chessd_core::{Color, FenMode, IllegalReason, Move, Piece, Position, Role, Square};

fn game(fen: &str) -> Game {
    Game::from_fen(fen).unwrap()
}

fn game_with(fen: &str, policy: DrawPolicy) -> Game {
    Game::with_policy(Position::from_fen(fen, FenMode::Strict).unwrap(), policy)
}

/// Plays UCI moves, asserting the game goes on after each but the last.
fn play_uci_all(game: &mut Game, moves: &[&str]) {
    for (i, mv) in moves.iter().enumerate() {
        game.play_uci(mv)
            .unwrap_or_else(|e| panic!("move {i} ({mv}) refused: {e}"));
        if i + 1 < moves.len() {
            assert!(
                !game.is_over(),
                "game ended early after move {i} ({mv}): {}",
                game.status()
            );
        }
    }
}

fn over(result: GameResult, reason: Reason) -> Status {
    Status::over(result, reason)
}

fn field(fen: &str, i: usize) -> String {
    fen.split(' ').nth(i).unwrap().to_string()
}

// ----- Binbo README: making moves -----

#[test]
fn binbo_uci_moves_to_checkmate() {
    let mut g = Game::default();
    let moves = ["e2e4", "e7e5", "f1c4", "d7d6", "d1f3", "b8c6"];
    play_uci_all(&mut g, &moves);
    assert_eq!(g.status(), &Status::ongoing());
    let played = g.play_uci("f3f7").unwrap().clone();
    assert_eq!(played.uci, "f3f7");
    assert_eq!(played.san, "Qxf7#");
    assert_eq!(g.status(), &over(GameResult::WhiteWins, Reason::Checkmate));
    assert_eq!(g.status().result.winner(), Some(Color::White));
    assert_eq!(g.history().len(), 7);
    let notated = g.notated_history();
    let sans: Vec<&str> = notated.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Bc4", "d6", "Qf3", "Nc6", "Qxf7#"]);
}

#[test]
fn binbo_san_moves_to_checkmate() {
    let mut g = Game::default();
    for san in ["e4", "e5", "Bc4", "d6", "Qf3", "Nc6"] {
        g.play_san(san).unwrap();
        assert!(!g.is_over());
    }
    // Binbo's README writes the mating capture without the `x`.
    let mate = g.play_san("Qf7#").unwrap();
    assert_eq!(mate.uci, "f3f7");
    assert_eq!(g.status().reason, Some(Reason::Checkmate));
    assert_eq!(g.status().result, GameResult::WhiteWins);
}

#[test]
fn binbo_index_moves() {
    let mut g = Game::default();
    let e4 = g
        .play_squares(Square::new(12), Square::new(28), None)
        .unwrap();
    assert_eq!(e4.uci, "e2e4");
    assert_eq!(e4.san, "e4");
    let e5 = g
        .play_squares(Square::new(52), Square::new(36), None)
        .unwrap();
    assert_eq!(e5.uci, "e7e5");
    assert_eq!(g.turn(), Color::White);
    assert_eq!(
        g.position().fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
}

#[test]
fn binbo_new_game_from_fen_and_side_to_move() {
    let g = game("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_eq!(g.status(), &Status::ongoing());
    assert_eq!(g.turn(), Color::Black);
    assert!(g.history().is_empty());
    assert_eq!(g.start_position(), g.position());
    assert!(Game::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1").is_err());
    // Perft position 5 from the README has 44 legal moves.
    let g = game("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8");
    assert_eq!(g.position().legal_moves().len(), 44);
}

// ----- Castling -----

const CASTLING_FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

#[test]
fn castling_in_uci_and_san_all_four_ways() {
    let mut g = game(CASTLING_FEN);
    let oo = g.play_uci("e1g1").unwrap().clone();
    assert_eq!(oo.san, "O-O");
    assert!(oo.mv.is_castle());
    let ooo = g.play_uci("e8c8").unwrap().clone();
    assert_eq!(ooo.san, "O-O-O");
    assert_eq!(
        g.position().fen(),
        "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2"
    );

    let mut g = game(CASTLING_FEN);
    assert_eq!(g.play_san("O-O-O").unwrap().uci, "e1c1");
    assert_eq!(g.play_san("O-O").unwrap().uci, "e8g8");
    assert_eq!(
        g.position().fen(),
        "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w - - 2 2"
    );
}

#[test]
fn castling_rights_lost_after_king_moves() {
    let mut g = game(CASTLING_FEN);
    play_uci_all(&mut g, &["e1f1", "e8f8", "f1e1", "f8e8"]);
    assert_eq!(field(&g.position().fen(), 2), "-");
    let err = g.play_uci("e1g1").unwrap_err();
    assert_eq!(
        err,
        GameError::IllegalUci(UciError::Illegal(
            "e1g1".to_string(),
            IllegalReason::CannotMoveThere
        ))
    );
    assert!(matches!(
        g.play_san("O-O-O").unwrap_err(),
        GameError::IllegalSan(SanError::Illegal(_, IllegalReason::CannotMoveThere))
    ));
    assert_eq!(g.history().len(), 4);
}

#[test]
fn castling_rights_lost_after_rook_moves() {
    let mut g = game(CASTLING_FEN);
    play_uci_all(&mut g, &["h1g1", "a8b8", "g1h1", "b8a8"]);
    assert_eq!(field(&g.position().fen(), 2), "Qk");
    assert!(g.play_uci("e1g1").is_err());
    g.play_uci("e1c1").unwrap();
    assert!(g.play_uci("e8c8").is_err());
    assert_eq!(g.play_uci("e8g8").unwrap().san, "O-O");
}

#[test]
fn castling_right_lost_when_rook_is_captured() {
    // The black bishop on g2 takes the rook on h1: White keeps only the queenside right.
    let mut g = game("r3k2r/pppppppp/8/8/8/8/PPPPPPbP/R3K2R b KQkq - 0 1");
    let capture = g.play_uci("g2h1").unwrap();
    assert_eq!(capture.san, "Bxh1");
    assert_eq!(field(&g.position().fen(), 2), "Qkq");
    // A white bishop takes the rook on a8: Black keeps only the kingside right.
    let mut g = game("r3k2r/pBpppppp/8/8/8/8/PPPPPP1P/R3K2R w KQkq - 0 1");
    assert_eq!(g.play_uci("b7a8").unwrap().san, "Bxa8");
    assert_eq!(field(&g.position().fen(), 2), "KQk");
    assert!(g.play_uci("e8c8").is_err());
    g.play_uci("e8g8").unwrap();
}

// ----- En passant -----

#[test]
fn en_passant_capture_and_its_window() {
    let mut g = Game::default();
    play_uci_all(&mut g, &["e2e4", "a7a6", "e4e5", "d7d5"]);
    assert_eq!(g.position().ep_square(), Some(Square::D6));
    let ep = g.play_uci("e5d6").unwrap().clone();
    assert_eq!(ep.san, "exd6");
    assert!(ep.mv.is_en_passant());
    assert_eq!(g.position().piece_on(Square::D5), None);
    assert_eq!(
        g.position().piece_on(Square::D6),
        Some(Piece {
            color: Color::White,
            role: Role::Pawn
        })
    );
    assert_eq!(g.position().halfmoves(), 0);

    // The right to capture en passant lasts one move only.
    let mut g = Game::default();
    play_uci_all(&mut g, &["e2e4", "a7a6", "e4e5", "d7d5", "h2h3", "h7h6"]);
    assert_eq!(g.position().ep_square(), None);
    assert!(matches!(
        g.play_uci("e5d6").unwrap_err(),
        GameError::IllegalUci(_)
    ));
    assert!(g.play_san("exd6").is_err());
}

// ----- Promotion -----

const PROMOTION_FEN: &str = "8/P6k/8/8/8/8/p6K/8 w - - 0 1";

#[test]
fn promotion_in_uci_san_and_squares() {
    let mut g = game(PROMOTION_FEN);
    let q = g.play_uci("a7a8q").unwrap().clone();
    assert_eq!(q.san, "a8=Q");
    assert_eq!(q.mv.promotion_role(), Some(Role::Queen));
    let n = g.play_san("a1=N").unwrap().clone();
    assert_eq!(n.uci, "a2a1n");
    assert_eq!(
        g.position().piece_on(Square::A1),
        Some(Piece {
            color: Color::Black,
            role: Role::Knight
        })
    );

    let mut g = game(PROMOTION_FEN);
    assert_eq!(g.play_san("a8=N").unwrap().uci, "a7a8n");
    assert_eq!(g.play_uci("a2a1q").unwrap().san, "a1=Q");

    let mut g = game(PROMOTION_FEN);
    let r = g
        .play_squares(Square::A7, Square::A8, Some(Role::Rook))
        .unwrap();
    assert_eq!(r.uci, "a7a8r");
    assert_eq!(r.san, "a8=R");
}

#[test]
fn promotion_defaults_to_queen_when_omitted() {
    // Binbo: `a7a8` and `a8` promote to a queen; index moves default to `q`.
    let mut g = game(PROMOTION_FEN);
    assert_eq!(g.play_uci("a7a8").unwrap().uci, "a7a8q");
    assert_eq!(g.play_san("a1").unwrap().uci, "a2a1q");
    let mut g = game(PROMOTION_FEN);
    assert_eq!(
        g.play_squares(Square::A7, Square::A8, None).unwrap().uci,
        "a7a8q"
    );
}

// ----- Illegal input changes nothing -----

#[test]
fn illegal_moves_are_refused_and_change_nothing() {
    let mut g = Game::default();
    let before = *g.position();
    assert_eq!(
        g.play(Move::normal(Square::E2, Square::E5)),
        Err(GameError::Illegal(
            Move::normal(Square::E2, Square::E5),
            IllegalReason::CannotMoveThere
        ))
    );
    assert_eq!(
        g.play_uci("e2e5"),
        Err(GameError::IllegalUci(UciError::Illegal(
            "e2e5".to_string(),
            IllegalReason::CannotMoveThere
        )))
    );
    assert!(matches!(
        g.play_uci("hello"),
        Err(GameError::IllegalUci(UciError::Syntax(_)))
    ));
    assert_eq!(
        g.play_san("Ke2"),
        Err(GameError::IllegalSan(SanError::Illegal(
            "Ke2".to_string(),
            IllegalReason::OwnPiece
        )))
    );
    assert_eq!(
        g.play_squares(Square::E1, Square::E2, None),
        Err(GameError::IllegalUci(UciError::Illegal(
            "e1e2".to_string(),
            IllegalReason::OwnPiece
        )))
    );
    assert_eq!(g.position(), &before);
    assert!(g.history().is_empty());
    assert_eq!(g.status(), &Status::ongoing());
    let legal = g.position().legal_moves()[0];
    assert_eq!(g.play(legal).unwrap().mv, legal);
}

// ----- Checkmate, stalemate, decided start positions -----

#[test]
fn stalemate_ends_the_game_in_a_draw() {
    let mut g = game("7k/8/8/6Q1/8/8/8/K7 w - - 0 1");
    g.play_uci("g5g6").unwrap();
    assert_eq!(g.status(), &over(GameResult::Draw, Reason::Stalemate));
}

#[test]
fn black_can_checkmate_too() {
    let mut g = Game::default();
    play_uci_all(&mut g, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert_eq!(g.status(), &over(GameResult::BlackWins, Reason::Checkmate));
    assert_eq!(g.last_played().unwrap().san, "Qh4#");
}

#[test]
fn a_decided_start_position_starts_finished() {
    let mated = game("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_eq!(
        mated.status(),
        &over(GameResult::BlackWins, Reason::Checkmate)
    );
    let stalemate = game("7k/8/6Q1/8/8/8/8/K7 b - - 0 1");
    assert_eq!(stalemate.status().reason, Some(Reason::Stalemate));
    let bare = game("8/8/4k3/8/8/3K4/8/8 w - - 0 1");
    assert_eq!(bare.status().reason, Some(Reason::InsufficientMaterial));
    let expired = game("4k3/8/8/8/8/8/8/R3K3 w - - 100 80");
    assert_eq!(expired.status().reason, Some(Reason::FiftyMoves));
    let mut fresh = Game::with_policy(*expired.position(), DrawPolicy::Claims);
    assert!(!fresh.is_over());
    assert_eq!(fresh.claimable_draw(), Some(Reason::FiftyMoves));
    fresh.claim_draw().unwrap();
    assert_eq!(fresh.status(), &over(GameResult::Draw, Reason::FiftyMoves));
}

#[test]
fn capture_leaving_bare_kings_is_a_dead_position() {
    let mut g = game("b7/8/8/4k3/8/8/3n4/4K3 w - - 0 1");
    assert!(!g.is_over());
    assert_eq!(g.play_uci("e1d2").unwrap().san, "Kxd2");
    assert_eq!(
        g.status(),
        &over(GameResult::Draw, Reason::InsufficientMaterial)
    );
    assert_eq!(g.position().pieces_list().len(), 3);
}

// ----- Repetition -----

const KNIGHT_SHUFFLE: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

#[test]
fn threefold_repetition_by_knight_shuffles() {
    let mut g = Game::default();
    assert_eq!(g.repetition_count(), 1);
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    assert_eq!(g.repetition_count(), 2);
    assert!(!g.is_over());
    play_uci_all(&mut g, &KNIGHT_SHUFFLE[..3]);
    assert!(!g.is_over());
    assert_eq!(
        g.repetition_count(),
        2,
        "after Ng1 the position was seen at plies 3 and 7"
    );
    g.play_uci("f6g8").unwrap();
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(
        g.status(),
        &over(GameResult::Draw, Reason::ThreefoldRepetition)
    );
    assert_eq!(g.history().len(), 8);
    assert!(matches!(
        g.play_uci("g1f3"),
        Err(GameError::GameOver(s)) if s.reason == Some(Reason::ThreefoldRepetition)
    ));
}

#[test]
fn repetition_after_an_odd_number_of_full_moves_is_detected() {
    // Both kings walk a triangle: the position recurs every 3 full moves (6 plies). Binbo's
    // side-to-move hashing misses repetitions 2 mod 4 plies apart; here the third occurrence
    // (ply 12) must end the game.
    let triangle = ["e1d1", "e8d8", "d1d2", "d8d7", "d2e1", "d7e8"];
    let mut g = game("4k3/p7/8/8/8/8/P7/4K3 w - - 0 1");
    play_uci_all(&mut g, &triangle);
    assert_eq!(g.repetition_count(), 2);
    assert!(!g.is_over());
    play_uci_all(&mut g, &triangle);
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(g.history().len(), 12);
    assert_eq!(
        g.status(),
        &over(GameResult::Draw, Reason::ThreefoldRepetition)
    );
}

#[test]
fn a_first_occurrence_with_en_passant_possible_does_not_count() {
    // After e2-e4 Black may take en passant (d4xe3): that position differs from the same
    // placement later without the en-passant right.
    let shuffle = ["g8f6", "g1f3", "f6g8", "f3g1"];
    let mut g = game("4k1n1/8/8/8/3p4/8/4P3/4K1N1 w - - 0 1");
    g.play_uci("e2e4").unwrap();
    assert_eq!(g.position().ep_square(), Some(Square::E3));
    assert_eq!(g.repetition_count(), 1);
    play_uci_all(&mut g, &shuffle);
    assert_eq!(g.position().ep_square(), None);
    assert_eq!(
        g.repetition_count(),
        1,
        "the en-passant position is a different one"
    );
    play_uci_all(&mut g, &shuffle);
    // Counting the first occurrence would make this the third one (Binbo's bug).
    assert_eq!(g.repetition_count(), 2);
    assert!(!g.is_over());
    // The position after ...Nf6 is the first to occur three times (plies 2, 6, 10).
    g.play_uci("g8f6").unwrap();
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(g.history().len(), 10);
    assert_eq!(g.status().reason, Some(Reason::ThreefoldRepetition));
}

#[test]
fn a_double_push_without_en_passant_counts_from_the_first_occurrence() {
    // Same shuffles, but no black pawn can take en passant: the position right after e2-e4
    // is the first occurrence and the draw comes four plies earlier.
    let shuffle = ["g8f6", "g1f3", "f6g8", "f3g1"];
    let mut g = game("4k1n1/8/8/8/p7/8/4P3/4K1N1 w - - 0 1");
    g.play_uci("e2e4").unwrap();
    assert_eq!(g.position().ep_square(), None);
    play_uci_all(&mut g, &shuffle);
    assert_eq!(g.repetition_count(), 2);
    play_uci_all(&mut g, &shuffle);
    assert_eq!(g.history().len(), 9);
    assert_eq!(g.status().reason, Some(Reason::ThreefoldRepetition));
}

#[test]
fn a_start_position_with_en_passant_possible_does_not_count() {
    // The game starts right after e2-e4 with dxe3 possible.
    let shuffle = ["g8f6", "g1f3", "f6g8", "f3g1"];
    let mut g = game("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3");
    assert_eq!(g.position().ep_square(), Some(Square::E3));
    play_uci_all(&mut g, &shuffle);
    assert_eq!(g.repetition_count(), 1);
    play_uci_all(&mut g, &shuffle);
    assert_eq!(g.repetition_count(), 2);
    assert!(!g.is_over());
    // The position after ...Nf6 (plies 1, 5, 9) is the first to occur three times.
    g.play_uci("g8f6").unwrap();
    assert_eq!(g.history().len(), 9);
    assert_eq!(g.status().reason, Some(Reason::ThreefoldRepetition));
}

#[test]
fn a_start_position_with_a_running_clock_counts_as_the_first_occurrence() {
    let mut g = game("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 37 40");
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    assert_eq!(g.position().halfmoves(), 45);
    assert_eq!(g.status().reason, Some(Reason::ThreefoldRepetition));
}

#[test]
fn castling_rights_make_positions_differ() {
    // Rook out and back: same placement, but the castling right is gone.
    let mut g = game(CASTLING_FEN);
    let rooks_out_and_back = ["h1g1", "h8g8", "g1h1", "g8h8"];
    play_uci_all(&mut g, &rooks_out_and_back);
    assert_eq!(g.repetition_count(), 1, "the start had castling rights");
    play_uci_all(&mut g, &rooks_out_and_back);
    assert_eq!(g.repetition_count(), 2);
    assert!(!g.is_over());
    // Rg1/Rg8 with White to move is the first position seen three times (plies 2, 6, 10).
    play_uci_all(&mut g, &rooks_out_and_back[..2]);
    assert_eq!(g.status().reason, Some(Reason::ThreefoldRepetition));
    assert_eq!(g.history().len(), 10);
}

// ----- Fifty and seventy-five moves -----

#[test]
fn fifty_move_rule_at_exactly_one_hundred_half_moves() {
    let mut g = game("4k3/8/8/8/8/8/8/R3K3 w - - 98 80");
    g.play_uci("a1a2").unwrap();
    assert_eq!(g.position().halfmoves(), 99);
    assert!(!g.is_over());
    g.play_uci("e8d8").unwrap();
    assert_eq!(g.position().halfmoves(), 100);
    assert_eq!(g.status(), &over(GameResult::Draw, Reason::FiftyMoves));
    assert!(matches!(g.play_uci("a2a3"), Err(GameError::GameOver(_))));
}

#[test]
fn a_capture_or_pawn_move_on_the_hundredth_half_move_resets_the_count() {
    let mut g = game("4k3/8/8/8/8/p7/8/R3K3 w - - 99 80");
    g.play_uci("a1a3").unwrap();
    assert_eq!(g.position().halfmoves(), 0);
    assert!(!g.is_over());
    let mut g = game("4k3/p7/8/8/8/8/8/R3K3 b - - 99 80");
    g.play_uci("a7a6").unwrap();
    assert!(!g.is_over());
}

#[test]
fn checkmate_on_the_hundredth_half_move_wins() {
    let mate_fen = "7k/8/6K1/8/8/8/8/R7 w - - 99 80";
    let mut g = game(mate_fen);
    assert_eq!(g.play_uci("a1a8").unwrap().san, "Ra8#");
    assert_eq!(g.position().halfmoves(), 100);
    assert_eq!(g.status(), &over(GameResult::WhiteWins, Reason::Checkmate));
    // Any other quiet move is a draw.
    let mut g = game(mate_fen);
    g.play_uci("a1a7").unwrap();
    assert_eq!(g.status(), &over(GameResult::Draw, Reason::FiftyMoves));
}

#[test]
fn seventy_five_moves_end_a_game_under_claims() {
    let mut g = game_with("4k3/8/8/8/8/8/8/R3K3 w - - 98 80", DrawPolicy::Claims);
    play_uci_all(&mut g, &["a1a2", "e8d8"]);
    assert!(!g.is_over(), "fifty moves only allow a claim");
    assert_eq!(g.claimable_draw(), Some(Reason::FiftyMoves));

    let mut g = game_with("4k3/8/8/8/8/8/8/R3K3 w - - 148 80", DrawPolicy::Claims);
    g.play_uci("a1a2").unwrap();
    assert!(!g.is_over());
    assert_eq!(g.claimable_draw(), Some(Reason::FiftyMoves));
    g.play_uci("e8d8").unwrap();
    assert_eq!(g.position().halfmoves(), 150);
    assert_eq!(
        g.status(),
        &over(GameResult::Draw, Reason::SeventyFiveMoves)
    );
    assert_eq!(g.claimable_draw(), None);

    let mut g = game_with("7k/8/6K1/8/8/8/8/R7 w - - 149 100", DrawPolicy::Claims);
    g.play_uci("a1a8").unwrap();
    assert_eq!(g.status(), &over(GameResult::WhiteWins, Reason::Checkmate));
}

// ----- Claims policy -----

#[test]
fn claims_policy_threefold_is_claimable_not_automatic() {
    let mut g = Game::with_policy(Position::startpos(), DrawPolicy::Claims);
    assert_eq!(g.policy(), DrawPolicy::Claims);
    assert_eq!(g.claim_draw(), Err(GameError::NothingToClaim));
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    assert_eq!(g.repetition_count(), 3);
    assert!(!g.is_over());
    assert_eq!(g.claimable_draw(), Some(Reason::ThreefoldRepetition));

    let mut claimed = g.clone();
    claimed.claim_draw().unwrap();
    assert_eq!(
        claimed.status(),
        &over(GameResult::Draw, Reason::ThreefoldRepetition)
    );
    assert!(matches!(
        claimed.claim_draw(),
        Err(GameError::AlreadyHasStatus(_))
    ));
    // The clone was independent.
    assert!(!g.is_over());

    // Unclaimed, the game goes on until the fifth occurrence (ply 16).
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    assert_eq!(g.repetition_count(), 4);
    play_uci_all(&mut g, &KNIGHT_SHUFFLE[..3]);
    assert!(!g.is_over());
    g.play_uci("f6g8").unwrap();
    assert_eq!(g.repetition_count(), 5);
    assert_eq!(g.history().len(), 16);
    assert_eq!(
        g.status(),
        &over(GameResult::Draw, Reason::FivefoldRepetition)
    );
    assert_eq!(g.claimable_draw(), None);
}

#[test]
fn claims_nothing_when_the_repetition_is_not_current() {
    let mut g = Game::with_policy(Position::startpos(), DrawPolicy::Claims);
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    play_uci_all(&mut g, &KNIGHT_SHUFFLE);
    g.play_uci("b1c3").unwrap();
    assert_eq!(g.repetition_count(), 1);
    assert_eq!(g.claimable_draw(), None);
    assert_eq!(g.claim_draw(), Err(GameError::NothingToClaim));
    assert!(!g.is_over());
}

// ----- Insufficient material -----

/// (FEN, white has insufficient material, black has insufficient material).
const MATERIAL: [(&str, bool, bool); 20] = [
    ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", true, true),  // K v K
    ("8/8/4k3/8/8/3KB3/8/8 w - - 0 1", true, true), // KB v K
    ("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", true, true), // KN v K
    ("8/8/4kn2/8/8/3K4/8/8 w - - 0 1", true, true), // K v KN
    ("8/8/4k3/8/8/2NKN3/8/8 w - - 0 1", false, true), // KNN v K
    ("8/8/4kb2/8/8/3KB3/8/8 w - - 0 1", true, true), // KB v KB, both on dark squares
    ("8/8/4k1b1/8/8/3KB3/8/8 w - - 0 1", false, false), // KB v KB, opposite colours
    ("8/8/4k3/8/8/2BKB3/8/8 w - - 0 1", true, true), // KBB v K, same colour (c3, e3)
    ("8/8/4k3/8/8/3KBB2/8/8 w - - 0 1", false, true), // KBB v K, opposite colours
    ("3b4/8/4kb2/8/8/2BKB3/8/8 w - - 0 1", true, true), // bishops on one colour, both sides
    ("8/8/4kn2/8/8/3KN3/8/8 w - - 0 1", false, false), // KN v KN: a self-mate is possible
    ("8/8/4kb2/8/8/3KN3/8/8 w - - 0 1", false, false), // KN v KB
    ("8/8/4kq2/8/8/3KN3/8/8 w - - 0 1", true, false), // KN v KQ: only Black can mate
    ("8/8/4kq2/8/8/3KB3/8/8 w - - 0 1", true, false), // KB v KQ
    ("8/8/4kr2/8/8/3KN3/8/8 w - - 0 1", false, false), // KN v KR: self-mate possible
    ("8/8/4kr2/8/8/3KB3/8/8 w - - 0 1", true, false), // KB v KR
    ("8/8/4kp2/8/8/3KB3/8/8 w - - 0 1", false, false), // KB v KP
    ("8/8/4k3/8/8/3KP3/8/8 w - - 0 1", false, true), // KP v K
    ("8/8/4k3/8/8/3KR3/8/8 b - - 0 1", false, true), // KR v K
    ("8/8/4k3/8/8/3KQ3/8/8 b - - 0 1", false, true), // KQ v K
];

fn shakmaty_insufficient(fen: &str) -> Option<(bool, bool)> {
    use shakmaty::{fen::Fen, CastlingMode, Chess, Position as _};
    let pos: Chess = fen
        .parse::<Fen>()
        .ok()?
        .into_position(CastlingMode::Standard)
        .ok()?;
    Some((
        pos.has_insufficient_material(shakmaty::Color::White),
        pos.has_insufficient_material(shakmaty::Color::Black),
    ))
}

#[test]
fn insufficient_material_table() {
    for (fen, white, black) in MATERIAL {
        let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
        assert_eq!(pos.has_insufficient_material(Color::White), white, "{fen}");
        assert_eq!(pos.has_insufficient_material(Color::Black), black, "{fen}");
        assert_eq!(shakmaty_insufficient(fen), Some((white, black)), "{fen}");
        let g = Game::new(pos);
        assert_eq!(g.can_mate(Color::White), !white, "{fen}");
        assert_eq!(g.can_mate(Color::Black), !black, "{fen}");
        let dead = white && black;
        assert_eq!(pos.is_insufficient_material(), dead, "{fen}");
        assert_eq!(
            g.status().reason == Some(Reason::InsufficientMaterial),
            dead,
            "{fen}"
        );
    }
}

/// A small deterministic generator (xorshift) for random sparse positions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Puts `c` on a random empty square (pawns not on the back ranks).
fn place(board: &mut [Option<char>; 64], c: char, rng: &mut Rng) {
    loop {
        let sq = rng.below(64) as usize;
        let back_rank = !(8..56).contains(&sq);
        if board[sq].is_none() && !(c.eq_ignore_ascii_case(&'p') && back_rank) {
            board[sq] = Some(c);
            return;
        }
    }
}

fn random_sparse_fen(rng: &mut Rng) -> String {
    let mut board = [None::<char>; 64];
    place(&mut board, 'K', rng);
    place(&mut board, 'k', rng);
    let extras = rng.below(5);
    for _ in 0..extras {
        let pool = ['N', 'B', 'B', 'N', 'B', 'P', 'R', 'Q'];
        let mut c = pool[rng.below(pool.len() as u64) as usize];
        if rng.below(2) == 0 {
            c = c.to_ascii_lowercase();
        }
        place(&mut board, c, rng);
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                Some(c) => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let turn = if rng.below(2) == 0 { 'w' } else { 'b' };
    format!("{fen} {turn} - - 0 1")
}

#[test]
fn insufficient_material_agrees_with_shakmaty_on_random_positions() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut compared = 0;
    let mut dead = 0;
    for _ in 0..20_000 {
        let fen = random_sparse_fen(&mut rng);
        let Ok(pos) = Position::from_fen(&fen, FenMode::Strict) else {
            continue;
        };
        let Some((white, black)) = shakmaty_insufficient(&fen) else {
            continue;
        };
        assert_eq!(pos.has_insufficient_material(Color::White), white, "{fen}");
        assert_eq!(pos.has_insufficient_material(Color::Black), black, "{fen}");
        compared += 1;
        dead += usize::from(white && black);
    }
    assert!(compared > 5_000, "only {compared} positions compared");
    assert!(dead > 500, "only {dead} dead positions among them");
}

// ----- Flags -----

#[test]
fn flag_with_and_without_mating_material() {
    // The opponent has mating material: loss on time.
    let mut g = Game::default();
    g.flag(Color::White).unwrap();
    assert_eq!(g.status(), &over(GameResult::BlackWins, Reason::Timeout));

    // King and bishop cannot mate, even against a rook: draw.
    let fen = "8/8/4kr2/8/8/3KB3/8/8 w - - 0 1";
    let mut g = game(fen);
    g.flag(Color::Black).unwrap();
    assert_eq!(g.status(), &over(GameResult::Draw, Reason::Timeout));
    // The rook side wins if the bishop side flags.
    let mut g = game(fen);
    g.flag(Color::White).unwrap();
    assert_eq!(g.status(), &over(GameResult::BlackWins, Reason::Timeout));

    // King and knight against a rook can still mate (the rook may block its own king).
    let mut g = game("8/8/4kr2/8/8/3KN3/8/8 w - - 0 1");
    g.flag(Color::Black).unwrap();
    assert_eq!(g.status(), &over(GameResult::WhiteWins, Reason::Timeout));

    // Bare king: a draw even though the flagging side has a queen.
    let mut g = game("8/8/4k3/8/8/3KQ3/8/8 b - - 0 1");
    g.flag(Color::White).unwrap();
    assert_eq!(g.status(), &over(GameResult::Draw, Reason::Timeout));
    assert!(matches!(
        g.flag(Color::Black),
        Err(GameError::AlreadyHasStatus(s)) if s.reason == Some(Reason::Timeout)
    ));
}

// ----- Manual results (Binbo's game_draw / set_game_winner) -----

#[test]
fn binbo_manual_draw_then_second_draw_refused() {
    let mut g = Game::default();
    g.play_uci("e2e4").unwrap();
    g.set_draw(Some("by_agreement".to_string())).unwrap();
    let expected = Status {
        result: GameResult::Draw,
        reason: Some(Reason::Manual),
        note: Some("by_agreement".to_string()),
    };
    assert_eq!(g.status(), &expected);
    assert_eq!(
        g.set_draw(Some("other_reason".to_string())),
        Err(GameError::AlreadyHasStatus(expected.clone()))
    );
    assert_eq!(g.status(), &expected);
}

#[test]
fn binbo_manual_winner_then_second_winner_refused() {
    let mut g = Game::default();
    g.set_winner(Color::White, Some("black_resigned".to_string()))
        .unwrap();
    let expected = Status {
        result: GameResult::WhiteWins,
        reason: Some(Reason::Manual),
        note: Some("black_resigned".to_string()),
    };
    assert_eq!(g.status(), &expected);
    assert_eq!(
        g.set_winner(Color::White, Some("black_lost_on_time".to_string())),
        Err(GameError::AlreadyHasStatus(expected.clone()))
    );
    assert_eq!(
        g.set_draw(None),
        Err(GameError::AlreadyHasStatus(expected.clone()))
    );
    let mut g = Game::default();
    g.set_draw(None).unwrap();
    assert_eq!(g.status().note, None);
    assert_eq!(g.status().reason, Some(Reason::Manual));
}

#[test]
fn resignation_and_agreement() {
    let mut g = Game::default();
    g.resign(Color::Black).unwrap();
    assert_eq!(
        g.status(),
        &over(GameResult::WhiteWins, Reason::Resignation)
    );
    assert!(g.draw_by_agreement().is_err());
    let mut g = Game::default();
    g.draw_by_agreement().unwrap();
    assert_eq!(g.status(), &over(GameResult::Draw, Reason::Agreement));
    assert!(matches!(
        g.resign(Color::White),
        Err(GameError::AlreadyHasStatus(_))
    ));
}

// ----- After the end -----

#[test]
fn every_move_is_refused_after_the_game_is_over_and_nothing_changes() {
    let mut finished = Vec::new();
    let mut mate = Game::default();
    play_uci_all(&mut mate, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    finished.push(mate);
    let mut resigned = Game::default();
    resigned.resign(Color::White).unwrap();
    finished.push(resigned);
    let mut drawn = Game::default();
    drawn.set_draw(Some("arbiter".into())).unwrap();
    finished.push(drawn);

    for mut g in finished {
        let status = g.status().clone();
        let position = *g.position();
        let plies = g.history().len();
        let legal = position.legal_moves().first().copied();
        if let Some(mv) = legal {
            assert_eq!(g.play(mv), Err(GameError::GameOver(status.clone())));
        }
        assert_eq!(g.play_uci("a2a3"), Err(GameError::GameOver(status.clone())));
        assert_eq!(g.play_uci("zz"), Err(GameError::GameOver(status.clone())));
        assert_eq!(g.play_san("Nc3"), Err(GameError::GameOver(status.clone())));
        assert_eq!(
            g.play_squares(Square::B1, Square::C3, None),
            Err(GameError::GameOver(status.clone()))
        );
        for result in [
            g.set_draw(None),
            g.set_winner(Color::Black, None),
            g.draw_by_agreement(),
            g.resign(Color::White),
            g.flag(Color::Black),
            g.claim_draw(),
        ] {
            assert_eq!(result, Err(GameError::AlreadyHasStatus(status.clone())));
        }
        assert_eq!(g.status(), &status);
        assert_eq!(g.position(), &position);
        assert_eq!(g.history().len(), plies);
        assert!(g.is_over());
        assert_eq!(g.claimable_draw(), None);
    }
}

#[test]
fn errors_explain_themselves() {
    let mut g = Game::default();
    g.resign(Color::White).unwrap();
    let text = g.play_uci("e2e4").unwrap_err().to_string();
    assert!(text.contains("game is over"), "{text}");
    assert!(text.contains("black wins by resignation"), "{text}");
    let text = g.set_draw(None).unwrap_err().to_string();
    assert!(text.contains("already has a result"), "{text}");
    assert!(GameError::NothingToClaim.to_string().contains("no draw"));
    let illegal = GameError::Illegal(
        Move::normal(Square::E2, Square::E5),
        IllegalReason::CannotMoveThere,
    );
    assert_eq!(
        illegal.to_string(),
        "e2e5 is not a legal move in this position: the piece cannot move to the target square"
    );
}

#[test]
fn clones_are_independent() {
    let mut g = Game::default();
    g.play_uci("e2e4").unwrap();
    let snapshot = g.clone();
    g.play_uci("e7e5").unwrap();
    assert_eq!(snapshot.history().len(), 1);
    assert_eq!(g.history().len(), 2);
    assert_eq!(snapshot.turn(), Color::Black);
    let mut branch = snapshot.clone();
    branch.play_uci("c7c5").unwrap();
    assert_eq!(branch.last_played().unwrap().san, "c5");
    assert_eq!(g.last_played().unwrap().san, "e5");
}

// ----- Display and pieces list -----

#[test]
fn binbo_pieces_list_of_the_start_position() {
    let list = Position::startpos().pieces_list();
    assert_eq!(list.len(), 32);
    let black = |role| Piece {
        color: Color::Black,
        role,
    };
    let white = |role| Piece {
        color: Color::White,
        role,
    };
    // Binbo's README: {63,black,rook}, {62,black,knight}, {61,black,bishop}, {60,black,king},
    // {59,black,queen}, ... {48,black,pawn}, {15,white,pawn}, ... {8,white,pawn}, {7,...}.
    assert_eq!(list[0], (black(Role::Rook), Square::new(63)));
    assert_eq!(list[1], (black(Role::Knight), Square::new(62)));
    assert_eq!(list[2], (black(Role::Bishop), Square::new(61)));
    assert_eq!(list[3], (black(Role::King), Square::new(60)));
    assert_eq!(list[4], (black(Role::Queen), Square::new(59)));
    assert_eq!(list[15], (black(Role::Pawn), Square::new(48)));
    assert_eq!(list[16], (white(Role::Pawn), Square::new(15)));
    assert_eq!(list[23], (white(Role::Pawn), Square::new(8)));
    assert_eq!(list[24], (white(Role::Rook), Square::new(7)));
    assert_eq!(list[31], (white(Role::Rook), Square::new(0)));
    let names: Vec<String> = list[..3].iter().map(|(_, sq)| sq.to_string()).collect();
    assert_eq!(names, ["h8", "g8", "f8"]);
}

#[test]
fn game_diagram_shows_the_details_and_reads_back() {
    let mut g = Game::default();
    play_uci_all(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6", "d2d4"]);
    let text = game_diagram(&g, BoardStyle::default());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "8 r . b q k b n r");
    assert_eq!(lines[3], "5 . . . . p . . .");
    assert_eq!(lines[4], "4 . . . P P . . .");
    assert_eq!(lines[8], "  a b c d e f g h");
    assert!(text.contains("Side to move: black\n"), "{text}");
    assert!(text.contains("Last move: d4 (d2d4)\n"), "{text}");
    assert!(text.contains("Halfmove clock: 0\n"), "{text}");
    assert!(text.contains("Fullmove number: 3\n"), "{text}");
    assert!(
        text.contains("FEN: r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3\n")
    );
    assert!(text.contains("Status: ongoing\n"), "{text}");
    assert_eq!(g.to_string(), text);

    // The puzzle solver reads the diagram back, whole rendering included.
    let back = parse_diagram(&text, Color::Black).unwrap();
    assert_eq!(
        back.fen(),
        "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b - - 0 1"
    );
    let flipped = game_diagram(
        &g,
        BoardStyle {
            unicode: true,
            flipped: true,
        },
    );
    assert!(flipped.starts_with("1 ♖ · ♗ ♔ ♕ ♗ ♘ ♖\n"), "{flipped}");
    let back = parse_diagram(&flipped, Color::Black).unwrap();
    assert_eq!(field(&back.fen(), 0), field(&g.position().fen(), 0));
}

#[test]
fn finished_game_diagram_shows_the_result() {
    let mut g = Game::default();
    play_uci_all(&mut g, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let text = g.to_string();
    assert!(text.contains("Last move: Qh4# (d8h4)\n"), "{text}");
    assert!(text.contains("Status: black wins by checkmate\n"), "{text}");
    let mut g = Game::default();
    g.set_draw(Some("arbiter".into())).unwrap();
    assert!(g
        .to_string()
        .contains("Status: draw by decision (arbiter)\n"));
    assert!(g.to_string().contains("Last move: -\n"));
}

// ----- Binbo's PGN games -----

/// The SAN tokens of a single-game PGN: tag pairs, `{...}` comments, move numbers, NAGs and
/// the result are dropped. Enough for Binbo's test files (no variations).
fn movetext(pgn: &str) -> Vec<String> {
    let body: String = pgn
        .lines()
        .filter(|line| !line.trim_start().starts_with('['))
        .collect::<Vec<_>>()
        .join("\n");
    let mut without_comments = String::new();
    let mut depth = 0;
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => without_comments.push(c),
            _ => {}
        }
    }
    without_comments
        .split_whitespace()
        .filter(|token| !["1-0", "0-1", "1/2-1/2", "*"].contains(token))
        .map(|token| token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .filter(|token| !token.is_empty() && !token.starts_with('$'))
        .map(str::to_string)
        .collect()
}

fn binbo_pgn(name: &str) -> String {
    let path = format!(
        "{}/../../tests/data/pgn/binbo/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Replays a PGN game move by move. The game must not end before the last move; our SAN must
/// match the file's up to check marks (some of these files omit a `+`: Timman-Lutz 64...Nc6
/// is a discovered check).
fn replay(name: &str, policy: DrawPolicy) -> Game {
    let sans = movetext(&binbo_pgn(name));
    assert!(sans.len() > 40, "{name}: only {} moves read", sans.len());
    let mut g = Game::with_policy(Position::startpos(), policy);
    for (i, san) in sans.iter().enumerate() {
        assert!(
            !g.is_over(),
            "{name}: over before ply {} ({san}): {}",
            i + 1,
            g.status()
        );
        let played = g
            .play_san(san)
            .unwrap_or_else(|e| panic!("{name}: ply {} {san}: {e}", i + 1))
            .clone();
        let bare = |s: &str| s.trim_end_matches(['+', '#']).to_string();
        assert_eq!(bare(&played.san), bare(san), "{name}: ply {}", i + 1);
    }
    g
}

/// Binbo's pgn_SUITE: these three games end by the fifty-move rule on their last move.
#[test]
fn binbo_fifty_move_rule_games_end_on_the_last_move() {
    for (name, fen, refused) in [
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
    ] {
        let mut g = replay(name, DrawPolicy::Automatic);
        assert_eq!(g.position().fen(), fen, "{name}");
        let status = over(GameResult::Draw, Reason::FiftyMoves);
        assert_eq!(g.status(), &status, "{name}");
        assert_eq!(
            g.play_san(refused),
            Err(GameError::GameOver(status.clone()))
        );
        assert_eq!(g.status(), &status, "{name}");
    }
}

/// Binbo's pgn_SUITE: Timman-Lutz stops one half-move short; `Rg5` draws.
#[test]
fn binbo_fifty_move_rule_timman_lutz() {
    let mut g = replay("fifty-move-rule-Timman-Lutz.pgn", DrawPolicy::Automatic);
    assert_eq!(g.position().fen(), "6R1/7k/8/8/1r3B2/5K2/8/8 w - - 99 119");
    assert!(!g.is_over());
    g.play_san("Rg5").unwrap();
    let status = over(GameResult::Draw, Reason::FiftyMoves);
    assert_eq!(g.status(), &status);
    assert_eq!(g.play_san("Ra4"), Err(GameError::GameOver(status.clone())));
    assert_eq!(g.status(), &status);

    // Under the claims policy the same game only becomes claimable.
    let mut g = replay("fifty-move-rule-Timman-Lutz.pgn", DrawPolicy::Claims);
    assert_eq!(g.claimable_draw(), None);
    g.play_san("Rg5").unwrap();
    assert!(!g.is_over());
    assert_eq!(g.claimable_draw(), Some(Reason::FiftyMoves));
    g.claim_draw().unwrap();
    assert_eq!(g.status(), &over(GameResult::Draw, Reason::FiftyMoves));
}

/// Binbo's pgn_SUITE: the game is still on after 47...Qc6; `Qh6` repeats the position after
/// 44.Qh6 and 46.Qh6 a third time.
#[test]
fn binbo_threefold_repetition_spassky_fischer() {
    let name = "threefold-repetition-Spassky-Fischer.pgn";
    let mut g = replay(name, DrawPolicy::Automatic);
    assert_eq!(g.history().len(), 94);
    assert!(!g.is_over());
    assert_eq!(g.repetition_count(), 2);
    g.play_san("Qh6").unwrap();
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(
        g.status(),
        &over(GameResult::Draw, Reason::ThreefoldRepetition)
    );

    let mut g = replay(name, DrawPolicy::Claims);
    g.play_san("Qh6").unwrap();
    assert!(!g.is_over());
    assert_eq!(g.claimable_draw(), Some(Reason::ThreefoldRepetition));
}

// ----- Binbo's play_game_SUITE -----

#[test]
fn binbo_suite_checkmates_stalemates_and_rule50() {
    let cases = [
        (
            "rnbqkbnr/3ppppp/ppp5/8/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq -",
            "c4f7",
            over(GameResult::WhiteWins, Reason::Checkmate),
        ),
        (
            "rnb1k1nr/pppp1ppp/8/2b1p3/P6q/NP6/2PPPPPP/R1BQKBNR b KQkq -",
            "h4f2",
            over(GameResult::BlackWins, Reason::Checkmate),
        ),
        (
            "k7/8/8/8/7Q/8/3K4/1R6 w - -",
            "h4h7",
            over(GameResult::Draw, Reason::Stalemate),
        ),
        (
            "1q2b1b1/8/8/8/8/7k/8/K7 b - -",
            "e8g6",
            over(GameResult::Draw, Reason::Stalemate),
        ),
        (
            "6R1/7k/8/8/1r3B2/5K2/8/8 w - - 99 119",
            "g8a8",
            over(GameResult::Draw, Reason::FiftyMoves),
        ),
    ];
    for (fen, mv, status) in cases {
        let mut g = game(fen);
        assert!(!g.is_over(), "{fen}");
        g.play_uci(mv).unwrap();
        assert_eq!(g.status(), &status, "{fen} {mv}");
        // Binbo: no winner can be set after checkmate or stalemate.
        assert_eq!(
            g.set_winner(Color::White, Some("test_reason3".into())),
            Err(GameError::AlreadyHasStatus(status.clone()))
        );
    }
}

#[test]
fn binbo_suite_moves_of_every_piece_and_en_passant() {
    let mut g = Game::default();
    play_uci_all(
        &mut g,
        &[
            "a2a3", "a7a6", "c2c3", "c7c6", "e2e4", "e7e5", "d2d4", "d7d5", "f1e2", "f8e7", "c1e3",
            "c8e6", "g1h3", "g8h6", "b1d2", "b8d7", "d1a4", "d8b6", "h1g1", "h8g8", "a1d1", "a8d8",
            "e1f1", "e8f8",
        ],
    );
    assert!(!g.is_over());

    let mut g = Game::default();
    play_uci_all(
        &mut g,
        &[
            "g2g4", "a7a5", "g4g5", "a5a4", "b2b4", "a4b3", "c2b3", "h7h5", "g5h6",
        ],
    );
    let notated = g.notated_history();
    let sans: Vec<&str> = notated.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans[5], "axb3");
    assert_eq!(sans[8], "gxh6");
    assert!(g.history()[5].is_en_passant());
    assert!(g.history()[8].is_en_passant());
}

/// A start, the moves played, the castlings then refused and one then allowed.
type CastlingCase<'a> = (&'a str, &'a [&'a str], &'a [&'a str], Option<&'a str>);

const BINBO_CASTLING_FEN: &str = "r3k2r/ppp1qppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP1QPPP/R3K2R";

#[test]
fn binbo_suite_castling_rights() {
    let white = format!("{BINBO_CASTLING_FEN} w KQkq -");
    let black = format!("{BINBO_CASTLING_FEN} b KQkq -");
    let mut g = game(&white);
    play_uci_all(&mut g, &["e1g1", "e8g8"]);
    let mut g = game(&white);
    play_uci_all(&mut g, &["e1c1", "e8c8"]);

    // (start, moves, refused castlings, allowed castling)
    let cases: [CastlingCase; 8] = [
        (
            &white,
            &["e1d2", "a7a6", "d2e1", "a6a5"],
            &["e1g1", "e1c1"],
            None,
        ),
        (
            &black,
            &["e8d7", "a2a3", "d7e8", "a3a4"],
            &["e8g8", "e8c8"],
            None,
        ),
        (
            &white,
            &["h1g1", "a7a6", "g1h1", "a6a5"],
            &["e1g1"],
            Some("e1c1"),
        ),
        (
            &white,
            &["a1b1", "a7a6", "b1a1", "a6a5"],
            &["e1c1"],
            Some("e1g1"),
        ),
        (
            &white,
            &[
                "a1b1", "a7a6", "b1a1", "a6a5", "h1g1", "h7h6", "g1h1", "h6h5",
            ],
            &["e1g1", "e1c1"],
            None,
        ),
        (
            &black,
            &["h8g8", "a2a3", "g8h8", "a3a4"],
            &["e8g8"],
            Some("e8c8"),
        ),
        (
            &black,
            &["a8b8", "a2a3", "b8a8", "a3a4"],
            &["e8c8"],
            Some("e8g8"),
        ),
        (
            &black,
            &[
                "a8b8", "a2a3", "b8a8", "a3a4", "h8g8", "h2h3", "g8h8", "h3h4",
            ],
            &["e8g8", "e8c8"],
            None,
        ),
    ];
    for (start, moves, refused, allowed) in cases {
        let mut g = game(start);
        play_uci_all(&mut g, moves);
        for mv in refused {
            assert!(
                matches!(g.play_uci(mv), Err(GameError::IllegalUci(_))),
                "{start} {moves:?} {mv}"
            );
        }
        if let Some(mv) = allowed {
            assert!(g.play_uci(mv).unwrap().mv.is_castle(), "{start} {mv}");
        }
    }
}

#[test]
fn binbo_suite_castling_through_attacked_squares() {
    // (FEN, refused castlings, allowed castling)
    let cases: [(&str, &[&str], Option<&str>); 12] = [
        // White in check.
        (
            "r3k2r/pppbq1pp/n2p1p1n/4p1B1/1bB1P3/N2P1P1N/PPP1Q1PP/R3K2R w KQkq -",
            &["e1g1", "e1c1"],
            None,
        ),
        // g1 attacked.
        (
            "r3k2r/pppbq1pp/n2p1p1n/2b1p1B1/2B1P3/N2P1P1N/PPP1Q1PP/R3K2R w KQkq -",
            &["e1g1"],
            None,
        ),
        // f1 attacked.
        (
            "r3k2r/pppbq1pp/n2p1p2/b3p1B1/2B1P3/N1PP1PnN/PP2Q1PP/R3K2R w KQkq -",
            &["e1g1"],
            None,
        ),
        // c1 attacked.
        (
            "r3k2r/ppp1q1pp/n2p1pbn/4p1b1/2B1P2B/N1PP1P1N/PP2Q1PP/R3K2R w KQkq -",
            &["e1c1"],
            None,
        ),
        // d1 attacked.
        (
            "r3k2r/ppp1q1pp/n2p1p1n/4p1b1/b1B1P2B/N1PP1P1N/PP2Q1PP/R3K2R w KQkq -",
            &["e1c1"],
            None,
        ),
        // Only b1 attacked: queenside castling is allowed.
        (
            "r3k2r/ppp1q1pp/nb3pbn/3PP3/2B4B/N1P2P1N/PP2Q1PP/R3K2R w KQkq -",
            &[],
            Some("e1c1"),
        ),
        // Black in check.
        (
            "r3k2r/ppp1q1pp/nb3pbn/3PP3/Q6B/N1P2P1N/PP2B1PP/R3K2R b KQkq -",
            &["e8g8", "e8c8"],
            None,
        ),
        // g8 attacked.
        (
            "r3k2r/ppp1q1pp/nb3pbn/4P3/3P3B/NQP2P1N/PP2B1PP/R3K2R b KQkq -",
            &["e8g8"],
            None,
        ),
        // f8 attacked.
        (
            "r3k2r/ppp1qbpp/nb3pNn/4P3/3P3B/NQP2P2/PP2B1PP/R3K2R b KQkq -",
            &["e8g8"],
            None,
        ),
        // c8 attacked.
        (
            "r3k2r/ppp1qbpp/nb3p1n/4P3/3PN2B/N1P2P1B/PPQ3PP/R3K2R b KQkq -",
            &["e8c8"],
            None,
        ),
        // d8 attacked.
        (
            "r3k2r/ppp2bpp/nb2q2n/4Pp2/3P3B/N1P2P1B/PPQ1N1PP/R3K2R b KQkq -",
            &["e8c8"],
            None,
        ),
        // Only b8 attacked: queenside castling is allowed.
        (
            "r3k2r/pp3bpp/nbp1q2n/5p2/3P4/N1P1PPBB/PPQ1N1PP/R3K2R b KQkq -",
            &[],
            Some("e8c8"),
        ),
    ];
    for (fen, refused, allowed) in cases {
        let mut g = game(fen);
        for mv in refused {
            assert!(g.play_uci(mv).is_err(), "{fen} {mv}");
        }
        assert!(g.history().is_empty());
        if let Some(mv) = allowed {
            assert_eq!(g.play_uci(mv).unwrap().san.trim_end_matches('+'), "O-O-O");
            assert!(!g.is_over());
        }
    }
}

#[test]
fn index_moves_refuse_a_role_on_ordinary_moves_unlike_binbo() {
    // Binbo's suite plays these, ignoring the role; chessd refuses a move it was not given.
    let mut g = Game::default();
    for (from, to, role) in [
        (12, 20, Role::Queen),
        (9, 17, Role::Queen),
        (8, 16, Role::Bishop),
        (6, 21, Role::Knight),
    ] {
        assert!(g
            .play_squares(Square::new(from), Square::new(to), Some(role))
            .is_err());
    }
    assert!(g.history().is_empty());
    g.play_squares(Square::new(12), Square::new(20), None)
        .unwrap();
    let a6 = g
        .play_squares(Square::new(48), Square::new(40), None)
        .unwrap();
    assert_eq!(a6.uci, "a7a6");
    assert!(g
        .play_squares(Square::new(1), Square::new(2), None)
        .is_err());
    // A role on a promotion is kept.
    let mut g = game(PROMOTION_FEN);
    assert_eq!(
        g.play_squares(Square::A7, Square::A8, Some(Role::Knight))
            .unwrap()
            .san,
        "a8=N"
    );
}

#[test]
fn binbo_suite_results_set_by_hand() {
    let mut g = Game::default();
    g.set_winner(Color::Black, Some("test_reason2".into()))
        .unwrap();
    let status = g.status().clone();
    assert_eq!(status.result, GameResult::BlackWins);
    assert_eq!(g.play_uci("e2e4"), Err(GameError::GameOver(status)));
    let mut g = Game::default();
    g.set_draw(Some("test_draw".into())).unwrap();
    assert!(matches!(
        g.set_winner(Color::White, None),
        Err(GameError::AlreadyHasStatus(Status {
            result: GameResult::Draw,
            ..
        }))
    ));
}
