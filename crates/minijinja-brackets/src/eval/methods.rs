//! Methods on values, as Jinja2's immutable sandbox exposes them (the
//! Jinja2 profile): `s.strip()`, `m.items()`, `xs.index(x)`, ...
//!
//! Every method is bounded before it builds: the receiver was paid for by
//! size ([`Renderer::charge_size`]), and a result is checked against the
//! string and range limits before it is made, then charged like any
//! function's result ([`Renderer::settle`]). A method of a string keeps the
//! provenance of the bytes it keeps (`strip`, `split`, `join`); one that
//! makes new text (`replace`, `upper`, `format`) gives data unless every
//! input was authored.

use std::ops::Range;
use std::sync::Arc;

use super::Renderer;
use crate::arguments::Arguments;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::provenance::{TextBuf, slice};
use crate::span::Span;
use crate::syntax::ast::{CallArgs, Expr};
use crate::value::ops::check_string_size;
use crate::value::pyformat;
use crate::value::python::{is_space, strip_range};
use crate::value::{DictView, List, ListKind, Repr, Value};

/// Methods that change their value: the sandbox refuses them.
const MUTATING: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
    "update",
    "popitem",
    "setdefault",
    "add",
    "discard",
];

impl<'t> Renderer<'t> {
    /// `base.method(args)` under the Jinja2 profile: a method of a string,
    /// map or list; `None` for other values (a macro or function held by a
    /// module or map is called as in the reference).
    pub(super) fn call_method(
        &mut self,
        base: &'t Expr<'t>,
        method: &'t str,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<Option<Value>, Error> {
        let value = self.eval(base)?;
        match &value.0 {
            Repr::Map(map) if matches!(map.get(method), Some(Value(Repr::Callable(_)))) => Ok(None),
            Repr::Str(_) | Repr::Text(_) | Repr::Map(_) | Repr::List(_) => {
                let args = self.eval_args(args)?;
                for arg in &args.positional {
                    self.charge_size(arg, span)?;
                }
                let result = call(&value, method, args, self.limits);
                self.settle(result, span).map(Some)
            }
            Repr::Callable(_) | Repr::Module(_) => Ok(None),
            Repr::Undefined => {
                let what = &self.source[base.span.start()..base.span.end()];
                Err(self.error(
                    ErrorKind::UndefinedError,
                    format!("`{what}` is undefined, so it has no method `{method}`"),
                    base.span,
                ))
            }
            _ => Err(self.error(
                ErrorKind::UndefinedError,
                format!("{} has no method `{method}`", python_type(&value)),
                base.span,
            )),
        }
    }
}

/// The Python type name Jinja2's messages use.
fn python_type(value: &Value) -> &'static str {
    match &value.0 {
        Repr::Str(_) | Repr::Text(_) => "a str",
        Repr::Map(_) => "a dict",
        Repr::List(items) => match items.kind() {
            ListKind::List => "a list",
            ListKind::Tuple => "a tuple",
            ListKind::Generator => "a generator",
            ListKind::DictView(DictView::Items) => "a dict_items",
            ListKind::DictView(DictView::Keys) => "a dict_keys",
            ListKind::DictView(DictView::Values) => "a dict_values",
        },
        Repr::Int(_) => "an int",
        Repr::Float(_) => "a float",
        Repr::Bool(_) => "a bool",
        Repr::None => "None",
        _ => "this value",
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message)
}

/// Calls `method` of `value` (a string, map or list).
fn call(value: &Value, method: &str, args: Arguments<'_>, limits: &Limits) -> Result<Value, Error> {
    if MUTATING.contains(&method) && matches!(value.0, Repr::List(_) | Repr::Map(_)) {
        let kind = if matches!(value.0, Repr::List(_)) { "list" } else { "dict" };
        return Err(Error::new(
            ErrorKind::SandboxRefused,
            format!(
                "`{method}` would change a {kind}, and templates cannot change values \
                 (Jinja2's immutable sandbox refuses it too)"
            ),
        ));
    }
    let callee = format!("method `{method}`");
    match (&value.0, value.as_str()) {
        (_, Some(s)) => string_method(value, s, method, &callee, args, limits),
        (Repr::Map(map), _) => match method {
            "get" => {
                let [key, default] = args.bind(&callee, ["key", "default"])?;
                let found = match (&key.0, map.int_keys()) {
                    (Repr::Int(n), true) => map.get(n.to_string().as_str()).cloned(),
                    _ => key.as_str().and_then(|k| map.get(k)).cloned(),
                };
                Ok(found.unwrap_or(if default.is_undefined() { Value::NONE } else { default }))
            }
            "items" | "keys" | "values" => {
                no_args(&callee, args)?;
                let (view, items): (_, Vec<Value>) = match method {
                    "items" => (
                        DictView::Items,
                        map.iter()
                            .map(|(k, v)| Value::tuple(vec![map.key(k), v.clone()]))
                            .collect(),
                    ),
                    "keys" => (DictView::Keys, map.keys().map(|k| map.key(k)).collect()),
                    _ => (DictView::Values, map.values().cloned().collect()),
                };
                Ok(Value(Repr::List(Arc::new(List::of_kind(items, ListKind::DictView(view))))))
            }
            _ => Err(no_method(value, method)),
        },
        (Repr::List(items), _) if matches!(items.kind(), ListKind::List | ListKind::Tuple) => {
            match method {
                "index" => {
                    let [x] = args.bind(&callee, ["value"])?;
                    match items.iter().position(|item| item == &x) {
                        Some(i) => Ok(Value::from(i)),
                        None => Err(invalid(format!("{} is not in the list", python_repr(&x)))),
                    }
                }
                "count" => {
                    let [x] = args.bind(&callee, ["value"])?;
                    Ok(Value::from(items.iter().filter(|item| *item == &x).count()))
                }
                _ => Err(no_method(value, method)),
            }
        }
        _ => Err(no_method(value, method)),
    }
}

