//! Provenance: which bytes of a text are data (came from a value) and
//! which the author wrote.
//!
//! The renderer knows, for every byte it writes, where it came from; the
//! segmenter downstream recognises structure (role delimiters, embeds,
//! references) only in authored bytes, so data can never become structure.
//! The knowledge is carried, never re-guessed, by one mechanism:
//!
//! * A [`TextBuf`] is text being assembled with the byte ranges of it that
//!   are data. The renderer's output is one; template text goes in with
//!   [`TextBuf::push_authored`], a printed value with
//!   [`TextBuf::push_value`] (one data range per piece: a data string or a
//!   number is one piece, a [`Text`] brings its own pieces).
//! * Capturing (a macro call, a `set` block) takes the tail of the buffer
//!   written since a [`Mark`] as a value ([`TextBuf::take_from`]): a data
//!   string when it is all one data piece, else a [`Text`] that keeps every
//!   byte's provenance. Printing that value later maps its data ranges into
//!   the output at the place it lands.
//! * String literals are [`Text`]s without data ranges: the author wrote
//!   every byte, and nothing from a context can reach a literal.
//! * Everything else is data: values from the context, and any string an
//!   operator, filter, test or function builds (even from authored text),
//!   since their bytes are computed, not written. Values that are passed on
//!   unchanged (through variables, loops, conditionals, macro arguments,
//!   `set`, `default`, picking an item) keep their provenance, because they
//!   are the same bytes.
//! * Provenance is invisible to equality, ordering, truthiness and JSON:
//!   a store written as JSON keeps the text only, so a value that comes
//!   back from a store in a later render is data.
//!
//! Later constructs that keep template text authored (`caller()`, filter
//! blocks, included templates) are captures too: they render into the same
//! buffer and take their tail with the same [`Mark`].

use std::ops::Range;
use std::sync::Arc;

use crate::value::text::Text;
use crate::value::{Repr, Value};

/// Where a capture starts in a [`TextBuf`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    len: usize,
    pieces: usize,
}

/// Text being assembled, with its data ranges (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct TextBuf {
    text: String,
    data: Vec<Range<usize>>,
}

impl TextBuf {
    /// Room for `bytes` of text and for a data range per 64 of them (up
    /// to a thousand; more grow as they come).
    pub(crate) fn with_capacity(bytes: usize) -> TextBuf {
        TextBuf {
            text: String::with_capacity(bytes),
            data: Vec::with_capacity((bytes / 64).min(1024)),
        }
    }

    /// Its length in bytes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.text.len()
    }

    /// Appends bytes the author wrote.
    #[inline]
    pub(crate) fn push_authored(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Appends one data piece.
    #[inline]
    pub(crate) fn push_data(&mut self, text: &str) {
        if !text.is_empty() {
            let start = self.text.len();
            self.text.push_str(text);
            self.data.push(start..self.text.len());
        }
    }

    /// Appends one data piece that `write` produces in place (a printed
    /// number, list or map); nothing when it writes nothing.
    pub(crate) fn push_data_with<E>(
        &mut self,
        write: impl FnOnce(&mut String) -> Result<(), E>,
    ) -> Result<(), E> {
        let start = self.text.len();
        let written = write(&mut self.text);
        if self.text.len() > start {
            self.data.push(start..self.text.len());
        }
        written
    }

    /// Appends a [`Text`]: its authored bytes stay authored, its pieces
    /// stay apart.
    pub(crate) fn push_text(&mut self, text: &Text) {
        let at = self.text.len();
        self.text.push_str(text.as_str());
        self.data.extend(text.data().iter().map(|r| r.start + at..r.end + at));
    }

    /// Appends a string value with its provenance: a data string is one
    /// piece, a [`Text`] keeps its own. Other values are not strings;
    /// `false` for them.
    pub(crate) fn push_string(&mut self, value: &Value) -> bool {
        match &value.0 {
            Repr::Str(s) => self.push_data(s),
            Repr::Text(t) => self.push_text(t),
            _ => return false,
        }
        true
    }

    /// Where a capture starts.
    pub(crate) fn mark(&self) -> Mark {
        Mark { len: self.text.len(), pieces: self.data.len() }
    }

    /// Removes what was written since `mark` and returns it as a value
    /// with its provenance: a data string when it is one data piece (or
    /// empty), else a [`Text`].
    pub(crate) fn take_from(&mut self, mark: Mark) -> Value {
        let text = &self.text[mark.len..];
        let pieces = &self.data[mark.pieces..];
        let value = match pieces {
            [] if text.is_empty() => Value::str(""),
            [only] if only.start == mark.len && only.end == self.text.len() => Value::str(text),
            _ => {
                let data = pieces.iter().map(|r| r.start - mark.len..r.end - mark.len).collect();
                Value(Repr::Text(Arc::new(Text::new(Arc::from(text), data))))
            }
        };
        self.text.truncate(mark.len);
        self.data.truncate(mark.pieces);
        value
    }

    /// Everything written, as a value with its provenance (as
    /// [`TextBuf::take_from`] the start).
    pub(crate) fn into_value(mut self) -> Value {
        self.take_from(Mark { len: 0, pieces: 0 })
    }

    /// Removes what was written since `mark`.
    pub(crate) fn discard_from(&mut self, mark: Mark) {
        self.text.truncate(mark.len);
        self.data.truncate(mark.pieces);
    }

    /// The text and its data ranges.
    pub(crate) fn finish(self) -> (String, Vec<Range<usize>>) {
        (self.text, self.data)
    }
}

/// `text[range]` of the string `value` (whose text is `text`), keeping the
/// provenance of its bytes: a slice is the same bytes, so a literal's stay
/// authored and a value's stay data (`strip`, `split`, the Jinja2
/// profile's `trim`).
pub(crate) fn slice(value: &Value, text: &str, range: Range<usize>) -> Value {
    let Repr::Text(t) = &value.0 else { return Value::str(&text[range]) };
    let data: Vec<Range<usize>> = t
        .data()
        .iter()
        .filter_map(|r| {
            let (start, end) = (r.start.max(range.start), r.end.min(range.end));
            (start < end).then(|| start - range.start..end - range.start)
        })
        .collect();
    if data.len() == 1 && data[0] == (0..range.len()) {
        return Value::str(&text[range]);
    }
    Value(Repr::Text(Arc::new(Text::new(Arc::from(&text[range]), data.into()))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_kept_apart_and_captures_keep_provenance() {
        let mut buf = TextBuf::default();
        buf.push_authored("## ");
        buf.push_data("us");
        buf.push_data("er");
        buf.push_data("");
        let mark = buf.mark();
        buf.push_authored("a");
        buf.push_data("b");
        let captured = buf.take_from(mark);
        assert_eq!(captured.as_str(), Some("ab"));
        buf.push_authored(">");
        assert!(buf.push_string(&captured));
        let (text, data) = buf.finish();
        assert_eq!(text, "## user>ab");
        assert_eq!(data, [3..5, 5..7, 9..10]);
    }

    #[test]
    fn a_capture_of_one_data_piece_is_a_data_string() {
        let mut buf = TextBuf::default();
        let mark = buf.mark();
        buf.push_data("x");
        let captured = buf.take_from(mark);
        assert!(matches!(captured.0, Repr::Str(_)));
        let mark = buf.mark();
        buf.push_authored("y");
        assert!(matches!(buf.take_from(mark).0, Repr::Text(_)));
        assert!(!buf.push_string(&Value::from(1)));
    }
}
