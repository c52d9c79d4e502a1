//! The node's lobby watcher: while lobby sockets are open, it reads the open seeks every
//! `lobby.poll_ms` (or at once when a seek changes on this node), keeps the seeks this node's
//! sockets hold alive, and broadcasts what changed since the last read: seeks added, seeks
//! removed, and held seeks accepted (possibly on another node). Reading the store rather than
//! passing messages between nodes is what lets players on different nodes meet without a broker.

use std::{collections::HashMap, sync::Arc, time::Duration};

use super::{Lobby, LobbyEvent};
use crate::store::{now_ms, seeks::SeekRow};

/// Runs for the process's life; idle (waiting to be woken) while no socket is open.
pub(super) async fn run(lobby: Lobby) {
    let poll = Duration::from_millis(lobby.0.config.poll_ms.max(10));
    let mut view: HashMap<String, Arc<SeekRow>> = HashMap::new();
    loop {
        if lobby.0.sockets.load(std::sync::atomic::Ordering::Acquire) == 0 {
            lobby.0.wake.notified().await;
            continue;
        }
        if let Err(e) = tick(&lobby, &mut view).await {
            tracing::warn!(error = %e, "the lobby could not read the seeks");
        }
        // The next read after poll_ms, or sooner when a seek changes here.
        let _ = tokio::time::timeout(poll, lobby.0.wake.notified()).await;
    }
}

/// One read: holds renewed, changes broadcast.
async fn tick(
    lobby: &Lobby,
    view: &mut HashMap<String, Arc<SeekRow>>,
) -> Result<(), super::LobbyError> {
    let db = lobby.db()?;
    let held = lobby.held_ids();
    db.hold(&held, lobby.held_until()).await?;
    let now = now_ms();
    lobby.sweep(now).await?;
    let open = lobby.open_seeks().await?;
    let events = &lobby.0.events;
    let mut next: HashMap<String, Arc<SeekRow>> = HashMap::with_capacity(open.len());
    for row in open {
        let row = Arc::new(row);
        if !view.contains_key(&row.id) {
            let _ = events.send(LobbyEvent::Added(Arc::clone(&row)));
        }
        next.insert(row.id.clone(), row);
    }
    for id in view.keys() {
        if !next.contains_key(id) {
            let _ = events.send(LobbyEvent::Removed(id.clone()));
        }
    }
    *view = next;
    for row in db.accepted_among(&held).await? {
        lobby.forget_held(&row.id);
        let _ = events.send(LobbyEvent::Accepted(Arc::new(row)));
    }
    Ok(())
}
