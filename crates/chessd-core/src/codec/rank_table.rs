//! The code of a move's rank: a fixed canonical Huffman code over the ranks 0 to 255
//! (2 bits for the likeliest move, 17 for the rarest ranks).

use super::huffman::Codebook;

/// The code length of each rank, as printed by the generator below (`generate::rank_table`:
/// 1200 games of the built-in engine at 300 to 3000 nodes a move from the start position,
/// the first 4 plies and one move in 16 random; 123,595 plies, 3.775 bits a move on them).
/// Every rank has a code (each count was one more than seen), so any legal move can be
/// written. Part of the stored format: never change it.
const RANK_CODE_LENGTHS: [u8; 256] = [
    2, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 9, 9, 9, 9,
    9, 10, 10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 13, 13, 13, 14, 15, 15, 15, 14, 15, 17, 16,
    17, 16, 16, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 16, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 16, 16,
];

/// The canonical Huffman code of the ranks.
pub(crate) static RANK_CODES: Codebook<256> = Codebook::new(RANK_CODE_LENGTHS);

/// The generator of [`RANK_CODE_LENGTHS`]: run it with `cargo test -p chessd-core --lib
/// codec::rank_table::generate -- --ignored --nocapture` and paste what it prints.
#[cfg(test)]
mod generate {
    use std::{collections::BinaryHeap, sync::atomic::AtomicBool};

    use crate::{
        codec::order::Ranker,
        game::Game,
        search::{Limits, Searcher},
        Position,
    };

    /// xorshift64*.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % n
        }
    }

    /// Huffman code lengths for `counts` (every count at least 1).
    fn code_lengths(counts: &[u64]) -> Vec<u8> {
        // Nodes: leaves 0..n, then inner nodes; parent links give the depths.
        let n = counts.len();
        let mut parent = vec![usize::MAX; 2 * n];
        let mut heap: BinaryHeap<std::cmp::Reverse<(u64, usize)>> = counts
            .iter()
            .enumerate()
            .map(|(i, &c)| std::cmp::Reverse((c, i)))
            .collect();
        let mut next = n;
        while heap.len() > 1 {
            let std::cmp::Reverse((a, i)) = heap.pop().unwrap();
            let std::cmp::Reverse((b, j)) = heap.pop().unwrap();
            parent[i] = next;
            parent[j] = next;
            heap.push(std::cmp::Reverse((a + b, next)));
            next += 1;
        }
        (0..n)
            .map(|leaf| {
                let (mut depth, mut at) = (0u8, leaf);
                while parent[at] != usize::MAX {
                    at = parent[at];
                    depth += 1;
                }
                depth
            })
            .collect()
    }

    /// Plays engine games and counts the ranks of the moves played: 1200 games from the
    /// start position, the first 4 plies uniformly random, then the engine at 300 to 3000
    /// nodes a move, with one move in 16 uniformly random (a blunder), up to 200 plies or the
    /// end of the game. Every rank gets one count more, so that every rank has a code.
    #[test]
    #[ignore = "generates the rank table (a minute or two); run by hand"]
    fn rank_table() {
        let mut rng = Rng(0x00C0_DEC5_EED5);
        let mut ranker = Ranker::new();
        let mut counts = vec![1u64; 256];
        let mut searcher = Searcher::new(4);
        let stop = AtomicBool::new(false);
        let mut plies = 0u64;
        for _ in 0..1200 {
            let mut game = Game::new(Position::startpos());
            searcher.clear();
            let mut hashes = Vec::new();
            while !game.is_over() && game.history().len() < 200 {
                let pos = *game.position();
                let legal = pos.legal_moves();
                let mv = if game.history().len() < 4 || rng.below(16) == 0 {
                    legal[rng.below(legal.len() as u64) as usize]
                } else {
                    let limits = Limits::nodes(300 + rng.below(2700));
                    let result = searcher.search(&pos, &hashes, &limits, &stop, |_| {});
                    result.best.unwrap()
                };
                counts[ranker.rank_of(&pos, mv).unwrap()] += 1;
                hashes.push(pos.hash());
                game.play(mv).unwrap();
                plies += 1;
            }
        }
        let lengths = code_lengths(&counts);
        let total: u64 = counts.iter().sum();
        let bits: u64 = counts
            .iter()
            .zip(&lengths)
            .map(|(&c, &l)| c * u64::from(l))
            .sum();
        println!(
            "// {plies} plies; {:.3} bits a move on these games",
            bits as f64 / total as f64
        );
        println!("// counts of ranks 0..16: {:?}", &counts[..16]);
        println!("const RANK_CODE_LENGTHS: [u8; 256] = [");
        for row in lengths.chunks(16) {
            let row: Vec<String> = row.iter().map(u8::to_string).collect();
            println!("    {},", row.join(", "));
        }
        println!("];");
        assert!(lengths.iter().all(|&l| (1..=32).contains(&l)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_is_complete() {
        // Kraft's sum is exactly 1: every bit string starts with some code.
        let sum: u64 = RANK_CODE_LENGTHS.iter().map(|&l| 1u64 << (32 - l)).sum();
        assert_eq!(sum, 1 << 32);
        assert!((0..256).all(|r| RANK_CODES.len(r) > 0));
    }
}
