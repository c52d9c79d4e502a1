//! Counting the opponent's replies to each of a position's plain moves, sharing the work of
//! the opponent's pieces that a move leaves alone (the last two plies of bulk perft).
//!
//! Most of our moves change nothing about most of the opponent's pieces: a knight far from
//! both squares of the move has the same replies before and after it. [`ReplyCounter`] counts
//! the opponent's moves once per position, as if it were the opponent's turn, and corrects the
//! count after a move only for what the move touches:
//! - sliders whose attacks reach the move's origin or target (their rays open or close),
//! - the captured piece (its moves are gone) and the knights that reach its square (it became
//!   a target; the sliders that reach it are recounted anyway),
//! - pawns and the king, which are recounted every time (pawns set-wise; the king's safe
//!   squares depend on every one of our pieces).
//!
//! A move that may change the opponent's checks or pins (one that leaves or lands on a line
//! from the opponent's king through one of our sliders, or lands a slider on the king's lines,
//! or checks with a knight or pawn), a double push (it may allow en passant), a promotion,
//! castling and en passant are counted the plain way, on the position after the move.

use super::pawns::count_pawn_moves;
use crate::{
    attacks::{
        bishop_attacks, bishop_rays, knight_attacks, line, pawn_attacks, queen_attacks,
        rook_attacks, rook_rays,
    },
    position::{back_rank, checkers_and_pins},
    Bitboard, Color, Position, Role, Square,
};

/// The most sliders a side can have: two bishops, two rooks, a queen and eight promotions.
const MAX_SLIDERS: usize = 13;

/// The opponent's replies in a position, counted once, for counting them after each of our
/// plain moves (see the module documentation).
pub(crate) struct ReplyCounter {
    /// Whether the opponent had a check or more than [`MAX_SLIDERS`] sliders: every move is
    /// then counted the plain way.
    plain_only: bool,
    /// Which of our moves leave the opponent's checks and pins alone.
    lines: PinLines,
    /// Moves of the opponent's pieces that no plain move outside the king's lines changes:
    /// unpinned knights and sliders as they stand, and every pinned piece.
    base: usize,
    /// Per square, the replies counted in `base` for the opponent's knight or slider there.
    replies_from: [u8; 64],
    /// The opponent's unpinned knights.
    knights: Bitboard,
    /// The opponent's unpinned pawns.
    pawns: Bitboard,
    /// The opponent's unpinned sliders, by index.
    sliders: [(Square, Role); MAX_SLIDERS],
    /// Per square, the sliders (bits by index) whose attacks reach it.
    reached_by: [u16; 64],
}

impl ReplyCounter {
    /// Counts the opponent's replies in `pos` (the side to move's opponent, as if it moved).
    #[inline]
    pub(crate) fn new(pos: &Position) -> ReplyCounter {
        match pos.turn {
            Color::White => ReplyCounter::new_as(pos, Color::White),
            Color::Black => ReplyCounter::new_as(pos, Color::Black),
        }
    }

    #[inline(always)]
    fn new_as(pos: &Position, us: Color) -> ReplyCounter {
        let them = !us;
        let ours = pos.by_color(us);
        let theirs = pos.by_color(them);
        let occ = ours | theirs;
        let king = pos.king(them);
        let (checks, pinned) = checkers_and_pins(&pos.by_role, &pos.by_color, them);
        let queens = pos.by_role(Role::Queen);
        let diagonal = pos.by_role(Role::Bishop) | queens;
        let orthogonal = pos.by_role(Role::Rook) | queens;
        let mut counter = ReplyCounter {
            plain_only: checks.nonempty()
                || ((diagonal | orthogonal) & theirs).count() as usize > MAX_SLIDERS,
            lines: PinLines::new(pos, us),
            base: 0,
            replies_from: [0; 64],
            knights: (pos.by_role(Role::Knight) & theirs) - pinned,
            pawns: (pos.by_role(Role::Pawn) & theirs) - pinned,
            sliders: [(king, Role::King); MAX_SLIDERS],
            reached_by: [0; 64],
        };
        if counter.plain_only {
            return counter;
        }
        let free = !theirs;
        for from in counter.knights {
            let n = (knight_attacks(from) & free).count();
            counter.replies_from[from.index()] = n as u8;
            counter.base += n as usize;
        }
        for (index, from) in (((diagonal | orthogonal) & theirs) - pinned).enumerate() {
            let role = if queens.contains(from) {
                Role::Queen
            } else if diagonal.contains(from) {
                Role::Bishop
            } else {
                Role::Rook
            };
            let reach = slider_attacks(role, from, occ);
            let n = (reach & free).count();
            counter.replies_from[from.index()] = n as u8;
            counter.base += n as usize;
            for sq in reach {
                counter.reached_by[sq.index()] |= 1 << index;
            }
            counter.sliders[index] = (from, role);
        }
        // Pinned pieces move along their pin line, which the moves counted here leave alone.
        for from in pinned & diagonal {
            counter.base += (bishop_attacks(from, occ) & free & line(king, from)).count() as usize;
        }
        for from in pinned & orthogonal {
            counter.base += (rook_attacks(from, occ) & free & line(king, from)).count() as usize;
        }
        for from in pinned & pos.by_role(Role::Pawn) {
            let to = pos.pawn_targets(them, from, occ, ours) & line(king, from);
            counter.base += super::pawns::count_with_promotions(to, back_rank(us));
        }
        counter
    }

