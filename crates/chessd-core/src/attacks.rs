//! Attack tables: leapers from const tables, sliders from build-time PEXT or magic tables.

use crate::{Bitboard, Color, Role, Square};

/// One square's entry in a slider table.
#[cfg(target_feature = "bmi2")]
pub(crate) struct SliderEntry {
    pub(crate) mask: u64,
    pub(crate) offset: usize,
}

/// One square's entry in a slider table.
#[cfg(not(target_feature = "bmi2"))]
pub(crate) struct SliderEntry {
    pub(crate) mask: u64,
    pub(crate) magic: u64,
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

/// Per square: the squares a rook (`diagonal` false) or bishop (true) attacks on an empty board.
const fn empty_board_slider_table(diagonal: bool) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0usize;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut other = 0usize;
        while other < 64 {
            let (df, dr) = ((other % 8) as i32 - f, (other / 8) as i32 - r);
            let on_line = if diagonal {
                df != 0 && (df == dr || df == -dr)
            } else {
                (df == 0) != (dr == 0)
            };
            if on_line {
                table[sq] |= 1 << other;
            }
            other += 1;
        }
        sq += 1;
    }
    table
}

static ROOK_RAYS: [u64; 64] = empty_board_slider_table(false);
static BISHOP_RAYS: [u64; 64] = empty_board_slider_table(true);

#[inline(always)]
fn slider(entries: &[SliderEntry; 64], table: &[u64], sq: Square, occupied: Bitboard) -> Bitboard {
    let e = &entries[sq.index()];
    #[cfg(target_feature = "bmi2")]
    // SAFETY: `_pext_u64` only needs the BMI2 instruction, and this line is compiled only
    // when the bmi2 target feature is enabled for the whole build (`.cargo/config.toml` asks
    // for x86-64-v3), which promises the CPU running the program has it.
    let idx = unsafe { core::arch::x86_64::_pext_u64(occupied.0, e.mask) } as usize;
    #[cfg(not(target_feature = "bmi2"))]
    let idx = ((occupied.0 & e.mask).wrapping_mul(e.magic) >> e.shift) as usize;
    // SAFETY: `slider` is only called with a table and its own entries (`ROOK_ENTRIES` with
    // `ROOK_ATTACKS`, `BISHOP_ENTRIES` with `BISHOP_ATTACKS`), which build.rs writes together:
    // each square's slice starts at `offset` and holds 2^popcount(mask) entries, the offsets
    // being the running sum of those sizes, so `offset + i` is in bounds for every
    // `i < 2^popcount(mask)`. PEXT gathers popcount(mask) bits; the magic index keeps the top
    // `64 - shift = popcount(mask)` bits of the product. Either way `idx` is below that size.
    // (`entries[sq.index()]` is checked indexing, and `sq.index() < 64` anyway.)
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

/// Squares a rook on `sq` attacks on an empty board (its rank and file, without `sq`).
#[inline]
pub fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[sq.index()])
}

/// Squares a bishop on `sq` attacks on an empty board (its diagonals, without `sq`).
#[inline]
pub fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[sq.index()])
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

    /// Slider attacks by walking the rays square by square.
    fn walk(sq: Square, occupied: Bitboard, dirs: &[(i32, i32)]) -> Bitboard {
        let (f0, r0) = (sq.index() as i32 % 8, sq.index() as i32 / 8);
        let mut out = Bitboard::EMPTY;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (f0 + df, r0 + dr);
            while (0..8).contains(&f) && (0..8).contains(&r) {
                let to = Square::new((r * 8 + f) as u32);
                out |= to;
                if occupied.contains(to) {
                    break;
                }
                f += df;
                r += dr;
            }
        }
        out
    }

    #[test]
    fn slider_tables_match_ray_walking() {
        let rook = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        let bishop = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let mut state = 0x0123_4567_89AB_CDEFu64;
        for i in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Vary the density: sparse, medium and dense boards.
            let occupied = Bitboard(match i % 3 {
                0 => state & state.rotate_left(17) & state.rotate_left(31),
                1 => state & state.rotate_left(23),
                _ => state,
            });
            let sq = Square::new((i % 64) as u32);
            assert_eq!(rook_attacks(sq, occupied), walk(sq, occupied, &rook));
            assert_eq!(bishop_attacks(sq, occupied), walk(sq, occupied, &bishop));
        }
    }

    #[test]
    fn rays_match_empty_board_attacks() {
        for sq in Square::all() {
            assert_eq!(rook_rays(sq), rook_attacks(sq, Bitboard::EMPTY));
            assert_eq!(bishop_rays(sq), bishop_attacks(sq, Bitboard::EMPTY));
        }
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(Square::A1, Square::D4).count(), 2);
        assert!(between(Square::A1, Square::B3).is_empty());
        assert_eq!(line(Square::A1, Square::B2).count(), 8);
        assert!(aligned(Square::A1, Square::C3, Square::H8));
    }
}
