//! Legal move generation with check and pin masks (no make-and-test).
//!
//! Moves are handed out grouped by origin square as [`PieceMoves`] through a callback, so that
//! counting (bulk perft) is a popcount per piece and needs no move list.

use crate::{
    attacks::{bishop_attacks, knight_attacks, line, pawn_attacks, queen_attacks, rook_attacks},
    Bitboard, Color, Move, MoveList, Position, Rank, Role, Square,
};

mod castling;
mod count;
mod has_moves;
mod king;
pub(crate) mod pawns;
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

/// The squares `us`'s pawns promote from: their seventh rank.
#[inline(always)]
fn promotion_from(us: Color) -> Bitboard {
    Bitboard::rank(Rank::new(6).relative(us))
}

impl Position {
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

    /// [`Position::generate_moves`] for the side to move `us`.
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

        let promotion_from = promotion_from(us);
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

    /// The legal moves of the piece on `from`, a knight, bishop, rook, queen or pawn of the
    /// side to move, en passant left out: its group in [`Position::generate_moves`] (a pawn on
    /// its seventh rank as promotions), worked out for that one piece instead of every piece.
    /// SAN uses it to check a move and to find which other pieces could go to the same square.
    pub(crate) fn piece_moves(&self, from: Square, role: Role) -> PieceMoves {
        let us = self.turn;
        let kind = if role == Role::Pawn && promotion_from(us).contains(from) {
            MoveGroupKind::Promotion
        } else {
            MoveGroupKind::Normal
        };
        PieceMoves {
            role,
            from,
            to: self.piece_targets(us, from, role),
            kind,
        }
    }

    /// The targets of [`Position::piece_moves`].
    fn piece_targets(&self, us: Color, from: Square, role: Role) -> Bitboard {
        let ours = self.by_color(us);
        if !ours.contains(from) || role == Role::King || self.checkers.more_than_one() {
            return Bitboard::EMPTY;
        }
        let pinned = self.pinned.contains(from);
        // As in `generate_moves_as`: in check a pinned piece can never help, and a pinned
        // knight never moves.
        if pinned && (self.checkers.nonempty() || role == Role::Knight) {
            return Bitboard::EMPTY;
        }
        let king = self.king(us);
        let occ = ours | self.by_color(!us);
        let mut to = match role {
            Role::Knight => knight_attacks(from),
            Role::Bishop => bishop_attacks(from, occ),
            Role::Rook => rook_attacks(from, occ),
            Role::Queen => queen_attacks(from, occ),
            _ => self.pawn_targets(us, from, occ, self.by_color(!us)),
        } & self.check_mask(king, ours);
        if pinned {
            to &= line(king, from);
        }
        to
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

    /// Starts rich in lines, pins, checks, en passant and promotions (the start position and
    /// four of the standard perft suite's), for tests that play random games from them.
    pub(crate) const RICH_STARTS: [&str; 5] = [
        crate::START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];

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
