//! Chess 2 moves for every army.
//!
//! The definitions are the Go engine's, which follow the rules: a move is *pseudo-legal* if
//! it follows the moved piece's rules and takes only pieces it may take; a king is
//! *threatened* if some pseudo-legal enemy move would take it; a move is *legal* if it is
//! pseudo-legal and leaves none of the mover's kings threatened. Duels are left out here:
//! every capture succeeds, as in perft.
//!
//! Where chessd and the Go engine differ on what threatens a square (a Ghost threatens
//! nothing, as it cannot capture; an Elephant threatens only what one of its legal rampages
//! would take), `docs/chess2.md` says so.

use super::{Army, Chess2Move, Chess2Position, MAX_STONES};
use crate::{
    attacks::{
        between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks,
        rook_attacks, rook_rays,
    },
    Bitboard, Color, File, Piece, Rank, Role, Square,
};

/// The promotion pieces, in the order moves are listed.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Castling: the right's bit, the king's from and to files, the rook's from and to files.
const CASTLES: [(u8, Color, u32, u32, u32, u32); 4] = [
    (1, Color::White, 4, 6, 7, 5),
    (2, Color::White, 4, 2, 0, 3),
    (4, Color::Black, 4, 6, 7, 5),
    (8, Color::Black, 4, 2, 0, 3),
];

impl Chess2Position {
    /// Every occupied square.
    pub(super) fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    fn ours(&self, color: Color) -> Bitboard {
        self.by_color[color as usize]
    }

    /// The squares the piece on `from` threatens: where it could take a piece standing there
    /// (whether or not one stands there, and whatever its colour).
    fn attack_mask(&self, from: Square) -> Bitboard {
        let Some(piece) = self.piece_at(from) else {
            return Bitboard::EMPTY;
        };
        let occ = self.occupied();
        let army = self.army(piece.color);
        match (piece.role, army) {
            (Role::King, _) | (Role::Queen, Army::Empowered) => king_attacks(from),
            (Role::Queen, Army::Nemesis) => {
                // The Nemesis takes nothing but a king.
                let lines = bishop_attacks(from, occ) | rook_attacks(from, occ);
                lines & (!occ | self.by_role[Role::King.index()])
            }
            // The Reaper goes anywhere but the enemy's back rank, and never takes a king.
            (Role::Queen, Army::Reaper) => {
                !Bitboard::rank(Rank::new(7).relative(piece.color))
                    - self.pieces(!piece.color, Role::King)
            }
            (Role::Queen, Army::Animals) => rook_attacks(from, occ) | knight_attacks(from),
            (Role::Queen, _) => bishop_attacks(from, occ) | rook_attacks(from, occ),
            (Role::Pawn, _) => pawn_attacks(piece.color, from),
            // A Ghost takes nothing, so it threatens nothing.
            (Role::Rook, Army::Reaper) => Bitboard::EMPTY,
            (Role::Rook, Army::Animals) => {
                let mut mask = Bitboard::EMPTY;
                self.rampages(from, piece.color, |path, _| mask |= path);
                mask
            }
            (Role::Bishop, Army::Animals) => bishop_attacks(from, occ) & within_two(from),
            (role, Army::Empowered) => {
                // Its own powers and those of orthogonally adjacent knights, bishops, rooks.
                let ours = self.ours(piece.color);
                let near = (orthogonal_neighbours(from) & ours).with(from);
                let has = |r: Role| (near & self.by_role[r.index()]).nonempty() || r == role;
                let mut mask = Bitboard::EMPTY;
                if has(Role::Knight) {
                    mask |= knight_attacks(from);
                }
                if has(Role::Bishop) {
                    mask |= bishop_attacks(from, occ);
                }
                if has(Role::Rook) {
                    mask |= rook_attacks(from, occ);
                }
                mask
            }
            (Role::Knight, _) => knight_attacks(from),
            (Role::Bishop, _) => bishop_attacks(from, occ),
            (Role::Rook, _) => rook_attacks(from, occ),
        }
    }

