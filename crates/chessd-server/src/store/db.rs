//! The two databases behind the store, SQLite and PostgreSQL, with the same tables and the same
//! SQL (each statement is written once and compiled for both).

use std::{str::FromStr, time::Duration};

use sqlx::{
    postgres::{PgConnectOptions, PgPool, PgPoolOptions},
    sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
    },
};
use uuid::Uuid;

pub use crate::config::SqliteSync;

use super::{
    GameOrder, GameSummary, KeyRow, OutboxRow, ResultFilter, StoreError, StoredEntry, StoredGame,
};

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// How long PostgreSQL lets one of our transactions sit idle between two statements before it
/// ends it (`idle_in_transaction_session_timeout`). Ours run their statements back to back, so
/// only a stalled node (`SIGSTOP`, a frozen machine) waits that long: its open write is then
/// rolled back (never acknowledged), and the locks it held, which a node taking its shards
/// waits for, are freed.
const STALLED_TRANSACTION: Duration = Duration::from_secs(10);

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

/// A row of `games` as the database has it (`live` as 0 or 1); its journal and keys are read
/// apart.
#[derive(sqlx::FromRow)]
struct GameRow {
    seq: i64,
    created_ms: i64,
    secrets: Vec<u8>,
    setup: String,
    options: String,
    live: i64,
    status: String,
    packed: Option<Vec<u8>>,
    packed_through: i64,
    /// Its players' listed rating; 0 when it was created without players.
    rating: i64,
}

impl GameRow {
    /// The stored game, with no journal or keys yet.
    fn into_game(self, id: Uuid) -> StoredGame {
        StoredGame {
            seq: self.seq,
            id,
            created_ms: self.created_ms,
            secrets: self.secrets,
            setup: self.setup,
            options: self.options,
            live: self.live != 0,
            result: self.status,
            packed: self.packed,
            packed_through: self.packed_through,
            has_players: self.rating > 0,
            entries: Vec::new(),
            keys: Vec::new(),
        }
    }
}

/// A game's row with its journal and kept keys as JSON arrays, as [`Db::load_games`] reads it.
#[derive(sqlx::FromRow)]
struct LoadedRow {
    #[sqlx(flatten)]
    game: GameRow,
    /// `[[version, body], …]` by version.
    events: String,
    /// `[[scope, key, fingerprint in hex, status, body, at_ms], …]`, oldest first.
    keys: String,
}

