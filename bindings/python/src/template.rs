//! Templates: `Environment`, `Template`, `Outcome` and `StateHistory`,
//! wrapping minijinja-brackets' types of the same names.

use std::sync::{Arc, RwLock};

use prompt_suite::brackets::{
    Arguments, Context, Environment, Error as TemplateError, ErrorKind, Outcome, Profile,
    StateHistory, Syntax, Value,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::convert::{self, to_optional_object};
use crate::error::{self, Family};

/// The syntax named `name`: `"brackets"` or `"jinja"`.
pub(crate) fn syntax(name: &str) -> PyResult<Syntax> {
    match name {
        "brackets" => Ok(Syntax::Brackets),
        "jinja" => Ok(Syntax::Jinja),
        _ => Err(PyValueError::new_err(format!(
            "syntax must be \"brackets\" or \"jinja\", not {name:?}"
        ))),
    }
}

/// The profile named `name`: `"reference"` or `"jinja2"`.
pub(crate) fn profile(name: &str) -> PyResult<Profile> {
    [Profile::Reference, Profile::Jinja2]
        .into_iter()
        .find(|profile| profile.as_str() == name)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "profile must be \"reference\" or \"jinja2\", not {name:?}"
            ))
        })
}

/// The seed argument: a given seed as it is, `None` drawn by
/// minijinja-brackets' `random_seed` (below 2^53, from entropy).
pub(crate) fn seed_or_draw(seed: Option<u64>) -> PyResult<u64> {
    match seed {
        Some(seed) => Ok(seed),
        None => prompt_suite::brackets::random_seed().map_err(|err| {
            PyRuntimeError::new_err(format!("cannot draw a seed: {}", err.message()))
        }),
    }
}

/// The three stores from the `state`, `local` and `global_` arguments.
pub(crate) fn context_of(
    state: Option<&Bound<'_, PyAny>>,
    local: Option<&Bound<'_, PyAny>>,
    global: Option<&Bound<'_, PyAny>>,
) -> PyResult<Context> {
    Ok(Context {
        state: to_optional_object(state, "state")?,
        local: to_optional_object(local, "local")?,
        global: to_optional_object(global, "global_")?,
    })
}

/// The exception of a template error (its positions are in the template's
/// source, the caller's text).
pub(crate) fn template_error(err: &TemplateError) -> PyErr {
    error::exception(Family::Template, &err.annotated())
}

/// A template environment: the syntax and profile, whitespace options,
/// strict undefined values, the host's filters, tests and functions, and
/// the named templates `include`, `import` and `extends` find.
///
/// An environment is changed by `add_*` and read by `compile`; the
/// templates it compiles are immutable and keep what it held then.
#[pyclass(module = "prompt_suite", name = "Environment", frozen)]
pub(crate) struct PyEnvironment {
    env: RwLock<Environment>,
    syntax: String,
    profile: String,
}

impl PyEnvironment {
    fn read(&self) -> PyResult<std::sync::RwLockReadGuard<'_, Environment>> {
        self.env.read().map_err(|_| PyRuntimeError::new_err("the environment's lock is poisoned"))
    }

    fn write(&self) -> PyResult<std::sync::RwLockWriteGuard<'_, Environment>> {
        self.env.write().map_err(|_| PyRuntimeError::new_err("the environment's lock is poisoned"))
    }

    /// A copy of the Rust environment (for a pipeline's templates).
    pub(crate) fn environment(&self) -> PyResult<Environment> {
        Ok(self.read()?.clone())
    }
}

#[pymethods]
impl PyEnvironment {
    #[new]
    #[pyo3(signature = (syntax="brackets", profile="reference", trim_blocks=false, lstrip_blocks=false, strict=false))]
    fn new(
        syntax: &str,
        profile: &str,
        trim_blocks: bool,
        lstrip_blocks: bool,
        strict: bool,
    ) -> PyResult<Self> {
        let (syntax_kind, profile_kind) = (self::syntax(syntax)?, self::profile(profile)?);
        let mut env = Environment::new();
        env.set_syntax(syntax_kind);
        env.set_profile(profile_kind);
        env.set_trim_blocks(trim_blocks);
        env.set_lstrip_blocks(lstrip_blocks);
        env.set_strict(strict);
        Ok(PyEnvironment {
            env: RwLock::new(env),
            syntax: syntax.to_owned(),
            profile: profile.to_owned(),
        })
    }

