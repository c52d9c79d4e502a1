//! Server configuration: embedded defaults (`config/default.toml`), an optional file, then
//! `CHESSD_…` environment variables, each overriding the one before.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Duration,
};

use figment::{
    providers::{Env, Format, Toml},
    Figment,
};
use serde::{Deserialize, Serialize};

mod pairing;
pub use pairing::{PairingConfig, PoolConfig};

/// The defaults compiled into the binary, so `chessd` runs with no files around it.
pub const DEFAULT_TOML: &str = include_str!("../../../config/default.toml");

/// The top-level keys and sections, for filtering environment variables.
const SECTIONS: [&str; 17] = [
    "bind",
    "chat",
    "workers",
    "auth",
    "quotas",
    "limits",
    "games",
    "store",
    "webhooks",
    "websocket",
    "engines",
    "jobs",
    "gct_workers",
    "cluster",
    "lobby",
    "pairing",
    "players",
];

/// The whole configuration.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Address the HTTP server listens on.
    pub bind: String,
    /// HTTP worker threads (0 = one per core).
    pub workers: usize,
    /// Who may do what beyond a game's own secrets: the operator, API keys, trusted proxies.
    pub auth: AuthConfig,
    /// What one client may spend: rates and counts.
    pub quotas: QuotasConfig,
    /// Request and resource limits.
    pub limits: Limits,
    /// Game defaults.
    pub games: GamesConfig,
    /// Where games are kept.
    pub store: StoreConfig,
    /// Terminate webhooks.
    pub webhooks: WebhookConfig,
    /// WebSocket connection limits.
    pub websocket: WebSocketConfig,
    /// UCI engines games may attach, by name, and the cap on engine sessions. Clients pick a
    /// name; they never give a path or host.
    pub engines: EnginesConfig,
    /// Perft and puzzle jobs: pool size and limits.
    pub jobs: JobsConfig,
    /// Grand Chess Tree workers perft jobs may hand tasks to, by name (none: local threads only).
    #[serde(default)]
    pub gct_workers: BTreeMap<String, EndpointConfig>,
    /// Several nodes on one PostgreSQL (off unless `advertise_url` is set).
    pub cluster: ClusterConfig,
    /// The lobby: seeks and the lobby socket.
    pub lobby: LobbyConfig,
    /// Games' chats: message length, rate and history.
    #[serde(default)]
    pub chat: ChatConfig,
    /// Quick pairing: its pools and how they are paired.
    pub pairing: PairingConfig,
    /// Players: their creation and login limits, tokens and cookie.
    pub players: PlayersConfig,
}

/// The `[chat]` section: the players' and spectators' chats of games.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChatConfig {
    /// Characters a message may have at most.
    pub max_length: usize,
    /// Messages a client may send per minute, over every game (0 = no rate limit).
    pub messages_per_minute: u32,
    /// Messages a client may send at once before the rate applies.
    pub burst: u32,
    /// Recent messages each room of a game keeps in memory (for `GET …/chat` and late joiners).
    pub history: usize,
}

impl Default for ChatConfig {
    fn default() -> ChatConfig {
        ChatConfig {
            max_length: 140,
            messages_per_minute: 20,
            burst: 5,
            history: 50,
        }
    }
}

/// The `[players]` section: what creating players and logging in may cost, and the session.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlayersConfig {
    /// Players one client may create per minute (0: no limit).
    pub creates_per_minute: u32,
    /// Players the whole server creates per minute (0: no limit).
    pub creates_per_minute_total: u32,
    /// Login attempts one client may make per minute (0: no limit).
    pub logins_per_minute: u32,
    /// Login attempts per minute on one name, whoever makes them (0: no limit).
    pub logins_per_minute_per_name: u32,
    /// Tokens a player keeps (each login makes one; the oldest are forgotten).
    pub max_tokens: usize,
    /// Whether the player cookie is `Secure` (sent over HTTPS only).
    pub cookie_secure: bool,
    /// Recent games a player page lists.
    pub recent_games: usize,
    /// Games one PGN export of a player's games holds at most (a page; `before` pages on).
    pub max_pgn_games: usize,
}

