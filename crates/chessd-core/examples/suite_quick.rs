#![allow(clippy::unwrap_used)] // scratch tool for development
//! Scratch: runs the perft suites up to a node budget.
use chessd_core::{perft::perft, FenMode, Position};
fn main() {
    let budget: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let mut fails = 0;
    for file in [
        "../../../shared/data/perft/perft_suite.epd",
        "../../../shared/data/perft/perft_chess960.epd",
    ] {
        let text = std::fs::read_to_string(file).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim();
            let pos = match Position::from_fen(fen, FenMode::Strict) {
                Ok(p) => p,
                Err(e) => {
                    println!("strict reject {fen}: {e}");
                    Position::from_fen(fen, FenMode::Lenient).unwrap()
                }
            };
            for p in parts {
                let p = p.trim();
                let (d, n) = p[1..].split_once(' ').unwrap();
                let (d, n): (u32, u64) = (d.parse().unwrap(), n.trim().parse().unwrap());
                if n > budget {
                    break;
                }
                let got = perft(&pos, d);
                if got != n {
                    println!("FAIL {fen} d{d}: {got} != {n}");
                    fails += 1;
                    break;
                }
            }
        }
    }
    println!("fails: {fails}");
}
