//! `chessd loadtest [rest|ws|memory|stored|handle|all] [--seconds S] [--connections C]
//! [--games N] [--played-games M] [--flat-games N] [--games-file FILE]
//! [--players P] [--pace-ms MS] [--stored N] [--live N] [--plies N] [--client-threads T]
//! [--store URL] [--json]`
//!
//! A load benchmark over loopback. Each part starts the real server as a child process
//! (`chessd serve --bind 127.0.0.1:0`, this same binary), drives it from client threads of this
//! process (one actix `System` with its own awc client per thread), and kills it at the end:
//!
//! - `rest`: `GET /health` per second and moves per second with every connection playing its
//!   own random games (the two alternate in one-second windows, and with a store, the store's
//!   server and a memory one alternate too), their ratio, move latency;
//! - `ws`: P connected players; latency from a move frame to its event on the opponent's
//!   connection, flat out and at a stated pace;
//! - `memory`: N idle games created as fast as possible, the server's RSS before and after;
//!   then M games played to 40 and to 80 plies, the RSS they add per game;
//! - `stored` (not part of `all`: filling takes minutes): a store filled with many finished
//!   5+3 games of random moves, its bytes per game as rows and packed, the packed record's
//!   size, and the server's RSS on it with some of them in memory.
//! - `handle` (not part of `all`): moves per second through `GameHandle` in this process, the
//!   peer of Binbo's in-VM `binbo:move/2` (`benches/peers/binbo_moves.escript`).
//!
//! The server keeps its games in `--store` (by default a fresh SQLite file, as `chessd serve`
//! does); with a store, the `rest` and `ws` parts run a second time on a server that keeps
//! nothing (`memory`), and the report sets the two side by side.
//!
//! Every loop stops by itself: at its deadline, or after its count.

mod child;
mod client;
mod cluster;
mod handle;
mod memory;
mod rest;
mod stats;
mod stored;
mod ws;

use std::{process::ExitCode, time::Duration};

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{table, usage_error};

/// Which measurements to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mode {
    /// REST: health and move throughput.
    Rest,
    /// WebSocket: move-to-event latency of connected players.
    Ws,
    /// Memory: RSS of many idle games.
    Memory,
    /// Stored games: bytes per game in the store, RSS with some of them in memory.
    Stored,
    /// A cluster of three nodes on `--store postgres://…`: moves/s through one node and over
    /// three, forwarding overhead, failover time over `--kills` kills.
    Cluster,
    /// Moves per second through `GameHandle` in this process (no HTTP): the peer of Binbo's
    /// `binbo:move/2`.
    Handle,
    /// Rest, ws and memory.
    All,
}

/// Arguments of `chessd loadtest`.
#[derive(Debug, Args)]
pub(crate) struct LoadtestArgs {
    /// What to measure.
    #[arg(value_enum, default_value_t = Mode::All)]
    pub mode: Mode,
    /// Seconds of each timed part (health, REST moves, WebSocket flat out, WebSocket paced).
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub seconds: f64,
    /// Concurrent keep-alive HTTP connections (REST parts, game creation).
    #[arg(long, value_name = "C", default_value_t = 64)]
    pub connections: usize,
    /// Idle games to create for the memory measurement.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub games: usize,
    /// Games the memory measurement plays to 40 and to 80 plies (0: none). As many as the idle
    /// games by default: what a run costs whatever its games (connection buffers, the
    /// allocator's arenas, the store's page cache) is then shared by as many games in each row.
    #[arg(long, value_name = "M", default_value_t = 100_000)]
    pub played_games: usize,
    /// Connected WebSocket players (two per game).
    #[arg(long, value_name = "P", default_value_t = 1000)]
    pub players: usize,
    /// Milliseconds between two moves of a game in the paced WebSocket part.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub pace_ms: u64,
    /// Games in the store for the stored part.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub stored: usize,
    /// Stored games brought into memory in the stored part.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub live: usize,
    /// Moves of each stored game.
    #[arg(long, value_name = "N", default_value_t = 80)]
    pub plies: usize,
    /// Client threads, each with its own actix System and HTTP client.
    #[arg(long, value_name = "T", default_value_t = 2)]
    pub client_threads: usize,
    /// Where the server keeps games: `sqlite` (a fresh file, deleted after), `memory`, or a
    /// store URL (`postgres://…`, `sqlite://PATH`).
    #[arg(long, value_name = "URL", default_value = "sqlite")]
    pub store: String,
    /// Games played at once, flat out, in the handle part.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub flat_games: usize,
    /// Where the handle part writes the games it replays (the Binbo peer script's input).
    #[arg(long, value_name = "FILE")]
    pub games_file: Option<std::path::PathBuf>,
    /// Owners killed with `kill -9` in the cluster part (failover time).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub kills: usize,
    /// Print exactly one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Validated settings shared by the parts.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// Length of each timed part.
    pub seconds: Duration,
    /// Concurrent HTTP connections.
    pub connections: usize,
    /// Idle games for the memory part.
    pub games: usize,
    /// WebSocket players.
    pub players: usize,
    /// Time between two moves of a game, paced part.
    pub pace: Duration,
    /// Games in the store, stored part.
    pub stored: usize,
    /// Stored games brought into memory, stored part.
    pub live: usize,
    /// Moves of each stored game.
    pub plies: usize,
    /// Games played to 40 and 80 plies, memory part.
    pub played_games: usize,
    /// Client threads.
    pub client_threads: usize,
    /// Games played at once, handle part.
    pub flat_games: usize,
    /// The server's store: `None` for a fresh SQLite file, else a `store.url`.
    pub store: Option<String>,
}

