//! Positions in text: byte [`Span`]s, the [`LineIndex`] that turns an
//! offset into a line and a column (counted in characters, as an editor
//! shows it), the one [`snippet`] rule every diagnostic quotes by, and
//! [`Deletions`], the report of a stage that only deletes (the comment
//! stripper), which maps offsets in its output back to its input, and
//! [`index_ranges`], byte ranges counted as a host language counts.
//!
//! Library errors carry byte spans; lines and columns are computed once,
//! when an error is shown, from the text its span points into.
//!
//! ```
//! use prompt_core::text::{LineIndex, Position, Span, snippet};
//!
//! let text = "first line\n\tsecond ]] line\n";
//! let index = LineIndex::new(text);
//! assert_eq!(index.position(text, 19), Position { line: 2, column: 9 });
//! assert_eq!(snippet(text, Span::new(19, 21)), "]]");
//! assert_eq!(snippet(text, Span::at(19)), "]] line");
//! ```

use std::borrow::Cow;
use std::ops::Range;

use serde::{Deserialize, Serialize};

/// A half-open byte range `[start, end)` of a text.
///
/// The spans a crate hands out sit on character boundaries of the text they
/// came from; every function here accepts any span anyway (it is clamped),
/// so a span applied to the wrong text gives a wrong answer, never a panic.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    /// The first byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

// `#[inline]`: these are called per span in every crate's hot loop, and
// without it they are not inlined across crates (callgrind: 74 000 calls of
// `Span::new` per 3 MiB of dense comments).
impl Span {
    /// The span `[start, end)` (an `end` before `start` is taken as `start`).
    #[inline]
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end: end.max(start) }
    }

    /// The empty span at `offset`: a place, not a piece of text.
    #[inline]
    pub fn at(offset: usize) -> Span {
        Span { start: offset, end: offset }
    }

    /// The byte range, for slicing.
    #[inline]
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    /// The number of bytes.
    #[inline]
    pub fn len(self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no byte.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// Whether `offset` lies in the span.
    #[inline]
    pub fn contains(self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }

    /// The span moved `by` bytes later (a span of a piece, placed in the
    /// whole it was cut from).
    #[inline]
    pub fn shifted(self, by: usize) -> Span {
        Span { start: self.start.saturating_add(by), end: self.end.saturating_add(by) }
    }

    /// The spanned text; empty when the span does not fit `text` or cuts a
    /// character.
    #[inline]
    pub fn slice(self, text: &str) -> &str {
        text.get(self.range()).unwrap_or("")
    }
}

impl From<Range<usize>> for Span {
    #[inline]
    fn from(range: Range<usize>) -> Span {
        Span::new(range.start, range.end)
    }
}

impl From<Span> for Range<usize> {
    #[inline]
    fn from(span: Span) -> Range<usize> {
        span.range()
    }
}

/// Where a byte sits, as people count: a 1-based line and a 1-based column
/// counting characters (Unicode scalar values). Lines end at LF, so a CR of
/// a CRLF ending belongs to its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Position {
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, in characters.
    pub column: usize,
}

/// The line starts of one text, found in one pass; then any offset's
/// [`Position`] is a binary search plus a count of the characters before it
/// on its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// The offset of each line's first byte; the first is 0.
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The number of lines (a text ending with LF has an empty last line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The position of byte `offset` of `text`, the text this index was
    /// built from (an offset past the end or inside a character is clamped
    /// down to a character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = text.floor_char_boundary(offset);
        let line = self.starts.partition_point(|&start| start <= offset).max(1);
        let start = self.starts[line - 1].min(offset);
        let before = text.get(start..offset).unwrap_or("");
        Position { line, column: columns(before, line) + 1 }
    }

    /// The position of byte `offset` of `text`, counting on from `known`
    /// (an earlier offset and its position) when it is on the same line and
    /// not after `offset`, else as [`LineIndex::position`]: a stage that
    /// places many offsets in increasing order (one per warning) pays for
    /// each character once, even on one long line.
    ///
    /// ```
    /// use prompt_core::text::LineIndex;
    ///
    /// let text = "ab\nçdéf";
    /// let index = LineIndex::new(text);
    /// let first = index.position(text, 5);
    /// assert_eq!(index.position_after(text, 8, (5, first)), index.position(text, 8));
    /// assert_eq!(index.position_after(text, 1, (5, first)), index.position(text, 1));
    /// ```
    pub fn position_after(&self, text: &str, offset: usize, known: (usize, Position)) -> Position {
        let offset = text.floor_char_boundary(offset);
        let line = self.starts.partition_point(|&start| start <= offset).max(1);
        let (from, position) = known;
        match text.get(from..offset) {
            Some(between) if position.line == line && from > self.starts[line - 1] => {
                Position { line, column: position.column + between.chars().count() }
            }
            _ => self.position(text, offset),
        }
    }

    /// The text of 1-based `line` of `text`, without its line ending (LF or
    /// CRLF); empty past the last line.
    pub fn line_text<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let Some(&start) = line.checked_sub(1).and_then(|i| self.starts.get(i)) else {
            return "";
        };
        let end = self.starts.get(line).map_or(text.len(), |&next| next - 1);
        let line = text.get(start..end.max(start)).unwrap_or("");
        line.strip_suffix('\r').unwrap_or(line)
    }
}