    /// The template syntax: `"brackets"` (`[[ ]]`, `[% %]`, `->`) or
    /// `"jinja"` (`{{ }}`, `{% %}`, `|`).
    #[getter]
    fn syntax(&self) -> &str {
        &self.syntax
    }

    /// The language profile: `"reference"` (the bracket language) or
    /// `"jinja2"` (Jinja2's semantics, as transformers renders chat
    /// templates).
    #[getter]
    fn profile(&self) -> &str {
        &self.profile
    }

    /// Adds (or replaces) a filter: `callable(value, *args, **kwargs)`,
    /// used as `value -> name(args)`. Values cross as native Python
    /// objects; an undefined value is `None`. An exception it raises fails
    /// the render (`invalid_operation`, with the exception's text).
    fn add_filter(&self, name: &str, callable: Bound<'_, PyAny>) -> PyResult<()> {
        let callable = Arc::new(checked_callable(&callable, "add_filter")?);
        let label = format!("filter `{name}`");
        self.write()?.add_filter(name, move |value: Value, args: Arguments<'_>| {
            call_python(&callable, &label, Some(&value), &args)
        });
        Ok(())
    }

    /// Adds (or replaces) a test: `callable(value, *args, **kwargs)`,
    /// used as `value is name(args)`; its result is taken as a bool.
    fn add_test(&self, name: &str, callable: Bound<'_, PyAny>) -> PyResult<()> {
        let callable = Arc::new(checked_callable(&callable, "add_test")?);
        let label = format!("test `{name}`");
        self.write()?.add_test(name, move |value: &Value, args: Arguments<'_>| {
            call_python(&callable, &label, Some(value), &args).map(|result| result.is_true())
        });
        Ok(())
    }

    /// Adds (or replaces) a global function: `callable(*args, **kwargs)`,
    /// used as `name(args)`.
    fn add_function(&self, name: &str, callable: Bound<'_, PyAny>) -> PyResult<()> {
        let callable = Arc::new(checked_callable(&callable, "add_function")?);
        let label = format!("function `{name}`");
        self.write()?.add_function(name, move |args: Arguments<'_>| {
            call_python(&callable, &label, None, &args)
        });
        Ok(())
    }

    /// Adds (or replaces) the template `name` that `include`, `import` and
    /// `extends` find. `TemplateError` when it does not compile.
    fn add_template(&self, name: &str, source: &str) -> PyResult<()> {
        self.write()?.add_template(name, source).map_err(|err| template_error(&err))
    }

    /// Compiles `source` once; the `Template` renders it any number of
    /// times, from any thread. `TemplateError` on a syntax error or an
    /// unknown filter or test.
    fn compile(&self, py: Python<'_>, source: &str) -> PyResult<PyTemplate> {
        let env = self.read()?.clone();
        let template = py.detach(|| env.compile(source)).map_err(|err| template_error(&err))?;
        Ok(PyTemplate { template })
    }

    fn __repr__(&self) -> String {
        format!("Environment(syntax={:?}, profile={:?})", self.syntax, self.profile)
    }
}

fn checked_callable(callable: &Bound<'_, PyAny>, method: &str) -> PyResult<Py<PyAny>> {
    if !callable.is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{method}: callable must be callable, not {}",
            convert::type_name(callable)
        )));
    }
    Ok(callable.clone().unbind())
}

