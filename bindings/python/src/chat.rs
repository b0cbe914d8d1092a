//! Chat templates: `ChatTemplate`, `ChatOutcome` and `apply_chat_template`,
//! wrapping the chat-template crate (transformers'
//! `apply_chat_template(tokenize=False)`, with data ranges and the
//! special-token check).

use std::path::PathBuf;

use prompt_suite::brackets::Clock;
use prompt_suite::chat_template::{ChatTemplate, Conversation, Error, Options};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::{Map, Value};

use crate::convert;
use crate::error::{self, Family, placed};

/// The exception of a chat-template error. A template's positions are
/// kept when its text is the caller's (`.jinja` text), dropped inside a
/// config (the template is a JSON string there); `origin` names the file.
fn chat_error(err: &Error, config: bool, origin: Option<&str>) -> PyErr {
    let annotated = match err {
        Error::Template(_) => placed(err.annotated(), !config),
        _ => err.annotated(),
    };
    let annotated = match origin {
        Some(origin) if annotated.origin().is_none() => annotated.with_origin(origin),
        _ => annotated,
    };
    error::exception(Family::ChatTemplate, &annotated)
}

/// The clock of the `now` argument: `None` is the local time; a `str` is
/// an RFC 3339 time; a `datetime` must carry its time zone.
fn clock(now: Option<&Bound<'_, PyAny>>) -> PyResult<Clock> {
    let Some(now) = now.filter(|now| !now.is_none()) else { return Ok(Clock::Local) };
    let text: String = if let Ok(text) = now.cast::<PyString>() {
        text.to_cow()?.into_owned()
    } else if now.hasattr("tzinfo")? && now.hasattr("isoformat")? {
        if now.getattr("tzinfo")?.is_none() {
            return Err(PyValueError::new_err(
                "now must be an aware datetime (with a tzinfo) or an RFC 3339 str",
            ));
        }
        now.call_method0("isoformat")?.extract()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "now must be a datetime or an RFC 3339 str, not {}",
            convert::type_name(now)
        )));
    };
    Clock::parse_time(&text)
        .map(Clock::Fixed)
        .map_err(|err| PyValueError::new_err(format!("now: {err}")))
}

/// The options of a load.
fn options(
    name: Option<String>,
    now: Option<&Bound<'_, PyAny>>,
    special_tokens: Option<Vec<String>>,
    allow_special_tokens: bool,
) -> PyResult<Options> {
    Ok(Options {
        name,
        clock: clock(now)?,
        special_tokens: special_tokens.unwrap_or_default(),
        allow_special_tokens,
    })
}

/// The conversation of the `apply` arguments, by the chat-template crate's
/// rules (`Conversation::from_object`): `invalid_conversation` for
/// messages that are not a list of dicts.
fn conversation(
    messages: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    documents: Option<&Bound<'_, PyAny>>,
    add_generation_prompt: bool,
    variables: Option<&Bound<'_, PyDict>>,
) -> PyResult<Conversation> {
    let mut object = Map::new();
    if let Some(variables) = variables {
        object = convert::to_object(variables.as_any(), "variables")?;
    }
    object.insert("messages".to_owned(), convert::to_json(messages, "messages")?);
    if let Some(tools) = tools.filter(|t| !t.is_none()) {
        object.insert("tools".to_owned(), convert::to_json(tools, "tools")?);
    }
    if let Some(documents) = documents.filter(|d| !d.is_none()) {
        object.insert("documents".to_owned(), convert::to_json(documents, "documents")?);
    }
    object.insert("add_generation_prompt".to_owned(), Value::Bool(add_generation_prompt));
    Conversation::from_object(object).map_err(|err| chat_error(&err, false, None))
}

/// A model's chat template, loaded once: the compiled template (or the
/// config's named ones), its special-token variables and the tokens the
/// check refuses in data. Immutable and thread-safe; `apply` releases the
/// GIL.
#[pyclass(module = "prompt_suite", name = "ChatTemplate", frozen)]
pub(crate) struct PyChatTemplate {
    template: ChatTemplate,
    /// Whether it came from a config (positions in a template are then
    /// dropped).
    config: bool,
    /// The file it came from, naming errors.
    origin: Option<String>,
}

impl PyChatTemplate {
    fn load(
        py: Python<'_>,
        text: &str,
        config: bool,
        origin: Option<String>,
        options: Options,
    ) -> PyResult<PyChatTemplate> {
        let template = py
            .detach(|| match config {
                true => ChatTemplate::from_config(text, &options),
                false => ChatTemplate::from_jinja(text, &options),
            })
            .map_err(|err| chat_error(&err, config, origin.as_deref()))?;
        Ok(PyChatTemplate { template, config, origin })
    }

    /// The template in `path`: a config when its extension is `json`
    /// (`ChatTemplate::is_config`), else a template's text.
    fn from_path(py: Python<'_>, path: PathBuf, options: Options) -> PyResult<PyChatTemplate> {
        let text = std::fs::read_to_string(&path)
            .map_err(|err| PyOSError::new_err(format!("cannot read {}: {err}", path.display())))?;
        let config = ChatTemplate::is_config(&path);
        PyChatTemplate::load(py, &text, config, Some(path.display().to_string()), options)
    }

