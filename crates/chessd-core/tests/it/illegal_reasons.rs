//! Why moves are illegal: every [`IllegalReason`] on hand-made positions, the reasons the
//! errors of `parse_uci`, `move_from_squares` and `Game` carry, and a differential test of
//! `why_illegal` against shakmaty (legality) and an independent classification built on
//! shakmaty's board, attack tables and castling paths.

use crate::common;

use chessd_core::{
    game::{Game, GameError},
    uci::UciError,
    FenMode, IllegalReason, Move, Position, Role, Square,
};
use common::{fens, Rng, CHESS960, SUITE};
use shakmaty::{
    fen::Fen, CastlingMode, CastlingSide, Chess, EnPassantMode, Position as _, Role as TheirRole,
    Square as TheirSquare,
};

use IllegalReason::*;

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, FenMode::Lenient).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// `why_illegal` of a UCI-style move (`e2e4`, `a7a8q`) in `fen`, checked against `parse_uci`.
fn why(fen: &str, uci: &str) -> Option<IllegalReason> {
    let p = pos(fen);
    let promotion = uci.chars().nth(4).and_then(Role::from_char);
    let reason = p.why_illegal(sq(&uci[..2]), sq(&uci[2..4]), promotion);
    match p.parse_uci(uci) {
        Ok(_) => assert_eq!(reason, None, "{fen}: {uci} parses"),
        Err(e) => assert_eq!(e.reason(), reason, "{fen}: {uci}: {e}"),
    }
    reason
}

