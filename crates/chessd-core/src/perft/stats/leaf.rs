//! The last ply, counted without making most moves: each piece's targets are walked in
//! straight loops, captures, promotions and checks come from target sets and check squares,
//! and plain pawns are counted set-wise. Only en passant, castling and checking moves (for the
//! mate test) are made.

use std::cell::Cell;

use super::{classify_by_making, PerftStats};
use crate::{
    attacks::{
        attacks, bishop_attacks, bishop_rays, king_attacks, knight_attacks, line, pawn_attacks,
        rook_attacks, rook_rays,
    },
    Bitboard, Color, Move, Position, Rank, Role, Square,
};

/// Counts a checking move whose class is already known; makes it only for the mate test.
#[inline]
fn add_known_check(pos: &Position, mv: Move, two: bool, direct: bool, stats: &mut PerftStats) {
    let mate = pos.check_mates(mv);
    stats.add_check(two, direct, mate);
}

/// The enemy king's lines as the last ply sees them: the squares from which our sliders
/// would check it, and our pieces whose leaving a line uncovers a check.
#[derive(Clone, Copy)]
pub(super) struct KingView {
    /// The enemy king's square.
    pub(super) ksq: Square,
    /// The squares a bishop on the king's square would attack.
    pub(super) diag: Bitboard,
    /// The squares a rook on the king's square would attack.
    pub(super) orth: Bitboard,
    /// Our pieces standing alone between the king and one of our sliders.
    pub(super) candidates: Bitboard,
}

impl KingView {
    /// The view of the king of `!us` in `pos`, for the moves of `us`.
    #[inline(always)]
    pub(super) fn new(pos: &Position, us: Color) -> KingView {
        let occ = pos.occupied();
        let ksq = pos.king(!us);
        KingView {
            ksq,
            diag: bishop_attacks(ksq, occ),
            orth: rook_attacks(ksq, occ),
            candidates: pos.blockers(!us) & pos.by_color(us),
        }
    }
}

/// What the last ply needs to know about the enemy king.
struct LeafContext<'a> {
    pos: &'a Position,
    us: Color,
    theirs: Bitboard,
    occ: Bitboard,
    ksq: Square,
    /// Squares from which a piece of each role (ours) attacks the enemy king.
    check_squares: [Bitboard; 6],
    /// Our pieces whose leaving a line uncovers a check.
    candidates: Bitboard,
    /// Squares next to the enemy king whose safety before our move is known (filled on
    /// demand by [`LeafContext::add_check`]).
    tested: Cell<Bitboard>,
    /// Those of `tested` that we do not attack: the king's flights if it were its turn.
    flights: Cell<Bitboard>,
    /// Those of `tested` that exactly one of our pieces attacks.
    sole: Cell<Bitboard>,
    /// For each square of `sole`, its attacker's square (six bits per direction from the
    /// king, see [`direction_index`]).
    sole_from: Cell<u64>,
}

/// The index (0 to 7) of the direction from `ksq` to the neighbouring square `sq`.
#[inline(always)]
fn direction_index(ksq: Square, sq: Square) -> u32 {
    const INDEX: [u8; 19] = [0, 1, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0, 5, 6, 7];
    INDEX[(sq.index() as i32 - ksq.index() as i32 + 9) as usize] as u32
}

