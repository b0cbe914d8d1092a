//! Property tests. The `Llmutils` dialect is checked against `oracle`, a
//! line-for-line port of the Go source (slow and allocation-happy, but
//! obviously faithful); the `Standard` dialect against its own promises.

use std::borrow::Cow;
use std::collections::BTreeMap;

use prompt_comments::Dialect::{self, Llmutils, Standard};
use proptest::prelude::*;
use serde_json::json;

/// llmutils' processor.go, transcribed without cleverness.
mod oracle {
    use std::collections::BTreeMap;

    pub(crate) struct Processed {
        pub(crate) cleaned: String,
        pub(crate) params: BTreeMap<String, String>,
        pub(crate) metadata: BTreeMap<String, String>,
        pub(crate) flow: String,
        pub(crate) node: String,
        pub(crate) tags: Vec<String>,
    }

    pub(crate) fn process(content: &str) -> Processed {
        let mut cleaned_lines = Vec::new();
        let mut params = BTreeMap::new();
        let mut metadata = BTreeMap::new();
        let mut tags = Vec::new();
        let (mut flow, mut node) = (String::new(), String::new());
        for line in content.split('\n') {
            let Some(pos) = find_comment_position(line) else {
                cleaned_lines.push(line.to_owned());
                continue;
            };
            let (before, after) = (&line[..pos], &line[pos + 3..]);
            let trimmed = after.trim();
            if let Some(rest) = trimmed.strip_prefix("param:") {
                for pair in rest.trim().split(',') {
                    let pair = pair.trim();
                    if pair.is_empty() {
                        continue;
                    }
                    let parts: Vec<&str> = pair.splitn(2, '=').collect();
                    if parts.len() != 2 {
                        continue;
                    }
                    if !parts[0].trim().is_empty() {
                        params.insert(parts[0].trim().to_owned(), parts[1].trim().to_owned());
                    }
                }
            } else if let Some((key, value)) = metadata_match(trimmed) {
                let key = key.to_lowercase();
                let value = value.trim().to_owned();
                metadata.insert(key.clone(), value.clone());
                match key.as_str() {
                    "flow" => flow = value,
                    "node" => node = value,
                    "tag" | "tags" => {
                        for tag in value.split(',') {
                            if !tag.trim().is_empty() {
                                tags.push(tag.trim().to_owned());
                            }
                        }
                    }
                    _ => {}
                }
            }
            if before.trim().is_empty() {
                continue;
            }
            cleaned_lines.push(before.trim_end_matches([' ', '\t']).to_owned());
        }
        if !flow.is_empty() {
            tags.push(format!("flow:{flow}"));
        }
        if !node.is_empty() {
            tags.push(format!("node:{node}"));
        }
        Processed { cleaned: cleaned_lines.join("\n"), params, metadata, flow, node, tags }
    }

    /// `^\s*(\w+):\s*(.+)$` on already trimmed text (RE2: ASCII classes,
    /// `.` is anything but `\n`).
    fn metadata_match(s: &str) -> Option<(&str, &str)> {
        let key_end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
        if key_end == 0 || !s[key_end..].starts_with(':') {
            return None;
        }
        let value = s[key_end + 1..].trim_start_matches(['\t', '\n', '\x0c', '\r', ' ']);
        let value = if value.is_empty() { &s[key_end + 1..] } else { value };
        if value.is_empty() || value.contains('\n') {
            return None;
        }
        Some((&s[..key_end], value))
    }

    fn find_comment_position(line: &str) -> Option<usize> {
        let mut pos = 0;
        loop {
            let abs = pos + line[pos..].find("///")?;
            if !is_part_of_url(line.as_bytes(), abs) {
                return Some(abs);
            }
            pos = abs + 3;
        }
    }

    fn is_part_of_url(line: &[u8], at: usize) -> bool {
        (at >= 5 && line[at - 5..at].eq_ignore_ascii_case(b"http:"))
            || (at >= 6 && line[at - 6..at].eq_ignore_ascii_case(b"https:"))
    }

