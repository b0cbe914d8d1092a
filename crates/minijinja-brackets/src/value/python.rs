//! Python's printing, for the Jinja2 profile: `str()` of a value (`True`,
//! `None`, `2.0`, `['a', 1]`, `{'a': 1}`) and `json.dumps` (transformers'
//! `tojson`).
//!
//! Which printing a render uses is a property of the render, set for its
//! duration with [`PythonPrinting`]: every conversion of a value to text
//! (`{{ }}`, `~`, `string`, `join`, ...) reads it through
//! [`Value`]'s `Display` and [`Value::write_printed`], so no call site
//! chooses.

use std::cell::Cell;
use std::fmt::Write as _;

use super::{ListKind, Repr, TooLong, Value};

thread_local! {
    static PYTHON: Cell<bool> = const { Cell::new(false) };
}

/// Whether values print as Python prints them on this thread now.
pub(crate) fn python() -> bool {
    PYTHON.with(Cell::get)
}

/// Python printing on this thread while it lives (a render of the Jinja2
/// profile); the previous choice is restored when it is dropped, so a
/// render nested in a host callback keeps its own.
pub(crate) struct PythonPrinting(bool);

impl PythonPrinting {
    pub(crate) fn set(on: bool) -> PythonPrinting {
        PythonPrinting(PYTHON.with(|p| p.replace(on)))
    }
}

impl Drop for PythonPrinting {
    fn drop(&mut self) {
        let previous = self.0;
        PYTHON.with(|p| p.set(previous));
    }
}

/// Checks that `out` stays within `max` bytes.
fn bounded(out: &str, max: usize) -> Result<(), TooLong> {
    if out.len() > max { Err(TooLong) } else { Ok(()) }
}

/// Python's `repr(float)`: the shortest round-trip digits, positional for
/// decimal exponents from -4 to 15 (`0.0001`, `1e+16`), always with a
/// fraction or an exponent (`2.0`, `1e-05`).
pub(crate) fn write_float(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x < 0.0 { "-inf" } else { "inf" });
        return;
    }
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // `{:e}` gives the shortest round-trip digits: `-1.2345e-5`.
    let sci = format!("{x:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if negative {
        out.push('-');
    }
    if (-4..16).contains(&exponent) {
        if exponent < 0 {
            out.push_str("0.");
            for _ in 0..(-exponent - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let whole = usize::try_from(exponent).unwrap_or(0) + 1;
            if digits.len() <= whole {
                out.push_str(&digits);
                for _ in digits.len()..whole {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..whole]);
                out.push('.');
                out.push_str(&digits[whole..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    }
}

/// Python's `str(value)`: a string as it is, `True`/`False`, `None`,
/// floats by [`write_float`], lists and maps by their `repr`; undefined
/// prints nothing (Jinja2's `Undefined`).
pub(crate) fn write_str(value: &Value, out: &mut String, max: usize) -> Result<(), TooLong> {
    match &value.0 {
        Repr::Undefined => Ok(()),
        Repr::Str(_) | Repr::Text(_) => {
            let s = value.as_str().unwrap_or_default();
            if out.len().saturating_add(s.len()) > max {
                return Err(TooLong);
            }
            out.push_str(s);
            Ok(())
        }
        Repr::Module(m) => write_str(&m.output, out, max),
        _ => write_repr(value, out, max),
    }
}

/// Python's `repr(value)`, bounded by `max` bytes as it is written.
pub(crate) fn write_repr(value: &Value, out: &mut String, max: usize) -> Result<(), TooLong> {
    match &value.0 {
        Repr::Undefined => {}
        Repr::None => out.push_str("None"),
        Repr::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Repr::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Repr::Float(x) => write_float(out, *x),
        Repr::Str(_) | Repr::Text(_) => write_quoted(value.as_str().unwrap_or_default(), out, max)?,
        Repr::List(items) => {
            let (open, close) = match items.kind() {
                ListKind::Generator => {
                    out.push_str("<generator object>");
                    return bounded(out, max);
                }
                ListKind::List => ("[", "]"),
                ListKind::Tuple => ("(", ")"),
                ListKind::DictView(view) => {
                    out.push_str(view.type_name());
                    ("([", "])")
                }
            };
            out.push_str(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out, max)?;
            }
            // A tuple of one item: `(1,)`.
            if items.kind() == ListKind::Tuple && items.len() == 1 {
                out.push(',');
            }
            out.push_str(close);
        }
        Repr::Map(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if map.int_keys() {
                    out.push_str(key);
                } else {
                    write_quoted(key, out, max)?;
                }
                out.push_str(": ");
                write_repr(item, out, max)?;
            }
            out.push('}');
        }
        Repr::Callable(c) => out.push_str(&c.shown()),
        Repr::Module(m) => write_repr(&m.output, out, max)?,
    }
    bounded(out, max)
}

/// A string as Python's `repr` quotes it: single quotes unless the text has
/// a single quote and no double quote; `\\`, the quote, `\n`, `\r`, `\t`
/// and other control characters escaped.
fn write_quoted(s: &str, out: &mut String, max: usize) -> Result<(), TooLong> {
    if out.len().saturating_add(s.len()) > max {
        return Err(TooLong);
    }
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if ('\u{80}'..='\u{a0}').contains(&c) || c == '\u{ad}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    bounded(out, max)
}

/// The options of `json.dumps` that transformers' `tojson` passes on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dumps {
    pub(crate) ensure_ascii: bool,
    /// `None`: one line; `Some(text)`: one item per line, indented by
    /// `text` per level (an integer `n` is `n` spaces).
    pub(crate) indent: Option<String>,
    /// `(item, key)`; by default `(", ", ": ")`, or `(",", ": ")` with an
    /// indent.
    pub(crate) separators: Option<(String, String)>,
    pub(crate) sort_keys: bool,
}