/// The `[lobby]` section: how long seeks live and how the lobby socket follows them.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LobbyConfig {
    /// Seconds a seek lives when no lobby socket of its owner holds it.
    pub seek_ttl_secs: u64,
    /// Seconds a seek held by its owner's lobby socket outlives the socket.
    pub seek_grace_secs: u64,
    /// Milliseconds between two reads of the seeks while lobby sockets are open.
    pub poll_ms: u64,
}

/// Several chessd nodes sharing one PostgreSQL store: membership and shard leases.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    /// This node's address as the other nodes reach it (`http://HOST:PORT`); empty = not in a
    /// cluster. Needs a `postgres://` store.
    pub advertise_url: String,
    /// Shards games are grouped in (the same on every node).
    pub shards: u32,
    /// Milliseconds between two heartbeats (lease renewals) of this node.
    pub heartbeat_ms: u64,
    /// Milliseconds a lease (a node's, a shard's) lasts without renewal; a dead node's games are
    /// served again by another node about this long after its last heartbeat.
    pub lease_ms: u64,
    /// Milliseconds a request for a game whose shard has no owner (during a failover) waits
    /// for one before it is answered `game_unavailable`.
    pub placement_wait_ms: u64,
    /// Plies each task of the shared perft queue counts: a perft job deeper than this is split
    /// into tasks that every node and remote worker takes (0: jobs run where they start).
    pub perft_task_depth: u32,
    /// Threads this node gives to the shared perft queue (0: one per core).
    pub task_threads: usize,
    /// Milliseconds a shared task's lease lasts without renewal; a task whose worker died is
    /// leased again about this long after its last renewal.
    pub task_lease_ms: u64,
    /// MiB of hash table for this node's shared tasks (each of two tables: with and without
    /// statistics; 0: none).
    pub task_hash_mb: usize,
    /// Leases of shared tasks one worker token may hold at once (more: `429 quota_exceeded`).
    pub worker_max_leases: usize,
    /// Percent of each remote worker's task results the job's node counts again before the
    /// job is accepted (at least one task of each worker); a result that differs fails the job
    /// with `result_mismatch`.
    pub verify_percent: u32,
}

impl ClusterConfig {
    /// How long a request waits for its game's shard to have a reachable owner.
    pub fn placement_wait(&self) -> Duration {
        Duration::from_millis(self.placement_wait_ms)
    }

    /// Whether this node is a cluster member.
    pub fn enabled(&self) -> bool {
        !self.advertise_url.is_empty()
    }
}

/// Where a line-protocol peer (a UCI engine or a Grand Chess Tree worker) lives: exactly one of
/// `builtin`, `command` or `tcp`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    /// This chessd binary itself (`chessd engine` for engines, `chessd worker` for workers).
    #[serde(default)]
    pub builtin: bool,
    /// A program to start: an absolute path, or a bare name looked up in `PATH` (and in
    /// `/usr/games`, where Debian installs Stockfish).
    pub command: Option<String>,
    /// Arguments for `command`.
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory for `command`.
    pub working_dir: Option<PathBuf>,
    /// A TCP address (`host:port`) to connect to instead of starting a program.
    pub tcp: Option<String>,
    /// Milliseconds allowed to start the program or connect to the address.
    #[serde(default = "default_connect_timeout_ms")]
    pub connect_timeout_ms: u64,
}

fn default_connect_timeout_ms() -> u64 {
    3000
}

/// How to reach a configured peer, checked: see [`EndpointConfig::endpoint`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// This binary with one subcommand (`engine` or `worker`).
    Builtin,
    /// A program with arguments and an optional working directory.
    Command {
        /// Program name or path.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its working directory.
        working_dir: Option<PathBuf>,
    },
    /// A TCP address.
    Tcp(String),
}

impl EndpointConfig {
    /// The one way this entry says to reach its peer, or why the entry is wrong.
    pub fn endpoint(&self) -> Result<Endpoint, String> {
        match (self.builtin, &self.command, &self.tcp) {
            (true, None, None) => Ok(Endpoint::Builtin),
            (false, Some(program), None) => Ok(Endpoint::Command {
                program: program.clone(),
                args: self.args.clone(),
                working_dir: self.working_dir.clone(),
            }),
            (false, None, Some(addr)) => Ok(Endpoint::Tcp(addr.clone())),
            _ => Err("give exactly one of `builtin = true`, `command` or `tcp`".to_string()),
        }
    }

