//! `/v1/seeks`: the lobby's seeks. A player posts a seek (variant, armies, time control, colour,
//! rated or casual, rating range) and gets its id and secret; everyone lists the open seeks;
//! another player accepts one, which creates the game through the game service (as `POST
//! /v1/games` does) and answers the accepter's seat; the owner reads its own seat with the
//! seek's secret (or hears it on the lobby socket, `GET /v1/lobby/ws`).

use actix_web::{web, HttpRequest, HttpResponse};
use chessd_core::Color;
use serde::{Deserialize, Serialize};

use crate::{
    api::{
        bearer,
        client::client_key,
        error::ApiError,
        optional_json,
        routes::{
            chess2_games::{self, ArmiesBody},
            games::{self, CreateGame},
            players,
        },
    },
    game::clock::TimeControl,
    lobby::{
        glicko::{Class, Rating},
        owner_seat_secret, Lobby, LobbyError, SeekOwner,
    },
    store::seeks::SeekRow,
    AppState,
};

/// The most a rating range may span on either side.
const MAX_RATING: u32 = 4000;

/// A seek's rating range: only players rated within it may accept.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RatingRange {
    /// The lowest rating accepted.
    #[schema(maximum = 4000)]
    pub min: u32,
    /// The highest rating accepted.
    #[schema(maximum = 4000)]
    pub max: u32,
}

/// `POST /v1/seeks` body: what the seek asks (every field optional).
#[derive(Clone, Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SeekBody {
    /// `standard` (default; `chess` is taken for it) or `chess2`.
    #[schema(value_type = Option<crate::schemas::VariantName>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// A Chess 2 seek's armies (default Classic for both).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub armies: Option<ArmiesBody>,
    /// Clocks, as for games (none: untimed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// The colour the seek's owner plays: `white`, `black` or `random` (default).
    #[schema(value_type = Option<SeekColor>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Whether the game is rated (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
    /// Only players rated within this range (their rating in the seek's variant and class;
    /// 1500 without a player or a rating there) may accept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_range: Option<RatingRange>,
}

/// The colour a seek's owner asks for.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code, reason = "a schema only")]
pub(crate) enum SeekColor {
    /// The owner plays White.
    White,
    /// The owner plays Black.
    Black,
    /// Drawn at random when the seek is accepted.
    Random,
}

impl SeekBody {
    /// The seek's variant as stored (`standard` or `chess2`).
    fn variant_name(&self) -> &str {
        self.variant.as_deref().unwrap_or("standard")
    }

    /// The seek's time-control class (`classical` when untimed).
    fn class(&self) -> Class {
        self.time_control.map_or(Class::Classical, |tc| {
            Class::of(tc.initial_ms, tc.increment_ms)
        })
    }

    /// The body checked and written the one way it is stored (`variant` and `color` always
    /// set).
    fn normalized(mut self) -> Result<SeekBody, ApiError> {
        let variant = match self.variant.as_deref() {
            None | Some("standard" | "chess") => "standard",
            Some("chess2") => "chess2",
            Some(other) => {
                return Err(ApiError::invalid_request(format!(
                    "variant '{other}' is not standard (or chess) or chess2"
                )))
            }
        };
        self.variant = Some(variant.to_string());
        if variant == "chess2" {
            // The armies are checked by building the game they start.
            chess2_games::starting_game(None, self.armies.as_ref(), Default::default())?;
        } else if self.armies.is_some() {
            return Err(ApiError::invalid_request(
                "armies go with \"variant\": \"chess2\" only",
            ));
        }
        if let Some(tc) = &self.time_control {
            tc.check().map_err(ApiError::invalid_request)?;
        }
        match self.color.as_deref() {
            None => self.color = Some("random".into()),
            Some("white" | "black" | "random") => {}
            Some(other) => {
                return Err(ApiError::invalid_request(format!(
                    "color '{other}' is not white, black or random"
                )))
            }
        }
        if let Some(range) = &mut self.rating_range {
            // A range given upside down is read in order (min over max is not an error).
            if range.min > range.max {
                std::mem::swap(&mut range.min, &mut range.max);
            }
            if range.max > MAX_RATING {
                return Err(ApiError::invalid_request(format!(
                    "rating_range: both ends at most {MAX_RATING}"
                )));
            }
        }
        self.rated.get_or_insert(false);
        Ok(self)
    }
}

