//! Operators on values: checked 64-bit integer arithmetic, `/` always
//! real, Python-style `//` and `%`, no implicit string/number coercion.

use std::sync::Arc;

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::value::text::Text;
use crate::value::{ListKind, Repr, TooLong, Value};

/// Arithmetic and concatenation operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Concat,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
}

impl BinOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Concat => "~",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Rem => "%",
            BinOp::Pow => "**",
        }
    }
}

/// Comparison and membership operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message)
}

fn mismatch(op: BinOp, l: &Value, r: &Value) -> Error {
    let hint = match op {
        BinOp::Add if l.as_str().is_some() || r.as_str().is_some() => {
            ": use `~` to join as text, or the `int`/`float` filters to convert a string"
        }
        _ if l.as_str().is_some() || r.as_str().is_some() => {
            ": convert strings with the `int` or `float` filter"
        }
        _ => "",
    };
    invalid(format!(
        "cannot apply `{}` to {} and {}{hint}",
        op.symbol(),
        l.kind().as_str(),
        r.kind().as_str()
    ))
}

fn overflow(op: &str) -> Error {
    invalid(format!("integer overflow in `{op}`"))
}

/// Checks a string result against the string limit.
pub(crate) fn check_string_size(len: usize, limits: &Limits) -> Result<(), Error> {
    if len > limits.string_limit {
        return Err(invalid(format!(
            "the result would be {len} bytes, more than the string limit of {} bytes",
            limits.string_limit
        )));
    }
    Ok(())
}

/// The error of a text that passed the string limit while it was written.
pub(crate) fn string_too_long(limits: &Limits) -> impl Fn(TooLong) -> Error + '_ {
    move |TooLong| {
        invalid(format!(
            "the result would be more than the string limit of {} bytes",
            limits.string_limit
        ))
    }
}

/// `l ~ r` (and `+` on two strings): both printed, bounded by the string
/// limit while they are written.
fn concat(l: &Value, r: &Value, limits: &Limits) -> Result<Value, Error> {
    if let (Some(a), Some(b)) = (l.as_str(), r.as_str()) {
        check_string_size(a.len() + b.len(), limits)?;
        return Ok(Value::string([a, b].concat()));
    }
    let mut out = String::new();
    l.write_printed(&mut out, limits.string_limit).map_err(string_too_long(limits))?;
    r.write_printed(&mut out, limits.string_limit).map_err(string_too_long(limits))?;
    Ok(Value::string(out))
}

/// `l ~ r` (and `+` of two strings) per byte, as the Jinja2 profile joins:
/// a string operand keeps the provenance of its bytes (a literal's stay
/// authored), any other operand is printed as data.
pub(crate) fn concat_per_byte(l: &Value, r: &Value, limits: &Limits) -> Result<Value, Error> {
    let mut text = String::new();
    let mut data: Vec<std::ops::Range<usize>> = Vec::new();
    for side in [l, r] {
        let at = text.len();
        match &side.0 {
            Repr::Text(t) => {
                check_string_size(at.saturating_add(t.as_str().len()), limits)?;
                text.push_str(t.as_str());
                data.extend(t.data().iter().map(|r| r.start + at..r.end + at));
            }
            _ => {
                side.write_printed(&mut text, limits.string_limit)
                    .map_err(string_too_long(limits))?;
                if text.len() > at {
                    data.push(at..text.len());
                }
            }
        }
    }
    check_string_size(text.len(), limits)?;
    Ok(match data.as_slice() {
        [only] if *only == (0..text.len()) => Value::string(text),
        _ if text.is_empty() => Value::str(""),
        _ => Value(Repr::Text(Arc::new(Text::new(Arc::from(text), data.into())))),
    })
}

