//! Statistics perft: leaf counts split into captures, en passant, castles, promotions and the
//! eight Grand Chess Tree check classes.
//!
//! Every statistic counts **leaf moves only** (the moves made at the last ply). "Moved piece"
//! means the piece standing on the move's destination square; for castling that is the rook.
//! Checks are put in exactly one of four classes by the number of checkers and whether the
//! moved piece is one of them, and a checking move that mates is counted in the matching
//! `*_mates` class instead.
//!
//! The last ply is counted without making most moves: the legal targets of each piece are
//! walked in straight loops (as [`Position::count_legal`] counts them), captures, promotions
//! and checks come from those target sets and precomputed check squares, and the pawns that can
//! neither uncover a check nor promote are counted set-wise (their pushes and captures as whole
//! target sets); only en passant, castling and checking moves (for the mate test) are made.
//!
//! The children of one position (the last two plies) share what our move seldom changes:
//! the opponent's pins and the view of our king (see `Siblings`).

use std::{
    cell::Cell,
    iter::Sum,
    ops::{Add, AddAssign, Mul, MulAssign},
};

use crate::{
    attacks::{
        attacks, between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, line,
        pawn_attacks, rook_attacks, rook_rays,
    },
    movegen::PinLines,
    Bitboard, Color, Move, MoveGroupKind, MoveKind, Position, Rank, Role, Square,
};

/// Leaf statistics of a perft run (Grand Chess Tree classes, with derived summaries for the
/// GCT worker protocol and the chessprogramming.org convention).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PerftStats {
    /// Leaf nodes.
    pub nodes: u64,
    /// Leaf moves that capture (en passant included).
    pub captures: u64,
    /// Leaf moves that capture en passant.
    pub enpassants: u64,
    /// Leaf moves that castle.
    pub castles: u64,
    /// Leaf moves that promote (each promotion role counts).
    pub promotions: u64,
    /// One checker, the moved piece (not mate).
    pub direct_checks: u64,
    /// One checker, not the moved piece (not mate).
    pub single_discovered_checks: u64,
    /// Two checkers, one of them the moved piece (not mate).
    pub direct_discovered_checks: u64,
    /// Two checkers, neither the moved piece (not mate).
    pub double_discovered_checks: u64,
    /// Mate with one checker, the moved piece.
    pub direct_mates: u64,
    /// Mate with one checker, not the moved piece.
    pub single_discovered_mates: u64,
    /// Mate with two checkers, one of them the moved piece.
    pub direct_discovered_mates: u64,
    /// Mate with two checkers, neither the moved piece.
    pub double_discovered_mates: u64,
}

/// The number of counters in [`PerftStats`].
pub(crate) const STATS_WORDS: usize = 13;

impl PerftStats {
    /// The statistics of a single node (depth 0): one node, no leaf move.
    pub const ONE_NODE: PerftStats =
        PerftStats::from_array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