impl LeafContext<'_> {
    /// Whether the enemy king could step to `sq` (next to it, not its own) once our piece has
    /// left `from`, as far as the pieces standing still go: whether no piece of ours but the
    /// one on `from` attacks it now, looking through the king (which cannot hide behind
    /// itself). The attackers of each square are looked up once per position and kept for
    /// its other checks.
    #[inline]
    fn is_flight(&self, sq: Square, from: Square) -> bool {
        let tested = self.tested.get();
        if !tested.contains(sq) {
            self.tested.set(tested | sq);
            let attackers = self.pos.attackers_to(sq, self.us, self.occ - self.ksq);
            if attackers.is_empty() {
                self.flights.set(self.flights.get() | sq);
            } else if !attackers.more_than_one() {
                self.sole.set(self.sole.get() | sq);
                let shift = 6 * direction_index(self.ksq, sq);
                let packed = self.sole_from.get() & !(63 << shift);
                self.sole_from
                    .set(packed | (attackers.0.trailing_zeros() as u64) << shift);
            }
        }
        self.flights.get().contains(sq)
            || (self.sole.get().contains(sq)
                && (self.sole_from.get() >> (6 * direction_index(self.ksq, sq))) & 63
                    == from.index() as u64)
    }

    /// Whether one of `squares` (next to the enemy king, neither its own, nor attacked by our
    /// moved piece, nor its target) stays a flight after we move away from `from`: a square
    /// that no piece of ours but the moved one attacked before (see
    /// [`LeafContext::is_flight`]) stays one unless the move opened a line onto it: it lies on
    /// a line through `from` on which one of our sliders of that line's kind reaches it on the
    /// board after the move (`occ_after`, without the king).
    #[inline(always)]
    fn has_sure_flight(&self, from: Square, squares: Bitboard, occ_after: Bitboard) -> bool {
        let (diagonal, orthogonal) = (bishop_rays(from), rook_rays(from));
        let queens = self.pos.pieces(self.us, Role::Queen);
        let bishops = (self.pos.pieces(self.us, Role::Bishop) | queens) - from;
        let rooks = (self.pos.pieces(self.us, Role::Rook) | queens) - from;
        squares.into_iter().any(|sq| {
            let opened = if diagonal.contains(sq) {
                let on_line = line(sq, from) & bishops;
                on_line.nonempty() && bishop_attacks(sq, occ_after).intersects(on_line)
            } else if orthogonal.contains(sq) {
                let on_line = line(sq, from) & rooks;
                on_line.nonempty() && rook_attacks(sq, occ_after).intersects(on_line)
            } else {
                false
            };
            !opened && self.is_flight(sq, from)
        })
    }

    /// Counts our checking plain move of the `role` on `from` to `to` (`two` checkers,
    /// `direct` when the moved piece is one).
    ///
    /// Most checks are answered by a king step, which is found without making the move: a
    /// square next to the king that only the moved piece attacked before (or nothing did, see
    /// [`LeafContext::is_flight`]) is a flight after the move unless the moved piece now
    /// attacks it, it is the target square, or the move opened a line onto it through the
    /// origin. The king may also take the checking piece when nothing defends it. Only when
    /// neither is sure is the move made for the full mate test.
    #[inline]
    fn add_check(
        &self,
        role: Role,
        from: Square,
        to: Square,
        two: bool,
        direct: bool,
        s: &mut PerftStats,
    ) {
        let occ_after = ((self.occ - from) | to) - self.ksq;
        let attacked = attacks(role, self.us, to, occ_after);
        let squares = king_attacks(self.ksq) - self.theirs - attacked - to;
        if self.has_sure_flight(from, squares, occ_after) || self.king_takes(from, to, occ_after) {
            s.add_check(two, direct, false);
        } else {
            add_known_check(self.pos, Move::normal(from, to), two, direct, s);
        }
    }

    /// Whether the enemy king can take our piece that moved from `from` to `to` next to it
    /// (`occ_after` is the board after the move, without the king): none of our other
    /// pieces defends the square then.
    #[inline(always)]
    fn king_takes(&self, from: Square, to: Square, occ_after: Bitboard) -> bool {
        king_attacks(self.ksq).contains(to)
            && (self.pos.attackers_to(to, self.us, occ_after) - from).is_empty()
    }

    /// Targets of a normal move group that give check: (direct, discovered).
    #[inline(always)]
    fn checking(&self, role: Role, from: Square, to: Bitboard) -> (Bitboard, Bitboard) {
        let direct = to & self.check_squares[role.index()];
        let discovered = if self.candidates.contains(from) {
            to - line(self.ksq, from)
        } else {
            Bitboard::EMPTY
        };
        (direct, discovered)
    }

    /// Counts the moves of a normal group: the `role` on `from` to each of `to`.
    #[inline(always)]
    fn normal(&self, role: Role, from: Square, to: Bitboard, c: &mut Counted, s: &mut PerftStats) {
        c.nodes += to.count();
        c.captures += (to & self.theirs).count();
        let (direct, discovered) = self.checking(role, from, to);
        if (direct | discovered).nonempty() {
            self.normal_checks(role, from, direct, discovered, s);
        }
    }

    /// Counts the checking moves of a normal group.
    #[inline(never)]
    fn normal_checks(
        &self,
        role: Role,
        from: Square,
        direct: Bitboard,
        discovered: Bitboard,
        s: &mut PerftStats,
    ) {
        for to in direct | discovered {
            let (d, x) = (direct.contains(to), discovered.contains(to));
            self.add_check(role, from, to, d && x, d, s);
        }
    }

    /// Counts the moves of `plain` pawns (see [`Position::plain_pawns`]): none uncovers a
    /// check, so a checking one gives a direct check from its target square.
    #[inline(always)]
    fn plain_pawns(&self, plain: Bitboard, c: &mut Counted, s: &mut PerftStats) {
        let sets = self.pos.pawn_sets(plain);
        let captures = sets.west.count() + sets.east.count();
        c.nodes += sets.single.count() + sets.double.count() + captures;
        c.captures += captures;
        let checks = self.check_squares[Role::Pawn.index()];
        let pushes = (sets.single | sets.double) & checks;
        let takes = (sets.west | sets.east) & checks;
        if (pushes | takes).nonempty() {
            self.plain_pawn_checks(plain, pushes, sets.double, takes, s);
        }
    }

    /// Counts the checking moves of `plain` pawns: pushes to `pushes` (from two squares back
    /// when in `double`) and captures on `takes` (by every plain pawn attacking the square).
    #[inline(never)]
    fn plain_pawn_checks(
        &self,
        plain: Bitboard,
        pushes: Bitboard,
        double: Bitboard,
        takes: Bitboard,
        s: &mut PerftStats,
    ) {
        let back: i32 = if self.us == Color::White { -8 } else { 8 };
        for to in pushes {
            let steps = if double.contains(to) { 2 } else { 1 };
            let from = Square::new((to.index() as i32 + back * steps) as u32);
            self.add_check(Role::Pawn, from, to, false, true, s);
        }
        for to in takes {
            for from in pawn_attacks(!self.us, to) & plain {
                self.add_check(Role::Pawn, from, to, false, true, s);
            }
        }
    }

    /// Counts a castling move without making it unless it checks: only the rook can give
    /// check (a king never does), and neither the king nor the rook uncovers one unless it
    /// stood between one of our sliders and the enemy king (then the move is made).
    #[inline]
    fn castle(&self, mv: Move, s: &mut PerftStats) {
        let (king, rook) = (mv.from(), mv.to());
        if self.candidates.contains(king) || self.candidates.contains(rook) {
            classify_by_making(self.pos, mv, s);
            return;
        }
        s.nodes += 1;
        s.castles += 1;
        let rook_to = mv.rook_destination().unwrap_or(rook);
        // The rook seldom lines up with the enemy king even on an empty board.
        if !rook_rays(rook_to).contains(self.ksq) {
            return;
        }
        let occ_after = (self.occ - king - rook) | mv.king_destination() | rook_to;
        if rook_attacks(rook_to, occ_after).contains(self.ksq) {
            add_known_check(self.pos, mv, false, true, s);
        }
    }

    /// Counts the promotions of the pawn on `from` to each of `to` (four roles each).
    #[inline(never)]
    fn promotions(&self, from: Square, to: Bitboard, s: &mut PerftStats) {
        let n = u64::from(to.count()) * 4;
        s.nodes += n;
        s.promotions += n;
        s.captures += u64::from((to & self.theirs).count()) * 4;
        let uncovers = self.candidates.contains(from);
        for to in to {
            let discovered = uncovers && !line(self.ksq, from).contains(to);
            let occ_after = (self.occ - from) | to;
            for role in Role::PROMOTIONS {
                let direct = attacks(role, self.us, to, occ_after).contains(self.ksq);
                if direct || discovered {
                    let mv = Move::promotion(from, to, role);
                    add_known_check(self.pos, mv, direct && discovered, direct, s);
                }
            }
        }
    }
}

