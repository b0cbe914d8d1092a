//! The values templates compute with, and how they print and compare.
//!
//! A [`Value`] is cheap to clone: strings, lists and maps are shared behind
//! `Arc`. Values come from the JSON stores (see [`Value::from_json`]) and go
//! back to JSON when a `set` persists them (see [`Value::to_json`]).

use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use indexmap::IndexMap;

use crate::error::{Error, ErrorKind};

/// An insertion-ordered map from string keys to values.
pub(crate) type ValueMap = IndexMap<Arc<str>, Value>;

/// A template value: string, integer, float, boolean, none, undefined, list,
/// map, or a macro.
///
/// Printing (`[[ v ]]`, `~`, `string`) follows the language's rules:
/// integral floats print without `.0`, booleans as `true`/`false`, none and
/// undefined as nothing, lists and maps as compact JSON.
///
/// ```
/// use minijinja_brackets::Value;
///
/// assert_eq!(Value::from(6.0).to_string(), "6");
/// assert_eq!(Value::from(vec![Value::from(1), Value::from("a")]).to_string(), r#"[1,"a"]"#);
/// assert!(!Value::from("").is_true());
/// ```
#[derive(Clone, Default)]
pub struct Value(pub(crate) Repr);

#[derive(Clone, Default)]
pub(crate) enum Repr {
    #[default]
    Undefined,
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Arc<str>),
    List(Arc<Vec<Value>>),
    Map(Arc<ValueMap>),
    /// A macro defined in the template, by name.
    Macro(Arc<str>),
}

/// The kind of a [`Value`], for hosts inspecting arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueKind {
    /// A missing variable or item.
    Undefined,
    /// `none` (JSON `null`).
    None,
    /// `true` or `false`.
    Bool,
    /// A 64-bit signed integer.
    Integer,
    /// A 64-bit float.
    Float,
    /// A string.
    String,
    /// A list.
    List,
    /// A map with string keys, in insertion order.
    Map,
    /// A macro defined in the template.
    Macro,
}

impl ValueKind {
    /// The name used in error messages: `string`, `integer`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            ValueKind::Undefined => "undefined",
            ValueKind::None => "none",
            ValueKind::Bool => "boolean",
            ValueKind::Integer => "integer",
            ValueKind::Float => "float",
            ValueKind::String => "string",
            ValueKind::List => "list",
            ValueKind::Map => "map",
            ValueKind::Macro => "macro",
        }
    }
}

impl Value {
    /// The undefined value (a missing variable).
    pub const UNDEFINED: Value = Value(Repr::Undefined);
    /// The `none` value.
    pub const NONE: Value = Value(Repr::None);

    pub(crate) fn str(s: &str) -> Value {
        Value(Repr::Str(Arc::from(s)))
    }

    pub(crate) fn string(s: String) -> Value {
        Value(Repr::Str(Arc::from(s)))
    }

    pub(crate) fn list(items: Vec<Value>) -> Value {
        Value(Repr::List(Arc::new(items)))
    }

    pub(crate) fn map(map: ValueMap) -> Value {
        Value(Repr::Map(Arc::new(map)))
    }

    /// The kind of this value.
    pub fn kind(&self) -> ValueKind {
        match &self.0 {
            Repr::Undefined => ValueKind::Undefined,
            Repr::None => ValueKind::None,
            Repr::Bool(_) => ValueKind::Bool,
            Repr::Int(_) => ValueKind::Integer,
            Repr::Float(_) => ValueKind::Float,
            Repr::Str(_) => ValueKind::String,
            Repr::List(_) => ValueKind::List,
            Repr::Map(_) => ValueKind::Map,
            Repr::Macro(_) => ValueKind::Macro,
        }
    }

    /// Whether the value is undefined.
    pub fn is_undefined(&self) -> bool {
        matches!(self.0, Repr::Undefined)
    }

