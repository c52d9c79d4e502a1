//! Where chessd's Chess 2 player thinks: a bounded pool shared by every game, fair between
//! clients. At most one search per client runs at a time, and at most one fewer than the
//! cores in all (at least one), so that however many games a client's bots play, other
//! clients' bots take their turns and the server keeps a core for its requests.

use std::sync::Arc;

use dashmap::DashMap;
use tokio::sync::Semaphore;

/// The pool; cheap to clone.
#[derive(Clone)]
pub(crate) struct BotPool {
    /// Searches running at once in all.
    total: Arc<Semaphore>,
    /// One search at a time per client (its games' bots queue behind each other).
    per_client: Arc<DashMap<String, Arc<Semaphore>>>,
}

impl Default for BotPool {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        BotPool::new(cores.saturating_sub(1).max(1))
    }
}

impl BotPool {
    /// A pool running at most `threads` searches at once.
    pub(crate) fn new(threads: usize) -> BotPool {
        BotPool {
            total: Arc::new(Semaphore::new(threads.max(1))),
            per_client: Arc::default(),
        }
    }

    /// Runs `search` for `client` once it is the client's turn and a thread is free (both
    /// queues first come, first served).
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        client: &str,
        search: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, tokio::task::JoinError> {
        let mine = self
            .per_client
            .entry(client.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(1)))
            .clone();
        let turn = mine.acquire_owned().await;
        let thread = self.total.clone().acquire_owned().await;
        let found = tokio::task::spawn_blocking(search).await;
        drop((thread, turn));
        // A client with no search waiting or running is forgotten.
        self.per_client.remove_if(client, |_, s| {
            Arc::strong_count(s) == 1 && s.available_permits() == 1
        });
        found
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::atomic::{AtomicUsize, Ordering},
        time::Duration,
    };

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_runs_one_search_at_a_time_and_all_run_within_the_pool() {
        let pool = BotPool::new(2);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let per_client_most = Arc::new(DashMap::<String, (usize, usize)>::new());
        let mut searches = Vec::new();
        for i in 0..12 {
            let client = format!("c{}", i % 3);
            let (pool, running, most, per) = (
                pool.clone(),
                running.clone(),
                most.clone(),
                per_client_most.clone(),
            );
            searches.push(tokio::spawn(async move {
                let me = client.clone();
                pool.run(&client, move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    {
                        let mut e = per.entry(me.clone()).or_insert((0, 0));
                        e.0 += 1;
                        e.1 = e.1.max(e.0);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                    per.entry(me).or_insert((0, 0)).0 -= 1;
                    running.fetch_sub(1, Ordering::SeqCst);
                })
                .await
                .unwrap();
            }));
        }
        for s in searches {
            s.await.unwrap();
        }
        assert!(most.load(Ordering::SeqCst) <= 2);
        assert!(per_client_most.iter().all(|e| e.value().1 == 1));
        assert!(pool.per_client.is_empty(), "idle clients are forgotten");
    }
}
