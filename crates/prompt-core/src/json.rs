//! JSON input, read strictly and the same way by every crate.
//!
//! [`from_str`] is `serde_json::from_str` with three promises added:
//!
//! * a leading UTF-8 byte order mark is ignored (editors on Windows write
//!   one; serde_json fails on it with "expected value");
//! * a key that appears twice in one object is a [`JsonErrorKind::DuplicateKey`]
//!   error at the second occurrence, in every object of the document, however
//!   deep (serde_json keeps the last value silently);
//! * an integer literal outside the 64-bit signed range is a
//!   [`JsonErrorKind::IntegerOutOfRange`] error at the number (serde_json
//!   silently turns it into the nearest float). [`Reader::any_integers`]
//!   lifts this for readers that pass numbers through as written, with
//!   `serde_json::value::RawValue` fields.
//!
//! Errors carry a byte offset into the text as given (a byte order mark
//! included), a 1-based line and a column counted in characters (what an
//! editor shows; serde_json counts bytes), the offending snippet and a message
//! without serde_json's "at line .. column .." suffix, so that the message
//! and the position can never disagree.
//!
//! How: serde_json parses first (so syntax errors come from the well-tested
//! parser, and the text is known to be valid JSON afterwards); then one
//! linear pass over the valid text checks keys and integers. The pass keeps
//! one set of keys per open object and stops nesting at serde_json's own
//! limit of 128 levels, so its memory is bounded by the input.
//!
//! A reader given a memory limit ([`Reader::memory_limit`]) runs that pass
//! first and also counts, as it goes, the memory the values read will take
//! ([`Budget`]'s model); past the limit the text is refused
//! ([`JsonErrorKind::MemoryLimit`], at the value where the count passed it)
//! before anything is built. A syntax error anywhere in the text still comes
//! first.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::ops::Range;

use serde::Deserialize;

use crate::text::Excerpt;

/// How deep arrays and objects may nest: serde_json's own recursion limit,
/// which also bounds the checking pass (a pass-through reader whose
/// `RawValue` fields serde_json does not descend into is held to it too).
pub const MAX_DEPTH: usize = 128;

/// The longest snippet an error quotes, in characters.
const SNIPPET_CHARS: usize = 40;

/// `text` without a leading UTF-8 byte order mark.
///
/// ```
/// assert_eq!(prompt_core::json::strip_bom("\u{feff}[1]"), "[1]");
/// assert_eq!(prompt_core::json::strip_bom("[1]"), "[1]");
/// ```
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses `text` as JSON into `T`, strictly: see the [module docs](self).
///
/// ```
/// use prompt_core::json::{self, JsonErrorKind};
///
/// let err = json::from_str::<serde_json::Value>(r#"[{"a": 1}, {"b": {"a": 2, "a": 3}}]"#).unwrap_err();
/// assert_eq!(err.kind(), JsonErrorKind::DuplicateKey);
/// assert_eq!((err.key(), err.offset()), (Some("a"), 26));
/// assert_eq!(err.to_string(), "duplicate key `a` in an object");
/// ```
///
/// # Errors
///
/// A [`JsonError`] of kind [`JsonErrorKind::Syntax`] (not JSON, or nested
/// deeper than [`MAX_DEPTH`]), [`JsonErrorKind::Shape`] (JSON, but not the
/// shape `T` wants), [`JsonErrorKind::DuplicateKey`] or
/// [`JsonErrorKind::IntegerOutOfRange`].
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, JsonError> {
    Reader::new().parse(text)
}

/// A strict JSON reader; [`Reader::new`] is what [`from_str`] uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reader {
    any_integers: bool,
    /// The bytes the values read may take ([`Budget`]), when limited.
    memory_limit: Option<usize>,
}

impl Reader {
    /// The strict reader: byte order mark ignored, duplicate keys and
    /// integers outside `i64` rejected.
    pub fn new() -> Reader {
        Reader::default()
    }

    /// The same, but integers of any size are allowed: for readers that pass
    /// numbers through as written (with `serde_json::value::RawValue`
    /// fields). Parsed into a number type, a big integer still becomes
    /// serde_json's nearest float, so use it only with raw fields.
    ///
    /// ```
    /// use serde_json::value::RawValue;
    ///
    /// let reader = prompt_core::json::Reader::new().any_integers();
    /// let fields: Vec<Box<RawValue>> = reader.parse("[18446744073709551616, 1.50]")?;
    /// assert_eq!(fields[0].get(), "18446744073709551616");
    /// assert_eq!(fields[1].get(), "1.50");
    /// # Ok::<(), prompt_core::json::JsonError>(())
    /// ```
    pub fn any_integers(mut self) -> Reader {
        self.any_integers = true;
        self
    }

