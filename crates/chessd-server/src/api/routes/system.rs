//! `/health`, `/metrics` (Prometheus text) and `/openapi.json`.

use actix_web::{web, HttpRequest, HttpResponse};

use crate::{
    api::{client::require_operator, error::ApiError},
    AppState,
};

/// `GET /health`: `200` while the server can serve and its store takes writes, else `503`
/// with the store's error (a database that turned read-only, a full disk, a lost server).
#[utoipa::path(
    get,
    path = "/health",
    operation_id = "health",
    tag = "system",
    summary = "Health check",
    responses(
        (status = 200, description = "The server is up and its store takes writes.", body = crate::api::openapi_types::Health),
        (status = 503, description = "The store takes no writes now (`store` says why).", body = crate::api::openapi_types::Health)
    )
)]
pub(crate) async fn health(state: web::Data<AppState>) -> HttpResponse {
    let store = state.games.store().health().await;
    let mut answer = match &store {
        Ok(()) => HttpResponse::Ok(),
        Err(_) => HttpResponse::ServiceUnavailable(),
    };
    answer.json(serde_json::json!({
        "status": if store.is_ok() { "ok" } else { "unavailable" },
        "store": match &store {
            Ok(()) => "ok".to_string(),
            Err(e) => e.clone(),
        },
        "games": state.games.len(),
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// `GET /metrics` (the operator's)
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "metrics",
    tag = "system",
    summary = "Prometheus metrics",
    description = "The operator's: the operator token (`Authorization: Bearer <auth.operator_token>`), or a client on the server's loopback when `auth.loopback_is_operator` (the default); anyone else gets 403.",
    responses(
        (status = 200, description = "Prometheus text format: `chessd_games_alive`, `chessd_moves_total`, `chessd_events_total`, `chessd_errors_total{code}`, `chessd_request_seconds{method,route,status}`.", body = String, content_type = "text/plain"),
        (status = 401, response = crate::api::openapi_types::Unauthorized),
        (status = 403, response = crate::api::openapi_types::Forbidden)
    )
)]
pub(crate) async fn metrics(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    require_operator(&req, &state.config.auth)?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(crate::metrics::render()))
}

/// `GET /openapi.json`
#[utoipa::path(
    get,
    path = "/openapi.json",
    operation_id = "openapi",
    tag = "system",
    summary = "This OpenAPI document",
    responses(
        (status = 200, description = "The OpenAPI 3 document.", body = Object)
    )
)]
pub(crate) async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(crate::openapi::document_json())
}
