//! Players: an anonymous player (an id and a token) or a named one (a name, unique
//! case-insensitively, and a password kept as its argon2id hash). A token proves a player; it is
//! shown once and stored only as its SHA-256. Creation is rate-limited per client and in total,
//! logins per client and per name (GCRA, `governor`), each checked before any password is hashed,
//! so guessing costs the server little and is slowed to `[players]`'s rates.
//!
//! Players live in the store's database: with `store.url = "memory"` there are none (every call
//! is refused with [`PlayersError::Unavailable`], as the lobby is).

use std::{num::NonZeroU32, sync::Arc};

use argon2::{
    password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString},
    Argon2,
};
use governor::{clock::Clock, DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{
    admission::ClientKey,
    config::PlayersConfig,
    store::{
        now_ms,
        players::{Claimed, Named, NewPlayer, PlayerDb, PlayerRow},
        Store, StoreError,
    },
};

/// The shortest name.
pub const NAME_MIN: usize = 2;
/// The longest name.
pub const NAME_MAX: usize = 20;
/// The shortest password.
pub const PASSWORD_MIN: usize = 8;
/// The longest password (in bytes; argon2 hashes any length, this bounds the request).
pub const PASSWORD_MAX: usize = 256;

/// What went wrong with players.
#[derive(Debug, thiserror::Error)]
pub enum PlayersError {
    /// The store keeps nothing (`store.url = "memory"`): players need a database.
    #[error("players need a database (store.url is memory)")]
    Unavailable,
    /// A name or password that breaks the rules.
    #[error("{0}")]
    Invalid(String),
    /// Another player has this name (names are unique case-insensitively).
    #[error("the name '{0}' is taken")]
    NameTaken(String),
    /// The player has a name already.
    #[error("this player has a name already")]
    AlreadyNamed,
    /// Wrong name or password, or a token that names no player.
    #[error("{0}")]
    BadCredentials(&'static str),
    /// No player with this name or id.
    #[error("no player named {0}")]
    NotFound(String),
    /// Over a rate of `[players]`.
    #[error("{what}: at most {limit} per minute; retry in {retry_after_secs} s")]
    RateLimited {
        /// What was limited.
        what: &'static str,
        /// The configured rate.
        limit: u32,
        /// Seconds until a retry may pass.
        retry_after_secs: u64,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A player and the token just made for it (shown only once).
#[derive(Clone, Debug)]
pub struct Session {
    /// The player.
    pub player: PlayerRow,
    /// Its new token.
    pub token: String,
}

/// The players; cheap to clone.
#[derive(Clone)]
pub struct Players(Arc<Inner>);

struct Inner {
    db: Option<PlayerDb>,
    config: PlayersConfig,
    creates: Option<DefaultKeyedRateLimiter<ClientKey>>,
    creates_total: Option<DefaultDirectRateLimiter>,
    logins: Option<DefaultKeyedRateLimiter<ClientKey>>,
    logins_by_name: Option<DefaultKeyedRateLimiter<String>>,
    checks: std::sync::atomic::AtomicU64,
}

/// The SHA-256 of a token, as stored.
pub fn token_digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

fn new_token() -> String {
    format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple())
}

/// A name's key: its lowercase form, after checking it (2 to 20 ASCII letters, digits, `_` or
/// `-`, starting with a letter).
pub fn name_key(name: &str) -> Result<String, PlayersError> {
    let ok_len = (NAME_MIN..=NAME_MAX).contains(&name.len());
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let ok_start = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    if !(ok_len && ok_chars && ok_start) {
        return Err(PlayersError::Invalid(format!(
            "a name is {NAME_MIN} to {NAME_MAX} ASCII letters, digits, '_' or '-', starting with a letter"
        )));
    }
    Ok(name.to_ascii_lowercase())
}

fn check_password(password: &str) -> Result<(), PlayersError> {
    if password.chars().count() < PASSWORD_MIN || password.len() > PASSWORD_MAX {
        return Err(PlayersError::Invalid(format!(
            "a password is at least {PASSWORD_MIN} characters and at most {PASSWORD_MAX} bytes"
        )));
    }
    Ok(())
}

/// The argon2id hash of `password` (a PHC string with its own random salt), computed off the
/// async threads.
async fn hash_password(password: String) -> Result<String, PlayersError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::encode_b64(Uuid::new_v4().as_bytes())
            .map_err(|e| PlayersError::Invalid(e.to_string()))?;
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| PlayersError::Invalid(e.to_string()))
    })
    .await
    .map_err(|e| PlayersError::Store(StoreError::Database(e.to_string())))?
}

