//! The durable store: every game (how it was created, its options, its journal of versioned
//! events) and every perft and puzzle job (its request, its finished tasks, its result; see
//! `jobs`) in a real database, SQLite by default or PostgreSQL, chosen by `store.url`.
//!
//! Writes go through one writer task that commits whatever is waiting in one transaction
//! (group commit): a game's write is acknowledged once it is committed, and many games share a
//! commit. Reads go to the database directly. `store.url = "memory"` keeps nothing (for
//! measuring the store's cost beside it).

pub(crate) mod cluster;
mod db;
mod error;
pub(crate) mod jobs;
mod jobs_db;
mod load;
pub mod pairing;
pub mod perft_tasks;
pub mod players;
pub mod seeks;
mod write;

use std::sync::{
    atomic::{AtomicI64, Ordering},
    Arc,
};

use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

pub use db::SqliteSync;
pub use error::StoreError;
pub use jobs::{Committed, JobWrite, NewJobRow, StoredJob, StoredTask};

use db::Db;
use write::WriterConn;

/// A game to insert.
#[derive(Clone, Debug)]
pub struct NewGameRow {
    /// Its id.
    pub id: Uuid,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// The white, black and admin secrets' digests, concatenated (48 bytes; 96 in stores
    /// written before issue 29).
    pub secrets: Vec<u8>,
    /// JSON: the game as created.
    pub setup: String,
    /// JSON: its options.
    pub options: String,
    /// Its status (`ongoing`, …).
    pub status: String,
}

/// One write.
#[derive(Clone, Debug)]
pub enum WriteOp {
    /// Inserts a game; gives its row key.
    Create(NewGameRow),
    /// Appends a journal entry under `version` (fails on a version already written).
    Append {
        /// The game's row key.
        game: i64,
        /// The entry's version.
        version: i64,
        /// JSON: the entry.
        body: String,
        /// The game's new status, when it changed.
        status: Option<String>,
        /// Now (Unix ms).
        now_ms: i64,
    },
    /// Replaces a game's options.
    Options {
        /// The game's row key.
        game: i64,
        /// JSON: the options.
        options: String,
        /// Now (Unix ms).
        now_ms: i64,
    },
    /// Marks a game stopped: it is kept, but no longer played. Its terminate webhook, if it
    /// has one, enters the outbox in the same transaction.
    Stop {
        /// The game's row key.
        game: i64,
        /// Now (Unix ms).
        now_ms: i64,
        /// The game's terminate webhook.
        webhook: Option<OutboxRow>,
    },
    /// Records a failed delivery of an outbox webhook: its attempts and when to try again.
    WebhookRetry {
        /// The webhook's idempotency key.
        key: String,
        /// Attempts made so far.
        attempts: i64,
        /// When to try again (Unix ms).
        next_ms: i64,
    },
    /// Takes a webhook out of the outbox (delivered or expired).
    WebhookDone {
        /// The webhook's idempotency key.
        key: String,
    },
    /// Replaces a game's journal up to `through` (its setup, its options when they are the
    /// ones read, its entries up to that version) by its packed record. Nothing is written when
    /// the game already has a record that far; the rows the record holds are deleted.
    Pack {
        /// The game's row key.
        game: i64,
        /// The last version the record holds.
        through: i64,
        /// The record.
        packed: Vec<u8>,
        /// The options the record was made with (as read): the stored options are emptied
        /// only if they are still these.
        options_read: String,
    },
    /// Deletes a game and its journal.
    Delete {
        /// The game's row key.
        game: i64,
    },
    /// A write of a perft or puzzle job.
    Job(JobWrite),
    /// Keeps the answer to a request sent with an idempotency key.
    Key(KeyRow),
    /// Forgets a kept key (its caller has newer ones).
    ForgetKey {
        /// The game's row key.
        game: i64,
        /// Whose key.
        scope: i64,
        /// The key.
        key: String,
    },
    /// Records who plays a game created with players (with the game's `Create`).
    Players(players::GamePlayersRow),
    /// Applies a rated game's ratings (with the append that records its end).
    Rate(players::RateOp),
    /// Writes that are committed together or not at all (a request's changes and its key).
    Batch(Vec<WriteOp>),
    /// Writes nothing of use: tells whether the store takes writes now (`/health`).
    Probe {
        /// Now (Unix ms).
        now_ms: i64,
    },
}

