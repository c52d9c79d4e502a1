//! The two databases behind the store, SQLite and PostgreSQL, with the same tables and the same
//! SQL (each statement is written once and compiled for both).

use std::{str::FromStr, time::Duration};

use sqlx::{
    postgres::{PgPool, PgPoolOptions},
    sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
    },
    Row,
};
use uuid::Uuid;

pub use crate::config::SqliteSync;

use super::{GameSummary, KeyRow, OutboxRow, ResultFilter, StoreError, StoredEntry, StoredGame};

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// An open database.
#[derive(Clone, Debug)]
pub(crate) enum Db {
    /// An SQLite file (WAL).
    Sqlite(SqlitePool),
    /// A PostgreSQL server.
    Postgres(PgPool),
}

/// Runs the same code with either pool (`$pool` is bound to it).
macro_rules! with_pool {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            Db::Sqlite($pool) => $body,
            Db::Postgres($pool) => $body,
        }
    };
}
pub(crate) use with_pool;

/// Adds `filter`'s condition on the games' status to a query whose `WHERE` is open.
fn push_filter<'a, DB>(query: &mut sqlx::QueryBuilder<'a, DB>, filter: ResultFilter)
where
    DB: sqlx::Database,
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    match filter {
        ResultFilter::All => {}
        ResultFilter::Ongoing => {
            query.push(" AND status = 'ongoing'");
        }
        ResultFilter::Finished => {
            query.push(" AND status <> 'ongoing'");
        }
        ResultFilter::Result(result) => {
            query.push(" AND status = ").push_bind(result);
        }
    }
}

/// Makes the SQLite file at `path` (the part before any `?`) readable and writable by this
/// user only, creating it empty if need be: games hold seat secrets' digests and webhooks. SQLite
/// gives its `-wal` and `-shm` files the database file's permissions.
fn owner_only(path: &str) -> Result<(), StoreError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let file = path.split('?').next().unwrap_or(path);
    if file.is_empty() || file == ":memory:" {
        return Ok(());
    }
    let opened = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(file)
        .and_then(|f| f.set_permissions(std::fs::Permissions::from_mode(0o600)));
    opened.map_err(|e| StoreError::Open(format!("{file}: {e}")))?;
    for companion in ["-wal", "-shm"] {
        let companion = format!("{file}{companion}");
        if std::path::Path::new(&companion).exists() {
            std::fs::set_permissions(&companion, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| StoreError::Open(format!("{companion}: {e}")))?;
        }
    }
    Ok(())
}

