//! What players do around the moves: abort, takeback offers, rematch offers and the chat.
//! Each change goes through `conditions::act` (idempotency keys, If-Match) as the draw offers
//! do; a rematch's accept also creates the new game.

use actix_web::{web, HttpRequest, HttpResponse};
use chessd_core::Color;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{
    admission::ClientKey,
    api::{bearer, client::client_key, conditions, error::ApiError, routes::game_view::game_view},
    game::{
        chat::{check_text, ChatLine, Room},
        command::{Action, Need},
        options::GameOptions,
        secrets::{digest, rematch_secret, Caller},
        GameError, GameHandle, NewGame,
    },
    AppState,
};

/// A player's seat in a rematch: the new game, the colour played there, and the seat secret.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct RematchSeat {
    /// The rematch's id.
    pub id: String,
    /// The colour this player plays in the rematch (the other than in this game).
    #[schema(value_type = crate::schemas::Side)]
    pub color: String,
    /// This player's seat secret in the rematch.
    pub secret: String,
}

/// The seat colour of the holder of `token`, or why it is refused (a seat is needed).
async fn seat_of(game: &GameHandle, token: Option<String>) -> Result<Color, ApiError> {
    let given = token.is_some();
    match game.identify(token).await? {
        Caller::Seat(color) => Ok(color),
        _ => Err(Need::Seat.refusal(given).into()),
    }
}

/// The seat of `me` (holding `token`) in the rematch `id` of game `old`.
fn rematch_seat(id: Uuid, old: Uuid, me: Color, token: &str) -> RematchSeat {
    RematchSeat {
        id: id.to_string(),
        color: (!me).name().to_string(),
        secret: rematch_secret(token, old),
    }
}

/// Accepts the opponent's rematch offer as the holder of `token` (seat `me`): creates the
/// rematch once (colours swapped, each seat proven by the secret made from its secret in this
/// game), and answers the accepter's seat in it. `created` is false when it existed already.
pub(crate) async fn accept_rematch(
    state: &AppState,
    client: &ClientKey,
    game: &GameHandle,
    token: &str,
) -> Result<(RematchSeat, bool), ApiError> {
    let me = seat_of(game, Some(token.to_string())).await?;
    let old = game.id();
    let reply = game
        .act(Some(token.to_string()), Action::AcceptRematch)
        .await?;
    let snap = &reply.snapshot;
    if let Some(existing) = snap.offers.rematch_game {
        return Ok((rematch_seat(existing, old, me, token), false));
    }
    let Some((offerer, offerer_seat)) = snap.offers.rematch else {
        return Err(
            GameError::NoOffer("there is no rematch offer from the opponent".into()).into(),
        );
    };
    let abandon_after = state.config.games.abandon_after_secs;
    let new = NewGame {
        game: snap.game.fresh(),
        options: GameOptions {
            idle_timeout: (snap.idle_timeout_secs > 0)
                .then(|| std::time::Duration::from_secs(snap.idle_timeout_secs)),
            abandon_after: (abandon_after > 0)
                .then(|| std::time::Duration::from_secs(abandon_after)),
            webhook: None,
            time_control: snap.time_control,
            draw_policy: snap.game.policy(),
            chess2_bots: Vec::new(),
        },
        opponents: Vec::new(),
        players: match snap.players.as_deref() {
            Some(players) => {
                Some(crate::api::routes::players::refreshed(state, players.swapped()).await)
            }
            None => None,
        },
    };
    // Colours swap: the offerer plays the accepter's colour, and the other way round.
    let seats = [
        (!offerer, offerer_seat),
        (offerer, digest(&rematch_secret(token, old))),
    ];
    let created = state.games.create_with_seats(client, new, &seats).await;
    let id = match created {
        Ok((handle, _)) => handle.id(),
        Err(e) => {
            let _ = game
                .act(Some(token.to_string()), Action::RematchFailed)
                .await;
            return Err(e.into());
        }
    };
    let made = game
        .act(Some(token.to_string()), Action::RematchMade(id))
        .await?;
    let id = made.snapshot.offers.rematch_game.unwrap_or(id);
    Ok((rematch_seat(id, old, me, token), true))
}

/// The answer to a rematch accepted: `201` when it was created now, `200` when it existed.
fn seat_answer((seat, created): (RematchSeat, bool)) -> HttpResponse {
    if created {
        HttpResponse::Created().json(seat)
    } else {
        HttpResponse::Ok().json(seat)
    }
}

/// The token of a request that needs a seat (`unauthorized` without one).
fn seat_token(req: &HttpRequest) -> Result<String, ApiError> {
    bearer(req).ok_or_else(|| Need::Seat.refusal(false).into())
}

