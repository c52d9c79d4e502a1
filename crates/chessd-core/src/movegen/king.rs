//! King safety: the squares the opponent attacks, the king's legal steps (with castling), and
//! the check mask that every other move must land on.

use super::pawns::pawn_attacks_set;
use crate::{
    attacks::{between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks},
    Bitboard, Color, Position, Role, Square,
};

impl Position {
    /// Whether the opponent of `us` attacks `sq` with `occupied` as blockers (branch-free).
    #[inline(always)]
    pub(super) fn attacked_by_them(&self, us: Color, sq: Square, occupied: Bitboard) -> bool {
        let queens = self.by_role(Role::Queen);
        let attackers = (knight_attacks(sq) & self.by_role(Role::Knight))
            | (pawn_attacks(us, sq) & self.by_role(Role::Pawn))
            | (king_attacks(sq) & self.by_role(Role::King))
            | (rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens))
            | (bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens));
        attackers.intersects(self.by_color(!us))
    }

    /// Every square the opponent of `us` attacks, with `occupied` as blockers.
    #[inline(always)]
    fn attacked_squares_by_them(&self, us: Color, occupied: Bitboard) -> Bitboard {
        let them = !us;
        let theirs = self.by_color(them);
        let mut a = pawn_attacks_set(them, self.by_role(Role::Pawn) & theirs)
            | king_attacks(self.king(them));
        for sq in self.by_role(Role::Knight) & theirs {
            a |= knight_attacks(sq);
        }
        let queens = self.by_role(Role::Queen);
        for sq in (self.by_role(Role::Bishop) | queens) & theirs {
            a |= bishop_attacks(sq, occupied);
        }
        for sq in (self.by_role(Role::Rook) | queens) & theirs {
            a |= rook_attacks(sq, occupied);
        }
        a
    }

    /// The squares a move must land on: anywhere not our own when not in check, the checker
    /// or a blocking square in single check.
    #[inline(always)]
    pub(crate) fn check_mask(&self, king: Square, ours: Bitboard) -> Bitboard {
        match self.checkers.single_square() {
            Some(checker) => between(king, checker) | checker,
            None => !ours,
        }
    }

    /// The legal king moves of `us` (king on `king`): the safe target squares, and the squares
    /// of the rooks it may castle with.
    #[inline(always)]
    pub(crate) fn king_moves(
        &self,
        us: Color,
        king: Square,
        ours: Bitboard,
        in_check: bool,
    ) -> (Bitboard, Bitboard) {
        let occ = self.occupied();
        let candidates = king_attacks(king) - ours;
        let castle_rooks = self.castle_candidates(us, king, occ, in_check);
        if castle_rooks.is_empty() && !candidates.more_than_one() {
            // Zero or one king target: testing it alone is cheaper than an attack map.
            return match candidates.first() {
                Some(to) if !self.attacked_by_them(us, to, occ - king) => {
                    (candidates, castle_rooks)
                }
                _ => (Bitboard::EMPTY, castle_rooks),
            };
        }
        // The attack map is taken without our king, so that it cannot hide behind itself.
        let danger = self.attacked_squares_by_them(us, occ - king);
        let mut castles = Bitboard::EMPTY;
        for rook in castle_rooks {
            if self.castle_is_safe(us, king, rook, occ, danger) {
                castles |= rook;
            }
        }
        (candidates - danger, castles)
    }

    /// The number of legal king moves of `us`, castling included (as [`Position::king_moves`]).
    #[inline(always)]
    pub(super) fn count_king_moves(
        &self,
        us: Color,
        king: Square,
        ours: Bitboard,
        in_check: bool,
    ) -> usize {
        let occ = self.occupied();
        let candidates = king_attacks(king) - ours;
        let castle_rooks = self.castle_candidates(us, king, occ, in_check);
        if castle_rooks.is_empty() && !candidates.more_than_one() {
            return match candidates.first() {
                Some(to) => usize::from(!self.attacked_by_them(us, to, occ - king)),
                None => 0,
            };
        }
        let danger = self.attacked_squares_by_them(us, occ - king);
        let mut n = (candidates - danger).count() as usize;
        for rook in castle_rooks {
            n += usize::from(self.castle_is_safe(us, king, rook, occ, danger));
        }
        n
    }
}
