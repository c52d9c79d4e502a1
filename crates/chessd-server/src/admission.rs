//! Admission: what each client may spend, checked and counted before the cost is paid.
//!
//! A client is an API key when it sends one, else its address ([`ClientKey`]). Creating games is
//! rate-limited per client (GCRA, `governor`); games, engine sessions, jobs, WebSocket
//! connections and game exports are counted per client, and engine sessions, connections and
//! exports also in total. Each count is taken by a [`Permit`] that gives it
//! back when dropped, so a game that ends, an engine that is detached or a job that finishes
//! frees its place whatever path it took. Every check-and-take is atomic: a per-client count is
//! changed under its map entry's lock, a total with a compare-and-swap loop.

use std::{
    fmt,
    net::IpAddr,
    num::NonZeroU32,
    sync::{
        atomic::{AtomicU32, AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use dashmap::DashMap;
use governor::{clock::Clock, DefaultKeyedRateLimiter, Quota};

use crate::config::{Config, QuotasConfig};

/// Who a request is counted against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// A configured API key.
    ApiKey(Arc<str>),
    /// The client's IP address (the peer, or the one a trusted proxy names).
    Address(IpAddr),
}

impl fmt::Display for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Never the whole key: it goes to logs.
            ClientKey::ApiKey(k) => {
                write!(f, "key {}…", k.chars().take(4).collect::<String>())
            }
            ClientKey::Address(a) => write!(f, "{a}"),
        }
    }
}

impl ClientKey {
    /// Whether the client has no API key (it is known by its address only): such clients have
    /// the lower `jobs.anonymous_*` limits.
    pub fn is_anonymous(&self) -> bool {
        matches!(self, ClientKey::Address(_))
    }

    /// A form to store that names the client without holding its API key: `ip:ADDRESS` or
    /// `key:` and the key's SHA-256 in hex.
    pub fn stored(&self) -> String {
        match self {
            ClientKey::Address(a) => format!("ip:{a}"),
            ClientKey::ApiKey(k) => format!("key:{}", sha256_hex(k)),
        }
    }
}

fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A refusal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdmissionError {
    /// The client went over a rate; it may try again after the duration.
    #[error("{what}: at most {limit} per minute per client; retry in {} s", retry_after.as_secs().max(1))]
    RateLimited {
        /// What was limited.
        what: &'static str,
        /// The configured rate.
        limit: u32,
        /// When a retry will pass.
        retry_after: Duration,
    },
    /// The client holds its quota of something already.
    #[error("{what}: this client holds its limit of {limit} (quotas.{key})")]
    QuotaExceeded {
        /// What was counted.
        what: &'static str,
        /// The configuration key.
        key: &'static str,
        /// The limit.
        limit: usize,
    },
    /// The server holds its total of engine sessions.
    #[error("the server runs its limit of {limit} engine sessions (engines.max_processes)")]
    TooManyEngines {
        /// The limit.
        limit: usize,
    },
    /// The server holds its total of WebSocket connections.
    #[error(
        "the server holds its limit of {limit} WebSocket connections (websocket.max_connections)"
    )]
    TooManyConnections {
        /// The limit.
        limit: usize,
    },
    /// The server streams its total of game exports.
    #[error("the server streams its limit of {limit} game exports (limits.max_exports)")]
    TooManyExports {
        /// The limit.
        limit: usize,
    },
}

impl AdmissionError {
    /// The stable name of the refusal, as error answers carry it.
    pub fn code(&self) -> &'static str {
        match self {
            AdmissionError::RateLimited { .. } => "rate_limited",
            AdmissionError::QuotaExceeded { .. } => "quota_exceeded",
            AdmissionError::TooManyEngines { .. } => "too_many_engines",
            AdmissionError::TooManyConnections { .. } => "too_many_connections",
            AdmissionError::TooManyExports { .. } => "too_many_exports",
        }
    }

    /// When a retry may pass, in whole seconds rounded up (at least 1), for rate limits.
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            AdmissionError::RateLimited { retry_after, .. } => {
                Some((retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0)).max(1))
            }
            _ => None,
        }
    }
}

/// What one client holds now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Unfinished games it created.
    pub games: usize,
    /// Engine sessions it started.
    pub engines: usize,
    /// Jobs it submitted, queued or running.
    pub jobs: usize,
    /// WebSocket connections it holds open.
    pub sockets: usize,
    /// Game exports it has streaming.
    pub exports: usize,
}

/// What an engine session is held for, so that a client can see which of its games hold its
/// places (`GET /v1/engines/sessions`) and free one when it is at its limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineUse {
    /// The game the session belongs to.
    pub game: uuid::Uuid,
    /// The configured engine's name.
    pub engine: String,
    /// What the session does in that game.
    pub role: EngineRole,
}