    /// The same, but the values read may take at most `bytes` of memory, as
    /// [`Budget`] counts them (every value's slot, every object entry and
    /// key, every string's text and allocation). The count is made on the
    /// text before anything is built, so a document past the limit costs
    /// one pass over its text and nothing more: a
    /// [`JsonErrorKind::MemoryLimit`] error at the value where the count
    /// passed the limit.
    ///
    /// ```
    /// use prompt_core::json::{JsonErrorKind, Reader};
    ///
    /// let reader = Reader::new().memory_limit(1000);
    /// let small: serde_json::Value = reader.parse(r#"[{"a": 1}]"#)?;
    /// assert_eq!(small[0]["a"], 1);
    /// let many = format!("[{}0]", "0,".repeat(100));
    /// let err = reader.parse::<serde_json::Value>(&many).unwrap_err();
    /// assert_eq!(err.kind(), JsonErrorKind::MemoryLimit);
    /// assert_eq!(err.message(), "the values read would take more than the memory limit of 1000 bytes");
    /// assert_eq!(err.column(), 26);
    /// # Ok::<(), prompt_core::json::JsonError>(())
    /// ```
    pub fn memory_limit(mut self, bytes: usize) -> Reader {
        self.memory_limit = Some(bytes);
        self
    }

    /// Parses `text` into `T`; see [`from_str`].
    ///
    /// # Errors
    ///
    /// As [`from_str`]; [`JsonErrorKind::MemoryLimit`] past
    /// [`Reader::memory_limit`].
    pub fn parse<'a, T: Deserialize<'a>>(&self, text: &'a str) -> Result<T, JsonError> {
        let body = strip_bom(text);
        if self.memory_limit.is_some() {
            // Counted before anything is built; a syntax error anywhere
            // still comes first (checked without building anything).
            if let Err(problem) = self.check(text) {
                serde_json::from_str::<serde::de::IgnoredAny>(body)
                    .map_err(|err| JsonError::from_serde(text, &err))?;
                return Err(problem);
            }
            return serde_json::from_str(body).map_err(|err| JsonError::from_serde(text, &err));
        }
        let value = serde_json::from_str(body).map_err(|err| JsonError::from_serde(text, &err))?;
        self.check(text)?;
        Ok(value)
    }

    /// Checks keys and integers of `text`, which serde_json already accepted
    /// (a byte order mark may lead it). On text that is not JSON the check
    /// finds nothing it can be sure of and returns `Ok`; parse with
    /// [`Reader::parse`] to get the syntax error.
    ///
    /// # Errors
    ///
    /// [`JsonErrorKind::DuplicateKey`], [`JsonErrorKind::IntegerOutOfRange`],
    /// or [`JsonErrorKind::Syntax`] for nesting deeper than [`MAX_DEPTH`].
    pub fn check(&self, text: &str) -> Result<(), JsonError> {
        let body = strip_bom(text);
        let mut budget = self.memory_limit.map(Budget::new);
        match scan(body, self.any_integers, budget.as_mut()) {
            None => Ok(()),
            Some(problem) => Err(JsonError::new(text, problem, self.memory_limit.unwrap_or(0))),
        }
    }
}

/// What one JSON value takes in its list, or at the top (the size of a
/// `serde_json::Value`: 72 bytes with the workspace's `preserve_order`).
pub const VALUE_BYTES: usize = size_of::<serde_json::Value>();

/// What one entry of a JSON object takes beyond its key's text and its
/// value's own allocations: the value's slot, the key's `String`, the
/// index's hash and position.
pub const ENTRY_BYTES: usize = VALUE_BYTES + size_of::<String>() + 2 * size_of::<usize>();

/// What the allocator keeps beside each allocation (a string's text, a
/// list's items, an object's entries and its index), about.
pub const ALLOCATION_BYTES: usize = 16;

/// The memory that values built from input may take, and what they took so
/// far: one model of what a value costs, used by every reader that builds
/// values from input (a JSON text, a TOML table, a Python object), so that
/// one limit means the same everywhere.
///
/// The model: every value its slot ([`VALUE_BYTES`], or [`ENTRY_BYTES`]
/// with its key in an object), every string and key its bytes and an
/// allocation ([`ALLOCATION_BYTES`]), every list one allocation and every
/// object two (entries and index). It is about what serde_json's values
/// take; the template engine's own values take less.
///
/// ```
/// use prompt_core::json::{Budget, VALUE_BYTES};
///
/// let mut budget = Budget::new(100);
/// budget.value()?;
/// assert_eq!(budget.spent(), VALUE_BYTES);
/// let over = budget.text(64).unwrap_err();
/// assert_eq!(over.to_string(), "more than the memory limit of 100 bytes");
/// // Nothing is counted past the limit.
/// assert_eq!(budget.spent(), VALUE_BYTES);
/// # Ok::<(), prompt_core::json::OverBudget>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    limit: usize,
    spent: usize,
}

impl Budget {
    /// A budget of `limit` bytes, nothing spent.
    pub fn new(limit: usize) -> Budget {
        Budget { limit, spent: 0 }
    }

    /// The limit.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes counted so far.
    pub fn spent(&self) -> usize {
        self.spent
    }

