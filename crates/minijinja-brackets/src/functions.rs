//! The built-in global functions, `range` and `dict`/`namespace` (a map
//! from keyword arguments), of the one signature every function has;
//! `defaults.rs` registers them.

use crate::arguments::{Arguments, bad};
use crate::error::{Error, ErrorKind};
use crate::value::{Repr, Value, ValueMap};

/// `dict(a=1, b=2)`, `dict(map, c=3)` (also `namespace`): a map of the
/// positional map's entries, then the keyword arguments (a keyword
/// replaces the map's entry of its name). A module gives its exports.
pub(crate) fn dict(args: Arguments<'_>) -> Result<Value, Error> {
    let mut map = match args.positional.as_slice() {
        [] => ValueMap::with_capacity(args.keywords.len()),
        [Value(Repr::Map(entries))] => (***entries).clone(),
        // A module's macros and variables (`dict(m)`, as minijinja).
        [Value(Repr::Module(module))] => (**module.exports).clone(),
        [other] => {
            return Err(bad(format!(
                "`dict` takes a map and keyword arguments, not {}",
                other.kind().as_str()
            )));
        }
        _ => return Err(bad("`dict` takes at most one map: `dict(map, a=1, b=2)`")),
    };
    map.reserve(args.keywords.len());
    for (k, v) in args.keywords {
        map.insert(k.into(), v);
    }
    Ok(Value::map(map))
}

/// `range(stop)` or `range(start, stop, step=1)`: at most
/// [`Limits::range_limit`] integers.
pub(crate) fn range(args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [a, b, step] = args.bind("function `range`", ["start", "stop", "step"])?;
    let int = |v: &Value, default: i64| -> Result<i64, Error> {
        if v.is_undefined() {
            return Ok(default);
        }
        v.as_i64().ok_or_else(|| bad(format!("`range` needs integers, not {}", v.kind().as_str())))
    };
    let (start, stop) =
        if b.is_undefined() { (0, int(&a, 0)?) } else { (int(&a, 0)?, int(&b, 0)?) };
    if a.is_undefined() {
        return Err(bad("`range` needs at least one argument: `range(stop)`"));
    }
    let step = int(&step, 1)?;
    if step == 0 {
        return Err(Error::new(ErrorKind::InvalidOperation, "`range`: the step cannot be 0"));
    }
    let span = if step > 0 {
        i128::from(stop) - i128::from(start)
    } else {
        i128::from(start) - i128::from(stop)
    };
    let count = if span <= 0 { 0 } else { (span - 1) / i128::from(step).abs() + 1 };
    if count > limits.range_limit as i128 {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "`range` would give {count} numbers, more than the limit of {}",
                limits.range_limit
            ),
        ));
    }
    // In i128: `i * step` can overflow i64 even when `start + i * step`,
    // which lies between start and stop, cannot.
    let values = (0..count)
        .map(|i| Value::from((i128::from(start) + i * i128::from(step)) as i64))
        .collect();
    Ok(Value::list(values))
}