/// What an engine session does in its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineRole {
    /// An engine attached to the game (hints, analysis, commands).
    Attached,
    /// An engine playing one side of the game.
    Opponent,
    /// chessd's own player of one side of a Chess 2 game.
    Chess2Player,
}

impl EngineRole {
    /// The role's stable name, as the API shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineRole::Attached => "attached",
            EngineRole::Opponent => "opponent",
            EngineRole::Chess2Player => "chess2_player",
        }
    }
}

/// What a permit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Game,
    Engine,
    Job,
    Socket,
    Export,
}

impl Kind {
    fn count(self, usage: &mut Usage) -> &mut usize {
        match self {
            Kind::Game => &mut usage.games,
            Kind::Engine => &mut usage.engines,
            Kind::Job => &mut usage.jobs,
            Kind::Socket => &mut usage.sockets,
            Kind::Export => &mut usage.exports,
        }
    }
}

struct Inner {
    quotas: QuotasConfig,
    /// The configured API keys, to recognise a stored client.
    api_keys: Vec<Arc<str>>,
    max_engines_total: usize,
    max_sockets_total: usize,
    max_exports_total: usize,
    usage: DashMap<ClientKey, Usage>,
    /// What each client's engine sessions are held for, by permit number.
    engine_uses: DashMap<ClientKey, Vec<(u32, EngineUse)>>,
    /// The next use's number (u32: it keeps a permit, and so every game actor, 8 bytes
    /// smaller; 0 is never given, a wrap after 4 billion starts is harmless).
    next_use: AtomicU32,
    engines_total: AtomicUsize,
    sockets_total: AtomicUsize,
    exports_total: AtomicUsize,
    game_rate: Option<DefaultKeyedRateLimiter<ClientKey>>,
    chat_rate: Option<(u32, DefaultKeyedRateLimiter<ClientKey>)>,
    rate_checks: std::sync::atomic::AtomicU64,
}

/// The server's admission control; cheap to clone.
#[derive(Clone)]
pub struct Admission(Arc<Inner>);

impl Admission {
    /// Admission from the `[quotas]` configuration and the totals of `[engines]`,
    /// `[websocket]` and `[limits]`.
    pub fn from_config(config: &Config) -> Admission {
        let game_rate = NonZeroU32::new(config.quotas.games_per_minute)
            .map(|n| DefaultKeyedRateLimiter::dashmap(Quota::per_minute(n)));
        Admission(Arc::new(Inner {
            quotas: config.quotas.clone(),
            api_keys: config
                .auth
                .api_keys
                .iter()
                .map(|k| k.as_str().into())
                .collect(),
            max_engines_total: config.engines.max_sessions(),
            max_sockets_total: config.websocket.max_connections,
            max_exports_total: config.limits.max_exports,
            usage: DashMap::new(),
            engine_uses: DashMap::new(),
            next_use: AtomicU32::new(1),
            engines_total: AtomicUsize::new(0),
            sockets_total: AtomicUsize::new(0),
            exports_total: AtomicUsize::new(0),
            game_rate,
            chat_rate: NonZeroU32::new(config.chat.messages_per_minute).map(|n| {
                let burst = NonZeroU32::new(config.chat.burst).unwrap_or(NonZeroU32::MIN);
                (
                    n.get(),
                    DefaultKeyedRateLimiter::dashmap(Quota::per_minute(n).allow_burst(burst)),
                )
            }),
            rate_checks: std::sync::atomic::AtomicU64::new(0),
        }))
    }

    /// The client a [`ClientKey::stored`] form names, if it still exists (an API key may have
    /// left the configuration).
    pub fn client_from_stored(&self, stored: &str) -> Option<ClientKey> {
        if let Some(address) = stored.strip_prefix("ip:") {
            return address.parse().ok().map(ClientKey::Address);
        }
        let digest = stored.strip_prefix("key:")?;
        self.0
            .api_keys
            .iter()
            .find(|k| sha256_hex(k) == digest)
            .map(|k| ClientKey::ApiKey(k.clone()))
    }

    /// Counts one game creation against the client's rate.
    pub fn check_game_rate(&self, client: &ClientKey) -> Result<(), AdmissionError> {
        let Some(limiter) = &self.0.game_rate else {
            return Ok(());
        };
        // Forget clients whose bucket is full again, so the table does not grow forever; at
        // most once every 1 024 checks, so that many clients do not make each check a sweep.
        let checks = self.0.rate_checks.fetch_add(1, Ordering::Relaxed);
        if checks.is_multiple_of(1024) && limiter.len() > 10_000 {
            limiter.retain_recent();
        }
        limiter.check_key(client).map_err(|not_until| {
            let now = limiter.clock().now();
            AdmissionError::RateLimited {
                what: "game creation",
                limit: self.0.quotas.games_per_minute,
                retry_after: not_until.wait_time_from(now),
            }
        })
    }

