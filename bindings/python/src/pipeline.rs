//! The pipeline: `Pipeline`, `Prompt`, `CompiledPrompt` and `convert`,
//! wrapping prompt-pipeline's types.

use std::path::PathBuf;

use prompt_suite::pipeline::{
    self as pp, AttachmentLimits, ChatBody, Compiled, Context, Provider, ResponseSchema,
    RoleAliases, Source, Tool, ToolChoice, Transcript,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::Value;

use crate::convert::{self, serialize_to_python};
use crate::error::{self, Family, warn_notices};
use crate::template::{PyEnvironment, seed_or_draw};

/// The exception of a pipeline error of `family` (its positions are in the
/// text the error keeps: the prompt file, the rendered narrative, ...).
pub(crate) fn pipeline_error(err: &pp::Error, family: Family) -> PyErr {
    error::exception(family, &err.annotated())
}

/// The provider named `name`.
pub(crate) fn provider(name: &str) -> PyResult<Provider> {
    name.parse::<Provider>().map_err(|err| PyValueError::new_err(format!("provider: {err}")))
}

/// A context argument as the command line takes one: a dict with any of
/// the keys `state`, `local` and `global` (and no other) is the three
/// stores; a dict with none of them is the state store itself.
pub(crate) fn context_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Context> {
    let Some(value) = value.filter(|v| !v.is_none()) else { return Ok(Context::default()) };
    let map = convert::to_object(value, "context")?;
    context_of_map(map)
}

/// [`context_arg`] on a JSON object already converted (the rule is
/// minijinja-brackets' `Context::from_object`).
pub(crate) fn context_of_map(map: serde_json::Map<String, Value>) -> PyResult<Context> {
    Context::from_object(map).map_err(|err| {
        let help = prompt_core::diagnostic::Diagnostic::help(&err);
        let help = help.map(|help| format!(" ({help})")).unwrap_or_default();
        PyValueError::new_err(format!("context: {}{help}", err.message()))
    })
}

/// A JSON argument given as text or as Python objects: the text the Rust
/// reader takes, and whether it is the caller's (positions mean something).
pub(crate) fn json_text(value: &Bound<'_, PyAny>, name: &str) -> PyResult<(String, bool)> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok((text.to_cow()?.into_owned(), true));
    }
    let json = convert::to_json(value, name)?;
    Ok((json.to_string(), false))
}

/// Parameters from a dict: strings as they are, other values as their JSON
/// text (`0.2`, `true`, `["a"]`), as a `/// param:` line would write them.
pub(crate) fn param_pairs(params: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    Ok(pp::Params::pairs_of_object(&convert::to_object(params, "params")?))
}

/// The authored prompt: its text, and where its attachments, includes and
/// `/// tools:` paths resolve (the file's directory, or a bundle's entries).
#[pyclass(module = "prompt_suite", name = "Prompt", frozen)]
#[derive(Clone)]
pub(crate) struct PyPrompt {
    pub(crate) source: Source,
}

#[pymethods]
impl PyPrompt {
    /// A prompt from its text; nothing resolves beside it (no files).
    #[new]
    fn new(text: String) -> Self {
        PyPrompt { source: Source::new(text) }
    }

    /// A prompt file (text or a `.lmmlz` bundle); its embeds, includes and
    /// directive paths resolve in its directory, never outside it.
    #[staticmethod]
    fn from_path(path: PathBuf) -> PyResult<Self> {
        let bytes = std::fs::read(&path).map_err(|err| {
            pyo3::exceptions::PyOSError::new_err(format!("cannot read {}: {err}", path.display()))
        })?;
        let limits = AttachmentLimits::default();
        let name = path.to_string_lossy();
        let source = Source::from_bytes(&name, &bytes, &limits)
            .map_err(|err| pipeline_error(&err, Family::Pipeline))?;
        let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty());
        let source = source
            .in_directory(dir.unwrap_or(std::path::Path::new(".")), &limits)
            .map_err(|err| pipeline_error(&err, Family::Pipeline))?;
        Ok(PyPrompt { source })
    }

    /// The prompt's text (a bundle's narrative).
    #[getter]
    fn text(&self) -> &str {
        self.source.text()
    }

    fn __repr__(&self) -> String {
        let head: String = self.source.text().chars().take(40).collect();
        format!("Prompt({head:?}...)")
    }
}

