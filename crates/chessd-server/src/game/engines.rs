//! The engine factory the game layer owns: starts a configured engine by name for a client,
//! after taking the client's and the server's engine-session places (so a refusal costs
//! nothing), and knows which configured engines are reachable (probed at most every
//! [`PROBE_EVERY`], in the background).

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use tokio::sync::mpsc;

use crate::{
    admission::{Admission, ClientKey, EngineRole, EngineUse, Permit},
    config::{Endpoint, EngineConfig, EnginesConfig},
    engine::{
        handle::{Engine, EngineEvent},
        EngineError,
    },
    game::GameError,
    transport::{resolve_program, self_exe},
};

/// How old the reachability of the configured engines may be before `GET /v1/engines` has
/// it probed again (in the background: the answer never waits for a probe but the first).
pub const PROBE_EVERY: Duration = Duration::from_secs(15);

/// Starts configured engines.
#[derive(Clone)]
pub struct EngineFactory {
    engines: Arc<EnginesConfig>,
    admission: Admission,
    reachability: Arc<Reachability>,
    /// Places to start an engine in: one per core. An engine waits for one before it is started
    /// (its handshake deadline runs from then), so that a burst of starts on few cores is slow
    /// rather than failed.
    starting: Arc<tokio::sync::Semaphore>,
}

/// The last probe of every configured engine, shared by the factory's clones.
#[derive(Default)]
struct Reachability {
    /// When the engines were last probed, and what was found.
    last: std::sync::Mutex<Option<(Instant, Vec<EngineEntry>)>>,
    /// Held by the first probe, so that callers arriving meanwhile wait for it.
    first: tokio::sync::Mutex<()>,
    /// Whether a background probe runs (at most one at a time).
    probing: AtomicBool,
}

/// A started engine: the session, its configuration, its events, and its place in the
/// engine-session counts (held for as long as the session lives).
pub struct StartedEngine {
    /// Its configured name.
    pub name: String,
    /// The session.
    pub engine: Engine,
    /// Its configuration.
    pub config: EngineConfig,
    /// Its events.
    pub events: mpsc::UnboundedReceiver<EngineEvent>,
    /// Its place in the engine-session counts.
    pub permit: Permit,
}

/// One configured engine, as `GET /v1/engines` lists it.
#[derive(Clone, Debug)]
pub struct EngineEntry {
    /// Its name (what clients ask for).
    pub name: String,
    /// `builtin`, `command`, `tcp` or `invalid`.
    pub kind: &'static str,
    /// A quick check: the program exists, or the address accepts a connection in time.
    pub reachable: bool,
    /// Whether it is the default engine.
    pub default: bool,
    /// Whether it can be a Chess 2 opponent: chessd's own engine, whose Chess 2 player runs in
    /// the server (UCI carries no duels).
    pub plays_chess2: bool,
}

impl EngineFactory {
    /// The engines' configuration (their limits on searches among it).
    pub fn config(&self) -> &EnginesConfig {
        &self.engines
    }