    /// Counts `bytes`, or refuses them (counting nothing) when they would
    /// pass the limit.
    ///
    /// # Errors
    ///
    /// [`OverBudget`] past the limit.
    #[inline]
    pub fn charge(&mut self, bytes: usize) -> Result<(), OverBudget> {
        match self.spent.checked_add(bytes).filter(|&spent| spent <= self.limit) {
            Some(spent) => {
                self.spent = spent;
                Ok(())
            }
            None => Err(OverBudget { limit: self.limit }),
        }
    }

    /// Counts one value's slot in a list, or at the top.
    ///
    /// # Errors
    ///
    /// [`OverBudget`] past the limit.
    #[inline]
    pub fn value(&mut self) -> Result<(), OverBudget> {
        self.charge(VALUE_BYTES)
    }

    /// Counts one entry of an object whose key is `key_bytes` long (the
    /// value's slot included).
    ///
    /// # Errors
    ///
    /// [`OverBudget`] past the limit.
    #[inline]
    pub fn entry(&mut self, key_bytes: usize) -> Result<(), OverBudget> {
        self.charge(ENTRY_BYTES.saturating_add(allocated(key_bytes)))
    }

    /// Counts a string's text of `bytes`.
    ///
    /// # Errors
    ///
    /// [`OverBudget`] past the limit.
    #[inline]
    pub fn text(&mut self, bytes: usize) -> Result<(), OverBudget> {
        self.charge(allocated(bytes))
    }

    /// Counts a list's allocation (its items are counted one by one).
    ///
    /// # Errors
    ///
    /// [`OverBudget`] past the limit.
    #[inline]
    pub fn list(&mut self) -> Result<(), OverBudget> {
        self.charge(ALLOCATION_BYTES)
    }

    /// Counts an object's allocations (its entries are counted one by one).
    ///
    /// # Errors
    ///
    /// [`OverBudget`] past the limit.
    #[inline]
    pub fn object(&mut self) -> Result<(), OverBudget> {
        self.charge(2 * ALLOCATION_BYTES)
    }

    /// Counts a copy of `value` (its slot included), stopping at the first
    /// part past the limit: what copying it will take, counted before the
    /// copy is made. The walk holds one pointer per level, never a copy.
    ///
    /// ```
    /// use prompt_core::json::{Budget, Reader};
    ///
    /// let text = r#"{"messages": [{"role": "user", "content": "Hi"}], "n": [1, 2.5, null]}"#;
    /// let value: serde_json::Value = serde_json::from_str(text)?;
    /// // The same count as a reader's, for text without escapes.
    /// let mut budget = Budget::new(usize::MAX);
    /// budget.json(&value)?;
    /// let just = budget.spent();
    /// assert!(Reader::new().memory_limit(just).check(text).is_ok());
    /// assert!(Reader::new().memory_limit(just - 1).check(text).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`OverBudget`] past the limit.
    pub fn json(&mut self, value: &serde_json::Value) -> Result<(), OverBudget> {
        use serde_json::Value as J;
        enum Level<'a> {
            Items(std::slice::Iter<'a, J>),
            Fields(serde_json::map::Iter<'a>),
        }
        self.value()?;
        let mut levels: Vec<Level<'_>> = Vec::new();
        let mut next = Some(value);
        loop {
            match next.take() {
                Some(J::String(text)) => self.text(text.len())?,
                Some(J::Array(items)) => {
                    self.list()?;
                    levels.push(Level::Items(items.iter()));
                }
                Some(J::Object(map)) => {
                    self.object()?;
                    levels.push(Level::Fields(map.iter()));
                }
                _ => {}
            }
            match levels.last_mut() {
                None => return Ok(()),
                Some(Level::Items(items)) => match items.next() {
                    Some(item) => {
                        self.value()?;
                        next = Some(item);
                    }
                    None => drop(levels.pop()),
                },
                Some(Level::Fields(fields)) => match fields.next() {
                    Some((key, item)) => {
                        self.entry(key.len())?;
                        next = Some(item);
                    }
                    None => drop(levels.pop()),
                },
            }
        }
    }
}

/// `bytes` of text and their allocation (none when empty).
#[inline]
fn allocated(bytes: usize) -> usize {
    if bytes == 0 { 0 } else { bytes.saturating_add(ALLOCATION_BYTES) }
}

/// Values that would pass a [`Budget`]'s limit: the caller says what was
/// being read, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    limit: usize,
}

impl OverBudget {
    /// The limit passed.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "more than the memory limit of {} bytes", self.limit)
    }
}

impl std::error::Error for OverBudget {}

/// What went wrong, for [`JsonError::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// Not JSON: a syntax error, the text ending early, or arrays and
    /// objects nested deeper than [`MAX_DEPTH`].
    Syntax,
    /// Valid JSON of the wrong shape for what was asked (a string where a
    /// number was wanted, a missing or unknown field).
    Shape,
    /// A key that appears twice in one object, e.g.
    /// `{"role": "user", "role": "system"}`.
    DuplicateKey,
    /// An integer literal outside `-9223372036854775808..=9223372036854775807`.
    IntegerOutOfRange,
    /// Values that would take more than the reader's memory limit
    /// ([`Reader::memory_limit`]).
    MemoryLimit,
}

