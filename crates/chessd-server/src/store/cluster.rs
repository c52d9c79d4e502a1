//! The cluster's tables (PostgreSQL only): node heartbeats and shard leases with fencing
//! tokens. Every time is PostgreSQL's clock (`clock_timestamp()`), so the nodes' own clocks
//! never decide who owns what.

use sqlx::postgres::PgPool;

use super::StoreError;

/// PostgreSQL's clock in Unix milliseconds, as SQL.
const NOW_MS: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/// PostgreSQL's error code for a statement cancelled by `statement_timeout`.
const QUERY_CANCELED: &str = "57014";

/// The cluster's rows, on the store's PostgreSQL.
#[derive(Clone, Debug)]
pub struct ClusterDb {
    pool: PgPool,
}

/// A node as its row says.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct NodeRow {
    /// Its id.
    pub node: String,
    /// Its advertised internal address.
    pub url: String,
    /// When it started (Unix ms).
    pub started_ms: i64,
    /// Its last heartbeat (Unix ms, PostgreSQL's clock).
    pub heartbeat_ms: i64,
    /// When its lease ends unless renewed.
    pub expires_ms: i64,
}

/// A shard as its row says.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct ShardRow {
    /// Its number.
    pub shard: i32,
    /// The node owning it, if any.
    pub owner: Option<String>,
    /// Its fencing token (bumped each time it is taken).
    pub token: i64,
    /// When the owner's lease ends unless renewed.
    pub expires_ms: i64,
}

fn db_err(e: sqlx::Error) -> StoreError {
    StoreError::from_db(e, None)
}

impl ClusterDb {
    pub(crate) fn new(pool: PgPool) -> ClusterDb {
        ClusterDb { pool }
    }

    /// Creates the rows of shards `0..shards` that do not exist yet; fails when the table
    /// holds another number of shards (every node of a cluster must use the same).
    pub async fn init_shards(&self, shards: u32) -> Result<(), StoreError> {
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM cluster_shards")
            .fetch_one(&self.pool)
            .await
            .map_err(db_err)?;
        if count != 0 && count != i64::from(shards) {
            return Err(StoreError::Database(format!(
                "the cluster has {count} shards and this node is configured with {shards}: \
                 every node must use the same cluster.shards"
            )));
        }
        sqlx::query(
            "INSERT INTO cluster_shards (shard) SELECT generate_series(0, $1 - 1) \
             ON CONFLICT (shard) DO NOTHING",
        )
        .bind(shards as i32)
        .execute(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(())
    }

    /// The cluster's shared secret: written by the first node (these `fresh` bytes), read by
    /// every node.
    pub async fn shared_secret(&self, fresh: &[u8]) -> Result<Vec<u8>, StoreError> {
        sqlx::query(
            "INSERT INTO cluster_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
        )
        .bind(fresh)
        .execute(&self.pool)
        .await
        .map_err(db_err)?;
        sqlx::query_scalar("SELECT secret FROM cluster_secret WHERE id = 1")
            .fetch_one(&self.pool)
            .await
            .map_err(db_err)
    }

    /// Writes this node's heartbeat (its lease now ends `lease_ms` from now); gives the time
    /// of the heartbeat, PostgreSQL's clock.
    pub async fn heartbeat(
        &self,
        node: &str,
        url: &str,
        started_ms: i64,
        lease_ms: i64,
    ) -> Result<i64, StoreError> {
        sqlx::query_scalar(&format!(
            "INSERT INTO cluster_nodes (node, url, started_ms, heartbeat_ms, expires_ms) \
             VALUES ($1, $2, $3, {NOW_MS}, {NOW_MS} + $4) \
             ON CONFLICT (node) DO UPDATE SET url = EXCLUDED.url, \
               heartbeat_ms = EXCLUDED.heartbeat_ms, expires_ms = EXCLUDED.expires_ms \
             RETURNING heartbeat_ms"
        ))
        .bind(node)
        .bind(url)
        .bind(started_ms)
        .bind(lease_ms)
        .fetch_one(&self.pool)
        .await
        .map_err(db_err)
    }

    /// Every node row, live or not, by id.
    pub async fn nodes(&self) -> Result<Vec<NodeRow>, StoreError> {
        sqlx::query_as(
            "SELECT node, url, started_ms, heartbeat_ms, expires_ms FROM cluster_nodes \
             ORDER BY node",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)
    }

    /// Forgets nodes whose lease ended more than `after_ms` ago.
    pub async fn forget_nodes(&self, after_ms: i64) -> Result<(), StoreError> {
        sqlx::query(&format!(
            "DELETE FROM cluster_nodes WHERE expires_ms < {NOW_MS} - $1"
        ))
        .bind(after_ms)
        .execute(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(())
    }

    /// Every shard row, by number.
    pub async fn shards(&self) -> Result<Vec<ShardRow>, StoreError> {
        sqlx::query_as("SELECT shard, owner, token, expires_ms FROM cluster_shards ORDER BY shard")
            .fetch_all(&self.pool)
            .await
            .map_err(db_err)
    }

    /// Renews the lease of every shard `node` owns; gives each with its token. Only the
    /// lease's end changes (FOR NO KEY UPDATE, in shard order), which game writes' fence checks
    /// (FOR KEY SHARE) never block: a renewal does not wait for the games' commits.
    pub async fn renew(&self, node: &str, lease_ms: i64) -> Result<Vec<(i32, i64)>, StoreError> {
        sqlx::query_as(&format!(
            "UPDATE cluster_shards SET expires_ms = {NOW_MS} + $2 \
             WHERE shard IN (SELECT shard FROM cluster_shards \
               WHERE owner = $1 AND expires_ms >= {NOW_MS} ORDER BY shard FOR NO KEY UPDATE) \
             RETURNING shard, token"
        ))
        .bind(node)
        .bind(lease_ms)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)
    }

    /// Takes `shard` for `node` when nobody holds it (no owner, or the owner's lease has
    /// ended); gives the new fencing token, or `None` when another node holds it. The row is
    /// locked FOR UPDATE first, which waits for every game write still checking the old token
    /// (FOR KEY SHARE) to commit: nothing is written under the old token afterwards. A write
    /// that is still open when the pool's `statement_timeout` ends the wait (its node stalled
    /// in it) also gives `None`: the shard is tried again at the next tick, and the lease loop
    /// goes on renewing meanwhile.
    pub async fn acquire(
        &self,
        shard: i32,
        node: &str,
        lease_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        sqlx::query_scalar(&format!(
            "UPDATE cluster_shards SET owner = $2, token = token + 1, expires_ms = {NOW_MS} + $3 \
             WHERE shard = (SELECT shard FROM cluster_shards WHERE shard = $1 \
               AND (owner IS NULL OR expires_ms < {NOW_MS}) FOR UPDATE) RETURNING token"
        ))
        .bind(shard)
        .bind(node)
        .bind(lease_ms)
        .fetch_optional(&self.pool)
        .await
        .or_else(|e| match e {
            sqlx::Error::Database(db) if db.code().as_deref() == Some(QUERY_CANCELED) => Ok(None),
            e => Err(db_err(e)),
        })
    }

    /// Gives `shard` up (when another node should own it), if `node` still holds it with
    /// `token`.
    pub async fn release(&self, shard: i32, node: &str, token: i64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE cluster_shards SET owner = NULL, expires_ms = 0 \
             WHERE shard = $1 AND owner = $2 AND token = $3",
        )
        .bind(shard)
        .bind(node)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(())
    }