impl LoadedRow {
    /// The stored game `id` this row holds, its journal and keys read from their JSON.
    fn into_game(self, id: Uuid) -> Result<StoredGame, StoreError> {
        let LoadedRow { game, events, keys } = self;
        let corrupt = |what: &str, e: &dyn std::fmt::Display| {
            StoreError::Corrupt(format!("game {id}: {what}: {e}"))
        };
        let events: Vec<(i64, String)> =
            serde_json::from_str(&events).map_err(|e| corrupt("journal", &e))?;
        let keys: Vec<(i64, String, String, i64, String, i64)> =
            serde_json::from_str(&keys).map_err(|e| corrupt("keys", &e))?;
        let seq = game.seq;
        let keys = keys
            .into_iter()
            .map(|(scope, key, fingerprint, status, body, at_ms)| {
                Ok(KeyRow {
                    game: seq,
                    scope,
                    key,
                    fingerprint: hex::decode(&fingerprint).map_err(|e| corrupt("key", &e))?,
                    status,
                    body,
                    at_ms,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let mut game = StoredGame {
            entries: events
                .into_iter()
                .map(|(version, body)| StoredEntry { version, body })
                .collect(),
            keys,
            ..game.into_game(id)
        };
        keep_after_record(&mut game);
        Ok(game)
    }
}

/// Games, each with its journal and kept keys, in one statement (SQLite): their ids as a JSON
/// array of hex strings.
const SQLITE_LOAD_GAMES: &str = "SELECT g.id, g.seq, g.created_ms, g.secrets, g.setup, g.options, \
     g.live, g.status, g.packed, g.packed_through, g.rating, \
     (SELECT json_group_array(json_array(version, body)) FROM \
        (SELECT version, body FROM game_events WHERE game = g.seq ORDER BY version)) AS events, \
     (SELECT json_group_array(json_array(scope, key, hex(fingerprint), status, body, at_ms)) FROM \
        (SELECT * FROM game_keys WHERE game = g.seq ORDER BY at_ms, key)) AS keys \
     FROM games g WHERE g.id IN (SELECT unhex(value) FROM json_each($1))";

/// [`SQLITE_LOAD_GAMES`] for PostgreSQL: the ids as an array.
const POSTGRES_LOAD_GAMES: &str =
    "SELECT g.id, g.seq, g.created_ms, g.secrets, g.setup, g.options, \
     g.live, g.status, g.packed, g.packed_through, g.rating, \
     COALESCE((SELECT json_agg(json_build_array(version, body) ORDER BY version) \
        FROM game_events WHERE game = g.seq), '[]')::TEXT AS events, \
     COALESCE((SELECT json_agg(json_build_array(scope, key, encode(fingerprint, 'hex'), status, \
        body, at_ms) ORDER BY at_ms, key) FROM game_keys WHERE game = g.seq), '[]')::TEXT AS keys \
     FROM games g WHERE g.id = ANY($1)";

/// A [`LoadedRow`] with its id (bytes), as [`Db::load_games`] reads it.
#[derive(sqlx::FromRow)]
struct LoadedIdRow {
    id: Vec<u8>,
    #[sqlx(flatten)]
    loaded: LoadedRow,
}

/// A [`GameRow`] with its id (bytes), as a page of games reads it.
#[derive(sqlx::FromRow)]
struct PagedGameRow {
    id: Vec<u8>,
    #[sqlx(flatten)]
    game: GameRow,
}

/// A journal entry with its game's row key, as a page of games reads them.
#[derive(sqlx::FromRow)]
struct EventRow {
    game: i64,
    #[sqlx(flatten)]
    entry: StoredEntry,
}

/// A game in a list as the database has it.
#[derive(sqlx::FromRow)]
struct SummaryRow {
    seq: i64,
    id: Vec<u8>,
    status: String,
    live: i64,
    created_ms: i64,
    updated_ms: i64,
    rating: i64,
}

impl TryFrom<SummaryRow> for GameSummary {
    type Error = StoreError;

    fn try_from(row: SummaryRow) -> Result<GameSummary, StoreError> {
        Ok(GameSummary {
            seq: row.seq,
            id: uuid_from(&row.id)?,
            result: row.status,
            live: row.live != 0,
            created_ms: row.created_ms,
            updated_ms: row.updated_ms,
            rating: row.rating,
        })
    }
}

/// Drops the journal rows a game's packed record holds (read before a packing that committed
/// before the game's row was read): the record has them.
fn keep_after_record(game: &mut StoredGame) {
    let through = game.packed_through;
    game.entries.retain(|e| e.version > through);
}

/// An id as stored (16 bytes).
fn uuid_from(bytes: &[u8]) -> Result<Uuid, StoreError> {
    Uuid::from_slice(bytes).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Where a page of game summaries starts, as one index range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PageBound {
    /// Newest first, below this row key.
    Seq(i64),
    /// Highest rated first, among the games of this rating, below this row key.
    SameRating {
        /// The rating.
        rating: i64,
        /// The row key.
        seq: i64,
    },
    /// Highest rated first, below this rating.
    BelowRating(i64),
}

impl PageBound {
    /// The ranges a page in `order` after the key `before` ([`GameSummary::key`]) reads, in
    /// turn until the page is full. A rating order's page is two ranges (the rest of its
    /// rating, then the ratings below): SQLite seeks a row value `(rating, seq) < (?, ?)` by its
    /// first column only, which walks every game of the cursor's rating (every game without
    /// players shares rating 0).
    fn of(order: GameOrder, before: Option<i64>) -> Vec<PageBound> {
        match (order, before) {
            (GameOrder::Newest, before) => vec![PageBound::Seq(before.unwrap_or(i64::MAX))],
            (GameOrder::Rating, None) => vec![PageBound::BelowRating(i64::MAX)],
            (GameOrder::Rating, Some(key)) => {
                let (rating, seq) = super::split_rating_key(key);
                vec![
                    PageBound::SameRating { rating, seq },
                    PageBound::BelowRating(rating),
                ]
            }
        }
    }
}

/// The query for a page of game summaries: games under `filter` in `bound`'s range and order.
/// Every filter in either order is one index range walked in order, so a page never scans nor
/// sorts (see the test).
fn summary_page<'a, DB>(
    filter: ResultFilter,
    bound: PageBound,
    limit: i64,
) -> sqlx::QueryBuilder<'a, DB>
where
    DB: sqlx::Database,
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    let mut query = sqlx::QueryBuilder::new(
        "SELECT seq, id, status, live, created_ms, updated_ms, rating FROM games WHERE ",
    );
    match bound {
        PageBound::Seq(seq) => {
            query.push("seq < ").push_bind(seq);
        }
        PageBound::SameRating { rating, seq } => {
            query
                .push("rating = ")
                .push_bind(rating)
                .push(" AND seq < ")
                .push_bind(seq);
        }
        PageBound::BelowRating(rating) => {
            query.push("rating < ").push_bind(rating);
        }
    }
    push_filter(&mut query, filter);
    query.push(match bound {
        PageBound::Seq(_) => " ORDER BY seq DESC LIMIT ",
        _ => " ORDER BY rating DESC, seq DESC LIMIT ",
    });
    query.push_bind(limit);
    query
}

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
                .max_connections(16)
                // An embedded database has no connection to lose: pinging it before each use
                // only adds a round trip to its worker thread.
                .test_before_acquire(false)
                .connect_with(options)
                .await
                .map_err(|e| StoreError::Open(format!("{path}: {e}")))?;
            SQLITE_MIGRATIONS
                .run(&pool)
                .await
                .map_err(|e| StoreError::Migrate(e.to_string()))?;
            Db::Sqlite(pool)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let options = PgConnectOptions::from_str(url)
                .map_err(|e| StoreError::Open(e.to_string()))?
                .options([(
                    "idle_in_transaction_session_timeout",
                    STALLED_TRANSACTION.as_millis(),
                )]);
            // A request waits at most 750 ms for a connection: during an outage it is
            // answered `store_unavailable` within a second rather than after a long wait.
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_millis(750))
                .connect_with(options)
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

    /// Stored games with their journals and kept keys, in one statement: each game found with
    /// its id (absent ones are left out), in no particular order. One statement is one
    /// snapshot, so a packing that deletes a game's rows is seen whole or not at all.
    pub(crate) async fn load_games(
        &self,
        ids: &[Uuid],
    ) -> Result<Vec<(Uuid, Result<StoredGame, StoreError>)>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        let rows: Vec<LoadedIdRow> = match self {
            Db::Sqlite(pool) => {
                let hex: Vec<String> = ids.iter().map(|id| id.simple().to_string()).collect();
                sqlx::query_as(SQLITE_LOAD_GAMES)
                    .bind(serde_json::to_string(&hex).unwrap_or_default())
                    .fetch_all(pool)
                    .await
                    .map_err(db_err)?
            }
            Db::Postgres(pool) => {
                let bytes: Vec<Vec<u8>> = ids.iter().map(|id| id.as_bytes().to_vec()).collect();
                sqlx::query_as(POSTGRES_LOAD_GAMES)
                    .bind(bytes)
                    .fetch_all(pool)
                    .await
                    .map_err(db_err)?
            }
        };
        rows.into_iter()
            .map(|row| {
                let id = uuid_from(&row.id)?;
                Ok((id, row.loaded.into_game(id)))
            })
            .collect()
    }