/// `l op r` for the arithmetic operators and `~`.
pub(crate) fn binary(op: BinOp, l: &Value, r: &Value, limits: &Limits) -> Result<Value, Error> {
    use Repr::{Float, Int, List, Str, Text};
    match (op, &l.0, &r.0) {
        (BinOp::Concat, _, _) | (BinOp::Add, Str(_) | Text(_), Str(_) | Text(_)) => {
            concat(l, r, limits)
        }
        (BinOp::Add, List(a), List(b)) => {
            if a.len() + b.len() > limits.range_limit {
                return Err(invalid(format!(
                    "the list would have {} items, more than the limit of {}",
                    a.len() + b.len(),
                    limits.range_limit
                )));
            }
            let mut items = Vec::with_capacity(a.len() + b.len());
            items.extend(a.iter().cloned());
            items.extend(b.iter().cloned());
            // Two tuples make a tuple (Python printing shows which).
            Ok(if a.kind() == ListKind::Tuple && b.kind() == ListKind::Tuple {
                Value::tuple(items)
            } else {
                Value::list(items)
            })
        }
        (BinOp::Mul, List(items), Int(n)) | (BinOp::Mul, Int(n), List(items)) => {
            repeat_list(items, *n, limits)
        }
        (BinOp::Mul, Str(_) | Text(_), Int(n)) | (BinOp::Mul, Int(n), Str(_) | Text(_)) => {
            repeat(l.as_str().or(r.as_str()).unwrap_or_default(), *n, limits)
        }
        (_, Int(a), Int(b)) => int_op(op, *a, *b),
        (_, Int(_) | Float(_), Int(_) | Float(_)) => {
            float_op(op, l.as_f64().unwrap_or_default(), r.as_f64().unwrap_or_default())
        }
        _ => Err(mismatch(op, l, r)),
    }
}

fn repeat(s: &str, n: i64, limits: &Limits) -> Result<Value, Error> {
    let n = usize::try_from(n).unwrap_or(0);
    let len = s.len().saturating_mul(n);
    check_string_size(len, limits)?;
    Ok(Value::string(s.repeat(n)))
}

/// `list * n`: the items `n` times (none for `n <= 0`), counted against
/// the range limit before anything is made, as list concatenation is.
fn repeat_list(items: &crate::value::List, n: i64, limits: &Limits) -> Result<Value, Error> {
    let n = usize::try_from(n).unwrap_or(0);
    let total = items.len().saturating_mul(n);
    if total > limits.range_limit {
        return Err(invalid(format!(
            "the list would have {total} items, more than the limit of {}",
            limits.range_limit
        )));
    }
    let mut out = Vec::with_capacity(total);
    for _ in 0..n {
        out.extend(items.iter().cloned());
    }
    Ok(if items.kind() == ListKind::Tuple { Value::tuple(out) } else { Value::list(out) })
}

fn int_op(op: BinOp, a: i64, b: i64) -> Result<Value, Error> {
    let zero = || invalid(format!("division by zero in `{}`", op.symbol()));
    let result = match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div => {
            if b == 0 {
                return Err(zero());
            }
            return Ok(Value::from(a as f64 / b as f64));
        }
        BinOp::FloorDiv => {
            if b == 0 {
                return Err(zero());
            }
            a.checked_div(b).map(|q| if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q })
        }
        BinOp::Rem => {
            if b == 0 {
                return Err(zero());
            }
            a.checked_rem(b).map(|r| if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r })
        }
        BinOp::Pow => {
            if b < 0 {
                return power(a as f64, b as f64);
            }
            u32::try_from(b).ok().and_then(|b| a.checked_pow(b))
        }
        BinOp::Concat => None,
    };
    result.map(Value::from).ok_or_else(|| overflow(op.symbol()))
}

fn float_op(op: BinOp, a: f64, b: f64) -> Result<Value, Error> {
    let zero = || invalid(format!("division by zero in `{}`", op.symbol()));
    Ok(Value::from(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div if b == 0.0 => return Err(zero()),
        BinOp::Div => a / b,
        BinOp::FloorDiv if b == 0.0 => return Err(zero()),
        BinOp::FloorDiv => (a / b).floor(),
        BinOp::Rem if b == 0.0 => return Err(zero()),
        BinOp::Rem => a - b * (a / b).floor(),
        BinOp::Pow => return power(a, b),
        BinOp::Concat => f64::NAN,
    }))
}