    /// Claims for `node` every unfinished job whose node is not live (it died, or the job was
    /// made by a single node): one UPDATE, so that each job goes to one node. Gives their ids.
    pub async fn claim_orphan_jobs(&self, node: &str) -> Result<Vec<uuid::Uuid>, StoreError> {
        let ids: Vec<Vec<u8>> = sqlx::query_scalar(&format!(
            "UPDATE jobs SET node = $1 WHERE state IN ('queued', 'running') \
             AND (node IS NULL OR node NOT IN \
               (SELECT node FROM cluster_nodes WHERE expires_ms > {NOW_MS})) \
             RETURNING id"
        ))
        .bind(node)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(ids
            .iter()
            .filter_map(|id| uuid::Uuid::from_slice(id).ok())
            .collect())
    }

    /// The node running job `id` (`None`: no such job, or none named).
    pub async fn job_node(&self, id: &uuid::Uuid) -> Result<Option<String>, StoreError> {
        let node: Option<Option<String>> =
            sqlx::query_scalar("SELECT node FROM jobs WHERE id = $1")
                .bind(id.as_bytes().as_slice())
                .fetch_optional(&self.pool)
                .await
                .map_err(db_err)?;
        Ok(node.flatten())
    }

    /// Ends `node`'s lease and gives up its shards (a clean shutdown), so that the others
    /// take them at once instead of after the lease.
    pub async fn leave(&self, node: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE cluster_shards SET owner = NULL, expires_ms = 0 WHERE shard IN \
             (SELECT shard FROM cluster_shards WHERE owner = $1 ORDER BY shard FOR UPDATE)",
        )
        .bind(node)
        .execute(&self.pool)
        .await
        .map_err(db_err)?;
        sqlx::query("UPDATE cluster_nodes SET expires_ms = 0 WHERE node = $1")
            .bind(node)
            .execute(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(())
    }
}
