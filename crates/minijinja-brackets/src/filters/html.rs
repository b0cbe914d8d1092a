//! The filters that quote text for another language: `escape`/`e` (HTML),
//! `safe` (marks text as already escaped), `urlencode` and `pprint`.
//!
//! The language never escapes on its own (a prompt is not HTML); these
//! are for a template that writes HTML on purpose. `escape` keeps the
//! provenance of what it escapes: an authored byte's entity is authored,
//! a data byte's entity is data.

use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Arc;

use super::text;
use crate::arguments::Arguments;
use crate::error::Error;
use crate::limits::Limits;
use crate::value::ops::{check_string_size, string_too_long};
use crate::value::text::{Text, escape_html, escaped_len};
use crate::value::{Repr, Value};

/// All of a string of `len` bytes as one data piece (none when empty).
fn all_data(len: usize) -> Vec<Range<usize>> {
    std::iter::once(0..len).filter(|r| !r.is_empty()).collect()
}

/// Appends `s` HTML-escaped to `out` (the one escaping of the crate,
/// shared with `autoescape`), refused before it is built when the result
/// would pass the string limit.
fn push_escaped(out: &mut String, s: &str, limits: &Limits) -> Result<(), Error> {
    check_string_size(out.len().saturating_add(escaped_len(s)), limits)?;
    escape_html(s, out);
    Ok(())
}

/// The value HTML-escaped, marked as escaped, with its provenance kept
/// (see the module docs); a value already marked is returned as it is.
fn html_escape(value: &Value, limits: &Limits) -> Result<Value, Error> {
    let (source, data): (std::borrow::Cow<'_, str>, Vec<Range<usize>>) = match &value.0 {
        Repr::Text(t) if t.is_safe() => return Ok(value.clone()),
        Repr::Text(t) => (t.as_str().into(), t.data().to_vec()),
        _ => {
            let printed = text(value, limits)?;
            let all = all_data(printed.len());
            (printed, all)
        }
    };
    let mut out = String::with_capacity(source.len());
    let mut mapped = Vec::with_capacity(data.len());
    let mut at = 0;
    for range in &data {
        push_escaped(&mut out, &source[at..range.start], limits)?;
        let start = out.len();
        push_escaped(&mut out, &source[range.clone()], limits)?;
        mapped.push(start..out.len());
        at = range.end;
    }
    push_escaped(&mut out, &source[at..], limits)?;
    Ok(Value(Repr::Text(Arc::new(Text::safe(Arc::from(out), mapped.into())))))
}

/// Whether the value is text marked as already HTML-escaped.
#[inline]
pub(crate) fn is_safe(value: &Value) -> bool {
    matches!(&value.0, Repr::Text(t) if t.is_safe())
}

/// The `escape` filter (and `e`).
pub(crate) fn escape(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `escape`", [])?;
    html_escape(&value, limits)
}

/// The `safe` filter: the text marked as already HTML-escaped, so that
/// `escape` and `autoescape` leave it alone; its provenance is kept.
pub(crate) fn safe(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `safe`", [])?;
    marked_safe(value, limits)
}

/// `value` as text marked as already HTML-escaped, its provenance kept (a
/// value that is not a string is printed first, within `limits`).
pub(crate) fn marked_safe(value: Value, limits: &Limits) -> Result<Value, Error> {
    let (source, data): (Arc<str>, Box<[Range<usize>]>) = match &value.0 {
        Repr::Text(t) if t.is_safe() => return Ok(value),
        Repr::Text(t) => (t.shared().clone(), t.data().into()),
        Repr::Str(s) => (s.clone(), all_data(s.len()).into()),
        _ => {
            let printed = text(&value, limits)?.into_owned();
            let all = all_data(printed.len()).into();
            (Arc::from(printed), all)
        }
    };
    Ok(Value(Repr::Text(Arc::new(Text::safe(source, data)))))
}

/// The bytes `urlencode` keeps (minijinja's set: letters, digits, `/`,
/// `.`, `-`, `_`).
fn url_safe(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'/' | b'.' | b'-' | b'_')
}