/// The position of byte `offset` of `text`, for a one-off lookup (build a
/// [`LineIndex`] to place many).
pub fn position(text: &str, offset: usize) -> Position {
    let offset = text.floor_char_boundary(offset);
    let before = &text.as_bytes()[..offset];
    let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    Position { line, column: columns(&text[start..offset], line) + 1 }
}

/// Positions in one text placed in increasing offset order, each counted on
/// from the last: placing every problem of a long text (one per warning, in
/// document order) costs one pass over it, with no index built. An offset
/// before the last one is counted again from the start. The same positions
/// as [`position`] (a leading byte order mark is not a column).
///
/// ```
/// use prompt_core::text::{Cursor, position};
///
/// let text = "\u{feff}ab\nçdéf";
/// let mut cursor = Cursor::new(text);
/// for offset in [4, 6, 8, 2, 11] {
///     assert_eq!(cursor.position(offset), position(text, offset));
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Cursor<'t> {
    text: &'t str,
    offset: usize,
    position: Position,
}

impl<'t> Cursor<'t> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'t str) -> Cursor<'t> {
        Cursor { text, offset: 0, position: Position { line: 1, column: 1 } }
    }

    /// The text positions are placed in.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The position of byte `offset` (clamped down to a character boundary,
    /// as [`position`]).
    pub fn position(&mut self, offset: usize) -> Position {
        let offset = self.text.floor_char_boundary(offset);
        if offset < self.offset {
            self.position = position(self.text, offset);
            self.offset = offset;
            return self.position;
        }
        let gap = &self.text[self.offset..offset];
        self.position = match memchr::memrchr(b'\n', gap.as_bytes()) {
            // From the start of the text, the byte order mark rule applies.
            None if self.offset == 0 => Position { line: 1, column: columns(gap, 1) + 1 },
            None => {
                Position { column: self.position.column + gap.chars().count(), ..self.position }
            }
            Some(last) => Position {
                line: self.position.line + memchr::memchr_iter(b'\n', gap.as_bytes()).count(),
                column: gap[last + 1..].chars().count() + 1,
            },
        };
        self.offset = offset;
        self.position
    }
}

/// The characters of `before`, the start of `line` up to an offset; a byte
/// order mark leading the text is not one (editors do not show it, and
/// every reader of the suite ignores it).
fn columns(before: &str, line: usize) -> usize {
    let before = if line == 1 { before.strip_prefix('\u{feff}').unwrap_or(before) } else { before };
    before.chars().count()
}

/// The most characters a [`snippet`] quotes.
pub const SNIPPET_CHARS: usize = 40;

/// The offending text a diagnostic quotes for `span` of `text`: the spanned
/// text when the span is not empty, else the rest of its line; in both cases
/// never past the end of the line the span starts on, and at most
/// [`SNIPPET_CHARS`] characters.
///
/// ```
/// use prompt_core::text::{Span, snippet};
///
/// assert_eq!(snippet("a [[ x ]] b\nc", Span::new(2, 9)), "[[ x ]]");
/// assert_eq!(snippet("a [[ x\n]] b", Span::new(2, 10)), "[[ x");
/// assert_eq!(snippet("tail\r\n", Span::at(2)), "il");
/// assert_eq!(snippet(&"é".repeat(50), Span::at(0)).chars().count(), 40);
/// ```
pub fn snippet(text: &str, span: Span) -> &str {
    let start = text.floor_char_boundary(span.start);
    // At most SNIPPET_CHARS characters of at most 4 bytes: a snippet costs
    // the same on a line of a megabyte (a stage may quote many).
    let rest = &text[start..];
    let rest = &rest[..rest.floor_char_boundary(SNIPPET_CHARS * 4)];
    let line_end = memchr::memchr2(b'\n', b'\r', rest.as_bytes()).unwrap_or(rest.len());
    let wanted =
        if span.is_empty() { line_end } else { line_end.min(span.end - start.min(span.end)) };
    let wanted = rest.floor_char_boundary(wanted);
    let cut = rest[..wanted].char_indices().nth(SNIPPET_CHARS).map_or(wanted, |(i, _)| i);
    &rest[..cut]
}