/// Whether `password` matches the stored `hash` (checked off the async threads). Without a
/// hash (an unknown name) a fixed hash is checked, so that an unknown name costs the same time.
async fn verify_password(password: String, hash: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        let dummy = DUMMY.get_or_init(|| {
            let salt = SaltString::encode_b64(&[7; 16]).expect("a fixed salt encodes");
            Argon2::default()
                .hash_password(b"not a password", &salt)
                .map(|h| h.to_string())
                .unwrap_or_default()
        });
        let known = hash.is_some();
        let text = hash.unwrap_or_else(|| dummy.clone());
        let Ok(parsed) = PasswordHash::new(&text) else {
            return false;
        };
        let matches = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        known && matches
    })
    .await
    .unwrap_or(false)
}

fn keyed<K: std::hash::Hash + Eq + Clone>(per_minute: u32) -> Option<DefaultKeyedRateLimiter<K>> {
    NonZeroU32::new(per_minute).map(|n| DefaultKeyedRateLimiter::dashmap(Quota::per_minute(n)))
}

impl Players {
    /// The players over `store`'s tables, with the `[players]` configuration.
    pub fn new(store: &Store, config: &PlayersConfig) -> Players {
        Players(Arc::new(Inner {
            db: store.players(),
            config: config.clone(),
            creates: keyed(config.creates_per_minute),
            creates_total: NonZeroU32::new(config.creates_per_minute_total)
                .map(|n| DefaultDirectRateLimiter::direct(Quota::per_minute(n))),
            logins: keyed(config.logins_per_minute),
            logins_by_name: keyed(config.logins_per_minute_per_name),
            checks: std::sync::atomic::AtomicU64::new(0),
        }))
    }

    /// The players' tables, or why there are none.
    pub fn db(&self) -> Result<&PlayerDb, PlayersError> {
        self.0.db.as_ref().ok_or(PlayersError::Unavailable)
    }

    /// The `[players]` configuration.
    pub fn config(&self) -> &PlayersConfig {
        &self.0.config
    }

    /// Counts one attempt against a keyed rate.
    fn check<K: std::hash::Hash + Eq + Clone>(
        &self,
        limiter: &Option<DefaultKeyedRateLimiter<K>>,
        key: &K,
        what: &'static str,
        limit: u32,
    ) -> Result<(), PlayersError> {
        let Some(limiter) = limiter else {
            return Ok(());
        };
        // Forget keys whose bucket is full again, now and then, so the table stays small.
        let checks = self
            .0
            .checks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if checks.is_multiple_of(1024) && limiter.len() > 10_000 {
            limiter.retain_recent();
        }
        limiter.check_key(key).map_err(|not_until| {
            let wait = not_until.wait_time_from(limiter.clock().now());
            PlayersError::RateLimited {
                what,
                limit,
                retry_after_secs: (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1),
            }
        })
    }