impl Settings {
    /// The same settings with the server keeping nothing.
    fn in_memory(&self) -> Settings {
        Settings {
            store: Some("memory".into()),
            ..self.clone()
        }
    }

    /// The environment that names the store to the server (none: a fresh SQLite file).
    pub(crate) fn store_env(&self) -> Vec<(&'static str, String)> {
        self.store
            .iter()
            .map(|url| ("CHESSD_STORE__URL", url.clone()))
            .collect()
    }

    fn keeps_games(&self) -> bool {
        self.store.as_deref() != Some("memory")
    }
}

impl Settings {
    fn new(args: &LoadtestArgs) -> Result<Settings, String> {
        if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
            return Err("--seconds must be more than 0 and at most 3600".into());
        }
        if !(1..=10_000).contains(&args.connections) {
            return Err("--connections must be 1 to 10000".into());
        }
        if !(1..=10_000_000).contains(&args.games) {
            return Err("--games must be 1 to 10000000".into());
        }
        if !(2..=10_000).contains(&args.players) {
            return Err("--players must be 2 to 10000".into());
        }
        if !(1..=60_000).contains(&args.pace_ms) {
            return Err("--pace-ms must be 1 to 60000".into());
        }
        if !(1..=100_000_000).contains(&args.stored) {
            return Err("--stored must be 1 to 100000000".into());
        }
        if !(1..=1_000_000).contains(&args.live) {
            return Err("--live must be 1 to 1000000".into());
        }
        if !(1..=1000).contains(&args.plies) {
            return Err("--plies must be 1 to 1000".into());
        }
        if args.played_games > 1_000_000 {
            return Err("--played-games must be at most 1000000".into());
        }
        if !(1..=100_000).contains(&args.flat_games) {
            return Err("--flat-games must be 1 to 100000".into());
        }
        if !(1..=64).contains(&args.client_threads) {
            return Err("--client-threads must be 1 to 64".into());
        }
        Ok(Settings {
            seconds: Duration::from_secs_f64(args.seconds),
            connections: args.connections,
            games: args.games,
            players: args.players,
            pace: Duration::from_millis(args.pace_ms),
            stored: args.stored,
            live: args.live,
            plies: args.plies,
            played_games: args.played_games,
            client_threads: args.client_threads,
            flat_games: args.flat_games,
            store: (args.store != "sqlite").then(|| args.store.clone()),
        })
    }
}

/// Everything measured; a part that did not run is absent.
#[derive(Debug, Serialize)]
struct Report {
    seconds: f64,
    client_threads: usize,
    cores: usize,
    /// The store the parts ran with (`sqlite` for a fresh file).
    store: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    rest: Option<rest::RestReport>,
    /// The REST part again, on a server keeping nothing (when `store` keeps games).
    #[serde(skip_serializing_if = "Option::is_none")]
    rest_memory: Option<rest::RestReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ws: Option<ws::WsReport>,
    /// The WebSocket part again, on a server keeping nothing (when `store` keeps games).
    #[serde(skip_serializing_if = "Option::is_none")]
    ws_memory: Option<ws::WsReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    memory: Option<memory::MemoryReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stored: Option<stored::StoredReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<cluster::ClusterReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    handle: Option<handle::HandleReport>,
}

