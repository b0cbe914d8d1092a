//! The error every subcommand reports, kept apart from its two renderings.
//!
//! A [`Diagnostic`] is data: a snake_case kind, a message, and where the
//! problem is (line, column, offending snippet). [`Diagnostic::render_human`]
//! and [`Diagnostic::render_json`] draw it; nothing else formats errors.
//!
//! Warnings are diagnostics too: [`warn`] reports one, and the command line
//! prints every warning when the subcommand has run, drawn as
//! [`Diagnostic::render_warning`].

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};

use prompt_core::diagnostic::Report;
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
    /// The part of the source line at `line` drawn under the message.
    excerpt: Option<Excerpt>,
    /// Where the input came from (`<stdin>` or a path), for the `-->` line.
    origin: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of `kind` (snake_case, as listed in `docs/cli.md`).
    pub fn new(kind: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            repr: Box::new(Repr {
                kind: kind.into(),
                message: message.into(),
                line: None,
                column: None,
                snippet: None,
                excerpt: None,
                origin: None,
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
        let offset = source.floor_char_boundary(offset);
        let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line = source[..line_start].bytes().filter(|&b| b == b'\n').count() + 1;
        let column = source[line_start..offset].chars().count() + 1;
        let rest = line_text(&source[offset..]);
        let snippet: String = rest.chars().take(40).collect();
        self.at(line, column).with_snippet(snippet).with_source(source)
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
            self.repr.excerpt = source
                .split('\n')
                .nth(line.saturating_sub(1))
                .map(|text| Excerpt::new(line_text(text), column));
        }
        self
    }

    /// [`Diagnostic::with_source`] with the diagnostic's line already at
    /// hand: `line` is its text (no line ending) and `at` the byte of the
    /// column in it. Costs the excerpt's width, not the line's, so placing
    /// many warnings on one long line stays linear.
    pub fn with_line_at(mut self, line: &str, at: usize) -> Diagnostic {
        self.repr.excerpt = Some(Excerpt::around(line, at));
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
    /// line with a caret under the column when both are known. Ends with a
    /// newline.
    pub fn render_human(&self) -> String {
        self.render("error")
    }

    /// The same drawing for a warning: `warning[kind]: message`, then where
    /// it is when that is known.
    pub fn render_warning(&self) -> String {
        self.render("warning")
    }

    fn render(&self, severity: &str) -> String {
        let mut out = format!("{severity}[{}]: {}\n", self.repr.kind, self.repr.message);
        let origin = self.repr.origin.as_deref().unwrap_or("<input>");
        match (self.repr.line, self.repr.column) {
            (Some(line), Some(column)) => {
                let _ = writeln!(out, "  --> {origin}:{line}:{column}");
                if let Some(excerpt) = &self.repr.excerpt {
                    let gutter = " ".repeat(line.to_string().len());
                    // Copy tabs so the caret lines up under tab-indented text.
                    let pad: String = excerpt
                        .text
                        .chars()
                        .take(excerpt.caret)
                        .map(|c| if c == '\t' { '\t' } else { ' ' })
                        .collect();
                    let _ = writeln!(out, "{gutter} |");
                    let _ = writeln!(out, "{line} | {}", excerpt.text);
                    let _ = writeln!(out, "{gutter} | {pad}^");
                }
            }
            _ if self.repr.origin.is_some() => {
                let _ = writeln!(out, "  --> {origin}");
            }
            _ => {}
        }
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

/// The characters of a long source line shown before and after the column.
const EXCERPT_BEFORE: usize = 40;
const EXCERPT_AFTER: usize = 60;

/// The part of a source line drawn under a message: the whole line when it is
/// short, else a window around the column with `...` where it was cut, so a
/// 100 MB line without newlines neither floods the terminal nor is copied.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Excerpt {
    text: String,
    /// How many characters of `text` stand before the caret.
    caret: usize,
}

impl Excerpt {
    fn new(line: &str, column: usize) -> Excerpt {
        let before = column.saturating_sub(1);
        let skip = before.saturating_sub(EXCERPT_BEFORE);
        let mut text = String::new();
        if skip > 0 {
            text.push_str("...");
        }
        let mut chars = line.chars().skip(skip);
        text.extend(chars.by_ref().take(before - skip + EXCERPT_AFTER));
        let caret = if skip > 0 { 3 } else { 0 } + (before - skip);
        if chars.next().is_some() {
            text.push_str("...");
        }
        Excerpt { text, caret }
    }

    /// [`Excerpt::new`] at byte `at` of `line` (clamped to a character
    /// boundary), looking only at the characters it shows.
    fn around(line: &str, at: usize) -> Excerpt {
        let at = line.floor_char_boundary(at);
        let (head, tail) = line.split_at(at);
        let start = head.char_indices().rev().nth(EXCERPT_BEFORE - 1).map_or(0, |(i, _)| i);
        let skipped = start > 0;
        let mut text = String::from(if skipped { "..." } else { "" });
        text.push_str(&head[start..]);
        let caret = text.chars().count();
        let mut chars = tail.chars();
        text.extend(chars.by_ref().take(EXCERPT_AFTER));
        if chars.next().is_some() {
            text.push_str("...");
        }
        Excerpt { text, caret }
    }
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
/// diagnostic has them ([`crate::input::Input::warn`] places a library
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

/// What the CLI needs to know of a library error to report it. Each
/// subcommand implements it for its crate's error type, so that every error
/// reaches the user through [`crate::input::Input::reject`] the same way.
pub trait Reportable {
    /// The snake_case kind, as listed in `docs/cli-contract.md`.
    fn kind_name(&self) -> Cow<'static, str>;
    /// The message for people, without the position.
    fn message(&self) -> String;
    /// The 1-based line and column (in characters), when there is one.
    fn position(&self) -> Option<(usize, usize)> {
        None
    }
    /// The offending text, when there is one.
    fn snippet(&self) -> Option<String> {
        None
    }
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
    fn human_with_caret() {
        let d = Diagnostic::new("syntax_error", "unexpected `]]`")
            .at_offset("first\n\tab ]] cd\n", 10)
            .with_origin("t.txt");
        assert_eq!(
            d.render_human(),
            "error[syntax_error]: unexpected `]]`\n  --> t.txt:2:5\n  |\n2 | \tab ]] cd\n  | \t   ^\n"
        );
        assert_eq!(d.snippet(), Some("]] cd"));
    }

    #[test]
    fn an_excerpt_at_a_byte_is_the_excerpt_at_its_column() {
        let long: String = (0..150).map(|i| if i % 7 == 0 { 'é' } else { 'a' }).collect();
        for line in ["", "abc", "日本語のテキスト", long.as_str()] {
            for (column, (at, _)) in line.char_indices().chain([(line.len(), ' ')]).enumerate() {
                let (by_byte, by_column) =
                    (Excerpt::around(line, at), Excerpt::new(line, column + 1));
                assert_eq!(
                    (by_byte.text, by_byte.caret),
                    (by_column.text, by_column.caret),
                    "{line:?} at {at}"
                );
            }
        }
    }

    #[test]
    fn warnings_are_drawn_like_errors() {
        let w = Diagnostic::new("duplicate_param", "`model` is set twice; the last value wins")
            .at_offset("/// param: model=a\n/// param: model=b\n", 30)
            .with_origin("p.txt");
        assert_eq!(
            w.render_warning(),
            "warning[duplicate_param]: `model` is set twice; the last value wins\n  --> p.txt:2:12\n  |\n2 | /// param: model=b\n  |            ^\n"
        );
        let bare = Diagnostic::new("unknown_param", "no field for `x`");
        assert_eq!(bare.render_warning(), "warning[unknown_param]: no field for `x`\n");
        warn(bare.clone());
        warn(w.clone());
        assert_eq!(take_warnings(), [bare, w]);
        assert_eq!(take_warnings(), []);
    }

    #[test]
    fn human_without_position() {
        let d = Diagnostic::new("invalid_json", "expected an array");
        assert_eq!(d.render_human(), "error[invalid_json]: expected an array\n");
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
        let line = format!("{}ERR{}", "a".repeat(500), "b".repeat(500));
        let d = Diagnostic::new("k", "m").at(1, 501).with_source(&line);
        let expected_line = format!("1 | ...{}ERR{}...\n", "a".repeat(40), "b".repeat(57));
        let expected_caret = format!("  | {}^\n", " ".repeat(43));
        let out = d.render_human();
        assert!(out.contains(&expected_line), "{out}");
        assert!(out.contains(&expected_caret), "{out}");
        // Near the start nothing is cut before, and a column past the end
        // still gets its caret.
        let d = Diagnostic::new("k", "m").at(1, 3).with_source("abc");
        assert!(d.render_human().ends_with("1 | abc\n  |   ^\n"));
        let d = Diagnostic::new("k", "m").at(1, 9).with_source("abc");
        assert!(d.render_human().ends_with("1 | abc\n  |    ^\n"), "{}", d.render_human());
    }

    #[test]
    fn offsets_are_clamped_to_characters() {
        // Offset 2 falls inside `é` (bytes 1..3); columns count characters.
        let d = Diagnostic::new("k", "m").at_offset("aé\r\nb", 2);
        assert_eq!((d.line(), d.column()), (Some(1), Some(2)));
        let d = Diagnostic::new("k", "m").at_offset("aé\r\nb", 99);
        assert_eq!((d.line(), d.column(), d.snippet()), (Some(2), Some(2), Some("")));
        assert!(d.render_human().contains("2 | b\n"));
    }
}
