//! Byte spans into the narrative (`prompt_core::text::Span`), and the
//! line/column they are shown as.

use serde::{Deserialize, Serialize};

/// A half-open byte range `[start, end)` of the narrative text: the suite's
/// one span type. The spans this crate hands out sit on character
/// boundaries, so `&text[span.range()]` never panics for the text the span
/// came from.
pub use prompt_core::text::Span;

/// Where a byte sits, as people count: line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Position {
    /// The 0-based byte offset.
    pub offset: usize,
    /// The 1-based line; lines end at LF.
    pub line: usize,
    /// The 1-based column, counting characters (Unicode scalar values).
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` of `text` (clamped to the text and to
    /// a character boundary).
    pub(crate) fn of(text: &str, offset: usize) -> Position {
        let offset = text.floor_char_boundary(offset);
        let before = &text.as_bytes()[..offset];
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let column = text[line_start..offset].chars().count() + 1;
        Position { offset, line, column }
    }
}

/// Positions in one text found in increasing offset order, each from the
/// last in time proportional to the distance between them, so that placing
/// every problem of a long narrative costs one pass (not one pass each).
#[derive(Debug, Clone)]
pub(crate) struct Locator<'a> {
    text: &'a str,
    last: Position,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(text: &'a str) -> Locator<'a> {
        Locator { text, last: Position { offset: 0, line: 1, column: 1 } }
    }

    /// The text positions are found in.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// The position of byte `offset` (as [`Position::of`]); an offset
    /// before the last one is counted again from the start.
    pub(crate) fn position(&mut self, offset: usize) -> Position {
        let offset = self.text.floor_char_boundary(offset);
        if offset < self.last.offset {
            self.last = Position::of(self.text, offset);
            return self.last;
        }
        let gap = &self.text[self.last.offset..offset];
        let newlines = memchr::memchr_iter(b'\n', gap.as_bytes()).count();
        self.last = match memchr::memrchr(b'\n', gap.as_bytes()) {
            None => {
                Position { offset, column: self.last.column + gap.chars().count(), ..self.last }
            }
            Some(i) => Position {
                offset,
                line: self.last.line + newlines,
                column: gap[i + 1..].chars().count() + 1,
            },
        };
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_not_bytes() {
        let text = "ab\nПривет @x";
        assert_eq!(Position::of(text, 16), Position { offset: 16, line: 2, column: 8 });
        // Inside a character: clamped down to its first byte.
        assert_eq!(Position::of(text, 4), Position { offset: 3, line: 2, column: 1 });
        assert_eq!(Position::of(text, 999).offset, text.len());
    }

    #[test]
    fn a_locator_agrees_with_position_of() {
        let text = "ab\nПривет @x\n\nz é\n";
        let mut locator = Locator::new(text);
        for offset in [0, 1, 3, 4, 16, 17, 18, 19, 2, 21, 999, 5] {
            assert_eq!(locator.position(offset), Position::of(text, offset), "{offset}");
        }
    }
}
