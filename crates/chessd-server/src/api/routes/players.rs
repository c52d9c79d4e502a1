//! `/v1/players`: players (anonymous or named), their login, their page (ratings per variant and
//! time-control class, recent games) and the PGN of their games.
//!
//! A player is proven by its token, sent as `X-Player-Token` (its own header, since
//! `Authorization: Bearer` carries seat and seek secrets); browsers also get it as the
//! `chessd_player` cookie (HttpOnly, SameSite=Lax), set by creation and login, and read when no
//! header is sent.

use actix_web::{cookie::Cookie, web, HttpRequest, HttpResponse};
use chessd_core::{pgn::PgnGame, Color};
use serde::{Deserialize, Serialize};

use crate::{
    api::{client::client_key, error::ApiError, optional_json},
    game::{archive::GameRecord, players::GamePlayers},
    lobby::glicko::Rating,
    players::PlayersError,
    store::players::{PlayerGameRow, PlayerRow, RatingRow},
    AppState,
};

/// The header a player token is sent in.
pub(crate) const TOKEN_HEADER: &str = "X-Player-Token";
/// The cookie a browser keeps its player token in.
pub(crate) const COOKIE: &str = "chessd_player";

/// The player token of a request: `X-Player-Token`, else the `chessd_player` cookie.
pub(crate) fn player_token(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .or_else(|| req.cookie(COOKIE).map(|c| c.value().to_string()))
        .filter(|t| !t.is_empty())
}

/// The player a request's token proves (`None` without a token; `bad_credentials` for a token
/// that names nobody).
pub(crate) async fn request_player(
    state: &AppState,
    req: &HttpRequest,
) -> Result<Option<PlayerRow>, ApiError> {
    match player_token(req) {
        None => Ok(None),
        Some(token) => Ok(Some(state.players.identify(&token).await?)),
    }
}

/// `players` with each seat's rating in their game's variant and class read again (a rematch,
/// a game made from pool entries); a rating that cannot be read stays as it was.
pub(crate) async fn refreshed(
    state: &AppState,
    mut players: crate::game::players::GamePlayers,
) -> crate::game::players::GamePlayers {
    let Ok(db) = state.players.db() else {
        return players;
    };
    for seat in [&mut players.white, &mut players.black]
        .into_iter()
        .flatten()
    {
        if let Ok(rating) = db.rating(&seat.id, &players.variant, &players.class).await {
            seat.rating = rating.map(|r| r.rating.round() as i32);
        }
    }
    players
}

/// `POST /v1/players` body: nothing (an anonymous player), or a name and a password.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewPlayerBody {
    /// The name: 2 to 20 ASCII letters, digits, `_` or `-`, starting with a letter; unique
    /// case-insensitively.
    #[schema(
        min_length = 2,
        max_length = 20,
        pattern = "^[A-Za-z][A-Za-z0-9_-]{1,19}$"
    )]
    pub name: Option<String>,
    /// The password: at least 8 characters, at most 256 bytes.
    #[schema(min_length = 8, max_length = 256)]
    pub password: Option<String>,
}

/// `POST /v1/players/login` body.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoginBody {
    /// The name (any case).
    #[schema(max_length = 20)]
    pub name: String,
    /// The password.
    #[schema(max_length = 256)]
    pub password: String,
}

/// A player with a new token (shown only here).
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PlayerSession {
    /// The player's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// Its name (`null`: anonymous).
    pub name: Option<String>,
    /// Its token: send it as `X-Player-Token` (browsers also get it as the `chessd_player`
    /// cookie). Absent when a name was claimed (the token in use stays valid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// A player as others see it.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PlayerIdentity {
    /// The player's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// Its name (`null`: anonymous).
    pub name: Option<String>,
    /// When it was created (Unix ms).
    pub created_ms: i64,
}

/// A rating in one variant and class.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct RatingView {
    /// `standard` or `chess2`.
    #[schema(value_type = crate::schemas::VariantName)]
    pub variant: String,
    /// `bullet`, `blitz`, `rapid` or `classical` (lichess's classes: base + 40 × increment).
    pub class: String,
    /// The Glicko-2 rating.
    pub rating: f64,
    /// Its deviation.
    pub rd: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Whether it is provisional (deviation over 110, as lichess).
    pub provisional: bool,
    /// Rated games played.
    pub games: i64,
}

