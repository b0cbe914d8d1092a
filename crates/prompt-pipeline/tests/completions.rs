//! The completions provider end to end: an authored prompt with tools, tool
//! calls and results built into messages, handed to a chat template in the
//! shape transformers' templates expect, and (when Python's jinja2 and the
//! peer templates are there) every real chat template of
//! `../shared/peer/chat-templates/templates/` rendering the built
//! conversation byte for byte as jinja2 renders the same messages
//! (`crates/minijinja-brackets/tests/chat-templates/oracle.py`, transformers'
//! setup). Nothing rendered from the peer templates is written to the
//! repository.

#[path = "providers/documented.rs"]
mod documented;

use std::path::{Path, PathBuf};
use std::process::Command;

use chat_template::Options;
use prompt_pipeline::{
    ChatTemplate, Context, ErrorKind, Pipeline, Provider, Request, Source, Tool,
};
use serde_json::{Value, json};

const PROMPT: &str = "/// param: model=local-model, max_tokens=256
You are a weather assistant.

## user
Weather in Oslo? ✓

## assistant
Let me check.
```tool_call get_weather call_1
{\"city\": \"Oslo\", \"days\": 2}
```

## tool
```tool_result call_1
-3 °C, snow
```

## user
Thanks!
";

/// A plain conversation: a system text and alternating turns.
const PLAIN: &str = "/// param: model=local-model
Be brief.
## user
Hi [[ name ]]!
## assistant
Hello.
## user
Bye ✓
";

const TOOLS: &str = r#"[{"name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
    "days": {"type": "integer"}}, "required": ["city"]}}]"#;

/// The messages and tools the pipeline hands a template for [`PROMPT`]: the
/// shape transformers' chat templates expect.
fn expected_context() -> Value {
    json!({
        "messages": [
            {"role": "system", "content": "You are a weather assistant."},
            {"role": "user", "content": "Weather in Oslo? ✓"},
            {"role": "assistant", "content": "Let me check.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "-3 °C, snow"},
            {"role": "user", "content": "Thanks!"},
        ],
        "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "The weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                "days": {"type": "integer"}}, "required": ["city"]}}}],
        "documents": null,
        "add_generation_prompt": true,
    })
}

/// What the pipeline hands a template for [`PLAIN`].
fn expected_plain_context() -> Value {
    json!({
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi Ann!"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Bye ✓"},
        ],
        "tools": null,
        "documents": null,
        "add_generation_prompt": true,
    })
}

fn build(template: ChatTemplate) -> Result<Request, prompt_pipeline::Error> {
    build_case("tools", template)
}

/// The body of the conversation named `case` (`tools`: [`PROMPT`] with
/// [`TOOLS`]; `plain`: [`PLAIN`]).
fn build_case(case: &str, template: ChatTemplate) -> Result<Request, prompt_pipeline::Error> {
    let mut pipeline = Pipeline::builder(Provider::Completions).chat_template(template);
    let text = if case == "tools" {
        pipeline = pipeline.tools(Tool::parse_list(TOOLS).unwrap());
        PROMPT
    } else {
        PLAIN
    };
    let context: Context = serde_json::from_str(r#"{"name": "Ann"}"#).unwrap();
    let built = pipeline.build().build(Source::new(text), &context, 0)?;
    // The body has the legacy Completions shape.
    documented::checked(&built.body);
    Ok(built.body)
}

fn prompt_of(body: Request) -> String {
    let Request::Completions(body) = body else { panic!("not a completions body: {body:?}") };
    body.prompt
}

#[test]
fn the_template_receives_the_conversation_as_transformers_passes_it() {
    let template = ChatTemplate::from_jinja(
        "{{ {'messages': messages, 'tools': tools, 'documents': documents, \
         'add_generation_prompt': add_generation_prompt} | tojson }}",
        &Options::default(),
    )
    .unwrap();
    let seen: Value = serde_json::from_str(&prompt_of(build(template.clone()).unwrap())).unwrap();
    assert_eq!(seen, expected_context());
    let seen = prompt_of(build_case("plain", template).unwrap());
    assert_eq!(serde_json::from_str::<Value>(&seen).unwrap(), expected_plain_context());
}

const NOW: &str = "2026-01-15T10:30:00";

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peer/chat-templates/templates")
}

