//! Building a result out of pieces of the input, copying only when needed.
//!
//! The cleaned text is always a sequence of byte ranges of the input (kept
//! lines, cut lines, line endings, the text between escape backslashes). As
//! long as those ranges follow each other, nothing is copied; the result is
//! then one slice of the input and comes back [`Cow::Borrowed`] (the whole
//! input when nothing changed, or the rest after a header of comments).

use std::borrow::Cow;
use std::ops::Range;

#[derive(Debug)]
pub(crate) struct Output<'a> {
    text: &'a str,
    /// The run of contiguous input not yet copied.
    pending: Range<usize>,
    /// Everything before `pending`, once a gap forced a copy.
    copied: Option<String>,
}

impl<'a> Output<'a> {
    pub(crate) fn new(text: &'a str) -> Output<'a> {
        Output { text, pending: 0..0, copied: None }
    }

    /// Appends `text[range]`; `range` must lie on character boundaries.
    pub(crate) fn push(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        if self.pending.is_empty() {
            self.pending = range;
        } else if self.pending.end == range.start {
            self.pending.end = range.end;
        } else {
            let text = self.text;
            // The result is never longer than the input: one allocation.
            let copied = self.copied.get_or_insert_with(|| String::with_capacity(text.len()));
            copied.push_str(&text[self.pending.clone()]);
            self.pending = range;
        }
    }

    pub(crate) fn finish(self) -> Cow<'a, str> {
        let pending = &self.text[self.pending];
        match self.copied {
            None => Cow::Borrowed(pending),
            Some(mut copied) => {
                copied.push_str(pending);
                Cow::Owned(copied)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_pieces_stay_borrowed() {
        let mut out = Output::new("abcdef");
        out.push(1..3);
        out.push(3..3);
        out.push(3..5);
        assert!(matches!(out.finish(), Cow::Borrowed("bcde")));
        assert!(matches!(Output::new("abc").finish(), Cow::Borrowed("")));
    }

    #[test]
    fn a_gap_copies() {
        let mut out = Output::new("abcdef");
        out.push(0..2);
        out.push(3..4);
        out.push(5..6);
        assert!(matches!(out.finish(), Cow::Owned(s) if s == "abdf"));
    }
}