    /// The connect (or start) timeout.
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_millis(self.connect_timeout_ms)
    }
}

/// The `[engines]` section: the cap on engine sessions, and the named engines (`[engines.NAME]`).
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct EnginesConfig {
    /// Engine sessions (processes or TCP connections) alive at once in the whole server (0:
    /// four per core); one more attach is refused with `too_many_engines` and nothing is
    /// started.
    pub max_processes: usize,
    /// Longest time a client's search limits may give (`movetime`, `wtime`, `btime`, `winc`,
    /// `binc`), in milliseconds; more is `limit_exceeded`.
    pub max_movetime_ms: u64,
    /// An analysis is stopped after this many seconds, infinite or not.
    pub max_analysis_secs: u64,
    /// An analysis nobody watches (no WebSocket on its game) is stopped after this many seconds.
    pub unwatched_analysis_secs: u64,
    /// An engine opponent ponders at most this many seconds while the player thinks.
    pub max_ponder_secs: u64,
    /// The configured engines by name.
    #[serde(flatten)]
    pub named: BTreeMap<String, EngineConfig>,
}

impl EnginesConfig {
    /// Engine sessions allowed at once: `max_processes`, or when 0 four per core (a session
    /// mostly waits for its game's moves; starting many at once on few cores is what fails).
    pub fn max_sessions(&self) -> usize {
        match self.max_processes {
            0 => 4 * std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        }
    }
}

impl std::ops::Deref for EnginesConfig {
    type Target = BTreeMap<String, EngineConfig>;
    fn deref(&self) -> &Self::Target {
        &self.named
    }
}

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineProtocol {
    /// UCI (`uci` … `uciok`): Stockfish and most modern engines.
    #[default]
    Uci,
    /// XBoard/WinBoard (CECP, `xboard` + `protover 2` … `feature done=1`): Sjeng, Phalanx,
    /// Fairy-Max, GNU Chess without `--uci`.
    Xboard,
}

impl std::fmt::Display for EngineProtocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EngineProtocol::Uci => "uci",
            EngineProtocol::Xboard => "xboard",
        })
    }
}

/// A named engine (UCI unless `protocol = "xboard"`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// Where the engine lives.
    #[serde(flatten)]
    pub endpoint: EndpointConfig,
    /// The protocol it speaks: `uci` (the default) or `xboard`.
    #[serde(default)]
    pub protocol: EngineProtocol,
    /// Options set after the handshake (e.g. `Hash = 64`, `Threads = 1`): UCI `setoption`; for
    /// XBoard, `Hash` is `memory`, `Threads` is `cores` and others are its `feature option`s.
    #[serde(default)]
    pub options: BTreeMap<String, toml_value::OptionValue>,
    /// Milliseconds allowed for each step of the handshake (`uci`/`uciok`, `isready`/`readyok`;
    /// XBoard: `feature done=1` after `done=0`, `ping`/`pong`).
    #[serde(default = "default_handshake_timeout_ms")]
    pub handshake_timeout_ms: u64,
    /// Milliseconds an engine may take beyond a search's own time before the request fails with
    /// `engine_timeout` (and, for searches without a time limit, the whole allowance).
    #[serde(default = "default_search_timeout_ms")]
    pub search_timeout_ms: u64,
    /// Whether the engine, as a game's engine opponent, thinks on its opponent's time (UCI
    /// `go ponder`, then `ponderhit` when the expected reply is played, `stop` and a new search
    /// when another is). Its clock runs only on its own turn, as always.
    #[serde(default)]
    pub ponder: bool,
    /// The largest `Hash` (MiB) anyone may give this engine, the configuration included.
    #[serde(default = "default_engine_max_hash_mb")]
    pub max_hash_mb: u64,
    /// The most `Threads` anyone may give this engine, the configuration included.
    #[serde(default = "default_engine_max_threads")]
    pub max_threads: u64,
}

fn default_engine_max_hash_mb() -> u64 {
    256
}

fn default_engine_max_threads() -> u64 {
    1
}

fn default_handshake_timeout_ms() -> u64 {
    5000
}

