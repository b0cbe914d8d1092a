//! Every example in the repository's `examples/` built end to end for each
//! provider, with a fixed seed, and snapshotted: the request body (checked
//! against the provider's documented shape), the notices, and the template's
//! writes and effects; or the error.
//!
//! Also the generator of `examples/narrative/conversation.lmmlz`: the bundle
//! is made from the files next to it, and the committed one must equal it.
//! Regenerate with `UPDATE_EXAMPLES=1 cargo test -p prompt-pipeline --test examples`.

#[path = "../providers/documented.rs"]
mod documented;
#[path = "../support/outcome.rs"]
mod outcome;

use std::path::{Path, PathBuf};

use prompt_pipeline::{
    AttachmentLimits, Attachments, Context, Pipeline, Provider, Source, Transcript,
};
use serde_json::{Map, Value};

const SEED: u64 = 42;
const PROVIDERS: [Provider; 4] = Provider::CHAT;

/// The workspace's `examples/`, through the symlink `tests/examples/files`
/// (`cargo package` stores the files, so the package carries them).
fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/examples/files")
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(examples().join(path)).unwrap_or_else(|err| panic!("{path}: {err}"))
}

fn context(path: &str) -> Context {
    serde_json::from_slice(&read(path)).unwrap()
}

/// One example built for every provider.
fn snapshot(
    prompt: &str,
    context_path: &str,
    attachments: Option<Attachments>,
    transcript: Option<&str>,
) -> Value {
    let mut out = Map::new();
    for provider in PROVIDERS {
        let pipeline = Pipeline::new(provider);
        let limits = AttachmentLimits::default();
        // Directive paths resolve beside the prompt file, as the CLI has it.
        let dir = examples().join(prompt).parent().unwrap().to_owned();
        let mut source = Source::from_bytes(prompt, &read(prompt), &limits)
            .unwrap()
            .in_directory(dir, &limits)
            .unwrap();
        if let Some(attachments) = &attachments {
            source = source.with_attachments(attachments.clone());
        }
        let result = pipeline.prepare(source).and_then(|prompt| {
            let compiled = prompt.compile()?;
            let context = context(context_path);
            match transcript {
                Some(speaker) => {
                    let json = String::from_utf8(read("debate/transcript.json")).unwrap();
                    let transcript = Transcript::from_json(&json, speaker)?;
                    compiled.build_with_transcript(&context, SEED, &transcript)
                }
                None => compiled.build(&context, SEED),
            }
        });
        let value = outcome::outcome(result);
        out.insert(provider.as_str().to_owned(), value);
    }
    Value::Object(out)
}

#[test]
fn support_bot() {
    insta::assert_json_snapshot!(snapshot(
        "support-bot/prompt.txt",
        "support-bot/context.json",
        None,
        None
    ));
}

#[test]
fn tools() {
    insta::assert_json_snapshot!(snapshot("tools/prompt.txt", "tools/context.json", None, None));
}

#[test]
fn structured_output() {
    insta::assert_json_snapshot!(snapshot(
        "structured/prompt.txt",
        "structured/context.json",
        None,
        None
    ));
}

#[test]
fn roleplay() {
    insta::assert_json_snapshot!(snapshot(
        "roleplay/preset.txt",
        "roleplay/context.json",
        None,
        None
    ));
}

#[test]
fn narrative_bundle() {
    insta::assert_json_snapshot!(snapshot(
        "narrative/conversation.lmmlz",
        "narrative/context.json",
        None,
        None
    ));
}

#[test]
fn narrative_directory_equals_bundle() {
    let directory =
        Attachments::directory(examples().join("narrative"), AttachmentLimits::default()).unwrap();
    let from_directory =
        snapshot("narrative/conversation.lmml", "narrative/context.json", Some(directory), None);
    let from_bundle =
        snapshot("narrative/conversation.lmmlz", "narrative/context.json", None, None);
    assert_eq!(from_directory, from_bundle);
}

#[test]
fn debate_for_each_agent() {
    for agent in ["ana", "ben", "chen"] {
        let context = format!("debate/{agent}.json");
        insta::assert_json_snapshot!(
            format!("debate_{agent}"),
            snapshot("debate/agent.txt", &context, None, Some(agent))
        );
    }
}

/// The committed bundle is exactly what its parts make.
#[test]
fn narrative_bundle_is_generated() {
    let text = String::from_utf8(read("narrative/conversation.lmml")).unwrap();
    let bundle = narrative_segment::Bundle::from_parts(
        text,
        [("brief.pdf", read("narrative/brief.pdf")), ("funnel.png", read("narrative/funnel.png"))],
    )
    .unwrap();
    let bytes = bundle.to_zip("conversation.lmmlz").unwrap();
    let path = examples().join("narrative/conversation.lmmlz");
    if std::env::var_os("UPDATE_EXAMPLES").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    assert!(
        std::fs::read(&path).unwrap() == bytes,
        "examples/narrative/conversation.lmmlz is stale: \
         run UPDATE_EXAMPLES=1 cargo test -p prompt-pipeline --test examples"
    );
}
