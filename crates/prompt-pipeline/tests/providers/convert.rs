//! `convert`: every OpenAI Chat Completions body in `tests/providers/convert/`
//! read into the suite's vocabulary and built for each provider, snapshotted
//! as the checked body and its notices, or the error with its position. The
//! bodies name OpenAI models; the others are built with their own (as
//! `--param model=...` does), so the notices show what a conversion says.

use prompt_pipeline::{ChatBody, Error, Provider};
use serde_json::{Map, Value, json};

use crate::outcome;

fn error(err: &Error) -> Value {
    json!({"error": {
        "kind": err.kind().as_str(),
        "message": err.message(),
        "line": err.line(),
        "column": err.column(),
        "snippet": err.snippet(),
    }})
}

fn convert(text: &str, provider: Provider) -> Value {
    let mut body = match ChatBody::parse(text) {
        Ok(body) => body,
        Err(err) => return error(&err),
    };
    if !matches!(provider, Provider::OpenAi | Provider::OpenAiResponses) {
        body.params_mut().model = Some(outcome::model(provider).to_owned());
    }
    match body.convert(provider) {
        Ok(encoded) => json!({
            "body": crate::documented::checked(&encoded.body),
            "notices": encoded.notices,
        }),
        Err(err) => error(&err),
    }
}

#[test]
fn convert_from_openai() {
    insta::glob!("convert/*.json", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let mut out = Map::new();
        for provider in Provider::CHAT {
            out.insert(provider.as_str().to_owned(), convert(&text, provider));
        }
        let name = path.file_name().unwrap().to_string_lossy();
        let any_ok = out.values().any(|v| v.get("body").is_some());
        assert_eq!(any_ok, !name.starts_with("err_"), "{name}: err_* inputs fail everywhere");
        insta::assert_json_snapshot!(Value::Object(out));
    });
}

/// An OpenAI body converted to OpenAI keeps every message, tool call and
/// argument byte as written.
#[test]
fn openai_to_openai_keeps_the_conversation() {
    let text = std::fs::read_to_string("tests/providers/convert/parallel_tool_calls.json").unwrap();
    let input: Value = serde_json::from_str(&text).unwrap();
    let out = convert(&text, Provider::OpenAi);
    let body = &out["body"];
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), input["messages"].as_array().unwrap().len());
    for (i, message) in input["messages"].as_array().unwrap().iter().enumerate() {
        assert_eq!(messages[i]["role"], message["role"], "{i}");
        assert_eq!(messages[i]["tool_calls"], message["tool_calls"], "{i}");
        assert_eq!(messages[i]["tool_call_id"], message["tool_call_id"], "{i}");
    }
    assert_eq!(body["parallel_tool_calls"], true);
    assert_eq!(out["notices"], json!([]));
}

/// Anthropic carries `user` as `metadata.user_id` and
/// `parallel_tool_calls: false` in its tool choice, in the shape its SDK
/// types publish (an OpenAI chat body cannot show `user` in the snapshots:
/// OpenAI's schema marks it deprecated).
#[test]
fn anthropic_takes_user_and_serial_tool_use_in_its_shape() {
    let text = r#"{"model": "gpt-4o", "max_completion_tokens": 50, "user": "user-7f3a",
        "parallel_tool_calls": false, "tools": [{"type": "function", "function": {"name": "add"}}],
        "tool_choice": {"type": "function", "function": {"name": "add"}},
        "messages": [{"role": "user", "content": "add 2 and 3"}]}"#;
    let mut body = ChatBody::parse(text).unwrap();
    body.params_mut().model = Some(outcome::model(Provider::Anthropic).to_owned());
    let encoded = body.convert(Provider::Anthropic).unwrap();
    let json = crate::documented::checked(&encoded.body);
    assert_eq!(json["metadata"], json!({"user_id": "user-7f3a"}));
    assert_eq!(
        json["tool_choice"],
        json!({"type": "tool", "name": "add", "disable_parallel_tool_use": true})
    );
    assert_eq!(encoded.notices, []);
}
