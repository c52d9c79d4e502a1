//! The players' requests that change a game: moves, duel steps, resignation, draw offers and
//! claims (the admin's are in `game_admin.rs`). Each goes through `conditions::act`
//! (idempotency keys, If-Match) and answers the game's view.

//! The requests that change a game: moves, duel steps, loading a PGN, a FEN or a saved state,
//! results (draw, winner, resignation), draw offers and claims, options, and stopping it. Each
//! goes through `conditions::act` (idempotency keys, If-Match) and answers the game's view.

use actix_web::{web, HttpRequest, HttpResponse};
use chessd_core::{game::Status, Color, Square};
use serde::{Deserialize, Serialize};

use crate::{
    api::{
        conditions,
        error::ApiError,
        optional_json,
        routes::{chess2_games, game_view::game_view},
        wire::moves::parse_promotion,
    },
    game::{
        board::DuelView,
        clock::ClockView,
        command::{Action, MoveInput},
        replies::ActionReply,
        Board,
    },
    AppState,
};

/// `POST /v1/games/{id}/moves` body: exactly one of the three forms, and optionally the
/// version the move is made on (as `If-Match`).
#[derive(Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveRequest {
    /// UCI text.
    #[schema(nullable = false)]
    pub uci: Option<String>,
    /// SAN text.
    #[schema(nullable = false)]
    pub san: Option<String>,
    /// Origin square index (a1 = 0 … h8 = 63).
    #[schema(nullable = false, minimum = 0, maximum = 63)]
    pub from: Option<i64>,
    /// Target square index.
    #[schema(nullable = false, minimum = 0, maximum = 63)]
    pub to: Option<i64>,
    /// Promotion piece: `q`, `r`, `b` or `n`.
    #[schema(value_type = Option<crate::schemas::PromotionName>, nullable = false)]
    pub promotion: Option<String>,
    /// Refuse the move unless the game is at this version (`version_mismatch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, maximum = 9007199254740991_i64)]
    pub version: Option<u64>,
}

impl MoveRequest {
    /// The move input, or why the request is malformed.
    pub(crate) fn input(&self) -> Result<MoveInput, ApiError> {
        let this = MoveRequest {
            uci: self.uci.clone(),
            san: self.san.clone(),
            from: self.from,
            to: self.to,
            promotion: self.promotion.clone(),
            version: self.version,
        };
        this.into_input()
    }

    fn into_input(self) -> Result<MoveInput, ApiError> {
        match (self.uci, self.san, self.from, self.to) {
            (Some(uci), None, None, None) if self.promotion.is_none() => Ok(MoveInput::Uci(uci)),
            (None, Some(san), None, None) if self.promotion.is_none() => Ok(MoveInput::San(san)),
            (None, None, Some(from), Some(to)) => {
                let square = |i: i64, what: &str| {
                    u32::try_from(i)
                        .ok()
                        .and_then(Square::try_new)
                        .ok_or_else(|| {
                            ApiError::invalid_request(format!(
                                "{what} must be a square index 0..63"
                            ))
                        })
                };
                let promotion = self
                    .promotion
                    .map(|p| {
                        parse_promotion(&p).ok_or_else(|| {
                            ApiError::invalid_request(format!(
                                "promotion '{p}' is not q, r, b or n"
                            ))
                        })
                    })
                    .transpose()?;
                Ok(MoveInput::Squares {
                    from: square(from, "from")?,
                    to: square(to, "to")?,
                    promotion,
                })
            }
            _ => Err(ApiError::invalid_request(
                "give exactly one of {\"uci\"}, {\"san\"} or {\"from\", \"to\", \"promotion\"?}",
            )),
        }
    }
}

/// The answer to a move.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub(crate) struct MoveReply {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// The position after it.
    pub fen: String,
    /// The status after it.
    #[schema(value_type = crate::schemas::StatusView)]
    pub status: Status,
    /// Side to move now.
    #[schema(value_type = crate::schemas::Side)]
    pub turn: Color,
    /// The version after it.
    pub version: u64,
    /// Clocks, when timed.
    pub clocks: Option<ClockView>,
    /// Chess 2: the duel the move started, waiting to be settled (the move is played once
    /// it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duel: Option<DuelView>,
}

/// `POST /v1/games/{id}/moves`
#[utoipa::path(
    post,
    path = "/v1/games/{id}/moves",
    operation_id = "makeMove",
    tag = "games",
    summary = "Make a move",
    description = "Needs the seat secret of the side to move (or the admin secret). A seat secret of the other side gets 409 `not_your_turn`; no or an unknown secret gets 403.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = crate::api::routes::game_actions::MoveRequest),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("side-to-move"))),
    responses(
        (status = 200, description = "The move and the state after it.", body = crate::api::routes::game_actions::MoveReply, headers(("Idempotent-Replayed" = String, description = "`true` on the kept first answer to a request sent again with its `Idempotency-Key`."))),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state (`not_your_turn`, `game_over`). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "Well-formed but not valid (`illegal_move`, `ambiguous_move`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn make_move(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let input = body.input()?;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Move(input),
        &*body,
        body.version,
        move_reply,
    )
    .await
}