/// Calls a host callable from a render (which runs without the GIL): takes
/// the GIL, converts the value and arguments, calls, converts the result.
fn call_python(
    callable: &Py<PyAny>,
    label: &str,
    value: Option<&Value>,
    args: &Arguments<'_>,
) -> Result<Value, TemplateError> {
    let failed =
        |what: String| TemplateError::new(ErrorKind::InvalidOperation, format!("{label} {what}"));
    Python::attach(|py| {
        let to_py = |value: &Value| -> Result<Bound<'_, PyAny>, TemplateError> {
            if value.is_undefined() {
                return Ok(py.None().into_bound(py));
            }
            let json = value.to_json().map_err(|err| {
                TemplateError::new(ErrorKind::BadArguments, format!("{label}: {}", err.message()))
            })?;
            convert::to_python(py, &json)
                .map_err(|err| failed(format!("cannot take a value: {err}")))
        };
        let mut positional = Vec::with_capacity(args.positional().len() + 1);
        if let Some(value) = value {
            positional.push(to_py(value)?);
        }
        for arg in args.positional() {
            positional.push(to_py(arg)?);
        }
        let kwargs = PyDict::new(py);
        for (name, arg) in args.keywords() {
            kwargs
                .set_item(*name, to_py(arg)?)
                .map_err(|err| failed(format!("cannot take keyword {name}: {err}")))?;
        }
        let positional = PyTuple::new(py, positional)
            .map_err(|err| failed(format!("cannot be called: {err}")))?;
        let result = callable
            .bind(py)
            .call(positional, Some(&kwargs))
            .map_err(|err| failed(format!("raised {err}")))?;
        let json = convert::to_json(&result, "result")
            .map_err(|err| failed(format!("returned a value the template cannot hold: {err}")))?;
        Value::from_json(&json).map_err(|err| failed(format!("returned {}", err.message())))
    })
}

/// A compiled template: immutable, safe to share between threads; a
/// render releases the GIL.
#[pyclass(module = "prompt_suite", name = "Template", frozen)]
pub(crate) struct PyTemplate {
    template: prompt_suite::brackets::Template,
}

