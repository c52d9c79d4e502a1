//! Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013), as lichess rates
//! games: pure arithmetic, no I/O. A rating period here is one game (lichess's choice), so a
//! player's rating changes after each rated game against the opponent's rating before it.
//! Also the time-control classes ratings are kept per (lichess's estimated duration rule).

/// The Glicko-2 scale factor between the Glicko and Glicko-2 scales.
const SCALE: f64 = 173.7178;
/// The convergence tolerance of the volatility iteration.
const EPSILON: f64 = 0.000_001;

/// A player's rating: rating, deviation and volatility (Glicko scale: 1500, 350, 0.06 new).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating.
    pub rating: f64,
    /// The rating deviation.
    pub deviation: f64,
    /// The volatility.
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

impl Rating {
    /// A deviation above this marks a rating provisional (lichess's threshold).
    pub const PROVISIONAL_DEVIATION: f64 = 110.0;

    /// Whether the rating is still provisional.
    pub fn provisional(&self) -> bool {
        self.deviation > Rating::PROVISIONAL_DEVIATION
    }
}

/// One game's result against an opponent: `score` 1 (win), 0.5 (draw) or 0 (loss).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// The opponent's rating before the game.
    pub opponent: Rating,
    /// The player's score.
    pub score: f64,
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The rating after a rating period with `outcomes`, under the system constant `tau` (0.3 to
/// 1.2; lichess uses 0.75). With no outcome only the deviation grows (step 6 of the paper).
pub fn update(player: Rating, outcomes: &[Outcome], tau: f64) -> Rating {
    // Step 2: to the Glicko-2 scale.
    let mu = (player.rating - 1500.0) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;
    if outcomes.is_empty() {
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        return Rating {
            deviation: phi_star * SCALE,
            ..player
        };
    }
    // Steps 3 and 4: the estimated variance v and improvement delta.
    let mut v_inv = 0.0;
    let mut sum = 0.0;
    for o in outcomes {
        let mu_j = (o.opponent.rating - 1500.0) / SCALE;
        let phi_j = o.opponent.deviation / SCALE;
        let e = expected(mu, mu_j, phi_j);
        let g_j = g(phi_j);
        v_inv += g_j * g_j * e * (1.0 - e);
        sum += g_j * (o.score - e);
    }
    let v = 1.0 / v_inv;
    let delta = v * sum;
    // Step 5: the new volatility (the Illinois algorithm).
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    let mut rounds = 0;
    while (big_b - big_a).abs() > EPSILON && rounds < 100 {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
        rounds += 1;
    }
    let sigma_new = (big_a / 2.0).exp();
    // Steps 6 to 8: the new deviation and rating, back on the Glicko scale.
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    Rating {
        rating: mu_new * SCALE + 1500.0,
        deviation: phi_new * SCALE,
        volatility: sigma_new,
    }
}

/// The time-control classes ratings are kept per.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Estimated duration under 179 s.
    Bullet,
    /// Under 479 s.
    Blitz,
    /// Under 1499 s.
    Rapid,
    /// Longer, or untimed.
    Classical,
}

impl Class {
    /// The class of a time control (lichess's rule: the estimated duration is the initial time
    /// plus 40 increments, in seconds); an untimed game is classical.
    pub fn of(initial_ms: u64, increment_ms: u64) -> Class {
        let secs = (initial_ms + 40 * increment_ms) / 1000;
        match secs {
            0..=178 => Class::Bullet,
            179..=478 => Class::Blitz,
            479..=1498 => Class::Rapid,
            _ => Class::Classical,
        }
    }

    /// Its name (`bullet`, `blitz`, `rapid`, `classical`).
    pub fn name(self) -> &'static str {
        match self {
            Class::Bullet => "bullet",
            Class::Blitz => "blitz",
            Class::Rapid => "rapid",
            Class::Classical => "classical",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glickman's worked example: 1500/200/0.06 against 1400/30 (won), 1550/100 and 1700/300
    /// (lost) in one period, τ = 0.5, gives 1464.06 / 151.52 / 0.05999.
    #[test]
    fn the_worked_example_of_glickmans_paper() {
        let opponent = |rating, deviation| Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let outcomes = [
            Outcome {
                opponent: opponent(1400.0, 30.0),
                score: 1.0,
            },
            Outcome {
                opponent: opponent(1550.0, 100.0),
                score: 0.0,
            },
            Outcome {
                opponent: opponent(1700.0, 300.0),
                score: 0.0,
            },
        ];
        let after = update(opponent(1500.0, 200.0), &outcomes, 0.5);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
        assert!(after.provisional());
    }

    #[test]
    fn classes_follow_lichess() {
        assert_eq!(Class::of(60_000, 0), Class::Bullet);
        assert_eq!(Class::of(180_000, 2_000), Class::Blitz);
        assert_eq!(Class::of(600_000, 0), Class::Rapid);
        assert_eq!(Class::of(900_000, 10_000), Class::Rapid);
        assert_eq!(Class::of(1_800_000, 0), Class::Classical);
    }
}
