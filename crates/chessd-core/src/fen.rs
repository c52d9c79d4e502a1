//! FEN parsing (strict or lenient) and writing, with X-FEN and Shredder-FEN castling.

use std::{fmt, str::FromStr};

use crate::{
    attacks::{between, king_attacks, line},
    position::{back_rank, MAX_FULLMOVE_NUMBER, MAX_HALFMOVE_CLOCK},
    Bitboard, Color, File, Piece, Position, Rank, Role, Square,
};

/// The standard starting position's FEN.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// How strictly a FEN is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FenMode {
    /// Only positions that can arise in play (games use this).
    #[default]
    Strict,
    /// Also well-formed positions that cannot arise in play (impossible checks, an
    /// en-passant square with an impossible check), for perft and analysis. Move generation
    /// still needs one king per side, no pawns on the back ranks, the side not to move out of
    /// check, and no more material than promotions can give (so no position outgrows a
    /// [`crate::MoveList`]).
    Lenient,
}

/// What is wrong with a FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The FEN does not have 4 to 6 space-separated fields.
    WrongFieldCount(usize),
    /// The placement does not have 8 ranks.
    WrongRankCount(usize),
    /// A rank (named 8 down to 1) does not describe exactly 8 squares.
    RankLength {
        /// The rank as written on the board, 1..8.
        rank: u8,
        /// How many squares it described.
        squares: usize,
    },
    /// A character in the placement is neither a piece letter nor a digit 1..8.
    BadPieceLetter {
        /// The offending character.
        letter: char,
        /// The rank it stands in, 1..8.
        rank: u8,
    },
    /// A side has no king.
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings(Color),
    /// A pawn stands on the first or last rank.
    PawnOnBackRank(Square),
    /// The two kings stand next to each other.
    KingsTouching,
    /// A side has more pieces (or pawns) than can arise in play.
    TooManyPieces(Color),
    /// The side that is not to move is in check.
    OppositeCheck,
    /// The side to move is in check in a way no legal move can produce.
    ImpossibleCheck,
    /// The side-to-move field is not `w` or `b`.
    BadSideToMove(String),
    /// The castling field is malformed.
    BadCastling(String),
    /// A castling right without its king and rook in place.
    CastlingWithoutKingAndRook(char),
    /// The en-passant field is not `-` or a square.
    BadEnPassant(String),
    /// The en-passant square cannot follow a double pawn push in this position.
    ImpossibleEnPassant(Square),
    /// The half-move clock is not a number, or out of range.
    BadHalfmoveClock(String),
    /// The full-move number is not a number from 0 (read as 1) to [`MAX_FULLMOVE_NUMBER`].
    BadFullmoveNumber(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::WrongFieldCount(n) => write!(
                f,
                "expected 4 to 6 space-separated fields (placement, side, castling, en passant, \
                 half-move clock, full-move number), found {n}"
            ),
            FenError::WrongRankCount(n) => write!(f, "the placement has {n} ranks, expected 8"),
            FenError::RankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares, expected 8")
            }
            FenError::BadPieceLetter { letter, rank } => {
                write!(
                    f,
                    "'{letter}' on rank {rank} is not a piece letter (PNBRQK, pnbrqk) or 1-8"
                )
            }
            FenError::MissingKing(c) => write!(f, "{c} has no king"),
            FenError::TooManyKings(c) => write!(f, "{c} has more than one king"),
            FenError::PawnOnBackRank(sq) => {
                write!(f, "a pawn stands on {sq}, on the first or last rank")
            }
            FenError::KingsTouching => f.write_str("the kings stand next to each other"),
            FenError::TooManyPieces(c) => {
                write!(f, "{c} has more pieces or pawns than can arise in play")
            }
            FenError::OppositeCheck => f.write_str("the side not to move is in check"),
            FenError::ImpossibleCheck => {
                f.write_str("the side to move is in check in a way no legal move can give")
            }
            FenError::BadSideToMove(s) => write!(f, "side to move '{s}' is not 'w' or 'b'"),
            FenError::BadCastling(s) => write!(f, "castling field '{s}' is malformed"),
            FenError::CastlingWithoutKingAndRook(c) => write!(
                f,
                "castling right '{c}' without the king on its back rank and a rook on that side"
            ),
            FenError::BadEnPassant(s) => write!(f, "en-passant field '{s}' is not '-' or a square"),
            FenError::ImpossibleEnPassant(sq) => write!(
                f,
                "en-passant square {sq} cannot follow a double pawn push in this position"
            ),
            FenError::BadHalfmoveClock(s) => {
                write!(f, "half-move clock '{s}' is not a number from 0")
            }
            FenError::BadFullmoveNumber(s) => {
                write!(
                    f,
                    "full-move number '{s}' is not a number from 0 (read as 1) to {MAX_FULLMOVE_NUMBER}"
                )
            }
        }
    }
}

