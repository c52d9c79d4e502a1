//! A simple tapered evaluation: material and piece-square tables for the middlegame and the
//! endgame, blended by the material left on the board, plus a few well-known terms (mobility,
//! bishop pair, rooks on open files, pawn structure, passed pawns, the king's pawn shield,
//! and driving a bare king to the edge to mate it).
//!
//! Piece-square tables follow Tomasz Michniewski's "Simplified Evaluation Function"; the
//! material values are those of PeSTO (middlegame / endgame).

use crate::{
    attacks::{bishop_attacks, knight_attacks, queen_attacks, rook_attacks},
    Bitboard, Color, File, Position, Rank, Role, Square,
};

/// Middlegame material values, pawn to king.
const MG_VALUE: [i32; 6] = [82, 337, 365, 477, 1025, 0];
/// Endgame material values, pawn to king.
const EG_VALUE: [i32; 6] = [94, 281, 297, 512, 936, 0];

/// Game-phase weight of each role (24 for the starting material).
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;

/// A rough value per role for move ordering, exchanges and pruning margins.
pub(crate) const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

// Tables from White's point of view, a8 first (index = square ^ 56 for White).
#[rustfmt::skip]
const PAWN_MG: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const PAWN_EG: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    60, 60, 60, 60, 60, 60, 60, 60,
    35, 35, 35, 35, 35, 35, 35, 35,
    20, 20, 20, 20, 20, 20, 20, 20,
    10, 10, 10, 10, 10, 10, 10, 10,
     5,  5,  5,  5,  5,  5,  5,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const KNIGHT: [i32; 64] = [
   -50,-40,-30,-30,-30,-30,-40,-50,
   -40,-20,  0,  0,  0,  0,-20,-40,
   -30,  0, 10, 15, 15, 10,  0,-30,
   -30,  5, 15, 20, 20, 15,  5,-30,
   -30,  0, 15, 20, 20, 15,  0,-30,
   -30,  5, 10, 15, 15, 10,  5,-30,
   -40,-20,  0,  5,  5,  0,-20,-40,
   -50,-40,-30,-30,-30,-30,-40,-50,
];
#[rustfmt::skip]
const BISHOP: [i32; 64] = [
   -20,-10,-10,-10,-10,-10,-10,-20,
   -10,  0,  0,  0,  0,  0,  0,-10,
   -10,  0,  5, 10, 10,  5,  0,-10,
   -10,  5,  5, 10, 10,  5,  5,-10,
   -10,  0, 10, 10, 10, 10,  0,-10,
   -10, 10, 10, 10, 10, 10, 10,-10,
   -10,  5,  0,  0,  0,  0,  5,-10,
   -20,-10,-10,-10,-10,-10,-10,-20,
];
#[rustfmt::skip]
const ROOK: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10, 10, 10, 10, 10,  5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     0,  0,  0,  5,  5,  0,  0,  0,
];
#[rustfmt::skip]
const QUEEN: [i32; 64] = [
   -20,-10,-10, -5, -5,-10,-10,-20,
   -10,  0,  0,  0,  0,  0,  0,-10,
   -10,  0,  5,  5,  5,  5,  0,-10,
    -5,  0,  5,  5,  5,  5,  0, -5,
     0,  0,  5,  5,  5,  5,  0, -5,
   -10,  5,  5,  5,  5,  5,  0,-10,
   -10,  0,  5,  0,  0,  0,  0,-10,
   -20,-10,-10, -5, -5,-10,-10,-20,
];
#[rustfmt::skip]
const KING_MG: [i32; 64] = [
   -30,-40,-40,-50,-50,-40,-40,-30,
   -30,-40,-40,-50,-50,-40,-40,-30,
   -30,-40,-40,-50,-50,-40,-40,-30,
   -30,-40,-40,-50,-50,-40,-40,-30,
   -20,-30,-30,-40,-40,-30,-30,-20,
   -10,-20,-20,-20,-20,-20,-20,-10,
    20, 20,  0,  0,  0,  0, 20, 20,
    20, 30, 10,  0,  0, 10, 30, 20,
];
#[rustfmt::skip]
const KING_EG: [i32; 64] = [
   -50,-40,-30,-20,-20,-30,-40,-50,
   -30,-20,-10,  0,  0,-10,-20,-30,
   -30,-10, 20, 30, 30, 20,-10,-30,
   -30,-10, 30, 40, 40, 30,-10,-30,
   -30,-10, 30, 40, 40, 30,-10,-30,
   -30,-10, 20, 30, 30, 20,-10,-30,
   -30,-30,  0,  0,  0,  0,-30,-30,
   -50,-30,-30,-30,-30,-30,-30,-50,
];

/// Middlegame and endgame tables per role.
const TABLES: [(&[i32; 64], &[i32; 64]); 6] = [
    (&PAWN_MG, &PAWN_EG),
    (&KNIGHT, &KNIGHT),
    (&BISHOP, &BISHOP),
    (&ROOK, &ROOK),
    (&QUEEN, &QUEEN),
    (&KING_MG, &KING_EG),
];

