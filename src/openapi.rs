//! The OpenAPI 3 document served at `/openapi.json` (a test checks that it documents exactly the
//! routes of [`crate::api::routes::route_table`], which [`crate::api::configure`] registers).

/// The document.
pub const DOCUMENT: &str = include_str!("openapi.json");
