//! Several chessd nodes on one PostgreSQL. PostgreSQL coordinates them, with no protocol of
//! our own: each node heartbeats a row (membership), games are grouped in shards, and a node
//! owns a shard through a lease row whose fencing token every write of the shard's games
//! carries (see [`crate::store::Fence`]). A node that lost a shard can no longer write its
//! games, so no game forks. Requests for a game owned elsewhere are forwarded by the API to
//! the owner's advertised address (`api::forward`).
//!
//! [`Cluster`] is the node's view (who owns what, refreshed at every heartbeat by the lease
//! loop in `leases`) and the game layer's [`Ownership`].

mod leases;
pub mod placement;

use std::{
    collections::HashMap,
    sync::{Arc, OnceLock, RwLock, Weak},
    time::{Duration, Instant},
};

use uuid::Uuid;

use crate::{
    config::ClusterConfig,
    game::{ownership::Ownership, GameError, Games},
    jobs::supervisor::JobSupervisor,
    store::{
        cluster::{ClusterDb, NodeRow},
        Fence, StoreError,
    },
};

/// Where a game is served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Here.
    Local,
    /// By the node at this advertised address.
    Remote(String),
    /// By no node right now (its owner died and no node has taken the shard yet).
    Unowned,
}

/// This node's part in the cluster: a cheap handle.
#[derive(Clone)]
pub struct Cluster {
    inner: Arc<Inner>,
}

struct Inner {
    node: String,
    url: String,
    shards: u32,
    heartbeat: Duration,
    lease_ms: i64,
    placement_wait: Duration,
    started_ms: i64,
    db: ClusterDb,
    view: RwLock<View>,
    games: OnceLock<Weak<Games>>,
    jobs: OnceLock<JobSupervisor>,
    /// Set when the node leaves: the lease loop ends.
    leaving: std::sync::atomic::AtomicBool,
    /// The secret every node of the cluster shares (it signs forwarded clients).
    secret: Vec<u8>,
}

/// What the node last learnt from PostgreSQL.
#[derive(Clone, Debug, Default)]
struct View {
    /// Shards this node owns, with their tokens.
    owned: HashMap<i32, i64>,
    /// Every shard's owner (node id and address), by shard.
    owners: Vec<Option<(String, String)>>,
    /// Every node row.
    nodes: Vec<NodeRow>,
    /// The time of the last heartbeat, PostgreSQL's clock.
    now_ms: i64,
    /// Until when this node's leases surely hold (its own clock): after that, it serves
    /// nothing until the next successful heartbeat.
    valid_until: Option<Instant>,
    /// Whether another node is late renewing a shard's lease (it may have died or paused).
    owner_late: bool,
}

/// A node as `GET /v1/cluster` shows it.
#[derive(Clone, Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = ClusterNode)]
pub struct NodeStatus {
    /// Its id.
    pub node: String,
    /// Its advertised address.
    pub url: String,
    /// Whether its lease holds.
    pub live: bool,
    /// When it started (Unix ms).
    pub started_ms: i64,
    /// Its last heartbeat (Unix ms, PostgreSQL's clock).
    pub heartbeat_ms: i64,
    /// When its lease ends unless renewed.
    pub expires_ms: i64,
    /// The shards it owns.
    pub shards: Vec<i32>,
}

/// The cluster as `GET /v1/cluster` shows it.
#[derive(Clone, Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ClusterStatus {
    /// Whether this server is a cluster node (else every other field is empty).
    pub enabled: bool,
    /// The node answering.
    pub node: String,
    /// How many shards games are grouped in.
    pub shards: u32,
    /// Shards no node owns right now.
    pub unowned_shards: Vec<i32>,
    /// Every node known, by id.
    pub nodes: Vec<NodeStatus>,
}

impl ClusterStatus {
    /// The status of a server that is not in a cluster.
    pub fn single_node() -> ClusterStatus {
        ClusterStatus {
            enabled: false,
            node: String::new(),
            shards: 0,
            unowned_shards: Vec::new(),
            nodes: Vec::new(),
        }
    }
}

