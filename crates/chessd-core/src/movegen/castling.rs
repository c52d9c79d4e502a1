//! Castling (standard and Chess960): which rooks the king may castle with, from tables by
//! king file and back-rank occupancy, and whether the squares it crosses are safe.

use crate::{position::back_rank, Bitboard, Color, Position, Role, Square};

/// Bits `low..=high` of a rank (`low <= high < 8`).
const fn rank_span(low: usize, high: usize) -> u8 {
    ((0xFFu16 >> (7 - high)) & (0xFFu16 << low)) as u8
}

/// Castling masks by king file and rook file, relative to the back rank: the span of squares
/// king and rook cross or land on (including their own squares; it must be empty apart from
/// them), and the squares the king crosses or lands on (which must not be attacked).
const fn castling_masks() -> [[(u8, u8); 8]; 8] {
    let mut table = [[(0u8, 0u8); 8]; 8];
    let mut k = 0;
    while k < 8 {
        let mut r = 0;
        while r < 8 {
            if k != r {
                let (kt, rt) = if r > k { (6, 5) } else { (2, 3) };
                let low = min4(k, r, kt, rt);
                let high = max4(k, r, kt, rt);
                let king_path = if kt > k {
                    rank_span(k + 1, kt)
                } else if kt < k {
                    rank_span(kt, k - 1)
                } else {
                    1 << k
                };
                table[k][r] = (rank_span(low, high), king_path);
            }
            r += 1;
        }
        k += 1;
    }
    table
}

const fn min4(a: usize, b: usize, c: usize, d: usize) -> usize {
    let ab = if a < b { a } else { b };
    let cd = if c < d { c } else { d };
    if ab < cd {
        ab
    } else {
        cd
    }
}

const fn max4(a: usize, b: usize, c: usize, d: usize) -> usize {
    let ab = if a > b { a } else { b };
    let cd = if c > d { c } else { d };
    if ab > cd {
        ab
    } else {
        cd
    }
}

static CASTLING_MASKS: [[(u8, u8); 8]; 8] = castling_masks();

/// By king file and back-rank occupancy: the rook files for which the castling span holds no
/// piece but the king and that rook.
const fn castling_clear() -> [[u8; 256]; 8] {
    let masks = castling_masks();
    let mut table = [[0u8; 256]; 8];
    let mut k = 0;
    while k < 8 {
        let mut occ = 0;
        while occ < 256 {
            let mut r = 0;
            while r < 8 {
                let span = masks[k][r].0 as usize;
                if r != k && span & occ == (1 << k) | (1 << r) {
                    table[k][occ] |= 1 << r;
                }
                r += 1;
            }
            occ += 1;
        }
        k += 1;
    }
    table
}

static CASTLING_CLEAR: [[u8; 256]; 8] = castling_clear();
impl Position {
    /// For castling with `rook`: the squares the king crosses or lands on, and the king's and
    /// rook's destinations.
    #[inline(always)]
    fn castling_path(king: Square, rook: Square) -> (Bitboard, Square, Square) {
        let rank_base = king.index() as u32 & 56;
        let king_path = CASTLING_MASKS[king.index() & 7][rook.index() & 7].1;
        let kingside = rook.index() > king.index();
        let king_to = Square::new(rank_base + if kingside { 6 } else { 2 });
        let rook_to = Square::new(rank_base + if kingside { 5 } else { 3 });
        (
            Bitboard(u64::from(king_path) << rank_base),
            king_to,
            rook_to,
        )
    }

    /// The rooks of `us` that castling rights and an empty span (looked up by king file and
    /// back-rank occupancy) allow castling with, before checking attacked squares.
    #[inline(always)]
    pub(crate) fn castle_candidates(
        &self,
        us: Color,
        king: Square,
        occ: Bitboard,
        in_check: bool,
    ) -> Bitboard {
        let rank_shift = back_rank(us).0.trailing_zeros();
        let rights = ((self.castling & self.pieces(us, Role::Rook)).0 >> rank_shift) as u8;
        if in_check || rights == 0 || king.index() as u32 & 56 != rank_shift {
            return Bitboard::EMPTY;
        }
        let clear = CASTLING_CLEAR[king.index() & 7][(occ.0 >> rank_shift) as u8 as usize];
        Bitboard(u64::from(clear & rights) << rank_shift)
    }

    /// Whether castling with `rook` (a candidate) is safe, given the squares the opponent
    /// attacks.
    ///
    /// Not being in check, no slider ray passes through the king's square, so the present
    /// occupancy decides for every square the king crosses or lands on, except that the rook
    /// leaving its square may open a line onto the king's destination; that needs a look only
    /// when the rook does not stand on the a- or h-file (Chess960).
    #[inline(always)]
    pub(super) fn castle_is_safe(
        &self,
        us: Color,
        king: Square,
        rook: Square,
        occ: Bitboard,
        danger: Bitboard,
    ) -> bool {
        let (king_path, king_to, rook_to) = Position::castling_path(king, rook);
        if king_path.intersects(danger) {
            return false;
        }
        let file = rook.index() & 7;
        file == 0
            || file == 7
            || !self.attacked_by_them(us, king_to, (occ - king - rook) | king_to | rook_to)
    }
}
