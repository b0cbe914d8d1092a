//! Request bodies checked against the providers' own published schemas:
//! OpenAI's (the JSON Schemas converted from its OpenAPI document, see
//! `openai/README.md`) and the strict shapes written from Anthropic's and
//! Google's official SDK types (`tests/support/anthropic.rs`, `gemini.rs`).
//!
//! Two sources of bodies: every body the end-to-end snapshots pin (all of
//! `examples/`, the pipeline inputs and the provider inputs, as built today),
//! and the hand-written fixtures in `fixtures/`, which show the modern shapes
//! (tools, tool calls and results, structured output, reasoning, the
//! Responses API, batch envelopes) that the schemas accept or refuse.

#[path = "../support/anthropic.rs"]
mod anthropic;
#[path = "../support/gemini.rs"]
mod gemini;
#[path = "../support/schema.rs"]
mod schema;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use schema::OpenAiSchema;
use serde_json::Value;

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(ext))
        .collect();
    files.sort();
    files
}

/// The provider keys of the end-to-end snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Provider {
    OpenAi,
    Anthropic,
    Gemini,
}

impl Provider {
    fn key(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// Every way `body` breaks this provider's published shape, or `None`
    /// when that shape is not available (OpenAI's converted schemas absent).
    fn errors(self, body: &Value) -> Option<Vec<String>> {
        match self {
            Provider::OpenAi => {
                let mut errors = schema::openai_errors(OpenAiSchema::Chat, body)?;
                errors.extend(schema::openai_deprecated(OpenAiSchema::Chat, body)?);
                Some(errors)
            }
            Provider::Anthropic => Some(anthropic::message_errors(body)),
            Provider::Gemini => Some(gemini::request_errors(body)),
        }
    }
}

/// Every (snapshot, provider, body) the end-to-end snapshots pin.
fn snapshot_bodies() -> Vec<(String, Provider, Value)> {
    let mut bodies = Vec::new();
    for suite in ["examples", "pipeline", "providers"] {
        for path in files(&tests_dir().join(suite).join("snapshots"), ".snap") {
            let text = std::fs::read_to_string(&path).unwrap();
            // insta: `---`, header lines, `---`, then the JSON.
            let (_, json) = text
                .strip_prefix("---\n")
                .and_then(|rest| rest.split_once("\n---\n"))
                .unwrap_or_else(|| panic!("{}: not an insta snapshot", path.display()));
            let value: Value = serde_json::from_str(json)
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini] {
                if let Some(body) = value.get(provider.key()).and_then(|v| v.get("body")) {
                    bodies.push((name.clone(), provider, body.clone()));
                }
            }
        }
    }
    assert!(bodies.len() > 40, "too few snapshot bodies found: {}", bodies.len());
    bodies
}

// EXPECTATION TO FLIP (issue 16). Today's bodies that do NOT yet conform,
// each with exactly the errors it shows (one listed piece per error). When a
// fix lands, its entries fail this test as "now conforms" (or with fewer
// errors): delete them. The list may only shrink; a body that breaks a
// schema in a new way fails the test.

/// OpenAI: CreateChatCompletionRequest requires `model` ("A body for OpenAI
/// or Anthropic without a model is an error").
const MODEL_REQUIRED: &str = r#""model" is a required property"#;
/// OpenAI: `max_tokens` is `deprecated: true` ("OpenAI chat:
/// `max_completion_tokens`, never the deprecated `max_tokens`").
const MAX_TOKENS_DEPRECATED: &str = "/max_tokens: deprecated";
/// Anthropic: MessageCreateParams.model is `Required[ModelParam]`.
const MODEL_REQUIRED_ANTHROPIC: &str = "missing field `model`";
/// Gemini: parts are camelCase (`inlineData`, `mimeType`) like the rest of
/// the body.
const SNAKE_CASE_PART: &str = "unknown field `inline_data`";