    pub(crate) fn strip_comments(content: &str) -> String {
        if content.is_empty() {
            return String::new();
        }
        let mut result = Vec::new();
        for line in content.split('\n') {
            let cleaned = if line.trim_start_matches([' ', '\t']).starts_with("///") {
                ""
            } else {
                match find_comment_position(line) {
                    None => line,
                    Some(pos) => line[..pos].trim_end_matches([' ', '\t']),
                }
            };
            if !cleaned.trim().is_empty() {
                result.push(cleaned);
            }
        }
        result.join("\n")
    }
}

/// Pieces that exercise every rule: markers, URLs, escapes, code, fences,
/// line endings, Unicode whitespace, multi-byte characters, directives.
const PIECES: &[&str] = &[
    "///",
    "/",
    "//",
    "\\",
    "`",
    "```",
    "~~~",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "\u{a0}",
    "\u{2003}",
    "http:",
    "HTTPS:",
    "file:",
    "s3:",
    "x.com",
    ":",
    "a",
    "Word",
    "é",
    "名前",
    "😀",
    "flow: f",
    "node:n",
    "tag: a, b",
    "tags:",
    "param: k=v, x = 1,y",
    "PARAM: p=1",
    "Note: n",
    "=",
    ",",
];

/// Text made of up to 40 of `pieces`.
fn text_of(pieces: Vec<&'static str>) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), 0..40).prop_map(|pieces| pieces.concat())
}

fn prompt() -> impl Strategy<Value = String> {
    text_of(PIECES.to_vec())
}

/// Like [`prompt`], without anything one of the differences reacts to: no
/// `\r`, no backslash, no backtick or tilde, no scheme-like colon (one not
/// followed by a space), no upper-case `PARAM:`, no byte order mark, and no
/// `///` glued to the character before it (a space goes before each).
fn prompt_outside_the_differences() -> impl Strategy<Value = String> {
    let neutral = |piece: &&str| {
        !piece.contains(['\r', '\\', '`', '~'])
            && (!piece.contains(':') || piece.contains(": "))
            && !piece.starts_with("PARAM")
    };
    text_of(PIECES.iter().copied().filter(neutral).collect())
        .prop_map(|text| text.replace("///", " ///"))
}

/// A JSON message array built from pieces, and what `strip_messages_json`
/// must make of it in `dialect`: the same text with each strippable string
/// literal replaced by its stripped text (when that differs), every other
/// byte the same.
fn messages_json(messages: &[(String, &str, String, bool)], dialect: Dialect) -> (String, String) {
    let (mut input, mut expected) = (String::from("[ "), String::from("[ "));
    // Appends the literal of `text` (one char escaped as `\uXXXX`, which an
    // untouched literal keeps), and what stripping should leave.
    let literal = |input: &mut String, expected: &mut String, text: &str, strips: bool| {
        let mut lit = serde_json::to_string(text).unwrap();
        if let Some(i) = lit.find('a') {
            lit.replace_range(i..=i, "\\u0061");
        }
        input.push_str(&lit);
        let stripped = dialect.strip(text);
        if strips && stripped != text {
            expected.push_str(&serde_json::to_string(&stripped).unwrap());
        } else {
            expected.push_str(&lit);
        }
    };
    for (i, (space, number, text, as_parts)) in messages.iter().enumerate() {
        let frame = format!(
            "{}{{{space}\"id\"{space}:{space}{number}{space},{space}\"content\"{space}:{space}",
            if i > 0 { "," } else { "" }
        );
        input.push_str(&frame);
        expected.push_str(&frame);
        if *as_parts {
            let open = format!("[{space}{{\"type\":{space}\"text\", \"text\":{space}");
            input.push_str(&open);
            expected.push_str(&open);
            literal(&mut input, &mut expected, text, dialect == Standard);
            let middle = "}, {\"type\": \"image_url\", \"text\": ";
            input.push_str(middle);
            expected.push_str(middle);
            literal(&mut input, &mut expected, text, false);
            input.push_str("}]");
            expected.push_str("}]");
        } else {
            literal(&mut input, &mut expected, text, true);
        }
        let close = format!("{space}}}");
        input.push_str(&close);
        expected.push_str(&close);
    }
    input.push_str(" ]\n");
    expected.push_str(" ]\n");
    (input, expected)
}

