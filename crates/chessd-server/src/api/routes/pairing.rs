//! `/v1/pairing`: quick pairing. Anyone lists the pools (`[pairing.pools]`) with how many wait
//! in each; a player joins a pool and gets an entry id and secret; with the secret it polls the
//! entry (which keeps it alive) until it is paired, then reads its game and seat, or leaves. The
//! lobby socket (`GET /v1/lobby/ws`) can hold an entry and hears its pairing. Games are made by
//! the pairer (`lobby::pairing`), through [`Maker`], as `POST /v1/games` makes them.

use std::sync::{Arc, Weak};

use actix_web::{web, HttpRequest, HttpResponse};
use chessd_core::Color;
use futures_util::future::BoxFuture;
use serde::Serialize;

use crate::{
    admission::ClientKey,
    api::{
        bearer,
        client::client_key,
        error::ApiError,
        routes::{
            games::{self, CreateGame},
            players,
            seeks::GameSeat,
        },
    },
    config::PoolConfig,
    game::{
        clock::TimeControl,
        players::{GamePlayers, SeatPlayer},
    },
    lobby::{
        glicko::Class,
        pairing::{self, GameMaker, MakeError, PairedGame, Pairing, DEFAULT_RATING},
    },
    store::pairing::EntryRow,
    AppState,
};

/// The pool of a `/v1/pairing/{pool}` route.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "a schema only")]
pub(crate) struct PoolPath {
    /// The pool's id (`GET /v1/pairing` lists them).
    #[param(pattern = "^[A-Za-z0-9._-]{1,32}$")]
    pub pool: String,
}

/// The entry of a `/v1/pairing/{pool}/{entry}` route.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "a schema only")]
pub(crate) struct EntryPath {
    /// The pool's id.
    #[param(pattern = "^[A-Za-z0-9._-]{1,32}$")]
    pub pool: String,
    /// The entry's id.
    pub entry: uuid::Uuid,
}

/// A pool as listed.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct PoolView {
    /// Its id, in URLs.
    pub id: String,
    /// Its name, as shown (`3+2`).
    pub name: String,
    /// `standard` or `chess2`.
    #[schema(value_type = crate::schemas::VariantName)]
    pub variant: String,
    /// Its games' clocks.
    pub time_control: TimeControl,
    /// Its time-control class: `bullet`, `blitz`, `rapid` or `classical`.
    pub class: &'static str,
    /// Entries waiting in it now (every node of a cluster together).
    pub waiting: i64,
}

impl PoolView {
    fn of(pool: &PoolConfig, waiting: i64) -> PoolView {
        let time_control = time_control(pool);
        PoolView {
            id: pool.id.clone(),
            name: pool.name.clone(),
            variant: pool.variant.clone(),
            class: Class::of(time_control.initial_ms, time_control.increment_ms).name(),
            time_control,
            waiting,
        }
    }
}

fn time_control(pool: &PoolConfig) -> TimeControl {
    TimeControl {
        initial_ms: pool.initial_secs.saturating_mul(1000),
        increment_ms: pool.increment_secs.saturating_mul(1000),
    }
}

/// `GET /v1/pairing` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PoolList {
    /// The pools, in configuration order.
    pub pools: Vec<PoolView>,
}

/// `POST /v1/pairing/{pool}` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct JoinedPool {
    /// The entry's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// The entry's secret (shown only here): poll, leave, hold it from the lobby socket.
    pub secret: String,
    /// The pool joined.
    pub pool: String,
    /// `waiting`.
    pub status: &'static str,
}

/// Why an entry's game could not be made.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct EntryError {
    /// The error code, as for any request (`quota_exceeded`, `too_many_games`, …).
    pub code: String,
    /// What went wrong.
    pub message: String,
}

/// `GET /v1/pairing/{pool}/{entry}` answer: the entry and, once paired, the holder's seat.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct EntryView {
    /// The entry's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// Its pool.
    pub pool: String,
    /// `waiting`, `paired` (see `game`) or `failed` (see `error`; join again).
    #[schema(value_type = EntryStatus)]
    pub status: &'static str,
    /// When it joined (Unix ms).
    pub created_ms: i64,
    /// Once paired: the game and the holder's seat in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<GameSeat>,
    /// Once failed: why its game could not be made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<EntryError>,
}

/// An entry's status.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code, reason = "a schema only")]
pub(crate) enum EntryStatus {
    /// Waiting for an opponent.
    Waiting,
    /// Paired: its game exists.
    Paired,
    /// Its game could not be made.
    Failed,
}