impl JsonErrorKind {
    /// The snake_case name: `syntax`, `shape`, `duplicate_key`,
    /// `integer_out_of_range`, `memory_limit`.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonErrorKind::Syntax => "syntax",
            JsonErrorKind::Shape => "shape",
            JsonErrorKind::DuplicateKey => "duplicate_key",
            JsonErrorKind::IntegerOutOfRange => "integer_out_of_range",
            JsonErrorKind::MemoryLimit => "memory_limit",
        }
    }
}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON input that was refused, and where.
///
/// One pointer wide, so `Result<T, JsonError>` stays cheap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    repr: Box<Repr>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
    kind: JsonErrorKind,
    message: String,
    span: Range<usize>,
    line: usize,
    column: usize,
    snippet: String,
    key: Option<String>,
    /// The source line, kept for [`JsonError::annotated`].
    excerpt: Excerpt,
}

impl JsonError {
    /// What went wrong.
    pub fn kind(&self) -> JsonErrorKind {
        self.repr.kind
    }

    /// The message, without a position (the position is in
    /// [`JsonError::line`] and [`JsonError::column`]).
    pub fn message(&self) -> &str {
        &self.repr.message
    }

    /// The byte offset of the problem in the text as given (a byte order
    /// mark included).
    pub fn offset(&self) -> usize {
        self.repr.span.start
    }

    /// The bytes of the offending token (a key, a number) in the text as
    /// given; empty for a syntax error, which is at one place.
    pub fn span(&self) -> Range<usize> {
        self.repr.span.clone()
    }

    /// The 1-based line of [`JsonError::offset`].
    pub fn line(&self) -> usize {
        self.repr.line
    }

    /// The 1-based column of [`JsonError::offset`], in characters (a byte
    /// order mark not counted).
    pub fn column(&self) -> usize {
        self.repr.column
    }

    /// The offending text: the key or number as written, or for a syntax
    /// error the rest of the line from the offset; at most 40 characters.
    pub fn snippet(&self) -> &str {
        &self.repr.snippet
    }

    /// The repeated key of a [`JsonErrorKind::DuplicateKey`] error, decoded.
    pub fn key(&self) -> Option<&str> {
        self.repr.key.as_deref()
    }

    /// The source line of the problem, as [`JsonError::annotated`] draws it.
    pub fn excerpt(&self) -> &Excerpt {
        &self.repr.excerpt
    }

    fn new(text: &str, problem: Problem, memory_limit: usize) -> JsonError {
        let Problem { kind, span, key } = problem;
        let bom = text.len() - strip_bom(text).len();
        let span = span.start + bom..span.end + bom;
        let token = &text[span.clone()];
        let message = match (&key, kind) {
            (Some(key), _) => format!("duplicate key `{key}` in an object"),
            (None, JsonErrorKind::IntegerOutOfRange) => format!(
                "the integer {} is outside the 64-bit signed range ({} to {})",
                shorten(token),
                i64::MIN,
                i64::MAX
            ),
            (None, JsonErrorKind::MemoryLimit) => format!(
                "the values read would take more than the memory limit of {memory_limit} bytes"
            ),
            (None, _) => {
                format!("nested deeper than {MAX_DEPTH} levels (recursion limit exceeded)")
            }
        };
        JsonError::at(text, kind, message, span, key)
    }

    fn from_serde(text: &str, err: &serde_json::Error) -> JsonError {
        let kind = match err.classify() {
            serde_json::error::Category::Data => JsonErrorKind::Shape,
            _ => JsonErrorKind::Syntax,
        };
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        let bom = text.len() - strip_bom(text).len();
        let body = &text[bom..];
        // serde_json counts lines from 1 and columns in bytes from 1 (0 when
        // it stopped right after a newline); line 0 means no position.
        let offset = if err.line() == 0 {
            body.len()
        } else {
            let line_start = line_start(body, err.line());
            body.floor_char_boundary(line_start + err.column().saturating_sub(1))
        };
        JsonError::at(text, kind, message, bom + offset..bom + offset, None)
    }

    fn at(
        text: &str,
        kind: JsonErrorKind,
        message: String,
        span: Range<usize>,
        key: Option<String>,
    ) -> JsonError {
        let bom = text.len() - strip_bom(text).len();
        let body = &text[bom..];
        let offset = span.start.saturating_sub(bom);
        let before = &body[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let column = before[line_start..].chars().count() + 1;
        let snippet = if span.is_empty() {
            let rest = &body[offset..];
            let rest = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
            rest.chars().take(SNIPPET_CHARS).collect()
        } else {
            text[span.clone()].chars().take(SNIPPET_CHARS).collect()
        };
        let excerpt = Excerpt::new(text, span.clone().into());
        JsonError {
            repr: Box::new(Repr { kind, message, span, line, column, snippet, key, excerpt }),
        }
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr.message)
    }
}

impl std::error::Error for JsonError {}

