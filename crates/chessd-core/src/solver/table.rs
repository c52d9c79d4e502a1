//! The mate table: a lock-free transposition table of proven and disproven bounds.
//!
//! An entry belongs to a position (its Zobrist hash) and holds two bounds on the number of
//! attacker moves: `win_at`, the fewest moves with which a forced mate is proven (0: none
//! known), and `fail_at`, the most moves with which it is proven impossible (0: none known).
//! A question "mate within `n`?" is answered when `n >= win_at` (yes) or `n <= fail_at` (no).
//! Entries also keep a move: the mating move of an attacker position, the refutation of a
//! defender position.
//!
//! Each entry is two `AtomicU64` words, a check word (the key XOR the data) and the data, so a
//! read racing with a write fails verification and counts as a miss. Buckets of four entries
//! fill one cache line. No locks, no `unsafe`.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::{Move, Role, Square};

/// Entries per bucket.
const WAYS: usize = 4;

/// One cache line: four entries of (check, data).
#[repr(align(64))]
struct Bucket([AtomicU64; 2 * WAYS]);

impl Bucket {
    fn new() -> Bucket {
        Bucket(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// What the table knows about a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The fewest attacker moves proven to force mate (0: unknown).
    pub win_at: u8,
    /// The most attacker moves proven not to force mate (0: unknown).
    pub fail_at: u8,
    /// The stored move, if any.
    pub mv: Option<Move>,
}

impl Entry {
    /// The answer to "mate within `n` moves?", when known.
    #[inline]
    pub(super) fn answer(&self, n: u32) -> Option<bool> {
        if self.win_at != 0 && n >= u32::from(self.win_at) {
            Some(true)
        } else if n <= u32::from(self.fail_at) {
            Some(false)
        } else {
            None
        }
    }

    fn pack(&self) -> u64 {
        u64::from(self.win_at)
            | u64::from(self.fail_at) << 8
            | u64::from(self.mv.map_or(0, encode_move)) << 16
    }

    fn unpack(data: u64) -> Entry {
        Entry {
            win_at: data as u8,
            fail_at: (data >> 8) as u8,
            mv: decode_move((data >> 16) as u16),
        }
    }

    /// How much work the entry stands for (the larger bound).
    fn depth(&self) -> u8 {
        self.win_at.max(self.fail_at)
    }
}

/// A move in 16 bits: from, to and a kind code; 0 is no move (a1a1 is never legal).
fn encode_move(mv: Move) -> u16 {
    let kind = match mv.kind() {
        crate::MoveKind::Normal => 0,
        crate::MoveKind::Castle => 1,
        crate::MoveKind::EnPassant => 2,
        crate::MoveKind::Promotion(role) => 3 + role.index() as u16,
    };
    mv.from().index() as u16 | (mv.to().index() as u16) << 6 | kind << 12
}

fn decode_move(bits: u16) -> Option<Move> {
    if bits == 0 {
        return None;
    }
    let from = Square::new(u32::from(bits & 63));
    let to = Square::new(u32::from(bits >> 6 & 63));
    Some(match bits >> 12 {
        0 => Move::normal(from, to),
        1 => Move::castle(from, to),
        2 => Move::en_passant(from, to),
        k => Move::promotion(from, to, Role::from_index(usize::from(k - 3))?),
    })
}

/// The shared mate table; its size is fixed at creation.
pub(crate) struct MateTable {
    buckets: Vec<Bucket>,
}

impl MateTable {
    /// A table of at most `bytes` bytes (at least one bucket).
    pub(super) fn with_bytes(bytes: usize) -> MateTable {
        let count = (bytes / std::mem::size_of::<Bucket>()).max(1);
        MateTable {
            buckets: (0..count).map(|_| Bucket::new()).collect(),
        }
    }

    /// The memory the table takes.
    pub(super) fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// A table of `bytes` bytes holding this table's entries (as many as fit).
    pub(super) fn resized(&self, bytes: usize) -> MateTable {
        let new = MateTable::with_bytes(bytes);
        for b in &self.buckets {
            for way in 0..WAYS {
                let check = b.0[2 * way].load(Relaxed);
                let data = b.0[2 * way + 1].load(Relaxed);
                if data != 0 {
                    new.insert(check ^ data, Entry::unpack(data));
                }
            }
        }
        new
    }

    #[inline]
    fn bucket(&self, hash: u64) -> &Bucket {
        let i = ((u128::from(hash) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// The entry of `hash`, or an empty entry.
    #[inline]
    pub(super) fn probe(&self, hash: u64) -> Entry {
        let b = self.bucket(hash);
        for way in 0..WAYS {
            let check = b.0[2 * way].load(Relaxed);
            let data = b.0[2 * way + 1].load(Relaxed);
            if data != 0 && check ^ data == hash {
                return Entry::unpack(data);
            }
        }
        Entry::default()
    }

    /// Records that mate within `n` is proven (`win`) or disproven for `hash`, with a move.
    pub(super) fn store(&self, hash: u64, n: u32, win: bool, mv: Option<Move>) {
        let n = n.min(255) as u8;
        self.update(hash, |merged| {
            if win {
                if merged.win_at == 0 || n < merged.win_at {
                    merged.win_at = n;
                    merged.mv = mv.or(merged.mv);
                }
            } else if n > merged.fail_at {
                merged.fail_at = n;
                if merged.win_at == 0 {
                    merged.mv = mv.or(merged.mv);
                }
            }
        });
    }

    /// Stores a whole entry (when copying into a resized table).
    fn insert(&self, hash: u64, entry: Entry) {
        self.update(hash, |merged| {
            if merged.win_at == 0 || (entry.win_at != 0 && entry.win_at < merged.win_at) {
                merged.win_at = entry.win_at;
            }
            merged.fail_at = merged.fail_at.max(entry.fail_at);
            merged.mv = merged.mv.or(entry.mv);
        });
    }

    /// Finds the entry of `hash` (or the slot to replace: empty, else the shallowest), lets
    /// `merge` update it and writes it back.
    fn update(&self, hash: u64, merge: impl FnOnce(&mut Entry)) {
        let b = self.bucket(hash);
        let mut victim = 0;
        let mut victim_depth = u8::MAX;
        let mut merged = Entry::default();
        for way in 0..WAYS {
            let check = b.0[2 * way].load(Relaxed);
            let data = b.0[2 * way + 1].load(Relaxed);
            if data != 0 && check ^ data == hash {
                victim = way;
                merged = Entry::unpack(data);
                break;
            }
            let depth = if data == 0 {
                0
            } else {
                Entry::unpack(data).depth()
            };
            if depth < victim_depth {
                victim = way;
                victim_depth = depth;
            }
        }
        merge(&mut merged);
        let data = merged.pack();
        b.0[2 * victim + 1].store(data, Relaxed);
        b.0[2 * victim].store(hash ^ data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_merge_and_answer() {
        let t = MateTable::with_bytes(1 << 20);
        let h = 0x1234_5678_9ABC_DEF0;
        assert_eq!(t.probe(h).answer(3), None);
        t.store(h, 2, false, None);
        assert_eq!(t.probe(h).answer(1), Some(false));
        assert_eq!(t.probe(h).answer(2), Some(false));
        assert_eq!(t.probe(h).answer(3), None);
        let mv = Move::promotion(Square::E7, Square::E8, Role::Knight);
        t.store(h, 4, true, Some(mv));
        let e = t.probe(h);
        assert_eq!(
            (e.answer(3), e.answer(4), e.answer(7)),
            (None, Some(true), Some(true))
        );
        assert_eq!(e.mv, Some(mv));
        // A weaker win does not replace a stronger one.
        t.store(h, 6, true, None);
        assert_eq!(t.probe(h).win_at, 4);
        assert_eq!(t.probe(h ^ 1).answer(9), None);
        let bigger = t.resized(4 << 20);
        assert_eq!(bigger.bytes(), 4 << 20);
        assert_eq!(bigger.probe(h), t.probe(h));
    }

    #[test]
    fn moves_round_trip() {
        for mv in [
            Move::normal(Square::B1, Square::C3),
            Move::castle(Square::E1, Square::H1),
            Move::en_passant(Square::E5, Square::D6),
            Move::promotion(Square::A2, Square::A1, Role::Queen),
            Move::promotion(Square::H7, Square::G8, Role::Knight),
        ] {
            assert_eq!(decode_move(encode_move(mv)), Some(mv));
        }
    }

    #[test]
    fn a_full_table_keeps_answering_correctly() {
        let t = MateTable::with_bytes(0);
        for h in 1..1000u64 {
            t.store(
                h.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                (h % 7 + 1) as u32,
                h % 2 == 0,
                None,
            );
        }
        for h in 1..1000u64 {
            let e = t.probe(h.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let n = (h % 7 + 1) as u32;
            if let Some(a) = e.answer(n) {
                assert_eq!(a, h % 2 == 0);
            }
        }
    }
}