    /// A factory for the configured engines, counting sessions in `admission`.
    pub fn new(engines: EnginesConfig, admission: Admission) -> EngineFactory {
        EngineFactory {
            engines: Arc::new(engines),
            admission,
            reachability: Arc::default(),
            starting: Arc::new(tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(1, usize::from),
            )),
        }
    }

    /// The default engine's name: `builtin` if configured, else the first.
    pub fn default_engine(&self) -> Option<&str> {
        if self.engines.contains_key("builtin") {
            return Some("builtin");
        }
        self.engines.keys().next().map(String::as_str)
    }

    /// Checks that `name` is a configured engine that can play Chess 2: one of this binary
    /// (`builtin = true`), whose Chess 2 player runs in the server (UCI carries no duels).
    pub fn check_chess2_player(&self, name: &str) -> Result<(), GameError> {
        let config = self.engines.get(name).ok_or_else(|| {
            GameError::Engine(crate::engine::EngineError::NotConfigured(name.to_string()))
        })?;
        match config.endpoint.endpoint() {
            Ok(Endpoint::Builtin) => Ok(()),
            _ => Err(GameError::Engine(crate::engine::EngineError::Unsupported(
                format!(
                "engine '{name}' cannot play Chess 2: only chessd's own engine (builtin = true) \
                 does"
            ),
            ))),
        }
    }

    /// Starts the configured engine `name` for `client`, to serve `game` as `role`. The
    /// client's and the server's engine-session places are taken before anything is started.
    pub async fn start(
        &self,
        client: &ClientKey,
        name: &str,
        game: uuid::Uuid,
        role: EngineRole,
    ) -> Result<StartedEngine, GameError> {
        let config = self.engines.get(name).cloned().ok_or_else(|| {
            let known: Vec<&str> = self.engines.keys().map(String::as_str).collect();
            EngineError::NotConfigured(format!(
                "no engine named {name:?} is configured (configured: {})",
                known.join(", ")
            ))
        })?;
        let purpose = EngineUse {
            game,
            engine: name.to_string(),
            role,
        };
        let permit = self.admission.acquire_engine(client, purpose)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = Arc::new(move |event| {
            let _ = tx.send(event);
        });
        let engine = {
            let _place = self.starting.acquire().await;
            Engine::start(name, &config, sink).await
        };
        // A start is a probe too: what it found is news for the engine list.
        match &engine {
            Ok(_) => self.note_reachable(name, true),
            Err(EngineError::Unreachable(_)) => self.note_reachable(name, false),
            Err(_) => {}
        }
        let engine = engine?;
        Ok(StartedEngine {
            name: name.to_string(),
            engine,
            config,
            events: rx,
            permit,
        })
    }

    /// Every configured engine with its reachability as last probed: the first call probes
    /// (every engine at once, each within its connect timeout); later calls answer at once
    /// from the last probe and, when it is older than [`PROBE_EVERY`], have the engines probed
    /// again in the background. So a client cannot make the server connect to a TCP engine (a
    /// new engine process behind `socat … fork`) on every call.
    pub async fn list(&self) -> Vec<EngineEntry> {
        if let Some(entries) = self.cached_list() {
            return entries;
        }
        let _first = self.reachability.first.lock().await;
        if let Some(entries) = self.cached_list() {
            return entries;
        }
        let entries = self.probe().await;
        self.store_probe(entries.clone());
        entries
    }

    /// The last probe's entries (starting a background probe when they are old), if any.
    fn cached_list(&self) -> Option<Vec<EngineEntry>> {
        let last = self.lock_last().clone();
        let (at, entries) = last?;
        if at.elapsed() >= PROBE_EVERY && !self.reachability.probing.swap(true, Ordering::AcqRel) {
            let factory = self.clone();
            tokio::spawn(async move {
                let entries = factory.probe().await;
                factory.store_probe(entries);
                factory.reachability.probing.store(false, Ordering::Release);
            });
        }
        Some(entries)
    }

    fn lock_last(&self) -> std::sync::MutexGuard<'_, Option<(Instant, Vec<EngineEntry>)>> {
        self.reachability
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn store_probe(&self, entries: Vec<EngineEntry>) {
        *self.lock_last() = Some((Instant::now(), entries));
    }

    /// Records what starting engine `name` found out about its reachability.
    fn note_reachable(&self, name: &str, reachable: bool) {
        if let Some((_, entries)) = self.lock_last().as_mut() {
            if let Some(entry) = entries.iter_mut().find(|e| e.name == name) {
                entry.reachable = reachable;
            }
        }
    }

    /// Checks every configured engine now.
    async fn probe(&self) -> Vec<EngineEntry> {
        let default = self.default_engine().map(str::to_string);
        let checks = self.engines.iter().map(|(name, config)| {
            let default = default.as_deref() == Some(name.as_str());
            async move {
                let (kind, reachable) = reachable(config).await;
                EngineEntry {
                    name: name.clone(),
                    kind,
                    reachable,
                    default,
                    plays_chess2: matches!(config.endpoint.endpoint(), Ok(Endpoint::Builtin)),
                }
            }
        });
        futures_util::future::join_all(checks).await
    }
}

async fn reachable(config: &EngineConfig) -> (&'static str, bool) {
    match config.endpoint.endpoint() {
        Ok(Endpoint::Builtin) => ("builtin", self_exe().is_file()),
        Ok(Endpoint::Command { program, .. }) => ("command", resolve_program(&program).is_some()),
        Ok(Endpoint::Tcp(addr)) => {
            let limit = config.endpoint.connect_timeout();
            let ok = matches!(
                tokio::time::timeout(limit, tokio::net::TcpStream::connect(&addr)).await,
                Ok(Ok(_))
            );
            ("tcp", ok)
        }
        Err(_) => ("invalid", false),
    }
}