    /// The pieces no piece may take: Ghosts, and Elephants more than two squares from `from`.
    pub(super) fn untouchable(&self, from: Square) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for color in Color::ALL {
            match self.army(color) {
                Army::Reaper => out |= self.pieces(color, Role::Rook),
                Army::Animals => out |= self.pieces(color, Role::Rook) - within_two(from),
                _ => {}
            }
        }
        out
    }

    /// Every legal-looking rampage of the Elephant on `from` (of `color`): for each, the
    /// squares it passes over and its target square. A rampage goes 1 to 3 squares in a
    /// straight line over pieces it may take (friend or foe, never its own king, a Ghost, a
    /// Nemesis or a far Elephant); once it has passed a piece it must go on until its third
    /// square, the board's edge, or a piece it may not take.
    fn rampages(&self, from: Square, color: Color, mut each: impl FnMut(Bitboard, Square)) {
        let occ = self.occupied();
        let mut blocked = self.untouchable(from);
        for side in Color::ALL {
            if self.army(side) == Army::Nemesis {
                blocked |= self.pieces(side, Role::Queen);
            }
        }
        let own_kings = self.pieces(color, Role::King);
        for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
            let mut path = Bitboard::EMPTY;
            let mut sq = from;
            for distance in 1..=3 {
                let Some(next) = step(sq, df, dr) else { break };
                if blocked.contains(next) || own_kings.contains(next) {
                    break;
                }
                sq = next;
                path = path.with(sq);
                let stops_here = distance == 3
                    || (path & occ).is_empty()
                    || step(sq, df, dr).is_none_or(|beyond| blocked.contains(beyond));
                if stops_here {
                    each(path, sq);
                }
            }
        }
    }

    /// The squares `color`'s pieces threaten.
    fn threats(&self, color: Color) -> Bitboard {
        let mut all = Bitboard::EMPTY;
        for sq in self.ours(color) {
            all |= self.attack_mask(sq);
        }
        all
    }

    /// Whether some pseudo-legal move of `color`'s opponent would take one of its kings.
    pub fn is_threatened(&self, color: Color) -> bool {
        self.pieces(color, Role::King)
            .into_iter()
            .any(|king| self.king_attacked(king, color))
    }

    /// Whether the king of `color` on `king` is threatened, looked up from the king's square
    /// (the same answer as the enemy's [`Self::threats`], without building them).
    fn king_attacked(&self, king: Square, color: Color) -> bool {
        let them = !color;
        let army = self.army(them);
        let occ = self.occupied();
        let theirs = |role: Role| self.pieces(them, role);
        let diagonal = bishop_attacks(king, occ);
        let orthogonal = rook_attacks(king, occ);
        let knights = knight_attacks(king);
        let near = king_attacks(king);
        if (pawn_attacks(color, king) & theirs(Role::Pawn)).nonempty()
            || (near & theirs(Role::King)).nonempty()
        {
            return true;
        }
        match army {
            Army::Classic | Army::Nemesis | Army::TwoKings => {
                (knights & theirs(Role::Knight)).nonempty()
                    || (diagonal & (theirs(Role::Bishop) | theirs(Role::Queen))).nonempty()
                    || (orthogonal & (theirs(Role::Rook) | theirs(Role::Queen))).nonempty()
            }
            Army::Reaper => {
                // The Reaper never takes a king and Ghosts take nothing.
                (knights & theirs(Role::Knight)).nonempty()
                    || (diagonal & theirs(Role::Bishop)).nonempty()
            }
            Army::Empowered => {
                (near & theirs(Role::Queen)).nonempty()
                    || (theirs(Role::Knight) | theirs(Role::Bishop) | theirs(Role::Rook))
                        .into_iter()
                        .any(|sq| self.attack_mask(sq).contains(king))
            }
            Army::Animals => {
                (knights & (theirs(Role::Knight) | theirs(Role::Queen))).nonempty()
                    || (diagonal & within_two(king) & theirs(Role::Bishop)).nonempty()
                    || (orthogonal & theirs(Role::Queen)).nonempty()
                    || (theirs(Role::Rook) & rook_rays_within_three(king))
                        .into_iter()
                        .any(|sq| self.attack_mask(sq).contains(king))
            }
        }
    }

    /// The pieces the piece of `role` on `from` may take (before its own movement rules):
    /// enemy pieces but Ghosts, far Elephants and (for all but a king) the Nemesis; for a Wild
    /// Horse also its own pieces but its king.
    fn takeable(&self, us: Color, role: Role, from: Square) -> Bitboard {
        let them = !us;
        let mut pieces = self.ours(them);
        if self.army(them) == Army::Nemesis && role != Role::King {
            // Only a king takes the Nemesis.
            pieces = pieces - self.pieces(them, Role::Queen);
        }
        if self.army(us) == Army::Animals && role == Role::Knight {
            pieces |= self.ours(us) - self.pieces(us, Role::King);
        }
        pieces - self.untouchable(from)
    }

    /// The pseudo-legal moves of the side to move, without duels.
    fn pseudo_moves(&self, out: &mut Vec<Chess2Move>) {
        let us = self.turn();
        let army = self.army(us);
        let occ = self.occupied();
        let empty = !occ;
        if self.is_king_turn() {
            out.push(Chess2Move::Pass);
        }
        for from in self.ours(us) {
            let Some(piece) = self.piece_at(from) else {
                continue;
            };
            if self.is_king_turn() && piece.role != Role::King {
                continue;
            }
            let takeable = self.takeable(us, piece.role, from);
            match (piece.role, army) {
                (Role::Pawn, _) => self.pawn_moves(from, army, takeable, out),
                (Role::Rook, Army::Animals) => self.rampages(from, us, |_, to| {
                    out.push(Chess2Move::new(from, to, None));
                }),
                _ => {
                    let reach = match (piece.role, army) {
                        // The Nemesis moves like a queen onto empty squares only (a king it
                        // would take is a check, never a move).
                        (Role::Queen, Army::Nemesis) => self.attack_mask(from) & empty,
                        // A Ghost goes to any empty square.
                        (Role::Rook, Army::Reaper) => empty,
                        _ => self.attack_mask(from) & (empty | takeable),
                    };
                    for to in reach {
                        out.push(Chess2Move::new(from, to, None));
                    }
                }
            }
            if piece.role == Role::King {
                match army {
                    Army::Classic => self.castling_moves(from, out),
                    Army::TwoKings if self.may_whirlwind(from, piece) => {
                        out.push(Chess2Move::new(from, from, None));
                    }
                    _ => {}
                }
            }
        }
    }

    /// Whether the warrior king `piece` on `from` may Whirlwind: not while the other warrior
    /// king is next to it, and only when it destroys something (an empty Whirlwind would be a
    /// pass, which only the king turn allows, as `0000`).
    fn may_whirlwind(&self, from: Square, piece: Piece) -> bool {
        (king_attacks(from) & self.pieces(piece.color, Role::King)).is_empty()
            && self.taken_squares(from, from, piece).nonempty()
    }

    /// Whether `mv` is a Whirlwind that would destroy nothing but is otherwise allowed: by a
    /// warrior king of the side to move, the other not beside it, leaving no king of that
    /// side threatened. It is not a legal move (it would be a pass); chessd allowed it before,
    /// and games stored then replay with it
    /// ([`Chess2Game::replay`](super::Chess2Game::replay)).
    pub fn is_empty_whirlwind(&self, mv: Chess2Move) -> bool {
        let Chess2Move::Play {
            from,
            to,
            promotion: None,
            duel_count: 0,
            ..
        } = mv
        else {
            return false;
        };
        let us = self.turn();
        let Some(king) = self
            .piece_at(from)
            .filter(|p| p.color == us && p.role == Role::King)
        else {
            return false;
        };
        from == to
            && self.army(us) == Army::TwoKings
            && self.midline_winner().is_none()
            && (king_attacks(from) & self.pieces(us, Role::King)).is_empty()
            && self.taken_squares(from, from, king).is_empty()
            && !self.after(mv).is_threatened(us)
    }

    fn pawn_moves(&self, from: Square, army: Army, takeable: Bitboard, out: &mut Vec<Chess2Move>) {
        let us = self.turn();
        let occ = self.occupied();
        let mut targets = pawn_attacks(us, from) & takeable;
        if let Some(ep) = self.ep_square() {
            if pawn_attacks(us, from).contains(ep) && !occ.contains(ep) {
                targets = targets.with(ep);
            }
        }
        let forward = if us == Color::White { 8 } else { -8 };
        if let Some(one) = from.offset(forward).filter(|&sq| !occ.contains(sq)) {
            targets = targets.with(one);
            let start = Rank::new(1).relative(us);
            if army != Army::Nemesis && from.rank() == start {
                if let Some(two) = one.offset(forward).filter(|&sq| !occ.contains(sq)) {
                    targets = targets.with(two);
                }
            }
        }
        if army == Army::Nemesis {
            targets |= nemesis_steps(from, self.pieces(!us, Role::King)) - occ;
        }
        let last = Bitboard::rank(Rank::new(7).relative(us));
        for to in targets {
            if last.contains(to) {
                for role in PROMOTIONS {
                    // Two Kings has no queen to promote to.
                    if !(army == Army::TwoKings && role == Role::Queen) {
                        out.push(Chess2Move::new(from, to, Some(role)));
                    }
                }
            } else {
                out.push(Chess2Move::new(from, to, None));
            }
        }
    }

    fn castling_moves(&self, from: Square, out: &mut Vec<Chess2Move>) {
        let us = self.turn();
        let back = Rank::new(0).relative(us);
        let threats = self.threats(!us);
        for (bit, color, king_from, king_to, rook_from, _) in CASTLES {
            let king_sq = Square::from_coords(File::new(king_from), back);
            let rook_sq = Square::from_coords(File::new(rook_from), back);
            if color != us || self.castling & bit == 0 || from != king_sq {
                continue;
            }
            if !self.pieces(us, Role::Rook).contains(rook_sq)
                || (between(king_sq, rook_sq) & self.occupied()).nonempty()
            {
                continue;
            }
            let to = Square::from_coords(File::new(king_to), back);
            let path = between(king_sq, to).with(king_sq).with(to);
            if (path & threats).is_empty() {
                out.push(Chess2Move::new(king_sq, to, None));
            }
        }
    }

    /// The legal moves of the side to move (no duel fields: every capture succeeds), or none
    /// once the game is over by midline invasion.
    pub fn legal_moves(&self) -> Vec<Chess2Move> {
        let mut moves = Vec::with_capacity(64);
        if self.midline_winner().is_some() {
            return moves;
        }
        self.pseudo_moves(&mut moves);
        let us = self.turn();
        let quick = self.quick_legality(us);
        moves.retain(|&mv| {
            quick.is_some_and(|q| q.surely_legal(self, mv)) || !self.after(mv).is_threatened(us)
        });
        moves
    }

    /// The side whose kings have all crossed the midline, if one has (checked after every
    /// move; a king cannot cross into check).
    pub fn midline_winner(&self) -> Option<Color> {
        Color::ALL.into_iter().find(|&color| {
            let far = Bitboard::rank(Rank::new(4).relative(color))
                | Bitboard::rank(Rank::new(5).relative(color))
                | Bitboard::rank(Rank::new(6).relative(color))
                | Bitboard::rank(Rank::new(7).relative(color));
            let kings = self.pieces(color, Role::King);
            kings.nonempty() && (kings - far).is_empty()
        })
    }

    /// The position after `mv`, a pseudo-legal move of the side to move, every capture
    /// succeeding.
    ///
    /// Turns: a Two Kings side's normal move is followed by its king turn (same side to move),
    /// then the other side moves. The en-passant square and the halfmove clock move on at
    /// normal moves only; a capture or a pawn move resets the clock.
    pub fn after(&self, mv: Chess2Move) -> Chess2Position {
        let mut next = *self;
        let us = self.turn();
        if !self.king_turn {
            next.ep_square = None;
            next.halfmove_clock = self.halfmove_clock + 1;
        }
        if self.army(us) == Army::TwoKings && !self.king_turn {
            next.king_turn = true;
        } else {
            next.king_turn = false;
            next.turn = !us;
            if us == Color::Black {
                next.fullmove_number += 1;
            }
        }
        let Chess2Move::Play {
            from,
            to,
            promotion,
            ..
        } = mv
        else {
            return next;
        };
        let Some(piece) = self.piece_at(from) else {
            return next;
        };
        let army = self.army(us);
        let taken = self.taken_squares(from, to, piece);
        for sq in taken {
            if let Some(victim) = self.piece_at(sq) {
                next.remove(sq, victim.color, victim.role);
                if victim.color != us && victim.role == Role::Pawn {
                    let stones = &mut next.stones[us as usize];
                    *stones = (*stones + 1).min(MAX_STONES);
                }
            }
        }
        if taken.nonempty() || piece.role == Role::Pawn {
            next.halfmove_clock = 0;
        }
        // The piece moves, unless it whirlwinds or is a Tiger that has pounced.
        let stays =
            from == to || (piece.role == Role::Bishop && army == Army::Animals && taken.nonempty());
        if !stays {
            next.remove(from, us, piece.role);
            next.put(
                to,
                Piece {
                    color: us,
                    role: promotion.unwrap_or(piece.role),
                },
            );
        }
        if piece.role == Role::King
            && army == Army::Classic
            && from.file().index().abs_diff(to.file().index()) == 2
        {
            for (_, color, _, king_to, rook_from, rook_to) in CASTLES {
                let back = Rank::new(0).relative(color);
                if color == us && to == Square::from_coords(File::new(king_to), back) {
                    next.remove(
                        Square::from_coords(File::new(rook_from), back),
                        us,
                        Role::Rook,
                    );
                    next.put(
                        Square::from_coords(File::new(rook_to), back),
                        Piece {
                            color: us,
                            role: Role::Rook,
                        },
                    );
                }
            }
        }
        if piece.role == Role::Pawn && from.rank().index().abs_diff(to.rank().index()) == 2 {
            next.ep_square = Some(Square::from_coords(
                from.file(),
                Rank::new((from.rank().index() + to.rank().index()) as u32 / 2),
            ));
        }
        // A move from or to a king's or rook's home square, or a capture there, ends the
        // rights that need it.
        let touched = taken.with(from).with(to);
        for (bit, color, king_from, _, rook_from, _) in CASTLES {
            let back = Rank::new(0).relative(color);
            let homes = Bitboard::from_square(Square::from_coords(File::new(king_from), back))
                .with(Square::from_coords(File::new(rook_from), back));
            if (homes & touched).nonempty() {
                next.castling &= !bit;
            }
        }
        next
    }

    /// The squares of the pieces the `piece` on `from` takes by moving to `to`: a Whirlwind's
    /// neighbours but Ghosts, an Elephant's whole path, the pawn behind an en-passant target,
    /// else the target square.
    pub(super) fn taken_squares(&self, from: Square, to: Square, piece: Piece) -> Bitboard {
        let occ = self.occupied();
        if from == to {
            king_attacks(from) & (occ - self.untouchable(from))
        } else if piece.role == Role::Rook && self.army(piece.color) == Army::Animals {
            between(from, to).with(to) & occ
        } else if piece.role == Role::Pawn
            && Some(to) == self.ep_square()
            && from.file() != to.file()
            && !occ.contains(to)
        {
            Bitboard::from_square(Square::from_coords(to.file(), from.rank())) & occ
        } else {
            Bitboard::from_square(to) & occ
        }
    }

    /// Takes the `color` `role` off `sq`.
    pub(super) fn remove(&mut self, sq: Square, color: Color, role: Role) {
        self.by_color[color as usize] = self.by_color[color as usize].without(sq);
        self.by_role[role.index()] = self.by_role[role.index()].without(sq);
    }
}