/// The answer to a keyed request, as stored.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct KeyRow {
    /// The game's row key.
    pub game: i64,
    /// Whose key: 0 white, 1 black, 2 the admin.
    pub scope: i64,
    /// The key.
    pub key: String,
    /// A digest of the request it was sent with.
    pub fingerprint: Vec<u8>,
    /// The answer's status.
    pub status: i64,
    /// The answer's body.
    pub body: String,
    /// When it was kept (Unix ms).
    pub at_ms: i64,
}

/// A webhook in the outbox.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct OutboxRow {
    /// Its idempotency key, unique.
    pub key: String,
    /// Where it is POSTed.
    pub url: String,
    /// JSON: what is POSTed.
    pub body: String,
    /// Attempts made so far.
    pub attempts: i64,
    /// When to try next (Unix ms).
    pub next_ms: i64,
    /// When it is dropped undelivered (Unix ms).
    pub expires_ms: i64,
}

/// A journal entry as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct StoredEntry {
    /// Its version.
    pub version: i64,
    /// JSON: the entry.
    pub body: String,
}

/// A game as stored.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// Its row key.
    pub seq: i64,
    /// Its id.
    pub id: Uuid,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// SHA-256 of the white, black and admin secrets.
    pub secrets: Vec<u8>,
    /// JSON: the game as created (empty once in the packed record).
    pub setup: String,
    /// JSON: its options (empty when the packed record holds them).
    pub options: String,
    /// Whether it is still played (not stopped).
    pub live: bool,
    /// `ongoing`, `white_wins`, `black_wins` or `draw`.
    pub result: String,
    /// Its journal packed (setup, options, entries up to `packed_through`), once packed.
    pub packed: Option<Vec<u8>>,
    /// The last version the packed record holds (0: none).
    pub packed_through: i64,
    /// Whether it was created with players (its listed rating is above 0): only then has it
    /// a row in `game_players`, written in the same transaction as that rating.
    pub has_players: bool,
    /// Its journal after `packed_through`, by version.
    pub entries: Vec<StoredEntry>,
    /// Its kept idempotency keys, oldest first.
    pub keys: Vec<KeyRow>,
}

/// Which stored games to list, by result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultFilter {
    /// Every game.
    All,
    /// Games not finished.
    Ongoing,
    /// Finished games, whatever the result.
    Finished,
    /// Games with this result (`white_wins`, `black_wins` or `draw`).
    Result(&'static str),
}

/// A stored game in a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// Its row key (the list's order, newest first, and its cursor).
    pub seq: i64,
    /// Its id.
    pub id: Uuid,
    /// `ongoing`, `white_wins`, `black_wins` or `draw`.
    pub result: String,
    /// Whether it is still played (not stopped).
    pub live: bool,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// When it last changed (Unix ms).
    pub updated_ms: i64,
    /// The average of its players' ratings when it started (a side without a rating counts
    /// 1500), at least 1; 0 for a game created without players.
    pub rating: i64,
}

impl GameSummary {
    /// Its place in a list in `order`: the key the next page starts before.
    pub fn key(&self, order: GameOrder) -> i64 {
        match order {
            GameOrder::Newest => self.seq,
            GameOrder::Rating => rating_key(self.rating, self.seq),
        }
    }
}

/// The order stored games are listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GameOrder {
    /// Newest first (by row key).
    #[default]
    Newest,
    /// Highest rating first (the players' average when the game started; games without
    /// players last), newest first among equals.
    Rating,
}

/// How many low bits of a rating order's key hold the row key.
const RATING_KEY_SHIFT: u32 = 44;

