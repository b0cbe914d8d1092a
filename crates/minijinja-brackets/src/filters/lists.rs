//! The filters that regroup items: `dictsort`, `groupby`, `batch`,
//! `slice`, `zip`, `chain`, `lines` and `attr` (minijinja's arguments).
//!
//! Each counts the lists it makes before it makes them (every list, the
//! outer one too, under the range limit); the items are shared, not copied.

use super::{Attribute, check_items, int_arg, invalid, items, order, sort_keyed, text};
use crate::arguments::{Arguments, bad};
use crate::error::Error;
use crate::value::{List, Repr, Value};
use std::sync::Arc;

/// The `dictsort` filter: a map's `[key, value]` pairs sorted by key (or by
/// value with `by="value"`), strings case-folded unless `case_sensitive`,
/// stable (equal keys keep the map's order, `reverse` too).
pub(crate) fn dictsort(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [case_sensitive, by, reverse] =
        args.bind("filter `dictsort`", ["case_sensitive", "by", "reverse"])?;
    let Repr::Map(map) = &value.0 else {
        if value.is_none_or_undefined() {
            return Ok(Value::list(Vec::new()));
        }
        return Err(invalid(format!("`dictsort` needs a map, not {}", value.kind().as_str())));
    };
    let by_value = match by.as_str() {
        None if by.is_none_or_undefined() => false,
        Some("key") => false,
        Some("value") => true,
        _ => return Err(bad("`dictsort`: `by` must be \"key\" or \"value\"")),
    };
    check_items(map.len(), "dictsort", limits)?;
    let mut keyed: Vec<(Value, Value)> = map
        .iter()
        .map(|(k, v)| {
            let key = map.key(k);
            let sort_key = if by_value { v.clone() } else { key.clone() };
            (sort_key, Value::tuple(vec![key, v.clone()]))
        })
        .collect();
    sort_keyed(&mut keyed, !case_sensitive.is_true(), reverse.is_true(), "dictsort")?;
    Ok(Value::list(keyed.into_iter().map(|(_, pair)| pair).collect()))
}

/// The names of a `groupby` group's two items.
const GROUP: &[&str] = &["grouper", "list"];

/// The `groupby` filter: the items sorted by `attribute` (missing ones
/// take `default`), then grouped by equal values; each group is a pair
/// `[grouper, list]` whose items are also `group.grouper` and `group.list`.
/// Strings are compared case-folded unless `case_sensitive` (the grouper
/// is then the first item's value).
pub(crate) fn groupby(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [attr, default, case_sensitive] =
        args.bind("filter `groupby`", ["attribute", "default", "case_sensitive"])?;
    if attr.is_undefined() {
        return Err(bad("filter `groupby` needs an attribute: `groupby(\"city\")`"));
    }
    let fold = !case_sensitive.is_true();
    let attr = Attribute::new(&attr, "groupby", limits)?;
    let mut keyed: Vec<(Value, Value)> = items(&value, "groupby", limits)?
        .iter()
        .map(|item| {
            let key = attr.get(item);
            (if key.is_undefined() { default.clone() } else { key }, item.clone())
        })
        .collect();
    sort_keyed(&mut keyed, fold, false, "groupby")?;
    let mut groups: Vec<Value> = Vec::new();
    let mut current: Option<(Value, Vec<Value>)> = None;
    let close = |(grouper, list): (Value, Vec<Value>)| {
        Value(Repr::List(Arc::new(List::named(vec![grouper, Value::list(list)], GROUP))))
    };
    for (key, item) in keyed {
        match &mut current {
            Some((grouper, list)) if order(grouper, &key, fold).is_some_and(|o| o.is_eq()) => {
                list.push(item);
            }
            _ => {
                if let Some(done) = current.replace((key, vec![item])) {
                    groups.push(close(done));
                }
            }
        }
    }
    groups.extend(current.map(close));
    Ok(Value::list(groups))
}

/// The positive count a `batch` or `slice` takes, under the range limit.
fn count_arg(value: &Value, filter: &str, limits: &crate::limits::Limits) -> Result<usize, Error> {
    if value.is_undefined() {
        return Err(bad(format!("filter `{filter}` needs a count: `{filter}(3)`")));
    }
    let n = int_arg(value, 0, filter, "count")?;
    let n = usize::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| invalid(format!("`{filter}`: the count must be at least 1, not {n}")))?;
    check_items(n, filter, limits)?;
    Ok(n)
}