impl std::error::Error for FenError {}

impl FromStr for Position {
    type Err = FenError;
    /// Parses a FEN in strict mode.
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s, FenMode::Strict)
    }
}

fn parse_placement(pos: &mut Position, placement: &str) -> Result<(), FenError> {
    read_placement(placement, |sq, piece| pos.put(sq, piece))
}

/// Reads a FEN placement field (`rnbqkbnr/pppppppp/8/…`), handing each piece to `put`; the
/// same reader serves standard positions and Chess 2's ([`crate::chess2`]).
pub(crate) fn read_placement(
    placement: &str,
    mut put: impl FnMut(Square, Piece),
) -> Result<(), FenError> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::WrongRankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u32;
        let mut file = 0usize;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d as usize;
            } else if let Some(piece) = Piece::from_char(c) {
                if file < 8 {
                    put(Square::new(rank * 8 + file as u32), piece);
                }
                file += 1;
            } else {
                return Err(FenError::BadPieceLetter {
                    letter: c,
                    rank: rank as u8 + 1,
                });
            }
        }
        if file != 8 {
            return Err(FenError::RankLength {
                rank: rank as u8 + 1,
                squares: file,
            });
        }
    }
    Ok(())
}

/// Writes a FEN placement field, asking `piece_on` what stands on each square.
pub(crate) fn write_placement(out: &mut String, piece_on: impl Fn(Square) -> Option<Piece>) {
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match piece_on(Square::new(rank * 8 + file)) {
                Some(p) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    out.push(p.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
}

/// Resolves one castling character to the square of its rook.
fn castling_rook(pos: &Position, c: char) -> Result<Square, FenError> {
    let color = if c.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    let home = back_rank(color);
    let kings = pos.pieces(color, Role::King) & home;
    let king = kings
        .single_square()
        .ok_or(FenError::CastlingWithoutKingAndRook(c))?;
    let rooks = pos.pieces(color, Role::Rook) & home;
    let lower = c.to_ascii_lowercase();
    let rook = match lower {
        'k' => rooks.into_iter().filter(|r| r.file() > king.file()).last(),
        'q' => rooks.into_iter().find(|r| r.file() < king.file()),
        'a'..='h' => {
            let file =
                File::from_char(lower).ok_or_else(|| FenError::BadCastling(c.to_string()))?;
            let sq = Square::from_coords(file, Rank::new(0).relative(color));
            Some(sq).filter(|sq| rooks.contains(*sq) && *sq != king)
        }
        _ => return Err(FenError::BadCastling(c.to_string())),
    };
    rook.ok_or(FenError::CastlingWithoutKingAndRook(c))
}

impl Position {
    /// Parses a FEN. Four fields are enough (clocks default to `0 1`); castling may be
    /// written as `KQkq`, X-FEN or Shredder-FEN (`HAha`). Chess960 is detected from the
    /// castling rights (a king off the e-file, a castling rook off the a/h-files, or
    /// Shredder letters).
    ///
    /// ```
    /// use chessd_core::{FenError, FenMode, Position, Role, Square};
    ///
    /// let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2";
    /// let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
    /// assert_eq!(pos.role_on(Square::C5), Some(Role::Pawn));
    /// assert_eq!(pos.fen(), fen);
    /// // Four fields are enough.
    /// let short = Position::from_fen("8/8/8/8/8/8/8/K1k5 w - -", FenMode::Strict).unwrap();
    /// assert_eq!(short.fen(), "8/8/8/8/8/8/8/K1k5 w - - 0 1");
    /// assert!(matches!(
    ///     Position::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", FenMode::Strict),
    ///     Err(FenError::MissingKing(_))
    /// ));
    /// ```
    pub fn from_fen(fen: &str, mode: FenMode) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::WrongFieldCount(fields.len()));
        }
        let mut pos = Position::empty();
        parse_placement(&mut pos, fields[0])?;

        pos.turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSideToMove(other.to_string())),
        };

        for color in Color::ALL {
            match pos.pieces(color, Role::King).count() {
                0 => return Err(FenError::MissingKing(color)),
                1 => {}
                _ => return Err(FenError::TooManyKings(color)),
            }
        }
        if let Some(sq) =
            (pos.by_role(Role::Pawn) & (back_rank(Color::White) | back_rank(Color::Black))).first()
        {
            return Err(FenError::PawnOnBackRank(sq));
        }
        if king_attacks(pos.king(Color::White)).contains(pos.king(Color::Black)) {
            return Err(FenError::KingsTouching);
        }

        let castling = fields[2];
        let mut shredder = false;
        if castling != "-" {
            if castling.is_empty() || castling.len() > 4 {
                return Err(FenError::BadCastling(castling.to_string()));
            }
            for c in castling.chars() {
                let rook = castling_rook(&pos, c)?;
                if pos.castling.contains(rook) {
                    return Err(FenError::BadCastling(castling.to_string()));
                }
                shredder |= !matches!(c, 'K' | 'Q' | 'k' | 'q');
                pos.castling |= rook;
            }
            for color in Color::ALL {
                let rooks = pos.castling & back_rank(color);
                let king = pos.king(color);
                let (left, right): (Bitboard, Bitboard) = (
                    rooks
                        .into_iter()
                        .filter(|r| r.file() < king.file())
                        .collect(),
                    rooks
                        .into_iter()
                        .filter(|r| r.file() > king.file())
                        .collect(),
                );
                if left.more_than_one() || right.more_than_one() {
                    return Err(FenError::BadCastling(castling.to_string()));
                }
                let standard = king.file() == File::new(4)
                    && rooks
                        .into_iter()
                        .all(|r| r.file() == File::new(0) || r.file() == File::new(7));
                if rooks.nonempty() && !standard {
                    pos.chess960 = true;
                }
            }
            pos.chess960 |= shredder;
        }

        pos.fen_ep_square = match fields[3] {
            "-" => None,
            text => {
                let sq: Square = text
                    .parse()
                    .map_err(|_| FenError::BadEnPassant(text.to_string()))?;
                Some(sq)
            }
        };

        if let Some(text) = fields.get(4) {
            pos.halfmoves = text
                .parse::<u32>()
                .ok()
                .filter(|&n| n <= MAX_HALFMOVE_CLOCK)
                .ok_or_else(|| FenError::BadHalfmoveClock(text.to_string()))?;
        }
        if let Some(text) = fields.get(5) {
            // 0 is read as 1, as Binbo and python-chess do: some programs write it for the
            // start of a game.
            pos.fullmoves = text
                .parse::<u32>()
                .ok()
                .filter(|&n| n <= MAX_FULLMOVE_NUMBER)
                .ok_or_else(|| FenError::BadFullmoveNumber(text.to_string()))?
                .max(1);
        }

        // Opposite check: the side not to move may not be in check.
        let them = !pos.turn;
        if pos.is_attacked(pos.king(them), pos.turn, pos.occupied()) {
            return Err(FenError::OppositeCheck);
        }

        if let Some(ep) = pos.fen_ep_square {
            validate_ep(&pos, ep, mode)?;
        }
        pos.finish_setup();

        // Both modes: no more material than promotions can give (as shakmaty's
        // TOO_MUCH_MATERIAL), which also keeps every position within a move list's capacity.
        for color in Color::ALL {
            if !material_can_arise(&pos, color) {
                return Err(FenError::TooManyPieces(color));
            }
        }
        if mode == FenMode::Strict {
            check_possible_checkers(&pos)?;
        }
        Ok(pos)
    }

    /// Parses a FEN in strict mode.
    pub fn from_fen_strict(fen: &str) -> Result<Position, FenError> {
        Position::from_fen(fen, FenMode::Strict)
    }

    /// The FEN of the position. Castling is written `KQkq` for standard chess and as
    /// Shredder-FEN (`HAha`) for Chess960.
    ///
    /// ```
    /// use chessd_core::{Position, START_FEN};
    ///
    /// let mut pos = Position::startpos();
    /// assert_eq!(pos.fen(), START_FEN);
    /// pos.play(pos.parse_uci("e2e4").unwrap()).unwrap();
    /// // No en-passant square: no black pawn can take on e3.
    /// assert_eq!(
    ///     pos.fen(),
    ///     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    /// );
    /// ```
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(90);
        write_placement(&mut out, |sq| self.piece_on(sq));
        out.push(' ');
        out.push(self.turn.char());
        out.push(' ');
        out.push_str(&self.castling_fen());
        out.push(' ');
        match self.fen_ep_square {
            Some(sq) => out.push_str(&sq.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(" {} {}", self.halfmoves, self.fullmoves));
        out
    }

    /// The castling field of the FEN.
    pub fn castling_fen(&self) -> String {
        let mut out = String::new();
        for color in Color::ALL {
            let king = self.king(color);
            let mut rooks: Vec<Square> = (self.castling & back_rank(color)).collect();
            rooks.sort_by_key(|r| std::cmp::Reverse(r.file()));
            for rook in rooks {
                let c = if self.chess960 {
                    rook.file().char()
                } else if rook.file() > king.file() {
                    'k'
                } else {
                    'q'
                };
                out.push(if color == Color::White {
                    c.to_ascii_uppercase()
                } else {
                    c
                });
            }
        }
        if out.is_empty() {
            out.push('-');
        }
        out
    }
}

