//! What every library error and warning tells its reader, in one shape.
//!
//! Each crate keeps its own error type (an opaque struct with a
//! `#[non_exhaustive]` kind) and implements [`Diagnostic`] for it: a
//! snake_case kind, a message, a byte [`Span`] and the [`Origin`] the span
//! points into. Lines and columns are not stored; [`Report`] computes them
//! once, from the text of that origin, into the JSON form the command line
//! prints with `--error-format json`:
//!
//! ```json
//! {"kind": "syntax_error", "message": "...", "line": 2, "column": 5, "snippet": "]] cd"}
//! ```
//!
//! Rendering for people (the source line, a caret under the span) is
//! [`crate::annotated`]'s.
//!
//! ```
//! use std::fmt;
//! use prompt_core::diagnostic::{Diagnostic, Report};
//! use prompt_core::text::Span;
//!
//! #[derive(Debug)]
//! struct Unclosed(usize);
//!
//! impl fmt::Display for Unclosed {
//!     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
//!         f.write_str("the tag is never closed")
//!     }
//! }
//!
//! impl Diagnostic for Unclosed {
//!     fn kind(&self) -> &'static str {
//!         "syntax_error"
//!     }
//!     fn span(&self) -> Option<Span> {
//!         Some(Span::new(self.0, self.0 + 2))
//!     }
//! }
//!
//! let source = "Hi\n[[ name";
//! let report = Report::new(&Unclosed(3), Some(source));
//! assert_eq!(
//!     serde_json::to_string(&report)?,
//!     r#"{"kind":"syntax_error","message":"the tag is never closed","line":2,"column":1,"snippet":"[["}"#
//! );
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::fmt;

use serde::Serialize;

use crate::text::{LineIndex, Span, snippet};

/// Which text a diagnostic's span points into.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Origin {
    /// The text the failing call was given: the prompt file as the author
    /// wrote it, a template, a narrative, a JSON document.
    #[default]
    Input,
    /// The text the template rendered (which the narrative stage read): a
    /// position there has no place in the prompt file.
    Rendered,
    /// The JSON transcript given beside the prompt.
    Transcript,
    /// A text known by its name: a template loaded by name, an entry of a
    /// bundle, a file under a directory.
    Named(String),
}

impl Origin {
    /// `input`, `rendered`, `transcript`, or the name.
    pub fn as_str(&self) -> &str {
        match self {
            Origin::Input => "input",
            Origin::Rendered => "rendered",
            Origin::Transcript => "transcript",
            Origin::Named(name) => name,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a library error or warning says about itself. `Display` is the
/// message for people, without a position (no "at line 3").
pub trait Diagnostic: fmt::Display {
    /// The snake_case kind, as the command-line contract lists it
    /// (`syntax_error`, `invalid_json`, `duplicate_param`, ...).
    fn kind(&self) -> &'static str;

    /// Where the problem is: a byte span of the text of
    /// [`Diagnostic::origin`]; an empty span is a place between characters.
    /// `None` when it has no place in a text.
    fn span(&self) -> Option<Span> {
        None
    }

    /// Which text [`Diagnostic::span`] points into.
    fn origin(&self) -> Origin {
        Origin::Input
    }

    /// A hint for fixing it, when there is one ("did you mean `upper`?").
    fn help(&self) -> Option<String> {
        None
    }
}

/// A diagnostic as data: kind, message, and its line, column (characters)
/// and snippet in the text it points into. Serializes to the command line's
/// JSON error fields, in this order: `{"kind", "message", "line",
/// "column", "snippet"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The snake_case kind.
    pub kind: String,
    /// The message for people.
    pub message: String,
    /// The 1-based line, when the diagnostic has a place in a known text.
    pub line: Option<usize>,
    /// The 1-based column in characters, when `line` is known.
    pub column: Option<usize>,
    /// The offending text ([`snippet`]), when `line` is known.
    pub snippet: Option<String>,
}

impl Report {
    /// The report of `diagnostic`, placed in `source` (the text of its
    /// origin; `None` when that text is not at hand, or the diagnostic has
    /// no span: then line, column and snippet are `null`).
    pub fn new<D: Diagnostic + ?Sized>(diagnostic: &D, source: Option<&str>) -> Report {
        let placed = diagnostic.span().zip(source).map(|(span, source)| {
            let position = crate::text::position(source, span.start);
            (position, snippet(source, span).to_owned())
        });
        Report::from_parts(diagnostic, placed)
    }

    /// [`Report::new`] with an index of `source`, for placing many
    /// diagnostics in one text.
    pub fn with_index<D: Diagnostic + ?Sized>(
        diagnostic: &D,
        source: &str,
        index: &LineIndex,
    ) -> Report {
        let placed = diagnostic
            .span()
            .map(|span| (index.position(source, span.start), snippet(source, span).to_owned()));
        Report::from_parts(diagnostic, placed)
    }

    fn from_parts<D: Diagnostic + ?Sized>(
        diagnostic: &D,
        placed: Option<(crate::text::Position, String)>,
    ) -> Report {
        let (line, column, snippet) = match placed {
            Some((position, snippet)) => {
                (Some(position.line), Some(position.column), Some(snippet))
            }
            None => (None, None, None),
        };
        Report {
            kind: diagnostic.kind().to_owned(),
            message: diagnostic.to_string(),
            line,
            column,
            snippet,
        }
    }
}

impl Diagnostic for crate::json::JsonError {
    /// `invalid_json` (what the reader found is in the message), or
    /// `memory_limit` for values past the reader's memory limit.
    fn kind(&self) -> &'static str {
        match crate::json::JsonError::kind(self) {
            crate::json::JsonErrorKind::MemoryLimit => "memory_limit",
            _ => "invalid_json",
        }
    }

    fn span(&self) -> Option<Span> {
        Some(self.span().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_without_a_place_has_nulls() {
        let err = crate::json::from_str::<serde_json::Value>("[1,]").unwrap_err();
        let placed = Report::new(&err, Some("[1,]"));
        assert_eq!(
            (placed.kind.as_str(), placed.line, placed.column, placed.snippet.as_deref()),
            ("invalid_json", Some(1), Some(4), Some("]"))
        );
        let unplaced = Report::new(&err, None);
        assert_eq!((unplaced.line, unplaced.column, unplaced.snippet), (None, None, None));
        assert_eq!(unplaced.message, "trailing comma");
        let index = LineIndex::new("[1,]");
        assert_eq!(Report::with_index(&err, "[1,]", &index), placed);
    }

    #[test]
    fn origins() {
        assert_eq!(Origin::default(), Origin::Input);
        assert_eq!(Origin::Named("base.txt".into()).to_string(), "base.txt");
        assert_eq!(Origin::Rendered.as_str(), "rendered");
    }
}