/// `json.dumps(value, ...)`, bounded by `max` bytes as it is written.
pub(crate) fn write_dumps(
    value: &Value,
    options: &Dumps,
    out: &mut String,
    max: usize,
) -> Result<(), String> {
    let (item, key) = match &options.separators {
        Some((item, key)) => (item.as_str(), key.as_str()),
        None if options.indent.is_some() => (",", ": "),
        None => (", ", ": "),
    };
    let mut writer = DumpsWriter { options, item, key, out, max };
    writer.value(value, 0)
}

struct DumpsWriter<'o> {
    options: &'o Dumps,
    item: &'o str,
    key: &'o str,
    out: &'o mut String,
    max: usize,
}

impl DumpsWriter<'_> {
    fn check(&self) -> Result<(), String> {
        if self.out.len() > self.max {
            Err(format!("the JSON text would exceed the limit of {} bytes", self.max))
        } else {
            Ok(())
        }
    }

    fn newline(&mut self, level: usize) -> Result<(), String> {
        if let Some(indent) = &self.options.indent {
            self.out.push('\n');
            if self.out.len().saturating_add(indent.len().saturating_mul(level)) > self.max {
                return Err(format!("the JSON text would exceed the limit of {} bytes", self.max));
            }
            for _ in 0..level {
                self.out.push_str(indent);
            }
        }
        Ok(())
    }

    fn value(&mut self, value: &Value, level: usize) -> Result<(), String> {
        match &value.0 {
            Repr::None => self.out.push_str("null"),
            Repr::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Repr::Int(n) => {
                let _ = write!(self.out, "{n}");
            }
            Repr::Float(x) if x.is_nan() => self.out.push_str("NaN"),
            Repr::Float(x) if x.is_infinite() => {
                self.out.push_str(if *x < 0.0 { "-Infinity" } else { "Infinity" })
            }
            Repr::Float(x) => write_float(self.out, *x),
            Repr::Str(_) | Repr::Text(_) => self.string(value.as_str().unwrap_or_default())?,
            Repr::List(items) if items.is_generator() => {
                return Err("Object of type generator is not JSON serializable".into());
            }
            Repr::List(items) if let ListKind::DictView(view) = items.kind() => {
                return Err(format!(
                    "Object of type {} is not JSON serializable",
                    view.type_name()
                ));
            }
            Repr::List(items) => {
                if items.is_empty() {
                    self.out.push_str("[]");
                    return Ok(());
                }
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(self.item);
                    }
                    self.newline(level + 1)?;
                    self.value(item, level + 1)?;
                }
                self.newline(level)?;
                self.out.push(']');
            }
            Repr::Map(map) => {
                if map.is_empty() {
                    self.out.push_str("{}");
                    return Ok(());
                }
                let mut entries: Vec<_> = map.iter().collect();
                if self.options.sort_keys {
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                }
                self.out.push('{');
                for (i, (key, item)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(self.item);
                    }
                    self.newline(level + 1)?;
                    self.string(key)?;
                    self.out.push_str(self.key);
                    self.value(item, level + 1)?;
                }
                self.newline(level)?;
                self.out.push('}');
            }
            Repr::Undefined => {
                return Err("Object of type Undefined is not JSON serializable".into());
            }
            Repr::Callable(_) | Repr::Module(_) => {
                return Err(format!("{} is not JSON serializable", value.kind().as_str()));
            }
        }
        self.check()
    }

    /// A JSON string as Python's `json` writes it: `"`, `\\`, `\n`, `\r`,
    /// `\t`, `\b`, `\f` and other control characters escaped; with
    /// `ensure_ascii`, every non-ASCII character as `\uXXXX` (UTF-16).
    fn string(&mut self, s: &str) -> Result<(), String> {
        if self.out.len().saturating_add(s.len()) > self.max {
            return Err(format!("the JSON text would exceed the limit of {} bytes", self.max));
        }
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c if self.options.ensure_ascii && !c.is_ascii() => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        let _ = write!(self.out, "\\u{unit:04x}");
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
        self.check()
    }
}

