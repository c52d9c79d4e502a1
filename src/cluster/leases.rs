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
    let mut ticker = tokio::time::interval(cluster.inner.heartbeat);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    loop {
        ticker.tick().await;
        if cluster.is_leaving() {
            return;
        }
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
    let now_ms = c.heartbeat().await?;
    let renewed: HashMap<i32, i64> = i.db.renew(&i.node, i.lease_ms).await?.into_iter().collect();
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