macro_rules! seat_action {
    ($(#[$meta:meta])* $name:ident, $action:expr) => {
        $(#[$meta])*
        pub(crate) async fn $name(
            state: web::Data<AppState>,
            req: HttpRequest,
            id: web::Path<String>,
        ) -> Result<HttpResponse, ApiError> {
            conditions::act(&state, &req, &id, $action, &(), None, game_view).await
        }
    };
}

seat_action!(
    /// `POST /v1/games/{id}/abort`
    #[utoipa::path(
        post,
        path = "/v1/games/{id}/abort",
        operation_id = "abortGame",
        tag = "games",
        summary = "Abort the game in its first moves",
        description = "A seat aborts the game while not both sides have moved (`in_game.abortable` in the game's view). The game ends with result `aborted` (no winner, not a draw), stored as any game end. Later, or in a finished game, `409 abort_not_allowed`.",
        params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
        security(("bearerAuth" = [])),
        extensions(("x-chessd-secret" = json!("seat"))),
        responses(
            (status = 200, response = crate::api::routes::game_view::GameAfterAction),
            (status = 400, response = crate::api::openapi_types::InvalidRequest),
            (status = 401, response = crate::api::openapi_types::Unauthorized),
            (status = 403, response = crate::api::openapi_types::Forbidden),
            (status = 404, response = crate::api::openapi_types::GameNotFound),
            (status = 409, description = "`abort_not_allowed`: both sides have moved, or the game is over. `idempotency_key_reused`, `version_mismatch`, `request_in_progress` as for every action.", body = crate::api::error::ErrorBody<'static>)
        )
    )]
    abort,
    Action::Abort
);

seat_action!(
    /// `POST /v1/games/{id}/takeback`
    #[utoipa::path(
        post,
        path = "/v1/games/{id}/takeback",
        operation_id = "offerTakeback",
        tag = "games",
        summary = "Offer a takeback",
        description = "A seat offers to take back its last move: once the opponent accepts, the last move is undone, or the last two when the offerer is to move again (its move and the answer), as lichess. If the opponent's offer is pending, this accepts it. Against an engine the takeback is done at once. Standard games only; casual games only (`in_game.takebacks`). A move by either side withdraws the offer (the opponent's move declines it).",
        params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
        security(("bearerAuth" = [])),
        extensions(("x-chessd-secret" = json!("seat"))),
        responses(
            (status = 200, response = crate::api::routes::game_view::GameAfterAction),
            (status = 400, response = crate::api::openapi_types::InvalidRequest),
            (status = 401, response = crate::api::openapi_types::Unauthorized),
            (status = 403, response = crate::api::openapi_types::Forbidden),
            (status = 404, response = crate::api::openapi_types::GameNotFound),
            (status = 409, description = "`takeback_not_allowed` (no move of the offerer to take back, a finished or rated game), `wrong_variant` (Chess 2), `engine_busy` (the engine is choosing its move). `idempotency_key_reused`, `version_mismatch`, `request_in_progress` as for every action.", body = crate::api::error::ErrorBody<'static>)
        )
    )]
    offer_takeback,
    Action::OfferTakeback
);

seat_action!(
    /// `POST /v1/games/{id}/takeback/accept`
    #[utoipa::path(
        post,
        path = "/v1/games/{id}/takeback/accept",
        operation_id = "acceptTakeback",
        tag = "games",
        summary = "Accept the opponent's takeback offer",
        description = "Undoes the offerer's last move (and the answer to it when the offerer is to move again). The clocks keep the time each side has; the side to move has its clock running. Events before the takeback no longer describe the game: a client reconnecting from before it gets `resync`.",
        params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
        security(("bearerAuth" = [])),
        extensions(("x-chessd-secret" = json!("seat"))),
        responses(
            (status = 200, response = crate::api::routes::game_view::GameAfterAction),
            (status = 400, response = crate::api::openapi_types::InvalidRequest),
            (status = 401, response = crate::api::openapi_types::Unauthorized),
            (status = 403, response = crate::api::openapi_types::Forbidden),
            (status = 404, response = crate::api::openapi_types::GameNotFound),
            (status = 409, description = "`no_offer` (no takeback offer from the opponent), `takeback_not_allowed`. `idempotency_key_reused`, `version_mismatch`, `request_in_progress` as for every action.", body = crate::api::error::ErrorBody<'static>)
        )
    )]
    accept_takeback,
    Action::AcceptTakeback
);

