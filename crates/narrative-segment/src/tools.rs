//! Tool calls and results written in a narrative (standard dialect): fenced
//! blocks whose info string names them.
//!
//! In an `assistant` turn, a block opened by ```` ```tool_call NAME ID ````
//! holds the call's JSON arguments (an object); in a `tool` turn, a block
//! opened by ```` ```tool_result ID ```` (or ```` ```tool_error ID ````, a
//! failed call) holds the result's text. The text around the blocks stays
//! text, in order. Fences are structure, so they are recognised only in
//! authored bytes: a fence line a value printed is text, and a value can
//! never open or close a block (what lies between the fences may be data:
//! a result a value fills in stays the result's text).

use std::sync::LazyLock;

use memchr::memmem;
use prompt_core::chat::{Part, Role};
use prompt_core::json::RawJson;

use crate::dialect::Dialect;
use crate::error::{Error, ErrorKind};
use crate::narrative::ResolvedNarrative;
use crate::role::TurnRole;
use crate::segment::Turn;
use crate::span::Span;

/// The prefix of every tool fence's info string, searched for once per turn
/// (what a build repeats per turn): built once, not per search, since
/// building a searcher costs more than searching a turn of prose.
static TOOL_PREFIX: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"tool_"));

/// The parts of `turn` when it holds tool blocks: its text split around
/// them, each block a [`Part::ToolCall`] or [`Part::ToolResult`], in order;
/// `None` when it holds none (or in the lmml dialect, which has no tool
/// blocks), so the turn's text stays one part.
///
/// ````
/// use narrative_segment::{Attachments, Dialect, Narrative, tool_parts};
/// use prompt_core::chat::Part;
///
/// let text = "## assistant\nChecking.\n```tool_call weather call_1\n{\"city\": \"Paris\"}\n```\n";
/// let resolved = Narrative::parse(text, Dialect::Standard).resolve(&Attachments::none())?;
/// let turns = resolved.segment();
/// let parts = tool_parts(&resolved, &turns[0])?.unwrap();
/// assert_eq!(parts[0], Part::text("Checking.\n"));
/// let Part::ToolCall { id, name, arguments } = &parts[1] else { unreachable!() };
/// assert_eq!((id.as_str(), name.as_str(), arguments.as_str()), ("call_1", "weather", r#"{"city": "Paris"}"#));
/// # Ok::<(), narrative_segment::Error>(())
/// ````
///
/// # Errors
///
/// [`ErrorKind::InvalidToolBlock`] at the block: a `tool_call` without a
/// name and an id (or a `tool_result` without an id, or with more words),
/// arguments that are not a JSON object (read strictly: a repeated key is
/// refused), a block never closed, a block in a turn of another role, or a
/// tool fence line that holds a value's bytes.
pub fn tool_parts(
    resolved: &ResolvedNarrative,
    turn: &Turn<'_>,
) -> Result<Option<Vec<Part>>, Error> {
    if resolved.narrative().dialect() != Dialect::Standard {
        return Ok(None);
    }
    let text = resolved.text();
    let data = resolved.narrative().data();
    let body = turn.span.slice(text);
    // Only a fence whose info string starts with `tool_` is a tool block
    // (or an error): without those bytes the turn is one text part, and
    // the line scan below (what a build repeats per turn) is skipped.
    if TOOL_PREFIX.find(body.as_bytes()).is_none() {
        return Ok(None);
    }
    let invalid = |span: Span, detail: String| {
        Error::new(ErrorKind::InvalidToolBlock).with_detail(detail).at(text, span)
    };
    let mut parts = Vec::new();
    let mut text_from = turn.span.start;
    let mut lines = Lines { text: body, at: 0, base: turn.span.start };
    // A code block that is not a tool block: its fence, until it closes.
    let mut other: Option<(u8, usize)> = None;
    while let Some(line) = lines.next() {
        let content = line.slice(text).trim_end();
        let Some((fence_char, fence_len, info)) = fence(content) else { continue };
        if let Some((open_char, open_len)) = other {
            if fence_char == open_char && fence_len >= open_len && info.is_empty() {
                other = None;
            }
            continue;
        }
        let kind = info.split_whitespace().next().unwrap_or("");
        if !matches!(kind, "tool_call" | "tool_result" | "tool_error") {
            if data.is_authored(line.start, line.start + fence_len) {
                other = Some((fence_char, fence_len));
            }
            continue;
        }
        if !data.is_authored(line.start, line.start + fence_len) {
            continue; // a value's fence: text
        }
        if !data.is_authored(line.start, line.end) {
            return Err(invalid(
                line,
                format!(
                    "the `{kind}` fence line holds a value; a tool block is written by the author"
                ),
            ));
        }
        let words: Vec<&str> = info.split_whitespace().collect();
        let role = match turn.role {
            TurnRole::Chat(role) => Some(role),
            TurnRole::Context => None,
        };
        let (wanted_role, wanted_words, usage) = match kind {
            "tool_call" => (Role::Assistant, 3, "`tool_call NAME ID`"),
            _ => (Role::Tool, 2, "`tool_result ID` or `tool_error ID`"),
        };
        if role != Some(wanted_role) {
            return Err(invalid(
                line,
                format!("a `{kind}` block belongs in a `{wanted_role}` turn"),
            ));
        }
        if words.len() != wanted_words {
            return Err(invalid(line, format!("the fence's info string is {usage}")));
        }
        // The block's body, up to an authored closing fence.
        let mut close = None;
        for inner in lines.by_ref() {
            let inner_content = inner.slice(text).trim_end();
            if let Some((c, len, rest)) = fence(inner_content)
                && c == fence_char
                && len >= fence_len
                && rest.is_empty()
                && data.is_authored(inner.start, inner.start + len)
            {
                close = Some(inner);
                break;
            }
        }
        let Some(close) = close else {
            return Err(invalid(line, format!("the `{kind}` block is never closed")));
        };
        let body_span = Span::new(end_with_newline(line, text), close.start);
        // The line ending before the closing fence belongs to the fence.
        let inner = body_span.slice(text);
        let inner =
            inner.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(inner);
        if line.start > text_from {
            parts.push(Part::text(&text[text_from..line.start]));
        }
        parts.push(match kind {
            "tool_call" => {
                let arguments =
                    RawJson::parse(inner).ok().filter(RawJson::is_object).ok_or_else(|| {
                        invalid(
                            body_span,
                            "the arguments of a `tool_call` block are one JSON object".to_owned(),
                        )
                    })?;
                Part::tool_call(words[2], words[1], arguments)
            }
            _ => Part::ToolResult {
                call_id: words[1].to_owned(),
                content: vec![Part::text(inner)],
                is_error: kind == "tool_error",
            },
        });
        text_from = end_with_newline(close, text);
    }
    if parts.is_empty() {
        return Ok(None);
    }
    if turn.span.end > text_from {
        parts.push(Part::text(&text[text_from..turn.span.end]));
    }
    Ok(Some(parts))
}

