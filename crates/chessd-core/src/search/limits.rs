//! What bounds a search (the UCI `go` limits) and the time manager that turns clocks into
//! deadlines.

use std::time::{Duration, Instant};

use crate::{Color, Move};

/// The limits of one search, as the UCI `go` command gives them. Every limit that is set
/// applies (the search ends at the first one reached); [`Limits::default`] sets none, and
/// such a search runs until the stop flag is raised (or the deepest iteration is done).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Search this many plies deep (iterations `1..=depth`), and no deeper.
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Think exactly this long (less the move overhead).
    pub movetime: Option<Duration>,
    /// White's remaining clock time.
    pub wtime: Option<Duration>,
    /// Black's remaining clock time.
    pub btime: Option<Duration>,
    /// White's increment per move.
    pub winc: Option<Duration>,
    /// Black's increment per move.
    pub binc: Option<Duration>,
    /// Moves until the next time control (sudden death when absent).
    pub movestogo: Option<u32>,
    /// Stop as soon as a mate in at most this many moves is found. Alone (without depth,
    /// nodes or time) it bounds the search at `2 * mate + 4` plies, so that a position without
    /// such a mate still gets an answer.
    pub mate: Option<u32>,
    /// Ignore the time limits (`movetime`, clocks): search until stopped, or until depth,
    /// nodes or mate say so.
    pub infinite: bool,
    /// Search only these root moves (those that are legal); all moves when empty or when none
    /// of them is legal.
    pub searchmoves: Vec<Move>,
    /// Time kept back from every time limit for communication delays (UCI `Move Overhead`).
    pub move_overhead: Duration,
}

impl Limits {
    /// Limits with only a depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Limits with only a node count.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Limits with only a fixed time.
    pub fn movetime(time: Duration) -> Limits {
        Limits {
            movetime: Some(time),
            ..Limits::default()
        }
    }

    /// Whether no limit at all is set (then only the stop flag ends the search).
    pub fn is_unbounded(&self) -> bool {
        self.depth.is_none()
            && self.nodes.is_none()
            && self.mate.is_none()
            && !self.has_time_limit()
    }

    /// Whether a time limit applies (a move time or a clock, and not infinite).
    pub fn has_time_limit(&self) -> bool {
        !self.infinite && (self.movetime.is_some() || self.wtime.is_some() || self.btime.is_some())
    }

    /// Whether the time limit comes from the clocks (not a fixed move time).
    pub(crate) fn uses_clock(&self, turn: Color) -> bool {
        !self.infinite && self.movetime.is_none() && self.clock(turn).is_some()
    }

    fn clock(&self, turn: Color) -> Option<Duration> {
        match turn {
            Color::White => self.wtime,
            Color::Black => self.btime,
        }
    }

    fn increment(&self, turn: Color) -> Duration {
        match turn {
            Color::White => self.winc,
            Color::Black => self.binc,
        }
        .unwrap_or_default()
    }
}

/// The shortest time a timed search is given, even when the clock is nearly out.
const MIN_THINK: Duration = Duration::from_millis(1);

/// Moves assumed to remain in a sudden-death game.
const DEFAULT_MOVES_TO_GO: u32 = 30;

/// When the search should end, derived from [`Limits`] at the start.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimePlan {
    /// Do not start another iteration after this (a new one would rarely finish).
    pub soft: Option<Instant>,
    /// Abort the search at this instant.
    pub hard: Option<Instant>,
}

impl TimePlan {
    /// The plan for a search by `turn` starting at `start`.
    ///
    /// A move time is used in full (the next iteration is started while time remains). With
    /// a clock the budget is `time / moves_to_go + 3/4 of the increment`, at most a fifth of
    /// the remaining time (less the overhead); the search stops starting iterations after
    /// 60% of it and aborts at three budgets or a third of the clock, whichever comes first.
    pub(super) fn new(limits: &Limits, turn: Color, start: Instant) -> TimePlan {
        if limits.infinite {
            return TimePlan {
                soft: None,
                hard: None,
            };
        }
        let overhead = limits.move_overhead;
        // A deadline too far away to represent is no deadline.
        let at = |d: Duration| start.checked_add(d);
        if let Some(movetime) = limits.movetime {
            let hard = at(movetime.saturating_sub(overhead).max(MIN_THINK));
            return TimePlan { soft: hard, hard };
        }
        let Some(left) = limits.clock(turn) else {
            return TimePlan {
                soft: None,
                hard: None,
            };
        };
        let left = left.saturating_sub(overhead);
        let moves_to_go = limits
            .movestogo
            .filter(|&n| n > 0)
            .unwrap_or(DEFAULT_MOVES_TO_GO)
            .min(DEFAULT_MOVES_TO_GO);
        let inc = limits.increment(turn);
        let budget = (left / moves_to_go)
            .saturating_add(inc / 4 * 3)
            .min(left / 5)
            .max(MIN_THINK);
        let hard = budget.saturating_mul(3).min(left / 3).max(budget);
        TimePlan {
            soft: at(budget / 5 * 3),
            hard: at(hard),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetime_is_used_less_overhead() {
        let start = Instant::now();
        let limits = Limits {
            movetime: Some(Duration::from_millis(200)),
            move_overhead: Duration::from_millis(20),
            ..Limits::default()
        };
        let plan = TimePlan::new(&limits, Color::White, start);
        assert_eq!(plan.hard, Some(start + Duration::from_millis(180)));
    }

    #[test]
    fn clock_budget_is_a_fraction_of_the_time_left() {
        let start = Instant::now();
        let limits = Limits {
            wtime: Some(Duration::from_secs(60)),
            btime: Some(Duration::from_millis(300)),
            winc: Some(Duration::from_secs(1)),
            ..Limits::default()
        };
        let white = TimePlan::new(&limits, Color::White, start);
        let hard = white.hard.unwrap() - start;
        assert!(hard > Duration::from_secs(2) && hard <= Duration::from_secs(20));
        let black = TimePlan::new(&limits, Color::Black, start);
        assert!(black.hard.unwrap() - start <= Duration::from_millis(100));
        assert!(black.soft.unwrap() <= black.hard.unwrap());
    }

    #[test]
    fn huge_times_do_not_overflow() {
        let start = Instant::now();
        let huge = Duration::from_millis(u64::MAX);
        let limits = Limits {
            movetime: Some(huge),
            ..Limits::default()
        };
        let plan = TimePlan::new(&limits, Color::White, start);
        assert!(plan
            .hard
            .is_none_or(|h| h > start + Duration::from_secs(1 << 30)));
        let limits = Limits {
            wtime: Some(huge),
            winc: Some(huge),
            movestogo: Some(u32::MAX),
            ..Limits::default()
        };
        let plan = TimePlan::new(&limits, Color::White, start);
        assert!(plan
            .hard
            .is_none_or(|h| h > start + Duration::from_secs(1 << 20)));
    }

    #[test]
    fn infinite_has_no_deadline() {
        let limits = Limits {
            infinite: true,
            movetime: Some(Duration::from_millis(5)),
            ..Limits::default()
        };
        let plan = TimePlan::new(&limits, Color::White, Instant::now());
        assert!(plan.hard.is_none() && plan.soft.is_none());
        assert!(!limits.has_time_limit());
    }
}
