//! `transcript_flip`: `flip_json` and `alternate_json` from arbitrary JSON,
//! then `ensure_alternating` over what they return, and `sanitize` over the
//! raw text, in both modes. The first byte picks the mode and options.
//!
//! Checked beyond "no panic": `ensure_alternating` output never has two
//! neighbours with the same role and is a fixed point; `alternate_json`
//! returns JSON messages whose every number is written as in the input; a
//! sanitized text is left alone by a second pass (Standard mode).

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use transcript_flip::{
    FlipOptions, Label, Message, Dialect, SpeakerName, alternate_json, ensure_alternating_with,
    flip_json, sanitize_with, turns_from_json,
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let mode = if selector & 1 == 0 { Dialect::Standard } else { Dialect::Llmr };
    let speaker_name = match (selector >> 1) & 3 {
        0 => SpeakerName::Label,
        1 => SpeakerName::Field,
        _ => SpeakerName::Both,
    };
    let mut options = FlipOptions::new()
        .with_dialect(mode)
        .with_speaker_name(speaker_name)
        .with_sanitize(selector & 8 == 0)
        .with_ensure_final_user(selector & 16 == 0);
    if selector & 32 != 0 {
        options = options.with_system("You are {speaker}.").with_instruction("Your turn.");
    }
    if selector & 64 != 0 {
        options = options.with_label(Label::template("[{speaker}] {speaker}: "));
    }

    // Flip as every speaker the transcript names (at most a few).
    if let Ok(turns) = turns_from_json(text) {
        let mut speakers: Vec<&str> = turns.iter().map(|turn| turn.speaker.as_str()).collect();
        speakers.dedup();
        speakers.truncate(4);
        for speaker in speakers {
            if let Ok(messages) = flip_json(text, &Value::from(speaker), &options) {
                check_alternating(messages, mode);
            }
        }
    }
    let _ = flip_json(text, &Value::from("Ana"), &options);
    if let Ok(json) = alternate_json(text, mode) {
        // The output is JSON, and no number in it was rewritten.
        let raw: Result<Vec<&serde_json::value::RawValue>, _> = serde_json::from_str(&json);
        assert!(raw.is_ok(), "alternate_json returned no JSON array: {json}");
        for number in number_tokens(&json) {
            assert!(text.contains(number), "the number {number} is not in the input");
        }
        // A number serde_json cannot hold (`1e400`) passes through as written,
        // so only some outputs parse into messages.
        if let Ok(messages) = serde_json::from_str::<Vec<Message>>(&json) {
            check_alternating(messages, mode);
        }
    }

    let once = sanitize_with(text, mode);
    if mode == Dialect::Standard {
        let twice = sanitize_with(&once, mode);
        assert_eq!(once, twice, "sanitizing a sanitized text changed it");
    }
});

fn check_alternating(messages: Vec<Message>, mode: Dialect) {
    let Ok(fixed) = ensure_alternating_with(messages, mode) else { return };
    for pair in fixed.windows(2) {
        if pair[0].role.is_some() {
            assert!(pair[0].role != pair[1].role, "same-role neighbours survived: {pair:?}");
        }
    }
    let again = ensure_alternating_with(fixed.clone(), mode).expect("a fixed array stays valid");
    assert_eq!(again, fixed, "ensure_alternating is not a fixed point");
}

/// The number literals of a JSON text, outside strings.
fn number_tokens(json: &str) -> Vec<&str> {
    let bytes = json.as_bytes();
    let mut tokens = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'-' | b'0'..=b'9' if !in_string => {
                let start = i;
                while i + 1 < bytes.len()
                    && matches!(bytes[i + 1], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                tokens.push(&json[start..=i]);
            }
            _ => {}
        }
        i += 1;
    }
    tokens
}
