//! The warnings of resolving and rendering: what was left as text or left
//! out, never silently.

use std::fmt;

use prompt_core::diagnostic::Diagnostic;

use crate::span::{Position, Span};

/// Something [`render`](crate::render) left out, or a reference resolving left as text,
/// typed: printed by the command line as `warning[<kind>]: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub(crate) kind: WarningKind,
    pub(crate) name: String,
    /// The embed's (or reference's) first occurrence.
    pub(crate) span: Span,
    pub(crate) position: Position,
    pub(crate) detail: String,
    /// A mismatch's types: the extension's, the bytes'.
    pub(crate) media: Option<(&'static str, &'static str)>,
}

/// The kinds of [`Warning`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WarningKind {
    /// An embed larger than [`RenderOptions::max_embed_bytes`](crate::RenderOptions::max_embed_bytes), left out of
    /// its message, e.g. a 5 MB `scan.pdf` under a 1 MB limit.
    EmbedTooLarge,
    /// An embed whose bytes are of another type than its extension says (a
    /// PNG named `.jpg`), sent with the bytes' type (Standard dialect only;
    /// lmml judges by the extension alone).
    MediaTypeMismatch,
    /// A bare reference (`@IkariDevGIT`, no extension) that names no
    /// attachment, kept as text ([`Narrative::resolve`](crate::Narrative::resolve);
    /// Standard dialect only).
    UnresolvedReference,
    /// An `@@@name` opening line with no closing `@@@` after it: its
    /// lines stay ordinary text of the turn
    /// ([`Narrative::resolve`](crate::Narrative::resolve); both dialects).
    UnclosedEmbed,
}

impl WarningKind {
    /// The snake_case name the command line prints: `embed_too_large`.
    pub fn as_str(&self) -> &'static str {
        match self {
            WarningKind::EmbedTooLarge => "embed_too_large",
            WarningKind::MediaTypeMismatch => "media_type_mismatch",
            WarningKind::UnresolvedReference => "unresolved_reference",
            WarningKind::UnclosedEmbed => "unclosed_embed",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Warning {
    /// A bare reference at `span` (shown at `position`) kept as text.
    pub(crate) fn unresolved(name: String, span: Span, position: Position) -> Warning {
        let kind = WarningKind::UnresolvedReference;
        Warning { kind, name, span, position, detail: String::new(), media: None }
    }

    /// An `@@@name` opening line at `span` (shown at `position`) never
    /// closed.
    pub(crate) fn unclosed(name: String, span: Span, position: Position) -> Warning {
        let kind = WarningKind::UnclosedEmbed;
        Warning { kind, name, span, position, detail: String::new(), media: None }
    }

    /// What was left out.
    pub fn kind(&self) -> WarningKind {
        self.kind
    }

    /// The embed (or the reference's name) concerned.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the embed's first occurrence (which decides its turn) is in
    /// the narrative.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The 1-based line of [`Warning::position`].
    pub fn line(&self) -> usize {
        self.position.line
    }

    /// The 1-based column, in characters, of [`Warning::position`].
    pub fn column(&self) -> usize {
        self.position.column
    }

    /// The message without the position, for people.
    pub fn message(&self) -> String {
        match self.kind {
            WarningKind::EmbedTooLarge => {
                format!("the embed `{}` is left out of its message ({})", self.name, self.detail)
            }
            WarningKind::MediaTypeMismatch => {
                format!("the embed `{}`: {}", self.name, self.detail)
            }
            WarningKind::UnresolvedReference => format!(
                "`@{}` (line {}) names no attachment or file; it stays text",
                self.name, self.position.line
            ),
            WarningKind::UnclosedEmbed => format!(
                "the embed `{}` (line {}) is never closed by a `@@@` line; its lines stay text",
                self.name, self.position.line
            ),
        }
    }

    /// For [`WarningKind::MediaTypeMismatch`]: the type the extension names
    /// and the type of the bytes (which is sent).
    pub fn media_types(&self) -> Option<(&'static str, &'static str)> {
        match self.kind {
            WarningKind::MediaTypeMismatch => self.media,
            _ => None,
        }
    }
}

impl Diagnostic for Warning {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }

    /// The embed's first occurrence in the narrative.
    fn span(&self) -> Option<Span> {
        Some(self.span)
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}
