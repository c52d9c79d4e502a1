//! UCI move notation (`e2e4`, `e7e8q`, Chess960 king-takes-rook) and square-index moves.
//!
//! Parsing accepts castling both as the king's move to its castling square (`e1g1`, `e1c1`)
//! and as the king taking its own rook (`e1h1`), in standard chess and in Chess960. When the
//! king's castling square is also the target of an ordinary legal king move (Chess960, e.g.
//! king b1, rook a1 and `b1c1`), the ordinary king move wins. Writing follows the position's
//! flavour: the king's two-square move in standard chess, king-takes-rook in Chess960.

use std::fmt;

use crate::{IllegalReason, Move, MoveGroupKind, Position, Rank, Role, Square};

/// Why a UCI or square-index move was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciError {
    /// The text is not of the form `<from><to>[promotion]` (or square indices out of range).
    Syntax(String),
    /// Well formed, but not a legal move in the position: the move as text, and why (see
    /// [`Position::why_illegal`]).
    Illegal(String, IllegalReason),
}

impl UciError {
    /// Why the move is illegal; `None` for a syntax error.
    pub fn reason(&self) -> Option<IllegalReason> {
        match self {
            UciError::Syntax(_) => None,
            UciError::Illegal(_, reason) => Some(*reason),
        }
    }
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::Syntax(s) => {
                write!(f, "'{s}' is not a UCI move (expected e.g. e2e4 or e7e8q)")
            }
            UciError::Illegal(s, why) => {
                write!(f, "{s} is not a legal move in this position: {why}")
            }
        }
    }
}

impl std::error::Error for UciError {}

/// The longest piece of user text echoed back in an error message.
const MAX_ECHO: usize = 40;

