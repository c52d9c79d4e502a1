//! Games brought back from the store, read together: every load waiting when none is being
//! read is read in one statement, as the writer commits every write waiting in one batch.
//!
//! A load alone is one statement whose rows come back from the database driver's own thread
//! (sqlx gives each SQLite connection one): a hand-off there and back that, on a small
//! machine, costs more than the statement. Many loads at once (a server restarted under its
//! players, a crowd opening archived games) spent most of their time handing off and waiting
//! for those threads; read together, they share the hand-offs.
//!
//! The reading is done by a task started on the thread of the load that found no reading
//! under way (a server's HTTP thread), which reads batch after batch until none waits. It is
//! a task of its own, so a load whose request is dropped meanwhile takes no other load with
//! it; and it is started where the load came from, not handed to a thread of the store's,
//! since waking one more thread for every batch cost as much as the hand-offs it saves. Two or
//! three readings at once did no better in `loadtest stored`, so there is one. Should that task
//! be dropped before it is done (its thread's runtime going away), the next load starts
//! another, which also reads the loads left waiting.

use std::{
    collections::HashMap,
    mem,
    sync::{Arc, Mutex, PoisonError},
};

use tokio::sync::oneshot;
use uuid::Uuid;

use super::{db::Db, StoreError, StoredGame};

/// Most games read in one statement.
const MAX_BATCH: usize = 32;

/// What one load waits for: its game (`None`: no such game), or why it could not be read.
type Answer = Result<Option<StoredGame>, StoreError>;

/// One load waiting: the game and where its answer goes.
struct PendingLoad {
    id: Uuid,
    done: oneshot::Sender<Answer>,
}

/// The loads waiting, and whether a task reads them.
#[derive(Default)]
struct Queue {
    waiting: Vec<PendingLoad>,
    reading: bool,
}

/// Loads of one store's games, read together.
#[derive(Clone, Default)]
pub(super) struct Loader {
    queue: Arc<Mutex<Queue>>,
}

impl Loader {
    /// The game `id` with its journal from `db` (`None`: no such game), read with every load
    /// waiting. Must be called within a Tokio runtime (the reading may start a task on it).
    pub(super) async fn load(&self, db: &Db, id: Uuid) -> Answer {
        let (done, answer) = oneshot::channel();
        let start = {
            let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            queue.waiting.push(PendingLoad { id, done });
            !mem::replace(&mut queue.reading, true)
        };
        if start {
            // The guard goes into the task's future before it first runs: dropped unpolled
            // with its runtime, the task still marks the queue as read by nobody.
            let reading = Reading {
                queue: Arc::clone(&self.queue),
                done: false,
            };
            tokio::spawn(read_all(db.clone(), reading));
        }
        answer.await.map_err(|_| StoreError::Closed)?
    }
}

/// Reads batch after batch from `db` until no load waits in `reading`'s queue.
async fn read_all(db: Db, mut reading: Reading) {
    loop {
        let batch = {
            let mut queue = reading.queue.lock().unwrap_or_else(PoisonError::into_inner);
            if queue.waiting.is_empty() {
                // Under the same lock as the check: a load queued after it starts a reading.
                queue.reading = false;
                reading.done = true;
                return;
            }
            let take = queue.waiting.len().min(MAX_BATCH);
            queue.waiting.drain(..take).collect::<Vec<_>>()
        };
        answer(&db, batch).await;
    }
}

/// Marks the queue as read by nobody if the reading task is dropped before it is done (its
/// runtime going away): the next load then starts a reading.
struct Reading {
    queue: Arc<Mutex<Queue>>,
    /// The task found no load waiting and said so itself.
    done: bool,
}

impl Drop for Reading {
    fn drop(&mut self) {
        if !self.done {
            self.queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .reading = false;
        }
    }
}

/// Reads the games of `batch` in one statement and answers each load (a game asked twice is
/// given to both).
async fn answer(db: &Db, batch: Vec<PendingLoad>) {
    let mut ids: Vec<Uuid> = batch.iter().map(|p| p.id).collect();
    ids.sort_unstable();
    ids.dedup();
    let found = match db.load_games(&ids).await {
        Ok(found) => found,
        Err(e) => {
            let message = e.to_string();
            for p in batch {
                let _ = p.done.send(Err(StoreError::Database(message.clone())));
            }
            return;
        }
    };
    let mut found: HashMap<Uuid, Result<StoredGame, StoreError>> = found.into_iter().collect();
    let mut asked: HashMap<Uuid, usize> = HashMap::new();
    for p in &batch {
        *asked.entry(p.id).or_default() += 1;
    }
    for p in batch {
        let left = asked.get_mut(&p.id).map_or(0, |n| {
            *n -= 1;
            *n
        });
        let result = if left == 0 {
            found.remove(&p.id).transpose()
        } else {
            found.get(&p.id).map(copy).transpose()
        };
        let _ = p.done.send(result);
    }
}

/// A copy of a game read, or of the error reading it.
fn copy(read: &Result<StoredGame, StoreError>) -> Result<StoredGame, StoreError> {
    match read {
        Ok(game) => Ok(game.clone()),
        Err(e) => Err(StoreError::Corrupt(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SqliteSync;

    /// A reading task dropped with its runtime before it ever ran leaves no load hanging: the
    /// next load, on another runtime, starts a reading of its own.
    #[test]
    fn a_reading_dropped_with_its_runtime_does_not_stop_later_loads() {
        let dir = std::env::temp_dir().join(format!("chessd-load-{}", std::process::id()));
        let url = format!("sqlite://{}", dir.join("games.db").display());
        let runtime = || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
        };
        let second = runtime();
        let db = second.block_on(Db::open(&url, SqliteSync::Normal)).unwrap();
        let loader = Loader::default();
        let first = runtime();
        first.block_on(async {
            // Queued, and its reading spawned on `first`, which never runs it.
            let mut load = Box::pin(loader.load(&db, Uuid::new_v4()));
            assert!(futures_util::poll!(load.as_mut()).is_pending());
        });
        assert!(loader.queue.lock().unwrap().reading);
        drop(first);
        assert!(!loader.queue.lock().unwrap().reading);
        let later = second.block_on(async {
            tokio::time::timeout(
                std::time::Duration::from_secs(10),
                loader.load(&db, Uuid::new_v4()),
            )
            .await
        });
        assert!(matches!(later, Ok(Ok(None))), "{later:?}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