    /// Counts one chat message against the client's rate (`chat.messages_per_minute`).
    pub fn check_chat_rate(&self, client: &ClientKey) -> Result<(), AdmissionError> {
        let Some((limit, limiter)) = &self.0.chat_rate else {
            return Ok(());
        };
        let checks = self.0.rate_checks.fetch_add(1, Ordering::Relaxed);
        if checks.is_multiple_of(1024) && limiter.len() > 10_000 {
            limiter.retain_recent();
        }
        limiter.check_key(client).map_err(|not_until| {
            let now = limiter.clock().now();
            AdmissionError::RateLimited {
                what: "chat messages",
                limit: *limit,
                retry_after: not_until.wait_time_from(now),
            }
        })
    }

    /// Takes one of the client's unfinished-game places.
    pub fn acquire_game(&self, client: &ClientKey) -> Result<Permit, AdmissionError> {
        self.take(client, Kind::Game)
    }

    /// Takes one engine session, for the client and in total, held for `purpose`.
    pub fn acquire_engine(
        &self,
        client: &ClientKey,
        purpose: EngineUse,
    ) -> Result<Permit, AdmissionError> {
        let mut permit = self.take_counted_in_total(client, Kind::Engine)?;
        let mut number = self.0.next_use.fetch_add(1, Ordering::Relaxed);
        if number == 0 {
            number = self.0.next_use.fetch_add(1, Ordering::Relaxed);
        }
        self.0
            .engine_uses
            .entry(client.clone())
            .or_default()
            .push((number, purpose));
        permit.engine_use = number;
        Ok(permit)
    }

    /// What the client's engine sessions are held for, oldest first.
    pub fn engine_uses(&self, client: &ClientKey) -> Vec<EngineUse> {
        self.0
            .engine_uses
            .get(client)
            .map(|uses| uses.iter().map(|(_, u)| u.clone()).collect())
            .unwrap_or_default()
    }

    /// How many engine sessions one client may hold (`quotas.max_engines`).
    pub fn max_engines_per_client(&self) -> usize {
        self.0.quotas.max_engines
    }

    /// Takes one WebSocket connection, for the client and in total.
    pub fn acquire_socket(&self, client: &ClientKey) -> Result<Permit, AdmissionError> {
        self.take_counted_in_total(client, Kind::Socket)
    }

    /// Takes one game export, for the client and in total.
    pub fn acquire_export(&self, client: &ClientKey) -> Result<Permit, AdmissionError> {
        self.take_counted_in_total(client, Kind::Export)
    }

    /// The server-wide count and limit of a kind counted in total too (engines, sockets,
    /// exports).
    fn total(&self, kind: Kind) -> Option<(&AtomicUsize, usize)> {
        match kind {
            Kind::Engine => Some((&self.0.engines_total, self.0.max_engines_total)),
            Kind::Socket => Some((&self.0.sockets_total, self.0.max_sockets_total)),
            Kind::Export => Some((&self.0.exports_total, self.0.max_exports_total)),
            Kind::Game | Kind::Job => None,
        }
    }