/// `a ** b` in floats: a result that is not a finite number from finite
/// operands is an error, as an integer overflow is (Python raises for
/// each: `OverflowError`, `ZeroDivisionError`, and a complex result).
fn power(a: f64, b: f64) -> Result<Value, Error> {
    let result = a.powf(b);
    if result.is_finite() || !a.is_finite() || !b.is_finite() {
        return Ok(Value::from(result));
    }
    Err(invalid(if a == 0.0 {
        "division by zero in `**`: zero to a negative power".to_owned()
    } else if result.is_nan() {
        "`**` of a negative number to a fractional power has no real result".to_owned()
    } else {
        "overflow in `**`: the result is beyond the largest float".to_owned()
    }))
}

/// Unary minus.
pub(crate) fn negate(v: &Value) -> Result<Value, Error> {
    match v.0 {
        Repr::Int(n) => n.checked_neg().map(Value::from).ok_or_else(|| overflow("-")),
        Repr::Float(x) => Ok(Value::from(-x)),
        _ => Err(invalid(format!("cannot negate {}", v.kind().as_str()))),
    }
}

/// Unary plus: numbers only.
pub(crate) fn plus(v: &Value) -> Result<Value, Error> {
    match v.0 {
        Repr::Int(_) | Repr::Float(_) => Ok(v.clone()),
        _ => Err(invalid(format!("cannot apply unary `+` to {}", v.kind().as_str()))),
    }
}

/// What cannot be ordered in `a` and `b` (which [`Value::compare`] does
/// not order), for messages that begin "cannot compare": NaN, which has no
/// order even among numbers, or the two kinds.
pub(crate) fn unordered(a: &Value, b: &Value) -> String {
    if is_nan(a) || is_nan(b) {
        "NaN (not a number has no order)".to_owned()
    } else {
        format!("{} and {}", a.kind().as_str(), b.kind().as_str())
    }
}

/// Whether the value is a float NaN.
pub(crate) fn is_nan(value: &Value) -> bool {
    value.as_f64().is_some_and(f64::is_nan)
}

/// `l op r` for comparisons and membership.
pub(crate) fn compare(op: CmpOp, l: &Value, r: &Value) -> Result<bool, Error> {
    use std::cmp::Ordering::{Greater, Less};
    let order = |symbol: &str| {
        l.compare(r)
            .ok_or_else(|| invalid(format!("cannot compare {} with `{symbol}`", unordered(l, r))))
    };
    Ok(match op {
        CmpOp::Eq => l == r,
        CmpOp::Ne => l != r,
        CmpOp::Lt => order("<")? == Less,
        CmpOp::Le => order("<=")? != Greater,
        CmpOp::Gt => order(">")? == Greater,
        CmpOp::Ge => order(">=")? != Less,
        CmpOp::In => contains(r, l)?,
        CmpOp::NotIn => !contains(r, l)?,
    })
}

/// The work, in units of fuel (64 items or 256 string bytes), that
/// `l op r` does walking nested lists and maps beyond their top level,
/// found by walking them as equality does (shared parts are compared by
/// address, so they cost nothing) and stopping once it passes `cap`.
pub(crate) fn walk_cost(op: CmpOp, l: &Value, r: &Value, cap: u64) -> u64 {
    let composite = |v: &Value| matches!(v.0, Repr::List(_) | Repr::Map(_));
    let mut ticks = 0;
    let cap = cap.saturating_mul(256);
    match op {
        CmpOp::Eq | CmpOp::Ne if composite(l) && composite(r) => {
            equal_ticks(l, r, &mut ticks, cap);
        }
        CmpOp::In | CmpOp::NotIn => {
            if let Repr::List(items) = &r.0 {
                for item in items.iter() {
                    if composite(item) && composite(l) {
                        equal_ticks(item, l, &mut ticks, cap);
                    }
                    if ticks > cap || item == l {
                        break;
                    }
                }
            }
        }
        _ => {}
    }
    ticks / 256
}

