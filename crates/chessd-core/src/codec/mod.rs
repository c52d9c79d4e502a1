//! Compact storage of games: a standard chess game of 80 plies with its clocks in well under
//! 200 bytes. Pure: bytes in, bytes out, no I/O.
//!
//! - [`MoveWriter`] / [`MoveReader`]: standard chess moves (any start position, Chess960
//!   too), each as its rank among the legal moves in a fixed order of likely moves first,
//!   Huffman-coded with a fixed table (the lichess approach, with an order and table of our
//!   own).
//! - [`Chess2StepWriter`] / [`Chess2StepReader`]: the steps of a Chess 2 game (moves and the
//!   duels' challenges and bids), each with what the game allows at that point.
//! - [`ClockWriter`] / [`ClockReader`]: the clocks after each step, lossless, as the time
//!   spent in an adaptive Exp-Golomb code.
//! - [`BitWriter`] / [`BitReader`]: the bits under them, so that one record can hold the
//!   moves and then the clocks (the writers' `with_bits`/`into_bits`, the readers'
//!   `from_bits`/`into_bits`).
//!
//! Nothing in the encoding says how many moves or steps it holds: the caller stores the
//! count (and the start position, and the time control) beside the bytes.
//!
//! ```
//! use chessd_core::codec::{ClockReader, ClockWriter, MoveReader, MoveWriter, TimeControl};
//! use chessd_core::{Color, Position};
//!
//! let tc = TimeControl { initial_ms: 300_000, increment_ms: 3_000 };
//! let start = Position::startpos();
//! let (mut pos, mut moves) = (start, MoveWriter::new());
//! let mut clocks = Vec::new();
//! for (uci, white, black) in [("d2d4", 302_000, 300_000), ("g8f6", 302_000, 301_100)] {
//!     let mv = pos.parse_uci(uci).unwrap();
//!     moves.push(&pos, mv).unwrap();
//!     pos.play_unchecked(mv);
//!     clocks.push([white, black]);
//! }
//! // One record: the moves, then the clocks.
//! let mut writer = ClockWriter::with_bits(moves.into_bits(), tc);
//! for (ply, &c) in clocks.iter().enumerate() {
//!     writer.push(if ply % 2 == 0 { Color::White } else { Color::Black }, c);
//! }
//! let bytes = writer.finish();
//!
//! let mut reader = MoveReader::new(start, &bytes, 2);
//! let mut movers = Vec::new();
//! while let Some(mv) = reader.next() {
//!     mv.unwrap();
//!     // The side that moved: the one not to move now.
//!     movers.push(!reader.position().turn());
//! }
//! let mut clock_reader = ClockReader::from_bits(tc, reader.into_bits());
//! for (mover, expected) in movers.into_iter().zip(clocks) {
//!     assert_eq!(clock_reader.next_clocks(mover).unwrap(), expected);
//! }
//! ```

mod bits;
mod chess2;
mod clocks;
mod error;
mod huffman;
mod moves;
mod order;
mod rank_table;
mod universal;

pub use bits::{BitReader, BitWriter};
pub use chess2::{decode_chess2, encode_chess2, Chess2StepReader, Chess2StepWriter};
pub use clocks::{decode_clocks, encode_clocks, ClockReader, ClockWriter, TimeControl};
pub use error::CodecError;
pub use moves::{decode_moves, encode_moves, MoveReader, MoveWriter};
pub use universal::{
    read_exp_golomb, read_truncated, unzigzag, write_exp_golomb, write_truncated, zigzag,
};