    /// Takes a place in the server-wide count first, then the client's; gives the first back
    /// if the second is refused.
    fn take_counted_in_total(
        &self,
        client: &ClientKey,
        kind: Kind,
    ) -> Result<Permit, AdmissionError> {
        if let Some((total, max)) = self.total(kind) {
            total
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < max).then_some(n + 1)
                })
                .map_err(|_| match kind {
                    Kind::Socket => AdmissionError::TooManyConnections { limit: max },
                    Kind::Export => AdmissionError::TooManyExports { limit: max },
                    _ => AdmissionError::TooManyEngines { limit: max },
                })?;
        }
        self.take(client, kind).inspect_err(|_| {
            if let Some((total, _)) = self.total(kind) {
                total.fetch_sub(1, Ordering::AcqRel);
            }
        })
    }

    /// Takes one of the client's job places.
    pub fn acquire_job(&self, client: &ClientKey) -> Result<Permit, AdmissionError> {
        self.take(client, Kind::Job)
    }

    /// What a client holds now.
    pub fn usage(&self, client: &ClientKey) -> Usage {
        self.0.usage.get(client).map(|u| *u).unwrap_or_default()
    }

    /// Engine sessions alive in the whole server.
    pub fn engines_total(&self) -> usize {
        self.0.engines_total.load(Ordering::Acquire)
    }

    fn take(&self, client: &ClientKey, kind: Kind) -> Result<Permit, AdmissionError> {
        let q = &self.0.quotas;
        let (what, key, limit) = match kind {
            Kind::Game => ("unfinished games", "max_ongoing_games", q.max_ongoing_games),
            Kind::Engine => (
                "engine sessions (GET /v1/engines/sessions lists them)",
                "max_engines",
                q.max_engines,
            ),
            Kind::Job => ("jobs", "max_jobs", q.max_jobs),
            Kind::Socket => ("WebSocket connections", "max_sockets", q.max_sockets),
            Kind::Export => ("game exports", "max_exports", q.max_exports),
        };
        let mut usage = self.0.usage.entry(client.clone()).or_default();
        let count = kind.count(&mut usage);
        if *count >= limit {
            return Err(AdmissionError::QuotaExceeded { what, key, limit });
        }
        *count += 1;
        Ok(Permit {
            admission: self.clone(),
            client: client.clone(),
            kind,
            engine_use: 0,
        })
    }

    fn give_back(&self, client: &ClientKey, kind: Kind, engine_use: u32) {
        if engine_use != 0 {
            self.0.engine_uses.remove_if_mut(client, |_, uses| {
                uses.retain(|(number, _)| *number != engine_use);
                uses.is_empty()
            });
        }
        if let Some((total, _)) = self.total(kind) {
            total.fetch_sub(1, Ordering::AcqRel);
        }
        // Remove the entry when it holds nothing, under the entry's lock.
        self.0.usage.remove_if_mut(client, |_, usage| {
            let count = kind.count(usage);
            *count = count.saturating_sub(1);
            *usage == Usage::default()
        });
    }
}

/// One counted place (a game, an engine session, a job, a connection or an export); given back
/// when dropped.
pub struct Permit {
    admission: Admission,
    client: ClientKey,
    kind: Kind,
    /// The number of the engine use it holds (0: none).
    engine_use: u32,
}

impl Permit {
    /// The client it is counted against.
    pub fn client(&self) -> &ClientKey {
        &self.client
    }

    /// Whether its client has no API key (it is known by its address only).
    pub fn anonymous(&self) -> bool {
        self.client.is_anonymous()
    }
}

