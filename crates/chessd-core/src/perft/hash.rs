//! A lock-free perft hash table shared between threads.
//!
//! Each slot is a run of `AtomicU64` words: a check word, a meta word (depth + 1, 0 = empty)
//! and the value's words. The check word is the key XOR a digest of the other words, so a read
//! that races with a write (and sees words of two different entries) fails verification and is
//! treated as a miss. All accesses are relaxed atomics: no locks, no `unsafe`.
//!
//! Buckets hold two slots: the first keeps the deepest entry, the second is always replaced.
//! The key is the position's Zobrist hash mixed with the remaining depth.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::stats::{PerftStats, STATS_WORDS};

/// A value that can be stored in a [`PerftHash`]: a fixed number of `u64` words.
pub trait HashValue: Copy {
    /// The number of words a value takes.
    const WORDS: usize;
    /// Writes the value into `out` (exactly [`HashValue::WORDS`] long).
    fn to_words(&self, out: &mut [u64]);
    /// Reads a value back from `words` (exactly [`HashValue::WORDS`] long).
    fn from_words(words: &[u64]) -> Self;
}

impl HashValue for u64 {
    const WORDS: usize = 1;
    #[inline]
    fn to_words(&self, out: &mut [u64]) {
        out[0] = *self;
    }
    #[inline]
    fn from_words(words: &[u64]) -> u64 {
        words[0]
    }
}

impl HashValue for PerftStats {
    const WORDS: usize = STATS_WORDS;
    #[inline]
    fn to_words(&self, out: &mut [u64]) {
        out.copy_from_slice(&self.to_array());
    }
    #[inline]
    fn from_words(words: &[u64]) -> PerftStats {
        let mut a = [0u64; STATS_WORDS];
        a.copy_from_slice(words);
        PerftStats::from_array(a)
    }
}

/// Slots per bucket.
const WAYS: usize = 2;
/// The largest value stack-buffered for a store or probe.
const MAX_WORDS: usize = 16;

/// A perft transposition table for values of type `V` (`u64` for bulk counts, [`PerftStats`]
/// for statistics), safe to share between threads by reference.
pub struct PerftHash<V: HashValue> {
    words: Vec<AtomicU64>,
    buckets: usize,
    _value: std::marker::PhantomData<fn() -> V>,
}

/// A table of bulk node counts.
pub type BulkHash = PerftHash<u64>;
/// A table of leaf statistics.
pub type StatsHash = PerftHash<PerftStats>;

impl<V: HashValue> std::fmt::Debug for PerftHash<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerftHash")
            .field("buckets", &self.buckets)
            .field("bytes", &self.bytes())
            .finish()
    }
}

