// tests/prompts.rs
use prompt_suite::pipeline::{Context, Pipeline, Provider, Source};
use serde_json::{Map, Value, json};

#[test]
fn support_bot_request() {
    let context: Context =
        serde_json::from_str(r#"{"state": {"plan": "pro", "message": "My card was declined."}}"#)
            .unwrap();
    // The prompt's model is an OpenAI one: build for OpenAI. (For another
    // provider the notices would say `model_family_mismatch`.)
    let built = Pipeline::new(Provider::OpenAi)
        .build(Source::from_path("tests/prompts/support-bot.txt").unwrap(), &context, 42) // a fixed seed
        .unwrap();
    insta::assert_json_snapshot!(json!({"body": built.body, "notices": built.notices}));
}

#[test]
fn every_prompt() {
    // The glob is relative to this file: tests/prompts/*.txt.
    insta::glob!("prompts/*.txt", |path| {
        let context: Context =
            serde_json::from_str(r#"{"state": {"name": "Ann", "plan": "free", "message": "Hi"}}"#)
                .unwrap();
        let mut out = Map::new();
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini] {
            // The file, its embeds and its includes, from its directory.
            let source = Source::from_path(path).unwrap();
            let value = match Pipeline::new(provider).build(source, &context, 42) {
                Ok(built) => {
                    let rendered = built.rendered.unwrap_or_default();
                    json!({"body": built.body, "notices": built.notices,
                           "writes": rendered.writes, "effects": rendered.effects})
                }
                Err(err) => json!({"error": err.to_string()}),
            };
            out.insert(provider.as_str().to_owned(), value);
        }
        insta::assert_json_snapshot!(Value::Object(out));
    });
}
