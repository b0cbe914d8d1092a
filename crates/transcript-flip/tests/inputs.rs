//! Snapshot tests over `tests/inputs/*.txt`, run in both modes.
//!
//! Each input is a JSON options line, a `---` line, then the JSON input
//! text. Options: `"fn"` (`"flip"`, the default, or `"alternate"`),
//! `"speaker"` (any JSON value), `"system"`, `"instruction"`, `"label"` (a
//! template), `"sanitize"`, `"ensure_final_user"`, `"speaker_name"`
//! (`"label"`, `"field"`, `"both"`). Inputs that must be rejected are named
//! `err_*`: they fail in `Standard` mode, the stricter one.

use std::fmt::Write as _;

use serde_json::Value;
use transcript_flip::{Dialect, FlipOptions, Label, SpeakerName, alternate_json, flip_json};

fn render(options: &Value, input: &str, mode: Dialect) -> String {
    let result = if options["fn"] == "alternate" {
        // Pretty-printed for reading (the inputs hold no number a float
        // would round).
        alternate_json(input, mode)
            .map(|json| serde_json::from_str::<Value>(&json).expect("alternate_json returns JSON"))
    } else {
        let mut flip = FlipOptions::new().with_dialect(mode);
        if let Some(system) = options["system"].as_str() {
            flip = flip.with_system(system);
        }
        if let Some(instruction) = options["instruction"].as_str() {
            flip = flip.with_instruction(instruction);
        }
        if let Some(label) = options["label"].as_str() {
            flip = flip.with_label(Label::template(label));
        }
        if let Some(sanitize) = options["sanitize"].as_bool() {
            flip = flip.with_sanitize(sanitize);
        }
        if let Some(ensure) = options["ensure_final_user"].as_bool() {
            flip = flip.with_ensure_final_user(ensure);
        }
        flip = flip.with_speaker_name(match options["speaker_name"].as_str() {
            Some("field") => SpeakerName::Field,
            Some("both") => SpeakerName::Both,
            _ => SpeakerName::Label,
        });
        flip_json(input, &options["speaker"], &flip)
            .map(|messages| serde_json::to_value(messages).expect("messages serialize"))
    };
    match result {
        Ok(messages) => serde_json::to_string_pretty(&messages).expect("messages serialize"),
        Err(err) => format!(
            "error[{}]: {}\nline {:?}, column {:?}, snippet {:?}",
            err.kind().as_str(),
            err.message(),
            err.line(),
            err.column(),
            err.snippet()
        ),
    }
}

#[test]
fn inputs() {
    insta::glob!("inputs/*.txt", |path| {
        let source = std::fs::read_to_string(path).expect("input is UTF-8");
        let (options, input) = source.split_once("\n---\n").expect("options, `---`, input");
        let options: Value = serde_json::from_str(options).expect("options line is JSON");
        let is_error_input =
            path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("err_"));
        let mut snapshot = String::new();
        for mode in [Dialect::Standard, Dialect::Llmr] {
            let output = render(&options, input, mode);
            // `Standard` is the stricter mode: an `err_` input fails there
            // (it may pass in `Llmr`), any other input passes there.
            if mode == Dialect::Standard {
                assert_eq!(output.starts_with("error["), is_error_input, "{}", path.display());
            }
            let _ = writeln!(snapshot, "== {mode:?} ==\n{output}");
        }
        insta::assert_snapshot!(snapshot);
    });
}
