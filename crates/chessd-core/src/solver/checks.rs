//! Checking moves and mate in one: the last attacker move of every variation.
//!
//! Only a check can mate, so the targets of each generated move group are first narrowed to
//! the squares from which the moved piece would attack the enemy king (or to every target
//! when the piece uncovers a line onto the king, castles, captures en passant or promotes);
//! each remaining move is then played and tested exactly.

use crate::{
    attacks::{
        between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
    },
    Bitboard, Color, Move, MoveGroupKind, PieceMoves, Position, Rank, Role,
};

/// For the side to move: the squares from which each role would give direct check, and the
/// pieces that may give a discovered check.
pub(crate) struct CheckSquares {
    by_role: [Bitboard; 6],
    discoverers: Bitboard,
}

impl CheckSquares {
    /// The check squares of the side to move in `pos`.
    #[inline]
    pub(super) fn new(pos: &Position) -> CheckSquares {
        let us = pos.turn();
        let ksq = pos.king(!us);
        let occ = pos.occupied();
        let diagonal = bishop_attacks(ksq, occ);
        let orthogonal = rook_attacks(ksq, occ);
        CheckSquares {
            by_role: [
                pawn_attacks(!us, ksq),
                knight_attacks(ksq),
                diagonal,
                orthogonal,
                diagonal | orthogonal,
                Bitboard::EMPTY,
            ],
            discoverers: pos.blockers(!us) & pos.by_color(us),
        }
    }

    /// The targets of `group` that may give check (a superset of the checking moves).
    #[inline]
    pub(super) fn candidates(&self, pos: &Position, group: &PieceMoves) -> Bitboard {
        if self.discoverers.contains(group.from) {
            return group.to;
        }
        match group.kind {
            MoveGroupKind::Normal => Bitboard(group.to.0 & self.by_role[group.role.index()].0),
            MoveGroupKind::Castle | MoveGroupKind::EnPassant => group.to,
            MoveGroupKind::Promotion => {
                // The pawn leaving its square may open the promoted piece's line.
                let ksq = pos.king(!pos.turn());
                let occ = pos.occupied().without(group.from);
                let lines = bishop_attacks(ksq, occ) | rook_attacks(ksq, occ);
                group.to & (lines | self.by_role[Role::Knight.index()])
            }
        }
    }
}

/// A move of the side to move in `pos` that checkmates at once, if there is one.
///
/// Without en passant or castling rights for the side to move, the checking candidates are
/// generated directly from the check squares (legal by check and pin masks, king moves only
/// when the king uncovers a line); otherwise every legal move group is filtered.
#[inline]
pub(crate) fn mate_in_one(pos: &Position) -> Option<Move> {
    let us = pos.turn();
    if pos.ep_square().is_some() || pos.castling_rooks().intersects(pos.by_color(us)) {
        return mate_in_one_generic(pos);
    }
    let cs = CheckSquares::new(pos);
    let mates = |mv: Move| {
        let child = pos.after_unhashed(mv);
        child.is_check() && !child.has_legal_moves()
    };
    let ours = pos.by_color(us);
    let theirs = pos.by_color(!us);
    let occ = ours | theirs;
    let king = pos.king(us);
    let checkers = pos.checkers();
    let pinned = pos.pinned();

    if !checkers.more_than_one() {
        let mask = match checkers.single_square() {
            Some(checker) => between(king, checker) | checker,
            None => !ours,
        };
        // In check a pinned piece can neither block nor capture.
        let movers = if checkers.nonempty() {
            ours - pinned
        } else {
            ours
        };
        for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
            for from in pos.pieces(us, role) & movers {
                let mut to = crate::attacks::attacks(role, us, from, occ) & mask;
                if pinned.contains(from) {
                    to &= line(king, from);
                }
                if !cs.discoverers.contains(from) {
                    to &= cs.by_role[role.index()];
                }
                for sq in to {
                    let mv = Move::normal(from, sq);
                    if mates(mv) {
                        return Some(mv);
                    }
                }
            }
        }
        let last_rank = Bitboard::rank(Rank::new(7).relative(us));
        let start_rank = Bitboard::rank(Rank::new(1).relative(us));
        for from in pos.pieces(us, Role::Pawn) & movers {
            let here = Bitboard::from_square(from);
            let one = push(us, here) - occ;
            let two = push(us, one & push(us, start_rank)) - occ;
            let mut to = (one | two | (pawn_attacks(us, from) & theirs)) & mask;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            let discoverer = cs.discoverers.contains(from);
            let promotions = to & last_rank;
            if !discoverer {
                to &= cs.by_role[Role::Pawn.index()];
            }
            for sq in to - last_rank {
                let mv = Move::normal(from, sq);
                if mates(mv) {
                    return Some(mv);
                }
            }
            if promotions.nonempty() {
                let ksq = pos.king(!us);
                let open = occ.without(from);
                let diagonal = bishop_attacks(ksq, open);
                let orthogonal = rook_attacks(ksq, open);
                for (role, squares) in [
                    (Role::Queen, diagonal | orthogonal),
                    (Role::Knight, cs.by_role[Role::Knight.index()]),
                    (Role::Rook, orthogonal),
                    (Role::Bishop, diagonal),
                ] {
                    let targets = if discoverer {
                        promotions
                    } else {
                        promotions & squares
                    };
                    for sq in targets {
                        let mv = Move::promotion(from, sq, role);
                        if mates(mv) {
                            return Some(mv);
                        }
                    }
                }
            }
        }
    }
    if cs.discoverers.contains(king) {
        let without_king = occ.without(king);
        for sq in king_attacks(king) - ours {
            if !pos.is_attacked(sq, !us, without_king) {
                let mv = Move::normal(king, sq);
                if mates(mv) {
                    return Some(mv);
                }
            }
        }
    }
    None
}

