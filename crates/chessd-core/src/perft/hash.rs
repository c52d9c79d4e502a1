//! A lock-free perft hash table shared between threads.
//!
//! All accesses are relaxed atomics, without locks. A read that races with a write (and sees
//! words of two different entries) fails verification and is treated as a miss. The key is the
//! position's Zobrist hash mixed with the remaining depth.
//!
//! Two layouts, chosen by the value's size:
//! - Single-word values (bulk node counts): a bucket is one 64-byte cache line of four 16-byte
//!   slots. A slot is a data word (depth + 1 in the top 6 bits, the value in the low 58) and a
//!   check word, the key XOR the data word. A store replaces the entry of the same key, else the
//!   shallowest entry (an empty slot counts as the shallowest; ties go by the key), so deep
//!   entries stay and new entries always get in. A value of 2^58 or more, or a depth above 62,
//!   is not stored.
//! - Wider values (statistics): a slot is a check word (the key XOR a digest of the other
//!   words), a meta word (depth + 1, 0 = empty) and the value's words, padded to whole cache
//!   lines. Buckets hold two slots: the first keeps the deepest entry, the second is always
//!   replaced.
//!
//! The memory comes zeroed and cache-line aligned (2 MiB aligned from 2 MiB, so that a kernel
//! that backs memory with transparent huge pages can use them throughout). Every page is
//! written once when the table is made, by as many threads as will use it: left to the
//! workers, a page's first access is often a probe, which maps the shared zero page, and
//! replacing that page on the first store interrupts every core running the process.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use super::stats::{PerftStats, STATS_WORDS};

/// A value that can be stored in a [`PerftHash`]: a fixed number of `u64` words. A single-word
/// value is stored only when below 2^58 (its slot packs the depth into the same word).
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

/// The largest value stack-buffered for a store or probe.
const MAX_WORDS: usize = 16;
/// Bits of the value in a packed (single-word) slot's data word; the depth takes the rest.
const VALUE_BITS: u32 = 58;
/// The value bits of a packed data word.
const VALUE_MASK: u64 = (1 << VALUE_BITS) - 1;
/// The deepest entry a packed slot can hold (depth + 1 fills the 6 top bits).
const MAX_PACKED_DEPTH: u32 = 62;
/// Slots per packed bucket (one cache line).
const PACKED_WAYS: usize = 4;

/// A perft transposition table for values of type `V` (`u64` for bulk counts, [`PerftStats`]
/// for statistics), safe to share between threads by reference.
pub struct PerftHash<V: HashValue> {
    words: memory::Words,
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

/// Words per slot of the wide layout: the check and meta words and the value, padded to a
/// divisor or a multiple of a cache line (8 words) so that no slot straddles more lines than
/// it must.
const fn wide_slot_words(value_words: usize) -> usize {
    let words = 2 + value_words;
    if words <= 8 {
        words.next_power_of_two()
    } else {
        words.div_ceil(8) * 8
    }
}

/// The packed data word of `value` at `depth`, if it fits.
#[inline]
fn pack(depth: u32, value: u64) -> Option<u64> {
    (depth <= MAX_PACKED_DEPTH && value <= VALUE_MASK)
        .then(|| ((u64::from(depth) + 1) << VALUE_BITS) | value)
}

/// Looks `key` up in a packed bucket.
#[inline]
fn probe_packed(bucket: &[AtomicU64], key: u64, depth: u32) -> Option<u64> {
    if depth > MAX_PACKED_DEPTH {
        return None;
    }
    let tag = (u64::from(depth) + 1) << VALUE_BITS;
    for slot in bucket.chunks_exact(2) {
        let data = slot[1].load(Relaxed);
        // The tag test only skips other depths early: the check word verifies the whole key.
        if data & !VALUE_MASK == tag && slot[0].load(Relaxed) ^ data == key {
            return Some(data & VALUE_MASK);
        }
    }
    None
}

/// Stores a packed `data` word for `key`: over the entry of the same key, else over the
/// shallowest entry (empty slots are shallowest). Ties are broken by the key's low bits (the
/// bucket index comes from its high bits), so that every slot of a bucket full of equally deep
/// entries takes new ones in turn.
#[inline]
fn store_packed(bucket: &[AtomicU64], key: u64, data: u64) {
    let first = key as usize % PACKED_WAYS;
    let mut victim = first;
    let mut shallowest = u64::MAX;
    for k in 0..PACKED_WAYS {
        let i = (first + k) % PACKED_WAYS;
        let (check, old) = (bucket[2 * i].load(Relaxed), bucket[2 * i + 1].load(Relaxed));
        if check ^ old == key {
            victim = i;
            break;
        }
        let old_depth = old >> VALUE_BITS;
        if old_depth < shallowest {
            shallowest = old_depth;
            victim = i;
        }
    }
    bucket[2 * victim].store(key ^ data, Relaxed);
    bucket[2 * victim + 1].store(data, Relaxed);
}

impl<V: HashValue> PerftHash<V> {
    /// Single-word values use the packed layout.
    const PACKED: bool = V::WORDS == 1;
    /// Words per slot.
    const SLOT: usize = if Self::PACKED {
        2
    } else {
        wide_slot_words(V::WORDS)
    };
    /// Slots per bucket.
    const WAYS: usize = if Self::PACKED { PACKED_WAYS } else { 2 };
    /// Words per bucket.
    const BUCKET: usize = Self::WAYS * Self::SLOT;

