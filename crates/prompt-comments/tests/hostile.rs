//! The hostile-input corpus (`tests/hostile/prompt-comments.json` at the
//! workspace root), in both dialects: 100 MB lines, millions of markers,
//! directives, fences and escapes, and messages documents. Processing cannot
//! fail, so each case pins the size of what comes out; all of it runs in
//! linear time.

// `tests/hostile/` holds symlinks to the workspace corpus (one copy, edited
// there); `cargo package` stores their contents, so the package is whole.
#[path = "hostile/corpus.rs"]
mod corpus;

use prompt_comments::Dialect;
use serde_json::Value;

use corpus::Case;

fn run(case: &Case) -> Result<(), String> {
    if case.options.get("messages").is_some() {
        return run_messages(case);
    }
    let text = case.text();
    for dialect in [Dialect::Standard, Dialect::Llmutils] {
        let expect = case.expect.get(dialect.as_str()).unwrap_or(&case.expect);
        let processed = dialect.process(text);
        let counts = [
            ("cleaned_len", processed.cleaned.len()),
            ("params", processed.params.len()),
            ("metadata", processed.metadata.len()),
            ("tags", processed.tags.len()),
            ("warnings", processed.warnings.len()),
        ];
        for (key, got) in counts {
            let want = expect.get(key).and_then(Value::as_u64);
            if want.is_some_and(|want| want != got as u64) {
                return Err(format!("{dialect:?}: {key} is {got}, expected {want:?}"));
            }
        }
        if processed.cleaned.len() > text.len() {
            return Err(format!("{dialect:?}: the cleaned text is longer than the input"));
        }
    }
    Ok(())
}

/// A case with `"options": {"messages": true}` is a messages document for
/// `strip_messages_json`: `expect` gives the exact length of the output
/// (`stripped_len`, per dialect where they differ), and the text API and
/// the value API must agree on it.
fn run_messages(case: &Case) -> Result<(), String> {
    let text = case.text();
    for dialect in [Dialect::Standard, Dialect::Llmutils] {
        let expect = case.expect.get(dialect.as_str()).unwrap_or(&case.expect);
        let stripped = dialect.strip_messages_json(text).map_err(|err| err.to_string())?;
        let want = expect.get("stripped_len").and_then(Value::as_u64);
        if want.is_some_and(|want| want != stripped.len() as u64) {
            return Err(format!("{dialect:?}: {} bytes, expected {want:?}", stripped.len()));
        }
        let mut document: Value = serde_json::from_str(text).map_err(|err| err.to_string())?;
        dialect.strip_messages_document(&mut document).map_err(|err| err.to_string())?;
        let back: Value = serde_json::from_str(&stripped).map_err(|err| err.to_string())?;
        if back != document {
            return Err(format!("{dialect:?}: the text and value APIs disagree"));
        }
    }
    Ok(())
}

#[test]
fn every_hostile_prompt_is_processed_in_bounds() {
    corpus::run_all(include_str!("hostile/prompt-comments.json"), run);
}
