//! Chess 2 moves for the armies done so far: Classic, Nemesis and Empowered.
//!
//! The definitions are the Go engine's, which follow the rules: a move is *pseudo-legal* if
//! it follows the moved piece's rules and takes only pieces it may take; a king is
//! *threatened* if some pseudo-legal enemy move would take it; a move is *legal* if it is
//! pseudo-legal and leaves none of the mover's kings threatened. Duels are left out here:
//! every capture succeeds, as in perft.
//!
//! Positions with another army are refused by [`Chess2Position::is_supported`]; the other
//! armies come with the next steps of `docs/chess2.md`.

use super::{Army, Chess2Move, Chess2Position, MAX_STONES};
use crate::{
    attacks::{between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks},
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
    /// Whether both armies are ones whose moves are generated so far (Classic, Nemesis,
    /// Empowered).
    pub fn is_supported(&self) -> bool {
        self.armies()
            .iter()
            .all(|a| matches!(a, Army::Classic | Army::Nemesis | Army::Empowered))
    }

    fn occupied(&self) -> Bitboard {
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
            (Role::Queen, _) => bishop_attacks(from, occ) | rook_attacks(from, occ),
            (Role::Pawn, _) => pawn_attacks(piece.color, from),
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
        (self.threats(!color) & self.pieces(color, Role::King)).nonempty()
    }

    /// The enemy pieces the piece of `role` may take (before its own movement rules).
    fn takeable(&self, us: Color, role: Role) -> Bitboard {
        let them = !us;
        let mut enemy = self.ours(them);
        if self.army(them) == Army::Nemesis && role != Role::King {
            // Only a king takes the Nemesis.
            enemy = enemy - self.pieces(them, Role::Queen);
        }
        enemy
    }

    /// The pseudo-legal moves of the side to move, without duels.
    fn pseudo_moves(&self, out: &mut Vec<Chess2Move>) {
        let us = self.turn();
        let army = self.army(us);
        let occ = self.occupied();
        let empty = !occ;
        for from in self.ours(us) {
            let Some(piece) = self.piece_at(from) else {
                continue;
            };
            let takeable = self.takeable(us, piece.role);
            if piece.role == Role::Pawn {
                self.pawn_moves(from, army, takeable, out);
                continue;
            }
            let reach = match (piece.role, army) {
                // The Nemesis moves like a queen onto empty squares only (a king it would
                // take is a check, never a move).
                (Role::Queen, Army::Nemesis) => self.attack_mask(from) & empty,
                _ => self.attack_mask(from) & (empty | takeable),
            };
            for to in reach {
                out.push(Chess2Move::new(from, to, None));
            }
            if piece.role == Role::King && army == Army::Classic {
                self.castling_moves(from, out);
            }
        }
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
                    out.push(Chess2Move::new(from, to, Some(role)));
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
        debug_assert!(
            self.is_supported(),
            "an army whose moves are not generated yet"
        );
        let mut moves = Vec::with_capacity(64);
        if self.midline_winner().is_some() {
            return moves;
        }
        self.pseudo_moves(&mut moves);
        let us = self.turn();
        moves.retain(|&mv| !self.after(mv).is_threatened(us));
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
    pub fn after(&self, mv: Chess2Move) -> Chess2Position {
        let mut next = *self;
        let Chess2Move::Play {
            from,
            to,
            promotion,
            ..
        } = mv
        else {
            next.king_turn = false;
            next.turn = !self.turn();
            return next;
        };
        let us = self.turn();
        let Some(piece) = self.piece_at(from) else {
            return next;
        };
        let mut zeroing = piece.role == Role::Pawn;
        next.ep_square = None;
        // The piece taken, if any (en passant takes the pawn behind the target square).
        let mut taken = self.piece_at(to).map(|p| (to, p));
        if piece.role == Role::Pawn && Some(to) == self.ep_square() && taken.is_none() {
            let behind = Square::from_coords(to.file(), from.rank());
            taken = self.piece_at(behind).map(|p| (behind, p));
        }
        if let Some((sq, victim)) = taken {
            next.remove(sq, victim.color, victim.role);
            zeroing = true;
            if victim.color != us && victim.role == Role::Pawn {
                let stones = &mut next.stones[us as usize];
                *stones = (*stones + 1).min(MAX_STONES);
            }
        }
        next.remove(from, us, piece.role);
        next.put(
            to,
            Piece {
                color: us,
                role: promotion.unwrap_or(piece.role),
            },
        );
        if piece.role == Role::King && from.file().index().abs_diff(to.file().index()) == 2 {
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
        // A move from or to a king's or rook's home square ends the rights that need it.
        for (bit, color, king_from, _, rook_from, _) in CASTLES {
            let back = Rank::new(0).relative(color);
            let homes = [
                Square::from_coords(File::new(king_from), back),
                Square::from_coords(File::new(rook_from), back),
            ];
            if homes.contains(&from) || homes.contains(&to) {
                next.castling &= !bit;
            }
        }
        next.halfmove_clock = if zeroing { 0 } else { self.halfmove_clock + 1 };
        if us == Color::Black {
            next.fullmove_number += 1;
        }
        next.turn = !us;
        next.king_turn = false;
        next
    }

    fn remove(&mut self, sq: Square, color: Color, role: Role) {
        self.by_color[color as usize] = self.by_color[color as usize].without(sq);
        self.by_role[role.index()] = self.by_role[role.index()].without(sq);
    }
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