/// The reason of a refused game action.
fn reason<T>(result: Result<T, GameError>) -> Option<IllegalReason> {
    result.map(|_| ()).unwrap_err().reason()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn empty_origin_wrong_side_same_square() {
    assert_eq!(why(START, "e3e4"), Some(NoPiece));
    assert_eq!(why(START, "a5a6"), Some(NoPiece));
    assert_eq!(why(START, "e7e5"), Some(WrongSide));
    assert_eq!(why(START, "g8f6"), Some(WrongSide));
    assert_eq!(why(START, "e2e2"), Some(SameSquare));
    assert_eq!(why(START, "d1d1"), Some(SameSquare));
    // Black to move: White's pieces are the wrong side.
    let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    assert_eq!(why(black, "d2d4"), Some(WrongSide));
    assert_eq!(why(black, "e7e5"), None);
}

#[test]
fn own_piece_on_the_target() {
    assert_eq!(why(START, "b1d2"), Some(OwnPiece));
    assert_eq!(why(START, "d1d2"), Some(OwnPiece));
    assert_eq!(why(START, "e1e2"), Some(OwnPiece));
    assert_eq!(why(START, "a1a2"), Some(OwnPiece));
    // A rook "taking" its own king, and a king taking a rook with no castling right.
    let no_rights = "4k3/8/8/8/8/8/8/R3K2R w - - 0 1";
    assert_eq!(why(no_rights, "e1h1"), Some(OwnPiece));
    assert_eq!(why(no_rights, "h1e1"), Some(OwnPiece));
    let next_to_rook = "4k3/8/8/8/8/8/8/4KR2 w - - 0 1";
    assert_eq!(why(next_to_rook, "e1f1"), Some(OwnPiece));
    assert_eq!(why(next_to_rook, "f1e1"), Some(OwnPiece));
}

#[test]
fn castling_as_king_takes_rook_is_not_own_piece() {
    // Standard chess: both notations castle.
    let castling = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    for uci in ["e1g1", "e1h1", "e1c1", "e1a1"] {
        assert_eq!(why(castling, uci), None, "{uci}");
    }
    assert_eq!(why(castling, "e1b1"), Some(CannotMoveThere));
    // Chess960: the king next to its rook (Shredder FEN), king takes rook.
    let c960 = "1rk1r3/pppppppp/8/8/8/8/PPPPPPPP/1RK1R3 w BEbe - 0 1";
    assert_eq!(why(c960, "c1b1"), None);
    assert_eq!(why(c960, "c1e1"), None);
    assert_eq!(why(c960, "c1d1"), None, "an ordinary king move");
    let c960_blocked = "1rk1r3/pppppppp/8/8/8/8/PPPPPPPP/1RKNR3 w BEbe - 0 1";
    assert_eq!(why(c960_blocked, "c1e1"), Some(CannotMoveThere));
    assert_eq!(why(c960_blocked, "c1g1"), Some(CannotMoveThere));
    let c960 = "6k1/8/8/8/8/8/8/RK5R w HA - 0 1";
    assert_eq!(why(c960, "b1a1"), None);
    assert_eq!(why(c960, "b1h1"), None);
    assert_eq!(why(c960, "b1g1"), None);
    // King g1, rook h1: king takes rook castles; g1g1 is no move at all.
    let c960 = "6k1/8/8/8/8/8/8/6KR w H - 0 1";
    assert_eq!(why(c960, "g1h1"), None);
    assert_eq!(why(c960, "g1g1"), Some(SameSquare));
}

#[test]
fn castling_blocked_or_without_right() {
    assert_eq!(why(START, "e1g1"), Some(CannotMoveThere));
    assert_eq!(
        why(START, "e1h1"),
        Some(CannotMoveThere),
        "castling, blocked"
    );
    let castling = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let blocked = "r3k2r/8/8/8/8/8/8/R3KB1R w KQkq - 0 1";
    assert_eq!(why(blocked, "e1g1"), Some(CannotMoveThere));
    assert_eq!(why(blocked, "e1h1"), Some(CannotMoveThere));
    let no_kingside = "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1";
    assert_eq!(why(no_kingside, "e1g1"), Some(CannotMoveThere));
    assert_eq!(why(no_kingside, "e1h1"), Some(OwnPiece));
    assert_eq!(why(castling, "e1c1"), None);
    // Queenside with b1 occupied: blocked, though the king would not cross b1.
    let b1 = "r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1";
    assert_eq!(why(b1, "e1c1"), Some(CannotMoveThere));
}

#[test]
fn castling_out_of_through_and_into_check() {
    // Through check: the rook on f2 attacks f1.
    let through = "r3k2r/8/8/8/8/8/5r2/R3K2R w KQ - 0 1";
    assert_eq!(why(through, "e1g1"), Some(OwnKingInCheck));
    assert_eq!(why(through, "e1h1"), Some(OwnKingInCheck));
    assert_eq!(why(through, "e1c1"), None);
    // Into check: the rook on g2 attacks g1.
    let into = "r3k2r/8/8/8/8/8/6r1/R3K2R w KQ - 0 1";
    assert_eq!(why(into, "e1g1"), Some(OwnKingInCheck));
    // Out of check: the rook on e2 gives check.
    let out_of = "r3k2r/8/8/8/8/8/4r3/R3K2R w KQ - 0 1";
    assert_eq!(why(out_of, "e1g1"), Some(OwnKingInCheck));
    assert_eq!(why(out_of, "e1c1"), Some(OwnKingInCheck));
    // Only the king's squares count: b1 attacked does not stop queenside castling.
    let b1_attacked = "r3k2r/8/8/8/8/8/1r6/R3K2R w KQ - 0 1";
    assert_eq!(why(b1_attacked, "e1c1"), None);
    // Chess960: the rook leaving b1 uncovers the queen on a1's attack on the king's target c1.
    let uncovered = "6k1/8/8/8/8/8/8/qRK5 w B - 0 1";
    assert_eq!(why(uncovered, "c1b1"), Some(OwnKingInCheck));
}

#[test]
fn king_moving_into_check() {
    let fen = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";
    assert_eq!(why(fen, "e1d1"), Some(OwnKingInCheck));
    assert_eq!(why(fen, "e1e2"), Some(OwnKingInCheck));
    assert_eq!(why(fen, "e1f2"), Some(OwnKingInCheck));
    assert_eq!(why(fen, "e1d2"), None, "taking the rook");
    assert_eq!(why(fen, "e1f1"), None);
    assert_eq!(why(fen, "e1e3"), Some(CannotMoveThere));
    // Next to the other king; and backing away along the checking line.
    assert_eq!(
        why("8/8/8/8/8/3k4/8/4K3 w - - 0 1", "e1e2"),
        Some(OwnKingInCheck)
    );
    assert_eq!(
        why("4r1k1/8/8/8/8/8/4K3/8 w - - 0 1", "e2e1"),
        Some(OwnKingInCheck)
    );
}

#[test]
fn pinned_pieces_and_check_evasions() {
    // The knight on d2 is pinned by the bishop on b4.
    let pinned = "rnbqk1nr/pppp1ppp/8/4p3/1b1P4/8/PPPNPPPP/R1BQKBNR w KQkq - 2 3";
    assert_eq!(why(pinned, "d2f3"), Some(OwnKingInCheck));
    assert_eq!(why(pinned, "d2d3"), Some(CannotMoveThere));
    assert_eq!(why(pinned, "d2f1"), Some(OwnPiece));
    // A pinned rook may move along the pin, not off it.
    let rook = "4r1k1/8/8/8/8/8/4R3/4K3 w - - 0 1";
    assert_eq!(why(rook, "e2e5"), None);
    assert_eq!(why(rook, "e2a2"), Some(OwnKingInCheck));
    // In check, a move that does not answer it.
    let check = "4k3/8/8/8/8/8/r7/R3K3 b - - 0 1";
    let in_check = "4k3/8/8/8/8/8/8/R3K2r w - - 0 1";
    assert_eq!(why(check, "a2a1"), None);
    assert_eq!(why(in_check, "a1a8"), Some(OwnKingInCheck));
    assert_eq!(why(in_check, "a1d1"), Some(OwnKingInCheck));
    assert_eq!(
        why(in_check, "a1f1"),
        Some(CannotMoveThere),
        "the king is in the way"
    );
    assert_eq!(why(in_check, "e1f1"), Some(OwnKingInCheck));
    assert_eq!(why(in_check, "e1e2"), None);
}

#[test]
fn en_passant_uncovering_check() {
    // Named in the FEN: b5xc6 would uncover the rook on h5.
    let fen = "8/8/8/KPp4r/8/8/8/6k1 w - c6 0 2";
    assert_eq!(pos(fen).ep_square(), None, "the capture is illegal");
    assert_eq!(why(fen, "b5c6"), Some(OwnKingInCheck));
    assert_eq!(why(fen, "b5b6"), None);
    // Without the right it is a capture onto an empty square.
    assert_eq!(
        why("8/8/8/KPp4r/8/8/8/6k1 w - - 0 2", "b5c6"),
        Some(CannotMoveThere)
    );
    // Legal en passant, and a pawn pinned on the diagonal that may not take it.
    let legal = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
    assert_eq!(why(legal, "e5d6"), None);
    assert_eq!(why(legal, "e5f6"), Some(CannotMoveThere));
    // The pawn on e5 is pinned on the long diagonal; the one on c5 may take.
    let pinned = "4k2b/8/8/2PpP3/8/8/8/K7 w - d6 0 2";
    assert_eq!(pos(pinned).ep_square(), Some(Square::D6));
    assert_eq!(why(pinned, "e5d6"), Some(OwnKingInCheck));
    assert_eq!(why(pinned, "c5d6"), None);
}

#[test]
fn movement_patterns() {
    // Knight: wrong pattern.
    assert_eq!(why(START, "g1g3"), Some(CannotMoveThere));
    assert_eq!(why(START, "g1e3"), Some(CannotMoveThere));
    assert_eq!(why(START, "g1f3"), None);
    // Rook, bishop, queen blocked.
    assert_eq!(why(START, "a1a3"), Some(CannotMoveThere));
    assert_eq!(why(START, "c1e3"), Some(CannotMoveThere));
    assert_eq!(why(START, "d1d5"), Some(CannotMoveThere));
    assert_eq!(why(START, "d1h8"), Some(CannotMoveThere));
    let open = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    assert_eq!(why(open, "a1a8"), None);
    assert_eq!(why(open, "a1b2"), Some(CannotMoveThere));
    // Pawns: no backwards, no straight captures, no double push from elsewhere, no
    // diagonal step onto an empty square.
    assert_eq!(why(START, "e2e5"), Some(CannotMoveThere));
    assert_eq!(why(START, "e2d3"), Some(CannotMoveThere));
    let pawns = "4k3/8/8/3p4/3P4/4P3/8/4K3 w - - 0 1";
    assert_eq!(why(pawns, "d4d5"), Some(CannotMoveThere));
    assert_eq!(why(pawns, "e3e5"), Some(CannotMoveThere));
    assert_eq!(why(pawns, "e3e2"), Some(CannotMoveThere));
    assert_eq!(why(pawns, "e3e4"), None);
    let jump = "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1";
    assert_eq!(why(jump, "e2e4"), Some(CannotMoveThere), "blocked on e3");
}

#[test]
fn promotions() {
    let fen = "r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
    assert_eq!(why(fen, "b7b8"), Some(MissingPromotion));
    assert_eq!(why(fen, "b7a8"), Some(MissingPromotion));
    assert_eq!(why(fen, "b7b8q"), None);
    assert_eq!(why(fen, "b7a8n"), None);
    assert_eq!(
        pos(fen).why_illegal(Square::B7, Square::B8, Some(Role::King)),
        Some(BadPromotion)
    );
    assert_eq!(
        pos(fen).why_illegal(Square::B7, Square::B8, Some(Role::Pawn)),
        Some(BadPromotion)
    );
    // A promotion letter on a move that is not a promotion.
    assert_eq!(why(START, "b2b3q"), Some(BadPromotion));
    assert_eq!(why(START, "g1f3n"), Some(BadPromotion));
    assert_eq!(why(fen, "e1e2q"), Some(BadPromotion));
    // The move itself is wrong first: the promotion letter is not the reason then.
    assert_eq!(why(START, "b2b8q"), Some(CannotMoveThere));
    assert_eq!(why(fen, "b7c8q"), Some(CannotMoveThere));
    let pinned = "4k3/K1P4r/8/8/8/8/8/8 w - - 0 1";
    assert_eq!(why(pinned, "c7c8"), Some(OwnKingInCheck));
    assert_eq!(why(pinned, "c7c8q"), Some(OwnKingInCheck));
    // Black promotes on the first rank.
    let black = "4k3/8/8/8/8/8/p7/4K3 b - - 0 1";
    assert_eq!(why(black, "a2a1"), Some(MissingPromotion));
    assert_eq!(why(black, "a2a1r"), None);
}

#[test]
fn encoded_moves() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(
        p.why_illegal_move(Move::castle(Square::E1, Square::H1)),
        None
    );
    assert_eq!(
        p.why_illegal_move(Move::normal(Square::E1, Square::H1)),
        Some(OwnPiece)
    );
    assert_eq!(
        p.why_illegal_move(Move::normal(Square::E1, Square::G1)),
        Some(CannotMoveThere)
    );
    assert_eq!(
        p.why_illegal_move(Move::promotion(Square::A1, Square::A8, Role::Queen)),
        Some(BadPromotion)
    );
    let ep = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    assert_eq!(
        ep.why_illegal_move(Move::en_passant(Square::E5, Square::D6)),
        None
    );
    assert_eq!(
        ep.why_illegal_move(Move::normal(Square::E5, Square::D6)),
        Some(CannotMoveThere)
    );
    let promote = pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        promote.why_illegal_move(Move::normal(Square::B7, Square::B8)),
        Some(MissingPromotion)
    );
}