/// A short cut for the legality test: when the side to move is not threatened and neither
/// side plays the Animals (whose rampages, own-piece captures and pouncing Tigers change the
/// board in more places), a move of a piece other than a king, from a square on no rank,
/// file or diagonal through one of its kings, not taking en passant, cannot expose a king:
/// every threat runs along such a line or comes from a square the move does not touch.
#[derive(Clone, Copy)]
struct QuickLegality {
    /// The rays (empty board) through the mover's kings.
    rays: Bitboard,
}

impl QuickLegality {
    fn surely_legal(self, pos: &Chess2Position, mv: Chess2Move) -> bool {
        let Chess2Move::Play { from, to, .. } = mv else {
            return false;
        };
        if from == to || self.rays.contains(from) {
            return false;
        }
        match pos.piece_at(from).map(|p| p.role) {
            Some(Role::King) | None => false,
            Some(Role::Pawn) => Some(to) != pos.ep_square(),
            Some(_) => true,
        }
    }
}

impl Chess2Position {
    /// The short cut of [`QuickLegality`], when it applies to the side to move `us`.
    fn quick_legality(&self, us: Color) -> Option<QuickLegality> {
        if self.king_turn
            || self.army(us) == Army::Animals
            || self.army(!us) == Army::Animals
            || self.is_threatened(us)
        {
            return None;
        }
        let mut rays = Bitboard::EMPTY;
        for king in self.pieces(us, Role::King) {
            rays |= rook_rays(king) | bishop_rays(king);
        }
        Some(QuickLegality { rays })
    }
}

