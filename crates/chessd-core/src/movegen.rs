//! Legal move generation with check and pin masks (no make-and-test).
//!
//! Moves are handed out grouped by origin square as [`PieceMoves`] through a callback, so that
//! counting (bulk perft) is a popcount per piece and needs no move list.

use crate::{
    attacks::{
        between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks,
        rook_attacks,
    },
    position::back_rank,
    Bitboard, Color, Move, MoveList, Position, Rank, Role, Square,
};

mod replies;

pub(crate) use replies::{PinLines, ReplyCounter};

/// How the moves of a [`PieceMoves`] group are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveGroupKind {
    /// Plain moves and captures.
    Normal,
    /// Pawn moves to the last rank: each target square stands for four promotions.
    Promotion,
    /// Castling: each target is the square of the castling rook.
    Castle,
    /// An en-passant capture onto the (single) target square.
    EnPassant,
}

/// The legal moves of one piece, sharing an origin square and a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceMoves {
    /// The moving piece's role.
    pub role: Role,
    /// The origin square.
    pub from: Square,
    /// The target squares.
    pub to: Bitboard,
    /// How to read the targets.
    pub kind: MoveGroupKind,
}

impl PieceMoves {
    /// The number of moves in the group (promotions count four each).
    #[inline]
    pub fn len(&self) -> usize {
        let n = self.to.count() as usize;
        if self.kind == MoveGroupKind::Promotion {
            n * 4
        } else {
            n
        }
    }

    /// Whether the group holds no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }

    /// Whether `mv` belongs to this group.
    pub fn contains(&self, mv: Move) -> bool {
        if mv.from() != self.from || !self.to.contains(mv.to()) {
            return false;
        }
        match self.kind {
            MoveGroupKind::Normal => matches!(mv.kind(), crate::MoveKind::Normal),
            MoveGroupKind::Promotion => matches!(
                mv.promotion_role(),
                Some(Role::Knight | Role::Bishop | Role::Rook | Role::Queen)
            ),
            MoveGroupKind::Castle => mv.is_castle(),
            MoveGroupKind::EnPassant => mv.is_en_passant(),
        }
    }
}

/// Iterator over the moves of a [`PieceMoves`] group.
#[derive(Clone, Debug)]
pub struct PieceMovesIter {
    group: PieceMoves,
    promotion: usize,
}

impl Iterator for PieceMovesIter {
    type Item = Move;
    #[inline]
    fn next(&mut self) -> Option<Move> {
        let g = &mut self.group;
        let to = g.to.first()?;
        Some(match g.kind {
            MoveGroupKind::Normal => {
                g.to = g.to.without(to);
                Move::normal(g.from, to)
            }
            MoveGroupKind::Castle => {
                g.to = g.to.without(to);
                Move::castle(g.from, to)
            }
            MoveGroupKind::EnPassant => {
                g.to = g.to.without(to);
                Move::en_passant(g.from, to)
            }
            MoveGroupKind::Promotion => {
                let role = Role::PROMOTIONS[self.promotion];
                self.promotion += 1;
                if self.promotion == 4 {
                    self.promotion = 0;
                    g.to = g.to.without(to);
                }
                Move::promotion(g.from, to, role)
            }
        })
    }
}

impl IntoIterator for PieceMoves {
    type Item = Move;
    type IntoIter = PieceMovesIter;
    fn into_iter(self) -> PieceMovesIter {
        PieceMovesIter {
            group: self,
            promotion: 0,
        }
    }
}

/// The legal moves of a set of pawns, by kind, as their target squares: one move per square of
/// each set (a square in both `west` and `east` is reached by two pawns). See
/// [`Position::pawn_sets`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct PawnSets {
    /// Targets of single pushes.
    pub single: Bitboard,
    /// Targets of double pushes.
    pub double: Bitboard,
    /// Targets of captures towards the a-file.
    pub west: Bitboard,
    /// Targets of captures towards the h-file.
    pub east: Bitboard,
}

