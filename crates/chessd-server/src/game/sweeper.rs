//! [`Sweeper`]: one thread that wakes actors whose deadline has come, instead of a timer in
//! every actor.
//!
//! A game's idle timeout, its abandonment and its eviction are deadlines counted in seconds or
//! minutes, and a server may hold 100 000 games. An actix timer costs a game about 128 bytes
//! (the context's item and Tokio's timer entry), re-armed on every message for the idle timeout.
//! Here a game asks to be woken at a tick (8 bytes in a shared wheel, no allocation of its own);
//! when the tick comes, it is sent [`Due`] and decides for itself: its deadlines are re-read
//! from its own state (when it was last asked something, whether it moved), so a request in
//! between costs nothing but a time stamp. Deadlines are kept to [`TICK`].

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex, Weak},
    time::{Duration, Instant},
};

use actix::{Actor, Handler, Message, WeakAddr};

/// How finely deadlines are kept: a game is woken at most this long after its deadline.
pub(crate) const TICK: Duration = Duration::from_millis(50);

/// Sent to an actor when the tick it asked for has come; carries that tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Due(pub(crate) u32);

impl Message for Due {
    type Result = ();
}

/// The actors to wake, by tick.
struct Wheel<A: Actor> {
    /// The instant of tick 0.
    origin: Instant,
    due: Mutex<BTreeMap<u32, Vec<WeakAddr<A>>>>,
}

/// Wakes actors of type `A` at the ticks they ask for; its thread ends when the sweeper is
/// dropped.
pub(crate) struct Sweeper<A: Actor> {
    wheel: Arc<Wheel<A>>,
}

impl<A> Sweeper<A>
where
    A: Actor + Handler<Due>,
    A::Context: actix::dev::ToEnvelope<A, Due>,
{
    /// A sweeper with its own thread.
    pub(crate) fn new() -> Sweeper<A> {
        let wheel = Arc::new(Wheel {
            origin: Instant::now(),
            due: Mutex::new(BTreeMap::new()),
        });
        let weak = Arc::downgrade(&wheel);
        let spawned = std::thread::Builder::new()
            .name("chessd-sweeper".into())
            .spawn(move || sweep(weak));
        if let Err(e) = spawned {
            // Without its thread no deadline is kept: games then stay until asked to stop.
            tracing::error!(error = %e, "the sweeper's thread did not start");
        }
        Sweeper { wheel }
    }

    /// The first tick at or after `at` (tick 0 is never given: it means "none" to callers).
    pub(crate) fn tick_at(&self, at: Instant) -> u32 {
        let since = at.saturating_duration_since(self.wheel.origin);
        let ticks = since.as_nanos().div_ceil(TICK.as_nanos());
        u32::try_from(ticks).unwrap_or(u32::MAX).max(1)
    }

    /// Wakes `actor` with [`Due`]`(tick)` once `tick` has come (at once if it has).
    pub(crate) fn wake_at(&self, tick: u32, actor: WeakAddr<A>) {
        let mut due = self.wheel.due.lock().unwrap_or_else(|e| e.into_inner());
        due.entry(tick).or_default().push(actor);
    }

    /// How many wake-ups are waiting (for tests).
    #[cfg(test)]
    fn waiting(&self) -> usize {
        let due = self.wheel.due.lock().unwrap_or_else(|e| e.into_inner());
        due.values().map(Vec::len).sum()
    }
}

/// The sweeper's thread: every tick, wakes the actors whose tick has come.
fn sweep<A>(wheel: Weak<Wheel<A>>)
where
    A: Actor + Handler<Due>,
    A::Context: actix::dev::ToEnvelope<A, Due>,
{
    loop {
        std::thread::sleep(TICK);
        let Some(wheel) = wheel.upgrade() else {
            return;
        };
        let now = wheel.origin.elapsed();
        let now_tick = u32::try_from(now.as_nanos() / TICK.as_nanos()).unwrap_or(u32::MAX);
        let ripe = {
            let mut due = wheel.due.lock().unwrap_or_else(|e| e.into_inner());
            let later = due.split_off(&now_tick.saturating_add(1));
            std::mem::replace(&mut *due, later)
        };
        drop(wheel);
        for (tick, actors) in ripe {
            for actor in actors {
                if let Some(addr) = actor.upgrade() {
                    addr.do_send(Due(tick));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix::Context;

    /// Records the ticks it is woken at.
    struct Sleeper {
        woken: tokio::sync::mpsc::UnboundedSender<(u32, Instant)>,
    }

    impl Actor for Sleeper {
        type Context = Context<Self>;
    }

    impl Handler<Due> for Sleeper {
        type Result = ();
        fn handle(&mut self, msg: Due, _: &mut Context<Self>) {
            let _ = self.woken.send((msg.0, Instant::now()));
        }
    }

    #[actix::test]
    async fn actors_are_woken_at_their_tick_in_order_and_not_before() {
        let sweeper = Sweeper::<Sleeper>::new();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let addr = Sleeper { woken: tx }.start();
        let start = Instant::now();
        let late = sweeper.tick_at(start + Duration::from_millis(300));
        let soon = sweeper.tick_at(start + Duration::from_millis(100));
        sweeper.wake_at(late, addr.downgrade());
        sweeper.wake_at(soon, addr.downgrade());
        assert_eq!(sweeper.waiting(), 2);
        let (first, at) = rx.recv().await.unwrap();
        assert_eq!(first, soon);
        assert!(at >= start + Duration::from_millis(100), "woken early");
        let (second, at) = rx.recv().await.unwrap();
        assert_eq!(second, late);
        assert!(at >= start + Duration::from_millis(300), "woken early");
        assert_eq!(sweeper.waiting(), 0);
    }

    #[actix::test]
    async fn a_gone_actor_is_skipped_and_the_thread_ends_with_the_sweeper() {
        let sweeper = Sweeper::<Sleeper>::new();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let addr = Sleeper { woken: tx.clone() }.start();
        let gone = Sleeper { woken: tx }.start();
        let gone_weak = gone.downgrade();
        drop(gone);
        tokio::time::sleep(TICK).await;
        let tick = sweeper.tick_at(Instant::now());
        sweeper.wake_at(tick, gone_weak);
        sweeper.wake_at(tick, addr.downgrade());
        assert_eq!(rx.recv().await.unwrap().0, tick);
        tokio::time::sleep(TICK * 3).await;
        assert!(rx.try_recv().is_err(), "only the live actor was woken");
        let weak = Arc::downgrade(&sweeper.wheel);
        drop(sweeper);
        tokio::time::sleep(TICK * 3).await;
        assert!(weak.upgrade().is_none(), "the thread let the wheel go");
    }
}
