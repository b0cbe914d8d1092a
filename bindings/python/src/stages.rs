//! The stage crates one call each: `flip` (transcript-flip), `segment`
//! (narrative-segment) and `comments.process` (prompt-comments).

use std::path::PathBuf;

use prompt_suite::segment::{
    AttachmentLimits, Attachments, Narrative, RenderOptions, SegmentOptions, lmml, render, segment,
};
use prompt_suite::{comments, flip as transcript_flip, segment as narrative_segment};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::convert::{self, serialize_to_python};
use crate::error::{self, Family, placed};
use crate::pipeline::json_text;

fn flip_dialect(name: &str) -> PyResult<transcript_flip::Dialect> {
    match name {
        "standard" => Ok(transcript_flip::Dialect::Standard),
        "llmr" => Ok(transcript_flip::Dialect::Llmr),
        _ => Err(PyValueError::new_err(format!(
            "dialect must be \"standard\" or \"llmr\", not {name:?}"
        ))),
    }
}

fn segment_dialect(name: &str) -> PyResult<narrative_segment::Dialect> {
    match name {
        "standard" => Ok(narrative_segment::Dialect::Standard),
        "lmml" => Ok(narrative_segment::Dialect::Lmml),
        _ => Err(PyValueError::new_err(format!(
            "dialect must be \"standard\" or \"lmml\", not {name:?}"
        ))),
    }
}

fn comments_dialect(name: &str) -> PyResult<comments::Dialect> {
    match name {
        "standard" => Ok(comments::Dialect::Standard),
        "llmutils" => Ok(comments::Dialect::Llmutils),
        _ => Err(PyValueError::new_err(format!(
            "dialect must be \"standard\" or \"llmutils\", not {name:?}"
        ))),
    }
}

/// One speaker's view of a multi-speaker transcript (a list of
/// `{"speaker", "text"}` dicts, or its JSON text): their own turns as
/// `assistant`, the others' as labelled, sanitized `user` turns, with an
/// optional system text first and instruction last. `FlipError` for a
/// transcript it cannot read or a speaker who only looks like one in it.
#[pyfunction]
#[pyo3(signature = (transcript, speaker, system=None, instruction=None, dialect="standard"))]
pub(crate) fn flip<'py>(
    py: Python<'py>,
    transcript: &Bound<'py, PyAny>,
    speaker: &Bound<'py, PyAny>,
    system: Option<String>,
    instruction: Option<String>,
    dialect: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let mut options = transcript_flip::FlipOptions::new().with_dialect(flip_dialect(dialect)?);
    if let Some(system) = system {
        options = options.with_system(system);
    }
    if let Some(instruction) = instruction {
        options = options.with_instruction(instruction);
    }
    let (text, own) = json_text(transcript, "transcript")?;
    let speaker = convert::to_json(speaker, "speaker")?;
    let messages = py
        .detach(|| transcript_flip::flip_json(&text, &speaker, &options))
        .map_err(|err| error::exception(Family::Flip, &placed(err.annotated(), own)))?;
    serialize_to_python(py, &messages)
}

/// A Markdown narrative with role delimiters split into chat messages
/// (lmml's message shape, as `prompt-suite segment` prints it); `@@@`
/// embeds resolve in `embeds_dir`, never outside it. `SegmentError` for a
/// reference it cannot resolve.
#[pyfunction]
#[pyo3(signature = (text, dialect="standard", embeds_dir=None))]
pub(crate) fn segment_text<'py>(
    py: Python<'py>,
    text: &str,
    dialect: &str,
    embeds_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let dialect = segment_dialect(dialect)?;
    let limits = AttachmentLimits::default();
    let attachments = match &embeds_dir {
        Some(dir) => Attachments::directory(dir, limits)
            .map_err(|err| error::exception(Family::Segment, &err.annotated()))?,
        None => Attachments::none(),
    };
    let (rendered, warnings) = py
        .detach(|| {
            let resolved = Narrative::parse(text, dialect).resolve(&attachments)?;
            let turns = segment(&resolved, &SegmentOptions::new(dialect));
            let rendered = render(&resolved, &turns, &RenderOptions::new());
            Ok((rendered, resolved.warnings().to_vec()))
        })
        .map_err(|err: narrative_segment::Error| {
            error::exception(Family::Segment, &err.annotated())
        })?;
    error::warn_all(py, warnings.iter().chain(&rendered.warnings))?;
    serialize_to_python(py, &lmml::messages(&rendered))
}

/// Removes `///` authoring comments and collects their metadata: a dict
/// with `cleaned`, `params`, `metadata`, `flow`, `node` and `tags`.
#[pyfunction]
#[pyo3(signature = (text, dialect="standard"))]
pub(crate) fn comments_process<'py>(
    py: Python<'py>,
    text: &str,
    dialect: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let processed = comments_dialect(dialect)?.process(text);
    error::warn_all(py, &processed.warnings)?;
    serialize_to_python(py, &processed)
}

/// Removes `///` comments from the `content` of each chat message (a list
/// of dicts or its JSON text); every other field is kept as it is.
#[pyfunction]
#[pyo3(signature = (messages, dialect="standard"))]
pub(crate) fn comments_strip_messages<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    dialect: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let (text, own) = json_text(messages, "messages")?;
    let stripped = comments_dialect(dialect)?
        .strip_messages_json(&text)
        .map_err(|err| error::exception(Family::Comments, &placed(err.annotated(), own)))?;
    let value: serde_json::Value = serde_json::from_str(&stripped)
        .map_err(|err| PyValueError::new_err(format!("cannot read the result: {err}")))?;
    convert::to_python(py, &value)
}