impl Db {
    /// Opens `url` (`sqlite://PATH` or `postgres://…`) and applies the migrations.
    pub(crate) async fn open(url: &str, sync: SqliteSync) -> Result<Db, StoreError> {
        let db = if let Some(path) = url.strip_prefix("sqlite://") {
            if path.is_empty() {
                return Err(StoreError::Url("sqlite:// needs a file path".into()));
            }
            if let Some(dir) = std::path::Path::new(path).parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir).map_err(|e| {
                        StoreError::Open(format!("cannot create {}: {e}", dir.display()))
                    })?;
                }
            }
            owner_only(path)?;
            let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))
                .map_err(|e| StoreError::Url(e.to_string()))?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(match sync {
                    SqliteSync::Full => SqliteSynchronous::Full,
                    SqliteSync::Normal => SqliteSynchronous::Normal,
                })
                .busy_timeout(Duration::from_secs(10));
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .connect_with(options)
                .await
                .map_err(|e| StoreError::Open(format!("{path}: {e}")))?;
            SQLITE_MIGRATIONS
                .run(&pool)
                .await
                .map_err(|e| StoreError::Migrate(e.to_string()))?;
            Db::Sqlite(pool)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            // A request waits at most 750 ms for a connection: during an outage it is
            // answered `store_unavailable` within a second rather than after a long wait.
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_millis(750))
                .connect(url)
                .await
                .map_err(|e| StoreError::Open(e.to_string()))?;
            POSTGRES_MIGRATIONS
                .run(&pool)
                .await
                .map_err(|e| StoreError::Migrate(e.to_string()))?;
            Db::Postgres(pool)
        } else {
            return Err(StoreError::Url(format!(
                "'{url}' is neither sqlite://PATH nor postgres://…"
            )));
        };
        Ok(db)
    }

    /// The SQLite file's write-ahead log (`None` for PostgreSQL).
    pub(crate) fn wal_path(&self) -> Option<std::path::PathBuf> {
        match self {
            Db::Sqlite(pool) => {
                let mut wal = pool.connect_options().get_filename().as_os_str().to_owned();
                wal.push("-wal");
                Some(wal.into())
            }
            Db::Postgres(_) => None,
        }
    }

    /// A stored game with its journal, or `None`.
    pub(crate) async fn load_game(&self, id: &Uuid) -> Result<Option<StoredGame>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        with_pool!(self, pool => {
            let Some(row) = sqlx::query(
                "SELECT seq, created_ms, secrets, setup, options, live, status FROM games WHERE id = $1",
            )
            .bind(id.as_bytes().as_slice())
            .fetch_optional(pool)
            .await
            .map_err(db_err)?
            else {
                return Ok(None);
            };
            let seq: i64 = row.try_get("seq").map_err(db_err)?;
            let entries = sqlx::query(
                "SELECT version, body FROM game_events WHERE game = $1 ORDER BY version",
            )
            .bind(seq)
            .fetch_all(pool)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(|r| {
                Ok(StoredEntry {
                    version: r.try_get("version")?,
                    body: r.try_get("body")?,
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()
            .map_err(db_err)?;
            let keys: Vec<KeyRow> = sqlx::query_as(
                "SELECT game, scope, key, fingerprint, status, body, at_ms FROM game_keys \
                 WHERE game = $1 ORDER BY at_ms, key",
            )
            .bind(seq)
            .fetch_all(pool)
            .await
            .map_err(db_err)?;
            Ok(Some(StoredGame {
                seq,
                id: *id,
                created_ms: row.try_get("created_ms").map_err(db_err)?,
                secrets: row.try_get("secrets").map_err(db_err)?,
                setup: row.try_get("setup").map_err(db_err)?,
                options: row.try_get("options").map_err(db_err)?,
                live: row.try_get::<i64, _>("live").map_err(db_err)? != 0,
                result: row.try_get("status").map_err(db_err)?,
                entries,
                keys,
            }))
        })
    }

    /// A page of stored games with their journals, newest first (see
    /// [`super::Store::games_page`]): two queries whatever the page's size, one for the games
    /// and one for all their journal entries.
    pub(crate) async fn games_page(
        &self,
        filter: ResultFilter,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<StoredGame>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        with_pool!(self, pool => {
            let mut query = sqlx::QueryBuilder::new(
                "SELECT seq, id, created_ms, secrets, setup, options, live, status FROM games \
                 WHERE seq < ",
            );
            query.push_bind(before.unwrap_or(i64::MAX));
            push_filter(&mut query, filter);
            query.push(" ORDER BY seq DESC LIMIT ").push_bind(limit);
            let mut games = query
                .build()
                .fetch_all(pool)
                .await
                .map_err(db_err)?
                .into_iter()
                .map(|row| {
                    let id: Vec<u8> = row.try_get("id").map_err(db_err)?;
                    Ok(StoredGame {
                        seq: row.try_get("seq").map_err(db_err)?,
                        id: Uuid::from_slice(&id)
                            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                        created_ms: row.try_get("created_ms").map_err(db_err)?,
                        secrets: row.try_get("secrets").map_err(db_err)?,
                        setup: row.try_get("setup").map_err(db_err)?,
                        options: row.try_get("options").map_err(db_err)?,
                        live: row.try_get::<i64, _>("live").map_err(db_err)? != 0,
                        result: row.try_get("status").map_err(db_err)?,
                        entries: Vec::new(),
                        keys: Vec::new(),
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            if games.is_empty() {
                return Ok(games);
            }
            let mut events = sqlx::QueryBuilder::new(
                "SELECT game, version, body FROM game_events WHERE game IN (",
            );
            let mut keys = events.separated(", ");
            for game in &games {
                keys.push_bind(game.seq);
            }
            events.push(") ORDER BY game DESC, version");
            // Both lists are by game key, descending: one walk hands each game its entries.
            let mut at = 0;
            for row in events.build().fetch_all(pool).await.map_err(db_err)? {
                let game: i64 = row.try_get("game").map_err(db_err)?;
                while games.get(at).is_some_and(|g| g.seq > game) {
                    at += 1;
                }
                let Some(owner) = games.get_mut(at).filter(|g| g.seq == game) else {
                    return Err(StoreError::Corrupt(format!(
                        "journal entries of game {game} out of order"
                    )));
                };
                owner.entries.push(StoredEntry {
                    version: row.try_get("version").map_err(db_err)?,
                    body: row.try_get("body").map_err(db_err)?,
                });
            }
            Ok(games)
        })
    }

    /// Stored games, newest first (see [`super::Store::list_games`]).
    pub(crate) async fn list_games(
        &self,
        filter: ResultFilter,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<GameSummary>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        with_pool!(self, pool => {
            let mut query = sqlx::QueryBuilder::new(
                "SELECT seq, id, status, live, created_ms, updated_ms FROM games WHERE seq < ",
            );
            query.push_bind(before.unwrap_or(i64::MAX));
            push_filter(&mut query, filter);
            query.push(" ORDER BY seq DESC LIMIT ").push_bind(limit);
            query
                .build()
                .fetch_all(pool)
                .await
                .map_err(db_err)?
                .into_iter()
                .map(|row| {
                    let id: Vec<u8> = row.try_get("id").map_err(db_err)?;
                    Ok(GameSummary {
                        seq: row.try_get("seq").map_err(db_err)?,
                        id: Uuid::from_slice(&id)
                            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                        result: row.try_get("status").map_err(db_err)?,
                        live: row.try_get::<i64, _>("live").map_err(db_err)? != 0,
                        created_ms: row.try_get("created_ms").map_err(db_err)?,
                        updated_ms: row.try_get("updated_ms").map_err(db_err)?,
                    })
                })
                .collect()
        })
    }

    /// Every webhook in the outbox, soonest first.
    pub(crate) async fn pending_webhooks(&self) -> Result<Vec<OutboxRow>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        with_pool!(self, pool => {
            sqlx::query(
                "SELECT key, url, body, attempts, next_ms, expires_ms FROM webhook_outbox \
                 ORDER BY next_ms",
            )
            .fetch_all(pool)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(|row| {
                Ok(OutboxRow {
                    key: row.try_get("key")?,
                    url: row.try_get("url")?,
                    body: row.try_get("body")?,
                    attempts: row.try_get("attempts")?,
                    next_ms: row.try_get("next_ms")?,
                    expires_ms: row.try_get("expires_ms")?,
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()
            .map_err(db_err)
        })
    }

    /// Bytes the database holds (SQLite: the file's pages; PostgreSQL: the games' and jobs'
    /// tables).
    pub(crate) async fn size_bytes(&self) -> Result<i64, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        match self {
            Db::Sqlite(pool) => {
                let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
                    .fetch_one(pool)
                    .await
                    .map_err(db_err)?;
                let size: i64 = sqlx::query_scalar("PRAGMA page_size")
                    .fetch_one(pool)
                    .await
                    .map_err(db_err)?;
                Ok(pages * size)
            }
            Db::Postgres(pool) => sqlx::query_scalar(
                "SELECT (pg_total_relation_size('games') + pg_total_relation_size('game_events') \
                 + pg_total_relation_size('jobs') + pg_total_relation_size('job_tasks'))::BIGINT",
            )
            .fetch_one(pool)
            .await
            .map_err(db_err),
        }
    }

    /// Closes the pool.
    pub(crate) async fn close(&self) {
        with_pool!(self, pool => pool.close().await)
    }
}
