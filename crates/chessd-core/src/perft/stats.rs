//! Statistics perft: leaf counts split into captures, en passant, castles, promotions and the
//! eight Grand Chess Tree check classes ([`PerftStats`]), single-threaded and without hashing.

use crate::{Move, MoveGroupKind, MoveKind, Position};

mod counters;
mod leaf;
mod siblings;

pub use counters::PerftStats;
pub(crate) use counters::STATS_WORDS;
use leaf::add_leaf_stats;
pub(crate) use leaf::leaf_stats;
use siblings::Siblings;

/// Statistics perft without hashing, single-threaded. For speed on big depths use
/// [`crate::perft::Perft`] with hashing and threads.
pub fn perft_stats(pos: &Position, depth: u32) -> PerftStats {
    match depth {
        0 => PerftStats::ONE_NODE,
        1 => leaf_stats(pos),
        2 => {
            // The last two plies inline: each child's leaf moves are added in place.
            let mut total = PerftStats::default();
            let siblings = Siblings::new(pos);
            pos.generate_moves(|group| {
                if group.kind == MoveGroupKind::Normal {
                    for to in group.to {
                        siblings.add_after_plain(pos, group.role, group.from, to, &mut total);
                    }
                } else {
                    for mv in group {
                        add_leaf_stats(&pos.after_unhashed(mv), &mut total);
                    }
                }
                false
            });
            total
        }
        _ => {
            let mut total = PerftStats::default();
            pos.generate_moves(|group| {
                if group.kind == MoveGroupKind::Normal {
                    for to in group.to {
                        let child = pos.after_plain_unhashed(group.role, group.from, to);
                        total += perft_stats(&child, depth - 1);
                    }
                } else {
                    for mv in group {
                        total += perft_stats(&pos.after_unhashed(mv), depth - 1);
                    }
                }
                false
            });
            total
        }
    }
}