    /// Whether the value is none or undefined.
    pub fn is_none_or_undefined(&self) -> bool {
        matches!(self.0, Repr::Undefined | Repr::None)
    }

    /// Truthiness: `false`, `0`, `0.0`, `""`, empty lists and maps, none and
    /// undefined are false; everything else is true.
    pub fn is_true(&self) -> bool {
        match &self.0 {
            Repr::Undefined | Repr::None => false,
            Repr::Bool(b) => *b,
            Repr::Int(n) => *n != 0,
            Repr::Float(f) => *f != 0.0,
            Repr::Str(s) => !s.is_empty(),
            Repr::List(l) => !l.is_empty(),
            Repr::Map(m) => !m.is_empty(),
            Repr::Macro(_) => true,
        }
    }

    /// The string, when the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, when the value is one (an integral float is not).
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            Repr::Int(n) => Some(n),
            _ => None,
        }
    }

    /// The number as a float, when the value is an integer or a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self.0 {
            Repr::Int(n) => Some(n as f64),
            Repr::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The items, when the value is a list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match &self.0 {
            Repr::List(l) => Some(l),
            _ => None,
        }
    }

    /// The item under `key`, when the value is a map holding it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            // Small maps (most template data) are faster to scan than hash.
            Repr::Map(m) if m.len() <= 8 => m.iter().find(|(k, _)| &***k == key).map(|(_, v)| v),
            Repr::Map(m) => m.get(key),
            _ => None,
        }
    }

    /// The keys and values, in order, when the value is a map.
    pub fn entries(&self) -> Option<impl Iterator<Item = (&str, &Value)>> {
        match &self.0 {
            Repr::Map(m) => Some(m.iter().map(|(k, v)| (&**k, v))),
            _ => None,
        }
    }

    /// The value read from JSON: `null` is none, integral numbers that fit
    /// in 64 bits are integers, other numbers floats, arrays lists and
    /// objects maps (key order kept).
    pub fn from_json(json: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match json {
            J::Null => Value::NONE,
            J::Bool(b) => Value(Repr::Bool(*b)),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value(Repr::Int(i)),
                None => Value(Repr::Float(n.as_f64().unwrap_or(f64::NAN))),
            },
            J::String(s) => Value::str(s),
            J::Array(items) => Value::list(items.iter().map(Value::from_json).collect()),
            J::Object(map) => Value::map(
                map.iter().map(|(k, v)| (Arc::from(k.as_str()), Value::from_json(v))).collect(),
            ),
        }
    }

    /// The value as JSON.
    ///
    /// # Errors
    ///
    /// An `invalid_operation` error when the value (or an item inside it)
    /// has no JSON form: undefined, a macro, a float that is not finite.
    pub fn to_json(&self) -> Result<serde_json::Value, Error> {
        match self.unstorable() {
            Some(why) => Err(Error::new(ErrorKind::InvalidOperation, why)),
            None => Ok(self.json()),
        }
    }

    /// Why the value cannot be stored as JSON, if it cannot.
    pub(crate) fn unstorable(&self) -> Option<&'static str> {
        match &self.0 {
            Repr::Undefined => Some("an undefined value cannot be stored"),
            Repr::Macro(_) => Some("a macro cannot be stored"),
            Repr::Float(x) if !x.is_finite() => Some("a float that is not finite cannot be stored"),
            Repr::List(items) => items.iter().find_map(Value::unstorable),
            Repr::Map(map) => map.values().find_map(Value::unstorable),
            _ => None,
        }
    }

    /// The JSON form; values without one (see [`Value::unstorable`]) become
    /// `null`.
    pub(crate) fn json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.0 {
            Repr::Undefined | Repr::Macro(_) | Repr::None => J::Null,
            Repr::Bool(b) => J::Bool(*b),
            Repr::Int(n) => J::from(*n),
            Repr::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Repr::Str(s) => J::String(s.to_string()),
            Repr::List(items) => J::Array(items.iter().map(Value::json).collect()),
            Repr::Map(map) => {
                J::Object(map.iter().map(|(k, v)| (k.to_string(), v.json())).collect())
            }
        }
    }

    /// Whether lists and maps nest more than `limit` levels deep. Visits at
    /// most `limit` levels; adds the number of items looked at to `visited`
    /// (callers charge fuel for it).
    pub(crate) fn nests_deeper_than(&self, limit: usize, visited: &mut usize) -> bool {
        let deeper = |item: &Value| {
            *visited += 1;
            item.nests_deeper_than(limit - 1, visited)
        };
        match &self.0 {
            Repr::List(_) | Repr::Map(_) if limit == 0 => true,
            Repr::List(items) => items.iter().any(deeper),
            Repr::Map(map) => map.values().any(deeper),
            _ => false,
        }
    }

    /// Orders two numbers numerically or two strings by code point; `None`
    /// for any other pair (and for NaN).
    pub(crate) fn compare(&self, other: &Value) -> Option<Ordering> {
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => Some(a.cmp(b)),
            (Repr::Str(a), Repr::Str(b)) => Some(a.cmp(b)),
            _ => self.as_f64()?.partial_cmp(&other.as_f64()?),
        }
    }

    /// Writes the value as JSON. `pretty` is `None` for the compact print
    /// form (`[1,"a"]`), `Some(None)` for `tojson`'s spaced single line
    /// (`[1, "a"]`) and `Some(Some(n))` for `n`-space indentation.
    pub(crate) fn write_json(&self, out: &mut String, pretty: Option<Option<usize>>, level: usize) {
        let (item_sep, key_sep) = match pretty {
            None => (",", ":"),
            Some(None) => (", ", ": "),
            Some(Some(_)) => (",", ": "),
        };
        let newline = |out: &mut String, level: usize| {
            if let Some(Some(width)) = pretty {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', width * level));
            }
        };
        match &self.0 {
            Repr::Undefined | Repr::None | Repr::Macro(_) => out.push_str("null"),
            Repr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Repr::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Repr::Float(f) => match serde_json::Number::from_f64(*f) {
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => out.push_str("null"),
            },
            Repr::Str(s) => write_json_string(out, s),
            Repr::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item_sep);
                    }
                    newline(out, level + 1);
                    item.write_json(out, pretty, level + 1);
                }
                if !items.is_empty() {
                    newline(out, level);
                }
                out.push(']');
            }
            Repr::Map(map) => {
                out.push('{');
                for (i, (key, value)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item_sep);
                    }
                    newline(out, level + 1);
                    write_json_string(out, key);
                    out.push_str(key_sep);
                    value.write_json(out, pretty, level + 1);
                }
                if !map.is_empty() {
                    newline(out, level);
                }
                out.push('}');
            }
        }
    }
}

