//! The fixed order of a position's legal moves that the standard-chess codec ranks moves
//! in: likely moves first, so that the rank of a played move is usually small.
//!
//! The order is part of the stored format: changing anything here (a value, a bonus, the
//! tie-break) makes every stored game decode differently. It deliberately uses nothing of
//! the engine (`search`), whose tuning may change.
//!
//! A move's score adds:
//! - promotions: a queen first, under-promotions after every other move;
//! - the material it expects to win: the piece taken, less what the landing piece may lose
//!   on its square (all of it when attacked and undefended, else what it is worth more than
//!   the cheapest attacker);
//! - taking a threatened piece away from its square (attacked by something cheaper, or
//!   attacked and undefended);
//! - a direct check, castling;
//! - the change of a simple square table of the moving piece (pawns forward, minor pieces to
//!   the centre, a king sheltered until the endgame, then central).
//!
//! Equal scores are ordered by the move's 16-bit encoding, so the order is total.

use crate::{attacks, Bitboard, Color, Move, MoveKind, MoveList, Position, Role, Square};

/// Piece values for the order (pawn, knight, bishop, rook, queen, king).
const VALUE: [i32; 6] = [100, 300, 310, 500, 900, 5000];

/// Non-pawn material (both sides, kings left out) at or below which kings head for the centre.
const ENDGAME_MATERIAL: i32 = 2600;

/// What the scores of one position share.
struct Context {
    us: Color,
    them: Color,
    occupied: Bitboard,
    their_king: Square,
    endgame: bool,
}

impl Context {
    fn new(pos: &Position) -> Context {
        let us = pos.turn();
        let material: i32 = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .map(|r| pos.by_role(r).count() as i32 * VALUE[r.index()])
            .sum();
        Context {
            us,
            them: !us,
            occupied: pos.occupied(),
            their_king: pos.king(!us),
            endgame: material <= ENDGAME_MATERIAL,
        }
    }
}

/// The value of the cheapest piece in `pieces`.
fn cheapest(pos: &Position, pieces: Bitboard) -> i32 {
    Role::ALL
        .into_iter()
        .find(|&r| (pos.by_role(r) & pieces).nonempty())
        .map_or(0, |r| VALUE[r.index()])
}

/// The square table: how good `sq` is for a `role` of the side to move (`rank` counted
/// from that side).
fn square_value(role: Role, sq: Square, us: Color, endgame: bool) -> i32 {
    let sq = sq.relative(us);
    let (file, rank) = (sq.file().index() as i32, sq.rank().index() as i32);
    // 3 on the four centre squares, 0 on the edge.
    let centre = 3 - (2 * file - 7).abs().max((2 * rank - 7).abs()) / 2;
    let central_file = (2..=5).contains(&file);
    match role {
        Role::Pawn => rank * 6 + if central_file { centre * 4 } else { 0 },
        Role::Knight => centre * 12 - if rank == 0 { 10 } else { 0 },
        Role::Bishop => centre * 6 - if rank == 0 { 10 } else { 0 },
        Role::Rook => (if rank == 6 { 20 } else { 0 }) + if central_file { 4 } else { 0 },
        Role::Queen => centre * 3,
        Role::King if endgame => centre * 10,
        Role::King => -rank * 15 - centre * 5 + if central_file { 0 } else { 10 },
    }
}

/// The score of the legal move `mv` (higher: earlier in the order).
fn score(pos: &Position, ctx: &Context, mv: Move) -> i32 {
    let from = mv.from();
    let Some(role) = pos.moved_role(mv) else {
        return 0;
    };
    if let MoveKind::Castle = mv.kind() {
        let to = mv.king_destination();
        return 250 + square_value(Role::King, to, ctx.us, ctx.endgame)
            - square_value(Role::King, from, ctx.us, ctx.endgame);
    }
    let to = mv.to();
    let mut s = 0;
    let mut landing = role;
    match mv.kind() {
        MoveKind::Promotion(Role::Queen) => {
            s += 6000;
            landing = Role::Queen;
        }
        MoveKind::Promotion(promoted) => {
            s -= 20_000 - 100 * promoted as i32;
            landing = promoted;
        }
        _ => {}
    }
    let taken = pos.captured_role(mv).map_or(0, |r| VALUE[r.index()]);
    let mut occupied = (ctx.occupied - from) | to;
    if mv.is_en_passant() {
        occupied = occupied - Square::new(to.index() as u32 ^ 8);
    }
    // What the landing piece risks on `to`.
    let attackers = pos.attackers_to(to, ctx.them, occupied) & occupied;
    let risk = if attackers.is_empty() {
        0
    } else {
        let defenders = (pos.attackers_to(to, ctx.us, occupied) & occupied) - from;
        let value = VALUE[landing.index()];
        if defenders.is_empty() {
            value
        } else {
            (value - cheapest(pos, attackers)).max(0)
        }
    };
    s += 4 * (taken - risk);
    if taken > 0 {
        s += 50;
    }
    // Saving a threatened piece.
    if role != Role::King {
        let threats = pos.attackers_to(from, ctx.them, ctx.occupied);
        if threats.nonempty() {
            let value = VALUE[role.index()];
            let guarded = (pos.attackers_to(from, ctx.us, ctx.occupied) - from).nonempty();
            if !guarded || cheapest(pos, threats) < value {
                s += 2 * value;
            }
        }
    }
    // A direct check (discovered ones are left out: the order only has to be fixed).
    if attacks::attacks(landing, ctx.us, to, occupied).contains(ctx.their_king) {
        s += 120;
    }
    s + square_value(landing, to, ctx.us, ctx.endgame)
        - square_value(role, from, ctx.us, ctx.endgame)
}