/// Passed-pawn bonus by relative rank (middlegame, endgame).
const PASSED_MG: [i32; 8] = [0, 5, 5, 10, 20, 35, 60, 0];
const PASSED_EG: [i32; 8] = [0, 10, 15, 25, 45, 75, 120, 0];

/// Bonus per attacked square (not own pieces, not attacked by enemy pawns) for knights,
/// bishops, rooks and queens, around a typical count (middlegame, endgame).
const MOBILITY: [(i32, i32, i32); 4] = [(4, 4, 4), (5, 5, 6), (2, 4, 7), (1, 2, 13)];

const TEMPO: i32 = 10;

/// A score pair (middlegame, endgame).
#[derive(Clone, Copy, Default)]
struct Pair(i32, i32);

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Pair) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl std::ops::SubAssign for Pair {
    fn sub_assign(&mut self, o: Pair) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

/// The static evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let white = side(pos, Color::White);
    let black = side(pos, Color::Black);
    let mut total = white;
    total -= black;

    let phase = Role::ALL
        .iter()
        .map(|&r| PHASE[r.index()] * pos.by_role(r).count() as i32)
        .sum::<i32>()
        .min(MAX_PHASE);
    let mut score = (total.0 * phase + total.1 * (MAX_PHASE - phase)) / MAX_PHASE;
    score += mop_up(pos, phase);
    score = scale_drawish(pos, score);
    match pos.turn() {
        Color::White => score + TEMPO,
        Color::Black => -score + TEMPO,
    }
}

/// The middlegame piece-square gain of moving the piece on `from` to `to` (a cheap policy
/// for quiet moves: the Tesla search ranks untried moves by it).
pub(crate) fn pst_gain(pos: &Position, from: Square, to: Square) -> i32 {
    let (Some(role), Some(color)) = (pos.role_on(from), pos.color_on(from)) else {
        return 0;
    };
    let mg = TABLES[role.index()].0;
    mg[table_index(color, to)] - mg[table_index(color, from)]
}

/// The index into a table for a piece of `color` on `sq`.
#[inline]
fn table_index(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.index() ^ 56,
        Color::Black => sq.index(),
    }
}

/// Squares in front of `sq` (from `color`'s side) on its file and the adjacent files.
fn front_span(color: Color, sq: Square) -> Bitboard {
    let file = sq.file().index();
    let mut files = Bitboard::file(File::new(file as u32)).0;
    if file > 0 {
        files |= Bitboard::file(File::new(file as u32 - 1)).0;
    }
    if file < 7 {
        files |= Bitboard::file(File::new(file as u32 + 1)).0;
    }
    let rank = sq.rank().index() as u32;
    let ahead = match color {
        Color::White if rank < 7 => !0u64 << (8 * (rank + 1)),
        Color::Black if rank > 0 => !0u64 >> (8 * (8 - rank)),
        _ => 0,
    };
    Bitboard(files & ahead)
}

/// Adjacent files of `file` (without it).
fn adjacent_files(file: usize) -> Bitboard {
    let mut b = 0u64;
    if file > 0 {
        b |= Bitboard::file(File::new(file as u32 - 1)).0;
    }
    if file < 7 {
        b |= Bitboard::file(File::new(file as u32 + 1)).0;
    }
    Bitboard(b)
}

/// Squares attacked by the pawns of `color`.
fn pawn_attack_set(pos: &Position, color: Color) -> Bitboard {
    let pawns = pos.pieces(color, Role::Pawn).0;
    let not_a = !0x0101_0101_0101_0101u64;
    let not_h = !0x8080_8080_8080_8080u64;
    Bitboard(match color {
        Color::White => ((pawns & not_a) << 7) | ((pawns & not_h) << 9),
        Color::Black => ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7),
    })
}