    /// A page of stored games with their journals, newest first (see
    /// [`super::Store::games_page`]): three queries whatever the page's size, the page's keys,
    /// all their journal entries, then the games' rows (after the entries, as
    /// [`Db::load_games`] reads them).
    pub(crate) async fn games_page(
        &self,
        filter: ResultFilter,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<StoredGame>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        with_pool!(self, pool => {
            let mut query = sqlx::QueryBuilder::new("SELECT seq FROM games WHERE seq < ");
            query.push_bind(before.unwrap_or(i64::MAX));
            push_filter(&mut query, filter);
            query.push(" ORDER BY seq DESC LIMIT ").push_bind(limit);
            let keys: Vec<i64> = query
                .build_query_scalar()
                .fetch_all(pool)
                .await
                .map_err(db_err)?;
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let in_page = |sql: &str| {
                let mut q = sqlx::QueryBuilder::new(sql);
                let mut list = q.separated(", ");
                for seq in &keys {
                    list.push_bind(*seq);
                }
                q.push(")");
                q
            };
            let mut events = in_page("SELECT game, version, body FROM game_events WHERE game IN (");
            events.push(" ORDER BY game DESC, version");
            let rows = events
                .build_query_as::<EventRow>()
                .fetch_all(pool)
                .await
                .map_err(db_err)?;
            let mut games = in_page(
                "SELECT seq, id, created_ms, secrets, setup, options, live, status, packed, \
                 packed_through, rating FROM games WHERE seq IN (",
            );
            games.push(" ORDER BY seq DESC");
            let mut games = games
                .build_query_as::<PagedGameRow>()
                .fetch_all(pool)
                .await
                .map_err(db_err)?
                .into_iter()
                .map(|row| Ok(row.game.into_game(uuid_from(&row.id)?)))
                .collect::<Result<Vec<_>, StoreError>>()?;
            // Both lists are by game key, descending: one walk hands each game its entries.
            let mut at = 0;
            for EventRow { game, entry } in rows {
                while games.get(at).is_some_and(|g| g.seq > game) {
                    at += 1;
                }
                // A game deleted since its entries were read has no row: they go with it.
                if let Some(owner) = games.get_mut(at).filter(|g| g.seq == game) {
                    owner.entries.push(entry);
                }
            }
            for game in &mut games {
                keep_after_record(game);
            }
            Ok(games)
        })
    }

