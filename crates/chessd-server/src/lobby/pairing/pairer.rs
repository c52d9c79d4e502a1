//! The node's pairer: while entries wait in any pool (or this node's sockets hold some), every
//! `pairing.interval_ms` it keeps the held entries alive, reads the waiting entries from the
//! store, pairs each pool's (`matcher`), claims each pair (both entries or neither), has its
//! game made and completes both entries with it, then tells this node's sockets which of their
//! entries settled (possibly paired by another node). Idle, it waits to be woken by a join, a
//! poll or a hold on this node.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use uuid::Uuid;

use super::{
    limit,
    matcher::{self, Candidate, Range},
    PairedGame, Pairing, PairingError, KEEP_SETTLED_MS, STALE_CLAIM_MS,
};
use crate::{
    game::secrets::KeptDigest,
    store::{now_ms, pairing::EntryRow},
};

/// Runs for the process's life; idle while no entry waits.
pub(super) async fn run(pairing: Pairing) {
    let interval = Duration::from_millis(pairing.0.config.interval_ms.max(10));
    loop {
        let busy = match tick(&pairing).await {
            Ok(busy) => busy,
            Err(e) => {
                tracing::warn!(error = %e, "quick pairing could not pair");
                true
            }
        };
        if busy {
            tokio::time::sleep(interval).await;
        } else {
            pairing.0.wake.notified().await;
        }
    }
}

/// One round; whether there is more to do (entries wait, or sockets hold entries).
async fn tick(pairing: &Pairing) -> Result<bool, PairingError> {
    let db = pairing.db()?;
    let held = pairing.held_ids();
    db.renew(&held, pairing.alive_until()).await?;
    let now = now_ms();
    pairing.sweep(now).await?;
    let waiting = db.waiting(now, limit(pairing.0.total)).await?;
    let busy = !waiting.is_empty() || !held.is_empty();
    let mut pools: BTreeMap<&str, Vec<&EntryRow>> = BTreeMap::new();
    for entry in &waiting {
        pools.entry(entry.pool.as_str()).or_default().push(entry);
    }
    let range = Range::of(&pairing.0.config);
    for (pool, entries) in pools {
        let Ok(pool) = pairing.pool(pool) else {
            continue;
        };
        let candidates: Vec<Candidate> = entries
            .iter()
            .map(|e| Candidate {
                client: e.client.clone(),
                player: e.player.clone(),
                rating: e.rating,
                since_ms: e.created_ms,
            })
            .collect();
        for (a, b) in matcher::pairs(&candidates, now, range) {
            pair(pairing, pool, entries[a], entries[b]).await?;
        }
    }
    for entry in db.settled_among(&held).await? {
        pairing.forget_held(&entry.id);
        let _ = pairing.0.events.send(Arc::new(entry));
    }
    Ok(busy)
}

/// The digest of an entry's seat secret.
fn seat(entry: &EntryRow) -> Option<KeptDigest> {
    entry.seat.as_slice().try_into().ok()
}

/// Claims `older` and `newer` together, has their game made (counted against the older one's
/// client) and completes both with it; if the game cannot be made, the older entry fails with
/// the reason and the newer one waits again. A pair another node claimed first is skipped.
async fn pair(
    pairing: &Pairing,
    pool: &crate::config::PoolConfig,
    older: &EntryRow,
    newer: &EntryRow,
) -> Result<(), PairingError> {
    let db = pairing.db()?;
    let Some(maker) = pairing.0.maker.get() else {
        return Ok(());
    };
    let claim = Uuid::new_v4().to_string();
    if !db
        .claim_pair(&older.id, &newer.id, &claim, now_ms(), STALE_CLAIM_MS)
        .await?
    {
        return Ok(());
    }
    // Colours at random: fair whoever waited longer.
    let (white, black) = if Uuid::new_v4().as_bytes()[0] & 1 == 0 {
        (older, newer)
    } else {
        (newer, older)
    };
    let made = match (seat(white), seat(black)) {
        (Some(w), Some(b)) => {
            maker
                .make(PairedGame {
                    pool: pool.clone(),
                    client: older.client.clone(),
                    white: w,
                    black: b,
                    white_player: white.player.clone(),
                    black_player: black.player.clone(),
                })
                .await
        }
        _ => Err(super::MakeError {
            code: "internal".into(),
            message: "a stored pairing entry without its seat".into(),
        }),
    };
    let now = now_ms();
    let keep = now.saturating_add(KEEP_SETTLED_MS);
    match made {
        Ok(game) => {
            for (entry, color) in [(white, "white"), (black, "black")] {
                if !db.pair(&entry.id, &claim, &game, color, now, keep).await? {
                    tracing::warn!(entry = %entry.id, %game, "a pairing claim ran out before its game was made");
                }
            }
            tracing::debug!(pool = %pool.id, %game, white = %white.id, black = %black.id, "paired");
        }
        Err(e) => {
            tracing::warn!(pool = %pool.id, entry = %older.id, code = %e.code, message = %e.message, "a paired game could not be made");
            db.fail(
                &older.id,
                &claim,
                &format!("{}: {}", e.code, e.message),
                now,
                keep,
            )
            .await?;
            db.release(&newer.id, &claim, now).await?;
        }
    }
    Ok(())
}
