//! Request bodies checked against OpenAI's own published schemas: the JSON
//! Schemas that `tests/schemas/openai/convert.py` makes from OpenAI's OpenAPI
//! document (CreateChatCompletionRequest, CreateResponse; every object
//! closed, so an unknown key fails). See `tests/schemas/openai/README.md`.
//!
//! The converted schemas are found in `$PROMPT_SUITE_OPENAI_SCHEMAS` or else
//! in `tests/schemas/openai/`. When they are not there, the checks here say
//! so on stderr and pass (see [`schemas_missing`]); set
//! `PROMPT_SUITE_REQUIRE_SCHEMAS=1` to make their absence a failure.

use std::path::PathBuf;
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// One of the vendored OpenAI request schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpenAiSchema {
    /// `POST /v1/chat/completions`: CreateChatCompletionRequest.
    Chat,
    /// `POST /v1/responses`: CreateResponse.
    Responses,
}

impl OpenAiSchema {
    fn file(self) -> &'static str {
        match self {
            OpenAiSchema::Chat => "create-chat-completion-request.json",
            OpenAiSchema::Responses => "create-response.json",
        }
    }

    fn validator(self) -> Option<&'static Validator> {
        self.loaded().map(|(_, validator)| validator)
    }

    /// The converted schema document itself (after [`Self::validator`] said
    /// it is present).
    fn document(self) -> &'static Value {
        &self.loaded().expect("the schema is present").0
    }

    fn loaded(self) -> Option<&'static (Value, Validator)> {
        static CHAT: OnceLock<Option<(Value, Validator)>> = OnceLock::new();
        static RESPONSES: OnceLock<Option<(Value, Validator)>> = OnceLock::new();
        let cell = match self {
            OpenAiSchema::Chat => &CHAT,
            OpenAiSchema::Responses => &RESPONSES,
        };
        cell.get_or_init(|| {
            let path = schema_dir().join(self.file());
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                    assert!(
                        std::env::var_os("PROMPT_SUITE_REQUIRE_SCHEMAS").is_none(),
                        "{} is missing: run tests/schemas/openai/convert.py",
                        path.display()
                    );
                    return None;
                }
                Err(err) => panic!("{}: {err}", path.display()),
            };
            let schema: Value = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            // Draft 2020-12 (the `$schema` the converter writes); format
            // keywords are annotations there, as in OpenAI's document.
            let validator = jsonschema::draft202012::new(&schema)
                .unwrap_or_else(|err| panic!("{}: not a valid schema: {err}", path.display()));
            Some((schema, validator))
        })
        .as_ref()
    }
}

fn schema_dir() -> PathBuf {
    match std::env::var_os("PROMPT_SUITE_OPENAI_SCHEMAS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/schemas/openai"),
    }
}

/// True (after saying so once on stderr) when the converted schemas are not
/// present, so the OpenAI checks cannot run.
pub(crate) fn schemas_missing() -> bool {
    static SAID: OnceLock<()> = OnceLock::new();
    let missing =
        OpenAiSchema::Chat.validator().is_none() || OpenAiSchema::Responses.validator().is_none();
    if missing {
        SAID.get_or_init(|| {
            eprintln!(
                "note: OpenAI schema checks skipped: no converted schemas in {} \
                 (make them with tests/schemas/openai/convert.py, see its README)",
                schema_dir().display()
            );
        });
    }
    missing
}

/// Every way `body` breaks `schema`, one line each (`/json/pointer: message`);
/// empty when it conforms. `None` when the schemas are not present.
pub(crate) fn openai_errors(schema: OpenAiSchema, body: &Value) -> Option<Vec<String>> {
    let validator = schema.validator()?;
    let mut lines = Vec::new();
    for err in validator.iter_errors(body) {
        render(&err, &mut lines);
    }
    Some(lines)
}