/// A source line longer than this (in bytes) is cut to a window around the
/// column: drawing costs the same on a line of a megabyte, and a 100 MB line
/// without newlines neither floods the terminal nor is copied.
const LONG_LINE: usize = 4096;

/// The characters of a long source line shown before and after the span.
const EXCERPT_BEFORE: usize = 40;
const EXCERPT_AFTER: usize = 60;

/// The part of a source line drawn under a message, with the line and
/// column it shows: the whole line when it is short (the renderer trims it
/// to the terminal width), else a window around the column with `...` where
/// it was cut. At most 4 KiB, so an error may keep it once its text is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    line: usize,
    column: usize,
    pub(crate) text: String,
    /// The bytes of `text` under the carets (empty: one caret).
    pub(crate) span: Range<usize>,
    /// Whether `text` is a window of a longer line.
    pub(crate) cut: bool,
}

impl Excerpt {
    /// The excerpt of `span` of `text`: its line (a CR ending and, on the
    /// first line, a byte order mark left out, as columns do not count
    /// it), its column, and the span underlined up to the end of its first
    /// line. Any span is accepted (clamped to the text).
    ///
    /// ```
    /// use prompt_core::text::Excerpt;
    /// use prompt_core::text::Span;
    ///
    /// let excerpt = Excerpt::new("a\r\nbc [[ x\r\n", Span::new(6, 8));
    /// assert_eq!((excerpt.line(), excerpt.column(), excerpt.text()), (2, 4, "bc [[ x"));
    /// ```
    pub fn new(text: &str, span: Span) -> Excerpt {
        let at = position(text, span.start);
        Excerpt::placed(text, span, at)
    }

    /// [`Excerpt::new`] with the position of `span.start` already known
    /// (from a [`Cursor`]): it looks only at the bytes it shows, at most
    /// 4 KiB either side of the span's start, so placing many errors on
    /// one long line stays linear.
    pub fn placed(text: &str, span: Span, at: Position) -> Excerpt {
        let start = text.floor_char_boundary(span.start);
        let bytes = text.as_bytes();
        // The line's bounds, when they are within reach; a bound out of
        // reach means a long line.
        let back = start.saturating_sub(LONG_LINE + 1);
        let line_start = match memchr::memrchr(b'\n', &bytes[back..start]) {
            Some(i) => Some(back + i + 1),
            None => (back == 0).then_some(0),
        };
        let ahead = text.floor_char_boundary(start.saturating_add(LONG_LINE + 1));
        let line_end = match memchr::memchr(b'\n', &bytes[start..ahead]) {
            Some(i) => Some(start + i),
            None => (ahead == text.len()).then_some(text.len()),
        };
        // Without a byte order mark on the first line and a CR ending.
        let line_lo = line_start.map(|lo| match text[lo..].starts_with('\u{feff}') {
            true if at.line == 1 => lo + 3,
            _ => lo,
        });
        let line_hi = line_end.map(|hi| match text[..hi].ends_with('\r') {
            true if line_lo.is_none_or(|lo| hi > lo) => hi - 1,
            _ => hi,
        });
        let spanned = span.slice(text);
        let spanned = &spanned[..spanned.floor_char_boundary(4 * (LONG_LINE + 1))];
        let spanned = &spanned[..spanned.find('\n').unwrap_or(spanned.len())];
        let spanned = spanned.strip_suffix('\r').unwrap_or(spanned);
        let width = spanned.chars().count();
        if let (Some(lo), Some(hi)) = (line_lo, line_hi)
            && hi - lo.min(hi) <= LONG_LINE
        {
            let line = &text[lo.min(hi)..hi];
            let at_byte = start.saturating_sub(lo).min(line.len());
            return Excerpt::around(line, at.line, at.column, at_byte, width);
        }
        // A long line: a window of at most 40 characters before and 120
        // after, cut with `...` where the line goes on.
        // A column past the line's end (at its CR) shows that many fewer
        // characters before it, as a column counted on the line does.
        let over = line_hi.filter(|&hi| start > hi).map_or(0, |hi| text[hi..start].chars().count());
        let start = start.clamp(line_lo.unwrap_or(0), line_hi.unwrap_or(text.len()));
        let head_lo = text.ceil_char_boundary(
            start.saturating_sub(4 * EXCERPT_BEFORE + 4).max(line_lo.unwrap_or(0)),
        );
        let head = &text[head_lo..start];
        let from = match (EXCERPT_BEFORE - 1).checked_sub(over) {
            Some(n) => head.char_indices().rev().nth(n).map_or(head_lo, |(i, _)| head_lo + i),
            None => start,
        };
        let kept = text[from..start].chars().count();
        let rest_hi = text.floor_char_boundary(
            line_hi.unwrap_or(text.len()).min(from + 4 * (EXCERPT_BEFORE + 2 * EXCERPT_AFTER + 1)),
        );
        let rest = &text[from..rest_hi];
        let shown = byte_of_char(rest, kept + width.min(EXCERPT_AFTER) + EXCERPT_AFTER);
        let cut_before = line_lo.is_none_or(|lo| from > lo);
        let cut_after = line_hi.is_none_or(|hi| from + shown < hi);
        let mut out = String::from(if cut_before { "..." } else { "" });
        let offset = out.len();
        out.push_str(&rest[..shown]);
        let begin = offset + (start - from);
        let end = begin + byte_of_char(&out[begin..], width);
        if cut_after {
            out.push_str("...");
        }
        Excerpt {
            line: at.line,
            column: at.column,
            text: out,
            span: begin..end.min(offset + shown),
            cut: true,
        }
    }

