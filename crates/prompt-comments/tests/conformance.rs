//! Every case of `tests/conformance/comments.json` (verified against the Go
//! package llmutils), run in the `Llmutils` dialect and compared byte for
//! byte. All failures are reported together, each with its case name.

use std::collections::BTreeMap;

use prompt_comments::Dialect;
use serde_json::{Value, json};

const FIXTURES: &str = include_str!("conformance/comments.json");

/// What the case's function returns, in the fixture's expected shape.
fn run(function: &str, input: &Value) -> Result<Value, String> {
    let d = Dialect::Llmutils;
    let text = || input.as_str().ok_or_else(|| format!("{function}: input is not a string"));
    Ok(match function {
        "process" => {
            let p = d.process(text()?);
            json!({
                "cleaned": p.cleaned,
                "params": p.params,
                "metadata": p.metadata,
                "flow": p.flow,
                "node": p.node,
                "tags": p.tags,
            })
        }
        "strip" => json!({ "cleaned": d.strip(text()?) }),
        "extract_params" => json!({ "params": d.extract_params(text()?) }),
        "extract_metadata" => {
            let p = d.extract_metadata(text()?);
            json!({
                "cleaned": p.cleaned, "params": p.params, "metadata": p.metadata,
                "flow": p.flow, "node": p.node, "tags": p.tags,
            })
        }
        "strip_messages" => {
            let messages = input.as_array().ok_or("strip_messages: input is not an array")?;
            Value::Array(d.strip_messages(messages))
        }
        other => return Err(format!("unknown fn {other:?}")),
    })
}

#[test]
fn every_conformance_case_passes_in_the_llmutils_dialect() {
    let fixtures: Value = serde_json::from_str(FIXTURES).expect("the fixture file is JSON");
    let cases = fixtures["cases"].as_array().expect("a `cases` array");
    assert!(cases.len() >= 28, "the fixture file lost cases: {}", cases.len());
    let mut failures = Vec::new();
    let mut seen = BTreeMap::<&str, usize>::new();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("<unnamed>");
        let function = case["fn"].as_str().unwrap_or("<no fn>");
        *seen.entry(function).or_default() += 1;
        // serde_json's Value compares objects as maps (key order aside) and
        // strings byte for byte, as the fixture conventions ask.
        match run(function, &case["input"]) {
            Ok(actual) if actual == case["expected"] => {}
            Ok(actual) => failures.push(format!(
                "{name}\n    input:    {}\n    expected: {}\n    actual:   {actual}",
                case["input"], case["expected"]
            )),
            Err(err) => failures.push(format!("{name}: {err}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert_eq!(
        seen.keys().copied().collect::<Vec<_>>(),
        ["extract_params", "process", "strip", "strip_messages"]
    );
}

#[test]
fn extract_metadata_is_process_with_cleaned_emptied() {
    // The fixture conventions define ExtractMetadata this way; check it on
    // every `process` case.
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    for case in fixtures["cases"].as_array().unwrap().iter().filter(|c| c["fn"] == "process") {
        let mut expected = case["expected"].clone();
        expected["cleaned"] = json!("");
        assert_eq!(run("extract_metadata", &case["input"]).unwrap(), expected, "{}", case["name"]);
    }
}

#[test]
fn the_json_text_api_passes_every_strip_messages_case() {
    // `strip_messages_json` (what `prompt-suite comments --messages` runs)
    // reads the text itself: it must give the same answers as the value
    // API the fixture is checked with.
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let cases = fixtures["cases"].as_array().unwrap();
    for case in cases.iter().filter(|c| c["fn"] == "strip_messages") {
        let text = Dialect::Llmutils.strip_messages_json(&case["input"].to_string()).unwrap();
        let actual: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(actual, case["expected"], "{}", case["name"]);
    }
}

#[test]
fn elements_that_are_not_objects_pass_through_unchanged() {
    // The reference's rule (section 6): strings, numbers, null and arrays
    // pass through unchanged, whatever they hold; an array is never read
    // as a message field by field.
    let input = json!([
        ["nested /// x"],
        [["deeper /// y"], {"content": "in an array /// z"}],
        "/// a string",
        12,
        null,
        {"role": "user", "content": ["a /// b"]},
        {"role": "user", "content": "c /// d"}
    ]);
    let mut expected = input.clone();
    expected[6]["content"] = json!("c");
    assert_eq!(run("strip_messages", &input).unwrap(), expected);
    let text = Dialect::Llmutils.strip_messages_json(&input.to_string()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
}