/// An open seek as listed.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct SeekView {
    /// The seek's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// When it was posted (Unix ms).
    pub created_ms: i64,
    /// What it asks.
    pub seek: SeekBody,
    /// Its time-control class (`bullet`, `blitz`, `rapid` or `classical`; `classical` when
    /// untimed): its owner's rating and the accepter's are the ones of its variant and class.
    pub class: &'static str,
    /// Who posted it (`null`: no player).
    pub owner: Option<SeekOwnerView>,
}

/// A seek's owner as listed: as it was when it posted the seek.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct SeekOwnerView {
    /// Its name (`null`: an anonymous player).
    pub name: Option<String>,
    /// Its rating (rounded) in the seek's variant and class (`null`: never rated there; a
    /// rating range counts it as 1500).
    pub rating: Option<i32>,
    /// Whether that rating is provisional (deviation over 110, as lichess; `true` when never
    /// rated there).
    pub provisional: bool,
}

impl SeekView {
    /// The view of a stored seek.
    pub(crate) fn of(row: &SeekRow) -> SeekView {
        let seek: SeekBody = serde_json::from_str(&row.body).unwrap_or_default();
        let owner = row.player.as_ref().map(|_| SeekOwnerView {
            name: row.owner_name.clone(),
            rating: row.owner_rating.map(|r| r.round() as i32),
            provisional: row.owner_deviation.is_none_or(|d| {
                Rating {
                    deviation: d,
                    ..Rating::default()
                }
                .provisional()
            }),
        });
        SeekView {
            id: row.id.clone(),
            created_ms: row.created_ms,
            class: seek.class().name(),
            seek,
            owner,
        }
    }
}

/// `POST /v1/seeks` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PostedSeek {
    /// The seek's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// The seek's secret (shown only here): cancel, read the accept, hold it from the lobby
    /// socket.
    pub secret: String,
    /// The seek as listed.
    pub view: SeekView,
}

/// `GET /v1/seeks` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SeekList {
    /// The open seeks, oldest first.
    pub seeks: Vec<SeekView>,
}

/// A seat in a game an accepted seek created.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct GameSeat {
    /// The game's id.
    #[schema(value_type = uuid::Uuid)]
    pub id: String,
    /// The seat's colour.
    #[schema(value_type = crate::schemas::Side)]
    pub color: String,
    /// The seat's secret (`Authorization: Bearer` on the game's routes, `?token=` on its
    /// socket).
    pub secret: String,
}

/// `GET /v1/seeks/{id}` answer: the seek, and once accepted its owner's seat.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct OwnedSeek {
    /// `open` or `accepted`.
    pub status: &'static str,
    /// The seek.
    pub view: SeekView,
    /// Once accepted: the game and the owner's seat in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<GameSeat>,
}

/// The owner's seat in the game of an accepted seek, from the seek's secret.
pub(crate) fn owner_seat(row: &SeekRow, seek_secret: &str) -> Option<GameSeat> {
    Some(GameSeat {
        id: row.game.clone()?,
        color: row.owner_color.clone()?,
        secret: owner_seat_secret(seek_secret),
    })
}