    /// The 1-based line.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column, in characters.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The text drawn: the line, or a window of it with `...` where cut.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The excerpt of `line` (the text of line `number`) for the span of
    /// `width` characters starting at 1-based `column` (a column past the
    /// end is placed just after it).
    pub(crate) fn at_column(line: &str, number: usize, column: usize, width: usize) -> Excerpt {
        let before = column.saturating_sub(1);
        if line.len() <= LONG_LINE {
            let start = byte_of_char(line, before);
            let end = start + byte_of_char(&line[start..], width);
            return Excerpt::whole(line, number, column, start..end);
        }
        let skip = before.saturating_sub(EXCERPT_BEFORE);
        let rest = &line[byte_of_char(line, skip)..];
        let shown = byte_of_char(rest, before - skip + width.min(EXCERPT_AFTER) + EXCERPT_AFTER);
        let mut text = String::from(if skip > 0 { "..." } else { "" });
        let offset = text.len();
        text.push_str(&rest[..shown]);
        let start = offset + byte_of_char(&rest[..shown], before - skip);
        let end = start + byte_of_char(&text[start..], width);
        if shown < rest.len() {
            text.push_str("...");
        }
        Excerpt { line: number, column, text, span: start..end.min(offset + shown), cut: true }
    }

    /// [`Excerpt::at_column`] at byte `at` of `line` (clamped to a
    /// character boundary), looking only at the characters it shows on a
    /// long line.
    pub(crate) fn around(
        line: &str,
        number: usize,
        column: usize,
        at: usize,
        width: usize,
    ) -> Excerpt {
        let start = line.floor_char_boundary(at);
        if line.len() <= LONG_LINE {
            let end = start + byte_of_char(&line[start..], width);
            return Excerpt::whole(line, number, column, start..end);
        }
        let head = &line[..start];
        let from = head.char_indices().rev().nth(EXCERPT_BEFORE - 1).map_or(0, |(i, _)| i);
        let kept = head[from..].chars().count();
        let rest = &line[from..];
        let shown = byte_of_char(rest, kept + width.min(EXCERPT_AFTER) + EXCERPT_AFTER);
        let mut text = String::from(if from > 0 { "..." } else { "" });
        let offset = text.len();
        text.push_str(&rest[..shown]);
        let start = offset + (start - from);
        let end = start + byte_of_char(&text[start..], width);
        if shown < rest.len() {
            text.push_str("...");
        }
        Excerpt { line: number, column, text, span: start..end.min(offset + shown), cut: true }
    }

    fn whole(line: &str, number: usize, column: usize, span: Range<usize>) -> Excerpt {
        Excerpt { line: number, column, text: line.to_owned(), span, cut: false }
    }
}

/// The byte offset of character `n` of `text` (its length when shorter).
fn byte_of_char(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// Whether `c` is a control character that text for people shows escaped
/// ([`escape_controls`]): C0 (`\n` and `\t` included), DEL, C1, the
/// bidirectional controls U+202A..U+202E and U+2066..U+2069, and the marks
/// that reorder text as they do (U+061C, U+200E, U+200F) or break lines
/// (U+2028, U+2029).
pub fn is_escaped_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
}

