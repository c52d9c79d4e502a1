//! A quick legality test for a remembered move (a killer or table move), so that it can be
//! tried before generating all moves.

use crate::{
    attacks::{attacks, between, line, pawn_attacks},
    Bitboard, Color, Move, MoveKind, Position, Rank, Role,
};

/// Whether `mv` is legal in `pos`. Exact for normal moves and promotions; castling and en
/// passant are reported as not legal (callers then find them through move generation).
#[inline]
pub(crate) fn quick_legal(pos: &Position, mv: Move) -> bool {
    let us = pos.turn();
    let (from, to) = (mv.from(), mv.to());
    let ours = pos.by_color(us);
    if !ours.contains(from) || ours.contains(to) {
        return false;
    }
    let Some(role) = pos.role_on(from) else {
        return false;
    };
    let occ = pos.occupied();
    let last_rank = Bitboard::rank(Rank::new(7).relative(us));
    let reach = match (role, mv.kind()) {
        (Role::Pawn, MoveKind::Normal) if !last_rank.contains(to) => pawn_reach(pos, us, from),
        (Role::Pawn, MoveKind::Promotion(_)) if last_rank.contains(to) => pawn_reach(pos, us, from),
        (Role::Pawn, _) => return false,
        (_, MoveKind::Normal) => attacks(role, us, from, occ),
        _ => return false,
    };
    if !reach.contains(to) {
        return false;
    }
    let king = pos.king(us);
    if role == Role::King {
        return !pos.is_attacked(to, !us, occ.without(from));
    }
    let checkers = pos.checkers();
    if checkers.more_than_one() {
        return false;
    }
    if let Some(checker) = checkers.single_square() {
        if pos.pinned().contains(from) || !(between(king, checker) | checker).contains(to) {
            return false;
        }
    }
    !pos.pinned().contains(from) || line(king, from).contains(to)
}

/// The squares a pawn of `us` on `from` may move to (pushes onto empty squares, captures).
#[inline]
fn pawn_reach(pos: &Position, us: Color, from: crate::Square) -> Bitboard {
    let occ = pos.occupied();
    let here = Bitboard::from_square(from);
    let (one, start) = match us {
        Color::White => (Bitboard(here.0 << 8), Rank::new(1)),
        Color::Black => (Bitboard(here.0 >> 8), Rank::new(6)),
    };
    let one = one - occ;
    let two = if from.rank() == start {
        let ahead = match us {
            Color::White => Bitboard(one.0 << 8),
            Color::Black => Bitboard(one.0 >> 8),
        };
        ahead - occ
    } else {
        Bitboard::EMPTY
    };
    one | two | (pawn_attacks(us, from) & pos.by_color(!us))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FenMode, Square};

    /// On positions along random games, every move of a from-to grid agrees with move
    /// generation (castling and en passant excepted).
    #[test]
    fn agrees_with_move_generation() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for fen in fens {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..20 {
                let mut pos = start;
                for _ in 0..60 {
                    let legal = pos.legal_moves();
                    for from in 0..64 {
                        for to in 0..64 {
                            let (f, t) = (Square::new(from), Square::new(to));
                            let mut candidates = vec![Move::normal(f, t)];
                            candidates
                                .extend(Role::PROMOTIONS.iter().map(|&r| Move::promotion(f, t, r)));
                            for mv in candidates {
                                assert_eq!(
                                    quick_legal(&pos, mv),
                                    legal.contains(&mv),
                                    "{mv:?} in {}",
                                    pos.fen()
                                );
                            }
                        }
                    }
                    assert!(!quick_legal(&pos, Move::castle(Square::E1, Square::H1)));
                    if legal.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos.play_unchecked(legal[(seed % legal.len() as u64) as usize]);
                }
            }
        }
    }
}