/// The statistics of every legal move of `pos` (a perft of depth 1).
#[inline]
pub(crate) fn leaf_stats(pos: &Position) -> PerftStats {
    let mut s = PerftStats::default();
    add_leaf_stats(pos, &mut s);
    s
}

/// Adds the statistics of every legal move of `pos` to `s`.
#[inline(always)]
pub(super) fn add_leaf_stats(pos: &Position, s: &mut PerftStats) {
    // One copy per side to move, so that colour-dependent shifts and masks are constants.
    match pos.turn() {
        Color::White => add_leaf_stats_as(pos, Color::White, KingView::new(pos, Color::White), s),
        Color::Black => add_leaf_stats_as(pos, Color::Black, KingView::new(pos, Color::Black), s),
    }
}

/// [`add_leaf_stats`] for the side to move `us`.
///
/// The legal moves are walked piece by piece in straight loops, the way
/// [`Position::count_legal`] counts them, rather than through [`Position::generate_moves`]'s
/// groups: a call per group and the generator's general shape cost more than the counting.
#[inline(always)]
pub(super) fn add_leaf_stats_as(pos: &Position, us: Color, view: KingView, s: &mut PerftStats) {
    let them = !us;
    let ours = pos.by_color(us);
    let theirs = pos.by_color(them);
    let occ = ours | theirs;
    let KingView {
        ksq,
        diag,
        orth,
        candidates,
    } = view;
    let ctx = LeafContext {
        pos,
        us,
        theirs,
        occ,
        ksq,
        check_squares: [
            pawn_attacks(them, ksq),
            knight_attacks(ksq),
            diag,
            orth,
            diag | orth,
            Bitboard::EMPTY,
        ],
        candidates,
        tested: Cell::new(Bitboard::EMPTY),
        flights: Cell::new(Bitboard::EMPTY),
        sole: Cell::new(Bitboard::EMPTY),
        sole_from: Cell::new(0),
    };

    let king = pos.king(us);
    let in_check = pos.checkers.nonempty();
    let (king_to, castles) = pos.king_moves(us, king, ours, in_check);
    // Leaf moves and captures are summed in registers and added to `s` once at the end.
    let mut c = Counted::default();
    ctx.normal(Role::King, king, king_to, &mut c, s);
    if pos.checkers.more_than_one() {
        c.add_to(s);
        return;
    }
    let target = pos.check_mask(king, ours);
    let pinned = pos.pinned;
    // In check a pinned piece can never help: it may neither block nor capture.
    let movable = if in_check { ours - pinned } else { ours };
    let free = ours - pinned;

    for from in pos.by_role(Role::Knight) & free {
        ctx.normal(Role::Knight, from, knight_attacks(from) & target, &mut c, s);
    }
    let bishops = pos.by_role(Role::Bishop) & movable;
    let rooks = pos.by_role(Role::Rook) & movable;
    let queens = pos.by_role(Role::Queen) & movable;
    for (role, sliders) in [
        (Role::Bishop, bishops),
        (Role::Rook, rooks),
        (Role::Queen, queens),
    ] {
        for from in sliders - pinned {
            ctx.normal(role, from, attacks(role, us, from, occ) & target, &mut c, s);
        }
    }
    if (pinned & (bishops | rooks | queens)).nonempty() {
        // Pinned sliders move along the pin line only (never in check: see `movable`).
        for from in pinned & (bishops | rooks | queens) {
            let role = if bishops.contains(from) {
                Role::Bishop
            } else if rooks.contains(from) {
                Role::Rook
            } else {
                Role::Queen
            };
            let to = attacks(role, us, from, occ) & target & line(king, from);
            ctx.normal(role, from, to, &mut c, s);
        }
    }

    // Most pawns cannot uncover a check nor promote: their moves are counted set-wise, and
    // only those that check are made (for the mate test).
    let pawns = pos.by_role(Role::Pawn) & movable;
    let plain = pos.plain_pawns(ctx.candidates);
    if plain.nonempty() {
        ctx.plain_pawns(plain, &mut c, s);
    }
    let promotion_from = Bitboard::rank(Rank::new(6).relative(us));
    for from in pawns - plain {
        let mut to = pos.pawn_targets(us, from, occ, theirs) & target;
        if pinned.contains(from) {
            to &= line(king, from);
        }
        if to.is_empty() {
            continue;
        }
        if promotion_from.contains(from) {
            ctx.promotions(from, to, s);
        } else {
            ctx.normal(Role::Pawn, from, to, &mut c, s);
        }
    }
    if let Some(ep) = pos.ep_square() {
        for from in pawn_attacks(them, ep) & pos.pieces(us, Role::Pawn) {
            if pos.en_passant_is_safe(from, ep) {
                classify_by_making(pos, Move::en_passant(from, ep), s);
            }
        }
    }
    for rook in castles {
        ctx.castle(Move::castle(king, rook), s);
    }
    c.add_to(s);
}

/// Leaf moves and captures of one position, counted apart from [`PerftStats`] so that the
/// counts stay in registers (the statistics are also written by the rarer paths).
#[derive(Default)]
struct Counted {
    nodes: u32,
    captures: u32,
}

impl Counted {
    /// Adds the counts to `s`.
    #[inline(always)]
    fn add_to(self, s: &mut PerftStats) {
        s.nodes += u64::from(self.nodes);
        s.captures += u64::from(self.captures);
    }
}