/// The one escaping of text shown to people (diagnostics, warnings,
/// progress lines, usage errors, `check`'s report): every control
/// character of [`is_escaped_control`] is made visible and inert, so no
/// name or value can move the cursor, set a terminal's title or reorder
/// what is shown. A C0 character or DEL becomes its control picture
/// (U+2400..U+241F, U+2421: `\u{1b}` is `␛`, `\n` is `␊`), any other its
/// Rust escape (`\u{9b}`, `\u{202e}`). Text without them is returned
/// borrowed; the result never holds one, so escaping twice changes
/// nothing. Rendered output, request bodies and JSON are never escaped.
///
/// ```
/// use prompt_core::text::escape_controls;
///
/// assert_eq!(escape_controls("plain"), "plain");
/// assert_eq!(escape_controls("a\u{1b}]0;x\u{7}b\tc\n"), "a␛]0;x␇b␉c␊");
/// assert_eq!(escape_controls("\u{9b}2J \u{202e}cod.exe"), "\\u{9b}2J \\u{202e}cod.exe");
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_escaped_control) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c` to `out` as [`escape_controls`] shows it.
pub(crate) fn push_escaped(out: &mut String, c: char) {
    match c {
        '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
        '\u{7f}' => out.push('\u{2421}'),
        c if is_escaped_control(c) => {
            use std::fmt::Write as _;
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// Makes room in `records`, a list of what a stage found in the first
/// `done` of `total` bytes of its input, for what the rest will give, so
/// that a list of thousands of records is sized about once instead of grown
/// by doubling. Call it before each push; it does nothing while there is
/// room.
///
/// A list of fewer than 1024 records doubles as usual. A fuller one grows
/// to what the whole input holds at the rate seen so far, 1/16 more, and at
/// least 1/4 more than it has (so the pushes stay amortized linear). It
/// never reserves more than the input's size for them (one record per
/// `size_of::<T>()` bytes: a dense start, then prose, cannot reserve much
/// that stays unused): past that bound it doubles as usual.
///
/// Doubling is what made large inputs slow: each step copies the list and
/// leaves the old block behind, so 5 MiB of records took 9 MiB of heap and
/// left 5 MiB of holes (glibc then gave the heap back after every call, and
/// the next call faulted every page in again).
///
/// ```
/// use prompt_core::text::reserve_at_rate;
///
/// let mut records: Vec<u64> = Vec::new();
/// for at in (0..1_000_000).step_by(100) {
///     reserve_at_rate(&mut records, at, 1_000_000);
///     records.push(at as u64);
/// }
/// assert_eq!(records.len(), 10_000);
/// assert!(records.capacity() < 11_000);
/// ```
#[inline]
pub fn reserve_at_rate<T>(records: &mut Vec<T>, done: usize, total: usize) {
    if records.len() < records.capacity() {
        return;
    }
    grow_at_rate(records, done, total);
}

#[cold]
fn grow_at_rate<T>(records: &mut Vec<T>, done: usize, total: usize) {
    const SMALL: usize = 1024;
    let len = records.len();
    if len < SMALL || done == 0 || done >= total {
        records.reserve(1);
        return;
    }
    // u128: `len * total` cannot overflow.
    let at_rate = (len as u128 * total as u128 / done as u128).min(usize::MAX as u128) as usize;
    let wanted = at_rate.saturating_add(at_rate / 16);
    let bound = total / std::mem::size_of::<T>().max(1);
    let target = if wanted <= bound {
        wanted.max(len.saturating_add(len / 4))
    } else {
        bound.max(len.saturating_mul(2))
    };
    records.reserve_exact(target - len);
}

/// What a stage that only deletes did to its input: the deleted byte spans,
/// in order. It maps an offset in the output back to the input, so that an
/// error a later stage finds points where the author can fix it.
///
/// ```
/// use prompt_core::text::{Deletions, Span};
///
/// // "ab/// x\ncd" became "ab\ncd": bytes 2..7 were deleted.
/// let mut deletions = Deletions::new();
/// deletions.push(Span::new(2, 7));
/// assert_eq!(deletions.to_input(1), 1);
/// assert_eq!(deletions.to_input(2), 7); // the "\n" after the comment
/// assert_eq!(deletions.to_input(4), 9); // the "d"
/// ```
///
/// Recording is one push per deletion (a stage records thousands per
/// megabyte); the table that maps offsets is built on the first lookup,
/// which only an error or a warning needs.
#[derive(Debug, Clone, Default)]
pub struct Deletions {
    /// The deleted spans of the input, in order, touching ones merged.
    spans: Vec<Span>,
    /// How many bytes were deleted in all.
    deleted: usize,
    /// Each deletion as `(its start in the output, bytes deleted up to and
    /// including it)`, built from `spans` on the first lookup.
    marks: std::sync::OnceLock<Vec<(usize, usize)>>,
    /// The input's length when known ([`Deletions::for_input`]): the list
    /// is then sized with [`reserve_at_rate`]; 0 when not.
    input_len: usize,
}

