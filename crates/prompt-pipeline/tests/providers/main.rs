//! Every input in `tests/inputs/` built for each provider and snapshotted:
//! the body (checked against the provider's documented shape) or the error.

mod convert;
mod documented;
#[path = "../support/outcome.rs"]
mod outcome;

use prompt_pipeline::{Message, Params, Provider};
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize)]
struct Case {
    params: Map<String, Value>,
    messages: Vec<Message>,
}

fn build(case: &Case, provider: Provider) -> Value {
    let pairs = case.params.iter().map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default()));
    let params = match Params::parse(pairs) {
        Ok(mut params) => {
            // The inputs name no model; OpenAI and Anthropic require one.
            params.model.get_or_insert_with(|| outcome::model(provider).to_owned());
            params
        }
        Err(err) => {
            return json!({"error": {"kind": err.kind().as_str(), "message": err.to_string()}});
        }
    };
    match provider.build(&case.messages, &params) {
        Ok(built) => {
            let body = documented::checked(&built.body);
            json!({"body": body, "notices": built.notices})
        }
        Err(err) => json!({"error": {"kind": err.kind().as_str(), "message": err.to_string()}}),
    }
}

#[test]
fn providers() {
    insta::glob!("inputs/*.json", |path| {
        let case: Case = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut out = Map::new();
        for provider in Provider::CHAT {
            out.insert(provider.as_str().to_owned(), build(&case, provider));
        }
        let name = path.file_name().unwrap().to_string_lossy();
        let any_ok = out.values().any(|v| v.get("body").is_some());
        // Inputs named err_* exist to show refusals; every other input must
        // build for at least one provider.
        assert_eq!(!any_ok, name.starts_with("err_") && !any_ok, "{name}");
        insta::assert_json_snapshot!(Value::Object(out));
    });
}