impl fmt::Debug for Permit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Permit({:?} for {})", self.kind, self.client)
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.admission
            .give_back(&self.client, self.kind, self.engine_use);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admission(edit: impl FnOnce(&mut Config)) -> Admission {
        let mut config = Config::defaults();
        edit(&mut config);
        Admission::from_config(&config)
    }

    fn client(n: u8) -> ClientKey {
        ClientKey::Address(IpAddr::from([127, 0, 0, n]))
    }

    fn analysis(game: u128) -> EngineUse {
        EngineUse {
            game: uuid::Uuid::from_u128(game),
            engine: "builtin".into(),
            role: EngineRole::Attached,
        }
    }

    #[test]
    fn a_client_sees_what_its_engine_sessions_are_held_for_until_they_end() {
        let a = admission(|c| c.quotas.max_engines = 3);
        let first = a.acquire_engine(&client(1), analysis(10)).unwrap();
        let opponent = EngineUse {
            game: uuid::Uuid::from_u128(11),
            engine: "stockfish".into(),
            role: EngineRole::Opponent,
        };
        let second = a.acquire_engine(&client(1), opponent.clone()).unwrap();
        let _other = a.acquire_engine(&client(2), analysis(12)).unwrap();
        assert_eq!(
            a.engine_uses(&client(1)),
            vec![analysis(10), opponent.clone()]
        );
        assert_eq!(a.engine_uses(&client(2)), vec![analysis(12)]);
        drop(first);
        assert_eq!(a.engine_uses(&client(1)), vec![opponent]);
        drop(second);
        assert!(a.engine_uses(&client(1)).is_empty());
        assert!(!a.0.engine_uses.contains_key(&client(1)));
        // A refused attempt leaves no use behind.
        let a = admission(|c| c.quotas.max_engines = 1);
        let _held = a.acquire_engine(&client(1), analysis(1)).unwrap();
        assert!(a.acquire_engine(&client(1), analysis(2)).is_err());
        assert_eq!(a.engine_uses(&client(1)), vec![analysis(1)]);
    }

    #[test]
    fn quotas_are_per_client_and_given_back_on_drop() {
        let a = admission(|c| c.quotas.max_ongoing_games = 2);
        let one = a.acquire_game(&client(1)).unwrap();
        let two = a.acquire_game(&client(1)).unwrap();
        assert!(matches!(
            a.acquire_game(&client(1)),
            Err(AdmissionError::QuotaExceeded { limit: 2, .. })
        ));
        // Another client is not affected.
        let other = a.acquire_game(&client(2)).unwrap();
        drop(one);
        let three = a.acquire_game(&client(1)).unwrap();
        assert_eq!(a.usage(&client(1)).games, 2);
        drop((two, three, other));
        assert_eq!(a.usage(&client(1)), Usage::default());
        assert!(a.0.usage.is_empty());
    }

    #[test]
    fn engine_sessions_are_capped_in_total() {
        let a = admission(|c| {
            c.engines.max_processes = 3;
            c.quotas.max_engines = 2;
        });
        let p1 = a.acquire_engine(&client(1), analysis(1)).unwrap();
        let _p2 = a.acquire_engine(&client(1), analysis(1)).unwrap();
        assert!(matches!(
            a.acquire_engine(&client(1), analysis(1)),
            Err(AdmissionError::QuotaExceeded { .. })
        ));
        // The refused per-client attempt did not keep a place in the total.
        assert_eq!(a.engines_total(), 2);
        let _p3 = a.acquire_engine(&client(2), analysis(2)).unwrap();
        assert_eq!(
            a.acquire_engine(&client(3), analysis(3)).unwrap_err(),
            AdmissionError::TooManyEngines { limit: 3 }
        );
        drop(p1);
        assert!(a.acquire_engine(&client(3), analysis(3)).is_ok());
    }

    #[test]
    fn sockets_are_capped_per_client_and_in_total() {
        let a = admission(|c| {
            c.websocket.max_connections = 3;
            c.quotas.max_sockets = 2;
        });
        let held: Vec<Permit> = (0..2)
            .map(|_| a.acquire_socket(&client(1)).unwrap())
            .collect();
        assert!(matches!(
            a.acquire_socket(&client(1)),
            Err(AdmissionError::QuotaExceeded { .. })
        ));
        let third = a.acquire_socket(&client(2)).unwrap();
        assert_eq!(
            a.acquire_socket(&client(3)).unwrap_err(),
            AdmissionError::TooManyConnections { limit: 3 }
        );
        drop(third);
        assert!(a.acquire_socket(&client(3)).is_ok());
        drop(held);
    }

    #[test]
    fn exports_are_capped_per_client_and_in_total() {
        let a = admission(|c| {
            c.limits.max_exports = 3;
            c.quotas.max_exports = 2;
        });
        let first = a.acquire_export(&client(1)).unwrap();
        let _second = a.acquire_export(&client(1)).unwrap();
        assert!(matches!(
            a.acquire_export(&client(1)),
            Err(AdmissionError::QuotaExceeded {
                key: "max_exports",
                ..
            })
        ));
        let _third = a.acquire_export(&client(2)).unwrap();
        assert_eq!(
            a.acquire_export(&client(3)).unwrap_err(),
            AdmissionError::TooManyExports { limit: 3 }
        );
        drop(first);
        assert_eq!(a.usage(&client(1)).exports, 1);
        assert!(a.acquire_export(&client(3)).is_ok());
    }

    #[test]
    fn the_total_holds_under_concurrent_takers() {
        let a = admission(|c| {
            c.engines.max_processes = 50;
            c.quotas.max_engines = 1000;
        });
        let held = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for t in 0..8u8 {
                let (a, held) = (&a, &held);
                s.spawn(move || {
                    for _ in 0..100 {
                        if let Ok(p) = a.acquire_engine(&client(t), analysis(t.into())) {
                            held.lock().unwrap().push(p);
                        }
                    }
                });
            }
        });
        assert_eq!(held.lock().unwrap().len(), 50);
        assert_eq!(a.engines_total(), 50);
    }

    #[test]
    fn game_creation_is_rate_limited_per_client() {
        let a = admission(|c| c.quotas.games_per_minute = 3);
        for _ in 0..3 {
            a.check_game_rate(&client(1)).unwrap();
        }
        match a.check_game_rate(&client(1)) {
            Err(AdmissionError::RateLimited { retry_after, .. }) => {
                assert!(retry_after > Duration::from_secs(1), "{retry_after:?}");
                assert!(retry_after <= Duration::from_secs(20), "{retry_after:?}");
            }
            other => panic!("{other:?}"),
        }
        a.check_game_rate(&client(2)).unwrap();
        let unlimited = admission(|c| c.quotas.games_per_minute = 0);
        for _ in 0..1000 {
            unlimited.check_game_rate(&client(1)).unwrap();
        }
    }
}