/// `POST /v1/seeks`
#[utoipa::path(
    post,
    path = "/v1/seeks",
    operation_id = "postSeek",
    tag = "lobby",
    summary = "Post a seek",
    description = "A seek waits in the lobby for an opponent: variant, armies, time control, the owner's colour, rated or casual, a rating range. The answer's `secret` is the seek's (shown only here): it cancels the seek, reads its accept (`GET /v1/seeks/{id}`) and holds it from a lobby socket. A seek lives `lobby.seek_ttl_secs`, or while its owner's lobby socket holds it and `lobby.seek_grace_secs` after. The body may be omitted (a casual, untimed standard game, colours at random).",
    request_body(content = Option<crate::api::routes::seeks::SeekBody>),
    responses(
        (status = 201, description = "The seek, with its secret.", body = crate::api::routes::seeks::PostedSeek),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, description = "`api_key_required` (an `X-API-Key` header naming no configured key), `bad_credentials` (a player token naming no player) or `player_required` (a rated seek posted without a player).", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 429, description = "`quota_exceeded`: this client holds `quotas.max_seeks` open seeks already.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`too_many_seeks` (the lobby holds `limits.max_seeks`), `lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn post(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let body: SeekBody = optional_json::<SeekBody>(&body)?.normalized()?;
    let player = players::request_player(&state, &req).await?;
    if body.rated == Some(true) && player.is_none() {
        return Err(rated_needs_player());
    }
    let owner = match player {
        None => None,
        Some(player) => {
            let rating = player_rating(&state, &player.id, &body).await?;
            Some(SeekOwner {
                player: player.id,
                name: player.name,
                rating: rating.map(|r| (r.rating, r.deviation)),
            })
        }
    };
    let text = serde_json::to_string(&body).map_err(ApiError::internal)?;
    let posted = state.lobby.post(&client, owner, text).await?;
    let row = state.lobby.get(&posted.id).await?;
    Ok(HttpResponse::Created().json(PostedSeek {
        id: posted.id,
        secret: posted.secret,
        view: SeekView::of(&row),
    }))
}