#[test]
fn errors_carry_the_reason_and_keep_their_text() {
    let start = Position::startpos();
    let e = start.parse_uci("e2e5").unwrap_err();
    assert_eq!(e, UciError::Illegal("e2e5".to_string(), CannotMoveThere));
    assert_eq!(
        e.to_string(),
        "e2e5 is not a legal move in this position: the piece cannot move to the target square"
    );
    assert_eq!(start.parse_uci("e2e9").unwrap_err().reason(), None);
    let e = start.move_from_indices(1, 11, None).unwrap_err();
    assert_eq!(e, UciError::Illegal("b1d2".to_string(), OwnPiece));
    assert_eq!(
        start.move_from_indices(1, 64, None).unwrap_err().reason(),
        None
    );
    assert_eq!(start.parse_san("Nd2").unwrap_err().reason(), Some(OwnPiece));
    assert_eq!(
        start.parse_san("Nd7").unwrap_err().reason(),
        Some(CannotMoveThere)
    );
    assert_eq!(start.parse_san("Qh9").unwrap_err().reason(), None);

    let mut game = Game::default();
    assert_eq!(reason(game.play_uci("e2e5")), Some(CannotMoveThere));
    assert_eq!(reason(game.play_uci("e7e5")), Some(WrongSide));
    assert_eq!(reason(game.play_uci("e2e")), None);
    assert_eq!(reason(game.play_san("Ke2")), Some(OwnPiece));
    assert_eq!(reason(game.play_san("e5")), Some(CannotMoveThere));
    assert_eq!(reason(game.play_san("N")), None);
    assert_eq!(
        reason(game.play(Move::normal(Square::E3, Square::E4))),
        Some(NoPiece)
    );
    assert_eq!(
        reason(game.play_squares(Square::E2, Square::E2, None)),
        Some(SameSquare)
    );
    assert!(game.history().is_empty());
    game.resign(chessd_core::Color::White).unwrap();
    assert_eq!(game.play_uci("e2e4").unwrap_err().reason(), None);
}

