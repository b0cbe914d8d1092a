//! Each provider's request body checked against its published shape: the
//! JSON Schemas converted from OpenAI's OpenAPI document (chat completions,
//! Responses; see `tests/schemas/openai/README.md`) and the strict shapes
//! written from Anthropic's and Google's SDK types (`tests/support/`). A
//! body that passes here has the shape the provider publishes.

#[path = "../support/anthropic.rs"]
mod anthropic;
#[path = "../support/gemini.rs"]
mod gemini;
#[allow(dead_code)]
#[path = "../support/schema.rs"]
mod schema;

use prompt_pipeline::Request;
use serde_json::Value;

/// `body` as JSON, after checking (failing the test otherwise) that it has
/// its provider's published shape (OpenAI's only when its converted schemas
/// are present: `schema::schemas_missing`).
pub(crate) fn checked(body: &Request) -> Value {
    let json = serde_json::to_value(body).unwrap();
    let openai = |which| {
        let mut errors = schema::openai_errors(which, &json)?;
        errors.extend(schema::openai_deprecated(which, &json)?);
        Some(errors)
    };
    let errors = match body {
        Request::OpenAi(_) => openai(schema::OpenAiSchema::Chat),
        Request::OpenAiResponses(_) => openai(schema::OpenAiSchema::Responses),
        Request::Anthropic(_) => Some(anthropic::message_errors(&json)),
        Request::Gemini(_) => Some(gemini::request_errors(&json)),
        Request::Completions(_) => Some(completions_errors(&json)),
    };
    match errors {
        None => {
            schema::schemas_missing();
        }
        Some(errors) => assert!(
            errors.is_empty(),
            "the body breaks its provider's published shape:\n    {}\n{}",
            errors.join("\n    "),
            serde_json::to_string_pretty(&json).unwrap()
        ),
    }
    json
}

/// The legacy Completions request (OpenAI's `CreateCompletionRequest`, the
/// shape vLLM, llama.cpp's server and TGI take at `/v1/completions`):
/// `model` and `prompt` strings, its documented keys, and `top_k`, the
/// servers' sampling extension.
fn completions_errors(json: &Value) -> Vec<String> {
    const KEYS: &[&str] = &[
        "model",
        "prompt",
        "best_of",
        "echo",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "max_tokens",
        "n",
        "presence_penalty",
        "seed",
        "stop",
        "stream",
        "stream_options",
        "suffix",
        "temperature",
        "top_p",
        "user",
        "top_k",
    ];
    let mut errors = Vec::new();
    for key in ["model", "prompt"] {
        if !json[key].is_string() {
            errors.push(format!("`{key}` is not a string"));
        }
    }
    if let Some(object) = json.as_object() {
        errors.extend(
            object.keys().filter(|k| !KEYS.contains(&k.as_str())).map(|k| format!("unknown `{k}`")),
        );
    }
    errors
}