/// `GET /v1/seeks`
#[utoipa::path(
    get,
    path = "/v1/seeks",
    operation_id = "listSeeks",
    tag = "lobby",
    summary = "The open seeks",
    description = "Every open seek, oldest first (at most `limits.max_seeks`). The lobby socket (`GET /v1/lobby/ws`) sends the same list and then its changes.",
    responses(
        (status = 200, description = "The open seeks.", body = crate::api::routes::seeks::SeekList),
        (status = 503, description = "`lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn list(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let seeks = state.lobby.open_seeks().await?;
    Ok(HttpResponse::Ok().json(SeekList {
        seeks: seeks.iter().map(SeekView::of).collect(),
    }))
}

/// `GET /v1/seeks/{id}`
#[utoipa::path(
    get,
    path = "/v1/seeks/{id}",
    operation_id = "getSeek",
    tag = "lobby",
    summary = "A seek, as its owner sees it",
    description = "With the seek's secret (`Authorization: Bearer`): the seek and its status; once accepted (`status: accepted`), the game's id and the owner's seat (`color`, `secret`). An accepted seek is readable for ten minutes.",
    params(crate::api::openapi_types::SeekId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seek"))),
    responses(
        (status = 200, description = "The seek.", body = crate::api::routes::seeks::OwnedSeek),
        (status = 401, description = "`unauthorized`: no secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 403, description = "`forbidden`: not the seek's secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 404, description = "`seek_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn view(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let secret = bearer(&req);
    let row = state.lobby.owned(&id, secret.as_deref()).await?;
    let accepted = row.status == "accepted";
    Ok(HttpResponse::Ok().json(OwnedSeek {
        status: if accepted { "accepted" } else { "open" },
        view: SeekView::of(&row),
        game: secret
            .as_deref()
            .filter(|_| accepted)
            .and_then(|s| owner_seat(&row, s)),
    }))
}

/// `DELETE /v1/seeks/{id}`
#[utoipa::path(
    delete,
    path = "/v1/seeks/{id}",
    operation_id = "cancelSeek",
    tag = "lobby",
    summary = "Cancel a seek",
    description = "With the seek's secret (`Authorization: Bearer`). An accepted seek cannot be cancelled (`seek_taken`).",
    params(crate::api::openapi_types::SeekId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seek"))),
    responses(
        (status = 204, description = "Cancelled."),
        (status = 401, description = "`unauthorized`: no secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 403, description = "`forbidden`: not the seek's secret.", body = crate::api::error::ErrorBody<'static>),
        (status = 404, description = "`seek_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 409, description = "`seek_taken`: the seek was accepted.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn cancel(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    state.lobby.cancel(&id, bearer(&req).as_deref()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /v1/seeks/{id}/accept`
#[utoipa::path(
    post,
    path = "/v1/seeks/{id}/accept",
    operation_id = "acceptSeek",
    tag = "lobby",
    summary = "Accept a seek",
    description = "Creates the seek's game (as `POST /v1/games` would, counted against the accepter's quotas) and answers the accepter's seat. The owner plays the colour the seek asked for (at random for `random`) and learns of the accept on its lobby socket or with `GET /v1/seeks/{id}`. Exactly one of concurrent accepts wins; the others get `409 seek_taken`. A seek cannot be accepted with its own secret (`409 own_seek`). A seek with a `rating_range` is accepted only by a player rated within it in the seek's variant and class (an accepter without a player, or never rated there, counts as 1500): others get `409 rating_out_of_range` and the seek stays open.",
    params(crate::api::openapi_types::SeekId),
    responses(
        (status = 201, description = "The game and the accepter's seat in it.", body = crate::api::routes::seeks::GameSeat),
        (status = 401, description = "`api_key_required` (an `X-API-Key` header naming no configured key), `bad_credentials` (a player token naming no player) or `player_required` (a rated seek accepted without a player).", body = crate::api::error::ErrorBody<'static>),
        (status = 404, description = "`seek_not_found`.", body = crate::api::error::ErrorBody<'static>),
        (status = 409, description = "`seek_taken` (another player accepted it first), `own_seek`, or `rating_out_of_range`: the seek has a `rating_range` and the accepter's rating in its variant and class (1500 without a player, or never rated there) is outside it (the seek stays open, unchanged).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`rate_limited` or `quota_exceeded`: the accepter's game quotas, as for `POST /v1/games`.", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again."))),
        (status = 503, description = "`too_many_games`, `lobby_unavailable` (no database) or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn accept(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let client = client_key(&req, &state.config.auth, true)?;
    let accepter = players::request_player(&state, &req).await?;
    let seek = state.lobby.get(&id).await?;
    let spec: SeekBody = serde_json::from_str(&seek.body).unwrap_or_default();
    let rated = spec.rated == Some(true);
    if rated && accepter.is_none() {
        return Err(rated_needs_player());
    }
    // Its own seek is `own_seek` whatever its range says (the claim checks again).
    Lobby::refuse_owner(
        &seek,
        bearer(&req).as_deref(),
        accepter.as_ref().map(|p| p.id.as_str()),
    )?;
    if let Some(range) = spec.rating_range {
        // Checked before the claim: a refused accept leaves the seek as it was.
        let rating = match &accepter {
            Some(player) => player_rating(&state, &player.id, &spec).await?,
            None => None,
        }
        .unwrap_or_default()
        .rating
        .round();
        if rating < f64::from(range.min) || rating > f64::from(range.max) {
            return Err(ApiError::new(
                crate::api::error::ErrorCode::RatingOutOfRange,
                format!(
                    "this seek is for players rated {} to {}; your {} {} rating is {rating} \
                     (1500 without a player or a rating there)",
                    range.min,
                    range.max,
                    spec.variant_name(),
                    spec.class().name(),
                ),
            ));
        }
    }
    let claim = state
        .lobby
        .claim(
            &id,
            bearer(&req).as_deref(),
            accepter.as_ref().map(|p| p.id.as_str()),
        )
        .await?;
    let spec: SeekBody = serde_json::from_str(&claim.seek.body).unwrap_or_default();
    let owner = match spec.color.as_deref() {
        Some("white") => Color::White,
        Some("black") => Color::Black,
        _ if uuid::Uuid::new_v4().as_bytes()[0] & 1 == 0 => Color::White,
        _ => Color::Black,
    };
    let created = async {
        let seat: [u8; 16] = claim
            .seek
            .owner_seat
            .as_deref()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| ApiError::internal("a stored seek without its owner's seat"))?;
        let create = CreateGame {
            variant: spec.variant.clone(),
            armies: spec.armies.clone(),
            time_control: spec.time_control,
            ..CreateGame::default()
        };
        let mut new = games::new_game(&state, create)?;
        new.players = game_players(
            &state,
            &spec,
            owner,
            claim.seek.player.as_deref(),
            accepter.as_ref(),
        )
        .await?;
        let (handle, secrets) = state
            .games
            .create_with_seat(&client, new, Some((owner, seat)))
            .await?;
        let accepter = !owner;
        Ok::<_, ApiError>(GameSeat {
            id: handle.id().to_string(),
            color: accepter.name().to_string(),
            secret: match accepter {
                Color::White => secrets.white,
                Color::Black => secrets.black,
            },
        })
    }
    .await;
    let seat = match created {
        Ok(seat) => seat,
        Err(e) => {
            state.lobby.release(claim).await;
            return Err(e);
        }
    };
    match state.lobby.complete(&claim, &seat.id, owner.name()).await {
        Ok(()) => Ok(HttpResponse::Created().json(seat)),
        Err(e @ LobbyError::Taken(_)) => {
            tracing::warn!(seek = %claim.seek.id, game = %seat.id, "a seek's claim ran out before its game was created");
            Err(e.into())
        }
        Err(e) => Err(e.into()),
    }
}

/// `player_required`: a rated seek is posted and accepted by players only.
fn rated_needs_player() -> ApiError {
    ApiError::new(
        crate::api::error::ErrorCode::PlayerRequired,
        "a rated seek needs a player on both sides: send X-Player-Token (POST /v1/players makes one)",
    )
}

/// A player's rating in a seek's variant and class (`None`: never rated there).
async fn player_rating(
    state: &AppState,
    player: &str,
    spec: &SeekBody,
) -> Result<Option<Rating>, ApiError> {
    let row = state
        .players
        .db()?
        .rating(player, spec.variant_name(), spec.class().name())
        .await
        .map_err(crate::players::PlayersError::from)?;
    Ok(row.map(|r| Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    }))
}

/// Who plays the game an accepted seek creates: the seek's owner's player (if it posted with
/// one) and the accepter's, with their ratings in the game's variant and class now. `None` when
/// neither side has a player (the game is then as any other).
async fn game_players(
    state: &AppState,
    spec: &SeekBody,
    owner: Color,
    owner_player: Option<&str>,
    accepter: Option<&crate::store::players::PlayerRow>,
) -> Result<Option<crate::game::players::GamePlayers>, ApiError> {
    use crate::game::players::SeatPlayer;
    if owner_player.is_none() && accepter.is_none() {
        return Ok(None);
    }
    let db = state.players.db()?;
    let variant = spec.variant_name().to_string();
    let class = spec.class().name().to_string();
    let seat = |row: Option<crate::store::players::PlayerRow>| async {
        let Some(row) = row else {
            return Ok::<_, ApiError>(None);
        };
        let rating = db
            .rating(&row.id, &variant, &class)
            .await
            .map_err(crate::players::PlayersError::from)?
            .map(|r| r.rating.round() as i32);
        Ok(Some(SeatPlayer {
            id: row.id,
            name: row.name,
            rating,
        }))
    };
    let owner_row = match owner_player {
        Some(id) => db
            .by_id(id)
            .await
            .map_err(crate::players::PlayersError::from)?,
        None => None,
    };
    let owner_seat = seat(owner_row).await?;
    let accepter_seat = seat(accepter.cloned()).await?;
    let (white, black) = match owner {
        Color::White => (owner_seat, accepter_seat),
        Color::Black => (accepter_seat, owner_seat),
    };
    Ok(Some(crate::game::players::GamePlayers {
        rated: spec.rated == Some(true) && white.is_some() && black.is_some(),
        white,
        black,
        variant,
        class,
    }))
}