/// Python's `str.isspace` characters, as `split()` and `strip()` use them.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The bytes of `s` Python's `str.strip(chars)` keeps (`lstrip` without
/// `right`, `rstrip` without `left`): `chars` as a set, or whitespace
/// ([`is_space`]) when `None`.
pub(crate) fn strip_range(
    s: &str,
    chars: Option<&str>,
    left: bool,
    right: bool,
) -> std::ops::Range<usize> {
    let strip = |c: char| match chars {
        Some(set) => set.contains(c),
        None => is_space(c),
    };
    let start = if left { s.len() - s.trim_start_matches(strip).len() } else { 0 };
    let end = if right { s.trim_end_matches(strip).len() } else { s.len() };
    start..end.max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> String {
        let mut out = String::new();
        write_float(&mut out, x);
        out
    }

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (2.0, "2.0"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (-2.5, "-2.5"),
            (1.5e300, "1.5e+300"),
            (123.456, "123.456"),
            (-0.0, "-0.0"),
        ];
        for (x, python) in cases {
            assert_eq!(float(x), python, "{x}");
        }
    }

    #[test]
    fn repr_escapes_c1_controls_as_python() {
        let mut out = String::new();
        let list = Value::list(vec![Value::str("a\u{85}b\u{9b}"), Value::str("\u{7f}\u{1}")]);
        write_repr(&list, &mut out, usize::MAX).unwrap();
        // python3 -c "print(repr(['a\x85b\x9b', '\x7f\x01']))"
        assert_eq!(out, r"['a\x85b\x9b', '\x7f\x01']");
    }

    #[test]
    fn repr_quotes_as_python() {
        let mut out = String::new();
        let list = Value::list(vec![
            Value::str("a"),
            Value::from(1),
            Value::NONE,
            Value::str("it's"),
            Value::from(true),
            Value::str("x\n\"'"),
        ]);
        write_repr(&list, &mut out, usize::MAX).unwrap();
        assert_eq!(out, r#"['a', 1, None, "it's", True, 'x\n"\'']"#);
    }

    #[test]
    fn dumps_matches_json_dumps() {
        let map: super::super::ValueMap = [
            (std::sync::Arc::from("b"), Value::str("é\"")),
            (std::sync::Arc::from("a"), Value::list(vec![Value::from(1.0), Value::NONE])),
        ]
        .into_iter()
        .collect();
        let value = Value::map(map);
        let dumps = |options: Dumps| {
            let mut out = String::new();
            write_dumps(&value, &options, &mut out, usize::MAX).unwrap();
            out
        };
        assert_eq!(dumps(Dumps::default()), r#"{"b": "é\"", "a": [1.0, null]}"#);
        let ascii = Dumps { ensure_ascii: true, sort_keys: true, ..Dumps::default() };
        assert_eq!(dumps(ascii), r#"{"a": [1.0, null], "b": "\u00e9\""}"#);
        let indented = Dumps { indent: Some("  ".into()), ..Dumps::default() };
        assert_eq!(
            dumps(indented),
            "{\n  \"b\": \"é\\\"\",\n  \"a\": [\n    1.0,\n    null\n  ]\n}"
        );
    }
}
