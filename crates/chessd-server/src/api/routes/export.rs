//! `GET /v1/games/export`: many stored games at once, newest first, as PGN or as NDJSON (one
//! JSON object a line) as the `Accept` header asks, streamed game after game.
//!
//! The store is read a page at a time. Each game is replayed through the rules and rendered, a
//! page at a time on the blocking pool, while a reader task reads the next pages and the pages
//! before go out (each page one chunk), so memory stays a few pages whatever the number of games. A client
//! may ask for at most `limits.max_export_games` games, and have `quotas.max_exports` exports
//! streaming at once, within `limits.max_exports` in the whole server.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use actix_web::{
    http::header::{self, Header},
    web, HttpRequest, HttpResponse,
};
use chessd_core::{game::Status, Color};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{
    admission::Permit,
    api::{
        client::client_key,
        error::{ApiError, ErrorCode},
        routes::{archive::filter, games::PGN_CONTENT_TYPE},
        wire::moves::{history, MoveView},
    },
    game::{archive::GameRecord, clock::TimeControl},
    store::{ResultFilter, Store, StoreError, StoredGame},
    AppState,
};

/// Games read from the store at once: three statements a page whatever its size, so larger
/// pages hand off less to the store's thread a game (docs/performance.md, session 31); a
/// page's PGN is about 250 KB.
pub(crate) const PAGE: usize = 256;

/// The media type of NDJSON answers.
pub(crate) const NDJSON_CONTENT_TYPE: &str = "application/x-ndjson";

/// The query of `GET /v1/games/export`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExportQuery {
    /// `all` (default), `ongoing`, `finished`, `white_wins`, `black_wins` or `draw`.
    #[param(value_type = Option<crate::schemas::GamesFilter>, nullable = false, default = "all")]
    pub status: Option<String>,
    /// Most games to send (default and upper bound: `limits.max_export_games`).
    #[param(minimum = 1, maximum = 1000000000, nullable = false)]
    pub max: Option<u64>,
}

/// What an export is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// PGN, games separated by a blank line (`application/x-chess-pgn`).
    Pgn,
    /// One JSON object a line (`application/x-ndjson`).
    Ndjson,
}

impl Format {
    /// The format an `Accept` header asks for: the acceptable type of highest quality among
    /// `application/x-chess-pgn` and `application/x-ndjson`, PGN for `*/*` and `application/*`
    /// (and without the header), `None` when it allows neither.
    pub(crate) fn negotiate(req: &HttpRequest) -> Option<Format> {
        if !req.headers().contains_key(header::ACCEPT) {
            return Some(Format::Pgn);
        }
        let mut ranked = header::Accept::parse(req).ok()?.0;
        // Highest quality first; a stable sort keeps the client's order among equals.
        ranked.sort_by_key(|q| std::cmp::Reverse(q.quality));
        ranked
            .iter()
            .filter(|q| q.quality > header::Quality::ZERO)
            .find_map(
                |q| match (q.item.type_().as_str(), q.item.subtype().as_str()) {
                    ("application", "x-chess-pgn") => Some(Format::Pgn),
                    ("application", "x-ndjson") => Some(Format::Ndjson),
                    ("*", "*") | ("application", "*") => Some(Format::Pgn),
                    _ => None,
                },
            )
    }

    /// The answer's `Content-Type`.
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Format::Pgn => PGN_CONTENT_TYPE,
            Format::Ndjson => NDJSON_CONTENT_TYPE,
        }
    }

    /// One game as written in the export: its PGN and a blank line, or its JSON object and a
    /// newline.
    pub(crate) fn render(self, record: &GameRecord) -> Vec<u8> {
        match self {
            Format::Pgn => {
                let mut text = record.to_pgn();
                text.push('\n');
                text.into_bytes()
            }
            Format::Ndjson => {
                let mut line = serde_json::to_vec(&ExportedGame::of(record)).unwrap_or_default();
                line.push(b'\n');
                line
            }
        }
    }
}