impl EntryView {
    /// The view of a stored entry, its seat derived from `secret` (the entry's).
    pub(crate) fn of(row: &EntryRow, secret: &str) -> EntryView {
        let status = match row.status.as_str() {
            "paired" => "paired",
            "failed" => "failed",
            _ => "waiting",
        };
        EntryView {
            id: row.id.clone(),
            pool: row.pool.clone(),
            status,
            created_ms: row.created_ms,
            game: (status == "paired")
                .then(|| {
                    Some(GameSeat {
                        id: row.game.clone()?,
                        color: row.color.clone()?,
                        secret: pairing::seat_secret(secret),
                    })
                })
                .flatten(),
            error: (status == "failed").then(|| {
                let text = row.error.as_deref().unwrap_or("internal: unknown");
                let (code, message) = text.split_once(": ").unwrap_or(("internal", text));
                EntryError {
                    code: code.to_string(),
                    message: message.to_string(),
                }
            }),
        }
    }
}

/// Makes the pairer's games as `POST /v1/games` makes games, while the server lives.
struct Maker(Weak<AppState>);

impl GameMaker for Maker {
    fn make(&self, game: PairedGame) -> BoxFuture<'static, Result<String, MakeError>> {
        let state = self.0.upgrade();
        Box::pin(async move {
            let fail = |e: ApiError| MakeError {
                code: e.code.as_str().to_string(),
                message: e.message,
            };
            let state = state.ok_or_else(|| MakeError {
                code: "internal".into(),
                message: "the server is stopping".into(),
            })?;
            let client = state
                .admission
                .client_from_stored(&game.client)
                .unwrap_or(ClientKey::Address(std::net::Ipv4Addr::UNSPECIFIED.into()));
            let create = CreateGame {
                variant: Some(game.pool.variant.clone()),
                time_control: Some(time_control(&game.pool)),
                ..CreateGame::default()
            };
            let mut new = games::new_game(&state, create).map_err(fail)?;
            new.players = pool_players(&state, &game).await.map_err(fail)?;
            let (handle, _) = state
                .games
                .create_with_seats(
                    &client,
                    new,
                    &[(Color::White, game.white), (Color::Black, game.black)],
                )
                .await
                .map_err(|e| fail(e.into()))?;
            Ok(handle.id().to_string())
        })
    }
}

/// Who plays a game made from two pool entries: each entry's player, with its rating now; the
/// game is rated when both entries have a player (as lichess's pools are). `None` when neither
/// has one.
async fn pool_players(
    state: &AppState,
    game: &PairedGame,
) -> Result<Option<GamePlayers>, ApiError> {
    if game.white_player.is_none() && game.black_player.is_none() {
        return Ok(None);
    }
    let db = state.players.db()?;
    let mut seats = Vec::new();
    for id in [&game.white_player, &game.black_player] {
        let row = match id {
            Some(id) => db
                .by_id(id)
                .await
                .map_err(crate::players::PlayersError::from)?,
            None => None,
        };
        seats.push(row.map(|row| SeatPlayer {
            id: row.id,
            name: row.name,
            rating: None,
        }));
    }
    let black = seats.pop().flatten();
    let white = seats.pop().flatten();
    let class = Class::of(
        game.pool.initial_secs.saturating_mul(1000),
        game.pool.increment_secs.saturating_mul(1000),
    );
    let players = GamePlayers {
        rated: white.is_some() && black.is_some(),
        white,
        black,
        variant: game.pool.variant.clone(),
        class: class.name().to_string(),
    };
    Ok(Some(players::refreshed(state, players).await))
}

/// The node's quick pairing, its pairer started (it makes games through this state).
pub(crate) fn started(state: &web::Data<AppState>) -> &Pairing {
    state.pairing.start(|| {
        let weak = Arc::downgrade(&state.clone().into_inner());
        Arc::new(Maker(weak))
    });
    &state.pairing
}

