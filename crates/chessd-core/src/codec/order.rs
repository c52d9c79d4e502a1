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
//!
//! Scoring is the codec's hot path (every stored move is ranked when written and when read),
//! so each position first notes what its moves share: the squares each side attacks (theirs
//! by role, ours once and twice), and per origin square the lines leaving it opens. Plain
//! moves, most of them, are then scored from those maps alone ([`QuickGroup`]): no attacker
//! lookups per move. Promotions, castling and en passant take the long way ([`score`]), and
//! a slider's check is looked up from the king once per origin. These are shortcuts to the
//! same scores, never other scores: a test scores every move of many positions with the
//! shortcuts off (every move the long way) and on, and a digest of fixed games' encodings
//! pins the format (`tests/it/codec.rs`).

use crate::{
    attacks,
    movegen::pawns::{pawn_attacks_east, pawn_attacks_set, pawn_attacks_west},
    Bitboard, Color, Move, MoveGroupKind, MoveKind, Position, Role, Square,
};

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
    /// The squares they attack (every square when the shortcuts are off).
    their_attacks: Bitboard,
    /// The squares their bishops, rooks and queens attack: leaving one of these may open a
    /// line of theirs onto the landing square (every square when the shortcuts are off).
    their_lines: Bitboard,
    /// The squares a bishop and a rook on their king's square would attack: where our
    /// sliders give check from, unless the mover itself stands on such a line.
    king_diagonals: Bitboard,
    king_orthogonals: Bitboard,
    /// Whether slider checks are looked up from the king, once per origin.
    shortcuts: bool,
    /// The squares they attack with each role (empty when the shortcuts are off).
    their_attacks_by: [Bitboard; 6],
    /// The squares at least one, and at least two, of our pieces attack.
    our_once: Bitboard,
    our_twice: Bitboard,
    /// The squares our bishops, rooks and queens attack.
    our_lines: Bitboard,
    /// Where our pawns, knights and kings give check from (by role; a piece of theirs on
    /// their king's square would attack those squares).
    leaper_checks: [Bitboard; 6],
}

