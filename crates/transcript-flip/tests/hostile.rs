//! The hostile-input corpus (`tests/hostile/transcript-flip.json` at the
//! workspace root): a million turns, deep JSON, huge same-role runs, and
//! control-token evasions (zero-width characters, look-alikes, nesting,
//! unclosed openers). Each case ends in its typed error or bounded result.

// `tests/hostile/` holds symlinks to the workspace corpus (one copy, edited
// there); `cargo package` stores their contents, so the package is whole.
#[path = "hostile/corpus.rs"]
mod corpus;

use serde_json::Value;
use transcript_flip::{
    Dialect, FlipOptions, Message, Turn, alternate_json, flip, flip_json, sanitize_with,
};

use corpus::Case;

fn speaker(case: &Case) -> &str {
    case.options["speaker"].as_str().expect("a flip case names its speaker")
}

fn check_messages(case: &Case, messages: &[Message]) -> Result<(), String> {
    let count = case.expect.get("messages").and_then(Value::as_u64);
    if count.is_some_and(|count| messages.len() as u64 != count) {
        return Err(format!("{} messages, expected {count:?}", messages.len()));
    }
    let len = case.expect.get("content_len").and_then(Value::as_u64);
    let last = messages.last().and_then(Message::text).map_or(0, str::len);
    if len.is_some_and(|len| last as u64 != len) {
        return Err(format!("the last content has {last} bytes, expected {len:?}"));
    }
    Ok(())
}

fn check_sanitized(case: &Case) -> Result<(), String> {
    let once = sanitize_with(case.text(), Dialect::Standard);
    let twice = sanitize_with(&once, Dialect::Standard);
    if once != twice {
        return Err("a second sanitizing pass changed the output".to_owned());
    }
    for token in case.expect["absent"].as_array().expect("an `absent` list") {
        let token = token.as_str().expect("a text");
        if once.contains(token) {
            return Err(format!("{token:?} survived sanitizing"));
        }
    }
    Ok(())
}

fn run(case: &Case) -> Result<(), String> {
    let options = FlipOptions::new();
    let result = match case.options["op"].as_str() {
        Some("sanitize") => return check_sanitized(case),
        Some("flip_lines") => {
            let turns: Vec<Turn> = case
                .text()
                .lines()
                .map(|line| {
                    let (who, text) = line.split_once(": ").expect("`speaker: text` lines");
                    Turn::new(who, text)
                })
                .collect();
            // In LLMR's shape, as flip_json gives it.
            flip(&turns, speaker(case), &options)
                .map(|messages| messages.into_iter().map(Message::from).collect())
        }
        Some("flip_json") => flip_json(case.text(), &Value::from(speaker(case)), &options),
        Some("alternate") => alternate_json(case.text(), Dialect::Standard).map(|json| {
            serde_json::from_str::<Vec<Message>>(&json).expect("alternate_json returns messages")
        }),
        op => panic!("unknown op {op:?}"),
    };
    match result {
        Ok(messages) if case.expected_error().is_none() => check_messages(case, &messages),
        Ok(_) => corpus::expect_error(case, None),
        Err(err) => corpus::expect_error(case, Some(err.kind().as_str())),
    }
}

#[test]
fn every_hostile_transcript_is_stopped_or_bounded() {
    corpus::run_all(include_str!("hostile/transcript-flip.json"), run);
}