#[inline(always)]
const fn pawn_push(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => Bitboard(b.0 << 8),
        Color::Black => Bitboard(b.0 >> 8),
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Squares the pawns `b` of `color` attack towards the a-file.
#[inline(always)]
const fn pawn_attacks_west(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => Bitboard((b.0 & !FILE_A) << 7),
        Color::Black => Bitboard((b.0 & !FILE_A) >> 9),
    }
}

/// Squares the pawns `b` of `color` attack towards the h-file.
#[inline(always)]
const fn pawn_attacks_east(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => Bitboard((b.0 & !FILE_H) << 9),
        Color::Black => Bitboard((b.0 & !FILE_H) >> 7),
    }
}

/// Every square the pawns `b` of `color` attack.
#[inline(always)]
const fn pawn_attacks_set(color: Color, b: Bitboard) -> Bitboard {
    Bitboard(pawn_attacks_west(color, b).0 | pawn_attacks_east(color, b).0)
}

/// Bits `low..=high` of a rank (`low <= high < 8`).
const fn rank_span(low: usize, high: usize) -> u8 {
    ((0xFFu16 >> (7 - high)) & (0xFFu16 << low)) as u8
}

/// Castling masks by king file and rook file, relative to the back rank: the span of squares
/// king and rook cross or land on (including their own squares; it must be empty apart from
/// them), and the squares the king crosses or lands on (which must not be attacked).
const fn castling_masks() -> [[(u8, u8); 8]; 8] {
    let mut table = [[(0u8, 0u8); 8]; 8];
    let mut k = 0;
    while k < 8 {
        let mut r = 0;
        while r < 8 {
            if k != r {
                let (kt, rt) = if r > k { (6, 5) } else { (2, 3) };
                let low = min4(k, r, kt, rt);
                let high = max4(k, r, kt, rt);
                let king_path = if kt > k {
                    rank_span(k + 1, kt)
                } else if kt < k {
                    rank_span(kt, k - 1)
                } else {
                    1 << k
                };
                table[k][r] = (rank_span(low, high), king_path);
            }
            r += 1;
        }
        k += 1;
    }
    table
}

const fn min4(a: usize, b: usize, c: usize, d: usize) -> usize {
    let ab = if a < b { a } else { b };
    let cd = if c < d { c } else { d };
    if ab < cd {
        ab
    } else {
        cd
    }
}

const fn max4(a: usize, b: usize, c: usize, d: usize) -> usize {
    let ab = if a > b { a } else { b };
    let cd = if c > d { c } else { d };
    if ab > cd {
        ab
    } else {
        cd
    }
}

static CASTLING_MASKS: [[(u8, u8); 8]; 8] = castling_masks();

/// By king file and back-rank occupancy: the rook files for which the castling span holds no
/// piece but the king and that rook.
const fn castling_clear() -> [[u8; 256]; 8] {
    let masks = castling_masks();
    let mut table = [[0u8; 256]; 8];
    let mut k = 0;
    while k < 8 {
        let mut occ = 0;
        while occ < 256 {
            let mut r = 0;
            while r < 8 {
                let span = masks[k][r].0 as usize;
                if r != k && span & occ == (1 << k) | (1 << r) {
                    table[k][occ] |= 1 << r;
                }
                r += 1;
            }
            occ += 1;
        }
        k += 1;
    }
    table
}

static CASTLING_CLEAR: [[u8; 256]; 8] = castling_clear();

/// The number of moves onto `to`, counting moves onto the last rank four times.
#[inline(always)]
fn count_with_promotions(to: Bitboard, last_rank: Bitboard) -> usize {
    (to.count() + 3 * (to & last_rank).count()) as usize
}

/// The number of moves of the unpinned `pawns` of `us`, set-wise: pushes onto `empty` squares and
/// captures of `victims`, each landing on `target`; a promotion counts four.
#[inline(always)]
fn count_pawn_moves(
    us: Color,
    pawns: Bitboard,
    empty: Bitboard,
    victims: Bitboard,
    target: Bitboard,
) -> usize {
    let last_rank = back_rank(!us);
    let single = pawn_push(us, pawns) & empty;
    let double = pawn_push(us, single & Bitboard::rank(Rank::new(2).relative(us))) & empty & target;
    let single = single & target;
    let victims = victims & target;
    let west = pawn_attacks_west(us, pawns) & victims;
    let east = pawn_attacks_east(us, pawns) & victims;
    let mut n = (single.count() + double.count() + west.count() + east.count()) as usize;
    if (single | west | east).intersects(last_rank) {
        n += 3
            * ((single & last_rank).count()
                + (west & last_rank).count()
                + (east & last_rank).count()) as usize;
    }
    n
}

