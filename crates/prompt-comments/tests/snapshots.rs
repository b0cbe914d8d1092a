//! Snapshot tests over realistic annotated prompts (`tests/inputs/*`) and
//! messages documents (`tests/inputs/messages/*.json`, failures named
//! `err_*`). Each prompt is shown processed and stripped in both dialects;
//! strings are JSON-escaped so `\r` and trailing spaces stay visible.

use std::fs;

use prompt_comments::Dialect;
use serde_json::{Value, json};

#[test]
fn prompts() {
    insta::glob!("inputs/*.{txt,md}", |path| {
        let text = fs::read_to_string(path).unwrap();
        let mut report = Value::Object(Default::default());
        for dialect in Dialect::ALL {
            report[dialect.as_str()] = json!({
                "process": dialect.process(&text),
                "strip": dialect.strip(&text),
            });
        }
        insta::assert_snapshot!(serde_json::to_string_pretty(&report).unwrap());
    });
}

#[test]
fn messages() {
    insta::glob!("inputs/messages/*.json", |path| {
        let text = fs::read_to_string(path).unwrap();
        let document: Value = serde_json::from_str(&text).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        let mut report = Value::Object(Default::default());
        for dialect in Dialect::ALL {
            let mut stripped = document.clone();
            report[dialect.as_str()] = match dialect.strip_messages_document(&mut stripped) {
                Ok(()) => {
                    // The text API (the command line's) strips the same.
                    let text = dialect.strip_messages_json(&text).unwrap();
                    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), stripped, "{name}");
                    stripped
                }
                Err(err) => json!({ "error": err.kind().as_str(), "message": err.to_string() }),
            };
        }
        assert_eq!(name.starts_with("err_"), report["standard"].get("error").is_some(), "{name}");
        insta::assert_snapshot!(serde_json::to_string_pretty(&report).unwrap());
    });
}
