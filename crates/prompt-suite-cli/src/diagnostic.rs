//! The error every subcommand reports, kept apart from its two renderings.
//!
//! A [`Diagnostic`] is data: a snake_case kind, a message, where the
//! problem is (line, column, offending snippet) and a help line when there
//! is one. [`Diagnostic::render_human`] (drawn by `annotate-snippets`, as
//! rustc draws: the source line, carets placed by display width under the
//! whole span, colours when asked) and [`Diagnostic::render_json`] draw it;
//! nothing else formats errors.
//!
//! Warnings are diagnostics too: [`warn`] reports one, and the command line
//! prints every warning when the subcommand has run, drawn as
//! [`Diagnostic::render_warning`].

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Mutex, PoisonError};

use annotate_snippets::renderer::DEFAULT_LINE_NUM_STYLE;
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use prompt_core::diagnostic::{Diagnostic as CoreDiagnostic, Report};
use prompt_core::text::{Span, position, snippet};
use serde::Serialize;

/// A rejected input (exit code 1), with where it went wrong.
///
/// Lines and columns are 1-based; a column counts Unicode scalar values
/// (characters), not bytes, so it matches what an editor shows.
///
/// One pointer wide (the data is boxed) so that `Result<_, Diagnostic>` stays
/// cheap on the success path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    repr: Box<Repr>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
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

