//! The crate's error: what was wrong and the offending text.
//!
//! Processing text never fails (every string is a valid prompt); errors come
//! only from naming a dialect and from handing over a `messages` document
//! that is not an array.

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
    /// [`Dialect::strip_messages_document`](crate::Dialect::strip_messages_document).
    NotAnArray,
}

impl ErrorKind {
    /// The snake_case name the CLI reports: `unknown_dialect`,
    /// `not_an_array`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::UnknownDialect => "unknown_dialect",
            ErrorKind::NotAnArray => "not_an_array",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An input this crate rejects, with the offending text.
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
}

impl Error {
    pub(crate) fn unknown_dialect(name: &str) -> Error {
        // A name is short; a pasted paragraph is cut to keep messages readable.
        Error { kind: ErrorKind::UnknownDialect, snippet: name.chars().take(40).collect() }
    }

    pub(crate) fn not_an_array(found: &'static str) -> Error {
        Error { kind: ErrorKind::NotAnArray, snippet: found.to_owned() }
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The offending text: the dialect name given (at most 40 characters),
    /// or the JSON type found where an array was expected (`object`,
    /// `string`, `number`, `boolean`, `null`).
    pub fn snippet(&self) -> &str {
        &self.snippet
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::UnknownDialect => {
                write!(f, "unknown dialect `{}` (expected `standard` or `llmutils`)", self.snippet)
            }
            ErrorKind::NotAnArray => {
                write!(f, "expected a JSON array of messages, found {}", self.snippet)
            }
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
