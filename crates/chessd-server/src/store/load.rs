//! Games brought back from the store, read together: every load waiting when the loader is
//! free is read in one statement, as the writer commits every write waiting in one batch.
//!
//! A load alone is one statement whose rows come back from the database driver's own thread
//! (sqlx gives each SQLite connection one): a hand-off there and back that, on a small
//! machine, costs more than the statement. Many loads at once (a server restarted under its
//! players, a crowd opening archived games) spent most of their time handing off and waiting
//! for those threads; read together, they share the hand-offs. One reader does best: with
//! two or four at once, `loadtest stored` brought games back a little slower.

use std::collections::HashMap;

use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::{db::Db, StoreError, StoredGame};

/// Most games read in one statement.
const MAX_BATCH: usize = 32;

/// One load waiting: the game and where its answer goes (`None`: no such game).
pub(super) struct PendingLoad {
    pub(super) id: Uuid,
    pub(super) done: oneshot::Sender<Result<Option<StoredGame>, StoreError>>,
}

/// Reads the loads of `queue` until it closes: every load waiting (up to [`MAX_BATCH`]) in
/// one statement.
pub(super) async fn run(db: Db, mut queue: mpsc::Receiver<PendingLoad>) {
    let mut batch: Vec<PendingLoad> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = queue.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        answer(&db, &mut batch).await;
    }
}

/// Reads the games of `batch` in one statement and answers each load (a game asked twice is
/// given to both).
async fn answer(db: &Db, batch: &mut Vec<PendingLoad>) {
    let mut ids: Vec<Uuid> = batch.iter().map(|p| p.id).collect();
    ids.sort_unstable();
    ids.dedup();
    let found = match db.load_games(&ids).await {
        Ok(found) => found,
        Err(e) => {
            let message = e.to_string();
            for p in batch.drain(..) {
                let _ = p.done.send(Err(StoreError::Database(message.clone())));
            }
            return;
        }
    };
    let mut found: HashMap<Uuid, Result<StoredGame, StoreError>> = found.into_iter().collect();
    let mut asked: HashMap<Uuid, usize> = HashMap::new();
    for p in batch.iter() {
        *asked.entry(p.id).or_default() += 1;
    }
    for p in batch.drain(..) {
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
