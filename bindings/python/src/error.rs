//! The suite's errors as Python exceptions, in one place (minijinja-py's
//! `error_support.rs`). The exception classes are Python's own
//! (`prompt_suite/_errors.py`: `Error` and one subclass per family); this
//! module fills them from a `prompt_core` diagnostic: its kind, message,
//! line, column and snippet (`Report`), and the CLI's diagnostic text
//! without colour as `str(e)`.

use prompt_core::diagnostic::{Diagnostic, Report};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The exception classes of `prompt_suite._errors`, one per family.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Family {
    Template,
    Pipeline,
    Segment,
    Flip,
    Comments,
    Convert,
}

impl Family {
    fn class_name(self) -> &'static str {
        match self {
            Family::Template => "TemplateError",
            Family::Pipeline => "PipelineError",
            Family::Segment => "SegmentError",
            Family::Flip => "FlipError",
            Family::Comments => "CommentsError",
            Family::Convert => "ConvertError",
        }
    }
}

/// Where a diagnostic's positions are: the text its span points into, and
/// whether that text is the caller's (a JSON text the binding wrote from
/// Python objects is not: its line and column would mean nothing to them,
/// so only the snippet is kept).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Text<'a> {
    /// The caller's own text.
    Caller(&'a str),
    /// Text the binding made (JSON from Python objects).
    Made(&'a str),
    /// No text.
    None,
}

/// The exception of `family` for `diagnostic`, placed in `text`.
pub(crate) fn raise<D: Diagnostic + ?Sized>(
    family: Family,
    diagnostic: &D,
    text: Text<'_>,
) -> PyErr {
    let report = match text {
        Text::Caller(source) | Text::Made(source) => Report::new(diagnostic, Some(source)),
        Text::None => Report::new(diagnostic, None),
    };
    let report = match text {
        Text::Made(_) => Report { line: None, column: None, ..report },
        _ => report,
    };
    let origin = diagnostic.origin();
    exception(family, &report, origin.as_str(), diagnostic.help().as_deref())
}

/// The exception of `family` for a report already made.
pub(crate) fn exception(
    family: Family,
    report: &Report,
    origin: &str,
    help: Option<&str>,
) -> PyErr {
    let text = diagnostic_text(report, origin, help);
    Python::attach(|py| match new_exception(py, family, report, &text) {
        Ok(err) => err,
        Err(err) => err,
    })
}

fn new_exception(py: Python<'_>, family: Family, report: &Report, text: &str) -> PyResult<PyErr> {
    let class = py.import("prompt_suite._errors")?.getattr(family.class_name())?;
    let args = PyTuple::new(
        py,
        [
            report.kind.as_str().into_pyobject(py)?.into_any(),
            report.message.as_str().into_pyobject(py)?.into_any(),
            report.line.into_pyobject(py)?.into_any(),
            report.column.into_pyobject(py)?.into_any(),
            report.snippet.as_deref().into_pyobject(py)?.into_any(),
            text.into_pyobject(py)?.into_any(),
        ],
    )?;
    Ok(PyErr::from_value(class.call1(args)?))
}

/// The CLI's diagnostic head for people, without colour: `error[kind]:
/// message`, where it is, and the help line.
fn diagnostic_text(report: &Report, origin: &str, help: Option<&str>) -> String {
    let mut text = format!("error[{}]: {}", report.kind, report.message);
    if let (Some(line), Some(column)) = (report.line, report.column) {
        text.push_str(&format!("\n --> {origin}:{line}:{column}"));
        if let Some(snippet) = &report.snippet {
            text.push_str(&format!("\n  | {snippet}"));
        }
    }
    if let Some(help) = help {
        text.push_str(&format!("\n  = help: {help}"));
    }
    text
}

/// Each warning a stage gave (a reference kept as text, a parameter set
/// twice) as a Python warning of category `prompt_suite.Notice`, whose text
/// is `kind: message`: nothing is left out silently.
pub(crate) fn warn_all<'a, D: Diagnostic + 'a>(
    py: Python<'_>,
    warnings: impl IntoIterator<Item = &'a D>,
) -> PyResult<()> {
    warn_texts(py, warnings.into_iter().map(|w| format!("{}: {w}", w.kind())))
}

/// Issues each text as a `prompt_suite.Notice` warning.
pub(crate) fn warn_texts(py: Python<'_>, texts: impl IntoIterator<Item = String>) -> PyResult<()> {
    let mut category = None;
    for text in texts {
        let category = match &category {
            Some(category) => category,
            None => category.insert(py.import("prompt_suite._errors")?.getattr("Notice")?),
        };
        let message = std::ffi::CString::new(text.replace('\0', "\\0")).unwrap_or_default();
        PyErr::warn(py, category, &message, 2)?;
    }
    Ok(())
}
