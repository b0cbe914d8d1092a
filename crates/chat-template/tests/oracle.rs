//! `ChatTemplate::apply`, special-token check included, against Python's
//! jinja2 on every pair of the engine's chat-template harness: every real
//! template of `../shared/peer/chat-templates/templates/` with each
//! conversation of `crates/minijinja-brackets/tests/chat-templates/
//! conversations.json`, the oracle being that harness's `oracle.py`
//! (transformers' setup). A pair renders byte for byte as jinja2 renders
//! it, is refused as jinja2 refuses it, or is `special_token_in_data`, and
//! then the caller's opt-in (`allow_special_tokens`) renders it byte for
//! byte as jinja2 does. The refused pairs are listed with the token, the
//! message field and the data bytes.
//!
//! Skips with a message when the peer folder or Python with jinja2 is
//! absent; a `JINJA2_PYTHON` named that cannot import jinja2 fails.
//! Nothing rendered from the templates is written to the repository.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use chat_template::{ChatTemplate, Conversation, Error, Options};
use minijinja_brackets::{Clock, jiff};
use serde_json::Value;

const NOW: &str = "2026-01-15T10:30:00";

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../minijinja-brackets/tests/chat-templates")
}

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peer/chat-templates/templates")
}

fn oracle() -> Result<Vec<Value>, String> {
    let named = std::env::var("JINJA2_PYTHON").ok();
    let python = named.clone().unwrap_or_else(|| "python3".into());
    let probe = Command::new(&python).args(["-c", "import jinja2"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        assert!(named.is_none(), "JINJA2_PYTHON={python} cannot import jinja2");
        return Err(format!("`{python}` with jinja2 is not available (set JINJA2_PYTHON)"));
    }
    let output = Command::new(&python)
        .arg(harness().join("oracle.py"))
        .arg(templates_dir())
        .arg(harness().join("conversations.json"))
        .arg(NOW)
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).map_err(|e| e.to_string()))
        .collect()
}

/// The oracle's class of one of our errors.
fn class(err: &Error) -> &'static str {
    match err.kind() {
        "template_raised" => "template_raised",
        "undefined_error" => "undefined",
        "sandbox_refused" => "sandbox",
        "syntax_error" => "syntax",
        _ => "other",
    }
}

#[test]
fn apply_with_its_special_token_check_agrees_with_jinja2() {
    if !templates_dir().is_dir() {
        eprintln!("SKIPPED: {} is absent", templates_dir().display());
        return;
    }
    let rows = match oracle() {
        Ok(rows) => rows,
        Err(why) => {
            eprintln!("SKIPPED: the Jinja2 oracle cannot run: {why}");
            return;
        }
    };
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(harness().join("conversations.json")).unwrap(),
    )
    .unwrap();
    let conversations: Vec<(String, Conversation)> = file["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let conversation = Conversation::from_json(&c["context"].to_string()).unwrap();
            (c["name"].as_str().unwrap().to_owned(), conversation)
        })
        .collect();
    let now: jiff::civil::DateTime = NOW.parse().unwrap();
    let clock = Clock::Fixed(now.to_zoned(jiff::tz::TimeZone::UTC).unwrap());
    let options =
        |allow| Options { clock: clock.clone(), allow_special_tokens: allow, ..Options::default() };
    let (mut same, mut refused_alike) = (0, 0);
    let mut guarded: Vec<String> = Vec::new();
    let mut guarded_templates = BTreeSet::new();
    let mut failures: Vec<String> = Vec::new();
    for row in &rows {
        let name = row["template"].as_str().unwrap();
        let cname = row["conversation"].as_str().unwrap();
        let conversation = &conversations.iter().find(|(n, _)| n == cname).unwrap().1;
        let source = std::fs::read_to_string(templates_dir().join(name)).unwrap();
        let theirs = row.get("output").and_then(Value::as_str);
        let ours = ChatTemplate::from_jinja(&source, &options(false))
            .and_then(|template| template.apply(conversation));
        match (ours, theirs) {
            (Ok(ours), Some(theirs)) if ours.output == theirs => same += 1,
            (Err(err @ Error::SpecialTokenInData { .. }), Some(theirs)) => {
                let allowed = ChatTemplate::from_jinja(&source, &options(true))
                    .and_then(|template| template.apply(conversation));
                match allowed {
                    Ok(allowed) if allowed.output == theirs => {
                        let Error::SpecialTokenInData { message, field, token, data, .. } = &err
                        else {
                            unreachable!()
                        };
                        guarded_templates.insert(name.to_owned());
                        guarded.push(format!(
                            "{name} / {cname}: `{token}` with the data {data:?} of message {message:?}, {field:?}"
                        ));
                    }
                    other => failures.push(format!("{name} / {cname}: allowed: {other:?}")),
                }
            }
            (Err(err), None) if class(&err) == row["error"] => refused_alike += 1,
            (ours, _) => failures.push(format!(
                "{name} / {cname}: ours {:?} / jinja2 {}",
                ours.map(|a| a.output).map_err(|e| e.to_string()),
                row.get("output").map_or_else(|| row["message"].to_string(), Value::to_string)
            )),
        }
    }
    for line in &guarded {
        eprintln!("special_token_in_data, identical once allowed: {line}");
    }
    for line in &failures {
        eprintln!("DIFFERS: {line}");
    }
    eprintln!(
        "apply vs jinja2: {} pairs: {same} identical, {refused_alike} refused alike, {} \
         special_token_in_data and identical once allowed ({} templates)",
        rows.len(),
        guarded.len(),
        guarded_templates.len()
    );
    assert!(failures.is_empty(), "{} pairs differ from jinja2", failures.len());
    assert!(rows.len() >= 1500, "{} rows", rows.len());
    // Every refusal is a control token the template makes from a
    // message's role (`'<|' + message['role'] + '|>'`): the templates the
    // decision refuses, and no other.
    let expected: BTreeSet<String> =
        ["phi-3-small.jinja", "phi-3.jinja", "tool_chat_template_phi4_mini.jinja", "zephyr.jinja"]
            .into_iter()
            .map(str::to_owned)
            .collect();
    assert_eq!(guarded_templates, expected);
}