/// Whether `color`'s material can arise in play: at most 16 men, at most 8 pawns, and no more
/// pieces beyond the initial set (a second queen, a third rook or knight, a second bishop on
/// one square colour) than pawns are missing.
fn material_can_arise(pos: &Position, color: Color) -> bool {
    let mine = pos.by_color(color);
    let count = |role: Role| (mine & pos.by_role(role)).count() as i64;
    let bishops = mine & pos.by_role(Role::Bishop);
    let light = (bishops & Bitboard::LIGHT_SQUARES).count() as i64;
    let dark = bishops.count() as i64 - light;
    let promoted = (count(Role::Queen) - 1).max(0)
        + (count(Role::Rook) - 2).max(0)
        + (count(Role::Knight) - 2).max(0)
        + (light - 1).max(0)
        + (dark - 1).max(0);
    mine.count() <= 16 && count(Role::Pawn) + promoted <= 8
}

fn validate_ep(pos: &Position, ep: Square, mode: FenMode) -> Result<(), FenError> {
    let us = pos.turn;
    let bad = Err(FenError::ImpossibleEnPassant(ep));
    if ep.rank() != Rank::new(5).relative(us) {
        return bad;
    }
    let pushed = Square::new(ep.index() as u32 ^ 8);
    let origin = Square::new(ep.index() as u32 ^ 24);
    let occ = pos.occupied();
    if !pos.pieces(!us, Role::Pawn).contains(pushed) || occ.contains(ep) || occ.contains(origin) {
        return bad;
    }
    if mode == FenMode::Strict {
        // The double push must have been legal: before it, with the pawn back on its origin,
        // the pushing side could not have been in check, and the side to move now can only be
        // in check by the pawn or by a slider the push uncovered.
        let king = pos.king(us);
        // Before the push the side to move now was the side not to move: it was not in check.
        let occ_before = (occ - pushed) | origin;
        let attacked_before = (pos.attackers_to(king, !us, occ_before) - pushed).nonempty()
            || crate::attacks::pawn_attacks(!us, origin).contains(king);
        if attacked_before {
            return bad;
        }
        let checkers = pos.attackers_to(king, !us, occ);
        for checker in checkers {
            let uncovered =
                line(king, checker).contains(origin) && between(king, checker).contains(origin);
            if checker != pushed && !uncovered {
                return bad;
            }
        }
    }
    Ok(())
}

