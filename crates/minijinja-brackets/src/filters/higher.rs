//! The filters that call a filter or a test on every item: `map`,
//! `select`, `reject`, `selectattr`, `rejectattr`. Names resolve through
//! the template's own registry (the built-ins and the host's alike); an
//! unknown name is an `unknown_filter` or `unknown_test` error with a
//! "did you mean".
//!
//! Their fuel is paid before they run: a call per item, what the callee
//! would pay when written out (the item's size, the callee's own work, a
//! comparison's walk). What `map` builds is bounded as it grows by the
//! memory limit (the renderer would refuse a larger result anyway, but
//! only once it is built).

use super::{Attribute, items};
use crate::arguments::{Arguments, bad};
use crate::callable::Registry;
use crate::callable::{Filter, Test};
use crate::error::{Error, ErrorKind};
use crate::value::Value;
use crate::value::ops;

/// The filter `name` of the registry.
fn find_filter<'r>(
    registry: &'r Registry,
    name: &Value,
    filter: &str,
) -> Result<&'r Filter, Error> {
    let Some(name) = name.as_str() else {
        return Err(bad(format!("`{filter}` needs a filter name: `{filter}(\"upper\")`")));
    };
    registry.filters.get(name).ok_or_else(|| {
        let hint = registry.suggest_filter(name).map(|n| format!(" (did you mean `{n}`?)"));
        Error::new(
            ErrorKind::UnknownFilter,
            format!("unknown filter `{name}` in `{filter}`{}", hint.unwrap_or_default()),
        )
    })
}

/// The test `name` of the registry.
fn find_test<'r>(registry: &'r Registry, name: &str, filter: &str) -> Result<&'r Test, Error> {
    registry.tests.get(name).ok_or_else(|| {
        let hint = registry.suggest_test(name).map(|n| format!(" (did you mean `{n}`?)"));
        Error::new(
            ErrorKind::UnknownTest,
            format!("unknown test `{name}` in `{filter}`{}", hint.unwrap_or_default()),
        )
    })
}

/// The arguments a callee gets for one item: the rest of ours.
fn rest<'a>(args: &Arguments<'a>, skip: usize) -> Arguments<'a> {
    Arguments {
        positional: args.positional.iter().skip(skip).cloned().collect(),
        keywords: args.keywords.clone(),
        limits: args.limits,
    }
}

/// What the renderer charges for a value an operation scans.
fn size_units(value: &Value) -> u64 {
    let units = match value.as_list() {
        Some(items) => items.len() / 64,
        None => value.as_str().map_or(0, str::len) / 256,
    };
    units as u64
}

/// Which of the five filters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Each {
    Map,
    Select,
    Reject,
    SelectAttr,
    RejectAttr,
}

impl Each {
    fn name(self) -> &'static str {
        match self {
            Each::Map => "map",
            Each::Select => "select",
            Each::Reject => "reject",
            Each::SelectAttr => "selectattr",
            Each::RejectAttr => "rejectattr",
        }
    }

    /// Where the test name is.
    fn test_at(self) -> usize {
        if matches!(self, Each::SelectAttr | Each::RejectAttr) { 1 } else { 0 }
    }
}

/// The fuel of one of the five beyond one pass over its items.
fn work(each: Each, registry: &Registry, value: &Value, args: &Arguments<'_>) -> u64 {
    let Some(list) = value.as_list() else { return 0 };
    let calls = list.len() as u64;
    let callee = match each {
        Each::Map if args.keyword("attribute").is_some() => return calls,
        Each::Map => match args.positional.first() {
            Some(name) => match find_filter(registry, name, "map") {
                Ok(filter) => {
                    // What the renderer charges a filter written out: its
                    // input's and arguments' size, its attribute path, its
                    // own work, on every call.
                    let inner = rest(args, 1);
                    let per_call = inner
                        .positional
                        .iter()
                        .chain(inner.keywords.iter().map(|(_, v)| v))
                        .map(size_units)
                        .fold(0u64, u64::saturating_add);
                    let cap = args.limits.fuel.unwrap_or(u64::MAX);
                    let mut total = calls;
                    for item in list.iter() {
                        if total > cap {
                            break;
                        }
                        total = total
                            .saturating_add(per_call)
                            .saturating_add(size_units(item))
                            .saturating_add(filter.path_work(item, &inner))
                            .saturating_add(filter.work(registry, item, &inner));
                    }
                    return total;
                }
                // Reported when it runs.
                Err(_) => return calls,
            },
            None => return calls,
        },
        _ => args.positional.get(each.test_at()).and_then(Value::as_str),
    };
    let Some(test) = callee.and_then(|name| registry.tests.get(name)) else {
        return calls;
    };
    // What the renderer charges a test written out: its arguments' size
    // and its comparison's walk, on every call.
    let test_args = &args.positional[(each.test_at() + 1).min(args.positional.len())..];
    let per_call = test_args.iter().map(size_units).fold(1u64, u64::saturating_add);
    let walk = test.walk.zip(test_args.first());
    // Parsed once (its walk is paid for before this runs); one the filter
    // refuses is reported when it runs.
    let attr = match (each.test_at() == 1).then(|| &args.positional[0]) {
        Some(attr) => match Attribute::new(attr, each.name(), args.limits) {
            Ok(attr) => Some(attr),
            Err(_) => return calls,
        },
        None => None,
    };
    // A walk past the render's whole fuel is unaffordable: stop there.
    let cap = args.limits.fuel.unwrap_or(u64::MAX);
    let mut total = calls;
    for item in list.iter() {
        if total > cap {
            break;
        }
        let tested = match &attr {
            Some(attr) => attr.get(item),
            None => item.clone(),
        };
        total = total.saturating_add(per_call).saturating_add(size_units(&tested));
        if let Some((op, other)) = walk {
            total =
                total.saturating_add(ops::walk_cost(op, &tested, other, cap.saturating_sub(total)));
        }
    }
    total
}

