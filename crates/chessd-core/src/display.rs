//! Boards and games as text, the diagram parser that reads boards back, and the pieces list.
//!
//! The board diagram is eight rows of squares, rank 8 first (rank 1 first when flipped), each
//! row starting with its rank number, squares separated by one space, pieces as FEN letters
//! (`.` for an empty square), then a line of file letters:
//!
//! ```text
//! 8 r n b q k b n r
//! 7 p p p p p p p p
//! 6 . . . . . . . .
//! 5 . . . . . . . .
//! 4 . . . . P . . .
//! 3 . . . . . . . .
//! 2 P P P P . P P P
//! 1 R N B Q K B N R
//!   a b c d e f g h
//! ```
//!
//! [`parse_diagram`] reads that format back (and the Unicode and flipped variants).
//!
//! ```
//! use chessd_core::display::{board_diagram, parse_diagram, BoardStyle};
//! use chessd_core::{Color, Position};
//!
//! let pos = Position::startpos();
//! let text = board_diagram(&pos, BoardStyle::default());
//! assert!(text.starts_with("8 r n b q k b n r\n"));
//! let back = parse_diagram(&text, Color::White).unwrap();
//! assert_eq!(back.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
//! ```

use std::fmt;

use crate::{game::Game, Color, FenError, FenMode, Piece, Position, Square};

/// How to draw a board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BoardStyle {
    /// Unicode chess symbols (♔ … ♟, `·` for empty) instead of FEN letters and `.`.
    pub unicode: bool,
    /// Black's side at the bottom: rank 1 first, files from h to a.
    pub flipped: bool,
}

/// The symbol for an empty square in Unicode diagrams.
const UNICODE_EMPTY: char = '·';

fn square_symbol(piece: Option<Piece>, unicode: bool) -> char {
    match (piece, unicode) {
        (Some(p), false) => p.char(),
        (Some(p), true) => p.unicode(),
        (None, false) => '.',
        (None, true) => UNICODE_EMPTY,
    }
}

/// The board as nine lines: eight rows of squares with rank numbers, then the file letters.
/// Every line ends with a newline.
pub fn board_diagram(pos: &Position, style: BoardStyle) -> String {
    let mut out = String::with_capacity(9 * 20);
    let ranks: Vec<u32> = if style.flipped {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    };
    let files: Vec<u32> = if style.flipped {
        (0..8).rev().collect()
    } else {
        (0..8).collect()
    };
    for &rank in &ranks {
        out.push(char::from(b'1' + rank as u8));
        for &file in &files {
            out.push(' ');
            out.push(square_symbol(
                pos.piece_on(Square::new(rank * 8 + file)),
                style.unicode,
            ));
        }
        out.push('\n');
    }
    out.push(' ');
    for &file in &files {
        out.push(' ');
        out.push(char::from(b'a' + file as u8));
    }
    out.push('\n');
    out
}

/// The board diagram followed by side to move, last move (SAN and UCI), the half-move clock,
/// the full-move number, the FEN and the status, one per line.
pub fn game_diagram(game: &Game, style: BoardStyle) -> String {
    let pos = game.position();
    let mut out = board_diagram(pos, style);
    out.push('\n');
    let last = match game.last_played() {
        Some(m) => format!("{} ({})", m.san, m.uci),
        None => "-".to_string(),
    };
    out.push_str(&format!("Side to move: {}\n", pos.turn()));
    out.push_str(&format!("Last move: {last}\n"));
    out.push_str(&format!("Halfmove clock: {}\n", pos.halfmoves()));
    out.push_str(&format!("Fullmove number: {}\n", pos.fullmoves()));
    out.push_str(&format!("FEN: {}\n", pos.fen()));
    out.push_str(&format!("Status: {}\n", game.status()));
    out
}

impl fmt::Display for Game {
    /// [`game_diagram`] in the default (ASCII, White at the bottom) style.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&game_diagram(self, BoardStyle::default()))
    }
}

impl Position {
    /// The board diagram (see [`board_diagram`]).
    pub fn diagram(&self, style: BoardStyle) -> String {
        board_diagram(self, style)
    }

    /// Every piece with its square, ordered as Binbo's `get_pieces_list`: from h8 down to a1
    /// (descending square index).
    pub fn pieces_list(&self) -> Vec<(Piece, Square)> {
        (0..64u32)
            .rev()
            .map(Square::new)
            .filter_map(|sq| self.piece_on(sq).map(|piece| (piece, sq)))
            .collect()
    }
}

/// Why a diagram could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagramError {
    /// The text does not hold exactly eight board rows.
    RowCount(usize),
    /// A board row does not describe exactly eight squares.
    RowLength {
        /// The line number in the text, from 1.
        line: usize,
        /// How many squares it described.
        squares: usize,
    },
    /// A line inside the board is not a row of squares.
    BadRow {
        /// The line number in the text, from 1.
        line: usize,
        /// The first character that is neither a piece nor an empty-square symbol.
        symbol: char,
    },
    /// Rank labels are present but are not the eight ranks, each once, in order up or down.
    BadRankLabels,
    /// The board is not a playable position (missing king, pawn on the back rank, …).
    Position(FenError),
}

