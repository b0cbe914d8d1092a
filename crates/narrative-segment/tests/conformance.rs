//! Every case of `conformance/segment.json` (verified against lmml 0.2.0)
//! in the Lmml dialect, texts compared byte for byte. All failures are
//! reported together, each with its case name.

use narrative_segment::{Attachments, Dialect, Narrative, OccurrenceKind};
use serde_json::Value;

#[test]
fn every_case_passes_in_the_lmml_dialect() {
    let fixtures: Value =
        serde_json::from_str(include_str!("conformance/segment.json")).expect("valid fixture JSON");
    let cases = fixtures["cases"].as_array().expect("a list of cases");
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().expect("a case name");
        let input = case["input"].as_str().expect("an input");
        let narrative = Narrative::parse(input, Dialect::Lmml);
        // External names are assumed to resolve: give each an entry.
        let entries: Vec<(String, Vec<u8>)> = narrative
            .occurrences()
            .filter(|o| o.kind == OccurrenceKind::Reference)
            .map(|o| (o.name.to_owned(), b"content".to_vec()))
            .collect();
        let attachments = Attachments::from_entries(entries).expect("safe fixture names");
        let resolved = match narrative.resolve(&attachments) {
            Ok(resolved) => resolved,
            Err(err) => {
                failures.push(format!("{name}: cannot resolve: {err}"));
                continue;
            }
        };
        let actual: Vec<Value> = resolved
            .segment()
            .into_iter()
            .map(|turn| serde_json::json!({"role": turn.role, "text": turn.text, "embeds": turn.embeds}))
            .collect();
        let expected = case["expected"].as_array().expect("expected turns");
        if &actual != expected {
            failures.push(format!(
                "{name}:\n  input:    {input:?}\n  expected: {}\n  actual:   {}",
                Value::from(expected.clone()),
                Value::from(actual)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
