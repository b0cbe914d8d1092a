//! The built-in tests (`value is name(args)`, `value is not name`), each a
//! function of the one signature every test has, with the name the
//! template wrote (aliases included) for its messages; `defaults.rs`
//! registers them.

use crate::arguments::{Arguments, bad};
use crate::callable::Registry;
use crate::error::{Error, ErrorKind};
use crate::value::ops::{self, CmpOp};
use crate::value::{Repr, Value};

fn integer(value: &Value, test: &str) -> Result<i64, Error> {
    value.as_i64().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("`{test}` needs an integer, not {}", value.kind().as_str()),
        )
    })
}

/// No arguments.
fn none(name: &str, args: Arguments<'_>) -> Result<(), Error> {
    args.bind(&format!("test `{name}`"), []).map(|[]| ())
}

/// One argument, `other`, which must be given.
fn one(name: &str, args: Arguments<'_>) -> Result<Value, Error> {
    let [other] = args.bind(&format!("test `{name}`"), ["other"])?;
    if other.is_undefined() {
        return Err(bad(format!("test `{name}` needs an argument: `is {name}(x)`")));
    }
    Ok(other)
}

/// A test of the value alone, without arguments.
pub(crate) fn is(
    name: &str,
    value: &Value,
    args: Arguments<'_>,
    holds: fn(&Value) -> bool,
) -> Result<bool, Error> {
    none(name, args).map(|()| holds(value))
}

pub(crate) fn defined(v: &Value) -> bool {
    !v.is_undefined()
}

pub(crate) fn undefined(v: &Value) -> bool {
    v.is_undefined()
}

pub(crate) fn none_value(v: &Value) -> bool {
    matches!(v.0, Repr::None)
}

pub(crate) fn number(v: &Value) -> bool {
    matches!(v.0, Repr::Int(_) | Repr::Float(_))
}

pub(crate) fn integer_value(v: &Value) -> bool {
    matches!(v.0, Repr::Int(_))
}

pub(crate) fn float(v: &Value) -> bool {
    matches!(v.0, Repr::Float(_))
}

pub(crate) fn string(v: &Value) -> bool {
    v.as_str().is_some()
}

pub(crate) fn boolean(v: &Value) -> bool {
    matches!(v.0, Repr::Bool(_))
}

pub(crate) fn is_true(v: &Value) -> bool {
    matches!(v.0, Repr::Bool(true))
}

pub(crate) fn is_false(v: &Value) -> bool {
    matches!(v.0, Repr::Bool(false))
}

pub(crate) fn sequence(v: &Value) -> bool {
    matches!(v.0, Repr::List(_)) || v.as_str().is_some()
}

pub(crate) fn mapping(v: &Value) -> bool {
    matches!(v.0, Repr::Map(_))
}

pub(crate) fn iterable(v: &Value) -> bool {
    matches!(v.0, Repr::List(_) | Repr::Map(_)) || v.as_str().is_some()
}

/// `odd` and `even`: the remainder by 2 is `remainder`.
pub(crate) fn parity(
    remainder: i64,
    name: &str,
    value: &Value,
    args: Arguments<'_>,
) -> Result<bool, Error> {
    none(name, args)?;
    Ok(integer(value, name)?.rem_euclid(2) == remainder)
}

pub(crate) fn divisible_by(name: &str, value: &Value, args: Arguments<'_>) -> Result<bool, Error> {
    let n = integer(&one(name, args)?, name)?;
    if n == 0 {
        return Err(Error::new(ErrorKind::InvalidOperation, "`divisibleby(0)`: division by zero"));
    }
    Ok(integer(value, name)?.checked_rem(n).is_none_or(|r| r == 0))
}

/// `eq`, `lt`, ...: the comparison `op` with the argument.
pub(crate) fn compare(
    op: CmpOp,
    name: &str,
    value: &Value,
    args: Arguments<'_>,
) -> Result<bool, Error> {
    ops::compare(op, value, &one(name, args)?)
}

pub(crate) fn is_in(name: &str, value: &Value, args: Arguments<'_>) -> Result<bool, Error> {
    ops::contains(&one(name, args)?, value)
}

/// `startingwith` (`start`) and `endingwith`.
pub(crate) fn affix(
    start: bool,
    name: &str,
    value: &Value,
    args: Arguments<'_>,
) -> Result<bool, Error> {
    let other = one(name, args)?;
    Ok(match (value.as_str(), other.as_str()) {
        (Some(s), Some(affix)) if start => s.starts_with(affix),
        (Some(s), Some(affix)) => s.ends_with(affix),
        (None, _) => false,
        (_, None) => return Err(bad(format!("test `{name}` needs a string argument"))),
    })
}

/// `sameas`: the same value, not only an equal one (minijinja's rule): the
/// same list or map (one allocation), or scalars of the same kind that are
/// equal (`1 is sameas 1.0` is false).
pub(crate) fn same_as(name: &str, value: &Value, args: Arguments<'_>) -> Result<bool, Error> {
    let other = one(name, args)?;
    Ok(match (&value.0, &other.0) {
        (Repr::List(a), Repr::List(b)) => std::sync::Arc::ptr_eq(a, b),
        (Repr::Map(a), Repr::Map(b)) => std::sync::Arc::ptr_eq(a, b),
        (Repr::List(_) | Repr::Map(_), _) | (_, Repr::List(_) | Repr::Map(_)) => false,
        _ => value.kind() == other.kind() && value == &other,
    })
}

/// `lower` (`upper`): Python's `str.islower` (`isupper`), as Jinja2 has it:
/// a string with at least one cased character and no character of the
/// other case or titlecase (`"a b" is lower` and `"a1" is lower` are true,
/// `"" is lower` and `"1" is lower` false); false for anything else.
pub(crate) fn case(
    upper: bool,
    name: &str,
    value: &Value,
    args: Arguments<'_>,
) -> Result<bool, Error> {
    none(name, args)?;
    Ok(value.as_str().is_some_and(|s| {
        let mut cased = false;
        for c in s.chars() {
            let (this, other) = if upper {
                (c.is_uppercase(), c.is_lowercase())
            } else {
                (c.is_lowercase(), c.is_uppercase())
            };
            if other || TITLECASE.contains(&c) {
                return false;
            }
            cased |= this;
        }
        cased
    }))
}

/// The titlecase letters (Unicode category Lt), which Python counts as
/// cased and neither lowercase nor uppercase.
const TITLECASE: [char; 31] = [
    '\u{1c5}', '\u{1c8}', '\u{1cb}', '\u{1f2}', '\u{1f88}', '\u{1f89}', '\u{1f8a}', '\u{1f8b}',
    '\u{1f8c}', '\u{1f8d}', '\u{1f8e}', '\u{1f8f}', '\u{1f98}', '\u{1f99}', '\u{1f9a}', '\u{1f9b}',
    '\u{1f9c}', '\u{1f9d}', '\u{1f9e}', '\u{1f9f}', '\u{1fa8}', '\u{1fa9}', '\u{1faa}', '\u{1fab}',
    '\u{1fac}', '\u{1fad}', '\u{1fae}', '\u{1faf}', '\u{1fbc}', '\u{1fcc}', '\u{1ffc}',
];

/// `filter` (`test`): a string that names a filter (a test) of the
/// template's environment, the host's own included.
pub(crate) fn names(
    filter: bool,
    name: &str,
    registry: &Registry,
    value: &Value,
    args: Arguments<'_>,
) -> Result<bool, Error> {
    none(name, args)?;
    Ok(value.as_str().is_some_and(|s| {
        if filter { registry.filters.contains_key(s) } else { registry.tests.contains_key(s) }
    }))
}