/// The answer to a move, from the game's reply.
pub(crate) fn move_reply(reply: &ActionReply) -> Result<MoveReply, ApiError> {
    let snap = &reply.snapshot;
    let (uci, san, duel) = match (&snap.game, &reply.played) {
        (Board::Chess(_), Some(played)) => (played.uci.clone(), played.san.clone(), None),
        (Board::Chess2(game), _) => {
            let (text, duel) = chess2_games::move_answer(game);
            (text.clone(), text, duel)
        }
        (Board::Chess(_), None) => return Err(ApiError::internal("a move without a played move")),
    };
    Ok(MoveReply {
        uci,
        san,
        fen: snap.game.fen(),
        status: snap.game.status().clone(),
        turn: snap.game.to_act(),
        version: snap.version,
        clocks: snap.clocks,
        duel,
    })
}

/// `POST /v1/games/{id}/duel`: the defender challenges or declines the capture at stake, or
/// a side bids (hidden from the other side until both bids are in).
#[utoipa::path(
    post,
    path = "/v1/games/{id}/duel",
    operation_id = "duelStep",
    tag = "games",
    summary = "A Chess 2 duel step",
    description = "In a Chess 2 game, a capture that can be duelled waits for its duel: the defender `challenge`s or `decline`s, then both sides `bid` 0 to 2 stones, in any order, each unseen by the other until both are in; the duel is then settled (the attacker wins ties), and the move played (an Elephant's rampage offers its next capture first). A seat acts for itself; the admin acts for the side that must act and names a bid's `side`. The clock runs for the side that must act (the defender's first while both bids are due).",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = crate::api::routes::chess2_games::DuelBody),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, description = "`invalid_request`: a malformed body.", body = crate::api::error::ErrorBody<'static>),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`no_duel` (no duel waits for this step), `not_your_turn` (not this side's step), `already_bid`, `game_over`, `wrong_variant` (a standard game). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 422, description = "`invalid_bid`: over the side's stones, or not the 1 a defender facing an attacker without stones must bid.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn duel_step(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<chess2_games::DuelBody>,
) -> Result<HttpResponse, ApiError> {
    let step = body.clone().step()?;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Duel(step),
        &*body,
        None,
        game_view,
    )
    .await
}

/// `{"side": "white"}` (only the admin needs to name the side)
#[derive(Debug, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SideBody {
    /// The side resigning.
    #[schema(value_type = Option<crate::schemas::Side>)]
    pub side: Option<Color>,
}

/// `POST /v1/games/{id}/resign`
#[utoipa::path(
    post,
    path = "/v1/games/{id}/resign",
    operation_id = "resign",
    tag = "games",
    summary = "Resign",
    description = "A seat resigns its own side (the body may be omitted); the admin must name the side. Allowed whoever's turn it is.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = Option<crate::api::routes::game_actions::SideBody>),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state (`already_has_status`). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge)
    )
)]
pub(crate) async fn resign(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let side = optional_json::<SideBody>(&body)?.side;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Resign(side),
        &SideBody { side },
        None,
        game_view,
    )
    .await
}

/// `POST /v1/games/{id}/draw-offer` (a seat)
#[utoipa::path(
    post,
    path = "/v1/games/{id}/draw-offer",
    operation_id = "offerDraw",
    tag = "games",
    summary = "Offer a draw",
    description = "A seat offers a draw (at any time). If the opponent's offer is pending, this accepts it.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state (`game_over`, `already_has_status`). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn offer_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::OfferDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-offer/accept` (the other seat)
#[utoipa::path(
    post,
    path = "/v1/games/{id}/draw-offer/accept",
    operation_id = "acceptDraw",
    tag = "games",
    summary = "Accept the opponent's draw offer",
    description = "Ends the game drawn by `agreement`.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state (`no_draw_to_claim`). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn accept_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::AcceptDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-offer/decline` (the other seat)
#[utoipa::path(
    post,
    path = "/v1/games/{id}/draw-offer/decline",
    operation_id = "declineDraw",
    tag = "games",
    summary = "Decline the opponent's draw offer",
    description = "Removes the offer; a move by the side offered to also declines it.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state (`no_draw_to_claim`). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn decline_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::DeclineDraw, &(), None, game_view).await
}

/// `POST /v1/games/{id}/draw-claim` (a seat or the admin)
#[utoipa::path(
    post,
    path = "/v1/games/{id}/draw-claim",
    operation_id = "claimDraw",
    tag = "games",
    summary = "Claim a draw",
    description = "Under the `claims` policy: ends the game drawn by `threefold_repetition` or `fifty_moves` when one applies now.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("seat-or-admin"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state (`no_draw_to_claim`, `already_has_status`). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn claim_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(&state, &req, &id, Action::ClaimDraw, &(), None, game_view).await
}