/// The prompt argument: a `Prompt`, or its text.
pub(crate) fn source_arg(prompt: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(prompt) = prompt.cast::<PyPrompt>() {
        return Ok(prompt.get().source.clone());
    }
    if let Ok(text) = prompt.cast::<PyString>() {
        return Ok(Source::new(text.to_cow()?.into_owned()));
    }
    Err(PyTypeError::new_err(format!(
        "prompt must be a str or a Prompt, not {}",
        convert::type_name(prompt)
    )))
}

/// A transcript argument (a list of `{"speaker", "text"}` rows or its JSON
/// text) flipped for `speaker`.
fn transcript_arg(
    transcript: Option<&Bound<'_, PyAny>>,
    speaker: Option<&str>,
) -> PyResult<Option<Transcript>> {
    match (transcript.filter(|t| !t.is_none()), speaker) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(PyValueError::new_err("a transcript needs a speaker")),
        (None, Some(_)) => Err(PyValueError::new_err("a speaker needs a transcript")),
        (Some(transcript), Some(speaker)) => {
            let (text, _) = json_text(transcript, "transcript")?;
            Transcript::from_json(&text, speaker)
                .map(Some)
                .map_err(|err| pipeline_error(&err, Family::Pipeline))
        }
    }
}

/// A pipeline: the provider and the request-level settings (parameters,
/// role aliases, tools, tool choice, response schema, the template
/// environment, and for `provider="completions"` the model's chat template:
/// a `ChatTemplate`, its text or a path, as `apply_chat_template` takes).
/// Immutable and thread-safe; `build` releases the GIL.
#[pyclass(module = "prompt_suite", name = "Pipeline", frozen)]
pub(crate) struct PyPipeline {
    pipeline: pp::Pipeline,
}

#[pymethods]
impl PyPipeline {
    #[new]
    #[pyo3(signature = (provider="openai", params=None, role_aliases=None, chat_template=None, tools=None, tool_choice=None, response_schema=None, environment=None))]
    #[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
    fn new(
        py: Python<'_>,
        provider: &str,
        params: Option<&Bound<'_, PyAny>>,
        role_aliases: Option<&Bound<'_, PyAny>>,
        chat_template: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        tool_choice: Option<&Bound<'_, PyAny>>,
        response_schema: Option<&Bound<'_, PyAny>>,
        environment: Option<&Bound<'_, PyEnvironment>>,
    ) -> PyResult<Self> {
        let mut builder = pp::Pipeline::builder(self::provider(provider)?);
        if let Some(template) = chat_template.filter(|t| !t.is_none()) {
            builder = builder.chat_template(crate::chat::chat_template_arg(py, template)?);
        }
        if let Some(params) = params.filter(|p| !p.is_none()) {
            builder = builder.params(param_pairs(params)?);
        }
        if let Some(aliases) = role_aliases.filter(|a| !a.is_none()) {
            let map = convert::to_object(aliases, "role_aliases")?;
            let mut pairs = Vec::with_capacity(map.len());
            for (name, role) in map {
                let Value::String(role) = role else {
                    return Err(PyTypeError::new_err(format!(
                        "role_aliases[{name:?}] must be a role name (str)"
                    )));
                };
                pairs.push(format!("{name}={role}"));
            }
            let aliases = RoleAliases::from_pairs(&pairs)
                .map_err(|err| error::exception(Family::Segment, &err.annotated()))?;
            builder = builder.role_aliases(aliases);
        }
        if let Some(tools) = tools.filter(|t| !t.is_none()) {
            let (text, _) = json_text(tools, "tools")?;
            let tools =
                Tool::parse_list(&text).map_err(|err| pipeline_error(&err, Family::Pipeline))?;
            builder = builder.tools(tools);
        }
        if let Some(choice) = tool_choice.filter(|c| !c.is_none()) {
            let choice = match choice.cast::<PyString>() {
                Ok(text) => text.to_cow()?.into_owned(),
                Err(_) => convert::to_json(choice, "tool_choice")?.to_string(),
            };
            builder = builder.tool_choice(ToolChoice::parse(&choice));
        }
        if let Some(schema) = response_schema.filter(|s| !s.is_none()) {
            let (text, _) = json_text(schema, "response_schema")?;
            let schema = ResponseSchema::parse(&text)
                .map_err(|err| pipeline_error(&err, Family::Pipeline))?;
            builder = builder.response_schema(schema);
        }
        if let Some(environment) = environment {
            builder = builder.environment(environment.get().environment()?);
        }
        Ok(PyPipeline { pipeline: builder.build() })
    }

