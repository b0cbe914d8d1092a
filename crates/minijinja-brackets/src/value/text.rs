//! Strings that know which of their bytes are data (see `provenance.rs`
//! for how the renderer builds them).

use std::ops::Range;
use std::sync::Arc;

/// A string that carries authored bytes: a literal, or text captured by a
/// macro call or a `set` block. Bytes in [`Text::data`] came from values;
/// every other byte was written by the author.
#[derive(Debug)]
pub(crate) struct Text {
    text: Arc<str>,
    /// Sorted, non-overlapping, non-empty ranges of `text`, one per piece.
    data: Box<[Range<usize>]>,
    /// Whether it is already HTML-escaped (`escape`'s output, or marked by
    /// `safe`): `escape` and `autoescape` leave it as it is.
    safe: bool,
}

impl Text {
    /// `text` whose bytes in `data` (sorted, non-overlapping, non-empty
    /// ranges) came from values.
    pub(crate) fn new(text: Arc<str>, data: Box<[Range<usize>]>) -> Text {
        Text { text, data, safe: false }
    }

    /// `text` with its `data` ranges, marked as already HTML-escaped.
    pub(crate) fn safe(text: Arc<str>, data: Box<[Range<usize>]>) -> Text {
        Text { text, data, safe: true }
    }

    /// Whether it is marked as already HTML-escaped.
    pub(crate) fn is_safe(&self) -> bool {
        self.safe
    }

    /// The string.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The string, shared.
    pub(crate) fn shared(&self) -> &Arc<str> {
        &self.text
    }

    /// The byte ranges that are data.
    pub(crate) fn data(&self) -> &[Range<usize>] {
        &self.data
    }
}
