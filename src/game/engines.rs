//! The engine factory the game layer owns: starts a configured engine by name for a client,
//! after taking the client's and the server's engine-session places (so a refusal costs
//! nothing), and checks which configured engines are reachable.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::{
    admission::{Admission, ClientKey, Permit},
    config::{Endpoint, EngineConfig, EnginesConfig},
    game::GameError,
    transport::{resolve_program, self_exe},
    uci::{
        engine::{Engine, EngineEvent},
        EngineError,
    },
};

/// Starts configured engines.
#[derive(Clone)]
pub struct EngineFactory {
    engines: Arc<EnginesConfig>,
    admission: Admission,
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
}

impl EngineFactory {
    /// A factory for the configured engines, counting sessions in `admission`.
    pub fn new(engines: EnginesConfig, admission: Admission) -> EngineFactory {
        EngineFactory {
            engines: Arc::new(engines),
            admission,
        }
    }

    /// The default engine's name: `builtin` if configured, else the first.
    pub fn default_engine(&self) -> Option<&str> {
        if self.engines.contains_key("builtin") {
            return Some("builtin");
        }
        self.engines.keys().next().map(String::as_str)
    }

    /// Starts the configured engine `name` for `client`. The client's and the server's
    /// engine-session places are taken before anything is started.
    pub async fn start(&self, client: &ClientKey, name: &str) -> Result<StartedEngine, GameError> {
        let config = self.engines.get(name).cloned().ok_or_else(|| {
            let known: Vec<&str> = self.engines.keys().map(String::as_str).collect();
            EngineError::NotConfigured(format!(
                "no engine named {name:?} is configured (configured: {})",
                known.join(", ")
            ))
        })?;
        let permit = self.admission.acquire_engine(client)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = Arc::new(move |event| {
            let _ = tx.send(event);
        });
        let engine = Engine::start(name, &config, sink).await?;
        Ok(StartedEngine {
            name: name.to_string(),
            engine,
            config,
            events: rx,
            permit,
        })
    }

    /// Every configured engine, each checked for reachability.
    pub async fn list(&self) -> Vec<EngineEntry> {
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