    fn run(&self, py: Python<'_>, conversation: &Conversation) -> PyResult<PyChatOutcome> {
        let template = &self.template;
        let applied = py
            .detach(|| template.apply(conversation))
            .map_err(|err| chat_error(&err, self.config, self.origin.as_deref()))?;
        let data_ranges =
            convert::code_point_ranges(&applied.output, applied.data_ranges.iter().cloned());
        let generation_ranges =
            convert::code_point_ranges(&applied.output, applied.generation_ranges.iter().cloned());
        Ok(PyChatOutcome { output: applied.output, data_ranges, generation_ranges })
    }
}

#[pymethods]
impl PyChatTemplate {
    /// A template from its Jinja text (a `.jinja` file's). Its special
    /// tokens are the control tokens its text spells and `special_tokens`.
    /// `now` (an aware `datetime` or an RFC 3339 `str`) fixes the time
    /// `strftime_now` reads. `ChatTemplateError` when it does not compile.
    #[new]
    #[pyo3(signature = (source, special_tokens=None, allow_special_tokens=false, now=None))]
    fn new(
        py: Python<'_>,
        source: &str,
        special_tokens: Option<Vec<String>>,
        allow_special_tokens: bool,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let options = options(None, now, special_tokens, allow_special_tokens)?;
        PyChatTemplate::load(py, source, false, None, options)
    }

    /// A template from the text of `tokenizer_config.json` or
    /// `chat_template.json`: one template or named ones (`name`; `default`
    /// unless told, `tool_use` when tools are offered), with the special
    /// tokens it names.
    #[staticmethod]
    #[pyo3(signature = (text, name=None, special_tokens=None, allow_special_tokens=false, now=None))]
    fn from_config(
        py: Python<'_>,
        text: &str,
        name: Option<String>,
        special_tokens: Option<Vec<String>>,
        allow_special_tokens: bool,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let options = options(name, now, special_tokens, allow_special_tokens)?;
        PyChatTemplate::load(py, text, true, None, options)
    }

    /// A template from a file: a config when its extension is `.json`
    /// (`tokenizer_config.json`, `chat_template.json`), else a template's
    /// text (`.jinja`).
    #[staticmethod]
    #[pyo3(signature = (path, name=None, special_tokens=None, allow_special_tokens=false, now=None))]
    fn from_file(
        py: Python<'_>,
        path: PathBuf,
        name: Option<String>,
        special_tokens: Option<Vec<String>>,
        allow_special_tokens: bool,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let options = options(name, now, special_tokens, allow_special_tokens)?;
        PyChatTemplate::from_path(py, path, options)
    }

    /// The conversation as the template renders it, exactly as transformers'
    /// `apply_chat_template(tokenize=False)`: `messages` (dicts), `tools`,
    /// `documents`, `add_generation_prompt` and any other variables as
    /// keyword arguments. `ChatTemplateError` when the template raises, a
    /// limit is reached, or a special token of the model comes out of the
    /// messages (`special_token_in_data`) unless allowed.
    #[pyo3(signature = (messages, tools=None, add_generation_prompt=false, documents=None, **variables))]
    fn apply(
        &self,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        tools: Option<&Bound<'_, PyAny>>,
        add_generation_prompt: bool,
        documents: Option<&Bound<'_, PyAny>>,
        variables: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<String> {
        let conversation =
            conversation(messages, tools, documents, add_generation_prompt, variables)?;
        Ok(self.run(py, &conversation)?.output)
    }

    /// As `apply`, returning a `ChatOutcome`: the text, the ranges of it
    /// that came from data and the ranges `{% generation %}` blocks wrote
    /// (in `str` indices).
    #[pyo3(signature = (messages, tools=None, add_generation_prompt=false, documents=None, **variables))]
    fn apply_outcome(
        &self,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        tools: Option<&Bound<'_, PyAny>>,
        add_generation_prompt: bool,
        documents: Option<&Bound<'_, PyAny>>,
        variables: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyChatOutcome> {
        let conversation =
            conversation(messages, tools, documents, add_generation_prompt, variables)?;
        self.run(py, &conversation)
    }

    /// The special tokens the check refuses in data, sorted.
    #[getter]
    fn special_tokens(&self) -> Vec<String> {
        self.template.special_tokens().to_vec()
    }

    fn __repr__(&self) -> String {
        match &self.origin {
            Some(origin) => format!("ChatTemplate.from_file({origin:?})"),
            None => "ChatTemplate(...)".to_owned(),
        }
    }
}

/// A conversation rendered through a chat template.
#[pyclass(module = "prompt_suite", name = "ChatOutcome", frozen)]
pub(crate) struct PyChatOutcome {
    /// The text, exactly as transformers renders it.
    #[pyo3(get)]
    output: String,
    /// The `[start, end)` ranges of `output` (in `str` indices) that came
    /// from the messages, tool results and documents: data, never
    /// structure.
    #[pyo3(get)]
    data_ranges: Vec<(usize, usize)>,
    /// The `[start, end)` ranges `{% generation %}` blocks wrote
    /// (transformers' assistant mask).
    #[pyo3(get)]
    generation_ranges: Vec<(usize, usize)>,
}

#[pymethods]
impl PyChatOutcome {
    fn __repr__(&self) -> String {
        format!("ChatOutcome(output={:?})", self.output)
    }
}

/// The `template` argument of `apply_chat_template`: a `ChatTemplate`, an
/// `os.PathLike` (a file), or a `str`: a file's path only when it is one
/// line without `{{` or `{%` naming a `.jinja` or `.json` file, else the
/// template's text. So a template text taken from elsewhere (a downloaded
/// config's `chat_template`) can never make the package read another file,
/// such as `/etc/passwd`, and render it.
fn template_arg(
    py: Python<'_>,
    template: &Bound<'_, PyAny>,
    options: impl FnOnce() -> PyResult<Options>,
) -> PyResult<Py<PyChatTemplate>> {
    if let Ok(template) = template.cast::<PyChatTemplate>() {
        return Ok(template.clone().unbind());
    }
    let loaded = if let Ok(text) = template.cast::<PyString>() {
        let text = text.to_cow()?;
        if !names_a_template_file(&text) {
            PyChatTemplate::load(py, &text, false, None, options()?)?
        } else {
            PyChatTemplate::from_path(py, PathBuf::from(&*text), options()?)?
        }
    } else if let Ok(path) = template.extract::<PathBuf>() {
        PyChatTemplate::from_path(py, path, options()?)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "template must be a ChatTemplate, a str or a path, not {}",
            convert::type_name(template)
        )));
    };
    Py::new(py, loaded)
}

