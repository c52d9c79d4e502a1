//! How long the engines of a match think: a fixed time per move (`--movetime`), or a clock per
//! side (`--tc BASE+INC`), run by the server's own [`Clock`] and sent to the engines as
//! `wtime`/`btime`/`winc`/`binc`.

use std::time::{Duration, Instant};

use chessd_core::Color;
use chessd_protocol::uci::GoLimits;
use chessd_server::{
    config::EngineConfig,
    game::{
        clock::{Clock, TimeControl},
        engine_state::allowance,
    },
};

/// How long past the end of its clock an engine's search is still awaited. The clock decides
/// (a move that arrives after the clock ran out loses on time all the same); the margin only
/// lets a move sent in the last milliseconds arrive rather than be cut off by the session.
const FLAG_MARGIN: Duration = Duration::from_millis(50);

/// The match's time rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pace {
    /// `go movetime MS` for every move; an engine gets its configured `search_timeout_ms`
    /// on top before it loses on time.
    MoveTime(u64),
    /// A clock per side: base time plus increment per move.
    Clock(TimeControl),
    /// `go nodes N` for every move (equal work rather than equal time); an engine gets its
    /// configured `search_timeout_ms` for it.
    Nodes(u64),
}

impl Pace {
    /// A timer for a new game.
    pub(super) fn timer(self) -> Timer {
        match self {
            Pace::MoveTime(ms) => Timer::MoveTime(ms),
            Pace::Clock(control) => Timer::Clock(Clock::new(control)),
            Pace::Nodes(n) => Timer::Nodes(n),
        }
    }

    /// The time control, when clocks run.
    pub(super) fn time_control(self) -> Option<TimeControl> {
        match self {
            Pace::MoveTime(_) | Pace::Nodes(_) => None,
            Pace::Clock(control) => Some(control),
        }
    }
}

/// One game's time keeping.
#[derive(Clone, Debug)]
pub(super) enum Timer {
    /// A fixed time per move.
    MoveTime(u64),
    /// Both clocks; the side to move's runs from its first search on.
    Clock(Clock),
    /// A fixed node count per move.
    Nodes(u64),
}

impl Timer {
    /// The `go` limits and the whole allowance of `mover`'s search starting `now`; starts its
    /// clock if none runs yet (the first engine move of the game).
    pub(super) fn search(
        &mut self,
        mover: Color,
        config: &EngineConfig,
        now: Instant,
    ) -> (GoLimits, Option<Duration>) {
        match self {
            Timer::MoveTime(ms) => {
                let limits = GoLimits {
                    movetime: Some(*ms),
                    ..GoLimits::default()
                };
                let timeout = allowance(config, &limits, mover == Color::White, None);
                (limits, timeout)
            }
            Timer::Nodes(n) => {
                let limits = GoLimits {
                    nodes: Some(*n),
                    ..GoLimits::default()
                };
                let timeout = allowance(config, &limits, mover == Color::White, None);
                (limits, timeout)
            }
            Timer::Clock(clock) => {
                if clock.running().is_none() {
                    clock.start(mover, now);
                }
                let increment = clock.control().increment_ms;
                let limits = GoLimits {
                    wtime: Some(clock.remaining(Color::White, now)),
                    btime: Some(clock.remaining(Color::Black, now)),
                    winc: Some(increment),
                    binc: Some(increment),
                    ..GoLimits::default()
                };
                let left = Duration::from_millis(clock.remaining(mover, now));
                (limits, Some(left + FLAG_MARGIN))
            }
        }
    }

    /// Records `mover`'s move at `now` (charging its clock and adding the increment); `Err`
    /// when its time had run out before the move came.
    pub(super) fn on_move(&mut self, mover: Color, now: Instant) -> Result<(), Color> {
        match self {
            Timer::MoveTime(_) | Timer::Nodes(_) => Ok(()),
            Timer::Clock(clock) => clock.on_move(mover, false, now),
        }
    }
}

