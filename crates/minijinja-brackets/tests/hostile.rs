//! The hostile-input corpus (`tests/hostile/minijinja-brackets.json` at the
//! workspace root): deep nesting, endless recursion, huge ranges,
//! repetition bombs, outputs over their limit, 100 MB of text, many macros
//! and names, memory bombs (large values written, shared, converted or
//! split again and again). Each case ends in its expected typed error or
//! bounded output (or, for `check`, warning count), within the limits.

#[path = "../../../tests/hostile/corpus.rs"]
mod corpus;

use minijinja_brackets::{Context, Environment, Limits};

use corpus::Case;

fn limits(case: &Case) -> Limits {
    let mut limits = Limits::default();
    if let Some(n) = case.number("nesting_limit") {
        limits = limits.with_nesting_limit(n as usize);
    }
    if let Some(n) = case.number("recursion_limit") {
        limits = limits.with_recursion_limit(n as usize);
    }
    // A number, or `null` for no fuel limit.
    if let Some(fuel) = case.options.get("fuel") {
        limits = limits.with_fuel(fuel.as_u64());
    }
    if let Some(n) = case.options.get("output_limit").and_then(serde_json::Value::as_u64) {
        limits = limits.with_output_limit(n as usize);
    }
    if let Some(n) = case.number("string_limit") {
        limits = limits.with_string_limit(n as usize);
    }
    if let Some(n) = case.number("range_limit") {
        limits = limits.with_range_limit(n as usize);
    }
    if let Some(n) = case.number("memory_limit") {
        limits = limits.with_memory_limit(n as usize);
    }
    limits
}

fn run(case: &Case) -> Result<(), String> {
    let mut env = Environment::new();
    env.set_limits(limits(case));
    if let Some(expected) = case.expect.get("warnings").and_then(serde_json::Value::as_u64) {
        // `check`: the analysis, not a render.
        let template = env.compile(case.text()).map_err(|e| e.to_string())?;
        let warnings = template.analyze().warnings.len() as u64;
        return if warnings == expected {
            Ok(())
        } else {
            Err(format!("expected {expected} warnings, got {warnings}"))
        };
    }
    let rendered =
        env.compile(case.text()).and_then(|template| template.render(&Context::default(), 0));
    match rendered {
        Err(err) => corpus::expect_error(case, Some(err.kind().as_str())),
        Ok(rendered) => match case.expect.get("output_len").and_then(serde_json::Value::as_u64) {
            Some(len) if rendered.output.len() as u64 == len => Ok(()),
            _ if case.expected_error().is_some() => corpus::expect_error(case, None),
            expected => {
                Err(format!("expected {expected:?} output bytes, got {}", rendered.output.len()))
            }
        },
    }
}

#[test]
fn every_hostile_template_is_stopped_or_bounded() {
    corpus::run_all(include_str!("../../../tests/hostile/minijinja-brackets.json"), run);
}
