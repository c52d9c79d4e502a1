//! Chess 2 positions and their EPD: a FEN, then the armies and the stones
//! (`… w KQkq - 0 1 ck 33`), as the Go engine CGamesPlay/chess2 writes them.

use std::fmt;

use super::Army;
use crate::{
    fen::{read_placement, write_placement},
    Bitboard, Color, FenError, Piece, Rank, Role, Square,
};

/// The most stones a side may hold.
pub const MAX_STONES: u8 = 6;

/// The stones each side starts with.
const START_STONES: u8 = 3;

/// Castling-right bits, in EPD order.
const CASTLING: [(char, u8); 4] = [('K', 1), ('Q', 2), ('k', 4), ('q', 8)];

/// A Chess 2 position: the pieces, the side to move (and whether it is a Two Kings king
/// turn), castling rights, the en-passant square, the clocks, the two armies and the stones.
///
/// A piece letter keeps its standard meaning on the board; its owner's army says how it moves
/// (a Reaper army's `q` is the Reaper, its `r` a Ghost).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chess2Position {
    pub(super) by_color: [Bitboard; 2],
    pub(super) by_role: [Bitboard; 6],
    pub(super) turn: Color,
    pub(super) king_turn: bool,
    pub(super) castling: u8,
    pub(super) ep_square: Option<Square>,
    pub(super) halfmove_clock: u32,
    pub(super) fullmove_number: u32,
    pub(super) armies: [Army; 2],
    pub(super) stones: [u8; 2],
}

/// What is wrong with a Chess 2 EPD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EpdError {
    /// Not the 8 space-separated fields (placement, side, castling, en passant, halfmove
    /// clock, fullmove number, armies, stones).
    WrongFieldCount(usize),
    /// The placement does not have 8 ranks of 8 squares each.
    BadPlacement,
    /// A character in the placement is neither a piece letter nor a digit 1..8.
    BadPieceLetter(char),
    /// A side does not have as many kings as its army (two for Two Kings, else one).
    KingCount(Color),
    /// A pawn stands where no pawn of its army can stand (its promotion rank, or its own back
    /// rank unless the army is Nemesis).
    PawnPlacement(Square),
    /// The side to move is not `w`, `b`, `K` or `k`.
    BadSide(String),
    /// A king turn (`K` or `k`) for a side whose army is not Two Kings.
    KingTurnWithoutTwoKings,
    /// The castling field is not `-` or distinct letters of `KQkq`.
    BadCastling(String),
    /// The en-passant field is not `-` or a square on the third or sixth rank.
    BadEnPassant(String),
    /// A clock is not a number (or the fullmove number is 0).
    BadClock(String),
    /// The armies are not two of the letters `c n e r k a`.
    BadArmies(String),
    /// The stones are not two digits 0..6.
    BadStones(String),
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpdError::WrongFieldCount(n) => write!(
                f,
                "a Chess 2 EPD has 8 fields (placement, side, castling, en passant, clocks, \
                 armies, stones), not {n}"
            ),
            EpdError::BadPlacement => f.write_str("the placement is not 8 ranks of 8 squares"),
            EpdError::BadPieceLetter(c) => write!(f, "'{c}' is not a piece letter"),
            EpdError::KingCount(color) => {
                write!(f, "{color} does not have as many kings as its army")
            }
            EpdError::PawnPlacement(sq) => write!(f, "no pawn of that army can stand on {sq}"),
            EpdError::BadSide(s) => write!(f, "the side to move '{s}' is not w, b, K or k"),
            EpdError::KingTurnWithoutTwoKings => {
                f.write_str("a king turn for a side whose army is not Two Kings")
            }
            EpdError::BadCastling(s) => write!(f, "the castling field '{s}' is not - or KQkq"),
            EpdError::BadEnPassant(s) => {
                write!(
                    f,
                    "the en-passant field '{s}' is not - or a square on rank 3 or 6"
                )
            }
            EpdError::BadClock(s) => write!(f, "the clock '{s}' is not a valid number"),
            EpdError::BadArmies(s) => {
                write!(f, "the armies '{s}' are not two of the letters c n e r k a")
            }
            EpdError::BadStones(s) => write!(f, "the stones '{s}' are not two digits 0 to 6"),
        }
    }
}