/// Appends `s` percent-encoded, refused past the string limit.
fn push_url(out: &mut String, s: &str, limits: &Limits) -> Result<(), Error> {
    for byte in s.bytes() {
        if url_safe(byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
        if out.len() > limits.string_limit {
            return Err(string_too_long(limits)(crate::value::TooLong));
        }
    }
    Ok(())
}

/// The `urlencode` filter: a map as a query string (`a=x%20y&b=2`,
/// none and undefined values left out), anything else its printed text
/// percent-encoded.
pub(crate) fn urlencode(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `urlencode`", [])?;
    let mut out = String::new();
    match value.entries() {
        Some(entries) => {
            for (key, v) in entries {
                if v.is_none_or_undefined() {
                    continue;
                }
                if !out.is_empty() {
                    out.push('&');
                }
                push_url(&mut out, key, limits)?;
                out.push('=');
                push_url(&mut out, &text(v, limits)?, limits)?;
            }
        }
        None => push_url(&mut out, &text(&value, limits)?, limits)?,
    }
    Ok(Value::string(out))
}

/// Writes minijinja's `pprint` form (Rust's pretty `Debug` of its values:
/// Python-like literals, four spaces a level, a comma after every item).
struct Pretty<'o> {
    out: &'o mut String,
    max: usize,
}

impl Pretty<'_> {
    fn push(&mut self, s: &str) -> Result<(), crate::value::TooLong> {
        if self.out.len().saturating_add(s.len()) > self.max {
            return Err(crate::value::TooLong);
        }
        self.out.push_str(s);
        Ok(())
    }

    fn indent(&mut self, level: usize) -> Result<(), crate::value::TooLong> {
        for _ in 0..level {
            self.push("    ")?;
        }
        Ok(())
    }

    fn string(&mut self, s: &str) -> Result<(), crate::value::TooLong> {
        let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
        let mut quoted = String::with_capacity(s.len() + 2);
        quoted.push(quote);
        for c in s.chars() {
            match c {
                '\\' => quoted.push_str("\\\\"),
                '\n' => quoted.push_str("\\n"),
                '\r' => quoted.push_str("\\r"),
                '\t' => quoted.push_str("\\t"),
                c if c == quote => {
                    quoted.push('\\');
                    quoted.push(c);
                }
                c if c.is_control() => {
                    let code = c as u32;
                    let _ = match code {
                        0..=0xff => write!(quoted, "\\x{code:02x}"),
                        0x100..=0xffff => write!(quoted, "\\u{code:04x}"),
                        _ => write!(quoted, "\\U{code:08x}"),
                    };
                }
                c => quoted.push(c),
            }
            if quoted.len() > self.max {
                return Err(crate::value::TooLong);
            }
        }
        quoted.push(quote);
        self.push(&quoted)
    }

    fn value(&mut self, value: &Value, level: usize) -> Result<(), crate::value::TooLong> {
        match &value.0 {
            Repr::Undefined => self.push("undefined"),
            Repr::None => self.push("None"),
            Repr::Bool(b) => self.push(if *b { "True" } else { "False" }),
            Repr::Int(n) => self.push(&n.to_string()),
            Repr::Float(x) => self.push(&format!("{x:?}")),
            Repr::Str(_) | Repr::Text(_) => self.string(value.as_str().unwrap_or_default()),
            Repr::Callable(c) => self.push(&c.shown()),
            Repr::Module(_) => self.push("<module>"),
            Repr::List(items) if items.is_empty() => self.push("[]"),
            Repr::Map(map) if map.is_empty() => self.push("{}"),
            Repr::List(items) => {
                self.push("[\n")?;
                for item in items.iter() {
                    self.indent(level + 1)?;
                    self.value(item, level + 1)?;
                    self.push(",\n")?;
                }
                self.indent(level)?;
                self.push("]")
            }
            Repr::Map(map) => {
                self.push("{\n")?;
                for (key, item) in map.iter() {
                    self.indent(level + 1)?;
                    self.string(key)?;
                    self.push(": ")?;
                    self.value(item, level + 1)?;
                    self.push(",\n")?;
                }
                self.indent(level)?;
                self.push("}")
            }
        }
    }
}

/// The `pprint` filter: the value pretty-printed as minijinja prints it.
pub(crate) fn pprint(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `pprint`", [])?;
    let mut out = String::new();
    Pretty { out: &mut out, max: limits.string_limit }
        .value(&value, 0)
        .map_err(string_too_long(limits))?;
    Ok(Value::string(out))
}
