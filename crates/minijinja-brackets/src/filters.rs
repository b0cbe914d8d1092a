//! The built-in filters (`value -> name(args)`).
//!
//! Adding one: a variant of [`BuiltinFilter`], its name(s) in
//! [`BuiltinFilter::lookup`], and its arm in [`apply`], binding arguments
//! with [`Args::bind`] so arity errors read the same everywhere. Filters
//! accept undefined values leniently (`upper` gives `""`, `length` 0).

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use crate::arguments::{Args, bad};
use crate::error::{Error, ErrorKind};
use crate::eval::ops::{self, check_string_size};
use crate::limits::Limits;
use crate::syntax::ast::BinOp;
use crate::value::{Repr, Value};

/// A built-in filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuiltinFilter {
    Upper,
    Lower,
    Capitalize,
    Title,
    Trim,
    Wrap,
    Default,
    Join,
    Length,
    First,
    Last,
    Reverse,
    Sort,
    Unique,
    Replace,
    Split,
    Int,
    Float,
    String,
    Bool,
    Round,
    Abs,
    Min,
    Max,
    Sum,
    Indent,
    Truncate,
    Wordcount,
    Tojson,
    Items,
    List,
}

/// Every built-in filter by name (aliases included).
pub(crate) const FILTERS: &[(&str, BuiltinFilter)] = &[
    ("upper", BuiltinFilter::Upper),
    ("lower", BuiltinFilter::Lower),
    ("capitalize", BuiltinFilter::Capitalize),
    ("title", BuiltinFilter::Title),
    ("trim", BuiltinFilter::Trim),
    ("wrap", BuiltinFilter::Wrap),
    ("default", BuiltinFilter::Default),
    ("d", BuiltinFilter::Default),
    ("join", BuiltinFilter::Join),
    ("length", BuiltinFilter::Length),
    ("count", BuiltinFilter::Length),
    ("first", BuiltinFilter::First),
    ("last", BuiltinFilter::Last),
    ("reverse", BuiltinFilter::Reverse),
    ("sort", BuiltinFilter::Sort),
    ("unique", BuiltinFilter::Unique),
    ("replace", BuiltinFilter::Replace),
    ("split", BuiltinFilter::Split),
    ("int", BuiltinFilter::Int),
    ("float", BuiltinFilter::Float),
    ("string", BuiltinFilter::String),
    ("bool", BuiltinFilter::Bool),
    ("round", BuiltinFilter::Round),
    ("abs", BuiltinFilter::Abs),
    ("min", BuiltinFilter::Min),
    ("max", BuiltinFilter::Max),
    ("sum", BuiltinFilter::Sum),
    ("indent", BuiltinFilter::Indent),
    ("truncate", BuiltinFilter::Truncate),
    ("wordcount", BuiltinFilter::Wordcount),
    ("tojson", BuiltinFilter::Tojson),
    ("items", BuiltinFilter::Items),
    ("list", BuiltinFilter::List),
];

impl BuiltinFilter {
    pub(crate) fn lookup(name: &str) -> Option<BuiltinFilter> {
        FILTERS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }
}

fn invalid(message: impl Into<std::string::String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message)
}

/// The value's text, as printed (undefined and none give `""`).
fn text(value: &Value) -> Cow<'_, str> {
    match &value.0 {
        Repr::Str(s) => Cow::Borrowed(s),
        _ => Cow::Owned(value.to_string()),
    }
}

/// The items of a list, the characters of a string, the keys of a map;
/// nothing for none and undefined.
fn items(value: &Value, filter: &str) -> Result<Arc<Vec<Value>>, Error> {
    Ok(match &value.0 {
        Repr::List(items) => items.clone(),
        Repr::Str(s) => Arc::new(s.chars().map(|c| Value::string(c.to_string())).collect()),
        Repr::Map(map) => Arc::new(map.keys().map(|k| Value(Repr::Str(k.clone()))).collect()),
        Repr::Undefined | Repr::None => Arc::new(Vec::new()),
        _ => {
            return Err(invalid(format!("`{filter}` needs a list, not {}", value.kind().as_str())));
        }
    })
}

