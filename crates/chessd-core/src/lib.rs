//! # chessd-core
//!
//! The pure chess library under chessd: bitboards and magic/PEXT slider attacks, legal move
//! generation with check and pin masks, copy-make [`Position`], FEN, UCI and SAN notation,
//! PGN, game status and draw rules, perft (bulk, statistics, hashing, parallel) and a mate
//! solver. No I/O, no async. Refused moves say why ([`IllegalReason`],
//! [`Position::why_illegal`]). [`chess2`] is the start of the Chess 2 variant (its positions
//! and notation so far). [`codec`] stores games compactly (moves by rank, Chess 2 steps,
//! clocks).
//!
//! The optional `serde` feature derives `Serialize` and `Deserialize` for [`Color`], [`Role`],
//! [`Square`] (as its name, `"e4"`), [`IllegalReason`], the game's
//! [`GameResult`](game::GameResult), [`Reason`](game::Reason), [`Status`](game::Status) and
//! [`DrawPolicy`](game::DrawPolicy), and [`perft::PerftStats`], with snake_case names.
//!
//! ```
//! use chessd_core::{game::{Game, GameResult, Reason}, perft, Position};
//!
//! let mut game = Game::new(Position::startpos());
//! for san in ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"] {
//!     game.play_san(san).unwrap();
//! }
//! assert_eq!(game.status().result, GameResult::WhiteWins);
//! assert_eq!(game.status().reason, Some(Reason::Checkmate));
//! assert_eq!(perft::perft(&Position::startpos(), 3), 8_902);
//! ```

#![deny(missing_docs)]
// Every `unsafe` block says why it is sound (in a `// SAFETY:` comment).
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod attacks;
mod bitboard;
pub mod chess2;
pub mod codec;
mod color;
pub mod display;
pub mod fen;
pub mod game;
mod illegal;
mod movegen;
mod mv;
pub mod perft;
pub mod pgn;
mod position;
mod role;
pub mod san;
pub mod search;
pub mod solver;
mod square;
pub mod uci;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use color::Color;
pub use fen::{FenError, FenMode, START_FEN};
pub use illegal::IllegalReason;
pub use movegen::{MoveGroupKind, PieceMoves, PieceMovesIter};
pub use mv::{Move, MoveKind, MoveList, MAX_MOVES};
pub use position::{IllegalMove, Position, MAX_FULLMOVE_NUMBER, MAX_HALFMOVE_CLOCK};
pub use role::{Piece, Role};
pub use square::{File, ParseSquareError, Rank, Square};