/// A rating order's key: the rating (clamped to 0..2^19) above the row key (its low 44 bits),
/// so that one positive number orders as the pair does.
pub fn rating_key(rating: i64, seq: i64) -> i64 {
    let rating = rating.clamp(0, (1 << (63 - RATING_KEY_SHIFT)) - 1);
    (rating << RATING_KEY_SHIFT) | (seq & ((1 << RATING_KEY_SHIFT) - 1))
}

/// The rating and row key a rating order's key holds.
pub fn split_rating_key(key: i64) -> (i64, i64) {
    (key >> RATING_KEY_SHIFT, key & ((1 << RATING_KEY_SHIFT) - 1))
}

/// The lease a write is made under: the game's shard and the fencing token its owner held
/// when the game was loaded. The write is committed only while the shard still has that
/// token (checked in the write's own transaction), so a node that lost the shard cannot write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence {
    /// The shard.
    pub shard: i32,
    /// The token.
    pub token: i64,
}

/// A write waiting for the writer; `None` asks the writer to let its connection go once every
/// earlier write is committed (the store is closing).
struct Pending {
    op: Option<WriteOp>,
    fence: Option<Fence>,
    done: oneshot::Sender<Result<i64, StoreError>>,
}

/// The store: a cheap handle shared by every game.
#[derive(Clone, Default)]
pub struct Store {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    db: Db,
    writes: mpsc::Sender<Pending>,
    loads: load::Loader,
    health: Arc<Health>,
}

/// What the writer's commits say of the store: when one last succeeded and failed, and why.
#[derive(Default)]
struct Health {
    last_ok_ms: AtomicI64,
    last_failed_ms: AtomicI64,
    last_error: std::sync::Mutex<String>,
    /// One probe at a time; others wait for its result.
    probing: tokio::sync::Mutex<()>,
}

impl Health {
    /// Notes a batch's results.
    fn note(&self, results: &[Result<i64, StoreError>]) {
        let failed = results.iter().find_map(|r| match r {
            Err(e @ (StoreError::Database(_) | StoreError::Closed)) => Some(e.to_string()),
            _ => None,
        });
        match failed {
            Some(error) => {
                if let Ok(mut last) = self.last_error.lock() {
                    *last = error;
                }
                self.last_failed_ms.store(now_ms(), Ordering::Relaxed);
            }
            None => self.last_ok_ms.store(now_ms(), Ordering::Relaxed),
        }
    }

    /// The last failure, when it is more recent than the last success.
    fn failing(&self) -> Option<String> {
        let failed = self.last_failed_ms.load(Ordering::Relaxed);
        (failed > 0 && failed >= self.last_ok_ms.load(Ordering::Relaxed)).then(|| {
            self.last_error
                .lock()
                .map(|e| e.clone())
                .unwrap_or_default()
        })
    }
}

/// A store's last commit is trusted this long (ms); after it, `/health` probes with a write
/// (so at most one probe a second, and none while games are being written).
const TRUSTED_FOR_MS: i64 = 1_000;
/// A probe waits this long for its commit.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match &self.inner {
            None => "Store(memory)",
            Some(inner) => match inner.db {
                Db::Sqlite(_) => "Store(sqlite)",
                Db::Postgres(_) => "Store(postgres)",
            },
        })
    }
}

impl Store {
    /// A store that keeps nothing: games live only in memory.
    pub fn memory() -> Store {
        Store { inner: None }
    }

    /// Opens the store at `url` (`sqlite://PATH`, `postgres://…` or `memory`), applies the
    /// migrations and starts the writer on the current Tokio runtime, which must outlive it.
    pub async fn open(url: &str, sync: SqliteSync, max_batch: usize) -> Result<Store, StoreError> {
        if url == "memory" {
            return Ok(Store::memory());
        }
        let db = Db::open(url, sync).await?;
        let (writes, queue) = mpsc::channel(65_536);
        // SQLite with full sync: the writer commits without waiting for the disk and one
        // task syncs the log for every batch committed meanwhile, before their answers go.
        let wal = db.wal_path().filter(|_| sync == SqliteSync::Full);
        let health = Arc::new(Health::default());
        let writer = Writer {
            db: db.clone(),
            max_batch: max_batch.max(1),
            wal,
            health: Arc::clone(&health),
        };
        tokio::spawn(writer.run(queue));
        Ok(Store {
            inner: Some(Arc::new(Inner {
                db,
                writes,
                loads: load::Loader::default(),
                health,
            })),
        })
    }

