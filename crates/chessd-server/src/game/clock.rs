//! Server-authoritative chess clocks (initial time plus increment).
//!
//! The clock starts with the first move: White's first move is not timed, after it Black's time
//! runs, and from then on the side to move's time runs. A side whose time reaches zero has lost
//! on time (or drawn, when the opponent cannot mate).

use std::time::{Duration, Instant};

use chessd_core::Color;
use serde::{Deserialize, Serialize};

/// Initial time and increment per move, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    /// Time each side starts with.
    #[schema(minimum = 1, maximum = 86400000)]
    pub initial_ms: u64,
    /// Time added after each of a side's moves.
    #[serde(default)]
    #[schema(maximum = 3600000)]
    pub increment_ms: u64,
}

impl TimeControl {
    /// The longest initial time accepted (24 h).
    pub const MAX_INITIAL_MS: u64 = 24 * 3600 * 1000;
    /// The largest increment accepted (1 h).
    pub const MAX_INCREMENT_MS: u64 = 3600 * 1000;

    /// Checks the limits: 1 ms to 24 h initial time, at most 1 h increment.
    pub fn check(&self) -> Result<(), String> {
        if self.initial_ms == 0
            || self.initial_ms > Self::MAX_INITIAL_MS
            || self.increment_ms > Self::MAX_INCREMENT_MS
        {
            return Err(
                "time_control: initial_ms must be 1 ms to 24 h and increment_ms at most 1 h".into(),
            );
        }
        Ok(())
    }

    /// As PGN's `TimeControl` tag writes it: `base+increment` in seconds, fractions kept
    /// (`0.5+0`, `10+0.1`).
    pub fn pgn(&self) -> String {
        let seconds = |ms: u64| {
            if ms.is_multiple_of(1000) {
                (ms / 1000).to_string()
            } else {
                format!("{}", ms as f64 / 1000.0)
            }
        };
        format!(
            "{}+{}",
            seconds(self.initial_ms),
            seconds(self.increment_ms)
        )
    }
}

/// The clocks as clients see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClockView {
    /// White's remaining time.
    pub white_ms: u64,
    /// Black's remaining time.
    pub black_ms: u64,
    /// Whose time is running, if any.
    #[schema(value_type = Option<crate::schemas::Side>)]
    pub running: Option<chessd_core::Color>,
}

/// Both clocks of a game.
#[derive(Clone, Debug)]
pub struct Clock {
    control: TimeControl,
    remaining: [u64; 2],
    running: Option<(Color, Instant)>,
}

impl Clock {
    /// Fresh clocks for a time control, not running.
    pub fn new(control: TimeControl) -> Clock {
        Clock {
            control,
            remaining: [control.initial_ms; 2],
            running: None,
        }
    }

    /// Clocks with given remaining times (restoring a saved state), not running.
    pub fn with_remaining(control: TimeControl, white_ms: u64, black_ms: u64) -> Clock {
        Clock {
            control,
            remaining: [white_ms, black_ms],
            running: None,
        }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// `color`'s remaining time at `now`.
    pub fn remaining(&self, color: Color, now: Instant) -> u64 {
        let base = self.remaining[color.index()];
        match self.running {
            Some((c, since)) if c == color => {
                base.saturating_sub(now.saturating_duration_since(since).as_millis() as u64)
            }
            _ => base,
        }
    }

    /// Whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// Time until the running side flags, if a clock runs.
    pub fn time_to_flag(&self, now: Instant) -> Option<Duration> {
        self.running
            .map(|(c, _)| Duration::from_millis(self.remaining(c, now)))
    }

    /// Whether the running side has no time left at `now`.
    pub fn flagged(&self, now: Instant) -> Option<Color> {
        match self.running {
            Some((c, _)) if self.remaining(c, now) == 0 => Some(c),
            _ => None,
        }
    }

    /// Records a move by `mover` at `now`: charges the running side the time used (the mover, or
    /// in Chess 2 the defender whose bid completed the move), adds the mover's increment and
    /// starts the opponent's clock. Returns `Err(mover)` when the mover's time had already run
    /// out (the move is then not to be played).
    pub fn on_move(&mut self, mover: Color, first_move: bool, now: Instant) -> Result<(), Color> {
        if let Some((c, _)) = self.running {
            let left = self.remaining(c, now);
            if c == mover && left == 0 {
                return Err(mover);
            }
            self.remaining[c.index()] = left;
            self.remaining[mover.index()] =
                self.remaining[mover.index()].saturating_add(self.control.increment_ms);
        } else if !first_move {
            self.remaining[mover.index()] =
                self.remaining[mover.index()].saturating_add(self.control.increment_ms);
        }
        self.running = Some((!mover, now));
        Ok(())
    }

    /// Starts `color`'s clock at `now` (resuming a restored game).
    pub fn start(&mut self, color: Color, now: Instant) {
        self.stop(now);
        self.running = Some((color, now));
    }

    /// Stops both clocks, keeping the time left.
    pub fn stop(&mut self, now: Instant) {
        if let Some((c, _)) = self.running {
            self.remaining[c.index()] = self.remaining(c, now);
        }
        self.running = None;
    }

    /// The clocks as seen at `now`.
    pub fn view(&self, now: Instant) -> ClockView {
        ClockView {
            white_ms: self.remaining(Color::White, now),
            black_ms: self.remaining(Color::Black, now),
            running: self.running(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TC: TimeControl = TimeControl {
        initial_ms: 1000,
        increment_ms: 100,
    };

    #[test]
    fn first_move_is_free_then_time_runs_with_increment() {
        let t0 = Instant::now();
        let mut c = Clock::new(TC);
        assert_eq!(c.on_move(Color::White, true, t0), Ok(()));
        assert_eq!(c.running(), Some(Color::Black));
        let t1 = t0 + Duration::from_millis(300);
        assert_eq!(c.remaining(Color::Black, t1), 700);
        assert_eq!(c.on_move(Color::Black, false, t1), Ok(()));
        assert_eq!(c.remaining(Color::Black, t1), 800);
        assert_eq!(c.remaining(Color::White, t1), 1000);
    }

    #[test]
    fn a_late_move_flags() {
        let t0 = Instant::now();
        let mut c = Clock::new(TC);
        c.on_move(Color::White, true, t0).unwrap();
        let late = t0 + Duration::from_millis(1500);
        assert_eq!(c.flagged(late), Some(Color::Black));
        assert_eq!(c.on_move(Color::Black, false, late), Err(Color::Black));
    }
}
