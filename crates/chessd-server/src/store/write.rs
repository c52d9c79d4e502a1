//! The store's writes: the writer's own connection, on which each batch of writes is
//! committed at once (group commit).
//!
//! A batch of moves (appends that change no game's status, by far the most common batch) is one
//! statement, so one round trip to the database and one commit; any other batch is one
//! transaction. Runs of appends are inserted by one fixed statement whatever their length
//! (SQLite reads the rows from one JSON array, PostgreSQL from three arrays), so the statement
//! is prepared once per connection.

use sqlx::{pool::PoolConnection, Postgres, Sqlite};

use super::{
    db::Db,
    jobs::{execute_job_write, JobWrite},
    players::{execute_players_write, execute_rate},
    Fence, StoreError, WriteOp,
};

/// Inserts a run of appends, SQLite: the rows as one JSON array `[[game, version, body], …]`.
const SQLITE_APPEND: &str = "INSERT INTO game_events (game, version, body) \
     SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each($1)";

/// Inserts a run of appends, PostgreSQL: the rows as three arrays.
const POSTGRES_APPEND: &str = "INSERT INTO game_events (game, version, body) \
     SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[])";

/// The connection the writer commits on, held for as long as it works.
pub(crate) enum WriterConn {
    /// To SQLite.
    Sqlite(PoolConnection<Sqlite>),
    /// To PostgreSQL.
    Postgres(PoolConnection<Postgres>),
}

/// The statement inserting a run of appends (each a `WriteOp::Append`), bound to its rows.
trait AppendRun: sqlx::Database {
    fn append_run(
        appends: &[&WriteOp],
    ) -> sqlx::query::Query<'static, Self, Self::Arguments<'static>>;
}

impl AppendRun for Sqlite {
    fn append_run(
        appends: &[&WriteOp],
    ) -> sqlx::query::Query<'static, Sqlite, Self::Arguments<'static>> {
        let rows: Vec<(i64, i64, &str)> = appends
            .iter()
            .filter_map(|op| match op {
                WriteOp::Append {
                    game,
                    version,
                    body,
                    ..
                } => Some((*game, *version, body.as_str())),
                _ => None,
            })
            .collect();
        let json = serde_json::to_string(&rows).unwrap_or_default();
        sqlx::query(SQLITE_APPEND).bind(json)
    }
}

impl AppendRun for Postgres {
    fn append_run(
        appends: &[&WriteOp],
    ) -> sqlx::query::Query<'static, Postgres, Self::Arguments<'static>> {
        let (mut games, mut versions, mut bodies) = (Vec::new(), Vec::new(), Vec::new());
        for op in appends {
            if let WriteOp::Append {
                game,
                version,
                body,
                ..
            } = op
            {
                games.push(*game);
                versions.push(*version);
                bodies.push(body.clone());
            }
        }
        sqlx::query(POSTGRES_APPEND)
            .bind(games)
            .bind(versions)
            .bind(bodies)
    }
}

/// The query that reads (and locks) the shards `fences` name, with the fences to find in its
/// rows; `None` when no write is fenced. The shard numbers are ours, so they are written
/// into the query (one statement text for both databases, whatever their number).
fn fence_check(fences: &[Option<Fence>]) -> Option<(String, Vec<Fence>)> {
    let mut wanted: Vec<Fence> = fences.iter().flatten().copied().collect();
    if wanted.is_empty() {
        return None;
    }
    wanted.sort_by_key(|f| (f.shard, f.token));
    wanted.dedup();
    let mut shards: Vec<String> = wanted.iter().map(|f| f.shard.to_string()).collect();
    shards.dedup();
    Some((
        // FOR KEY SHARE, in shard order: a node taking one of these shards locks its row FOR
        // UPDATE, which waits for this commit; the lease renewal only updates the lease's end
        // (FOR NO KEY UPDATE), which never waits for game writes.
        format!(
            "SELECT shard, token FROM cluster_shards WHERE shard IN ({}) ORDER BY shard \
             FOR KEY SHARE",
            shards.join(", ")
        ),
        wanted,
    ))
}

