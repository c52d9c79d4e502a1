//! Differential test against shakmaty: seeded random games from the perft-suite positions.
//! At every position the legal move sets (UCI), the SAN of every legal move, the FEN after every
//! move and the game outcome must agree; repetition and fifty-move endings are checked against
//! shakmaty's own Zobrist keys and half-move clock.

use crate::common;

use common::{fens, Rng, CHESS960, SUITE};
use std::collections::HashMap;

use chessd_core::{
    game::{Game, GameResult, Reason},
    FenMode, Move, Position,
};
use shakmaty::{
    fen::Fen, san::SanPlus, uci::UciMove, zobrist::Zobrist64, CastlingMode, Chess, EnPassantMode,
    Position as _,
};

fn shakmaty_position(fen: &str, mode: CastlingMode) -> Chess {
    let fen: Fen = fen.parse().expect("shakmaty parses the suite FEN");
    fen.into_position(mode)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .expect("shakmaty accepts the suite FEN")
}

/// FEN fields with the castling field replaced by the set of castling rook squares, so that
/// Shredder-FEN (ours, Chess960) and X-FEN (shakmaty) compare equal when they mean the same.
fn normalise_fen(fen: &str, rooks: Vec<String>) -> String {
    let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
    let mut rooks = rooks;
    rooks.sort();
    fields[2] = rooks.join(",");
    fields.join(" ")
}

fn ours_fen(pos: &Position) -> String {
    normalise_fen(
        &pos.fen(),
        pos.castling_rooks().map(|s| s.to_string()).collect(),
    )
}

fn theirs_fen(pos: &Chess) -> String {
    normalise_fen(
        &Fen::from_position(pos, EnPassantMode::Legal).to_string(),
        pos.castles()
            .castling_rights()
            .into_iter()
            .map(|s| s.to_string())
            .collect(),
    )
}

struct Totals {
    positions: usize,
    moves_compared: usize,
    games: usize,
}

fn play_random_games(
    fen: &str,
    games: usize,
    max_plies: usize,
    rng: &mut Rng,
    totals: &mut Totals,
) {
    let start =
        Position::from_fen(fen, FenMode::Lenient).expect("our parser accepts the suite FEN");
    let mode = if start.is_chess960() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    for _ in 0..games {
        totals.games += 1;
        let mut game = Game::new(start);
        let mut theirs = shakmaty_position(fen, mode);
        // shakmaty keys of the positions since the last irreversible move, for repetition.
        let mut seen: HashMap<u64, u32> = HashMap::new();
        let key = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        *seen.entry(key(&theirs)).or_default() += 1;

        for _ in 0..max_plies {
            let pos = *game.position();
            totals.positions += 1;

            // Legal moves: the same set in UCI, and the same SAN for each.
            let mut our_moves: Vec<(String, Move)> =
                pos.legal_moves().iter().map(|&m| (pos.uci(m), m)).collect();
            our_moves.sort_by(|a, b| a.0.cmp(&b.0));
            let their_moves = theirs.legal_moves();
            let mut their_uci: Vec<(String, shakmaty::Move)> = their_moves
                .iter()
                .map(|m| (UciMove::from_move(*m, mode).to_string(), *m))
                .collect();
            their_uci.sort_by(|a, b| a.0.cmp(&b.0));
            let ours_names: Vec<&String> = our_moves.iter().map(|m| &m.0).collect();
            let theirs_names: Vec<&String> = their_uci.iter().map(|m| &m.0).collect();
            assert_eq!(
                ours_names,
                theirs_names,
                "legal moves differ in {}",
                pos.fen()
            );
            for ((uci, ours), (_, their)) in our_moves.iter().zip(&their_uci) {
                let their_san = SanPlus::from_move(theirs.clone(), *their).to_string();
                assert_eq!(pos.san(*ours), their_san, "SAN of {uci} in {}", pos.fen());
                assert_eq!(
                    pos.parse_san(&their_san),
                    Ok(*ours),
                    "parse {their_san} in {}",
                    pos.fen()
                );
                totals.moves_compared += 1;
            }

            // Outcome of the position itself.
            let status = game.status().clone();
            let their_outcome = theirs.outcome();
            match status.reason {
                Some(Reason::Checkmate) => {
                    assert!(theirs.is_checkmate());
                    let winner = their_outcome.winner().expect("decisive");
                    let expected = if winner == shakmaty::Color::White {
                        GameResult::WhiteWins
                    } else {
                        GameResult::BlackWins
                    };
                    assert_eq!(status.result, expected);
                }
                Some(Reason::Stalemate) => assert!(theirs.is_stalemate()),
                Some(Reason::InsufficientMaterial) => {
                    assert!(theirs.is_insufficient_material(), "{}", pos.fen())
                }
                Some(Reason::FiftyMoves) => {
                    assert!(theirs.halfmoves() >= 100);
                    assert!(!theirs.is_checkmate());
                }
                Some(Reason::ThreefoldRepetition) => {
                    assert!(seen[&key(&theirs)] >= 3, "no threefold in {}", pos.fen())
                }
                None => {
                    assert!(
                        their_outcome.is_unknown(),
                        "we missed the end of {}",
                        pos.fen()
                    );
                    assert!(theirs.halfmoves() < 100);
                    assert!(
                        seen[&key(&theirs)] < 3,
                        "we missed a repetition in {}",
                        pos.fen()
                    );
                }
                Some(other) => panic!("unexpected reason {other:?} in a random game"),
            }
            if game.is_over() {
                break;
            }

            // Play the same random move in both and compare FENs.
            let (uci, mv) = our_moves[rng.below(our_moves.len())].clone();
            let their = their_uci
                .iter()
                .find(|m| m.0 == uci)
                .map(|m| m.1)
                .expect("same move sets");
            let irreversible = theirs.is_irreversible(their);
            game.play(mv).expect("legal move accepted");
            theirs.play_unchecked(their);
            if irreversible {
                seen.clear();
            }
            *seen.entry(key(&theirs)).or_default() += 1;
            assert_eq!(
                ours_fen(game.position()),
                theirs_fen(&theirs),
                "after {uci}"
            );
        }
    }
}

#[test]
fn random_games_agree_with_shakmaty() {
    let mut rng = Rng(0x0005_EED0_FC4E_55AA);
    let mut totals = Totals {
        positions: 0,
        moves_compared: 0,
        games: 0,
    };
    for fen in fens(SUITE) {
        play_random_games(&fen, 6, 250, &mut rng, &mut totals);
    }
    for fen in fens(CHESS960).take(120) {
        play_random_games(&fen, 1, 250, &mut rng, &mut totals);
    }
    eprintln!(
        "{} games, {} positions, {} moves compared",
        totals.games, totals.positions, totals.moves_compared
    );
    assert!(
        totals.positions >= 100_000,
        "only {} positions",
        totals.positions
    );
}