/// A JSON string literal: quotes, backslashes and control characters
/// escaped, everything else (non-ASCII included) kept as is.
fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Structural equality: an integer equals the float of the same value;
/// different kinds are unequal; lists and maps compare item by item.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (&self.0, &other.0) {
            (Repr::Undefined, Repr::Undefined) | (Repr::None, Repr::None) => true,
            (Repr::Bool(a), Repr::Bool(b)) => a == b,
            (Repr::Int(a), Repr::Int(b)) => a == b,
            (Repr::Int(_) | Repr::Float(_), Repr::Int(_) | Repr::Float(_)) => {
                self.as_f64() == other.as_f64()
            }
            (Repr::Str(a), Repr::Str(b)) | (Repr::Macro(a), Repr::Macro(b)) => a == b,
            (Repr::List(a), Repr::List(b)) => a == b,
            (Repr::Map(a), Repr::Map(b)) => a == b,
            _ => false,
        }
    }
}

/// The print form (see the type docs).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Undefined | Repr::None => Ok(()),
            Repr::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            Repr::Int(n) => write!(f, "{n}"),
            Repr::Float(x) => write_float(f, *x),
            Repr::Str(s) => f.write_str(s),
            Repr::Macro(name) => write!(f, "<macro {name}>"),
            Repr::List(_) | Repr::Map(_) => {
                let mut out = String::new();
                self.write_json(&mut out, None, 0);
                f.write_str(&out)
            }
        }
    }
}

