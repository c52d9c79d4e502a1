//! The lobby: seeks posted by players waiting for an opponent, kept in the store (so that every
//! node of a cluster sees the same seeks), listed live to lobby sockets, accepted exactly once.
//!
//! A seek's secret proves its owner (cancel, read the accept, hold it from a lobby socket); the
//! owner's seat secret in the game an accept creates is derived from it ([`owner_seat_secret`]),
//! so the accepting node gives the game only that secret's digest and nothing usable is ever
//! stored. Limits (`quotas.max_seeks` per client, `limits.max_seeks` in total) are checked in the
//! insert's own statement. What lobby sockets hear comes from `watch`: one task per node that
//! reads the seeks every `lobby.poll_ms` while sockets are open and tells them what changed.

pub mod glicko;
mod held;
pub mod pairing;
mod watch;

use std::sync::{
    atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering},
    Arc,
};

use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, Notify};
use uuid::Uuid;

use crate::{
    admission::ClientKey,
    config::{Config, LobbyConfig},
    game::secrets,
    store::{
        now_ms,
        seeks::{Inserted, NewSeekRow, SeekDb, SeekRow},
        Store, StoreError,
    },
};

/// A claim older than this is taken back (the accept that made it never completed), in ms.
const STALE_CLAIM_MS: i64 = 30_000;
/// An accepted seek stays readable by its owner this long, in ms.
const KEEP_ACCEPTED_MS: i64 = 600_000;
/// Events queued per lobby socket before a slow one misses some (it then reads the list again).
const EVENT_QUEUE: usize = 1024;

