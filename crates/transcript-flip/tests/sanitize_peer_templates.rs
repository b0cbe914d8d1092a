//! Every special token of the model families in the peer chat templates
//! (`../shared/peer/chat-templates/templates/*.jinja`, beside the repository)
//! is defanged by the `Standard` sanitizer.
//!
//! The templates are read, never copied: the test finds every spelling
//! shaped like a special token in them and checks that sanitizing it
//! changes it, and that a second pass changes nothing. Tags that templates
//! write as prompt text, which no tokenizer knows as a token, are listed in
//! [`PROMPT_TEXT_TAGS`] with their reason. Without the templates the test
//! says so and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use transcript_flip::sanitize;

/// Angle tags the templates write as prompt text, lowercase: tool schemas,
/// the sections of a system prompt, placeholders in tool-use instructions,
/// citation and tool-call markup that the model writes as text and a
/// parser reads.
const PROMPT_TEXT_TAGS: &[(&str, &str)] = &[
    // The fields of a tool schema written as XML.
    ("any", "tool schema"),
    ("description", "tool schema"),
    ("enum", "tool schema"),
    ("name", "tool schema"),
    ("parameter", "tool schema"),
    ("parameters", "tool schema"),
    ("required", "tool schema"),
    ("type", "tool schema"),
    ("tool", "tool schema (MiniMax M2 lists each tool in one)"),
    ("function", "tool-call markup written as text (Qwen3-Coder, Llama 3.x)"),
    ("invoke", "tool-call markup written as text (MiniMax M2)"),
    ("functions", "tool list written as text"),
    ("function_call", "tool-call markup written as text (Granite 20B)"),
    ("function_name", "tool-call markup written as text"),
    ("function_response", "tool-call markup written as text"),
    ("results", "tool-call markup written as text"),
    ("response", "answer markup written as text"),
    ("thinking", "reasoning markup written as text (Apriel)"),
    ("co", "citation markup written as text (Command R7B)"),
    ("documents", "a prompt section"),
    // Sections of a system prompt.
    ("assistant_guidelines", "a prompt section"),
    ("available_modalities", "a prompt section"),
    ("function_usage", "a prompt section"),
    ("instruction_priority", "a prompt section"),
    ("memory_guidelines", "a prompt section"),
    ("role_description", "a prompt section"),
    ("code_quality", "a prompt section"),
    ("efficiency", "a prompt section"),
    ("environment_setup", "a prompt section"),
    ("file_system_guidelines", "a prompt section"),
    ("important", "a prompt section"),
    ("problem_solving_workflow", "a prompt section"),
    ("pull_requests", "a prompt section"),
    ("security", "a prompt section"),
    ("troubleshooting", "a prompt section"),
    ("version_control", "a prompt section"),
    // Placeholders in tool-use instructions.
    ("function_arguments_in_json_format", "a placeholder"),
];

/// The peer templates, if the peer material is beside the repository (or
/// beside a folder above it, as for a worktree).
fn templates_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().ok()?;
    root.ancestors()
        .skip(1)
        .map(|dir| dir.join("shared/peer/chat-templates/templates"))
        .find(|dir| dir.is_dir())
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | ':' | '/' | '▁')
}

/// The name made of name characters at the start of `rest`, if it is 1 to
/// 64 characters long.
fn name_at(rest: &str) -> Option<&str> {
    let end = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
    let name = &rest[..end];
    (!name.is_empty() && name.chars().count() <= 64).then_some(name)
}