/// One line per error, `/json/pointer: message`, the message cut to a
/// readable length. A failed union (`anyOf`) names the branch that came
/// closest instead of dumping the whole instance (after Python jsonschema's
/// `best_match`): one whose tag (`type`, `role`) matched, then one of the
/// right JSON type, then the one whose errors lie deepest in the body, then
/// the one with fewest.
fn render(err: &jsonschema::ValidationError<'_>, lines: &mut Vec<String>) {
    let at = err.instance_path().to_string();
    let at = if at.is_empty() { "/".to_owned() } else { at };
    if let ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } =
        err.kind()
    {
        let tag_matched = |branch: &Vec<ValidationError<'static>>| {
            !branch.iter().any(|e| {
                let path = e.instance_path().to_string();
                let tag = path.ends_with("/type") || path.ends_with("/role");
                tag && matches!(
                    e.kind(),
                    ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. }
                )
            })
        };
        // A branch refused for its JSON type right where the union stands is
        // of the wrong kind altogether (the `null` of a nullable field).
        let kind_matched = |branch: &Vec<ValidationError<'static>>| {
            !branch.iter().any(|e| {
                e.instance_path() == err.instance_path()
                    && matches!(e.kind(), ValidationErrorKind::Type { .. })
            })
        };
        let depth = |branch: &Vec<ValidationError<'static>>| {
            branch.iter().map(|e| e.instance_path().to_string().len()).max().unwrap_or(0)
        };
        let score = |branch: &Vec<ValidationError<'static>>| {
            let fewest = std::cmp::Reverse(branch.len());
            (tag_matched(branch), kind_matched(branch), depth(branch), fewest)
        };
        if let Some(closest) =
            context.iter().filter(|branch| !branch.is_empty()).max_by_key(|branch| score(branch))
        {
            lines.push(format!("{at}: matches none of {} alternatives; closest:", context.len()));
            for inner in closest {
                render(inner, lines);
            }
            return;
        }
    }
    let mut message = err.to_string();
    if message.chars().count() > 240 {
        message = message.chars().take(240).collect::<String>() + "…";
    }
    lines.push(format!("{at}: {message}"));
}

/// The top-level keys of `body` that `schema` marks `deprecated` (OpenAPI
/// keeps them valid, so [`openai_errors`] accepts them; we must not send
/// them). `None` when the schemas are not present.
pub(crate) fn openai_deprecated(schema: OpenAiSchema, body: &Value) -> Option<Vec<String>> {
    schema.validator()?;
    let document = schema.document();
    let root = document["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/")).unwrap();
    let properties = &document["$defs"][root]["properties"];
    let keys = body.as_object().into_iter().flatten().map(|(key, _)| key);
    Some(
        keys.filter(|key| deprecated(&properties[key.as_str()]))
            .map(|key| format!("/{key}: deprecated in OpenAI's schema"))
            .collect(),
    )
}

/// Whether a property schema, or any branch it is made of, says
/// `deprecated: true`.
fn deprecated(schema: &Value) -> bool {
    schema.get("deprecated") == Some(&Value::Bool(true))
        || ["allOf", "anyOf", "oneOf"].iter().any(|keyword| {
            schema.get(keyword).and_then(Value::as_array).into_iter().flatten().any(deprecated)
        })
}

/// Fails the test, listing every schema error, unless `body` conforms to
/// `schema`.
pub(crate) fn validate_openai(schema: OpenAiSchema, body: &Value) {
    if let Some(errors) = openai_errors(schema, body) {
        assert!(
            errors.is_empty(),
            "body does not conform to OpenAI's {schema:?} schema:\n  {}\nbody: {body:#}",
            errors.join("\n  ")
        );
    } else {
        schemas_missing();
    }
}

/// [`validate_openai`] for `POST /v1/chat/completions`.
pub(crate) fn validate_openai_chat(body: &Value) {
    validate_openai(OpenAiSchema::Chat, body);
}

/// [`validate_openai`] for `POST /v1/responses`.
pub(crate) fn validate_openai_responses(body: &Value) {
    validate_openai(OpenAiSchema::Responses, body);
}

/// Every way `line` breaks an OpenAI Batch API input line:
/// `{"custom_id", "method": "POST", "url", "body"}` (BatchRequestInput, last
/// in openai-openapi at commit 498c71ddf6f1c45b983f972ccabca795da211a3e;
/// "custom_id ... Must be unique for each request in a batch", which the
/// caller checks across lines), with `body` checked against the schema of
/// its `url`. `None` when the schemas are not present.
pub(crate) fn openai_batch_line_errors(line: &Value) -> Option<Vec<String>> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Line {
        #[allow(dead_code)]
        custom_id: String,
        method: String,
        url: String,
        body: Value,
    }
    let line: Line = match serde_json::from_value(line.clone()) {
        Ok(line) => line,
        Err(err) => return Some(vec![format!("not a batch line: {err}")]),
    };
    let mut errors = Vec::new();
    if line.method != "POST" {
        errors.push(format!("method {:?} is not POST", line.method));
    }
    // CreateBatchRequest.endpoint lists the rest; these are the two we build.
    let schema = match line.url.as_str() {
        "/v1/chat/completions" => OpenAiSchema::Chat,
        "/v1/responses" => OpenAiSchema::Responses,
        url => {
            errors.push(format!("url {url:?} is not a chat or responses endpoint"));
            return Some(errors);
        }
    };
    errors.extend(openai_errors(schema, &line.body)?.into_iter().map(|e| format!("body{e}")));
    Some(errors)
}
