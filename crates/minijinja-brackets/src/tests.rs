//! The built-in tests (`value is name(args)`, `value is not name`).

use crate::arguments::{Args, bad};
use crate::error::{Error, ErrorKind};
use crate::eval::ops;
use crate::syntax::ast::CmpOp;
use crate::value::{Repr, Value};

/// A built-in test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuiltinTest {
    Defined,
    Undefined,
    None,
    Number,
    Integer,
    Float,
    String,
    Boolean,
    True,
    False,
    Sequence,
    Mapping,
    Iterable,
    Odd,
    Even,
    DivisibleBy,
    Compare(CmpOp),
    In,
    StartingWith,
    EndingWith,
}

/// Every built-in test by name (aliases included).
pub(crate) const TESTS: &[(&str, BuiltinTest)] = &[
    ("defined", BuiltinTest::Defined),
    ("undefined", BuiltinTest::Undefined),
    ("none", BuiltinTest::None),
    ("number", BuiltinTest::Number),
    ("integer", BuiltinTest::Integer),
    ("float", BuiltinTest::Float),
    ("string", BuiltinTest::String),
    ("boolean", BuiltinTest::Boolean),
    ("true", BuiltinTest::True),
    ("false", BuiltinTest::False),
    ("sequence", BuiltinTest::Sequence),
    ("mapping", BuiltinTest::Mapping),
    ("iterable", BuiltinTest::Iterable),
    ("odd", BuiltinTest::Odd),
    ("even", BuiltinTest::Even),
    ("divisibleby", BuiltinTest::DivisibleBy),
    ("eq", BuiltinTest::Compare(CmpOp::Eq)),
    ("equalto", BuiltinTest::Compare(CmpOp::Eq)),
    ("sameas", BuiltinTest::Compare(CmpOp::Eq)),
    ("ne", BuiltinTest::Compare(CmpOp::Ne)),
    ("lt", BuiltinTest::Compare(CmpOp::Lt)),
    ("lessthan", BuiltinTest::Compare(CmpOp::Lt)),
    ("le", BuiltinTest::Compare(CmpOp::Le)),
    ("gt", BuiltinTest::Compare(CmpOp::Gt)),
    ("greaterthan", BuiltinTest::Compare(CmpOp::Gt)),
    ("ge", BuiltinTest::Compare(CmpOp::Ge)),
    ("in", BuiltinTest::In),
    ("startingwith", BuiltinTest::StartingWith),
    ("endingwith", BuiltinTest::EndingWith),
];

impl BuiltinTest {
    pub(crate) fn lookup(name: &str) -> Option<BuiltinTest> {
        TESTS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }
}

fn integer(value: &Value, test: &str) -> Result<i64, Error> {
    value.as_i64().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("`{test}` needs an integer, not {}", value.kind().as_str()),
        )
    })
}

/// Runs a built-in test.
/// `name` is the test as the template wrote it (aliases included), for
/// error messages.
pub(crate) fn apply(
    test: BuiltinTest,
    name: &str,
    value: &Value,
    args: Args<'_>,
) -> Result<bool, Error> {
    use BuiltinTest as T;
    let none = |args: Args<'_>, name: &str| args.bind(&format!("test `{name}`"), []).map(|[]| ());
    let one = |args: Args<'_>, name: &str| -> Result<Value, Error> {
        let [other] = args.bind(&format!("test `{name}`"), ["other"])?;
        if other.is_undefined() {
            return Err(bad(format!("test `{name}` needs an argument: `is {name}(x)`")));
        }
        Ok(other)
    };
    Ok(match test {
        T::Defined => none(args, name).map(|()| !value.is_undefined())?,
        T::Undefined => none(args, name).map(|()| value.is_undefined())?,
        T::None => none(args, name).map(|()| matches!(value.0, Repr::None))?,
        T::Number => none(args, name).map(|()| matches!(value.0, Repr::Int(_) | Repr::Float(_)))?,
        T::Integer => none(args, name).map(|()| matches!(value.0, Repr::Int(_)))?,
        T::Float => none(args, name).map(|()| matches!(value.0, Repr::Float(_)))?,
        T::String => none(args, name).map(|()| value.as_str().is_some())?,
        T::Boolean => none(args, name).map(|()| matches!(value.0, Repr::Bool(_)))?,
        T::True => none(args, name).map(|()| matches!(value.0, Repr::Bool(true)))?,
        T::False => none(args, name).map(|()| matches!(value.0, Repr::Bool(false)))?,
        T::Sequence => none(args, name)
            .map(|()| matches!(value.0, Repr::List(_)) || value.as_str().is_some())?,
        T::Mapping => none(args, name).map(|()| matches!(value.0, Repr::Map(_)))?,
        T::Iterable => none(args, name).map(|()| {
            matches!(value.0, Repr::List(_) | Repr::Map(_)) || value.as_str().is_some()
        })?,
        T::Odd => {
            none(args, name)?;
            integer(value, name)?.rem_euclid(2) == 1
        }
        T::Even => {
            none(args, name)?;
            integer(value, name)?.rem_euclid(2) == 0
        }
        T::DivisibleBy => {
            let n = integer(&one(args, name)?, name)?;
            if n == 0 {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    "`divisibleby(0)`: division by zero",
                ));
            }
            integer(value, name)?.checked_rem(n).is_none_or(|r| r == 0)
        }
        T::Compare(op) => ops::compare(op, value, &one(args, name)?)?,
        T::In => ops::contains(&one(args, name)?, value)?,
        T::StartingWith | T::EndingWith => {
            let other = one(args, name)?;
            match (value.as_str(), other.as_str()) {
                (Some(s), Some(affix)) if test == T::StartingWith => s.starts_with(affix),
                (Some(s), Some(affix)) => s.ends_with(affix),
                (None, _) => false,
                (_, None) => return Err(bad(format!("test `{name}` needs a string argument"))),
            }
        }
    })
}