/// Every spelling in `text` shaped like a special token.
fn special_looking(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, c) in text.char_indices() {
        let rest = &text[at..];
        let after = &rest[c.len_utf8()..];
        match c {
            '<' => {
                if let Some(inner) = after.strip_prefix('<')
                    && let Some(name) = name_at(inner)
                    && inner[name.len()..].starts_with(">>")
                {
                    found.push(format!("<<{name}>>"));
                } else if let Some(inner) = after.strip_prefix('|')
                    && let Some(name) = name_at(inner)
                {
                    let tail = &inner[name.len()..];
                    if tail.starts_with("|>") {
                        found.push(format!("<|{name}|>"));
                    } else if tail.starts_with('>') {
                        found.push(format!("<|{name}>"));
                    }
                } else if let Some(inner) = after.strip_prefix('｜')
                    && let Some(name) = name_at(inner)
                    && inner[name.len()..].starts_with("｜>")
                {
                    found.push(format!("<｜{name}｜>"));
                } else if let Some(name) = name_at(after)
                    && !rest.starts_with("<<")
                    && !text[..at].ends_with('<')
                {
                    let tail = &after[name.len()..];
                    let bare = name.trim_start_matches('/');
                    let tag = !bare.is_empty()
                        && bare.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                        && !bare.contains(['.', '/', '-'])
                        && !PROMPT_TEXT_TAGS.iter().any(|(tag, _)| bare.eq_ignore_ascii_case(tag));
                    if tail.starts_with("|>") {
                        found.push(format!("<{name}|>"));
                    } else if tail.starts_with('>') && tag {
                        found.push(format!("<{name}>"));
                    }
                }
            }
            '[' => {
                if let Some(inner) = after.strip_prefix('|')
                    && let Some(name) = name_at(inner)
                    && inner[name.len()..].starts_with("|]")
                {
                    found.push(format!("[|{name}|]"));
                } else if rest.starts_with("[e~[") {
                    found.push("[e~[".to_owned());
                } else if let Some(name) = name_at(after)
                    && after[name.len()..].starts_with(']')
                {
                    // `[INST]`, `[/INST]`, `[gMASK]`: capitals after an
                    // optional lowercase letter; `[i]` and `[Dict]` are code.
                    let bare = name.trim_start_matches('/');
                    let body = bare.strip_prefix(|c: char| c.is_ascii_lowercase()).unwrap_or(bare);
                    if body.len() >= 2
                        && body.starts_with(|c: char| c.is_ascii_uppercase())
                        && body
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    {
                        found.push(format!("[{name}]"));
                    }
                }
            }
            ']' => {
                for bare in ["]~!b[", "]~b]"] {
                    if rest.starts_with(bare) {
                        found.push(bare.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    found
}

#[test]
fn every_special_token_of_the_peer_templates_is_defanged() {
    let Some(dir) = templates_dir() else {
        eprintln!(
            "SKIPPED: the peer chat templates (../shared/peer/chat-templates/templates) are absent"
        );
        return;
    };
    let mut tokens: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("the templates folder reads") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "jinja") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).expect("a template is UTF-8");
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for token in special_looking(&text) {
            tokens.entry(token).or_default().push(file.clone());
        }
    }
    let mut missed = Vec::new();
    for (token, files) in &tokens {
        let once = sanitize(token);
        if once == *token {
            missed.push(format!("{token} (in {})", files[0]));
        } else if sanitize(&once) != once {
            missed.push(format!("{token}: a second pass changed {once:?}"));
        }
    }
    eprintln!("{} special-looking tokens in {files} templates", tokens.len());
    // The peer set holds over a hundred templates and every family: a scan
    // that finds little has gone wrong.
    assert!(files >= 100 && tokens.len() >= 150, "{files} files, {} tokens", tokens.len());
    assert!(missed.is_empty(), "not defanged:\n{}", missed.join("\n"));
}

#[test]
fn the_scan_finds_every_shape() {
    let text = "{{ '<|im_start|>' }}<<SYS>> <｜User｜> <|turn> <turn|> [|user|] [INST] [/INST] \
                [gMASK] <start_of_turn> </think> ]~b] [e~[ ]~!b[ <seed:bos> \
                [i] [Dict] <name> <a-b> {{ x[0] }} <IMPORTANT>";
    assert_eq!(
        special_looking(text),
        [
            "<|im_start|>",
            "<<SYS>>",
            "<｜User｜>",
            "<|turn>",
            "<turn|>",
            "[|user|]",
            "[INST]",
            "[/INST]",
            "[gMASK]",
            "<start_of_turn>",
            "</think>",
            "]~b]",
            "[e~[",
            "]~!b[",
            "<seed:bos>",
        ]
    );
}
