//! A game actor's timers: the idle timeout, abandonment and eviction of a quiet game (kept
//! by the shared [`Sweeper`](crate::game::sweeper::Sweeper)), and the clock's flag (a timer of
//! its own, to the millisecond).

use std::time::{Duration, Instant};

use actix::{AsyncContext, Context, Handler};

use super::GameActor;
use crate::game::{events::EventKind, hooks::StopReason, sweeper::Due};

impl GameActor {
    /// Notes a request (for the idle timeout and eviction); called for every message.
    pub(super) fn touch(&mut self, ctx: &mut Context<Self>) {
        self.last_request = Instant::now();
        // A wake-up already asked for re-reads the deadlines when it comes.
        if self.check_tick == 0 {
            self.schedule_check(ctx);
        }
    }

    /// When the game's next deadline falls, as things stand: its abandonment (no move yet),
    /// its idle timeout, or the next look at whether it may leave memory.
    fn next_deadline(&self, now: Instant) -> Option<Instant> {
        let abandon = self
            .options
            .abandon_after
            .filter(|_| !self.moved)
            .and_then(|after| self.started.checked_add(after));
        let idle = self
            .options
            .idle_timeout
            // A timeout past the clock's range (a client may ask any number of seconds) never comes.
            .and_then(|idle| self.last_request.checked_add(idle));
        let evict = self
            .env
            .evict_after
            .filter(|_| self.stored.is_some())
            .and_then(|after| {
                let quiet_until = self.last_request.checked_add(after)?;
                // Quiet long enough but held (watched, an engine, a running clock): look again
                // a quarter of the wait later.
                Some(quiet_until.max(now + (after / 4).max(Duration::from_millis(250))))
            });
        [abandon, idle, evict].into_iter().flatten().min()
    }

    /// Asks the sweeper to wake the game at its next deadline, unless an earlier wake-up is
    /// already asked for.
    pub(super) fn schedule_check(&mut self, ctx: &mut Context<Self>) {
        let Some(at) = self.next_deadline(Instant::now()) else {
            return;
        };
        let tick = self.env.sweeper.tick_at(at);
        if self.check_tick == 0 || tick < self.check_tick {
            self.check_tick = tick;
            self.env.sweeper.wake_at(tick, ctx.address().downgrade());
        }
    }

    /// Ends the game if one of its deadlines has passed; else asks to be woken at the next.
    fn check_deadlines(&mut self, ctx: &mut Context<Self>) {
        let now = Instant::now();
        let passed = |deadline: Option<Duration>, since: Instant| {
            deadline.is_some_and(|d| now.saturating_duration_since(since) >= d)
        };
        if !self.moved && passed(self.options.abandon_after, self.started) {
            self.end_actor(StopReason::Abandoned, ctx);
        } else if passed(self.options.idle_timeout, self.last_request) {
            self.end_actor(StopReason::IdleTimeout, ctx);
        } else if self
            .env
            .evict_after
            .is_some_and(|after| self.evictable(after))
        {
            self.end_actor(StopReason::Evicted, ctx);
        } else {
            self.schedule_check(ctx);
        }
    }

    /// Whether the game may leave memory now: it is stored, untouched for `after`, watched by
    /// no one, with nothing in flight, no engine (an engine is a process that would be lost)
    /// and no clock running (a flag must fall on time).
    pub(super) fn evictable(&self, after: Duration) -> bool {
        self.stored.is_some()
            && self.last_request.elapsed() >= after
            && self.subscribers.is_empty()
            && self.in_flight == 0
            && self.no_backlog()
            && !self.stopping
            && !self.chess2_thinking
            && self.engine.attached.is_none()
            && self.engine.rival.is_none()
            && self.clock.as_ref().is_none_or(|c| c.running().is_none())
    }

    /// Schedules the flag check for the running clock.
    pub(super) fn arm_flag_timer(&mut self, ctx: &mut Context<Self>) {
        if let Some(handle) = self.flag_timer.take() {
            ctx.cancel_future(handle);
        }
        let now = std::time::Instant::now();
        if let Some(wait) = self.clock.as_ref().and_then(|c| c.time_to_flag(now)) {
            self.flag_timer = Some(ctx.run_later(wait + Duration::from_millis(1), |act, ctx| {
                act.flag_timer = None;
                act.check_flag(ctx);
            }));
        }
    }

    /// Ends the game if the running side's time is out. Returns whether it did.
    pub(super) fn check_flag(&mut self, ctx: &mut Context<Self>) -> bool {
        let now = std::time::Instant::now();
        let Some(loser) = self.clock.as_ref().and_then(|c| c.flagged(now)) else {
            if self.clock.as_ref().is_some_and(|c| c.running().is_some()) {
                self.arm_flag_timer(ctx);
            }
            return false;
        };
        if self.game.flag(loser).is_ok() {
            self.end_without_move(now, ctx);
            self.after_game_change(ctx);
            self.release_engine_if_over();
        }
        true
    }

    /// Stops the clocks and publishes the end of a game decided without a move.
    pub(super) fn end_without_move(&mut self, now: std::time::Instant, ctx: &mut Context<Self>) {
        if let Some(c) = self.clock.as_mut() {
            c.stop(now);
        }
        self.draw_offer = None;
        let clocks = self.clock.as_ref().map(|c| c.view(now));
        self.publish(
            EventKind::GameEnd {
                status: self.game.status().clone(),
                clocks,
            },
            ctx,
        );
    }
}

impl Handler<Due> for GameActor {
    type Result = ();

    /// A wake-up from the sweeper: the deadlines are checked if it is the one last asked for
    /// (an earlier one asked for since replaced it; that one checks them).
    fn handle(&mut self, due: Due, ctx: &mut Context<Self>) {
        if due.0 != self.check_tick || self.stopping {
            return;
        }
        self.check_tick = 0;
        self.check_deadlines(ctx);
    }
}