    /// Whether the store keeps anything.
    pub fn is_durable(&self) -> bool {
        self.inner.is_some()
    }

    /// Whether the store takes writes now, or why not: the last commit's outcome when one
    /// succeeded or failed in the last second, else a probe write committed by the writer
    /// (within a second). Always fine in memory.
    pub async fn health(&self) -> Result<(), String> {
        let Some(inner) = &self.inner else {
            return Ok(());
        };
        let health = &inner.health;
        let age = |ms: &AtomicI64| now_ms() - ms.load(Ordering::Relaxed);
        // Trusted: a commit succeeded lately, and none failed since.
        if health.failing().is_none() && age(&health.last_ok_ms) < TRUSTED_FOR_MS {
            return Ok(());
        }
        let _probing = health.probing.lock().await;
        // A probe (or a commit) that ended while this one waited answers for it too.
        match health.failing() {
            None if age(&health.last_ok_ms) < 1_000 => return Ok(()),
            Some(error) if age(&health.last_failed_ms) < 1_000 => return Err(error),
            _ => {}
        }
        let probe = self.write(WriteOp::Probe { now_ms: now_ms() });
        match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "a write was not committed within {} ms",
                PROBE_TIMEOUT.as_millis()
            )),
        }
    }

    /// Queues `op` for the writer. The answer comes once it is committed: the row key of a
    /// created game, else 0. In memory it comes at once.
    pub fn write(
        &self,
        op: WriteOp,
    ) -> impl std::future::Future<Output = Result<i64, StoreError>> + 'static {
        self.write_fenced(op, None)
    }

    /// [`Store::write`] under a shard's lease: refused with [`StoreError::Fenced`] when the
    /// shard's token is no longer `fence`'s.
    pub fn write_fenced(
        &self,
        op: WriteOp,
        fence: Option<Fence>,
    ) -> impl std::future::Future<Output = Result<i64, StoreError>> + 'static {
        let inner = self.inner.clone();
        async move {
            let Some(inner) = inner else {
                return Ok(0);
            };
            let (done, answer) = oneshot::channel();
            inner
                .writes
                .send(Pending {
                    op: Some(op),
                    fence,
                    done,
                })
                .await
                .map_err(|_| StoreError::Closed)?;
            answer.await.map_err(|_| StoreError::Closed)?
        }
    }

    /// A stored game with its journal (`None` when absent, or in memory), read in one
    /// statement with every other load waiting then (see `store/load.rs`).
    pub async fn load_game(&self, id: &Uuid) -> Result<Option<StoredGame>, StoreError> {
        match &self.inner {
            None => Ok(None),
            Some(inner) => inner.loads.load(&inner.db, *id).await,
        }
    }

    /// Stored games with their journals, as [`Store::list_games`] lists them: `filter`,
    /// newest first, older than the row key `before`, at most `limit` (nothing in memory).
    /// Read in two queries whatever `limit` is.
    pub async fn games_page(
        &self,
        filter: ResultFilter,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<StoredGame>, StoreError> {
        match &self.inner {
            None => Ok(Vec::new()),
            Some(inner) => inner.db.games_page(filter, before, limit).await,
        }
    }

    /// Games over or stopped whose journal is not packed, oldest first, after the row key
    /// `after`, at most `limit`: their row keys and ids (nothing in memory).
    pub async fn games_to_pack(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(i64, Uuid)>, StoreError> {
        match &self.inner {
            None => Ok(Vec::new()),
            Some(inner) => inner.db.games_to_pack(after, limit).await,
        }
    }

    /// Stored games with `filter` in `order`, after the key `before` (the previous page's
    /// last, [`GameSummary::key`]), at most `limit` (nothing in memory).
    pub async fn list_games(
        &self,
        filter: ResultFilter,
        order: GameOrder,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<GameSummary>, StoreError> {
        match &self.inner {
            None => Ok(Vec::new()),
            Some(inner) => inner.db.list_games(filter, order, before, limit).await,
        }
    }

    /// Every webhook waiting in the outbox (none in memory).
    pub async fn pending_webhooks(&self) -> Result<Vec<OutboxRow>, StoreError> {
        match &self.inner {
            None => Ok(Vec::new()),
            Some(inner) => inner.db.pending_webhooks().await,
        }
    }

    /// The shared perft task queue, on PostgreSQL (`None` for any other store).
    pub fn task_queue(&self) -> Option<perft_tasks::TaskQueue> {
        match &self.inner {
            Some(inner) => match &inner.db {
                Db::Postgres(pool) => Some(perft_tasks::TaskQueue::new(pool.clone())),
                Db::Sqlite(_) => None,
            },
            None => None,
        }
    }

    /// The lobby's seeks (`None` in memory: the lobby needs a database).
    pub fn seeks(&self) -> Option<seeks::SeekDb> {
        self.inner
            .as_ref()
            .map(|inner| seeks::SeekDb::new(inner.db.clone()))
    }

    /// Quick pairing's entries (`None` in memory: pairing needs a database).
    pub fn pairing(&self) -> Option<pairing::PairingDb> {
        self.inner
            .as_ref()
            .map(|inner| pairing::PairingDb::new(inner.db.clone()))
    }

    /// The players' tables (`None` in memory: players need a database).
    pub fn players(&self) -> Option<players::PlayerDb> {
        self.inner
            .as_ref()
            .map(|inner| players::PlayerDb::new(inner.db.clone()))
    }

    /// The cluster's tables, on PostgreSQL (`None` for any other store), through a pool of
    /// their own: the lease loop never waits behind game writes for a connection. It gives up
    /// on a connection after `bound`, and PostgreSQL cancels any of its statements that runs
    /// longer (`statement_timeout`), a lock wait included: a renewal ends well inside the
    /// lease, and no step of the lease loop waits for long on a stalled node's transaction.
    pub fn cluster_db(&self, bound: std::time::Duration) -> Option<cluster::ClusterDb> {
        match &self.inner {
            Some(inner) => match &inner.db {
                Db::Postgres(pool) => {
                    let options = (*pool.connect_options())
                        .clone()
                        .options([("statement_timeout", bound.as_millis().max(1))]);
                    let own = sqlx::postgres::PgPoolOptions::new()
                        .max_connections(2)
                        .acquire_timeout(bound)
                        .connect_lazy_with(options);
                    Some(cluster::ClusterDb::new(own))
                }
                Db::Sqlite(_) => None,
            },
            None => None,
        }
    }

    /// Bytes the database holds (0 in memory).
    pub async fn size_bytes(&self) -> Result<i64, StoreError> {
        match &self.inner {
            None => Ok(0),
            Some(inner) => inner.db.size_bytes().await,
        }
    }

    /// Waits for queued writes to be committed, then closes the database.
    pub async fn close(&self) {
        if let Some(inner) = &self.inner {
            // Queued after every earlier write: its answer means the queue is drained and the
            // writer has let its connection go.
            let (done, answer) = oneshot::channel();
            let closing = Pending {
                op: None,
                fence: None,
                done,
            };
            if inner.writes.send(closing).await.is_ok() {
                let _ = answer.await;
            }
            inner.db.close().await;
        }
    }
}

/// Writes committed, each with its result, whose answers wait for the log to be synced.
type Answers = Vec<(
    oneshot::Sender<Result<i64, StoreError>>,
    Result<i64, StoreError>,
)>;

/// The writer's parts: the database, the most writes in one commit, the SQLite log to sync
/// (full sync), and where it notes how its commits go.
struct Writer {
    db: Db,
    max_batch: usize,
    wal: Option<std::path::PathBuf>,
    health: Arc<Health>,
}

impl Writer {
    /// The writer: takes every write waiting (up to `max_batch`), commits them together on its own
    /// connection, answers. With `wal` (SQLite, full sync), the answers go through [`sync_wal`].
    async fn run(self, mut queue: mpsc::Receiver<Pending>) {
        let Writer {
            db,
            max_batch,
            wal,
            health,
        } = self;
        let synced = wal.map(|path| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(sync_wal(path, rx));
            tx
        });
        let mut ops = Vec::with_capacity(max_batch);
        let mut fences = Vec::with_capacity(max_batch);
        let mut dones = Vec::with_capacity(max_batch);
        let mut conn: Option<WriterConn> = None;
        while let Some(mut next) = queue.recv().await {
            // Every write waiting, up to a closing request.
            let closing = loop {
                match next.op {
                    None => break Some(next.done),
                    Some(op) => {
                        ops.push(op);
                        fences.push(next.fence);
                        dones.push(next.done);
                    }
                }
                if ops.len() >= max_batch {
                    break None;
                }
                match queue.try_recv() {
                    Ok(p) => next = p,
                    Err(_) => break None,
                }
            };
            let mut answers: Answers = Vec::new();
            if !ops.is_empty() {
                let results = write_batch(&db, &mut conn, &ops, &fences, synced.is_some()).await;
                health.note(&results);
                answers.extend(dones.drain(..).zip(results));
                ops.clear();
                fences.clear();
            }
            if let Some(done) = closing {
                conn = None;
                answers.push((done, Ok(0)));
            }
            match &synced {
                Some(syncer) => {
                    if let Err(mpsc::error::SendError(answers)) = syncer.send(answers) {
                        for (done, _) in answers {
                            let _ = done.send(Err(StoreError::Closed));
                        }
                    }
                }
                None => {
                    for (done, result) in answers {
                        let _ = done.send(result);
                    }
                }
            }
        }
    }
}

/// Commits `ops` on the writer's connection (opened first if needed), giving each its result.
async fn write_batch(
    db: &Db,
    conn: &mut Option<WriterConn>,
    ops: &[WriteOp],
    fences: &[Option<Fence>],
    synced_apart: bool,
) -> Vec<Result<i64, StoreError>> {
    if conn.is_none() {
        match WriterConn::open(db, synced_apart).await {
            Ok(c) => *conn = Some(c),
            Err(e) => {
                tracing::error!(error = %e, "the store's writer has no connection");
                return ops
                    .iter()
                    .map(|_| Err(StoreError::Database(e.to_string())))
                    .collect();
            }
        }
    }
    let Some(writer) = conn.as_mut() else {
        return Vec::new();
    };
    let results = writer.write_batch(ops, fences).await;
    crate::metrics::count_store_commit(ops.len());
    // A connection that failed is replaced for the next batch.
    if results
        .iter()
        .any(|r| matches!(r, Err(StoreError::Database(_))))
    {
        *conn = None;
    }
    results
}

/// Syncs the SQLite write-ahead log at `wal` to disk, then sends the answers of every batch
/// committed before the sync began; batches committed meanwhile share the next sync (group
/// commit of the disk writes, while the writer goes on committing). A commit in the log is
/// durable once the log is synced, which is what `synchronous = FULL` does after each commit.
async fn sync_wal(wal: std::path::PathBuf, mut batches: mpsc::UnboundedReceiver<Answers>) {
    while let Some(first) = batches.recv().await {
        let mut answers = first;
        while let Ok(more) = batches.try_recv() {
            answers.extend(more);
        }
        let path = wal.clone();
        // The file is opened for each sync: SQLite deletes the log when its last connection
        // closes, after copying it into the database file and syncing that.
        let synced = tokio::task::spawn_blocking(move || match std::fs::File::open(&path) {
            Ok(file) => file.sync_data(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        })
        .await
        .map_err(std::io::Error::other)
        .and_then(|r| r);
        if let Err(e) = &synced {
            tracing::error!(error = %e, "the store's log could not be synced to disk");
        }
        for (done, result) in answers {
            let result = match (&synced, result) {
                (Err(e), Ok(_)) => Err(StoreError::Database(format!("sync of the log: {e}"))),
                (_, result) => result,
            };
            let _ = done.send(result);
        }
    }
}

/// Now, in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