/// The version of the first append of a run (a conflict on it is reported with it).
fn first_version(appends: &[&WriteOp]) -> Option<i64> {
    match appends.first() {
        Some(WriteOp::Append { version, .. }) => Some(*version),
        _ => None,
    }
}

/// Runs the same code with either connection (`$conn` is bound to it, `$db` to its database).
macro_rules! with_conn {
    ($writer:expr, $conn:ident, $db:ident => $body:expr) => {
        match $writer {
            WriterConn::Sqlite($conn) => {
                type $db = Sqlite;
                $body
            }
            WriterConn::Postgres($conn) => {
                type $db = Postgres;
                $body
            }
        }
    };
}

/// Executes one write other than an append in the transaction `$tx`, giving its row key (a
/// new game's) or 0.
macro_rules! execute_write {
    ($tx:expr, $op:expr) => {
        match $op {
            WriteOp::Create(g) => sqlx::query_scalar::<_, i64>(
                "INSERT INTO games (id, created_ms, updated_ms, secrets, setup, options, status) \
                 VALUES ($1, $2, $2, $3, $4, $5, $6) RETURNING seq",
            )
            .bind(g.id.as_bytes().as_slice())
            .bind(g.created_ms)
            .bind(g.secrets.as_slice())
            .bind(g.setup.as_str())
            .bind(g.options.as_str())
            .bind(g.status.as_str())
            .fetch_one(&mut *$tx)
            .await
            .map_err(|e| StoreError::from_db(e, None)),
            // Appends are written in runs (one statement) by `write_together`.
            WriteOp::Append { .. } => Err(StoreError::Database(
                "an append outside a run of appends".into(),
            )),
            WriteOp::Options {
                game,
                options,
                now_ms,
            } => sqlx::query("UPDATE games SET options = $1, updated_ms = $2 WHERE seq = $3")
                .bind(options.as_str())
                .bind(*now_ms)
                .bind(*game)
                .execute(&mut *$tx)
                .await
                .map(|_| 0)
                .map_err(|e| StoreError::from_db(e, None)),
            WriteOp::Stop {
                game,
                now_ms,
                webhook,
            } => {
                let stopped =
                    sqlx::query("UPDATE games SET live = 0, updated_ms = $1 WHERE seq = $2")
                        .bind(*now_ms)
                        .bind(*game)
                        .execute(&mut *$tx)
                        .await
                        .map(|_| 0)
                        .map_err(|e| StoreError::from_db(e, None));
                match (stopped, webhook) {
                    (Ok(_), Some(hook)) => sqlx::query(
                        "INSERT INTO webhook_outbox (key, url, body, attempts, next_ms, expires_ms) \
                         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key) DO NOTHING",
                    )
                    .bind(hook.key.as_str())
                    .bind(hook.url.as_str())
                    .bind(hook.body.as_str())
                    .bind(hook.attempts)
                    .bind(hook.next_ms)
                    .bind(hook.expires_ms)
                    .execute(&mut *$tx)
                    .await
                    .map(|_| 0)
                    .map_err(|e| StoreError::from_db(e, None)),
                    (stopped, _) => stopped,
                }
            }
            WriteOp::WebhookRetry {
                key,
                attempts,
                next_ms,
            } => sqlx::query("UPDATE webhook_outbox SET attempts = $1, next_ms = $2 WHERE key = $3")
                .bind(*attempts)
                .bind(*next_ms)
                .bind(key.as_str())
                .execute(&mut *$tx)
                .await
                .map(|_| 0)
                .map_err(|e| StoreError::from_db(e, None)),
            WriteOp::WebhookDone { key } => sqlx::query("DELETE FROM webhook_outbox WHERE key = $1")
                .bind(key.as_str())
                .execute(&mut *$tx)
                .await
                .map(|_| 0)
                .map_err(|e| StoreError::from_db(e, None)),
            WriteOp::Pack {
                game,
                through,
                packed,
                options_read,
            } => {
                let packed = sqlx::query(
                    "UPDATE games SET packed = $1, packed_through = $2, setup = '', \
                     options = CASE WHEN options = $3 THEN '' ELSE options END \
                     WHERE seq = $4 AND (packed IS NULL OR packed_through < $2)",
                )
                .bind(packed.as_slice())
                .bind(*through)
                .bind(options_read.as_str())
                .bind(*game)
                .execute(&mut *$tx)
                .await;
                match packed {
                    Err(e) => Err(StoreError::from_db(e, None)),
                    // The rows the record holds, whether this record or an earlier one
                    // that went as far.
                    Ok(_) => sqlx::query("DELETE FROM game_events WHERE game = $1 AND version <= $2")
                        .bind(*game)
                        .bind(*through)
                        .execute(&mut *$tx)
                        .await
                        .map(|_| 0)
                        .map_err(|e| StoreError::from_db(e, None)),
                }
            }
            WriteOp::Delete { game } => {
                let keys = sqlx::query("DELETE FROM game_keys WHERE game = $1")
                    .bind(*game)
                    .execute(&mut *$tx)
                    .await;
                let events = match keys {
                    Ok(_) => sqlx::query("DELETE FROM game_events WHERE game = $1")
                        .bind(*game)
                        .execute(&mut *$tx)
                        .await,
                    Err(e) => Err(e),
                };
                match events {
                    Err(e) => Err(StoreError::from_db(e, None)),
                    Ok(_) => sqlx::query("DELETE FROM games WHERE seq = $1")
                        .bind(*game)
                        .execute(&mut *$tx)
                        .await
                        .map(|_| 0)
                        .map_err(|e| StoreError::from_db(e, None)),
                }
            }
            WriteOp::Job(op) => execute_job_write!($tx, op),
            WriteOp::Players(row) => execute_players_write!($tx, row),
            WriteOp::Rate(op) => execute_rate!($tx, op),
            WriteOp::Key(row) => sqlx::query(
                "INSERT INTO game_keys (game, scope, key, fingerprint, status, body, at_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (game, scope, key) \
                 DO UPDATE SET status = excluded.status, body = excluded.body",
            )
            .bind(row.game)
            .bind(row.scope)
            .bind(row.key.as_str())
            .bind(row.fingerprint.as_slice())
            .bind(row.status)
            .bind(row.body.as_str())
            .bind(row.at_ms)
            .execute(&mut *$tx)
            .await
            .map(|_| 0)
            .map_err(|e| StoreError::from_db(e, None)),
            WriteOp::ForgetKey { game, scope, key } => {
                sqlx::query("DELETE FROM game_keys WHERE game = $1 AND scope = $2 AND key = $3")
                    .bind(*game)
                    .bind(*scope)
                    .bind(key.as_str())
                    .execute(&mut *$tx)
                    .await
                    .map(|_| 0)
                    .map_err(|e| StoreError::from_db(e, None))
            }
            WriteOp::Probe { now_ms } => sqlx::query("UPDATE store_probe SET at_ms = $1")
                .bind(*now_ms)
                .execute(&mut *$tx)
                .await
                .map(|_| 0)
                .map_err(|e| StoreError::from_db(e, None)),
            // Batches are taken apart by `write_together`.
            WriteOp::Batch(_) => Err(StoreError::Database(
                "a batch inside a batch".into(),
            )),
        }
    };
}

