//! What a prompt said that was accepted but deserves a look: returned beside
//! the result ([`crate::Processed::warnings`]), never printed by the crate.

use std::fmt;

use prompt_core::diagnostic::Diagnostic;
use prompt_core::text::Span;

/// What a [`Warning`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// `Standard` only: a `/// param:` key set again to another value, e.g.
    /// `/// param: temperature=0.2` then `/// param: temperature=0.9`. The
    /// last value still wins, as in llmutils; the warning says that an
    /// earlier one was overridden.
    DuplicateParam,
}

impl WarningKind {
    /// The snake_case name the CLI prints: `duplicate_param`.
    pub fn as_str(&self) -> &'static str {
        match self {
            WarningKind::DuplicateParam => "duplicate_param",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A warning about a prompt, with where it applies: a byte span of the
/// text given to [`Dialect::process`](crate::Dialect::process). It is a
/// [`Diagnostic`], so its line and column (characters) come from
/// `prompt_core::text` when it is shown.
///
/// ```
/// use prompt_comments::WarningKind;
/// use prompt_core::text::{Position, position};
///
/// let text = "/// param: temperature=0.2\nHi\n/// param: temperature=0.9\n";
/// let p = prompt_comments::process(text);
/// assert_eq!(p.params["temperature"], "0.9");
/// let warning = &p.warnings[0];
/// assert_eq!(warning.kind(), WarningKind::DuplicateParam);
/// assert_eq!(&text[warning.span().range()], "temperature");
/// assert_eq!(position(text, warning.span().start), Position { line: 3, column: 12 });
/// assert_eq!(
///     warning.message(),
///     "`/// param: temperature` set again: the last value, `0.9`, overrides `0.2` (first set on line 1)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    kind: WarningKind,
    message: String,
    key: String,
    span: Span,
}

impl Warning {
    /// A [`WarningKind::DuplicateParam`] for `key`, written at `span` and
    /// set to `value` after `previous` (set on `first_line`).
    pub(crate) fn duplicate_param(
        key: &str,
        previous: &str,
        value: &str,
        first_line: usize,
        span: Span,
    ) -> Warning {
        let message = format!(
            "`/// param: {}` set again: the last value, `{}`, overrides `{}` (first set on \
             line {first_line})",
            cut(key),
            cut(value),
            cut(previous)
        );
        Warning { kind: WarningKind::DuplicateParam, message, key: key.to_owned(), span }
    }

    /// What the warning is about.
    pub fn kind(&self) -> WarningKind {
        self.kind
    }

    /// The message for people, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The key concerned (for [`WarningKind::DuplicateParam`], the param
    /// key as written).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Where it applies in the text given: for
    /// [`WarningKind::DuplicateParam`], the repeated key as written in the
    /// assignment that changed it.
    pub fn span(&self) -> Span {
        self.span
    }
}

impl Diagnostic for Warning {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }

    fn span(&self) -> Option<Span> {
        Some(self.span)
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A key or value as a message quotes it: at most 40 characters.
fn cut(text: &str) -> String {
    const MAX: usize = 40;
    let mut cut: String = text.chars().take(MAX).collect();
    if cut.len() < text.len() {
        cut.push_str("...");
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_keys_and_values_are_cut() {
        let long = "v".repeat(100);
        let warning = Warning::duplicate_param("k", &long, "x", 1, Span::new(2, 3));
        assert!(warning.message().contains(&format!("`{}...`", "v".repeat(40))));
        assert_eq!(warning.kind().as_str(), "duplicate_param");
        assert_eq!(warning.to_string(), warning.message());
    }

    #[test]
    fn a_warning_is_a_diagnostic_at_the_repeated_key() {
        use prompt_core::diagnostic::Report;

        let text = "\u{feff}/// param: é=1\n/// param:  é=2";
        let p = crate::process(text);
        let report = Report::new(&p.warnings[0], Some(text));
        assert_eq!(
            (report.kind.as_str(), report.line, report.column, report.snippet.as_deref()),
            ("duplicate_param", Some(2), Some(13), Some("é"))
        );
        assert_eq!(report.message, p.warnings[0].message());
    }
}
