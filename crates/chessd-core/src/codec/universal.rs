//! Codes for whole numbers without a table: Exp-Golomb of order k, zigzag for signed
//! values, and truncated binary for an index below a known bound.

use super::{BitReader, BitWriter, CodecError};

/// Maps a signed value to an unsigned one, small magnitudes first: 0, -1, 1, -2, 2, …
#[inline]
pub fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// The inverse of [`zigzag`].
#[inline]
pub fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// Writes `value` in Exp-Golomb code of order `k` (`k` at most 32): `q = (value >> k) + 1`
/// as `n` zeros and the `n + 1` bits of `q`, then the low `k` bits of `value`. Any `u64`
/// fits; a value near `2^k` costs `k + 3` bits.
pub fn write_exp_golomb(w: &mut BitWriter, value: u64, k: u32) {
    debug_assert!(k <= 32);
    let q = u128::from(value >> k) + 1;
    let n = 127 - q.leading_zeros();
    w.write_long(0, n);
    // The top bit of q is the 1 that ends the zeros.
    w.write_bit(true);
    w.write_long(q as u64, n.min(64));
    w.write_long(value, k);
}

/// Reads a value written by [`write_exp_golomb`] with the same `k`.
pub fn read_exp_golomb(r: &mut BitReader<'_>, k: u32) -> Result<u64, CodecError> {
    let mut n = 0;
    while !r.read_bit()? {
        n += 1;
        if n > 64 {
            return Err(CodecError::Corrupt);
        }
    }
    let low = r.read_long(n)?;
    // q = 2^n + low; value >> k = q - 1.
    let high = if n == 64 {
        // q - 1 = 2^64 - 1 + low fits only for low == 0.
        if low != 0 {
            return Err(CodecError::Corrupt);
        }
        u64::MAX
    } else {
        (1u64 << n) - 1 + low
    };
    if k > 0 && high > u64::MAX >> k {
        return Err(CodecError::Corrupt);
    }
    Ok((high << k) | r.read_long(k)?)
}

/// Writes `index` (below `bound`, at least 1) in truncated binary: `floor(log2 bound)` or
/// one more bits, no bits at all when `bound` is 1.
pub fn write_truncated(w: &mut BitWriter, index: u32, bound: u32) {
    debug_assert!(index < bound);
    let k = 31 - bound.leading_zeros(); // floor(log2 bound)
    let short = (1u32 << (k + 1)) - bound; // how many indices get k bits
    if index < short {
        w.write(u64::from(index), k);
    } else {
        w.write(u64::from(index + short), k + 1);
    }
}

/// Reads an index written by [`write_truncated`] with the same `bound`.
pub fn read_truncated(r: &mut BitReader<'_>, bound: u32) -> Result<u32, CodecError> {
    if bound == 0 {
        return Err(CodecError::Corrupt);
    }
    let k = 31 - bound.leading_zeros();
    let short = (1u32 << (k + 1)) - bound;
    let head = r.read(k)? as u32;
    if head < short {
        return Ok(head);
    }
    let value = (head << 1 | r.read(1)? as u32) - short;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_orders_by_magnitude() {
        assert_eq!(
            [0, -1, 1, -2, 2].map(zigzag),
            [0, 1, 2, 3, 4],
            "small magnitudes first"
        );
        for v in [i64::MIN, i64::MAX, -12345, 0, 77] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    #[test]
    fn exp_golomb_round_trips_extremes() {
        let values = [0, 1, 2, 3, 1000, 1 << 40, u64::MAX - 1, u64::MAX];
        for k in [0, 1, 5, 12, 32] {
            let mut w = BitWriter::new();
            for &v in &values {
                write_exp_golomb(&mut w, v, k);
            }
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes);
            for &v in &values {
                assert_eq!(read_exp_golomb(&mut r, k).unwrap(), v, "k = {k}");
            }
        }
        let mut w = BitWriter::new();
        write_exp_golomb(&mut w, 0, 0);
        assert_eq!(w.len_bits(), 1);
        let mut w = BitWriter::new();
        write_exp_golomb(&mut w, 4, 2);
        assert_eq!(w.len_bits(), 5, "q = 2: 0, 1, 0, then 2 bits");
    }

    #[test]
    fn truncated_binary_uses_the_short_codes_first() {
        for bound in 1..300u32 {
            let mut w = BitWriter::new();
            for i in 0..bound {
                write_truncated(&mut w, i, bound);
            }
            let bits = w.len_bits();
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes);
            for i in 0..bound {
                assert_eq!(read_truncated(&mut r, bound).unwrap(), i);
            }
            let k = 31 - bound.leading_zeros();
            let short = (1 << (k + 1)) - bound;
            assert_eq!(bits as u32, short * k + (bound - short) * (k + 1));
        }
    }
}
