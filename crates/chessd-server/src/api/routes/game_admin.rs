//! The admin's requests on a game: loading a PGN, a FEN or a saved state, setting a result
//! (draw, winner), changing options, and stopping it. Each goes through `conditions::act`
//! (idempotency keys, If-Match) and answers the game's view.

use actix_web::{http::StatusCode, web, HttpRequest, HttpResponse};
use chessd_core::{game::DrawPolicy, Color};
use serde::{Deserialize, Serialize};

use crate::{
    api::{
        conditions,
        error::{ApiError, ErrorCode},
        optional_json,
        routes::{
            game_view::{game_view, options_view},
            games::command,
        },
    },
    game::{
        command::{Action, OptionsPatch},
        state::SavedState,
    },
    AppState,
};

/// `{"pgn": "..."}`
#[derive(Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PgnBody {
    /// PGN text (the first game is used).
    pub pgn: String,
}

/// `PUT /v1/games/{id}/pgn` (admin): re-initialise from a PGN.
#[utoipa::path(
    put,
    path = "/v1/games/{id}/pgn",
    operation_id = "loadPgn",
    tag = "games",
    summary = "Re-initialise from a PGN",
    description = "Replaces the game (same id, secrets and options); clocks restart; subscribers get a `reset` event.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = PgnBody),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "Well-formed but not valid (`invalid_pgn`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn load_pgn(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<PgnBody>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(
        &state,
        &req,
        &id,
        Action::LoadPgn(body.pgn.clone()),
        &*body,
        None,
        game_view,
    )
    .await
}

/// `{"fen": "..."}`
#[derive(Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FenBody {
    /// FEN (strict).
    pub fen: String,
}

/// `PUT /v1/games/{id}/position` (admin): re-initialise from a FEN.
#[utoipa::path(
    put,
    path = "/v1/games/{id}/position",
    operation_id = "loadFen",
    tag = "games",
    summary = "Re-initialise from a FEN",
    description = "Replaces the game (same id, secrets and options); clocks restart; subscribers get a `reset` event.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = FenBody),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state or the request's conditions. `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "Well-formed but not valid (`invalid_fen`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn load_fen(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<FenBody>,
) -> Result<HttpResponse, ApiError> {
    conditions::act(
        &state,
        &req,
        &id,
        Action::LoadFen(body.fen.clone()),
        &*body,
        None,
        game_view,
    )
    .await
}

/// `PUT /v1/games/{id}/state` (admin): restore a saved state; a bad state is a 422.
#[utoipa::path(
    put,
    path = "/v1/games/{id}/state",
    operation_id = "restoreState",
    tag = "games",
    summary = "Restore a saved state",
    description = "Validated by replaying it: any defect (unknown format, bad FEN, illegal move, inconsistent result or status, malformed JSON) is a 422 `invalid_state` and the game is unchanged.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = crate::game::state::SavedState),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
    responses(
        (status = 200, response = crate::api::routes::game_view::GameAfterAction),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "`wrong_variant`: a Chess 2 game (UCI engines, PGN and diagrams are standard chess's). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge),
        (status = 422, description = "Well-formed but not valid (`invalid_state`).", body = crate::api::error::ErrorBody<'static>)
    )
)]
pub(crate) async fn restore_state(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let saved: SavedState = serde_json::from_slice(&body)
        .map_err(|e| ApiError::new(ErrorCode::InvalidState, format!("not a saved state: {e}")))?;
    conditions::act(
        &state,
        &req,
        &id,
        Action::Restore(Box::new(saved.clone())),
        &saved,
        None,
        game_view,
    )
    .await
}

/// `{"note": "..."}`
#[derive(Debug, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoteBody {
    /// Why.
    pub note: Option<String>,
}

