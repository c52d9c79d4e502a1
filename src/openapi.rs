//! The OpenAPI 3 document served at `/openapi.json` (kept next to the route table; a test checks
//! that every route in [`crate::api::configure`] is documented).

/// The document.
pub const DOCUMENT: &str = include_str!("openapi.json");
