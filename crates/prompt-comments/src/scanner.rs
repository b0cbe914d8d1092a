//! The one scanner both dialects and both cleanings run: it walks the text
//! line by line, finds each line's comment marker, feeds the comment to the
//! directive reader and assembles the cleaned text.
//!
//! # Line model
//!
//! A line ends at `\n` (llmutils) or at `\n` or `\r\n` (`Standard`); the
//! ending belongs to the line before it. The kept lines are joined by the
//! ending of the earlier one, exactly as llmutils' `strings.Join(lines,
//! "\n")` does, so dropping the last line also drops the ending before it.
//!
//! # Cost
//!
//! One `memmem` pass finds every `///`; text without one is returned
//! borrowed at once. Otherwise each line costs a `memchr` for its end and,
//! only when it holds a `///`, one scan of its bytes. Every byte is looked at
//! a bounded number of times, so the whole is linear.

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem;
use prompt_core::text::{Deletions, Span};

use crate::dialect::Dialect;
use crate::directives::{Directives, Place};
use crate::markdown::Fence;
use crate::marker::{LineScratch, find_marker};
use crate::output::Output;
use crate::trim::trim;

/// Which blank-line policy applies: `Process` keeps blank lines; llmutils'
/// `StripComments` drops them (see [`Dialect::strip_drops_blank_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cleaning {
    Process,
    Strip,
}

/// Removes the comments of `text`, reading their directives into
/// `directives` when given; returns the cleaned text and what was deleted
/// from `text` to make it (every offset is one of `text`, a byte order mark
/// included).
pub(crate) fn clean<'a>(
    text: &'a str,
    dialect: Dialect,
    cleaning: Cleaning,
    mut directives: Option<&mut Directives<'a>>,
) -> (Cow<'a, str>, Deletions) {
    // A byte order mark encodes the text; it is not part of the prompt.
    let bom = if dialect.ignores_byte_order_mark() && text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let bytes = text.as_bytes();
    let drop_blank_lines = cleaning == Cleaning::Strip && dialect.strip_drops_blank_lines();
    let mut candidates = memmem::find_iter(bytes, b"///").peekable();
    if candidates.peek().is_none() && !drop_blank_lines {
        let mut deletions = Deletions::new();
        deletions.push(Span::new(0, bom));
        return (Cow::Borrowed(&text[bom..]), deletions);
    }

    let mut out = Output::new(text);
    let mut scratch = LineScratch::default();
    let mut fence: Option<Fence> = None;
    // The ending of the last kept line: it goes out only if another follows.
    let mut pending_ending: Option<Range<usize>> = None;
    let mut start = bom;
    let mut line = 1;
    loop {
        let newline = memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i);
        let (content_end, line_end) = match newline {
            Some(newline) => {
                let crlf =
                    dialect.crlf_is_line_ending() && newline > start && bytes[newline - 1] == b'\r';
                (if crlf { newline - 1 } else { newline }, newline + 1)
            }
            None => (bytes.len(), bytes.len()),
        };
        let content = start..content_end;

        scratch.escapes.clear();
        let marker = match fence {
            Some(open) => {
                // Inside a fenced code block every line is kept as written.
                if open.is_closed_by(&bytes[content.clone()]) {
                    fence = None;
                }
                None
            }
            None => {
                if dialect.code_is_text() {
                    fence = Fence::opened_by(&bytes[content.clone()]);
                }
                find_marker(bytes, content, &mut candidates, dialect, &mut scratch)
            }
        };
        // Candidates on a fenced line, or after the marker, are not markers.
        while candidates.next_if(|&at| at < content_end).is_some() {}

        let kept_end = match marker {
            Some(at) => {
                if let Some(directives) = directives.as_deref_mut() {
                    let place = Place { text, line };
                    directives.read(&text[at + 3..content_end], dialect, place);
                }
                let blanks =
                    bytes[start..at].iter().rev().take_while(|&&b| b == b' ' || b == b'\t');
                at - blanks.count()
            }
            None => content_end,
        };
        // A full-line comment goes with its line ending: no blank line is
        // left behind. llmutils' StripComments also drops every blank line.
        let dropped =
            (marker.is_some() || drop_blank_lines) && trim(&text[start..kept_end]).is_empty();
        if !dropped {
            if let Some(ending) = pending_ending.take() {
                out.push(ending);
            }
            let mut from = start;
            for &backslash in &scratch.escapes {
                out.push(from..backslash);
                from = backslash + 1;
            }
            out.push(from..kept_end);
            pending_ending = Some(content_end..line_end);
        }

        match newline {
            Some(newline) => start = newline + 1,
            None => break,
        }
        line += 1;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standard(text: &str) -> (String, Vec<String>) {
        let mut directives = Directives::default();
        let (cleaned, deletions) =
            clean(text, Dialect::Standard, Cleaning::Process, Some(&mut directives));
        (cleaned.into_owned(), directives.finish(Cow::Borrowed(""), deletions).tags)
    }

    #[test]
    fn fences_work_with_crlf() {
        let text = "```\r\n/// tag: in-code\r\n```\r\n/// tag: out\r\nEnd\r\n";
        assert_eq!(
            standard(text),
            ("```\r\n/// tag: in-code\r\n```\r\nEnd\r\n".into(), vec!["out".into()])
        );
    }

    #[test]
    fn a_cut_opening_fence_line_still_opens() {
        let text = "```rust /// tag: sample\n/// kept\n```\n";
        assert_eq!(standard(text), ("```rust\n/// kept\n```\n".into(), vec!["sample".into()]));
    }

    #[test]
    fn escapes_are_verbatim_in_fences_only() {
        let (cleaned, _) = standard("\\/// a\n~~~\n\\/// b\n~~~\n\\/// c");
        assert_eq!(cleaned, "/// a\n~~~\n\\/// b\n~~~\n/// c");
    }

    #[test]
    fn llmutils_ignores_fences() {
        let (cleaned, deletions) =
            clean("```\n/// x\n```", Dialect::Llmutils, Cleaning::Process, None);
        assert_eq!(cleaned, "```\n```");
        assert_eq!(deletions.spans(), [Span::new(4, 10)]);
    }

    #[test]
    fn a_byte_order_mark_is_a_deletion() {
        for text in ["\u{feff}Hi", "\u{feff}/// flow: x\nHi"] {
            let (cleaned, deletions) = clean(text, Dialect::Standard, Cleaning::Process, None);
            assert_eq!(cleaned, "Hi");
            assert_eq!(deletions.spans()[0].start, 0);
            assert_eq!(&text[deletions.to_input(0)..], "Hi");
        }
        let (cleaned, deletions) = clean("\u{feff}Hi", Dialect::Llmutils, Cleaning::Process, None);
        assert_eq!((cleaned.as_ref(), deletions.deleted()), ("\u{feff}Hi", 0));
    }
}
