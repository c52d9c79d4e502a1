//! Clocks, lossless, in milliseconds: after each step, the time the mover spent
//! (`before + increment - after`) in an Exp-Golomb code whose order follows a running mean of
//! that side's times; anything else (a negative time, the other clock changed) is escaped.
//!
//! Per step, with `k` the mover's current order:
//! - `spent >= 0`, other clock unchanged: `ExpGolomb_k(spent + 1)`;
//! - escape: `ExpGolomb_k(0)`, then one bit: `0` and `ExpGolomb_k(-spent - 1)` for a
//!   negative time with the other clock unchanged, or `1` and both clocks in full
//!   (`ExpGolomb_16` each, white first).

use super::{
    universal::{read_exp_golomb, write_exp_golomb},
    BitReader, BitWriter, CodecError,
};
use crate::Color;

/// A game's time control: what both clocks start with and what a step adds to its mover's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// The time each side starts with, in milliseconds.
    pub initial_ms: u64,
    /// The time added to the mover's clock after each step, in milliseconds.
    pub increment_ms: u64,
}

/// The order of the Exp-Golomb code for full clock values (escapes).
const FULL_K: u32 = 16;
/// Times larger than this are escaped (so that `spent + 1` cannot overflow).
const MAX_SPENT: u64 = 1 << 56;
/// The running mean forgets by halving its sum and count at this count.
const WINDOW: u32 = 16;

/// What writer and reader both track: the last clocks and each side's running mean.
#[derive(Clone, Debug)]
struct ClockState {
    increment: u64,
    clocks: [u64; 2],
    /// Per side: the sum of recent times spent and how many there are.
    sum: [u64; 2],
    count: [u32; 2],
}

impl ClockState {
    fn new(tc: TimeControl) -> ClockState {
        // A first guess: a fortieth of the initial time per move.
        let guess = (tc.initial_ms / 40).max(1);
        ClockState {
            increment: tc.increment_ms,
            clocks: [tc.initial_ms; 2],
            sum: [guess; 2],
            count: [1; 2],
        }
    }

    /// The Exp-Golomb order for `side`: one less than the bit length of its mean time.
    fn order(&self, side: usize) -> u32 {
        let mean = self.sum[side] / u64::from(self.count[side]);
        (64 - mean.leading_zeros()).saturating_sub(1).min(32)
    }

    /// Takes in a time spent by `side`.
    fn learn(&mut self, side: usize, spent: u64) {
        self.sum[side] = self.sum[side].saturating_add(spent.min(MAX_SPENT));
        self.count[side] += 1;
        if self.count[side] >= WINDOW {
            self.sum[side] /= 2;
            self.count[side] /= 2;
        }
    }
}

/// Writes the clocks after each step.
#[derive(Clone, Debug)]
pub struct ClockWriter {
    bits: BitWriter,
    state: ClockState,
}

impl ClockWriter {
    /// An empty writer for a game with time control `tc`.
    pub fn new(tc: TimeControl) -> ClockWriter {
        ClockWriter::with_bits(BitWriter::new(), tc)
    }

    /// A writer that appends to `bits` (the moves, for one record).
    pub fn with_bits(bits: BitWriter, tc: TimeControl) -> ClockWriter {
        ClockWriter {
            bits,
            state: ClockState::new(tc),
        }
    }

    /// Appends the clocks `[white, black]` (milliseconds) after a step by `mover`.
    pub fn push(&mut self, mover: Color, clocks: [u64; 2]) {
        let s = &mut self.state;
        let (me, other) = (mover.index(), (!mover).index());
        let k = s.order(me);
        let credit = u128::from(s.clocks[me]) + u128::from(s.increment);
        let spent = credit as i128 - i128::from(clocks[me]);
        let w = &mut self.bits;
        if clocks[other] == s.clocks[other] && (0..MAX_SPENT as i128).contains(&spent) {
            write_exp_golomb(w, spent as u64 + 1, k);
            s.learn(me, spent as u64);
        } else {
            write_exp_golomb(w, 0, k);
            if clocks[other] == s.clocks[other] && (-(MAX_SPENT as i128)..0).contains(&spent) {
                w.write_bit(false);
                write_exp_golomb(w, (-spent - 1) as u64, k);
            } else {
                w.write_bit(true);
                write_exp_golomb(w, clocks[0], FULL_K);
                write_exp_golomb(w, clocks[1], FULL_K);
            }
        }
        s.clocks = clocks;
    }