fn int_arg(value: &Value, default: i64, filter: &str, name: &str) -> Result<i64, Error> {
    match value.0 {
        Repr::Undefined | Repr::None => Ok(default),
        Repr::Int(n) => Ok(n),
        _ => Err(bad(format!(
            "`{filter}`: `{name}` must be an integer, not {}",
            value.kind().as_str()
        ))),
    }
}

fn str_arg<'v>(value: &'v Value, filter: &str, name: &str) -> Result<Option<&'v str>, Error> {
    match &value.0 {
        Repr::Undefined | Repr::None => Ok(None),
        Repr::Str(s) => Ok(Some(s)),
        _ => Err(bad(format!(
            "`{filter}`: `{name}` must be a string, not {}",
            value.kind().as_str()
        ))),
    }
}

/// The item's `attribute` (a map key, or a list index in digits).
fn attribute(item: &Value, attribute: Option<&str>) -> Value {
    match attribute {
        None => item.clone(),
        Some(path) => path.split('.').fold(item.clone(), |v, part| match part.parse::<i64>() {
            Ok(n) => crate::eval::get_item(&v, &Value::from(n)).unwrap_or_default(),
            Err(_) => v.get(part).cloned().unwrap_or_default(),
        }),
    }
}

/// Parses a number from a string the way SillyTavern variables hold them.
fn parse_number(s: &str) -> Option<Value> {
    let s = s.trim();
    let clean: std::string::String = s.chars().filter(|&c| c != '_').collect();
    if let Ok(n) = clean.parse::<i64>() {
        return Some(Value::from(n));
    }
    clean.parse::<f64>().ok().filter(|x| x.is_finite()).map(Value::from)
}

