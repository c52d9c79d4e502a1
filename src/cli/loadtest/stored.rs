//! Stored games: a store filled with many finished 5+3 games of `plies` random moves each, with
//! clocks, its size per game as the games are played (a journal row a move) and once packed,
//! and the server's RSS on that store with `live` of those games brought into memory.
//!
//! A template game is created through the real server, so that its stored setup and options
//! are exactly what the server writes; the other games are inserted in process through the
//! store's own writer, with journals of random legal moves (think times of 0.5 to 8 s, one in
//! ten up to 32 s longer, in ms) ended by a resignation, encoded as the server encodes them.
//! Each game is then packed as the server packs a game that leaves memory
//! (`game::packing::pack_game`). Then the server starts on the filled store and `live` games,
//! spread over it, are requested (each comes back from the store into memory) before its RSS
//! is read.

use std::time::{Duration, Instant};

use chessd_core::{
    game::{GameResult, Reason, Status},
    Color, Position,
};
use chessd_server::{
    game::{
        journal::{packed, read_stored, Entry},
        packing::{pack_game, Packed},
    },
    store::{NewGameRow, SqliteSync, Store, StoredGame, WriteOp},
};
use futures_util::{future::join_all, StreamExt};
use serde::Serialize;
use uuid::Uuid;

use super::{
    child::ChildServer,
    client::{create_game_with, http_client, on_threads, request, share},
    stats::{micros, random_game, round2, Latency, Rng},
    Settings,
};

/// Distinct random games whose journals the stored games reuse (each under its own id).
const DISTINCT_GAMES: usize = 1000;

/// Games being inserted at once while the store is filled.
const FILL_CONCURRENCY: usize = 256;

/// Writes one commit of the filling takes at most.
const FILL_BATCH: usize = 8192;

/// A game untouched this long leaves the server's memory (`store.evict_after_secs`): longer
/// than bringing the games back takes, so that they are all in memory when RSS is read.
const EVICT_AFTER_SECS: u64 = 8;

/// Time the server gets to settle before its RSS is read.
const SETTLE: Duration = Duration::from_millis(500);

/// The stored-games figures.
#[derive(Debug, Serialize)]
pub(super) struct StoredReport {
    /// Games in the store.
    pub stored: usize,
    /// Moves in each stored game.
    pub plies: usize,
    /// Seconds the filling took.
    pub fill_seconds: f64,
    /// The store's size in bytes (pages in use), every game packed.
    pub store_bytes: i64,
    /// `store_bytes / stored`.
    pub bytes_per_game: f64,
    /// Bytes per game before packing: the journal as rows, a row a move.
    pub bytes_per_game_as_rows: f64,
    /// The packed record's mean size (setup, options, moves, clocks, the end).
    pub record_bytes: f64,
    /// The same games' records without clocks (untimed), mean size.
    pub record_bytes_untimed: f64,
    /// Seconds packing every game took.
    pub pack_seconds: f64,
    /// Server RSS after starting on the filled store, in bytes.
    pub rss_start_bytes: u64,
    /// Games brought into memory.
    pub live: usize,
    /// Games the server reports in memory afterwards.
    pub alive: u64,
    /// Games brought back from the store per second.
    pub load_per_sec: f64,
    /// The server's CPU time (user and system) per game brought back, in µs.
    pub load_cpu_us: f64,
    /// The server's cores busy while bringing games back (CPU time over wall time).
    pub load_cores: f64,
    /// Latency of a request that brings a game back from the store.
    pub load_latency_ms: Latency,
    /// Server RSS with `live` games in memory, in bytes.
    pub rss_live_bytes: u64,
    /// Server RSS once every game brought back has left memory again (evicted), in bytes.
    pub rss_evicted_bytes: u64,
    /// Games in one PGN export of every stored game (`GET /v1/games/export`).
    pub exported: usize,
    /// Exported games per second (the export read to its end by one client).
    pub export_per_sec: f64,
    /// The server's CPU time per game exported, in µs: steadier than the rate on a machine
    /// whose speed varies from one run to the next.
    pub export_cpu_us: f64,
    /// The server's cores busy during the export.
    pub export_cores: f64,
    /// Failed requests.
    pub errors: u64,
}

