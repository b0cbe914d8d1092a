//! Finding the `///` that starts a line's comment.
//!
//! Candidates are the non-overlapping occurrences of `///`, left to right (so
//! `////` holds one candidate, at its start). The first candidate that is not
//! text is the marker. What makes a candidate text depends on the dialect:
//!
//! * llmutils: `http:` or `https:` (ASCII case folded) right before it.
//! * `Standard`: being inside a code span; a backslash right before it (an
//!   escape, whose backslash is then removed); or being glued to the text
//!   before it: a marker starts its line or follows a whitespace character
//!   (Unicode `White_Space`), so a `///` inside a token (base64, `file:///`,
//!   `http://a.com///raw`, `word///x`) is text.

use std::iter::Peekable;
use std::ops::Range;

use memchr::memmem::FindIter;

use crate::dialect::Dialect;
use crate::markdown::CodeSpans;

/// The `///` occurrences of the whole text, in order.
pub(crate) type Candidates<'h> = Peekable<FindIter<'h, 'static>>;

/// Reusable buffers for [`find_marker`].
#[derive(Debug, Default)]
pub(crate) struct LineScratch {
    /// Byte positions of escaping backslashes before the marker.
    pub(crate) escapes: Vec<usize>,
    code: CodeSpans,
}

/// The position of the comment marker in `bytes[line]`, consuming the
/// candidates that lie before the line's end. Escapes found before the
/// marker are left in `scratch.escapes`.
pub(crate) fn find_marker(
    bytes: &[u8],
    line: Range<usize>,
    candidates: &mut Candidates<'_>,
    dialect: Dialect,
    scratch: &mut LineScratch,
) -> Option<usize> {
    scratch.escapes.clear();
    if candidates.peek().is_none_or(|&at| at >= line.end) {
        // Most lines hold no `///`: nothing to look at.
        return None;
    }
    if dialect.code_is_text() && memchr::memchr(b'`', &bytes[line.clone()]).is_some() {
        scratch.code.find(bytes, line.clone());
    } else {
        scratch.code.clear();
    }
    while let Some(at) = candidates.next_if(|&at| at < line.end) {
        if scratch.code.covers(at) {
            continue;
        }
        if dialect.has_escape() && at > line.start && bytes[at - 1] == b'\\' {
            scratch.escapes.push(at - 1);
            continue;
        }
        let text = if dialect.glued_marker_is_text() {
            is_glued(&bytes[line.start..at])
        } else {
            after_http_scheme(&bytes[line.start..at])
        };
        if !text {
            return Some(at);
        }
    }
    None
}

/// Whether the line's text before a candidate ends in a character that is
/// not whitespace (Unicode `White_Space`, as [`char::is_whitespace`]). Only
/// that last character is decoded: constant work per candidate.
fn is_glued(before: &[u8]) -> bool {
    // The last character starts at the last byte that is not a UTF-8
    // continuation byte (at most four bytes back).
    let Some(start) = before.iter().rposition(|&b| b & 0xC0 != 0x80) else {
        return false;
    };
    std::str::from_utf8(&before[start..])
        .ok()
        .and_then(|last| last.chars().next())
        .is_some_and(|last| !last.is_whitespace())
}

/// llmutils' rule: the 5 bytes before are `http:` or the 6 bytes before are
/// `https:`, ASCII case folded. Bytes, not characters, so no slicing can
/// land inside a character.
fn after_http_scheme(before: &[u8]) -> bool {
    let ends_with = |scheme: &[u8]| {
        before.len() >= scheme.len()
            && before[before.len() - scheme.len()..].eq_ignore_ascii_case(scheme)
    };
    ends_with(b"http:") || ends_with(b"https:")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marker of `line` and the escapes before it.
    fn marker(line: &str, dialect: Dialect) -> (Option<usize>, Vec<usize>) {
        let bytes = line.as_bytes();
        let mut candidates = memchr::memmem::find_iter(bytes, b"///").peekable();
        let mut scratch = LineScratch::default();
        let at = find_marker(bytes, 0..bytes.len(), &mut candidates, dialect, &mut scratch);
        (at, scratch.escapes)
    }

    #[test]
    fn markers_in_both_dialects() {
        // (line, llmutils marker, Standard marker)
        let table = [
            ("HTTPS:///x", None, None),
            ("xhttp:///x", None, None),
            ("http://////x", Some(8), None),
            ("file:///etc/hosts /// c", Some(5), Some(18)),
            ("s3:///b", Some(3), None),
            ("http://a.com///raw", Some(12), None),
            ("(see http://a.com)///x", Some(18), None),
            ("a.com///raw", Some(5), None),
            ("1:///x", Some(2), None),
            ("é:///x", Some(3), None),
            ("http:// ///", Some(8), Some(8)),
            ("unix:///run/docker.sock", Some(5), None),
            ("eHD//////////3QAA", Some(3), None),
            ("key: eHD//////////3QAA /// c", Some(8), Some(23)),
            ("\"///\"", Some(1), None),
            ("///x", Some(0), Some(0)),
            ("\t ///x", Some(2), Some(2)),
            // Unicode whitespace: a no-break space, an ideographic space.
            ("a\u{a0}///x", Some(3), Some(3)),
            ("a\u{3000}///x", Some(4), Some(4)),
            ("é///x", Some(2), None),
            ("http://a.com\u{a0}///x", Some(14), Some(14)),
            ("`///`", Some(1), None),
            ("`a /// b` ``c", Some(3), None),
            (r"\///", Some(1), None),
        ];
        for (line, llmutils, standard) in table {
            assert_eq!(marker(line, Dialect::Llmutils).0, llmutils, "llmutils: {line:?}");
            assert_eq!(marker(line, Dialect::Standard).0, standard, "standard: {line:?}");
        }
    }

    #[test]
    fn escapes_are_reported_and_code_is_skipped() {
        let (at, escapes) = marker(r"a \/// b `///` c /// d", Dialect::Standard);
        assert_eq!((at, escapes), (Some(17), vec![2]));
        assert_eq!(marker(r"a \/// b", Dialect::Llmutils), (Some(3), vec![]));
    }

    #[test]
    fn glued_means_after_a_character_that_is_not_whitespace() {
        for glued in ["a", "é", "日", "🙂", "a\u{200b}", ":", "/"] {
            assert!(is_glued(glued.as_bytes()), "{glued:?}");
        }
        for free in ["", " ", "a\t", "a\u{a0}", "a\u{2003}", "a\u{3000}", "a\r"] {
            assert!(!is_glued(free.as_bytes()), "{free:?}");
        }
    }
}
