//! `prompt_comments`: `process`, `strip` and the directive readers in both
//! dialects, over arbitrary text. The first byte picks the dialect.
//!
//! Checked beyond "no panic": the cleaned text is never longer than the
//! input, and input without `///` comes back unchanged.

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
    if !text.contains("///") {
        assert_eq!(processed.cleaned, text, "text without a marker changed");
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