    /// Creates a player for `client`: anonymous, or named with `name` and `password`.
    pub async fn create(
        &self,
        client: &ClientKey,
        named: Option<(String, String)>,
    ) -> Result<Session, PlayersError> {
        let db = self.db()?;
        let named = match named {
            Some((name, password)) => {
                let key = name_key(&name)?;
                check_password(&password)?;
                Some((name, key, password))
            }
            None => None,
        };
        let config = &self.0.config;
        self.check(
            &self.0.creates,
            client,
            "player creation per client",
            config.creates_per_minute,
        )?;
        if let Some(total) = &self.0.creates_total {
            total.check().map_err(|not_until| {
                let wait = not_until.wait_time_from(total.clock().now());
                PlayersError::RateLimited {
                    what: "player creation in total",
                    limit: config.creates_per_minute_total,
                    retry_after_secs: wait.as_secs().max(1),
                }
            })?;
        }
        let named = match named {
            Some((name, key, password)) => {
                if db.by_name_key(&key).await?.is_some() {
                    return Err(PlayersError::NameTaken(name));
                }
                Some(Named {
                    name,
                    key,
                    hash: hash_password(password).await?,
                })
            }
            None => None,
        };
        let token = new_token();
        let row = NewPlayer {
            id: Uuid::new_v4().to_string(),
            named: named.clone(),
            client: client.stored(),
            now_ms: now_ms(),
        };
        if !db.create(&row, &token_digest(&token)).await? {
            let name = named.map(|n| n.name).unwrap_or_default();
            return Err(PlayersError::NameTaken(name));
        }
        let player = db
            .by_id(&row.id)
            .await?
            .ok_or_else(|| StoreError::Database("a player just created is missing".into()))?;
        Ok(Session { player, token })
    }

    /// Logs a named player in: a fresh token. Every attempt counts against the client's and
    /// the name's rates before the password is checked.
    pub async fn login(
        &self,
        client: &ClientKey,
        name: &str,
        password: String,
    ) -> Result<Session, PlayersError> {
        let db = self.db()?;
        let config = &self.0.config;
        self.check(
            &self.0.logins,
            client,
            "login attempts per client",
            config.logins_per_minute,
        )?;
        const WRONG: &str = "wrong name or password";
        // A name that breaks the rules names nobody.
        let key = name_key(name).map_err(|_| PlayersError::BadCredentials(WRONG))?;
        self.check(
            &self.0.logins_by_name,
            &key,
            "login attempts per name",
            config.logins_per_minute_per_name,
        )?;
        let player = db.by_name_key(&key).await?;
        let hash = player.as_ref().and_then(|p| p.password.clone());
        if password.len() > PASSWORD_MAX || !verify_password(password, hash).await {
            return Err(PlayersError::BadCredentials(WRONG));
        }
        let player = player.ok_or(PlayersError::BadCredentials(WRONG))?;
        let token = new_token();
        db.add_token(
            &player.id,
            &token_digest(&token),
            now_ms(),
            i64::try_from(config.max_tokens).unwrap_or(i64::MAX),
        )
        .await?;
        Ok(Session { player, token })
    }

    /// Gives the anonymous player `player` a name and password.
    pub async fn claim(
        &self,
        player: &PlayerRow,
        name: String,
        password: String,
    ) -> Result<PlayerRow, PlayersError> {
        let db = self.db()?;
        if player.name.is_some() {
            return Err(PlayersError::AlreadyNamed);
        }
        let key = name_key(&name)?;
        check_password(&password)?;
        if db.by_name_key(&key).await?.is_some() {
            return Err(PlayersError::NameTaken(name));
        }
        let named = Named {
            name: name.clone(),
            key,
            hash: hash_password(password).await?,
        };
        match db.claim(&player.id, &named).await? {
            Claimed::Done => {}
            Claimed::Taken => return Err(PlayersError::NameTaken(name)),
            Claimed::AlreadyNamed => return Err(PlayersError::AlreadyNamed),
        }
        db.by_id(&player.id)
            .await?
            .ok_or_else(|| PlayersError::NotFound(player.id.clone()))
    }

    /// The player a token proves (`BadCredentials` for a token that names nobody).
    pub async fn identify(&self, token: &str) -> Result<PlayerRow, PlayersError> {
        self.db()?
            .by_token(&token_digest(token))
            .await?
            .ok_or(PlayersError::BadCredentials(
                "this player token names no player",
            ))
    }

    /// A player by name (case-insensitive) or id.
    pub async fn find(&self, name_or_id: &str) -> Result<PlayerRow, PlayersError> {
        let db = self.db()?;
        if let Ok(key) = name_key(name_or_id) {
            if let Some(player) = db.by_name_key(&key).await? {
                return Ok(player);
            }
        }
        if Uuid::parse_str(name_or_id).is_ok() {
            if let Some(player) = db.by_id(name_or_id).await? {
                return Ok(player);
            }
        }
        Err(PlayersError::NotFound(name_or_id.to_string()))
    }
}
