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
}

impl Text {
    /// `text` whose bytes in `data` (sorted, non-overlapping, non-empty
    /// ranges) came from values.
    pub(crate) fn new(text: Arc<str>, data: Box<[Range<usize>]>) -> Text {
        Text { text, data }
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

/// Appends `text` HTML-escaped as minijinja escapes it (`&`, `<`, `>`,
/// `"`, `'` and `/`), for `autoescape`; a text without those bytes is one
/// copy.
pub(crate) fn escape_html(text: &str, out: &mut String) {
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#x27;",
            b'/' => "&#x2f;",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        out.push_str(entity);
        start = i + 1;
    }
    out.push_str(&text[start..]);
}

/// The length of `text` once HTML-escaped ([`escape_html`]), measured
/// before anything is built.
pub(crate) fn escaped_len(text: &str) -> usize {
    text.bytes()
        .map(|b| match b {
            b'&' => 5,
            b'<' | b'>' => 4,
            b'"' | b'\'' | b'/' => 6,
            _ => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escaping_matches_minijinja() {
        let mut out = String::new();
        let text = "<a href=\"x/y\">Tom & 'Jerry'</a>";
        escape_html(text, &mut out);
        assert_eq!(
            out,
            "&lt;a href=&quot;x&#x2f;y&quot;&gt;Tom &amp; &#x27;Jerry&#x27;&lt;&#x2f;a&gt;"
        );
        assert_eq!(escaped_len(text), out.len());
    }
}
