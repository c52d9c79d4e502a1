//! The exact mode against Popeye on direct mates: the problems of
//! `tests/data/exact/popeye_direct.tsv` (composed #2-#5 problems from Popeye's own files and
//! V. Albillo's Mater collection, and game positions, see its README), whose expected answers
//! are Popeye's output. chessd must find the same shortest length and the same set of keys
//! (every first move that mates within N, as Popeye lists them), and every key's tree must be
//! complete. Not timed (`benches/exact_popeye.rs` times both).

use std::collections::BTreeSet;

use chessd_core::{solver::Solver, FenMode, Position};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/exact/popeye_direct.tsv"
);

/// One problem of the data file.
struct Problem {
    id: String,
    n: u32,
    fen: String,
    /// Popeye's shortest mate (0: none within N).
    length: u32,
    /// Every key Popeye printed for `#N`.
    keys: BTreeSet<String>,
}

fn problems() -> Vec<Problem> {
    crate::common::tsv_rows(DATA)
        .into_iter()
        .map(|f| Problem {
            id: f[0].to_string(),
            n: f[2].parse().unwrap(),
            fen: f[3].to_string(),
            length: f[4].parse().unwrap(),
            keys: f[5]
                .split(' ')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        })
        .collect()
}

#[test]
fn the_data_covers_every_n_with_twenty_problems() {
    let all = problems();
    for n in 2..=5 {
        let count = all.iter().filter(|p| p.n == n).count();
        assert!(count >= 20, "#{n}: {count} problems");
    }
}

#[test]
fn exact_mode_finds_popeyes_length_and_keys() {
    same_as_popeye(1);
}

/// Two threads share the root moves and, at the end of an iteration, help with each other's
/// unsettled moves: the answers must not change.
#[test]
fn exact_mode_on_two_threads_finds_the_same() {
    same_as_popeye(2);
}

fn same_as_popeye(threads: usize) {
    for p in problems() {
        let pos = Position::from_fen(&p.fen, FenMode::Strict).unwrap();
        let sol = Solver::new(pos)
            .mate_in(p.n)
            .threads(threads)
            .find_all_keys(true)
            .keys_within(true)
            .solve()
            .unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(sol.mate.unwrap_or(0), p.length, "{}: length", p.id);
        let within: BTreeSet<String> = sol
            .keys_within
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|&k| pos.uci(k))
            .collect();
        assert_eq!(within, p.keys, "{}: keys within #{}", p.id, p.n);
        // The keys at the shortest length are among them, and each has a complete tree.
        for &k in &sol.keys {
            assert!(within.contains(&pos.uci(k)), "{}: {}", p.id, pos.uci(k));
        }
        assert!(sol.tree_complete, "{}: tree", p.id);
        assert_eq!(sol.trees.len(), sol.keys.len(), "{}", p.id);
    }
}