/// Adds to `ticks` what comparing `a` and `b` for equality walks below
/// their top level (4 per item, 1 per string byte), until it passes `cap`;
/// whether they are equal so far.
fn equal_ticks(a: &Value, b: &Value, ticks: &mut u64, cap: u64) -> bool {
    if *ticks > cap {
        return false;
    }
    match (&a.0, &b.0) {
        (Repr::List(x), Repr::List(y)) if !Arc::ptr_eq(x, y) && x.len() == y.len() => {
            for (p, q) in x.iter().zip(y.iter()) {
                *ticks += 4;
                if !equal_ticks(p, q, ticks, cap) {
                    return false;
                }
            }
            true
        }
        (Repr::Map(x), Repr::Map(y)) if !Arc::ptr_eq(x, y) && x.len() == y.len() => {
            for ((k, p), (l, q)) in x.iter().zip(y.iter()) {
                *ticks += 4 + k.len().min(l.len()) as u64;
                if k != l || !equal_ticks(p, q, ticks, cap) {
                    return false;
                }
            }
            true
        }
        _ => match (a.shared_str(), b.shared_str()) {
            (Some(x), Some(y)) if !Arc::ptr_eq(x, y) => {
                *ticks += x.len().min(y.len()) as u64;
                x == y
            }
            _ => a == b,
        },
    }
}

/// `item in container`: substring, list membership, map key.
pub(crate) fn contains(container: &Value, item: &Value) -> Result<bool, Error> {
    if let Some(s) = container.as_str() {
        return match item.as_str() {
            Some(needle) => Ok(s.contains(needle)),
            None => Err(invalid(format!(
                "`in` on a string needs a string on its left, not {}",
                item.kind().as_str()
            ))),
        };
    }
    match &container.0 {
        Repr::List(items) => Ok(items.contains(item)),
        Repr::Map(map) => match &item.0 {
            Repr::Int(n) if map.int_keys() => Ok(map.contains_key(n.to_string().as_str())),
            _ => Ok(item.as_str().is_some_and(|key| map.contains_key(key))),
        },
        Repr::Undefined | Repr::None => Ok(false),
        _ => Err(invalid(format!("cannot test membership in {}", container.kind().as_str()))),
    }
}

