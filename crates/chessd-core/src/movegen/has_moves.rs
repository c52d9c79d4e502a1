//! Whether any legal move exists (the mate and stalemate test), with an early exit: king
//! steps first, then captures and blocks.

use super::pawns::{pawn_attacks_set, pawn_push};
use crate::{
    attacks::{bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks},
    Bitboard, Color, Move, Position, Rank, Role,
};

impl Position {
    /// Whether the side to move has at least one legal move.
    ///
    /// Checked piece by piece with an early exit and without the opponent's whole attack map:
    /// king steps one square at a time first (in check, the usual way out), then captures and
    /// blocks. Statistics perft asks this of every checking leaf (the mate test).
    #[inline]
    pub fn has_legal_moves(&self) -> bool {
        match self.turn {
            Color::White => self.has_legal_moves_as(Color::White),
            Color::Black => self.has_legal_moves_as(Color::Black),
        }
    }

    #[inline(always)]
    fn has_legal_moves_as(&self, us: Color) -> bool {
        self.has_king_step_as(us) || self.has_other_legal_moves_as(us)
    }

    /// Whether the king of the side to move can step to a square the opponent does not
    /// attack. Reads the pieces and the side to move only (so it may be asked of a
    /// [`Position::board_after`]).
    #[inline(always)]
    fn has_king_step_as(&self, us: Color) -> bool {
        let ours = self.by_color(us);
        let occ = self.occupied();
        let king = self.king(us);
        for to in king_attacks(king) - ours {
            if !self.attacked_by_them(us, to, occ - king) {
                return true;
            }
        }
        false
    }

    /// Whether the legal move `mv`, which gives check, mates.
    ///
    /// The board alone after the move tells whether the king can step out of check (the usual
    /// way out); only when it cannot is the whole position made for captures and blocks.
    #[inline]
    pub(crate) fn check_mates(&self, mv: Move) -> bool {
        let them = !self.turn;
        if self.board_after(mv).has_king_step_as(them) {
            return false;
        }
        let after = self.after_unhashed(mv);
        !match them {
            Color::White => after.has_other_legal_moves_as(Color::White),
            Color::Black => after.has_other_legal_moves_as(Color::Black),
        }
    }

    /// Whether the side to move has a legal move other than a king step (captures, blocks and,
    /// out of check, any move including castling).
    #[inline(always)]
    fn has_other_legal_moves_as(&self, us: Color) -> bool {
        let ours = self.by_color(us);
        let theirs = self.by_color(!us);
        let occ = ours | theirs;
        let king = self.king(us);
        if self.checkers.more_than_one() {
            return false;
        }
        let in_check = self.checkers.nonempty();
        let target = self.check_mask(king, ours);
        let pinned = self.pinned;
        // In check a pinned piece can neither block nor capture.
        let movable = if in_check { ours - pinned } else { ours };

        for from in self.by_role(Role::Knight) & (ours - pinned) {
            if knight_attacks(from).intersects(target) {
                return true;
            }
        }
        let queens = self.by_role(Role::Queen);
        for from in (self.by_role(Role::Bishop) | queens) & movable {
            let mut to = bishop_attacks(from, occ) & target;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            if to.nonempty() {
                return true;
            }
        }
        for from in (self.by_role(Role::Rook) | queens) & movable {
            let mut to = rook_attacks(from, occ) & target;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            if to.nonempty() {
                return true;
            }
        }

        // Unpinned pawns set-wise (promotions are moves like any other here).
        let pawns = self.by_role(Role::Pawn) & ours;
        let free_pawns = pawns - pinned;
        let empty = !occ;
        let single = pawn_push(us, free_pawns) & empty;
        let double = pawn_push(us, single & Bitboard::rank(Rank::new(2).relative(us))) & empty;
        if ((single | double) & target).nonempty()
            || (pawn_attacks_set(us, free_pawns) & theirs & target).nonempty()
        {
            return true;
        }
        if !in_check {
            for from in pawns & pinned {
                if (self.pawn_targets(us, from, occ, theirs) & line(king, from)).nonempty() {
                    return true;
                }
            }
        }
        if let Some(ep) = self.ep_square {
            for from in pawn_attacks(!us, ep) & pawns {
                if self.en_passant_is_safe(from, ep) {
                    return true;
                }
            }
        }
        // Castling (never in check) with a king that has no step of its own (Chess960).
        !in_check && self.king_moves(us, king, ours, false).1.nonempty()
    }
}
