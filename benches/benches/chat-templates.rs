//! Real chat templates side by side: compile and render every template of
//! `../shared/peer/chat-templates/templates/` (read at bench time, never
//! copied; the bench says so and measures nothing when the folder is
//! absent) with the conversations of
//! `crates/minijinja-brackets/tests/chat-templates/conversations.json`.
//!
//! Ours is `Environment::for_chat_templates()` (what transformers'
//! `apply_chat_template` does). minijinja 3 is configured as TGI configures
//! it for chat templates: minijinja-contrib's `pycompat` method callback,
//! `raise_exception`, `strftime_now`, loop controls; with `trim_blocks` and
//! `lstrip_blocks` as transformers sets them, so both engines render the
//! same text.
//!
//! Groups:
//! - `chat-templates/same-output`: the (template, conversation) pairs where
//!   minijinja's output is byte for byte ours (checked before measuring, so
//!   both sides provably do the same work): `compile+render` compiles each
//!   of those templates and renders its pairs; `render` renders the pairs
//!   of templates compiled beforehand.
//! - `chat-templates/all`: ours over every pair (a refusal is part of the
//!   work), the same work `benches/jinja2/chat_templates.py` times in
//!   Jinja2 (our outputs are Jinja2's on every pair: the harness in
//!   `crates/minijinja-brackets/tests/chat_templates.rs`).
//!
//! Run: `cargo bench -p benches --bench chat-templates`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use minijinja_brackets::{Clock, Context, Environment, jiff};

const NOW: &str = "2026-01-15T10:30:00";

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/peer/chat-templates/templates")
}

fn now() -> jiff::Zoned {
    let civil: jiff::civil::DateTime = NOW.parse().expect("a date");
    civil.to_zoned(jiff::tz::TimeZone::UTC).expect("in range")
}

/// The templates by name, sorted; `None` when the peer folder is absent.
fn templates() -> Option<Vec<(String, String)>> {
    let entries = std::fs::read_dir(templates_dir()).ok()?;
    let mut templates: Vec<(String, String)> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jinja"))
        .map(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("a UTF-8 template"))
        })
        .collect();
    templates.sort();
    Some(templates)
}

fn conversations() -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/minijinja-brackets/tests/chat-templates/conversations.json");
    let text = std::fs::read_to_string(&path).expect("the conversations");
    let file: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    file["conversations"].as_array().expect("a list").iter().map(|c| c["context"].clone()).collect()
}

fn ours() -> Environment {
    let mut env = Environment::for_chat_templates();
    env.set_clock(Clock::Fixed(now()));
    env
}

/// minijinja as TGI sets it up for chat templates (router/src/infer/chat_template.rs).
fn minijinja_env() -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
        .expect("Jinja's own delimiters");
    env.set_syntax(syntax);
    env.add_function("raise_exception", |message: String| -> Result<String, minijinja::Error> {
        Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, message))
    });
    let at = now();
    env.add_function("strftime_now", move |format: String| -> Result<String, minijinja::Error> {
        jiff::fmt::strtime::format(format.as_str(), &at).map_err(|e| {
            minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())
        })
    });
    env
}

/// One template and the conversations it renders in a group.
struct Pairs<'a> {
    source: &'a str,
    ours: Vec<&'a Context>,
    theirs: Vec<&'a minijinja::Value>,
}

