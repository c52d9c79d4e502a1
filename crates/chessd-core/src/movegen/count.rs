//! Counting legal moves without generating them (bulk perft's last ply): a popcount per
//! piece, pawns set-wise.

use super::pawns::{count_pawn_moves, count_with_promotions};
use crate::{
    attacks::{bishop_attacks, knight_attacks, line, pawn_attacks, rook_attacks},
    position::back_rank,
    Color, Position, Role,
};

impl Position {
    /// The number of legal moves (promotions count four each), without building a list.
    #[inline]
    pub fn count_legal(&self) -> usize {
        // One copy per side to move, so that colour-dependent shifts and masks are constants.
        match self.turn {
            Color::White => self.count_legal_as(Color::White),
            Color::Black => self.count_legal_as(Color::Black),
        }
    }

    #[inline(always)]
    fn count_legal_as(&self, us: Color) -> usize {
        let ours = self.by_color(us);
        let theirs = self.by_color(!us);
        let occ = ours | theirs;
        let king = self.king(us);

        let in_check = self.checkers.nonempty();
        let mut n = self.count_king_moves(us, king, ours, in_check);
        if self.checkers.more_than_one() {
            return n;
        }
        let target = self.check_mask(king, ours);
        let pinned = self.pinned;
        let free = ours - pinned;

        for from in self.by_role(Role::Knight) & free {
            n += (knight_attacks(from) & target).count() as usize;
        }
        let queens = self.by_role(Role::Queen);
        let diagonal = (self.by_role(Role::Bishop) | queens) & ours;
        let orthogonal = (self.by_role(Role::Rook) | queens) & ours;
        for from in diagonal - pinned {
            n += (bishop_attacks(from, occ) & target).count() as usize;
        }
        for from in orthogonal - pinned {
            n += (rook_attacks(from, occ) & target).count() as usize;
        }

        let pawns = self.by_role(Role::Pawn) & ours;
        let last_rank = back_rank(!us);
        n += count_pawn_moves(us, pawns - pinned, !occ, theirs, target);

        if !in_check && pinned.nonempty() {
            // Pinned pieces move along the pin line only (pinned knights never move). In check
            // a pinned piece can neither block nor capture.
            for from in diagonal & pinned {
                n += (bishop_attacks(from, occ) & target & line(king, from)).count() as usize;
            }
            for from in orthogonal & pinned {
                n += (rook_attacks(from, occ) & target & line(king, from)).count() as usize;
            }
            for from in pawns & pinned {
                let to = self.pawn_targets(us, from, occ, theirs) & line(king, from);
                n += count_with_promotions(to, last_rank);
            }
        }

        if let Some(ep) = self.ep_square {
            for from in pawn_attacks(!us, ep) & pawns {
                if self.en_passant_is_safe(from, ep) {
                    n += 1;
                }
            }
        }
        n
    }
}
