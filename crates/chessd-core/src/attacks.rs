//! Attack tables: leapers from const tables, sliders from build-time PEXT or magic tables.

use crate::{Bitboard, Color, Role, Square};

/// One square's entry in a slider table.
pub(crate) struct SliderEntry {
    pub(crate) mask: u64,
    #[cfg_attr(target_feature = "bmi2", allow(dead_code))]
    pub(crate) magic: u64,
    #[cfg_attr(target_feature = "bmi2", allow(dead_code))]
    pub(crate) shift: u32,
    pub(crate) offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/sliders.rs"));

const fn leaper_table(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

static KNIGHT: [u64; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [u64; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static PAWN: [[u64; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

const fn ray_table() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    // between[a][b]: squares strictly between a and b on a line (empty if not aligned).
    // line[a][b]: the whole line through a and b, edge to edge (empty if not aligned).
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let dirs: [(i32, i32); 8] = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    let mut a = 0;
    while a < 64 {
        let (fa, ra) = ((a % 8) as i32, (a / 8) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = dirs[d];
            // Full line through a in this direction, both ways.
            let mut full = 1u64 << a;
            let mut k = 1;
            while k < 8 {
                let (f, r) = (fa + df * k, ra + dr * k);
                if f >= 0 && f < 8 && r >= 0 && r < 8 {
                    full |= 1 << (r * 8 + f);
                }
                let (f, r) = (fa - df * k, ra - dr * k);
                if f >= 0 && f < 8 && r >= 0 && r < 8 {
                    full |= 1 << (r * 8 + f);
                }
                k += 1;
            }
            let mut acc = 0u64;
            let mut k = 1;
            while k < 8 {
                let (f, r) = (fa + df * k, ra + dr * k);
                if !(f >= 0 && f < 8 && r >= 0 && r < 8) {
                    break;
                }
                let b = (r * 8 + f) as usize;
                between[a][b] = acc;
                line[a][b] = full;
                acc |= 1 << b;
                k += 1;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

static RAYS: ([[u64; 64]; 64], [[u64; 64]; 64]) = ray_table();

#[inline(always)]
fn slider(entries: &[SliderEntry; 64], table: &[u64], sq: Square, occupied: Bitboard) -> Bitboard {
    let e = &entries[sq.index()];
    #[cfg(target_feature = "bmi2")]
    // SAFETY: the bmi2 target feature is enabled at compile time.
    let idx = unsafe { core::arch::x86_64::_pext_u64(occupied.0, e.mask) } as usize;
    #[cfg(not(target_feature = "bmi2"))]
    let idx = ((occupied.0 & e.mask).wrapping_mul(e.magic) >> e.shift) as usize;
    // SAFETY: build.rs sizes every square's slice to 2^popcount(mask) entries, and both index
    // schemes produce values below that.
    Bitboard(unsafe { *table.get_unchecked(e.offset + idx) })
}

/// Squares a knight on `sq` attacks.
#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// Squares a rook on `sq` attacks given the `occupied` squares.
#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    slider(&ROOK_ENTRIES, &ROOK_ATTACKS, sq, occupied)
}

/// Squares a bishop on `sq` attacks given the `occupied` squares.
#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    slider(&BISHOP_ENTRIES, &BISHOP_ATTACKS, sq, occupied)
}

/// Squares a queen on `sq` attacks given the `occupied` squares.
#[inline]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares a piece of `role` and `color` on `sq` attacks given the `occupied` squares.
#[inline]
pub fn attacks(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => queen_attacks(sq, occupied),
        Role::King => king_attacks(sq),
    }
}

/// Squares strictly between `a` and `b` when they share a rank, file or diagonal; else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(RAYS.0[a.index()][b.index()])
}

/// The whole line (edge to edge) through `a` and `b` when aligned; else empty.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(RAYS.1[a.index()][b.index()])
}

/// Whether `a`, `b` and `c` lie on one rank, file or diagonal.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rook_on_a1_with_blockers() {
        let occ = Bitboard::from_square(Square::A4) | Square::D1;
        let att = rook_attacks(Square::A1, occ);
        let expected: Bitboard = [
            Square::A2,
            Square::A3,
            Square::A4,
            Square::B1,
            Square::C1,
            Square::D1,
        ]
        .into_iter()
        .collect();
        assert_eq!(att, expected);
    }

    #[test]
    fn bishop_on_d4_open_board() {
        assert_eq!(bishop_attacks(Square::D4, Bitboard::EMPTY).count(), 13);
        assert_eq!(rook_attacks(Square::D4, Bitboard::EMPTY).count(), 14);
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(Square::A1, Square::D4).count(), 2);
        assert!(between(Square::A1, Square::B3).is_empty());
        assert_eq!(line(Square::A1, Square::B2).count(), 8);
        assert!(aligned(Square::A1, Square::C3, Square::H8));
    }
}