impl PartialEq for Deletions {
    fn eq(&self, other: &Deletions) -> bool {
        self.spans == other.spans
    }
}

impl Eq for Deletions {}

impl Deletions {
    /// No deletions: the output is the input.
    pub fn new() -> Deletions {
        Deletions::default()
    }

    /// No deletions yet, for an input of `input_len` bytes: a stage that
    /// records thousands of deletions gets a list sized about once (see
    /// [`reserve_at_rate`]) instead of grown by doubling. Otherwise the same
    /// as [`Deletions::new`].
    ///
    /// ```
    /// use prompt_core::text::{Deletions, Span};
    ///
    /// let mut deletions = Deletions::for_input(10);
    /// deletions.push(Span::new(2, 4));
    /// assert_eq!(deletions, {
    ///     let mut other = Deletions::new();
    ///     other.push(Span::new(2, 4));
    ///     other
    /// });
    /// ```
    pub fn for_input(input_len: usize) -> Deletions {
        Deletions { input_len, ..Deletions::default() }
    }

    /// Records that `span` of the input was deleted. Spans must come in
    /// order and not overlap; an empty span or one that starts before the
    /// end of the last is ignored (a stage bug must not move positions
    /// backwards). Touching spans are merged.
    #[inline]
    pub fn push(&mut self, span: Span) {
        if span.is_empty() {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if span.start < last.end => return,
            Some(last) if span.start == last.end => last.end = span.end,
            _ => {
                reserve_at_rate(&mut self.spans, span.start, self.input_len);
                self.spans.push(span);
            }
        }
        self.deleted += span.len();
        // A lookup may have built the table already: it is rebuilt.
        if self.marks.get_mut().is_some() {
            self.marks = std::sync::OnceLock::new();
        }
    }

    /// The deleted spans of the input, in order.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// How many bytes were deleted in all.
    pub fn deleted(&self) -> usize {
        self.deleted
    }

    fn marks(&self) -> &[(usize, usize)] {
        self.marks.get_or_init(|| {
            let mut deleted = 0;
            self.spans
                .iter()
                .map(|span| {
                    let start = span.start - deleted;
                    deleted += span.len();
                    (start, deleted)
                })
                .collect()
        })
    }

    /// The input offset of byte `offset` of the output: the same byte, or
    /// for the end of the output, the end of the input. An offset at a
    /// deletion maps to the byte after it.
    pub fn to_input(&self, offset: usize) -> usize {
        let marks = self.marks();
        let index = marks.partition_point(|&(start, _)| start <= offset);
        match index.checked_sub(1) {
            Some(i) => offset + marks[i].1,
            None => offset,
        }
    }

    /// [`Deletions::to_input`] for both ends of `span`.
    pub fn span_to_input(&self, span: Span) -> Span {
        if span.is_empty() {
            return Span::at(self.to_input(span.start));
        }
        // The end is one past the last byte: map the last byte itself.
        Span::new(self.to_input(span.start), self.to_input(span.end - 1) + 1)
    }
}

/// How a host language counts positions in a string, for handing byte
/// ranges to it ([`index_ranges`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexUnit {
    /// Bytes of UTF-8 (Rust's own `str` indices).
    Bytes,
    /// Code points (Python's `str` indices).
    Chars,
    /// UTF-16 code units (JavaScript's string indices: `s.slice(a, b)`).
    Utf16,
}

