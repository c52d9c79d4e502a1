//! WebSocket: P connected players (two seats per game, each connection with its seat secret)
//! move whenever it is their turn. Latency is measured from sending a move frame on the mover's
//! connection to receiving that move's event on the OPPONENT's connection. Two parts on the
//! same connections: as fast as possible, then paced (each game one move per `pace`), then
//! paced again while other clients play moves flat out over REST (`--connections` keep-alive
//! connections, as the `rest` part does): the latency a player sees on a busy server.
//!
//! A finished game is reset to the start position by its admin (`PUT /v1/games/{id}/position`),
//! so the number of connected players stays constant.

use std::{
    sync::{Barrier, Mutex},
    time::{Duration, Instant},
};

use awc::{error::WsProtocolError, ws};
use chessd_core::{Color, Position, START_FEN};
use futures_util::{future::join_all, stream, Sink, SinkExt, Stream, StreamExt};
use serde::{Deserialize, Serialize};

use super::{
    child::ChildServer,
    client::{
        create_game, http_client, on_threads, request, share, NewGame, ResultOnly, Versioned,
        REQUEST_TIMEOUT,
    },
    rest::{move_figures, MoveFigures, Route},
    stats::{micros, round2, CpuMeter, CpuUse, Latency, Rng},
    Settings,
};

/// Moves one game plays at most in a part (a bound besides the deadline).
const MAX_MOVES_PER_GAME: u64 = 1_000_000;

/// The per-connection message limit given to the server under test: the default (50/s) is an
/// abuse guard that a handful of games playing flat out would trip.
pub(super) const WS_RATE_LIMIT: &str = "1000000";

/// A client WebSocket connection (awc's framed socket).
pub(super) trait WsConn:
    Stream<Item = Result<ws::Frame, WsProtocolError>>
    + Sink<ws::Message, Error = WsProtocolError>
    + Unpin
{
}

impl<T> WsConn for T where
    T: Stream<Item = Result<ws::Frame, WsProtocolError>>
        + Sink<ws::Message, Error = WsProtocolError>
        + Unpin
{
}

/// The WebSocket figures.
#[derive(Debug, Serialize)]
pub(super) struct WsReport {
    /// Connected players.
    pub players: usize,
    /// Games (two players each).
    pub games: usize,
    /// Seconds to create the games and connect every player.
    pub setup_seconds: f64,
    /// Players that failed to set up.
    pub setup_errors: u64,
    /// Every player moves as soon as it is their turn.
    pub max_rate: WsPart,
    /// Each game moves once per `pace_ms`.
    pub paced: WsPart,
    /// Paced again, while REST clients play moves flat out.
    pub paced_under_load: WsPart,
    /// The REST moves per second played meanwhile (the load).
    pub load_moves_per_sec: f64,
}

/// The figures of one part.
#[derive(Debug, Default, Serialize)]
pub(super) struct WsPart {
    /// Milliseconds between two moves of a game (0: as fast as possible).
    pub pace_ms: u64,
    /// The move rate the pacing asks for (0 when not paced).
    pub offered_moves_per_sec: f64,
    /// Moves per second actually played.
    pub moves_per_sec: f64,
    /// Moves played.
    pub moves: u64,
    /// From the move frame sent to its event on the opponent's connection.
    pub latency_ms: Latency,
    /// Games that ended and were reset to the start position.
    pub resets: u64,
    /// Failed frames or requests (a game that fails stops playing).
    pub errors: u64,
    /// CPU use during the part.
    pub cpu: CpuUse,
}

/// Counts of one game (or all games) in one part.
#[derive(Default)]
struct Counts {
    moves: u64,
    resets: u64,
    errors: u64,
    latencies: Vec<u32>,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.moves += other.moves;
        self.resets += other.resets;
        self.errors += other.errors;
        self.latencies.extend(other.latencies);
    }
}

/// What one client thread brings back.
#[derive(Default)]
struct ThreadResult {
    setup_errors: u64,
    parts: [Counts; 3],
    walls: [Duration; 3],
}

