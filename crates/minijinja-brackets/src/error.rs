//! The one error type of the crate: what went wrong and where.
//!
//! [`Error`] is data (a kind, a message, a byte span, its origin, and the
//! line, column and snippet `prompt_core::text` computes for it); it is a
//! [`Diagnostic`]. [`Error::annotated`] draws it with the template line and
//! the span underlined, by the suite's one renderer.

use std::fmt;

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::{Diagnostic, Origin};
use prompt_core::text::Excerpt;
use prompt_core::text::{self, Position, Span};

/// What kind of error a compile or render produced.
///
/// [`ErrorKind::as_str`] gives the snake_case name the command line and the
/// conformance fixtures use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The template is malformed: an unclosed tag or block, a stray end tag,
    /// an unexpected token, a bad string escape, an invalid `set` target,
    /// nesting deeper than the limit. E.g. `[% if true %]abc` (no `endif`).
    SyntaxError,
    /// A filter name the environment does not know, reported when the
    /// template is compiled. E.g. `[[ name -> shout ]]`.
    UnknownFilter,
    /// A test name the environment does not know, reported when the
    /// template is compiled. E.g. `[% if x is tall %]`.
    UnknownTest,
    /// A call of a name that is neither a macro nor a function.
    /// E.g. `[[ nosuchmacro(1) ]]`.
    UnknownFunction,
    /// Wrong number, name or type of arguments to a filter, test, function
    /// or macro. E.g. `[% macro m(a) %][% endmacro %][[ m(1, 2) ]]`.
    BadArguments,
    /// An operation the values do not support: a type mismatch, division by
    /// zero, integer overflow, a bad probability or weight, a non-iterable
    /// `for`, an unstorable value. E.g. `[[ count + 1 ]]` with `count` unset.
    InvalidOperation,
    /// Macro calls (or evaluation) nested deeper than the recursion limit.
    /// E.g. `[% macro f() %][[ f() ]][% endmacro %][[ f() ]]`.
    RecursionLimit,
    /// The render used up its fuel (evaluation steps).
    /// E.g. `[% for i in range(100000) %][% for j in range(100000) %][% endfor %][% endfor %]`.
    OutOfFuel,
    /// The output grew past the output limit. E.g. a loop printing a large
    /// string many times.
    OutputLimit,
    /// The render built or kept more bytes than the memory limit allows
    /// (see [`Limits::memory_limit`](crate::Limits::memory_limit)). E.g. a
    /// loop writing a 16 MB string to a variable a thousand times: the
    /// write log lists every assignment.
    MemoryLimit,
    /// Strict mode: printing or iterating an undefined value (e.g.
    /// `[[ missing ]]`); the Jinja2 profile: an attribute, item or method
    /// of an undefined value, or arithmetic with one (e.g.
    /// `{{ missing.name }}`).
    UndefinedError,
    /// JSON text given to [`Context::from_json`](crate::Context::from_json)
    /// is malformed, repeats a key, holds an integer outside 64 bits, or is
    /// not the shape of a context; its position is in that text.
    /// E.g. `{"state": {"n": 18446744073709551616}}`.
    InvalidJson,
    /// A value given to [`Context::from_serialize`] or
    /// [`Context::from_object`] is not a context: not an object, without a
    /// JSON form, or `state`, `local` or `global` beside other keys (see
    /// [`Context`] for the two shapes).
    /// E.g. `{"state": {"name": "Ann"}, "mood": "calm"}`.
    ///
    /// [`Context`]: crate::Context
    /// [`Context::from_serialize`]: crate::Context::from_serialize
    /// [`Context::from_object`]: crate::Context::from_object
    InvalidContext,
    /// A seedless render found no entropy to draw its seed from (the
    /// operating system gave no random bytes); pass a seed instead. Never
    /// raised by a seeded render.
    EntropyUnavailable,
    /// [`Template::distribution`](crate::Template::distribution) found more
    /// random paths than its cap allows. E.g. 20 `chance` blocks in a row
    /// have 2^20 paths, far beyond the default cap of 10 000; sample
    /// instead.
    TooManyPaths,
    /// `include`, `import`, `extends` or [`Environment::template`] named a
    /// template that is neither stored nor found by the loader (an
    /// `include ... ignore missing` prints nothing instead). E.g.
    /// `[% include "missing.txt" %]`.
    ///
    /// [`Environment::template`]: crate::Environment::template
    TemplateNotFound,
    /// A template name that could leave the loader's root: empty, with an
    /// empty, `.` or `..` segment, a `\`, a NUL, a leading `/`, a `:` in
    /// its first segment, or longer than 255 bytes. E.g.
    /// `[% include "../secrets.txt" %]`.
    InvalidTemplateName,
    /// The loader itself failed (it returned a [`LoadError`]).
    ///
    /// [`LoadError`]: crate::LoadError
    LoadError,
    /// Templates nested inside one another (`include`, `extends`,
    /// `import`) deeper than [`Limits::composition_depth`].
    ///
    /// [`Limits::composition_depth`]: crate::Limits::composition_depth
    CompositionLimit,
    /// A template includes, extends or imports itself through the active
    /// chain, which the message names (`a.txt → b.txt → a.txt`).
    TemplateCycle,
    /// Under [`TemplateNames::Authored`] (the prompt's own directory as the
    /// root), an `include`, `import`, `from` or `extends` name with bytes
    /// from data (a context value, a batch row, a filter's result), at the
    /// name's expression. E.g. `[% include persona ~ ".txt" %]`.
    ///
    /// [`TemplateNames::Authored`]: crate::TemplateNames::Authored
    DataTemplateName,
    /// The loader refused to serve a file as a template because it is one
    /// of the run's own inputs (its rows, context, tools, history, output,
    /// ...): [`LoadError::not_a_template`](crate::LoadError::not_a_template).
    NotATemplate,
    /// The template itself raised an error (the Jinja2 profile's
    /// `raise_exception(message)`, transformers' way for a chat template to
    /// refuse a conversation); the message is the template's. E.g.
    /// `{{ raise_exception('Conversation roles must alternate') }}`.
    TemplateRaised,
    /// The Jinja2 profile refused what Jinja2's immutable sandbox refuses:
    /// a method that changes a value. E.g. `{{ messages.append(x) }}`.
    SandboxRefused,
}

