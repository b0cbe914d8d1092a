//! The suite's errors as Python exceptions, in one place (minijinja-py's
//! `error_support.rs`). The exception classes are Python's own
//! (`prompt_suite/_errors.py`: `Error` and one subclass per family); this
//! module fills them from the suite's one drawing of a diagnostic,
//! `prompt_core::annotated::Annotated`: its kind, message, line, column
//! and snippet as attributes, and its text (what the command line prints,
//! without colour) as `str(e)`. Nothing here draws or words a diagnostic.

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::{Diagnostic, Report};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The exception classes of `prompt_suite._errors`, one per family.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Family {
    Template,
    ChatTemplate,
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
            Family::ChatTemplate => "ChatTemplateError",
            Family::Pipeline => "PipelineError",
            Family::Segment => "SegmentError",
            Family::Flip => "FlipError",
            Family::Comments => "CommentsError",
            Family::Convert => "ConvertError",
        }
    }
}

/// `annotated` as the caller should see it: as it is when its text is the
/// caller's (`own`), else without its line, column and source line
/// (positions in a JSON text the binding wrote from Python objects, which
/// the caller never saw), its snippet, origin and help kept.
pub(crate) fn placed(annotated: Annotated, own: bool) -> Annotated {
    if own {
        return annotated;
    }
    let report = Report { line: None, column: None, ..annotated.report() };
    let mut unplaced = Annotated::from_report(report).with_severity(annotated.severity());
    if let Some(origin) = annotated.origin() {
        unplaced = unplaced.with_origin(origin);
    }
    if let Some(help) = annotated.help() {
        unplaced = unplaced.with_help(help);
    }
    unplaced
}

/// The exception of `family` for a diagnostic drawn for people.
pub(crate) fn exception(family: Family, annotated: &Annotated) -> PyErr {
    Python::attach(|py| match new_exception(py, family, annotated) {
        Ok(err) => err,
        Err(err) => err,
    })
}

fn new_exception(py: Python<'_>, family: Family, annotated: &Annotated) -> PyResult<PyErr> {
    let class = py.import("prompt_suite._errors")?.getattr(family.class_name())?;
    let args = PyTuple::new(
        py,
        [
            annotated.kind().into_pyobject(py)?.into_any(),
            annotated.message().into_pyobject(py)?.into_any(),
            annotated.line().into_pyobject(py)?.into_any(),
            annotated.column().into_pyobject(py)?.into_any(),
            annotated.snippet().into_pyobject(py)?.into_any(),
            annotated.to_string().into_pyobject(py)?.into_any(),
        ],
    )?;
    Ok(PyErr::from_value(class.call1(args)?))
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

/// Each notice (a parameter the body does not carry, a name that printed
/// nothing, ...) as a `prompt_suite.Notice` warning.
pub(crate) fn warn_notices(
    py: Python<'_>,
    notices: &[prompt_suite::pipeline::Notice],
) -> PyResult<()> {
    warn_texts(py, notices.iter().map(|n| format!("{}: {}", n.as_str(), n.message())))
}
