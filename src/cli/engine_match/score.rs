//! The match's score from the first engine's point of view: wins, draws, losses, points and
//! the Elo difference they suggest.

use chessd_core::{game::GameResult, Color};

/// Wins, draws and losses of one engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Tally {
    /// Counts a game whose result is `result`, played by the engine as `side`.
    pub(super) fn add(&mut self, result: GameResult, side: Color) {
        match result.winner() {
            Some(winner) if winner == side => self.wins += 1,
            Some(_) => self.losses += 1,
            None => self.draws += 1,
        }
    }

    /// Games counted.
    pub(super) fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points: 1 a win, ½ a draw.
    pub(super) fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    /// Points per game, from 0 to 1 (`None` before any game).
    pub(super) fn fraction(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.points() / f64::from(self.games()))
    }

    /// The Elo difference the score suggests (logistic model), as `+191`, `-inf`, `+inf`, or
    /// `none` before any game.
    pub(super) fn elo(&self) -> String {
        match self.fraction() {
            None => "none".to_string(),
            Some(s) if s <= 0.0 => "-inf".to_string(),
            Some(s) if s >= 1.0 => "+inf".to_string(),
            Some(s) => {
                // `+ 0.0` writes a zero as `+0`, never `-0`.
                let elo = (-400.0 * (1.0 / s - 1.0).log10()).round() + 0.0;
                format!("{elo:+.0}")
            }
        }
    }

    /// `+W =D -L of N, P points (S%), Elo difference E`.
    pub(super) fn summary(&self) -> String {
        format!(
            "+{} ={} -{} of {}, {} points ({:.1}%), Elo difference {}",
            self.wins,
            self.draws,
            self.losses,
            self.games(),
            self.points(),
            self.fraction().unwrap_or(0.0) * 100.0,
            self.elo()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_count_from_the_engines_side() {
        let mut t = Tally::default();
        t.add(GameResult::WhiteWins, Color::White);
        t.add(GameResult::WhiteWins, Color::Black);
        t.add(GameResult::BlackWins, Color::Black);
        t.add(GameResult::Draw, Color::White);
        assert_eq!(
            t,
            Tally {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
        assert_eq!(t.points(), 2.5);
        assert_eq!(t.elo(), "+89");
        assert_eq!(
            t.summary(),
            "+2 =1 -1 of 4, 2.5 points (62.5%), Elo difference +89"
        );
    }

    #[test]
    fn extreme_scores() {
        let mut t = Tally::default();
        assert_eq!(t.elo(), "none");
        t.add(GameResult::Draw, Color::White);
        assert_eq!(t.elo(), "+0");
        let all = Tally {
            wins: 19,
            draws: 0,
            losses: 1,
        };
        assert_eq!(all.elo(), "+512");
        assert_eq!(
            Tally {
                wins: 2,
                ..Tally::default()
            }
            .elo(),
            "+inf"
        );
        assert_eq!(
            Tally {
                losses: 2,
                ..Tally::default()
            }
            .elo(),
            "-inf"
        );
    }
}