impl Cluster {
    /// Joins the cluster on `store`'s PostgreSQL: creates the shard rows if needed, writes the
    /// first heartbeat. Shards are taken by the lease loop ([`Cluster::run`]).
    pub async fn join(config: &ClusterConfig, db: ClusterDb) -> Result<Cluster, StoreError> {
        db.init_shards(config.shards).await?;
        let fresh = [*Uuid::new_v4().as_bytes(), *Uuid::new_v4().as_bytes()].concat();
        let secret = db.shared_secret(&fresh).await?;
        let node = format!("node-{}", &Uuid::new_v4().simple().to_string()[..12]);
        let cluster = Cluster {
            inner: Arc::new(Inner {
                node,
                url: config.advertise_url.trim_end_matches('/').to_string(),
                shards: config.shards,
                heartbeat: Duration::from_millis(config.heartbeat_ms.max(50)),
                lease_ms: config.lease_ms as i64,
                placement_wait: config.placement_wait(),
                started_ms: crate::store::now_ms(),
                db,
                view: RwLock::new(View::default()),
                games: OnceLock::new(),
                jobs: OnceLock::new(),
                leaving: std::sync::atomic::AtomicBool::new(false),
                secret,
            }),
        };
        cluster.heartbeat().await?;
        tracing::info!(node = %cluster.inner.node, url = %cluster.inner.url, "joined the cluster");
        Ok(cluster)
    }

    /// The games this node holds (told to leave when their shard moves away).
    pub fn attach(&self, games: &Arc<Games>) {
        let _ = self.inner.games.set(Arc::downgrade(games));
    }

    /// The jobs this node runs: they are stored with this node's id, and the jobs of a node
    /// that died are claimed and resumed by the lease loop.
    pub fn attach_jobs(&self, jobs: &JobSupervisor) {
        jobs.set_node(&self.inner.node);
        let _ = self.inner.jobs.set(jobs.clone());
    }

    /// Runs the lease loop until the process ends: a heartbeat, lease renewals, shards taken
    /// and given up, every `heartbeat_ms`.
    pub async fn run(self) {
        leases::run(self).await;
    }

    /// Gives up every shard and ends this node's lease (a clean shutdown), so that the other
    /// nodes take its games at once.
    pub async fn leave(&self) {
        self.inner
            .leaving
            .store(true, std::sync::atomic::Ordering::Release);
        self.write_view(|v| {
            v.owned.clear();
            v.valid_until = None;
        });
        if let Err(e) = self.inner.db.leave(&self.inner.node).await {
            tracing::warn!(error = %e, "could not leave the cluster cleanly");
        }
    }

