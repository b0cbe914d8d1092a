//! The crate's error: what was wrong and the offending text.
//!
//! Processing text never fails (every string is a valid prompt); errors come
//! only from naming a dialect and from handing over a `messages` document
//! that is not JSON or not an array.

use std::fmt;

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::Diagnostic;
use prompt_core::text::Excerpt;
use prompt_core::text::{Position, Span, position, snippet};

/// Why an input was rejected. Read it with [`Error::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A dialect name that is neither `standard` nor `llmutils`, e.g.
    /// `"go".parse::<Dialect>()`.
    UnknownDialect,
    /// A `messages` document that is not a JSON array, e.g.
    /// `{"role": "user", "content": "hi"}` given to
    /// [`Dialect::strip_messages_json`](crate::Dialect::strip_messages_json).
    NotAnArray,
    /// A `messages` text that is not JSON, or that writes a key twice in
    /// one object (`{"role": "user", "role": "system"}`), given to
    /// [`Dialect::strip_messages_json`](crate::Dialect::strip_messages_json).
    InvalidJson,
}

impl ErrorKind {
    /// The snake_case name the CLI reports: `unknown_dialect`,
    /// `not_an_array`, `invalid_json`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::UnknownDialect => "unknown_dialect",
            ErrorKind::NotAnArray => "not_an_array",
            ErrorKind::InvalidJson => "invalid_json",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An input this crate rejects, with the offending text and, for JSON
/// text, where it is: a byte span of the text given, from which
/// `prompt_core::text` computes the line and column. It is a
/// [`Diagnostic`].
///
/// ```
/// use prompt_comments::{Dialect, ErrorKind};
///
/// let err = "golang".parse::<Dialect>().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::UnknownDialect);
/// assert_eq!(err.snippet(), "golang");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    snippet: String,
    /// The JSON type found for [`ErrorKind::NotAnArray`], what the JSON
    /// reader said for [`ErrorKind::InvalidJson`].
    detail: String,
    /// The span in the JSON text given, and its position there.
    place: Option<(Span, Position)>,
    /// The line of the JSON text at `place`, for [`Error::annotated`].
    excerpt: Option<Box<Excerpt>>,
}

impl Error {
    pub(crate) fn unknown_dialect(name: &str) -> Error {
        // A name is short; a pasted paragraph is cut to keep messages readable.
        let snippet = snippet(name, Span::new(0, name.len())).to_owned();
        Error {
            kind: ErrorKind::UnknownDialect,
            snippet,
            detail: String::new(),
            place: None,
            excerpt: None,
        }
    }

    pub(crate) fn not_an_array(found: &'static str) -> Error {
        let (snippet, detail) = (found.to_owned(), found.to_owned());
        Error { kind: ErrorKind::NotAnArray, snippet, detail, place: None, excerpt: None }
    }

    /// The error `err` of the JSON reader, which read the text given from
    /// byte `from` on (after its byte order mark).
    pub(crate) fn invalid_json(err: &prompt_core::json::JsonError, from: usize) -> Error {
        let span = Span::from(err.span()).shifted(from);
        let place = (span, Position { line: err.line(), column: err.column() });
        Error {
            kind: ErrorKind::InvalidJson,
            snippet: err.snippet().to_owned(),
            detail: err.message().to_owned(),
            place: Some(place),
            excerpt: Some(Box::new(err.excerpt().clone())),
        }
    }

    /// The same error at `span` of `text`, the JSON text given.
    pub(crate) fn at(mut self, text: &str, span: Span) -> Error {
        self.place = Some((span, position(text, span.start)));
        self.excerpt = Some(Box::new(Excerpt::new(text, span)));
        snippet(text, span).clone_into(&mut self.snippet);
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The offending text (at most 40 characters): the dialect name given;
    /// for JSON text, the offending JSON (a repeated key, the rest of the
    /// line where the syntax breaks or where a document that is not an
    /// array starts); for a [`serde_json::Value`] that is not an array, its
    /// type (`object`, `string`, `number`, `boolean`, `null`).
    pub fn snippet(&self) -> &str {
        &self.snippet
    }

    /// The 1-based line of the problem in JSON text, when known.
    pub fn line(&self) -> Option<usize> {
        self.place.map(|(_, at)| at.line)
    }

    /// The 1-based column (in characters) of the problem in JSON text.
    pub fn column(&self) -> Option<usize> {
        self.place.map(|(_, at)| at.column)
    }

    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[kind]: message`, and for JSON
    /// text its position and line (name the text with
    /// [`Annotated::with_origin`]).
    pub fn annotated(&self) -> Annotated {
        match self.excerpt.as_deref() {
            Some(excerpt) => Annotated::of(self, None)
                .with_snippet(self.snippet.as_str())
                .with_excerpt(excerpt.clone()),
            None => Annotated::of(self, None),
        }
    }
}

impl Diagnostic for Error {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }

    /// The bytes of the JSON text given (a byte order mark included); `None`
    /// for a dialect name and for a [`serde_json::Value`] that is not an
    /// array.
    fn span(&self) -> Option<Span> {
        self.place.map(|(span, _)| span)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::UnknownDialect => {
                write!(f, "unknown dialect `{}` (expected `standard` or `llmutils`)", self.snippet)
            }
            ErrorKind::NotAnArray => {
                write!(f, "expected a JSON array of messages, found {}", self.detail)
            }
            // As the JSON reader says it (its kind already says "JSON").
            ErrorKind::InvalidJson => f.write_str(&self.detail),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_snake_case_names() {
        assert_eq!(ErrorKind::UnknownDialect.as_str(), "unknown_dialect");
        assert_eq!(ErrorKind::NotAnArray.to_string(), "not_an_array");
    }

    #[test]
    fn messages_read_well() {
        let err = Error::not_an_array("object");
        assert_eq!(err.to_string(), "expected a JSON array of messages, found object");
        assert_eq!(err.snippet(), "object");
        let long = "x".repeat(100);
        assert_eq!(Error::unknown_dialect(&long).snippet().len(), 40);
    }

    /// `annotated()` draws what the renderer draws from the text itself.
    #[test]
    fn annotated_draws_the_line_of_the_json() {
        let text = "[\"a\",\n 1,]";
        let err = crate::strip_messages_json(text).unwrap_err();
        let drawn = err.annotated().with_origin("m.json");
        assert_eq!(
            drawn.to_string(),
            prompt_core::annotated::Annotated::of(&err, Some(text))
                .with_origin("m.json")
                .to_string()
        );
        assert!(drawn.to_string().ends_with("2 |  1,]\n  |    ^"), "{drawn}");
        assert_eq!(err.to_string(), "trailing comma");
        assert_eq!(
            Error::not_an_array("object").annotated().to_string(),
            "error[not_an_array]: expected a JSON array of messages, found object"
        );
    }
}
