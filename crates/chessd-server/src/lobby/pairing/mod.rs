//! Quick pairing: players join a pool (a variant and time control from `[pairing]`) and wait,
//! as entries kept in the store, until a node's pairer pairs them with another entry of the pool
//! by rating closeness (`matcher`), then creates their game.
//!
//! An entry's secret proves its holder (poll, leave, hold from a lobby socket); the holder's seat
//! secret in its game is derived from it ([`seat_secret`]), so the pairer gives the game only its
//! digest and nothing usable is stored. An entry lives while its holder polls it or holds it from
//! a lobby socket, and `pairing.grace_secs` after. Limits (`quotas.max_pairing_entries` per
//! client, `limits.max_pairing_entries` in total) are checked in the insert's own statement.
//! Every node with waiting entries pairs every `pairing.interval_ms` (`pairer`); two nodes
//! pairing the same entries at once are kept apart by the claim (see `store::pairing`).

pub mod matcher;
mod pairer;

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, AtomicI64, Ordering},
        Arc, OnceLock,
    },
};

use futures_util::future::BoxFuture;
use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, Notify};
use uuid::Uuid;

use crate::{
    admission::ClientKey,
    config::{Config, PairingConfig, PoolConfig},
    game::secrets::{self, KeptDigest},
    store::{
        now_ms,
        pairing::{EntryRow, Joined, NewEntryRow, PairingDb},
        Store, StoreError,
    },
};

/// The rating of an entry without a player, or of a player not yet rated in the pool's
/// variant and class (Glicko-2's start).
pub const DEFAULT_RATING: i64 = 1500;
/// A claim older than this is taken back (the pairer that made it never completed), in ms.
const STALE_CLAIM_MS: i64 = 30_000;
/// A paired (or failed) entry stays readable by its holder this long, in ms.
const KEEP_SETTLED_MS: i64 = 600_000;
/// Settled entries queued per lobby socket before a slow one misses some.
const EVENT_QUEUE: usize = 1024;

/// What went wrong in quick pairing.
#[derive(Debug, thiserror::Error)]
pub enum PairingError {
    /// The store keeps nothing (`store.url = "memory"`): pairing needs a database.
    #[error("quick pairing needs a database (store.url is memory)")]
    Unavailable,
    /// No pool with this id.
    #[error("no pairing pool with id {0:?} (GET /v1/pairing lists them)")]
    PoolNotFound(String),
    /// No entry with this id in this pool.
    #[error("no pairing entry with id {0} in this pool")]
    NotFound(String),
    /// The entry is paired (or being paired) already.
    #[error("pairing entry {0} is paired already: read its game instead")]
    Paired(String),
    /// The request does not carry the entry's secret.
    #[error("this needs the pairing entry's secret (Authorization: Bearer)")]
    Refused {
        /// Whether a (wrong) secret was given.
        given: bool,
    },
    /// The client holds its limit of waiting entries.
    #[error(
        "pairing entries: this client has {limit} waiting already (quotas.max_pairing_entries)"
    )]
    ClientFull {
        /// The limit.
        limit: usize,
    },
    /// The pools hold their limit of waiting entries.
    #[error("the pools hold their limit of {limit} waiting entries (limits.max_pairing_entries)")]
    Full {
        /// The limit.
        limit: usize,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An entry just made: its id and its secret (shown only once).
#[derive(Clone, Debug)]
pub struct Entered {
    /// The entry's id.
    pub id: String,
    /// Its secret.
    pub secret: String,
}

/// A game the pairer asks for: two seats, proven by the digests of their secrets.
#[derive(Clone, Debug)]
pub struct PairedGame {
    /// The pool (variant, clocks).
    pub pool: PoolConfig,
    /// Whom the game is counted against (the longer waiting entry's client, stored form).
    pub client: String,
    /// White's seat digest.
    pub white: KeptDigest,
    /// Black's seat digest.
    pub black: KeptDigest,
    /// White's player, if its entry had one.
    pub white_player: Option<String>,
    /// Black's player, if its entry had one.
    pub black_player: Option<String>,
}

/// Why a game could not be made: a stable code and a message.
#[derive(Clone, Debug)]
pub struct MakeError {
    /// The error code, as the API names it.
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
}

/// Makes the games of pairs (the API layer creates games; the pairer does not know how).
pub trait GameMaker: Send + Sync + 'static {
    /// Creates the game; its id.
    fn make(&self, game: PairedGame) -> BoxFuture<'static, Result<String, MakeError>>;
}