/// A pawn push of `us` (one rank forward).
#[inline]
fn push(us: Color, b: Bitboard) -> Bitboard {
    match us {
        Color::White => Bitboard(b.0 << 8),
        Color::Black => Bitboard(b.0 >> 8),
    }
}

/// [`mate_in_one`] over the full legal move generation (for positions with castling rights
/// or en passant).
pub(crate) fn mate_in_one_generic(pos: &Position) -> Option<Move> {
    let cs = CheckSquares::new(pos);
    let mut found = None;
    pos.generate_moves(|group| {
        let to = cs.candidates(pos, &group);
        if to.is_empty() {
            return false;
        }
        for mv in (PieceMoves { to, ..group }) {
            let child = pos.after_unhashed(mv);
            if child.is_check() && !child.has_legal_moves() {
                found = Some(mv);
                return true;
            }
        }
        false
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    /// The filter never drops a checking move, on positions rich in discovered checks,
    /// promotions, castling and en passant.
    #[test]
    fn candidates_include_every_check() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "1k6/1P6/8/8/8/8/8/1K6 w - - 0 1",
            "2n1k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "8/8/8/1k1pP3/8/8/8/4K1B1 w - d6 0 2",
            "4k3/8/4N3/8/4R3/8/8/4K3 w - - 0 1",
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 1",
            "8/1P6/8/8/8/8/8/k3K3 w - - 0 1",
            "8/8/8/8/8/8/1p5K/k7 b - - 0 1",
        ];
        for fen in fens {
            let pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
            let cs = CheckSquares::new(&pos);
            pos.generate_moves(|group| {
                let cand = cs.candidates(&pos, &group);
                for mv in group {
                    if pos.after(mv).is_check() {
                        assert!(cand.contains(mv.to()), "{mv:?} in {fen}");
                    }
                }
                false
            });
        }
    }

    #[test]
    fn finds_mate_in_one_and_not_stalemate() {
        let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", FenMode::Strict).unwrap();
        let mv = mate_in_one(&pos).unwrap();
        assert!(pos.after(mv).is_checkmate());
        // Qb7 mates (the king guards b7); Qb6 would only stalemate.
        let pos = Position::from_fen("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1", FenMode::Strict).unwrap();
        let mv = mate_in_one(&pos).unwrap();
        assert!(pos.after(mv).is_checkmate(), "{mv:?}");
        let pos = Position::from_fen("k7/8/1K6/8/8/8/8/7R b - - 0 1", FenMode::Strict).unwrap();
        assert_eq!(mate_in_one(&pos), None);
    }

    /// Any legal move that checkmates, by brute force.
    fn brute_mate_in_one(pos: &Position) -> bool {
        pos.legal_moves()
            .iter()
            .any(|&mv| pos.after(mv).is_checkmate())
    }

    /// The direct generator, the generic one and brute force agree along random games.
    #[test]
    fn mate_in_one_agrees_with_brute_force() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/R2Q2K1 w - - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 1",
            "2kr3r/ppp2ppp/8/8/1q6/8/PPP2PPP/2KR3R w - - 0 1",
            "8/1P4k1/8/8/8/2q5/6PP/7K b - - 0 1",
            "3r2k1/5ppp/8/8/8/8/1B3PPP/4R1K1 w - - 0 1",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut mates = 0;
        for fen in fens {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..60 {
                let mut pos = start;
                for _ in 0..40 {
                    let expected = brute_mate_in_one(&pos);
                    let fast = mate_in_one(&pos);
                    assert_eq!(fast.is_some(), expected, "{}", pos.fen());
                    if let Some(mv) = fast {
                        assert!(pos.is_legal(mv) && pos.after(mv).is_checkmate());
                        mates += 1;
                    }
                    assert_eq!(
                        mate_in_one_generic(&pos).is_some(),
                        expected,
                        "{}",
                        pos.fen()
                    );
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(mates > 50, "only {mates} mates seen");
    }
}
