//! The proof-number table: proof and disproof numbers per (position, attacker moves left).
//!
//! A node of the search is a position with the number of attacker moves left (its remaining
//! depth): the same position with more moves left is another node (it may mate where the
//! shorter one cannot). An entry keeps the depth it was stored at, and a proven entry also the
//! mate's length (attacker moves, at most its depth): the mate-distance bound that the proof
//! tree is extracted with. The position's entries at all depths share its bucket, and a
//! settled one answers other depths too: a mate in `len` is a mate within any depth `>= len`,
//! and no mate within `depth` is no mate within any smaller depth. Proof and disproof numbers
//! of unsettled entries only answer their own depth. (Keyed by position and depth alone, the
//! table saw none of these transpositions between depths: on the `dev` sets the proofs took
//! fewer nodes with them; see docs/solver.md.)
//!
//! Buckets of four 16-byte entries (one cache line); a new entry replaces the one of its bucket
//! with the least work (nodes searched below it, on a logarithmic scale), as df-pn solvers
//! usually do, so that the expensive results stay. The bucket is chosen by the hash's low
//! bits and an entry checks its 40 high bits; a false match could only make the proof tree
//! fail to build (the tree is made of real moves and checked leaves), never make a wrong
//! tree.

/// Infinity for proof and disproof numbers: a disproven node has `pn == INF`, a proven one
/// `dn == INF`.
pub(super) const INF: u32 = 1 << 30;

/// The largest finite number: sums saturate here, so that only a real proof or disproof
/// reaches [`INF`].
pub(super) const LARGE: u32 = INF - 1;

/// Entries per bucket (one cache line).
const WAYS: usize = 4;

/// The low bits of a stored tag that hold the depth, the mate length and the work instead of
/// the key.
const DATA_BITS: u32 = 24;

/// What the table knows about a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// The proof number (0: proven).
    pub pn: u32,
    /// The disproof number (0: disproven).
    pub dn: u32,
    /// When proven, the mate's length in attacker moves from here (0: the defender is mated).
    pub len: u8,
}

/// A fixed-size table of entries: two words a slot (the tag: the hash's high bits with the
/// depth, the length and the work's logarithm in the low bits; the numbers: `pn << 32 | dn`),
/// four slots a bucket of one cache line. The words are a zeroed `Vec<u64>`, which the
/// allocator takes from the system as untouched zero pages: a big table costs nothing until
/// used (a table of structures would be written in full before the search starts).
pub(super) struct Table {
    words: Vec<u64>,
    /// The index of the first bucket's first word (the first cache-line boundary).
    base: usize,
    /// The number of buckets minus one (a power of two minus one).
    mask: usize,
}

/// Words per bucket.
const BUCKET_WORDS: usize = 2 * WAYS;

/// The part of a hash a slot checks.
#[inline]
fn high(hash: u64) -> u64 {
    hash & !((1 << DATA_BITS) - 1)
}

/// The depth stored in a tag.
#[inline]
fn tag_depth(tag: u64) -> u32 {
    ((tag >> 16) & 0xff) as u32
}

/// 1 + the base-2 logarithm of the work (1..=64; 0 is kept for empty slots).
fn work_log(work: u64) -> u64 {
    u64::from(64 - work.max(1).leading_zeros())
}

impl Table {
    /// A table of at most `bytes` bytes (at least one bucket).
    pub(super) fn with_bytes(bytes: usize) -> Table {
        let per_bucket = BUCKET_WORDS * 8;
        let mut buckets = 1usize;
        while buckets * 2 * per_bucket <= bytes {
            buckets *= 2;
        }
        let words = vec![0u64; buckets * BUCKET_WORDS + BUCKET_WORDS];
        let misalign = words.as_ptr() as usize % per_bucket;
        let base = (per_bucket - misalign) % per_bucket / 8;
        Table {
            words,
            base,
            mask: buckets - 1,
        }
    }

    /// The index of the first word of `hash`'s bucket.
    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        self.base + (hash as usize & self.mask) * BUCKET_WORDS
    }

    /// What is known of `hash` with `depth` moves left: a mate within `depth` stored at any
    /// depth (the shortest), else no mate stored at a depth `>= depth`, else the numbers
    /// stored at `depth` itself.
    #[inline]
    pub(super) fn get(&self, hash: u64, depth: u32) -> Option<Entry> {
        let b = self.bucket(hash);
        let bucket = &self.words[b..b + BUCKET_WORDS];
        let mut found: Option<(u8, Entry)> = None;
        for i in 0..WAYS {
            let (tag, nums) = (bucket[2 * i], bucket[2 * i + 1]);
            if tag as u8 == 0 || high(tag) != high(hash) {
                continue;
            }
            let e = Entry {
                pn: (nums >> 32) as u32,
                dn: nums as u32,
                len: (tag >> 8) as u8,
            };
            let d = tag_depth(tag);
            // Rank: 0 a proof that fits (shorter first), 1 a disproof that covers, 2 exact.
            let rank = if e.pn == 0 && u32::from(e.len) <= depth {
                0
            } else if e.dn == 0 && d >= depth {
                1
            } else if d == depth {
                2
            } else {
                continue;
            };
            let better = match found {
                None => true,
                Some((r, f)) => rank < r || (rank == 0 && r == 0 && e.len < f.len),
            };
            if better {
                found = Some((rank, e));
            }
        }
        found.map(|(_, e)| e)
    }

    /// Stores the numbers of a node (`len` only matters when proven) and the work spent on it.
    pub(super) fn put(&mut self, hash: u64, depth: u32, pn: u32, dn: u32, len: u32, work: u64) {
        let b = self.bucket(hash);
        let bucket = &mut self.words[b..b + BUCKET_WORDS];
        let tag = |i: usize| bucket[2 * i];
        let mine = |t: u64| t as u8 != 0 && high(t) == high(hash);
        let slot = match (0..WAYS).find(|&i| mine(tag(i)) && tag_depth(tag(i)) == depth) {
            Some(i) => i,
            None => (0..WAYS).min_by_key(|&i| tag(i) as u8).unwrap_or(0),
        };
        bucket[2 * slot] = high(hash)
            | u64::from(depth.min(255)) << 16
            | u64::from(len.min(255)) << 8
            | work_log(work);
        bucket[2 * slot + 1] = u64::from(pn) << 32 | u64::from(dn);
    }
}