    /// Games to pack (see [`super::Store::games_to_pack`]), read through `games_to_pack`.
    pub(crate) async fn games_to_pack(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(i64, Uuid)>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        with_pool!(self, pool => {
            let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as(
                "SELECT seq, id FROM games WHERE seq > $1 AND packed IS NULL \
                 AND (status <> 'ongoing' OR live = 0) ORDER BY seq LIMIT $2",
            )
            .bind(after)
            .bind(limit)
            .fetch_all(pool)
            .await
            .map_err(db_err)?;
            rows.into_iter()
                .map(|(seq, id)| Ok((seq, uuid_from(&id)?)))
                .collect()
        })
    }

    /// Stored games, newest first (see [`super::Store::list_games`]).
    pub(crate) async fn list_games(
        &self,
        filter: ResultFilter,
        order: GameOrder,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<GameSummary>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        let mut rows = Vec::new();
        for bound in PageBound::of(order, before) {
            let left = limit - i64::try_from(rows.len()).unwrap_or(i64::MAX);
            if left <= 0 {
                break;
            }
            let part: Vec<SummaryRow> = with_pool!(self, pool => {
                summary_page(filter, bound, left)
                    .build_query_as::<SummaryRow>()
                    .fetch_all(pool)
                    .await
                    .map_err(db_err)?
            });
            rows.extend(part);
        }
        rows.into_iter().map(GameSummary::try_from).collect()
    }

