//! Memory: N idle games created as fast as possible through `POST /v1/games` on a fresh server,
//! with the server's resident set size before and after; then, each on a fresh server, M games
//! played to 40 and to 80 plies (random legal moves that do not end the game, through
//! `POST /v1/games/{id}/moves`), with the RSS they add per game.

use std::{
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use futures_util::future::join_all;
use serde::Serialize;

use chessd_core::Position;

use super::{
    child::ChildServer,
    client::{create_game, http_client, on_threads, request, share},
    stats::{random_game, round2, CpuMeter, CpuUse, Rng},
    Settings,
};

/// The game lengths the played rows measure.
pub(super) const PLAYED_PLIES: [usize; 2] = [40, 80];

/// The longest the creation may run, whatever N.
const TIME_LIMIT: Duration = Duration::from_secs(600);

/// The server's default `limits.max_games`; a larger N raises it for the server under test.
const DEFAULT_MAX_GAMES: usize = 200_000;

/// Time the server gets to settle before its RSS is read.
const SETTLE: Duration = Duration::from_millis(500);

/// The memory figures.
#[derive(Debug, Serialize)]
pub(super) struct MemoryReport {
    /// Games asked for.
    pub games: usize,
    /// Games created (201 answers).
    pub created: u64,
    /// Games the server reports alive afterwards (`GET /health`).
    pub alive: u64,
    /// Games created per second.
    pub create_per_sec: f64,
    /// Seconds the creation took.
    pub create_seconds: f64,
    /// Concurrent creation requests.
    pub connections: usize,
    /// Server RSS before the games, in bytes.
    pub rss_before_bytes: u64,
    /// Server RSS with the games, in bytes.
    pub rss_after_bytes: u64,
    /// Server RSS with the games, in MiB.
    pub rss_after_mib: f64,
    /// `(rss_after - rss_before) / created`.
    pub bytes_per_game: f64,
    /// Failed creations.
    pub errors: u64,
    /// CPU use during the creation.
    pub cpu: CpuUse,
    /// Games played to a length, each row on a fresh server.
    pub played: Vec<PlayedMemory>,
}

/// The RSS added by games of a given length.
#[derive(Debug, Serialize)]
pub(super) struct PlayedMemory {
    /// Half-moves played in each game.
    pub plies: usize,
    /// Games asked for.
    pub games: usize,
    /// Games played to the end of their moves.
    pub completed: u64,
    /// Failed requests.
    pub errors: u64,
    /// Server RSS before the games, in bytes.
    pub rss_before_bytes: u64,
    /// Server RSS with the games, in bytes.
    pub rss_after_bytes: u64,
    /// `(rss_after - rss_before) / completed`.
    pub bytes_per_game: f64,
    /// Seconds the creation and the moves took.
    pub seconds: f64,
}

/// Creates the games on a fresh server and measures its RSS.
pub(super) fn run(settings: &Settings) -> Result<MemoryReport, String> {
    let mut env = settings.store_env();
    if settings.games > DEFAULT_MAX_GAMES {
        env.push(("CHESSD_LIMITS__MAX_GAMES", settings.games.to_string()));
    }
    let server = ChildServer::start(&env)?;
    let base = server.base.as_str();
    // Open the connections and let every worker answer once before the baseline.
    let _ = on_threads(settings.client_threads, |i| {
        let tasks = share(settings.connections, settings.client_threads, i);
        async move {
            let client = http_client();
            join_all((0..tasks).map(|_| request(client.get(format!("{base}/health")), None))).await
        }
    });
    std::thread::sleep(SETTLE);
    let rss_before = server.rss_bytes()?;
    eprintln!(
        "chessd loadtest: memory: creating {} games, {} connections",
        settings.games, settings.connections
    );
    let next = AtomicUsize::new(0);
    let meter = CpuMeter::start(&server);
    let start = Instant::now();
    let deadline = start + TIME_LIMIT;
    let per_thread = on_threads(settings.client_threads, |i| {
        let tasks = share(settings.connections, settings.client_threads, i);
        let next = &next;
        async move {
            let client = http_client();
            join_all((0..tasks).map(|_| create_task(&client, base, next, settings.games, deadline)))
                .await
        }
    });
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let cpu = meter.stop(&server).usage();
    let (created, errors) = add_up(per_thread);
    std::thread::sleep(SETTLE);
    let rss_after = server.rss_bytes()?;
    let alive = games_alive(base)?;
    drop(server);
    let mut played = Vec::new();
    if settings.played_games > 0 {
        for plies in PLAYED_PLIES {
            played.push(play_games(settings, plies)?);
        }
    }
    Ok(MemoryReport {
        games: settings.games,
        created,
        alive,
        create_per_sec: (created as f64 / seconds).round(),
        create_seconds: seconds,
        connections: settings.connections,
        rss_before_bytes: rss_before,
        rss_after_bytes: rss_after,
        rss_after_mib: round2(rss_after as f64 / (1024.0 * 1024.0)),
        bytes_per_game: (rss_after.saturating_sub(rss_before) as f64 / created.max(1) as f64)
            .round(),
        errors,
        cpu,
        played,
    })
}

/// `settings.played_games` games played to `plies` half-moves on a fresh server, and the RSS
/// they add.
fn play_games(settings: &Settings, plies: usize) -> Result<PlayedMemory, String> {
    let games = settings.played_games;
    let server = ChildServer::start(&settings.store_env())?;
    let base = server.base.as_str();
    std::thread::sleep(SETTLE);
    let rss_before = server.rss_bytes()?;
    eprintln!(
        "chessd loadtest: memory: {games} games of {plies} plies, {} connections",
        settings.connections
    );
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let deadline = start + TIME_LIMIT;
    let per_thread = on_threads(settings.client_threads, |i| {
        let tasks = share(settings.connections, settings.client_threads, i);
        let next = &next;
        async move {
            let client = http_client();
            join_all((0..tasks).map(|_| play_task(&client, base, next, games, plies, deadline)))
                .await
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    let (completed, errors) = add_up(per_thread);
    std::thread::sleep(SETTLE);
    let rss_after = server.rss_bytes()?;
    Ok(PlayedMemory {
        plies,
        games,
        completed,
        errors,
        rss_before_bytes: rss_before,
        rss_after_bytes: rss_after,
        bytes_per_game: (rss_after.saturating_sub(rss_before) as f64 / completed.max(1) as f64)
            .round(),
        seconds,
    })
}

/// Creates and plays games while tickets remain; returns (completed, failed requests).
async fn play_task(
    client: &awc::Client,
    base: &str,
    next: &AtomicUsize,
    games: usize,
    plies: usize,
    deadline: Instant,
) -> (u64, u64) {
    let (mut completed, mut errors) = (0, 0);
    loop {
        let ticket = next.fetch_add(1, Ordering::Relaxed);
        if ticket >= games || Instant::now() >= deadline {
            break;
        }
        let Ok(game) = create_game(client, base).await else {
            errors += 1;
            continue;
        };
        let url = format!("{base}/v1/games/{}/moves", game.id);
        let mut pos = Position::startpos();
        let mut ok = true;
        for mv in random_game(&mut Rng::new(ticket as u64), plies) {
            let body = format!("{{\"uci\":\"{}\"}}", pos.uci(mv));
            let req = client.post(&url).bearer_auth(game.seat(pos.turn()));
            if !matches!(request(req, Some(body)).await, Ok((200, _))) {
                errors += 1;
                ok = false;
                break;
            }
            pos.play_unchecked(mv);
        }
        completed += u64::from(ok);
    }
    (completed, errors)
}

/// Creates games while tickets remain; returns (created, failed).
async fn create_task(
    client: &awc::Client,
    base: &str,
    next: &AtomicUsize,
    games: usize,
    deadline: Instant,
) -> (u64, u64) {
    let (mut created, mut errors) = (0, 0);
    let url = format!("{base}/v1/games");
    while next.fetch_add(1, Ordering::Relaxed) < games && Instant::now() < deadline {
        match request(client.post(&url), Some("{}".to_string())).await {
            Ok((201, _)) => created += 1,
            _ => errors += 1,
        }
    }
    (created, errors)
}

/// The `games` count of `GET /health`.
pub(super) fn games_alive(base: &str) -> Result<u64, String> {
    let url = format!("{base}/health");
    let answer = on_threads(1, |_| async {
        request(http_client().get(url.as_str()), None).await
    })
    .pop()
    .ok_or("no answer from /health")??;
    let health: serde_json::Value =
        serde_json::from_slice(&answer.1).map_err(|e| format!("/health: {e}"))?;
    health["games"]
        .as_u64()
        .ok_or_else(|| format!("/health has no games count: {health}"))
}

/// The sums of every task's (done, failed) counts.
fn add_up(per_thread: Vec<Vec<(u64, u64)>>) -> (u64, u64) {
    per_thread
        .into_iter()
        .flatten()
        .fold((0, 0), |(c, e), (c1, e1)| (c + c1, e + e1))
}