impl RatingView {
    fn of(row: &RatingRow) -> RatingView {
        let rating = Rating {
            rating: row.rating,
            deviation: row.deviation,
            volatility: row.volatility,
        };
        RatingView {
            variant: row.variant.clone(),
            class: row.class.clone(),
            rating: row.rating,
            rd: row.deviation,
            volatility: row.volatility,
            provisional: rating.provisional(),
            games: row.games,
        }
    }
}

/// One side's player in a game.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct SeatPlayerView {
    /// The player's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// Its name (`null`: anonymous).
    pub name: Option<String>,
    /// Its rating (rounded) in the game's variant and class when the game started (`null`:
    /// never rated there).
    pub rating: Option<i32>,
}

/// Who plays a game created with players.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct GamePlayersView {
    /// White's player (`null`: no player).
    pub white: Option<SeatPlayerView>,
    /// Black's player.
    pub black: Option<SeatPlayerView>,
    /// Whether the game is rated.
    pub rated: bool,
    /// The variant its ratings are kept for.
    #[schema(value_type = crate::schemas::VariantName)]
    pub variant: String,
    /// Its time-control class.
    pub class: String,
}

impl GamePlayersView {
    /// The view of a game's players.
    pub(crate) fn of(players: &GamePlayers) -> GamePlayersView {
        let seat = |p: &Option<crate::game::players::SeatPlayer>| {
            p.as_ref().map(|p| SeatPlayerView {
                id: p.id.clone(),
                name: p.name.clone(),
                rating: p.rating,
            })
        };
        GamePlayersView {
            white: seat(&players.white),
            black: seat(&players.black),
            rated: players.rated,
            variant: players.variant.clone(),
            class: players.class.clone(),
        }
    }
}

/// A game on a player's page.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PlayerGameView {
    /// The game's id.
    pub id: uuid::Uuid,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// `ongoing`, `white_wins`, `black_wins` or `draw`.
    pub result: String,
    /// Its players.
    pub players: GamePlayersView,
}

impl PlayerGameView {
    fn of(row: &PlayerGameRow) -> PlayerGameView {
        PlayerGameView {
            id: uuid::Uuid::from_slice(&row.game).unwrap_or_default(),
            created_ms: row.created_ms,
            result: row.status.clone(),
            players: GamePlayersView::of(&GamePlayers::from_row(row)),
        }
    }
}

/// `GET /v1/players/{name}` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PlayerPage {
    /// The player.
    pub player: PlayerIdentity,
    /// Its ratings, per variant and class it has played rated games in.
    pub ratings: Vec<RatingView>,
    /// Its recent games, newest first (`players.recent_games` at most).
    pub recent_games: Vec<PlayerGameView>,
}

fn session_cookie(state: &AppState, token: &str) -> Cookie<'static> {
    Cookie::build(COOKIE, token.to_string())
        .path("/")
        .http_only(true)
        .same_site(actix_web::cookie::SameSite::Lax)
        .secure(state.players.config().cookie_secure)
        .max_age(actix_web::cookie::time::Duration::days(365))
        .finish()
}