impl Context {
    fn new(pos: &Position, shortcuts: bool) -> Context {
        let us = pos.turn();
        let them = !us;
        let material: i32 = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .map(|r| pos.by_role(r).count() as i32 * VALUE[r.index()])
            .sum();
        let occupied = pos.occupied();
        let (mut their_attacks, mut their_lines) = (Bitboard::FULL, Bitboard::FULL);
        let mut their_attacks_by = [Bitboard::EMPTY; 6];
        let (mut our_once, mut our_twice, mut our_lines) =
            (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
        if shortcuts {
            // Pawns set-wise: a square both sides of our pawns attack is attacked twice.
            let (their_pawns, our_pawns) =
                (pos.pieces(them, Role::Pawn), pos.pieces(us, Role::Pawn));
            their_attacks_by[Role::Pawn.index()] = pawn_attacks_set(them, their_pawns);
            our_once = pawn_attacks_west(us, our_pawns);
            let east = pawn_attacks_east(us, our_pawns);
            our_twice = our_once & east;
            our_once |= east;
            for role in &Role::ALL[1..] {
                let role = *role;
                for sq in pos.pieces(them, role) {
                    their_attacks_by[role.index()] |= attacks::attacks(role, them, sq, occupied);
                }
                for sq in pos.pieces(us, role) {
                    let attacked = attacks::attacks(role, us, sq, occupied);
                    our_twice |= our_once & attacked;
                    our_once |= attacked;
                    if matches!(role, Role::Bishop | Role::Rook | Role::Queen) {
                        our_lines |= attacked;
                    }
                }
            }
            let by = |role: Role| their_attacks_by[role.index()];
            their_lines = by(Role::Bishop) | by(Role::Rook) | by(Role::Queen);
            their_attacks = their_lines | by(Role::Pawn) | by(Role::Knight) | by(Role::King);
        }
        let their_king = pos.king(them);
        Context {
            us,
            them,
            occupied,
            their_king,
            king_diagonals: attacks::bishop_attacks(their_king, occupied),
            king_orthogonals: attacks::rook_attacks(their_king, occupied),
            endgame: material <= ENDGAME_MATERIAL,
            their_attacks,
            their_lines,
            shortcuts,
            their_attacks_by,
            our_once,
            our_twice,
            our_lines,
            leaper_checks: [Role::Pawn, Role::Knight, Role::King].into_iter().fold(
                [Bitboard::EMPTY; 6],
                |mut checks, role| {
                    checks[role.index()] = attacks::attacks(role, them, their_king, occupied);
                    checks
                },
            ),
        }
    }
}

/// What the moves from one origin square share.
struct Origin {
    from: Square,
    /// The bonus for taking a threatened piece away from `from`.
    saving: i32,
    /// The squares from which the moving piece, a slider, gives check (`from` left empty).
    checks: Bitboard,
}

impl Origin {
    fn new(pos: &Position, ctx: &Context, from: Square, role: Role) -> Origin {
        let lines = ctx.king_diagonals | ctx.king_orthogonals;
        let checks = match role {
            _ if !ctx.shortcuts => Bitboard::EMPTY,
            // Lines are symmetric, and the landing square is an end of the line; leaving
            // `from` changes the king's lines only when `from` is on one of them.
            Role::Bishop | Role::Rook | Role::Queen if lines.contains(from) => {
                attacks::attacks(role, ctx.us, ctx.their_king, ctx.occupied - from)
            }
            Role::Bishop => ctx.king_diagonals,
            Role::Rook => ctx.king_orthogonals,
            Role::Queen => lines,
            _ => Bitboard::EMPTY,
        };
        Origin {
            from,
            saving: saving(pos, ctx, from, role),
            checks,
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

/// The value of the cheapest role whose attack map (`by_role`, indexed by role) holds `sq`:
/// [`cheapest`] read from maps instead of pieces.
fn cheapest_attacker(by_role: &[Bitboard; 6], sq: Square) -> i32 {
    Role::ALL
        .into_iter()
        .find(|r| by_role[r.index()].contains(sq))
        .map_or(0, |r| VALUE[r.index()])
}

/// The square table: how good `sq` is for a `role` of the side to move (`rank` counted
/// from that side).
const fn square_value_of(role: Role, sq: Square, endgame: bool) -> i32 {
    let (file, rank) = (sq.index() as i32 % 8, sq.index() as i32 / 8);
    // 3 on the four centre squares, 0 on the edge.
    let (df, dr) = ((2 * file - 7).abs(), (2 * rank - 7).abs());
    let centre = 3 - if df > dr { df } else { dr } / 2;
    let central_file = file >= 2 && file <= 5;
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

/// [`square_value_of`] for every game phase, role and square (seen from White).
static SQUARE_VALUES: [[[i32; 64]; 6]; 2] = {
    let mut table = [[[0; 64]; 6]; 2];
    let mut phase = 0;
    while phase < 2 {
        let mut role = 0;
        while role < 6 {
            let mut sq = 0;
            while sq < 64 {
                table[phase][role][sq] =
                    square_value_of(Role::ALL[role], Square::new(sq as u32), phase == 1);
                sq += 1;
            }
            role += 1;
        }
        phase += 1;
    }
    table
};

/// How good `sq` is for a `role` of `us`.
#[inline]
fn square_value(role: Role, sq: Square, us: Color, endgame: bool) -> i32 {
    SQUARE_VALUES[usize::from(endgame)][role.index()][sq.relative(us).index()]
}

/// The bonus for taking a `role` on `from` away from a threat: twice its value when
/// attacked by something cheaper, or attacked and undefended.
fn saving(pos: &Position, ctx: &Context, from: Square, role: Role) -> i32 {
    if role == Role::King || !ctx.their_attacks.contains(from) {
        return 0;
    }
    let value = VALUE[role.index()];
    if ctx.shortcuts {
        // From the maps: a piece never attacks its own square, so any of ours that attacks
        // `from` guards it.
        let guarded = ctx.our_once.contains(from);
        let cheapest = cheapest_attacker(&ctx.their_attacks_by, from);
        return if !guarded || cheapest < value {
            2 * value
        } else {
            0
        };
    }
    let threats = pos.attackers_to(from, ctx.them, ctx.occupied);
    if threats.is_empty() {
        return 0;
    }
    let guarded = (pos.attackers_to(from, ctx.us, ctx.occupied) - from).nonempty();
    if !guarded || cheapest(pos, threats) < value {
        2 * value
    } else {
        0
    }
}

/// The score of the legal move `mv` of a `role` from `origin` (higher: earlier in the order).
fn score(pos: &Position, ctx: &Context, origin: &Origin, role: Role, mv: Move) -> i32 {
    let from = origin.from;
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
    let en_passant = mv.is_en_passant();
    if en_passant {
        occupied = occupied - Square::new(to.index() as u32 ^ 8);
    }
    // What the landing piece risks on `to`. A square they do not attack now stays safe unless
    // leaving `from` opens one of their lines (or en passant takes a blocker away).
    let maybe_attacked =
        en_passant || ctx.their_attacks.contains(to) || ctx.their_lines.contains(from);
    let attackers = if maybe_attacked {
        pos.attackers_to(to, ctx.them, occupied) & occupied
    } else {
        Bitboard::EMPTY
    };
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
    s += origin.saving;
    // A direct check (discovered ones are left out: the order only has to be fixed).
    let slider_looked_up =
        ctx.shortcuts && landing == role && matches!(role, Role::Bishop | Role::Rook | Role::Queen);
    let check = if slider_looked_up {
        origin.checks.contains(to)
    } else {
        attacks::attacks(landing, ctx.us, to, occupied).contains(ctx.their_king)
    };
    if check {
        s += 120;
    }
    s + square_value(landing, to, ctx.us, ctx.endgame)
        - square_value(role, from, ctx.us, ctx.endgame)
}

/// Scores span well under ±2^20, so `2^20 - score` is positive and fits 32 bits.
const SCORE_BIAS: i64 = 1 << 20;

/// A move's sort key: smaller comes first; distinct moves have distinct keys.
#[inline]
fn key(score: i32, mv: Move) -> u64 {
    let s = i64::from(score).clamp(1 - SCORE_BIAS, SCORE_BIAS - 1);
    ((SCORE_BIAS - s) as u64) << 16 | u64::from(mv.to_u16())
}

/// Fills `keys` with the sort keys of the legal moves of `pos` (each holds its move) and
/// gives their number; `shortcuts` off scores every move the long way (for tests).
fn keyed_moves(pos: &Position, keys: &mut [u64; crate::MAX_MOVES], shortcuts: bool) -> usize {
    let ctx = Context::new(pos, shortcuts);
    let mut n = 0;
    pos.generate_moves(|group| {
        // A group's moves share their piece and origin: its notes are made once.
        let origin = Origin::new(pos, &ctx, group.from, group.role);
        if ctx.shortcuts && group.kind == MoveGroupKind::Normal {
            for (mv, score) in QuickGroup::new(pos, &ctx, &origin, group).scores(group.to) {
                keys[n] = key(score, mv);
                n += 1;
            }
        } else {
            for mv in group {
                keys[n] = key(score(pos, &ctx, &origin, group.role, mv), mv);
                n += 1;
            }
        }
        false
    });
    n
}

/// The move a key holds.
#[inline]
fn move_of(key: u64) -> Move {
    Move::from_u16(key as u16)
}

/// The scores of a group of plain moves (no promotion, castling or en passant) from the
/// position's attack maps: [`score`] without its lookups per move. A move changes what
/// attacks its landing square only by emptying its origin (a piece landing on a square does
/// not block lines onto it), so:
/// - they attack the landing square after the move if they attack it now, or one of their
///   sliders that sees the origin reaches it through the emptied origin; its cheapest
///   attacker is the first role whose map holds it;
/// - another of our pieces defends it if two of ours attack it now, or one that is not the
///   mover, or one of our sliders reaches it through the emptied origin.
struct QuickGroup<'a> {
    pos: &'a Position,
    ctx: &'a Context,
    role: Role,
    from: Square,
    /// What every move of the group shares: the saving, less the origin's square value.
    base: i32,
    /// The landing squares that give check.
    checks: Bitboard,
    /// The squares another of our pieces defends once the piece has moved.
    defended: Bitboard,
    /// The squares they attack once the piece has moved, with each role.
    attacked: Bitboard,
    attacked_by: [Bitboard; 6],
}

impl<'a> QuickGroup<'a> {
    fn new(
        pos: &'a Position,
        ctx: &'a Context,
        origin: &Origin,
        group: crate::PieceMoves,
    ) -> QuickGroup<'a> {
        let (role, from) = (group.role, group.from);
        let checks = match role {
            Role::Bishop | Role::Rook | Role::Queen => origin.checks,
            _ => ctx.leaper_checks[role.index()],
        };
        // A square one piece of ours attacks is defended unless that piece is the mover. A
        // knight, bishop, rook, queen or king attacks every square it moves to; a pawn only
        // those it captures on.
        let mut defended = ctx.our_twice;
        if role == Role::Pawn {
            defended |= ctx.our_once - attacks::pawn_attacks(ctx.us, from);
        }
        let (mut attacked, mut attacked_by) = (ctx.their_attacks, ctx.their_attacks_by);
        if ctx.their_lines.contains(from) {
            // Their sliders that see the origin see past it once it is empty.
            for (slider, sq) in sliders_seeing(pos, ctx, ctx.them, from) {
                let reach = attacks::attacks(slider, ctx.them, sq, ctx.occupied - from);
                attacked |= reach;
                attacked_by[slider.index()] |= reach;
            }
        }
        let risky = group.to & attacked;
        if (risky - defended).nonempty() && ctx.our_lines.contains(from) {
            for (slider, sq) in sliders_seeing(pos, ctx, ctx.us, from) {
                defended |= attacks::attacks(slider, ctx.us, sq, ctx.occupied - from);
            }
        }
        QuickGroup {
            pos,
            ctx,
            role,
            from,
            base: origin.saving - square_value(role, from, ctx.us, ctx.endgame),
            checks,
            defended,
            attacked,
            attacked_by,
        }
    }

    /// The score of the move to `to`.
    #[inline]
    fn score(&self, to: Square) -> i32 {
        let ctx = self.ctx;
        let mut s = self.base + square_value(self.role, to, ctx.us, ctx.endgame);
        if self.checks.contains(to) {
            s += 120;
        }
        if let Some(taken) = self.pos.role_on(to) {
            s += 4 * VALUE[taken.index()] + 50;
        }
        if self.attacked.contains(to) {
            let value = VALUE[self.role.index()];
            let risk = if self.defended.contains(to) {
                let cheapest = cheapest_attacker(&self.attacked_by, to);
                (value - cheapest).max(0)
            } else {
                value
            };
            s -= 4 * risk;
        }
        s
    }

    /// Each move to `targets` with its score.
    fn scores(self, targets: Bitboard) -> impl Iterator<Item = (Move, i32)> + 'a {
        targets.map(move |to| (Move::normal(self.from, to), self.score(to)))
    }
}

/// The bishops, rooks and queens of `side` that attack `sq`, with their roles.
fn sliders_seeing<'a>(
    pos: &'a Position,
    ctx: &Context,
    side: Color,
    sq: Square,
) -> impl Iterator<Item = (Role, Square)> + 'a {
    let sliders = pos.by_role(Role::Bishop) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    let seers = pos.attackers_to(sq, side, ctx.occupied) & sliders;
    seers.filter_map(move |at| Some((pos.role_on(at)?, at)))
}

