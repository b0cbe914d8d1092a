//! The crate's one error type: an opaque [`Error`] with an [`ErrorKind`],
//! the embed name it concerns and where in the narrative it is.

use std::fmt;

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::Diagnostic;
use prompt_core::text::Excerpt;
use prompt_core::text::{Cursor, snippet};

use crate::span::{Position, Span};

/// What went wrong, and where.
///
/// Errors about the narrative text (an unresolvable reference, an invalid
/// byte) carry its byte [`Span`] ([`Diagnostic::span`]) and the
/// [`Position`] it is shown at, computed through `prompt_core::text`;
/// errors about a bundle or a directory (an unsafe entry name, an archive
/// over its limits) carry the entry name. `Display` is the message alone,
/// as every [`Diagnostic`]: a position is the reader's to show
/// (`prompt_core::diagnostic::Report`).
///
/// An invalid byte in a bundle's narrative entry is placed in the valid
/// text before it: that entry is not text, so there is nothing to compute
/// a position from later. Its [`Error::position`] is the one place it is
/// kept ([`Diagnostic::span`] still gives its offset in the entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    repr: Box<Repr>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
    kind: ErrorKind,
    name: Option<String>,
    position: Option<Position>,
    /// The offending bytes of the narrative text.
    span: Option<Span>,
    /// The offending text (`prompt_core::text::snippet`).
    snippet: Option<String>,
    /// The spanned text up to its line end, quoted whole by the message of
    /// an invalid role value.
    quoted: Option<String>,
    detail: Option<String>,
    /// The line of the narrative at `span`, for [`Error::annotated`].
    excerpt: Option<Excerpt>,
}

/// The kinds of [`Error`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The narrative is not UTF-8, e.g. the bytes `b"## user\n\xff"`.
    InvalidUtf8,
    /// An external reference in a bare narrative, which has no attachments
    /// to resolve it from, e.g. `see @report.pdf` read from a `.lmml` file.
    UnresolvableReference,
    /// A reference names no entry of the bundle or file of the directory,
    /// e.g. `@missing.png` with a bundle holding only `pic.png`.
    MissingEntry,
    /// An entry or reference name that could escape its bundle or directory:
    /// an absolute name, a `..` segment, a backslash or a NUL byte, e.g.
    /// `@../secret.txt` or a zip entry named `/etc/passwd`.
    UnsafeEntry,
    /// A directory entry that leads outside the directory through a
    /// symbolic link, e.g. `@link.txt` where `link.txt -> /etc/passwd`.
    OutsideDirectory,
    /// A zip bundle without its narrative entry, e.g. `convo.lmmlz` with no
    /// `convo.lmml` inside.
    MissingNarrativeEntry,
    /// Bytes that are not a readable zip archive, e.g. a truncated `.lmmlz`.
    InvalidArchive,
    /// A bundle with more entries than [`crate::AttachmentLimits::max_entries`].
    TooManyEntries,
    /// One attachment larger than [`crate::AttachmentLimits::max_entry_bytes`]
    /// once uncompressed (a zip bomb is stopped while it is read).
    EntryTooLarge,
    /// Attachments larger in total than
    /// [`crate::AttachmentLimits::max_total_bytes`] once uncompressed.
    BundleTooLarge,
    /// A file of an embeds directory could not be read, e.g. permission denied.
    Io,
    /// Reported by [`crate::Narrative::validate`]: an external reference
    /// with no attachment, e.g. `@chart.png` in a bare narrative.
    MissingReference,
    /// Reported by [`crate::Narrative::validate`]: a bundle entry that no
    /// reference names, e.g. a forgotten `old.png` in the archive.
    OrphanedEntry,
    /// Reported by [`crate::Narrative::validate`]: an embed name that fails
    /// the entry-name safety test, e.g. `@@@../x.txt`.
    MalformedEmbedName,
    /// Reported by [`crate::Narrative::validate`]: one name given two
    /// contents, or used both inline and as a reference, e.g. `@@@a.txt`
    /// twice with different contents.
    ConflictingEmbed,
    /// Reported by [`crate::Narrative::validate`]: an `@@@name` opening line
    /// with no closing `@@@`; its text stays ordinary text, e.g.
    /// `@@@notes.txt\nnever closed`.
    UnclosedEmbed,
    /// A delimiter's role slot filled only by values that are not exactly a
    /// role word, e.g. `## [[ m.role ]]` rendered with `"admin"` (raised by
    /// [`crate::Narrative::resolve`], listed by
    /// [`crate::Narrative::validate`]; at the values' span). Never text,
    /// which would glue the next turn onto the previous one.
    InvalidRoleValue,
    /// A `.lmmlz` bundle holding two entries of the same name, e.g. two
    /// `chart.png`: which one is meant cannot be told.
    DuplicateEntry,
    /// A file that is not a regular file: a directory, a FIFO, a device or
    /// a socket (never opened for reading, so never blocking).
    NotAFile,
    /// A `.lmmlz` bundle read or written by a build of this crate without
    /// its `bundle` feature (which brings the zip reader).
    BundlesUnsupported,
    /// A role alias that cannot be used, e.g. `You=admin` (no such role),
    /// `user=assistant` (a role word of another role) or `a#b=user`
    /// (delimiter syntax in the name); see [`crate::RoleAliases::insert`].
    InvalidRoleAlias,
    /// A tool block (standard dialect) that cannot be read, e.g. a
    /// `tool_call` fence without an id, arguments that are not a JSON
    /// object, a fence never closed, or a `tool_result` outside a `tool`
    /// turn.
    InvalidToolBlock,
}

