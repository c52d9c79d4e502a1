//! The last two plies: the children of one position share what our move seldom changes, the
//! opponent's pins and the view of our king ([`Siblings`]).

use super::{
    leaf::{add_leaf_stats, add_leaf_stats_as, KingView},
    PerftStats,
};
use crate::{attacks::between, movegen::PinLines, Bitboard, Color, Position, Role, Square};

/// What the children of one position share for their leaf statistics (the last two plies):
/// - the opponent's pins, which most of our moves leave alone (the reply counter's
///   [`PinLines`] says which), so that those children are made without the pin scan;
/// - the view of our king from the opponent's side (its check squares and discovery
///   candidates), which a move off the king's lines and off the lines to the opponent's
///   sliders leaves alone.
pub(super) struct Siblings {
    /// Which of our moves leave the opponent's checks and pins as they were.
    pub(super) lines: PinLines,
    /// The opponent's pinned pieces, as if it were its turn (its pins in every kept child).
    pinned: Bitboard,
    /// Our king seen from the opponent's side.
    view: KingView,
    /// Squares whose occupancy changes the view: our king's lines as far as they reach, and
    /// the lines from it to the opponent's sliders on its rays (with those sliders).
    watched: Bitboard,
}

impl Siblings {
    /// The shared part of the children of `pos`.
    #[inline(always)]
    pub(super) fn new(pos: &Position) -> Siblings {
        let us = pos.turn();
        let them = !us;
        let (_, pinned) = crate::position::checkers_and_pins(&pos.by_role, &pos.by_color, them);
        let view = KingView::new(pos, them);
        let ksq = view.ksq;
        let snipers = pos.snipers(ksq, them);
        let mut watched = view.diag | view.orth | snipers;
        for s in snipers {
            watched |= between(ksq, s);
        }
        Siblings {
            lines: PinLines::new(pos, us),
            pinned,
            view,
            watched,
        }
    }

    /// Adds the leaf statistics of the child after our plain move of the `role` on `from`
    /// to `to` (legal in `pos`, the position these siblings were made from).
    #[inline(always)]
    pub(super) fn add_after_plain(
        &self,
        pos: &Position,
        role: Role,
        from: Square,
        to: Square,
        s: &mut PerftStats,
    ) {
        let us = pos.turn();
        if !self.lines.kept_by(us, role, from, to) {
            let child = pos.after_plain_unhashed(role, from, to);
            add_leaf_stats(&child, s);
            return;
        }
        // A kept move gives no check and allows no en passant: the board alone, with the
        // pins of the parent, is the whole child.
        let mut child = pos.board_after_plain(role, from, to);
        child.pinned = self.pinned;
        let view = if role == Role::King || self.watched.contains(from) || self.watched.contains(to)
        {
            KingView::new(&child, !us)
        } else {
            self.view
        };
        match us {
            Color::White => add_leaf_stats_as(&child, Color::Black, view, s),
            Color::Black => add_leaf_stats_as(&child, Color::White, view, s),
        }
    }
}
