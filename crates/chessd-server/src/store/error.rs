//! The store's errors.

/// What went wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store URL is not one chessd knows.
    #[error("store.url: {0}")]
    Url(String),
    /// The database could not be opened or reached.
    #[error("cannot open the store: {0}")]
    Open(String),
    /// A migration failed.
    #[error("cannot migrate the store: {0}")]
    Migrate(String),
    /// A write lost to another writer of the same version (a stale writer): nothing was written.
    #[error("another writer already wrote version {version} of this game")]
    Conflict {
        /// The version both wrote.
        version: i64,
    },
    /// The writer no longer holds the lease of the game's shard (another node owns it now):
    /// nothing was written.
    #[error("this node no longer owns shard {shard}: the write was refused")]
    Fenced {
        /// The game's shard.
        shard: i32,
    },
    /// The database refused or failed a query.
    #[error("store: {0}")]
    Database(String),
    /// A stored row does not decode.
    #[error("a stored game does not decode: {0}")]
    Corrupt(String),
    /// The store's write queue is full (a write that may not wait was refused).
    #[error("the store's write queue is full")]
    Busy,
    /// The store's writer has stopped (server shutdown).
    #[error("the store is closed")]
    Closed,
}

/// What the trigger of `migrations/*/0012_packed_journals.sql` says of an entry written at a
/// version the game's packed record holds.
const PACKED_VERSION: &str = "this version is already packed";

impl StoreError {
    /// A database error, told apart from a version conflict.
    pub(crate) fn from_db(e: sqlx::Error, version: Option<i64>) -> StoreError {
        if let (Some(version), sqlx::Error::Database(db)) = (version, &e) {
            // A version already packed is refused by a trigger (SQLite cannot name its error
            // a unique violation; PostgreSQL's trigger does).
            if db.is_unique_violation() || db.message().contains(PACKED_VERSION) {
                return StoreError::Conflict { version };
            }
        }
        StoreError::Database(e.to_string())
    }
}
