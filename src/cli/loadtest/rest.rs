//! REST: `GET /health` throughput and move throughput and latency with every connection
//! playing its own games (random legal moves chosen with a local `Position`), on one server.

use std::time::{Duration, Instant};

use chessd_core::Position;
use futures_util::future::join_all;
use serde::Serialize;

use super::{
    child::ChildServer,
    client::{create_game, http_client, on_threads, request, share, NewGame, Versioned},
    stats::{micros, round2, CpuMeter, CpuTotals, CpuUse, Latency, Rng},
    Settings,
};

/// Requests one task sends at most in a phase (a bound besides the deadline).
const MAX_REQUESTS_PER_TASK: u64 = 10_000_000;

/// Pause after a failed request, so that a broken server does not spin the client.
const ERROR_PAUSE: Duration = Duration::from_millis(10);

/// The REST figures.
#[derive(Debug, Serialize)]
pub(super) struct RestReport {
    /// Concurrent keep-alive connections.
    pub connections: usize,
    /// `GET /health` answered per second.
    pub health_per_sec: f64,
    /// Moves played per second through `POST /v1/games/{id}/moves` (game creation excluded).
    pub moves_per_sec: f64,
    /// `moves_per_sec / health_per_sec` (target ≥ 0.5).
    pub move_to_health_ratio: f64,
    /// The same ratio per second of server CPU: moves per server core-second over health
    /// requests per server core-second. The client shares the machine, and when it cannot
    /// keep the server busy (a cheap `/health`), the plain ratio flatters; this one does not.
    pub move_to_health_per_core: f64,
    /// Latency of one move request.
    pub move_latency_ms: Latency,
    /// `GET /health` requests answered.
    pub health_requests: u64,
    /// Moves played.
    pub moves: u64,
    /// Games created to play them (a finished game is replaced).
    pub games_created: u64,
    /// Failed requests (transport errors or unexpected statuses), in both parts.
    pub errors: u64,
    /// CPU use during the health windows.
    pub health_cpu: CpuUse,
    /// CPU use during the move windows.
    pub moves_cpu: CpuUse,
}

/// Length of one window: the two parts alternate in windows of about this length, so that a
/// change in background load on the machine hits both alike.
const WINDOW: Duration = Duration::from_secs(1);

/// Runs both REST parts against a fresh server for each of `stores` (the settings' own store,
/// then `memory` when it keeps games), all started together and driven in turn, one window
/// each: health and moves on the first, then on the second, and round again, for `seconds`
/// each in total. A change in background load on the machine hits every figure alike, and the
/// store/memory ratio compares windows a second apart, not runs a minute apart.
pub(super) fn run(settings: &Settings) -> Result<Vec<RestReport>, String> {
    let mut stores = vec![settings.clone()];
    if settings.keeps_games() {
        stores.push(settings.in_memory());
    }
    let servers = stores
        .iter()
        .map(|s| ChildServer::start(&s.store_env()))
        .collect::<Result<Vec<_>, _>>()?;
    let rounds = (settings.seconds.as_secs_f64() / WINDOW.as_secs_f64())
        .round()
        .max(1.0) as u32;
    let window = settings.seconds / rounds;
    eprintln!(
        "chessd loadtest: rest: GET /health and moves, {} connections, {:.1} s each in {rounds} alternating windows on {} server(s)",
        settings.connections,
        settings.seconds.as_secs_f64(),
        servers.len()
    );
    let mut tallies: Vec<Tally> = servers.iter().map(|_| Tally::default()).collect();
    for _ in 0..rounds {
        for (server, tally) in servers.iter().zip(&mut tallies) {
            let meter = CpuMeter::start(server);
            tally.health.add(health(settings, server, window));
            tally.health_cpu.add(meter.stop(server));
            let meter = CpuMeter::start(server);
            tally.moves.add(moves(settings, server, window));
            tally.moves_cpu.add(meter.stop(server));
        }
    }
    Ok(tallies
        .into_iter()
        .map(|t| t.report(settings.connections))
        .collect())
}