/// A seat in an NDJSON game.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct PlayerView<'a> {
    /// The name the PGN gives it: the engine's, else `?`.
    pub name: &'a str,
    /// The configured engine that plays it, if one does.
    pub engine: Option<&'a str>,
}

/// Both seats.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct PlayersView<'a> {
    /// White.
    pub white: PlayerView<'a>,
    /// Black.
    pub black: PlayerView<'a>,
}

/// A game as one NDJSON line.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct ExportedGame<'a> {
    /// Its id.
    pub id: Uuid,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// Whether it can still be played (an unfinished game that was stopped cannot).
    pub live: bool,
    /// Its status: result, reason, note.
    #[schema(value_type = crate::schemas::StatusView)]
    pub status: &'a Status,
    /// The result as PGN writes it: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: &'static str,
    /// PGN's `Termination`: `normal`, `time forfeit`, `adjudication`, `abandoned` or
    /// `unterminated`.
    pub termination: &'static str,
    /// Who played.
    pub players: PlayersView<'a>,
    /// The clocks, when timed.
    pub time_control: Option<TimeControl>,
    /// `standard` or `chess960`.
    pub variant: &'static str,
    /// The starting position.
    pub initial_fen: String,
    /// The moves, in UCI and SAN.
    pub moves: Vec<MoveView>,
    /// The position after the last move.
    pub fen: String,
}

impl<'a> ExportedGame<'a> {
    /// The line of `record`.
    pub(crate) fn of(record: &'a GameRecord) -> ExportedGame<'a> {
        let seat = |color: Color| PlayerView {
            name: record.player(color),
            engine: record.engine(color),
        };
        ExportedGame {
            id: record.id,
            created_ms: record.created_ms,
            live: record.live,
            status: record.game.status(),
            result: record.game.status().result.pgn(),
            termination: record.termination().pgn(),
            players: PlayersView {
                white: seat(Color::White),
                black: seat(Color::Black),
            },
            time_control: record.time_control,
            variant: record.game.variant(),
            initial_fen: record.game.start_fen(),
            moves: history(&record.game),
            fen: record.game.fen(),
        }
    }
}

/// An export under way, as its answer's stream sees it: the pages a reader task reads ahead
/// and renders, in order. Its place among the exports (the client's permit) is held by its
/// [`Watch`].
///
/// The reader ([`read_ahead`]) reads page after page from the store and starts rendering each
/// on the blocking pool at once; up to [`READ_AHEAD`] rendered or rendering pages wait for the
/// client. Reading, rendering and sending so overlap, and replaying games, most of an export's
/// work, uses more than one core. Each page goes out as one chunk.
struct Export {
    /// The pages in order, each being rendered, or the store's failure.
    pages: tokio::sync::mpsc::Receiver<Result<Rendering, StoreError>>,
    watch: Arc<Watch>,
}

/// A page being rendered: its games' bytes, one after the other.
type Rendering = tokio::task::JoinHandle<web::Bytes>;

/// Pages an export's reader may have read ahead of its client (each being rendered or
/// waiting to be sent), beside the one it is reading.
const READ_AHEAD: usize = 3;

/// An export's place among the exports, and when its client last took a game: a timer gives
/// the place back, and ends the export, once the client has taken nothing for
/// `limits.export_stall_secs` or the export has lasted `limits.export_max_secs`. (A client that
/// stops reading is never asked for more, so only a timer can tell.)
struct Watch {
    permit: Mutex<Option<Permit>>,
    last_taken: Mutex<Instant>,
    /// Why the export was ended, once it was.
    ended: Mutex<Option<&'static str>>,
}

impl Watch {
    /// Watches an export holding `permit`, from now.
    fn start(permit: Permit, stall: Duration, max: Duration) -> Arc<Watch> {
        let watch = Arc::new(Watch {
            permit: Mutex::new(Some(permit)),
            last_taken: Mutex::new(Instant::now()),
            ended: Mutex::new(None),
        });
        let watched = Arc::downgrade(&watch);
        let every = (stall / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
        let deadline = Instant::now() + max;
        actix_web::rt::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                // The export ended by itself (its stream was dropped).
                let Some(watch) = watched.upgrade() else {
                    return;
                };
                let why = if Instant::now() >= deadline {
                    "it lasted limits.export_max_secs"
                } else if lock(&watch.last_taken).elapsed() >= stall {
                    "its client read nothing for limits.export_stall_secs"
                } else {
                    continue;
                };
                tracing::warn!(why, "an export was ended");
                *lock(&watch.ended) = Some(why);
                lock(&watch.permit).take();
                return;
            }
        });
        watch
    }

    /// Notes that the client took a game; `Err` when the export was ended.
    fn taken(&self) -> Result<(), std::io::Error> {
        if let Some(why) = *lock(&self.ended) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("the export was ended: {why}"),
            ));
        }
        *lock(&self.last_taken) = Instant::now();
        Ok(())
    }
}