/// The square one step from `sq` by (`df` files, `dr` ranks), if on the board.
fn step(sq: Square, df: i32, dr: i32) -> Option<Square> {
    let file = sq.file().index() as i32 + df;
    let rank = sq.rank().index() as i32 + dr;
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::from_coords(File::new(file as u32), Rank::new(rank as u32)))
}

/// The squares up to three steps from `sq` along its rank and file (where an Elephant can
/// reach it from).
fn rook_rays_within_three(sq: Square) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
        let mut at = sq;
        for _ in 0..3 {
            match step(at, df, dr) {
                Some(next) => {
                    out = out.with(next);
                    at = next;
                }
                None => break,
            }
        }
    }
    out
}

/// The squares at most two steps (king-wise) from `sq`: the 5×5 box around it.
fn within_two(sq: Square) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for df in -2..=2 {
        for dr in -2..=2 {
            if let Some(s) = step(sq, df, dr) {
                out = out.with(s);
            }
        }
    }
    out
}

/// The four orthogonal neighbours of `sq`.
fn orthogonal_neighbours(sq: Square) -> Bitboard {
    king_attacks(sq) & (Bitboard::file(sq.file()) | Bitboard::rank(sq.rank()))
}

/// A Nemesis pawn's steps toward the enemy `kings`: one square in any direction that brings
/// it closer to one of them (inside the box spanned by the pawn and that king).
fn nemesis_steps(from: Square, kings: Bitboard) -> Bitboard {
    let mut steps = Bitboard::EMPTY;
    let (fx, fy) = (from.file().index() as i32, from.rank().index() as i32);
    for king in kings {
        let (dx, dy) = (
            (king.file().index() as i32 - fx).signum(),
            (king.rank().index() as i32 - fy).signum(),
        );
        for (sx, sy) in [(dx, 0), (0, dy), (dx, dy)] {
            if (sx, sy) != (0, 0) {
                let sq =
                    Square::from_coords(File::new((fx + sx) as u32), Rank::new((fy + sy) as u32));
                steps = steps.with(sq);
            }
        }
    }
    steps
}