    /// Every webhook in the outbox, soonest first.
    pub(crate) async fn pending_webhooks(&self) -> Result<Vec<OutboxRow>, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        with_pool!(self, pool => {
            sqlx::query_as(
                "SELECT key, url, body, attempts, next_ms, expires_ms FROM webhook_outbox \
                 ORDER BY next_ms",
            )
            .fetch_all(pool)
            .await
            .map_err(db_err)
        })
    }

    /// Bytes the database holds (SQLite: the file's pages; PostgreSQL: the games' and jobs'
    /// tables).
    pub(crate) async fn size_bytes(&self) -> Result<i64, StoreError> {
        let db_err = |e| StoreError::from_db(e, None);
        match self {
            Db::Sqlite(pool) => {
                // Pages in use: the file keeps the pages deleted rows freed, for reuse.
                let pages: i64 = sqlx::query_scalar(
                    "SELECT (SELECT page_count FROM pragma_page_count()) \
                     - (SELECT freelist_count FROM pragma_freelist_count())",
                )
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every page the list and export routes ask for walks an index in key order: the plan
    /// SQLite makes for each filter names an index and never a plain walk of the table.
    #[actix_web::test]
    async fn every_list_filter_is_served_by_an_index() {
        let dir = std::env::temp_dir().join(format!("chessd-plan-{}", std::process::id()));
        let path = dir.join("games.db");
        let db = Db::open(&format!("sqlite://{}", path.display()), SqliteSync::Normal)
            .await
            .unwrap();
        let Db::Sqlite(pool) = &db else {
            unreachable!("opened a SQLite file")
        };
        let filters = [
            (ResultFilter::Ongoing, GameOrder::Newest, "games_by_status"),
            (ResultFilter::Finished, GameOrder::Newest, "games_finished"),
            (
                ResultFilter::Result("draw"),
                GameOrder::Newest,
                "games_by_status",
            ),
            (
                ResultFilter::Result("white_wins"),
                GameOrder::Newest,
                "games_by_status",
            ),
            (ResultFilter::All, GameOrder::Rating, "games_by_rating"),
            (
                ResultFilter::Ongoing,
                GameOrder::Rating,
                "games_by_status_rating",
            ),
            (
                ResultFilter::Finished,
                GameOrder::Rating,
                "games_finished_by_rating",
            ),
            (
                ResultFilter::Result("draw"),
                GameOrder::Rating,
                "games_by_status_rating",
            ),
        ];
        let before = Some(super::super::rating_key(1_600, 1_000));
        for (filter, order, index) in filters {
            for bound in PageBound::of(order, None)
                .into_iter()
                .chain(PageBound::of(order, before))
            {
                let query = summary_page::<sqlx::Sqlite>(filter, bound, 50);
                let sql = format!("EXPLAIN QUERY PLAN {}", query.sql());
                let mut explain = sqlx::query_as::<_, (i64, i64, i64, String)>(&sql);
                // The index range each bound must seek (not walk from the top).
                let range = match bound {
                    PageBound::Seq(seq) => {
                        explain = explain.bind(seq);
                        "seq<?"
                    }
                    PageBound::SameRating { rating, seq } => {
                        explain = explain.bind(rating).bind(seq);
                        "rating=? AND seq<?"
                    }
                    PageBound::BelowRating(rating) => {
                        explain = explain.bind(rating);
                        "rating<?"
                    }
                };
                if let ResultFilter::Result(result) = filter {
                    explain = explain.bind(result);
                }
                let plan = explain.bind(50_i64).fetch_all(pool).await.unwrap();
                let details: Vec<&str> = plan.iter().map(|row| row.3.as_str()).collect();
                assert!(
                    details
                        .iter()
                        .any(|d| d.contains(&format!("INDEX {index} (")) && d.contains(range)),
                    "{filter:?} {bound:?}: {details:?}"
                );
                assert!(
                    !details.iter().any(|d| d.contains("USE TEMP B-TREE")),
                    "{filter:?} {bound:?} sorts: {details:?}"
                );
            }
        }
        drop(db);
        let _ = std::fs::remove_dir_all(dir);
    }
}