/// The fence character, the fence's length and the info string of a line
/// that opens or closes a fenced block (at least three backticks or tildes
/// at its start).
fn fence(line: &str) -> Option<(u8, usize, &str)> {
    let first = *line.as_bytes().first()?;
    if first != b'`' && first != b'~' {
        return None;
    }
    let len = line.bytes().take_while(|&b| b == first).count();
    (len >= 3).then(|| (first, len, line[len..].trim()))
}

/// The lines of a turn's text as spans of the narrative, without their
/// line endings.
struct Lines<'a> {
    text: &'a str,
    at: usize,
    base: usize,
}

impl Iterator for Lines<'_> {
    type Item = Span;

    fn next(&mut self) -> Option<Span> {
        if self.at >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.at..];
        let len = rest.find('\n').unwrap_or(rest.len());
        let line = Span::new(self.base + self.at, self.base + self.at + len);
        self.at += (len + 1).min(rest.len());
        Some(line)
    }
}

/// The end of `line` with its line feed, if one follows.
fn end_with_newline(line: Span, text: &str) -> usize {
    if text.as_bytes().get(line.end) == Some(&b'\n') { line.end + 1 } else { line.end }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::Attachments;
    use crate::narrative::Narrative;

    fn parts(text: &str, data: &[std::ops::Range<usize>]) -> Result<Vec<Option<Vec<Part>>>, Error> {
        let resolved = Narrative::parse_with_data(text, Dialect::Standard, data)
            .resolve(&Attachments::none())
            .unwrap();
        resolved.segment().iter().map(|turn| tool_parts(&resolved, turn)).collect()
    }

    #[test]
    fn results_and_errors_in_a_tool_turn() {
        let text = "## tool\r\n```tool_result c1\r\nline 1\r\nline 2\r\n```\r\n~~~~tool_error c2\n```\nboom\n~~~~\n";
        let turns = parts(text, &[]).unwrap();
        let parts = turns[0].as_ref().unwrap();
        assert_eq!(parts[0], Part::tool_result("c1", "line 1\r\nline 2"));
        assert_eq!(
            parts[1],
            Part::ToolResult {
                call_id: "c2".into(),
                content: vec![Part::text("```\nboom")],
                is_error: true
            }
        );
        assert_eq!(parts.len(), 2);
    }

    #[test]
    fn other_code_blocks_stay_text() {
        let text = "## assistant\n````md\n```tool_call f c1\n{}\n```\n````\n";
        assert_eq!(parts(text, &[]).unwrap(), [None]);
        let lmml = Narrative::parse("## assistant\n```tool_call f c\n{}\n```\n", Dialect::Lmml)
            .resolve(&Attachments::none())
            .unwrap();
        assert_eq!(tool_parts(&lmml, &lmml.segment()[0]).unwrap(), None);
    }

    #[allow(clippy::single_range_in_vec_init)] // one data range, not a range of them
    /// Data is never structure: a value's fence is text, and a value cannot
    /// close an authored block early; a value inside a block is its body.
    #[test]
    fn values_never_open_or_close_a_block() {
        let text = "## assistant\n```tool_call f c1\n{}\n```\n";
        assert_eq!(parts(text, &[13..text.len()]).unwrap(), [None]);
        let text = "## tool\n```tool_result c1\nok\n```\nmore\n```\n";
        let value = text.find("```\nmore").unwrap();
        let turns = parts(text, &[value..value + 4]).unwrap();
        assert_eq!(turns[0].as_ref().unwrap()[0], Part::tool_result("c1", "ok\n```\nmore"));
        // A value in the fence line's info string is refused, not read.
        let text = "## assistant\n```tool_call f c1\n{}\n```\n";
        let name = text.find("f c1").unwrap();
        let err = parts(text, &[name..name + 1]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidToolBlock);
        assert_eq!((err.line(), err.column()), (Some(2), Some(1)));
    }

    #[test]
    fn malformed_blocks_are_placed() {
        let cases = [
            ("## assistant\n```tool_call f\n{}\n```\n", 2, "`tool_call NAME ID`"),
            ("## assistant\nx\n```tool_call f c\n[1]\n```\n", 4, "one JSON object"),
            ("## assistant\n```tool_call f c\n{\"a\": 1, \"a\": 2}\n```\n", 3, "one JSON object"),
            ("## tool\n```tool_result c\nx\n", 2, "never closed"),
            ("## user\n```tool_call f c\n{}\n```\n", 2, "belongs in a `assistant` turn"),
            ("before\n```tool_result c\nx\n```\n", 2, "belongs in a `tool` turn"),
        ];
        for (text, line, detail) in cases {
            let err = parts(text, &[]).unwrap_err();
            assert_eq!(err.line(), Some(line), "{text}");
            assert!(err.to_string().contains(detail), "{text}: {err}");
        }
    }
}