/// What one server's windows add up to.
#[derive(Default)]
struct Tally {
    health: HealthCounts,
    moves: MoveCounts,
    health_cpu: CpuTotals,
    moves_cpu: CpuTotals,
}

impl Tally {
    fn report(self, connections: usize) -> RestReport {
        let (health, moves) = (self.health, self.moves);
        let health_per_sec = health.ok as f64 / health.wall.as_secs_f64().max(1e-9);
        let creation_share = moves.creating.as_secs_f64() / connections as f64;
        let move_seconds = (moves.wall.as_secs_f64() - creation_share).max(1e-9);
        let moves_per_sec = moves.moves as f64 / move_seconds;
        let (health_cpu, moves_cpu) = (self.health_cpu.usage(), self.moves_cpu.usage());
        let per_core = |rate: f64, cores: f64| rate / cores.max(1e-9);
        RestReport {
            connections,
            health_per_sec: health_per_sec.round(),
            moves_per_sec: moves_per_sec.round(),
            move_to_health_ratio: round2(moves_per_sec / health_per_sec.max(1e-9)),
            move_to_health_per_core: round2(
                per_core(moves_per_sec, moves_cpu.server)
                    / per_core(health_per_sec, health_cpu.server).max(1e-9),
            ),
            move_latency_ms: Latency::of(moves.latencies),
            health_requests: health.ok,
            moves: moves.moves,
            games_created: moves.created,
            errors: health.errors + moves.errors,
            health_cpu,
            moves_cpu,
        }
    }
}

/// Counts of the health part.
#[derive(Default)]
struct HealthCounts {
    ok: u64,
    errors: u64,
    wall: Duration,
}

impl HealthCounts {
    fn add(&mut self, other: HealthCounts) {
        self.ok += other.ok;
        self.errors += other.errors;
        self.wall += other.wall;
    }
}

/// One window of `GET /health` on every connection.
fn health(settings: &Settings, server: &ChildServer, window: Duration) -> HealthCounts {
    let url = format!("{}/health", server.base);
    let start = Instant::now();
    let deadline = start + window;
    let per_thread = on_threads(settings.client_threads, |i| {
        let tasks = share(settings.connections, settings.client_threads, i);
        let url = url.as_str();
        async move {
            let client = http_client();
            join_all((0..tasks).map(|_| health_task(&client, url, deadline))).await
        }
    });
    let mut counts = HealthCounts {
        wall: start.elapsed(),
        ..HealthCounts::default()
    };
    for (ok, errors) in per_thread.into_iter().flatten() {
        counts.ok += ok;
        counts.errors += errors;
    }
    counts
}

async fn health_task(client: &awc::Client, url: &str, deadline: Instant) -> (u64, u64) {
    let (mut ok, mut errors) = (0, 0);
    for _ in 0..MAX_REQUESTS_PER_TASK {
        if Instant::now() >= deadline {
            break;
        }
        match request(client.get(url), None).await {
            Ok((200, _)) => ok += 1,
            _ => {
                errors += 1;
                actix_web::rt::time::sleep(ERROR_PAUSE).await;
            }
        }
    }
    (ok, errors)
}

/// Counts of the move part (one task's, or summed).
#[derive(Default)]
struct MoveCounts {
    moves: u64,
    created: u64,
    errors: u64,
    /// Time spent creating games (summed over tasks).
    creating: Duration,
    latencies: Vec<u32>,
    wall: Duration,
}

impl MoveCounts {
    fn add(&mut self, other: MoveCounts) {
        self.moves += other.moves;
        self.created += other.created;
        self.errors += other.errors;
        self.creating += other.creating;
        self.latencies.extend(other.latencies);
        self.wall += other.wall;
    }
}

/// One window of moves, every connection playing its own games.
fn moves(settings: &Settings, server: &ChildServer, window: Duration) -> MoveCounts {
    moves_through(settings, &[server.base.as_str()], Route::Sticky, window)
}