/// Everything counted for one side, as a (middlegame, endgame) pair.
fn side(pos: &Position, us: Color) -> Pair {
    let them = !us;
    let occ = pos.occupied();
    let ours = pos.by_color(us);
    let our_pawns = pos.pieces(us, Role::Pawn);
    let their_pawns = pos.pieces(them, Role::Pawn);
    let safe = !(ours | pawn_attack_set(pos, them));
    let mut s = Pair::default();

    for role in Role::ALL {
        let (mg, eg) = TABLES[role.index()];
        for sq in pos.pieces(us, role) {
            let i = table_index(us, sq);
            s += Pair(
                MG_VALUE[role.index()] + mg[i],
                EG_VALUE[role.index()] + eg[i],
            );
            let mobility = match role {
                Role::Knight => Some((0, knight_attacks(sq))),
                Role::Bishop => Some((1, bishop_attacks(sq, occ))),
                Role::Rook => Some((2, rook_attacks(sq, occ))),
                Role::Queen => Some((3, queen_attacks(sq, occ))),
                _ => None,
            };
            if let Some((k, attacks)) = mobility {
                let (mg_w, eg_w, typical) = MOBILITY[k];
                let n = (attacks & safe).count() as i32 - typical;
                s += Pair(mg_w * n, eg_w * n);
            }
        }
    }

    if pos.pieces(us, Role::Bishop).more_than_one() {
        s += Pair(30, 50);
    }

    for sq in pos.pieces(us, Role::Rook) {
        let file = Bitboard::file(sq.file());
        if (file & our_pawns).is_empty() {
            s += if (file & their_pawns).is_empty() {
                Pair(25, 10)
            } else {
                Pair(12, 5)
            };
        }
    }

    for sq in our_pawns {
        let file = sq.file().index();
        let file_bb = Bitboard::file(sq.file());
        if (adjacent_files(file) & our_pawns).is_empty() {
            s -= Pair(10, 15);
        }
        if (file_bb & our_pawns).more_than_one() {
            // Counted once per pawn of the pair: half the penalty each.
            s -= Pair(5, 10);
        }
        if (front_span(us, sq) & their_pawns).is_empty()
            && (front_span(us, sq) & file_bb & our_pawns).is_empty()
        {
            let rank = sq.rank().relative(us).index();
            s += Pair(PASSED_MG[rank], PASSED_EG[rank]);
        }
    }

    // The king's pawn shield (middlegame only): own pawns on the three files around the king,
    // one or two ranks ahead.
    let king = pos.king(us);
    let rank = king.rank().index() as i32;
    let step = match us {
        Color::White => 1,
        Color::Black => -1,
    };
    let near_ranks = [rank + step, rank + 2 * step]
        .into_iter()
        .filter(|r| (0..8).contains(r))
        .fold(Bitboard::EMPTY, |b, r| {
            b | Bitboard::rank(Rank::new(r as u32))
        });
    let shelter = (front_span(us, king) & near_ranks & our_pawns).count() as i32;
    s += Pair(12 * shelter.min(3), 0);

    s
}

/// With a bare enemy king (or close to it), drive it to the edge and bring our king near:
/// enough for the search to find the mate in basic endgames.
fn mop_up(pos: &Position, phase: i32) -> i32 {
    if phase > 8 {
        return 0;
    }
    let material = |c: Color| -> i32 {
        [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .iter()
            .map(|&r| SEE_VALUE[r.index()] * pos.pieces(c, r).count() as i32)
            .sum::<i32>()
            + 100 * pos.pieces(c, Role::Pawn).count() as i32
    };
    let (w, b) = (material(Color::White), material(Color::Black));
    let (strong, sign) = if w >= b + 400 && b <= 350 {
        (Color::White, 1)
    } else if b >= w + 400 && w <= 350 {
        (Color::Black, -1)
    } else {
        return 0;
    };
    let loser = pos.king(!strong);
    let winner = pos.king(strong);
    let centre_distance = |sq: Square| -> i32 {
        let f = sq.file().index() as i32;
        let r = sq.rank().index() as i32;
        (2 * f - 7).abs() / 2 + (2 * r - 7).abs() / 2
    };
    let king_distance = (winner.file().index() as i32 - loser.file().index() as i32).abs()
        + (winner.rank().index() as i32 - loser.rank().index() as i32).abs();
    sign * (10 * centre_distance(loser) + 4 * (14 - king_distance))
}

/// Halves the score when the side ahead has no pawns and at most a minor piece more (such
/// endings are mostly drawn).
fn scale_drawish(pos: &Position, score: i32) -> i32 {
    let strong = if score > 0 {
        Color::White
    } else {
        Color::Black
    };
    if pos.pieces(strong, Role::Pawn).nonempty() {
        return score;
    }
    let heavy = |c: Color| -> i32 {
        [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .iter()
            .map(|&r| SEE_VALUE[r.index()] * pos.pieces(c, r).count() as i32)
            .sum()
    };
    if heavy(strong) - heavy(!strong) <= SEE_VALUE[Role::Bishop.index()] {
        score / 4
    } else {
        score
    }
}

/// Whether neither side can possibly mate: bare kings, or a single minor piece.
pub(crate) fn is_dead_draw(pos: &Position) -> bool {
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if heavy.nonempty() {
        return false;
    }
    (pos.by_role(Role::Knight) | pos.by_role(Role::Bishop)).count() <= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, FenMode::Strict).unwrap()
    }

    #[test]
    fn start_position_is_balanced() {
        let e = evaluate(&Position::startpos());
        assert_eq!(e, TEMPO);
    }

    #[test]
    fn mirrored_positions_evaluate_the_same() {
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "8/5pk1/6p1/8/2P5/1P3K2/8/8 b - - 0 40",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ] {
            let p = pos(fen);
            assert_eq!(evaluate(&p), evaluate(&p.mirrored()), "{fen}");
        }
    }

    #[test]
    fn material_counts() {
        // White is a queen up.
        let p = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(evaluate(&p) > 800);
        let p = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert!(evaluate(&p) < -800);
    }

    #[test]
    fn dead_draws() {
        assert!(is_dead_draw(&pos("8/8/4k3/8/8/3K4/8/8 w - - 0 1")));
        assert!(is_dead_draw(&pos("8/8/4k3/8/8/3KN3/8/8 w - - 0 1")));
        assert!(!is_dead_draw(&pos("8/8/4k3/8/8/3K4/8/R7 w - - 0 1")));
        assert!(!is_dead_draw(&pos("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1")));
    }
}