impl Diagnostic {
    /// A diagnostic of `kind` (snake_case, as listed in `docs/cli-contract.md`).
    pub fn new(kind: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            repr: Box::new(Repr {
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

    /// The diagnostic of a library error or warning's [`Report`]: its
    /// kind, message, line, column (characters) and snippet, as
    /// `prompt_core` computed them from the text it points into.
    pub fn from_report(report: Report) -> Diagnostic {
        let Report { kind, message, line, column, snippet, .. } = report;
        let mut diagnostic = Diagnostic::new(kind, message);
        diagnostic.repr.line = line;
        diagnostic.repr.column = column;
        diagnostic.repr.snippet = snippet;
        diagnostic
    }

    /// The diagnostic of any library error or warning: its kind, message
    /// and help, and its line, column (characters) and snippet computed by
    /// `prompt_core` from its span in `text` (the text of its origin,
    /// `None` when that text is not at hand: then it has no position), with
    /// the source line drawn; `origin` names that text (a path, `<stdin>`).
    pub fn of(
        error: &dyn CoreDiagnostic,
        text: Option<&str>,
        origin: impl Into<String>,
    ) -> Diagnostic {
        let mut diagnostic = Diagnostic::from_report(Report::new(error, text)).with_origin(origin);
        diagnostic.repr.help = error.help();
        match (text, error.span()) {
            (Some(text), Some(span)) => {
                // The underline stops at the end of the span's first line.
                diagnostic.repr.width = line_text(span.slice(text)).chars().count();
                diagnostic.with_source(text)
            }
            _ => diagnostic,
        }
    }

    /// Sets the 1-based line and column.
    pub fn at(mut self, line: usize, column: usize) -> Diagnostic {
        self.repr.line = Some(line);
        self.repr.column = Some(column);
        self
    }

    /// Sets the line and column of byte `offset` in `source`, the snippet to
    /// the rest of that line (at most 40 characters) and the source line.
    ///
    /// An offset past the end or inside a character is clamped down to the
    /// nearest character boundary, so any offset is accepted.
    pub fn at_offset(self, source: &str, offset: usize) -> Diagnostic {
        let at = position(source, offset);
        let snippet = snippet(source, Span::at(source.floor_char_boundary(offset)));
        self.at(at.line, at.column).with_snippet(snippet).with_source(source)
    }

    /// Sets the offending snippet.
    pub fn with_snippet(mut self, snippet: impl Into<String>) -> Diagnostic {
        self.repr.snippet = Some(snippet.into());
        self
    }

    /// Keeps the source line the position points at, for the caret drawing
    /// (around the column only, when the line is long). Does nothing when
    /// there is no line or the source is shorter.
    pub fn with_source(mut self, source: &str) -> Diagnostic {
        if let Some(line) = self.repr.line {
            let column = self.repr.column.unwrap_or(1);
            let width = self.repr.width;
            self.repr.excerpt = source.split('\n').nth(line.saturating_sub(1)).map(|text| {
                // Columns do not count a byte order mark; neither does the
                // drawing.
                let text = if line == 1 { prompt_core::json::strip_bom(text) } else { text };
                Excerpt::new(line_text(text), column, width)
            });
        }
        self
    }

    /// [`Diagnostic::with_source`] with the diagnostic's line already at
    /// hand: `line` is its text (no line ending) and `at` the byte of the
    /// column in it. Costs the excerpt's width, not the line's, so placing
    /// many warnings on one long line stays linear.
    pub fn with_line_at(mut self, line: &str, at: usize) -> Diagnostic {
        // Columns do not count a byte order mark; neither does the drawing.
        let (line, at) = match line.strip_prefix('\u{feff}') {
            Some(rest) if self.repr.line == Some(1) => (rest, at.saturating_sub(3)),
            _ => (line, at),
        };
        self.repr.excerpt = Some(Excerpt::around(line, at, self.repr.width));
        self
    }

    /// Names where the input came from (a path, or `<stdin>`).
    pub fn with_origin(mut self, origin: impl Into<String>) -> Diagnostic {
        self.repr.origin = Some(origin.into());
        self
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

    /// `error[kind]: message`, then the origin and position, then the source
    /// line with carets under the span when both are known, then the help
    /// line; with ANSI colours when `color`. Ends with a newline.
    pub fn render_human(&self, color: bool) -> String {
        self.render(Level::ERROR, color)
    }

    /// The same drawing for a warning: `warning[kind]: message`, then where
    /// it is when that is known.
    pub fn render_warning(&self, color: bool) -> String {
        self.render(Level::WARNING, color)
    }

    fn render(&self, level: Level<'_>, color: bool) -> String {
        let renderer = if color { Renderer::styled() } else { Renderer::plain() };
        let repr = &*self.repr;
        let origin = repr.origin.as_deref().unwrap_or("<input>");
        let mut group = Group::with_title(level.primary_title(&*repr.message).id(&*repr.kind));
        // A cut line has no `-->` of annotate-snippets' own (it would count
        // the column in the cut text): it is written in below.
        let mut location = None;
        match (repr.line, repr.column, &repr.excerpt) {
            (Some(line), Some(_), Some(excerpt)) => {
                let mut source = Snippet::source(&*excerpt.text).line_start(line);
                if excerpt.cut {
                    location = repr.column.map(|column| (line, column));
                } else {
                    source = source.path(origin);
                }
                let span = AnnotationKind::Primary.span(excerpt.span.clone());
                group = group.element(source.annotation(span));
            }
            (Some(line), Some(column), None) => {
                group = group.element(Origin::path(origin).line(line).char_column(column));
            }
            _ if repr.origin.is_some() => group = group.element(Origin::path(origin)),
            _ => {}
        }
        if let Some(help) = &repr.help {
            group = group.element(Level::HELP.message(&**help));
        }
        let mut out = renderer.render(&[group]);
        if let Some((line, column)) = location {
            let title_lines = repr.message.lines().count().max(1);
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

    /// The JSON rendering, exactly one object and a newline:
    /// `{"error": {"kind", "message", "line", "column", "snippet"}}`.
    pub fn render_json(&self) -> String {
        #[derive(Serialize)]
        struct Wrapper<'a> {
            error: Fields<'a>,
        }
        #[derive(Serialize)]
        struct Fields<'a> {
            kind: &'a str,
            message: &'a str,
            line: Option<usize>,
            column: Option<usize>,
            snippet: Option<&'a str>,
        }
        let wrapper = Wrapper {
            error: Fields {
                kind: &self.repr.kind,
                message: &self.repr.message,
                line: self.repr.line,
                column: self.repr.column,
                snippet: self.repr.snippet.as_deref(),
            },
        };
        let mut json = serde_json::to_string(&wrapper).unwrap_or_else(|_| {
            // Serializing plain strings and integers cannot fail; keep a
            // well-formed object anyway rather than panic.
            String::from(r#"{"error":{"kind":"internal","message":"unprintable error","line":null,"column":null,"snippet":null}}"#)
        });
        json.push('\n');
        json
    }
}

/// A source line longer than this (in bytes) is cut to a window around the
/// column: drawing costs the same on a line of a megabyte, and a 100 MB line
/// without newlines neither floods the terminal nor is copied.
const LONG_LINE: usize = 4096;

/// The characters of a long source line shown before and after the span.
const EXCERPT_BEFORE: usize = 40;
const EXCERPT_AFTER: usize = 60;

/// The part of a source line drawn under a message: the whole line when it
/// is short (annotate-snippets trims it to the terminal width), else a
/// window around the column with `...` where it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Excerpt {
    text: String,
    /// The bytes of `text` under the carets (empty: one caret).
    span: Range<usize>,
    /// Whether `text` is a window of a longer line.
    cut: bool,
}

impl Excerpt {
    /// The excerpt of `line` for the span of `width` characters starting at
    /// 1-based `column` (a column past the end is placed just after it).
    fn new(line: &str, column: usize, width: usize) -> Excerpt {
        let before = column.saturating_sub(1);
        if line.len() <= LONG_LINE {
            let start = byte_of_char(line, before);
            let end = start + byte_of_char(&line[start..], width);
            return Excerpt { text: line.to_owned(), span: start..end, cut: false };
        }
        let skip = before.saturating_sub(EXCERPT_BEFORE);
        let rest = &line[byte_of_char(line, skip)..];
        let shown = byte_of_char(rest, before - skip + width.min(EXCERPT_AFTER) + EXCERPT_AFTER);
        let mut text = String::from(if skip > 0 { "..." } else { "" });
        let offset = text.len();
        text.push_str(&rest[..shown]);
        let start = offset + byte_of_char(&rest[..shown], before - skip);
        let end = start + byte_of_char(&text[start..], width);
        if shown < rest.len() {
            text.push_str("...");
        }
        Excerpt { text, span: start..end.min(offset + shown), cut: true }
    }

    /// [`Excerpt::new`] at byte `at` of `line` (clamped to a character
    /// boundary), looking only at the characters it shows on a long line.
    fn around(line: &str, at: usize, width: usize) -> Excerpt {
        let start = line.floor_char_boundary(at);
        if line.len() <= LONG_LINE {
            let end = start + byte_of_char(&line[start..], width);
            return Excerpt { text: line.to_owned(), span: start..end, cut: false };
        }
        let head = &line[..start];
        let from = head.char_indices().rev().nth(EXCERPT_BEFORE - 1).map_or(0, |(i, _)| i);
        let kept = head[from..].chars().count();
        let rest = &line[from..];
        let shown = byte_of_char(rest, kept + width.min(EXCERPT_AFTER) + EXCERPT_AFTER);
        let mut text = String::from(if from > 0 { "..." } else { "" });
        let offset = text.len();
        text.push_str(&rest[..shown]);
        let start = offset + (start - from);
        let end = start + byte_of_char(&text[start..], width);
        if shown < rest.len() {
            text.push_str("...");
        }
        Excerpt { text, span: start..end.min(offset + shown), cut: true }
    }
}

/// The byte offset of character `n` of `text` (its length when shorter).
fn byte_of_char(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// The warnings reported while the subcommand runs, printed after it.
///
/// A list rather than a print on the spot: on a failing run with
/// `--error-format json`, standard error must hold exactly the one error
/// object, so the warnings are printed only once the outcome is known; and
/// every subcommand keeps its one signature.
static WARNINGS: Mutex<Vec<Diagnostic>> = Mutex::new(Vec::new());

/// Reports a warning for people: a part left out, a parameter a provider
/// cannot carry, a repeated key whose last value wins. The command line
/// prints it on standard error as `warning[<kind>]: <message>`, with the
/// origin, line and column and the source line with a caret when the
/// diagnostic has them ([`crate::input::Input::warn_all`] places a library
/// warning in its input), once the subcommand has run: before its error
/// when it failed, except with `--error-format json`, whose failing runs
/// print only the error object. Standard output, JSON included, never
/// changes; the exit code neither.
pub fn warn(warning: Diagnostic) {
    WARNINGS.lock().unwrap_or_else(PoisonError::into_inner).push(warning);
}

/// The warnings reported so far, oldest first; the list is left empty.
pub fn take_warnings() -> Vec<Diagnostic> {
    std::mem::take(&mut *WARNINGS.lock().unwrap_or_else(PoisonError::into_inner))
}

/// The text of the line that starts `text`, without its line ending.
fn line_text(text: &str) -> &str {
    let end = text.find('\n').unwrap_or(text.len());
    text[..end].strip_suffix('\r').unwrap_or(&text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_with_carets_under_the_span() {
        let d = Diagnostic::new("syntax_error", "unexpected `]]`")
            .at_offset("first\n\tab ]] cd\n", 10)
            .with_origin("t.txt");
        assert_eq!(
            d.render_human(false),
            "error[syntax_error]: unexpected `]]`\n --> t.txt:2:5\n  |\n2 |     ab ]] cd\n  |        ^\n"
        );
        assert_eq!(d.snippet(), Some("]] cd"));
        // A library error's span is underlined whole (on its first line).
        let err =
            prompt_core::json::from_str::<serde_json::Value>("{\"a\": 1,\n \"a\": 2}").unwrap_err();
        let d = Diagnostic::of(&err, Some("{\"a\": 1,\n \"a\": 2}"), "x.json");
        assert_eq!(
            d.render_human(false),
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
                        Excerpt::around(line, at, width),
                        Excerpt::new(line, column + 1, width),
                        "{line:?} at {at}, width {width}"
                    );
                }
            }
        }
    }

    #[test]
    fn warnings_are_drawn_like_errors() {
        let w = Diagnostic::new("duplicate_param", "`model` is set twice; the last value wins")
            .at_offset("/// param: model=a\n/// param: model=b\n", 30)
            .with_origin("p.txt");
        assert_eq!(
            w.render_warning(false),
            "warning[duplicate_param]: `model` is set twice; the last value wins\n --> p.txt:2:12\n  |\n2 | /// param: model=b\n  |            ^\n"
        );
        let bare = Diagnostic::new("unknown_param", "no field for `x`");
        assert_eq!(bare.render_warning(false), "warning[unknown_param]: no field for `x`\n");
        warn(bare.clone());
        warn(w.clone());
        assert_eq!(take_warnings(), [bare, w]);
        assert_eq!(take_warnings(), []);
    }

    #[test]
    fn human_without_position() {
        let d = Diagnostic::new("invalid_json", "expected an array");
        assert_eq!(d.render_human(false), "error[invalid_json]: expected an array\n");
        let d = d.with_origin("a.json");
        assert_eq!(d.render_human(false), "error[invalid_json]: expected an array\n--> a.json\n");
        let d = Diagnostic::new("k", "m").at(3, 4).with_origin("a.json");
        assert_eq!(d.render_human(false), "error[k]: m\n--> a.json:3:4\n");
    }

    /// Carets are placed by display width: CJK characters take two
    /// columns (regression: the caret after CJK text landed under the
    /// wrong character).
    #[test]
    fn carets_follow_display_width() {
        let d = Diagnostic::new("syntax_error", "unclosed").at_offset("名前は [[ x", 10);
        assert_eq!(d.column(), Some(5));
        let out = d.render_human(false);
        assert!(out.ends_with("1 | 名前は [[ x\n  |        ^\n"), "{out}");
    }

    #[test]
    fn help_lines_and_colours() {
        struct Unknown;
        impl std::fmt::Display for Unknown {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("unknown filter `uper`")
            }
        }
        impl CoreDiagnostic for Unknown {
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
        let d = Diagnostic::of(&Unknown, Some("[[ x -> uper ]]"), "t.txt");
        assert_eq!(
            d.render_human(false),
            "error[unknown_filter]: unknown filter `uper`\n --> t.txt:1:9\n  |\n1 | [[ x -> uper ]]\n  |         ^^^^\n  |\n  = help: did you mean `upper`?\n"
        );
        let styled = d.render_human(true);
        assert!(styled.contains("\u{1b}["), "{styled:?}");
        assert_eq!(strip_ansi(&styled), d.render_human(false));
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
    fn json_shape_and_order() {
        let d = Diagnostic::new("bad_arguments", "x").at(3, 4).with_snippet("ab\"c");
        assert_eq!(
            d.render_json(),
            "{\"error\":{\"kind\":\"bad_arguments\",\"message\":\"x\",\"line\":3,\"column\":4,\"snippet\":\"ab\\\"c\"}}\n"
        );
        let d = Diagnostic::new("io_error", "gone");
        assert_eq!(
            d.render_json(),
            "{\"error\":{\"kind\":\"io_error\",\"message\":\"gone\",\"line\":null,\"column\":null,\"snippet\":null}}\n"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = format!("{}ERR{}", "a".repeat(5000), "b".repeat(5000));
        let d = Diagnostic::new("k", "m").at_offset(&line, 5000);
        let out = d.render_human(false);
        assert!(out.contains(" --> <input>:1:5001\n"), "{out}");
        let expected_line = format!("1 | ...{}ERR{}...\n", "a".repeat(40), "b".repeat(57));
        let expected_caret = format!("  | {}^\n", " ".repeat(43));
        assert!(out.contains(&expected_line), "{out}");
        assert!(out.ends_with(&expected_caret), "{out}");
        // Near the start nothing is cut before, and a column past the end
        // still gets its caret.
        let d = Diagnostic::new("k", "m").at(1, 3).with_source("abc");
        assert!(d.render_human(false).ends_with("1 | abc\n  |   ^\n"));
        let d = Diagnostic::new("k", "m").at(1, 9).with_source("abc");
        assert!(
            d.render_human(false).ends_with("1 | abc\n  |    ^\n"),
            "{}",
            d.render_human(false)
        );
    }

    #[test]
    fn offsets_are_clamped_to_characters() {
        // Offset 2 falls inside `é` (bytes 1..3); columns count characters.
        let d = Diagnostic::new("k", "m").at_offset("aé\r\nb", 2);
        assert_eq!((d.line(), d.column()), (Some(1), Some(2)));
        let d = Diagnostic::new("k", "m").at_offset("aé\r\nb", 99);
        assert_eq!((d.line(), d.column(), d.snippet()), (Some(2), Some(2), Some("")));
        assert!(d.render_human(false).contains("2 | b\n"));
    }
}