/// Fills a store, starts the server on it, brings `settings.live` games into memory, measures.
pub(super) fn run(settings: &Settings) -> Result<StoredReport, String> {
    let (url, scratch) = match &settings.store {
        Some(url) if url != "memory" => (url.clone(), None),
        Some(_) => return Err("the stored part needs a store, not memory".into()),
        None => {
            let path = super::child::scratch_store();
            (format!("sqlite://{}", path.display()), Some(path))
        }
    };
    let result = measure(settings, &url);
    if let Some(path) = scratch {
        super::child::remove_sqlite(&path);
    }
    result
}

fn measure(settings: &Settings, url: &str) -> Result<StoredReport, String> {
    let env = vec![
        ("CHESSD_STORE__URL", url.to_string()),
        (
            "CHESSD_LIMITS__MAX_GAMES",
            (settings.live + 1000).to_string(),
        ),
        (
            "CHESSD_LIMITS__MAX_EXPORT_GAMES",
            settings.stored.max(1).to_string(),
        ),
        (
            "CHESSD_STORE__EVICT_AFTER_SECS",
            EVICT_AFTER_SECS.to_string(),
        ),
    ];
    let template = {
        let server = ChildServer::start(&env)?;
        let base = server.base.clone();
        on_threads(1, |_| {
            let base = base.clone();
            async move { create_game_with(&http_client(), &base, TEMPLATE).await }
        })
        .pop()
        .ok_or("no template game")??
        .id
    };
    let template: Uuid = template
        .parse()
        .map_err(|e| format!("template id {template}: {e}"))?;
    eprintln!(
        "chessd loadtest: stored: filling the store with {} games of {} plies",
        settings.stored, settings.plies
    );
    let start = Instant::now();
    let filled = runtime()?.block_on(fill(url, template, settings))?;
    let fill_seconds = start.elapsed().as_secs_f64();
    let ids = filled.ids;
    let per_game = |bytes: i64| (bytes as f64 / ids.len().max(1) as f64).round();
    let server = ChildServer::start(&env)?;
    std::thread::sleep(SETTLE);
    let rss_start = server.rss_bytes()?;
    let live: Vec<Uuid> = spread(&ids, settings.live);
    eprintln!(
        "chessd loadtest: stored: bringing {} of them into memory",
        live.len()
    );
    let base = server.base.as_str();
    let cpu_before_loads = server.cpu_seconds();
    let start = Instant::now();
    let per_thread = on_threads(settings.client_threads, |i| {
        let mine: Vec<Uuid> = live
            .iter()
            .skip(i)
            .step_by(settings.client_threads)
            .copied()
            .collect();
        let tasks = share(settings.connections, settings.client_threads, i).max(1);
        async move {
            let client = http_client();
            let chunk = mine.len().div_ceil(tasks).max(1);
            join_all(mine.chunks(chunk).map(|ids| load(&client, base, ids))).await
        }
    });
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let load_cpu = server.cpu_seconds() - cpu_before_loads;
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for (l, e) in per_thread.into_iter().flatten() {
        latencies.extend(l);
        errors += e;
    }
    std::thread::sleep(SETTLE);
    let rss_live = server.rss_bytes()?;
    let alive = super::memory::games_alive(base)?;
    eprintln!("chessd loadtest: stored: exporting every game as PGN");
    let cpu_before_export = server.cpu_seconds();
    let started = Instant::now();
    let total = ids.len();
    let exported = on_threads(1, |_| export_all(base, total))
        .pop()
        .ok_or("no export")??;
    let export_seconds = started.elapsed().as_secs_f64().max(1e-9);
    let export_cpu = server.cpu_seconds() - cpu_before_export;
    let export_per_sec = (exported as f64 / export_seconds).round();
    let per_game_us = |cpu: f64, games: usize| (cpu * 1e6 / games.max(1) as f64).round();
    eprintln!("chessd loadtest: stored: waiting for the games to leave memory");
    let deadline = Instant::now() + Duration::from_secs(EVICT_AFTER_SECS * 4 + 30);
    while super::memory::games_alive(base)? > 0 {
        if Instant::now() > deadline {
            return Err("the games brought back never left memory".into());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    std::thread::sleep(SETTLE + SETTLE);
    let rss_evicted = server.rss_bytes()?;
    Ok(StoredReport {
        stored: ids.len(),
        plies: settings.plies,
        fill_seconds: round2(fill_seconds - filled.pack_seconds),
        store_bytes: filled.packed_bytes,
        bytes_per_game: per_game(filled.packed_bytes),
        bytes_per_game_as_rows: per_game(filled.row_bytes),
        record_bytes: round2(filled.record_bytes),
        record_bytes_untimed: round2(filled.record_bytes_untimed),
        pack_seconds: round2(filled.pack_seconds),
        rss_start_bytes: rss_start,
        live: live.len(),
        alive,
        load_per_sec: (latencies.len() as f64 / seconds).round(),
        load_cpu_us: per_game_us(load_cpu, latencies.len()),
        load_cores: round2(load_cpu / seconds),
        load_latency_ms: Latency::of(latencies),
        rss_live_bytes: rss_live,
        rss_evicted_bytes: rss_evicted,
        exported,
        export_per_sec,
        export_cpu_us: per_game_us(export_cpu, exported),
        export_cores: round2(export_cpu / export_seconds),
        errors,
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a runtime: {e}"))
}

/// `n` ids spread evenly over `ids`.
fn spread(ids: &[Uuid], n: usize) -> Vec<Uuid> {
    let n = n.min(ids.len());
    (0..n).map(|i| ids[i * ids.len() / n.max(1)]).collect()
}

/// Reads a PGN export of `max` games to its end; gives how many games it held.
async fn export_all(base: &str, max: usize) -> Result<usize, String> {
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(600))
        .finish();
    let mut answer = client
        .get(format!("{base}/v1/games/export?max={max}"))
        .insert_header(("accept", "application/x-chess-pgn"))
        .send()
        .await
        .map_err(|e| format!("export: {e}"))?;
    if answer.status() != 200 {
        return Err(format!("export: {}", answer.status()));
    }
    let body = answer
        .body()
        .limit(1 << 34)
        .await
        .map_err(|e| format!("export: {e}"))?;
    let text = String::from_utf8_lossy(&body);
    Ok(text.matches("[Event ").count())
}

/// Requests each game in turn (bringing it back from the store); latencies and errors.
async fn load(client: &awc::Client, base: &str, ids: &[Uuid]) -> (Vec<u32>, u64) {
    let (mut latencies, mut errors) = (Vec::with_capacity(ids.len()), 0);
    for id in ids {
        let sent = Instant::now();
        match request(client.get(format!("{base}/v1/games/{id}")), None).await {
            Ok((200, _)) => latencies.push(micros(sent.elapsed())),
            _ => errors += 1,
        }
    }
    (latencies, errors)
}

/// The stored games' template: a 5+3 game.
const TEMPLATE: &str = r#"{"time_control": {"initial_ms": 300000, "increment_ms": 3000}}"#;

/// What filling the store gave.
struct Filled {
    /// Every stored game's id.
    ids: Vec<Uuid>,
    /// The store's size with the journals as rows.
    row_bytes: i64,
    /// The store's size with every game packed.
    packed_bytes: i64,
    /// Seconds the packing took.
    pack_seconds: f64,
    /// Mean size of a packed record.
    record_bytes: f64,
    /// Mean size of the same records without clocks.
    record_bytes_untimed: f64,
}

/// Inserts `settings.stored - 1` copies of the template game (new ids, journals of random
/// moves), measures the store, packs every game and measures it again.
async fn fill(url: &str, template: Uuid, settings: &Settings) -> Result<Filled, String> {
    let store = Store::open(url, SqliteSync::Normal, FILL_BATCH)
        .await
        .map_err(|e| format!("store: {e}"))?;
    let template: StoredGame = store
        .load_game(&template)
        .await
        .map_err(|e| format!("store: {e}"))?
        .ok_or("the template game is not in the store")?;
    let control = read_stored(&template)
        .map_err(|e| e.to_string())?
        .setup
        .clock
        .ok_or("the template game is not timed")?
        .control;
    let journals = random_journals(settings.plies, [control.initial_ms, control.increment_ms]);
    let mut ids = vec![template.id];
    ids.extend((1..settings.stored).map(|_| Uuid::new_v4()));
    let inserts = ids[1..].iter().enumerate().map(|(i, id)| {
        let row = NewGameRow {
            id: *id,
            created_ms: chessd_server::store::now_ms(),
            secrets: template.secrets.clone(),
            setup: template.setup.clone(),
            options: template.options.clone(),
            status: "black_wins".into(),
        };
        insert(&store, row, &journals[i % journals.len()])
    });
    let failed = futures_util::stream::iter(inserts)
        .buffer_unordered(FILL_CONCURRENCY)
        .filter(|r| std::future::ready(r.is_err()))
        .count()
        .await;
    // The template's own journal, so that it is a game like the others.
    let filled = insert_moves(&store, template.seq, &journals[0]).await;
    if failed > 0 || filled.is_err() {
        return Err(format!("{failed} games could not be stored"));
    }
    let size = |store: &Store| {
        let store = store.clone();
        async move { store.size_bytes().await.map_err(|e| format!("store: {e}")) }
    };
    let row_bytes = size(&store).await?;
    let started = Instant::now();
    let packs = futures_util::stream::iter(ids.iter().map(|id| pack_game(&store, *id, None)))
        .buffer_unordered(FILL_CONCURRENCY)
        .collect::<Vec<_>>()
        .await;
    let pack_seconds = started.elapsed().as_secs_f64();
    let mut record_total = 0;
    for packed in packs {
        match packed {
            Ok(Packed::Packed { bytes, .. }) => record_total += bytes,
            other => return Err(format!("a game was not packed: {other:?}")),
        }
    }
    let packed_bytes = size(&store).await?;
    let untimed = untimed_record_bytes(&template, &journals)?;
    store.close().await;
    Ok(Filled {
        record_bytes: record_total as f64 / ids.len().max(1) as f64,
        ids,
        row_bytes,
        packed_bytes,
        pack_seconds,
        record_bytes_untimed: untimed,
    })
}

/// The mean size of the journals' records with their clocks taken out (an untimed game).
fn untimed_record_bytes(template: &StoredGame, journals: &[Vec<String>]) -> Result<f64, String> {
    let mut journal = read_stored(template).map_err(|e| e.to_string())?;
    journal.setup.clock = None;
    journal.options.time_control = None;
    let mut total = 0;
    for texts in journals {
        let entries: Vec<(u64, Entry)> = (1..)
            .zip(texts)
            .map(|(version, text)| {
                let mut entry = Entry::decode(text)?;
                if let Entry::Move { clocks, .. } | Entry::End { clocks, .. } = &mut entry {
                    *clocks = None;
                }
                Ok((version, entry))
            })
            .collect::<Result<_, String>>()?;
        total += packed::pack(&journal.setup, Some(&journal.options), &entries)
            .map_err(|e| e.to_string())?
            .len();
    }
    Ok(total as f64 / journals.len().max(1) as f64)
}

async fn insert(store: &Store, row: NewGameRow, moves: &[String]) -> Result<(), String> {
    let seq = store
        .write(WriteOp::Create(row))
        .await
        .map_err(|e| e.to_string())?;
    insert_moves(store, seq, moves).await
}

async fn insert_moves(store: &Store, seq: i64, moves: &[String]) -> Result<(), String> {
    let appends = moves.iter().enumerate().map(|(i, body)| {
        store.write(WriteOp::Append {
            game: seq,
            version: i as i64 + 1,
            body: body.clone(),
            status: None,
            now_ms: 0,
        })
    });
    for result in join_all(appends).await {
        result.map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// [`DISTINCT_GAMES`] journals of `plies` random legal moves, none ending the game, each move
/// stored as the server stores a timed move (both clocks after it, think times at random), then
/// the side to move resigns.
fn random_journals(plies: usize, [initial, increment]: [u64; 2]) -> Vec<Vec<String>> {
    let mut rng = Rng::new(7);
    (0..DISTINCT_GAMES)
        .map(|_| {
            let mut pos = Position::startpos();
            let mut clocks = [initial; 2];
            let mut journal: Vec<String> = random_game(&mut rng, plies)
                .into_iter()
                .map(|mv| {
                    let uci = pos.uci(mv);
                    let me = pos.turn() as usize;
                    let mut think = 500 + rng.below(7_500) as u64;
                    if rng.below(10) == 0 {
                        think += rng.below(32_000) as u64;
                    }
                    clocks[me] = clocks[me] - think.min(clocks[me] / 10) + increment;
                    pos.play_unchecked(mv);
                    Entry::played(uci, Some(clocks)).encode()
                })
                .collect();
            let resigns = pos.turn();
            let end = Entry::End {
                status: Status {
                    result: if resigns == Color::White {
                        GameResult::BlackWins
                    } else {
                        GameResult::WhiteWins
                    },
                    reason: Some(Reason::Resignation),
                    note: None,
                },
                clocks: Some(clocks),
            };
            journal.push(end.encode());
            journal
        })
        .collect()
}