impl ErrorKind {
    /// The snake_case name: `syntax_error`, `unknown_filter`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::SyntaxError => "syntax_error",
            ErrorKind::UnknownFilter => "unknown_filter",
            ErrorKind::UnknownTest => "unknown_test",
            ErrorKind::UnknownFunction => "unknown_function",
            ErrorKind::BadArguments => "bad_arguments",
            ErrorKind::InvalidOperation => "invalid_operation",
            ErrorKind::RecursionLimit => "recursion_limit",
            ErrorKind::OutOfFuel => "out_of_fuel",
            ErrorKind::OutputLimit => "output_limit",
            ErrorKind::MemoryLimit => "memory_limit",
            ErrorKind::UndefinedError => "undefined_error",
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::InvalidContext => "invalid_context",
            ErrorKind::EntropyUnavailable => "entropy_unavailable",
            ErrorKind::TooManyPaths => "too_many_paths",
            ErrorKind::TemplateNotFound => "template_not_found",
            ErrorKind::InvalidTemplateName => "invalid_template_name",
            ErrorKind::LoadError => "load_error",
            ErrorKind::CompositionLimit => "composition_limit",
            ErrorKind::TemplateCycle => "template_cycle",
            ErrorKind::DataTemplateName => "data_template_name",
            ErrorKind::NotATemplate => "not_a_template",
            ErrorKind::TemplateRaised => "template_raised",
            ErrorKind::SandboxRefused => "sandbox_refused",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error from compiling or rendering a template.
///
/// Errors raised by the template carry a byte [`Span`] into the template
/// (or, for `invalid_json`, into the JSON text) and, computed once through
/// `prompt_core::text` when the error is placed, a 1-based line and column
/// (columns count characters) and the offending snippet. Errors a host
/// filter or function creates with [`Error::new`] get the position of the
/// call that ran them.
///
/// It is a [`Diagnostic`]: its `Display` is the message alone;
/// [`Error::annotated`] draws the whole diagnostic.
#[derive(Clone, PartialEq)]
pub struct Error {
    repr: Box<Repr>,
}

#[derive(Clone, PartialEq)]
struct Repr {
    kind: ErrorKind,
    message: String,
    origin: Origin,
    location: Option<Location>,
    /// The statements that loaded the template the error is in,
    /// innermost first.
    chain: Vec<LoadSite>,
    /// What to write instead, when the error knows (a context's shape).
    help: Option<String>,
}

/// One statement in the chain that loaded the template an error is in:
/// an `include`, `import` or `extends`, the template it stands in, and
/// where. [`Error::load_chain`] lists them innermost first; a host that
/// changed a template's text before compiling it (stripping comments, say)
/// maps [`LoadSite::span`] back to the text as written.
///
/// Its `Display` is the help line `included from main:3:5` (the main
/// template is `main`; the line and column are in the text compiled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadSite {
    statement: LoadStatement,
    template: Origin,
    span: Span,
    at: Position,
}

/// Which statement a [`LoadSite`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoadStatement {
    /// `[% include ... %]`.
    Include,
    /// `[% import ... %]` or `[% from ... import ... %]`.
    Import,
    /// `[% extends ... %]`.
    Extends,
}

