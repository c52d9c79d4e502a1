//! Standard Algebraic Notation: parsing (strict and the lenient forms people type) and writing.
//!
//! Writing produces standard SAN: the piece letter, the least disambiguation that tells the
//! legal moves of the same kind of piece to the same square apart (the file if it suffices,
//! else the rank, else both), `x` for captures, `=Q` for promotions, `O-O`/`O-O-O` for
//! castling (also in Chess960, by the side the rook is on) and `+`/`#` for check and mate.
//!
//! Parsing accepts strict SAN and the forms people type: long algebraic (`e2e4`, `e2-e4`,
//! `Ng1f3`, `Ng1xf3`, `Ng1-f3`), castling with zeros (`0-0`, `0-0-0`), lower-case
//! promotion letters with or without `=` (`e8=q`, `e8q`), a missing `x`, superfluous
//! disambiguation, and trailing `+ # ! ?` annotations and `e.p.`. Piece letters are upper
//! case: `b` followed by a square is always a pawn on the b-file. Text that fits several legal
//! moves is refused as [`SanError::Ambiguous`], never guessed.

use std::fmt;

use crate::{
    attacks::king_attacks,
    uci::{echo, push_square, square_from_bytes},
    Bitboard, File, IllegalReason, Move, MoveGroupKind, MoveList, Position, Rank, Role, Square,
};

/// Why a SAN move was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SanError {
    /// The text is not SAN in any accepted form.
    Syntax(String),
    /// Well formed, but no legal move matches: the text, and why (see
    /// [`Position::parse_san`] for how the reason is chosen).
    Illegal(String, IllegalReason),
    /// Several legal moves match; `candidates` lists them in SAN.
    Ambiguous {
        /// The text as given.
        text: String,
        /// The matching moves, in SAN.
        candidates: Vec<String>,
    },
}

impl SanError {
    /// Why the move is illegal; `None` for syntax errors and ambiguous moves.
    pub fn reason(&self) -> Option<IllegalReason> {
        match self {
            SanError::Illegal(_, reason) => Some(*reason),
            SanError::Syntax(_) | SanError::Ambiguous { .. } => None,
        }
    }
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax(s) => write!(f, "'{s}' is not a move in SAN"),
            SanError::Illegal(s, why) => {
                write!(f, "{s} is not a legal move in this position: {why}")
            }
            SanError::Ambiguous { text, candidates } => write!(
                f,
                "{text} is ambiguous: it could be {}",
                candidates.join(" or ")
            ),
        }
    }
}

impl std::error::Error for SanError {}

/// Which way a castling move goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CastleSide {
    /// `O-O`: with the rook on the king's h-file side.
    King,
    /// `O-O-O`: with the rook on the king's a-file side.
    Queen,
}

/// A move as written, before it is matched against the legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    Castle(CastleSide),
    Piece {
        /// The piece letter, if one was written.
        role: Option<Role>,
        /// The origin file, if written.
        file: Option<File>,
        /// The origin rank, if written.
        rank: Option<Rank>,
        /// Whether a capture mark (`x` or `:`) was written.
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    },
}

/// Strips trailing annotations (`+ # ! ?`, `e.p.`) and surrounding white space.
fn strip_suffixes(mut s: &str) -> &str {
    loop {
        s = s.trim_end();
        if let Some(rest) = s.strip_suffix("e.p.") {
            s = rest;
        } else if let Some(rest) = s.strip_suffix(['+', '#', '!', '?']) {
            s = rest;
        } else {
            return s.trim_start();
        }
    }
}

/// `O-O`, `O-O-O`, `0-0`, `0-0-0` (also `OO`, `o-o`, …).
fn parse_castle(b: &[u8]) -> Option<CastleSide> {
    if b.first() == Some(&b'-') || b.last() == Some(&b'-') || b.windows(2).any(|w| w == b"--") {
        return None;
    }
    let mut count = 0;
    for &c in b {
        match c {
            b'O' | b'o' | b'0' => count += 1,
            b'-' => {}
            _ => return None,
        }
    }
    match count {
        2 => Some(CastleSide::King),
        3 => Some(CastleSide::Queen),
        _ => None,
    }
}