/// A number as a message quotes it: whole when short, else its ends.
fn shorten(token: &str) -> Cow<'_, str> {
    if token.len() <= SNIPPET_CHARS {
        Cow::Borrowed(token)
    } else {
        Cow::Owned(format!(
            "{}...{} ({} digits)",
            &token[..12],
            &token[token.len() - 12..],
            token.len()
        ))
    }
}

/// The byte offset where 1-based `line` starts (the end of `text` if it has
/// fewer lines).
fn line_start(text: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1)
}

/// A problem the checking pass found, at a span of the text it scanned.
struct Problem {
    kind: JsonErrorKind,
    span: Range<usize>,
    key: Option<String>,
}

/// One open array or object of the checking pass.
enum Frame<'a> {
    Array,
    /// The keys seen so far, and whether the next string is a key.
    Object {
        keys: HashSet<Cow<'a, str>>,
        want_key: bool,
    },
}

/// The checking pass over valid JSON: one left-to-right walk, no recursion.
/// On text that is not JSON it may stop early; it never panics. With a
/// budget, it counts the values as [`Budget`] models them (a string by its
/// text as written: never less than its value).
fn scan(text: &str, any_integers: bool, mut budget: Option<&mut Budget>) -> Option<Problem> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut i = 0;
    // Counts a value starting at `i` (its slot, unless an entry holds it,
    // and `extra`); a problem once over the limit.
    macro_rules! count {
        ($stack:expr, $extra:expr) => {
            if let Some(budget) = budget.as_deref_mut() {
                let in_entry = matches!($stack.last(), Some(Frame::Object { .. }));
                let slot = if in_entry { Ok(()) } else { budget.value() };
                if slot.and_then(|()| $extra(budget)).is_err() {
                    return Some(Problem {
                        kind: JsonErrorKind::MemoryLimit,
                        span: i..i,
                        key: None,
                    });
                }
            }
        };
    }
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => {
                if stack.len() == MAX_DEPTH {
                    return Some(Problem { kind: JsonErrorKind::Syntax, span: i..i, key: None });
                }
                if bytes[i] == b'{' {
                    count!(stack, Budget::object);
                } else {
                    count!(stack, Budget::list);
                }
                stack.push(if bytes[i] == b'{' {
                    Frame::Object { keys: HashSet::new(), want_key: true }
                } else {
                    Frame::Array
                });
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b',' => {
                if let Some(Frame::Object { want_key, .. }) = stack.last_mut() {
                    *want_key = true;
                }
                i += 1;
            }
            b'"' => {
                let end = string_end(bytes, i)?;
                if let Some(Frame::Object { keys, want_key }) = stack.last_mut()
                    && *want_key
                {
                    *want_key = false;
                    let key = decode(&text[i..end])?;
                    if keys.contains(&key) {
                        let key = Some(key.into_owned());
                        return Some(Problem {
                            kind: JsonErrorKind::DuplicateKey,
                            span: i..end,
                            key,
                        });
                    }
                    if let Some(budget) = budget.as_deref_mut()
                        && budget.entry(key.len()).is_err()
                    {
                        let kind = JsonErrorKind::MemoryLimit;
                        return Some(Problem { kind, span: i..i, key: None });
                    }
                    keys.insert(key);
                } else {
                    count!(stack, |budget: &mut Budget| budget.text(end - i - 2));
                }
                i = end;
            }
            b't' | b'f' | b'n' => {
                count!(stack, |_: &mut Budget| Ok::<(), OverBudget>(()));
                i += bytes[i..].iter().take_while(|b| b.is_ascii_lowercase()).count();
            }
            b'-' | b'0'..=b'9' => {
                count!(stack, |_: &mut Budget| Ok::<(), OverBudget>(()));
                let length = bytes[i..]
                    .iter()
                    .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .count();
                let token = &text[i..i + length];
                if !any_integers && is_integer(token) && token.parse::<i64>().is_err() {
                    let kind = JsonErrorKind::IntegerOutOfRange;
                    return Some(Problem { kind, span: i..i + length, key: None });
                }
                i += length;
            }
            // Blanks, `:`, `true`, `false`, `null`: nothing to check.
            _ => i += 1,
        }
    }
    None
}

/// The bytes of `key`, quotes included, among the keys of the object `text`
/// holds at its top level: the place to point at when a key is wrong for
/// what the object is read into (serde reports such an error after the
/// key, or at the end of the object). Offsets are in `text` as given (a
/// leading byte order mark included). `None` when `text` is not an object
/// or has no such key; for text that is not valid JSON the answer may be
/// `None` but the scan still ends, linearly.
///
/// ```
/// let text = "{\"state\": {\"name\": 1},\n \"name\": \"Ann\"}";
/// assert_eq!(prompt_core::json::key_span(text, "name"), Some(24..30));
/// assert_eq!(prompt_core::json::key_span(text, "state"), Some(1..8));
/// assert_eq!(prompt_core::json::key_span(text, "missing"), None);
/// ```
pub fn key_span(text: &str, key: &str) -> Option<Range<usize>> {
    let bom = text.len() - strip_bom(text).len();
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut want_key = false;
    let mut i = bom;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                depth += 1;
                want_key = depth == 1;
                i += 1;
            }
            b'[' => {
                if depth == 0 {
                    return None;
                }
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return None;
                }
                i += 1;
            }
            b',' => {
                want_key = depth == 1;
                i += 1;
            }
            b'"' => {
                let end = string_end(bytes, i)?;
                if want_key && depth == 1 {
                    want_key = false;
                    if decode(&text[i..end])? == key {
                        return Some(i..end);
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    None
}

/// The offset just past the string that opens at `start`, or `None` when it
/// is not closed.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i += bytes.get(i..)?.iter().position(|&b| b == b'"' || b == b'\\')?;
        if bytes[i] == b'\\' {
            i += 2;
        } else {
            return Some(i + 1);
        }
    }
}