/// `value[index]`: lists and strings by integer (negative from the end),
/// maps by string key; anything missing, or any index into none or
/// undefined, is undefined.
pub(crate) fn get_item(value: &Value, index: &Value) -> Result<Value, Error> {
    let position = |len: usize, n: i64| -> Option<usize> {
        let len = i64::try_from(len).ok()?;
        let i = if n < 0 { n.checked_add(len)? } else { n };
        usize::try_from(i).ok()
    };
    match (&value.0, &index.0) {
        (Repr::List(items), _) if items.is_generator() => Err(Error::new(
            ErrorKind::InvalidOperation,
            "a generator has no items by index (Python: use `| list` first)",
        )),
        (Repr::List(items), Repr::Int(n)) => {
            Ok(position(items.len(), *n).and_then(|i| items.get(i)).cloned().unwrap_or_default())
        }
        (Repr::Str(_) | Repr::Text(_), Repr::Int(n)) => {
            let s = value.as_str().unwrap_or_default();
            let count = if *n < 0 { s.chars().count() } else { 0 };
            Ok(position(count, *n)
                .and_then(|i| s.chars().nth(i))
                .map(|c| Value::string(c.to_string()))
                .unwrap_or_default())
        }
        (Repr::Map(map), Repr::Int(n)) if map.int_keys() => {
            Ok(map.get(n.to_string().as_str()).cloned().unwrap_or_default())
        }
        (Repr::Map(map), Repr::Str(_) | Repr::Text(_)) => {
            Ok(index.as_str().and_then(|key| map.get(key)).cloned().unwrap_or_default())
        }
        (Repr::List(_) | Repr::Str(_) | Repr::Text(_), _) => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "{} indexes must be integers, not {}",
                value.kind().as_str(),
                index.kind().as_str()
            ),
        )),
        _ => Ok(Value::UNDEFINED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(op: BinOp, l: impl Into<Value>, r: impl Into<Value>) -> Result<Value, Error> {
        binary(op, &l.into(), &r.into(), &Limits::default())
    }

    #[test]
    fn python_division_rules() {
        assert_eq!(op(BinOp::FloorDiv, -7, 2), Ok(Value::from(-4)));
        assert_eq!(op(BinOp::FloorDiv, 7, -2), Ok(Value::from(-4)));
        assert_eq!(op(BinOp::Rem, -7, 3), Ok(Value::from(2)));
        assert_eq!(op(BinOp::Rem, 7, -3), Ok(Value::from(-2)));
        assert_eq!(op(BinOp::Div, 7, 2), Ok(Value::from(3.5)));
        assert_eq!(op(BinOp::Rem, -7.5, 2), Ok(Value::from(0.5)));
        assert_eq!(op(BinOp::Div, 1, 0).unwrap_err().kind(), ErrorKind::InvalidOperation);
        assert_eq!(
            op(BinOp::FloorDiv, i64::MIN, -1).unwrap_err().message(),
            "integer overflow in `//`"
        );
    }

    #[test]
    fn overflow_and_mismatch_are_errors() {
        assert!(op(BinOp::Add, i64::MAX, 1).is_err());
        assert!(op(BinOp::Pow, 2, 64).is_err());
        assert_eq!(op(BinOp::Pow, 2, -1), Ok(Value::from(0.5)));
        // Not a finite number from finite operands: an error, as in Python.
        for (a, b, message) in [
            (10.0, 400.0, "overflow in `**`"),
            (-8.0, 0.5, "`**` of a negative number to a fractional power"),
            (0.0, -1.0, "division by zero in `**`"),
        ] {
            let err = op(BinOp::Pow, a, b).unwrap_err();
            assert!(err.message().starts_with(message), "{a} ** {b}: {}", err.message());
        }
        assert!(op(BinOp::Pow, 0, -1).unwrap_err().message().starts_with("division by zero"));
        assert!(op(BinOp::Pow, 10, -400).is_ok(), "underflow to zero is a finite result");
        let err = op(BinOp::Add, "a", 1).unwrap_err();
        assert!(err.message().starts_with("cannot apply `+` to string and integer: use `~`"));
        assert_eq!(op(BinOp::Concat, "a", 1), Ok(Value::from("a1")));
    }

    #[test]
    fn repetition_is_capped() {
        assert_eq!(op(BinOp::Mul, "ab", 3), Ok(Value::from("ababab")));
        assert_eq!(op(BinOp::Mul, 2, "ab"), Ok(Value::from("abab")));
        assert_eq!(op(BinOp::Mul, "ab", -1), Ok(Value::from("")));
        assert!(op(BinOp::Mul, "ab", i64::MAX).is_err());
        let pair = Value::from(vec![Value::from(1), Value::from(2)]);
        let limits = Limits::default();
        let twice = binary(BinOp::Mul, &pair, &Value::from(2), &limits).unwrap();
        assert_eq!(twice.to_string(), "[1,2,1,2]");
        let before = binary(BinOp::Mul, &Value::from(2), &pair, &limits).unwrap();
        assert_eq!(before.to_string(), "[1,2,1,2]");
        let none = binary(BinOp::Mul, &pair, &Value::from(-3), &limits).unwrap();
        assert_eq!(none.to_string(), "[]");
        assert!(binary(BinOp::Mul, &pair, &Value::from(i64::MAX), &limits).is_err());
    }

    #[test]
    fn comparisons_and_membership() {
        let t = |o, l: Value, r: Value| compare(o, &l, &r);
        assert_eq!(t(CmpOp::Le, 1.into(), 1.0.into()), Ok(true));
        assert_eq!(t(CmpOp::In, "el".into(), "hello".into()), Ok(true));
        assert_eq!(t(CmpOp::NotIn, 3.into(), vec![Value::from(1)].into()), Ok(true));
        assert!(t(CmpOp::Lt, 1.into(), "2".into()).is_err());
        assert!(t(CmpOp::In, 1.into(), "2".into()).is_err());
    }
}