/// A piece letter as written in SAN (upper case only; `P` is allowed for a pawn).
fn piece_from_byte(b: u8) -> Option<Role> {
    match b {
        b'P' => Some(Role::Pawn),
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        _ => None,
    }
}

/// Parses the text (annotations already stripped) into its parts; `None` for syntax errors.
fn parse_written(s: &str) -> Option<Written> {
    if !s.is_ascii() {
        return None;
    }
    let b = s.as_bytes();
    if let Some(side) = parse_castle(b) {
        return Some(Written::Castle(side));
    }
    let mut end = b.len();
    // Promotion: `=Q`, `=q`, or a bare letter right after the target rank.
    let mut promotion = None;
    if end >= 3 && b[end - 1].is_ascii_alphabetic() && matches!(b[end - 2], b'=' | b'1'..=b'8') {
        promotion = Some(crate::Role::from_char(b[end - 1] as char)?);
        end -= 1;
        if b[end - 1] == b'=' {
            end -= 1;
        }
    }
    if end < 2 {
        return None;
    }
    let to = square_from_bytes(b[end - 2], b[end - 1])?;
    end -= 2;
    let mut capture = false;
    if end > 0 && matches!(b[end - 1], b'x' | b':' | b'-') {
        capture = b[end - 1] != b'-';
        end -= 1;
    }
    let head = &b[..end];
    let mut i = 0;
    let role = head.first().and_then(|&c| piece_from_byte(c));
    if role.is_some() {
        i += 1;
    }
    let file = head.get(i).and_then(|&c| File::from_char(c as char));
    if file.is_some() {
        i += 1;
    }
    let rank = head.get(i).and_then(|&c| Rank::from_char(c as char));
    if rank.is_some() {
        i += 1;
    }
    if i != head.len() {
        return None;
    }
    // A pawn capture must name the file it comes from (`exd5`, not `xd5`).
    if capture && file.is_none() && matches!(role, None | Some(Role::Pawn)) && rank.is_none() {
        return None;
    }
    Some(Written::Piece {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    })
}