impl fmt::Display for DiagramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiagramError::RowCount(n) => {
                write!(f, "the diagram has {n} board rows, expected 8")
            }
            DiagramError::RowLength { line, squares } => write!(
                f,
                "line {line} describes {squares} squares, expected 8 (pieces as FEN letters, \
                 '.' for empty)"
            ),
            DiagramError::BadRow { line, symbol } => write!(
                f,
                "line {line} inside the board holds '{symbol}', which is neither a piece \
                 letter nor '.'"
            ),
            DiagramError::BadRankLabels => f.write_str(
                "the rank labels are not 8 down to 1 (or 1 up to 8 for a flipped board)",
            ),
            DiagramError::Position(e) => write!(f, "the board is not a playable position: {e}"),
        }
    }
}

impl std::error::Error for DiagramError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DiagramError::Position(e) => Some(e),
            _ => None,
        }
    }
}

/// Reads a piece or empty-square symbol: FEN letters or Unicode pieces, `.` or `·` for empty.
fn parse_symbol(c: char) -> Option<Option<Piece>> {
    if c == '.' || c == UNICODE_EMPTY {
        return Some(None);
    }
    if let Some(piece) = Piece::from_char(c) {
        return Some(Some(piece));
    }
    Color::ALL
        .into_iter()
        .flat_map(|color| crate::Role::ALL.map(|role| Piece { color, role }))
        .find(|p| p.unicode() == c)
        .map(Some)
}

/// One line of a diagram, classified.
enum Line {
    /// Blank, a border of `+`/`-`, or a line of file letters.
    Skip {
        /// `Some(true)` for file letters from h to a, `Some(false)` for a to h.
        files_reversed: Option<bool>,
    },
    /// A row of squares with its optional rank label.
    Row {
        rank: Option<u8>,
        squares: Vec<Option<Piece>>,
    },
    /// Anything else; carries the first unreadable character.
    Other(char),
}

fn classify(text: &str) -> Line {
    let cleaned = text.replace('|', " ");
    let trimmed = cleaned.trim();
    if trimmed
        .chars()
        .all(|c| c == '+' || c == '-' || c.is_whitespace())
    {
        return Line::Skip {
            files_reversed: None,
        };
    }
    let mut tokens: Vec<&str> = trimmed.split_whitespace().collect();
    let letters: String = tokens.concat().to_ascii_lowercase();
    if tokens.iter().all(|t| t.len() == 1) {
        if letters == "abcdefgh" {
            return Line::Skip {
                files_reversed: Some(false),
            };
        }
        if letters == "hgfedcba" {
            return Line::Skip {
                files_reversed: Some(true),
            };
        }
    }
    let label = |t: &str| -> Option<u8> {
        let mut chars = t.chars();
        match (chars.next(), chars.next()) {
            (Some(c @ '1'..='8'), None) => Some(c as u8 - b'0'),
            _ => None,
        }
    };
    let mut rank = None;
    if let Some(r) = tokens.first().and_then(|t| label(t)) {
        rank = Some(r);
        tokens.remove(0);
    }
    if let Some(r) = tokens.last().and_then(|t| label(t)) {
        if rank.is_none() || rank == Some(r) {
            rank = Some(r);
            tokens.pop();
        }
    }
    let mut squares = Vec::with_capacity(8);
    for c in tokens.iter().flat_map(|t| t.chars()) {
        match parse_symbol(c) {
            Some(square) => squares.push(square),
            None => return Line::Other(c),
        }
    }
    Line::Row { rank, squares }
}

