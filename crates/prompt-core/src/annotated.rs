//! Diagnostics drawn for people: the one renderer of the suite.
//!
//! An [`Annotated`] is a diagnostic ready to draw: its [`Severity`], kind,
//! message, where it is (origin, line, column, the offending snippet and an
//! [`Excerpt`] of the source line) and a help line. [`Annotated::render`]
//! draws it as rustc draws its errors (by `annotate-snippets`: the source
//! line, carets placed by display width under the whole span, colours when
//! asked); its `Display` is that drawing without colours. Every error type
//! of the suite gives one with its `annotated()` method, the command line
//! prints them, and the Python and JavaScript packages show the same text.
//!
//! A library error's `Display` stays its message alone (no position), and
//! [`Annotated::report`] is the same [`Report`] the JSON form prints.
//!
//! ```
//! use prompt_core::annotated::Annotated;
//! use prompt_core::json;
//!
//! let text = "{\"a\": 1,\n \"a\": 2}";
//! let err = json::from_str::<serde_json::Value>(text).unwrap_err();
//! assert_eq!(err.to_string(), "duplicate key `a` in an object");
//! assert_eq!(
//!     err.annotated().with_origin("x.json").to_string(),
//!     "error[invalid_json]: duplicate key `a` in an object\n --> x.json:2:2\n  |\n2 |  \"a\": 2}\n  |  ^^^"
//! );
//! // The same drawing from the text, for a diagnostic that keeps none.
//! assert_eq!(Annotated::of(&err, Some(text)).with_origin("x.json"), err.annotated().with_origin("x.json"));
//! ```

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use annotate_snippets::renderer::DEFAULT_LINE_NUM_STYLE;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::diagnostic::{Diagnostic, Origin, Report};
use crate::json::JsonError;
use crate::text::Excerpt;
use crate::text::{Span, escape_controls, is_escaped_control, position, push_escaped, snippet};

/// How a diagnostic is drawn: `error[...]`, `warning[...]` or `note[...]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Severity {
    /// The input was rejected.
    #[default]
    Error,
    /// Something a person should look at; the work was done.
    Warning,
    /// A remark that asks for nothing.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }

    fn level(self) -> Level<'static> {
        match self {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Note => Level::NOTE,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A diagnostic ready to draw for people, with where it went wrong.
///
/// Lines and columns are 1-based; a column counts Unicode scalar values
/// (characters), not bytes, so it matches what an editor shows.
///
/// One pointer wide (the data is boxed) so that `Result<_, Annotated>`
/// stays cheap on the success path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotated {
    repr: Box<Repr>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
    severity: Severity,
    kind: Cow<'static, str>,
    message: String,
    line: Option<usize>,
    column: Option<usize>,
    snippet: Option<String>,
    /// How many characters the span covers on its line (0: a place
    /// between characters, drawn as one caret).
    width: usize,
    /// The part of the source line at `line` drawn under the message.
    excerpt: Option<Excerpt>,
    /// Where the input came from (`<stdin>` or a path), for the `-->` line.
    origin: Option<String>,
    /// A hint for fixing it, drawn as `= help: ...`.
    help: Option<String>,
}