fn default_search_timeout_ms() -> u64 {
    10000
}

/// Values of UCI options in the configuration.
pub mod toml_value {
    use serde::{Deserialize, Serialize};

    /// A UCI option value: a number, a boolean (check) or text (string, combo).
    #[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
    #[serde(untagged)]
    pub enum OptionValue {
        /// A check option.
        Bool(bool),
        /// A spin option.
        Int(i64),
        /// A string or combo option.
        Text(String),
    }

    impl std::fmt::Display for OptionValue {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                OptionValue::Bool(b) => write!(f, "{b}"),
                OptionValue::Int(n) => write!(f, "{n}"),
                OptionValue::Text(t) => f.write_str(t),
            }
        }
    }
}

/// Perft and puzzle jobs.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JobsConfig {
    /// Threads of the job pool shared by all jobs (0 = one per core).
    pub pool_threads: usize,
    /// Unfinished (queued or running) jobs at once; one more gets `503 too_many_jobs`.
    pub max_jobs: usize,
    /// Deepest perft a client may ask for.
    pub max_perft_depth: u32,
    /// Most threads one job may ask for (0 = the pool size).
    pub max_threads: usize,
    /// Largest perft hash table a job may ask for, in MiB.
    pub max_hash_mb: usize,
    /// Longest mate (in moves) a puzzle may ask for.
    pub max_mate_in: u32,
    /// Longest mate (in moves) a puzzle may ask for in the find mode (`"mode": "find"`).
    pub max_find_mate_in: u32,
    /// Longest helpmate (`"stipulation": "h#N"`, N move pairs) a puzzle may ask for.
    pub max_helpmate_in: u32,
    /// Longest selfmate (`"stipulation": "s#N"`) a puzzle may ask for.
    pub max_selfmate_in: u32,
    /// Solver time when a puzzle gives none, in milliseconds.
    pub default_solver_time_ms: u64,
    /// Longest solver time a puzzle may ask for, in milliseconds.
    pub max_solver_time_ms: u64,
    /// Solver transposition table, in MiB.
    pub solver_table_mb: usize,
    /// Hash memory (perft tables and solver tables), in MiB, that running jobs may hold at
    /// once in the whole server; a job that does not fit waits in the queue.
    pub max_hash_total_mb: usize,
    /// Seconds a finished job stays readable before it is forgotten.
    pub keep_finished_secs: u64,
    /// Most finished jobs kept readable at once; beyond it the oldest are forgotten first.
    pub keep_finished_max: usize,
    /// Deepest perft a client without an API key may ask for.
    pub anonymous_max_perft_depth: u32,
    /// Most threads one job of a client without an API key may ask for (0 = as
    /// `max_threads`).
    pub anonymous_max_threads: usize,
    /// Largest perft hash table a client without an API key may ask for, in MiB.
    pub anonymous_max_hash_mb: usize,
    /// Most pool threads the running jobs of one client hold together (0 = the pool less one
    /// thread, at least one), so that another client's job always finds a thread.
    pub max_client_threads: usize,
    /// Seconds a job may run, counting its runs before restarts; past it the job fails with
    /// `job_timed_out` (0 = no limit).
    pub max_run_secs: u64,
}

/// Request and resource limits.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest accepted request body in bytes.
    pub max_body_bytes: usize,
    /// Most games alive at once.
    pub max_games: usize,
    /// Game exports streaming at once in the whole server.
    pub max_exports: usize,
    /// Most games one export may send.
    pub max_export_games: usize,
    /// Seconds an export may send nothing (its client not reading) before it is ended.
    pub export_stall_secs: u64,
    /// Seconds an export may last in all.
    pub export_max_secs: u64,
    /// Connections open at once in the whole server (0: three quarters of the process's file
    /// limit).
    pub max_connections: usize,
    /// Connections open at once from one client network (trusted proxies excepted).
    pub max_connections_per_address: usize,
    /// Milliseconds allowed for a request's head (its line and headers).
    pub head_timeout_ms: u64,
    /// Milliseconds a request body may go without a byte arriving.
    pub body_idle_timeout_ms: u64,
    /// Milliseconds a whole request body may take.
    pub body_timeout_ms: u64,
    /// Open seeks in the whole lobby (all nodes of a cluster together).
    pub max_seeks: usize,
    /// Entries waiting in the quick-pairing pools (all nodes of a cluster together).
    pub max_pairing_entries: usize,
}