/// Which node a connection's requests go to, when there are several.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// Connection `t` sends everything to node `t % n` (its games are created there, so they
    /// are that node's own).
    Sticky,
    /// Each request goes to the next node in turn (most requests are forwarded).
    RoundRobin,
}

/// The moves played per second and their latency, over `window`.
pub(super) struct MoveFigures {
    /// Moves per second (game creation excluded).
    pub per_sec: f64,
    /// Latency of one move request.
    pub latency: Latency,
    /// Failed requests.
    pub errors: u64,
}

/// A window of moves through `bases` (every connection playing its own games), as figures.
pub(super) fn move_figures(
    settings: &Settings,
    bases: &[&str],
    route: Route,
    window: Duration,
) -> MoveFigures {
    let counts = moves_through(settings, bases, route, window);
    let creation_share = counts.creating.as_secs_f64() / settings.connections as f64;
    let seconds = (counts.wall.as_secs_f64() - creation_share).max(1e-9);
    MoveFigures {
        per_sec: (counts.moves as f64 / seconds).round(),
        latency: Latency::of(counts.latencies),
        errors: counts.errors,
    }
}

fn moves_through(
    settings: &Settings,
    bases: &[&str],
    route: Route,
    window: Duration,
) -> MoveCounts {
    let start = Instant::now();
    let deadline = start + window;
    let per_thread = on_threads(settings.client_threads, |i| {
        let tasks = share(settings.connections, settings.client_threads, i);
        async move {
            let client = http_client();
            join_all((0..tasks).map(|t| {
                let rng = Rng::new((i * 100_003 + t) as u64);
                let first = (i * 7 + t) % bases.len();
                move_task(&client, bases, first, route, deadline, rng)
            }))
            .await
        }
    });
    let mut total = MoveCounts::default();
    for c in per_thread.into_iter().flatten() {
        total.add(c);
    }
    total.wall = start.elapsed();
    total
}

/// Plays random games until the deadline, one request in flight.
async fn move_task(
    client: &awc::Client,
    bases: &[&str],
    first: usize,
    route: Route,
    deadline: Instant,
    mut rng: Rng,
) -> MoveCounts {
    let mut counts = MoveCounts::default();
    let mut turn = first;
    let mut next_base = || {
        let base = bases[turn % bases.len()];
        if route == Route::RoundRobin {
            turn += 1;
        }
        base
    };
    let mut current: Option<(NewGame, Position)> = None;
    for _ in 0..MAX_REQUESTS_PER_TASK {
        if Instant::now() >= deadline {
            break;
        }
        let Some((game, pos)) = current.as_mut() else {
            let t = Instant::now();
            let created = create_game(client, next_base()).await;
            counts.creating += t.elapsed();
            match created {
                Ok(game) => {
                    counts.created += 1;
                    current = Some((game, Position::startpos()));
                }
                Err(_) => {
                    counts.errors += 1;
                    actix_web::rt::time::sleep(ERROR_PAUSE).await;
                }
            }
            continue;
        };
        let legal = pos.legal_moves();
        if legal.is_empty() {
            current = None;
            continue;
        }
        let mv = legal[rng.below(legal.len())];
        let body = format!("{{\"uci\":\"{}\"}}", pos.uci(mv));
        let base = next_base();
        let req = client
            .post(format!("{base}/v1/games/{}/moves", game.id))
            .bearer_auth(game.seat(pos.turn()));
        let t = Instant::now();
        let answer = request(req, Some(body)).await;
        let took = t.elapsed();
        let reply = match answer {
            Ok((200, bytes)) => serde_json::from_slice::<Versioned>(&bytes).ok(),
            _ => None,
        };
        match reply {
            Some(reply) => {
                counts.moves += 1;
                counts.latencies.push(micros(took));
                pos.play_unchecked(mv);
                if !reply.status.ongoing() {
                    current = None;
                }
            }
            None => {
                counts.errors += 1;
                current = None;
                actix_web::rt::time::sleep(ERROR_PAUSE).await;
            }
        }
    }
    counts
}
