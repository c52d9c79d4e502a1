//! HTTP routes: the REST API under `/v1`, the WebSocket endpoint, health, metrics and OpenAPI.
//! [`configure`] registers them, for `main` and the tests alike, from the one route table
//! ([`routes::route_table`]).

pub(crate) mod client;
pub(crate) mod conditions;
pub(crate) mod connections;
pub mod error;
pub(crate) mod forward;
pub(crate) mod openapi_types;
pub mod routes;
pub mod wire;
pub(crate) mod ws_limits;
pub(crate) mod ws_pace;

use actix_web::{
    error::{JsonPayloadError, PathError, QueryPayloadError},
    web, HttpRequest,
};

use crate::api::error::{ApiError, ErrorCode};

/// Registers every route and the extractor error handlers. The caller provides
/// `web::Data<AppState>` (see [`crate::configure_app`], which does it all).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PathConfig::default().error_handler(path_error))
        .app_data(web::QueryConfig::default().error_handler(query_error))
        .service(api_scope())
        // Not API routes: the web client's files (`web/`, embedded), else the JSON `not_found`.
        // Only requests no route matched get here, so the pages never shadow the API.
        .default_service(web::to(routes::webapp::fallback));
}

/// Every route of the table, inside one scope that records request latency and gives actix's
/// own error answers our JSON shape.
fn api_scope() -> actix_web::Scope<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    web::scope("")
        // Innermost: a request for a game another cluster node owns goes there.
        .wrap(actix_web::middleware::from_fn(forward::route_elsewhere))
        .wrap(actix_web::middleware::from_fn(record_latency))
        .wrap(
            actix_web::middleware::ErrorHandlers::new()
                .default_handler_client(json_error_body)
                .default_handler_server(json_error_body),
        )
        // Outermost: connections over their client's count, and bodies that come too slowly.
        .wrap(actix_web::middleware::from_fn(
            connections::guard_connection,
        ))
        .configure(routes::register)
}

/// Gives errors that actix answers by itself (a method a route does not have, a body over the
/// limit, a failed WebSocket handshake) the same JSON shape as ours, keeping their headers (a
/// 405's `Allow`). Responses that already carry a JSON body are left alone.
fn json_error_body<B: actix_web::body::MessageBody + 'static>(
    res: actix_web::dev::ServiceResponse<B>,
) -> actix_web::Result<actix_web::middleware::ErrorHandlerResponse<B>> {
    use actix_web::{
        http::header::{CONTENT_LENGTH, CONTENT_TYPE},
        http::StatusCode,
        middleware::ErrorHandlerResponse,
    };
    let is_json = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let status = res.status();
    let code = match status {
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        s if s.is_server_error() => ErrorCode::Internal,
        _ => ErrorCode::InvalidRequest,
    };
    let message = match code {
        ErrorCode::MethodNotAllowed => format!(
            "{} is not allowed on {}",
            res.request().method(),
            res.request().path()
        ),
        ErrorCode::PayloadTooLarge => "the body is larger than the configured limit".to_string(),
        _ => status
            .canonical_reason()
            .unwrap_or("request refused")
            .to_lowercase(),
    };
    // Headers actix set on its answer (the 405's `Allow`) stay; only the body is replaced.
    let (req, original) = res.into_parts();
    let mut answer = actix_web::ResponseError::error_response(&ApiError::new(code, message));
    *answer.status_mut() = status;
    for (name, value) in original.headers() {
        if name != CONTENT_TYPE && name != CONTENT_LENGTH {
            answer.headers_mut().append(name.clone(), value.clone());
        }
    }
    Ok(ErrorHandlerResponse::Response(
        actix_web::dev::ServiceResponse::new(req, answer).map_into_right_body(),
    ))
}

async fn record_latency(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let start = std::time::Instant::now();
    let res = next.call(req).await?;
    // Read once routed: actix then knows the matched resource, where before routing it would
    // match the path against every pattern again.
    let request = res.request();
    let route = request.match_pattern();
    crate::metrics::observe_request(
        request.method().as_str(),
        route.as_deref().unwrap_or("unmatched"),
        res.status().as_u16(),
        start.elapsed().as_secs_f64(),
    );
    Ok(res)
}

/// Reads an optional JSON body: no body at all means the default; anything else must parse, so
/// a body of only whitespace is `invalid_request` like any other malformed JSON (unknown fields
/// and wrong types too: never silently ignored).
pub fn optional_json<T: serde::de::DeserializeOwned + Default>(
    body: &web::Bytes,
) -> Result<T, ApiError> {
    if body.is_empty() {
        return Ok(T::default());
    }
    // An object only: serde would also read a struct from an array of its fields.
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::invalid_request(format!("invalid JSON body: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::invalid_request("the body must be a JSON object"));
    }
    serde_json::from_value(value)
        .map_err(|e| ApiError::invalid_request(format!("invalid JSON body: {e}")))
}

/// The JSON body settings: size limit from the configuration, errors as JSON.
pub fn json_config(max_body_bytes: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(max_body_bytes)
        .error_handler(json_error)
}

fn json_error(err: JsonPayloadError, _req: &HttpRequest) -> actix_web::Error {
    let api = match &err {
        JsonPayloadError::Overflow { limit }
        | JsonPayloadError::OverflowKnownLength { limit, .. } => ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the body is larger than the limit of {limit} bytes"),
        ),
        JsonPayloadError::ContentType => {
            ApiError::invalid_request("the body must be JSON (Content-Type: application/json)")
        }
        JsonPayloadError::Deserialize(e) => {
            ApiError::invalid_request(format!("invalid JSON body: {e}"))
        }
        other => ApiError::invalid_request(format!("invalid body: {other}")),
    };
    api.into()
}

fn path_error(err: PathError, req: &HttpRequest) -> actix_web::Error {
    // A malformed game id names no game.
    let _ = err;
    ApiError::game_not_found(req.match_info().get("id").unwrap_or("?")).into()
}

fn query_error(err: QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::invalid_request(format!("invalid query: {err}")).into()
}

/// The secret from `Authorization: Bearer <secret>`. (Only WebSocket routes also read a
/// `?token=`: [`socket_bearer`]; a secret in a URL ends up in logs and histories.)
pub fn bearer(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|s| s.trim().to_string())
}

/// The secret of a WebSocket request: `Authorization: Bearer`, or `?token=` (browsers cannot
/// set headers on a WebSocket).
pub fn socket_bearer(req: &HttpRequest) -> Option<String> {
    bearer(req).or_else(|| {
        web::Query::<TokenQuery>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.into_inner().token)
    })
}

#[derive(serde::Deserialize)]
struct TokenQuery {
    token: Option<String>,
}
