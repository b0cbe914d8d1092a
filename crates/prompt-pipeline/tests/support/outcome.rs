//! What a pipeline run is snapshotted as, shared by the end-to-end tests.

use prompt_pipeline::{Built, Diagnostic, Error, Provider};
use serde_json::{Value, json};

/// The checked body, the notices, the template's writes and effects; or the
/// error with its kind, stage, message and position.
#[allow(dead_code)]
pub(crate) fn outcome(result: Result<Built, Error>) -> Value {
    match result {
        Ok(built) => {
            let rendered = built.rendered.expect("the template stage is on");
            json!({
                "body": crate::documented::checked(&built.body),
                "model": built.model,
                "notices": built.notices,
                "writes": rendered.writes,
                "effects": rendered.effects,
            })
        }
        Err(err) => {
            let report = err.report();
            let origin = report.line.map(|_| Diagnostic::origin(&err).to_string());
            json!({"error": {
                "kind": report.kind,
                "stage": err.kind().stage(),
                "message": report.message,
                "line": report.line,
                "column": report.column,
                "snippet": report.snippet,
                "origin": origin,
            }})
        }
    }
}

/// The model a test builds with for `provider` when its input names none
/// (OpenAI and Anthropic bodies require one; Gemini's goes in the URL).
#[allow(dead_code)]
pub(crate) fn model(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi | Provider::OpenAiResponses => "gpt-5.4",
        Provider::Anthropic => "claude-sonnet-4-5",
        _ => "gemini-2.5-flash",
    }
}
