//! Every prompt in `inputs/` run through the whole pipeline for each
//! provider (context `{"state": {"name": "Ann"}}`, seed 7) and snapshotted:
//! the body, notices, writes and
//! effects; or the error with its kind, stage and position. Every body is
//! checked against the provider's documented shape. Inputs named `err_*`
//! fail for every provider.

#[path = "../providers/documented.rs"]
mod documented;
#[path = "../support/outcome.rs"]
mod outcome;

use prompt_pipeline::{Context, Pipeline, Provider, Source};
use proptest::prelude::*;
use serde_json::{Map, Value};

const PROVIDERS: [Provider; 4] = Provider::CHAT;

fn context() -> Context {
    serde_json::from_str(r#"{"state": {"name": "Ann"}}"#).unwrap()
}

/// The pipeline for `provider`, with its test model set by the host.
fn pipeline_for(provider: Provider) -> Pipeline {
    Pipeline::builder(provider).params([("model", outcome::model(provider))]).build()
}

fn run(text: &str, provider: Provider) -> Value {
    outcome::outcome(pipeline_for(provider).build(Source::new(text), &context(), 7))
}

#[test]
fn pipeline() {
    insta::glob!("inputs/*.txt", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let mut out = Map::new();
        for provider in PROVIDERS {
            out.insert(provider.as_str().to_owned(), run(&text, provider));
        }
        let name = path.file_name().unwrap().to_string_lossy();
        let all_fail = out.values().all(|v| v.get("error").is_some());
        assert_eq!(all_fail, name.starts_with("err_"), "{name}");
        insta::assert_json_snapshot!(Value::Object(out));
    });
}

fn line_count(text: &str) -> usize {
    text.split('\n').count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any mix of comments, template tags, delimiters and text builds or
    /// fails with a typed error, never a panic; a position in the prompt is
    /// a real line of it.
    #[test]
    fn any_prompt_builds_or_fails_cleanly(
        pieces in prop::collection::vec(
            prop_oneof![
                Just("/// param: max_tokens=9\n"),
                Just("/// note: x\n"),
                Just("## user\n"),
                Just("## assistant\n"),
                Just("<!-- system -->\n"),
                Just("[[ name ]]"),
                Just("[[ name -> "),
                Just("[% if name %]"),
                Just("[% endif %]"),
                Just("@a.png "),
                Just("```\n"),
                Just("é\r\n"),
                Just("text "),
                Just("\\/// "),
            ],
            0..16,
        ),
    ) {
        let text: String = pieces.concat();
        for provider in PROVIDERS {
            if let Err(err) = pipeline_for(provider).build(Source::new(text.as_str()), &context(), 1) {
                prop_assert!(!err.kind().as_str().is_empty());
                let origin = prompt_pipeline::Diagnostic::origin(&err);
                if let (prompt_pipeline::Origin::Input, Some(line)) = (origin, err.line()) {
                    prop_assert!(line <= line_count(&text));
                }
            }
        }
    }
}
