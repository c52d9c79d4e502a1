//! Why a move given by its squares is not legal: [`IllegalReason`] and
//! [`Position::why_illegal`].
//!
//! The classification follows the order in which a move fails: whose piece is on the origin,
//! where the piece can go by its movement rules, whether the move leaves the king in check,
//! and last whether the promotion piece fits. A move wrong in several ways gets the first
//! reason in that order (`e2e5q` from the start position is [`IllegalReason::CannotMoveThere`],
//! `e2e4q` is [`IllegalReason::BadPromotion`]).

use std::fmt;

use crate::{
    attacks::{attacks, king_attacks, pawn_attacks},
    position::back_rank,
    Move, MoveKind, Position, Rank, Role, Square,
};

/// Why a move is not legal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum IllegalReason {
    /// There is no piece on the origin square.
    NoPiece,
    /// The piece on the origin square belongs to the side not to move.
    WrongSide,
    /// The origin and the target are the same square.
    SameSquare,
    /// The target holds a piece of the side to move (castling written as the king taking its
    /// own rook is castling, not this).
    OwnPiece,
    /// The piece could go there by its movement rules, but the move would leave or put the
    /// mover's own king in check (pinned pieces, en passant uncovering a check, a king moving
    /// into check, castling out of, through or into check).
    OwnKingInCheck,
    /// The piece cannot go there by its movement rules: wrong pattern, a blocked path, no
    /// castling right, a pawn capturing onto an empty square that is not the en-passant
    /// square, and so on.
    CannotMoveThere,
    /// A promotion piece was given for a move that is not a promotion, or the piece is a king
    /// or a pawn.
    BadPromotion,
    /// A pawn move to the last rank was given without a promotion piece.
    MissingPromotion,
}

impl IllegalReason {
    /// Every reason, in the order a move is checked.
    pub const ALL: [IllegalReason; 8] = [
        IllegalReason::NoPiece,
        IllegalReason::WrongSide,
        IllegalReason::SameSquare,
        IllegalReason::OwnPiece,
        IllegalReason::CannotMoveThere,
        IllegalReason::OwnKingInCheck,
        IllegalReason::BadPromotion,
        IllegalReason::MissingPromotion,
    ];

    /// A short snake_case name, stable for logs and APIs (the same as the serde form).
    pub const fn name(self) -> &'static str {
        match self {
            IllegalReason::NoPiece => "no_piece",
            IllegalReason::WrongSide => "wrong_side",
            IllegalReason::SameSquare => "same_square",
            IllegalReason::OwnPiece => "own_piece",
            IllegalReason::OwnKingInCheck => "own_king_in_check",
            IllegalReason::CannotMoveThere => "cannot_move_there",
            IllegalReason::BadPromotion => "bad_promotion",
            IllegalReason::MissingPromotion => "missing_promotion",
        }
    }

    /// How far a move got before it failed (used to pick the most telling reason among
    /// several pieces a SAN move could mean).
    pub(crate) const fn progress(self) -> u8 {
        match self {
            IllegalReason::NoPiece | IllegalReason::WrongSide | IllegalReason::SameSquare => 0,
            IllegalReason::OwnPiece | IllegalReason::CannotMoveThere => 1,
            IllegalReason::OwnKingInCheck => 2,
            IllegalReason::BadPromotion | IllegalReason::MissingPromotion => 3,
        }
    }
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalReason::NoPiece => "there is no piece on the origin square",
            IllegalReason::WrongSide => "the piece on the origin square is not the mover's",
            IllegalReason::SameSquare => "the origin and the target are the same square",
            IllegalReason::OwnPiece => "the target square holds one of the mover's own pieces",
            IllegalReason::OwnKingInCheck => "the move would leave the mover's king in check",
            IllegalReason::CannotMoveThere => "the piece cannot move to the target square",
            IllegalReason::BadPromotion => {
                "the promotion piece does not fit: not a promotion, or not a knight, bishop, \
                 rook or queen"
            }
            IllegalReason::MissingPromotion => {
                "a pawn move to the last rank needs a promotion piece"
            }
        })
    }
}