#[inline]
fn mix_key(hash: u64, depth: u32) -> u64 {
    hash ^ (u64::from(depth) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[inline]
fn digest(meta: u64, data: &[u64]) -> u64 {
    let mut h = meta.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    for &w in data {
        h = (h ^ w).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 32;
    }
    h
}

impl<V: HashValue> PerftHash<V> {
    const SLOT: usize = 2 + V::WORDS;
    const BUCKET: usize = WAYS * Self::SLOT;

    /// A table using at most `mib` MiB (at least one bucket).
    pub fn new(mib: usize) -> PerftHash<V> {
        let bucket_bytes = Self::BUCKET * std::mem::size_of::<AtomicU64>();
        let buckets = (mib.saturating_mul(1 << 20) / bucket_bytes).max(1);
        let words = std::iter::repeat_with(|| AtomicU64::new(0))
            .take(buckets * Self::BUCKET)
            .collect();
        PerftHash {
            words,
            buckets,
            _value: std::marker::PhantomData,
        }
    }

    /// The memory the table's slots take, in bytes.
    pub fn bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<AtomicU64>()
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for w in &self.words {
            w.store(0, Relaxed);
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[AtomicU64] {
        let index = ((u128::from(key) * self.buckets as u128) >> 64) as usize;
        let start = index * Self::BUCKET;
        &self.words[start..start + Self::BUCKET]
    }

    /// Asks the CPU to fetch the bucket of (`hash`, `depth`) into cache ahead of a probe.
    #[inline]
    pub fn prefetch(&self, hash: u64, depth: u32) {
        let bucket = self.bucket(mix_key(hash, depth));
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // Every cache line the bucket touches (a stats bucket spans several).
            for word in bucket.iter().step_by(8).chain(bucket.last()) {
                let ptr = (word as *const AtomicU64).cast::<i8>();
                // SAFETY: a prefetch is only a hint; it never faults and never changes
                // memory, and `ptr` points into the table anyway.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = bucket;
    }

    /// The value stored for a position (by Zobrist `hash`) at `depth`, if any.
    #[inline]
    pub fn probe(&self, hash: u64, depth: u32) -> Option<V> {
        let key = mix_key(hash, depth);
        let bucket = self.bucket(key);
        let mut data = [0u64; MAX_WORDS];
        let data = &mut data[..V::WORDS];
        for slot in bucket.chunks_exact(Self::SLOT) {
            let meta = slot[1].load(Relaxed);
            if meta != u64::from(depth) + 1 {
                continue;
            }
            let check = slot[0].load(Relaxed);
            for (d, w) in data.iter_mut().zip(&slot[2..]) {
                *d = w.load(Relaxed);
            }
            if check ^ digest(meta, data) == key {
                return Some(V::from_words(data));
            }
        }
        None
    }

    /// Stores `value` for a position (by Zobrist `hash`) at `depth`.
    #[inline]
    pub fn store(&self, hash: u64, depth: u32, value: V) {
        let key = mix_key(hash, depth);
        let bucket = self.bucket(key);
        let meta = u64::from(depth) + 1;
        let mut data = [0u64; MAX_WORDS];
        let data = &mut data[..V::WORDS];
        value.to_words(data);
        // The first slot keeps the deeper entry; the second takes whatever it displaces.
        let deep_meta = bucket[1].load(Relaxed);
        let slot = if meta >= deep_meta {
            &bucket[..Self::SLOT]
        } else {
            &bucket[Self::SLOT..]
        };
        slot[0].store(key ^ digest(meta, data), Relaxed);
        slot[1].store(meta, Relaxed);
        for (w, &d) in slot[2..].iter().zip(data.iter()) {
            w.store(d, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes_by_hash_and_depth() {
        let table = BulkHash::new(1);
        assert!(table.bytes() <= 1 << 20);
        assert_eq!(table.probe(42, 3), None);
        table.store(42, 3, 8902);
        assert_eq!(table.probe(42, 3), Some(8902));
        assert_eq!(table.probe(42, 4), None);
        assert_eq!(table.probe(43, 3), None);
        table.clear();
        assert_eq!(table.probe(42, 3), None);
    }

    #[test]
    fn stats_entries_round_trip_and_memory_is_bounded() {
        let table = StatsHash::new(2);
        assert!(table.bytes() <= 2 << 20);
        let s = PerftStats {
            nodes: 97_862,
            captures: 17_102,
            direct_mates: 1,
            ..PerftStats::default()
        };
        table.store(0xDEAD_BEEF, 3, s);
        assert_eq!(table.probe(0xDEAD_BEEF, 3), Some(s));
        // A zero-sized request still gets one bucket.
        let tiny = StatsHash::new(0);
        tiny.store(1, 2, s);
        assert_eq!(tiny.probe(1, 2), Some(s));
    }

    #[test]
    fn deep_entries_survive_shallow_ones_in_the_same_bucket() {
        let table = BulkHash::new(0); // one bucket: every key collides
        table.store(1, 6, 600);
        table.store(2, 2, 200);
        table.store(3, 3, 300);
        assert_eq!(table.probe(1, 6), Some(600));
        assert_eq!(table.probe(3, 3), Some(300));
        assert_eq!(table.probe(2, 2), None);
    }

    #[test]
    fn concurrent_writers_never_produce_wrong_values() {
        let table = StatsHash::new(0);
        std::thread::scope(|s| {
            for t in 0..2u64 {
                let table = &table;
                s.spawn(move || {
                    for i in 0..20_000u64 {
                        let key = i % 7 + t * 100;
                        let v = PerftStats::from_nodes(key * 1000) * 3;
                        table.store(key, 2, v);
                        if let Some(got) = table.probe(key, 2) {
                            assert_eq!(got, v);
                        }
                    }
                });
            }
        });
    }
}