impl LoadStatement {
    /// The help line's words: `included from`, `imported from`, `extended from`.
    pub fn as_str(&self) -> &'static str {
        match self {
            LoadStatement::Include => "included from",
            LoadStatement::Import => "imported from",
            LoadStatement::Extends => "extended from",
        }
    }
}

impl LoadSite {
    /// The statement at byte `span` of `source`, the text of `template`.
    pub(crate) fn new(
        statement: LoadStatement,
        template: Origin,
        source: &str,
        span: Span,
    ) -> LoadSite {
        LoadSite { statement, template, span, at: text::position(source, span.start) }
    }

    /// The same statement at `span` of `text`: for a host that compiled
    /// another text than the file as written (comments stripped) and maps
    /// the site back to the file.
    pub fn placed_in(&self, text: &str, span: Span) -> LoadSite {
        LoadSite::new(self.statement, self.template.clone(), text, span)
    }

    /// Which statement loaded the template.
    pub fn statement(&self) -> LoadStatement {
        self.statement
    }

    /// The template the statement stands in: [`Origin::Input`] for the
    /// main one, else [`Origin::Named`].
    pub fn template(&self) -> &Origin {
        &self.template
    }

    /// The statement's byte span in that template's text.
    pub fn span(&self) -> Span {
        self.span
    }

    /// The statement's 1-based line in that text.
    pub fn line(&self) -> usize {
        self.at.line
    }

    /// The statement's 1-based column in characters.
    pub fn column(&self) -> usize {
        self.at.column
    }
}

impl fmt::Display for LoadSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match &self.template {
            Origin::Named(name) => name.as_str(),
            _ => "main",
        };
        write!(f, "{} {name}:{}:{}", self.statement.as_str(), self.at.line, self.at.column)
    }
}

#[derive(Clone, PartialEq)]
struct Location {
    span: Span,
    line: usize,
    column: usize,
    snippet: String,
    /// The source line, bounded (a window of a long one), for
    /// [`Error::annotated`].
    excerpt: Excerpt,
}