impl ErrorKind {
    /// The snake_case name the command line prints, e.g. `missing_entry`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::UnresolvableReference => "unresolvable_reference",
            ErrorKind::MissingEntry => "missing_entry",
            ErrorKind::UnsafeEntry => "unsafe_entry",
            ErrorKind::OutsideDirectory => "outside_directory",
            ErrorKind::MissingNarrativeEntry => "missing_narrative_entry",
            ErrorKind::InvalidArchive => "invalid_archive",
            ErrorKind::TooManyEntries => "too_many_entries",
            ErrorKind::EntryTooLarge => "entry_too_large",
            ErrorKind::BundleTooLarge => "bundle_too_large",
            ErrorKind::Io => "io_error",
            ErrorKind::MissingReference => "missing_reference",
            ErrorKind::OrphanedEntry => "orphaned_entry",
            ErrorKind::MalformedEmbedName => "malformed_embed_name",
            ErrorKind::ConflictingEmbed => "conflicting_embed",
            ErrorKind::UnclosedEmbed => "unclosed_embed",
            ErrorKind::InvalidRoleValue => "invalid_role_value",
            ErrorKind::DuplicateEntry => "duplicate_entry",
            ErrorKind::NotAFile => "not_a_file",
            ErrorKind::BundlesUnsupported => "bundles_unsupported",
            ErrorKind::InvalidRoleAlias => "invalid_role_alias",
            ErrorKind::InvalidToolBlock => "invalid_tool_block",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error {
            repr: Box::new(Repr {
                kind,
                name: None,
                position: None,
                span: None,
                snippet: None,
                quoted: None,
                detail: None,
                excerpt: None,
            }),
        }
    }

    /// Names the embed or entry the error is about.
    pub(crate) fn with_name(mut self, name: impl Into<String>) -> Error {
        self.repr.name = Some(name.into());
        self
    }

    /// Places the error at `span` of `text`; the snippet is
    /// `prompt_core::text::snippet`'s.
    pub(crate) fn at(self, text: &str, span: Span) -> Error {
        self.located(&mut Cursor::new(text), span)
    }

    /// [`Error::at`] for the text of `cursor`, which finds the position
    /// (errors placed in document order cost one pass over the text).
    pub(crate) fn located(mut self, cursor: &mut Cursor<'_>, span: Span) -> Error {
        let text = cursor.text();
        let at = cursor.position(span.start);
        self.repr.position = Some(at);
        self.repr.excerpt = Some(Excerpt::placed(text, span, at));
        self.repr.span = Some(span);
        self.repr.snippet = Some(snippet(text, span).to_owned());
        if self.repr.kind == ErrorKind::InvalidRoleValue {
            let spanned = span.slice(text);
            let line_end = spanned.find(['\n', '\r']).unwrap_or(spanned.len());
            self.repr.quoted = Some(spanned[..line_end].to_owned());
        }
        self
    }

    /// Places the error at byte `offset`, the end of the valid text
    /// `prefix`, without a snippet (invalid UTF-8).
    pub(crate) fn at_invalid_byte(mut self, prefix: &str, offset: usize) -> Error {
        self.repr.position = Some(prompt_core::text::position(prefix, offset));
        self.repr.span = Some(Span::at(offset));
        self.repr.excerpt = Some(Excerpt::new(prefix, Span::at(offset)));
        self
    }

    /// Adds a detail for people (the I/O or zip error behind it, a limit).
    pub(crate) fn with_detail(mut self, detail: impl Into<String>) -> Error {
        self.repr.detail = Some(detail.into());
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.repr.kind
    }

    /// The embed, reference or entry name concerned, when there is one.
    pub fn name(&self) -> Option<&str> {
        self.repr.name.as_deref()
    }

    /// Where in the narrative, when the error is about its text.
    pub fn position(&self) -> Option<Position> {
        self.repr.position
    }

    /// The byte offset in the narrative, when the error has a position.
    pub fn offset(&self) -> Option<usize> {
        self.repr.span.map(|span| span.start)
    }

    /// The 1-based line, when the error has a position.
    pub fn line(&self) -> Option<usize> {
        self.repr.position.map(|p| p.line)
    }

    /// The 1-based column in characters, when the error has a position.
    pub fn column(&self) -> Option<usize> {
        self.repr.position.map(|p| p.column)
    }

    /// The offending text (one line, 40 characters at most:
    /// `prompt_core::text::snippet`), when there is one.
    pub fn snippet(&self) -> Option<&str> {
        self.repr.snippet.as_deref()
    }

    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[kind]: message`, and for an
    /// error in the narrative text its position and line (name the text
    /// with [`Annotated::with_origin`]).
    pub fn annotated(&self) -> Annotated {
        let annotated = Annotated::of(self, None);
        match &self.repr.excerpt {
            Some(excerpt) => annotated
                .with_snippet(self.repr.snippet.as_deref().unwrap_or(""))
                .with_excerpt(excerpt.clone()),
            None => annotated,
        }
    }

    /// The message without the position, for people.
    pub fn message(&self) -> String {
        let name = self.repr.name.as_deref().unwrap_or("");
        let mut message = match self.repr.kind {
            ErrorKind::InvalidUtf8 => {
                let offset = self.offset().unwrap_or(0);
                format!("the narrative is not valid UTF-8 (invalid byte at offset {offset})")
            }
            ErrorKind::UnresolvableReference => format!(
                "the reference `@{name}` cannot be resolved: a bare narrative has no attachments \
                 (use a .lmmlz bundle or an embeds directory)"
            ),
            ErrorKind::MissingEntry => format!("the reference `@{name}` names no attachment"),
            ErrorKind::UnsafeEntry => {
                format!("the name `{name}` is unsafe (absolute, `..`, backslash or NUL)")
            }
            ErrorKind::OutsideDirectory => {
                format!("the attachment `{name}` leads outside the embeds directory")
            }
            ErrorKind::MissingNarrativeEntry => {
                format!("the bundle has no narrative entry `{name}`")
            }
            ErrorKind::InvalidArchive => "the bundle is not a readable zip archive".to_owned(),
            ErrorKind::TooManyEntries => "the bundle has too many entries".to_owned(),
            ErrorKind::EntryTooLarge => format!("the attachment `{name}` is too large"),
            ErrorKind::BundleTooLarge => "the attachments are too large together".to_owned(),
            ErrorKind::Io => format!("the attachment `{name}` cannot be read"),
            ErrorKind::MissingReference => {
                format!("the reference `@{name}` has no attachment")
            }
            ErrorKind::OrphanedEntry => format!("the entry `{name}` is named by no reference"),
            ErrorKind::MalformedEmbedName => format!("the embed name `{name}` is unsafe"),
            ErrorKind::ConflictingEmbed => {
                format!("the embed `{name}` is given two different contents")
            }
            ErrorKind::UnclosedEmbed => {
                format!("the embed `{name}` is never closed by `@@@`; it stays ordinary text")
            }
            ErrorKind::InvalidRoleValue => {
                let value = match self.repr.quoted.as_deref().unwrap_or("") {
                    blank if blank.trim().is_empty() => "a blank value".to_owned(),
                    value => format!("the value `{value}`"),
                };
                format!(
                    "{value} fills a delimiter's role slot but is not a role word \
                     (user, assistant, system or tool)"
                )
            }
            ErrorKind::DuplicateEntry if name.is_empty() => {
                "the bundle holds two entries of the same name".to_owned()
            }
            ErrorKind::DuplicateEntry => format!("the bundle holds two entries named `{name}`"),
            ErrorKind::NotAFile => format!("`{name}` is not a regular file"),
            ErrorKind::BundlesUnsupported => "this build reads no .lmmlz bundles \
                 (narrative-segment without its `bundle` feature)"
                .to_owned(),
            ErrorKind::InvalidRoleAlias => format!("the role alias `{name}` is not valid"),
            ErrorKind::InvalidToolBlock => "the tool block cannot be read".to_owned(),
        };
        if let Some(detail) = &self.repr.detail {
            message.push_str(": ");
            message.push_str(detail);
        }
        message
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

    /// The offending bytes of the narrative text (the text given to
    /// [`crate::Narrative::parse`], or a bundle's narrative entry); `None`
    /// for an error about a bundle or a directory as a whole.
    fn span(&self) -> Option<Span> {
        self.repr.span
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_reference_and_its_place() {
        let text = "## user\nsee @a.png\n";
        let err =
            Error::new(ErrorKind::MissingEntry).with_name("a.png").at(text, Span::new(12, 18));
        assert_eq!(err.to_string(), "the reference `@a.png` names no attachment");
        assert_eq!(err.snippet(), Some("@a.png"));
        assert_eq!((err.line(), err.column(), err.offset()), (Some(2), Some(5), Some(12)));
        assert_eq!(err.kind().as_str(), "missing_entry");
        let report = prompt_core::diagnostic::Report::new(&err, Some(text));
        assert_eq!(
            (report.kind.as_str(), report.line, report.column, report.snippet.as_deref()),
            ("missing_entry", Some(2), Some(5), Some("@a.png"))
        );
    }

    /// `annotated()` draws what the renderer draws from the text itself.
    #[test]
    fn annotated_draws_the_line_of_the_narrative() {
        let text = "## user\nsee @a.png\n";
        let err =
            Error::new(ErrorKind::MissingEntry).with_name("a.png").at(text, Span::new(12, 18));
        let drawn = err.annotated().with_origin("n.md").to_string();
        assert_eq!(
            drawn,
            "error[missing_entry]: the reference `@a.png` names no attachment\n --> n.md:2:5\n  |\n2 | see @a.png\n  |     ^^^^^^"
        );
        let of = prompt_core::annotated::Annotated::of(&err, Some(text)).with_origin("n.md");
        assert_eq!(drawn, of.to_string());
        let bare = Error::new(ErrorKind::TooManyEntries).annotated();
        assert_eq!(bare.to_string(), "error[too_many_entries]: the bundle has too many entries");
    }
}
