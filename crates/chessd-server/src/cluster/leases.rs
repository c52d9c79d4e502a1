//! The lease loop: every `heartbeat_ms`, a heartbeat, the renewal of this node's shard leases,
//! then the shards taken (those rendezvous hashing gives this node and nobody holds) and given
//! up (those it gives another live node: their games leave memory first, then the lease is
//! released so that the new owner takes it at once). A shard whose renewal failed was taken by
//! another node: its games leave this node's memory.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use super::{placement::desired_owner, Cluster};
use crate::store::StoreError;

/// How long a node gives the games of a shard it hands over to leave memory (their writes in
/// flight to commit) before it releases the lease anyway (their later writes are fenced).
const HANDOVER_WAIT: Duration = Duration::from_secs(2);

/// Node rows whose lease ended this long ago are deleted.
const FORGET_NODES_AFTER_MS: i64 = 3_600_000;

pub(super) async fn run(cluster: Cluster) {
    let mut failing = false;
    let mut next = Instant::now();
    loop {
        tokio::time::sleep_until(next.into()).await;
        if cluster.is_leaving() {
            return;
        }
        // While a shard has no owner, or its owner is late renewing it (a node died or paused),
        // look again five times as often, so that its games are taken and found as soon as
        // the lease ends.
        let unsettled = {
            let view = cluster.read_view();
            view.owner_late || view.owners.iter().any(Option::is_none)
        };
        let every = if unsettled {
            cluster.inner.heartbeat / 5
        } else {
            cluster.inner.heartbeat
        };
        next = Instant::now() + every;
        match tick(&cluster).await {
            Ok(()) => failing = false,
            Err(e) if !failing => {
                failing = true;
                tracing::warn!(error = %e, "cluster heartbeat failed; retrying");
            }
            Err(_) => {}
        }
        crate::metrics::set_cluster(cluster.owned_shards(), cluster.live_nodes());
    }
}

async fn tick(c: &Cluster) -> Result<(), StoreError> {
    let i = &c.inner;
    let began = Instant::now();
    // The heartbeat and the renewal end well inside the lease, or count as failed: the node
    // then stops serving when its leases may have ended (`valid_until`).
    let deadline = Duration::from_millis((i.lease_ms.max(3) as u64) / 3);
    let renewal = async {
        let now_ms = c.heartbeat().await?;
        let renewed = i.db.renew(&i.node, i.lease_ms).await?;
        Ok::<_, StoreError>((now_ms, renewed))
    };
    let (now_ms, renewed) = tokio::time::timeout(deadline, renewal)
        .await
        .map_err(|_| {
            StoreError::Database(format!(
                "the heartbeat and lease renewal took over {} ms",
                deadline.as_millis()
            ))
        })??;
    let renewed: HashMap<i32, i64> = renewed.into_iter().collect();
    // The leases hold for lease_ms from the renewal, which began after `began`; a fifth is
    // kept as a margin for the two clocks' rates.
    let valid = Duration::from_millis((i.lease_ms.max(0) as u64) * 4 / 5);
    let lost = c.write_view(|v| {
        let lost: Vec<i32> = v
            .owned
            .iter()
            .filter(|(shard, token)| renewed.get(shard) != Some(token))
            .map(|(shard, _)| *shard)
            .collect();
        for shard in &lost {
            v.owned.remove(shard);
        }
        v.valid_until = Some(began + valid);
        lost
    });
    if !lost.is_empty() {
        tracing::warn!(shards = ?lost, "shard leases lost to other nodes; their games leave memory");
        leave(c, &lost).await;
    }

    let nodes = i.db.nodes().await?;
    let live: Vec<&str> = nodes
        .iter()
        .filter(|n| n.expires_ms > now_ms)
        .map(|n| n.node.as_str())
        .collect();
    let url_of = |node: &str| {
        nodes
            .iter()
            .find(|n| n.node == node)
            .map(|n| n.url.clone())
            .unwrap_or_default()
    };
    let rows = i.db.shards().await?;
    // A live owner renews every heartbeat: a lease with less than two heartbeats fewer than
    // the whole left was not renewed lately.
    let late_before = now_ms + i.lease_ms - 2 * i.heartbeat.as_millis() as i64;
    let owner_late = rows.iter().any(|r| {
        r.owner.as_deref().is_some_and(|o| o != i.node)
            && r.expires_ms >= now_ms
            && r.expires_ms < late_before
    });
    let mut owners = vec![None; i.shards as usize];
    for row in &rows {
        let held = row.owner.as_ref().filter(|_| row.expires_ms >= now_ms);
        if let (Some(owner), Some(slot)) = (held, owners.get_mut(row.shard as usize)) {
            *slot = Some((owner.clone(), url_of(owner)));
        }
    }
    let mut handover = Vec::new();
    for row in &rows {
        let desired = desired_owner(row.shard, &live);
        let token = c.read_view().owned.get(&row.shard).copied();
        let slot = row.shard as usize;
        match token {
            None if desired == Some(i.node.as_str())
                && (row.owner.is_none() || row.expires_ms < now_ms) =>
            {
                if let Some(token) = i.db.acquire(row.shard, &i.node, i.lease_ms).await? {
                    c.write_view(|v| v.owned.insert(row.shard, token));
                    if let Some(o) = owners.get_mut(slot) {
                        *o = Some((i.node.clone(), i.url.clone()));
                    }
                    tracing::info!(shard = row.shard, token, "shard taken");
                }
            }
            Some(token) if desired.is_some_and(|d| d != i.node) => {
                handover.push((row.shard, token));
                if let Some(o) = owners.get_mut(slot) {
                    *o = None;
                }
            }
            _ => {}
        }
    }
    if !handover.is_empty() {
        // Hand over, all together: stop serving them, let their games go, release the leases.
        let shards: Vec<i32> = handover.iter().map(|(shard, _)| *shard).collect();
        c.write_view(|v| {
            for shard in &shards {
                v.owned.remove(shard);
            }
            v.owners.clone_from(&owners);
        });
        leave(c, &shards).await;
        for (shard, token) in &handover {
            i.db.release(*shard, &i.node, *token).await?;
        }
        tracing::info!(shards = ?shards, "shards handed over to other nodes");
    }
    c.write_view(|v| {
        v.owners = owners;
        v.nodes = nodes.clone();
        v.now_ms = now_ms;
        v.owner_late = owner_late;
    });
    i.db.forget_nodes(FORGET_NODES_AFTER_MS).await?;
    // Unfinished jobs of nodes that are gone (or of a single node before): one node claims
    // each and resumes it from its finished tasks.
    if let Some(jobs) = i.jobs.get() {
        let claimed = i.db.claim_orphan_jobs(&i.node).await?;
        if !claimed.is_empty() {
            let resumed = jobs.adopt(&claimed).await?;
            tracing::info!(
                claimed = claimed.len(),
                resumed,
                "jobs of a node that is gone taken over"
            );
        }
    }
    Ok(())
}

/// Tells the games of `shards` held here to leave memory and waits (a little) until they have.
async fn leave(c: &Cluster, shards: &[i32]) {
    let Some(games) = c.games() else {
        return;
    };
    let in_shards = |id: &uuid::Uuid| shards.contains(&c.shard_of(id));
    if games.leave_node(in_shards) == 0 {
        return;
    }
    let deadline = Instant::now() + HANDOVER_WAIT;
    while games.count_where(in_shards) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