fn python_repr(value: &Value) -> String {
    let mut out = String::new();
    let _ = crate::value::python::write_repr(value, &mut out, 256);
    out
}

/// Python's AttributeError, which Jinja2 turns into an undefined value
/// that fails when called.
fn no_method(value: &Value, method: &str) -> Error {
    Error::new(
        ErrorKind::UndefinedError,
        format!("{} has no method `{method}`", python_type(value)),
    )
}

fn no_args(callee: &str, args: Arguments<'_>) -> Result<(), Error> {
    args.bind(callee, []).map(|[]| ())
}

/// An optional string argument (`None` for undefined or none).
fn opt_str<'v>(value: &'v Value, what: &str) -> Result<Option<&'v str>, Error> {
    match &value.0 {
        Repr::Undefined | Repr::None => Ok(None),
        _ => value
            .as_str()
            .map(Some)
            .ok_or_else(|| invalid(format!("{what} must be a string, not {}", python_type(value)))),
    }
}

fn req_str<'v>(value: &'v Value, what: &str) -> Result<&'v str, Error> {
    opt_str(value, what)?.ok_or_else(|| invalid(format!("{what} is missing")))
}

/// An optional integer argument (`None` for undefined or none).
fn opt_int(value: &Value, what: &str) -> Result<Option<i64>, Error> {
    match &value.0 {
        Repr::Undefined | Repr::None => Ok(None),
        Repr::Int(n) => Ok(Some(*n)),
        Repr::Bool(b) => Ok(Some(i64::from(*b))),
        _ => Err(invalid(format!("{what} must be an integer, not {}", python_type(value)))),
    }
}

/// New text made from inputs: authored when every input was, else data.
fn made(text: String, authored: bool) -> Value {
    if authored && !text.is_empty() { Value::authored(&text) } else { Value::string(text) }
}