/// The `batch` filter: lists of `count` items; the last one filled up
/// with `fill_with` when given.
pub(crate) fn batch(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [count, fill] = args.bind("filter `batch`", ["count", "fill_with"])?;
    let n = count_arg(&count, "batch", limits)?;
    let all = items(&value, "batch", limits)?;
    let mut out: Vec<Value> = all.chunks(n).map(|chunk| Value::list(chunk.to_vec())).collect();
    if !fill.is_undefined()
        && let Some(last) = all.chunks(n).last()
        && last.len() < n
    {
        let mut filled = last.to_vec();
        filled.resize(n, fill);
        out.pop();
        out.push(Value::list(filled));
    }
    Ok(Value::list(out))
}

/// The `slice` filter: `count` lists of nearly equal length (the first
/// ones one longer); with `fill_with`, each list after the longer ones gets
/// it once (all of them when all are as long: Jinja2's and minijinja's
/// rule).
pub(crate) fn slice(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [count, fill] = args.bind("filter `slice`", ["count", "fill_with"])?;
    let n = count_arg(&count, "slice", limits)?;
    let all = items(&value, "slice", limits)?;
    let (per, extra) = (all.len() / n, all.len() % n);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = start + per + usize::from(i < extra);
        let mut part = all[start..end].to_vec();
        if i >= extra && !fill.is_undefined() {
            part.push(fill.clone());
        }
        out.push(Value::list(part));
        start = end;
    }
    Ok(Value::list(out))
}

/// The `zip` filter: lists of the i-th items of the value and of every
/// argument, as long as the shortest.
pub(crate) fn zip(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    if !args.keywords.is_empty() {
        return Err(bad("filter `zip` takes no keyword arguments"));
    }
    let mut all = vec![items(&value, "zip", limits)?];
    for other in &args.positional {
        all.push(items(other, "zip", limits)?);
    }
    let len = all.iter().map(|l| l.len()).min().unwrap_or(0);
    check_items(len.saturating_mul(all.len()), "zip", limits)?;
    Ok(Value::list(
        (0..len).map(|i| Value::list(all.iter().map(|l| l[i].clone()).collect())).collect(),
    ))
}

/// The `chain` filter: the items of the value and of every argument in
/// turn, one list; maps merged into one map (later keys win) when all are
/// maps.
pub(crate) fn chain(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    if !args.keywords.is_empty() {
        return Err(bad("filter `chain` takes no keyword arguments"));
    }
    let all: Vec<&Value> = std::iter::once(&value).chain(&args.positional).collect();
    if all.iter().all(|v| matches!(v.0, Repr::Map(_))) {
        let mut merged = crate::value::ValueMap::new();
        for v in &all {
            if let Repr::Map(map) = &v.0 {
                check_items(merged.len() + map.len(), "chain", limits)?;
                merged.extend(map.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        return Ok(Value::map(merged));
    }
    let mut out = Vec::new();
    for v in all {
        let part = items(v, "chain", limits)?;
        check_items(out.len() + part.len(), "chain", limits)?;
        out.extend(part.iter().cloned());
    }
    Ok(Value::list(out))
}

/// The `lines` filter: the lines of the text, without their `\n` or
/// `\r\n` (as Rust's and minijinja's `lines`).
pub(crate) fn lines(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `lines`", [])?;
    let t = text(&value, limits)?;
    check_items(t.lines().count(), "lines", limits)?;
    Ok(Value::list(t.lines().map(Value::str).collect()))
}

/// The `attr` filter: `value -> attr("name")` is `value["name"]` (an
/// integer indexes a list).
pub(crate) fn attr(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let [name] = args.bind("filter `attr`", ["name"])?;
    match &name.0 {
        Repr::Int(_) => crate::value::ops::get_item(&value, &name),
        _ => match name.as_str() {
            Some(key) => Ok(value.get(key).cloned().unwrap_or_default()),
            None => Err(bad("filter `attr` needs a name: `attr(\"key\")`")),
        },
    }
}