impl PyTemplate {
    fn run(
        &self,
        py: Python<'_>,
        state: Option<&Bound<'_, PyAny>>,
        local: Option<&Bound<'_, PyAny>>,
        global: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<(Outcome, u64)> {
        let context = context_of(state, local, global)?;
        let seed = seed_or_draw(seed)?;
        let template = &self.template;
        let outcome = py
            .detach(|| template.render_outcome(&context, seed))
            .map_err(|err| template_error(&err))?;
        Ok((outcome, seed))
    }
}

#[pymethods]
impl PyTemplate {
    /// Renders with the state, chat-local (`L.x`) and global (`G.x`)
    /// stores and a seed (`None` draws one); returns the text.
    #[pyo3(signature = (state=None, local=None, global_=None, seed=None))]
    fn render(
        &self,
        py: Python<'_>,
        state: Option<&Bound<'_, PyAny>>,
        local: Option<&Bound<'_, PyAny>>,
        global_: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<String> {
        Ok(self.run(py, state, local, global_, seed)?.0.output)
    }

    /// Renders as `render` does and returns everything the render did: an
    /// `Outcome` (text, writes, effects, data ranges, the seed used).
    #[pyo3(signature = (state=None, local=None, global_=None, seed=None))]
    fn render_outcome(
        &self,
        py: Python<'_>,
        state: Option<&Bound<'_, PyAny>>,
        local: Option<&Bound<'_, PyAny>>,
        global_: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<PyOutcome> {
        let (outcome, seed) = self.run(py, state, local, global_, seed)?;
        PyOutcome::new(py, outcome, seed)
    }

    /// The template's source text.
    #[getter]
    fn source(&self) -> &str {
        self.template.source()
    }

    fn __repr__(&self) -> String {
        let source = self.template.source();
        let head: String = source.chars().take(40).collect();
        let more = if head.len() < source.len() { "..." } else { "" };
        format!("Template({head:?}{more})")
    }
}

/// What a render produced and did.
#[pyclass(module = "prompt_suite", name = "Outcome", frozen)]
pub(crate) struct PyOutcome {
    /// The rendered text.
    #[pyo3(get)]
    output: String,
    /// Every store write in order: `{"scope", "name", "value"}`.
    #[pyo3(get)]
    writes: Py<PyList>,
    /// Every `qr`/`st` effect in order: `{"kind": "qr", "name"}` or
    /// `{"kind": "st", "command"}`.
    #[pyo3(get)]
    effects: Py<PyList>,
    /// The `[start, end)` ranges of `output` (in `str` indices) that came
    /// from values: `output[start:end]` is data, never structure.
    #[pyo3(get)]
    data_ranges: Vec<(usize, usize)>,
    /// The seed the render used (drawn when none was given).
    #[pyo3(get)]
    seed: u64,
    /// The Rust outcome, for `StateHistory.record`.
    outcome: Outcome,
}

impl PyOutcome {
    fn new(py: Python<'_>, outcome: Outcome, seed: u64) -> PyResult<PyOutcome> {
        let writes = convert::serialize_to_python(py, &outcome.writes)?.cast_into::<PyList>()?;
        let effects = convert::serialize_to_python(py, &outcome.effects)?.cast_into::<PyList>()?;
        let data_ranges =
            convert::code_point_ranges(&outcome.output, outcome.data_ranges.iter().cloned());
        Ok(PyOutcome {
            output: outcome.output.clone(),
            writes: writes.unbind(),
            effects: effects.unbind(),
            data_ranges,
            seed,
            outcome,
        })
    }
}

#[pymethods]
impl PyOutcome {
    fn __repr__(&self) -> String {
        format!("Outcome(output={:?}, seed={})", self.output, self.seed)
    }
}

/// Renders `source` once with the bracket syntax and reference profile;
/// the keyword arguments are the state store.
#[pyfunction]
#[pyo3(signature = (source, seed=None, **state))]
pub(crate) fn render(
    py: Python<'_>,
    source: &str,
    seed: Option<u64>,
    state: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let env = Environment::new();
    let template = py.detach(|| env.compile(source)).map_err(|err| template_error(&err))?;
    let template = PyTemplate { template };
    template.render(py, state.map(|s| s.as_any()), None, None, seed)
}

/// State kept in a chat's messages and swipes: deleting, rolling back or
/// swiping brings earlier values back. The regenerate rule: render message
/// `n` with `state_at(n)`, then `record(n, outcome)`.
#[pyclass(module = "prompt_suite", name = "StateHistory")]
pub(crate) struct PyStateHistory {
    history: StateHistory,
}

fn history_error(err: &prompt_suite::brackets::HistoryError) -> PyErr {
    error::exception(Family::Template, &err.annotated())
}

#[pymethods]
impl PyStateHistory {
    #[new]
    fn new() -> Self {
        PyStateHistory { history: StateHistory::new() }
    }

    /// Reads the CLI's history file format. `TemplateError` of kind
    /// `invalid_history` with its line and column.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        StateHistory::from_json(text)
            .map(|history| PyStateHistory { history })
            .map_err(|err| history_error(&err))
    }

    /// The history in the CLI's file format (one line of JSON).
    fn to_json(&self) -> String {
        self.history.to_json()
    }

    /// Stores the state writes of `outcome` on message `message`: on its
    /// active swipe, replacing what it held, or on a new message when
    /// `message` is the number of messages.
    fn record(&mut self, message: usize, outcome: &Bound<'_, PyOutcome>) -> PyResult<()> {
        if message == self.history.len() {
            self.history.push_message();
        }
        self.history
            .record_writes(message, &outcome.get().outcome.writes)
            .map_err(|err| history_error(&err))
    }

    /// The state store before message `message` (`state_at(len(h))` is the
    /// state after the whole chat), as a dict.
    fn state_at<'py>(&self, py: Python<'py>, message: usize) -> PyResult<Bound<'py, PyDict>> {
        let state = self.history.state_at(message).map_err(|err| history_error(&err))?;
        convert::object_to_python(py, &state)
    }

    /// Appends a message with one empty swipe; returns its index.
    fn push_message(&mut self) -> usize {
        self.history.push_message()
    }

    /// Adds an empty swipe to message `message` and makes it active;
    /// returns its index.
    fn swipe(&mut self, message: usize) -> PyResult<usize> {
        self.history.add_swipe(message).map_err(|err| history_error(&err))
    }

    /// Makes swipe `swipe` of message `message` the active one.
    fn select(&mut self, message: usize, swipe: usize) -> PyResult<()> {
        self.history.select_swipe(message, swipe).map_err(|err| history_error(&err))
    }

    /// Deletes message `message`; its writes vanish, later messages move
    /// down by one.
    fn delete(&mut self, message: usize) -> PyResult<()> {
        self.history.delete_message(message).map_err(|err| history_error(&err))
    }

    /// Keeps the first `length` messages.
    fn truncate(&mut self, length: usize) {
        self.history.truncate(length);
    }

    fn __len__(&self) -> usize {
        self.history.len()
    }

    fn __repr__(&self) -> String {
        format!("StateHistory(messages={})", self.history.len())
    }
}