/// Reusable buffers for ranking moves (no allocation per move).
pub(crate) struct Ranker {
    keys: [u64; crate::MAX_MOVES],
    /// How many of `keys` the last position listed.
    listed: usize,
}

impl Ranker {
    /// Empty buffers.
    pub(crate) fn new() -> Ranker {
        Ranker {
            keys: [0; crate::MAX_MOVES],
            listed: 0,
        }
    }

    /// The other pieces of the mover's role that could legally go where the legal move `mv`
    /// goes, in `pos`, the position [`Ranker::move_at`] last listed (what SAN disambiguates
    /// between): no pawn or king move needs it, and only pieces that attack the square can.
    pub(crate) fn others(&self, pos: &Position, mv: Move) -> Bitboard {
        let (from, to) = (mv.from(), mv.to());
        let role = match pos.role_on(from) {
            Some(role @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => role,
            _ => return Bitboard::EMPTY,
        };
        let us = pos.turn();
        let rivals = (attacks::attacks(role, us, to, pos.occupied()) & pos.pieces(us, role)) - from;
        if rivals.is_empty() {
            return Bitboard::EMPTY;
        }
        self.keys[..self.listed]
            .iter()
            .map(|&k| move_of(k))
            .filter(|m| m.to() == to && rivals.contains(m.from()))
            .fold(Bitboard::EMPTY, |others, m| others | m.from())
    }

    /// The rank of `mv` among the legal moves of `pos` in the fixed order, or `None` if it is
    /// not legal there.
    pub(crate) fn rank_of(&mut self, pos: &Position, mv: Move) -> Option<usize> {
        let n = keyed_moves(pos, &mut self.keys, true);
        let keys = &self.keys[..n];
        let k = *keys.iter().find(|&&k| move_of(k) == mv)?;
        Some(smaller_than(keys, k))
    }

    /// The move of rank `rank` among the legal moves of `pos`, or `None` if there are not
    /// that many.
    pub(crate) fn move_at(&mut self, pos: &Position, rank: usize) -> Option<Move> {
        let n = keyed_moves(pos, &mut self.keys, true);
        self.listed = n;
        let keys = &self.keys[..n];
        // Rank 0, the likeliest, is the smallest key. Otherwise the key with `rank` keys
        // below it: counting, branch-free over a few dozen keys, is quicker here than a
        // selection that moves them.
        let k = if rank == 0 {
            keys.iter().copied().min()?
        } else {
            *keys.iter().find(|&&k| smaller_than(keys, k) == rank)?
        };
        Some(move_of(k))
    }

    /// Every legal move of `pos` in the order (for tests and the table generator).
    #[cfg(test)]
    pub(crate) fn ordered(&mut self, pos: &Position) -> Vec<Move> {
        let n = keyed_moves(pos, &mut self.keys, true);
        let mut keys = self.keys[..n].to_vec();
        keys.sort_unstable();
        keys.into_iter().map(move_of).collect()
    }
}

/// How many of `keys` are smaller than `key`.
#[inline]
fn smaller_than(keys: &[u64], key: u64) -> usize {
    keys.iter().map(|&o| usize::from(o < key)).sum()
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

    /// The shortcuts give every move the score the long way gives, in positions of random
    /// games from starts rich in lines, pins, en passant and promotions.
    #[test]
    fn shortcuts_score_every_move_as_the_long_way() {
        let mut starts = crate::movegen::tests::RICH_STARTS.to_vec();
        starts.push("8/8/8/2k5/3Pp3/8/8/4KQ1r b - d3 0 1");
        let (mut fast, mut slow) = (Ranker::new(), Ranker::new());
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut positions = 0;
        for fen in starts {
            for _ in 0..40 {
                let mut pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
                for _ in 0..120 {
                    let n = keyed_moves(&pos, &mut fast.keys, true);
                    assert_eq!(keyed_moves(&pos, &mut slow.keys, false), n);
                    // A key holds its move: equal sorted keys give every move the same score.
                    let (mut f, mut s) = (fast.keys[..n].to_vec(), slow.keys[..n].to_vec());
                    f.sort_unstable();
                    s.sort_unstable();
                    assert_eq!(f, s, "{}", pos.fen());
                    positions += 1;
                    if n == 0 {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos.play_unchecked(move_of(fast.keys[(seed % n as u64) as usize]));
                }
            }
        }
        assert!(positions > 10_000, "{positions} positions");
    }
}
