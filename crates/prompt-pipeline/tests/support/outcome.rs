//! What a pipeline run is snapshotted as, shared by the end-to-end tests.

use prompt_pipeline::{Built, Error};
use serde_json::{Value, json};

/// The checked body, the notices, the template's writes and effects; or the
/// error with its kind, stage, message and position.
pub(crate) fn outcome(result: Result<Built, Error>) -> Value {
    match result {
        Ok(built) => {
            let rendered = built.rendered.expect("the template stage is on");
            json!({
                "body": crate::documented::checked(&built.body),
                "notices": built.notices,
                "writes": rendered.writes,
                "effects": rendered.effects,
            })
        }
        Err(err) => json!({"error": {
            "kind": err.kind().as_str(),
            "stage": err.kind().stage(),
            "message": err.to_string(),
            "line": err.line(),
            "column": err.column(),
            "snippet": err.snippet(),
        }}),
    }
}