/// `text`, cut to at most [`MAX_ECHO`] characters (with `…` when cut), for error messages.
pub(crate) fn echo(text: &str) -> String {
    match text.char_indices().nth(MAX_ECHO) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The square with index `index` (a1 = 0 … h8 = 63), or `None` for any other integer.
///
/// Takes an `i64` so that indices straight from user input (possibly negative or huge) can be
/// checked without a lossy cast first.
pub fn square_from_index(index: i64) -> Option<Square> {
    u32::try_from(index).ok().and_then(Square::try_new)
}

/// Parses a UCI promotion letter (`q r b n`, either case).
fn promotion_from_byte(b: u8) -> Option<Role> {
    match b.to_ascii_lowercase() {
        b'q' => Some(Role::Queen),
        b'r' => Some(Role::Rook),
        b'b' => Some(Role::Bishop),
        b'n' => Some(Role::Knight),
        _ => None,
    }
}

/// Parses a square from its two ASCII bytes (`e4`).
pub(crate) fn square_from_bytes(file: u8, rank: u8) -> Option<Square> {
    let file = crate::File::from_char(file as char)?;
    let rank = Rank::from_char(rank as char)?;
    Some(Square::from_coords(file, rank))
}

/// Appends a square name (`e4`) to `out` (a `String`, or any text buffer that grows).
#[inline]
pub(crate) fn push_square(out: &mut impl core::fmt::Write, sq: Square) {
    // Writing to a buffer that grows cannot fail.
    let _ = out.write_char(sq.file().char());
    let _ = out.write_char(sq.rank().char());
}

impl Position {
    /// Parses a UCI move and checks it is legal. Castling is accepted both as the king's
    /// two-square move (`e1g1`) in standard chess and as king-takes-rook (`e1h1`).
    ///
    /// The promotion letter may be lower or upper case. A pawn move to the last rank without
    /// a promotion letter, or a promotion letter on any other move, is
    /// [`UciError::Illegal`]; text not of the form `<from><to>[qrbn]` (including the null
    /// move `0000`) is [`UciError::Syntax`].
    ///
    /// ```
    /// use chessd_core::{uci::UciError, FenMode, IllegalReason, Move, Position, Role, Square};
    ///
    /// let pos = Position::startpos();
    /// let mv = pos.parse_uci("g1f3").unwrap();
    /// assert_eq!(mv, Move::normal(Square::G1, Square::F3));
    /// assert_eq!(pos.uci(mv), "g1f3");
    /// assert_eq!(
    ///     pos.parse_uci("e2e5"),
    ///     Err(UciError::Illegal("e2e5".into(), IllegalReason::CannotMoveThere))
    /// );
    /// assert_eq!(pos.parse_uci("e2e5").unwrap_err().to_string(),
    ///     "e2e5 is not a legal move in this position: the piece cannot move to the target square"
    /// );
    /// assert!(matches!(pos.parse_uci("e2-e4"), Err(UciError::Syntax(_))));
    ///
    /// // Castling in both forms; written as the king's two-square move in standard chess.
    /// let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", FenMode::Strict)
    ///     .unwrap();
    /// let castle = Move::castle(Square::E1, Square::H1);
    /// assert_eq!(pos.parse_uci("e1g1"), Ok(castle));
    /// assert_eq!(pos.parse_uci("e1h1"), Ok(castle));
    /// assert_eq!(pos.uci(castle), "e1g1");
    ///
    /// // Promotions need their letter.
    /// let pos = Position::from_fen("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", FenMode::Strict).unwrap();
    /// assert_eq!(
    ///     pos.parse_uci("a7a8n"),
    ///     Ok(Move::promotion(Square::A7, Square::A8, Role::Knight))
    /// );
    /// assert_eq!(
    ///     pos.parse_uci("a7a8").unwrap_err().reason(),
    ///     Some(IllegalReason::MissingPromotion)
    /// );
    /// ```
    pub fn parse_uci(&self, text: &str) -> Result<Move, UciError> {
        let syntax = || UciError::Syntax(echo(text));
        let b = text.as_bytes();
        if !(4..=5).contains(&b.len()) {
            return Err(syntax());
        }
        let from = square_from_bytes(b[0], b[1]).ok_or_else(syntax)?;
        let to = square_from_bytes(b[2], b[3]).ok_or_else(syntax)?;
        let promotion = match b.get(4) {
            None => None,
            Some(&c) => Some(promotion_from_byte(c).ok_or_else(syntax)?),
        };
        self.legal_from_squares(from, to, promotion)
            .ok_or_else(|| UciError::Illegal(echo(text), self.reason_for(from, to, promotion)))
    }

    /// The reason a move [`Position::legal_from_squares`] did not find is illegal.
    fn reason_for(&self, from: Square, to: Square, promotion: Option<Role>) -> IllegalReason {
        self.why_illegal(from, to, promotion)
            .unwrap_or(IllegalReason::CannotMoveThere)
    }

    /// The UCI text of a legal move: `e1g1` for castling in standard chess, king-takes-rook
    /// (`e1h1`) in Chess960.
    ///
    /// Only the move's own fields and [`Position::is_chess960`] are used, so any move can be
    /// written (an illegal one is written as it is encoded).
    pub fn uci(&self, mv: Move) -> String {
        let mut out = String::with_capacity(5);
        self.append_uci(mv, &mut out);
        out
    }

    /// Appends the UCI text of `mv` (as [`Position::uci`] writes it) to `out`: a `String`,
    /// or any other text buffer (an inline string keeps the text without allocating).
    pub fn append_uci(&self, mv: Move, out: &mut impl core::fmt::Write) {
        let to = if mv.is_castle() && !self.is_chess960() {
            mv.king_destination()
        } else {
            mv.to()
        };
        push_square(out, mv.from());
        push_square(out, to);
        if let Some(role) = mv.promotion_role() {
            // Writing to a buffer that grows cannot fail.
            let _ = out.write_char(role.char());
        }
    }

    /// The legal move from `from` to `to` (square indices a1 = 0 … h8 = 63) with an optional
    /// promotion role; castling as for [`Position::parse_uci`].
    ///
    /// A pawn move to the last rank needs a promotion role (knight, bishop, rook or queen);
    /// any other move must have none. Everything that is not a legal move is
    /// [`UciError::Illegal`].
    pub fn move_from_squares(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Result<Move, UciError> {
        self.legal_from_squares(from, to, promotion).ok_or_else(|| {
            let mut text = String::with_capacity(5);
            push_square(&mut text, from);
            push_square(&mut text, to);
            if let Some(role) = promotion {
                text.push(role.char());
            }
            UciError::Illegal(text, self.reason_for(from, to, promotion))
        })
    }

    /// The legal move [`Position::move_from_squares`] describes, if any.
    fn legal_from_squares(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Option<Move> {
        let us = self.turn();
        if !self.by_color(us).contains(from) {
            return None;
        }
        let role = self.role_on(from)?;
        let candidate = match role {
            Role::King => {
                if promotion.is_some() {
                    return None;
                }
                return self.king_move_from_squares(from, to);
            }
            Role::Pawn => {
                let last_rank = Rank::new(7).relative(us);
                match promotion {
                    Some(role @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen))
                        if to.rank() == last_rank =>
                    {
                        Move::promotion(from, to, role)
                    }
                    Some(_) => return None,
                    None if to.rank() == last_rank => return None,
                    None if self.ep_square() == Some(to) && from.file() != to.file() => {
                        Move::en_passant(from, to)
                    }
                    None => Move::normal(from, to),
                }
            }
            _ => {
                if promotion.is_some() {
                    return None;
                }
                Move::normal(from, to)
            }
        };
        self.is_legal(candidate).then_some(candidate)
    }

    /// [`Position::move_from_squares`] for plain integers (as they come from user input):
    /// an index outside 0..=63 is [`UciError::Syntax`].
    pub fn move_from_indices(
        &self,
        from: i64,
        to: i64,
        promotion: Option<Role>,
    ) -> Result<Move, UciError> {
        match (square_from_index(from), square_from_index(to)) {
            (Some(from), Some(to)) => self.move_from_squares(from, to, promotion),
            _ => Err(UciError::Syntax(format!("square indices {from}, {to}"))),
        }
    }

    /// The legal king move (or castling) from `from` to `to`: an ordinary king move first,
    /// then castling written king-takes-rook, then castling written as the king's move to its
    /// castling square.
    fn king_move_from_squares(&self, from: Square, to: Square) -> Option<Move> {
        let normal = Move::normal(from, to);
        if self.is_legal(normal) {
            return Some(normal);
        }
        let takes_rook = Move::castle(from, to);
        if self.is_legal(takes_rook) {
            return Some(takes_rook);
        }
        if from == to {
            return None;
        }
        let mut found = None;
        self.generate_moves(|group| {
            if group.kind == MoveGroupKind::Castle && group.from == from {
                found = group
                    .into_iter()
                    .find(|mv| mv.king_destination() == to)
                    .or(found);
            }
            false
        });
        found
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{FenMode, MoveKind};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, FenMode::Lenient).unwrap()
    }

    #[test]
    fn plain_moves_and_output() {
        let p = Position::startpos();
        let mv = p.parse_uci("e2e4").unwrap();
        assert_eq!(mv, Move::normal(Square::E2, Square::E4));
        assert_eq!(p.uci(mv), "e2e4");
        assert_eq!(
            p.parse_uci("g1f3").unwrap(),
            Move::normal(Square::G1, Square::F3)
        );
        assert_eq!(
            p.parse_uci("e2e5"),
            Err(UciError::Illegal(
                "e2e5".to_string(),
                IllegalReason::CannotMoveThere
            ))
        );
        // Moving the opponent's piece or an empty square.
        assert!(matches!(
            p.parse_uci("e7e5"),
            Err(UciError::Illegal(_, IllegalReason::WrongSide))
        ));
        assert!(matches!(
            p.parse_uci("e3e4"),
            Err(UciError::Illegal(_, IllegalReason::NoPiece))
        ));
        assert!(matches!(
            p.parse_uci("e2e2"),
            Err(UciError::Illegal(_, IllegalReason::SameSquare))
        ));
    }

    #[test]
    fn syntax_errors() {
        let p = Position::startpos();
        for text in [
            "",
            "0000",
            "e2",
            "e2e",
            "e2e4e5",
            "e2e9",
            "i2e4",
            "e2e4k",
            "e2e4p",
            "e2e4x",
            "E2E4",
            " e2e4",
            "e2-e4",
            "é2e4",
            "e2é4",
            "\u{1F600}\u{1F600}",
        ] {
            assert!(
                matches!(p.parse_uci(text), Err(UciError::Syntax(_))),
                "{text:?} should be a syntax error"
            );
        }
        let long = "e2e4".repeat(10_000);
        match p.parse_uci(&long) {
            Err(UciError::Syntax(echoed)) => assert!(echoed.chars().count() <= MAX_ECHO + 1),
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn en_passant() {
        let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let mv = p.parse_uci("e5d6").unwrap();
        assert_eq!(mv, Move::en_passant(Square::E5, Square::D6));
        assert_eq!(mv.kind(), MoveKind::EnPassant);
        assert_eq!(p.uci(mv), "e5d6");
        // Without the en-passant right the same capture is illegal.
        let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2");
        assert!(matches!(
            p.parse_uci("e5d6"),
            Err(UciError::Illegal(_, IllegalReason::CannotMoveThere))
        ));
        // Black, and a pinned en-passant capture (rank pin) is refused.
        let p = pos("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1");
        assert!(matches!(
            p.parse_uci("d4e3"),
            Err(UciError::Illegal(_, IllegalReason::OwnKingInCheck))
        ));
        let p = pos("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
        assert_eq!(
            p.parse_uci("d4e3").unwrap(),
            Move::en_passant(Square::D4, Square::E3)
        );
    }

    #[test]
    fn promotions() {
        let p = pos("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        for (letter, role) in [
            ('q', Role::Queen),
            ('r', Role::Rook),
            ('b', Role::Bishop),
            ('n', Role::Knight),
        ] {
            for text in [
                format!("b7b8{letter}"),
                format!("b7b8{}", letter.to_ascii_uppercase()),
            ] {
                let mv = p.parse_uci(&text).unwrap();
                assert_eq!(mv, Move::promotion(Square::B7, Square::B8, role));
                assert_eq!(p.uci(mv), format!("b7b8{letter}"));
            }
            let capture = p.parse_uci(&format!("b7a8{letter}")).unwrap();
            assert_eq!(capture, Move::promotion(Square::B7, Square::A8, role));
        }
        // No letter: refused, never a silent queen.
        assert_eq!(
            p.parse_uci("b7b8"),
            Err(UciError::Illegal(
                "b7b8".to_string(),
                IllegalReason::MissingPromotion
            ))
        );
        // A letter on a move that is not a promotion.
        assert!(matches!(
            p.parse_uci("e1e2q"),
            Err(UciError::Illegal(_, IllegalReason::BadPromotion))
        ));
        let start = Position::startpos();
        assert!(matches!(
            start.parse_uci("e2e4q"),
            Err(UciError::Illegal(_, IllegalReason::BadPromotion))
        ));
        // Black promotes on rank 1.
        let p = pos("4k3/8/8/8/8/8/p7/4K3 b - - 0 1");
        assert_eq!(
            p.parse_uci("a2a1n").unwrap(),
            Move::promotion(Square::A2, Square::A1, Role::Knight)
        );
        assert!(matches!(
            p.move_from_squares(Square::A2, Square::A1, Some(Role::King)),
            Err(UciError::Illegal(_, IllegalReason::BadPromotion))
        ));
    }

    #[test]
    fn standard_castling_both_notations() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert!(!p.is_chess960());
        let short = Move::castle(Square::E1, Square::H1);
        let long = Move::castle(Square::E1, Square::A1);
        assert_eq!(p.parse_uci("e1g1").unwrap(), short);
        assert_eq!(p.parse_uci("e1h1").unwrap(), short);
        assert_eq!(p.parse_uci("e1c1").unwrap(), long);
        assert_eq!(p.parse_uci("e1a1").unwrap(), long);
        assert_eq!(p.uci(short), "e1g1");
        assert_eq!(p.uci(long), "e1c1");
        // e1b1 is neither form; e1f1 and e1d1 are king moves.
        assert!(matches!(
            p.parse_uci("e1b1"),
            Err(UciError::Illegal(_, IllegalReason::CannotMoveThere))
        ));
        assert_eq!(
            p.parse_uci("e1f1").unwrap(),
            Move::normal(Square::E1, Square::F1)
        );
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        assert_eq!(
            p.parse_uci("e8g8").unwrap(),
            Move::castle(Square::E8, Square::H8)
        );
        assert_eq!(
            p.parse_uci("e8a8").unwrap(),
            Move::castle(Square::E8, Square::A8)
        );
        assert_eq!(p.uci(Move::castle(Square::E8, Square::A8)), "e8c8");
        // Castling through an attacked square is refused in both notations.
        let p = pos("r3k2r/8/8/8/8/8/5r2/R3K2R w KQ - 0 1");
        assert!(matches!(
            p.parse_uci("e1g1"),
            Err(UciError::Illegal(_, IllegalReason::OwnKingInCheck))
        ));
        assert!(matches!(
            p.parse_uci("e1h1"),
            Err(UciError::Illegal(_, IllegalReason::OwnKingInCheck))
        ));
        assert!(p.parse_uci("e1c1").is_ok());
    }

    #[test]
    fn chess960_castling_with_overlapping_squares() {
        // King b1, rooks a1 and h1: queenside castling puts the king on c1, which an ordinary
        // king move also reaches.
        let p = pos("6k1/8/8/8/8/8/8/RK5R w HA - 0 1");
        assert!(p.is_chess960());
        let long = Move::castle(Square::B1, Square::A1);
        let short = Move::castle(Square::B1, Square::H1);
        assert_eq!(p.parse_uci("b1a1").unwrap(), long);
        assert_eq!(p.parse_uci("b1h1").unwrap(), short);
        assert_eq!(
            p.parse_uci("b1c1").unwrap(),
            Move::normal(Square::B1, Square::C1),
            "an ordinary king move wins"
        );
        assert_eq!(p.parse_uci("b1g1").unwrap(), short);
        assert_eq!(p.uci(long), "b1a1");
        assert_eq!(p.uci(short), "b1h1");

        // King f1, rook g1: the king's castling square is the rook's square.
        let p = pos("k7/8/8/8/8/8/8/5KR1 w G - 0 1");
        let short = Move::castle(Square::F1, Square::G1);
        assert_eq!(p.parse_uci("f1g1").unwrap(), short);
        assert_eq!(p.uci(short), "f1g1");
        assert_eq!(p.after(short).fen(), "k7/8/8/8/8/8/8/5RK1 b - - 1 1");

        // King g1, rook h1: the king stays where it is.
        let p = pos("6k1/8/8/8/8/8/8/6KR w H - 0 1");
        let short = Move::castle(Square::G1, Square::H1);
        assert_eq!(p.parse_uci("g1h1").unwrap(), short);
        assert!(matches!(
            p.parse_uci("g1g1"),
            Err(UciError::Illegal(_, IllegalReason::SameSquare))
        ));
        assert_eq!(p.uci(short), "g1h1");

        // King c1, rook b1: queenside, the king stays on c1 and the rook jumps to d1.
        let p = pos("6k1/8/8/8/8/8/8/1RK5 w B - 0 1");
        let long = Move::castle(Square::C1, Square::B1);
        assert_eq!(p.parse_uci("c1b1").unwrap(), long);
        assert_eq!(p.after(long).fen(), "6k1/8/8/8/8/8/8/2KR4 b - - 1 1");

        // Black, Shredder-FEN start position: king takes rook, the normal move d8c8 is
        // not available because c8 holds a bishop.
        let p = pos("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR b HFhf - 2 9");
        assert!(p.is_chess960());
        assert!(matches!(
            p.parse_uci("g8h8"),
            Err(UciError::Illegal(_, IllegalReason::CannotMoveThere))
        ));
    }

    #[test]
    fn square_indices() {
        assert_eq!(square_from_index(0), Some(Square::A1));
        assert_eq!(square_from_index(63), Some(Square::H8));
        assert_eq!(square_from_index(64), None);
        assert_eq!(square_from_index(-1), None);
        assert_eq!(square_from_index(i64::MAX), None);
        assert_eq!(square_from_index(i64::MIN), None);
        assert_eq!(square_from_index(1 << 32), None);
        let p = Position::startpos();
        assert_eq!(
            p.move_from_indices(12, 28, None).unwrap(),
            Move::normal(Square::E2, Square::E4)
        );
        assert!(matches!(
            p.move_from_indices(12, 64, None),
            Err(UciError::Syntax(_))
        ));
        assert!(matches!(
            p.move_from_indices(-1, 28, None),
            Err(UciError::Syntax(_))
        ));
        assert!(matches!(
            p.move_from_indices(12, 29, None),
            Err(UciError::Illegal(_, IllegalReason::CannotMoveThere))
        ));
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(
            p.move_from_indices(4, 6, None).unwrap(),
            Move::castle(Square::E1, Square::H1)
        );
        assert_eq!(
            p.move_from_indices(4, 0, None).unwrap(),
            Move::castle(Square::E1, Square::A1)
        );
        assert!(matches!(
            p.move_from_indices(4, 6, Some(Role::Queen)),
            Err(UciError::Illegal(_, IllegalReason::BadPromotion))
        ));
    }

    #[test]
    fn uci_round_trips_in_tricky_positions() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "6k1/8/8/8/8/8/8/RK5R w HA - 0 1",
            "k7/8/8/8/8/8/8/5KR1 w G - 0 1",
            "1r2k1r1/8/8/8/8/8/8/1R2K1R1 b GBgb - 0 1",
            "r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        ] {
            let p = pos(fen);
            for mv in p.legal_moves().iter().copied() {
                assert_eq!(p.parse_uci(&p.uci(mv)), Ok(mv), "{fen}: {mv:?}");
                assert_eq!(
                    p.move_from_squares(mv.from(), mv.to(), mv.promotion_role()),
                    Ok(mv)
                );
            }
        }
    }
}