#[test]
fn game_promotion_defaults_and_refusals() {
    // A role on a move that is not a promotion is refused, in squares and in UCI alike.
    let mut game = Game::default();
    let e = game
        .play_squares(Square::B2, Square::B3, Some(Role::Queen))
        .unwrap_err();
    assert_eq!(
        e,
        GameError::IllegalUci(UciError::Illegal("b2b3q".to_string(), BadPromotion))
    );
    let e = game.play_uci("b2b3q").unwrap_err();
    assert_eq!(
        e,
        GameError::IllegalUci(UciError::Illegal("b2b3q".to_string(), BadPromotion))
    );
    assert_eq!(
        game.play_squares(Square::G1, Square::F3, Some(Role::Knight))
            .unwrap_err()
            .reason(),
        Some(BadPromotion)
    );
    assert!(game.history().is_empty());
    game.play_squares(Square::B2, Square::B3, None).unwrap();

    // Without a role a pawn reaching the last rank becomes a queen (as Binbo).
    let fen = "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1";
    let mut game = Game::from_fen(fen).unwrap();
    assert_eq!(
        game.play_squares(Square::A7, Square::A8, None).unwrap().uci,
        "a7a8q"
    );
    let mut game = Game::from_fen(fen).unwrap();
    assert_eq!(game.play_uci("a7b8").unwrap().uci, "a7b8q");
    let mut game = Game::from_fen(fen).unwrap();
    assert_eq!(game.play_uci("a7a8n").unwrap().uci, "a7a8n");
    // A role that is no promotion piece.
    let mut game = Game::from_fen(fen).unwrap();
    assert_eq!(
        game.play_squares(Square::A7, Square::A8, Some(Role::King))
            .unwrap_err()
            .reason(),
        Some(BadPromotion)
    );
    // When the queen promotion is illegal too, the reason is the move's, not the letter's.
    let pinned = "4k3/K1P4r/8/8/8/8/8/8 w - - 0 1";
    let mut game = Game::from_fen(pinned).unwrap();
    assert_eq!(
        game.play_uci("c7c8").unwrap_err().reason(),
        Some(OwnKingInCheck)
    );
    assert_eq!(
        game.play_squares(Square::C7, Square::C8, None)
            .unwrap_err()
            .reason(),
        Some(OwnKingInCheck)
    );
}