/// Whether a `str` given as a template names a template file: one line,
/// no `{{` or `{%`, ending in `.jinja` or `.json`.
fn names_a_template_file(text: &str) -> bool {
    let extension = std::path::Path::new(text).extension().and_then(|e| e.to_str());
    !text.contains(['\n', '\r'])
        && !text.contains("{{")
        && !text.contains("{%")
        && extension
            .is_some_and(|e| e.eq_ignore_ascii_case("jinja") || e.eq_ignore_ascii_case("json"))
}

/// The `chat_template` argument of a pipeline (the completions provider):
/// as `apply_chat_template`'s `template`, loaded with the default options.
pub(crate) fn chat_template_arg(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
) -> PyResult<ChatTemplate> {
    let template = template_arg(py, value, || Ok(Options::default()))?;
    Ok(template.get().template.clone())
}

/// `apply_chat_template(template, messages, ...)`: a drop-in for
/// transformers' `tokenizer.apply_chat_template(messages, tokenize=False)`.
/// `template` is a `ChatTemplate`, the template's text, or a path to a
/// `.jinja` file, `chat_template.json` or `tokenizer_config.json` (special
/// tokens taken from it).
#[pyfunction]
#[pyo3(signature = (template, messages, tools=None, add_generation_prompt=false, now=None, special_tokens=None, allow_special_tokens=false, *, documents=None, name=None, **variables))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub(crate) fn apply_chat_template(
    py: Python<'_>,
    template: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    add_generation_prompt: bool,
    now: Option<&Bound<'_, PyAny>>,
    special_tokens: Option<Vec<String>>,
    allow_special_tokens: bool,
    documents: Option<&Bound<'_, PyAny>>,
    name: Option<String>,
    variables: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let outcome = apply_chat_template_outcome(
        py,
        template,
        messages,
        tools,
        add_generation_prompt,
        now,
        special_tokens,
        allow_special_tokens,
        documents,
        name,
        variables,
    )?;
    Ok(outcome.output)
}

/// As `apply_chat_template`, returning a `ChatOutcome` (text, data ranges,
/// generation ranges).
#[pyfunction]
#[pyo3(signature = (template, messages, tools=None, add_generation_prompt=false, now=None, special_tokens=None, allow_special_tokens=false, *, documents=None, name=None, **variables))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub(crate) fn apply_chat_template_outcome(
    py: Python<'_>,
    template: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    add_generation_prompt: bool,
    now: Option<&Bound<'_, PyAny>>,
    special_tokens: Option<Vec<String>>,
    allow_special_tokens: bool,
    documents: Option<&Bound<'_, PyAny>>,
    name: Option<String>,
    variables: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyChatOutcome> {
    let given = template.cast::<PyChatTemplate>().is_ok();
    if given
        && (name.is_some()
            || now.is_some_and(|now| !now.is_none())
            || special_tokens.is_some()
            || allow_special_tokens)
    {
        return Err(PyValueError::new_err(
            "name, now, special_tokens and allow_special_tokens are a ChatTemplate's own: \
             give them when loading it",
        ));
    }
    let template =
        template_arg(py, template, || options(name, now, special_tokens, allow_special_tokens))?;
    let conversation = conversation(messages, tools, documents, add_generation_prompt, variables)?;
    template.get().run(py, &conversation)
}