/// `ops` with every batch taken apart, each write with the index of the op it came from.
fn flatten(ops: &[WriteOp]) -> Vec<(usize, &WriteOp)> {
    let mut flat = Vec::with_capacity(ops.len());
    for (at, op) in ops.iter().enumerate() {
        match op {
            WriteOp::Batch(parts) => flat.extend(parts.iter().map(|part| (at, part))),
            op => flat.push((at, op)),
        }
    }
    flat
}

impl WriterConn {
    /// The writer's connection to `db`. With `synced_apart`, an SQLite connection commits
    /// without waiting for the disk (`synchronous = NORMAL`), because the writer syncs the
    /// write-ahead log itself before it acknowledges anything (see `sync_wal` in the store).
    pub(crate) async fn open(db: &Db, synced_apart: bool) -> Result<WriterConn, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        Ok(match db {
            Db::Sqlite(pool) => {
                let mut conn = pool.acquire().await.map_err(db_err)?;
                if synced_apart {
                    sqlx::query("PRAGMA synchronous = NORMAL")
                        .execute(&mut *conn)
                        .await
                        .map_err(db_err)?;
                }
                WriterConn::Sqlite(conn)
            }
            Db::Postgres(pool) => WriterConn::Postgres(pool.acquire().await.map_err(db_err)?),
        })
    }

    /// Writes `ops` together (group commit), each under its fence, and gives each its result.
    /// When that fails, each write is tried again alone, so that one bad write (a stale
    /// writer's version, a lost lease) fails alone.
    pub(crate) async fn write_batch(
        &mut self,
        ops: &[WriteOp],
        fences: &[Option<Fence>],
    ) -> Vec<Result<i64, StoreError>> {
        match self.write_together(ops, fences).await {
            Ok(keys) => keys.into_iter().map(Ok).collect(),
            Err(_) if ops.len() > 1 => {
                let mut results = Vec::with_capacity(ops.len());
                for (op, fence) in ops.iter().zip(fences) {
                    results.push(
                        self.write_together(std::slice::from_ref(op), std::slice::from_ref(fence))
                            .await
                            .map(|keys| keys[0]),
                    );
                }
                results
            }
            Err(e) => vec![Err(e)],
        }
    }

    async fn write_together(
        &mut self,
        ops: &[WriteOp],
        fences: &[Option<Fence>],
    ) -> Result<Vec<i64>, StoreError> {
        let only_moves = ops
            .iter()
            .all(|op| matches!(op, WriteOp::Append { status: None, .. }));
        let fence_check = fence_check(fences);
        let flat = flatten(ops);
        with_conn!(self, conn, DB => {
            if only_moves && fence_check.is_none() {
                // One statement is its own transaction.
                let appends: Vec<&WriteOp> = ops.iter().collect();
                DB::append_run(&appends)
                    .execute(&mut **conn)
                    .await
                    .map_err(|e| StoreError::from_db(e, first_version(&appends)))?;
                return Ok(vec![0; ops.len()]);
            }
            let mut tx = sqlx::Connection::begin(&mut **conn)
                .await
                .map_err(|e| StoreError::from_db(e, None))?;
            if let Some((query, wanted)) = &fence_check {
                // A node taking one of these shards (its row locked FOR UPDATE) waits for
                // this commit, so nothing is written under a token once it has changed.
                let held: Vec<(i32, i64)> = sqlx::query_as(query)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_db(e, None))?;
                if let Some(lost) = wanted.iter().find(|f| !held.contains(&(f.shard, f.token))) {
                    return Err(StoreError::Fenced { shard: lost.shard });
                }
            }
            let mut keys = vec![0; ops.len()];
            let mut rest = flat.as_slice();
            while !rest.is_empty() {
                let run = rest
                    .iter()
                    .take_while(|(_, op)| matches!(op, WriteOp::Append { .. }))
                    .count();
                if run > 0 {
                    let (run, tail) = rest.split_at(run);
                    let appends: Vec<&WriteOp> = run.iter().map(|(_, op)| *op).collect();
                    DB::append_run(&appends)
                        .execute(&mut *tx)
                        .await
                        .map_err(|e| StoreError::from_db(e, first_version(&appends)))?;
                    for op in appends {
                        if let WriteOp::Append { game, status: Some(status), now_ms, .. } = op {
                            sqlx::query(
                                "UPDATE games SET status = $1, updated_ms = $2 WHERE seq = $3",
                            )
                            .bind(status.as_str())
                            .bind(*now_ms)
                            .bind(*game)
                            .execute(&mut *tx)
                            .await
                            .map_err(|e| StoreError::from_db(e, None))?;
                        }
                    }
                    rest = tail;
                } else {
                    let (at, op) = rest[0];
                    let key = execute_write!(tx, op)?;
                    if key != 0 {
                        keys[at] = key;
                    }
                    rest = &rest[1..];
                }
            }
            tx.commit().await.map_err(|e| StoreError::from_db(e, None))?;
            Ok(keys)
        })
    }
}