impl Error {
    /// An error of `kind` with a message for people, without a position.
    /// Host filters and functions return these; the renderer adds the
    /// position of the call.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        let repr = Repr {
            kind,
            message: message.into(),
            origin: Origin::Input,
            location: None,
            chain: Vec::new(),
            help: None,
        };
        Error { repr: Box::new(repr) }
    }

    /// Places the error at `span` of `source`, unless it already has a place.
    pub(crate) fn at(mut self, source: &str, span: impl Into<Span>) -> Error {
        if self.repr.location.is_some() {
            return self;
        }
        let span = span.into();
        let Position { line, column } = text::position(source, span.start);
        let snippet = text::snippet(source, span).to_owned();
        let excerpt = Excerpt::new(source, span);
        self.repr.location = Some(Location { span, line, column, snippet, excerpt });
        self
    }

    /// Places the error as [`Error::at`] does, in the template named `name`
    /// (`None`: the main one, [`Origin::Input`]), unless it already has a
    /// place.
    pub(crate) fn at_in(self, source: &str, span: impl Into<Span>, name: Option<&str>) -> Error {
        if self.repr.location.is_some() {
            return self;
        }
        let mut error = self.at(source, span);
        if let Some(name) = name {
            error.repr.origin = Origin::Named(name.to_owned());
        }
        error
    }

    /// Adds a help line: what to write instead.
    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Error {
        self.repr.help = Some(help.into());
        self
    }

    /// The same error as `kind`, e.g. a context's shape error as
    /// `invalid_json` once it is placed in the JSON text it came from.
    pub(crate) fn into_kind(mut self, kind: ErrorKind) -> Error {
        self.repr.kind = kind;
        self
    }

    /// Adds a statement to the chain that loaded the template the error
    /// is in, outermost last.
    pub(crate) fn loaded_from(mut self, site: LoadSite) -> Error {
        self.repr.chain.push(site);
        self
    }

    /// An `invalid_json` error (`memory_limit` past the reader's limit) for
    /// `err` in the JSON `text` of a context, at its place there.
    pub(crate) fn json(text: &str, err: &prompt_core::json::JsonError) -> Error {
        let kind = match err.kind() {
            prompt_core::json::JsonErrorKind::MemoryLimit => ErrorKind::MemoryLimit,
            _ => ErrorKind::InvalidJson,
        };
        Error::new(kind, err.message()).in_context(text, err.span())
    }

    /// Places the error at `span` of `text`, the JSON text of a context
    /// (its origin is `context`).
    pub(crate) fn in_context(self, text: &str, span: impl Into<Span>) -> Error {
        let mut error = self.at(text, span);
        error.repr.origin = Origin::Named("context".to_owned());
        error
    }

    /// Names the template the error is in, unless it is already placed
    /// in one (a compile error of a stored template).
    pub(crate) fn in_template(mut self, name: &str) -> Error {
        if self.repr.origin == Origin::Input {
            self.repr.origin = Origin::Named(name.to_owned());
        }
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.repr.kind
    }

    /// The message for people, without the position.
    pub fn message(&self) -> &str {
        &self.repr.message
    }

    /// The byte span in the template (for `invalid_json`, in the JSON
    /// text), when the error has a position.
    pub fn span(&self) -> Option<Span> {
        self.repr.location.as_ref().map(|l| l.span)
    }

    /// The 1-based line, when the error has a position.
    pub fn line(&self) -> Option<usize> {
        self.repr.location.as_ref().map(|l| l.line)
    }

    /// The 1-based column in characters, when the error has a position.
    pub fn column(&self) -> Option<usize> {
        self.repr.location.as_ref().map(|l| l.column)
    }

    /// The offending template text (at most 40 characters of one line),
    /// when the error has a position.
    pub fn snippet(&self) -> Option<&str> {
        self.repr.location.as_ref().map(|l| l.snippet.as_str())
    }

    /// For an error in a loaded template: the statements that loaded it,
    /// innermost first (empty for an error in the main template).
    pub fn load_chain(&self) -> &[LoadSite] {
        &self.repr.chain
    }

    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[kind]: message`, then where
    /// (` --> NAME:LINE:COLUMN`; the main template is `<input>`, named with
    /// [`Annotated::with_origin`]), the template line with the span
    /// underlined, and for an error in a loaded template the statements
    /// that loaded it as help lines.
    pub fn annotated(&self) -> Annotated {
        let annotated = Annotated::of(self, None);
        match &self.repr.location {
            Some(l) => annotated.with_snippet(l.snippet.as_str()).with_excerpt(l.excerpt.clone()),
            None => annotated,
        }
    }
}

impl Diagnostic for Error {
    fn kind(&self) -> &'static str {
        self.repr.kind.as_str()
    }

    fn span(&self) -> Option<Span> {
        Error::span(self)
    }

    /// The template ([`Origin::Input`]), the name of a template the main
    /// one included, imported or extended ([`Origin::Named`]), or `context`
    /// for the JSON text of a context.
    fn origin(&self) -> Origin {
        self.repr.origin.clone()
    }

    /// What to write instead where the error knows (a context of neither
    /// accepted shape shows both); for an error in a loaded template, the
    /// chain of statements that loaded it, one `included from
    /// NAME:LINE:COLUMN` line per level, innermost first (the main template
    /// is `main`).
    fn help(&self) -> Option<String> {
        self.repr.help.clone().or_else(|| help_lines(&self.repr.chain))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.kind()).field("message", &self.message());
        if let Some(l) = &self.repr.location {
            // As `start..end`, the way the syntax tree prints spans.
            d.field("span", &l.span.range())
                .field("line", &l.line)
                .field("column", &l.column)
                .field("snippet", &l.snippet);
        }
        d.finish()
    }
}

/// The message, without the position (the [`Diagnostic`] contract).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// The help of an error in a loaded template: one line per [`LoadSite`],
/// innermost first; `None` for an empty chain.
fn help_lines(chain: &[LoadSite]) -> Option<String> {
    let mut lines = chain.iter().map(LoadSite::to_string);
    let first = lines.next()?;
    Some(lines.fold(first, |mut all, line| {
        all.push('\n');
        all.push_str(&line);
        all
    }))
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_draws_a_caret_under_the_span() {
        let source = "line one\nsay [[ x -> shout ]]!";
        let err = Error::new(ErrorKind::UnknownFilter, "unknown filter `shout`")
            .at(source, Span::new(21, 26));
        assert_eq!((err.line(), err.column(), err.snippet()), (Some(2), Some(13), Some("shout")));
        assert_eq!(err.to_string(), "unknown filter `shout`");
        assert_eq!(
            err.annotated().to_string(),
            "error[unknown_filter]: unknown filter `shout`\n --> <input>:2:13\n  |\n\
             2 | say [[ x -> shout ]]!\n  |             ^^^^^"
        );
    }

    #[test]
    fn a_position_is_set_once() {
        let err = Error::new(ErrorKind::BadArguments, "m").at("abc", Span::new(1, 2));
        let err = err.at("abc", Span::new(0, 1));
        assert_eq!(err.column(), Some(2));
        assert_eq!(
            Error::new(ErrorKind::OutOfFuel, "m").annotated().to_string(),
            "error[out_of_fuel]: m"
        );
    }
}
