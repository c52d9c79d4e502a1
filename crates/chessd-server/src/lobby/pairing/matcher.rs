//! The pairing rule, apart from any I/O: which waiting entries of one pool play each other.
//!
//! Each entry accepts opponents rated within its range, which starts at `range_initial` and
//! widens by `range_per_sec` for each second it has waited, up to `range_max`. Two entries are
//! paired when their ratings differ by at most the range of each (both accept), and never when
//! they are the same player: when both entries have a player, their players tell (two players
//! behind one address, a family or a club, may play each other); when either has none, their
//! clients do. The longest waiting entry is served first, with
//! the closest-rated opponent that accepts it (the longer waiting one on a tie).

use std::{collections::BTreeSet, ops::Bound};

use crate::config::PairingConfig;

/// How far apart two ratings may be, by waiting time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// Rating points when just joined.
    pub initial: u32,
    /// Rating points added per second waited.
    pub per_sec: u32,
    /// The widest.
    pub max: u32,
}

impl Range {
    /// The range of the `[pairing]` configuration.
    pub fn of(config: &PairingConfig) -> Range {
        Range {
            initial: config.range_initial,
            per_sec: config.range_per_sec,
            max: config.range_max,
        }
    }

    /// The range of an entry that has waited `waited_ms`.
    pub fn after(&self, waited_ms: i64) -> i64 {
        let waited = waited_ms.max(0);
        let widened = i64::from(self.per_sec).saturating_mul(waited) / 1000;
        i64::from(self.initial)
            .saturating_add(widened)
            .min(i64::from(self.max.max(self.initial)))
    }
}

/// A waiting entry as the rule sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its client, as quotas name clients.
    pub client: String,
    /// Its player, if known.
    pub player: Option<String>,
    /// Its rating.
    pub rating: i64,
    /// When it joined (Unix ms).
    pub since_ms: i64,
}

impl Candidate {
    /// Whether `self` and `other` are the same player (never paired together): the same
    /// player when both have one, else the same client.
    fn same_as(&self, other: &Candidate) -> bool {
        match (&self.player, &other.player) {
            (Some(a), Some(b)) => a == b,
            _ => self.client == other.client,
        }
    }
}