impl Annotated {
    /// An error of `kind` (snake_case) saying `message`, with no place yet.
    pub fn new(kind: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Annotated {
        Annotated {
            repr: Box::new(Repr {
                severity: Severity::Error,
                kind: kind.into(),
                message: message.into(),
                line: None,
                column: None,
                snippet: None,
                width: 0,
                excerpt: None,
                origin: None,
                help: None,
            }),
        }
    }

    /// The annotated form of a [`Report`]: its kind, message, line, column
    /// (characters) and snippet, with no source line to draw.
    pub fn from_report(report: Report) -> Annotated {
        let Report { kind, message, line, column, snippet, .. } = report;
        let mut annotated = Annotated::new(kind, message);
        annotated.repr.line = line;
        annotated.repr.column = column;
        annotated.repr.snippet = snippet;
        annotated
    }

    /// Any library error or warning, placed in `text` (the text of its
    /// [`Diagnostic::origin`]; `None` when that text is not at hand: then
    /// it has no position): its kind, message and help, its line, column
    /// and snippet as [`Report`] computes them, and its source line drawn
    /// with the whole span (on its first line) underlined. The origin is
    /// named by the diagnostic's [`Origin::Named`] name; name the others
    /// with [`Annotated::with_origin`] (a path, `<stdin>`).
    pub fn of(diagnostic: &(impl Diagnostic + ?Sized), text: Option<&str>) -> Annotated {
        let mut annotated = Annotated::from_report(Report::new(diagnostic, text));
        annotated.repr.help = diagnostic.help();
        if let Origin::Named(name) = diagnostic.origin() {
            annotated.repr.origin = Some(name);
        }
        match (text, diagnostic.span()) {
            (Some(text), Some(span)) => {
                // The underline stops at the end of the span's first line.
                annotated.repr.width = line_text(span.slice(text)).chars().count();
                annotated.with_source(text)
            }
            _ => annotated,
        }
    }

    /// The same diagnostic without its line, column and source line: for
    /// a text the caller never saw (JSON a binding wrote from the host's
    /// own values), where a position would mean nothing to them. The kind,
    /// message, snippet, origin and help stay.
    ///
    /// ```
    /// use prompt_core::annotated::Annotated;
    ///
    /// let err = prompt_core::json::from_str::<serde_json::Value>("[1,,2]").unwrap_err();
    /// let unplaced = err.annotated().unplaced();
    /// assert_eq!((unplaced.line(), unplaced.column()), (None, None));
    /// assert_eq!(unplaced.to_string(), "error[invalid_json]: expected value");
    /// ```
    pub fn unplaced(mut self) -> Annotated {
        self.repr.line = None;
        self.repr.column = None;
        self.repr.excerpt = None;
        self.repr.width = 0;
        self
    }

    /// Sets the 1-based line and column.
    pub fn at(mut self, line: usize, column: usize) -> Annotated {
        self.repr.line = Some(line);
        self.repr.column = Some(column);
        self
    }

    /// Sets the line and column of byte `offset` in `source`, the snippet to
    /// the rest of that line (at most 40 characters) and the source line.
    ///
    /// An offset past the end or inside a character is clamped down to the
    /// nearest character boundary, so any offset is accepted.
    pub fn at_offset(self, source: &str, offset: usize) -> Annotated {
        let at = position(source, offset);
        let snippet = snippet(source, Span::at(source.floor_char_boundary(offset)));
        self.at(at.line, at.column).with_snippet(snippet).with_source(source)
    }

    /// Sets the offending snippet.
    pub fn with_snippet(mut self, snippet: impl Into<String>) -> Annotated {
        self.repr.snippet = Some(snippet.into());
        self
    }

    /// Keeps the source line the position points at, for the caret drawing
    /// (around the column only, when the line is long). Does nothing when
    /// there is no line or the source is shorter.
    pub fn with_source(mut self, source: &str) -> Annotated {
        if let Some(line) = self.repr.line {
            let column = self.repr.column.unwrap_or(1);
            let width = self.repr.width;
            self.repr.excerpt = source
                .split('\n')
                .nth(line.saturating_sub(1))
                .map(|text| Excerpt::at_column(source_line(text, line), line, column, width));
        }
        self
    }

    /// [`Excerpt`] of the source line with the diagnostic's line already at
    /// hand: `line` is its text (no line ending) and `at` the byte of the
    /// column in it. Costs the excerpt's width, not the line's, so placing
    /// many warnings on one long line stays linear.
    pub fn with_line_at(mut self, line: &str, at: usize) -> Annotated {
        let number = self.repr.line.unwrap_or(1);
        let column = self.repr.column.unwrap_or(1);
        // Columns do not count a byte order mark; neither does the drawing.
        let (line, at) = match line.strip_prefix('\u{feff}') {
            Some(rest) if number == 1 => (rest, at.saturating_sub(3)),
            _ => (line, at),
        };
        self.repr.excerpt = Some(Excerpt::around(line, number, column, at, self.repr.width));
        self
    }

    /// Places the diagnostic at `excerpt`: its line, its column and the
    /// source line it keeps (what an error whose text is gone stored when
    /// it was placed).
    pub fn with_excerpt(mut self, excerpt: Excerpt) -> Annotated {
        self.repr.line = Some(excerpt.line());
        self.repr.column = Some(excerpt.column());
        self.repr.width = excerpt.text.get(excerpt.span.clone()).map_or(0, |s| s.chars().count());
        self.repr.excerpt = Some(excerpt);
        self
    }

    /// Names where the input came from (a path, or `<stdin>`).
    pub fn with_origin(mut self, origin: impl Into<String>) -> Annotated {
        self.repr.origin = Some(origin.into());
        self
    }

    /// Sets the help line(s), drawn as `= help: ...`.
    pub fn with_help(mut self, help: impl Into<String>) -> Annotated {
        self.repr.help = Some(help.into());
        self
    }

    /// Draws it as a [`Severity`] other than the default
    /// [`Severity::Error`].
    pub fn with_severity(mut self, severity: Severity) -> Annotated {
        self.repr.severity = severity;
        self
    }

    /// Error, warning or note.
    pub fn severity(&self) -> Severity {
        self.repr.severity
    }

    /// The snake_case kind.
    pub fn kind(&self) -> &str {
        &self.repr.kind
    }

    /// The message for people.
    pub fn message(&self) -> &str {
        &self.repr.message
    }

    /// The 1-based line, when the problem has a position.
    pub fn line(&self) -> Option<usize> {
        self.repr.line
    }

    /// The 1-based column, in characters, when the problem has a position.
    pub fn column(&self) -> Option<usize> {
        self.repr.column
    }

    /// The offending text, when there is one.
    pub fn snippet(&self) -> Option<&str> {
        self.repr.snippet.as_deref()
    }

    /// Where the input came from, when it is named.
    pub fn origin(&self) -> Option<&str> {
        self.repr.origin.as_deref()
    }

    /// The help, when there is one.
    pub fn help(&self) -> Option<&str> {
        self.repr.help.as_deref()
    }

    /// The diagnostic as data: what `--error-format json` prints.
    pub fn report(&self) -> Report {
        Report {
            kind: self.repr.kind.to_string(),
            message: self.repr.message.clone(),
            line: self.repr.line,
            column: self.repr.column,
            snippet: self.repr.snippet.clone(),
        }
    }

    /// `error[kind]: message` (or `warning[...]`, `note[...]`), then the
    /// origin and position, then the source line with carets under the
    /// span when both are known, then the help line; with ANSI colours
    /// when `color`. Ends with a newline.
    ///
    /// Every control character of the message, the origin, the help and the
    /// source line is shown escaped ([`escape_controls`]; a tab of the
    /// source line is drawn as indentation), so no name or value reaches
    /// the terminal as a control.
    pub fn render(&self, color: bool) -> String {
        let renderer = if color { Renderer::styled() } else { Renderer::plain() };
        let repr = &*self.repr;
        let origin = escape_controls(repr.origin.as_deref().unwrap_or("<input>"));
        let origin = &*origin;
        let message = escape_controls(&repr.message);
        let level = repr.severity.level();
        let mut group = Group::with_title(level.primary_title(&*message).id(&*repr.kind));
        // A cut line has no `-->` of annotate-snippets' own (it would count
        // the column in the cut text): it is written in below.
        let mut location = None;
        // Without a source line annotate-snippets draws `-->` with no
        // gutter; it is indented below as over a source line (one column,
        // where the help line's `=` stands).
        let mut bare_origin = false;
        match (repr.line, repr.column, &repr.excerpt) {
            (Some(line), Some(_), Some(excerpt)) => {
                let (text, span) = escape_line(&excerpt.text, excerpt.span.clone());
                let mut source = Snippet::source(text).line_start(line);
                if excerpt.cut {
                    location = repr.column.map(|column| (line, column));
                } else {
                    source = source.path(origin);
                }
                group = group.element(source.annotation(AnnotationKind::Primary.span(span)));
            }
            (Some(line), Some(column), None) => {
                group = group.element(
                    annotate_snippets::Origin::path(origin).line(line).char_column(column),
                );
                bare_origin = true;
            }
            _ if repr.origin.is_some() => {
                group = group.element(annotate_snippets::Origin::path(origin));
                bare_origin = true;
            }
            _ => {}
        }
        if let Some(help) = &repr.help {
            // Lines of help stay lines; what is on them is escaped.
            let help: Vec<Cow<'_, str>> = help.split('\n').map(escape_controls).collect();
            group = group.element(Level::HELP.message(help.join("\n")));
        }
        let mut out = renderer.render(&[group]);
        if bare_origin {
            let title_lines = message.lines().count().max(1);
            if let Some((at, _)) = out.match_indices('\n').nth(title_lines - 1) {
                out.insert(at + 1, ' ');
            }
        }
        if let Some((line, column)) = location {
            let title_lines = message.lines().count().max(1);
            let at = out.match_indices('\n').nth(title_lines - 1).map_or(out.len(), |(i, _)| i + 1);
            let gutter = " ".repeat(line.to_string().len());
            let arrow = if color {
                format!("{DEFAULT_LINE_NUM_STYLE}-->{DEFAULT_LINE_NUM_STYLE:#}")
            } else {
                "-->".to_owned()
            };
            out.insert_str(at, &format!("{gutter}{arrow} {origin}:{line}:{column}\n"));
        }
        out.push('\n');
        out
    }
}

impl JsonError {
    /// The error for people, `invalid_json` with its position and the
    /// offending line underlined; name the text with
    /// [`Annotated::with_origin`].
    pub fn annotated(&self) -> Annotated {
        Annotated::of(self, None).with_snippet(self.snippet()).with_excerpt(self.excerpt().clone())
    }
}

/// The drawing without colours and without the final newline.
impl fmt::Display for Annotated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let drawn = self.render(false);
        f.write_str(drawn.strip_suffix('\n').unwrap_or(&drawn))
    }
}