/// Where games are kept: the database and how it writes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// `sqlite://PATH` (a file, created with its directory), `postgres://USER@HOST:PORT/DB`,
    /// or `memory` (nothing kept: a restart loses every game).
    pub url: String,
    /// SQLite only: `full` (a commit is on disk before it is acknowledged) or `normal` (it
    /// survives the process being killed, not a power loss).
    pub sqlite_sync: SqliteSync,
    /// Most writes committed together in one transaction.
    pub max_batch: usize,
    /// Seconds after which a game nobody touches or watches leaves memory (0 = never); it
    /// comes back from the store at its next request.
    pub evict_after_secs: u64,
}

impl StoreConfig {
    /// The eviction delay, `None` for never.
    pub fn evict_after(&self) -> Option<Duration> {
        (self.evict_after_secs > 0).then(|| Duration::from_secs(self.evict_after_secs))
    }
}

/// Defaults for games.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GamesConfig {
    /// Idle timeout in seconds; 0 means never.
    pub idle_timeout_secs: u64,
    /// Recent events kept per game for reconnecting clients.
    pub event_history: usize,
    /// Idempotency keys (and the answers to their requests) kept per game and caller.
    pub idempotency_keys: usize,
    /// Seconds to wait at shutdown for games to stop and hooks to run.
    pub shutdown_grace_secs: u64,
    /// Seconds after creation by which a game must have had a move; otherwise it stops with
    /// reason `abandoned` (0 = never). Applies whatever the idle timeout.
    pub abandon_after_secs: u64,
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
    /// Listeners (`host:port`, the port required) webhooks may be sent to; none by default.
    pub allowed_hosts: Vec<String>,
    /// Time allowed for one POST, in milliseconds.
    pub timeout_ms: u64,
    /// Wait after a webhook's first failed attempt, in milliseconds; it doubles after each
    /// further failure.
    pub retry_first_ms: u64,
    /// Longest wait between two attempts, in milliseconds.
    pub retry_max_ms: u64,
    /// A webhook not delivered this many seconds after its game ended is given up.
    pub expire_after_secs: u64,
}

/// WebSocket limits.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebSocketConfig {
    /// Largest accepted client frame in bytes, checked on its header before its payload is read.
    pub max_frame_bytes: usize,
    /// Largest accepted client message (a frame and its continuations) in bytes.
    pub max_message_bytes: usize,
    /// Messages per second a connection may send.
    pub max_messages_per_sec: u32,
    /// Seconds between server pings.
    pub heartbeat_secs: u64,
    /// Seconds of client silence after which the connection is dropped.
    pub client_timeout_secs: u64,
    /// WebSocket connections (games and jobs) open at once in the whole server; one more is
    /// refused with `503 too_many_connections` before the upgrade.
    pub max_connections: usize,
}

/// The `[auth]` section.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// The server operator's token: it alone may send raw UCI lines to engines. Empty: those
    /// routes are off (`operator_disabled`).
    pub operator_token: String,
    /// API keys (`X-API-Key` header). A request with a key is counted against that key's
    /// quotas; an unknown key is refused.
    pub api_keys: Vec<String>,
    /// Tokens of remote perft workers (`chessd worker --server`): a bearer of one may lease a
    /// cluster's shared perft tasks and submit their results. Empty: no remote workers.
    pub worker_tokens: Vec<String>,
    /// Whether creating games and jobs needs an API key.
    pub require_api_key: bool,
    /// Addresses of reverse proxies whose `X-Forwarded-For` header names the client.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Leading bits of an IPv4 address that name a client (32: each address).
    pub client_ipv4_prefix: u8,
    /// Leading bits of an IPv6 address that name a client (64: each /64).
    pub client_ipv6_prefix: u8,
    /// Whether a client on a loopback address may read the operator's routes without the
    /// operator token.
    pub loopback_is_operator: bool,
}

impl AuthConfig {
    /// The operator token, when one is configured.
    pub fn operator_token(&self) -> Option<&str> {
        Some(self.operator_token.as_str()).filter(|t| !t.is_empty())
    }
}

