//! Packing stored journals: a game that leaves memory (evicted, stopped, over) has its
//! journal rows replaced by one packed record ([`journal::packed`](crate::game::journal::packed)),
//! a few bits a move instead of a row a move. A [`Packer`] does it in the background, one game
//! at a time; [`Packer::pack_backlog`] packs what an earlier run (or an older store) left.
//!
//! Packing is safe beside the game's own writes, on any node: the rows a record replaces are
//! never written again (a version is written once, and a trigger refuses a version the record
//! holds), so a record made from what was read is true whatever was appended since, and the
//! rows after it stay rows.

use std::sync::{Arc, OnceLock};

use tokio::sync::mpsc;
use uuid::Uuid;

use crate::{
    game::{
        journal::{packed, read_stored},
        GameError,
    },
    store::{Fence, Store, WriteOp},
};

/// Games waiting to be packed, at most; more are left as rows (the backlog packs those that
/// end, and an ongoing game is packed when it leaves memory again).
const QUEUE: usize = 4_096;
/// Games the backlog reads at a time.
const BACKLOG_PAGE: i64 = 256;

/// What packing a game did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packed {
    /// The journal is packed: this many entries, in a record of this many bytes.
    Packed {
        /// Entries in the record.
        entries: usize,
        /// The record's size.
        bytes: usize,
    },
    /// Nothing to pack: the record already holds every entry, and the options.
    AlreadyPacked,
}

/// Packs the journals of games that left memory, in the background.
pub struct Packer {
    store: Store,
    queue: OnceLock<mpsc::Sender<(Uuid, Option<Fence>)>>,
}

impl Packer {
    /// A packer for `store` (one that keeps nothing packs nothing).
    pub fn new(store: Store) -> Arc<Packer> {
        Arc::new(Packer {
            store,
            queue: OnceLock::new(),
        })
    }

    /// Packs game `id` soon (under `fence`, the lease its actor held), unless many are waiting.
    /// Its worker starts on the current Tokio runtime at the first call.
    pub fn pack_later(&self, id: Uuid, fence: Option<Fence>) {
        if !self.store.is_durable() {
            return;
        }
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(work(self.store.clone(), rx));
                }
                Err(_) => tracing::warn!("no runtime: stored journals are not packed"),
            }
            tx
        });
        if queue.try_send((id, fence)).is_err() {
            tracing::debug!(game = %id, "packing queue full: the journal stays as rows for now");
        }
    }

    /// Packs every game over or stopped whose journal is not packed; gives how many it packed.
    pub async fn pack_backlog(&self) -> Result<usize, GameError> {
        let mut after = 0;
        let mut done = 0;
        loop {
            let page = self.store.games_to_pack(after, BACKLOG_PAGE).await?;
            let Some(&(last, _)) = page.last() else {
                return Ok(done);
            };
            after = last;
            for (_, id) in page {
                match pack_game(&self.store, id, None).await {
                    Ok(Packed::Packed { .. }) => done += 1,
                    Ok(Packed::AlreadyPacked) => {}
                    // Left as rows (and tried again at the next start).
                    Err(e) => tracing::warn!(game = %id, error = %e, "journal not packed"),
                }
            }
        }
    }
}

/// The packer's worker: packs the games queued, one at a time.
async fn work(store: Store, mut queue: mpsc::Receiver<(Uuid, Option<Fence>)>) {
    while let Some((id, fence)) = queue.recv().await {
        match pack_game(&store, id, fence).await {
            Ok(packed) => tracing::debug!(game = %id, ?packed, "journal packed"),
            Err(e) => tracing::info!(game = %id, error = %e, "journal not packed"),
        }
    }
}

/// Packs the stored journal of game `id` (its setup, options and every entry) into one record,
/// written under `fence`. A finished game's clocks are kept to the centisecond.
pub async fn pack_game(store: &Store, id: Uuid, fence: Option<Fence>) -> Result<Packed, GameError> {
    let stored = store
        .load_game(&id)
        .await?
        .ok_or_else(|| GameError::NotFound(id.to_string()))?;
    if stored.packed.is_some() && stored.entries.is_empty() && stored.options.is_empty() {
        return Ok(Packed::AlreadyPacked);
    }
    let mut journal = read_stored(&stored)?;
    // A finished game keeps its clocks to the centisecond; an ongoing one, to the ms.
    if stored.result != "ongoing" {
        packed::to_centiseconds(&mut journal.entries);
    }
    let record = packed::pack(&journal.setup, Some(&journal.options), &journal.entries)
        .map_err(|e| GameError::Internal(format!("stored game {id}: {e}")))?;
    let bytes = record.len();
    let entries = journal.entries.len();
    store
        .write_fenced(
            WriteOp::Pack {
                game: stored.seq,
                through: entries as i64,
                packed: record,
                options_read: stored.options,
            },
            fence,
        )
        .await?;
    Ok(Packed::Packed { entries, bytes })
}