/// Scores span well under ±2^20, so `2^20 - score` is positive and fits 32 bits.
const SCORE_BIAS: i64 = 1 << 20;

/// A move's sort key: smaller comes first; distinct moves have distinct keys.
#[inline]
fn key(pos: &Position, ctx: &Context, mv: Move) -> u64 {
    let s = i64::from(score(pos, ctx, mv)).clamp(1 - SCORE_BIAS, SCORE_BIAS - 1);
    ((SCORE_BIAS - s) as u64) << 16 | u64::from(mv.to_u16())
}

/// Fills `list` with the legal moves of `pos` and `keys` with their sort keys (same index).
fn keyed_moves(pos: &Position, list: &mut MoveList, keys: &mut [u64; crate::MAX_MOVES]) {
    list.retain(|_| false);
    pos.generate_moves(|group| {
        for mv in group {
            list.push(mv);
        }
        false
    });
    let ctx = Context::new(pos);
    for (k, &mv) in keys.iter_mut().zip(list.iter()) {
        *k = key(pos, &ctx, mv);
    }
}

/// Reusable buffers for ranking moves (no allocation per move).
pub(crate) struct Ranker {
    list: MoveList,
    keys: [u64; crate::MAX_MOVES],
}

impl Ranker {
    /// Empty buffers.
    pub(crate) fn new() -> Ranker {
        Ranker {
            list: MoveList::new(),
            keys: [0; crate::MAX_MOVES],
        }
    }

    /// The rank of `mv` among the legal moves of `pos` in the fixed order, or `None` if it is
    /// not legal there.
    pub(crate) fn rank_of(&mut self, pos: &Position, mv: Move) -> Option<usize> {
        keyed_moves(pos, &mut self.list, &mut self.keys);
        let i = self.list.iter().position(|&m| m == mv)?;
        let k = self.keys[i];
        Some(
            self.keys[..self.list.len()]
                .iter()
                .filter(|&&o| o < k)
                .count(),
        )
    }

    /// The move of rank `rank` among the legal moves of `pos`, or `None` if there are not
    /// that many.
    pub(crate) fn move_at(&mut self, pos: &Position, rank: usize) -> Option<Move> {
        keyed_moves(pos, &mut self.list, &mut self.keys);
        let keys = &mut self.keys[..self.list.len()];
        if rank >= keys.len() {
            return None;
        }
        let (_, &mut k, _) = keys.select_nth_unstable(rank);
        // The low 16 bits of a key are the move.
        Some(
            *self
                .list
                .iter()
                .find(|m| u64::from(m.to_u16()) == k & 0xFFFF)?,
        )
    }

    /// Every legal move of `pos` in the order (for tests and the table generator).
    #[cfg(test)]
    pub(crate) fn ordered(&mut self, pos: &Position) -> Vec<Move> {
        keyed_moves(pos, &mut self.list, &mut self.keys);
        let mut pairs: Vec<(u64, Move)> = self.keys[..self.list.len()]
            .iter()
            .copied()
            .zip(self.list.iter().copied())
            .collect();
        pairs.sort_unstable_by_key(|p| p.0);
        pairs.into_iter().map(|(_, m)| m).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    #[test]
    fn likely_moves_come_first() {
        let mut ranker = Ranker::new();
        // The attacked queen takes the undefended rook that attacks it, then the queen
        // promotion (onto a square that rook attacks); under-promotions last.
        let pos = Position::from_fen("r7/4P2k/8/8/8/8/8/Q3K3 w - - 0 1", FenMode::Strict).unwrap();
        let order = ranker.ordered(&pos);
        let uci: Vec<String> = order.iter().map(|&m| pos.uci(m)).collect();
        assert_eq!(uci[..2], ["a1a8", "e7e8q"], "{uci:?}");
        let mut last = uci[uci.len() - 3..].to_vec();
        last.sort();
        assert_eq!(last, ["e7e8b", "e7e8n", "e7e8r"], "{uci:?}");
        for (rank, &mv) in order.iter().enumerate() {
            assert_eq!(ranker.rank_of(&pos, mv), Some(rank));
            assert_eq!(ranker.move_at(&pos, rank), Some(mv));
        }
        assert_eq!(ranker.move_at(&pos, order.len()), None);
    }
}