/// The fuel of `map` beyond one pass over its items.
pub(crate) fn map_work(registry: &Registry, value: &Value, args: &Arguments<'_>) -> u64 {
    work(Each::Map, registry, value, args)
}

/// The fuel of `select` and `reject` beyond one pass over their items.
pub(crate) fn select_work(registry: &Registry, value: &Value, args: &Arguments<'_>) -> u64 {
    work(Each::Select, registry, value, args)
}

/// The fuel of `selectattr` and `rejectattr` beyond one pass over their
/// items.
pub(crate) fn selectattr_work(registry: &Registry, value: &Value, args: &Arguments<'_>) -> u64 {
    work(Each::SelectAttr, registry, value, args)
}

/// The `map` filter: `map("name", args...)` applies the filter `name` to
/// every item; `map(attribute="a.b", default=v)` picks an attribute (the
/// default where it is undefined).
pub(crate) fn map(registry: &Registry, value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let all = items(&value, "map", limits)?;
    if let Some(attr) = args.keyword("attribute") {
        if !args.positional.is_empty() {
            return Err(bad("`map(attribute=...)` takes no positional arguments"));
        }
        if let Some((name, _)) =
            args.keywords.iter().find(|(n, _)| !matches!(*n, "attribute" | "default"))
        {
            return Err(bad(format!("filter `map` has no parameter named `{name}`")));
        }
        let default = args.keyword("default").cloned().unwrap_or_default();
        let attr = Attribute::new(attr, "map", limits)?;
        let picked = all
            .iter()
            .map(|item| {
                let v = attr.get(item);
                if v.is_undefined() { default.clone() } else { v }
            })
            .collect();
        return Ok(Value::list(picked));
    }
    let Some(name) = args.positional.first() else {
        return Err(bad("filter `map` needs a filter name or `attribute=`: `map(\"upper\")`"));
    };
    let filter = find_filter(registry, name, "map")?;
    let mut out = Vec::with_capacity(all.len());
    let mut bytes = 0usize;
    for item in all.iter() {
        let result = filter.call(registry, item.clone(), rest(&args, 1))?;
        bytes = bytes.saturating_add(result.owned_size());
        if bytes > limits.memory_limit {
            return Err(Error::new(
                ErrorKind::MemoryLimit,
                format!(
                    "`map` would build more than the memory limit of {} bytes",
                    limits.memory_limit
                ),
            ));
        }
        out.push(result);
    }
    Ok(Value::list(out))
}

/// `select`, `reject`, `selectattr`, `rejectattr`.
fn keep(
    each: Each,
    registry: &Registry,
    value: Value,
    args: Arguments<'_>,
) -> Result<Value, Error> {
    let limits = args.limits;
    let name = each.name();
    if !args.keywords.is_empty() {
        return Err(bad(format!("filter `{name}` takes no keyword arguments")));
    }
    let attr = match each {
        Each::SelectAttr | Each::RejectAttr => match args.positional.first() {
            Some(attr) => Some(Attribute::new(attr, name, limits)?),
            None => {
                return Err(bad(format!("filter `{name}` needs an attribute: `{name}(\"a\")`")));
            }
        },
        _ => None,
    };
    let test = match args.positional.get(each.test_at()) {
        None => None,
        Some(test) => match test.as_str() {
            Some(test) => Some(find_test(registry, test, name)?),
            None => {
                return Err(bad(format!(
                    "`{name}` needs a test name, not {}",
                    test.kind().as_str()
                )));
            }
        },
    };
    let wanted = matches!(each, Each::Select | Each::SelectAttr);
    let mut out = Vec::new();
    for item in items(&value, name, limits)?.iter() {
        let tested = match &attr {
            Some(attr) => attr.get(item),
            None => item.clone(),
        };
        let passed = match test {
            Some(test) => test.call(registry, &tested, rest(&args, each.test_at() + 1))?,
            None => tested.is_true(),
        };
        if passed == wanted {
            out.push(item.clone());
        }
    }
    Ok(Value::list(out))
}

/// The `select` filter: the items that pass the test (`select("odd")`),
/// or that are true without one.
pub(crate) fn select(
    registry: &Registry,
    value: Value,
    args: Arguments<'_>,
) -> Result<Value, Error> {
    keep(Each::Select, registry, value, args)
}

/// The `reject` filter: the items that fail the test, or are false.
pub(crate) fn reject(
    registry: &Registry,
    value: Value,
    args: Arguments<'_>,
) -> Result<Value, Error> {
    keep(Each::Reject, registry, value, args)
}

/// The `selectattr` filter: the items whose attribute passes the test
/// (`selectattr("age", "ge", 18)`), or is true without one.
pub(crate) fn selectattr(
    registry: &Registry,
    value: Value,
    args: Arguments<'_>,
) -> Result<Value, Error> {
    keep(Each::SelectAttr, registry, value, args)
}

/// The `rejectattr` filter: the items whose attribute fails the test.
pub(crate) fn rejectattr(
    registry: &Registry,
    value: Value,
    args: Arguments<'_>,
) -> Result<Value, Error> {
    keep(Each::RejectAttr, registry, value, args)
}