/// `GET /v1/pairing`
#[utoipa::path(
    get,
    path = "/v1/pairing",
    operation_id = "listPools",
    tag = "lobby",
    summary = "The quick-pairing pools",
    description = "Every pool (`[pairing.pools]` in the configuration: a variant and a time control) with how many entries wait in it now, every node of a cluster together.",
    responses(
        (status = 200, description = "The pools.", body = crate::api::routes::pairing::PoolList),
        (status = 503, description = "`lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn list(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let pools = state.pairing.pools().await?;
    Ok(HttpResponse::Ok().json(PoolList {
        pools: pools.iter().map(|(p, n)| PoolView::of(p, *n)).collect(),
    }))
}

/// `POST /v1/pairing/{pool}`
#[utoipa::path(
    post,
    path = "/v1/pairing/{pool}",
    operation_id = "joinPool",
    tag = "lobby",
    summary = "Join a quick-pairing pool",
    description = "The entry waits in the pool until it is paired with another player's entry of close rating (the range widens while it waits; never with the same client or player). The answer's `secret` is the entry's (shown only here): poll the entry with it (`GET /v1/pairing/{pool}/{entry}`), which keeps it alive, or hold it from a lobby socket; an entry neither polled nor held for `pairing.grace_secs` is gone. No body is read.",
    params(PoolPath),
    responses(
        (status = 201, description = "The entry, with its secret.", body = crate::api::routes::pairing::JoinedPool),
        (status = 401, description = "`api_key_required`: an `X-API-Key` header naming no configured key.", body = crate::api::error::ErrorBody<'static>),
        (status = 404, description = "`pool_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`quota_exceeded`: this client has `quotas.max_pairing_entries` entries waiting already.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`too_many_pairing_entries` (the pools hold `limits.max_pairing_entries`), `lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn join(
    state: web::Data<AppState>,
    req: HttpRequest,
    pool: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let pairing = started(&state);
    // A player joins with its rating in the pool's variant and class (unrated: 1500).
    let player = players::request_player(&state, &req).await?;
    let rating = match (&player, pairing.pool(&pool).ok()) {
        (Some(p), Some(config)) => {
            let class = Class::of(
                config.initial_secs.saturating_mul(1000),
                config.increment_secs.saturating_mul(1000),
            );
            state
                .players
                .db()?
                .rating(&p.id, &config.variant, class.name())
                .await
                .map_err(crate::players::PlayersError::from)?
                .map_or(DEFAULT_RATING, |r| r.rating.round() as i64)
        }
        _ => DEFAULT_RATING,
    };
    let entered = pairing
        .join(&pool, &client, player.map(|p| p.id), rating)
        .await?;
    Ok(HttpResponse::Created().json(JoinedPool {
        id: entered.id,
        secret: entered.secret,
        pool: pool.into_inner(),
        status: "waiting",
    }))
}

/// `GET /v1/pairing/{pool}/{entry}`
#[utoipa::path(
    get,
    path = "/v1/pairing/{pool}/{entry}",
    operation_id = "getPairingEntry",
    tag = "lobby",
    summary = "A pairing entry, as its holder sees it",
    description = "With the entry's secret (`Authorization: Bearer`): `waiting` (the entry then lives `pairing.grace_secs` more), `paired` with the game's id and the holder's seat (`color`, `secret`), or `failed` with the reason its game could not be made. A paired entry is readable for ten minutes.",
    params(EntryPath),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("pairing-entry"))),
    responses(
        (status = 200, description = "The entry.", body = crate::api::routes::pairing::EntryView),
        (status = 401, description = "`unauthorized`: no secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 403, description = "`forbidden`: not the entry's secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 404, description = "`pool_not_found` or `pairing_entry_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn view(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (pool, id) = path.into_inner();
    let secret = bearer(&req);
    let pairing = started(&state);
    let row = pairing.poll(&pool, &id, secret.as_deref()).await?;
    Ok(HttpResponse::Ok().json(EntryView::of(&row, secret.as_deref().unwrap_or_default())))
}

/// `DELETE /v1/pairing/{pool}/{entry}`
#[utoipa::path(
    delete,
    path = "/v1/pairing/{pool}/{entry}",
    operation_id = "leavePool",
    tag = "lobby",
    summary = "Leave a quick-pairing pool",
    description = "With the entry's secret (`Authorization: Bearer`). A paired entry cannot leave (`409 pairing_entry_paired`): its game exists.",
    params(EntryPath),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("pairing-entry"))),
    responses(
        (status = 204, description = "Left."),
        (status = 401, description = "`unauthorized`: no secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 403, description = "`forbidden`: not the entry's secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 404, description = "`pool_not_found` or `pairing_entry_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 409, description = "`pairing_entry_paired`: the entry is paired (or being paired).", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn leave(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (pool, id) = path.into_inner();
    state
        .pairing
        .leave(&pool, &id, bearer(&req).as_deref())
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