/// The `[quotas]` section: what one client (an API key, else an address) may spend.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QuotasConfig {
    /// Games a client may create per minute (0 = no rate limit).
    pub games_per_minute: u32,
    /// Unfinished games a client's creations may hold at once.
    pub max_ongoing_games: usize,
    /// Engine sessions a client's attaches and opponents may hold at once.
    pub max_engines: usize,
    /// Perft and puzzle jobs (queued or running) a client may have at once.
    pub max_jobs: usize,
    /// WebSocket connections (games and jobs) a client may hold open at once.
    pub max_sockets: usize,
    /// Game exports a client may have streaming at once.
    pub max_exports: usize,
    /// Open seeks a client may have in the lobby at once.
    pub max_seeks: usize,
    /// Entries a client may have waiting in the quick-pairing pools at once.
    pub max_pairing_entries: usize,
}

impl QuotasConfig {
    /// Quotas that never refuse, for a server whose one client is trusted (a load generator).
    pub fn unlimited() -> QuotasConfig {
        QuotasConfig {
            games_per_minute: 0,
            max_ongoing_games: usize::MAX,
            max_engines: usize::MAX,
            max_jobs: usize::MAX,
            max_sockets: usize::MAX,
            max_exports: usize::MAX,
            max_seeks: usize::MAX,
            max_pairing_entries: usize::MAX,
        }
    }
}

/// A configuration that could not be loaded: every problem found, each naming the key as the
/// user wrote it and where (the file's path, or the environment variable).
#[derive(Debug, thiserror::Error)]
#[error("configuration: {}", .0.join("; "))]
pub struct ConfigError(Vec<String>);

impl ConfigError {
    fn from_figment(error: figment::Error) -> ConfigError {
        ConfigError(error.into_iter().map(describe).collect())
    }
}

/// One figment error in the user's terms: `key: problem (in FILE)` or `VARIABLE: problem`.
fn describe(error: figment::Error) -> String {
    let key = error.path.join(".");
    let source = error
        .metadata
        .as_ref()
        .map(|m| (m.name.as_ref(), &m.source));
    match source {
        Some((_, Some(figment::Source::File(path)))) => {
            format!("{key}: {} (in {})", error.kind, path.display())
        }
        Some((name, _)) if name.contains("environment") => {
            let variable = format!("CHESSD_{}", error.path.join("__")).to_ascii_uppercase();
            format!("{variable}: {}", error.kind)
        }
        Some((name, _)) if name.contains("TOML source string") => {
            format!("{key}: {} (in the embedded defaults)", error.kind)
        }
        _ if key.is_empty() => error.kind.to_string(),
        _ => format!("{key}: {}", error.kind),
    }
}

impl Config {
    /// Loads the embedded defaults, then `file` if given, then `CHESSD_…` variables.
    pub fn load(file: Option<&Path>) -> Result<Config, ConfigError> {
        let config: Config = Config::figment(file)
            .extract()
            .map_err(ConfigError::from_figment)?;
        config.check().map_err(|e| ConfigError(vec![e]))?;
        Ok(config)
    }

