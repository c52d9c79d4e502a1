//! The transposition table: a fixed number of 16-byte entries indexed by the Zobrist key.
//!
//! One entry per slot; a new result replaces the old one unless the old one is from the same
//! search, for another position or the same one, and clearly deeper. Scores are stored
//! node-relative (see [`super::score::to_table`]).

use crate::{Move, Square};

/// How a stored score relates to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The exact value (a PV node).
    Exact,
    /// At least this value (a beta cutoff).
    Lower,
    /// At most this value (no move raised alpha).
    Upper,
}

/// The move that stands for "no move" (a1a1 is never legal).
pub(crate) const NO_MOVE: Move = Move::normal(Square::A1, Square::A1);

/// One slot.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    mv: Move,
    score: i16,
    depth: u8,
    /// Bits 0–1: bound (0 = empty, 1 exact, 2 lower, 3 upper); bits 2–7: generation.
    flags: u8,
}

const EMPTY: Entry = Entry {
    key: 0,
    mv: NO_MOVE,
    score: 0,
    depth: 0,
    flags: 0,
};

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    /// The best (or refuting) move, if one was stored.
    pub mv: Option<Move>,
    /// The stored score (node-relative for mates).
    pub score: i32,
    /// The depth the score was searched to.
    pub depth: i32,
    /// How the score bounds the true value.
    pub bound: Bound,
}

/// The table.
#[derive(Debug)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    generation: u8,
}

/// Size of one entry in bytes.
const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// The fewest entries a table has (when asked for 0 MiB or when memory is short).
const MIN_ENTRIES: usize = 1024;

impl Table {
    /// A table of `mib` MiB. If that much memory cannot be had, the size is halved until it
    /// can (down to a few KiB), so that creating a table never aborts.
    pub(super) fn new(mib: usize) -> Table {
        let mut len = (mib.saturating_mul(1 << 20) / ENTRY_BYTES).max(MIN_ENTRIES);
        loop {
            let mut entries = Vec::new();
            if entries.try_reserve_exact(len).is_ok() {
                entries.resize(len, EMPTY);
                return Table {
                    entries,
                    generation: 0,
                };
            }
            if len <= MIN_ENTRIES {
                // Not even a few KiB: work with whatever a plain allocation gives.
                return Table {
                    entries: vec![EMPTY; MIN_ENTRIES],
                    generation: 0,
                };
            }
            len /= 2;
        }
    }

    /// The size in bytes.
    pub(super) fn bytes(&self) -> usize {
        self.entries.len() * ENTRY_BYTES
    }

    /// Forgets everything.
    pub(super) fn clear(&mut self) {
        self.entries.fill(EMPTY);
        self.generation = 0;
    }

    /// Starts a new search: older entries become the first to be replaced.
    pub(super) fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.entries.len() as u128) >> 64) as usize
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub(super) fn probe(&self, key: u64) -> Option<Hit> {
        let e = self.entries[self.index(key)];
        if e.key != key {
            return None;
        }
        let bound = match e.flags & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Hit {
            mv: (e.mv != NO_MOVE).then_some(e.mv),
            score: i32::from(e.score),
            depth: i32::from(e.depth),
            bound,
        })
    }

    /// Stores a result (`score` node-relative, `depth` at least 0).
    #[inline]
    pub(super) fn store(
        &mut self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) {
        let generation = self.generation;
        let i = self.index(key);
        let slot = &mut self.entries[i];
        let depth = depth.clamp(0, 255) as u8;
        let same_search = slot.flags >> 2 == generation && slot.flags & 3 != 0;
        if slot.key == key {
            if same_search && bound != Bound::Exact && depth + 2 < slot.depth {
                return;
            }
        } else if same_search && depth + 4 < slot.depth {
            return;
        }
        // Keep the old move when the new result has none (a fail-low for the same position).
        let mv = match mv {
            Some(mv) => mv,
            None if slot.key == key => slot.mv,
            None => NO_MOVE,
        };
        let code = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        *slot = Entry {
            key,
            mv,
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth,
            flags: code | generation << 2,
        };
    }

    /// How full the table is, in permille, from the first thousand slots (UCI `hashfull`):
    /// the share written in the current search.
    pub(super) fn hashfull(&self) -> u32 {
        let sample = self.entries.len().min(1000);
        let used = self.entries[..sample]
            .iter()
            .filter(|e| e.flags & 3 != 0 && e.flags >> 2 == self.generation)
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_16_bytes_and_sized_by_mib() {
        assert_eq!(ENTRY_BYTES, 16);
        assert_eq!(Table::new(1).bytes(), 1 << 20);
        assert_eq!(Table::new(0).bytes(), MIN_ENTRIES * 16);
    }

    #[test]
    fn store_and_probe() {
        let mut t = Table::new(1);
        let mv = Move::normal(Square::E2, Square::E4);
        t.store(0xDEAD_BEEF, Some(mv), -35, 7, Bound::Lower);
        let hit = t.probe(0xDEAD_BEEF).unwrap();
        assert_eq!(hit.mv, Some(mv));
        assert_eq!((hit.score, hit.depth, hit.bound), (-35, 7, Bound::Lower));
        assert!(t.probe(0xDEAD_BEEE).is_none());
        // A shallow result for the same position keeps the move when it has none.
        t.store(0xDEAD_BEEF, None, 10, 8, Bound::Upper);
        assert_eq!(t.probe(0xDEAD_BEEF).unwrap().mv, Some(mv));
        assert!(t.hashfull() <= 1);
        t.clear();
        assert!(t.probe(0xDEAD_BEEF).is_none());
    }
}