const KNOWN_NONCONFORMING: &[(Provider, &str, &[&str])] = {
    use Provider::{Anthropic, Gemini, OpenAi};
    &[
        (OpenAi, "examples__debate_ana.snap", &[MAX_TOKENS_DEPRECATED]),
        (OpenAi, "examples__debate_ben.snap", &[MAX_TOKENS_DEPRECATED]),
        (OpenAi, "examples__debate_chen.snap", &[MAX_TOKENS_DEPRECATED]),
        (OpenAi, "examples__narrative_bundle.snap", &[MAX_TOKENS_DEPRECATED]),
        (OpenAi, "examples__roleplay.snap", &[MAX_TOKENS_DEPRECATED]),
        (OpenAi, "examples__support_bot.snap", &[MAX_TOKENS_DEPRECATED]),
        (
            OpenAi,
            "pipeline__pipeline@assistant_first.txt.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (
            OpenAi,
            "pipeline__pipeline@comments_in_code.txt.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (OpenAi, "pipeline__pipeline@crlf.txt.snap", &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED]),
        (
            OpenAi,
            "pipeline__pipeline@effects_and_chance.txt.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (OpenAi, "pipeline__pipeline@multibyte.txt.snap", &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED]),
        (
            OpenAi,
            "pipeline__pipeline@same_role_runs.txt.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (
            OpenAi,
            "pipeline__pipeline@temperature_out_of_anthropic_range.txt.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (
            OpenAi,
            "providers__providers@err_assistant_first.json.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (
            OpenAi,
            "providers__providers@err_mid_system.json.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (
            OpenAi,
            "providers__providers@image_and_pdf.json.snap",
            &[MODEL_REQUIRED, MAX_TOKENS_DEPRECATED],
        ),
        (OpenAi, "providers__providers@support_bot.json.snap", &[MAX_TOKENS_DEPRECATED]),
        (Anthropic, "pipeline__pipeline@assistant_first.txt.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Anthropic, "pipeline__pipeline@comments_in_code.txt.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Anthropic, "pipeline__pipeline@crlf.txt.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Anthropic, "pipeline__pipeline@effects_and_chance.txt.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Anthropic, "pipeline__pipeline@multibyte.txt.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Anthropic, "pipeline__pipeline@same_role_runs.txt.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Anthropic, "providers__providers@image_and_pdf.json.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Anthropic, "providers__providers@same_role_runs.json.snap", &[MODEL_REQUIRED_ANTHROPIC]),
        (Gemini, "examples__narrative_bundle.snap", &[SNAKE_CASE_PART]),
        (Gemini, "providers__providers@err_audio_bmp_and_range.json.snap", &[SNAKE_CASE_PART]),
        (Gemini, "providers__providers@image_and_pdf.json.snap", &[SNAKE_CASE_PART]),
        (Gemini, "providers__providers@same_role_runs.json.snap", &[SNAKE_CASE_PART]),
    ]
};

#[test]
fn snapshot_bodies_conform_or_are_listed() {
    let mut failures: BTreeMap<(Provider, String), Vec<String>> = BTreeMap::new();
    let mut checked = HashSet::new();
    for (name, provider, body) in snapshot_bodies() {
        let Some(errors) = provider.errors(&body) else {
            schema::schemas_missing();
            continue;
        };
        checked.insert(provider);
        if !errors.is_empty() {
            failures.entry((provider, name)).or_default().extend(errors);
        }
    }
    let mut problems = Vec::new();
    for &(provider, name, expected) in KNOWN_NONCONFORMING {
        let expected = expected.to_vec();
        if !checked.contains(&provider) {
            continue;
        }
        match failures.remove(&(provider, name.to_owned())) {
            None => problems.push(format!(
                "{} {name} now conforms: delete it from KNOWN_NONCONFORMING",
                provider.key()
            )),
            Some(errors) => {
                // Exactly the listed defects: one error per listed piece.
                let listed = |e: &String| expected.iter().any(|piece| e.contains(piece));
                let each = expected.iter().all(|piece| errors.iter().any(|e| e.contains(piece)));
                if !each || !errors.iter().all(listed) {
                    problems.push(format!(
                        "{} {name}: expected exactly errors containing {expected:?}, got:\n    {}",
                        provider.key(),
                        errors.join("\n    ")
                    ));
                }
            }
        }
    }
    for ((provider, name), errors) in failures {
        problems.push(format!(
            "{} {name} does not conform:\n    {}",
            provider.key(),
            errors.join("\n    ")
        ));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
