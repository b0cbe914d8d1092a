//! Data ranges: the bytes of a narrative that came from values (a template's
//! context, a batch row), as opposed to bytes the author wrote.
//!
//! Structure is recognised only in authored bytes; every search the parser
//! and the segmenter make goes through [`Data`] to skip hits inside data.
//! With no data (the common case) each query is one branch.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::span::Span;

/// The data ranges of one text: sorted, disjoint, non-empty, on character
/// boundaries. Adjacent ranges stay apart: `[[ a ]][[ b ]]` is two values.
#[derive(Debug, Default)]
pub(crate) struct Data {
    ranges: Vec<Span>,
    /// The index the last lookup ended at: lookups mostly move forward, so
    /// starting there makes a scan's lookups amortised O(1). A hint only
    /// (relaxed, shared by threads): a stale one costs a binary search.
    hint: AtomicUsize,
}

impl Clone for Data {
    fn clone(&self) -> Data {
        Data { ranges: self.ranges.clone(), hint: AtomicUsize::new(0) }
    }
}

impl PartialEq for Data {
    fn eq(&self, other: &Data) -> bool {
        self.ranges == other.ranges
    }
}

impl Eq for Data {}

impl Data {
    /// The ranges of `text` normalised: clamped to the text, widened to
    /// character boundaries, empty ones dropped, sorted, and overlapping
    /// ones merged (adjacent ones are kept apart). Any input is accepted.
    pub(crate) fn new(text: &str, ranges: &[Range<usize>]) -> Data {
        let mut spans: Vec<Span> = ranges
            .iter()
            .filter_map(|range| {
                let start = text.floor_char_boundary(range.start.min(text.len()));
                let end = text.ceil_char_boundary(range.end.min(text.len()));
                (start < end).then(|| Span::new(start, end))
            })
            .collect();
        spans.sort_unstable_by_key(|span| (span.start, span.end));
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for span in spans {
            match merged.last_mut() {
                Some(last) if span.start < last.end => last.end = last.end.max(span.end),
                _ => merged.push(span),
            }
        }
        Data { ranges: merged, hint: AtomicUsize::new(0) }
    }

    /// Whether every byte is authored.
    pub(crate) fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges, in order.
    pub(crate) fn ranges(&self) -> &[Span] {
        &self.ranges
    }

    /// The index of the first range ending after `pos`.
    fn first_ending_after(&self, pos: usize) -> usize {
        let ranges = &self.ranges;
        let hint = self.hint.load(Ordering::Relaxed).min(ranges.len());
        // The hint is right when the range before it ends at or before
        // `pos` and the one at it ends after; check it and its successor.
        let before_ok = |i: usize| i == 0 || ranges[i - 1].end <= pos;
        let found = if before_ok(hint) && ranges.get(hint).is_none_or(|r| r.end > pos) {
            hint
        } else if hint < ranges.len()
            && before_ok(hint + 1)
            && ranges.get(hint + 1).is_none_or(|r| r.end > pos)
        {
            hint + 1
        } else {
            ranges.partition_point(|r| r.end <= pos)
        };
        self.hint.store(found, Ordering::Relaxed);
        found
    }

    /// The data range holding `pos`, if `pos` is data.
    pub(crate) fn at(&self, pos: usize) -> Option<Span> {
        if self.ranges.is_empty() {
            return None;
        }
        self.ranges.get(self.first_ending_after(pos)).copied().filter(|r| r.start <= pos)
    }

    /// Whether `pos` is data.
    pub(crate) fn contains(&self, pos: usize) -> bool {
        self.at(pos).is_some()
    }

    /// Whether every byte of `start..end` is authored.
    pub(crate) fn is_authored(&self, start: usize, end: usize) -> bool {
        if self.ranges.is_empty() || start >= end {
            return true;
        }
        self.ranges.get(self.first_ending_after(start)).is_none_or(|r| r.start >= end)
    }

    /// The data ranges overlapping `span`, in order.
    pub(crate) fn within(&self, span: Span) -> &[Span] {
        if self.ranges.is_empty() || span.is_empty() {
            return &[];
        }
        let first = self.first_ending_after(span.start);
        let count = self.ranges[first..].iter().take_while(|r| r.start < span.end).count();
        &self.ranges[first..first + count]
    }

    /// The first hit of `search` at or after `from` whose `width` bytes are
    /// all authored. `search(from)` returns the first hit at or after
    /// `from`; a hit touching data is skipped (past the data range when it
    /// starts inside one), so the whole search stays linear.
    pub(crate) fn find(
        &self,
        mut from: usize,
        width: usize,
        mut search: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        loop {
            let hit = search(from)?;
            if self.ranges.is_empty() || self.is_authored(hit, hit + width) {
                return Some(hit);
            }
            from = match self.at(hit) {
                Some(range) => range.end,
                None => hit + 1,
            };
        }
    }