impl Position {
    /// Parses SAN and returns the one legal move it names.
    ///
    /// Accepts strict SAN and the lenient forms listed in the [`crate::san`] module docs. Text that
    /// is no move notation at all is [`SanError::Syntax`], a well-formed move that is not
    /// legal here (a king walking into check, castling through check, a pawn move to the
    /// last rank naming no legal promotion, …) is [`SanError::Illegal`], and text that fits
    /// more than one legal move (`Nd2` with two knights able to go there, `e8` without a
    /// promotion piece) is [`SanError::Ambiguous`] with every candidate in SAN.
    ///
    /// A long-algebraic king move (`e1g1`, `e1h1`) is castling exactly as
    /// [`Position::parse_uci`] reads it.
    ///
    /// The [`IllegalReason`] of [`SanError::Illegal`] is [`Position::why_illegal`] of the move
    /// the text names: for long algebraic (`e2e5`, `Ng1e2`) that of its one origin square
    /// ([`IllegalReason::NoPiece`] also when the letter names another piece than the one
    /// there); for castling that of the king and the rook of that side
    /// ([`IllegalReason::CannotMoveThere`] without a castling right); otherwise, among the
    /// pieces of the named kind (a pawn when no letter) on the given file or rank (a pawn
    /// without a file: on the target's file), the reason of the one that came closest to a
    /// legal move ([`IllegalReason::OwnKingInCheck`] over [`IllegalReason::CannotMoveThere`]),
    /// and [`IllegalReason::NoPiece`] when there is no such piece. A short king move of two
    /// squares (`Kg1`) is [`IllegalReason::CannotMoveThere`]: castling is written `O-O`.
    ///
    /// ```
    /// use chessd_core::{san::SanError, IllegalReason, Position};
    ///
    /// let mut pos = Position::startpos();
    /// let mv = pos.parse_san("Nf3").unwrap();
    /// assert_eq!(pos.san(mv), "Nf3");
    /// assert_eq!(pos.uci(mv), "g1f3");
    /// pos.play(mv).unwrap();
    /// assert_eq!(pos.san(pos.parse_san("d5").unwrap()), "d5");
    ///
    /// // Syntax errors, illegal moves (with a reason) and ambiguity are told apart.
    /// assert!(matches!(pos.parse_san("Xz9"), Err(SanError::Syntax(_))));
    /// let err = pos.parse_san("Ke7").unwrap_err();
    /// assert_eq!(err.reason(), Some(IllegalReason::OwnPiece));
    /// assert_eq!(err.to_string(),
    ///     "Ke7 is not a legal move in this position: the target square holds one of the mover's own pieces"
    /// );
    /// ```
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let written =
            parse_written(strip_suffixes(text)).ok_or_else(|| SanError::Syntax(echo(text)))?;
        let mut found = MoveList::new();
        match written {
            Written::Castle(side) => {
                self.generate_moves(|group| {
                    if group.kind == MoveGroupKind::Castle {
                        for mv in group {
                            let king_side = mv.to().file() > mv.from().file();
                            if king_side == (side == CastleSide::King) {
                                found.push(mv);
                            }
                        }
                    }
                    false
                });
            }
            Written::Piece {
                role,
                file,
                rank,
                capture: _,
                to,
                promotion,
            } => {
                // With a full origin square and no letter, the piece there is meant
                // (long algebraic); otherwise no letter means a pawn.
                let long = file.is_some() && rank.is_some();
                let role = match role {
                    Some(role) => Some(role),
                    None if long => None,
                    None => Some(Role::Pawn),
                };
                let mut castles = MoveList::new();
                self.generate_moves(|group| {
                    if role.is_some_and(|r| r != group.role)
                        || file.is_some_and(|f| f != group.from.file())
                        || rank.is_some_and(|r| r != group.from.rank())
                    {
                        return false;
                    }
                    match group.kind {
                        MoveGroupKind::Castle => {
                            if long && promotion.is_none() {
                                for mv in group {
                                    if to == mv.to()
                                        || (to == mv.king_destination() && to != mv.from())
                                    {
                                        castles.push(mv);
                                    }
                                }
                            }
                            return false;
                        }
                        _ if !group.to.contains(to) => return false,
                        // A pawn with no file given only pushes straight ahead.
                        _ if group.role == Role::Pawn
                            && file.is_none()
                            && group.from.file() != to.file() =>
                        {
                            return false
                        }
                        MoveGroupKind::Normal => {
                            if promotion.is_none() {
                                found.push(Move::normal(group.from, to));
                            }
                        }
                        MoveGroupKind::EnPassant => {
                            if promotion.is_none() {
                                found.push(Move::en_passant(group.from, to));
                            }
                        }
                        MoveGroupKind::Promotion => {
                            for role in Role::PROMOTIONS {
                                if promotion.is_none_or(|p| p == role) {
                                    found.push(Move::promotion(group.from, to, role));
                                }
                            }
                        }
                    }
                    false
                });
                // An ordinary king move wins over castling written the same way.
                if found.is_empty() {
                    found = castles;
                }
            }
        }
        match *found {
            [] => Err(SanError::Illegal(echo(text), self.san_reason(written))),
            [mv] => Ok(mv),
            ref several => Err(SanError::Ambiguous {
                text: echo(text),
                candidates: several.iter().map(|&mv| self.san(mv)).collect(),
            }),
        }
    }

    /// Why the written move, which matches no legal move, is illegal (see
    /// [`Position::parse_san`]).
    fn san_reason(&self, written: Written) -> IllegalReason {
        let us = self.turn();
        let (role, file, rank, to, promotion) = match written {
            Written::Castle(side) => {
                let king = self.king(us);
                let rook = (self.castling_rooks() & self.pieces(us, Role::Rook))
                    .into_iter()
                    .find(|rook| (rook.file() > king.file()) == (side == CastleSide::King));
                return rook
                    .and_then(|rook| self.why_illegal(king, rook, None))
                    .unwrap_or(IllegalReason::CannotMoveThere);
            }
            Written::Piece {
                role,
                file,
                rank,
                capture: _,
                to,
                promotion,
            } => (role, file, rank, to, promotion),
        };
        if let (Some(file), Some(rank)) = (file, rank) {
            // Long algebraic: one origin square.
            let from = Square::from_coords(file, rank);
            if role.is_some_and(|role| {
                self.by_color(us).contains(from) && self.role_on(from) != Some(role)
            }) {
                return IllegalReason::NoPiece;
            }
            return self
                .why_illegal(from, to, promotion)
                .unwrap_or(IllegalReason::CannotMoveThere);
        }
        let role = role.unwrap_or(Role::Pawn);
        let mut origins = self.pieces(us, role);
        if let Some(file) = file.or((role == Role::Pawn).then(|| to.file())) {
            origins &= Bitboard::file(file);
        }
        if let Some(rank) = rank {
            origins &= Bitboard::rank(rank);
        }
        let mut best: Option<IllegalReason> = None;
        for from in origins {
            let reason = if role == Role::King && !king_attacks(from).contains(to) {
                // Short SAN never means castling (that is `O-O`).
                IllegalReason::CannotMoveThere
            } else if role == Role::King && self.by_color(us).contains(to) {
                IllegalReason::OwnPiece
            } else {
                self.why_illegal(from, to, promotion)
                    .unwrap_or(IllegalReason::CannotMoveThere)
            };
            if best.is_none_or(|b| reason.progress() > b.progress()) {
                best = Some(reason);
            }
        }
        best.unwrap_or(IllegalReason::NoPiece)
    }

    /// The SAN of a legal move, with minimal disambiguation and a `+` or `#` suffix.
    ///
    /// A move that is not legal here has no SAN; it is written in UCI instead (this never
    /// panics).
    pub fn san(&self, mv: Move) -> String {
        let mut out = String::with_capacity(8);
        self.append_san(mv, &mut out);
        out
    }

    /// Appends the SAN of `mv` (as [`Position::san`] writes it) to `out`, allocating nothing
    /// else: one pass of move generation finds the disambiguation.
    pub fn append_san(&self, mv: Move, out: &mut String) {
        let len = out.len();
        self.append_san_without_suffix(mv, out);
        if out.len() == len {
            // Not a legal move.
            self.append_uci(mv, out);
            return;
        }
        write_check_suffix(&self.after(mv), out);
    }

    /// Whether `mv` (of a `role`) is legal, and the other pieces of that role that could
    /// legally go to its square, from one pass of move generation.
    fn legal_and_others(&self, mv: Move, role: Role) -> (bool, Bitboard) {
        let (from, to) = (mv.from(), mv.to());
        let mut legal = false;
        let mut others = Bitboard::EMPTY;
        let needs_disambiguation = !matches!(role, Role::Pawn | Role::King);
        self.generate_moves(|group| {
            if group.from == from {
                legal |= group.contains(mv);
            } else if needs_disambiguation
                && group.role == role
                && group.kind == MoveGroupKind::Normal
                && group.to.contains(to)
            {
                others |= group.from;
            }
            false
        });
        (legal, others)
    }

    /// [`Position::legal_and_others`] for a move of a knight, bishop, rook, queen or pawn that
    /// is neither en passant nor castling, without generating every move: the mover's legal
    /// moves, then those of the pieces of its role that attack the square (a knight or a
    /// slider moves as it attacks, so no other can go there).
    fn legal_and_others_of_piece(&self, mv: Move, role: Role) -> (bool, Bitboard) {
        let (from, to) = (mv.from(), mv.to());
        if !self.piece_moves(from, role).contains(mv) {
            return (false, Bitboard::EMPTY);
        }
        if role == Role::Pawn {
            return (true, Bitboard::EMPTY);
        }
        (true, self.rivals(from, to, role))
    }

    /// The pieces of a knight, bishop, rook or queen `role` other than the one on `from` that
    /// could legally go to `to`: those that attack it (a knight or a slider moves as it
    /// attacks, so no other can go there) and may legally move there.
    fn rivals(&self, from: Square, to: Square, role: Role) -> Bitboard {
        let us = self.turn();
        let attackers =
            (crate::attacks::attacks(role, us, to, self.occupied()) & self.pieces(us, role)) - from;
        attackers
            .filter(|&sq| self.piece_moves(sq, role).to.contains(to))
            .fold(Bitboard::EMPTY, |others, sq| others | sq)
    }

    /// The SAN of a legal move without the `+`/`#` suffix (so without playing it); writes
    /// nothing when the move is not legal.
    fn append_san_without_suffix(&self, mv: Move, out: &mut String) {
        let from = mv.from();
        if !self.by_color(self.turn()).contains(from) {
            return;
        }
        let Some(role) = self.role_on(from) else {
            return;
        };
        let (legal, others) = if role == Role::King || mv.is_castle() || mv.is_en_passant() {
            self.legal_and_others(mv, role)
        } else {
            self.legal_and_others_of_piece(mv, role)
        };
        if !legal {
            return;
        }
        self.write_san_body(mv, role, others, out);
    }

    /// Writes the SAN of the legal move `mv` of a `role` without its suffix, given `others`:
    /// the other pieces of that role that could legally go to its square.
    pub(crate) fn write_san_body(
        &self,
        mv: Move,
        role: Role,
        others: Bitboard,
        out: &mut impl fmt::Write,
    ) {
        let (from, to) = (mv.from(), mv.to());
        // Writing to a buffer that grows cannot fail.
        if mv.is_castle() {
            let _ = out.write_str(if to.file() > from.file() {
                "O-O"
            } else {
                "O-O-O"
            });
            return;
        }
        let capture = self.is_capture(mv);
        if role == Role::Pawn {
            if capture {
                let _ = out.write_char(from.file().char());
                let _ = out.write_char('x');
            }
            push_square(out, to);
            if let Some(promotion) = mv.promotion_role() {
                let _ = out.write_char('=');
                let _ = out.write_char(promotion.upper_char());
            }
            return;
        }
        let _ = out.write_char(role.upper_char());
        if others.nonempty() {
            if (others & Bitboard::file(from.file())).is_empty() {
                let _ = out.write_char(from.file().char());
            } else if (others & Bitboard::rank(from.rank())).is_empty() {
                let _ = out.write_char(from.rank().char());
            } else {
                push_square(out, from);
            }
        }
        if capture {
            let _ = out.write_char('x');
        }
        push_square(out, to);
    }

    /// Writes the SAN of `mv`, a legal move here (one of a game's moves: not checked), as
    /// [`Position::append_san`] writes it, then plays it. No move generation but for another
    /// piece of the mover's role that attacks its square and, after a check, the test for mate:
    /// what a game's history is written with.
    ///
    /// ```
    /// use chessd_core::Position;
    ///
    /// let mut pos = Position::startpos();
    /// let mut san = String::new();
    /// for uci in ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"] {
    ///     let mv = pos.parse_uci(uci).unwrap();
    ///     san.push(' ');
    ///     pos.append_san_and_play(mv, &mut san);
    /// }
    /// assert_eq!(san, " e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#");
    /// ```
    pub fn append_san_and_play(&mut self, mv: Move, out: &mut String) {
        debug_assert!(self.is_legal(mv), "{mv:?} is not legal");
        let Some(role) = self.role_on(mv.from()) else {
            return;
        };
        let others = if matches!(role, Role::Pawn | Role::King) || mv.is_castle() {
            Bitboard::EMPTY
        } else {
            self.rivals(mv.from(), mv.to(), role)
        };
        self.write_san_body(mv, role, others, out);
        self.play_unchecked(mv);
        write_check_suffix(self, out);
    }

    /// Writes the SAN of the legal move `mv`, which led here to `after`, given `others` (as
    /// for [`Position::write_san_body`]): what a reader that already listed the legal moves
    /// writes without listing them again. Only a check looks for a legal reply (mate).
    pub(crate) fn write_san_known(
        &self,
        mv: Move,
        others: Bitboard,
        after: &Position,
        out: &mut impl fmt::Write,
    ) {
        let Some(role) = self.role_on(mv.from()) else {
            return;
        };
        self.write_san_body(mv, role, others, out);
        write_check_suffix(after, out);
    }
}