/// Locks a mutex, poisoned or not (what it guards stays valid).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Where an export stands in the store: what to read next.
struct Cursor {
    store: Store,
    filter: ResultFilter,
    /// The row key of the last game read (the next page is older).
    before: Option<i64>,
    /// Games still to read.
    to_read: usize,
}

impl Cursor {
    /// Reads the next page (at most the games still to read); empty at the end.
    async fn next_page(&mut self) -> Result<Vec<StoredGame>, StoreError> {
        let want = self.to_read.min(PAGE);
        if want == 0 {
            return Ok(Vec::new());
        }
        let page = self
            .store
            .games_page(self.filter, self.before, want as i64)
            .await?;
        // A short page is the last: nothing older is left.
        self.to_read = if page.len() < want {
            0
        } else {
            self.to_read - page.len()
        };
        self.before = page.last().map(|g| g.seq).or(self.before);
        Ok(page)
    }
}

/// Starts rendering `page` on the blocking pool: its games one after the other, as `format`
/// writes them.
fn render(format: Format, page: Vec<StoredGame>) -> Rendering {
    tokio::task::spawn_blocking(move || {
        let mut bytes = Vec::with_capacity(page.len() * 1024);
        for stored in &page {
            match GameRecord::from_stored(stored) {
                Ok(record) => bytes.extend_from_slice(&format.render(&record)),
                // One game that does not replay does not end everyone's export.
                Err(e) => {
                    tracing::error!(game = %stored.id, error = %e, "export: a stored game does not replay; skipped");
                }
            }
        }
        web::Bytes::from(bytes)
    })
}

/// Reads the pages after `cursor`'s and hands each to `pages` as it starts rendering, until
/// the games to send are read, the store has no older game, the store fails (handed on), or
/// the answer's stream is gone.
async fn read_ahead(
    mut cursor: Cursor,
    format: Format,
    pages: tokio::sync::mpsc::Sender<Result<Rendering, StoreError>>,
) {
    loop {
        match cursor.next_page().await {
            Ok(page) if page.is_empty() => return,
            Ok(page) => {
                if pages.send(Ok(render(format, page))).await.is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = pages.send(Err(e)).await;
                return;
            }
        }
    }
}

impl Export {
    /// The next page's bytes; `None` at the end.
    async fn next_chunk(&mut self) -> Option<Result<web::Bytes, std::io::Error>> {
        if let Err(ended) = self.watch.taken() {
            self.pages.close();
            return Some(Err(ended));
        }
        loop {
            let page = match self.pages.recv().await? {
                Ok(rendering) => rendering.await,
                Err(e) => {
                    // The answer has begun: ending it with an error breaks the connection, so
                    // the client sees a truncated transfer rather than a short export.
                    tracing::error!(error = %e, "export: the store failed mid-export");
                    self.pages.close();
                    return Some(Err(std::io::Error::other(e)));
                }
            };
            match page {
                // A page whose every game was skipped sends nothing.
                Ok(bytes) if bytes.is_empty() => continue,
                Ok(bytes) => return Some(Ok(bytes)),
                Err(e) => {
                    tracing::error!(error = %e, "export: rendering a page failed");
                    self.pages.close();
                    return Some(Err(std::io::Error::other(e)));
                }
            }
        }
    }
}