/// `POST /v1/games/{id}/draw` (admin)
#[utoipa::path(
    post,
    path = "/v1/games/{id}/draw",
    operation_id = "setDraw",
    tag = "games",
    summary = "Declare a draw",
    description = "Ends the game drawn with reason `manual` and the optional note.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = Option<NoteBody>),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
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
pub(crate) async fn set_draw(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let note = optional_json::<NoteBody>(&body)?.note;
    conditions::act(
        &state,
        &req,
        &id,
        Action::SetDraw(note.clone()),
        &NoteBody { note },
        None,
        game_view,
    )
    .await
}

/// `{"winner": "white", "note": "..."}`
#[derive(Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WinnerBody {
    /// The winner.
    #[schema(value_type = crate::schemas::Side)]
    pub winner: Color,
    /// Why.
    pub note: Option<String>,
}

/// `POST /v1/games/{id}/winner` (admin)
#[utoipa::path(
    post,
    path = "/v1/games/{id}/winner",
    operation_id = "setWinner",
    tag = "games",
    summary = "Declare a winner",
    description = "Ends the game with reason `manual` and the optional note.",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = WinnerBody),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
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
pub(crate) async fn set_winner(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<WinnerBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    conditions::act(
        &state,
        &req,
        &id,
        Action::SetWinner(body.winner, body.note.clone()),
        &body,
        None,
        game_view,
    )
    .await
}

/// `PATCH /v1/games/{id}/options` body.
#[derive(Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = OptionsPatch)]
pub(crate) struct OptionsBody {
    /// New idle timeout (0 = never).
    #[schema(maximum = 18446744073709551615_usize)]
    pub idle_timeout_secs: Option<u64>,
    /// New draw policy.
    #[schema(value_type = Option<crate::schemas::DrawPolicyName>)]
    pub draw_policy: Option<DrawPolicy>,
}

/// `PATCH /v1/games/{id}/options` (admin)
#[utoipa::path(
    patch,
    path = "/v1/games/{id}/options",
    operation_id = "setOptions",
    tag = "games",
    summary = "Change a game's options",
    params(crate::api::openapi_types::GameId, crate::api::openapi_types::IdempotencyKey, crate::api::openapi_types::IfMatch),
    request_body(content = OptionsBody),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
    responses(
        (status = 200, description = "The options after the change.", body = crate::api::routes::game_view::OptionsView, headers(("Idempotent-Replayed" = String, description = "`true` on the kept first answer to a request sent again with its `Idempotency-Key`."))),
        (status = 400, response = crate::api::openapi_types::InvalidRequest),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound),
        (status = 409, description = "Conflicts with the game's state (`game_over`). `idempotency_key_reused`: the Idempotency-Key was sent with another request; `version_mismatch`: If-Match names a version the game has left; `request_in_progress`: the first request with the key is still under way.", body = crate::api::error::ErrorBody<'static>),
        (status = 413, response = crate::api::openapi_types::PayloadTooLarge)
    )
)]
pub(crate) async fn set_options(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<OptionsBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let patch = OptionsPatch {
        idle_timeout_secs: body.idle_timeout_secs,
        draw_policy: body.draw_policy,
    };
    conditions::act(
        &state,
        &req,
        &id,
        Action::SetOptions(patch),
        &body,
        None,
        |reply| Ok(options_view(&reply.snapshot)),
    )
    .await
}

/// `DELETE /v1/games/{id}` (admin): stop the game; its terminate hooks run.
#[utoipa::path(
    delete,
    path = "/v1/games/{id}",
    operation_id = "stopGame",
    tag = "games",
    summary = "Stop a game",
    description = "Stops the game's actor: it is forgotten, WebSocket clients get a `stopped` event, and its terminate webhook/callback run once.",
    params(crate::api::openapi_types::GameId),
    security(("bearerAuth" = [])),
    extensions(("x-chessd-secret" = json!("admin"))),
    responses(
        (status = 204, description = "Stopped; the terminate hooks run with reason `stopped`."),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden),
        (status = 404, response = crate::api::openapi_types::GameNotFound)
    )
)]
pub(crate) async fn stop(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    command(&state, &req, &id, Action::Stop).await?;
    Ok(HttpResponse::build(StatusCode::NO_CONTENT).finish())
}