seat_action!(
    /// `POST /v1/games/{id}/takeback/decline`
    #[utoipa::path(
        post,
        path = "/v1/games/{id}/takeback/decline",
        operation_id = "declineTakeback",
        tag = "games",
        summary = "Decline the opponent's takeback offer",
        params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
        security(("bearerAuth" = [])),
        extensions(("x-chessd-secret" = json!("seat"))),
        responses(
            (status = 200, response = crate::api::routes::game_view::GameAfterAction),
            (status = 400, response = crate::api::openapi_types::InvalidRequest),
            (status = 401, response = crate::api::openapi_types::Unauthorized),
            (status = 403, response = crate::api::openapi_types::Forbidden),
            (status = 404, response = crate::api::openapi_types::GameNotFound),
            (status = 409, description = "`no_offer`: no takeback offer from the opponent. `idempotency_key_reused`, `version_mismatch`, `request_in_progress` as for every action.", body = crate::api::error::ErrorBody<'static>)
        )
    )]
    decline_takeback,
    Action::DeclineTakeback
);

seat_action!(
    /// `POST /v1/games/{id}/rematch/decline`
    #[utoipa::path(
        post,
        path = "/v1/games/{id}/rematch/decline",
        operation_id = "declineRematch",
        tag = "games",
        summary = "Decline the opponent's rematch offer",
        params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
        security(("bearerAuth" = [])),
        extensions(("x-chessd-secret" = json!("seat"))),
        responses(
            (status = 200, response = crate::api::routes::game_view::GameAfterAction),
            (status = 400, response = crate::api::openapi_types::InvalidRequest),
            (status = 401, response = crate::api::openapi_types::Unauthorized),
            (status = 403, response = crate::api::openapi_types::Forbidden),
            (status = 404, response = crate::api::openapi_types::GameNotFound),
            (status = 409, description = "`no_offer`: no rematch offer from the opponent (or the rematch is made). `idempotency_key_reused`, `version_mismatch`, `request_in_progress` as for every action.", body = crate::api::error::ErrorBody<'static>)
        )
    )]
    decline_rematch,
    Action::DeclineRematch
);

/// `POST /v1/games/{id}/rematch`
#[utoipa::path(
    post,
    path = "/v1/games/{id}/rematch",
    operation_id = "offerRematch",
    tag = "games",
    summary = "Offer a rematch",
    description = "A seat of a finished game offers a rematch: the same variant, start position (a Chess 2 game's armies) and time control, colours swapped. Answers the game's view (`in_game.rematch_offer`). If the opponent's offer is pending, this accepts it (answered as `POST …/rematch/accept`). Once the rematch is made, the offerer reads its seat with `GET …/rematch` (its seat secret in this game) or from its WebSocket's `rematch_seat` frame. Not for games against an engine.",
    params(crate::api::openapi_types::GameId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 201, description = "The opponent's offer was pending: the rematch is created; the caller's seat in it.", body = crate::api::routes::in_game::RematchSeat),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`game_not_over`, `rematch_not_allowed` (against an engine), `request_in_progress` (the rematch is being created).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`rate_limited` or `quota_exceeded`: the accepter's game quotas, as for `POST /v1/games`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn offer_rematch(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let game = state.games.get(&id).await?;
    let token = seat_token(&req)?;
    let me = seat_of(&game, Some(token.clone())).await?;
    let seat = digest(&rematch_secret(&token, game.id()));
    let reply = game
        .act(Some(token.clone()), Action::OfferRematch(seat))
        .await?;
    let offers = &reply.snapshot.offers;
    let opponent_offered = matches!(offers.rematch, Some((by, _)) if by != me);
    if opponent_offered || offers.rematch_game.is_some() {
        let client = client_key(&req, &state.config.auth, false)?;
        return Ok(seat_answer(
            accept_rematch(&state, &client, &game, &token).await?,
        ));
    }
    Ok(HttpResponse::Ok().json(game_view(&reply)?))
}