/// Writes the `+` or `#` of a move that led to `after`, if it gives check.
fn write_check_suffix(after: &Position, out: &mut impl fmt::Write) {
    if after.is_check() {
        // Writing to a buffer that grows cannot fail.
        let _ = out.write_char(if after.has_legal_moves() { '+' } else { '#' });
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::FenMode;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, FenMode::Lenient).unwrap()
    }

    fn mv(p: &Position, uci: &str) -> Move {
        p.parse_uci(uci).unwrap()
    }

    #[test]
    fn strips_annotations() {
        assert_eq!(strip_suffixes("e4!?"), "e4");
        assert_eq!(strip_suffixes(" Qf7# "), "Qf7");
        assert_eq!(strip_suffixes("exd6 e.p.+"), "exd6");
        assert_eq!(strip_suffixes("exd6e.p."), "exd6");
        assert_eq!(strip_suffixes("O-O+!!"), "O-O");
        assert_eq!(strip_suffixes("+#!?"), "");
    }

    #[test]
    fn parses_written_forms() {
        assert_eq!(
            parse_written("O-O"),
            Some(Written::Castle(CastleSide::King))
        );
        assert_eq!(
            parse_written("0-0-0"),
            Some(Written::Castle(CastleSide::Queen))
        );
        assert_eq!(parse_written("O-O-O-O"), None);
        assert_eq!(parse_written("O--O"), None);
        assert_eq!(parse_written("-O-O"), None);
        assert_eq!(
            parse_written("bxc3"),
            Some(Written::Piece {
                role: None,
                file: Some(File::new(1)),
                rank: None,
                capture: true,
                to: Square::C3,
                promotion: None,
            })
        );
        assert_eq!(
            parse_written("Bxc3"),
            Some(Written::Piece {
                role: Some(Role::Bishop),
                file: None,
                rank: None,
                capture: true,
                to: Square::C3,
                promotion: None,
            })
        );
        assert_eq!(
            parse_written("e8q"),
            Some(Written::Piece {
                role: None,
                file: None,
                rank: None,
                capture: false,
                to: Square::E8,
                promotion: Some(Role::Queen),
            })
        );
        for bad in [
            "", "e", "e9", "i4", "Xe4", "nf3", "Nf3x", "xe4", "e8=", "e8==Q", "Ng1g1f3", "N1gf3",
            "e4 e5", "♘f3", "e8=X",
        ] {
            assert_eq!(parse_written(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn writes_pawn_moves_and_promotions() {
        let p = Position::startpos();
        assert_eq!(p.san(mv(&p, "e2e4")), "e4");
        assert_eq!(p.san(mv(&p, "g1f3")), "Nf3");
        let p = pos("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(p.san(mv(&p, "b7a8q")), "bxa8=Q+");
        assert_eq!(p.san(mv(&p, "b7a8r")), "bxa8=R+");
        assert_eq!(p.san(mv(&p, "b7a8b")), "bxa8=B");
        assert_eq!(p.san(mv(&p, "b7a8n")), "bxa8=N");
        assert_eq!(p.san(mv(&p, "b7b8q")), "b8=Q+");
        assert_eq!(p.san(mv(&p, "b7b8n")), "b8=N");
    }

    #[test]
    fn illegal_move_is_written_in_uci_without_panicking() {
        let p = Position::startpos();
        assert_eq!(p.san(Move::normal(Square::E2, Square::E5)), "e2e5");
        assert_eq!(p.san(Move::normal(Square::E4, Square::E5)), "e4e5");
        assert_eq!(p.san(Move::normal(Square::E7, Square::E5)), "e7e5");
        assert_eq!(p.san(Move::castle(Square::E1, Square::H1)), "e1g1");
    }

    #[test]
    fn pawn_capture_needs_its_file() {
        let p = pos("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
        let capture = mv(&p, "e4d5");
        assert_eq!(p.san(capture), "exd5");
        assert_eq!(p.parse_san("exd5"), Ok(capture));
        assert_eq!(p.parse_san("ed5"), Ok(capture));
        assert_eq!(p.parse_san("e4d5"), Ok(capture));
        assert_eq!(p.parse_san("e4xd5"), Ok(capture));
        // `d5` would be a push; there is none.
        assert_eq!(
            p.parse_san("d5"),
            Err(SanError::Illegal("d5".to_string(), IllegalReason::NoPiece))
        );
    }

    #[test]
    fn castling_in_chess960_by_rook_side() {
        let p = pos("6k1/8/8/8/8/8/8/RK5R w HA - 0 1");
        let long = Move::castle(Square::B1, Square::A1);
        let short = Move::castle(Square::B1, Square::H1);
        assert_eq!(p.san(long), "O-O-O");
        assert_eq!(p.san(short), "O-O");
        assert_eq!(p.parse_san("O-O-O"), Ok(long));
        assert_eq!(p.parse_san("0-0"), Ok(short));
        assert_eq!(p.parse_san("Kc1"), Ok(Move::normal(Square::B1, Square::C1)));
        // Long algebraic king moves read like UCI: the ordinary move wins.
        assert_eq!(
            p.parse_san("b1c1"),
            Ok(Move::normal(Square::B1, Square::C1))
        );
        assert_eq!(p.parse_san("Kb1a1"), Ok(long));
        assert_eq!(p.parse_san("b1g1"), Ok(short));
    }

    /// The one-piece shortcut gives what one pass of move generation gives (which other
    /// pieces could go there, for a legal move), for every legal
    /// move and for plain and promotion moves from every square to every square (most of
    /// them illegal), in positions of random games from starts rich in pins, checks,
    /// en passant and promotions.
    #[test]
    fn a_pieces_own_targets_give_what_move_generation_gives() {
        let mut starts = crate::movegen::tests::RICH_STARTS.to_vec();
        starts.push("2r3k1/1q3ppp/8/8/8/8/1Q3PPP/2R3K1 w - - 0 1");
        let mut rng = crate::movegen::tests::Rng(0x2545_F491_4F6C_DD1D);
        let mut checked = 0;
        for fen in starts {
            for _ in 0..12 {
                let mut p = pos(fen);
                for _ in 0..60 {
                    let mut moves: Vec<Move> = p.legal_moves().iter().copied().collect();
                    for from in p.by_color(p.turn()) {
                        for to in 0..64 {
                            let to = Square::new(to);
                            moves.push(Move::normal(from, to));
                            moves.push(Move::promotion(from, to, Role::Queen));
                        }
                    }
                    for &m in &moves {
                        let Some(role) = p.role_on(m.from()) else {
                            continue;
                        };
                        if role == Role::King || m.is_castle() || m.is_en_passant() {
                            continue;
                        }
                        // The other pieces matter only for a legal move.
                        let (legal, others) = p.legal_and_others(m, role);
                        let full = (legal, if legal { others } else { Bitboard::EMPTY });
                        assert_eq!(
                            p.legal_and_others_of_piece(m, role),
                            full,
                            "{} {}",
                            p.fen(),
                            p.uci(m)
                        );
                        checked += 1;
                    }
                    let legal = p.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    p.play_unchecked(legal[rng.below(legal.len())]);
                }
            }
        }
        assert!(checked > 100_000, "{checked} moves");
    }
}