/// Runs a built-in filter.
pub(crate) fn apply(
    filter: BuiltinFilter,
    value: Value,
    args: Args<'_>,
    limits: &Limits,
) -> Result<Value, Error> {
    use BuiltinFilter as F;
    let string = |s: std::string::String| -> Result<Value, Error> {
        check_string_size(s.len(), limits)?;
        Ok(Value::string(s))
    };
    match filter {
        F::Upper => {
            args.bind("filter `upper`", [])?;
            Ok(Value::string(text(&value).to_uppercase()))
        }
        F::Lower => {
            args.bind("filter `lower`", [])?;
            Ok(Value::string(text(&value).to_lowercase()))
        }
        F::Capitalize => {
            args.bind("filter `capitalize`", [])?;
            let t = text(&value);
            let mut chars = t.chars();
            Ok(Value::string(match chars.next() {
                Some(first) => {
                    first.to_uppercase().chain(chars.as_str().to_lowercase().chars()).collect()
                }
                None => std::string::String::new(),
            }))
        }
        F::Title => {
            args.bind("filter `title`", [])?;
            let mut out = std::string::String::new();
            let mut at_word_start = true;
            for c in text(&value).chars() {
                if at_word_start {
                    out.extend(c.to_uppercase())
                } else {
                    out.extend(c.to_lowercase())
                }
                at_word_start = c.is_whitespace() || matches!(c, '-' | '(' | '[' | '{' | '<');
            }
            Ok(Value::string(out))
        }
        F::Trim => {
            let [chars] = args.bind("filter `trim`", ["chars"])?;
            let t = text(&value);
            let trimmed = match str_arg(&chars, "trim", "chars")? {
                Some(set) => t.trim_matches(|c| set.contains(c)),
                None => t.trim(),
            };
            if trimmed.len() == t.len() && value.as_str().is_some() {
                // Nothing to trim: share the string instead of copying it.
                return Ok(value.clone());
            }
            Ok(Value::str(trimmed))
        }
        F::Wrap => {
            let [before, after] = args.bind("filter `wrap`", ["before", "after"])?;
            if before.is_undefined() {
                return Err(bad("filter `wrap` needs one or two arguments: `wrap(\"(\", \")\")`"));
            }
            let after = if after.is_undefined() { before.clone() } else { after };
            let t = text(&value);
            if t.is_empty()
                || matches!(&value.0, Repr::List(l) if l.is_empty())
                || matches!(&value.0, Repr::Map(m) if m.is_empty())
            {
                return Ok(Value::str(""));
            }
            string(format!("{}{t}{}", text(&before), text(&after)))
        }
        F::Default => {
            let [fallback, boolean] =
                args.bind("filter `default`", ["default_value", "boolean"])?;
            let use_fallback =
                value.is_none_or_undefined() || (boolean.is_true() && !value.is_true());
            Ok(if use_fallback {
                if fallback.is_undefined() { Value::str("") } else { fallback }
            } else {
                value
            })
        }
        F::Join => {
            let [sep, attr] = args.bind("filter `join`", ["d", "attribute"])?;
            let sep = str_arg(&sep, "join", "d")?.unwrap_or("");
            let attr = str_arg(&attr, "join", "attribute")?;
            let mut out = std::string::String::new();
            for (i, item) in items(&value, "join")?.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push_str(&text(&attribute(item, attr)));
                check_string_size(out.len(), limits)?;
            }
            Ok(Value::string(out))
        }
        F::Length => {
            args.bind("filter `length`", [])?;
            match &value.0 {
                Repr::List(items) => Ok(Value::from(items.len())),
                Repr::Map(map) => Ok(Value::from(map.len())),
                Repr::Str(s) => Ok(Value::from(s.chars().count())),
                Repr::Undefined | Repr::None => Ok(Value::from(0)),
                _ => Err(invalid(format!("{} has no length", value.kind().as_str()))),
            }
        }
        F::First | F::Last => {
            let name = if filter == F::First { "first" } else { "last" };
            args.bind(&format!("filter `{name}`"), [])?;
            let all = items(&value, name)?;
            let item = if filter == F::First { all.first() } else { all.last() };
            Ok(item.cloned().unwrap_or_default())
        }
        F::Reverse => {
            args.bind("filter `reverse`", [])?;
            match &value.0 {
                Repr::Str(s) => Ok(Value::string(s.chars().rev().collect())),
                _ => Ok(Value::list(items(&value, "reverse")?.iter().rev().cloned().collect())),
            }
        }
        F::Sort => {
            let [reverse, attr, case_sensitive] =
                args.bind("filter `sort`", ["reverse", "attribute", "case_sensitive"])?;
            let attr = str_arg(&attr, "sort", "attribute")?;
            let fold = !case_sensitive.is_true();
            let key = |v: &Value| {
                let k = attribute(v, attr);
                match (&k.0, fold) {
                    (Repr::Str(s), true) => Value::string(s.to_lowercase()),
                    _ => k,
                }
            };
            let mut keyed: Vec<(Value, Value)> =
                items(&value, "sort")?.iter().map(|v| (key(v), v.clone())).collect();
            let mut failed = None;
            keyed.sort_by(|a, b| {
                a.0.compare(&b.0).unwrap_or_else(|| {
                    failed.get_or_insert((a.0.kind(), b.0.kind()));
                    std::cmp::Ordering::Equal
                })
            });
            if let Some((a, b)) = failed {
                return Err(invalid(format!(
                    "cannot sort a list mixing {} and {}",
                    a.as_str(),
                    b.as_str()
                )));
            }
            if reverse.is_true() {
                keyed.reverse();
            }
            Ok(Value::list(keyed.into_iter().map(|(_, v)| v).collect()))
        }
        F::Unique => {
            args.bind("filter `unique`", [])?;
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for item in items(&value, "unique")?.iter() {
                let mut key = std::string::String::new();
                let normalized = match item.0 {
                    Repr::Float(x) if x.fract() == 0.0 && x.abs() < 9e15 => Value::from(x as i64),
                    _ => item.clone(),
                };
                normalized.write_json(&mut key, None, 0);
                if seen.insert(key) {
                    out.push(item.clone());
                }
            }
            Ok(Value::list(out))
        }
        F::Replace => {
            let [old, new, count] = args.bind("filter `replace`", ["old", "new", "count"])?;
            let (Some(old), Some(new)) =
                (str_arg(&old, "replace", "old")?, str_arg(&new, "replace", "new")?)
            else {
                return Err(bad("filter `replace` needs two strings: `replace(\"old\", \"new\")`"));
            };
            let t = text(&value);
            let count = int_arg(&count, -1, "replace", "count")?;
            let result = match usize::try_from(count) {
                Ok(n) => t.replacen(old, new, n),
                Err(_) if old.is_empty() => {
                    let estimate = t.len() + (t.chars().count() + 1) * new.len();
                    check_string_size(estimate, limits)?;
                    t.replace(old, new)
                }
                Err(_) => {
                    let estimate = t.len() + t.matches(old).count() * new.len();
                    check_string_size(estimate, limits)?;
                    t.replace(old, new)
                }
            };
            string(result)
        }
        F::Split => {
            let [sep, max] = args.bind("filter `split`", ["sep", "maxsplit"])?;
            let t = text(&value);
            let max = int_arg(&max, -1, "split", "maxsplit")?;
            let parts: Vec<Value> = match str_arg(&sep, "split", "sep")? {
                Some("") => return Err(bad("filter `split`: the separator cannot be empty")),
                Some(sep) => match usize::try_from(max) {
                    Ok(n) => t.splitn(n.saturating_add(1), sep).map(Value::str).collect(),
                    Err(_) => t.split(sep).map(Value::str).collect(),
                },
                None => t.split_whitespace().map(Value::str).collect(),
            };
            Ok(Value::list(parts))
        }
        F::Int => {
            let [default] = args.bind("filter `int`", ["default"])?;
            let default = if default.is_undefined() { Value::from(0) } else { default };
            let truncate = |x: f64| {
                if x.is_finite() && x.abs() < 9.2e18 {
                    Value::from(x.trunc() as i64)
                } else {
                    default.clone()
                }
            };
            Ok(match &value.0 {
                Repr::Int(_) => value,
                Repr::Float(x) => truncate(*x),
                Repr::Bool(b) => Value::from(i64::from(*b)),
                Repr::Str(s) => match parse_number(s) {
                    Some(Value(Repr::Int(n))) => Value::from(n),
                    Some(Value(Repr::Float(x))) => truncate(x),
                    _ => default,
                },
                _ => default,
            })
        }
        F::Float => {
            let [default] = args.bind("filter `float`", ["default"])?;
            let default = if default.is_undefined() { Value::from(0.0) } else { default };
            Ok(match &value.0 {
                Repr::Int(n) => Value::from(*n as f64),
                Repr::Float(_) => value,
                Repr::Bool(b) => Value::from(f64::from(u8::from(*b))),
                Repr::Str(s) => {
                    parse_number(s).and_then(|v| v.as_f64()).map_or(default, Value::from)
                }
                _ => default,
            })
        }
        F::String => {
            args.bind("filter `string`", [])?;
            Ok(match value.0 {
                Repr::Str(_) => value,
                _ => Value::string(text(&value).into_owned()),
            })
        }
        F::Bool => {
            args.bind("filter `bool`", [])?;
            Ok(Value::from(value.is_true()))
        }
        F::Round => {
            let [precision, method] = args.bind("filter `round`", ["precision", "method"])?;
            let precision = int_arg(&precision, 0, "round", "precision")?.clamp(-300, 300);
            let Some(x) = value.as_f64() else {
                return Err(invalid(format!(
                    "`round` needs a number, not {}",
                    value.kind().as_str()
                )));
            };
            let factor = 10f64.powi(precision as i32);
            let scaled = x * factor;
            let rounded = match str_arg(&method, "round", "method")?.unwrap_or("common") {
                "common" => scaled.round(),
                "ceil" => scaled.ceil(),
                "floor" => scaled.floor(),
                other => {
                    return Err(bad(format!(
                        "`round`: unknown method {other:?} (use common, ceil or floor)"
                    )));
                }
            };
            Ok(Value::from(rounded / factor))
        }
        F::Abs => {
            args.bind("filter `abs`", [])?;
            match value.0 {
                Repr::Int(n) => n
                    .checked_abs()
                    .map(Value::from)
                    .ok_or_else(|| invalid("integer overflow in `abs`")),
                Repr::Float(x) => Ok(Value::from(x.abs())),
                _ => Err(invalid(format!("`abs` needs a number, not {}", value.kind().as_str()))),
            }
        }
        F::Min | F::Max => {
            let name = if filter == F::Min { "min" } else { "max" };
            let [attr] = args.bind(&format!("filter `{name}`"), ["attribute"])?;
            let attr = str_arg(&attr, name, "attribute")?;
            let mut best: Option<(Value, Value)> = None;
            for item in items(&value, name)?.iter() {
                let key = attribute(item, attr);
                let better = match &best {
                    None => true,
                    Some((b, _)) => {
                        let order = key.compare(b).ok_or_else(|| {
                            invalid(format!(
                                "`{name}`: cannot compare {} and {}",
                                key.kind().as_str(),
                                b.kind().as_str()
                            ))
                        })?;
                        if filter == F::Min { order.is_lt() } else { order.is_gt() }
                    }
                };
                if better {
                    best = Some((key, item.clone()));
                }
            }
            Ok(best.map(|(_, v)| v).unwrap_or_default())
        }
        F::Sum => {
            let [attr, start] = args.bind("filter `sum`", ["attribute", "start"])?;
            let attr = str_arg(&attr, "sum", "attribute")?;
            let mut total = if start.is_undefined() { Value::from(0) } else { start };
            for item in items(&value, "sum")?.iter() {
                total = ops::binary(BinOp::Add, &total, &attribute(item, attr), limits)?;
            }
            Ok(total)
        }
        F::Indent => {
            let [width, first, blank] =
                args.bind("filter `indent`", ["width", "first", "blank"])?;
            let pad = match &width.0 {
                Repr::Str(s) => s.to_string(),
                _ => {
                    let n = int_arg(&width, 4, "indent", "width")?;
                    let n = usize::try_from(n).unwrap_or(0);
                    check_string_size(n, limits)?;
                    " ".repeat(n)
                }
            };
            let t = text(&value);
            let mut out = std::string::String::new();
            for (i, line) in t.split_inclusive('\n').enumerate() {
                let is_blank = line.trim().is_empty();
                if (i > 0 || first.is_true()) && (blank.is_true() || !is_blank) {
                    out.push_str(&pad);
                }
                out.push_str(line);
                check_string_size(out.len(), limits)?;
            }
            Ok(Value::string(out))
        }
        F::Truncate => {
            let [length, killwords, end, leeway] =
                args.bind("filter `truncate`", ["length", "killwords", "end", "leeway"])?;
            let length = usize::try_from(int_arg(&length, 255, "truncate", "length")?).unwrap_or(0);
            let leeway = usize::try_from(int_arg(&leeway, 5, "truncate", "leeway")?).unwrap_or(0);
            let end = str_arg(&end, "truncate", "end")?.unwrap_or("...");
            let t = text(&value);
            let count = t.chars().count();
            if count <= length.saturating_add(leeway) {
                return Ok(Value::string(t.into_owned()));
            }
            let keep = length.saturating_sub(end.chars().count());
            let cut: std::string::String = t.chars().take(keep).collect();
            let cut = if killwords.is_true() {
                cut.as_str()
            } else {
                cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head)
            };
            Ok(Value::string(format!("{cut}{end}")))
        }
        F::Wordcount => {
            args.bind("filter `wordcount`", [])?;
            let t = text(&value);
            let words = t
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .count();
            Ok(Value::from(words))
        }
        F::Tojson => {
            let [indent] = args.bind("filter `tojson`", ["indent"])?;
            let indent = match indent.0 {
                Repr::Undefined | Repr::None => None,
                Repr::Int(n) => Some(usize::try_from(n).unwrap_or(0).min(64)),
                _ => return Err(bad("`tojson`: `indent` must be an integer")),
            };
            let mut out = std::string::String::new();
            value.write_json(&mut out, Some(indent), 0);
            string(out)
        }
        F::Items => {
            args.bind("filter `items`", [])?;
            match &value.0 {
                Repr::Map(map) => Ok(Value::list(
                    map.iter()
                        .map(|(k, v)| Value::list(vec![Value(Repr::Str(k.clone())), v.clone()]))
                        .collect(),
                )),
                Repr::Undefined | Repr::None => Ok(Value::list(Vec::new())),
                _ => Err(invalid(format!("`items` needs a map, not {}", value.kind().as_str()))),
            }
        }
        F::List => {
            args.bind("filter `list`", [])?;
            Ok(Value::list(items(&value, "list")?.to_vec()))
        }
    }
}
