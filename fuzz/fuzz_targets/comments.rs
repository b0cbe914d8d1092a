//! `prompt_comments`: `process`, `strip` and the directive readers in both
//! dialects, over arbitrary text, and `strip_messages_json` over it as a
//! JSON document. The first byte picks the dialect.
//!
//! Checked beyond "no panic": the cleaned text is never longer than the
//! input, and input without `///` (or a leading byte order mark, in
//! Standard) comes back unchanged; every warning points inside the text;
//! `strip_messages_json` returns JSON never longer than the input, and the
//! input itself when it holds no `///`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use prompt_comments::Dialect;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let dialect = if selector & 1 == 0 { Dialect::Standard } else { Dialect::Llmutils };

    let processed = dialect.process(text);
    assert!(processed.cleaned.len() <= text.len(), "process grew the text");
    let stripped = dialect.strip(text);
    assert!(stripped.len() <= text.len(), "strip grew the text");
    if !text.contains("///") && !text.starts_with('\u{feff}') {
        assert_eq!(processed.cleaned, text, "text without a marker changed");
    }
    for warning in &processed.warnings {
        let span = warning.span();
        assert_eq!(text.get(span.range()), Some(warning.key()), "a warning not at its key");
    }
    for (offset, c) in processed.cleaned.char_indices() {
        let back = processed.deletions.to_input(offset);
        assert_eq!(text[back..].chars().next(), Some(c), "a deletion maps to another character");
    }
    for directive in &processed.directives {
        assert!(text.get(directive.span.range()).is_some(), "a directive span outside the text");
    }

    if let Ok(json) = dialect.strip_messages_json(text) {
        assert!(json.len() <= text.len(), "strip_messages_json grew the text");
        let raw: Result<&serde_json::value::RawValue, _> = serde_json::from_str(&json);
        assert!(raw.is_ok(), "strip_messages_json returned no JSON: {json}");
        if !text.contains("///") {
            let source = text.strip_prefix('\u{feff}').unwrap_or(text);
            assert_eq!(json, source, "JSON without a marker changed");
        }
    }
    let _params = dialect.extract_params(text);
    let _metadata = dialect.extract_metadata(text);

    // The same text as a message, in string and in parts form.
    let mut messages = vec![
        serde_json::json!({"role": "user", "content": text}),
        serde_json::json!({"role": "user", "content": [{"type": "text", "text": text}]}),
    ];
    dialect.strip_messages_in_place(&mut messages);
});
