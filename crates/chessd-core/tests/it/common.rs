//! What the core's oracle tests share: the reference perft suites (tests/data/perft, with their
//! sources in tests/data/README.md), their FENs, the shared mate-puzzle sample, and a small
//! seeded generator.

/// The standard perft suite.
pub(crate) const SUITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/perft/perft_suite.epd"
);
/// The Chess960 perft suite.
pub(crate) const CHESS960: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/perft/perft_chess960.epd"
);

/// xorshift64*: a small seeded generator, so failures reproduce.
pub(crate) struct Rng(pub u64);

impl Rng {
    /// A number below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// The rows of a tab-separated data file: its lines other than `#` comments and blank lines,
/// split at tabs.
pub(crate) fn tsv_rows(path: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e} (reference data beside the checkout)"))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// The FENs of an EPD suite, in order.
pub(crate) fn fens(path: &str) -> impl Iterator<Item = String> {
    std::fs::read_to_string(path)
        .expect("reference data beside the checkout")
        .lines()
        .filter_map(|l| l.split(';').next())
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect::<Vec<_>>()
        .into_iter()
}

/// One of `samples` with one character replaced, inserted or deleted (the character drawn
/// from `alphabet`): near-valid input for the parsers' property tests.
pub(crate) fn mutated(
    samples: &'static [&'static str],
    alphabet: &str,
) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    (
        prop::sample::select(samples),
        0usize..100,
        0u8..3,
        prop::sample::select(alphabet.chars().collect::<Vec<_>>()),
    )
        .prop_map(|(text, at, op, c)| {
            let mut chars: Vec<char> = text.chars().collect();
            let at = at % (chars.len() + 1);
            match op {
                0 if at < chars.len() => chars[at] = c,
                1 => chars.insert(at, c),
                _ if at < chars.len() => {
                    chars.remove(at);
                }
                _ => chars.push(c),
            }
            chars.into_iter().collect()
        })
}

/// The shared sample of lichess mate-in-2 and mate-in-3 puzzles.
const PUZZLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/puzzles/lichess_m2_m3_sample50.csv"
);

/// One row of the puzzle sample.
pub(crate) struct Puzzle {
    /// The lichess puzzle id.
    pub id: String,
    /// The position.
    pub fen: String,
    /// The mate's length in moves.
    pub mate: u32,
    /// Every first move that mates in `mate`, in UCI.
    pub keys: Vec<String>,
}

/// Every puzzle of the sample, in file order.
pub(crate) fn puzzles() -> Vec<Puzzle> {
    let text = std::fs::read_to_string(PUZZLES).expect("the shared puzzle sample is readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap();
    let (id, fen, mate, keys) = (
        col("puzzle_id"),
        col("fen"),
        col("mate"),
        col("mating_first_moves_uci"),
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Puzzle {
                id: f[id].to_string(),
                fen: f[fen].to_string(),
                mate: f[mate].parse().unwrap(),
                keys: f[keys].split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}