/// A source line as drawn: its control characters escaped (a tab kept:
/// the renderer draws it as indentation), and `span` moved to the same
/// characters of the escaped text.
fn escape_line(text: &str, span: Range<usize>) -> (Cow<'_, str>, Range<usize>) {
    if !text.contains(|c: char| c != '\t' && is_escaped_control(c)) {
        return (Cow::Borrowed(text), span);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let (mut start, mut end) = (None, None);
    for (i, c) in text.char_indices() {
        if i == span.start {
            start = Some(out.len());
        }
        if i == span.end {
            end = Some(out.len());
        }
        if c == '\t' {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
    }
    let start = start.unwrap_or(out.len());
    let end = end.unwrap_or(out.len()).max(start);
    (Cow::Owned(out), start..end)
}

/// The text of the line that starts `text`, without its line ending.
fn line_text(text: &str) -> &str {
    let end = text.find('\n').unwrap_or(text.len());
    text[..end].strip_suffix('\r').unwrap_or(&text[..end])
}

/// Line `number`'s text as drawn: without its line ending, and on the
/// first line without a byte order mark (columns do not count it).
fn source_line(text: &str, number: usize) -> &str {
    let text = if number == 1 { crate::json::strip_bom(text) } else { text };
    line_text(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_with_carets_under_the_span() {
        let d = Annotated::new("syntax_error", "unexpected `]]`")
            .at_offset("first\n\tab ]] cd\n", 10)
            .with_origin("t.txt");
        assert_eq!(
            d.render(false),
            "error[syntax_error]: unexpected `]]`\n --> t.txt:2:5\n  |\n2 |     ab ]] cd\n  |        ^\n"
        );
        assert_eq!(d.snippet(), Some("]] cd"));
        // A library error's span is underlined whole (on its first line).
        let text = "{\"a\": 1,\n \"a\": 2}";
        let err = crate::json::from_str::<serde_json::Value>(text).unwrap_err();
        let d = Annotated::of(&err, Some(text)).with_origin("x.json");
        assert_eq!(
            d.render(false),
            "error[invalid_json]: duplicate key `a` in an object\n --> x.json:2:2\n  |\n2 |  \"a\": 2}\n  |  ^^^\n"
        );
    }

    #[test]
    fn an_excerpt_at_a_byte_is_the_excerpt_at_its_column() {
        let long: String = (0..5000).map(|i| if i % 7 == 0 { 'é' } else { 'a' }).collect();
        for line in ["", "abc", "日本語のテキスト", long.as_str()] {
            let columns = line.char_indices().chain([(line.len(), ' ')]).enumerate();
            for (column, (at, _)) in columns.filter(|(c, _)| c % 97 < 5 || *c > 4990) {
                for width in [0, 1, 3, 200] {
                    assert_eq!(
                        Excerpt::around(line, 1, column + 1, at, width),
                        Excerpt::at_column(line, 1, column + 1, width),
                        "{line:?} at {at}, width {width}"
                    );
                }
            }
        }
    }

    /// An excerpt kept by an error draws what the text would have drawn.
    #[test]
    fn a_kept_excerpt_draws_as_the_text() {
        let long = format!("x\n{}ERR{}\r\n", "a".repeat(5000), "b".repeat(5000));
        for (text, span) in [
            ("\u{feff}[1,]", Span::at(6)),
            ("\u{feff}ab", Span::new(0, 2)),
            ("a\r\nbc [[ x\r\n", Span::new(6, 20)),
            (long.as_str(), Span::new(5002, 5005)),
            ("abc", Span::at(99)),
            ("", Span::at(0)),
        ] {
            struct At(Span);
            impl fmt::Display for At {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("m")
                }
            }
            impl Diagnostic for At {
                fn kind(&self) -> &'static str {
                    "k"
                }
                fn span(&self) -> Option<Span> {
                    Some(self.0)
                }
            }
            let from_text = Annotated::of(&At(span), Some(text));
            let kept = Annotated::of(&At(span), None)
                .with_snippet(from_text.snippet().unwrap_or(""))
                .with_excerpt(Excerpt::new(text, span));
            assert_eq!(kept.render(false), from_text.render(false), "{text:?} {span:?}");
        }
    }

    #[test]
    fn warnings_and_notes_are_drawn_like_errors() {
        let w = Annotated::new("duplicate_param", "`model` is set twice; the last value wins")
            .at_offset("/// param: model=a\n/// param: model=b\n", 30)
            .with_origin("p.txt")
            .with_severity(Severity::Warning);
        assert_eq!(
            w.render(false),
            "warning[duplicate_param]: `model` is set twice; the last value wins\n --> p.txt:2:12\n  |\n2 | /// param: model=b\n  |            ^\n"
        );
        let bare = Annotated::new("unknown_param", "no field for `x`");
        assert_eq!(
            bare.clone().with_severity(Severity::Warning).render(false),
            "warning[unknown_param]: no field for `x`\n"
        );
        assert_eq!(
            bare.with_severity(Severity::Note).to_string(),
            "note[unknown_param]: no field for `x`"
        );
    }

    #[test]
    fn human_without_position() {
        let d = Annotated::new("invalid_json", "expected an array");
        assert_eq!(d.render(false), "error[invalid_json]: expected an array\n");
        let d = d.with_origin("a.json");
        // The `-->` line is indented as over a source line (a gutter of
        // one column), in line with the help line's `=`.
        assert_eq!(d.render(false), "error[invalid_json]: expected an array\n --> a.json\n");
        let d = Annotated::new("k", "m").at(3, 4).with_origin("a.json");
        assert_eq!(d.render(false), "error[k]: m\n --> a.json:3:4\n");
        let d = Annotated::new("k", "m").at(120, 4).with_origin("a.json").with_help("h");
        assert_eq!(d.render(false), "error[k]: m\n --> a.json:120:4\n = help: h\n");
        let d = Annotated::new("k", "two\nlines").with_origin("a.json").with_help("h");
        assert_eq!(d.render(false), "error[k]: two␊lines\n --> a.json\n = help: h\n");
        let styled = Annotated::new("k", "m").with_origin("a.json").render(true);
        assert!(styled.contains("\n \u{1b}"), "{styled:?}");
    }

    /// Carets are placed by display width: CJK characters take two
    /// columns (regression: the caret after CJK text landed under the
    /// wrong character).
    #[test]
    fn carets_follow_display_width() {
        let d = Annotated::new("syntax_error", "unclosed").at_offset("名前は [[ x", 10);
        assert_eq!(d.column(), Some(5));
        let out = d.render(false);
        assert!(out.ends_with("1 | 名前は [[ x\n  |        ^\n"), "{out}");
    }

    #[test]
    fn help_lines_and_colours() {
        struct Unknown;
        impl fmt::Display for Unknown {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("unknown filter `uper`")
            }
        }
        impl Diagnostic for Unknown {
            fn kind(&self) -> &'static str {
                "unknown_filter"
            }
            fn span(&self) -> Option<Span> {
                Some(Span::new(8, 12))
            }
            fn help(&self) -> Option<String> {
                Some("did you mean `upper`?".into())
            }
        }
        let d = Annotated::of(&Unknown, Some("[[ x -> uper ]]")).with_origin("t.txt");
        assert_eq!(
            d.render(false),
            "error[unknown_filter]: unknown filter `uper`\n --> t.txt:1:9\n  |\n1 | [[ x -> uper ]]\n  |         ^^^^\n  |\n  = help: did you mean `upper`?\n"
        );
        let styled = d.render(true);
        assert!(styled.contains("\u{1b}["), "{styled:?}");
        assert_eq!(strip_ansi(&styled), d.render(false));
    }

    /// The text without its ANSI escapes (`ESC [ ... m`).
    fn strip_ansi(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                chars.by_ref().find(|&c| c == 'm');
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = format!("{}ERR{}", "a".repeat(5000), "b".repeat(5000));
        let d = Annotated::new("k", "m").at_offset(&line, 5000);
        let out = d.render(false);
        assert!(out.contains(" --> <input>:1:5001\n"), "{out}");
        let expected_line = format!("1 | ...{}ERR{}...\n", "a".repeat(40), "b".repeat(57));
        let expected_caret = format!("  | {}^\n", " ".repeat(43));
        assert!(out.contains(&expected_line), "{out}");
        assert!(out.ends_with(&expected_caret), "{out}");
        // Near the start nothing is cut before, and a column past the end
        // still gets its caret.
        let d = Annotated::new("k", "m").at(1, 3).with_source("abc");
        assert!(d.render(false).ends_with("1 | abc\n  |   ^\n"));
        let d = Annotated::new("k", "m").at(1, 9).with_source("abc");
        assert!(d.render(false).ends_with("1 | abc\n  |    ^\n"), "{}", d.render(false));
    }

    #[test]
    fn offsets_are_clamped_to_characters() {
        // Offset 2 falls inside `é` (bytes 1..3); columns count characters.
        let d = Annotated::new("k", "m").at_offset("aé\r\nb", 2);
        assert_eq!((d.line(), d.column()), (Some(1), Some(2)));
        let d = Annotated::new("k", "m").at_offset("aé\r\nb", 99);
        assert_eq!((d.line(), d.column(), d.snippet()), (Some(2), Some(2), Some("")));
        assert!(d.render(false).contains("2 | b\n"));
    }

    #[test]
    fn the_report_is_the_json_form() {
        let d = Annotated::new("bad_arguments", "x").at(3, 4).with_snippet("ab\"c");
        assert_eq!(
            serde_json::to_string(&d.report()).unwrap(),
            "{\"kind\":\"bad_arguments\",\"message\":\"x\",\"line\":3,\"column\":4,\"snippet\":\"ab\\\"c\"}"
        );
    }

    /// No control character of a name or value reaches the terminal: not
    /// in the message, the origin, the help or the source line, coloured
    /// or not (regression: an entry name set the window title).
    #[test]
    fn controls_are_escaped_everywhere_drawn() {
        let hostile = "a\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}\u{2066}\r\n\tz";
        let source = format!("x [[ {hostile} ]]");
        let d = Annotated::new("k", format!("the value `{hostile}`"))
            .at_offset(&source, 2)
            .with_origin(format!("e{hostile}.txt"))
            .with_help(format!(
                "included from {}\nincluded from main:1:1",
                hostile.replace('\n', "")
            ));
        for color in [false, true] {
            let drawn = d.render(color);
            let plain = if color { strip_ansi(&drawn) } else { drawn.clone() };
            assert!(
                !plain.chars().any(|c| c != '\n' && is_escaped_control(c)),
                "{color}: {plain:?}"
            );
        }
        let drawn = d.render(false);
        let shown = "a␛]0;pwned␇␛[2J\\u{9b}31m\\u{202e}\\u{2066}␍␊␉z";
        assert!(drawn.starts_with(&format!("error[k]: the value `{shown}`\n")), "{drawn}");
        assert!(drawn.contains(&format!(" --> e{shown}.txt:1:3\n")), "{drawn}");
        let help = shown.replace('␊', "");
        assert!(drawn.contains(&format!("= help: included from {help}\n")), "{drawn}");
        assert!(drawn.contains("          included from main:1:1"), "{drawn}");
        // The message and JSON keep the value as it is.
        assert!(d.message().contains(hostile));
        assert!(d.report().message.contains(hostile));
    }

    /// Carets stay under the span when the line before it is escaped.
    #[test]
    fn carets_follow_escaped_controls() {
        let source = "\u{9b}\u{202e}\u{1b} [[ bad ]]";
        let at = source.find("bad").unwrap();
        let d = Annotated::new("k", "m").at_offset(source, at);
        let drawn = d.render(false);
        assert!(
            drawn.ends_with("1 | \\u{9b}\\u{202e}␛ [[ bad ]]\n  |                    ^\n"),
            "{drawn}"
        );
        assert_eq!(escape_line("a\u{9b}bc", 3..4), (Cow::Owned::<str>("a\\u{9b}bc".into()), 7..8));
        assert_eq!(escape_line("a\tb", 2..3), (Cow::Borrowed("a\tb"), 2..3));
    }

    /// The bounded excerpt an error keeps is the excerpt of the whole line,
    /// at every place of short and long lines (byte order mark, CR, CJK).
    #[test]
    fn a_kept_excerpt_is_the_excerpt_of_the_whole_line() {
        struct At(Span);
        impl fmt::Display for At {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("m")
            }
        }
        impl Diagnostic for At {
            fn kind(&self) -> &'static str {
                "k"
            }
            fn span(&self) -> Option<Span> {
                Some(self.0)
            }
        }
        let long: String = (0..5000).map(|i| if i % 7 == 0 { '名' } else { 'a' }).collect();
        let texts = [
            format!("\u{feff}{long}\r\nx"),
            format!("ab\n{long}"),
            format!("{}\r\n{}", "é".repeat(2047), "b".repeat(4097)),
            "\u{feff}\r\n\r".to_owned(),
        ];
        for text in &texts {
            let offsets = (0..=text.len()).filter(|o| o % 61 < 3 || *o < 8 || text.len() - o < 8);
            for start in offsets {
                for len in [0, 1, 5, 300, 9000] {
                    let span = Span::new(start, start + len);
                    let from_text = Annotated::of(&At(span), Some(text));
                    let kept = Annotated::of(&At(span), None)
                        .with_snippet(from_text.snippet().unwrap_or(""))
                        .with_excerpt(Excerpt::new(text, span));
                    assert_eq!(kept.render(false), from_text.render(false), "{start} {len}");
                }
            }
        }
    }
}