/// A string token's value: borrowed when it has no escapes.
fn decode(token: &str) -> Option<Cow<'_, str>> {
    let inner = token.get(1..token.len().checked_sub(1)?)?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(token).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// Whether `token` is a JSON integer literal: `-?(0|[1-9][0-9]*)`.
fn is_integer(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

/// A JSON value kept as its text, exactly as written: numbers keep their
/// digits, keys their order. Equal when the texts are equal.
///
/// Serialized as the JSON it holds (not as a string), and read from any JSON
/// value. Tool-call arguments are carried this way, so a 30-digit id in them
/// reaches the provider unchanged.
///
/// ```
/// use prompt_core::json::RawJson;
///
/// let args = RawJson::parse(r#"{"id": 123456789012345678901234567890}"#)?;
/// assert!(args.is_object());
/// assert_eq!(serde_json::to_string(&args)?, r#"{"id": 123456789012345678901234567890}"#);
/// assert!(RawJson::parse("{\"a\": 1, \"a\": 2}").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct RawJson(Box<serde_json::value::RawValue>);

impl RawJson {
    /// `text` as one JSON value, read strictly (see [`from_str`]) except that
    /// integers of any size are kept by their text; surrounding whitespace
    /// and a byte order mark are dropped.
    ///
    /// # Errors
    ///
    /// What [`Reader::parse`] reports.
    pub fn parse(text: &str) -> Result<RawJson, JsonError> {
        let raw: Box<serde_json::value::RawValue> = Reader::new().any_integers().parse(text)?;
        let trimmed = raw.get().trim();
        Ok(if trimmed.len() == raw.get().len() {
            RawJson(raw)
        } else {
            RawJson(
                serde_json::value::RawValue::from_string(trimmed.to_owned())
                    .map_err(|err| JsonError::from_serde(trimmed, &err))?,
            )
        })
    }

    /// The empty object `{}`.
    pub fn empty_object() -> RawJson {
        RawJson(serde_json::value::RawValue::from_string("{}".to_owned()).expect("valid JSON"))
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// Whether the value is an object (tool arguments must be one).
    pub fn is_object(&self) -> bool {
        self.as_str().starts_with('{')
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for RawJson {}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.as_str())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RawJson, D::Error> {
        <Box<serde_json::value::RawValue>>::deserialize(deserializer).map(RawJson)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use serde_json::value::RawValue;

    use super::*;

    fn err(text: &str) -> JsonError {
        from_str::<Value>(text).unwrap_err()
    }

    #[test]
    fn key_spans_are_found_at_the_top_level_only() {
        let text = "\u{feff}{\"a\": {\"b\": [\"b\", {\"b\": 1}]}, \"b\": 2, \"c\\u0064\": 3}";
        let span = key_span(text, "b").unwrap();
        assert_eq!(&text[span], "\"b\"");
        assert_eq!(key_span(text, "b"), Some(33..36));
        assert_eq!(&text[key_span(text, "cd").unwrap()], "\"c\\u0064\"");
        // A string value equal to the key is not the key.
        assert_eq!(key_span(r#"{"x": "b"}"#, "b"), None);
        for not_an_object in ["[{\"b\": 1}]", "\"b\"", "", "{\"b", "}{\"b\": 1}", "{} {\"b\": 1}"] {
            assert_eq!(key_span(not_an_object, "b"), None, "{not_an_object}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_ignored() {
        let value: Value = from_str("\u{feff}{\"a\": [1, 2]}").unwrap();
        assert_eq!(value["a"][1], 2);
        // Positions stay in the text as given; columns do not count the mark.
        let e = err("\u{feff}[1,]");
        assert_eq!((e.kind(), e.offset(), e.line(), e.column()), (JsonErrorKind::Syntax, 6, 1, 4));
        assert_eq!(e.snippet(), "]");
        // Only a leading one: elsewhere it is not JSON.
        assert_eq!(err("[1]\u{feff}").kind(), JsonErrorKind::Syntax);
    }

    #[test]
    fn duplicate_keys_are_errors_at_any_depth() {
        let e = err("{\"role\": \"user\",\n \"role\": \"system\"}");
        assert_eq!(e.kind(), JsonErrorKind::DuplicateKey);
        assert_eq!((e.key(), e.line(), e.column(), e.snippet()), (Some("role"), 2, 2, "\"role\""));
        assert_eq!(e.span(), 18..24);
        // The same key spelled with an escape is the same key.
        assert_eq!(err(r#"{"a": 1, "\u0061": 2}"#).key(), Some("a"));
        // Deep inside arrays and objects.
        assert_eq!(err(r#"[[{"x": {"k": [1, {"b": 1, "b": 2}]}}]]"#).key(), Some("b"));
        // Keys of sibling and nested objects are their own.
        let ok = r#"[{"a": 1}, {"a": 2}, {"a": {"a": {"a": "a"}}, "b": ["a", "a"]}]"#;
        assert!(from_str::<Value>(ok).is_ok());
        // Values are not keys.
        assert!(from_str::<Value>(r#"{"a": "b", "b": "a", "c": "\"a\\"}"#).is_ok());
    }

    #[test]
    fn integers_must_fit_64_signed_bits() {
        let e = err("{\"n\": [1, 9223372036854775808]}");
        assert_eq!(e.kind(), JsonErrorKind::IntegerOutOfRange);
        assert_eq!((e.column(), e.snippet()), (11, "9223372036854775808"));
        assert_eq!(
            e.message(),
            "the integer 9223372036854775808 is outside the 64-bit signed range \
             (-9223372036854775808 to 9223372036854775807)"
        );
        assert_eq!(err("-9223372036854775809").kind(), JsonErrorKind::IntegerOutOfRange);
        assert_eq!(err("18446744073709551615").kind(), JsonErrorKind::IntegerOutOfRange);
        let ok: Vec<i64> = from_str("[-9223372036854775808, 9223372036854775807, 0]").unwrap();
        assert_eq!(ok[0], i64::MIN);
        // Decimals are the nearest float, whatever their digits.
        let floats: Vec<f64> = from_str("[0.7, 1e300, 12345678901234567890.5, 1E2]").unwrap();
        assert_eq!(floats, [0.7, 1e300, 12345678901234567890.5, 100.0]);
        // A huge integer is quoted by its ends.
        let long = "1".repeat(100);
        assert!(err(&long).message().contains("(100 digits)"), "{}", err(&long).message());
        assert_eq!(err(&long).snippet().len(), 40);
    }

    #[test]
    fn any_integers_keeps_numbers_as_written() {
        let reader = Reader::new().any_integers();
        let raw: Box<RawValue> = reader.parse("{\"id\": 123456789012345678901234567890}").unwrap();
        assert_eq!(raw.get(), "{\"id\": 123456789012345678901234567890}");
        // Duplicates are still errors.
        let e = reader.parse::<Box<RawValue>>("{\"a\": 1, \"a\": 2}").unwrap_err();
        assert_eq!(e.kind(), JsonErrorKind::DuplicateKey);
    }

    #[test]
    fn syntax_and_shape_errors_point_where_serde_stopped() {
        let e = err("[1,\n  2,,]");
        assert_eq!(
            (e.kind(), e.line(), e.column(), e.snippet()),
            (JsonErrorKind::Syntax, 2, 5, ",]")
        );
        assert_eq!(e.message(), "expected value");
        assert_eq!(e.to_string(), "expected value");
        // Columns are characters, not bytes.
        let e = err("[\"ünï\", x]");
        assert_eq!((e.column(), e.offset()), (9, 10));
        let e = from_str::<Vec<u32>>("[1, \"two\"]").unwrap_err();
        assert_eq!(e.kind(), JsonErrorKind::Shape);
        assert!(e.message().starts_with("invalid type: string \"two\""), "{}", e.message());
        let e = err("");
        assert_eq!((e.kind(), e.line(), e.column()), (JsonErrorKind::Syntax, 1, 1));
        assert_eq!(e.message(), "EOF while parsing a value");
    }

    #[test]
    fn nesting_is_bounded_in_the_check_too() {
        // serde_json itself stops at 128 levels.
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(err(&deep).kind(), JsonErrorKind::Syntax);
        // A raw field is not descended by serde_json; the check stops it.
        let reader = Reader::new().any_integers();
        let raw = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let e = reader.check(&raw).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (JsonErrorKind::Syntax, MAX_DEPTH));
        let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(reader.check(&fine).is_ok());
    }

    #[test]
    fn the_check_never_panics_on_text_that_is_not_json() {
        for text in [
            "\"",
            "\"\\",
            "{\"a",
            "{\"a\\u00",
            "-",
            "--1",
            "01",
            "{\"\\x\": 1, \"\\x\": 2}",
            "é\"é",
        ] {
            let _ = Reader::new().check(text);
            assert!(from_str::<Value>(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn a_memory_limit_refuses_before_building() {
        // A million small messages: refused at the value where the count
        // passed the limit, after one pass over the text.
        let message = r#"{"role":"user","content":"hi"},"#;
        let text = format!("{{\"messages\": [{}{{}}]}}", message.repeat(1_000_000));
        let reader = Reader::new().memory_limit(128 << 20);
        let e = reader.parse::<Value>(&text).unwrap_err();
        assert_eq!(e.kind(), JsonErrorKind::MemoryLimit);
        assert_eq!(e.kind().as_str(), "memory_limit");
        assert_eq!(e.line(), 1);
        // Each message counts its slot, two entries, two keys, two strings
        // and an object's two allocations.
        let each = VALUE_BYTES + 2 * ENTRY_BYTES + (4 + 16) + (7 + 16) + (4 + 16) + (2 + 16) + 32;
        let at = 14 + message.len() * ((128 << 20) / each);
        assert!(e.offset().abs_diff(at) <= message.len(), "{} vs {at}", e.offset());
        assert_eq!(e.snippet(), &text[e.offset()..e.offset() + 40]);
        // Under the limit, the same reader reads it.
        let small = format!("{{\"messages\": [{}{{}}]}}", message.repeat(1000));
        let value: Value = reader.parse(&small).unwrap();
        assert_eq!(value["messages"].as_array().unwrap().len(), 1001);
    }

    #[test]
    fn a_memory_limit_counts_every_kind_of_value() {
        let cost = |text: &str| {
            let mut budget = Budget::new(usize::MAX);
            budget.json(&serde_json::from_str(text).unwrap()).unwrap();
            let spent = budget.spent();
            assert!(Reader::new().memory_limit(spent).check(text).is_ok(), "{text}");
            let e = Reader::new().memory_limit(spent - 1).check(text).unwrap_err();
            assert_eq!(e.kind(), JsonErrorKind::MemoryLimit, "{text}");
            spent
        };
        assert_eq!(cost("null"), VALUE_BYTES);
        assert_eq!(cost("true"), VALUE_BYTES);
        assert_eq!(cost("-1.5e3"), VALUE_BYTES);
        assert_eq!(cost("\"\""), VALUE_BYTES);
        assert_eq!(cost("\"abc\""), VALUE_BYTES + 3 + ALLOCATION_BYTES);
        assert_eq!(cost("[]"), VALUE_BYTES + ALLOCATION_BYTES);
        assert_eq!(cost("[1, false]"), 3 * VALUE_BYTES + ALLOCATION_BYTES);
        assert_eq!(cost("{}"), VALUE_BYTES + 2 * ALLOCATION_BYTES);
        assert_eq!(
            cost(r#"{"ab": [null], "": {}}"#),
            VALUE_BYTES
                + 2 * ALLOCATION_BYTES
                + ENTRY_BYTES
                + 2
                + ALLOCATION_BYTES
                + ALLOCATION_BYTES
                + VALUE_BYTES
                + ENTRY_BYTES
                + 2 * ALLOCATION_BYTES
        );
        // An escaped string counts its text as written: never less than
        // its value.
        let mut budget = Budget::new(usize::MAX);
        budget.json(&serde_json::from_str(r#""\u0041""#).unwrap()).unwrap();
        assert!(Reader::new().memory_limit(budget.spent()).check(r#""\u0041""#).is_err());
        // A syntax error comes before the memory limit, wherever it is.
        let text = format!("[{}x]", "1,".repeat(1000));
        let e = Reader::new().memory_limit(100).parse::<Value>(&text).unwrap_err();
        assert_eq!(e.kind(), JsonErrorKind::Syntax);
    }

    proptest::proptest! {
        /// A reader's count of a document is what [`Budget::json`] counts
        /// of the value it reads (strings without escapes), so a document
        /// is read exactly when its values fit.
        #[test]
        fn the_count_of_the_text_is_the_count_of_the_value(value in json_value()) {
            let text = serde_json::to_string(&value).unwrap();
            let mut budget = Budget::new(usize::MAX);
            budget.json(&value).unwrap();
            let spent = budget.spent();
            let escapes = text.contains('\\');
            proptest::prop_assert!(Reader::new().memory_limit(spent).check(&text).is_ok() || escapes);
            let under = Reader::new().memory_limit(spent - 1).parse::<Value>(&text);
            proptest::prop_assert_eq!(under.unwrap_err().kind(), JsonErrorKind::MemoryLimit);
        }

        /// Strict reading accepts exactly what serde_json accepts, less
        /// duplicates and big integers; and agrees with it on the value.
        #[test]
        fn agrees_with_serde_json_on_clean_documents(value in json_value()) {
            let text = serde_json::to_string(&value).unwrap();
            let strict: Value = from_str(&text).unwrap();
            // With the workspace's `float_roundtrip`, floats come back exactly.
            proptest::prop_assert_eq!(&strict, &value);
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            let bom = format!("\u{feff}{pretty}");
            proptest::prop_assert_eq!(from_str::<Value>(&bom).unwrap(), value);
        }

        #[test]
        fn never_panics(text in "[\\[\\]{}\",:0-9a\\\\ -]{0,40}") {
            let _ = from_str::<Value>(&text);
            let _ = Reader::new().any_integers().check(&text);
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            (-1e9f64..1e9).prop_map(Value::from),
            "[a-z\"\\\\é\\n]{0,6}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                proptest::collection::btree_map("[a-c\"\\\\]{0,3}", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }
}
