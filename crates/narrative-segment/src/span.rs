//! Byte spans into the narrative, and the line/column they are shown as:
//! both are `prompt_core::text`'s, the suite's one span and position types.

/// A half-open byte range `[start, end)` of the narrative text: the suite's
/// one span type. The spans this crate hands out sit on character
/// boundaries, so `&text[span.range()]` never panics for the text the span
/// came from.
pub use prompt_core::text::Span;

/// Where a byte sits, as people count: a 1-based line and a 1-based column
/// in characters (a leading byte order mark is not a column).
pub use prompt_core::text::Position;
