//! Python values <-> JSON values, in one place (minijinja-py's
//! `typeconv.rs`). Python gives dict, list, tuple, str, int, float, bool and
//! None; anything else is a `TypeError` naming where it was
//! (`state['a'][2]`). What crosses back is always those native types.
//!
//! What the walk builds counts against the engine's memory limit as every
//! reader of input counts it (`prompt_core::json::Budget`), before it is
//! built: an argument past it is the suite's `memory_limit` error naming
//! where the count passed the limit.

use prompt_core::json::{Budget, OverBudget};
use prompt_suite::brackets::Value as TemplateValue;
use prompt_suite::brackets::{ErrorKind, Limits};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use crate::error::Family;

/// The deepest nesting a value may have: deeper is a `ValueError` (a
/// self-containing list would otherwise recurse forever). The bracket
/// language's own nesting limit is far below it.
pub(crate) const MAX_DEPTH: usize = 512;

/// Where a value sits inside an argument, for error messages: the
/// argument's name, then `['key']` and `[i]` for each step.
/// A key is kept as the Python string it is (a reference, not a copy): it
/// is written out only when a message needs it.
#[derive(Debug, Clone)]
pub(crate) struct Path<'py> {
    steps: Vec<Step<'py>>,
}

#[derive(Debug, Clone)]
enum Step<'py> {
    Root(String),
    Key(Bound<'py, PyString>),
    Index(usize),
}

impl<'py> Path<'py> {
    /// The path of the argument `name`.
    pub(crate) fn root(name: &str) -> Path<'py> {
        Path { steps: vec![Step::Root(name.to_owned())] }
    }

    fn push(&mut self, step: Step<'py>) {
        self.steps.push(step);
    }

    fn pop(&mut self) {
        self.steps.pop();
    }

    fn depth(&self) -> usize {
        self.steps.len() - 1
    }
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for step in &self.steps {
            match step {
                Step::Root(name) => f.write_str(name)?,
                // Python's repr of the key (the engine's), so the path
                // reads as code.
                Step::Key(key) => {
                    let key = key.to_cow().map_err(|_| std::fmt::Error)?;
                    write!(f, "[{}]", TemplateValue::from(&*key).python_repr())?
                }
                Step::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// `value` as JSON, or the error naming `path` (the argument's name).
pub(crate) fn to_json(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Value> {
    let mut budget = Budget::new(Limits::default().memory_limit());
    budget.value().map_err(|over| over_budget(&Path::root(name), over))?;
    to_json_at(value, &mut Path::root(name), &mut budget)
}

/// The `memory_limit` error of the value at `path`.
fn over_budget(path: &Path<'_>, over: OverBudget) -> PyErr {
    let message = format!("{path} would take {over} as values");
    let err = prompt_suite::brackets::Error::new(ErrorKind::MemoryLimit, message);
    crate::error::exception(Family::Template, &err.annotated())
}

/// `value`, which must be a dict with string keys, as a JSON object.
pub(crate) fn to_object(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Map<String, Value>> {
    match to_json(value, name)? {
        Value::Object(map) => Ok(map),
        _ => Err(PyTypeError::new_err(format!("{name} must be a dict, not {}", type_name(value)))),
    }
}

/// An optional dict argument: `None` is an empty object.
pub(crate) fn to_optional_object(
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
) -> PyResult<Map<String, Value>> {
    match value {
        Some(value) if !value.is_none() => to_object(value, name),
        _ => Ok(Map::new()),
    }
}

fn to_json_at<'py>(
    value: &Bound<'py, PyAny>,
    path: &mut Path<'py>,
    budget: &mut Budget,
) -> PyResult<Value> {
    if path.depth() > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{path} is nested deeper than {MAX_DEPTH} levels (a list or dict that contains itself?)"
        )));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: Python's bool is an int.
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        let text = s.to_cow()?;
        budget.text(text.len()).map_err(|over| over_budget(path, over))?;
        return Ok(Value::String(text.into_owned()));
    }
    if value.cast::<PyInt>().is_ok() {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Ok(u) = value.extract::<u64>() {
            return Ok(Value::Number(u.into()));
        }
        return Err(PyValueError::new_err(format!(
            "{path} is an integer outside the 64-bit range: {}",
            value.str().map(|s| s.to_string()).unwrap_or_default()
        )));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        let x = f.value();
        return Number::from_f64(x).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("{path} is {x}, a float JSON cannot hold"))
        });
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        budget.object().map_err(|over| over_budget(path, over))?;
        let mut map = Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let Ok(key) = key.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "{path} has a key of type {}: keys must be str",
                    type_name(&key)
                )));
            };
            let text = key.to_cow()?;
            path.push(Step::Key(key.clone()));
            budget.entry(text.len()).map_err(|over| over_budget(path, over))?;
            let item = to_json_at(&item, path, budget)?;
            path.pop();
            map.insert(text.into_owned(), item);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(list) = value.cast::<PyList>() {
        return sequence(list.iter(), list.len(), path, budget);
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        return sequence(tuple.iter(), tuple.len(), path, budget);
    }
    Err(PyTypeError::new_err(format!(
        "{path} is of type {}: values must be dict, list, tuple, str, int, float, bool or None",
        type_name(value)
    )))
}

fn sequence<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    path: &mut Path<'py>,
    budget: &mut Budget,
) -> PyResult<Value> {
    // The slots, before they are made.
    budget
        .list()
        .and_then(|()| budget.charge(len.saturating_mul(prompt_core::json::VALUE_BYTES)))
        .map_err(|over| over_budget(path, over))?;
    let mut out = Vec::with_capacity(len);
    for (i, item) in items.enumerate() {
        path.push(Step::Index(i));
        out.push(to_json_at(&item, path, budget)?);
        path.pop();
    }
    Ok(Value::Array(out))
}

/// The name of `value`'s type, for messages.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|name| name.to_string()).unwrap_or_else(|_| "object".to_owned())
}

/// A JSON value as native Python objects (dict keeps the key order).
pub(crate) fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => object_to_python(py, map)?.into_any(),
    })
}

/// A JSON object as a Python dict.
pub(crate) fn object_to_python<'py>(
    py: Python<'py>,
    map: &Map<String, Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, item) in map {
        dict.set_item(key, to_python(py, item)?)?;
    }
    Ok(dict)
}

/// Anything serializable (a body, messages) as Python objects, through its
/// JSON form.
pub(crate) fn serialize_to_python<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_value(value)
        .map_err(|err| PyValueError::new_err(format!("cannot encode the result: {err}")))?;
    to_python(py, &json)
}

/// Byte ranges of `text` as code-point ranges (Python's `str` indices):
/// prompt-core's one conversion.
pub(crate) fn code_point_ranges(
    text: &str,
    ranges: impl IntoIterator<Item = std::ops::Range<usize>>,
) -> Vec<(usize, usize)> {
    prompt_core::text::index_ranges(text, ranges, prompt_core::text::IndexUnit::Chars)
}