    /// Whether the node is leaving (the lease loop stops).
    fn is_leaving(&self) -> bool {
        self.inner
            .leaving
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// This node's id.
    pub fn node(&self) -> &str {
        &self.inner.node
    }

    /// The secret the cluster's nodes share.
    pub fn secret(&self) -> &[u8] {
        &self.inner.secret
    }

    /// The shard of game `id`.
    pub fn shard_of(&self, id: &Uuid) -> i32 {
        placement::shard_of(id, self.inner.shards)
    }

    /// Where game `id` is served, as far as this node knows.
    pub fn placement(&self, id: &Uuid) -> Placement {
        let shard = self.shard_of(id);
        let view = self.read_view();
        if view.owned.contains_key(&shard) && view.holds() {
            return Placement::Local;
        }
        match view.owners.get(shard as usize).cloned().flatten() {
            Some((node, url)) if node != self.inner.node => Placement::Remote(url),
            _ => Placement::Unowned,
        }
    }

    /// Where game `id` is served, waiting up to `cluster.placement_wait_ms` while its shard
    /// has no owner (a failover under way).
    pub async fn placement_settled(&self, id: &Uuid) -> Placement {
        let deadline = Instant::now() + self.inner.placement_wait;
        loop {
            let placement = self.placement(id);
            if placement != Placement::Unowned || Instant::now() >= deadline {
                return placement;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The address of the live node running job `id`, when it is another node than this one
    /// (`None`: this node, no node, or a node that is gone).
    pub async fn job_elsewhere(&self, id: &Uuid) -> Option<String> {
        let node = self.inner.db.job_node(id).await.ok().flatten()?;
        if node == self.inner.node {
            return None;
        }
        let view = self.read_view();
        view.nodes
            .iter()
            .find(|n| n.node == node && n.expires_ms > view.now_ms)
            .map(|n| n.url.clone())
    }

    /// The cluster as last seen.
    pub fn status(&self) -> ClusterStatus {
        let view = self.read_view();
        let nodes = view
            .nodes
            .iter()
            .map(|n| NodeStatus {
                node: n.node.clone(),
                url: n.url.clone(),
                live: n.expires_ms > view.now_ms,
                started_ms: n.started_ms,
                heartbeat_ms: n.heartbeat_ms,
                expires_ms: n.expires_ms,
                shards: view
                    .owners
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.as_ref().is_some_and(|(node, _)| *node == n.node))
                    .map(|(s, _)| s as i32)
                    .collect(),
            })
            .collect();
        ClusterStatus {
            enabled: true,
            node: self.inner.node.clone(),
            shards: self.inner.shards,
            unowned_shards: view
                .owners
                .iter()
                .enumerate()
                .filter(|(_, o)| o.is_none())
                .map(|(s, _)| s as i32)
                .collect(),
            nodes,
        }
    }

    /// Nodes whose lease held at the last heartbeat.
    pub fn live_nodes(&self) -> usize {
        let view = self.read_view();
        view.nodes
            .iter()
            .filter(|n| n.expires_ms > view.now_ms)
            .count()
    }

    /// Shards this node owns now.
    pub fn owned_shards(&self) -> usize {
        self.read_view().owned.len()
    }

    fn read_view(&self) -> std::sync::RwLockReadGuard<'_, View> {
        self.inner
            .view
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write_view<T>(&self, change: impl FnOnce(&mut View) -> T) -> T {
        let mut view = self
            .inner
            .view
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        change(&mut view)
    }

    /// Writes this node's heartbeat.
    async fn heartbeat(&self) -> Result<i64, StoreError> {
        let i = &self.inner;
        i.db.heartbeat(&i.node, &i.url, i.started_ms, i.lease_ms)
            .await
    }

    /// The games this node holds, if still there.
    fn games(&self) -> Option<Arc<Games>> {
        self.inner.games.get().and_then(Weak::upgrade)
    }
}

impl View {
    /// Whether this node's leases surely still hold.
    fn holds(&self) -> bool {
        self.valid_until.is_some_and(|t| Instant::now() < t)
    }
}

impl Ownership for Cluster {
    fn fence(&self, id: &Uuid) -> Result<Option<Fence>, GameError> {
        let shard = self.shard_of(id);
        let view = self.read_view();
        match view.owned.get(&shard) {
            Some(&token) if view.holds() => Ok(Some(Fence { shard, token })),
            _ => Err(GameError::Unavailable(format!(
                "this node does not own game {id} (shard {shard}) now; try again"
            ))),
        }
    }

    fn new_id(&self) -> Result<Uuid, GameError> {
        let view = self.read_view();
        if view.owned.is_empty() || !view.holds() {
            return Err(GameError::Unavailable(
                "this node owns no shard yet (it is joining the cluster); try again".into(),
            ));
        }
        // Random ids until one falls in a shard this node owns: about shards / owned tries.
        loop {
            let id = Uuid::new_v4();
            if view.owned.contains_key(&self.shard_of(&id)) {
                return Ok(id);
            }
        }
    }
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("node", &self.inner.node)
            .field("url", &self.inner.url)
            .finish()
    }
}
