//! The syntax tree's byte spans into a template source: two `u32`s, so
//! that a node stays small (a 100 MiB template is mostly nodes). Errors
//! carry `prompt_core::text::Span`; lines and columns come from
//! `prompt_core::text`.

use std::fmt;

/// A byte range `start..end` into the template source.
///
/// Offsets are 0-based byte indexes and always fall on character
/// boundaries.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Span {
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
    pub(crate) fn start(&self) -> usize {
        self.start as usize
    }

    /// One past the last byte of the span.
    pub(crate) fn end(&self) -> usize {
        self.end as usize
    }
}

/// The same bytes as the suite's span type, which errors carry.
impl From<Span> for prompt_core::text::Span {
    fn from(span: Span) -> prompt_core::text::Span {
        prompt_core::text::Span::new(span.start(), span.end())
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}
