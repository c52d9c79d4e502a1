//! Tesla's transposition table, laid out as the document says: a 64-bit key, a 32-bit
//! evaluation, an 18-bit best move ([`PackedMove`]), a 1-bit principal-variation tag, an
//! 8-bit depth and a 5-bit age: 128 bits per entry, four entries to a 64-byte cache line.
//!
//! A key is looked up in one line (chosen by the key's high bits) and matched against its
//! four entries. Replacement within the line: the same key, else an empty entry, else the
//! entry worth least (shallow and old first; a PV entry of the current search last).
//!
//! Key collisions: a 64-bit key rarely collides, but a PV entry steers the search, so a hit
//! on an entry tagged PV "looks down the tree": its best move must be a legal move of the
//! position probed, or the hit is taken for a collision and ignored.

use super::packed::PackedMove;
use crate::Position;

/// One entry: `key`, then `data` = eval (bits 0–31) | move (32–49) | PV (50) | depth
/// (51–58, two's complement) | age (59–63).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct TeslaEntry {
    key: u64,
    data: u64,
}

/// Four entries, one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct Line(pub [TeslaEntry; 4]);

/// The number of ages before they wrap (5 bits).
const AGES: u8 = 32;

impl TeslaEntry {
    /// An entry holding these fields (`age` is taken modulo 32).
    pub fn new(key: u64, eval: i32, mv: PackedMove, pv: bool, depth: i8, age: u8) -> TeslaEntry {
        let data = u64::from(eval as u32)
            | u64::from(mv.bits()) << 32
            | u64::from(pv) << 50
            | u64::from(depth as u8) << 51
            | u64::from(age % AGES) << 59;
        TeslaEntry { key, data }
    }

    /// The key.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The evaluation, from the side to move's point of view.
    pub fn eval(&self) -> i32 {
        self.data as u32 as i32
    }

    /// The best move.
    pub fn best(&self) -> PackedMove {
        PackedMove::from_bits((self.data >> 32) as u32)
    }

    /// Whether the node was on the principal variation.
    pub fn is_pv(&self) -> bool {
        self.data >> 50 & 1 == 1
    }

    /// The depth the evaluation was searched to (-1 unevaluated, 0 static).
    pub fn depth(&self) -> i8 {
        (self.data >> 51) as u8 as i8
    }

    /// The age (search number modulo 32) it was written in.
    pub fn age(&self) -> u8 {
        (self.data >> 59) as u8 & (AGES - 1)
    }

    fn is_empty(&self) -> bool {
        self.key == 0 && self.data == 0
    }
}

/// The table: a power-of-two number of lines.
#[derive(Debug)]
pub struct TeslaTable {
    lines: Vec<Line>,
    age: u8,
}

impl TeslaTable {
    /// A table of about `mib` MiB (at least 1024 lines; halved until memory can be had).
    pub fn new(mib: usize) -> TeslaTable {
        let want = (mib.saturating_mul(1 << 20) / std::mem::size_of::<Line>()).max(1024);
        let mut len = 1usize << (usize::BITS - 1 - want.leading_zeros());
        loop {
            let mut lines = Vec::new();
            if lines.try_reserve_exact(len).is_ok() || len <= 1024 {
                lines.resize(len, Line::default());
                return TeslaTable { lines, age: 0 };
            }
            len /= 2;
        }
    }

    /// The size in bytes.
    pub fn bytes(&self) -> usize {
        self.lines.len() * std::mem::size_of::<Line>()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.lines.fill(Line::default());
        self.age = 0;
    }

    /// Starts a new search (entries of older searches are replaced first).
    pub fn new_search(&mut self) {
        self.age = (self.age + 1) % AGES;
    }

    fn line(&self, key: u64) -> usize {
        (key >> 32) as usize & (self.lines.len() - 1)
    }

    /// The entry of `pos`, if stored and not a detected collision.
    pub fn probe(&self, pos: &Position) -> Option<TeslaEntry> {
        let key = pos.hash();
        let e = *self.lines[self.line(key)]
            .0
            .iter()
            .find(|e| e.key == key && !e.is_empty())?;
        if e.is_pv() && e.best().unpack(pos).is_none() {
            return None;
        }
        Some(e)
    }

    /// Stores an entry for `key`.
    pub fn store(&mut self, key: u64, eval: i32, mv: PackedMove, pv: bool, depth: i8) {
        let age = self.age;
        let i = self.line(key);
        let line = &mut self.lines[i].0;
        let worth = |e: &TeslaEntry| {
            let stale = i32::from((age + AGES - e.age()) % AGES);
            let pv_bonus = if e.is_pv() && stale == 0 { 1000 } else { 0 };
            i32::from(e.depth()) - 4 * stale + pv_bonus
        };
        let slot = match line.iter().position(|e| e.key == key) {
            Some(s) => s,
            None => match line.iter().position(TeslaEntry::is_empty) {
                Some(s) => s,
                None => (0..4).min_by_key(|&s| worth(&line[s])).unwrap_or(0),
            },
        };
        let mv = if mv.is_none() && line[slot].key == key {
            line[slot].best()
        } else {
            mv
        };
        line[slot] = TeslaEntry::new(key, eval, mv, pv, depth, age);
    }

    /// How full the table is in permille (entries of this search among the first lines).
    pub fn hashfull(&self) -> u32 {
        let lines = self.lines.len().min(250);
        let used = self.lines[..lines]
            .iter()
            .flat_map(|l| l.0.iter())
            .filter(|e| !e.is_empty() && e.age() == self.age)
            .count();
        (used * 1000 / (lines * 4).max(1)) as u32
    }
}