    /// The provider's name.
    #[getter]
    fn provider(&self) -> &'static str {
        self.pipeline.provider().as_str()
    }

    /// Compiles `prompt` (its text or a `Prompt`) once, for many builds.
    fn compile(&self, py: Python<'_>, prompt: &Bound<'_, PyAny>) -> PyResult<PyCompiledPrompt> {
        let source = source_arg(prompt)?;
        let pipeline = &self.pipeline;
        let compiled = py
            .detach(|| pipeline.prepare(source).and_then(|prompt| prompt.compile()))
            .map_err(|err| pipeline_error(&err, Family::Pipeline))?;
        Ok(PyCompiledPrompt { compiled })
    }

    /// Builds the request body of `prompt` (text or `Prompt`) for the
    /// provider, with a context (the state store, or the stores by name),
    /// a seed (`None` draws one) and optionally a multi-speaker transcript
    /// flipped for `speaker`. Returns the body as a dict.
    #[pyo3(signature = (prompt, context=None, seed=None, transcript=None, speaker=None))]
    fn build<'py>(
        &self,
        py: Python<'py>,
        prompt: &Bound<'py, PyAny>,
        context: Option<&Bound<'py, PyAny>>,
        seed: Option<u64>,
        transcript: Option<&Bound<'py, PyAny>>,
        speaker: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let compiled = self.compile(py, prompt)?;
        compiled.build(py, context, seed, transcript, speaker)
    }

    fn __repr__(&self) -> String {
        format!("Pipeline(provider={:?})", self.pipeline.provider().as_str())
    }
}

/// A prompt compiled by a pipeline: immutable, shared between threads;
/// `build` releases the GIL.
#[pyclass(module = "prompt_suite", name = "CompiledPrompt", frozen)]
pub(crate) struct PyCompiledPrompt {
    pub(crate) compiled: Compiled,
}

#[pymethods]
impl PyCompiledPrompt {
    /// The request body for one context and seed, as `Pipeline.build`.
    #[pyo3(signature = (context=None, seed=None, transcript=None, speaker=None))]
    fn build<'py>(
        &self,
        py: Python<'py>,
        context: Option<&Bound<'py, PyAny>>,
        seed: Option<u64>,
        transcript: Option<&Bound<'py, PyAny>>,
        speaker: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let context = context_arg(context)?;
        let transcript = transcript_arg(transcript, speaker)?;
        let seed = seed_or_draw(seed)?;
        let compiled = &self.compiled;
        let built = py
            .detach(|| match &transcript {
                Some(transcript) => compiled.build_with_transcript(&context, seed, transcript),
                None => compiled.build(&context, seed),
            })
            .map_err(|err| pipeline_error(&err, Family::Pipeline))?;
        warn_notices(py, &built.notices)?;
        serialize_to_python(py, &built.body)
    }

    /// The prompt's text, comments stripped.
    #[getter]
    fn text(&self) -> &str {
        self.compiled.prompt().text()
    }

    /// A batch of this prompt over `rows`, as `prompt_suite.batch` (the
    /// provider and parameters are the pipeline's).
    #[pyo3(signature = (rows, format="bodies", id_field=None, seed=None, jobs=None, first_row=0, text=false, tagged=false))]
    #[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
    fn batch(
        &self,
        rows: &Bound<'_, PyAny>,
        format: &str,
        id_field: Option<String>,
        seed: Option<u64>,
        jobs: Option<usize>,
        first_row: usize,
        text: bool,
        tagged: bool,
    ) -> PyResult<crate::batch::PyBatchIterator> {
        let settings =
            crate::batch::Settings::new(format, id_field, seed, jobs, first_row, text, tagged)?;
        crate::batch::start(self.compiled.clone(), rows, settings)
    }
}