#[test]
fn game_knows_the_en_passant_square_of_the_last_move() {
    let mut game = Game::from_fen("8/2p5/8/KP5r/8/8/8/6k1 b - - 0 1").unwrap();
    game.play_uci("c7c5").unwrap();
    // The bare position has forgotten c6 (the capture is illegal) ...
    assert_eq!(game.position().ep_square(), None);
    assert_eq!(
        game.position().why_illegal(Square::B5, Square::C6, None),
        Some(CannotMoveThere)
    );
    // ... the game has not.
    assert_eq!(
        game.why_illegal(Square::B5, Square::C6, None),
        Some(OwnKingInCheck)
    );
    for e in [
        game.play_uci("b5c6").unwrap_err(),
        game.play_san("bxc6").unwrap_err(),
        game.play_squares(Square::B5, Square::C6, None).unwrap_err(),
        game.play(Move::en_passant(Square::B5, Square::C6))
            .unwrap_err(),
    ] {
        assert_eq!(e.reason(), Some(OwnKingInCheck), "{e}");
    }
    assert_eq!(game.position().fen(), "8/8/8/KPp4r/8/8/8/6k1 w - - 0 2");
    // After another move the right is gone.
    game.play_uci("a5a4").unwrap();
    game.play_uci("g1g2").unwrap();
    assert_eq!(
        game.why_illegal(Square::B5, Square::C6, None),
        Some(CannotMoveThere)
    );
}