/// The oracle's rows for the conversations of [`expected_context`] and
/// [`expected_plain_context`], by template, or why it cannot run.
fn oracle(dir: &Path) -> Result<Vec<Value>, String> {
    let named = std::env::var("JINJA2_PYTHON").ok();
    let python = named.clone().unwrap_or_else(|| "python3".into());
    let probe = Command::new(&python).args(["-c", "import jinja2"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        // A Python named on purpose (`cargo xtask test` names the one it
        // made) that cannot run the oracle is a failure, never a skip.
        assert!(named.is_none(), "JINJA2_PYTHON={python} cannot import jinja2");
        return Err(format!("`{python}` with jinja2 is not available (set JINJA2_PYTHON)"));
    }
    let conversations = dir.join("conversations.json");
    let file = json!({"conversations": [
        {"name": "tools", "context": expected_context()},
        {"name": "plain", "context": expected_plain_context()},
    ]});
    std::fs::write(&conversations, file.to_string()).map_err(|e| e.to_string())?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../minijinja-brackets/tests/chat-templates/oracle.py");
    let output = Command::new(&python)
        .arg(script)
        .arg(templates_dir())
        .arg(&conversations)
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
fn class(err: &prompt_pipeline::Error) -> &'static str {
    match err.kind().as_str() {
        "template_raised" => "template_raised",
        "undefined_error" => "undefined",
        "sandbox_refused" => "sandbox",
        "syntax_error" => "syntax",
        _ => "other",
    }
}

#[test]
fn every_real_template_renders_the_built_conversation_as_jinja2() {
    if !templates_dir().is_dir() {
        eprintln!("SKIPPED: {} is absent", templates_dir().display());
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let rows = match oracle(scratch.path()) {
        Ok(rows) => rows,
        Err(why) => {
            eprintln!("SKIPPED: the Jinja2 oracle cannot run: {why}");
            return;
        }
    };
    use minijinja_brackets::jiff;
    let now: jiff::civil::DateTime = NOW.parse().unwrap();
    let clock = minijinja_brackets::Clock::Fixed(now.to_zoned(jiff::tz::TimeZone::UTC).unwrap());
    let (mut same, mut refused_alike, mut guarded) = (0, 0, Vec::new());
    let mut failures = Vec::new();
    for row in &rows {
        let name = row["template"].as_str().unwrap();
        let case = row["conversation"].as_str().unwrap();
        let source = std::fs::read_to_string(templates_dir().join(name)).unwrap();
        let options = |allow| Options {
            clock: clock.clone(),
            allow_special_tokens: allow,
            ..Options::default()
        };
        let ours = ChatTemplate::from_jinja(&source, &options(false))
            .map_err(|err| err.kind().to_owned())
            .map(|template| build_case(case, template).map(prompt_of));
        let theirs = row.get("output").and_then(Value::as_str);
        match (ours, theirs) {
            (Ok(Ok(ours)), Some(theirs)) if ours == theirs => same += 1,
            (Ok(Err(err)), Some(theirs)) if err.kind().as_str() == "special_token_in_data" => {
                // Refused for a control token made with a message's bytes:
                // the caller's opt-in renders exactly jinja2's text.
                let allowed = ChatTemplate::from_jinja(&source, &options(true)).unwrap();
                match build_case(case, allowed).map(prompt_of) {
                    Ok(ours) if ours == theirs => guarded.push(format!("{name} ({case}): {err}")),
                    other => failures.push(format!("{name} ({case}): allowed, {other:?}")),
                }
            }
            (Ok(Err(err)), None) if class(&err) == row["error"] => refused_alike += 1,
            (Err(kind), None) if kind == "syntax_error" && row["error"] == "syntax" => {
                refused_alike += 1
            }
            (ours, _) => failures.push(format!(
                "{name} ({case}): ours {:?} / jinja2 {}",
                ours.map(|built| built.map_err(|e| e.to_string())),
                row.get("output").map_or_else(|| row["message"].to_string(), Value::to_string)
            )),
        }
    }
    for line in &guarded {
        eprintln!("special_token_in_data (identical when allowed): {line}");
    }
    for line in &failures {
        eprintln!("DIFFERS: {line}");
    }
    eprintln!(
        "completions through 2 conversations x {} real chat templates: {same} identical, {} \
         identical once special tokens are allowed, {refused_alike} refused as jinja2 refuses",
        rows.len() / 2,
        guarded.len()
    );
    assert!(rows.len() >= 200, "{} oracle rows", rows.len());
    assert!(failures.is_empty(), "{} templates differ from jinja2", failures.len());
    // Only templates that build a control token from a message's own bytes
    // are refused (`'<|' + message['role'] + '|>'`: zephyr, phi-3,
    // phi-3-small, phi4-mini).
    assert!(guarded.len() <= 5, "{guarded:?}");
}

#[test]
fn a_missing_template_and_a_raising_template_are_typed() {
    let err = Pipeline::builder(Provider::Completions)
        .build()
        .build(Source::new(PROMPT), &Context::default(), 0)
        .unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::MissingChatTemplate);
    let template = ChatTemplate::from_jinja(
        "{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('No tools here') }}{% endif %}{% endfor %}",
        &Options::default(),
    )
    .unwrap();
    let err = build(template).unwrap_err();
    assert_eq!(err.kind().as_str(), "template_raised");
    assert_eq!(err.to_string(), "chat template: No tools here");
}
