//! The OpenAPI 3 document served at `/openapi.json` (`tests/it/openapi.rs` checks that it
//! documents exactly the routes of the API's route table, `api/routes/mod.rs`, which is what the
//! server registers).

/// The document.
pub const DOCUMENT: &str = include_str!("openapi.json");
