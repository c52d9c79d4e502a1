use chessd_core::{search::tesla::{BatchEvaluator, BuiltinEvaluator}, FenMode, Position};
fn main() {
    let pos = Position::from_fen("3R4/ppk5/8/5Q2/4p3/P7/5PPP/2r3K1 w - - 1 36", FenMode::Strict).unwrap();
    let mut out = Vec::new();
    let mut e = BuiltinEvaluator;
    for t in [None, Some(553), Some(-553), Some(0)] {
        let n = match t { None => e.evaluate_batch(&[pos], &mut out), Some(t) => e.evaluate_batch_around(&[pos], &[t], &mut out) };
        println!("{t:?} -> {:?} nodes {n}", out);
    }
}