/// Runs `chessd loadtest`.
pub(crate) fn run(args: &LoadtestArgs) -> ExitCode {
    let settings = match Settings::new(args) {
        Ok(s) => s,
        Err(e) => return usage_error("loadtest", &e),
    };
    let wants = |m: Mode| args.mode == m || args.mode == Mode::All;
    let mut report = Report {
        seconds: args.seconds,
        client_threads: settings.client_threads,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        store: args.store.clone(),
        rest: None,
        rest_memory: None,
        ws: None,
        ws_memory: None,
        memory: None,
        stored: None,
        cluster: None,
        handle: None,
    };
    let result = (|| -> Result<(), String> {
        if wants(Mode::Rest) {
            // The store's server and the memory one, driven in interleaved windows.
            let mut reports = rest::run(&settings)?.into_iter();
            report.rest = reports.next();
            report.rest_memory = reports.next();
        }
        if wants(Mode::Ws) {
            report.ws = Some(ws::run(&settings)?);
            if settings.keeps_games() {
                report.ws_memory = Some(ws::run(&settings.in_memory())?);
            }
        }
        if wants(Mode::Memory) {
            report.memory = Some(memory::run(&settings)?);
        }
        if args.mode == Mode::Stored {
            report.stored = Some(stored::run(&settings)?);
        }
        if args.mode == Mode::Cluster {
            report.cluster = Some(cluster::run(&settings, args.kills)?);
        }
        if args.mode == Mode::Handle {
            report.handle = Some(handle::run(&settings, args.games_file.as_deref())?);
        }
        Ok(())
    })();
    if let Err(e) = result {
        eprintln!("chessd loadtest: {e}");
        return ExitCode::FAILURE;
    }
    if args.json {
        match serde_json::to_string(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("chessd loadtest: cannot write JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", human_output(&report));
    }
    ExitCode::SUCCESS
}

fn ms(x: f64) -> String {
    format!("{x:.2} ms")
}

fn per_sec(x: f64) -> String {
    format!("{x:.0}/s")
}

fn cpu(c: &stats::CpuUse) -> String {
    format!("server {:.2} cores, client {:.2} cores", c.server, c.client)
}

fn human_output(r: &Report) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("seconds per part", format!("{}", r.seconds)),
        (
            "client threads",
            format!("{} ({} cores)", r.client_threads, r.cores),
        ),
        ("store", r.store.clone()),
    ];
    if let Some(rest) = &r.rest {
        rows.extend([
            ("rest connections", rest.connections.to_string()),
            ("rest GET /health", per_sec(rest.health_per_sec)),
            ("rest moves", per_sec(rest.moves_per_sec)),
            (
                "rest moves / health",
                format!("{:.2} (target >= 0.5)", rest.move_to_health_ratio),
            ),
            (
                "rest moves / health, per server core",
                format!("{:.2}", rest.move_to_health_per_core),
            ),
            ("rest move p50", ms(rest.move_latency_ms.p50)),
            ("rest move p99", ms(rest.move_latency_ms.p99)),
            (
                "rest counts",
                format!(
                    "{} health, {} moves, {} games, {} errors",
                    rest.health_requests, rest.moves, rest.games_created, rest.errors
                ),
            ),
            ("rest cpu (health)", cpu(&rest.health_cpu)),
            ("rest cpu (moves)", cpu(&rest.moves_cpu)),
        ]);
        if let Some(mem) = &r.rest_memory {
            rows.extend([
                ("rest moves, memory", per_sec(mem.moves_per_sec)),
                ("rest move p99, memory", ms(mem.move_latency_ms.p99)),
                (
                    "rest moves / health, memory",
                    format!(
                        "{:.2}; per server core {:.2} (target >= 0.8)",
                        mem.move_to_health_ratio, mem.move_to_health_per_core
                    ),
                ),
                (
                    "rest moves, store / memory",
                    format!(
                        "{:.2} (target >= 0.5)",
                        rest.moves_per_sec / mem.moves_per_sec.max(1e-9)
                    ),
                ),
            ]);
        }
    }
    if let Some(w) = &r.ws {
        rows.extend([
            (
                "ws players",
                format!(
                    "{} ({} games, set up in {:.2} s, {} failed)",
                    w.players, w.games, w.setup_seconds, w.setup_errors
                ),
            ),
            ("ws max: moves", per_sec(w.max_rate.moves_per_sec)),
            ("ws max: p50", ms(w.max_rate.latency_ms.p50)),
            ("ws max: p95", ms(w.max_rate.latency_ms.p95)),
            ("ws max: p99", ms(w.max_rate.latency_ms.p99)),
            (
                "ws max: counts",
                format!(
                    "{} moves, {} resets, {} errors",
                    w.max_rate.moves, w.max_rate.resets, w.max_rate.errors
                ),
            ),
            ("ws max: cpu", cpu(&w.max_rate.cpu)),
            (
                "ws paced: rate",
                format!(
                    "{:.0}/s played ({:.0}/s asked: 1 move per {} ms per game)",
                    w.paced.moves_per_sec, w.paced.offered_moves_per_sec, w.paced.pace_ms
                ),
            ),
            ("ws paced: p50", ms(w.paced.latency_ms.p50)),
            ("ws paced: p95", ms(w.paced.latency_ms.p95)),
            (
                "ws paced: p99",
                format!("{} (target < 20 ms)", ms(w.paced.latency_ms.p99)),
            ),
            (
                "ws paced: counts",
                format!(
                    "{} moves, {} resets, {} errors",
                    w.paced.moves, w.paced.resets, w.paced.errors
                ),
            ),
            ("ws paced: cpu", cpu(&w.paced.cpu)),
            (
                "ws paced under load",
                format!(
                    "p50 {} / p99 {} (target < 20 ms), {:.0}/s played, REST load {}",
                    ms(w.paced_under_load.latency_ms.p50),
                    ms(w.paced_under_load.latency_ms.p99),
                    w.paced_under_load.moves_per_sec,
                    per_sec(w.load_moves_per_sec)
                ),
            ),
            ("ws paced under load: cpu", cpu(&w.paced_under_load.cpu)),
        ]);
        if let Some(mem) = &r.ws_memory {
            rows.extend([
                ("ws max: moves, memory", per_sec(mem.max_rate.moves_per_sec)),
                ("ws max: p99, memory", ms(mem.max_rate.latency_ms.p99)),
                ("ws paced: p99, memory", ms(mem.paced.latency_ms.p99)),
                (
                    "ws paced under load: p99, memory",
                    ms(mem.paced_under_load.latency_ms.p99),
                ),
            ]);
        }
    }
    if let Some(m) = &r.memory {
        let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0));
        rows.extend([
            (
                "memory games",
                format!(
                    "{} created of {}, {} alive, {} errors",
                    m.created, m.games, m.alive, m.errors
                ),
            ),
            (
                "memory creation",
                format!(
                    "{} ({:.2} s, {} connections)",
                    per_sec(m.create_per_sec),
                    m.create_seconds,
                    m.connections
                ),
            ),
            ("memory rss before", mib(m.rss_before_bytes)),
            (
                "memory rss after",
                format!("{} (target < 400 MiB)", mib(m.rss_after_bytes)),
            ),
            ("memory per game", format!("{:.0} bytes", m.bytes_per_game)),
            ("memory cpu", cpu(&m.cpu)),
        ]);
        for p in &m.played {
            rows.push((
                if p.plies == 40 {
                    "memory per game, 40 plies"
                } else {
                    "memory per game, 80 plies"
                },
                format!(
                    "{:.0} bytes ({} games of {} played, {} errors, {:.1} s)",
                    p.bytes_per_game, p.completed, p.games, p.errors, p.seconds
                ),
            ));
        }
    }
    if let Some(st) = &r.stored {
        let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0));
        rows.extend([
            (
                "stored games",
                format!(
                    "{} of {} plies (filled in {:.1} s)",
                    st.stored, st.plies, st.fill_seconds
                ),
            ),
            ("stored size, packed", mib(st.store_bytes.max(0) as u64)),
            (
                "stored per game",
                format!(
                    "{:.0} bytes packed ({:.0} as rows, packed in {:.1} s)",
                    st.bytes_per_game, st.bytes_per_game_as_rows, st.pack_seconds
                ),
            ),
            (
                "packed record",
                format!(
                    "{:.1} bytes ({:.1} untimed) (target <= 200)",
                    st.record_bytes, st.record_bytes_untimed
                ),
            ),
            ("stored rss at start", mib(st.rss_start_bytes)),
            (
                "stored brought back",
                format!(
                    "{} of {} asked, {} errors, {}",
                    st.alive,
                    st.live,
                    st.errors,
                    per_sec(st.load_per_sec)
                ),
            ),
            (
                "stored load p50 / p99",
                format!(
                    "{} / {}",
                    ms(st.load_latency_ms.p50),
                    ms(st.load_latency_ms.p99)
                ),
            ),
            (
                "stored load, server CPU",
                format!(
                    "{:.0} µs a game ({:.2} cores)",
                    st.load_cpu_us, st.load_cores
                ),
            ),
            (
                "stored rss with them",
                format!("{} (target < 2048 MiB)", mib(st.rss_live_bytes)),
            ),
            (
                "stored rss once evicted",
                format!("{} (memory given back)", mib(st.rss_evicted_bytes)),
            ),
            (
                "export, PGN",
                format!(
                    "{} games, {} (target >= 20000/s)",
                    st.exported,
                    per_sec(st.export_per_sec)
                ),
            ),
            (
                "export, server CPU",
                format!(
                    "{:.0} µs a game ({:.2} cores)",
                    st.export_cpu_us, st.export_cores
                ),
            ),
        ]);
    }
    if let Some(c) = &r.cluster {
        let lat = |l: &stats::Latency| format!("p50 {} / p99 {}", ms(l.p50), ms(l.p99));
        rows.extend([
            (
                "cluster moves, one node",
                format!(
                    "{} ({})",
                    per_sec(c.one_node_moves_per_sec),
                    lat(&c.one_node_latency_ms)
                ),
            ),
            (
                "cluster moves, 3 nodes",
                format!(
                    "{} ({})",
                    per_sec(c.three_nodes_moves_per_sec),
                    lat(&c.three_nodes_latency_ms)
                ),
            ),
            (
                "cluster moves, round robin",
                format!(
                    "{} ({})",
                    per_sec(c.round_robin_moves_per_sec),
                    lat(&c.round_robin_latency_ms)
                ),
            ),
            ("cluster move, direct", lat(&c.direct_move_ms)),
            ("cluster move, forwarded", lat(&c.forwarded_move_ms)),
            (
                "cluster failover",
                format!(
                    "median {} / worst {} over {} kills (target < 5000 ms)",
                    ms(c.failover_ms.p50),
                    ms(c.failover_ms.max),
                    c.kills
                ),
            ),
            ("cluster errors", c.errors.to_string()),
        ]);
    }
    if let Some(h) = &r.handle {
        rows.extend([
            (
                "handle games",
                format!("{} at once, {} plies each", h.games, h.plies),
            ),
            ("handle moves", per_sec(h.moves_per_sec)),
            (
                "handle counts",
                format!(
                    "{} moves, {} games, {} errors",
                    h.moves, h.games_created, h.errors
                ),
            ),
        ]);
    }
    table::render(&rows)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Small settings for the parts' own tests.
    pub(crate) fn settings() -> Settings {
        Settings::new(&args()).unwrap()
    }

    fn args() -> LoadtestArgs {
        LoadtestArgs {
            mode: Mode::All,
            seconds: 1.0,
            connections: 4,
            games: 10,
            players: 4,
            pace_ms: 100,
            stored: 10,
            live: 5,
            plies: 4,
            played_games: 2,
            client_threads: 1,
            store: "sqlite".into(),
            kills: 1,
            flat_games: 4,
            games_file: None,
            json: true,
        }
    }

    #[test]
    fn settings_reject_out_of_range_values() {
        assert!(Settings::new(&args()).is_ok());
        let bad = [
            LoadtestArgs {
                seconds: 0.0,
                ..args()
            },
            LoadtestArgs {
                seconds: f64::NAN,
                ..args()
            },
            LoadtestArgs {
                connections: 0,
                ..args()
            },
            LoadtestArgs {
                players: 1,
                ..args()
            },
            LoadtestArgs {
                client_threads: 0,
                ..args()
            },
            LoadtestArgs {
                pace_ms: 0,
                ..args()
            },
            LoadtestArgs {
                flat_games: 0,
                ..args()
            },
        ];
        for a in bad {
            assert!(Settings::new(&a).is_err(), "{a:?}");
        }
    }

    #[test]
    fn human_output_shows_only_the_parts_that_ran() {
        let report = Report {
            seconds: 1.0,
            client_threads: 2,
            cores: 2,
            store: "memory".into(),
            rest: None,
            rest_memory: None,
            ws: None,
            ws_memory: None,
            memory: None,
            stored: None,
            cluster: None,
            handle: None,
        };
        let text = human_output(&report);
        assert!(text.contains("client threads"), "{text}");
        assert!(text.contains("store"), "{text}");
        assert!(!text.contains("rest"), "{text}");
        assert!(!text.contains("cluster"), "{text}");
    }
}
