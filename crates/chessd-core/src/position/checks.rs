//! Who attacks what: the attackers of a square, the checkers and pinned pieces of the side to
//! move, and whether an en-passant capture is legal (it must not expose the king).

use crate::{
    attacks::{
        between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks,
        rook_attacks, rook_rays,
    },
    Bitboard, Color, Position, Rank, Role, Square,
};

impl Position {
    /// Pieces of `attacker` that attack `sq`, with `occupied` as the blockers.
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let them = self.by_color(attacker);
        let queens = self.by_role(Role::Queen);
        ((knight_attacks(sq) & self.by_role(Role::Knight))
            | (king_attacks(sq) & self.by_role(Role::King))
            | (pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn))
            | (rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens))
            | (bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens)))
            & them
    }

    /// Whether `attacker` attacks `sq` with `occupied` as the blockers.
    #[inline]
    pub fn is_attacked(&self, sq: Square, attacker: Color, occupied: Bitboard) -> bool {
        let them = self.by_color(attacker);
        if (knight_attacks(sq) & self.by_role(Role::Knight) & them).nonempty()
            || (pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn) & them).nonempty()
            || (king_attacks(sq) & self.by_role(Role::King) & them).nonempty()
        {
            return true;
        }
        let queens = self.by_role(Role::Queen);
        (rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens) & them).nonempty()
            || (bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens) & them)
                .nonempty()
    }

    /// Enemy sliders that see `king` on an empty board (potential checkers and pinners).
    #[inline]
    pub(crate) fn snipers(&self, king: Square, them: Color) -> Bitboard {
        let queens = self.by_role(Role::Queen);
        ((rook_rays(king) & (self.by_role(Role::Rook) | queens))
            | (bishop_rays(king) & (self.by_role(Role::Bishop) | queens)))
            & self.by_color(them)
    }

    /// Pieces of either colour that stand alone between `color`'s king and an enemy slider.
    pub fn blockers(&self, color: Color) -> Bitboard {
        let king = self.king(color);
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in self.snipers(king, !color) {
            let b = between(king, s) & occ;
            if b.nonempty() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    #[inline(always)]
    pub(crate) fn update_checkers_and_pins(&mut self) {
        (self.checkers, self.pinned) = checkers_and_pins(&self.by_role, &self.by_color, self.turn);
    }

    /// Whether the side to move has a legal en-passant capture onto `ep`.
    pub(crate) fn en_passant_is_legal(&self, ep: Square) -> bool {
        let us = self.turn;
        if ep.rank() != Rank::new(5).relative(us) {
            return false;
        }
        let captured = Square::new(ep.index() as u32 ^ 8);
        if !self.pieces(!us, Role::Pawn).contains(captured) || self.occupied().contains(ep) {
            return false;
        }
        let pawns = pawn_attacks(!us, ep) & self.pieces(us, Role::Pawn);
        pawns
            .into_iter()
            .any(|from| self.en_passant_is_safe(from, ep))
    }

    /// Whether capturing en passant from `from` onto `ep` leaves our king safe.
    #[inline]
    pub(crate) fn en_passant_is_safe(&self, from: Square, ep: Square) -> bool {
        let us = self.turn;
        let captured = Square::new(ep.index() as u32 ^ 8);
        let occ = (self.occupied() - from - captured) | ep;
        let king = self.king(us);
        // Attackers after the capture: the captured pawn is gone, so mask it out.
        (self.attackers_to(king, !us, occ) - captured).is_empty()
    }
}

/// The pieces checking `us`'s king and `us`'s pieces pinned to it, on the given board.
#[inline(always)]
pub(crate) fn checkers_and_pins(
    by_role: &[Bitboard; 6],
    by_color: &[Bitboard; 2],
    us: Color,
) -> (Bitboard, Bitboard) {
    let ours = by_color[us.index()];
    let theirs = by_color[(!us).index()];
    let occ = ours | theirs;
    let kings = by_role[Role::King.index()] & ours;
    let king = Square::new(kings.0.trailing_zeros() & 63);
    let mut checkers = ((knight_attacks(king) & by_role[Role::Knight.index()])
        | (pawn_attacks(us, king) & by_role[Role::Pawn.index()]))
        & theirs;
    let queens = by_role[Role::Queen.index()];
    let snipers = ((rook_rays(king) & (by_role[Role::Rook.index()] | queens))
        | (bishop_rays(king) & (by_role[Role::Bishop.index()] | queens)))
        & theirs;
    let mut pinned = Bitboard::EMPTY;
    for s in snipers {
        let b = between(king, s) & occ;
        if b.is_empty() {
            checkers |= s;
        } else if !b.more_than_one() {
            pinned |= b & ours;
        }
    }
    (checkers, pinned)
}