/// Parses `--tc`: `BASE+INC` in seconds (`10+0.1`, `60+0`, `0.5+0.01`), or `BASE` alone for
/// no increment; the limits of the server's time controls apply (1 ms to 24 h, at most 1 h
/// increment).
pub(super) fn parse_tc(text: &str) -> Result<TimeControl, String> {
    let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
    let control = TimeControl {
        initial_ms: seconds_to_ms(base).ok_or_else(|| {
            format!("{base:?} is not a number of seconds (BASE+INC, e.g. 10+0.1)")
        })?,
        increment_ms: seconds_to_ms(increment).ok_or_else(|| {
            format!("{increment:?} is not a number of seconds (BASE+INC, e.g. 10+0.1)")
        })?,
    };
    control.check().map_err(|e| {
        e.replace("time_control: ", "")
            .replace("initial_ms", "BASE")
            .replace("increment_ms", "INC")
    })?;
    Ok(control)
}

/// Non-negative decimal seconds in whole milliseconds (rounded), up to a day.
fn seconds_to_ms(text: &str) -> Option<u64> {
    let seconds: f64 = text.trim().parse().ok()?;
    if !seconds.is_finite() || !(0.0..=86_400.0).contains(&seconds) {
        return None;
    }
    Some((seconds * 1000.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_in_seconds() {
        let tc = |initial_ms, increment_ms| TimeControl {
            initial_ms,
            increment_ms,
        };
        assert_eq!(parse_tc("10+0.1"), Ok(tc(10_000, 100)));
        assert_eq!(parse_tc("60+0"), Ok(tc(60_000, 0)));
        assert_eq!(parse_tc("0.5+0.01"), Ok(tc(500, 10)));
        assert_eq!(parse_tc("2"), Ok(tc(2_000, 0)));
        for bad in [
            "", "+1", "ten+1", "10+", "-1+0", "0+1", "10+x", "inf+0", "NaN", "1+7200",
        ] {
            assert!(parse_tc(bad).is_err(), "{bad:?}");
        }
        let message = parse_tc("0+1").unwrap_err();
        assert!(message.contains("BASE must be 1 ms to 24 h"), "{message}");
    }

    #[test]
    fn clocks_start_at_the_first_search_and_flag_a_late_move() {
        let config = chessd_server::Config::defaults().engines["builtin"].clone();
        let mut timer = Pace::Clock(TimeControl {
            initial_ms: 1000,
            increment_ms: 100,
        })
        .timer();
        let t0 = Instant::now();
        let (limits, timeout) = timer.search(Color::White, &config, t0);
        assert_eq!((limits.wtime, limits.btime), (Some(1000), Some(1000)));
        assert_eq!((limits.winc, limits.binc), (Some(100), Some(100)));
        assert_eq!(timeout, Some(Duration::from_millis(1000) + FLAG_MARGIN));
        let t1 = t0 + Duration::from_millis(400);
        assert_eq!(timer.on_move(Color::White, t1), Ok(()));
        let (limits, _) = timer.search(Color::Black, &config, t1);
        assert_eq!((limits.wtime, limits.btime), (Some(700), Some(1000)));
        let late = t1 + Duration::from_millis(1001);
        assert_eq!(timer.on_move(Color::Black, late), Err(Color::Black));
    }

    #[test]
    fn a_move_time_allows_the_engines_search_timeout_on_top() {
        let config = chessd_server::Config::defaults().engines["builtin"].clone();
        let mut timer = Pace::MoveTime(100).timer();
        let (limits, timeout) = timer.search(Color::Black, &config, Instant::now());
        assert_eq!(limits.movetime, Some(100));
        assert_eq!(
            timeout,
            Some(Duration::from_millis(100 + config.search_timeout_ms))
        );
        assert_eq!(timer.on_move(Color::Black, Instant::now()), Ok(()));
    }
}