/// `POST /v1/players`
#[utoipa::path(
    post,
    path = "/v1/players",
    operation_id = "createPlayer",
    tag = "players",
    summary = "Create a player, or claim a name",
    description = "Without a body: a new anonymous player. With `name` and `password`: a new named player (names are unique case-insensitively; the password is kept as its argon2id hash). The answer carries the player's token (shown only here): send it as `X-Player-Token`; the answer also sets it as the `chessd_player` cookie (HttpOnly, SameSite=Lax) for browsers.\n\nWith the token of an anonymous player (`X-Player-Token` or the cookie) and `name` + `password`, that player claims the name instead (`200`; its token stays valid). Creation is limited per client (`players.creates_per_minute`) and in total (`players.creates_per_minute_total`).",
    request_body(content = Option<crate::api::routes::players::NewPlayerBody>),
    security((), ("playerToken" = [])),
    responses(
        (status = 201, description = "The new player and its token.", body = crate::api::routes::players::PlayerSession),
        (status = 200, description = "The anonymous player now has the name.", body = crate::api::routes::players::PlayerSession),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, description = "`bad_credentials`: a player token that names no player.", body = crate::api::error::ErrorBody<'static>),
        (status = 409, description = "`name_taken`, or `already_named` (the token's player has a name).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 429, description = "`rate_limited`: too many players created.", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again."))),
        (status = 503, description = "`players_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn create(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let body: NewPlayerBody = optional_json(&body)?;
    let named = match (body.name, body.password) {
        (Some(name), Some(password)) => Some((name, password)),
        (None, None) => None,
        _ => {
            return Err(ApiError::invalid_request(
                "a named player needs both name and password",
            ))
        }
    };
    // The token's player claims the name.
    if let (Some((name, password)), Some(_)) = (&named, player_token(&req)) {
        let Some(player) = request_player(&state, &req).await? else {
            return Err(PlayersError::BadCredentials("no player token").into());
        };
        let player = state
            .players
            .claim(&player, name.clone(), password.clone())
            .await?;
        return Ok(HttpResponse::Ok().json(PlayerSession {
            id: player.id,
            name: player.name,
            token: None,
        }));
    }
    let session = state.players.create(&client, named).await?;
    Ok(HttpResponse::Created()
        .cookie(session_cookie(&state, &session.token))
        .json(PlayerSession {
            id: session.player.id,
            name: session.player.name,
            token: Some(session.token),
        }))
}

/// `POST /v1/players/login`
#[utoipa::path(
    post,
    path = "/v1/players/login",
    operation_id = "loginPlayer",
    tag = "players",
    summary = "Log a named player in",
    description = "A fresh token for the named player (its oldest tokens beyond `players.max_tokens` are forgotten), also set as the `chessd_player` cookie. Attempts are limited per client (`players.logins_per_minute`) and per name (`players.logins_per_minute_per_name`), counted before the password is checked: one more attempt is `429 rate_limited` with `Retry-After`.",
    request_body(content = crate::api::routes::players::LoginBody),
    responses(
        (status = 200, description = "The player and its new token.", body = crate::api::routes::players::PlayerSession),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, description = "`bad_credentials`: wrong name or password.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 429, description = "`rate_limited`: too many login attempts from this client or on this name.", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again."))),
        (status = 503, description = "`players_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<LoginBody>,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let LoginBody { name, password } = body.into_inner();
    let session = state.players.login(&client, &name, password).await?;
    Ok(HttpResponse::Ok()
        .cookie(session_cookie(&state, &session.token))
        .json(PlayerSession {
            id: session.player.id,
            name: session.player.name,
            token: Some(session.token),
        }))
}