/// Reads a board diagram as [`board_diagram`] writes it (ASCII or Unicode, flipped or not)
/// and builds the position with `turn` to move, no castling rights, no en-passant square and
/// clocks `0 1`. Rank and file labels are optional and ignored except to tell a flipped
/// board; without labels the first row is rank 8, files a to h. Lines of other text before or
/// after the board (such as [`game_diagram`]'s details) are ignored; squares may be separated
/// by spaces or written together (`rnbqkbnr`), and `|`/`+`/`-` box drawing is skipped. The
/// position is checked as a lenient FEN (one king each, no pawns on back ranks, the side not
/// to move not in check).
pub fn parse_diagram(text: &str, turn: Color) -> Result<Position, DiagramError> {
    let mut rows: Vec<(Option<u8>, Vec<Option<Piece>>)> = Vec::with_capacity(8);
    let mut files_reversed = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        match classify(line) {
            Line::Skip { files_reversed: f } => files_reversed = files_reversed.or(f),
            Line::Row { rank, squares } => {
                if squares.len() != 8 {
                    return Err(DiagramError::RowLength {
                        line: number,
                        squares: squares.len(),
                    });
                }
                rows.push((rank, squares));
            }
            Line::Other(symbol) => {
                if (1..8).contains(&rows.len()) {
                    return Err(DiagramError::BadRow {
                        line: number,
                        symbol,
                    });
                }
            }
        }
    }
    if rows.len() != 8 {
        return Err(DiagramError::RowCount(rows.len()));
    }

    // Rank order: from the labels if every row has one, otherwise rank 8 first.
    let labels: Vec<Option<u8>> = rows.iter().map(|(r, _)| *r).collect();
    let flipped = if labels.iter().all(Option::is_some) {
        let down: Vec<Option<u8>> = (1..=8).rev().map(Some).collect();
        let up: Vec<Option<u8>> = (1..=8).map(Some).collect();
        if labels == down {
            false
        } else if labels == up {
            true
        } else {
            return Err(DiagramError::BadRankLabels);
        }
    } else {
        false
    };
    let files_reversed = files_reversed.unwrap_or(flipped);

    let mut board = [None; 64];
    for (i, (_, squares)) in rows.iter().enumerate() {
        let rank = if flipped { i } else { 7 - i };
        for (j, &piece) in squares.iter().enumerate() {
            let file = if files_reversed { 7 - j } else { j };
            board[rank * 8 + file] = piece;
        }
    }
    let mut placement = String::with_capacity(72);
    for rank in (0..8).rev() {
        let mut empty = 0u8;
        for file in 0..8 {
            match board[rank * 8 + file] {
                Some(piece) => {
                    if empty > 0 {
                        placement.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    placement.push(piece.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            placement.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            placement.push('/');
        }
    }
    let fen = format!("{placement} {} - - 0 1", turn.char());
    Position::from_fen(&fen, FenMode::Lenient).map_err(DiagramError::Position)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1";

    fn placement(pos: &Position) -> String {
        pos.fen().split(' ').next().unwrap().to_string()
    }

    #[test]
    fn startpos_ascii_diagram() {
        let text = board_diagram(&Position::startpos(), BoardStyle::default());
        let expected = "8 r n b q k b n r\n\
                        7 p p p p p p p p\n\
                        6 . . . . . . . .\n\
                        5 . . . . . . . .\n\
                        4 . . . . . . . .\n\
                        3 . . . . . . . .\n\
                        2 P P P P P P P P\n\
                        1 R N B Q K B N R\n  \
                        a b c d e f g h\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn flipped_diagram_starts_at_rank_one_from_h() {
        let text = board_diagram(
            &Position::startpos(),
            BoardStyle {
                unicode: false,
                flipped: true,
            },
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "1 R N B K Q B N R");
        assert_eq!(lines[7], "8 r n b k q b n r");
        assert_eq!(lines[8], "  h g f e d c b a");
    }

    #[test]
    fn all_styles_round_trip() {
        let pos = Position::from_fen(KIWIPETE, FenMode::Lenient).unwrap();
        for unicode in [false, true] {
            for flipped in [false, true] {
                let text = board_diagram(&pos, BoardStyle { unicode, flipped });
                let back = parse_diagram(&text, Color::White).unwrap();
                assert_eq!(placement(&back), placement(&pos), "{unicode} {flipped}");
            }
        }
    }

    #[test]
    fn compact_rows_without_labels() {
        let text =
            "rnbqkbnr\npppppppp\n........\n........\n....P...\n........\nPPPP.PPP\nRNBQKBNR\n";
        let pos = parse_diagram(text, Color::Black).unwrap();
        assert_eq!(
            pos.fen(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1"
        );
    }

    #[test]
    fn bad_diagrams_are_errors() {
        assert_eq!(
            parse_diagram("", Color::White),
            Err(DiagramError::RowCount(0))
        );
        let short = "8 r n b q k b n\n7 p p p p p p p p\n";
        assert!(matches!(
            parse_diagram(short, Color::White),
            Err(DiagramError::RowLength {
                line: 1,
                squares: 7
            })
        ));
        let mut text = board_diagram(&Position::startpos(), BoardStyle::default());
        text = text.replace("6 . . . . . . . .", "6 . . . x . . . .");
        assert!(matches!(
            parse_diagram(&text, Color::White),
            Err(DiagramError::BadRow {
                line: 3,
                symbol: 'x'
            })
        ));
        let no_king = "8/8/8/8/8/8/8/8";
        let rows = no_king.replace('8', "........").replace('/', "\n");
        assert!(matches!(
            parse_diagram(&rows, Color::White),
            Err(DiagramError::Position(FenError::MissingKing(_)))
        ));
    }

    #[test]
    fn pieces_list_is_descending_by_square() {
        let list = Position::startpos().pieces_list();
        assert_eq!(list.len(), 32);
        assert_eq!(list[0].1, Square::H8);
        assert_eq!(list[31].1, Square::A1);
        assert!(list.windows(2).all(|w| w[0].1.index() > w[1].1.index()));
    }
}