fn map(m: &BTreeMap<String, String>) -> Vec<(&str, &str)> {
    m.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn llmutils_process_matches_the_go_port(text in prompt()) {
        let ours = Llmutils.process(&text);
        let go = oracle::process(&text);
        prop_assert_eq!(ours.cleaned.as_ref(), go.cleaned.as_str());
        prop_assert_eq!(map(&ours.params), map(&go.params));
        prop_assert_eq!(map(&ours.metadata), map(&go.metadata));
        prop_assert_eq!(&ours.flow, &go.flow);
        prop_assert_eq!(&ours.node, &go.node);
        prop_assert_eq!(&ours.tags, &go.tags);
    }

    #[test]
    fn llmutils_strip_matches_the_go_port(text in prompt()) {
        prop_assert_eq!(Llmutils.strip(&text).into_owned(), oracle::strip_comments(&text));
    }

    #[test]
    fn arbitrary_strings_are_handled_like_go(text in any::<String>()) {
        prop_assert_eq!(Llmutils.process(&text).cleaned.into_owned(), oracle::process(&text).cleaned);
        prop_assert_eq!(Llmutils.strip(&text).into_owned(), oracle::strip_comments(&text));
        // Standard accepts everything too, and never grows the text.
        prop_assert!(Standard.process(&text).cleaned.len() <= text.len());
    }

    #[test]
    fn text_without_markers_comes_back_borrowed(text in prompt()) {
        let mut text = text;
        while text.contains("///") {
            text = text.replace("///", "/ /");
        }
        for dialect in Dialect::ALL {
            let cleaned = dialect.process(&text).cleaned;
            prop_assert!(matches!(cleaned, Cow::Borrowed(t) if t == text));
        }
        prop_assert!(matches!(Standard.strip(&text), Cow::Borrowed(t) if t == text));
        let messages = [json!({"role": "user", "content": text})];
        prop_assert_eq!(Standard.strip_messages(&messages), messages);
    }

    #[test]
    fn standard_is_stable_when_processed_again(text in prompt()) {
        // Escapes aside: removing a backslash can turn `\///` into a marker.
        let text = text.replace('\\', "");
        let once = Standard.process(&text).cleaned.into_owned();
        let twice = Standard.process(&once);
        prop_assert_eq!(twice.cleaned.as_ref(), once.as_str());
        prop_assert!(twice.params.is_empty() && twice.metadata.is_empty());
    }

    #[test]
    fn standard_never_mixes_line_endings(text in prompt()) {
        // A text whose lines all end in CRLF keeps doing so.
        let text = text.replace('\r', "").replace('\n', "\r\n");
        let cleaned = Standard.process(&text).cleaned;
        prop_assert_eq!(cleaned.matches('\n').count(), cleaned.matches("\r\n").count());
    }

    #[test]
    fn the_dialects_agree_outside_the_nine_differences(text in prompt_outside_the_differences()) {
        // Difference 9 only adds warnings: everything else agrees.
        let mut standard = Standard.process(&text);
        standard.warnings.clear();
        prop_assert_eq!(standard, Llmutils.process(&text));
        // Only difference 5 (blank lines) separates the two strips here.
        let without_blank_lines = Standard
            .strip(&text)
            .split('\n')
            .filter(|line| !line.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        prop_assert_eq!(without_blank_lines, Llmutils.strip(&text).into_owned());
    }

    #[test]
    fn strip_and_process_agree_in_standard(text in prompt()) {
        prop_assert_eq!(Standard.strip(&text), Standard.process(&text).cleaned);
    }

    /// `strip_messages_json` keeps every byte outside the string literals
    /// it strips (numbers of any size, escapes, layout), and replaces each
    /// strippable literal (a string content; in Standard, a text part's
    /// text) by exactly what `Dialect::strip` makes of it.
    #[test]
    fn strip_messages_json_keeps_every_other_byte(
        messages in prop::collection::vec(
            (
                prop::sample::select(vec!["", " ", "\n  ", "\t"]).prop_map(str::to_owned),
                prop::sample::select(vec![
                    "7",
                    "123456789012345678901234567890",
                    "-98765432109876543210.50",
                    "1.50",
                    "1E400",
                ]),
                prompt(),
                any::<bool>(),
            ),
            0..6,
        ),
    ) {
        for dialect in Dialect::ALL {
            let (input, expected) = messages_json(&messages, dialect);
            let output = dialect.strip_messages_json(&input).unwrap();
            prop_assert_eq!(&output, &expected);
        }
    }
}

/// Every byte of `output` is the byte of `input` that `deletions` maps it
/// to, and the end maps to the end: the deletions are exactly what the
/// cleaning removed.
fn deletions_map_back(
    input: &str,
    output: &str,
    deletions: &prompt_core::text::Deletions,
) -> Result<(), TestCaseError> {
    for (offset, c) in output.char_indices() {
        let back = deletions.to_input(offset);
        prop_assert_eq!(input.get(back..).and_then(|rest| rest.chars().next()), Some(c));
    }
    prop_assert_eq!(deletions.to_input(output.len()), input.len());
    prop_assert_eq!(output.len() + deletions.deleted(), input.len());
    for span in deletions.spans() {
        prop_assert!(input.get(span.range()).is_some(), "{span:?} cuts a character");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `Processed::deletions` and `strip_with_deletions` map every
    /// character of the result to the same character of the input, in both
    /// dialects (llmutils' strip drops blank lines: deletions too).
    #[test]
    fn every_output_offset_maps_to_the_same_character(text in prompt()) {
        for dialect in Dialect::ALL {
            let processed = dialect.process(&text);
            deletions_map_back(&text, &processed.cleaned, &processed.deletions)?;
            let (stripped, deletions) = dialect.strip_with_deletions(&text);
            prop_assert_eq!(&stripped, &dialect.strip(&text));
            deletions_map_back(&text, &stripped, &deletions)?;
            let metadata = dialect.extract_metadata(&text);
            deletions_map_back(&text, &metadata.cleaned, &metadata.deletions)?;
        }
    }

    /// Each directive's span slices to what was written for it: `key: value`
    /// of a metadata comment, `key=value` of a param piece, on a line that
    /// holds a `///` before it; and the directives are in text order.
    #[test]
    fn directive_spans_slice_to_the_directive(text in prompt()) {
        use prompt_comments::DirectiveKind;

        for dialect in Dialect::ALL {
            let processed = dialect.process(&text);
            let mut last_end = 0;
            for directive in &processed.directives {
                let written = &text[directive.span.range()];
                let separator = match directive.kind {
                    DirectiveKind::Param => '=',
                    DirectiveKind::Metadata => ':',
                    _ => unreachable!(),
                };
                let (key, value) = written.split_once(separator).unwrap();
                let key = key.trim();
                match directive.kind {
                    DirectiveKind::Param => prop_assert_eq!(key, &directive.key),
                    _ => prop_assert_eq!(key.to_ascii_lowercase(), directive.key.as_ref()),
                }
                prop_assert_eq!(value.trim(), directive.value.as_ref());
                prop_assert_eq!(written.trim(), written);
                let line_start = text[..directive.span.start].rfind('\n').map_or(0, |i| i + 1);
                prop_assert!(text[line_start..directive.span.start].contains("///"));
                prop_assert!(directive.span.start >= last_end);
                last_end = directive.span.end;
                let recorded = match directive.kind {
                    DirectiveKind::Param => &processed.params,
                    _ => &processed.metadata,
                };
                prop_assert!(recorded.contains_key(directive.key.as_ref()));
            }
            // The last directive of each key holds the value the result kept.
            for (key, value) in &processed.params {
                let last = processed
                    .directives
                    .iter()
                    .rfind(|d| d.kind == DirectiveKind::Param && d.key == key.as_str());
                prop_assert_eq!(last.map(|d| d.value.as_ref()), Some(value.as_str()));
            }
        }
    }

    /// Each warning's span is the repeated param key, as written.
    #[test]
    fn warnings_point_at_the_repeated_key(text in prompt()) {
        let processed = Standard.process(&text);
        for warning in &processed.warnings {
            prop_assert_eq!(&text[warning.span().range()], warning.key());
        }
    }
}
