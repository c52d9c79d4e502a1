//! The JSON forms of the types the server sends (with the `serde` feature). The server's wire
//! format depends on them byte for byte, so each form is spelled out here.

use chessd_core::{
    game::{DrawPolicy, GameResult, Reason, Status},
    perft::PerftStats,
    solver::Solver,
    Color, FenMode, IllegalReason, Move, Position, Role, Square,
};
use serde::{de::DeserializeOwned, Serialize};

/// Asserts that `value` is written as `json` and read back from it unchanged.
fn assert_json<T>(value: T, json: &str)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    assert_eq!(serde_json::to_string(&value).unwrap(), json, "{value:?}");
    assert_eq!(serde_json::from_str::<T>(json).unwrap(), value, "{json}");
}

#[test]
fn colors() {
    assert_json(Color::White, r#""white""#);
    assert_json(Color::Black, r#""black""#);
    assert!(serde_json::from_str::<Color>(r#""White""#).is_err());
}

#[test]
fn game_results() {
    assert_json(GameResult::Ongoing, r#""ongoing""#);
    assert_json(GameResult::WhiteWins, r#""white_wins""#);
    assert_json(GameResult::BlackWins, r#""black_wins""#);
    assert_json(GameResult::Draw, r#""draw""#);
    for r in [
        GameResult::Ongoing,
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
    ] {
        assert_json(r, &format!("\"{}\"", r.name()));
    }
}

#[test]
fn reasons_match_their_names() {
    let all = [
        (Reason::Checkmate, "checkmate"),
        (Reason::Stalemate, "stalemate"),
        (Reason::InsufficientMaterial, "insufficient_material"),
        (Reason::FiftyMoves, "fifty_moves"),
        (Reason::ThreefoldRepetition, "threefold_repetition"),
        (Reason::FivefoldRepetition, "fivefold_repetition"),
        (Reason::SeventyFiveMoves, "seventy_five_moves"),
        (Reason::Resignation, "resignation"),
        (Reason::Timeout, "timeout"),
        (Reason::Agreement, "agreement"),
        (Reason::Manual, "manual"),
        (Reason::MidlineInvasion, "midline_invasion"),
        (Reason::NoLegalMoves, "no_legal_moves"),
    ];
    for (reason, name) in all {
        assert_eq!(reason.name(), name);
        assert_json(reason, &format!("\"{name}\""));
    }
}

#[test]
fn statuses() {
    assert_json(
        Status::ongoing(),
        r#"{"result":"ongoing","reason":null,"note":null}"#,
    );
    assert_json(
        Status::over(GameResult::WhiteWins, Reason::Checkmate),
        r#"{"result":"white_wins","reason":"checkmate","note":null}"#,
    );
    assert_json(
        Status {
            result: GameResult::Draw,
            reason: Some(Reason::Manual),
            note: Some("arbiter \"decision\"".to_string()),
        },
        r#"{"result":"draw","reason":"manual","note":"arbiter \"decision\""}"#,
    );
}

#[test]
fn draw_policies() {
    assert_json(DrawPolicy::Automatic, r#""automatic""#);
    assert_json(DrawPolicy::Claims, r#""claims""#);
}

#[test]
fn roles() {
    let all = [
        (Role::Pawn, "pawn"),
        (Role::Knight, "knight"),
        (Role::Bishop, "bishop"),
        (Role::Rook, "rook"),
        (Role::Queen, "queen"),
        (Role::King, "king"),
    ];
    for (role, name) in all {
        assert_eq!(role.name(), name);
        assert_json(role, &format!("\"{name}\""));
    }
}

#[test]
fn squares_are_their_names() {
    assert_json(Square::E4, r#""e4""#);
    assert_json(Square::A1, r#""a1""#);
    assert_json(Square::H8, r#""h8""#);
    for sq in Square::all() {
        assert_json(sq, &format!("\"{sq}\""));
    }
    for bad in [
        r#""e9""#, r#""E4""#, r#""""#, r#""e44""#, r#""i1""#, "4", "null",
    ] {
        assert!(serde_json::from_str::<Square>(bad).is_err(), "{bad}");
    }
    let err = serde_json::from_str::<Square>(r#""z9""#).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid value: string "z9", expected a square name a1..h8 at line 1 column 4"#
    );
    // Inside other structures too.
    let squares: Vec<Square> = serde_json::from_str(r#"["e2","e4"]"#).unwrap();
    assert_eq!(squares, [Square::E2, Square::E4]);
}

#[test]
fn perft_stats_use_their_field_names() {
    let stats = PerftStats {
        nodes: 1,
        captures: 2,
        enpassants: 3,
        castles: 4,
        promotions: 5,
        direct_checks: 6,
        single_discovered_checks: 7,
        direct_discovered_checks: 8,
        double_discovered_checks: 9,
        direct_mates: 10,
        single_discovered_mates: 11,
        direct_discovered_mates: 12,
        double_discovered_mates: 13,
    };
    assert_json(
        stats,
        concat!(
            r#"{"nodes":1,"captures":2,"enpassants":3,"castles":4,"promotions":5,"#,
            r#""direct_checks":6,"single_discovered_checks":7,"direct_discovered_checks":8,"#,
            r#""double_discovered_checks":9,"direct_mates":10,"single_discovered_mates":11,"#,
            r#""direct_discovered_mates":12,"double_discovered_mates":13}"#
        ),
    );
}

#[test]
fn illegal_reasons_match_their_names() {
    let all = [
        (IllegalReason::NoPiece, "no_piece"),
        (IllegalReason::WrongSide, "wrong_side"),
        (IllegalReason::SameSquare, "same_square"),
        (IllegalReason::OwnPiece, "own_piece"),
        (IllegalReason::OwnKingInCheck, "own_king_in_check"),
        (IllegalReason::CannotMoveThere, "cannot_move_there"),
        (IllegalReason::BadPromotion, "bad_promotion"),
        (IllegalReason::MissingPromotion, "missing_promotion"),
    ];
    assert_eq!(all.len(), IllegalReason::ALL.len());
    for (reason, name) in all {
        assert_eq!(reason.name(), name);
        assert_json(reason, &format!("\"{name}\""));
    }
}

#[test]
fn moves_are_their_squares_and_kind() {
    assert_json(Move::normal(Square::E2, Square::E4), r#""e2e4""#);
    assert_json(
        Move::promotion(Square::E7, Square::E8, Role::Queen),
        r#""e7e8q""#,
    );
    assert_json(
        Move::promotion(Square::B2, Square::A1, Role::Knight),
        r#""b2a1n""#,
    );
    assert_json(Move::castle(Square::E1, Square::H1), r#""e1h1(castle)""#);
    assert_json(Move::en_passant(Square::E5, Square::D6), r#""e5d6(ep)""#);
    for bad in [
        r#""e2""#,
        r#""e2e9""#,
        r#""e7e8k""#,
        r#""e7e8p""#,
        r#""e7e8Q""#,
        r#""e7e8qq""#,
        r#""e1h1(castles)""#,
        "4",
    ] {
        assert!(serde_json::from_str::<Move>(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_solution_reads_back_unchanged() {
    // A mate in two (the API documentation's example): the tree has defences and replies.
    let fen = "3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 35";
    let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
    let solution = Solver::new(pos).mate_in(2).solve().unwrap();
    assert_eq!(solution.mate, Some(2));
    assert!(!solution.trees[0].defences.is_empty());
    let json = serde_json::to_string(&solution).unwrap();
    let back: chessd_core::solver::Solution = serde_json::from_str(&json).unwrap();
    assert_eq!(back, solution, "{json}");
}
