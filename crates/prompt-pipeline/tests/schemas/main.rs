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
    OpenAiResponses,
    Anthropic,
    Gemini,
}

impl Provider {
    fn key(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "openai-responses",
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
            Provider::OpenAiResponses => {
                let mut errors = schema::openai_errors(OpenAiSchema::Responses, body)?;
                errors.extend(schema::openai_deprecated(OpenAiSchema::Responses, body)?);
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
            for provider in
                [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini]
            {
                if let Some(body) = value.get(provider.key()).and_then(|v| v.get("body")) {
                    bodies.push((name.clone(), provider, body.clone()));
                }
            }
        }
    }
    assert!(bodies.len() > 40, "too few snapshot bodies found: {}", bodies.len());
    bodies
}

// Bodies that do not yet conform, each with exactly the errors it shows
// (one listed piece per error). Issue 16 emptied it: every snapshot body
// conforms. The list may only shrink; a body that breaks a schema fails
// the test.
const KNOWN_NONCONFORMING: &[(Provider, &str, &[&str])] = &[];

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

/// The fixture targets: a directory of `fixtures/` each, and how a body is
/// checked there.
#[derive(Debug, Clone, Copy)]
enum Target {
    OpenAiChat,
    OpenAiResponses,
    /// The lines of an OpenAI Batch API input file (as a JSON array).
    OpenAiBatch,
    Anthropic,
    AnthropicBatch,
    Gemini,
    /// The lines of a Gemini batch input file (as a JSON array).
    GeminiBatch,
}

impl Target {
    const ALL: [Target; 7] = [
        Target::OpenAiChat,
        Target::OpenAiResponses,
        Target::OpenAiBatch,
        Target::Anthropic,
        Target::AnthropicBatch,
        Target::Gemini,
        Target::GeminiBatch,
    ];

    fn dir(self) -> &'static str {
        match self {
            Target::OpenAiChat => "openai-chat",
            Target::OpenAiResponses => "openai-responses",
            Target::OpenAiBatch => "openai-batch",
            Target::Anthropic => "anthropic",
            Target::AnthropicBatch => "anthropic-batch",
            Target::Gemini => "gemini",
            Target::GeminiBatch => "gemini-batch",
        }
    }

    /// Every way `body` breaks the target's published shape, or `None` when
    /// that shape is not available (OpenAI's converted schemas absent).
    fn errors(self, body: &Value) -> Option<Vec<String>> {
        match self {
            Target::OpenAiChat => schema::openai_errors(OpenAiSchema::Chat, body),
            Target::OpenAiResponses => schema::openai_errors(OpenAiSchema::Responses, body),
            Target::OpenAiBatch => {
                let mut errors = Vec::new();
                for (i, line) in lines(body).iter().enumerate() {
                    let line_errors = schema::openai_batch_line_errors(line)?;
                    errors.extend(line_errors.into_iter().map(|e| format!("lines/{i}: {e}")));
                }
                errors.extend(duplicates(body, "custom_id"));
                // CreateBatchRequest takes one `endpoint` for the whole file.
                let urls: HashSet<&Value> =
                    lines(body).iter().filter_map(|l| l.get("url")).collect();
                if urls.len() > 1 {
                    errors.push(format!("lines name {} endpoints; a batch has one", urls.len()));
                }
                Some(errors)
            }
            Target::Anthropic => Some(anthropic::message_errors(body)),
            Target::AnthropicBatch => Some(anthropic::batch_errors(body)),
            Target::Gemini => Some(gemini::request_errors(body)),
            Target::GeminiBatch => {
                let mut errors = Vec::new();
                for (i, line) in lines(body).iter().enumerate() {
                    let line_errors = gemini::batch_line_errors(line);
                    errors.extend(line_errors.into_iter().map(|e| format!("lines/{i}: {e}")));
                }
                errors.extend(duplicates(body, "key"));
                Some(errors)
            }
        }
    }
}

fn lines(body: &Value) -> &[Value] {
    body.as_array().expect("a batch fixture's body is the array of its lines")
}

/// An error for each line whose `id_key` repeats an earlier line's.
fn duplicates(body: &Value, id_key: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut errors = Vec::new();
    for (i, line) in lines(body).iter().enumerate() {
        if let Some(id) = line.get(id_key).and_then(Value::as_str)
            && !seen.insert(id)
        {
            errors.push(format!("lines/{i}: {id_key} {id:?} is a duplicate"));
        }
    }
    errors
}

/// Each fixture `{"about", "errors"?, "body"}` in `fixtures/<target>/`: a
/// body that must conform, or (files named `err_*`) one that must fail with
/// exactly the listed errors (one listed piece per error). `SCHEMAS_SHOW=1`
/// prints every fixture's errors.
#[test]
fn fixtures_conform_or_fail_as_listed() {
    let mut problems = Vec::new();
    let mut count = 0;
    for target in Target::ALL {
        for path in files(&tests_dir().join("schemas/fixtures").join(target.dir()), ".json") {
            let name = format!("{}/{}", target.dir(), path.file_name().unwrap().to_string_lossy());
            let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|err| panic!("{name}: {err}"));
            let Some(errors) = target.errors(&fixture["body"]) else {
                schema::schemas_missing();
                continue;
            };
            count += 1;
            if std::env::var_os("SCHEMAS_SHOW").is_some() {
                eprintln!("{name}:\n    {}", errors.join("\n    "));
            }
            let expected: Vec<&str> = fixture["errors"]
                .as_array()
                .map(|pieces| pieces.iter().map(|p| p.as_str().unwrap()).collect())
                .unwrap_or_default();
            let refusal = path.file_name().unwrap().to_string_lossy().starts_with("err_");
            assert_eq!(refusal, !expected.is_empty(), "{name}: err_* files list their errors");
            let each = expected.iter().all(|piece| errors.iter().any(|e| e.contains(piece)));
            // A union's "closest:" header is context, not an error of its own.
            let only = errors
                .iter()
                .filter(|e| !e.ends_with("closest:"))
                .all(|e| expected.iter().any(|piece| e.contains(piece)));
            if !(each && only) {
                problems.push(format!(
                    "{name}: expected errors containing {expected:?}, got:\n    {}",
                    errors.join("\n    ")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    assert!(count >= 15, "too few fixtures checked: {count}");
}

/// The panicking helpers fail with every error listed, and pass a body that
/// conforms.
#[test]
fn validate_helpers_list_every_error() {
    if schema::schemas_missing() {
        return;
    }
    let body = serde_json::json!({"messages": [], "max_token": 1});
    let panic = std::panic::catch_unwind(|| schema::validate_openai_chat(&body)).unwrap_err();
    let message = panic.downcast_ref::<String>().expect("a formatted panic message");
    for piece in
        [r#""model" is a required property"#, "/messages: [] has less than 1 item", "'max_token'"]
    {
        assert!(message.contains(piece), "{piece:?} missing from:\n{message}");
    }
    schema::validate_openai_chat(
        &serde_json::json!({"model": "gpt-5.4", "messages": [{"role": "user", "content": "Hi"}]}),
    );
    schema::validate_openai_responses(&serde_json::json!({"model": "gpt-5.4", "input": "Hi"}));
}