/// Rejects checks that no legal move can give: three or more checkers, or two checkers of
/// which neither could have been uncovered.
fn check_possible_checkers(pos: &Position) -> Result<(), FenError> {
    let checkers = pos.checkers();
    if checkers.count() > 2 {
        return Err(FenError::ImpossibleCheck);
    }
    if checkers.count() == 2 {
        let sliders =
            pos.by_role(Role::Bishop) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
        if (checkers & sliders).is_empty() {
            return Err(FenError::ImpossibleCheck);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_round_trips() {
        let pos: Position = START_FEN.parse().unwrap();
        assert_eq!(pos.fen(), START_FEN);
        assert_eq!(pos, Position::startpos());
    }

    #[test]
    fn four_fields_default_clocks() {
        let pos = Position::from_fen("8/8/8/8/8/8/8/K6k w - -", FenMode::Strict).unwrap();
        assert_eq!(pos.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
    }

    #[test]
    fn errors_are_precise() {
        let e = |f: &str| Position::from_fen(f, FenMode::Strict).unwrap_err();
        assert_eq!(e("8/8/8/8/8/8/8/K6k w -"), FenError::WrongFieldCount(3));
        assert_eq!(e("8/8/8/8/8/8/K6k w - -"), FenError::WrongRankCount(7));
        assert_eq!(
            e("8/8/8/8/8/8/8/K5k w - -"),
            FenError::RankLength {
                rank: 1,
                squares: 7
            }
        );
        assert!(matches!(
            e("8/8/8/8/8/8/8/K6x w - -"),
            FenError::BadPieceLetter { letter: 'x', .. }
        ));
        assert_eq!(
            e("8/8/8/8/8/8/8/7k w - -"),
            FenError::MissingKing(Color::White)
        );
        assert_eq!(
            e("8/8/8/8/8/8/8/KK5k w - -"),
            FenError::TooManyKings(Color::White)
        );
        assert_eq!(
            e("P7/8/8/8/8/8/8/K6k w - -"),
            FenError::PawnOnBackRank(Square::A8)
        );
        assert_eq!(e("8/8/8/8/8/8/8/Kk6 w - -"), FenError::KingsTouching);
        assert_eq!(e("8/8/8/8/8/8/8/KR5k w - -"), FenError::OppositeCheck);
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k x - -"),
            FenError::BadSideToMove("x".into())
        );
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w K -"),
            FenError::CastlingWithoutKingAndRook('K')
        );
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w - e9"),
            FenError::BadEnPassant("e9".into())
        );
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w - e6"),
            FenError::ImpossibleEnPassant(Square::E6)
        );
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w - - x 1"),
            FenError::BadHalfmoveClock("x".into())
        );
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w - - 0 -1"),
            FenError::BadFullmoveNumber("-1".into())
        );
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w - - 0 100001"),
            FenError::BadFullmoveNumber("100001".into())
        );
    }

    #[test]
    fn a_fullmove_number_of_zero_reads_as_one() {
        for mode in [FenMode::Strict, FenMode::Lenient] {
            let pos = Position::from_fen("8/8/8/8/8/8/8/K6k w - - 0 0", mode).unwrap();
            assert_eq!(pos.fullmoves(), 1);
            assert_eq!(pos.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
        }
    }

    #[test]
    fn lenient_accepts_impossible_ep_check() {
        let fen = "8/5bk1/8/2Pp4/8/1K6/8/8 w - d6 0 1";
        assert!(Position::from_fen(fen, FenMode::Strict).is_err());
        let pos = Position::from_fen(fen, FenMode::Lenient).unwrap();
        assert_eq!(pos.fen(), fen);
    }

    #[test]
    fn shredder_castling_is_chess960() {
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        let pos: Position = fen.parse().unwrap();
        assert!(pos.is_chess960());
        assert_eq!(pos.fen(), fen);
    }

    #[test]
    fn material_beyond_promotions_is_refused_in_both_modes() {
        // Fifteen queens: more legal moves than any position that can arise.
        let fen = "6nk/6nn/Q1Q1Q1Q1/8/Q1Q1Q1Q1/8/Q1Q1Q1Q1/K1Q1Q1Q1 w - - 0 1";
        for mode in [FenMode::Strict, FenMode::Lenient] {
            assert_eq!(
                Position::from_fen(fen, mode).unwrap_err(),
                FenError::TooManyPieces(Color::White)
            );
        }
        // Two light-squared bishops and eight pawns: one promotion too many.
        let fen = "4k3/8/8/8/8/8/PPPPPPPP/2B1KB1B w - - 0 1";
        assert!(Position::from_fen(fen, FenMode::Lenient).is_err());
        // The composed 218-move position (nine queens) is fine and fits a move list.
        let fen = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1";
        let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
        assert_eq!(pos.legal_moves().len(), 218);
    }
}
