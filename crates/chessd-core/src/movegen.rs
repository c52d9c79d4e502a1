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

#[inline(always)]
const fn pawn_push(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => Bitboard(b.0 << 8),
        Color::Black => Bitboard(b.0 >> 8),
    }
}

impl Position {
    /// King targets that are not attacked once the king has left its square.
    #[inline(always)]
    fn king_targets(&self, king: Square, ours: Bitboard) -> Bitboard {
        let them = !self.turn;
        let occ = self.occupied() - king;
        let mut safe = Bitboard::EMPTY;
        for to in king_attacks(king) - ours {
            if !self.is_attacked(to, them, occ) {
                safe |= to;
            }
        }
        safe
    }

    /// The squares a move must land on: anywhere not our own when not in check, the checker
    /// or a blocking square in single check.
    #[inline(always)]
    fn check_mask(&self, king: Square, ours: Bitboard) -> Bitboard {
        match self.checkers.single_square() {
            Some(checker) => between(king, checker) | checker,
            None => !ours,
        }
    }

    /// Castling rook squares for which castling is legal now.
    fn castling_targets(&self, king: Square) -> Bitboard {
        let us = self.turn;
        let mut out = Bitboard::EMPTY;
        if self.checkers.nonempty() {
            return out;
        }
        let occ = self.occupied();
        for rook in self.castling & back_rank(us) & self.pieces(us, Role::Rook) {
            let mv = Move::castle(king, rook);
            let king_to = mv.king_destination();
            let rook_to = mv.rook_destination().unwrap_or(rook);
            let others = occ - king - rook;
            let path = between(king, king_to) | king_to | between(rook, rook_to) | rook_to;
            if path.intersects(others) {
                continue;
            }
            let king_path = between(king, king_to) | king_to;
            if king_path
                .without(king_to)
                .into_iter()
                .any(|sq| self.is_attacked(sq, !us, occ))
            {
                continue;
            }
            let after = others | king_to | rook_to;
            if self.is_attacked(king_to, !us, after) {
                continue;
            }
            out |= rook;
        }
        out
    }

    /// Calls `visit` with each group of legal moves; stops early and returns `true` as soon as
    /// `visit` returns `true`.
    #[inline]
    pub fn generate_moves(&self, mut visit: impl FnMut(PieceMoves) -> bool) -> bool {
        let us = self.turn;
        let ours = self.by_color(us);
        let theirs = self.by_color(!us);
        let occ = ours | theirs;
        let king = self.king(us);

        let king_to = self.king_targets(king, ours);
        if king_to.nonempty()
            && visit(PieceMoves {
                role: Role::King,
                from: king,
                to: king_to,
                kind: MoveGroupKind::Normal,
            })
        {
            return true;
        }
        if self.checkers.more_than_one() {
            return false;
        }
        let target = self.check_mask(king, ours);
        let in_check = self.checkers.nonempty();
        // In check a pinned piece can never help: it may neither block nor capture.
        let movable = if in_check { ours - self.pinned } else { ours };

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

        for from in self.pieces(us, Role::Knight) & movable - self.pinned {
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
        let double_from = Bitboard::rank(Rank::new(1).relative(us));
        for from in self.pieces(us, Role::Pawn) & movable {
            let one = pawn_push(us, Bitboard::from_square(from)) - occ;
            let two = pawn_push(us, one & pawn_push(us, double_from)) - occ;
            let mut to = ((one | two) | (pawn_attacks(us, from) & theirs)) & target;
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

        if !in_check && (self.castling & back_rank(us)).nonempty() {
            emit!(
                Role::King,
                king,
                self.castling_targets(king),
                MoveGroupKind::Castle
            );
        }
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

    /// The number of legal moves (without building a list).
    #[inline]
    pub fn count_legal(&self) -> usize {
        let mut n = 0;
        self.generate_moves(|group| {
            n += group.len();
            false
        });
        n
    }

    /// Whether the side to move has at least one legal move.
    #[inline]
    pub fn has_legal_moves(&self) -> bool {
        self.generate_moves(|_| true)
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
