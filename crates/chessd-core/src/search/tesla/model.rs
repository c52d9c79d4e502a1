//! The document's error and cost model, and Tesla's tunables.
//!
//! - **Error.** A value searched to `depth` where `desired` was wanted misses
//!   `m = desired - depth` plies and is taken to lie in `[eval - m·c, eval + m·c]`, `c` the
//!   error constant ([`TeslaParams::error_cp`]).
//! - **Change.** The probability that promoting a node by one ply changes which child is best
//!   is a logistic cumulative distribution of the gap to the best (or, for the best child, to
//!   the runner-up) in units of that half-width: `F(x) = 1 / (1 + e^(-k·x))`, `k` the CDF
//!   steepness ([`TeslaParams::cdf_k`]), truncated: a probability below the floor
//!   ([`TeslaParams::cdf_floor`]) counts as 0, the child is settled (this is what lets a
//!   refuted move go unsearched, as a cutoff does in alpha-beta). A node without missing
//!   depth cannot change.
//! - **Cost.** Deepening a node searched to `d` plies by one costs `(EBF - 1)·EBF^d` nodes.

/// Tesla's tunables (the UCI options `Tesla …`); [`TeslaParams::default`] holds the measured
/// defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TeslaParams {
    /// Error constant `c`: centipawns a value may be off per missing ply.
    pub error_cp: f64,
    /// Effective branching factor of the cost model.
    pub ebf: f64,
    /// Leaves evaluated per batch.
    pub batch: usize,
    /// Steepness `k` of the logistic CDF.
    pub cdf_k: f64,
    /// Probabilities of change below this count as 0.
    pub cdf_floor: f64,
    /// Satisfaction: the search stops when the best benefit/cost ratio times the nodes the
    /// remaining time (or node budget) buys falls below this.
    pub satisfaction: f64,
}

impl Default for TeslaParams {
    fn default() -> TeslaParams {
        TeslaParams {
            error_cp: 60.0,
            ebf: 3.0,
            batch: 8,
            cdf_k: 1.7,
            cdf_floor: 0.05,
            satisfaction: 0.5,
        }
    }
}

impl TeslaParams {
    /// Half-width of the error interval of a value missing `missing` plies.
    pub fn error(&self, missing: i32) -> f64 {
        f64::from(missing.max(0)) * self.error_cp
    }

    /// The logistic CDF at `x` (in half-widths).
    pub fn cdf(&self, x: f64) -> f64 {
        1.0 / (1.0 + (-self.cdf_k * x).exp())
    }

    /// The error model's probability that a value missing `missing` plies moves by `gap`
    /// centipawns (`<= 0`: the distance to the value or threshold it must reach), 0 under the
    /// floor. The search's depth allotment (`run.rs`, `allotted`) uses the same CDF, and tells
    /// a child under the floor apart from one with a small chance.
    pub fn change_probability(&self, gap: i32, missing: i32) -> f64 {
        if missing <= 0 {
            return 0.0;
        }
        let p = self.cdf(f64::from(gap) / self.error(missing));
        if p < self.cdf_floor {
            0.0
        } else {
            p
        }
    }

    /// Cost in nodes of deepening a node searched to `depth` by one ply:
    /// `(EBF - 1)·EBF^depth`.
    pub fn cost(&self, depth: i32) -> f64 {
        (self.ebf - 1.0) * self.ebf.powi(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_shapes() {
        let p = TeslaParams::default();
        assert_eq!(p.error(2), 2.0 * p.error_cp);
        assert!((p.cdf(0.0) - 0.5).abs() < 1e-12);
        assert_eq!(p.change_probability(-50, 0), 0.0);
        assert!(p.change_probability(-10, 2) > p.change_probability(-100, 2));
        assert!(p.change_probability(-100, 4) > p.change_probability(-100, 1));
        assert!((p.cost(1) - (p.ebf - 1.0) * p.ebf).abs() < 1e-9);
        assert!(p.cost(-1) < p.cost(0));
    }
}
