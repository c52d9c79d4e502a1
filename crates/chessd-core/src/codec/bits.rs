//! Bits in and out of bytes, most significant bit first: [`BitWriter`] appends to a
//! `Vec<u8>`, [`BitReader`] reads a byte slice without allocating.

use super::CodecError;

/// Appends bits, most significant first, to a growing byte vector.
#[derive(Clone, Debug, Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    /// Bits not yet in `bytes`, right-aligned.
    pending: u64,
    /// How many bits `pending` holds (fewer than 8 between calls).
    pending_len: u32,
}

impl BitWriter {
    /// An empty writer.
    pub fn new() -> BitWriter {
        BitWriter::default()
    }

    /// Writes the low `len` bits of `value` (`len` at most 57), the highest of them first.
    #[inline]
    pub fn write(&mut self, value: u64, len: u32) {
        debug_assert!(len <= 57, "at most 57 bits at once");
        if len == 0 {
            return;
        }
        let value = value & (u64::MAX >> (64 - len));
        self.pending = (self.pending << len) | value;
        self.pending_len += len;
        while self.pending_len >= 8 {
            self.pending_len -= 8;
            self.bytes.push((self.pending >> self.pending_len) as u8);
        }
        self.pending &= (1 << self.pending_len) - 1;
    }

    /// Writes the low `len` bits of `value` (`len` at most 64), the highest first.
    pub fn write_long(&mut self, value: u64, len: u32) {
        if len > 32 {
            self.write(value >> 32, len - 32);
            self.write(value & u64::from(u32::MAX), 32);
        } else {
            self.write(value, len);
        }
    }

    /// Writes one bit.
    #[inline]
    pub fn write_bit(&mut self, bit: bool) {
        self.write(u64::from(bit), 1);
    }

    /// How many bits have been written.
    pub fn len_bits(&self) -> usize {
        self.bytes.len() * 8 + self.pending_len as usize
    }

    /// The bytes, the last one padded with zero bits.
    pub fn finish(mut self) -> Vec<u8> {
        if self.pending_len > 0 {
            self.bytes
                .push((self.pending << (8 - self.pending_len)) as u8);
        }
        self.bytes
    }
}

/// Reads bits, most significant first, from a byte slice (no allocation).
#[derive(Clone, Debug)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    /// The next bit to read, counted from the start of `bytes`.
    at: usize,
}

impl<'a> BitReader<'a> {
    /// A reader at the first bit of `bytes`.
    pub fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader { bytes, at: 0 }
    }

    /// How many bits are left.
    #[inline]
    pub fn bits_left(&self) -> usize {
        self.bytes.len() * 8 - self.at
    }

    /// How many bits have been read.
    pub fn position(&self) -> usize {
        self.at
    }

    /// The next `len` bits (at most 57) without consuming them; bits past the end read as 0.
    #[inline]
    pub fn peek(&self, len: u32) -> u64 {
        debug_assert!(len <= 57, "at most 57 bits at once");
        if len == 0 {
            return 0;
        }
        let byte = self.at / 8;
        let mut window = [0u8; 8];
        let end = self.bytes.len().min(byte + 8);
        if byte < end {
            window[..end - byte].copy_from_slice(&self.bytes[byte..end]);
        }
        let word = u64::from_be_bytes(window) << (self.at % 8);
        word >> (64 - len)
    }

    /// Consumes `len` bits already looked at with [`BitReader::peek`].
    #[inline]
    pub fn skip(&mut self, len: u32) -> Result<(), CodecError> {
        if (len as usize) > self.bits_left() {
            self.at = self.bytes.len() * 8;
            return Err(CodecError::Truncated);
        }
        self.at += len as usize;
        Ok(())
    }

    /// Reads `len` bits (at most 57).
    #[inline]
    pub fn read(&mut self, len: u32) -> Result<u64, CodecError> {
        let value = self.peek(len);
        self.skip(len)?;
        Ok(value)
    }

    /// Reads `len` bits (at most 64).
    pub fn read_long(&mut self, len: u32) -> Result<u64, CodecError> {
        if len > 32 {
            let high = self.read(len - 32)?;
            Ok(high << 32 | self.read(32)?)
        } else {
            self.read(len)
        }
    }

    /// Reads one bit.
    #[inline]
    pub fn read_bit(&mut self) -> Result<bool, CodecError> {
        Ok(self.read(1)? == 1)
    }

    /// Checks that what is left is only the zero padding of the last byte: an encoding
    /// that was read in full.
    pub fn expect_end(&self) -> Result<(), CodecError> {
        let left = self.bits_left();
        if left >= 8 || self.peek(left as u32) != 0 {
            return Err(CodecError::TrailingBits);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_fields_of_every_width() {
        let mut w = BitWriter::new();
        let fields: Vec<(u64, u32)> = (0..=64)
            .map(|len| (0x9E37_79B9_7F4A_7C15u64.rotate_left(len), len))
            .collect();
        for &(value, len) in &fields {
            w.write_long(value, len);
        }
        let total: u32 = fields.iter().map(|f| f.1).sum();
        assert_eq!(w.len_bits(), total as usize);
        let bytes = w.finish();
        assert_eq!(bytes.len(), (total as usize).div_ceil(8));
        let mut r = BitReader::new(&bytes);
        for &(value, len) in &fields {
            let mask = if len == 0 { 0 } else { u64::MAX >> (64 - len) };
            assert_eq!(
                r.read_long(len).unwrap(),
                value & mask,
                "field of {len} bits"
            );
        }
        assert!(r.expect_end().is_ok());
        assert_eq!(r.read(1), Err(CodecError::Truncated));
    }

    #[test]
    fn msb_first() {
        let mut w = BitWriter::new();
        w.write_bit(true);
        w.write(0b011, 3);
        assert_eq!(w.finish(), vec![0b1011_0000]);
    }
}
