//! Standard chess moves (any start position, Chess960 included) by rank: a move is written
//! as its rank among its position's legal moves in the fixed order of [`order`](super::order),
//! in the canonical Huffman code of [`rank_table`](super::rank_table).

use super::{order::Ranker, rank_table::RANK_CODES, BitReader, BitWriter, CodecError};
use crate::{Move, Position};

/// Writes standard chess moves, one position at a time.
///
/// ```
/// use chessd_core::codec::{MoveReader, MoveWriter};
/// use chessd_core::Position;
///
/// let mut pos = Position::startpos();
/// let mut writer = MoveWriter::new();
/// for uci in ["e2e4", "e7e5", "g1f3"] {
///     let mv = pos.parse_uci(uci).unwrap();
///     writer.push(&pos, mv).unwrap();
///     pos.play_unchecked(mv);
/// }
/// let bytes = writer.finish();
/// assert_eq!(bytes.len(), 2);
/// let mut reader = MoveReader::new(Position::startpos(), &bytes, 3);
/// let moves: Vec<_> = reader.by_ref().collect::<Result<_, _>>().unwrap();
/// assert_eq!(moves.len(), 3);
/// assert_eq!(reader.position(), &pos);
/// ```
pub struct MoveWriter {
    bits: BitWriter,
    ranker: Ranker,
}

impl MoveWriter {
    /// An empty writer.
    pub fn new() -> MoveWriter {
        MoveWriter::with_bits(BitWriter::new())
    }

    /// A writer that appends to `bits` (after whatever they already hold).
    pub fn with_bits(bits: BitWriter) -> MoveWriter {
        MoveWriter {
            bits,
            ranker: Ranker::new(),
        }
    }

    /// Appends `mv`, played in `pos`; an illegal move is refused and nothing is written.
    pub fn push(&mut self, pos: &Position, mv: Move) -> Result<(), CodecError> {
        let rank = self
            .ranker
            .rank_of(pos, mv)
            .ok_or(CodecError::IllegalMove(mv))?;
        RANK_CODES.write(&mut self.bits, rank);
        Ok(())
    }

    /// How many bits have been written.
    pub fn len_bits(&self) -> usize {
        self.bits.len_bits()
    }

    /// The bits written, to append something else (the clocks) to.
    pub fn into_bits(self) -> BitWriter {
        self.bits
    }

    /// The bytes (the last one padded with zero bits).
    pub fn finish(self) -> Vec<u8> {
        self.bits.finish()
    }
}

impl Default for MoveWriter {
    fn default() -> MoveWriter {
        MoveWriter::new()
    }
}

/// Reads a known number of standard chess moves, replaying them from the start position:
/// an iterator of moves, with [`MoveReader::position`] the position after the last one read.
/// Reading allocates nothing. After an error the iterator ends.
pub struct MoveReader<'a> {
    bits: BitReader<'a>,
    pos: Position,
    left: usize,
    ranker: Ranker,
}

impl<'a> MoveReader<'a> {
    /// A reader of `count` moves from `start`, encoded in `bytes`.
    pub fn new(start: Position, bytes: &'a [u8], count: usize) -> MoveReader<'a> {
        MoveReader::from_bits(start, BitReader::new(bytes), count)
    }

    /// A reader of `count` moves from `start`, read from `bits` on.
    pub fn from_bits(start: Position, bits: BitReader<'a>, count: usize) -> MoveReader<'a> {
        MoveReader {
            bits,
            pos: start,
            left: count,
            ranker: Ranker::new(),
        }
    }

    /// The position after the moves read so far.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// How many moves are still to be read.
    pub fn moves_left(&self) -> usize {
        self.left
    }

    /// The bits after the moves read so far (the clocks, when written after the moves).
    pub fn into_bits(self) -> BitReader<'a> {
        self.bits
    }

    /// Reads the next move and plays it.
    fn read_move(&mut self) -> Result<Move, CodecError> {
        let rank = RANK_CODES.read(&mut self.bits)?;
        let mv = self
            .ranker
            .move_at(&self.pos, rank)
            .ok_or(CodecError::Corrupt)?;
        self.pos.play_unchecked(mv);
        Ok(mv)
    }
}

impl Iterator for MoveReader<'_> {
    type Item = Result<Move, CodecError>;

    fn next(&mut self) -> Option<Result<Move, CodecError>> {
        if self.left == 0 {
            return None;
        }
        let result = self.read_move();
        self.left = if result.is_ok() { self.left - 1 } else { 0 };
        Some(result)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

/// The moves of a game from `start`, encoded.
pub fn encode_moves(start: &Position, moves: &[Move]) -> Result<Vec<u8>, CodecError> {
    let mut writer = MoveWriter::new();
    let mut pos = *start;
    for &mv in moves {
        writer.push(&pos, mv)?;
        pos.play_unchecked(mv);
    }
    Ok(writer.finish())
}

/// The `count` moves encoded in `bytes` from `start`; bytes that hold more than those moves
/// (beyond the last byte's zero padding) are refused.
pub fn decode_moves(start: &Position, bytes: &[u8], count: usize) -> Result<Vec<Move>, CodecError> {
    let mut reader = MoveReader::new(*start, bytes, count);
    let mut moves = Vec::with_capacity(count.min(1024));
    for mv in reader.by_ref() {
        moves.push(mv?);
    }
    reader.into_bits().expect_end()?;
    Ok(moves)
}