/// What went wrong in the lobby.
#[derive(Debug, thiserror::Error)]
pub enum LobbyError {
    /// The store keeps nothing (`store.url = "memory"`): the lobby needs a database.
    #[error("the lobby needs a database (store.url is memory)")]
    Unavailable,
    /// No open seek with this id.
    #[error("no seek with id {0}")]
    NotFound(String),
    /// The seek was accepted by someone else (or is being).
    #[error("seek {0} is no longer open: another player accepted it")]
    Taken(String),
    /// A player tried to accept their own seek.
    #[error("a seek cannot be accepted by its own owner")]
    OwnSeek,
    /// The request does not carry the seek's secret.
    #[error("this needs the seek's secret (Authorization: Bearer)")]
    Refused {
        /// Whether a (wrong) secret was given.
        given: bool,
    },
    /// The client holds its limit of open seeks.
    #[error("open seeks: this client holds its limit of {limit} (quotas.max_seeks)")]
    ClientFull {
        /// The limit.
        limit: usize,
    },
    /// The lobby holds its limit of open seeks.
    #[error("the lobby holds its limit of {limit} open seeks (limits.max_seeks)")]
    Full {
        /// The limit.
        limit: usize,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What lobby sockets are told.
#[derive(Clone, Debug)]
pub enum LobbyEvent {
    /// A seek opened (or was first seen by this node).
    Added(Arc<SeekRow>),
    /// A seek is no longer open (accepted, cancelled or expired).
    Removed(String),
    /// A seek held by a socket of this node was accepted.
    Accepted(Arc<SeekRow>),
}

/// A seek just posted: its id and its secret (shown only once).
#[derive(Clone, Debug)]
pub struct Posted {
    /// The seek's id.
    pub id: String,
    /// Its secret.
    pub secret: String,
}

/// Who posts a seek: its player, with its name and its rating (and deviation) in the seek's
/// variant and class now, kept with the seek for the lists.
#[derive(Clone, Debug, Default)]
pub struct SeekOwner {
    /// The player's id.
    pub player: String,
    /// Its name (`None`: anonymous).
    pub name: Option<String>,
    /// Its rating and deviation (`None`: never rated there).
    pub rating: Option<(f64, f64)>,
}

/// A won claim on a seek: the accept completes it or gives it back.
#[derive(Debug)]
pub struct Claim {
    /// The seek as it was claimed.
    pub seek: SeekRow,
    token: String,
}

/// The lobby; cheap to clone.
#[derive(Clone)]
pub struct Lobby(Arc<Inner>);

struct Inner {
    db: Option<SeekDb>,
    config: LobbyConfig,
    per_client: usize,
    total: usize,
    events: broadcast::Sender<LobbyEvent>,
    /// Seeks held by this node's sockets, with how many sockets hold each.
    held: held::Held,
    /// Lobby sockets open on this node.
    sockets: AtomicUsize,
    /// Wakes the watcher (a socket opened, or a seek changed here).
    wake: Notify,
    watching: AtomicBool,
    last_sweep_ms: AtomicI64,
}

/// The owner's seat secret in the game accepting the seek with secret `seek_secret` creates:
/// 32 hex digits derived from it (so the store never holds it, only its digest).
pub fn owner_seat_secret(seek_secret: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"chessd seek owner seat\n")
        .chain_update(seek_secret.as_bytes())
        .finalize();
    hex::encode(&digest[..16])
}

fn secret_digest(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

impl Lobby {
    /// The lobby over `store`'s seeks, with the `[lobby]`, `quotas.max_seeks` and
    /// `limits.max_seeks` configuration.
    pub fn new(store: &Store, config: &Config) -> Lobby {
        let (events, _) = broadcast::channel(EVENT_QUEUE);
        Lobby(Arc::new(Inner {
            db: store.seeks(),
            config: config.lobby.clone(),
            per_client: config.quotas.max_seeks,
            total: config.limits.max_seeks,
            events,
            held: held::Held::default(),
            sockets: AtomicUsize::new(0),
            wake: Notify::new(),
            watching: AtomicBool::new(false),
            last_sweep_ms: AtomicI64::new(0),
        }))
    }

    fn db(&self) -> Result<&SeekDb, LobbyError> {
        self.0.db.as_ref().ok_or(LobbyError::Unavailable)
    }

    /// Deletes dead seeks, at most every ten seconds.
    async fn sweep(&self, now: i64) -> Result<(), LobbyError> {
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

    /// Posts a seek (`body`: what it asks, as JSON) for `client`, by `owner` if a player.
    pub async fn post(
        &self,
        client: &ClientKey,
        owner: Option<SeekOwner>,
        body: String,
    ) -> Result<Posted, LobbyError> {
        let db = self.db()?;
        let now = now_ms();
        self.sweep(now).await?;
        let id = Uuid::new_v4().to_string();
        let secret = Uuid::new_v4().simple().to_string();
        let ttl =
            i64::try_from(self.0.config.seek_ttl_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
        let row = NewSeekRow {
            id: id.clone(),
            secret: secret_digest(&secret),
            client: client.stored(),
            player: owner.as_ref().map(|o| o.player.clone()),
            owner_name: owner.as_ref().and_then(|o| o.name.clone()),
            owner_rating: owner.as_ref().and_then(|o| o.rating),
            body,
            now_ms: now,
            expires_ms: now.saturating_add(ttl),
            owner_seat: secrets::digest(&owner_seat_secret(&secret)).to_vec(),
        };
        let limit = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        match db
            .insert(&row, limit(self.0.per_client), limit(self.0.total))
            .await?
        {
            Inserted::Done => {}
            Inserted::ClientFull => {
                return Err(LobbyError::ClientFull {
                    limit: self.0.per_client,
                })
            }
            Inserted::TotalFull => {
                return Err(LobbyError::Full {
                    limit: self.0.total,
                })
            }
        }
        self.0.wake.notify_one();
        Ok(Posted { id, secret })
    }

    /// The open seeks, oldest first.
    pub async fn open_seeks(&self) -> Result<Vec<SeekRow>, LobbyError> {
        let limit = i64::try_from(self.0.total).unwrap_or(i64::MAX);
        Ok(self.db()?.open_seeks(now_ms(), limit).await?)
    }

    /// A seek still alive (open, being accepted, or accepted lately).
    pub async fn get(&self, id: &str) -> Result<SeekRow, LobbyError> {
        let now = now_ms();
        self.db()?
            .get(id)
            .await?
            .filter(|row| {
                let until = if row.held_until_ms > 0 {
                    row.held_until_ms
                } else {
                    row.expires_ms
                };
                until > now
            })
            .ok_or_else(|| LobbyError::NotFound(id.to_string()))
    }

    /// Whether `secret` is the seek's.
    pub fn is_owner(seek: &SeekRow, secret: Option<&str>) -> bool {
        secret.is_some_and(|s| constant_time_eq::constant_time_eq(&secret_digest(s), &seek.secret))
    }

    /// `OwnSeek` when the accepter (its bearer `secret` and its `player`) is the seek's owner.
    pub fn refuse_owner(
        seek: &SeekRow,
        secret: Option<&str>,
        player: Option<&str>,
    ) -> Result<(), LobbyError> {
        if Lobby::is_owner(seek, secret) || (player.is_some() && seek.player.as_deref() == player) {
            return Err(LobbyError::OwnSeek);
        }
        Ok(())
    }

    /// `seek` as its owner may read it: refused without its secret.
    pub async fn owned(&self, id: &str, secret: Option<&str>) -> Result<SeekRow, LobbyError> {
        let seek = self.get(id).await?;
        if !Lobby::is_owner(&seek, secret) {
            return Err(LobbyError::Refused {
                given: secret.is_some(),
            });
        }
        Ok(seek)
    }

    /// Cancels an open seek with its secret.
    pub async fn cancel(&self, id: &str, secret: Option<&str>) -> Result<(), LobbyError> {
        let seek = self.owned(id, secret).await?;
        if !self.db()?.delete_open(id, &seek.secret).await? {
            return Err(LobbyError::Taken(id.to_string()));
        }
        self.0.wake.notify_one();
        Ok(())
    }

    /// Claims an open seek for an accepter (never its owner: `secret` is the accepter's bearer
    /// and `player` its player, checked against the seek's); exactly one claimer wins.
    pub async fn claim(
        &self,
        id: &str,
        secret: Option<&str>,
        player: Option<&str>,
    ) -> Result<Claim, LobbyError> {
        let seek = self.get(id).await?;
        Lobby::refuse_owner(&seek, secret, player)?;
        let token = Uuid::new_v4().to_string();
        if !self
            .db()?
            .claim(id, &token, now_ms(), STALE_CLAIM_MS)
            .await?
        {
            return Err(LobbyError::Taken(id.to_string()));
        }
        Ok(Claim { seek, token })
    }

    /// Completes a claim: the seek is accepted with `game`, its owner playing `owner_color`.
    pub async fn complete(
        &self,
        claim: &Claim,
        game: &str,
        owner_color: &str,
    ) -> Result<(), LobbyError> {
        let now = now_ms();
        let done = self
            .db()?
            .accept(
                &claim.seek.id,
                &claim.token,
                game,
                owner_color,
                now,
                now + KEEP_ACCEPTED_MS,
            )
            .await?;
        self.0.wake.notify_one();
        if !done {
            return Err(LobbyError::Taken(claim.seek.id.clone()));
        }
        Ok(())
    }

    /// Gives a claim back: the seek is open again.
    pub async fn release(&self, claim: Claim) {
        if let Ok(db) = self.db() {
            if let Err(e) = db.release(&claim.seek.id, &claim.token, now_ms()).await {
                tracing::warn!(seek = %claim.seek.id, error = %e, "a claim could not be given back");
            }
        }
    }

    /// A lobby socket opens: its events, and a guard that counts it while it lives.
    pub fn subscribe(&self) -> Result<(broadcast::Receiver<LobbyEvent>, SocketGuard), LobbyError> {
        self.db()?;
        let events = self.0.events.subscribe();
        self.0.sockets.fetch_add(1, Ordering::AcqRel);
        if !self.0.watching.swap(true, Ordering::AcqRel) {
            tokio::spawn(watch::run(self.clone()));
        }
        self.0.wake.notify_one();
        Ok((
            events,
            SocketGuard {
                lobby: self.clone(),
            },
        ))
    }

    /// A socket holds an open seek (with its secret): it lives while the socket is open and
    /// `lobby.seek_grace_secs` after, and its accept is told to the socket.
    pub async fn hold(&self, id: &str, secret: &str) -> Result<HoldGuard, LobbyError> {
        let seek = self.owned(id, Some(secret)).await?;
        if seek.status != "open" {
            return Err(LobbyError::Taken(id.to_string()));
        }
        self.db()?
            .hold(std::slice::from_ref(&seek.id), self.held_until())
            .await?;
        self.0.held.add(&seek.id);
        self.0.wake.notify_one();
        Ok(HoldGuard {
            lobby: self.clone(),
            id: seek.id,
        })
    }

    /// Until when a seek held now lives.
    fn held_until(&self) -> i64 {
        let grace =
            i64::try_from(self.0.config.seek_grace_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
        now_ms().saturating_add(grace.max(1))
    }

    /// The seeks this node's sockets hold.
    fn held_ids(&self) -> Vec<String> {
        self.0.held.ids()
    }

    /// Forgets a held seek (its accept was told).
    fn forget_held(&self, id: &str) {
        self.0.held.forget(id);
    }
}

/// Counts one open lobby socket while it lives.
pub struct SocketGuard {
    lobby: Lobby,
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        self.lobby.0.sockets.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A socket's hold on a seek; dropped when the socket closes (the seek then lives
/// `lobby.seek_grace_secs` more).
pub struct HoldGuard {
    lobby: Lobby,
    id: String,
}

impl HoldGuard {
    /// The seek held.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for HoldGuard {
    fn drop(&mut self) {
        self.lobby.0.held.release(&self.id);
    }
}
