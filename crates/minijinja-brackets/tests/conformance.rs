//! Runs every case of `tests/conformance/brackets.json` and reports all
//! failures at once, by case name.

use std::collections::BTreeMap;

use minijinja_brackets::{Context, Environment, Rendered};
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Deserialize)]
struct Fixtures {
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    template: String,
    state: Map<String, Value>,
    local: Map<String, Value>,
    global: Map<String, Value>,
    expected_output: String,
    expected_error: Option<String>,
    expected_state_after: Option<Map<String, Value>>,
    expected_effects: Option<Vec<Value>>,
    distribution: Option<BTreeMap<String, f64>>,
    random: Option<String>,
}

/// Seeds per distribution check; each frequency must be within 0.02.
const SEEDS: u64 = 10_000;

fn check(env: &Environment, case: &Case) -> Result<(), String> {
    let context = Context {
        state: case.state.clone(),
        local: case.local.clone(),
        global: case.global.clone(),
    };
    let render = |seed| env.render_str(&case.template, &context, seed);
    if let Some(kind) = &case.expected_error {
        let err = match render(0) {
            Ok(r) => return Err(format!("expected {kind}, got output {:?}", r.output)),
            Err(err) => err,
        };
        if err.kind().as_str() != kind {
            return Err(format!("expected {kind}, got {err}"));
        }
        if err.line().is_none() || err.column().is_none() || err.snippet().is_none() {
            return Err(format!("error without line, column and snippet: {err:?}"));
        }
        return Ok(());
    }
    if let Some(distribution) = &case.distribution {
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for seed in 0..SEEDS {
            let first = render(seed).map_err(|e| e.to_string())?.output;
            *counts.entry(first).or_default() += 1;
        }
        for (output, count) in &counts {
            let expected = distribution.get(output).copied().unwrap_or(0.0);
            let actual = *count as f64 / SEEDS as f64;
            if (actual - expected).abs() > 0.02 {
                return Err(format!("{output:?}: frequency {actual}, expected {expected}"));
            }
        }
        for seed in [0, 1, 99] {
            if render(seed).map(|r| r.output) != render(seed).map(|r| r.output) {
                return Err(format!("seed {seed} is not reproducible"));
            }
        }
        return Ok(());
    }
    let seeds: &[u64] = if case.random.is_some() { &[0, 1, 2, 3, 12345, u64::MAX] } else { &[0] };
    for &seed in seeds {
        let rendered: Rendered = render(seed).map_err(|e| format!("seed {seed}: {e}"))?;
        if rendered.output != case.expected_output {
            return Err(format!(
                "seed {seed}: output {:?}, expected {:?}",
                rendered.output, case.expected_output
            ));
        }
        if let Some(after) = &case.expected_state_after {
            for (scope, store) in [
                ("state", &rendered.state),
                ("local", &rendered.local),
                ("global", &rendered.global),
            ] {
                if let Some(expected) = after.get(scope) {
                    let actual = Value::Object(store.clone());
                    if &actual != expected {
                        return Err(format!("{scope} after: {actual}, expected {expected}"));
                    }
                }
            }
        }
        let effects = serde_json::to_value(&rendered.effects).map_err(|e| e.to_string())?;
        let expected_effects = Value::Array(case.expected_effects.clone().unwrap_or_default());
        if effects != expected_effects {
            return Err(format!("effects {effects}, expected {expected_effects}"));
        }
    }
    Ok(())
}

#[test]
fn every_conformance_case_passes() {
    let fixtures: Fixtures =
        serde_json::from_str(include_str!("conformance/brackets.json")).expect("fixtures parse");
    let env = Environment::new();
    let failures: Vec<String> = fixtures
        .cases
        .iter()
        .filter_map(|case| check(&env, case).err().map(|why| format!("{}: {why}", case.name)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        fixtures.cases.len(),
        failures.join("\n")
    );
}
