//! The hostile-input corpus (`tests/hostile/minijinja-brackets.json` at the
//! workspace root): deep nesting, endless recursion, huge ranges,
//! repetition bombs, outputs over their limit, 100 MB of text, many macros
//! and names, memory bombs (large values written, shared, converted or
//! split again and again). Each case ends in its expected typed error or
//! bounded output (or, for `check`, warning count), within the limits.

// `tests/hostile/` holds symlinks to the workspace corpus (one copy, edited
// there); `cargo package` stores their contents, so the package is whole.
#[path = "hostile/corpus.rs"]
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

/// The `templates` option (name → text, or `{"repeat": s, "times": n}`)
/// stored in `env`, and the `loader` option: `"chain"` answers `tN` with
/// a template including `tN+1`, forever.
fn compose(case: &Case, env: &mut Environment) -> Result<(), String> {
    if let Some(templates) = case.options.get("templates").and_then(serde_json::Value::as_object) {
        for (name, text) in templates {
            let text = match text {
                serde_json::Value::String(text) => text.clone(),
                piece => {
                    let times = piece["times"].as_u64().unwrap_or(1) as usize;
                    piece["repeat"].as_str().unwrap_or_default().repeat(times)
                }
            };
            if let Err(err) = env.add_template(name, &text) {
                return corpus::expect_error(case, Some(err.kind().as_str()))
                    .and(Err(String::new()));
            }
        }
    }
    if case.options.get("loader").and_then(serde_json::Value::as_str) == Some("chain") {
        env.set_loader(|name| {
            let n: u64 = name.strip_prefix('t').and_then(|n| n.parse().ok()).unwrap_or(0);
            Ok(Some(format!("[% include 't{}' %]", n + 1)))
        });
    }
    Ok(())
}

fn run(case: &Case) -> Result<(), String> {
    // `"chat_template": true`: Jinja syntax and the Jinja2 profile.
    let chat = case.options.get("chat_template").and_then(serde_json::Value::as_bool);
    let mut env =
        if chat == Some(true) { Environment::for_chat_templates() } else { Environment::new() };
    env.set_limits(limits(case));
    match compose(case, &mut env) {
        Ok(()) => {}
        // The expected error came from storing a template.
        Err(why) if why.is_empty() => return Ok(()),
        Err(why) => return Err(why),
    }
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
            Some(len) if rendered.output.len() as u64 == len => {
                // `undefined`: how many bare `[[name]]` tags are reported.
                let expected = case.expect.get("undefined").and_then(serde_json::Value::as_u64);
                let undefined = rendered.undefined.len() as u64;
                match expected {
                    Some(expected) if expected != undefined => Err(format!(
                        "expected {expected} undefined_variable warnings, got {undefined}"
                    )),
                    _ => Ok(()),
                }
            }
            _ if case.expected_error().is_some() => corpus::expect_error(case, None),
            expected => {
                Err(format!("expected {expected:?} output bytes, got {}", rendered.output.len()))
            }
        },
    }
}

#[test]
fn every_hostile_template_is_stopped_or_bounded() {
    corpus::run_all(include_str!("hostile/minijinja-brackets.json"), run);
}