    /// Checks what the types cannot: webhook hosts carry a port, configured engine options
    /// stay under the engine's caps.
    pub fn check(&self) -> Result<(), String> {
        if self.auth.client_ipv4_prefix > 32 || self.auth.client_ipv6_prefix > 128 {
            return Err(format!(
                "auth.client_ipv4_prefix (at most 32) or auth.client_ipv6_prefix (at most 128) \
                 is too long: {} and {}",
                self.auth.client_ipv4_prefix, self.auth.client_ipv6_prefix
            ));
        }
        if self.cluster.verify_percent > 100 {
            return Err(format!(
                "cluster.verify_percent = {} is over 100",
                self.cluster.verify_percent
            ));
        }
        self.pairing.check()?;
        for host in &self.webhooks.allowed_hosts {
            let port = host.rsplit_once(':').map(|(_, p)| p.parse::<u16>());
            if !matches!(port, Some(Ok(_))) {
                return Err(format!(
                    "webhooks.allowed_hosts: {host:?} needs a port (host:port)"
                ));
            }
        }
        for (name, engine) in self.engines.iter() {
            for (option, cap) in [
                ("Hash", engine.max_hash_mb),
                ("Threads", engine.max_threads),
            ] {
                let value = engine
                    .options
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(option))
                    .map(|(_, v)| v);
                if let Some(toml_value::OptionValue::Int(n)) = value {
                    if *n > i64::try_from(cap).unwrap_or(i64::MAX) {
                        return Err(format!(
                            "engines.{name}.options.{option} = {n} is over engines.{name}.max_{}",
                            if option == "Hash" {
                                "hash_mb"
                            } else {
                                "threads"
                            }
                        ));
                    }
                }
            }
        }
        Ok(())
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

/// How the SQLite file is synchronised to disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SqliteSync {
    /// Every commit is on disk before it is acknowledged (survives power loss).
    Full,
    /// Commits survive the process being killed, not a power loss (WAL's `NORMAL`).
    Normal,
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
        for (name, engine) in c.engines.iter() {
            assert!(engine.endpoint.endpoint().is_ok(), "engine {name}");
        }
    }

    #[test]
    fn an_endpoint_is_exactly_one_kind() {
        let both = EndpointConfig {
            command: Some("x".into()),
            tcp: Some("127.0.0.1:1".into()),
            ..EndpointConfig::default()
        };
        assert!(both.endpoint().is_err());
        assert!(EndpointConfig::default().endpoint().is_err());
        let tcp = EndpointConfig {
            tcp: Some("127.0.0.1:1".into()),
            ..EndpointConfig::default()
        };
        assert_eq!(tcp.endpoint(), Ok(Endpoint::Tcp("127.0.0.1:1".into())));
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
    fn errors_name_the_users_key_and_file_or_variable() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("mine.toml", "[games]\nidle_timeout_secs = \"soon\"")?;
            let e = Config::load(Some(Path::new("mine.toml")))
                .unwrap_err()
                .to_string();
            assert!(e.contains("games.idle_timeout_secs: "), "{e}");
            assert!(e.contains("mine.toml"), "{e}");
            assert!(!e.contains("default."), "{e}");
            jail.set_env("CHESSD_QUOTAS__MAX_JOBS", "many");
            let e = Config::load(None).unwrap_err().to_string();
            assert!(e.contains("CHESSD_QUOTAS__MAX_JOBS: "), "{e}");
            Ok(())
        });
    }

    #[test]
    fn unknown_keys_are_errors() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("c.toml", "bogus = 1")?;
            assert!(Config::load(Some(Path::new("c.toml"))).is_err());
            jail.create_file("e.toml", "[engines.x]\ntcp = \"127.0.0.1:1\"\nbogus = 1")?;
            assert!(Config::load(Some(Path::new("e.toml"))).is_err());
            jail.create_file(
                "g.toml",
                "[engines.x]\ntcp = \"127.0.0.1:1\"\noptions = { Hash = 16 }",
            )?;
            let c = Config::load(Some(Path::new("g.toml"))).map_err(|e| e.to_string())?;
            assert_eq!(c.engines["x"].options["Hash"].to_string(), "16");
            Ok(())
        });
    }

    #[test]
    fn an_engine_speaks_uci_unless_it_says_xboard() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "p.toml",
                "[engines.x]\ntcp = \"127.0.0.1:1\"\n[engines.y]\ncommand = \"sjeng\"\nprotocol = \"xboard\"",
            )?;
            jail.set_env("CHESSD_ENGINES__Z__COMMAND", "phalanx");
            jail.set_env("CHESSD_ENGINES__Z__PROTOCOL", "xboard");
            let c = Config::load(Some(Path::new("p.toml"))).map_err(|e| e.to_string())?;
            assert_eq!(c.engines["x"].protocol, EngineProtocol::Uci);
            assert_eq!(c.engines["y"].protocol, EngineProtocol::Xboard);
            assert_eq!(c.engines["z"].protocol, EngineProtocol::Xboard);
            assert_eq!(c.engines["stockfish"].protocol, EngineProtocol::Uci);
            jail.set_env("CHESSD_ENGINES__Z__PROTOCOL", "cecp");
            assert!(Config::load(None).is_err());
            Ok(())
        });
    }
}
