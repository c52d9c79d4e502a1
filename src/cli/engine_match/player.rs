//! The engines of a match, started by their configured names through the server's own
//! [`EngineFactory`] (so a UCI or XBoard engine is reached, shaken hands with and given its
//! configured options exactly as the server does), and driven through the protocol-neutral
//! [`Engine`] handle.

use std::{net::Ipv4Addr, time::Duration};

use chessd_core::{game::Game, START_FEN};
use chessd_protocol::uci::{EngineLine, GoLimits, GuiCommand, StartPosition};
use chessd_server::{
    admission::{Admission, ClientKey, EngineRole, Permit},
    config::{EngineConfig, QuotasConfig},
    engine::{
        handle::{Engine, EngineEvent, PositionSpec, SearchRequest, SearchResult},
        EngineError,
    },
    game::{
        engines::{EngineFactory, StartedEngine},
        GameError,
    },
    Config,
};
use tokio::sync::mpsc;

/// The UCI option `--skill` sets, on engines that declare it.
pub(super) const SKILL_OPTION: &str = "Skill Level";

/// Why an engine could not be started.
#[derive(Debug)]
pub(super) enum StartError {
    /// No engine of that name is configured (the message lists the configured ones).
    Unknown(String),
    /// It is configured but could not be started, or refused its options.
    Failed(String),
}

/// Starts the configured engines of a match.
pub(super) struct Lineup {
    factory: EngineFactory,
    client: ClientKey,
    skill: Option<u32>,
}

impl Lineup {
    /// A lineup of `config`'s engines, setting [`SKILL_OPTION`] to `skill` (when given) on
    /// every engine that declares it. The server's quotas do not apply: the match's engines
    /// are all this process runs.
    pub(super) fn new(config: &Config, skill: Option<u32>) -> Lineup {
        let mut config = config.clone();
        config.quotas = QuotasConfig::unlimited();
        config.engines.max_processes = usize::MAX;
        let admission = Admission::from_config(&config);
        Lineup {
            factory: EngineFactory::new(config.engines, admission),
            client: ClientKey::Address(Ipv4Addr::LOCALHOST.into()),
            skill,
        }
    }

    /// Starts the engine configured as `name`.
    pub(super) async fn start(&self, name: &str) -> Result<Player, StartError> {
        let started = self
            .factory
            // Not a server game: no game id to show (the match's sessions are listed nowhere).
            .start(&self.client, name, uuid::Uuid::nil(), EngineRole::Opponent)
            .await
            .map_err(|e| match e {
                GameError::Engine(EngineError::NotConfigured(m)) => StartError::Unknown(m),
                e => StartError::Failed(format!("cannot start engine {name}: {e}")),
            })?;
        let StartedEngine {
            name,
            engine,
            config,
            events,
            permit,
        } = started;
        let skill = match self.skill {
            Some(level) => set_skill(&name, &engine, level).await?,
            None => None,
        };
        Ok(Player {
            name,
            engine,
            config,
            events,
            _permit: permit,
            skill,
            last_word: None,
        })
    }
}

/// Sets [`SKILL_OPTION`] to `level` when the engine declares it; the level set, if any.
async fn set_skill(name: &str, engine: &Engine, level: u32) -> Result<Option<u32>, StartError> {
    let Some(decl) = engine.identity().option(SKILL_OPTION) else {
        return Ok(None);
    };
    let value = level.to_string();
    let failed = |e: String| StartError::Failed(format!("engine {name}: --skill {level}: {e}"));
    decl.check_value(Some(&value)).map_err(failed)?;
    let line = GuiCommand::SetOption {
        name: decl.name.clone(),
        value: Some(value),
    };
    engine
        .send(line.to_string())
        .await
        .map_err(|e| failed(e.to_string()))?;
    engine.sync(None).await.map_err(|e| failed(e.to_string()))?;
    Ok(Some(level))
}

/// One engine of the match.
pub(super) struct Player {
    /// Its configured name.
    pub name: String,
    engine: Engine,
    config: EngineConfig,
    events: mpsc::UnboundedReceiver<EngineEvent>,
    /// Its place in the engine-session count, held while it runs.
    _permit: Permit,
    /// The `Skill Level` it was given.
    skill: Option<u32>,
    /// The last line it printed that was not thinking output.
    last_word: Option<String>,
}

impl Player {
    /// What it calls itself (`id name`, XBoard `myname`), else its configured name.
    pub(super) fn id_name(&self) -> &str {
        self.engine.identity().name.as_deref().unwrap_or(&self.name)
    }

    /// Its protocol and, when `--skill` set it, its skill level, for the match's header.
    pub(super) fn describe(&self) -> String {
        let mut text = format!(
            "{} ({}, {}",
            self.name,
            self.id_name(),
            self.config.protocol
        );
        if let Some(level) = self.skill {
            text.push_str(&format!(", {SKILL_OPTION} {level}"));
        }
        text.push(')');
        text
    }

    /// Its configuration.
    pub(super) fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Whether its session has ended (the engine died, or was killed after a timeout).
    pub(super) fn is_closed(&self) -> bool {
        self.engine.is_closed()
    }

    /// Starts a new game (UCI `ucinewgame`; XBoard `new` before the next search) and waits
    /// until the engine is ready (`isready`/`readyok`, `ping`/`pong`).
    pub(super) async fn new_game(&mut self) -> Result<(), EngineError> {
        self.engine.send(GuiCommand::UciNewGame.to_string()).await?;
        self.engine.sync(None).await?;
        self.drain();
        self.last_word = None;
        Ok(())
    }

    /// Its move in `game`, searched with `limits` and awaited for at most `timeout`.
    pub(super) async fn think(
        &mut self,
        game: &Game,
        limits: GoLimits,
        timeout: Option<Duration>,
    ) -> Result<SearchResult, EngineError> {
        let start = game.start_position();
        let fen = start.fen();
        let request = SearchRequest {
            position: PositionSpec {
                start: if fen == START_FEN {
                    StartPosition::StartPos
                } else {
                    StartPosition::Fen(fen)
                },
                moves: game.uci_history(),
                chess960: start.is_chess960(),
            },
            limits,
            multipv: None,
            timeout,
        };
        let result = self.engine.search(request).await;
        self.drain();
        result
    }

    /// The last line it printed that was not thinking output (`resign`, a result claim,
    /// `bestmove (none)`), as of its last search.
    pub(super) fn last_word(&self) -> Option<&str> {
        self.last_word.as_deref()
    }

    /// Takes the events received so far, keeping its last word.
    fn drain(&mut self) {
        while let Ok(event) = self.events.try_recv() {
            if let EngineEvent::Line { raw, parsed } = event {
                if !matches!(parsed, EngineLine::Info(_)) {
                    self.last_word = Some(raw);
                }
            }
        }
    }
}