    /// A tally with only `nodes` set (bulk results in statistics form).
    pub const fn from_nodes(nodes: u64) -> PerftStats {
        PerftStats::from_array([nodes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    /// All counters in declaration order (nodes first).
    pub const fn to_array(&self) -> [u64; STATS_WORDS] {
        [
            self.nodes,
            self.captures,
            self.enpassants,
            self.castles,
            self.promotions,
            self.direct_checks,
            self.single_discovered_checks,
            self.direct_discovered_checks,
            self.double_discovered_checks,
            self.direct_mates,
            self.single_discovered_mates,
            self.direct_discovered_mates,
            self.double_discovered_mates,
        ]
    }

    /// The inverse of [`PerftStats::to_array`].
    pub const fn from_array(a: [u64; STATS_WORDS]) -> PerftStats {
        PerftStats {
            nodes: a[0],
            captures: a[1],
            enpassants: a[2],
            castles: a[3],
            promotions: a[4],
            direct_checks: a[5],
            single_discovered_checks: a[6],
            direct_discovered_checks: a[7],
            double_discovered_checks: a[8],
            direct_mates: a[9],
            single_discovered_mates: a[10],
            direct_discovered_mates: a[11],
            double_discovered_mates: a[12],
        }
    }

    /// GCT `total_checks`: the four check classes, mates excluded.
    pub const fn total_checks(&self) -> u64 {
        self.direct_checks
            + self.single_discovered_checks
            + self.direct_discovered_checks
            + self.double_discovered_checks
    }

    /// GCT `total_mates`: the four mate classes.
    pub const fn total_mates(&self) -> u64 {
        self.direct_mates
            + self.single_discovered_mates
            + self.direct_discovered_mates
            + self.double_discovered_mates
    }

    /// GCT worker `checks`: every checking leaf, mates included.
    pub const fn checks(&self) -> u64 {
        self.total_checks() + self.total_mates()
    }

    /// GCT worker `discovered_checks`: checking leaves where the moved piece is not a checker,
    /// mates included.
    pub const fn discovered_checks(&self) -> u64 {
        self.single_discovered_checks
            + self.double_discovered_checks
            + self.single_discovered_mates
            + self.double_discovered_mates
    }

    /// GCT worker `double_checks`: leaves with two checkers, mates included.
    pub const fn double_checks(&self) -> u64 {
        self.direct_discovered_checks
            + self.double_discovered_checks
            + self.direct_discovered_mates
            + self.double_discovered_mates
    }

    /// GCT worker `check_mates`: every mating leaf.
    pub const fn check_mates(&self) -> u64 {
        self.total_mates()
    }

    /// chessprogramming.org `checks`: every checking leaf, mates included.
    pub const fn cpw_checks(&self) -> u64 {
        self.checks()
    }

    /// chessprogramming.org `discovery checks`: single discovered checks, mates excluded.
    pub const fn cpw_discovery_checks(&self) -> u64 {
        self.single_discovered_checks
    }

    /// chessprogramming.org `double checks`: two checkers, mates excluded.
    pub const fn cpw_double_checks(&self) -> u64 {
        self.direct_discovered_checks + self.double_discovered_checks
    }

    /// chessprogramming.org `checkmates`: every mating leaf.
    pub const fn cpw_checkmates(&self) -> u64 {
        self.total_mates()
    }

    /// Counts one checking leaf in its class: `two` checkers or one, `direct` when the moved
    /// piece is one of them.
    #[inline]
    fn add_check(&mut self, two: bool, direct: bool, mate: bool) {
        let counter = match (two, direct, mate) {
            (false, true, false) => &mut self.direct_checks,
            (false, false, false) => &mut self.single_discovered_checks,
            (true, true, false) => &mut self.direct_discovered_checks,
            (true, false, false) => &mut self.double_discovered_checks,
            (false, true, true) => &mut self.direct_mates,
            (false, false, true) => &mut self.single_discovered_mates,
            (true, true, true) => &mut self.direct_discovered_mates,
            (true, false, true) => &mut self.double_discovered_mates,
        };
        *counter += 1;
    }
}

impl Add for PerftStats {
    type Output = PerftStats;
    #[inline]
    fn add(mut self, rhs: PerftStats) -> PerftStats {
        self += rhs;
        self
    }
}

impl AddAssign for PerftStats {
    #[inline]
    fn add_assign(&mut self, rhs: PerftStats) {
        let (a, b) = (self.to_array(), rhs.to_array());
        *self = PerftStats::from_array(std::array::from_fn(|i| a[i] + b[i]));
    }
}

impl Mul<u64> for PerftStats {
    type Output = PerftStats;
    /// Every counter times an occurrence count (for positions that occur several times).
    #[inline]
    fn mul(mut self, count: u64) -> PerftStats {
        self *= count;
        self
    }
}

impl MulAssign<u64> for PerftStats {
    #[inline]
    fn mul_assign(&mut self, count: u64) {
        let a = self.to_array();
        *self = PerftStats::from_array(a.map(|x| x * count));
    }
}

impl Sum for PerftStats {
    fn sum<I: Iterator<Item = PerftStats>>(iter: I) -> PerftStats {
        iter.fold(PerftStats::default(), Add::add)
    }
}

/// Statistics perft without hashing, single-threaded. For speed on big depths use
/// [`crate::perft::Perft`] with hashing and threads.
pub fn perft_stats(pos: &Position, depth: u32) -> PerftStats {
    match depth {
        0 => PerftStats::ONE_NODE,
        1 => leaf_stats(pos),
        2 => {
            // The last two plies inline: each child's leaf moves are added in place.
            let mut total = PerftStats::default();
            let siblings = Siblings::new(pos);
            pos.generate_moves(|group| {
                if group.kind == MoveGroupKind::Normal {
                    for to in group.to {
                        siblings.add_after_plain(pos, group.role, group.from, to, &mut total);
                    }
                } else {
                    for mv in group {
                        add_leaf_stats(&pos.after_unhashed(mv), &mut total);
                    }
                }
                false
            });
            total
        }
        _ => {
            let mut total = PerftStats::default();
            pos.generate_moves(|group| {
                if group.kind == MoveGroupKind::Normal {
                    for to in group.to {
                        let child = pos.after_plain_unhashed(group.role, group.from, to);
                        total += perft_stats(&child, depth - 1);
                    }
                } else {
                    for mv in group {
                        total += perft_stats(&pos.after_unhashed(mv), depth - 1);
                    }
                }
                false
            });
            total
        }
    }
}

/// Classifies one leaf move by making it: the reference used for rare moves (and in tests).
pub(crate) fn classify_by_making(pos: &Position, mv: Move, stats: &mut PerftStats) {
    stats.nodes += 1;
    if pos.is_capture(mv) {
        stats.captures += 1;
    }
    let moved_to = match mv.kind() {
        MoveKind::EnPassant => {
            stats.enpassants += 1;
            mv.to()
        }
        MoveKind::Castle => {
            stats.castles += 1;
            mv.rook_destination().unwrap_or(mv.to())
        }
        MoveKind::Promotion(_) => {
            stats.promotions += 1;
            mv.to()
        }
        MoveKind::Normal => mv.to(),
    };
    let after = pos.after_unhashed(mv);
    let checkers = after.checkers();
    if checkers.nonempty() {
        let mate = !after.has_legal_moves();
        stats.add_check(checkers.more_than_one(), checkers.contains(moved_to), mate);
    }
}

/// Counts a checking move whose class is already known; makes it only for the mate test.
#[inline]
fn add_known_check(pos: &Position, mv: Move, two: bool, direct: bool, stats: &mut PerftStats) {
    let mate = pos.check_mates(mv);
    stats.add_check(two, direct, mate);
}

/// The enemy king's lines as the last ply sees them: the squares from which our sliders
/// would check it, and our pieces whose leaving a line uncovers a check.
#[derive(Clone, Copy)]
struct KingView {
    /// The enemy king's square.
    ksq: Square,
    /// The squares a bishop on the king's square would attack.
    diag: Bitboard,
    /// The squares a rook on the king's square would attack.
    orth: Bitboard,
    /// Our pieces standing alone between the king and one of our sliders.
    candidates: Bitboard,
}

impl KingView {
    /// The view of the king of `!us` in `pos`, for the moves of `us`.
    #[inline(always)]
    fn new(pos: &Position, us: Color) -> KingView {
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

/// What the children of one position share for their leaf statistics (the last two plies):
/// - the opponent's pins, which most of our moves leave alone (the reply counter's
///   [`PinLines`] says which), so that those children are made without the pin scan;
/// - the view of our king from the opponent's side (its check squares and discovery
///   candidates), which a move off the king's lines and off the lines to the opponent's
///   sliders leaves alone.
struct Siblings {
    /// Which of our moves leave the opponent's checks and pins as they were.
    lines: PinLines,
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
    fn new(pos: &Position) -> Siblings {
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
    fn add_after_plain(
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
fn add_leaf_stats(pos: &Position, s: &mut PerftStats) {
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
fn add_leaf_stats_as(pos: &Position, us: Color, view: KingView, s: &mut PerftStats) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    /// Depth-1 statistics by making and classifying every move.
    fn leaf_stats_by_making(pos: &Position) -> PerftStats {
        let mut s = PerftStats::default();
        for mv in pos.legal_moves().iter() {
            classify_by_making(pos, *mv, &mut s);
        }
        s
    }

    /// Compares the fast leaf counter with the reference at every node down to `depth`.
    fn check_tree(pos: &Position, depth: u32) -> u64 {
        assert_eq!(leaf_stats(pos), leaf_stats_by_making(pos), "{}", pos.fen());
        let mut n = 1;
        if depth > 0 {
            for mv in pos.legal_moves().iter() {
                n += check_tree(&pos.after(*mv), depth - 1);
            }
        }
        n
    }

    #[test]
    fn fast_leaf_counts_equal_making_every_move() {
        let fens = [
            crate::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            // Discovered checks by promotion and en passant, double checks.
            "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
            "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
            "8/P1k5/K7/8/8/8/8/8 w - - 0 1",
            "4k3/1P6/8/8/8/8/K7/8 w - - 0 1",
            "B6b/8/8/8/2K5/4k3/8/b6B w - - 0 1",
            // Checks by plain pawns: pushes, double pushes, two captures on one square.
            "8/8/8/3k4/8/2P1P3/8/4K3 w - - 0 1",
            "8/8/8/3k4/8/8/2P1P3/4K3 w - - 0 1",
            "8/8/4k3/3n4/2P1P3/8/8/4K3 w - - 0 1",
            "4k3/8/8/2p1p3/3N4/4K3/8/8 b - - 0 1",
            // Mate by a double push (b4#, b5#).
            "8/8/2Q5/k7/8/P7/1P6/7K w - - 0 1",
            "7k/1p6/p7/8/K7/2q5/8/8 b - - 0 1",
            // The same check, but the rook takes the pawn along the file the push cleared.
            "8/8/2Q5/k7/8/P6K/1P6/1r6 w - - 0 1",
            // Castling that checks (the rook), standard and Chess960.
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
            "5k2/8/8/8/8/8/8/1K4R1 w G - 0 1",
            "1r4k1/8/8/8/8/8/8/3K4 b b - 0 1",
            // ... and along the rank the king just left.
            "8/8/8/8/8/8/8/R3K2k w Q - 0 1",
            // Rxe4# takes the only piece that could have blocked the file.
            "3rkr2/3p1p2/8/8/4r3/8/8/4R2K w - - 0 1",
        ];
        let mut total = 0;
        for fen in fens {
            let pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
            total += check_tree(&pos, 3);
        }
        assert!(total > 100_000, "visited {total} nodes");
    }

    #[test]
    fn fast_leaf_counts_equal_making_every_move_along_random_games() {
        // Random games reach far more checks and mates than the trees above: the mate
        // shortcut (a flight the move cannot reach) is checked against the full mate test.
        let mut rng = crate::movegen::tests::Rng(0x5EED_5747_0001);
        let mut total = PerftStats::default();
        for fen in crate::movegen::tests::FENS {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..40 {
                let mut pos = start;
                for _ in 0..120 {
                    let fast = leaf_stats(&pos);
                    assert_eq!(fast, leaf_stats_by_making(&pos), "{}", pos.fen());
                    total += fast;
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play_unchecked(moves[rng.below(moves.len())]);
                }
            }
        }
        assert!(
            total.checks() > 20_000 && total.total_mates() > 500,
            "{} checks, {} mates",
            total.checks(),
            total.total_mates()
        );
    }

    #[test]
    fn two_ply_counts_equal_making_every_child_along_random_games() {
        // The last two plies share the opponent's pins and the view of our king between
        // siblings (`Siblings`): every child, kept or made the plain way, is checked against
        // making and classifying each of its moves.
        let mut rng = crate::movegen::tests::Rng(0x5EED_5747_0002);
        let (mut kept, mut plain, mut checks) = (0, 0, 0);
        for fen in crate::movegen::tests::FENS {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..12 {
                let mut pos = start;
                for _ in 0..100 {
                    let moves = pos.legal_moves();
                    let siblings = Siblings::new(&pos);
                    let mut expected = PerftStats::default();
                    for mv in moves.iter() {
                        expected += leaf_stats_by_making(&pos.after(*mv));
                        if !mv.is_castle() && !mv.is_en_passant() && mv.promotion_role().is_none() {
                            let role = pos.role_on(mv.from()).unwrap();
                            if siblings.lines.kept_by(pos.turn(), role, mv.from(), mv.to()) {
                                kept += 1;
                            } else {
                                plain += 1;
                            }
                        }
                    }
                    assert_eq!(perft_stats(&pos, 2), expected, "{}", pos.fen());
                    checks += expected.checks();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play_unchecked(moves[rng.below(moves.len())]);
                }
            }
        }
        // Both ways are taken often, and many leaves check, so all of it is compared.
        assert!(
            kept > 100_000 && plain > 20_000 && checks > 50_000,
            "{kept} kept, {plain} plain, {checks} checks"
        );
    }

    #[test]
    fn start_position_depth_4_matches_published_counts() {
        let s = perft_stats(&Position::startpos(), 4);
        assert_eq!(s.nodes, 197_281);
        assert_eq!(s.captures, 1576);
        assert_eq!(s.direct_checks, 461);
        assert_eq!(s.direct_mates, 8);
        assert_eq!(s.checks(), 469);
    }

    #[test]
    fn arithmetic_and_derived_fields() {
        let s = PerftStats {
            nodes: 100,
            captures: 10,
            enpassants: 1,
            castles: 2,
            promotions: 3,
            direct_checks: 5,
            single_discovered_checks: 4,
            direct_discovered_checks: 3,
            double_discovered_checks: 2,
            direct_mates: 1,
            single_discovered_mates: 6,
            direct_discovered_mates: 7,
            double_discovered_mates: 8,
        };
        assert_eq!(s.total_checks(), 14);
        assert_eq!(s.total_mates(), 22);
        assert_eq!(s.checks(), 36);
        assert_eq!(s.discovered_checks(), 4 + 2 + 6 + 8);
        assert_eq!(s.double_checks(), 3 + 2 + 7 + 8);
        assert_eq!(s.check_mates(), 22);
        assert_eq!(s.cpw_discovery_checks(), 4);
        assert_eq!(s.cpw_double_checks(), 5);
        assert_eq!(s.cpw_checkmates(), 22);
        let sum = s + s * 2;
        assert_eq!(sum, s * 3);
        assert_eq!(sum.nodes, 300);
        assert_eq!(sum.double_discovered_mates, 24);
        assert_eq!([s, s, s].into_iter().sum::<PerftStats>(), sum);
        assert_eq!(PerftStats::from_array(s.to_array()), s);
    }
}
