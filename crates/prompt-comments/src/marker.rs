//! Finding the `///` that starts a line's comment.
//!
//! Candidates are the non-overlapping occurrences of `///`, left to right (so
//! `////` holds one candidate, at its start). The first candidate that is not
//! text is the marker. What makes a candidate text depends on the dialect:
//!
//! * llmutils: `http:` or `https:` (ASCII case folded) right before it.
//! * `Standard`: being inside a code span; a backslash right before it (an
//!   escape, whose backslash is then removed); or being part of a URL: the
//!   whitespace-free run of text before it ends with a scheme and `:`
//!   (`file:`) or contains `scheme://` (`http://a.com///raw`). Once a
//!   candidate is part of a URL, so is the rest of that run of text.

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
        scratch.code.find(bytes, line.start..line.start);
    }
    let mut url_end = line.start;
    while let Some(at) = candidates.next_if(|&at| at < line.end) {
        if at < url_end || scratch.code.covers(at) {
            continue;
        }
        if dialect.has_escape() && at > line.start && bytes[at - 1] == b'\\' {
            scratch.escapes.push(at - 1);
            continue;
        }
        if dialect.guards_every_url() {
            match url_around(bytes, line.clone(), at) {
                Some(end) => url_end = end,
                None => return Some(at),
            }
        } else if !after_http_scheme(&bytes[line.start..at]) {
            return Some(at);
        }
    }
    None
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

/// If the `///` at `at` is part of a URL, the end of that URL (the next
/// whitespace, or the line's end).
fn url_around(bytes: &[u8], line: Range<usize>, at: usize) -> Option<usize> {
    let token_start = bytes[line.start..at]
        .iter()
        .rposition(u8::is_ascii_whitespace)
        .map_or(line.start, |i| line.start + i + 1);
    let token = &bytes[token_start..at];
    let is_url = memchr::memchr_iter(b':', token).any(|colon| {
        let after = &token[colon + 1..];
        (after.is_empty() || after.starts_with(b"//")) && ends_with_scheme(&token[..colon])
    });
    is_url.then(|| {
        bytes[at..line.end].iter().position(u8::is_ascii_whitespace).map_or(line.end, |i| at + i)
    })
}

/// Whether `text` ends with a URI scheme (`[A-Za-z][A-Za-z0-9+.-]*`): its
/// trailing run of scheme characters holds a letter to start one.
fn ends_with_scheme(text: &[u8]) -> bool {
    text.iter()
        .rev()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
        .any(u8::is_ascii_alphabetic)
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
            ("a.com///raw", Some(5), Some(5)),
            ("1:///x", Some(2), Some(2)),
            ("é:///x", Some(3), Some(3)),
            ("http:// ///", Some(8), Some(8)),
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
    fn ends_with_scheme_needs_a_letter() {
        assert!(ends_with_scheme(b"x s3"));
        assert!(ends_with_scheme(b"svn+ssh"));
        assert!(!ends_with_scheme(b"42"));
        assert!(!ends_with_scheme(b""));
        assert!(!ends_with_scheme(b"a "));
    }
}
