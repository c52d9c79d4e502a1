//! `/health`, `/metrics` (Prometheus text) and `/openapi.json`.

use actix_web::{web, HttpResponse};

use crate::AppState;

/// `GET /health`
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({
        "status": "ok",
        "games": state.games.len(),
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// `GET /metrics`
pub async fn metrics() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(crate::metrics::render())
}

/// `GET /openapi.json`
pub async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(crate::openapi::DOCUMENT)
}
