//! Canonical Huffman codes from a table of code lengths, built at compile time.
//!
//! Codes of one length are consecutive numbers, given to the symbols of that length in
//! increasing order; shorter codes come first. The lengths alone define the code.

use super::{BitReader, BitWriter, CodecError};

/// The longest code a [`Codebook`] may have.
pub(crate) const MAX_CODE_LEN: usize = 32;

/// A canonical Huffman code over the symbols `0..N`.
pub(crate) struct Codebook<const N: usize> {
    /// Each symbol's code, right-aligned.
    codes: [u32; N],
    /// Each symbol's code length (0: the symbol has no code).
    lens: [u8; N],
    /// The symbols with a code, by length and then by value.
    sorted: [u16; N],
    /// For each length: the first code of that length.
    first: [u32; MAX_CODE_LEN + 1],
    /// For each length: how many codes have it.
    count: [u32; MAX_CODE_LEN + 1],
    /// For each length: where its symbols start in `sorted`.
    offset: [u32; MAX_CODE_LEN + 1],
    /// The longest length in use.
    max_len: u32,
}

impl<const N: usize> Codebook<N> {
    /// The canonical code with these lengths. Panics (at compile time, for a const) if the
    /// lengths are longer than [`MAX_CODE_LEN`] or break Kraft's inequality.
    pub(crate) const fn new(lens: [u8; N]) -> Codebook<N> {
        let mut count = [0u32; MAX_CODE_LEN + 1];
        let mut s = 0;
        let mut max_len = 0;
        while s < N {
            let l = lens[s] as usize;
            assert!(l <= MAX_CODE_LEN, "code too long");
            if l > 0 {
                count[l] += 1;
                if l as u32 > max_len {
                    max_len = l as u32;
                }
            }
            s += 1;
        }
        let mut first = [0u32; MAX_CODE_LEN + 1];
        let mut offset = [0u32; MAX_CODE_LEN + 1];
        let mut code: u64 = 0;
        let mut at = 0u32;
        let mut l = 1;
        while l <= MAX_CODE_LEN {
            code <<= 1;
            first[l] = code as u32;
            offset[l] = at;
            code += count[l] as u64;
            at += count[l];
            assert!(code <= 1u64 << l, "lengths over-subscribe the code space");
            l += 1;
        }
        let mut codes = [0u32; N];
        let mut sorted = [0u16; N];
        let mut next = first;
        let mut fill = offset;
        let mut s = 0;
        while s < N {
            let l = lens[s] as usize;
            if l > 0 {
                codes[s] = next[l];
                next[l] += 1;
                sorted[fill[l] as usize] = s as u16;
                fill[l] += 1;
            }
            s += 1;
        }
        Codebook {
            codes,
            lens,
            sorted,
            first,
            count,
            offset,
            max_len,
        }
    }

    /// The code length of `symbol` (0: no code).
    #[cfg(test)]
    pub(crate) const fn len(&self, symbol: usize) -> u32 {
        self.lens[symbol] as u32
    }

    /// Writes `symbol`'s code. The symbol must have one.
    #[inline]
    pub(crate) fn write(&self, w: &mut BitWriter, symbol: usize) {
        debug_assert!(self.lens[symbol] > 0, "symbol without a code");
        w.write(u64::from(self.codes[symbol]), u32::from(self.lens[symbol]));
    }

    /// Reads one symbol.
    #[inline]
    pub(crate) fn read(&self, r: &mut BitReader<'_>) -> Result<usize, CodecError> {
        let window = r.peek(self.max_len);
        let mut l = 1;
        while l <= self.max_len {
            let code = (window >> (self.max_len - l)) as u32;
            let i = code.wrapping_sub(self.first[l as usize]);
            if i < self.count[l as usize] {
                r.skip(l)?;
                return Ok(self.sorted[(self.offset[l as usize] + i) as usize] as usize);
            }
            l += 1;
        }
        // Only an incomplete code (or bits past the end) gets here.
        if r.bits_left() < self.max_len as usize {
            Err(CodecError::Truncated)
        } else {
            Err(CodecError::Corrupt)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_codes_are_the_textbook_ones() {
        // a:2 b:1 c:3 d:3 -> b=0, a=10, c=110, d=111.
        let book = Codebook::new([2, 1, 3, 3]);
        assert_eq!(book.codes, [0b10, 0b0, 0b110, 0b111]);
        let mut w = BitWriter::new();
        for s in [0, 1, 2, 3, 3, 1] {
            book.write(&mut w, s);
        }
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes);
        for s in [0, 1, 2, 3, 3, 1] {
            assert_eq!(book.read(&mut r).unwrap(), s);
        }
    }

    #[test]
    fn an_incomplete_code_reports_corrupt_input() {
        // 0, 10; 11 is no code.
        let book = Codebook::new([1, 2, 0]);
        let mut r = BitReader::new(&[0b1100_0000]);
        assert_eq!(book.read(&mut r), Err(CodecError::Corrupt));
        assert_eq!(book.len(2), 0);
    }
}
