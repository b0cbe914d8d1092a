//! The `Standard` dialect's nine differences from llmutils, one test each,
//! every test showing both results side by side; then a check that nothing
//! else differs on the conformance cases.

use std::borrow::Cow;

use prompt_comments::Dialect::{Llmutils, Standard};
use prompt_comments::{Dialect, WarningKind, process, strip};
use serde_json::{Value, json};

/// `(llmutils, standard)` cleaned text of `text`.
fn both(text: &str) -> (String, String) {
    (Llmutils.process(text).cleaned.into_owned(), Standard.process(text).cleaned.into_owned())
}

#[test]
fn difference_1_a_glued_marker_is_text() {
    for url in ["file:///etc/hosts", "s3:///bucket/key", "ftp:///pub", "svn+ssh:///repo"] {
        let text = format!("Read {url} first /// why");
        let (llm, std) = both(&text);
        assert_eq!(std, format!("Read {url} first"));
        assert_eq!(llm, format!("Read {}", &url[..url.find("///").unwrap()]));
    }
    // A `///` inside a whitespace-free URL's path.
    assert_eq!(
        both("Raw at http://a.com///raw"),
        ("Raw at http://a.com".into(), "Raw at http://a.com///raw".into())
    );
    // A comment after the URL, with whitespace before it, is a comment.
    assert_eq!(Standard.process("http://a.com///x /// y").cleaned, "http://a.com///x");
    // Any `///` glued to the character before it is text (issue 17): a
    // base64 payload, a socket URL, a word, quotes.
    let base64 = "Key: MIIBCgKCAQEAeHD//////////3QAAHQ+AQAB /// rotate monthly";
    assert_eq!(
        both(base64),
        ("Key: MIIBCgKCAQEAeHD".into(), "Key: MIIBCgKCAQEAeHD//////////3QAAHQ+AQAB".into())
    );
    assert_eq!(
        both("Connect to unix:///run/docker.sock /// local only"),
        ("Connect to unix:".into(), "Connect to unix:///run/docker.sock".into())
    );
    for glued in ["a.com///x", "1:///x", "word///note", "\"///\" in quotes", "日本///語"] {
        assert_eq!(Standard.process(glued).cleaned, glued);
    }
    // A marker starts a line (after any whitespace) or follows whitespace,
    // Unicode whitespace included; what precedes it is kept as before.
    assert_eq!(Standard.process("  /// note\nText").cleaned, "Text");
    assert_eq!(Standard.process("Text\u{3000}/// note").cleaned, "Text\u{3000}");
    assert_eq!(Standard.process("Text\u{a0}/// note").cleaned, "Text\u{a0}");
}

#[test]
fn difference_2_markdown_code_is_text() {
    assert_eq!(both("Use `///` for docs /// aside"), ("Use `".into(), "Use `///` for docs".into()));
    assert_eq!(Standard.process("Use ``a ` /// b`` here").cleaned, "Use ``a ` /// b`` here");
    // An unmatched backtick is literal, so the comment is still one.
    assert_eq!(Standard.process("a ` b /// c").cleaned, "a ` b");

    let fenced = "Example: /// intro\n```rust\n/// Adds one.\nfn inc(x: u32) -> u32 { x + 1 } /// body\n```\n/// after the fence\nDone.";
    let expected =
        "Example:\n```rust\n/// Adds one.\nfn inc(x: u32) -> u32 { x + 1 } /// body\n```\nDone.";
    assert_eq!(Standard.process(fenced).cleaned, expected);
    assert_eq!(
        Llmutils.process(fenced).cleaned,
        "Example:\n```rust\nfn inc(x: u32) -> u32 { x + 1 }\n```\nDone."
    );

    // Tildes; a shorter run does not close, a longer one does.
    let tildes = "~~~~ /// opening note\n/// code\n~~~\n/// still code\n~~~~~\n/// comment";
    assert_eq!(Standard.process(tildes).cleaned, "~~~~\n/// code\n~~~\n/// still code\n~~~~~");
    // An unclosed fence runs to the end, as in CommonMark.
    assert_eq!(Standard.process("```\n/// kept").cleaned, "```\n/// kept");
}

