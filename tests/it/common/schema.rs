//! Checks JSON against the schemas of the OpenAPI document the server serves
//! (`chessd_server::openapi`), with the `jsonschema` crate (the document is OpenAPI 3.1, whose schemas
//! are JSON Schema 2020-12).

use serde_json::{json, Value};

/// The OpenAPI document, as served at `/openapi.json`.
pub(crate) fn document() -> Value {
    serde_json::from_str(chessd_server::openapi::document_json()).expect("the document is JSON")
}

/// Checks `v` against `schema`, a schema of `doc` (its `$ref`s name `doc`'s components); `Err`
/// says every mismatch, at `at`.
pub(crate) fn check(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    // The schema inside a document that holds the components its `$ref`s point into.
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": doc["components"],
        "allOf": [schema],
    });
    let validator = jsonschema::validator_for(&root).map_err(|e| format!("{at}: schema: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{at}{}: {e}", e.instance_path()))
        .collect();
    match errors.is_empty() {
        true => Ok(()),
        false => Err(format!("{} in {v}", errors.join("; "))),
    }
}