fn string_method(
    value: &Value,
    s: &str,
    method: &str,
    callee: &str,
    args: Arguments<'_>,
    limits: &Limits,
) -> Result<Value, Error> {
    let authored = value.is_all_authored();
    match method {
        "strip" | "lstrip" | "rstrip" => {
            let [chars] = args.bind(callee, ["chars"])?;
            let chars = opt_str(&chars, "the characters to strip")?;
            let range = strip_range(s, chars, method != "rstrip", method != "lstrip");
            Ok(slice(value, s, range))
        }
        "split" | "rsplit" => {
            let [sep, maxsplit] = args.bind(callee, ["sep", "maxsplit"])?;
            let sep = opt_str(&sep, "the separator")?;
            let max = opt_int(&maxsplit, "maxsplit")?.filter(|n| *n >= 0);
            let ranges = split_ranges(s, sep, max, method == "rsplit")?;
            if ranges.len() > limits.range_limit {
                return Err(invalid(format!(
                    "the split would give {} items, more than the limit of {}",
                    ranges.len(),
                    limits.range_limit
                )));
            }
            Ok(Value::list(ranges.into_iter().map(|r| slice(value, s, r)).collect()))
        }
        "splitlines" => {
            let [keepends] = args.bind(callee, ["keepends"])?;
            let keep = keepends.is_true();
            let mut ranges = Vec::new();
            let mut start = 0;
            let bytes = s.as_bytes();
            let mut i = 0;
            while i < s.len() {
                let c = s[i..].chars().next().unwrap_or('\0');
                let width =
                    if c == '\r' && bytes.get(i + 1) == Some(&b'\n') { 2 } else { c.len_utf8() };
                let line_break = matches!(
                    c,
                    '\n' | '\r'
                        | '\u{b}'
                        | '\u{c}'
                        | '\u{1c}'
                        | '\u{1d}'
                        | '\u{1e}'
                        | '\u{85}'
                        | '\u{2028}'
                        | '\u{2029}'
                );
                if line_break {
                    ranges.push(start..if keep { i + width } else { i });
                    start = i + width;
                }
                i += width;
            }
            if start < s.len() {
                ranges.push(start..s.len());
            }
            if ranges.len() > limits.range_limit {
                return Err(invalid("the text has more lines than the range limit"));
            }
            Ok(Value::list(ranges.into_iter().map(|r| slice(value, s, r)).collect()))
        }
        "startswith" | "endswith" => {
            let [affix, start, end] = args.bind(callee, ["prefix", "start", "end"])?;
            let chars: Vec<(usize, char)> = s.char_indices().collect();
            let byte = |n: Option<i64>, default: usize| -> usize {
                let len = chars.len() as i64;
                let n =
                    n.map_or(default as i64, |n| if n < 0 { (n + len).max(0) } else { n.min(len) });
                chars.get(n as usize).map_or(s.len(), |(b, _)| *b)
            };
            let (from, to) =
                (byte(opt_int(&start, "start")?, 0), byte(opt_int(&end, "end")?, chars.len()));
            let window = if from <= to { &s[from..to] } else { "" };
            let test = |a: &str| {
                if method == "startswith" { window.starts_with(a) } else { window.ends_with(a) }
            };
            let passed = match (&affix.0, affix.as_str()) {
                (_, Some(a)) => test(a),
                (Repr::List(items), _) => {
                    let mut any = false;
                    for item in items.iter() {
                        any |= test(req_str(item, "each affix")?);
                    }
                    any
                }
                _ => {
                    return Err(invalid(format!(
                        "`{method}` takes a string or a tuple of strings"
                    )));
                }
            };
            Ok(Value::from(passed))
        }
        "replace" => {
            let [old, new, count] = args.bind(callee, ["old", "new", "count"])?;
            let (old_s, new_s) =
                (req_str(&old, "the text to replace")?, req_str(&new, "the replacement")?);
            let count = opt_int(&count, "count")?.filter(|n| *n >= 0).map(|n| n as usize);
            let found =
                if old_s.is_empty() { s.chars().count() + 1 } else { s.matches(old_s).count() };
            let times = count.map_or(found, |c| c.min(found));
            let len = (s.len() - if old_s.is_empty() { 0 } else { old_s.len() * times })
                .saturating_add(new_s.len().saturating_mul(times));
            check_string_size(len, limits)?;
            let out = if old_s.is_empty() {
                let mut out = String::with_capacity(len);
                let mut left = times;
                for c in s.chars() {
                    if left > 0 {
                        out.push_str(new_s);
                        left -= 1;
                    }
                    out.push(c);
                }
                if left > 0 {
                    out.push_str(new_s);
                }
                out
            } else {
                s.replacen(old_s, new_s, times)
            };
            Ok(made(out, authored && old.is_all_authored() && new.is_all_authored()))
        }
        "lower" | "upper" | "title" | "capitalize" | "swapcase" | "casefold" => {
            no_args(callee, args)?;
            check_string_size(s.len().saturating_mul(3), limits)?;
            let out = match method {
                "lower" | "casefold" => s.to_lowercase(),
                "upper" => s.to_uppercase(),
                "swapcase" => s
                    .chars()
                    .flat_map(|c| -> Vec<char> {
                        if c.is_uppercase() {
                            c.to_lowercase().collect()
                        } else {
                            c.to_uppercase().collect()
                        }
                    })
                    .collect(),
                "title" => {
                    let mut out = String::with_capacity(s.len());
                    let mut previous_cased = false;
                    for c in s.chars() {
                        if previous_cased {
                            out.extend(c.to_lowercase())
                        } else {
                            out.extend(c.to_uppercase())
                        }
                        previous_cased = c.is_alphabetic();
                    }
                    out
                }
                _ => {
                    let mut chars = s.chars();
                    let mut out: String =
                        chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
                    out.extend(chars.flat_map(char::to_lowercase));
                    out
                }
            };
            if out == s {
                return Ok(value.clone());
            }
            Ok(made(out, authored))
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            let [sub, start, end] = args.bind(callee, ["sub", "start", "end"])?;
            let sub = req_str(&sub, "the text to find")?;
            let chars: Vec<usize> = s.char_indices().map(|(b, _)| b).collect();
            let len = chars.len() as i64;
            let at = |n: Option<i64>, default: i64| -> i64 {
                n.map_or(default, |n| if n < 0 { (n + len).max(0) } else { n.min(len) })
            };
            let (from, to) = (at(opt_int(&start, "start")?, 0), at(opt_int(&end, "end")?, len));
            let byte = |c: i64| chars.get(c as usize).copied().unwrap_or(s.len());
            let window = if from <= to { &s[byte(from)..byte(to)] } else { "" };
            let char_index = |b: usize| window[..b].chars().count() as i64 + from;
            if method == "count" {
                let n = if sub.is_empty() {
                    window.chars().count() + 1
                } else {
                    window.matches(sub).count()
                };
                return Ok(Value::from(n));
            }
            let found = if from > to {
                None
            } else if method.starts_with('r') {
                window.rfind(sub)
            } else {
                window.find(sub)
            };
            match (found, method) {
                (Some(b), _) => Ok(Value::from(char_index(b))),
                (None, "find" | "rfind") => Ok(Value::from(-1)),
                (None, _) => Err(invalid("substring not found")),
            }
        }
        "join" => {
            let [items] = args.bind(callee, ["iterable"])?;
            let items = items.items(limits.range_limit).map_err(|why| {
                invalid(why.message(&items, "`join` cannot iterate over", limits.range_limit))
            })?;
            let mut total = s.len().saturating_mul(items.len().saturating_sub(1));
            for item in items.iter() {
                let Some(text) = item.as_str() else {
                    return Err(invalid(format!(
                        "`join` joins strings, and an item is {}",
                        python_type(item)
                    )));
                };
                total = total.saturating_add(text.len());
            }
            check_string_size(total, limits)?;
            let mut out = TextBuf::with_capacity(total);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_string(value);
                }
                out.push_string(item);
            }
            Ok(out.into_value())
        }
        "format" => pyformat::str_format(value, s, &args.positional, &args.keywords, limits),
        "isdigit" | "isnumeric" | "isdecimal" | "isalpha" | "isalnum" | "isspace" | "islower"
        | "isupper" => {
            no_args(callee, args)?;
            let nonempty = !s.is_empty();
            let all = |f: fn(char) -> bool| nonempty && s.chars().all(f);
            let cased = s.chars().any(|c| c.is_lowercase() || c.is_uppercase());
            Ok(Value::from(match method {
                "isdigit" | "isnumeric" | "isdecimal" => all(|c| c.is_numeric()),
                "isalpha" => all(char::is_alphabetic),
                "isalnum" => all(char::is_alphanumeric),
                "isspace" => all(is_space),
                "islower" => cased && !s.chars().any(char::is_uppercase),
                _ => cased && !s.chars().any(char::is_lowercase),
            }))
        }
        "removeprefix" | "removesuffix" => {
            let [affix] = args.bind(callee, ["affix"])?;
            let affix = req_str(&affix, "the affix")?;
            let range = match method {
                "removeprefix" if s.starts_with(affix) => affix.len()..s.len(),
                "removesuffix" if s.ends_with(affix) => 0..s.len() - affix.len(),
                _ => 0..s.len(),
            };
            Ok(slice(value, s, range))
        }
        _ => Err(no_method(value, method)),
    }
}

