//! The narrative text as the parser and the segmenter read it: its
//! dialect's lines, whose endings count only where the author wrote them,
//! and where structure starts (after a byte order mark, in Standard).

use crate::alias::RoleAliases;
use crate::data::Provenance;
use crate::dialect::Dialect;
use crate::span::Span;

/// The UTF-8 byte order mark.
const BOM: &str = "\u{feff}";

/// One line: its text ends at `content_end`, its line ending at `next`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) start: usize,
    pub(crate) content_end: usize,
    pub(crate) next: usize,
}

impl Line {
    /// The line's text, without its line ending.
    pub(crate) fn content(self) -> Span {
        Span::new(self.start, self.content_end)
    }
}

/// A text, its dialect and its data ranges (`&Data`, or [`Authored`](crate::data::Authored)
/// for a text without any), and the role aliases its delimiters may use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'a, P> {
    pub(crate) text: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) dialect: Dialect,
    pub(crate) data: P,
    pub(crate) aliases: Option<&'a RoleAliases>,
}

impl<'a, P: Provenance<'a>> Source<'a, P> {
    pub(crate) fn new(text: &'a str, dialect: Dialect, data: P) -> Source<'a, P> {
        Source { text, bytes: text.as_bytes(), dialect, data, aliases: None }
    }

    /// The same text, its delimiters also naming roles by `aliases`.
    pub(crate) fn with_aliases(self, aliases: &'a RoleAliases) -> Source<'a, P> {
        let aliases = (!aliases.is_empty()).then_some(aliases);
        Source { aliases, ..self }
    }

    /// Where structure starts: after a leading byte order mark the author
    /// wrote, in the Standard dialect (lmml keeps it as text).
    pub(crate) fn body_start(&self) -> usize {
        let skips = self.dialect.skips_byte_order_mark()
            && self.text.starts_with(BOM)
            && self.data.is_authored(0, BOM.len());
        if skips { BOM.len() } else { 0 }
    }

    /// The line starting at `start` (which must be below the text's
    /// length). A line ending inside data is no line ending.
    pub(crate) fn line_at(&self, start: usize) -> Line {
        let bytes = self.bytes;
        let search = |from: usize| {
            let rest = &bytes[from..];
            let found = match self.dialect {
                Dialect::Lmml => memchr::memchr(b'\n', rest),
                Dialect::Standard => memchr::memchr2(b'\n', b'\r', rest),
            };
            found.map(|i| from + i)
        };
        match self.data.find(start, 1, search) {
            None => Line { start, content_end: bytes.len(), next: bytes.len() },
            Some(end) => {
                let crlf = bytes[end] == b'\r'
                    && bytes.get(end + 1) == Some(&b'\n')
                    && !self.data.contains(end + 1);
                Line { start, content_end: end, next: end + 1 + usize::from(crlf) }
            }
        }
    }

    /// The start of the line holding `at`, looking back no further than
    /// `floor` (itself a line start).
    pub(crate) fn line_start(&self, floor: usize, at: usize) -> usize {
        let bytes = self.bytes;
        let search = |end: usize| {
            let before = &bytes[floor..end];
            let found = match self.dialect {
                Dialect::Lmml => memchr::memrchr(b'\n', before),
                Dialect::Standard => memchr::memrchr2(b'\n', b'\r', before),
            };
            found.map(|i| floor + i)
        };
        self.data.rfind(at, search).map_or(floor, |i| i + 1)
    }

    /// Whether `line` is blank: only spaces, tabs and CRs, all authored (a
    /// value is content, never a paragraph break).
    pub(crate) fn is_blank(&self, line: Line) -> bool {
        is_blank(&self.bytes[line.start..line.content_end])
            && self.data.is_authored(line.start, line.content_end)
    }

    /// Where the authored bytes starting at `start` end, at `end` at most.
    pub(crate) fn authored_until(&self, start: usize, end: usize) -> usize {
        self.data.within(Span::new(start, end)).first().map_or(end, |r| r.start.max(start))
    }

    /// The length of the run of authored `byte`s at `at`, before `end`.
    pub(crate) fn run_length(&self, at: usize, byte: u8, end: usize) -> usize {
        let end = self.authored_until(at, end);
        self.bytes[at..end].iter().take_while(|&&b| b == byte).count()
    }

    /// Whether `span` holds an authored `byte`.
    pub(crate) fn authored_contains(&self, span: Span, byte: u8) -> bool {
        let mut at = span.start;
        for range in self.data.within(span) {
            if self.bytes[at..range.start.max(at)].contains(&byte) {
                return true;
            }
            at = range.end.max(at);
        }
        at < span.end && self.bytes[at..span.end].contains(&byte)
    }
}

/// Whether `line` holds only spaces, tabs and CRs.
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
}

#[cfg(test)]
// One data range is a slice of one range, not a range to collect.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;
    use crate::data::Data;

    fn lines(text: &str, dialect: Dialect, data: &Data) -> Vec<(usize, usize, usize)> {
        let source = Source::new(text, dialect, data);
        let mut out = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let line = source.line_at(at);
            out.push((line.start, line.content_end, line.next));
            at = line.next;
        }
        out
    }

    #[test]
    fn line_endings() {
        let text = "a\r\nb\rc\n";
        let none = Data::default();
        assert_eq!(lines(text, Dialect::Standard, &none), [(0, 1, 3), (3, 4, 5), (5, 6, 7)]);
        assert_eq!(lines(text, Dialect::Lmml, &none), [(0, 2, 3), (3, 6, 7)]);
    }

    #[test]
    fn line_endings_inside_data_do_not_count() {
        let text = "a\nb\r\nc\nd";
        // `\nb\r` is a value; the LF of the CRLF is the author's.
        let data = Data::new(text, &[1..4]);
        assert_eq!(lines(text, Dialect::Standard, &data), [(0, 4, 5), (5, 6, 7), (7, 8, 8)]);
        let source = Source::new(text, Dialect::Standard, &data);
        assert_eq!(source.line_start(0, 4), 0);
        assert_eq!(source.line_start(0, 6), 5);
        // A CR the author wrote before a LF from a value ends the line alone.
        let data = Data::new(text, &[4..5]);
        assert_eq!(lines(text, Dialect::Standard, &data)[1], (2, 3, 4));
    }

    #[test]
    fn blank_lines_and_runs() {
        let text = "  \n  \n```x`";
        let data = Data::new(text, &[3..4, 9..10]);
        let source = Source::new(text, Dialect::Standard, &data);
        assert!(source.is_blank(source.line_at(0)));
        assert!(!source.is_blank(source.line_at(3)));
        assert_eq!(source.run_length(6, b'`', text.len()), 3);
        assert!(source.authored_contains(Span::new(9, 11), b'`'));
        assert!(!source.authored_contains(Span::new(9, 10), b'x'));
        assert_eq!(source.authored_until(6, 11), 9);
    }

    #[test]
    fn a_byte_order_mark_is_skipped_in_standard_only_when_authored() {
        let text = "\u{feff}## user\n";
        let none = Data::default();
        assert_eq!(Source::new(text, Dialect::Standard, &none).body_start(), 3);
        assert_eq!(Source::new(text, Dialect::Lmml, &none).body_start(), 0);
        let data = Data::new(text, &[0..3]);
        assert_eq!(Source::new(text, Dialect::Standard, &data).body_start(), 0);
    }
}
