//! A move's text written on the stack, then held inline.

use compact_str::CompactString;

/// A move's text (its UCI or SAN, at most seven bytes) written on the stack, then held
/// inline: quicker than writing it a character at a time into the inline string.
#[derive(Default)]
pub(crate) struct MoveText {
    bytes: [u8; 16],
    len: usize,
}

impl MoveText {
    /// The text, held inline.
    pub(crate) fn to_compact(&self) -> CompactString {
        CompactString::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl std::fmt::Write for MoveText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.bytes
            .get_mut(self.len..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