// ----- Differential test against shakmaty -----

fn their_sq(sq: Square) -> TheirSquare {
    TheirSquare::new(sq.index() as u32)
}

fn their_role(role: Role) -> TheirRole {
    TheirRole::from_char(role.char()).unwrap()
}

/// The `(from, to, promotion)` triples `move_from_squares` should accept: every legal
/// shakmaty move, castling both as king takes rook and as the king's move to its square.
fn accepted(theirs: &Chess) -> Vec<(TheirSquare, TheirSquare, Option<TheirRole>)> {
    let mut out = Vec::new();
    for m in theirs.legal_moves() {
        match m {
            shakmaty::Move::Normal {
                from,
                to,
                promotion,
                ..
            } => out.push((from, to, promotion)),
            shakmaty::Move::EnPassant { from, to } => out.push((from, to, None)),
            shakmaty::Move::Castle { king, rook } => {
                out.push((king, rook, None));
                let side = CastlingSide::from_king_side(rook > king);
                let king_to = TheirSquare::from_coords(side.king_to_file(), king.rank());
                if king_to != king {
                    out.push((king, king_to, None));
                }
            }
            shakmaty::Move::Put { .. } => unreachable!("no drops in chess"),
        }
    }
    out
}

/// The reason the rules (as documented on `IllegalReason`) give, computed from shakmaty:
/// its legal moves, board, attack tables, en-passant square and castling paths.
fn expected(
    theirs: &Chess,
    accepted: &[(TheirSquare, TheirSquare, Option<TheirRole>)],
    from: TheirSquare,
    to: TheirSquare,
    promotion: Option<TheirRole>,
) -> Option<IllegalReason> {
    let board = theirs.board();
    let us = theirs.turn();
    let ours = board.by_color(us);
    let legal = |promotion| accepted.contains(&(from, to, promotion));
    let Some(piece) = board.piece_at(from) else {
        return Some(NoPiece);
    };
    if piece.color != us {
        return Some(WrongSide);
    }
    if from == to {
        return Some(SameSquare);
    }
    let promotes = piece.role == TheirRole::Pawn
        && to.rank() == us.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
    if piece.role == TheirRole::King {
        if !legal(None) {
            let castles = theirs.castles();
            let mut reason = None;
            if shakmaty::attacks::king_attacks(from).contains(to) && !ours.contains(to) {
                reason = Some(OwnKingInCheck);
            }
            for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
                let Some(rook) = castles.rook(us, side) else {
                    continue;
                };
                let king_to = TheirSquare::from_coords(side.king_to_file(), from.rank());
                if rook == to || king_to == to {
                    let clear = (castles.path(us, side) & board.occupied()).is_empty();
                    let castle = if clear {
                        OwnKingInCheck
                    } else {
                        CannotMoveThere
                    };
                    if rook == to {
                        return Some(castle);
                    }
                    reason = reason.or(Some(castle));
                }
            }
            return Some(reason.unwrap_or(if ours.contains(to) {
                OwnPiece
            } else {
                CannotMoveThere
            }));
        }
    } else {
        if ours.contains(to) {
            return Some(OwnPiece);
        }
        let occupied = board.occupied();
        let reachable = if piece.role == TheirRole::Pawn {
            let forward = if us.is_white() { 8 } else { -8 };
            let single = from.offset(forward);
            let double = single.and_then(|s| s.offset(forward));
            let start_rank = us.fold_wb(shakmaty::Rank::Second, shakmaty::Rank::Seventh);
            if shakmaty::attacks::pawn_attacks(us, from).contains(to) {
                board.by_color(!us).contains(to)
                    || theirs.ep_square(EnPassantMode::Always) == Some(to)
            } else if Some(to) == single {
                !occupied.contains(to)
            } else if Some(to) == double {
                from.rank() == start_rank
                    && !occupied.contains(to)
                    && single.is_some_and(|s| !occupied.contains(s))
            } else {
                false
            }
        } else {
            shakmaty::attacks::attacks(from, piece, occupied).contains(to)
        };
        if !reachable {
            return Some(CannotMoveThere);
        }
        let fitting = promotes.then_some(TheirRole::Queen);
        if !legal(fitting) {
            return Some(OwnKingInCheck);
        }
    }
    match promotion {
        None if promotes => Some(MissingPromotion),
        None => None,
        Some(TheirRole::Knight | TheirRole::Bishop | TheirRole::Rook | TheirRole::Queen)
            if promotes =>
        {
            None
        }
        Some(_) => Some(BadPromotion),
    }
}