fn chat_templates(c: &mut Criterion) {
    let Some(templates) = templates() else {
        eprintln!("SKIPPED: {} is absent; nothing measured", templates_dir().display());
        return;
    };
    let conversations = conversations();
    let our_contexts: Vec<Context> = conversations
        .iter()
        .map(|c| {
            let state = serde_json::json!({ "state": c });
            Context::from_json(&state.to_string()).expect("a context")
        })
        .collect();
    let their_contexts: Vec<minijinja::Value> =
        conversations.iter().map(|c| minijinja::Value::from(minijinja::value::Serde(c))).collect();
    let (our_env, their_env) = (ours(), minijinja_env());

    // The pairs where minijinja's output is ours.
    let mut same: Vec<Pairs<'_>> = Vec::new();
    let (mut pairs, mut refused_by_minijinja, mut different) = (0, 0, 0);
    for (_, source) in &templates {
        let our_template = our_env.compile(source);
        let their_template = their_env.template_from_str(source);
        let mut kept = Pairs { source, ours: Vec::new(), theirs: Vec::new() };
        for (ours, theirs) in our_contexts.iter().zip(&their_contexts) {
            pairs += 1;
            let our_output =
                our_template.as_ref().ok().and_then(|t| t.render_outcome(ours, 0).ok());
            let their_output = their_template.as_ref().ok().map(|t| t.render(theirs));
            match (our_output, their_output) {
                (Some(o), Some(Ok(t))) if o.output == t => {
                    kept.ours.push(ours);
                    kept.theirs.push(theirs);
                }
                (_, Some(Err(_)) | None) => refused_by_minijinja += 1,
                _ => different += 1,
            }
        }
        if !kept.ours.is_empty() {
            same.push(kept);
        }
    }
    let kept_pairs: usize = same.iter().map(|p| p.ours.len()).sum();
    eprintln!(
        "chat-templates: {} templates x {} conversations = {pairs} pairs; minijinja renders \
         {kept_pairs} of them as we do (of {} templates), refuses {refused_by_minijinja}, \
         renders {different} differently",
        templates.len(),
        conversations.len(),
        same.len(),
    );

    let mut group = c.benchmark_group("chat-templates/same-output");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.warm_up_time(Duration::from_secs(2));
    group.bench_function("compile+render/brackets", |b| {
        b.iter(|| {
            for pairs in &same {
                let template = our_env.compile(black_box(pairs.source)).unwrap();
                for context in &pairs.ours {
                    black_box(template.render_outcome(context, 0).unwrap());
                }
            }
        })
    });
    group.bench_function("compile+render/minijinja", |b| {
        b.iter(|| {
            for pairs in &same {
                let template = their_env.template_from_str(black_box(pairs.source)).unwrap();
                for context in &pairs.theirs {
                    black_box(template.render(*context).unwrap());
                }
            }
        })
    });
    let our_compiled: Vec<_> = same.iter().map(|p| our_env.compile(p.source).unwrap()).collect();
    let their_compiled: Vec<_> =
        same.iter().map(|p| their_env.template_from_str(p.source).unwrap()).collect();
    group.bench_function("render/brackets", |b| {
        b.iter(|| {
            for (template, pairs) in our_compiled.iter().zip(&same) {
                for context in &pairs.ours {
                    black_box(template.render_outcome(context, 0).unwrap());
                }
            }
        })
    });
    group.bench_function("render/minijinja", |b| {
        b.iter(|| {
            for (template, pairs) in their_compiled.iter().zip(&same) {
                for context in &pairs.theirs {
                    black_box(template.render(*context).unwrap());
                }
            }
        })
    });
    group.finish();

    // Every pair, ours: the work Jinja2's figure is for.
    let mut group = c.benchmark_group("chat-templates/all");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.warm_up_time(Duration::from_secs(2));
    group.bench_function("compile+render/brackets", |b| {
        b.iter(|| {
            for (_, source) in &templates {
                let Ok(template) = our_env.compile(black_box(source)) else { continue };
                for context in &our_contexts {
                    let _ = black_box(template.render_outcome(context, 0));
                }
            }
        })
    });
    let compiled: Vec<_> = templates.iter().filter_map(|(_, s)| our_env.compile(s).ok()).collect();
    group.bench_function("render/brackets", |b| {
        b.iter(|| {
            for template in &compiled {
                for context in &our_contexts {
                    let _ = black_box(template.render_outcome(context, 0));
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, chat_templates);
criterion_main!(benches);
