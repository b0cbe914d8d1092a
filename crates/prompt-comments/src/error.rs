//! The crate's error: what was wrong and the offending text.
//!
//! Processing text never fails (every string is a valid prompt); errors come
//! only from naming a dialect and from handing over a `messages` document
//! that is not JSON or not an array.

use std::fmt;

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
/// text, where it is.
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
    position: Option<(usize, usize)>,
}

impl Error {
    pub(crate) fn unknown_dialect(name: &str) -> Error {
        // A name is short; a pasted paragraph is cut to keep messages readable.
        let snippet = name.chars().take(40).collect();
        Error { kind: ErrorKind::UnknownDialect, snippet, detail: String::new(), position: None }
    }

    pub(crate) fn not_an_array(found: &'static str) -> Error {
        let (snippet, detail) = (found.to_owned(), found.to_owned());
        Error { kind: ErrorKind::NotAnArray, snippet, detail, position: None }
    }

    pub(crate) fn invalid_json(err: &prompt_core::json::JsonError) -> Error {
        Error {
            kind: ErrorKind::InvalidJson,
            snippet: err.snippet().to_owned(),
            detail: err.message().to_owned(),
            position: Some((err.line(), err.column())),
        }
    }

    /// The same error at 1-based `line` and `column` (in characters) of
    /// JSON text, `text` being the offending part.
    pub(crate) fn at(mut self, (line, column): (usize, usize), text: &str) -> Error {
        self.position = Some((line, column));
        let text = &text[..text.find(['\n', '\r']).unwrap_or(text.len())];
        self.snippet = text.chars().take(40).collect();
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
        self.position.map(|(line, _)| line)
    }

    /// The 1-based column (in characters) of the problem in JSON text.
    pub fn column(&self) -> Option<usize> {
        self.position.map(|(_, column)| column)
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
}