/// `POST /v1/games/{id}/rematch/accept`
#[utoipa::path(
    post,
    path = "/v1/games/{id}/rematch/accept",
    operation_id = "acceptRematch",
    tag = "games",
    summary = "Accept the opponent's rematch offer",
    description = "Creates the rematch (colours swapped) and answers the accepter's seat in it: `201` when created now, `200` with the same game and secret when it was created already (a retried accept makes no second game). Each seat's secret in the rematch is made from its secret in this game, so neither seat ever learns the other's and spectators learn neither.",
    params(crate::api::openapi_types::GameId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat"))),
    responses(
        (status = 200, description = "The rematch was created before: the caller's seat in it.", body = crate::api::routes::in_game::RematchSeat),
        (status = 201, description = "The rematch, created: the caller's seat in it.", body = crate::api::routes::in_game::RematchSeat),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_offer` (no rematch offer from the opponent), `game_not_over`, `rematch_not_allowed`, `request_in_progress` (the rematch is being created).", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`rate_limited` or `quota_exceeded`: the accepter's game quotas, as for `POST /v1/games`.", body = crate::api::error::ErrorBody<'static>),
        (status = 503, description = "`too_many_games` or `store_unavailable`.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn accept_rematch_route(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let game = state.games.get(&id).await?;
    let token = seat_token(&req)?;
    let client = client_key(&req, &state.config.auth, false)?;
    Ok(seat_answer(
        accept_rematch(&state, &client, &game, &token).await?,
    ))
}

/// `GET /v1/games/{id}/rematch`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/rematch",
    operation_id = "getRematch",
    tag = "games",
    summary = "Read one's seat in the rematch",
    description = "With a seat secret of this game: the rematch (once made) and the caller's seat secret in it. Another seat's or a spectator's request never learns a secret.",
    params(crate::api::openapi_types::GameId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat"))),
    responses(
        (status = 200, description = "The caller's seat in the rematch.", body = crate::api::routes::in_game::RematchSeat),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_offer`: no rematch has been made yet.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn get_rematch(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let game = state.games.get(&id).await?;
    let token = seat_token(&req)?;
    let me = seat_of(&game, Some(token.clone())).await?;
    let snap = game.snapshot().await?;
    let Some(rematch) = snap.offers.rematch_game else {
        return Err(GameError::NoOffer("no rematch of this game has been made yet".into()).into());
    };
    Ok(HttpResponse::Ok().json(rematch_seat(rematch, game.id(), me, &token)))
}

/// `POST /v1/games/{id}/chat` body.
#[derive(Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChatBody {
    /// The message (`chat.max_length` characters at most).
    pub text: String,
}

/// A room's recent messages.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct ChatLog {
    /// The caller's room: `players` for a seat, `spectators` for anyone else.
    pub room: Room,
    /// Its recent messages, oldest first.
    pub lines: Vec<ChatLine>,
}

/// Sends `text` to the chat room of the holder of `token`: checked for length, then counted
/// against `client`'s chat rate, then sent.
pub(crate) async fn send_chat(
    state: &AppState,
    client: &ClientKey,
    game: &GameHandle,
    token: Option<String>,
    text: &str,
) -> Result<ChatLine, ApiError> {
    let chat = &state.config.chat;
    let text = check_text(text, chat.max_length)?;
    state
        .admission
        .check_chat_rate(client)
        .map_err(GameError::from)?;
    Ok(game.chat(token, text, chat.history).await?)
}

/// `POST /v1/games/{id}/chat`
#[utoipa::path(
    post,
    path = "/v1/games/{id}/chat",
    operation_id = "sendChat",
    tag = "games",
    summary = "Write in the game's chat",
    description = "A seat writes in the players' chat (seen by the two seats only), anyone else in the spectators' chat (seen by spectators only; players do not see it, as lichess). The message goes to the room's WebSocket subscribers as a `chat` event (transient: no version bump, never replayed) and is kept among the room's last `chat.history` messages in memory (not stored: a restart forgets the chat). A seat secret (`Authorization: Bearer`) chooses the players' room; no secret (or another) the spectators'. Off in games against an engine. Limits: `chat.max_length` characters, `chat.messages_per_minute` per client over every game.",
    params(crate::api::openapi_types::GameId),
    request_body(content = crate::api::routes::in_game::ChatBody),
    responses(
        (status = 201, description = "The message as sent.", body = crate::game::chat::ChatLine),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`chat_disabled`: a game against an engine.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "`chat_too_long`: empty, or over `chat.max_length` characters.", body = crate::api::error::ErrorBody<'static>),
        (status = 429, description = "`rate_limited`: over `chat.messages_per_minute` for this client.", body = crate::api::error::ErrorBody<'static>, headers(("Retry-After" = i64, description = "Seconds to wait before trying again.")))
    )
)]
pub(crate) async fn post_chat(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<ChatBody>,
) -> Result<HttpResponse, ApiError> {
    let game = state.games.get(&id).await?;
    let client = client_key(&req, &state.config.auth, false)?;
    let line = send_chat(&state, &client, &game, bearer(&req), &body.text).await?;
    Ok(HttpResponse::Created().json(line))
}

/// `GET /v1/games/{id}/chat`
#[utoipa::path(
    get,
    path = "/v1/games/{id}/chat",
    operation_id = "getChat",
    tag = "games",
    summary = "Read the game's recent chat",
    description = "The recent messages of the caller's room: the players' chat with a seat secret (`Authorization: Bearer`), the spectators' chat otherwise.",
    params(crate::api::openapi_types::GameId),
    responses(
        (status = 200, description = "The room and its recent messages.", body = crate::api::routes::in_game::ChatLog),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`chat_disabled`: a game against an engine.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn get_chat(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let game = state.games.get(&id).await?;
    let token = bearer(&req);
    let room = Room::of(game.identify(token.clone()).await?);
    let lines = game.chat_log(token).await?;
    Ok(HttpResponse::Ok().json(ChatLog { room, lines }))
}