/// Compares every square pair and promotion choice of the positions along seeded random
/// games from `fen`, played in a `Game` and in shakmaty side by side.
/// How often each reason (index in `IllegalReason::ALL`, then legal) came up.
type Counts = [usize; 9];

fn compare_along_games(fen: &str, games: usize, plies: usize, rng: &mut Rng, counts: &mut Counts) {
    let start = pos(fen);
    let mode = if start.is_chess960() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let their_start: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(mode)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .unwrap();
    let promotions = [
        None,
        Some(Role::Queen),
        Some(Role::Rook),
        Some(Role::Bishop),
        Some(Role::Knight),
        Some(Role::King),
        Some(Role::Pawn),
    ];
    for _ in 0..games {
        let mut game = Game::new(start);
        let mut theirs = their_start.clone();
        for _ in 0..plies {
            let accepted = accepted(&theirs);
            for from in Square::all() {
                for to in Square::all() {
                    for promotion in promotions {
                        let ours = game.why_illegal(from, to, promotion);
                        let (f, t, p) = (their_sq(from), their_sq(to), promotion.map(their_role));
                        let legal = accepted.contains(&(f, t, p));
                        assert_eq!(
                            ours.is_none(),
                            legal,
                            "legality of {from}{to} {promotion:?} in {}: {ours:?}",
                            game.position().fen()
                        );
                        assert_eq!(
                            ours,
                            expected(&theirs, &accepted, f, t, p),
                            "reason for {from}{to} {promotion:?} in {}",
                            game.position().fen()
                        );
                        let index = IllegalReason::ALL
                            .iter()
                            .position(|&r| Some(r) == ours)
                            .unwrap_or(8);
                        counts[index] += 1;
                    }
                }
            }
            let moves = game.position().legal_moves();
            if moves.is_empty() || game.is_over() {
                break;
            }
            let mv = moves[rng.below(moves.len())];
            let uci = game.position().uci(mv);
            let their = theirs
                .legal_moves()
                .into_iter()
                .find(|m| shakmaty::uci::UciMove::from_move(*m, mode).to_string() == uci)
                .expect("the same legal moves");
            game.play(mv).unwrap();
            theirs.play_unchecked(their);
        }
    }
}

#[test]
fn why_illegal_agrees_with_shakmaty_on_random_positions() {
    let mut rng = Rng(0x1111_E6A1_0BAD_C0DE);
    let mut counts = Counts::default();
    for fen in fens(SUITE) {
        compare_along_games(&fen, 1, 100, &mut rng, &mut counts);
    }
    for fen in fens(CHESS960).step_by(20) {
        compare_along_games(&fen, 1, 60, &mut rng, &mut counts);
    }
    eprintln!("(from, to, promotion) triples by reason (then legal): {counts:?}");
    // Every reason came up often enough for the comparison to mean something.
    for (i, &n) in counts.iter().enumerate() {
        assert!(n >= 300, "reason {i} only {n} times");
    }
}
