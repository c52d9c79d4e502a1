//! A game actor's timers: the idle timeout, eviction of a quiet game, and the clock's flag.

use std::time::Duration;

use actix::{AsyncContext, Context};

use super::GameActor;
use crate::game::{events::EventKind, hooks::StopReason};

impl GameActor {
    /// Re-arms the idle timer; called for every message.
    pub(super) fn touch(&mut self, ctx: &mut Context<Self>) {
        self.last_request = std::time::Instant::now();
        if let Some(handle) = self.idle_timer.take() {
            ctx.cancel_future(handle);
        }
        if let Some(idle) = self.options.idle_timeout {
            self.idle_timer = Some(ctx.run_later(idle, |act, ctx| {
                act.end_actor(StopReason::IdleTimeout, ctx);
            }));
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