/// `GET /v1/games/export?status=&max=` (`Accept: application/x-chess-pgn` or
/// `application/x-ndjson`).
#[utoipa::path(
    get,
    path = "/v1/games/export",
    operation_id = "exportGames",
    tag = "games",
    summary = "Export stored games as PGN or NDJSON",
    description = "The games the store keeps, newest first, streamed game after game (chunked transfer, a chunk a page; the store is read a page at a time, a few pages ahead of the client, so the server holds a few pages whatever the number of games). The format follows `Accept`: `application/x-chess-pgn` (the default, also for no `Accept`, `*/*` or `application/*`) writes each game as the single-game PGN route does, followed by a blank line; `application/x-ndjson` writes one `ExportedGame` JSON object a line. Quality values are honoured; an `Accept` allowing neither is `406 not_acceptable`. An export sends at most `max` games, at most `limits.max_export_games`; a client may have `quotas.max_exports` exports streaming at once, the server `limits.max_exports`. Each game is replayed from its journal through the rules. With `store.url = \"memory\"` the export is empty. A store failure once the answer has begun breaks the connection (the transfer is truncated, never silently short).",
    params(crate::api::routes::export::ExportQuery),
    responses(
        (status = 200, description = "The games, streamed.", content((String = "application/x-chess-pgn"), (crate::api::routes::export::ExportedGame<'static> = "application/x-ndjson")), headers(("Vary" = String, description = "`Accept`: the format depends on it."))),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 406, description = "`Accept` allows neither `application/x-chess-pgn` nor `application/x-ndjson` (`not_acceptable`).", body = crate::api::error::ErrorBody<'static>),
        (status = 422, description = "`max` is over `limits.max_export_games` (`limit_exceeded`).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "This client has `quotas.max_exports` exports streaming already (`quota_exceeded`).", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "The server streams `limits.max_exports` exports already (`too_many_exports`), or the store could not be read (`store_unavailable`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn export(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = filter(query.status.as_deref())?;
    let format = Format::negotiate(&req).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotAcceptable,
            format!("Accept allows neither {PGN_CONTENT_TYPE} nor {NDJSON_CONTENT_TYPE}"),
        )
    })?;
    let limit = state.config.limits.max_export_games;
    let max = match query.max {
        None => limit,
        Some(0) => return Err(ApiError::invalid_request("max must be at least 1")),
        Some(n) if n > limit as u64 => {
            return Err(ApiError::new(
                ErrorCode::LimitExceeded,
                format!("max {n} is over limits.max_export_games ({limit})"),
            ))
        }
        Some(n) => n as usize,
    };
    let client = client_key(&req, &state.config.auth, false)?;
    let permit = state.admission.acquire_export(&client)?;
    let limits = &state.config.limits;
    let watch = Watch::start(
        permit,
        Duration::from_secs(limits.export_stall_secs.max(1)),
        Duration::from_secs(limits.export_max_secs.max(1)),
    );
    let mut cursor = Cursor {
        store: state.games.store().clone(),
        filter,
        before: None,
        to_read: max,
    };
    // The first page is read before answering, so a store that is down gets a JSON error.
    let first = cursor
        .next_page()
        .await
        .map_err(|e| ApiError::new(ErrorCode::StoreUnavailable, e.to_string()))?;
    let (pages, rendered) = tokio::sync::mpsc::channel(READ_AHEAD);
    if !first.is_empty() {
        // A fresh channel has room for the first page.
        let _ = pages.try_send(Ok(render(format, first)));
        actix_web::rt::spawn(read_ahead(cursor, format, pages));
    }
    let export = Export {
        pages: rendered,
        watch,
    };
    let body = futures_util::stream::unfold(export, |mut export| async move {
        export.next_chunk().await.map(|chunk| (chunk, export))
    });
    Ok(HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((header::VARY, "Accept"))
        .streaming(body))
}