    /// The number of the opponent's legal replies after our plain move of the `role` on
    /// `from` to `to` (legal in `pos`, the position this counter was made from).
    #[inline]
    pub(crate) fn after_plain(
        &self,
        pos: &Position,
        role: Role,
        from: Square,
        to: Square,
    ) -> usize {
        match pos.turn {
            Color::White => self.after_plain_as(pos, Color::White, role, from, to),
            Color::Black => self.after_plain_as(pos, Color::Black, role, from, to),
        }
    }

    #[inline(always)]
    fn after_plain_as(
        &self,
        pos: &Position,
        us: Color,
        role: Role,
        from: Square,
        to: Square,
    ) -> usize {
        if self.plain_only || !self.lines.kept_by(us, role, from, to) {
            return pos.after_plain_unhashed(role, from, to).count_legal();
        }
        let them = !us;
        let child = pos.board_after_plain(role, from, to);
        let ours = child.by_color(us);
        let theirs = child.by_color(them);
        let occ = ours | theirs;
        let captured = pos.by_color(them) & Bitboard::from_square(to);

        let mut n = self.base + child.count_king_moves(them, self.lines.king, theirs, false);
        let mut moved = self.reached_by[from.index()] | self.reached_by[to.index()];
        if captured.nonempty() {
            n -= usize::from(self.replies_from[to.index()]);
            // The captured piece's square became a target for the knights that reach it.
            n += (knight_attacks(to) & self.knights).count() as usize;
            for (i, &(sq, _)) in self.sliders.iter().enumerate() {
                if sq == to {
                    moved &= !(1 << i);
                }
            }
        }
        let free = !theirs;
        while moved != 0 {
            let (sq, slider) = self.sliders[moved.trailing_zeros() as usize];
            moved &= moved - 1;
            n += (slider_attacks(slider, sq, occ) & free).count() as usize;
            n -= usize::from(self.replies_from[sq.index()]);
        }

        // Unpinned pawns, set-wise (no check: every target stands).
        n + count_pawn_moves(them, self.pawns - to, !occ, ours, !Bitboard::EMPTY)
    }
}

/// Which of our plain moves leave the opponent's checks, pins and en passant as they were.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PinLines {
    /// The opponent's king.
    king: Square,
    /// The lines from the opponent's king through one of our sliders of the matching kind:
    /// a change of occupancy there may change the opponent's checks and pins.
    lines: Bitboard,
}

impl PinLines {
    /// The lines of the opponent of `us` in `pos`.
    #[inline(always)]
    pub(crate) fn new(pos: &Position, us: Color) -> PinLines {
        let king = pos.king(!us);
        let mut lines = Bitboard::EMPTY;
        for s in pos.snipers(king, us) {
            lines |= line(king, s);
        }
        PinLines { king, lines }
    }

    /// Whether our plain move of the `role` on `from` to `to` leaves the opponent's checks
    /// (none), pins and en passant (none) as they were: it neither leaves nor lands on a pin
    /// line, lands no slider on the king's lines, gives no knight or pawn check and is no
    /// double push.
    #[inline(always)]
    pub(crate) fn kept_by(&self, us: Color, role: Role, from: Square, to: Square) -> bool {
        if self.lines.contains(from) || self.lines.contains(to) {
            return false;
        }
        let king = self.king;
        match role {
            Role::Knight => !knight_attacks(to).contains(king),
            Role::Pawn => !pawn_attacks(us, to).contains(king) && from.index() ^ to.index() != 16,
            Role::Bishop => !bishop_rays(king).contains(to),
            Role::Rook => !rook_rays(king).contains(to),
            Role::Queen => !(bishop_rays(king) | rook_rays(king)).contains(to),
            Role::King => true,
        }
    }
}

/// The squares a slider of `role` on `sq` attacks.
#[inline(always)]
fn slider_attacks(role: Role, sq: Square, occ: Bitboard) -> Bitboard {
    match role {
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        _ => queen_attacks(sq, occ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        movegen::tests::{Rng, FENS},
        FenMode, Move, MoveGroupKind,
    };

    #[test]
    fn shared_counts_equal_the_counts_after_each_move_along_random_games() {
        let mut rng = Rng(0x5EED_1234_ABCD_0002);
        let (mut shared, mut plain) = (0, 0);
        for fen in FENS {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..30 {
                let mut pos = start;
                for _ in 0..100 {
                    let counter = ReplyCounter::new(&pos);
                    pos.generate_moves(|group| {
                        if group.kind != MoveGroupKind::Normal {
                            return false;
                        }
                        for to in group.to {
                            let (role, from) = (group.role, group.from);
                            let expected = pos.after(Move::normal(from, to)).count_legal();
                            let counted = counter.after_plain(&pos, role, from, to);
                            assert_eq!(counted, expected, "{from}{to} in {}", pos.fen());
                            if counter.lines.kept_by(pos.turn, role, from, to) {
                                shared += 1;
                            } else {
                                plain += 1;
                            }
                        }
                        false
                    });
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play_unchecked(moves[rng.below(moves.len())]);
                }
            }
        }
        // Both ways are taken often, so both are checked.
        assert!(
            shared > 100_000 && plain > 20_000,
            "{shared} shared, {plain} plain"
        );
    }
}
