//! The error every subcommand reports, kept apart from its two renderings.
//!
//! A [`Diagnostic`] is data: a snake_case kind, a message, where the
//! problem is (line, column, offending snippet) and a help line when there
//! is one. It is the library's [`prompt_core::annotated::Annotated`], so the
//! command line draws errors for people with the same renderer, and the same
//! text, as every library error's `annotated()` and the Python and
//! JavaScript packages ([`Diagnostic::render`]); [`render_json`] is the
//! `--error-format json` form. Nothing else formats errors.
//!
//! Warnings are diagnostics too: [`warn`] reports one, and the command line
//! prints every warning when the subcommand has run, drawn as
//! `warning[kind]: ...`.

use std::sync::{Mutex, PoisonError};

use prompt_core::annotated::Severity;
use serde::Serialize;

/// A rejected input (exit code 1), with where it went wrong: the library's
/// diagnostic for people.
pub use prompt_core::annotated::Annotated as Diagnostic;

/// The JSON rendering of `diagnostic`, exactly one object and a newline:
/// `{"error": {"kind", "message", "line", "column", "snippet"}}`.
pub fn render_json(diagnostic: &Diagnostic) -> String {
    #[derive(Serialize)]
    struct Wrapper {
        error: prompt_core::diagnostic::Report,
    }
    let mut json = serde_json::to_string(&Wrapper { error: diagnostic.report() })
        .unwrap_or_else(|_| {
            // Serializing plain strings and integers cannot fail; keep a
            // well-formed object anyway rather than panic.
            String::from(r#"{"error":{"kind":"internal","message":"unprintable error","line":null,"column":null,"snippet":null}}"#)
        });
    json.push('\n');
    json
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
    let warning = warning.with_severity(Severity::Warning);
    WARNINGS.lock().unwrap_or_else(PoisonError::into_inner).push(warning);
}

/// The warnings reported so far, oldest first; the list is left empty.
pub fn take_warnings() -> Vec<Diagnostic> {
    std::mem::take(&mut *WARNINGS.lock().unwrap_or_else(PoisonError::into_inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_kept_in_order_and_drawn_as_warnings() {
        let w = Diagnostic::new("duplicate_param", "`model` is set twice; the last value wins")
            .at_offset("/// param: model=a\n/// param: model=b\n", 30)
            .with_origin("p.txt");
        let bare = Diagnostic::new("unknown_param", "no field for `x`");
        warn(bare.clone());
        warn(w.clone());
        let taken = take_warnings();
        assert_eq!(
            taken,
            [bare.with_severity(Severity::Warning), w.with_severity(Severity::Warning)]
        );
        assert_eq!(taken[0].render(false), "warning[unknown_param]: no field for `x`\n");
        assert_eq!(take_warnings(), []);
    }

    #[test]
    fn json_shape_and_order() {
        let d = Diagnostic::new("bad_arguments", "x").at(3, 4).with_snippet("ab\"c");
        assert_eq!(
            render_json(&d),
            "{\"error\":{\"kind\":\"bad_arguments\",\"message\":\"x\",\"line\":3,\"column\":4,\"snippet\":\"ab\\\"c\"}}\n"
        );
        let d = Diagnostic::new("io_error", "gone");
        assert_eq!(
            render_json(&d),
            "{\"error\":{\"kind\":\"io_error\",\"message\":\"gone\",\"line\":null,\"column\":null,\"snippet\":null}}\n"
        );
    }
}