    /// How many bits have been written.
    pub fn len_bits(&self) -> usize {
        self.bits.len_bits()
    }

    /// The bytes (the last one padded with zero bits).
    pub fn finish(self) -> Vec<u8> {
        self.bits.finish()
    }
}

/// Reads the clocks after each step; the caller says whose step it was.
#[derive(Clone, Debug)]
pub struct ClockReader<'a> {
    bits: BitReader<'a>,
    state: ClockState,
}

impl<'a> ClockReader<'a> {
    /// A reader of clocks encoded in `bytes` for a game with time control `tc`.
    pub fn new(tc: TimeControl, bytes: &'a [u8]) -> ClockReader<'a> {
        ClockReader::from_bits(tc, BitReader::new(bytes))
    }

    /// A reader of clocks read from `bits` on (after the moves, for one record).
    pub fn from_bits(tc: TimeControl, bits: BitReader<'a>) -> ClockReader<'a> {
        ClockReader {
            bits,
            state: ClockState::new(tc),
        }
    }

    /// The clocks `[white, black]` after the next step, by `mover`.
    pub fn next_clocks(&mut self, mover: Color) -> Result<[u64; 2], CodecError> {
        let s = &mut self.state;
        let r = &mut self.bits;
        let me = mover.index();
        let k = s.order(me);
        let credit = u128::from(s.clocks[me]) + u128::from(s.increment);
        let symbol = read_exp_golomb(r, k)?;
        let mut clocks = s.clocks;
        if symbol > 0 {
            let spent = symbol - 1;
            if spent >= MAX_SPENT {
                return Err(CodecError::Corrupt);
            }
            let after = credit
                .checked_sub(u128::from(spent))
                .ok_or(CodecError::Corrupt)?;
            clocks[me] = u64::try_from(after).map_err(|_| CodecError::Corrupt)?;
            s.learn(me, spent);
        } else if !r.read_bit()? {
            let gained = read_exp_golomb(r, k)?;
            if gained >= MAX_SPENT {
                return Err(CodecError::Corrupt);
            }
            let after = credit + u128::from(gained) + 1;
            clocks[me] = u64::try_from(after).map_err(|_| CodecError::Corrupt)?;
        } else {
            clocks = [read_exp_golomb(r, FULL_K)?, read_exp_golomb(r, FULL_K)?];
        }
        s.clocks = clocks;
        Ok(clocks)
    }

    /// The bits after the clocks read so far.
    pub fn into_bits(self) -> BitReader<'a> {
        self.bits
    }
}

/// The clocks after each step (whose mover comes with them), encoded.
pub fn encode_clocks(tc: TimeControl, steps: &[(Color, [u64; 2])]) -> Vec<u8> {
    let mut writer = ClockWriter::new(tc);
    for &(mover, clocks) in steps {
        writer.push(mover, clocks);
    }
    writer.finish()
}

/// The clocks after each step by `movers`, decoded; bytes that hold more are refused.
pub fn decode_clocks(
    tc: TimeControl,
    bytes: &[u8],
    movers: impl IntoIterator<Item = Color>,
) -> Result<Vec<[u64; 2]>, CodecError> {
    let mut reader = ClockReader::new(tc, bytes);
    let clocks = movers
        .into_iter()
        .map(|mover| reader.next_clocks(mover))
        .collect::<Result<Vec<_>, _>>()?;
    reader.into_bits().expect_end()?;
    Ok(clocks)
}