/// Byte ranges of `text` in the index `unit` of a host language, in one
/// forward pass over the text: the ranges must come sorted by start and
/// must not overlap (a render's data ranges are). A bound past the end or
/// inside a character is clamped down to a character boundary, so any
/// range is accepted. The Python and JavaScript packages hand data ranges
/// over through this one function.
///
/// ```
/// use prompt_core::text::{IndexUnit, index_ranges};
///
/// let text = "é😀x";
/// let ranges = [0..2, 2..6, 6..7];
/// assert_eq!(index_ranges(text, ranges.clone(), IndexUnit::Chars), [(0, 1), (1, 2), (2, 3)]);
/// assert_eq!(index_ranges(text, ranges.clone(), IndexUnit::Utf16), [(0, 1), (1, 3), (3, 4)]);
/// assert_eq!(index_ranges(text, ranges, IndexUnit::Bytes), [(0, 2), (2, 6), (6, 7)]);
/// ```
pub fn index_ranges(
    text: &str,
    ranges: impl IntoIterator<Item = Range<usize>>,
    unit: IndexUnit,
) -> Vec<(usize, usize)> {
    let count = |piece: &str| match unit {
        IndexUnit::Bytes => piece.len(),
        IndexUnit::Chars => piece.chars().count(),
        IndexUnit::Utf16 => piece.chars().map(char::len_utf16).sum(),
    };
    // `units` host units lie before byte `at`.
    let (mut at, mut units) = (0usize, 0usize);
    let mut advance = |to: usize| {
        let mut to = to.min(text.len());
        while !text.is_char_boundary(to) {
            to -= 1;
        }
        if to > at {
            units += text.get(at..to).map_or(0, count);
            at = to;
        }
        units
    };
    ranges
        .into_iter()
        .map(|range| {
            let start = advance(range.start);
            (start, advance(range.end).max(start))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_ranges_clamp_bounds_inside_characters_and_past_the_end() {
        let text = "a😀b";
        // 2 and 3 are inside the emoji: clamped down to 1.
        assert_eq!(index_ranges(text, [0..2, 3..99], IndexUnit::Utf16), [(0, 1), (1, 4)]);
        assert_eq!(index_ranges(text, vec![5..5, 6..6], IndexUnit::Chars), [(2, 2), (3, 3)]);
        // A reversed range (end before start) comes out empty.
        let reversed = std::ops::Range { start: 3, end: 1 };
        assert_eq!(
            index_ranges("", vec![reversed.clone(), reversed], IndexUnit::Bytes),
            [(0, 0), (0, 0)]
        );
    }

    #[test]
    fn records_are_sized_at_the_rate_seen() {
        // Small lists double; a full one of 1024 or more grows to the rate.
        let mut records: Vec<[u8; 8]> = Vec::with_capacity(1000);
        records.resize(1000, [0; 8]);
        reserve_at_rate(&mut records, 1000, 10_000);
        assert_eq!(records.capacity(), 2000);
        let mut records: Vec<[u8; 8]> = vec![[0; 8]; 2000];
        records.shrink_to_fit();
        reserve_at_rate(&mut records, 20_000, 100_000);
        assert_eq!(records.capacity(), 10_000 + 10_000 / 16);
        // A dense start: at most one record per 8 bytes of input, else
        // doubling.
        let mut records: Vec<[u8; 8]> = vec![[0; 8]; 2000];
        records.shrink_to_fit();
        reserve_at_rate(&mut records, 2_000, 100_000);
        assert_eq!(records.capacity(), 12_500);
        let mut records: Vec<[u8; 8]> = vec![[0; 8]; 2000];
        records.shrink_to_fit();
        reserve_at_rate(&mut records, 2_000, 20_000);
        assert_eq!(records.capacity(), 4000);
        // Near the end, still a quarter more; past it (or none), doubling.
        let mut records: Vec<[u8; 8]> = vec![[0; 8]; 2000];
        records.shrink_to_fit();
        reserve_at_rate(&mut records, 99_999, 100_000);
        assert_eq!(records.capacity(), 2500);
        for (done, total) in [(0, 100), (100, 100), (5, 0)] {
            let mut records = vec![0u8; 2000];
            records.shrink_to_fit();
            reserve_at_rate(&mut records, done, total);
            assert_eq!(records.capacity(), 4000);
        }
        // Large numbers do not overflow.
        let mut records = vec![0u8; 2000];
        records.shrink_to_fit();
        reserve_at_rate(&mut records, usize::MAX / 2, usize::MAX);
        assert_eq!(records.capacity(), 4000 + 4000 / 16);
    }

    #[test]
    fn positions_count_characters_and_lines_end_at_lf() {
        let text = "aé\r\nb\n\nxyz";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        let cases = [
            (0, 1, 1),
            (1, 1, 2),
            (2, 1, 2),
            (3, 1, 3),
            (4, 1, 4),
            (5, 2, 1),
            (7, 3, 1),
            (8, 4, 1),
            (99, 4, 4),
        ];
        for (offset, line, column) in cases {
            let expected = Position { line, column };
            assert_eq!(index.position(text, offset), expected, "offset {offset}");
            assert_eq!(position(text, offset), expected, "offset {offset}");
        }
        assert_eq!(index.line_text(text, 1), "aé");
        assert_eq!(index.line_text(text, 3), "");
        assert_eq!(index.line_text(text, 4), "xyz");
        assert_eq!(index.line_text(text, 0), "");
        assert_eq!(index.line_text(text, 5), "");
        assert_eq!(LineIndex::new("").position("", 0), Position { line: 1, column: 1 });
        // A leading byte order mark is not a column.
        let marked = "\u{feff}ab\n\u{feff}c";
        let index = LineIndex::new(marked);
        assert_eq!(index.position(marked, 4), Position { line: 1, column: 2 });
        assert_eq!(position(marked, 4), Position { line: 1, column: 2 });
        assert_eq!(position(marked, 10), Position { line: 2, column: 3 });
    }

    #[test]
    fn a_cursor_agrees_with_position() {
        for text in ["ab\nПривет @x\n\nz é\n", "\u{feff}a\u{feff}b\n\u{feff}c", ""] {
            let mut cursor = Cursor::new(text);
            for offset in [0, 1, 3, 4, 16, 17, 18, 19, 2, 21, 999, 5, 5, 0, 7] {
                assert_eq!(cursor.position(offset), position(text, offset), "{text:?} {offset}");
            }
        }
    }

    #[test]
    fn snippets_stay_on_their_line() {
        let text = "one two\nthree";
        assert_eq!(snippet(text, Span::new(4, 7)), "two");
        assert_eq!(snippet(text, Span::new(4, 10)), "two");
        assert_eq!(snippet(text, Span::at(4)), "two");
        assert_eq!(snippet(text, Span::at(8)), "three");
        assert_eq!(snippet(text, Span::at(99)), "");
        assert_eq!(snippet(text, Span::new(99, 120)), "");
        // Inside a character: clamped down to its start.
        assert_eq!(snippet("aéb", Span::new(2, 3)), "é");
        let long = "x".repeat(100);
        assert_eq!(snippet(&long, Span::new(0, 100)).len(), SNIPPET_CHARS);
        // Counting on from an earlier position gives the same positions.
        let text = "\u{feff}ab ç\nd é f\n";
        let index = LineIndex::new(text);
        let mut known = (0, index.position(text, 0));
        for offset in 0..=text.len() {
            let at = index.position_after(text, offset, known);
            assert_eq!(at, index.position(text, offset), "{offset}");
            known = (text.floor_char_boundary(offset), at);
        }
        // Only the start of a long line is looked at, in any width of
        // character; the rule is the same.
        let wide = "😀".repeat(100);
        assert_eq!(snippet(&wide, Span::at(0)).chars().count(), SNIPPET_CHARS);
        assert_eq!(snippet(&wide, Span::new(4, 12)), "😀😀");
        let line = format!("{}\nnext", "é".repeat(30));
        assert_eq!(snippet(&line, Span::at(0)).chars().count(), 30);
    }

    #[test]
    fn spans() {
        let span = Span::new(3, 1);
        assert_eq!((span.start, span.end, span.is_empty()), (3, 3, true));
        let span: Span = (2..5).into();
        assert_eq!((span.len(), span.contains(4), span.contains(5)), (3, true, false));
        assert_eq!(span.shifted(10).range(), 12..15);
        assert_eq!(span.slice("abcdef"), "cde");
        assert_eq!(span.slice("ab"), "");
        assert_eq!(Span::new(1, 2).slice("é"), "");
    }

    #[test]
    fn deletions_map_back_in_order() {
        // "a/// x\nb /// y\nc" -> "a\nb\nc"
        let input = "a/// x\nb /// y\nc";
        let mut deletions = Deletions::new();
        deletions.push(Span::new(1, 6));
        deletions.push(Span::new(8, 14));
        let output: String = [&input[..1], &input[6..8], &input[14..]].concat();
        assert_eq!(output, "a\nb\nc");
        for (offset, c) in output.char_indices() {
            let back = deletions.to_input(offset);
            assert_eq!(&input[back..back + 1], c.to_string(), "offset {offset}");
        }
        assert_eq!(deletions.to_input(output.len()), input.len());
        assert_eq!(deletions.deleted(), 11);
        assert_eq!(deletions.span_to_input(Span::new(2, 5)), Span::new(7, 16));
        // Touching spans merge; backwards and empty ones are ignored.
        deletions.push(Span::new(14, 15));
        deletions.push(Span::new(3, 4));
        deletions.push(Span::at(20));
        assert_eq!(deletions.spans(), [Span::new(1, 6), Span::new(8, 15)]);
        assert_eq!(deletions.deleted(), 12);
    }

    proptest::proptest! {
        #[test]
        fn deletions_agree_with_a_naive_walk(
            text in "[a-c\\n]{0,40}",
            cuts in proptest::collection::vec((0usize..40, 0usize..6), 0..6),
        ) {
            let mut deletions = Deletions::new();
            let mut kept = Vec::new();
            let mut at = 0;
            let mut cuts = cuts;
            cuts.sort();
            for (start, len) in cuts {
                let start = start.max(at).min(text.len());
                let end = (start + len).min(text.len());
                kept.extend(at..start);
                deletions.push(Span::new(start, end));
                at = end.max(at);
            }
            kept.extend(at..text.len());
            for (offset, &input) in kept.iter().enumerate() {
                proptest::prop_assert_eq!(deletions.to_input(offset), input);
            }
        }
    }
}