/// Classifies one leaf move by making it: the reference used for rare moves (and in tests).
pub(crate) fn classify_by_making(pos: &Position, mv: Move, stats: &mut PerftStats) {
    stats.nodes += 1;
    if pos.is_capture(mv) {
        stats.captures += 1;
    }
    let moved_to = match mv.kind() {
        MoveKind::EnPassant => {
            stats.enpassants += 1;
            mv.to()
        }
        MoveKind::Castle => {
            stats.castles += 1;
            mv.rook_destination().unwrap_or(mv.to())
        }
        MoveKind::Promotion(_) => {
            stats.promotions += 1;
            mv.to()
        }
        MoveKind::Normal => mv.to(),
    };
    let after = pos.after_unhashed(mv);
    let checkers = after.checkers();
    if checkers.nonempty() {
        let mate = !after.has_legal_moves();
        stats.add_check(checkers.more_than_one(), checkers.contains(moved_to), mate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    /// Depth-1 statistics by making and classifying every move.
    fn leaf_stats_by_making(pos: &Position) -> PerftStats {
        let mut s = PerftStats::default();
        for mv in pos.legal_moves().iter() {
            classify_by_making(pos, *mv, &mut s);
        }
        s
    }

    /// Compares the fast leaf counter with the reference at every node down to `depth`.
    fn check_tree(pos: &Position, depth: u32) -> u64 {
        assert_eq!(leaf_stats(pos), leaf_stats_by_making(pos), "{}", pos.fen());
        let mut n = 1;
        if depth > 0 {
            for mv in pos.legal_moves().iter() {
                n += check_tree(&pos.after(*mv), depth - 1);
            }
        }
        n
    }

    #[test]
    fn fast_leaf_counts_equal_making_every_move() {
        let fens = [
            crate::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            // Discovered checks by promotion and en passant, double checks.
            "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
            "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
            "8/P1k5/K7/8/8/8/8/8 w - - 0 1",
            "4k3/1P6/8/8/8/8/K7/8 w - - 0 1",
            "B6b/8/8/8/2K5/4k3/8/b6B w - - 0 1",
            // Checks by plain pawns: pushes, double pushes, two captures on one square.
            "8/8/8/3k4/8/2P1P3/8/4K3 w - - 0 1",
            "8/8/8/3k4/8/8/2P1P3/4K3 w - - 0 1",
            "8/8/4k3/3n4/2P1P3/8/8/4K3 w - - 0 1",
            "4k3/8/8/2p1p3/3N4/4K3/8/8 b - - 0 1",
            // Mate by a double push (b4#, b5#).
            "8/8/2Q5/k7/8/P7/1P6/7K w - - 0 1",
            "7k/1p6/p7/8/K7/2q5/8/8 b - - 0 1",
            // The same check, but the rook takes the pawn along the file the push cleared.
            "8/8/2Q5/k7/8/P6K/1P6/1r6 w - - 0 1",
            // Castling that checks (the rook), standard and Chess960.
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
            "5k2/8/8/8/8/8/8/1K4R1 w G - 0 1",
            "1r4k1/8/8/8/8/8/8/3K4 b b - 0 1",
            // ... and along the rank the king just left.
            "8/8/8/8/8/8/8/R3K2k w Q - 0 1",
            // Rxe4# takes the only piece that could have blocked the file.
            "3rkr2/3p1p2/8/8/4r3/8/8/4R2K w - - 0 1",
        ];
        let mut total = 0;
        for fen in fens {
            let pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
            total += check_tree(&pos, 3);
        }
        assert!(total > 100_000, "visited {total} nodes");
    }

    #[test]
    fn fast_leaf_counts_equal_making_every_move_along_random_games() {
        // Random games reach far more checks and mates than the trees above: the mate
        // shortcut (a flight the move cannot reach) is checked against the full mate test.
        let mut rng = crate::movegen::tests::Rng(0x5EED_5747_0001);
        let mut total = PerftStats::default();
        for fen in crate::movegen::tests::FENS {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..40 {
                let mut pos = start;
                for _ in 0..120 {
                    let fast = leaf_stats(&pos);
                    assert_eq!(fast, leaf_stats_by_making(&pos), "{}", pos.fen());
                    total += fast;
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play_unchecked(moves[rng.below(moves.len())]);
                }
            }
        }
        assert!(
            total.checks() > 20_000 && total.total_mates() > 500,
            "{} checks, {} mates",
            total.checks(),
            total.total_mates()
        );
    }

    #[test]
    fn two_ply_counts_equal_making_every_child_along_random_games() {
        // The last two plies share the opponent's pins and the view of our king between
        // siblings (`Siblings`): every child, kept or made the plain way, is checked against
        // making and classifying each of its moves.
        let mut rng = crate::movegen::tests::Rng(0x5EED_5747_0002);
        let (mut kept, mut plain, mut checks) = (0, 0, 0);
        for fen in crate::movegen::tests::FENS {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..12 {
                let mut pos = start;
                for _ in 0..100 {
                    let moves = pos.legal_moves();
                    let siblings = Siblings::new(&pos);
                    let mut expected = PerftStats::default();
                    for mv in moves.iter() {
                        expected += leaf_stats_by_making(&pos.after(*mv));
                        if !mv.is_castle() && !mv.is_en_passant() && mv.promotion_role().is_none() {
                            let role = pos.role_on(mv.from()).unwrap();
                            if siblings.lines.kept_by(pos.turn(), role, mv.from(), mv.to()) {
                                kept += 1;
                            } else {
                                plain += 1;
                            }
                        }
                    }
                    assert_eq!(perft_stats(&pos, 2), expected, "{}", pos.fen());
                    checks += expected.checks();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play_unchecked(moves[rng.below(moves.len())]);
                }
            }
        }
        // Both ways are taken often, and many leaves check, so all of it is compared.
        assert!(
            kept > 100_000 && plain > 20_000 && checks > 50_000,
            "{kept} kept, {plain} plain, {checks} checks"
        );
    }

    #[test]
    fn start_position_depth_4_matches_published_counts() {
        let s = perft_stats(&Position::startpos(), 4);
        assert_eq!(s.nodes, 197_281);
        assert_eq!(s.captures, 1576);
        assert_eq!(s.direct_checks, 461);
        assert_eq!(s.direct_mates, 8);
        assert_eq!(s.checks(), 469);
    }
}