#[test]
fn difference_3_backslash_escapes_the_marker() {
    let text = r"Reply with \/// when done /// note";
    assert_eq!(Standard.process(text).cleaned, "Reply with /// when done");
    assert_eq!(Llmutils.process(text).cleaned, r"Reply with \");
    assert_eq!(Standard.process(r"\/// not a comment").cleaned, "/// not a comment");
    assert_eq!(Standard.process(r"a\////b").cleaned, "a////b");
    // Code is verbatim: the backslash stays.
    assert_eq!(Standard.process(r"`\///`").cleaned, r"`\///`");
    // A literal backslash before a comment: put a space between them.
    assert_eq!(Standard.process(r"C:\ /// drive").cleaned, r"C:\");
}

#[test]
fn difference_4_crlf_is_a_line_ending() {
    let text = "/// flow: crlf\r\nHello\r\nWorld /// c\r\nEnd\r\n";
    let (llm, std) = both(text);
    assert_eq!(llm, "Hello\r\nWorld\nEnd\r\n");
    assert_eq!(std, "Hello\r\nWorld\r\nEnd\r\n");
    assert_eq!(Standard.process(text).flow, "crlf");
    assert_eq!(Llmutils.strip("A\r\n\r\nB /// c\r\nC\r\n"), "A\r\nB\nC\r");
    assert_eq!(Standard.strip("A\r\n\r\nB /// c\r\nC\r\n"), "A\r\n\r\nB\r\nC\r\n");
    // Dropping the last line drops the ending before it, whole.
    assert_eq!(Standard.process("A\r\n/// c").cleaned, "A");
    assert_eq!(Llmutils.process("A\r\n/// c").cleaned, "A\r");
}

#[test]
fn difference_5_strip_keeps_blank_lines() {
    let text = "Para one. /// draft\n\n/// a note between paragraphs\nPara two.\n";
    assert_eq!(Llmutils.strip(text), "Para one.\nPara two.");
    assert_eq!(Standard.strip(text), "Para one.\n\nPara two.\n");
    assert_eq!(Standard.strip(text), Standard.process(text).cleaned);
    let plain = "\n\nPara one.\n\n   \nPara two.\n\n";
    assert!(matches!(Standard.strip(plain), Cow::Borrowed(same) if same == plain));
    assert_eq!(Llmutils.strip(plain), "Para one.\nPara two.");
}

#[test]
fn difference_6_text_parts_of_array_content_are_stripped() {
    let messages = [json!({"role": "user", "content": [
        {"type": "text", "text": "Describe this. /// be terse"},
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
        {"type": "input_text", "text": "other /// part types are untouched"}
    ]})];
    assert_eq!(Llmutils.strip_messages(&messages), messages);
    let stripped = Standard.strip_messages(&messages);
    assert_eq!(stripped[0]["content"][0]["text"], "Describe this.");
    assert_eq!(stripped[0]["content"][1], messages[0]["content"][1]);
    assert_eq!(stripped[0]["content"][2], messages[0]["content"][2]);
}

#[test]
fn difference_7_param_is_case_insensitive() {
    let text = "/// PARAM: temperature=0.2\n/// Param: top_p=0.9\nHi";
    let llm = Llmutils.process(text);
    assert!(llm.params.is_empty());
    assert_eq!(llm.metadata["param"], "top_p=0.9");
    let std = Standard.process(text);
    assert_eq!(std.params["temperature"], "0.2");
    assert_eq!(std.params["top_p"], "0.9");
    assert!(std.metadata.is_empty());
}

#[test]
fn difference_8_a_byte_order_mark_is_not_text() {
    let text = "\u{feff}/// flow: support\nHello /// c\n";
    let llm = Llmutils.process(text);
    // llmutils keeps the mark, so the first comment is an inline one and
    // leaves the mark on a line of its own.
    assert_eq!(llm.cleaned, "\u{feff}\nHello\n");
    let std = Standard.process(text);
    assert_eq!(std.cleaned, "Hello\n");
    assert_eq!((llm.flow.as_str(), std.flow.as_str()), ("support", "support"));
    assert_eq!(Standard.strip("\u{feff}plain"), "plain");
    assert!(matches!(Standard.strip("\u{feff}plain"), Cow::Borrowed(_)));
    assert_eq!(Llmutils.strip("\u{feff}plain"), "\u{feff}plain");
}

#[test]
fn difference_9_a_changed_param_is_a_warning() {
    let text = "/// param: temperature=0.2, model=m\nHi\n/// param: model=m\n  /// param: temperature=0.9\n";
    let llm = Llmutils.process(text);
    let std = Standard.process(text);
    // The last value wins in both; only Standard says so.
    assert_eq!(
        (llm.params["temperature"].as_str(), std.params["temperature"].as_str()),
        ("0.9", "0.9")
    );
    assert!(llm.warnings.is_empty());
    let warnings: Vec<_> = std
        .warnings
        .iter()
        .map(|w| {
            let at = prompt_core::text::position(text, w.span().start);
            (w.kind(), w.key(), at.line, at.column)
        })
        .collect();
    assert_eq!(warnings, [(WarningKind::DuplicateParam, "temperature", 4, 14)]);
}

#[test]
fn the_free_functions_use_standard() {
    let text = "file:///x /// c\r\n\r\nB";
    assert_eq!(process(text), Dialect::default().process(text));
    assert_eq!(strip(text), Standard.strip(text));
}

/// The conformance cases whose `Standard` result differs from llmutils',
/// with the difference responsible. Every other case must match exactly.
const EXPECTED_TO_DIFFER: &[(&str, u8)] = &[
    ("process: file:/// is NOT protected — cut at the ///", 1),
    (
        "process: CRLF — split on LF only; CR kept on untouched lines, lost where an inline comment was cut",
        4,
    ),
    ("process: /// inside quotes or backticks is still a comment (no escape)", 2),
    ("process: marker glued to a word still starts a comment", 1),
    ("strip: leading and trailing newlines removed", 5),
    ("strip: CRLF — CR-only lines dropped, CR kept on plain lines", 4),
    ("strip: file:/// cut at the ///", 1),
];

#[test]
fn standard_differs_from_llmutils_only_where_documented() {
    let fixtures: Value = serde_json::from_str(include_str!("conformance/comments.json")).unwrap();
    let mut differing = Vec::new();
    for case in fixtures["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let input = &case["input"];
        let same = match case["fn"].as_str().unwrap() {
            "process" | "extract_params" => {
                let text = input.as_str().unwrap();
                Llmutils.process(text) == Standard.process(text)
            }
            "strip" => {
                let text = input.as_str().unwrap();
                Llmutils.strip(text) == Standard.strip(text)
            }
            "strip_messages" => {
                let messages = input.as_array().unwrap();
                Llmutils.strip_messages(messages) == Standard.strip_messages(messages)
            }
            other => panic!("unknown fn {other}"),
        };
        if !same {
            differing.push(name);
        }
    }
    let expected: Vec<&str> = EXPECTED_TO_DIFFER.iter().map(|(name, _)| *name).collect();
    assert_eq!(differing, expected);
}