/// Shortest round-trip decimal; integral floats without `.0`; very large or
/// very small magnitudes in exponent form (`1e21`, `1e-7`).
fn write_float(f: &mut fmt::Formatter<'_>, x: f64) -> fmt::Result {
    let magnitude = x.abs();
    if x.is_finite() && x != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        write!(f, "{x:e}")
    } else if x == 0.0 {
        f.write_str(if x.is_sign_negative() { "-0" } else { "0" })
    } else {
        write!(f, "{x}")
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Undefined => f.write_str("undefined"),
            Repr::None => f.write_str("none"),
            Repr::Str(s) => write!(f, "{s:?}"),
            Repr::Macro(name) => write!(f, "<macro {name}>"),
            _ => fmt::Display::fmt(self, f),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value(Repr::Bool(b))
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value(Repr::Int(n))
    }
}

impl From<i32> for Value {
    fn from(n: i32) -> Value {
        Value(Repr::Int(n.into()))
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        i64::try_from(n).map_or(Value(Repr::Float(n as f64)), Value::from)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value(Repr::Float(x))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::str(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::string(s)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Value {
        Value::list(items)
    }
}

impl FromIterator<(String, Value)> for Value {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Value {
        Value::map(iter.into_iter().map(|(k, v)| (Arc::from(k), v)).collect())
    }
}

impl From<&serde_json::Value> for Value {
    fn from(json: &serde_json::Value) -> Value {
        Value::from_json(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing_rules() {
        let cases: [(Value, &str); 8] = [
            (Value::from(2.0), "2"),
            (Value::from(0.25), "0.25"),
            (Value::from(1e21), "1e21"),
            (Value::from(true), "true"),
            (Value::NONE, ""),
            (Value::UNDEFINED, ""),
            (
                Value::from_json(&serde_json::json!({"a": [1, null, "x\"y"]})),
                r#"{"a":[1,null,"x\"y"]}"#,
            ),
            (Value::from(-0.0), "-0"),
        ];
        for (value, printed) in cases {
            assert_eq!(value.to_string(), printed, "{value:?}");
        }
    }

    #[test]
    fn equality_and_order() {
        assert_eq!(Value::from(1), Value::from(1.0));
        assert_ne!(Value::from(1), Value::from("1"));
        assert_eq!(Value::from("b").compare(&Value::from("a")), Some(Ordering::Greater));
        assert_eq!(Value::from(1).compare(&Value::from(1.5)), Some(Ordering::Less));
        assert_eq!(Value::from(1).compare(&Value::from("1")), None);
    }

    #[test]
    fn json_round_trip_keeps_kinds_and_order() {
        let json = serde_json::json!({"z": 1, "a": [2.5, true, null], "m": {"k": "v"}});
        let value = Value::from_json(&json);
        assert_eq!(value.to_json(), Ok(json));
        let err = Value::from(vec![Value::from(1), Value::UNDEFINED]).to_json().unwrap_err();
        assert_eq!(err.message(), "an undefined value cannot be stored");
        assert!(Value::UNDEFINED.to_json().is_err());
        assert!(Value::from(f64::INFINITY).to_json().is_err());
    }

    #[test]
    fn tojson_layouts() {
        let value = Value::from_json(&serde_json::json!({"a": 1, "b": [true, null]}));
        let mut spaced = String::new();
        value.write_json(&mut spaced, Some(None), 0);
        assert_eq!(spaced, r#"{"a": 1, "b": [true, null]}"#);
        let mut indented = String::new();
        value.write_json(&mut indented, Some(Some(2)), 0);
        assert_eq!(indented, "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}");
    }
}