impl Position {
    /// Whether the opponent of `us` attacks `sq` with `occupied` as blockers (branch-free).
    #[inline(always)]
    fn attacked_by_them(&self, us: Color, sq: Square, occupied: Bitboard) -> bool {
        let queens = self.by_role(Role::Queen);
        let attackers = (knight_attacks(sq) & self.by_role(Role::Knight))
            | (pawn_attacks(us, sq) & self.by_role(Role::Pawn))
            | (king_attacks(sq) & self.by_role(Role::King))
            | (rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens))
            | (bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens));
        attackers.intersects(self.by_color(!us))
    }

    /// Every square the opponent of `us` attacks, with `occupied` as blockers.
    #[inline(always)]
    fn attacked_squares_by_them(&self, us: Color, occupied: Bitboard) -> Bitboard {
        let them = !us;
        let theirs = self.by_color(them);
        let mut a = pawn_attacks_set(them, self.by_role(Role::Pawn) & theirs)
            | king_attacks(self.king(them));
        for sq in self.by_role(Role::Knight) & theirs {
            a |= knight_attacks(sq);
        }
        let queens = self.by_role(Role::Queen);
        for sq in (self.by_role(Role::Bishop) | queens) & theirs {
            a |= bishop_attacks(sq, occupied);
        }
        for sq in (self.by_role(Role::Rook) | queens) & theirs {
            a |= rook_attacks(sq, occupied);
        }
        a
    }

    /// The squares a move must land on: anywhere not our own when not in check, the checker
    /// or a blocking square in single check.
    #[inline(always)]
    pub(crate) fn check_mask(&self, king: Square, ours: Bitboard) -> Bitboard {
        match self.checkers.single_square() {
            Some(checker) => between(king, checker) | checker,
            None => !ours,
        }
    }

    /// For castling with `rook`: the squares the king crosses or lands on, and the king's and
    /// rook's destinations.
    #[inline(always)]
    fn castling_path(king: Square, rook: Square) -> (Bitboard, Square, Square) {
        let rank_base = king.index() as u32 & 56;
        let king_path = CASTLING_MASKS[king.index() & 7][rook.index() & 7].1;
        let kingside = rook.index() > king.index();
        let king_to = Square::new(rank_base + if kingside { 6 } else { 2 });
        let rook_to = Square::new(rank_base + if kingside { 5 } else { 3 });
        (
            Bitboard(u64::from(king_path) << rank_base),
            king_to,
            rook_to,
        )
    }

    /// The rooks of `us` that castling rights and an empty span (looked up by king file and
    /// back-rank occupancy) allow castling with, before checking attacked squares.
    #[inline(always)]
    pub(crate) fn castle_candidates(
        &self,
        us: Color,
        king: Square,
        occ: Bitboard,
        in_check: bool,
    ) -> Bitboard {
        let rank_shift = back_rank(us).0.trailing_zeros();
        let rights = ((self.castling & self.pieces(us, Role::Rook)).0 >> rank_shift) as u8;
        if in_check || rights == 0 || king.index() as u32 & 56 != rank_shift {
            return Bitboard::EMPTY;
        }
        let clear = CASTLING_CLEAR[king.index() & 7][(occ.0 >> rank_shift) as u8 as usize];
        Bitboard(u64::from(clear & rights) << rank_shift)
    }

    /// Whether castling with `rook` (a candidate) is safe, given the squares the opponent
    /// attacks.
    ///
    /// Not being in check, no slider ray passes through the king's square, so the present
    /// occupancy decides for every square the king crosses or lands on, except that the rook
    /// leaving its square may open a line onto the king's destination; that needs a look only
    /// when the rook does not stand on the a- or h-file (Chess960).
    #[inline(always)]
    fn castle_is_safe(
        &self,
        us: Color,
        king: Square,
        rook: Square,
        occ: Bitboard,
        danger: Bitboard,
    ) -> bool {
        let (king_path, king_to, rook_to) = Position::castling_path(king, rook);
        if king_path.intersects(danger) {
            return false;
        }
        let file = rook.index() & 7;
        file == 0
            || file == 7
            || !self.attacked_by_them(us, king_to, (occ - king - rook) | king_to | rook_to)
    }

    /// The legal king moves of `us` (king on `king`): the safe target squares, and the squares
    /// of the rooks it may castle with.
    #[inline(always)]
    pub(crate) fn king_moves(
        &self,
        us: Color,
        king: Square,
        ours: Bitboard,
        in_check: bool,
    ) -> (Bitboard, Bitboard) {
        let occ = self.occupied();
        let candidates = king_attacks(king) - ours;
        let castle_rooks = self.castle_candidates(us, king, occ, in_check);
        if castle_rooks.is_empty() && !candidates.more_than_one() {
            // Zero or one king target: testing it alone is cheaper than an attack map.
            return match candidates.first() {
                Some(to) if !self.attacked_by_them(us, to, occ - king) => {
                    (candidates, castle_rooks)
                }
                _ => (Bitboard::EMPTY, castle_rooks),
            };
        }
        // The attack map is taken without our king, so that it cannot hide behind itself.
        let danger = self.attacked_squares_by_them(us, occ - king);
        let mut castles = Bitboard::EMPTY;
        for rook in castle_rooks {
            if self.castle_is_safe(us, king, rook, occ, danger) {
                castles |= rook;
            }
        }
        (candidates - danger, castles)
    }

    /// The number of legal king moves of `us`, castling included (as [`Position::king_moves`]).
    #[inline(always)]
    fn count_king_moves(&self, us: Color, king: Square, ours: Bitboard, in_check: bool) -> usize {
        let occ = self.occupied();
        let candidates = king_attacks(king) - ours;
        let castle_rooks = self.castle_candidates(us, king, occ, in_check);
        if castle_rooks.is_empty() && !candidates.more_than_one() {
            return match candidates.first() {
                Some(to) => usize::from(!self.attacked_by_them(us, to, occ - king)),
                None => 0,
            };
        }
        let danger = self.attacked_squares_by_them(us, occ - king);
        let mut n = (candidates - danger).count() as usize;
        for rook in castle_rooks {
            n += usize::from(self.castle_is_safe(us, king, rook, occ, danger));
        }
        n
    }

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

    /// Pushes and captures of the pawn of `us` on `from`, before check and pin masks.
    #[inline(always)]
    pub(crate) fn pawn_targets(
        &self,
        us: Color,
        from: Square,
        occ: Bitboard,
        theirs: Bitboard,
    ) -> Bitboard {
        let one = pawn_push(us, Bitboard::from_square(from)) - occ;
        let two = pawn_push(us, one & Bitboard::rank(Rank::new(2).relative(us))) - occ;
        one | two | (pawn_attacks(us, from) & theirs)
    }

    /// Calls `visit` with each group of legal moves; stops early and returns `true` as soon as
    /// `visit` returns `true`.
    ///
    /// Groups come in this order: king moves, knights, bishops, rooks, queens, pawns (per
    /// origin, promotions as their own kind), en passant, castling.
    #[inline]
    pub fn generate_moves(&self, visit: impl FnMut(PieceMoves) -> bool) -> bool {
        // One copy per side to move, so that colour-dependent shifts and masks are constants.
        match self.turn {
            Color::White => self.generate_moves_as(Color::White, visit),
            Color::Black => self.generate_moves_as(Color::Black, visit),
        }
    }

    /// The pawns of the side to move whose moves can be counted set-wise: not pinned, not
    /// about to promote, not in `except`; none in double check (only the king moves then).
    #[inline]
    pub(crate) fn plain_pawns(&self, except: Bitboard) -> Bitboard {
        if self.checkers.more_than_one() {
            return Bitboard::EMPTY;
        }
        let us = self.turn;
        self.pieces(us, Role::Pawn)
            - self.pinned
            - except
            - Bitboard::rank(Rank::new(6).relative(us))
    }

    /// The legal moves of `pawns` (from [`Position::plain_pawns`]) as target sets.
    #[inline]
    pub(crate) fn pawn_sets(&self, pawns: Bitboard) -> PawnSets {
        let us = self.turn;
        let ours = self.by_color(us);
        let theirs = self.by_color(!us);
        let empty = !(ours | theirs);
        let target = self.check_mask(self.king(us), ours);
        let single = pawn_push(us, pawns) & empty;
        let double =
            pawn_push(us, single & Bitboard::rank(Rank::new(2).relative(us))) & empty & target;
        let captures = theirs & target;
        PawnSets {
            single: single & target,
            double,
            west: pawn_attacks_west(us, pawns) & captures,
            east: pawn_attacks_east(us, pawns) & captures,
        }
    }

    #[inline(always)]
    fn generate_moves_as(&self, us: Color, mut visit: impl FnMut(PieceMoves) -> bool) -> bool {
        let ours = self.by_color(us);
        let theirs = self.by_color(!us);
        let occ = ours | theirs;
        let king = self.king(us);
        let in_check = self.checkers.nonempty();

        macro_rules! emit {
            ($role:expr, $from:expr, $to:expr, $kind:expr) => {{
                let to = $to;
                if to.nonempty()
                    && visit(PieceMoves {
                        role: $role,
                        from: $from,
                        to,
                        kind: $kind,
                    })
                {
                    return true;
                }
            }};
        }

        let (king_to, castles) = self.king_moves(us, king, ours, in_check);
        emit!(Role::King, king, king_to, MoveGroupKind::Normal);
        if self.checkers.more_than_one() {
            return false;
        }
        let target = self.check_mask(king, ours);
        // In check a pinned piece can never help: it may neither block nor capture.
        let movable = if in_check { ours - self.pinned } else { ours };

        for from in self.pieces(us, Role::Knight) & (movable - self.pinned) {
            emit!(
                Role::Knight,
                from,
                knight_attacks(from) & target,
                MoveGroupKind::Normal
            );
        }
        for (role, pieces) in [
            (Role::Bishop, self.pieces(us, Role::Bishop)),
            (Role::Rook, self.pieces(us, Role::Rook)),
            (Role::Queen, self.pieces(us, Role::Queen)),
        ] {
            for from in pieces & movable {
                let mut to = match role {
                    Role::Bishop => bishop_attacks(from, occ),
                    Role::Rook => rook_attacks(from, occ),
                    _ => queen_attacks(from, occ),
                } & target;
                if self.pinned.contains(from) {
                    to &= line(king, from);
                }
                emit!(role, from, to, MoveGroupKind::Normal);
            }
        }

        let promotion_from = Bitboard::rank(Rank::new(6).relative(us));
        for from in self.pieces(us, Role::Pawn) & movable {
            let mut to = self.pawn_targets(us, from, occ, theirs) & target;
            if self.pinned.contains(from) {
                to &= line(king, from);
            }
            let kind = if promotion_from.contains(from) {
                MoveGroupKind::Promotion
            } else {
                MoveGroupKind::Normal
            };
            emit!(Role::Pawn, from, to, kind);
        }

        if let Some(ep) = self.ep_square {
            for from in pawn_attacks(!us, ep) & self.pieces(us, Role::Pawn) {
                if self.en_passant_is_safe(from, ep) {
                    emit!(
                        Role::Pawn,
                        from,
                        Bitboard::from_square(ep),
                        MoveGroupKind::EnPassant
                    );
                }
            }
        }

        emit!(Role::King, king, castles, MoveGroupKind::Castle);
        false
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(|group| {
            for mv in group {
                list.push(mv);
            }
            false
        });
        list
    }

    /// Whether the side to move has at least one legal move.
    ///
    /// Checked piece by piece with an early exit and without the opponent's whole attack map:
    /// king steps one square at a time first (in check, the usual way out), then captures and
    /// blocks. Statistics perft asks this of every checking leaf (the mate test).
    #[inline]
    pub fn has_legal_moves(&self) -> bool {
        match self.turn {
            Color::White => self.has_legal_moves_as(Color::White),
            Color::Black => self.has_legal_moves_as(Color::Black),
        }
    }

    #[inline(always)]
    fn has_legal_moves_as(&self, us: Color) -> bool {
        self.has_king_step_as(us) || self.has_other_legal_moves_as(us)
    }

    /// Whether the king of the side to move can step to a square the opponent does not
    /// attack. Reads the pieces and the side to move only (so it may be asked of a
    /// [`Position::board_after`]).
    #[inline(always)]
    fn has_king_step_as(&self, us: Color) -> bool {
        let ours = self.by_color(us);
        let occ = self.occupied();
        let king = self.king(us);
        for to in king_attacks(king) - ours {
            if !self.attacked_by_them(us, to, occ - king) {
                return true;
            }
        }
        false
    }

    /// Whether the legal move `mv`, which gives check, mates.
    ///
    /// The board alone after the move tells whether the king can step out of check (the usual
    /// way out); only when it cannot is the whole position made for captures and blocks.
    #[inline]
    pub(crate) fn check_mates(&self, mv: Move) -> bool {
        let them = !self.turn;
        if self.board_after(mv).has_king_step_as(them) {
            return false;
        }
        let after = self.after_unhashed(mv);
        !match them {
            Color::White => after.has_other_legal_moves_as(Color::White),
            Color::Black => after.has_other_legal_moves_as(Color::Black),
        }
    }

    /// Whether the side to move has a legal move other than a king step (captures, blocks and,
    /// out of check, any move including castling).
    #[inline(always)]
    fn has_other_legal_moves_as(&self, us: Color) -> bool {
        let ours = self.by_color(us);
        let theirs = self.by_color(!us);
        let occ = ours | theirs;
        let king = self.king(us);
        if self.checkers.more_than_one() {
            return false;
        }
        let in_check = self.checkers.nonempty();
        let target = self.check_mask(king, ours);
        let pinned = self.pinned;
        // In check a pinned piece can neither block nor capture.
        let movable = if in_check { ours - pinned } else { ours };

        for from in self.by_role(Role::Knight) & (ours - pinned) {
            if knight_attacks(from).intersects(target) {
                return true;
            }
        }
        let queens = self.by_role(Role::Queen);
        for from in (self.by_role(Role::Bishop) | queens) & movable {
            let mut to = bishop_attacks(from, occ) & target;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            if to.nonempty() {
                return true;
            }
        }
        for from in (self.by_role(Role::Rook) | queens) & movable {
            let mut to = rook_attacks(from, occ) & target;
            if pinned.contains(from) {
                to &= line(king, from);
            }
            if to.nonempty() {
                return true;
            }
        }

        // Unpinned pawns set-wise (promotions are moves like any other here).
        let pawns = self.by_role(Role::Pawn) & ours;
        let free_pawns = pawns - pinned;
        let empty = !occ;
        let single = pawn_push(us, free_pawns) & empty;
        let double = pawn_push(us, single & Bitboard::rank(Rank::new(2).relative(us))) & empty;
        if ((single | double) & target).nonempty()
            || (pawn_attacks_set(us, free_pawns) & theirs & target).nonempty()
        {
            return true;
        }
        if !in_check {
            for from in pawns & pinned {
                if (self.pawn_targets(us, from, occ, theirs) & line(king, from)).nonempty() {
                    return true;
                }
            }
        }
        if let Some(ep) = self.ep_square {
            for from in pawn_attacks(!us, ep) & pawns {
                if self.en_passant_is_safe(from, ep) {
                    return true;
                }
            }
        }
        // Castling (never in check) with a king that has no step of its own (Chess960).
        !in_check && self.king_moves(us, king, ours, false).1.nonempty()
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.generate_moves(|group| group.contains(mv))
    }

    /// Whether the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// Whether the side to move is stalemated.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::FenMode;

    /// A small deterministic generator (xorshift64*).
    pub(crate) struct Rng(pub(crate) u64);

    impl Rng {
        pub(crate) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }
    }

    pub(crate) const FENS: [&str; 8] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        // Chess960 castling with rooks next to the king.
        "1rk1r3/pppppppp/8/8/8/8/PPPPPPPP/1RK1R3 w BEbe - 0 1",
        // En passant that would expose the king along the rank.
        "8/8/8/KPp4r/8/8/8/6k1 w - c6 0 2",
    ];

    /// Checks every derived field of `pos` against a fresh computation.
    fn assert_consistent(pos: &Position) {
        let mut fresh = *pos;
        fresh.update_checkers_and_pins();
        assert_eq!(fresh.checkers, pos.checkers, "checkers of {}", pos.fen());
        assert_eq!(fresh.pinned, pos.pinned, "pins of {}", pos.fen());
        assert_eq!(pos.compute_hash(), pos.hash(), "hash of {}", pos.fen());
        if let Some(ep) = pos.ep_square() {
            assert!(pos.en_passant_is_legal(ep), "ep square of {}", pos.fen());
        }
    }

    #[test]
    fn count_and_generation_agree_along_random_games() {
        let mut rng = Rng(0x5EED_1234_ABCD_0001);
        let mut positions = 0;
        for fen in FENS {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..40 {
                let mut pos = start;
                for _ in 0..120 {
                    assert_consistent(&pos);
                    let moves = pos.legal_moves();
                    let mut grouped = 0;
                    pos.generate_moves(|group| {
                        assert!(!group.is_empty());
                        grouped += group.len();
                        false
                    });
                    assert_eq!(pos.count_legal(), moves.len(), "count in {}", pos.fen());
                    assert_eq!(grouped, moves.len(), "groups in {}", pos.fen());
                    assert_eq!(pos.has_legal_moves(), !moves.is_empty());
                    positions += 1;
                    if moves.is_empty() {
                        break;
                    }
                    let mv = moves[rng.below(moves.len())];
                    assert!(pos.is_legal(mv), "{mv:?} in {}", pos.fen());
                    let next = pos.after(mv);
                    pos.play_unchecked(mv);
                    assert_eq!(pos, next, "play_unchecked and after differ for {mv:?}");
                }
            }
        }
        assert!(positions > 20_000, "only {positions} positions visited");
    }

    #[test]
    fn castling_rook_leaving_its_square_may_expose_the_king_destination() {
        // Chess960: the b1 rook shields c1 from the a1 queen until it castles to d1.
        let pos = Position::from_fen("7k/8/8/8/8/8/8/qR1K4 w B - 0 1", FenMode::Lenient).unwrap();
        let castle = Move::castle(Square::D1, Square::B1);
        assert!(!pos.is_legal(castle));
        assert!(!pos.legal_moves().contains(&castle));
        let open = Position::from_fen("7k/8/8/8/8/8/8/1R1K4 w B - 0 1", FenMode::Lenient).unwrap();
        assert!(open.is_legal(castle));
        assert_eq!(open.count_legal(), open.legal_moves().len());
        // shakmaty agrees on the number of legal moves in both.
        for (ours, fen) in [
            (pos, "7k/8/8/8/8/8/8/qR1K4 w B - 0 1"),
            (open, "7k/8/8/8/8/8/8/1R1K4 w B - 0 1"),
        ] {
            use shakmaty::Position as _;
            let fen: shakmaty::fen::Fen = fen.parse().unwrap();
            let theirs: shakmaty::Chess =
                fen.into_position(shakmaty::CastlingMode::Chess960).unwrap();
            assert_eq!(ours.count_legal(), theirs.legal_moves().len());
        }
    }

    #[test]
    fn castling_needs_safe_and_empty_squares() {
        // f1 is attacked by the bishop on c4, so only the long castle is legal.
        let pos =
            Position::from_fen("4k3/8/8/8/2b5/8/8/R3K2R w KQ - 0 1", FenMode::Strict).unwrap();
        assert!(!pos.is_legal(Move::castle(Square::E1, Square::H1)));
        assert!(pos.is_legal(Move::castle(Square::E1, Square::A1)));
        // A piece on b1 blocks the long castle even though the king does not cross b1.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1", FenMode::Strict).unwrap();
        assert!(!pos.is_legal(Move::castle(Square::E1, Square::A1)));
        assert!(pos.is_legal(Move::castle(Square::E1, Square::H1)));
    }
}