/// Converts an OpenAI Chat Completions request body (a dict or its JSON
/// text) into `provider`'s body. `ConvertError` for a body the suite
/// cannot read or the target cannot carry.
#[pyfunction(name = "convert")]
#[pyo3(signature = (body, provider="anthropic", params=None))]
pub(crate) fn convert_body<'py>(
    py: Python<'py>,
    body: &Bound<'py, PyAny>,
    provider: &str,
    params: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let target = self::provider(provider)?;
    let (text, _) = json_text(body, "body")?;
    let mut chat = ChatBody::parse(&text).map_err(|err| pipeline_error(&err, Family::Convert))?;
    if let Some(params) = params.filter(|p| !p.is_none()) {
        let pairs = param_pairs(params)?;
        chat.params_mut()
            .apply(pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())))
            .map_err(|err| pipeline_error(&err, Family::Convert))?;
    }
    let encoded = chat.convert(target).map_err(|err| pipeline_error(&err, Family::Convert))?;
    warn_notices(py, chat.notices())?;
    warn_notices(py, &encoded.notices)?;
    serialize_to_python(py, &encoded.body)
}

/// Builds one request per row of `rows` (any iterable of dicts, each a row
/// as `prompt-suite batch` takes it, or of str, each one JSON line) on
/// `jobs` threads, and yields one dict per row in row order: the body (or
/// the provider batch line with `format`), or the error record
/// `{"row": i, "error": {...}}`; with `text=True`, each line's JSON text;
/// with `tagged=True`, a tuple `(row, line, error)` (the row's number, the
/// line, and whether it is the row's error record).
/// Row `i` is row `first_row + i` of the whole batch: it uses seed
/// `seed + first_row + i`, and its id is `row-<first_row + i>` unless
/// `id_field` names a key of the rows. `chat_template` is the model's chat
/// template for `provider="completions"` (as `Pipeline`'s).
#[pyfunction]
#[pyo3(signature = (prompt, rows, provider="openai", format="bodies", id_field=None, params=None, seed=None, jobs=None, first_row=0, text=false, tagged=false, chat_template=None))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub(crate) fn batch(
    py: Python<'_>,
    prompt: &Bound<'_, PyAny>,
    rows: &Bound<'_, PyAny>,
    provider: &str,
    format: &str,
    id_field: Option<String>,
    params: Option<&Bound<'_, PyAny>>,
    seed: Option<u64>,
    jobs: Option<usize>,
    first_row: usize,
    text: bool,
    tagged: bool,
    chat_template: Option<&Bound<'_, PyAny>>,
) -> PyResult<crate::batch::PyBatchIterator> {
    let settings =
        crate::batch::Settings::new(format, id_field, seed, jobs, first_row, text, tagged)?;
    let mut builder = pp::Pipeline::builder(self::provider(provider)?);
    if let Some(template) = chat_template.filter(|t| !t.is_none()) {
        builder = builder.chat_template(crate::chat::chat_template_arg(py, template)?);
    }
    if let Some(params) = params.filter(|p| !p.is_none()) {
        builder = builder.params(param_pairs(params)?);
    }
    let pipeline = builder.build();
    let source = source_arg(prompt)?;
    let compiled: Compiled = py
        .detach(|| pipeline.prepare(source).and_then(|prompt| prompt.compile()))
        .map_err(|err| pipeline_error(&err, Family::Pipeline))?;
    warn_notices(py, compiled.prompt().notices())?;
    crate::batch::start(compiled, rows, settings)
}
