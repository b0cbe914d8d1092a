//! The pipeline: `build` (an authored prompt to a provider's request body)
//! and `convert` (an OpenAI Chat body to another provider's), over
//! prompt-pipeline.

use prompt_suite::brackets::Context;
use prompt_suite::pipeline::{
    self as pp, ChatBody, Params, Provider, ResponseSchema, RoleAliases, Source, Tool, ToolChoice,
    Transcript,
};
use prompt_suite::segment::Bundle;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::convert::{read, write};
use crate::error::{Failure, Result, invalid};

/// A pipeline error: placed in the text it keeps, unless that text is JSON
/// the package wrote (`made`).
fn pipeline_error(err: &pp::Error, made: bool) -> Failure {
    let annotated = err.annotated();
    Failure::from(if made { annotated.unplaced() } else { annotated })
}

fn provider(name: &str) -> Result<Provider> {
    name.parse::<Provider>().map_err(|err| Failure::from(err.annotated()))
}

/// A JSON argument: the caller's own text, or a value the package wrote.
#[derive(Deserialize)]
#[serde(untagged)]
enum Json {
    /// `{"text": "..."}`: the caller's JSON text.
    Text { text: String },
    /// `{"value": ...}`: a value.
    Value { value: Value },
}

impl Json {
    /// The text and whether the package made it.
    fn text(self) -> (String, bool) {
        match self {
            Json::Text { text } => (text, false),
            Json::Value { value } => (value.to_string(), true),
        }
    }
}

/// `build`'s options (the JSON the package writes).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BuildOptions {
    provider: String,
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    context: Map<String, Value>,
    transcript: Option<Json>,
    speaker: Option<String>,
    /// The chat template `completions` renders through: its text and how
    /// it is loaded.
    chat_template: Option<ChatArg>,
    /// `[millis, offset minutes]`: the time `strftime_now` reads.
    now: Option<(f64, i32)>,
    tools: Option<Json>,
    tool_choice: Option<Value>,
    response_schema: Option<Json>,
    role_aliases: Option<Map<String, Value>>,
}

/// `build`'s `chatTemplate`: the template's text and its load options.
#[derive(Deserialize)]
struct ChatArg {
    text: String,
    #[serde(flatten)]
    load: crate::chat::Load,
}

/// A result and the notices that came with it (nothing is left out
/// silently: the package hands the notices to the caller).
#[derive(Serialize)]
struct WithNotices<'a, T: Serialize> {
    body: &'a T,
    notices: Vec<NoticeJs>,
}

#[derive(Serialize)]
struct NoticeJs {
    kind: &'static str,
    message: String,
}

fn notices<'a>(all: impl IntoIterator<Item = &'a pp::Notice>) -> Vec<NoticeJs> {
    all.into_iter().map(|n| NoticeJs { kind: n.as_str(), message: n.message() }).collect()
}

/// Builds the request body of `prompt` with the options' JSON, `seed`, and
/// the attachments: `names` (a JSON array of names) whose bytes are the
/// consecutive pieces of `bytes`, `lengths[i]` bytes each. The JSON of
/// `{body, notices}`.
#[wasm_bindgen]
pub fn build(
    prompt: &str,
    options: &str,
    seed: u64,
    names: &str,
    bytes: &[u8],
    lengths: &[u32],
) -> Result<String> {
    let options: BuildOptions = read(options)?;
    let entries = crate::stages::entries(names, bytes, lengths)?;
    let source = if entries.is_empty() {
        Source::new(prompt)
    } else {
        // In memory, as a bundle: the entries are the attachments and the
        // files `/// tools:` and `/// response_schema:` name.
        let bundle =
            Bundle::from_parts(prompt, entries).map_err(|err| Failure::from(err.annotated()))?;
        Source::from_bundle(bundle)
    };
    let mut builder = pp::Pipeline::builder(provider(&options.provider)?);
    if let Some(chat) = options.chat_template {
        let (millis, offset) = options.now.unwrap_or((0.0, 0));
        let clock = crate::chat::clock(millis, offset)?;
        builder = builder.chat_template(crate::chat::load_template(&chat.text, chat.load, clock)?);
    }
    if !options.params.is_empty() {
        builder = builder.params(Params::pairs_of_object(&options.params));
    }
    if let Some(aliases) = options.role_aliases {
        let mut pairs = Vec::with_capacity(aliases.len());
        for (name, role) in aliases {
            let Value::String(role) = role else {
                return Err(invalid(format!("roleAliases[{name:?}] must be a role name (string)")));
            };
            pairs.push(format!("{name}={role}"));
        }
        let aliases =
            RoleAliases::from_pairs(&pairs).map_err(|err| Failure::from(err.annotated()))?;
        builder = builder.role_aliases(aliases);
    }
    if let Some(tools) = options.tools {
        let (text, made) = tools.text();
        let tools = Tool::parse_list(&text).map_err(|err| pipeline_error(&err, made))?;
        builder = builder.tools(tools);
    }
    if let Some(choice) = options.tool_choice.filter(|c| !c.is_null()) {
        let choice = match choice {
            Value::String(text) => text,
            other => other.to_string(),
        };
        builder = builder.tool_choice(ToolChoice::parse(&choice));
    }
    if let Some(schema) = options.response_schema {
        let (text, made) = schema.text();
        let schema = ResponseSchema::parse(&text).map_err(|err| pipeline_error(&err, made))?;
        builder = builder.response_schema(schema);
    }
    let transcript = match (options.transcript, options.speaker) {
        (None, None) => None,
        (Some(_), None) => return Err(invalid("a transcript needs a speaker")),
        (None, Some(_)) => return Err(invalid("a speaker needs a transcript")),
        (Some(transcript), Some(speaker)) => {
            let (text, made) = transcript.text();
            Some(Transcript::from_json(&text, speaker).map_err(|e| pipeline_error(&e, made))?)
        }
    };
    let context = Context::from_object(options.context)
        .map_err(|err| Failure::from(err.annotated().unplaced()))?;
    let compiled = builder
        .build()
        .prepare(source)
        .and_then(|prompt| prompt.compile())
        .map_err(|err| pipeline_error(&err, false))?;
    let built = match &transcript {
        Some(transcript) => compiled.build_with_transcript(&context, seed, transcript),
        None => compiled.build(&context, seed),
    }
    .map_err(|err| pipeline_error(&err, false))?;
    write(&WithNotices { body: &built.body, notices: notices(&built.notices) })
}

