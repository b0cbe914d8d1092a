//! Real chat templates against Python's Jinja2: every template of
//! `../shared/peer/chat-templates/templates/` rendered with each
//! conversation of `tests/chat-templates/conversations.json` (our own)
//! through [`Environment::for_chat_templates`], compared byte for byte with
//! `tests/chat-templates/oracle.py` (jinja2 set up as transformers sets it
//! up). A pair Jinja2 refuses must be refused here too, with an error of the
//! same class.
//!
//! Skips with a message when the peer folder or Python with jinja2 is
//! absent. `JINJA2_PYTHON` names the Python to use (default `python3`); one
//! named that cannot import jinja2 fails the test (`cargo xtask test` names
//! the environment it gave `jinja2==3.1.6`).
//! Nothing rendered from the templates is written to the repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use minijinja_brackets::{Clock, Context, Environment, ErrorKind, jiff};

const NOW: &str = "2026-01-15T10:30:00";

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chat-templates")
}

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peer/chat-templates/templates")
}

/// The oracle's rows by (template, conversation), or why it cannot run.
fn oracle() -> Result<BTreeMap<(String, String), serde_json::Value>, String> {
    let named = std::env::var("JINJA2_PYTHON").ok();
    let python = named.clone().unwrap_or_else(|| "python3".into());
    let probe = Command::new(&python).args(["-c", "import jinja2"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        // A Python named on purpose (`cargo xtask test` names the one it
        // made) that cannot run the oracle is a failure, never a skip.
        assert!(named.is_none(), "JINJA2_PYTHON={python} cannot import jinja2");
        return Err(format!("`{python}` with jinja2 is not available (set JINJA2_PYTHON)"));
    }
    let output = Command::new(&python)
        .arg(here().join("oracle.py"))
        .arg(templates_dir())
        .arg(here().join("conversations.json"))
        .arg(NOW)
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let mut rows = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let row: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let key = (
            row["template"].as_str().unwrap_or_default().to_owned(),
            row["conversation"].as_str().unwrap_or_default().to_owned(),
        );
        rows.insert(key, row);
    }
    Ok(rows)
}

/// The oracle's class of one of our errors.
fn class(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::TemplateRaised => "template_raised",
        ErrorKind::UndefinedError => "undefined",
        ErrorKind::SandboxRefused => "sandbox",
        ErrorKind::SyntaxError => "syntax",
        _ => "other",
    }
}

#[test]
fn real_chat_templates_render_as_jinja2_renders_them() {
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
    let conversations: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(here().join("conversations.json")).unwrap())
            .unwrap();
    let mut env = Environment::for_chat_templates();
    let now: jiff::civil::DateTime = NOW.parse().unwrap();
    env.set_clock(Clock::Fixed(now.to_zoned(jiff::tz::TimeZone::UTC).unwrap()));
    let mut names: Vec<_> = std::fs::read_dir(templates_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jinja"))
        .collect();
    names.sort();
    let (mut same, mut total, mut whole) = (0, 0, 0);
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in &names {
        let source = std::fs::read_to_string(templates_dir().join(name)).unwrap();
        let template = env.compile(&source);
        let mut all = true;
        for conversation in conversations["conversations"].as_array().unwrap() {
            let cname = conversation["name"].as_str().unwrap();
            let expected = &rows[&(name.clone(), cname.to_owned())];
            let context = Context::from_json(
                &serde_json::json!({ "state": conversation["context"] }).to_string(),
            )
            .unwrap();
            let ours = match &template {
                Ok(t) => t.render_outcome(&context, 0).map(|o| o.output),
                Err(e) => Err(e.clone()),
            };
            total += 1;
            let verdict = match (&ours, expected.get("output").and_then(|o| o.as_str())) {
                (Ok(ours), Some(theirs)) if ours == theirs => None,
                (Err(e), None) if class(e.kind()) == expected["error"].as_str().unwrap_or("") => {
                    None
                }
                (Ok(ours), Some(theirs)) => {
                    let at = ours.bytes().zip(theirs.bytes()).take_while(|(a, b)| a == b).count();
                    let from = at.saturating_sub(40);
                    let cut = |s: &str| {
                        let mut end = (at + 60).min(s.len());
                        while !s.is_char_boundary(end) {
                            end -= 1;
                        }
                        let mut start = from.min(end);
                        while !s.is_char_boundary(start) {
                            start -= 1;
                        }
                        s[start..end].to_owned()
                    };
                    Some(format!(
                        "differs at byte {at}: ours {:?} / jinja2 {:?}",
                        cut(ours),
                        cut(theirs)
                    ))
                }
                (Ok(_), None) => {
                    Some(format!("jinja2 refused ({}), we rendered", expected["message"]))
                }
                (Err(e), _) => Some(format!(
                    "we refused ({}: {e}), jinja2 {}",
                    e.kind(),
                    expected.get("error").map_or("rendered".into(), |_| format!(
                        "refused ({})",
                        expected["message"]
                    ))
                )),
            };
            match verdict {
                None => same += 1,
                Some(why) => {
                    all = false;
                    failures.entry(name.clone()).or_default().push(format!("{cname}: {why}"));
                }
            }
        }
        whole += usize::from(all);
    }
    for (name, why) in &failures {
        eprintln!("{name}:");
        for line in why.iter().take(3) {
            eprintln!("    {line}");
        }
    }
    eprintln!(
        "chat templates: {same}/{total} pairs identical, {whole}/{} templates fully identical",
        names.len()
    );
    // A ratchet: the pairs identical when this was last raised (Jinja2
    // 3.1.6). It only goes up.
    const FLOOR: usize = 1524;
    assert!(same >= FLOOR, "{same} pairs identical, fewer than the {FLOOR} already reached");
}
