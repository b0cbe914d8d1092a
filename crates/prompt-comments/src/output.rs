//! Building a result out of pieces of the input, copying only when needed.
//!
//! The cleaned text is always a sequence of byte ranges of the input (kept
//! lines, cut lines, line endings, the text between escape backslashes). As
//! long as those ranges follow each other, nothing is copied; the result is
//! then one slice of the input and comes back [`Cow::Borrowed`] (the whole
//! input when nothing changed, or the rest after a header of comments).
//!
//! Whatever lies between two kept ranges, or before the first or after the
//! last, was deleted: the output records it as it goes, so the
//! [`Deletions`] it returns are exactly what the cleaning did.

use std::borrow::Cow;
use std::ops::Range;

use prompt_core::text::{Deletions, Span};

#[derive(Debug)]
pub(crate) struct Output<'a> {
    text: &'a str,
    /// The run of contiguous input not yet copied.
    pending: Range<usize>,
    /// Everything before `pending`, once a gap forced a copy.
    copied: Option<String>,
    /// The end of the last kept range: a later range starting after it
    /// means the bytes between were deleted.
    kept_end: usize,
    deletions: Deletions,
}

impl<'a> Output<'a> {
    pub(crate) fn new(text: &'a str) -> Output<'a> {
        Output {
            text,
            pending: 0..0,
            copied: None,
            kept_end: 0,
            deletions: Deletions::for_input(text.len()),
        }
    }

    /// Appends `text[range]`; `range` must lie on character boundaries, at
    /// or after the end of the last range.
    pub(crate) fn push(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        if range.start != self.kept_end {
            self.deletions.push(Span::new(self.kept_end, range.start));
        }
        self.kept_end = range.end;
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

    /// The output, and what was deleted to make it.
    pub(crate) fn finish(mut self) -> (Cow<'a, str>, Deletions) {
        self.deletions.push(Span::new(self.kept_end, self.text.len()));
        let pending = &self.text[self.pending];
        let output = match self.copied {
            None => Cow::Borrowed(pending),
            Some(mut copied) => {
                copied.push_str(pending);
                Cow::Owned(copied)
            }
        };
        (output, self.deletions)
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
        let (text, deletions) = out.finish();
        assert!(matches!(text, Cow::Borrowed("bcde")));
        assert_eq!(deletions.spans(), [Span::new(0, 1), Span::new(5, 6)]);
        let (text, deletions) = Output::new("abc").finish();
        assert!(matches!(text, Cow::Borrowed("")));
        assert_eq!(deletions.spans(), [Span::new(0, 3)]);
    }

    #[test]
    fn a_gap_copies() {
        let mut out = Output::new("abcdef");
        out.push(0..2);
        out.push(3..4);
        out.push(5..6);
        let (text, deletions) = out.finish();
        assert!(matches!(text, Cow::Owned(ref s) if s == "abdf"));
        assert_eq!(deletions.spans(), [Span::new(2, 3), Span::new(4, 5)]);
        assert_eq!(deletions.to_input(3), 5);
    }
}