impl std::error::Error for EpdError {}

impl Chess2Position {
    /// The start position for two armies: the standard set-up, with a Two Kings side's queen
    /// replaced by its second king; every castling right (as the Go engine writes it; only
    /// Classic can use them), 3 stones each, White to move.
    pub fn start(white: Army, black: Army) -> Chess2Position {
        let row = |army: Army| match army {
            Army::TwoKings => "rnbkkbnr",
            _ => "rnbqkbnr",
        };
        let epd = format!(
            "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1 {}{} {START_STONES}{START_STONES}",
            row(black),
            row(white).to_ascii_uppercase(),
            white.char(),
            black.char()
        );
        Chess2Position::from_epd(&epd).unwrap_or_else(|e| unreachable!("start position: {e}"))
    }

    /// Parses an EPD such as `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ck 33`.
    pub fn from_epd(epd: &str) -> Result<Chess2Position, EpdError> {
        let fields: Vec<&str> = epd.split_whitespace().collect();
        let [placement, side, castling, ep, halfmove, fullmove, armies, stones] = fields[..] else {
            return Err(EpdError::WrongFieldCount(fields.len()));
        };
        let mut pos = Chess2Position {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 6],
            turn: Color::White,
            king_turn: false,
            castling: 0,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
            armies: [Army::Classic; 2],
            stones: [0; 2],
        };
        pos.armies = match armies.chars().map(Army::from_char).collect::<Vec<_>>()[..] {
            [Some(white), Some(black)] => [white, black],
            _ => return Err(EpdError::BadArmies(armies.to_string())),
        };
        pos.parse_placement(placement)?;
        (pos.turn, pos.king_turn) = match side {
            "w" => (Color::White, false),
            "b" => (Color::Black, false),
            "K" => (Color::White, true),
            "k" => (Color::Black, true),
            _ => return Err(EpdError::BadSide(side.to_string())),
        };
        if pos.king_turn && pos.army(pos.turn) != Army::TwoKings {
            return Err(EpdError::KingTurnWithoutTwoKings);
        }
        pos.castling = parse_castling(castling)?;
        pos.ep_square = match ep {
            "-" => None,
            _ => match ep.parse::<Square>() {
                Ok(sq) if matches!(sq.rank().index(), 2 | 5) => Some(sq),
                _ => return Err(EpdError::BadEnPassant(ep.to_string())),
            },
        };
        pos.halfmove_clock = halfmove
            .parse()
            .map_err(|_| EpdError::BadClock(halfmove.to_string()))?;
        pos.fullmove_number = match fullmove.parse() {
            Ok(n) if n >= 1 => n,
            _ => return Err(EpdError::BadClock(fullmove.to_string())),
        };
        pos.stones = match stones.chars().map(|c| c.to_digit(10)).collect::<Vec<_>>()[..] {
            [Some(white), Some(black)] if white.max(black) <= u32::from(MAX_STONES) => {
                [white as u8, black as u8]
            }
            _ => return Err(EpdError::BadStones(stones.to_string())),
        };
        Ok(pos)
    }

    fn parse_placement(&mut self, placement: &str) -> Result<(), EpdError> {
        read_placement(placement, |sq, piece| self.put(sq, piece)).map_err(|e| match e {
            FenError::BadPieceLetter { letter, .. } => EpdError::BadPieceLetter(letter),
            _ => EpdError::BadPlacement,
        })?;
        for color in Color::ALL {
            let kings = (self.by_color[color as usize] & self.by_role[Role::King.index()]).count();
            if kings != self.army(color).kings() {
                return Err(EpdError::KingCount(color));
            }
            let pawns = self.by_color[color as usize] & self.by_role[Role::Pawn.index()];
            let mut forbidden = Bitboard::rank(Rank::new(7).relative(color));
            if self.army(color) != Army::Nemesis {
                forbidden |= Bitboard::rank(Rank::new(0).relative(color));
            }
            if let Some(sq) = (pawns & forbidden).first() {
                return Err(EpdError::PawnPlacement(sq));
            }
        }
        Ok(())
    }

    /// Puts `piece` on the empty square `sq`.
    pub(super) fn put(&mut self, sq: Square, piece: Piece) {
        self.by_color[piece.color as usize] = self.by_color[piece.color as usize].with(sq);
        self.by_role[piece.role.index()] = self.by_role[piece.role.index()].with(sq);
    }

    /// The EPD of the position, in the Go engine's form.
    pub fn to_epd(&self) -> String {
        let mut out = String::with_capacity(80);
        write_placement(&mut out, |sq| self.piece_at(sq));
        let side = match (self.turn, self.king_turn) {
            (Color::White, false) => 'w',
            (Color::Black, false) => 'b',
            (Color::White, true) => 'K',
            (Color::Black, true) => 'k',
        };
        let mut castling: String = CASTLING
            .iter()
            .filter(|&&(_, bit)| self.castling & bit != 0)
            .map(|&(c, _)| c)
            .collect();
        if castling.is_empty() {
            castling.push('-');
        }
        let ep = self.ep_square.map_or("-".to_string(), |sq| sq.to_string());
        format!(
            "{out} {side} {castling} {ep} {} {} {}{} {}{}",
            self.halfmove_clock,
            self.fullmove_number,
            self.armies[0].char(),
            self.armies[1].char(),
            self.stones[0],
            self.stones[1]
        )
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = Color::ALL
            .into_iter()
            .find(|&c| self.by_color[c as usize].contains(sq))?;
        let role = Role::ALL
            .into_iter()
            .find(|&r| self.by_role[r.index()].contains(sq))?;
        Some(Piece { color, role })
    }

    /// The squares of `color`'s pieces of `role`.
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color as usize] & self.by_role[role.index()]
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Whether the side to move is in its Two Kings king turn (only a warrior king may move
    /// or whirlwind, or the side passes).
    pub fn is_king_turn(&self) -> bool {
        self.king_turn
    }

    /// The armies, White's then Black's.
    pub fn armies(&self) -> [Army; 2] {
        self.armies
    }

    /// The army of `color`.
    pub fn army(&self, color: Color) -> Army {
        self.armies[color as usize]
    }

    /// The stones, White's then Black's.
    pub fn stones(&self) -> [u8; 2] {
        self.stones
    }

    /// The en-passant square, if the last move was a pawn's double step.
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Plies since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The move number (normal turns; a king turn does not count).
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }
}