/// `GET /v1/player`
#[utoipa::path(
    get,
    path = "/v1/player",
    operation_id = "currentPlayer",
    tag = "players",
    summary = "The player a token proves",
    description = "The player of the request's `X-Player-Token` (or `chessd_player` cookie): how a browser, which cannot read its HttpOnly cookie, learns who it is.",
    security(("playerToken" = [])),
    responses(
        (status = 200, description = "The player.", body = crate::api::routes::players::PlayerIdentity),
        (status = 401, description = "`bad_credentials`: no token, or one that names no player.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`players_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn me(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    state.players.db()?;
    let player = request_player(&state, &req)
        .await?
        .ok_or(PlayersError::BadCredentials("no player token"))?;
    Ok(HttpResponse::Ok().json(PlayerIdentity {
        id: player.id,
        name: player.name,
        created_ms: player.created_ms,
    }))
}

/// `GET /v1/players/{name}`
#[utoipa::path(
    get,
    path = "/v1/players/{name}",
    operation_id = "getPlayer",
    tag = "players",
    summary = "A player's page",
    description = "A player by name (any case) or id (an anonymous player has only its id): its ratings per variant and time-control class (Glicko-2: `rating`, `rd`, `provisional` while the deviation is over 110, rated `games`) and its recent games (newest first, with their results and players).",
    params(("name" = String, Path, description = "The player's name or id.", max_length = 36)),
    responses(
        (status = 200, description = "The player.", body = crate::api::routes::players::PlayerPage),
        (status = 404, description = "`player_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`players_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn page(
    state: web::Data<AppState>,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let player = state.players.find(&name).await?;
    let db = state.players.db()?;
    let ratings = db.ratings(&player.id).await.map_err(PlayersError::from)?;
    let limit = i64::try_from(state.players.config().recent_games).unwrap_or(i64::MAX);
    let games = db
        .games(&player.id, None, limit)
        .await
        .map_err(PlayersError::from)?;
    Ok(HttpResponse::Ok().json(PlayerPage {
        player: PlayerIdentity {
            id: player.id,
            name: player.name,
            created_ms: player.created_ms,
        },
        ratings: ratings.iter().map(RatingView::of).collect(),
        recent_games: games.iter().map(PlayerGameView::of).collect(),
    }))
}

/// `GET /v1/players/{name}/games.pgn` query.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PgnQuery {
    /// Games created before this time (Unix ms): the previous page's oldest game's
    /// `created_ms`.
    pub before: Option<i64>,
    /// Games at most, 1 to 1000 (default, and at most: `players.max_pgn_games`).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
}

/// `GET /v1/players/{name}/games.pgn`
#[utoipa::path(
    get,
    path = "/v1/players/{name}/games.pgn",
    operation_id = "playerGamesPgn",
    tag = "players",
    summary = "A player's games as PGN",
    description = "The player's games, newest first, as one PGN file: `players.max_pgn_games` at most per request; `?before=` (a game's `created_ms`) pages on. The `White` and `Black` tags name the players (an anonymous player by its id), with `WhiteElo`/`BlackElo` from their ratings when the game started.",
    params(
        ("name" = String, Path, description = "The player's name or id.", max_length = 36),
        crate::api::routes::players::PgnQuery
    ),
    responses(
        (status = 200, description = "The games.", content_type = "application/x-chess-pgn", body = String),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 404, description = "`player_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`players_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn games_pgn(
    state: web::Data<AppState>,
    name: web::Path<String>,
    query: web::Query<PgnQuery>,
) -> Result<HttpResponse, ApiError> {
    if query.limit.is_some_and(|l| !(1..=1000).contains(&l)) {
        return Err(ApiError::invalid_request("limit must be 1 to 1000"));
    }
    let player = state.players.find(&name).await?;
    let db = state.players.db()?;
    let cap = state.players.config().max_pgn_games.max(1);
    let limit = query.limit.map_or(cap, |l| (l as usize).clamp(1, cap));
    let rows = db
        .games(
            &player.id,
            query.before,
            i64::try_from(limit).unwrap_or(i64::MAX),
        )
        .await
        .map_err(PlayersError::from)?;
    let mut out = String::new();
    for row in &rows {
        let id = uuid::Uuid::from_slice(&row.game).unwrap_or_default();
        let Some(stored) = state
            .games
            .store()
            .load_game(&id)
            .await
            .map_err(PlayersError::from)?
        else {
            continue;
        };
        let record = GameRecord::from_stored(&stored)?;
        out.push_str(&pgn_with_players(&record, &GamePlayers::from_row(row)));
        out.push('\n');
    }
    Ok(HttpResponse::Ok()
        .content_type("application/x-chess-pgn; charset=utf-8")
        .body(out))
}

/// A game's PGN with its players named (and their ratings at the start).
fn pgn_with_players(record: &GameRecord, players: &GamePlayers) -> String {
    let mut tags = record.pgn_tags();
    for (color, seat) in [
        (Color::White, &players.white),
        (Color::Black, &players.black),
    ] {
        let Some(seat) = seat else { continue };
        let tag = match color {
            Color::White => "White",
            Color::Black => "Black",
        };
        let name = seat.name.clone().unwrap_or_else(|| seat.id.clone());
        if let Some(t) = tags.iter_mut().find(|(k, _)| k == tag) {
            t.1 = name;
        }
        if let Some(rating) = seat.rating {
            tags.push((format!("{tag}Elo"), rating.to_string()));
        }
    }
    match &record.game {
        crate::game::Board::Chess(game) => PgnGame::from_game(game, tags).to_pgn(),
        crate::game::Board::Chess2(game) => chessd_core::pgn::write_chess2_game(game, &tags),
    }
}