/// The pairs among `entries` (oldest first) at `now_ms`, as indices into `entries`; each entry
/// is in at most one pair, the older entry first.
pub fn pairs(entries: &[Candidate], now_ms: i64, range: Range) -> Vec<(usize, usize)> {
    let reach: Vec<i64> = entries
        .iter()
        .map(|e| range.after(now_ms - e.since_ms))
        .collect();
    // Waiting entries by rating (then age).
    let mut open: BTreeSet<(i64, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.rating, i))
        .collect();
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| (entries[i].since_ms, i));
    let mut out = Vec::new();
    for i in order {
        let me = (entries[i].rating, i);
        if !open.contains(&me) {
            continue;
        }
        let found = {
            let mut below = open.range(..me).rev().peekable();
            let mut above = open
                .range((Bound::Excluded(me), Bound::Unbounded))
                .peekable();
            loop {
                // The next closest rating, on either side.
                let next = match (below.peek(), above.peek()) {
                    (Some(b), Some(a)) if me.0 - b.0 <= a.0 - me.0 => below.next(),
                    (Some(_), Some(_)) | (None, Some(_)) => above.next(),
                    (Some(_), None) => below.next(),
                    (None, None) => None,
                };
                let Some(&(rating, j)) = next else {
                    break None;
                };
                let gap = (rating - me.0).abs();
                if gap > reach[i] {
                    // Every entry left is farther still.
                    break None;
                }
                if gap <= reach[j] && !entries[i].same_as(&entries[j]) {
                    break Some((rating, j));
                }
            }
        };
        if let Some((rating, j)) = found {
            open.remove(&me);
            open.remove(&(rating, j));
            out.push((i, j));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const RANGE: Range = Range {
        initial: 100,
        per_sec: 50,
        max: 1000,
    };

    fn entry(client: &str, rating: i64, since_ms: i64) -> Candidate {
        Candidate {
            client: client.into(),
            player: None,
            rating,
            since_ms,
        }
    }

    #[test]
    fn the_range_widens_with_waiting_time_up_to_its_max() {
        assert_eq!(RANGE.after(0), 100);
        assert_eq!(RANGE.after(-5), 100);
        assert_eq!(RANGE.after(1000), 150);
        assert_eq!(RANGE.after(2500), 225);
        assert_eq!(RANGE.after(18_000), 1000);
        assert_eq!(RANGE.after(i64::MAX), 1000);
    }

    #[test]
    fn a_far_rating_gap_pairs_only_once_both_ranges_cover_it() {
        // 1500 and 1800: 300 apart, covered by a range after 4 s of waiting (100 + 4 * 50).
        let entries = [entry("a", 1500, 0), entry("b", 1800, 0)];
        assert!(pairs(&entries, 0, RANGE).is_empty());
        assert!(pairs(&entries, 3_999, RANGE).is_empty());
        assert_eq!(pairs(&entries, 4_000, RANGE), [(0, 1)]);
        // Both must accept: the newcomer's range is still 100 when the old one's is wide.
        let entries = [entry("a", 1500, 0), entry("b", 1800, 10_000)];
        assert!(pairs(&entries, 10_000, RANGE).is_empty());
        assert_eq!(pairs(&entries, 14_000, RANGE), [(0, 1)]);
        // A gap over range_max never pairs.
        let entries = [entry("a", 1000, 0), entry("b", 2100, 0)];
        assert!(pairs(&entries, 3_600_000, RANGE).is_empty());
    }

    #[test]
    fn never_the_same_client_or_player() {
        let entries = [entry("a", 1500, 0), entry("a", 1500, 1)];
        assert!(pairs(&entries, 60_000, RANGE).is_empty());
        let mut x = entry("a", 1500, 0);
        let mut y = entry("b", 1500, 0);
        x.player = Some("p".into());
        y.player = Some("p".into());
        assert!(pairs(&[x.clone(), y.clone()], 60_000, RANGE).is_empty());
        y.player = Some("q".into());
        assert_eq!(pairs(&[x.clone(), y.clone()], 0, RANGE), [(0, 1)]);
        // Two players behind one address play each other; a player and a stranger without a
        // player behind the same address do not (the client is all that tells them apart).
        y.client = "a".into();
        assert_eq!(pairs(&[x.clone(), y.clone()], 0, RANGE), [(0, 1)]);
        y.player = None;
        assert!(pairs(&[x, y], 60_000, RANGE).is_empty());
        // Two players with no player id but different clients are paired.
        let entries = [
            entry("a", 1500, 0),
            entry("a", 1500, 1),
            entry("b", 1550, 2),
        ];
        assert_eq!(pairs(&entries, 10, RANGE), [(0, 2)]);
    }

    #[test]
    fn the_oldest_entry_gets_the_closest_rating_and_each_entry_one_pair() {
        let entries = [
            entry("old", 1500, 0),
            entry("far", 1590, 10),
            entry("near", 1480, 20),
            entry("next", 1560, 30),
            entry("alone", 2500, 40),
        ];
        let got = pairs(&entries, 100, RANGE);
        assert_eq!(got, [(0, 2), (1, 3)]);
        let mut seen: Vec<usize> = got.iter().flat_map(|&(a, b)| [a, b]).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 4);
    }

    #[test]
    fn many_entries_pair_fully_and_never_twice() {
        let entries: Vec<Candidate> = (0..200)
            .map(|i| entry(&format!("c{i}"), 1200 + (i * 7919) % 600, i))
            .collect();
        let got = pairs(&entries, 60_000, RANGE);
        let mut seen = std::collections::HashSet::new();
        for &(a, b) in &got {
            assert!(seen.insert(a) && seen.insert(b), "{a} or {b} twice");
            assert_ne!(entries[a].client, entries[b].client);
        }
        // With every range at 1000, everyone finds someone.
        assert_eq!(got.len(), 100);
    }
}
