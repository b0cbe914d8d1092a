//! Byte spans into a template source, and their line/column positions.

use std::fmt;

/// A byte range `start..end` into the template source.
///
/// Offsets are 0-based byte indexes and always fall on character
/// boundaries. Lines and columns are computed on demand (see
/// [`Span::position`]) so that compiling never pays for them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The span `start..end`. Offsets above `u32::MAX` saturate; templates
    /// that large are rejected before any span is built.
    pub(crate) fn new(start: usize, end: usize) -> Span {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Span { start: clamp(start), end: clamp(end.max(start)) }
    }

    /// The first byte of the span.
    pub fn start(&self) -> usize {
        self.start as usize
    }

    /// One past the last byte of the span.
    pub fn end(&self) -> usize {
        self.end as usize
    }

    /// The 1-based line and column (in characters) where the span starts in
    /// `source`.
    pub fn position(&self, source: &str) -> (usize, usize) {
        let offset = source.floor_char_boundary(self.start());
        let before = &source[..offset];
        let line_start = memchr::memrchr(b'\n', before.as_bytes()).map_or(0, |i| i + 1);
        let line = memchr::memchr_iter(b'\n', before.as_bytes()).count() + 1;
        (line, before[line_start..].chars().count() + 1)
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let source = "ab\nçé[[ x ]]";
        assert_eq!(Span::new(0, 1).position(source), (1, 1));
        assert_eq!(Span::new(3, 3).position(source), (2, 1));
        // `[[` starts after two 2-byte characters: byte 7, column 3.
        assert_eq!(Span::new(7, 9).position(source), (2, 3));
        // An offset inside a character is clamped down to its start.
        assert_eq!(Span::new(4, 4).position(source), (2, 1));
    }
}
