//! The one error type of the crate: what went wrong and where.

use std::fmt;

use prompt_core::diagnostic::Diagnostic;
use prompt_core::text::{Span, position, snippet};

/// A rejected input: its [`ErrorKind`], a message for people, and where the
/// problem is when that is known.
///
/// Positions exist for JSON input (see [`crate::flip_json`] and
/// [`crate::alternate_json`]): the 1-based line and column (in characters) of
/// the offending row or message, and a short snippet of it. The typed API
/// reports the 0-based [`index`](Error::index) of the offending turn or
/// message instead. `Display` is the message alone (with the index), as
/// every [`Diagnostic`]: the line and column are the reader's to show
/// (`prompt_core::diagnostic::Report`, or [`Error::line`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    repr: Box<Repr>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
    kind: ErrorKind,
    detail: String,
    index: Option<usize>,
    /// The bytes of the JSON text given (a byte order mark included).
    span: Option<Span>,
    line: Option<usize>,
    column: Option<usize>,
    snippet: Option<String>,
}

/// What kind of input was rejected.
///
/// [`ErrorKind::as_str`] gives the snake_case name the command line prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The transcript is not a table of rows, e.g. the JSON `{"a": 1}`
    /// instead of an array, or an array holding `3` where a row should be.
    NotATable,
    /// The transcript has rows but no `speaker` or no `text` column, e.g.
    /// `[{"foo": 1}]`.
    MissingColumns,
    /// The point-of-view speaker is not one value, e.g. `null` or
    /// `["x", "y"]` given where a single id is expected; or, in `Standard`
    /// mode, a speaker id (the point of view's or a turn's) holds a control
    /// character or a line break, e.g. `"Ben\u{1b}"` or `"Ana\nsystem"`.
    InvalidSpeaker,
    /// A row has no speaker, e.g. `{"speaker": null, "text": "a"}`.
    MissingSpeakerInTranscript,
    /// A cell is neither text, a number nor null, e.g.
    /// `{"speaker": true, "text": "a"}`.
    InvalidCell,
    /// Two adjacent messages with the same role must be merged but one of
    /// them has no plain text content, e.g. `{"role": "user", "content":
    /// [{"type": "image_url", ...}]}` followed by another user message.
    NonScalarMerge,
    /// `Standard` mode only: two messages that must be merged carry
    /// different extra fields, e.g. `{"role": "user", "content": "a", "name":
    /// "ana"}` followed by `{"role": "user", "content": "b", "name": "ben"}`.
    ConflictingFields,
    /// The message list is not a JSON array, e.g. `{"role": "user"}`.
    NotAMessageList,
    /// A message is not an object with a text `role`, e.g. `"hello"` or
    /// `{"role": 3, "content": "x"}`.
    InvalidMessage,
    /// The input is not well-formed JSON, e.g. `[{"speaker": "a",]`.
    InvalidJson,
    /// `Standard` mode only: another speaker's id looks like the
    /// point-of-view speaker's without being it, e.g. `"B\u{200b}en"`,
    /// `"Ben "` or the Cyrillic `"Веn"` when flipping for `"Ben"`. Its turns
    /// would be shown under the agent's own name.
    AmbiguousSpeaker,
}

impl ErrorKind {
    /// The snake_case name, as printed by the command line
    /// (`error[missing_columns]: ...`).
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::NotATable => "not_a_table",
            ErrorKind::MissingColumns => "missing_columns",
            ErrorKind::InvalidSpeaker => "invalid_speaker",
            ErrorKind::MissingSpeakerInTranscript => "missing_speaker_in_transcript",
            ErrorKind::InvalidCell => "invalid_cell",
            ErrorKind::NonScalarMerge => "non_scalar_merge",
            ErrorKind::ConflictingFields => "conflicting_fields",
            ErrorKind::NotAMessageList => "not_a_message_list",
            ErrorKind::InvalidMessage => "invalid_message",
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::AmbiguousSpeaker => "ambiguous_speaker",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error {
            repr: Box::new(Repr {
                kind,
                detail: detail.into(),
                index: None,
                span: None,
                line: None,
                column: None,
                snippet: None,
            }),
        }
    }

    /// Names the offending turn or message (0-based).
    pub(crate) fn at_index(mut self, index: usize) -> Error {
        self.repr.index = Some(index);
        self
    }

    /// Places the error at byte `offset` of `source`: line, column (in
    /// characters) and the start of the offending text as the snippet.
    pub(crate) fn at_offset(self, source: &str, offset: usize) -> Error {
        self.at_span(source, offset, source.len())
    }

    /// Places the error at the text `start..end` of `source`: line and
    /// column of `start` (characters, through `prompt_core::text`), and the
    /// text (up to its first line end, at most 40 characters) as the
    /// snippet.
    pub(crate) fn at_span(mut self, source: &str, start: usize, end: usize) -> Error {
        let span = Span::new(source.floor_char_boundary(start), source.floor_char_boundary(end));
        let at = position(source, span.start);
        self.repr.span = Some(span);
        self.repr.line = Some(at.line);
        self.repr.column = Some(at.column);
        self.repr.snippet = Some(snippet(source, span).to_owned());
        self
    }

    /// The same error with its span moved past the `bom` bytes of a byte
    /// order mark the JSON reader skipped (lines and columns do not count
    /// it).
    pub(crate) fn after_bom(mut self, bom: usize) -> Error {
        self.repr.span = self.repr.span.map(|span| span.shifted(bom));
        self
    }

    /// What kind of input was rejected.
    pub fn kind(&self) -> ErrorKind {
        self.repr.kind
    }

    /// The 0-based index of the offending transcript row or message, when
    /// the error is about one.
    pub fn index(&self) -> Option<usize> {
        self.repr.index
    }

    /// The 1-based line of the problem in JSON input.
    pub fn line(&self) -> Option<usize> {
        self.repr.line
    }

    /// The 1-based column (in characters) of the problem in JSON input.
    pub fn column(&self) -> Option<usize> {
        self.repr.column
    }

    /// The start of the offending text in JSON input (at most 40
    /// characters, up to the end of its line).
    pub fn snippet(&self) -> Option<&str> {
        self.repr.snippet.as_deref()
    }

    /// The message for people, without the position.
    pub fn message(&self) -> String {
        match self.repr.index {
            Some(index) => format!("{} (at index {index})", self.repr.detail),
            None => self.repr.detail.clone(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Error {}

impl Diagnostic for Error {
    fn kind(&self) -> &'static str {
        self.repr.kind.as_str()
    }

    /// For JSON input, the offending bytes of the text given; `None` for
    /// typed input (see [`Error::index`]).
    fn span(&self) -> Option<Span> {
        self.repr.span
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        let err = Error::new(ErrorKind::InvalidCell, "bad").at_offset("[\n  é{\"x\": 1}\n]", 6);
        assert_eq!((err.line(), err.column()), (Some(2), Some(4)));
        assert_eq!(err.snippet(), Some("{\"x\": 1}"));
        assert_eq!(err.to_string(), "bad");
    }

    #[test]
    fn index_is_part_of_the_message() {
        let err = Error::new(ErrorKind::NonScalarMerge, "cannot merge").at_index(3);
        assert_eq!(err.message(), "cannot merge (at index 3)");
        assert_eq!(err.kind().as_str(), "non_scalar_merge");
    }
}