impl Position {
    /// Why the move from `from` to `to` (with an optional promotion role) is not legal, or
    /// `None` when it is.
    ///
    /// The move is read as [`Position::move_from_squares`] and [`Position::parse_uci`] read it:
    /// castling as the king's move to its castling square (`e1g1`) or as the king taking its
    /// own rook (`e1h1`, Chess960 style), and a pawn move to the last rank needs a knight,
    /// bishop, rook or queen. So `why_illegal(..).is_none()` exactly when
    /// `move_from_squares(..)` is `Ok`. Meant for refused moves: it may generate the legal
    /// moves once or twice.
    ///
    /// The position keeps an en-passant square only while the capture is legal, except the
    /// square a FEN named. An en-passant capture refused because it would uncover a check is
    /// therefore [`IllegalReason::OwnKingInCheck`] when the FEN named the square, and
    /// [`IllegalReason::CannotMoveThere`] in a bare position reached by moves;
    /// [`crate::game::Game::why_illegal`] (and the errors of a game's moves) know the last
    /// move and say [`IllegalReason::OwnKingInCheck`] there too.
    ///
    /// ```
    /// use chessd_core::{FenMode, IllegalReason, Position, Role, Square};
    ///
    /// let start = Position::startpos();
    /// assert_eq!(start.why_illegal(Square::E2, Square::E4, None), None);
    /// assert_eq!(
    ///     start.why_illegal(Square::E3, Square::E4, None),
    ///     Some(IllegalReason::NoPiece)
    /// );
    /// assert_eq!(
    ///     start.why_illegal(Square::E7, Square::E5, None),
    ///     Some(IllegalReason::WrongSide)
    /// );
    /// assert_eq!(
    ///     start.why_illegal(Square::A1, Square::A3, None),
    ///     Some(IllegalReason::CannotMoveThere)
    /// );
    /// assert_eq!(
    ///     start.why_illegal(Square::B2, Square::B3, Some(Role::Queen)),
    ///     Some(IllegalReason::BadPromotion)
    /// );
    ///
    /// // The knight on d2 is pinned by the bishop on b4.
    /// let pinned = Position::from_fen(
    ///     "rnbqk1nr/pppp1ppp/8/4p3/1b1P4/8/PPPNPPPP/R1BQKBNR w KQkq - 2 3",
    ///     FenMode::Strict,
    /// )
    /// .unwrap();
    /// assert_eq!(
    ///     pinned.why_illegal(Square::D2, Square::F3, None),
    ///     Some(IllegalReason::OwnKingInCheck)
    /// );
    /// ```
    pub fn why_illegal(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Option<IllegalReason> {
        let us = self.turn();
        let Some(piece) = self.piece_on(from) else {
            return Some(IllegalReason::NoPiece);
        };
        if piece.color != us {
            return Some(IllegalReason::WrongSide);
        }
        if from == to {
            return Some(IllegalReason::SameSquare);
        }
        if piece.role == Role::King {
            if let Some(reason) = self.why_king_cannot(from, to) {
                return Some(reason);
            }
        } else {
            if self.by_color(us).contains(to) {
                return Some(IllegalReason::OwnPiece);
            }
            let Some(mv) = self.by_movement(piece.role, from, to) else {
                return Some(IllegalReason::CannotMoveThere);
            };
            if !self.is_legal(mv) {
                return Some(IllegalReason::OwnKingInCheck);
            }
        }
        let promotes = piece.role == Role::Pawn && to.rank() == Rank::new(7).relative(us);
        match promotion {
            None if promotes => Some(IllegalReason::MissingPromotion),
            None => None,
            Some(Role::Knight | Role::Bishop | Role::Rook | Role::Queen) if promotes => None,
            Some(_) => Some(IllegalReason::BadPromotion),
        }
    }

    /// Why the encoded move `mv` is not legal, or `None` when it is.
    ///
    /// As [`Position::why_illegal`] for the move's squares and promotion role; a move legal by
    /// its squares but encoded as another kind (a normal move where castling or en passant is
    /// meant) is [`IllegalReason::OwnPiece`] when it would take one of the mover's pieces and
    /// [`IllegalReason::CannotMoveThere`] otherwise.
    ///
    /// ```
    /// use chessd_core::{IllegalReason, Move, Position, Square};
    ///
    /// let start = Position::startpos();
    /// let push = Move::normal(Square::E2, Square::E4);
    /// assert_eq!(start.why_illegal_move(push), None);
    /// assert_eq!(
    ///     start.why_illegal_move(Move::normal(Square::E2, Square::E5)),
    ///     Some(IllegalReason::CannotMoveThere)
    /// );
    /// ```
    pub fn why_illegal_move(&self, mv: Move) -> Option<IllegalReason> {
        if self.is_legal(mv) {
            return None;
        }
        let (from, to) = (mv.from(), mv.to());
        let ours = self.by_color(self.turn());
        if mv.kind() != MoveKind::Castle && from != to && ours.contains(from) && ours.contains(to) {
            return Some(IllegalReason::OwnPiece);
        }
        Some(
            self.why_illegal(from, to, mv.promotion_role())
                .unwrap_or(IllegalReason::CannotMoveThere),
        )
    }

    /// The move (as encoded for [`Position::is_legal`]) of a pawn, knight, bishop, rook or
    /// queen of the side to move from `from` to `to` (not one of its own pieces) if its
    /// movement rules allow it, ignoring checks. Pawn moves to the last rank are encoded as
    /// queen promotions (the promotion role does not change legality).
    fn by_movement(&self, role: Role, from: Square, to: Square) -> Option<Move> {
        let us = self.turn();
        let occ = self.occupied();
        let normal = Move::normal(from, to);
        if role != Role::Pawn {
            return attacks(role, us, from, occ).contains(to).then_some(normal);
        }
        let forward: i32 = if us == crate::Color::White { 8 } else { -8 };
        let promotes = to.rank() == Rank::new(7).relative(us);
        let step = if promotes {
            Move::promotion(from, to, Role::Queen)
        } else {
            normal
        };
        if pawn_attacks(us, from).contains(to) {
            if self.by_color(!us).contains(to) {
                return Some(step);
            }
            let ep = self.ep_square() == Some(to)
                || (self.fen_ep_square() == Some(to)
                    && to.rank() == Rank::new(5).relative(us)
                    && self
                        .pieces(!us, Role::Pawn)
                        .contains(Square::new(to.index() as u32 ^ 8)));
            return ep.then(|| Move::en_passant(from, to));
        }
        let single = from.offset(forward)?;
        if occ.contains(single) {
            return None;
        }
        if to == single {
            return Some(step);
        }
        let double = single.offset(forward)?;
        (to == double && from.rank() == Rank::new(1).relative(us) && !occ.contains(double))
            .then_some(normal)
    }

    /// Why the king of the side to move on `from` cannot go to `to` (another square), or
    /// `None` when it can: an ordinary king move, castling as king-takes-rook, or castling as
    /// the king's move to its castling square.
    fn why_king_cannot(&self, from: Square, to: Square) -> Option<IllegalReason> {
        let us = self.turn();
        let rights = self.castling_rooks() & self.pieces(us, Role::Rook) & back_rank(us);
        if rights.contains(to) {
            return self.why_castling_fails(from, to);
        }
        let mut reason = None;
        if king_attacks(from).contains(to) && !self.by_color(us).contains(to) {
            if self.is_legal(Move::normal(from, to)) {
                return None;
            }
            reason = Some(IllegalReason::OwnKingInCheck);
        }
        for rook in rights {
            if Move::castle(from, rook).king_destination() == to {
                match self.why_castling_fails(from, rook) {
                    None => return None,
                    Some(r) => reason = reason.or(Some(r)),
                }
            }
        }
        reason.or(Some(if self.by_color(us).contains(to) {
            IllegalReason::OwnPiece
        } else {
            IllegalReason::CannotMoveThere
        }))
    }

    /// Why castling with the king on `king` and the rook on `rook` (which has a castling
    /// right) fails, or `None` when it is legal: a piece in the way is
    /// [`IllegalReason::CannotMoveThere`], anything else is a check rule.
    fn why_castling_fails(&self, king: Square, rook: Square) -> Option<IllegalReason> {
        if self.is_legal(Move::castle(king, rook)) {
            None
        } else if self
            .castle_candidates(self.turn(), king, self.occupied(), false)
            .contains(rook)
        {
            Some(IllegalReason::OwnKingInCheck)
        } else {
            Some(IllegalReason::CannotMoveThere)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::FenMode;

    #[test]
    fn names_and_all_agree() {
        let names: Vec<&str> = IllegalReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            [
                "no_piece",
                "wrong_side",
                "same_square",
                "own_piece",
                "cannot_move_there",
                "own_king_in_check",
                "bad_promotion",
                "missing_promotion"
            ]
        );
        for r in IllegalReason::ALL {
            assert!(!r.to_string().is_empty());
        }
    }

    /// `why_illegal` is `None` exactly when `move_from_squares` finds the move, for every
    /// square pair and promotion choice, along random games from tricky positions.
    #[test]
    fn agrees_with_move_from_squares() {
        let mut rng = 0x1234_5678_9ABC_DEF1u64;
        let mut next = move || {
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            (rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize
        };
        let promotions = [
            None,
            Some(Role::Queen),
            Some(Role::Knight),
            Some(Role::King),
            Some(Role::Pawn),
        ];
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "1rk1r3/pppppppp/8/8/8/8/PPPPPPPP/1RK1R3 w BEbe - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        ] {
            let mut pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..30 {
                for from in Square::all() {
                    for to in Square::all() {
                        for promotion in promotions {
                            let found = pos.move_from_squares(from, to, promotion);
                            let why = pos.why_illegal(from, to, promotion);
                            assert_eq!(
                                found.is_ok(),
                                why.is_none(),
                                "{} {from}{to} {promotion:?}: {why:?}",
                                pos.fen()
                            );
                        }
                    }
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &mv in moves.iter() {
                    assert_eq!(pos.why_illegal_move(mv), None);
                }
                pos.play_unchecked(moves[next() % moves.len()]);
            }
        }
    }
}
