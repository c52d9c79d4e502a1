//! Standard chess moves (any start position, Chess960 included) by rank: a move is written
//! as its rank among its position's legal moves in the fixed order of [`order`](super::order),
//! in the canonical Huffman code of [`rank_table`](super::rank_table).

use std::fmt;

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

    /// Reads the next move, plays it, and writes its SAN (with its `+` or `#`, as
    /// [`Position::san`] writes it) to `san`. The disambiguation comes from the legal moves the
    /// reader listed to find the move, so this adds no move generation but a check's test for
    /// mate.
    ///
    /// ```
    /// use chessd_core::codec::{encode_moves, MoveReader};
    /// use chessd_core::Position;
    ///
    /// let start = Position::startpos();
    /// let moves: Vec<_> = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    ///     .iter()
    ///     .scan(start, |pos, uci| {
    ///         let mv = pos.parse_uci(uci).unwrap();
    ///         pos.play_unchecked(mv);
    ///         Some(mv)
    ///     })
    ///     .collect();
    /// let bytes = encode_moves(&start, &moves).unwrap();
    /// let mut reader = MoveReader::new(start, &bytes, moves.len());
    /// let mut sans = Vec::new();
    /// let mut san = String::new();
    /// while let Some(mv) = reader.next_noted(&mut san) {
    ///     mv.unwrap();
    ///     sans.push(std::mem::take(&mut san));
    /// }
    /// assert_eq!(sans, ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]);
    /// ```
    pub fn next_noted(&mut self, san: &mut impl fmt::Write) -> Option<Result<Move, CodecError>> {
        if self.left == 0 {
            return None;
        }
        let before = self.pos;
        let result = self.read_move();
        match result {
            Ok(mv) => {
                self.left -= 1;
                let others = self.ranker.others(&before, mv);
                before.write_san_known(mv, others, &self.pos, san);
            }
            Err(_) => self.left = 0,
        }
        Some(result)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{movegen::tests::Rng, FenMode};

    /// A read move's SAN is the one [`Position::san`] writes, and so is a move written with
    /// [`Position::append_san_and_play`] (which then plays it as `play_unchecked` does), in
    /// random games from starts rich in pins, en passant, promotions and castling, one
    /// Chess960 start, and one where three queens and two knights reach the same squares
    /// (disambiguation by file, by rank and by both).
    #[test]
    fn a_noted_move_is_written_as_san_writes_it() {
        let mut starts = crate::movegen::tests::RICH_STARTS.to_vec();
        starts.push("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
        starts.push("8/8/2N4k/8/Q3Q3/8/2N5/Q3K3 w - - 0 1");
        let mut rng = Rng(0x5EED_0F5A_4A11_7E57);
        let (mut plies, mut checks, mut mates, mut disambiguated) = (0, 0, 0, 0);
        for fen in starts {
            let start = Position::from_fen(fen, FenMode::Lenient).unwrap();
            for _ in 0..60 {
                let mut pos = start;
                let mut moves = Vec::new();
                let mut expected = Vec::new();
                for _ in 0..100 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let mv = legal[rng.below(legal.len())];
                    let want = pos.san(mv);
                    // A game's history is written the quick way, the move known legal.
                    let mut quick = pos;
                    let mut san = String::new();
                    quick.append_san_and_play(mv, &mut san);
                    assert_eq!(san, want, "{}", pos.fen());
                    expected.push(want);
                    moves.push(mv);
                    pos.play_unchecked(mv);
                    assert_eq!(quick, pos);
                }
                let bytes = encode_moves(&start, &moves).unwrap();
                let mut reader = MoveReader::new(start, &bytes, moves.len());
                let mut san = String::new();
                for (i, want) in expected.iter().enumerate() {
                    san.clear();
                    let mv = reader.next_noted(&mut san).unwrap().unwrap();
                    assert_eq!(mv, moves[i]);
                    assert_eq!(&san, want, "ply {i} from {fen}");
                    checks += usize::from(want.ends_with('+'));
                    mates += usize::from(want.ends_with('#'));
                    let body = want.trim_end_matches(['+', '#']);
                    disambiguated += usize::from(
                        body.starts_with(['N', 'B', 'R', 'Q']) && body.replace('x', "").len() > 3,
                    );
                    plies += 1;
                }
                assert!(reader.next_noted(&mut san).is_none());
            }
        }
        assert!(
            plies > 30_000 && checks > 500 && mates > 0 && disambiguated > 300,
            "{plies} plies, {checks} checks, {mates} mates, {disambiguated} disambiguated"
        );
    }
}