/// Runs the three parts against one fresh server.
pub(super) fn run(settings: &Settings) -> Result<WsReport, String> {
    let mut env = settings.store_env();
    env.push((
        "CHESSD_WEBSOCKET__MAX_MESSAGES_PER_SEC",
        WS_RATE_LIMIT.to_string(),
    ));
    let server = ChildServer::start(&env)?;
    let games = settings.players / 2;
    let threads = settings.client_threads.min(games).max(1);
    let base = server.base.as_str();
    let ws_base = server.base.replacen("http", "ws", 1);
    let ws_base = ws_base.as_str();
    eprintln!(
        "chessd loadtest: ws: {games} games, {} players, {:.1} s flat out then {:.1} s paced at {} ms",
        games * 2,
        settings.seconds.as_secs_f64(),
        settings.seconds.as_secs_f64(),
        settings.pace.as_millis()
    );
    let barrier = Barrier::new(threads);
    let cpu: Mutex<Vec<CpuUse>> = Mutex::new(Vec::new());
    let meter: Mutex<Option<CpuMeter>> = Mutex::new(None);
    let load: Mutex<Option<std::thread::JoinHandle<MoveFigures>>> = Mutex::new(None);
    let parts_done = std::sync::atomic::AtomicUsize::new(0);
    // The leader of each barrier measures CPU between the parts, and starts the REST load
    // before the last one.
    let sync = |last: bool| {
        if barrier.wait().is_leader() {
            let done = parts_done.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            if done == LOADED_PART {
                *load.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(start_rest_load(settings, base));
            }
            let mut meter = meter.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(m) = meter.take() {
                cpu.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(m.stop(&server).usage());
            }
            if !last {
                *meter = Some(CpuMeter::start(&server));
            }
        }
        // Everyone starts the part after the leader's measurement began.
        barrier.wait();
    };
    let setup_start = Instant::now();
    let setup_seconds = Mutex::new(0.0);
    let results = on_threads(threads, |i| {
        let mine = share(games, threads, i);
        let sync = &sync;
        let setup_seconds = &setup_seconds;
        async move {
            let client = http_client();
            let mut result = ThreadResult::default();
            let connected: Vec<Result<Pair<_>, String>> = stream::iter(0..mine)
                .map(|k| {
                    let rng = Rng::new((i * 1_000_003 + k) as u64);
                    connect_pair(&client, base, ws_base, rng)
                })
                .buffer_unordered(settings.connections.max(1))
                .collect()
                .await;
            let mut pairs = Vec::with_capacity(connected.len());
            for p in connected {
                match p {
                    Ok(p) => pairs.push(p),
                    Err(e) => {
                        if result.setup_errors == 0 {
                            eprintln!("chessd loadtest: ws: setup failed: {e}");
                        }
                        result.setup_errors += 2;
                    }
                }
            }
            sync(false);
            if i == 0 {
                *setup_seconds.lock().unwrap_or_else(|e| e.into_inner()) =
                    setup_start.elapsed().as_secs_f64();
            }
            let paces = [None, Some(settings.pace), Some(settings.pace)];
            for (part, pace) in paces.into_iter().enumerate() {
                let start = Instant::now();
                let deadline = start + settings.seconds;
                let counts = join_all(
                    pairs
                        .iter_mut()
                        .map(|p| p.play(&client, base, deadline, pace)),
                )
                .await;
                result.walls[part] = start.elapsed();
                for c in counts {
                    result.parts[part].add(c);
                }
                sync(part == paces.len() - 1);
            }
            result
        }
    });
    let cpu = cpu.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut total = ThreadResult::default();
    for r in results {
        total.setup_errors += r.setup_errors;
        for (part, counts) in r.parts.into_iter().enumerate() {
            total.parts[part].add(counts);
            total.walls[part] = total.walls[part].max(r.walls[part]);
        }
    }
    let load = load
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
    let [max_counts, paced_counts, loaded_counts] = total.parts;
    let pace_ms = settings.pace.as_millis() as u64;
    let part = |counts: Counts, wall: Duration, pace_ms: u64, cpu: Option<&CpuUse>| WsPart {
        pace_ms,
        offered_moves_per_sec: if pace_ms == 0 {
            0.0
        } else {
            round2(games as f64 * 1000.0 / pace_ms as f64)
        },
        moves_per_sec: (counts.moves as f64 / wall.as_secs_f64().max(1e-9)).round(),
        moves: counts.moves,
        latency_ms: Latency::of(counts.latencies),
        resets: counts.resets,
        errors: counts.errors,
        cpu: cpu.copied().unwrap_or_default(),
    };
    Ok(WsReport {
        players: games * 2,
        games,
        setup_seconds: setup_seconds
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
        setup_errors: total.setup_errors,
        max_rate: part(max_counts, total.walls[0], 0, cpu.first()),
        paced: part(paced_counts, total.walls[1], pace_ms, cpu.get(1)),
        paced_under_load: part(loaded_counts, total.walls[2], pace_ms, cpu.get(2)),
        load_moves_per_sec: load.map_or(0.0, |l| l.per_sec),
    })
}

