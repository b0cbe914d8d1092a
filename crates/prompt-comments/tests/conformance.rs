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