/// Leaf count of the legal move tree to `depth` (no duels, as the Go engine counts).
pub fn perft(pos: &Chess2Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&mv| perft(&pos.after(mv), depth - 1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain definitions: every pseudo-legal move made and the enemy's whole threat map
    /// looked at.
    fn slow_legal(pos: &Chess2Position) -> Vec<Chess2Move> {
        let mut moves = Vec::new();
        if pos.midline_winner().is_some() {
            return moves;
        }
        pos.pseudo_moves(&mut moves);
        let us = pos.turn();
        moves.retain(|&mv| {
            let next = pos.after(mv);
            (next.threats(!us) & next.pieces(us, Role::King)).is_empty()
        });
        moves
    }

    /// Along random games of every pair of armies (from the start and from a position with
    /// more open lines), the short cuts (looking up threats from the kings' squares, skipping
    /// the test for moves that cannot expose a king) give exactly the plain definitions'
    /// answers.
    #[test]
    fn short_cuts_agree_with_the_definitions_along_random_games() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next_random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut positions = 0;
        for white in Army::ALL {
            for black in Army::ALL {
                let open = format!(
                    "r3k2r/pnbq1bnp/8/8/8/8/PNBQ1BNP/R3K2R w KQkq - 0 1 {}{} 33",
                    white.char(),
                    black.char()
                )
                .replace(
                    "pnbq1bnp",
                    if black == Army::TwoKings {
                        "pnbk1bnp"
                    } else {
                        "pnbq1bnp"
                    },
                )
                .replace(
                    "PNBQ1BNP",
                    if white == Army::TwoKings {
                        "PNBK1BNP"
                    } else {
                        "PNBQ1BNP"
                    },
                );
                let starts = [
                    Chess2Position::start(white, black),
                    Chess2Position::from_epd(&open).unwrap(),
                ];
                for start in starts {
                    for _ in 0..8 {
                        let mut pos = start;
                        for _ in 0..80 {
                            for color in Color::ALL {
                                let plain = (pos.threats(!color) & pos.pieces(color, Role::King))
                                    .nonempty();
                                assert_eq!(pos.is_threatened(color), plain, "{}", pos.to_epd());
                            }
                            let fast = pos.legal_moves();
                            assert_eq!(fast, slow_legal(&pos), "{}", pos.to_epd());
                            positions += 1;
                            if fast.is_empty() {
                                break;
                            }
                            let mv = fast[(next_random() % fast.len() as u64) as usize];
                            pos = pos.after(mv);
                        }
                    }
                }
            }
        }
        assert!(positions > 20_000, "{positions}");
    }
}
