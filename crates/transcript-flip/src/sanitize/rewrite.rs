//! Copy-on-write editing of a text: edits are applied in order, and the
//! text is only copied once the first edit arrives.

use std::borrow::Cow;
use std::ops::Range;

/// Builds the edited text from left-to-right replacements.
pub(crate) struct Rewriter<'a> {
    text: &'a str,
    out: Option<String>,
    copied: usize,
}

impl<'a> Rewriter<'a> {
    pub(crate) fn new(text: &'a str) -> Rewriter<'a> {
        Rewriter { text, out: None, copied: 0 }
    }

    /// Replaces `range` (at or after the previous edit, on character
    /// boundaries) with `with`. An empty range inserts.
    pub(crate) fn replace(&mut self, range: Range<usize>, with: &str) {
        debug_assert!(range.start >= self.copied && range.start <= range.end);
        let out = self.out.get_or_insert_with(|| String::with_capacity(self.text.len() + 16));
        out.push_str(&self.text[self.copied..range.start]);
        out.push_str(with);
        self.copied = range.end;
    }

    pub(crate) fn finish(self) -> Cow<'a, str> {
        match self.out {
            None => Cow::Borrowed(self.text),
            Some(mut out) => {
                out.push_str(&self.text[self.copied..]);
                Cow::Owned(out)
            }
        }
    }
}
