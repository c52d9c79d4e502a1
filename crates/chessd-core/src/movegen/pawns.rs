//! Pawn moves: pushes and captures set-wise for the pawns that need no pin or promotion care,
//! and one pawn's targets for the others.

use crate::{
    attacks::pawn_attacks, position::back_rank, Bitboard, Color, Position, Rank, Role, Square,
};

/// The legal moves of a set of pawns, by kind, as their target squares: one move per square of
/// each set (a square in both `west` and `east` is reached by two pawns). See
/// [`Position::pawn_sets`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct PawnSets {
    /// Targets of single pushes.
    pub single: Bitboard,
    /// Targets of double pushes.
    pub double: Bitboard,
    /// Targets of captures towards the a-file.
    pub west: Bitboard,
    /// Targets of captures towards the h-file.
    pub east: Bitboard,
}

#[inline(always)]
pub(super) const fn pawn_push(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => Bitboard(b.0 << 8),
        Color::Black => Bitboard(b.0 >> 8),
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Squares the pawns `b` of `color` attack towards the a-file.
#[inline(always)]
pub(crate) const fn pawn_attacks_west(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => Bitboard((b.0 & !FILE_A) << 7),
        Color::Black => Bitboard((b.0 & !FILE_A) >> 9),
    }
}

/// Squares the pawns `b` of `color` attack towards the h-file.
#[inline(always)]
pub(crate) const fn pawn_attacks_east(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => Bitboard((b.0 & !FILE_H) << 9),
        Color::Black => Bitboard((b.0 & !FILE_H) >> 7),
    }
}

/// Every square the pawns `b` of `color` attack.
#[inline(always)]
pub(crate) const fn pawn_attacks_set(color: Color, b: Bitboard) -> Bitboard {
    Bitboard(pawn_attacks_west(color, b).0 | pawn_attacks_east(color, b).0)
}

/// The number of moves onto `to`, counting moves onto the last rank four times.
#[inline(always)]
pub(super) fn count_with_promotions(to: Bitboard, last_rank: Bitboard) -> usize {
    (to.count() + 3 * (to & last_rank).count()) as usize
}

/// The number of moves of the unpinned `pawns` of `us`, set-wise: pushes onto `empty` squares and
/// captures of `victims`, each landing on `target`; a promotion counts four.
#[inline(always)]
pub(super) fn count_pawn_moves(
    us: Color,
    pawns: Bitboard,
    empty: Bitboard,
    victims: Bitboard,
    target: Bitboard,
) -> usize {
    let last_rank = back_rank(!us);
    let single = pawn_push(us, pawns) & empty;
    let double = pawn_push(us, single & Bitboard::rank(Rank::new(2).relative(us))) & empty & target;
    let single = single & target;
    let victims = victims & target;
    let west = pawn_attacks_west(us, pawns) & victims;
    let east = pawn_attacks_east(us, pawns) & victims;
    let mut n = (single.count() + double.count() + west.count() + east.count()) as usize;
    if (single | west | east).intersects(last_rank) {
        n += 3
            * ((single & last_rank).count()
                + (west & last_rank).count()
                + (east & last_rank).count()) as usize;
    }
    n
}

impl Position {
    /// Pushes and captures of the pawn of `us` on `from`, before check and pin masks.
    #[inline(always)]
    pub(crate) fn pawn_targets(
        &self,
        us: Color,
        from: Square,
        occ: Bitboard,
        theirs: Bitboard,
    ) -> Bitboard {
        let one = pawn_push(us, Bitboard::from_square(from)) - occ;
        let two = pawn_push(us, one & Bitboard::rank(Rank::new(2).relative(us))) - occ;
        one | two | (pawn_attacks(us, from) & theirs)
    }

    /// The pawns of the side to move whose moves can be counted set-wise: not pinned, not
    /// about to promote, not in `except`; none in double check (only the king moves then).
    #[inline]
    pub(crate) fn plain_pawns(&self, except: Bitboard) -> Bitboard {
        if self.checkers.more_than_one() {
            return Bitboard::EMPTY;
        }
        let us = self.turn;
        self.pieces(us, Role::Pawn)
            - self.pinned
            - except
            - Bitboard::rank(Rank::new(6).relative(us))
    }

    /// The legal moves of `pawns` (from [`Position::plain_pawns`]) as target sets.
    #[inline]
    pub(crate) fn pawn_sets(&self, pawns: Bitboard) -> PawnSets {
        let us = self.turn;
        let ours = self.by_color(us);
        let theirs = self.by_color(!us);
        let empty = !(ours | theirs);
        let target = self.check_mask(self.king(us), ours);
        let single = pawn_push(us, pawns) & empty;
        let double =
            pawn_push(us, single & Bitboard::rank(Rank::new(2).relative(us))) & empty & target;
        let captures = theirs & target;
        PawnSets {
            single: single & target,
            double,
            west: pawn_attacks_west(us, pawns) & captures,
            east: pawn_attacks_east(us, pawns) & captures,
        }
    }
}