/// `convert`'s options.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ConvertOptions {
    provider: String,
    #[serde(default)]
    params: Map<String, Value>,
}

/// Converts an OpenAI Chat Completions body (the JSON of `{text}` or
/// `{value}`) into the options' provider's body; the JSON of
/// `{body, notices}`.
#[wasm_bindgen]
pub fn convert(body: &str, options: &str) -> Result<String> {
    let options: ConvertOptions = read(options)?;
    let target = provider(&options.provider)?;
    let (text, made) = read::<Json>(body)?.text();
    let mut chat = ChatBody::parse(&text).map_err(|err| pipeline_error(&err, made))?;
    if !options.params.is_empty() {
        let pairs = Params::pairs_of_object(&options.params);
        chat.params_mut()
            .apply(pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())))
            .map_err(|err| pipeline_error(&err, true))?;
    }
    let encoded = chat.convert(target).map_err(|err| pipeline_error(&err, made))?;
    let all = notices(chat.notices().iter().chain(&encoded.notices));
    write(&WithNotices { body: &encoded.body, notices: all })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_builds_for_each_provider() {
        for name in ["openai", "openai-responses", "anthropic", "gemini"] {
            let options = format!(
                r#"{{"provider": "{name}", "params": {{"model": "m", "max_tokens": 50}},
                    "context": {{"name": "Ann"}}}}"#
            );
            let out = build("## user\nHi [[ name ]]", &options, 1, "[]", &[], &[]).unwrap();
            assert!(out.contains("Hi Ann"), "{name}: {out}");
        }
    }

    #[test]
    fn attachments_are_bytes_by_name() {
        let png = [137, 80, 78, 71, 13, 10, 26, 10];
        let out = build(
            "## user\nLook @@@a.png",
            r#"{"provider": "openai", "params": {"model": "m"}}"#,
            1,
            r#"["a.png"]"#,
            &png,
            &[8],
        )
        .unwrap();
        assert!(out.contains("data:image/png;base64,iVBORw0KGgo="), "{out}");
        let short = build("x", r#"{"provider": "openai"}"#, 1, r#"["a"]"#, &[], &[3]);
        assert_eq!(short.unwrap_err().kind(), "invalid_argument");
    }

    #[test]
    fn unknown_providers_and_options_are_typed_errors() {
        let err = build("x", r#"{"provider": "nope"}"#, 1, "[]", &[], &[]).unwrap_err();
        assert_eq!(err.kind(), "unknown_provider");
        let err = build("x", r#"{"provider": "openai", "bogus": 1}"#, 1, "[]", &[], &[]);
        assert_eq!(err.unwrap_err().kind(), "invalid_json");
    }

    #[test]
    fn completions_render_through_the_chat_template() {
        let options = r#"{"provider": "completions", "params": {"model": "m"},
            "chatTemplate": {"text": "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"},
            "now": [0, 0]}"#;
        let out = build("## user\nHi", options, 1, "[]", &[], &[]).unwrap();
        assert!(out.contains(r#""prompt":"<user>Hi""#), "{out}");
        let err = build("## user\nHi", r#"{"provider": "completions"}"#, 1, "[]", &[], &[]);
        assert_eq!(err.unwrap_err().kind(), "missing_chat_template");
    }

    #[test]
    fn a_chat_body_converts() {
        let body = r#"{"value": {"model": "m", "max_tokens": 9, "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]}}"#;
        let out = convert(body, r#"{"provider": "anthropic"}"#).unwrap();
        assert!(out.contains(r#""system":"S""#), "{out}");
    }
}