    /// A table using at most `mib` MiB (at least one bucket). The memory is allocated (and
    /// touched) here; like any allocation, running out of memory aborts.
    pub fn new(mib: usize) -> PerftHash<V> {
        PerftHash::with_threads(mib, 1, None)
    }

    /// [`PerftHash::new`], with the memory touched by `threads` threads at once (a fresh page
    /// can be slow to fault in, notably in virtual machines). Setting `stop` ends the touching
    /// early (a large table takes a while): the pages not yet touched are zero all the same.
    pub(crate) fn with_threads(
        mib: usize,
        threads: usize,
        stop: Option<&AtomicBool>,
    ) -> PerftHash<V> {
        let bucket_bytes = Self::BUCKET * std::mem::size_of::<AtomicU64>();
        let buckets = (mib.saturating_mul(1 << 20) / bucket_bytes).max(1);
        PerftHash {
            words: memory::Words::zeroed(buckets * Self::BUCKET, threads, stop),
            buckets,
            _value: std::marker::PhantomData,
        }
    }

    /// The memory the table's slots take, in bytes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.words.as_slice())
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for w in self.words.as_slice() {
            w.store(0, Relaxed);
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[AtomicU64] {
        let index = ((u128::from(key) * self.buckets as u128) >> 64) as usize;
        let start = index * Self::BUCKET;
        &self.words.as_slice()[start..start + Self::BUCKET]
    }

    /// Asks the CPU to fetch the bucket of (`hash`, `depth`) into cache ahead of a probe.
    #[inline]
    pub fn prefetch(&self, hash: u64, depth: u32) {
        let bucket = self.bucket(mix_key(hash, depth));
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // Every cache line of the bucket (buckets start on a line; a wide one spans several).
            for word in bucket.iter().step_by(8) {
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
        if Self::PACKED {
            return probe_packed(bucket, key, depth).map(|v| V::from_words(&[v]));
        }
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
        let mut data = [0u64; MAX_WORDS];
        let data = &mut data[..V::WORDS];
        value.to_words(data);
        if Self::PACKED {
            if let Some(packed) = pack(depth, data[0]) {
                store_packed(bucket, key, packed);
            }
            return;
        }
        let meta = u64::from(depth) + 1;
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

/// The table's memory: zeroed, aligned words, prepared for random access by several threads.
mod memory {
    use std::{
        alloc::{alloc_zeroed, dealloc, handle_alloc_error, Layout},
        ptr::NonNull,
        sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed},
    };

    /// A cache line.
    const CACHE_LINE: usize = 64;
    /// A transparent huge page (x86-64, and AArch64 with 4 KiB base pages).
    pub(super) const HUGE_PAGE: usize = 2 << 20;
    /// A base page (the smallest on common systems; touching more often is harmless).
    const PAGE: usize = 4096;

    /// Owned zeroed `AtomicU64` words, aligned to a cache line, and to a huge page when at least
    /// that large.
    pub(super) struct Words {
        start: NonNull<AtomicU64>,
        len: usize,
        block: NonNull<u8>,
        layout: Layout,
    }

    // SAFETY: `Words` owns its block alone and only lends it out as `&[AtomicU64]`, which is
    // `Send` and `Sync`.
    unsafe impl Send for Words {}
    // SAFETY: as above.
    unsafe impl Sync for Words {}

    impl Words {
        /// `len` zeroed words, touched by `threads` threads until `stop` is set.
        pub(super) fn zeroed(len: usize, threads: usize, stop: Option<&AtomicBool>) -> Words {
            let bytes = len.saturating_mul(std::mem::size_of::<AtomicU64>());
            let align = if bytes >= HUGE_PAGE {
                HUGE_PAGE
            } else {
                CACHE_LINE
            };
            // Over-allocate with the natural alignment and align inside the block: a large
            // zeroed block then comes fresh from the OS (calloc), not yet faulted in, and
            // `touch` can fault it in with several threads. (An aligned `alloc_zeroed` would
            // write every byte from this thread.)
            let Ok(layout) = Layout::from_size_align(
                bytes.saturating_add(align),
                std::mem::align_of::<AtomicU64>(),
            ) else {
                panic!("a perft hash table of {bytes} bytes is too large");
            };
            // SAFETY: the layout's size is at least `align`, so not zero.
            let Some(block) = NonNull::new(unsafe { alloc_zeroed(layout) }) else {
                handle_alloc_error(layout)
            };
            let offset = (align - block.as_ptr() as usize % align) % align;
            // SAFETY: `offset < align` and the block is `bytes + align` long, so `start` and
            // the `bytes` after it are inside the block.
            let start = unsafe { block.add(offset) }.cast::<AtomicU64>();
            let words = Words {
                start,
                len,
                block,
                layout,
            };
            words.touch(threads, stop);
            words
        }

        /// Writes to every page once, split between `threads` threads (see the module
        /// documentation); each thread gives up once `stop` is set (looked at every 1 MiB).
        fn touch(&self, threads: usize, stop: Option<&AtomicBool>) {
            const PAGE_WORDS: usize = PAGE / std::mem::size_of::<AtomicU64>();
            const PAGES_BETWEEN_STOP_CHECKS: usize = (1 << 20) / PAGE;
            let touch = |words: &[AtomicU64]| {
                for (i, w) in words.iter().step_by(PAGE_WORDS).enumerate() {
                    if i % PAGES_BETWEEN_STOP_CHECKS == 0 && stop.is_some_and(|s| s.load(Relaxed)) {
                        return;
                    }
                    w.store(0, Relaxed);
                }
            };
            let words = self.as_slice();
            // Whole pages per thread, and no extra thread for a small table.
            let pages = words.len().div_ceil(PAGE_WORDS);
            let threads = threads.clamp(1, (pages / 64).max(1));
            if threads == 1 {
                touch(words);
                return;
            }
            let chunk = pages.div_ceil(threads) * PAGE_WORDS;
            std::thread::scope(|scope| {
                let mut parts = words.chunks(chunk);
                let first = parts.next();
                for part in parts {
                    scope.spawn(move || touch(part));
                }
                if let Some(part) = first {
                    touch(part);
                }
            });
        }

        /// The words.
        #[inline]
        pub(super) fn as_slice(&self) -> &[AtomicU64] {
            // SAFETY: `start` is aligned (to at least a cache line) and points to `len` zeroed
            // words inside the block (zero is a valid `AtomicU64`; `bytes = len * 8` did not
            // saturate, or the layout of `bytes + align` bytes would have been refused, which
            // also keeps the slice under `isize::MAX` bytes). The block lives as long as
            // `self`, and is only ever lent out as shared `&[AtomicU64]`, so no `&mut` aliases.
            unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
        }
    }

    impl Drop for Words {
        fn drop(&mut self) {
            // SAFETY: `block` was allocated with `layout` by `alloc_zeroed` and is freed once.
            unsafe { dealloc(self.block.as_ptr(), self.layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This process's resident memory in KiB (Linux).
    #[cfg(target_os = "linux")]
    fn resident_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_stopped_run_does_not_fault_in_its_table() {
        // 1 GiB: touching it all would add about 1 GiB of resident memory.
        let stop = AtomicBool::new(true);
        let before = resident_kib();
        let table = BulkHash::with_threads(1024, 2, Some(&stop));
        let grown_mib = resident_kib().saturating_sub(before) / 1024;
        assert!(
            grown_mib < 256,
            "a stopped table still faulted in {grown_mib} MiB"
        );
        // Untouched pages read as zero: the table works.
        table.store(7, 2, 400);
        assert_eq!(table.probe(7, 2), Some(400));
    }

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
        // One bucket: every key collides. Bulk buckets hold four entries.
        let table = BulkHash::new(0);
        assert_eq!(table.bytes(), 64);
        for (key, depth) in [(1, 6), (2, 2), (3, 3), (4, 4)] {
            table.store(key, depth, key * 100);
        }
        // A fifth entry pushes out the shallowest, even when it is shallower still.
        table.store(5, 2, 500);
        assert_eq!(table.probe(2, 2), None);
        table.store(6, 5, 600);
        assert_eq!(table.probe(5, 2), None);
        for (key, depth) in [(1, 6), (3, 3), (4, 4), (6, 5)] {
            assert_eq!(table.probe(key, depth), Some(key * 100), "key {key}");
        }
        // Storing the same key again overwrites its slot instead of taking another.
        table.store(6, 5, 601);
        assert_eq!(table.probe(6, 5), Some(601));
        assert_eq!(table.probe(3, 3), Some(300));
        // Among equally deep entries, the key picks the one to go: not always the same slot.
        let table = BulkHash::new(0);
        for key in [0, 1, 2, 3, 5, 6] {
            table.store(key, 2, key + 10);
        }
        let kept: Vec<u64> = (0..7).filter(|&k| table.probe(k, 2).is_some()).collect();
        assert_eq!(kept, [0, 3, 5, 6]);
        // Statistics buckets hold two: the deepest and the latest.
        let stats = StatsHash::new(0);
        let s = |n| PerftStats::from_nodes(n);
        stats.store(1, 6, s(600));
        stats.store(2, 2, s(200));
        stats.store(3, 3, s(300));
        assert_eq!(stats.probe(1, 6), Some(s(600)));
        assert_eq!(stats.probe(3, 3), Some(s(300)));
        assert_eq!(stats.probe(2, 2), None);
    }

    #[test]
    fn bulk_values_that_do_not_fit_the_packed_slot_are_not_stored() {
        let table = BulkHash::new(1);
        table.store(7, 3, VALUE_MASK);
        assert_eq!(table.probe(7, 3), Some(VALUE_MASK));
        table.store(8, 3, VALUE_MASK + 1);
        assert_eq!(table.probe(8, 3), None);
        table.store(9, MAX_PACKED_DEPTH, 5);
        assert_eq!(table.probe(9, MAX_PACKED_DEPTH), Some(5));
        table.store(10, MAX_PACKED_DEPTH + 1, 5);
        assert_eq!(table.probe(10, MAX_PACKED_DEPTH + 1), None);
        // A zero count (no legal moves below) is a real entry, unlike an empty slot.
        table.store(0, 2, 0);
        assert_eq!(table.probe(0, 2), Some(0));
        assert_eq!(table.probe(0, 3), None);
    }

    #[test]
    fn memory_is_aligned_and_of_the_requested_size() {
        let line = |t: &BulkHash| t.words.as_slice().as_ptr() as usize % 64;
        let small = BulkHash::new(1);
        assert_eq!(small.bytes(), 1 << 20);
        assert_eq!(line(&small), 0);
        let big = BulkHash::new(8);
        assert_eq!(big.bytes(), 8 << 20);
        assert_eq!(
            big.words.as_slice().as_ptr() as usize % memory::HUGE_PAGE,
            0
        );
        assert!(big.words.as_slice().iter().all(|w| w.load(Relaxed) == 0));
        let stats = StatsHash::new(8);
        assert_eq!(stats.bytes(), 8 << 20);
        // Statistics slots are padded to two cache lines.
        assert_eq!(StatsHash::SLOT, 16);
        assert_eq!(wide_slot_words(1), 4);
        assert_eq!(wide_slot_words(6), 8);
        assert_eq!(wide_slot_words(7), 16);
    }

    #[test]
    fn concurrent_bulk_writers_never_produce_wrong_values() {
        let table = BulkHash::new(0);
        std::thread::scope(|s| {
            for t in 0..2u64 {
                let table = &table;
                s.spawn(move || {
                    for i in 0..50_000u64 {
                        let key = i % 11 + t * 100;
                        let depth = (i % 3) as u32 + 2;
                        let v = key * 1000 + u64::from(depth);
                        table.store(key, depth, v);
                        if let Some(got) = table.probe(key, depth) {
                            assert_eq!(got, v);
                        }
                    }
                });
            }
        });
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