/// The byte ranges Python's `str.split` (or `rsplit`) gives.
fn split_ranges(
    s: &str,
    sep: Option<&str>,
    max: Option<i64>,
    from_right: bool,
) -> Result<Vec<Range<usize>>, Error> {
    let max = max.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let Some(sep) = sep else {
        // Runs of whitespace; no empty items.
        let mut words: Vec<Range<usize>> = Vec::new();
        let mut start = None;
        for (i, c) in s.char_indices() {
            match (is_space(c), start) {
                (true, Some(st)) => {
                    words.push(st..i);
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(st) = start {
            words.push(st..s.len());
        }
        if words.len() > max.saturating_add(1) {
            if from_right {
                // The first piece keeps its inner whitespace, not its end.
                let cut = words.len() - max;
                let first = 0..words[cut - 1].end;
                return Ok(std::iter::once(first).chain(words[cut..].iter().cloned()).collect());
            }
            let rest = words[max].start..s.len();
            words.truncate(max);
            words.push(rest);
        }
        return Ok(words);
    };
    if sep.is_empty() {
        return Err(invalid("empty separator"));
    }
    let mut out = Vec::new();
    if from_right {
        let mut end = s.len();
        let mut found = 0;
        while found < max {
            let Some(at) = s[..end].rfind(sep) else { break };
            out.push(at + sep.len()..end);
            end = at;
            found += 1;
        }
        out.push(0..end);
        out.reverse();
    } else {
        let mut start = 0;
        let mut found = 0;
        while found < max {
            let Some(at) = s[start..].find(sep) else { break };
            out.push(start..start + at);
            start += at + sep.len();
            found += 1;
        }
        out.push(start..s.len());
    }
    Ok(out)
}