/// The part played under the REST load (counted from 0: after the flat-out and the quiet
/// paced parts).
const LOADED_PART: usize = 2;

/// Starts REST clients playing moves flat out on the server at `base` for one part's length
/// (on threads of their own, as the `rest` part plays them).
fn start_rest_load(settings: &Settings, base: &str) -> std::thread::JoinHandle<MoveFigures> {
    let (settings, base) = (settings.clone(), base.to_string());
    std::thread::spawn(move || move_figures(&settings, &[&base], Route::Sticky, settings.seconds))
}

/// The fields of a server frame the benchmark looks at.
#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    version: Option<u64>,
    uci: Option<String>,
    status: Option<ResultOnly>,
    code: Option<String>,
}

/// One game with both players connected.
struct Pair<C> {
    game: NewGame,
    /// White's and Black's connections.
    conns: [C; 2],
    /// The position both players see.
    pos: Position,
    /// The game's event version.
    version: u64,
    /// The last event said the game is over (it is reset before the next move).
    over: bool,
    rng: Rng,
    /// A game that failed stops playing.
    broken: bool,
}

fn seat_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

async fn connect_seat(
    client: &awc::Client,
    ws_base: &str,
    game: &NewGame,
    color: Color,
) -> Result<impl WsConn, String> {
    let url = format!(
        "{ws_base}/v1/games/{}/ws?token={}",
        game.id,
        game.seat(color)
    );
    let (_, conn) = client
        .ws(url)
        .connect()
        .await
        .map_err(|e| format!("WebSocket connect: {e}"))?;
    Ok(conn)
}

/// Creates a game and connects both players.
async fn connect_pair(
    client: &awc::Client,
    base: &str,
    ws_base: &str,
    rng: Rng,
) -> Result<Pair<impl WsConn>, String> {
    let game = create_game(client, base).await?;
    let white = connect_seat(client, ws_base, &game, Color::White).await?;
    let black = connect_seat(client, ws_base, &game, Color::Black).await?;
    Ok(Pair {
        game,
        conns: [white, black],
        pos: Position::startpos(),
        version: 0,
        over: false,
        rng,
        broken: false,
    })
}

impl<C: WsConn> Pair<C> {
    /// Plays until the deadline: flat out, or one move per `pace` (from a random offset, so
    /// that the games do not move in lockstep).
    async fn play(
        &mut self,
        client: &awc::Client,
        base: &str,
        deadline: Instant,
        pace: Option<Duration>,
    ) -> Counts {
        let mut counts = Counts::default();
        let mut next = pace.map(|p| Instant::now() + p.mul_f64(self.rng.below(1000) as f64 / 1e3));
        for _ in 0..MAX_MOVES_PER_GAME {
            if self.broken {
                break;
            }
            if let (Some(p), Some(at)) = (pace, next.as_mut()) {
                if *at >= deadline {
                    break;
                }
                tokio::time::sleep_until((*at).into()).await;
                // After a stall, carry on at the pace rather than in a burst.
                *at = (*at + p).max(Instant::now());
            }
            if Instant::now() >= deadline {
                break;
            }
            match self.turn().await {
                Ok(micros) => {
                    counts.moves += 1;
                    counts.latencies.push(micros);
                }
                Err(e) => {
                    eprintln!("chessd loadtest: ws: game {}: {e}", self.game.id);
                    counts.errors += 1;
                    self.broken = true;
                    break;
                }
            }
            if self.over || !self.pos.has_legal_moves() {
                match self.reset(client, base).await {
                    Ok(()) => counts.resets += 1,
                    Err(e) => {
                        eprintln!("chessd loadtest: ws: game {}: reset: {e}", self.game.id);
                        counts.errors += 1;
                        self.broken = true;
                    }
                }
            }
        }
        counts
    }

