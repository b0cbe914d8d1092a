//! Every real chat template in `../shared/peer/chat-templates/templates/`
//! (read in place, never copied) renders a small conversation through
//! `apply` without a panic: output, or a typed error. Skipped, visibly,
//! when the folder is absent.

use std::path::Path;

use chat_template::{ChatTemplate, Conversation, Options};

const CONVERSATIONS: &[&str] = &[
    r#"{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Bye ✓"}],
        "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"}"#,
    r#"{"messages": [{"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
          "function": {"name": "weather", "arguments": {"city": "Oslo"}}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "weather", "content": "cold"}],
        "tools": [{"type": "function", "function": {"name": "weather", "description": "w",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "add_generation_prompt": false}"#,
];

#[test]
fn every_peer_template_renders_or_fails_typed() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peer/chat-templates/templates");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: {} is absent", dir.display());
        return;
    };
    let conversations: Vec<Conversation> =
        CONVERSATIONS.iter().map(|c| Conversation::from_json(c).unwrap()).collect();
    let (mut rendered, mut refused, mut templates) = (0, 0, 0);
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jinja") {
            continue;
        }
        templates += 1;
        let source = std::fs::read_to_string(&path).unwrap();
        let template = match ChatTemplate::from_jinja(&source, &Options::default()) {
            Ok(template) => template,
            Err(err) => {
                assert!(!err.kind().is_empty());
                eprintln!("{}: compile: {}: {err}", path.display(), err.kind());
                refused += conversations.len();
                continue;
            }
        };
        for conversation in &conversations {
            match template.apply(conversation) {
                Ok(applied) => {
                    assert!(applied.data_ranges.iter().all(|r| r.end <= applied.output.len()));
                    rendered += 1;
                }
                Err(err) => {
                    assert!(!err.kind().is_empty());
                    eprintln!("{}: {}: {err}", path.display(), err.kind());
                    refused += 1;
                }
            }
        }
    }
    eprintln!("{templates} templates: {rendered} renders, {refused} typed refusals");
    assert!(templates > 0);
    assert!(rendered > 0);
}
