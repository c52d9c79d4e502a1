//! `/health`, `/metrics` (Prometheus text) and `/openapi.json`.

use actix_web::{web, HttpRequest, HttpResponse};

use crate::{
    api::{client::require_operator, error::ApiError},
    AppState,
};

/// `GET /health`: `200` while the server can serve and its store takes writes, else `503`
/// with the store's error (a database that turned read-only, a full disk, a lost server).
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
pub(crate) async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(crate::openapi::DOCUMENT)
}
