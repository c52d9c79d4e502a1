//! Giving memory back to the system once games have left memory.
//!
//! glibc's allocator keeps the memory freed by games that leave (evicted, stopped) for reuse,
//! in every thread's arena: a server that held many games keeps their memory after they are
//! gone. Once enough games have left, [`Trimmer`] asks the allocator to give its free pages
//! back (`malloc_trim`), at most once a second, on the blocking pool.

use std::{
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

/// Games that leave before a trim is due.
const TRIM_AFTER_GAMES: usize = 64;
/// How long a due trim waits for more games to leave (a wave of evictions goes out together).
const TRIM_DELAY: Duration = Duration::from_secs(1);

/// Counts the games that left memory and gives their memory back now and then.
#[derive(Default)]
pub(crate) struct Trimmer {
    left: Arc<AtomicUsize>,
    due: Arc<AtomicBool>,
    /// Trims made.
    trims: Arc<AtomicUsize>,
}

impl Trimmer {
    /// Notes that a game left memory; past [`TRIM_AFTER_GAMES`], a trim is made soon (on the
    /// current Tokio runtime; without one, none).
    pub(crate) fn game_left(&self) {
        let left = self.left.fetch_add(1, Ordering::AcqRel) + 1;
        if left < TRIM_AFTER_GAMES || self.due.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.due.store(false, Ordering::Release);
            return;
        };
        let (counted, due, trims) = (
            Arc::clone(&self.left),
            Arc::clone(&self.due),
            Arc::clone(&self.trims),
        );
        runtime.spawn(async move {
            tokio::time::sleep(TRIM_DELAY).await;
            counted.store(0, Ordering::Release);
            due.store(false, Ordering::Release);
            let _ = tokio::task::spawn_blocking(give_back).await;
            trims.fetch_add(1, Ordering::AcqRel);
        });
    }

    /// How many trims were made.
    #[cfg(test)]
    fn trims(&self) -> usize {
        self.trims.load(Ordering::Acquire)
    }
}

/// Asks the allocator to give its free memory back to the system.
#[allow(unsafe_code)]
fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's own heaps; it takes no
    // pointer and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_wave_of_games_leaving_gives_memory_back_once() {
        let trimmer = Trimmer::default();
        for _ in 0..TRIM_AFTER_GAMES - 1 {
            trimmer.game_left();
        }
        tokio::time::sleep(TRIM_DELAY + Duration::from_millis(300)).await;
        assert_eq!(trimmer.trims(), 0, "too few games left");
        // The wave that passes the count: one trim, after the delay.
        for _ in 0..3 * TRIM_AFTER_GAMES {
            trimmer.game_left();
        }
        assert_eq!(trimmer.trims(), 0, "the trim waits for the wave");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while trimmer.trims() == 0 {
            assert!(std::time::Instant::now() < deadline, "no trim was made");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(TRIM_DELAY).await;
        assert_eq!(trimmer.trims(), 1, "one trim for the wave");
    }
}