/// Quick pairing; cheap to clone.
#[derive(Clone)]
pub struct Pairing(Arc<Inner>);

struct Inner {
    db: Option<PairingDb>,
    config: PairingConfig,
    per_client: usize,
    total: usize,
    /// Entries that settled (paired or failed) among those this node's sockets hold.
    events: broadcast::Sender<Arc<EntryRow>>,
    /// Entries held by this node's sockets, with how many sockets hold each.
    held: super::held::Held,
    /// Wakes the pairer (an entry joined, was polled or held here).
    wake: Notify,
    maker: OnceLock<Arc<dyn GameMaker>>,
    running: AtomicBool,
    last_sweep_ms: AtomicI64,
}

/// The holder's seat secret in the game an entry with secret `entry_secret` is paired into: 32
/// hex digits derived from it (so the store never holds it, only its digest).
pub fn seat_secret(entry_secret: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"chessd pairing seat\n")
        .chain_update(entry_secret.as_bytes())
        .finalize();
    hex::encode(&digest[..16])
}

fn secret_digest(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Pairing {
    /// Quick pairing over `store`'s entries, with the `[pairing]` configuration and the
    /// `max_pairing_entries` quota and limit.
    pub fn new(store: &Store, config: &Config) -> Pairing {
        let (events, _) = broadcast::channel(EVENT_QUEUE);
        Pairing(Arc::new(Inner {
            db: store.pairing(),
            config: config.pairing.clone(),
            per_client: config.quotas.max_pairing_entries,
            total: config.limits.max_pairing_entries,
            events,
            held: super::held::Held::default(),
            wake: Notify::new(),
            maker: OnceLock::new(),
            running: AtomicBool::new(false),
            last_sweep_ms: AtomicI64::new(0),
        }))
    }

    fn db(&self) -> Result<&PairingDb, PairingError> {
        self.0.db.as_ref().ok_or(PairingError::Unavailable)
    }

    /// The `[pairing]` configuration.
    pub fn config(&self) -> &PairingConfig {
        &self.0.config
    }

    /// Starts this node's pairer, the first time, with what makes its games (`maker` is called
    /// only then); wakes it. Called from a request handler (a local task set, as the game
    /// actors need).
    pub fn start(&self, maker: impl FnOnce() -> Arc<dyn GameMaker>) {
        if self.0.db.is_none() {
            return;
        }
        if self.0.maker.get().is_none() {
            let _ = self.0.maker.set(maker());
        }
        if !self.0.running.swap(true, Ordering::AcqRel) {
            // On the caller's thread: games are actors, started on the local task set.
            tokio::task::spawn_local(pairer::run(self.clone()));
        }
        self.0.wake.notify_one();
    }

    /// The pool with this id.
    pub fn pool(&self, id: &str) -> Result<&PoolConfig, PairingError> {
        self.0
            .config
            .pool(id)
            .ok_or_else(|| PairingError::PoolNotFound(id.to_string()))
    }

    /// Every pool with how many entries wait in it now.
    pub async fn pools(&self) -> Result<Vec<(PoolConfig, i64)>, PairingError> {
        let counts: HashMap<String, i64> = self
            .db()?
            .waiting_counts(now_ms())
            .await?
            .into_iter()
            .collect();
        Ok(self
            .0
            .config
            .pools
            .iter()
            .map(|p| (p.clone(), counts.get(&p.id).copied().unwrap_or(0)))
            .collect())
    }

    /// Deletes dead entries, at most every ten seconds.
    async fn sweep(&self, now: i64) -> Result<(), PairingError> {
        let last = self.0.last_sweep_ms.load(Ordering::Relaxed);
        if now - last > 10_000
            && self
                .0
                .last_sweep_ms
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            self.db()?.sweep(now).await?;
        }
        Ok(())
    }

    /// Until when an entry renewed now lives.
    fn alive_until(&self) -> i64 {
        let grace =
            i64::try_from(self.0.config.grace_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
        now_ms().saturating_add(grace.max(1))
    }

    /// Joins `pool` for `client`, as `player` if known, rated `rating`.
    pub async fn join(
        &self,
        pool: &str,
        client: &ClientKey,
        player: Option<String>,
        rating: i64,
    ) -> Result<Entered, PairingError> {
        let db = self.db()?;
        let pool = self.pool(pool)?;
        let now = now_ms();
        self.sweep(now).await?;
        let id = Uuid::new_v4().to_string();
        let secret = Uuid::new_v4().simple().to_string();
        let row = NewEntryRow {
            id: id.clone(),
            secret: secret_digest(&secret),
            pool: pool.id.clone(),
            client: client.stored(),
            player,
            rating,
            now_ms: now,
            alive_until_ms: self.alive_until(),
            seat: secrets::digest(&seat_secret(&secret)).to_vec(),
        };
        match db
            .insert(&row, limit(self.0.per_client), limit(self.0.total))
            .await?
        {
            Joined::Done => {}
            Joined::ClientFull => {
                return Err(PairingError::ClientFull {
                    limit: self.0.per_client,
                })
            }
            Joined::TotalFull => {
                return Err(PairingError::Full {
                    limit: self.0.total,
                })
            }
        }
        self.0.wake.notify_one();
        Ok(Entered { id, secret })
    }

    /// Whether `secret` is the entry's.
    pub fn is_holder(entry: &EntryRow, secret: Option<&str>) -> bool {
        secret.is_some_and(|s| constant_time_eq::constant_time_eq(&secret_digest(s), &entry.secret))
    }

    /// An entry still alive, as its holder (with its secret) may read it; in `pool` if given.
    pub async fn owned(
        &self,
        pool: Option<&str>,
        id: &str,
        secret: Option<&str>,
    ) -> Result<EntryRow, PairingError> {
        if let Some(pool) = pool {
            self.pool(pool)?;
        }
        let now = now_ms();
        let entry = self
            .db()?
            .get(id)
            .await?
            .filter(|e| e.alive_until_ms > now && pool.is_none_or(|p| p == e.pool))
            .ok_or_else(|| PairingError::NotFound(id.to_string()))?;
        if !Pairing::is_holder(&entry, secret) {
            return Err(PairingError::Refused {
                given: secret.is_some(),
            });
        }
        Ok(entry)
    }

    /// Reads an entry with its secret, keeping it alive another `pairing.grace_secs` while it
    /// waits.
    pub async fn poll(
        &self,
        pool: &str,
        id: &str,
        secret: Option<&str>,
    ) -> Result<EntryRow, PairingError> {
        let mut entry = self.owned(Some(pool), id, secret).await?;
        if entry.status == "waiting" || entry.status == "claimed" {
            let until = self.alive_until();
            self.db()?
                .renew(std::slice::from_ref(&entry.id), until)
                .await?;
            entry.alive_until_ms = entry.alive_until_ms.max(until);
            self.0.wake.notify_one();
        }
        Ok(entry)
    }

    /// Leaves the pool with the entry's secret (not once it is paired).
    pub async fn leave(
        &self,
        pool: &str,
        id: &str,
        secret: Option<&str>,
    ) -> Result<(), PairingError> {
        let entry = self.owned(Some(pool), id, secret).await?;
        if !self.db()?.delete_waiting(id, &entry.secret).await? {
            return Err(PairingError::Paired(id.to_string()));
        }
        Ok(())
    }

    /// Entries that settled among those this node's sockets hold.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<EntryRow>> {
        self.0.events.subscribe()
    }

    /// A socket holds a waiting entry (with its secret): it lives while the socket is open and
    /// `pairing.grace_secs` after, and its pairing is told to the socket.
    pub async fn hold(&self, id: &str, secret: &str) -> Result<HoldGuard, PairingError> {
        let entry = self.owned(None, id, Some(secret)).await?;
        if entry.status != "waiting" && entry.status != "claimed" {
            return Err(PairingError::Paired(id.to_string()));
        }
        self.db()?
            .renew(std::slice::from_ref(&entry.id), self.alive_until())
            .await?;
        self.0.held.add(&entry.id);
        self.0.wake.notify_one();
        Ok(HoldGuard {
            pairing: self.clone(),
            id: entry.id,
            pool: entry.pool,
        })
    }

    /// The entries this node's sockets hold.
    fn held_ids(&self) -> Vec<String> {
        self.0.held.ids()
    }

    /// Forgets a held entry (its pairing was told).
    fn forget_held(&self, id: &str) {
        self.0.held.forget(id);
    }
}

/// A socket's hold on an entry; dropped when the socket closes (the entry then lives
/// `pairing.grace_secs` more).
pub struct HoldGuard {
    pairing: Pairing,
    id: String,
    pool: String,
}

impl HoldGuard {
    /// The entry held.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its pool.
    pub fn pool(&self) -> &str {
        &self.pool
    }
}

impl Drop for HoldGuard {
    fn drop(&mut self) {
        self.pairing.0.held.release(&self.id);
    }
}