    /// One move: the side to move sends a random legal move; the opponent waits for its event.
    /// Returns the latency in microseconds.
    async fn turn(&mut self) -> Result<u32, String> {
        let legal = self.pos.legal_moves();
        if legal.is_empty() {
            return Err("no legal move in an ongoing game".into());
        }
        let mv = legal[self.rng.below(legal.len())];
        let uci = self.pos.uci(mv);
        let mover = seat_index(self.pos.turn());
        let expect = self.version + 1;
        let frame = format!("{{\"type\":\"move\",\"uci\":\"{uci}\"}}");
        let sent = Instant::now();
        self.conns[mover]
            .send(ws::Message::Text(frame.into()))
            .await
            .map_err(|e| format!("send: {e}"))?;
        let (at, event) = wait_for(&mut self.conns[1 - mover], expect).await?;
        if event.uci.as_deref() != Some(uci.as_str()) {
            return Err(format!("event {expect} is {:?}, sent {uci}", event.uci));
        }
        self.pos.play_unchecked(mv);
        self.version = expect;
        self.over = event.status.is_some_and(|s| !s.ongoing());
        Ok(micros(at - sent))
    }

    /// The admin resets the game to the start position (the players skip the reset event).
    async fn reset(&mut self, client: &awc::Client, base: &str) -> Result<(), String> {
        let req = client
            .put(format!("{base}/v1/games/{}/position", self.game.id))
            .bearer_auth(&self.game.secrets.admin);
        let (status, body) = request(req, Some(format!("{{\"fen\":\"{START_FEN}\"}}"))).await?;
        if status != 200 {
            return Err(format!("{status} {}", String::from_utf8_lossy(&body)));
        }
        let view: Versioned = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        self.version = view.version;
        self.over = false;
        self.pos = Position::startpos();
        Ok(())
    }
}

/// Reads `conn` until the move event of version `expect` arrives (answering pings, skipping
/// older frames); returns when it arrived and the event.
async fn wait_for<C: WsConn>(conn: &mut C, expect: u64) -> Result<(Instant, Event), String> {
    let limit = tokio::time::Instant::now() + REQUEST_TIMEOUT;
    loop {
        let frame = tokio::time::timeout_at(limit, conn.next())
            .await
            .map_err(|_| format!("no event {expect} within {REQUEST_TIMEOUT:?}"))?
            .ok_or("connection closed")?
            .map_err(|e| format!("receive: {e}"))?;
        match frame {
            ws::Frame::Text(bytes) => {
                let at = Instant::now();
                let event: Event =
                    serde_json::from_slice(&bytes).map_err(|e| format!("bad frame: {e}"))?;
                if event.kind == "error" {
                    return Err(format!("error frame: {:?}", event.code));
                }
                match event.version {
                    Some(v) if v == expect && event.kind == "move" => return Ok((at, event)),
                    Some(v) if v > expect => {
                        return Err(format!("expected event {expect}, got {v} ({})", event.kind))
                    }
                    _ => {}
                }
            }
            ws::Frame::Ping(p) => conn
                .send(ws::Message::Pong(p))
                .await
                .map_err(|e| format!("pong: {e}"))?,
            ws::Frame::Close(reason) => return Err(format!("closed by the server: {reason:?}")),
            _ => {}
        }
    }
}