impl fmt::Display for Chess2Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_epd())
    }
}

/// The castling bits of a castling field (`-`, or distinct letters of `KQkq`).
fn parse_castling(field: &str) -> Result<u8, EpdError> {
    if field == "-" {
        return Ok(0);
    }
    let mut bits = 0;
    for c in field.chars() {
        let bit = CASTLING
            .iter()
            .find(|&&(letter, _)| letter == c)
            .map(|&(_, bit)| bit)
            .filter(|&bit| bits & bit == 0)
            .ok_or_else(|| EpdError::BadCastling(field.to_string()))?;
        bits |= bit;
    }
    Ok(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions_of_every_pair_round_trip() {
        for white in Army::ALL {
            for black in Army::ALL {
                let pos = Chess2Position::start(white, black);
                assert_eq!(pos.armies(), [white, black]);
                assert_eq!(pos.stones(), [3, 3]);
                let again = Chess2Position::from_epd(&pos.to_epd()).unwrap();
                assert_eq!(again, pos);
                for color in Color::ALL {
                    let army = [white, black][color as usize];
                    assert_eq!(pos.pieces(color, Role::King).count(), army.kings());
                    assert_eq!(
                        pos.pieces(color, Role::Queen).count(),
                        2 - army.kings(),
                        "{army}"
                    );
                }
            }
        }
        assert_eq!(
            Chess2Position::start(Army::Nemesis, Army::Empowered).to_epd(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ne 33"
        );
        assert_eq!(
            Chess2Position::start(Army::TwoKings, Army::Classic).to_epd(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 kc 33"
        );
    }

    #[test]
    fn fields_read_back() {
        let pos = Chess2Position::from_epd("4k3/8/8/3pP3/8/8/8/3KK3 K - d6 7 31 ka 06").unwrap();
        assert_eq!(pos.turn(), Color::White);
        assert!(pos.is_king_turn());
        assert_eq!(pos.ep_square(), Some("d6".parse().unwrap()));
        assert_eq!(pos.halfmove_clock(), 7);
        assert_eq!(pos.fullmove_number(), 31);
        assert_eq!(pos.armies(), [Army::TwoKings, Army::Animals]);
        assert_eq!(pos.stones(), [0, 6]);
        assert_eq!(pos.to_epd(), "4k3/8/8/3pP3/8/8/8/3KK3 K - d6 7 31 ka 06");
        // Castling letters in another order are read and written in the usual one.
        let pos = Chess2Position::from_epd("r3k2r/8/8/8/8/8/8/R3K2R b qKkQ - 0 1 cc 33").unwrap();
        assert!(pos.to_epd().contains(" b KQkq - "));
    }

    #[test]
    fn bad_epds_say_what_is_wrong() {
        let bad = |epd: &str| Chess2Position::from_epd(epd).unwrap_err();
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 1 cc")),
            EpdError::WrongFieldCount(7)
        );
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 1 cc 33 x")),
            EpdError::WrongFieldCount(9)
        );
        assert_eq!(
            bad("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1 cc 33"),
            EpdError::BadPlacement
        );
        assert_eq!(
            bad("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 cc 33"),
            EpdError::BadPlacement
        );
        assert_eq!(
            bad("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1 cc 33"),
            EpdError::BadPieceLetter('X')
        );
        // Two Kings needs two kings, the others one.
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 1 kc 33")),
            EpdError::KingCount(Color::White)
        );
        assert_eq!(
            bad("rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 cc 33"),
            EpdError::KingCount(Color::Black)
        );
        assert_eq!(
            bad("4k3/8/8/8/8/8/8/P3K3 w - - 0 1 cc 33"),
            EpdError::PawnPlacement("a1".parse().unwrap())
        );
        // A Nemesis pawn may walk back to its own first rank, never stand on its last.
        assert!(Chess2Position::from_epd("4k3/8/8/8/8/8/8/P3K3 w - - 0 1 nc 33").is_ok());
        assert_eq!(
            bad("P3k3/8/8/8/8/8/8/4K3 w - - 0 1 nc 33"),
            EpdError::PawnPlacement("a8".parse().unwrap())
        );
        assert_eq!(
            bad(&format!("{start} x KQkq - 0 1 cc 33")),
            EpdError::BadSide("x".into())
        );
        assert_eq!(
            bad(&format!("{start} K KQkq - 0 1 cc 33")),
            EpdError::KingTurnWithoutTwoKings
        );
        assert_eq!(
            bad(&format!("{start} w KQkqK - 0 1 cc 33")),
            EpdError::BadCastling("KQkqK".into())
        );
        assert_eq!(
            bad(&format!("{start} w KQkq e4 0 1 cc 33")),
            EpdError::BadEnPassant("e4".into())
        );
        assert_eq!(
            bad(&format!("{start} w KQkq - x 1 cc 33")),
            EpdError::BadClock("x".into())
        );
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 0 cc 33")),
            EpdError::BadClock("0".into())
        );
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 1 cx 33")),
            EpdError::BadArmies("cx".into())
        );
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 1 ccc 33")),
            EpdError::BadArmies("ccc".into())
        );
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 1 cc 37")),
            EpdError::BadStones("37".into())
        );
        assert_eq!(
            bad(&format!("{start} w KQkq - 0 1 cc 3")),
            EpdError::BadStones("3".into())
        );
        // Every error has a message.
        assert!(!bad("").to_string().is_empty());
    }
}
