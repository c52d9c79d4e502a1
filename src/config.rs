//! Server configuration: embedded defaults (`config/default.toml`), an optional file, then
//! `CHESSD_…` environment variables, each overriding the one before.

use std::{path::Path, time::Duration};

use figment::{
    providers::{Env, Format, Toml},
    Figment,
};
use serde::{Deserialize, Serialize};

/// The defaults compiled into the binary, so `chessd` runs with no files around it.
pub const DEFAULT_TOML: &str = include_str!("../config/default.toml");

/// The top-level keys and sections, for filtering environment variables.
const SECTIONS: [&str; 6] = [
    "bind",
    "workers",
    "limits",
    "games",
    "webhooks",
    "websocket",
];

/// The whole configuration.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Address the HTTP server listens on.
    pub bind: String,
    /// HTTP worker threads (0 = one per core).
    pub workers: usize,
    /// Request and resource limits.
    pub limits: Limits,
    /// Game defaults.
    pub games: GamesConfig,
    /// Terminate webhooks.
    pub webhooks: WebhookConfig,
    /// WebSocket connection limits.
    pub websocket: WebSocketConfig,
}

/// Request and resource limits.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest accepted request body in bytes.
    pub max_body_bytes: usize,
    /// Most games alive at once.
    pub max_games: usize,
}

/// Defaults for games.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GamesConfig {
    /// Idle timeout in seconds; 0 means never.
    pub idle_timeout_secs: u64,
    /// Recent events kept per game for reconnecting clients.
    pub event_history: usize,
    /// Seconds to wait at shutdown for games to stop and hooks to run.
    pub shutdown_grace_secs: u64,
}

impl GamesConfig {
    /// The default idle timeout, `None` for never.
    pub fn idle_timeout(&self) -> Option<Duration> {
        (self.idle_timeout_secs > 0).then(|| Duration::from_secs(self.idle_timeout_secs))
    }
}

/// Terminate webhooks.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    /// Hosts (`host` or `host:port`) webhooks may be sent to.
    pub allowed_hosts: Vec<String>,
    /// Time allowed for one POST, in milliseconds.
    pub timeout_ms: u64,
}

/// WebSocket limits.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebSocketConfig {
    /// Largest accepted client frame in bytes.
    pub max_frame_bytes: usize,
    /// Messages per second a connection may send.
    pub max_messages_per_sec: u32,
    /// Seconds between server pings.
    pub heartbeat_secs: u64,
    /// Seconds of client silence after which the connection is dropped.
    pub client_timeout_secs: u64,
}

/// A configuration that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(#[from] Box<figment::Error>);

impl Config {
    /// Loads the embedded defaults, then `file` if given, then `CHESSD_…` variables.
    pub fn load(file: Option<&Path>) -> Result<Config, ConfigError> {
        Config::figment(file)
            .extract()
            .map_err(|e| ConfigError(Box::new(e)))
    }

    /// The embedded defaults alone (tests start from these).
    pub fn defaults() -> Config {
        Figment::from(Toml::string(DEFAULT_TOML))
            .extract()
            .unwrap_or_else(|e| panic!("embedded config/default.toml is invalid: {e}"))
    }

    fn figment(file: Option<&Path>) -> Figment {
        let mut figment = Figment::from(Toml::string(DEFAULT_TOML));
        if let Some(path) = file {
            figment = figment.merge(Toml::file_exact(path));
        }
        // Only variables naming a configuration section are read, so unrelated CHESSD_… variables
        // (test knobs, for example) are not mistaken for unknown keys.
        let env = Env::prefixed("CHESSD_")
            .filter(|key| {
                let key = key.as_str().to_ascii_lowercase();
                SECTIONS.iter().any(|s| key.starts_with(s))
            })
            .split("__");
        figment.merge(env)
    }
}

#[cfg(test)]
#[allow(clippy::result_large_err)] // figment's Jail returns its own error type
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults_load() {
        let c = Config::defaults();
        assert_eq!(c.bind, "127.0.0.1:8080");
        assert_eq!(c.games.idle_timeout(), None);
    }

    #[test]
    fn environment_overrides_file_overrides_defaults() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "c.toml",
                "bind = \"127.0.0.1:1\"\n[games]\nidle_timeout_secs = 5",
            )?;
            jail.set_env("CHESSD_BIND", "127.0.0.1:2");
            let c = Config::load(Some(Path::new("c.toml"))).map_err(|e| e.to_string())?;
            assert_eq!(c.bind, "127.0.0.1:2");
            assert_eq!(c.games.idle_timeout(), Some(Duration::from_secs(5)));
            Ok(())
        });
    }

    #[test]
    fn unknown_keys_are_errors() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("c.toml", "bogus = 1")?;
            assert!(Config::load(Some(Path::new("c.toml"))).is_err());
            Ok(())
        });
    }
}