    /// The last hit of `search` before `end` (and at or after the floor
    /// `search` applies) that is authored: `search(end)` returns the last
    /// hit below `end`.
    pub(crate) fn rfind(
        &self,
        mut end: usize,
        mut search: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        loop {
            let hit = search(end)?;
            match self.at(hit) {
                None => return Some(hit),
                Some(range) => end = range.start,
            }
        }
    }
}

/// What the parser and the segmenter ask about provenance, answered by the
/// data ranges of a text (`&Data`) or, for a text without any, by
/// [`Authored`], whose every answer is a constant: the scans are generic
/// over it, so the text without data is scanned by the same code as before
/// data existed, with nothing to ask.
pub(crate) trait Provenance<'a>: Copy {
    /// The data range holding `pos`, if `pos` is data.
    fn at(self, pos: usize) -> Option<Span>;
    /// Whether `pos` is data.
    fn contains(self, pos: usize) -> bool;
    /// Whether every byte of `start..end` is authored.
    fn is_authored(self, start: usize, end: usize) -> bool;
    /// The data ranges overlapping `span`, in order.
    fn within(self, span: Span) -> &'a [Span];
    /// [`Data::find`].
    fn find(
        self,
        from: usize,
        width: usize,
        search: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize>;
    /// [`Data::rfind`].
    fn rfind(self, end: usize, search: impl FnMut(usize) -> Option<usize>) -> Option<usize>;
}

impl<'a> Provenance<'a> for &'a Data {
    fn at(self, pos: usize) -> Option<Span> {
        Data::at(self, pos)
    }

    fn contains(self, pos: usize) -> bool {
        Data::contains(self, pos)
    }

    fn is_authored(self, start: usize, end: usize) -> bool {
        Data::is_authored(self, start, end)
    }

    fn within(self, span: Span) -> &'a [Span] {
        Data::within(self, span)
    }

    fn find(
        self,
        from: usize,
        width: usize,
        search: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        Data::find(self, from, width, search)
    }

    fn rfind(self, end: usize, search: impl FnMut(usize) -> Option<usize>) -> Option<usize> {
        Data::rfind(self, end, search)
    }
}

/// A text every byte of which the author wrote.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Authored;

impl<'a> Provenance<'a> for Authored {
    #[inline(always)]
    fn at(self, _: usize) -> Option<Span> {
        None
    }

    #[inline(always)]
    fn contains(self, _: usize) -> bool {
        false
    }

    #[inline(always)]
    fn is_authored(self, _: usize, _: usize) -> bool {
        true
    }

    #[inline(always)]
    fn within(self, _: Span) -> &'a [Span] {
        &[]
    }

    #[inline(always)]
    fn find(
        self,
        from: usize,
        _: usize,
        mut search: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        search(from)
    }

    #[inline(always)]
    fn rfind(self, end: usize, mut search: impl FnMut(usize) -> Option<usize>) -> Option<usize> {
        search(end)
    }
}

#[cfg(test)]
// One data range is a slice of one range, not a range to collect.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_normalised_whatever_they_are() {
        let text = "abcdéfgh";
        #[allow(clippy::reversed_empty_ranges)]
        let data = Data::new(text, &[7..5, 6..8, 0..2, 1..3, 3..3, 4..5, 100..200, 2..3]);
        // 4..5 is inside `é` (4..6): widened, and 6..8 is adjacent: apart.
        assert_eq!(data.ranges(), [Span::new(0, 3), Span::new(4, 6), Span::new(6, 8)]);
        // 5..7 widens to 4..7, overlapping both: merged.
        let data = Data::new(text, &[4..5, 6..8, 5..7]);
        assert_eq!(data.ranges(), [Span::new(4, 8)]);
    }

    #[test]
    fn adjacent_ranges_stay_apart() {
        let data = Data::new("user", &[0..2, 2..4]);
        assert_eq!(data.ranges(), [Span::new(0, 2), Span::new(2, 4)]);
    }

    #[test]
    fn lookups() {
        let data = Data::new("0123456789", &[2..4, 6..7]);
        let inside: Vec<bool> = (0..10).map(|i| data.contains(i)).collect();
        assert_eq!(inside, [false, false, true, true, false, false, true, false, false, false]);
        // Backwards after forwards: the hint never gives a wrong answer.
        assert!(data.contains(3) && !data.contains(1) && data.contains(6));
        assert!(data.is_authored(0, 2) && !data.is_authored(0, 3) && data.is_authored(4, 6));
        assert_eq!(data.within(Span::new(3, 7)), [Span::new(2, 4), Span::new(6, 7)]);
        let text = b"a@b@c@d@";
        let data = Data::new("a@b@c@d@", &[1..4]);
        let at = |from: usize| memchr::memchr(b'@', &text[from..]).map(|i| from + i);
        assert_eq!(data.find(0, 1, at), Some(5));
        let before = |end: usize| memchr::memrchr(b'@', &text[..end]);
        assert_eq!(data.rfind(5, before), None);
        assert_eq!(data.rfind(8, before), Some(7));
    }
}
