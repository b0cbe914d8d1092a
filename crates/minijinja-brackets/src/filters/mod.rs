//! The built-in filters (`value -> name(args)`), each a function of the one
//! signature every filter has (`defaults.rs` registers them by name).
//!
//! Adding one: a function here, binding arguments with
//! [`Arguments::bind`] so arity errors read the same everywhere, and its
//! line in `defaults.rs`. Filters accept undefined values leniently
//! (`upper` gives `""`, `length` 0).
//!
//! Every string a filter builds is checked against the string limit before
//! (or, when its size is only known as it grows, while) it is made, and
//! every list against the range limit before it is made. A string a filter
//! builds is data (`Value::string`), even from authored text; a value it
//! passes on unchanged (`default`, `first`, the items `sort` reorders)
//! keeps its provenance.

mod higher;
mod html;
mod lists;

pub(crate) use higher::{
    map, map_work, reject, rejectattr, select, select_work, selectattr, selectattr_work,
};
pub(crate) use html::{escape, is_safe, marked_safe, pprint, safe, urlencode};
pub(crate) use lists::{attr, batch, chain, dictsort, groupby, lines, slice, zip};

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashSet;
use std::sync::Arc;

use crate::arguments::{Arguments, bad};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::value::ops::BinOp;
use crate::value::ops::{self, check_string_size, string_too_long};
use crate::value::{List, Repr, Value};

fn invalid(message: impl Into<std::string::String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message)
}

/// The value's text, as printed (undefined and none give `""`): a string
/// borrowed, anything else printed under the string limit.
fn text<'v>(value: &'v Value, limits: &Limits) -> Result<Cow<'v, str>, Error> {
    match value.as_str() {
        Some(s) => Ok(Cow::Borrowed(s)),
        None => {
            let mut out = std::string::String::new();
            value.write_printed(&mut out, limits.string_limit).map_err(string_too_long(limits))?;
            Ok(Cow::Owned(out))
        }
    }
}

/// The items of a list, the characters of a string, the keys of a map;
/// nothing for none and undefined. A new list is refused past the range
/// limit before it is made.
fn items(value: &Value, filter: &str, limits: &Limits) -> Result<Arc<List>, Error> {
    value.items(limits.range_limit).map_err(|why| {
        let not_items = format!("`{filter}` needs a list, not");
        invalid(why.message(value, &not_items, limits.range_limit))
    })
}

/// The value's text, refused when it is longer than the string limit: for
/// filters that build a string as long as their input (or longer), checked
/// before they build it.
fn text_to_rewrite<'v>(value: &'v Value, limits: &Limits) -> Result<Cow<'v, str>, Error> {
    let t = text(value, limits)?;
    check_string_size(t.len(), limits)?;
    Ok(t)
}

/// Refuses a list of `count` items past the range limit, before it is made.
fn check_items(count: usize, filter: &str, limits: &Limits) -> Result<(), Error> {
    if count > limits.range_limit {
        return Err(invalid(format!(
            "`{filter}` would give {count} items, more than the limit of {} for a list",
            limits.range_limit
        )));
    }
    Ok(())
}

/// Case-insensitive order of two strings, without making lowercase copies.
fn cmp_folded(a: &Value, b: &Value) -> Option<Ordering> {
    let (Some(x), Some(y)) = (a.shared_str(), b.shared_str()) else { return a.compare(b) };
    if Arc::ptr_eq(x, y) {
        return Some(Ordering::Equal);
    }
    Some(cmp_folded_str(x, y))
}

/// `x` and `y` lowercased char by char, compared: byte by byte while both
/// are ASCII (one byte folds to one byte), then by chars from the first
/// non-ASCII one (a char boundary of both: the bytes before it are ASCII
/// and equal once folded).
fn cmp_folded_str(x: &str, y: &str) -> Ordering {
    let (a, b) = (x.as_bytes(), y.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() && a[i].is_ascii() && b[i].is_ascii() {
        match a[i].to_ascii_lowercase().cmp(&b[i].to_ascii_lowercase()) {
            Ordering::Equal => i += 1,
            different => return different,
        }
    }
    x[i..].chars().flat_map(char::to_lowercase).cmp(y[i..].chars().flat_map(char::to_lowercase))
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
        _ if value.as_str().is_some() => Ok(value.as_str()),
        _ => Err(bad(format!(
            "`{filter}`: `{name}` must be a string, not {}",
            value.kind().as_str()
        ))),
    }
}

/// One step of an attribute [`Path`].
enum Step<'p> {
    /// A map key.
    Key(&'p str),
    /// A list index (or a string's character), written in digits.
    Index(Value),
}

/// An attribute path (`"a.0.b"`: map keys, and list indexes written in
/// digits), split once per filter call and walked per item. Its fuel is
/// charged before any walk, from its length alone
/// ([`Filter::path_work`](crate::callable::Filter::path_work)).
pub(crate) struct Path<'p> {
    steps: Vec<Step<'p>>,
}

impl<'p> Path<'p> {
    /// `path` split at its dots; more steps than a list may hold (the
    /// range limit) is an `invalid_operation`, before anything is split.
    fn new(path: &'p str, filter: &str, limits: &Limits) -> Result<Path<'p>, Error> {
        let steps = crate::callable::path_steps(path);
        if steps > limits.range_limit {
            return Err(invalid(format!(
                "`{filter}`: the attribute path has {steps} steps, more than the limit of {} \
                 for a list",
                limits.range_limit
            )));
        }
        let steps = path
            .split('.')
            .map(|part| match part.parse::<i64>() {
                Ok(n) => Step::Index(Value::from(n)),
                Err(_) => Step::Key(part),
            })
            .collect();
        Ok(Path { steps })
    }

    /// The path `Some(path)` names, or none.
    fn of(path: Option<&'p str>, filter: &str, limits: &Limits) -> Result<Option<Path<'p>>, Error> {
        path.map(|path| Path::new(path, filter, limits)).transpose()
    }

    /// The item's attribute: undefined from the first step that finds
    /// nothing (the rest of the path is not walked).
    fn get(&self, item: &Value) -> Value {
        let mut value = item.clone();
        for step in &self.steps {
            value = match step {
                Step::Index(n) => ops::get_item(&value, n).unwrap_or_default(),
                Step::Key(key) => value.get(key).cloned().unwrap_or_default(),
            };
            if value.is_undefined() {
                break;
            }
        }
        value
    }
}

/// The item's attribute by an optional path: the item itself without one.
fn attribute(item: &Value, path: Option<&Path<'_>>) -> Value {
    match path {
        None => item.clone(),
        Some(path) => path.get(item),
    }
}

/// A filter's attribute argument: a [`Path`], or an integer index.
pub(crate) enum Attribute<'p> {
    Index(&'p Value),
    Path(Path<'p>),
}

impl<'p> Attribute<'p> {
    /// The attribute `attr` names: a path of names and list indexes
    /// (`"a.0"`), or an integer index.
    pub(crate) fn new(attr: &'p Value, filter: &str, limits: &Limits) -> Result<Self, Error> {
        match &attr.0 {
            Repr::Int(_) => Ok(Attribute::Index(attr)),
            _ => match attr.as_str() {
                Some(path) => Ok(Attribute::Path(Path::new(path, filter, limits)?)),
                None => Err(bad(format!(
                    "`{filter}`: an attribute is a name or an integer, not {}",
                    attr.kind().as_str()
                ))),
            },
        }
    }

    /// The item's attribute.
    pub(crate) fn get(&self, item: &Value) -> Value {
        match self {
            Attribute::Index(index) => ops::get_item(item, index).unwrap_or_default(),
            Attribute::Path(path) => path.get(item),
        }
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

/// The filters whose work costs fuel beyond one pass over their input.
#[derive(Clone, Copy)]
enum Work {
    Sort,
    Join,
    Min,
    Max,
    Sum,
    Unique,
    GroupBy,
}

/// The fuel a filter's work costs beyond one pass over its input's items
/// (which the renderer charges for every filter), paid before it runs:
/// the nested items and string bytes it compares (`sort` about log2(n)
/// times each, `min`, `max`, `unique` once), and the total `sum` copies as
/// it grows a string or list item by item (its `start` once per item). At
/// the rates of [`Limits::fuel`]: 256 bytes or 64 items a unit. An
/// `attribute` path's walk is charged before this runs
/// ([`Filter::path_work`](crate::callable::Filter::path_work)), so the keys
/// it reads here are paid for.
fn work(filter: Work, value: &Value, args: &Arguments<'_>) -> u64 {
    use Work as F;
    let items = match &value.0 {
        Repr::List(items) => items.len(),
        Repr::Map(map) => map.len(),
        _ => value.as_str().map_or(0, str::len),
    } as u64;
    let nested = value.nested_size() as u64 / 256;
    // Where each filter takes its `attribute` argument.
    let attribute_at = match filter {
        F::Sort | F::Join | F::Unique => 1,
        F::Min | F::Max | F::Sum | F::GroupBy => 0,
    };
    let path_arg = args
        .keywords
        .iter()
        .find(|(name, _)| *name == "attribute")
        .map(|(_, v)| v)
        .or(args.positional.get(attribute_at))
        .and_then(Value::as_str);
    // Split once; a path the filter refuses is reported when it runs.
    let path = match Path::of(path_arg, "", args.limits) {
        Ok(path) => path,
        Err(_) => return 0,
    };
    let path = path.as_ref();
    match filter {
        // Each key is compared about log2(n) times; a string shared by
        // many items is compared by address, so it counts once.
        F::Sort | F::GroupBy => match &value.0 {
            Repr::List(list) => {
                let mut seen = HashSet::new();
                let bytes = list.iter().fold(0u64, |total, item| {
                    let key = attribute(item, path);
                    match key.shared_str() {
                        Some(s) if seen.insert(Arc::as_ptr(s)) => {
                            total.saturating_add(s.len() as u64)
                        }
                        _ => total,
                    }
                });
                (bytes / 256).saturating_mul(u64::from(items.max(2).ilog2()))
            }
            _ => 0,
        },
        F::Min | F::Max => nested,
        // `unique` keys the items by their JSON form, all the keys together
        // under the string limit (shared items are one key).
        F::Unique => nested.min(args.limits.string_limit as u64 / 256),
        // Adding strings or lists copies the total so far at every step:
        // half the summands' bytes, once per item, and the start's every
        // time.
        F::Sum => match &value.0 {
            Repr::List(list) => {
                let size = |v: &Value| match &v.0 {
                    Repr::List(_) | Repr::Map(_) => v.size(),
                    _ => v.as_str().map_or(0, str::len),
                } as u64;
                let bytes = list
                    .iter()
                    .fold(0u64, |total, item| total.saturating_add(size(&attribute(item, path))));
                let start = args.keyword("start").or(args.positional.get(1)).map_or(0, size);
                (bytes / 256).saturating_mul(items) / 2 + (start / 256).saturating_mul(items)
            }
            _ => 0,
        },
        F::Join => 0,
    }
}

/// `s` as a filter's result: data, refused past the string limit.
fn string(limits: &Limits, s: std::string::String) -> Result<Value, Error> {
    check_string_size(s.len(), limits)?;
    Ok(Value::string(s))
}

/// The fuel of `sort` beyond one pass over its items.
pub(crate) fn sort_work(value: &Value, args: &Arguments<'_>) -> u64 {
    work(Work::Sort, value, args)
}

/// The fuel of `join` beyond one pass over its items.
pub(crate) fn join_work(value: &Value, args: &Arguments<'_>) -> u64 {
    work(Work::Join, value, args)
}

/// The fuel of `min` beyond one pass over its items.
pub(crate) fn min_work(value: &Value, args: &Arguments<'_>) -> u64 {
    work(Work::Min, value, args)
}

/// The fuel of `max` beyond one pass over its items.
pub(crate) fn max_work(value: &Value, args: &Arguments<'_>) -> u64 {
    work(Work::Max, value, args)
}

/// The fuel of `sum` beyond one pass over its items.
pub(crate) fn sum_work(value: &Value, args: &Arguments<'_>) -> u64 {
    work(Work::Sum, value, args)
}

/// The fuel of `unique` beyond one pass over its items.
pub(crate) fn unique_work(value: &Value, args: &Arguments<'_>) -> u64 {
    work(Work::Unique, value, args)
}

/// The fuel of `groupby` beyond one pass over its items.
pub(crate) fn groupby_work(value: &Value, args: &Arguments<'_>) -> u64 {
    work(Work::GroupBy, value, args)
}

/// The `upper` filter.
pub(crate) fn upper(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `upper`", [])?;
    let out = string(limits, text_to_rewrite(&value, limits)?.to_uppercase());
    keep_safety(&value, out, limits)
}

/// The `lower` filter.
pub(crate) fn lower(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `lower`", [])?;
    let out = string(limits, text_to_rewrite(&value, limits)?.to_lowercase());
    keep_safety(&value, out, limits)
}

/// The `capitalize` filter.
pub(crate) fn capitalize(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `capitalize`", [])?;
    let t = text_to_rewrite(&value, limits)?;
    let mut chars = t.chars();
    let out = string(
        limits,
        match chars.next() {
            Some(first) => {
                first.to_uppercase().chain(chars.as_str().to_lowercase().chars()).collect()
            }
            None => std::string::String::new(),
        },
    );
    keep_safety(&value, out, limits)
}

/// A case filter's result, marked safe when its input was (minijinja's
/// `preserve_safety` for `upper`, `lower`, `capitalize`, `trim`): changing
/// the case of escaped text, or trimming it, leaves it escaped.
fn keep_safety(
    input: &Value,
    output: Result<Value, Error>,
    limits: &Limits,
) -> Result<Value, Error> {
    match is_safe(input) {
        true => marked_safe(output?, limits),
        false => output,
    }
}

/// The `title` filter.
pub(crate) fn title(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `title`", [])?;
    let t = text_to_rewrite(&value, limits)?;
    let mut out = std::string::String::with_capacity(t.len());
    let mut at_word_start = true;
    for c in t.chars() {
        match (c.is_ascii(), at_word_start) {
            // Most text is ASCII: one byte in, one byte out.
            (true, true) => out.push(c.to_ascii_uppercase()),
            (true, false) => out.push(c.to_ascii_lowercase()),
            (false, true) => out.extend(c.to_uppercase()),
            (false, false) => out.extend(c.to_lowercase()),
        }
        at_word_start = c.is_whitespace() || matches!(c, '-' | '(' | '[' | '{' | '<');
    }
    string(limits, out)
}

/// The `trim` filter.
pub(crate) fn trim(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [chars] = args.bind("filter `trim`", ["chars"])?;
    let t = text(&value, limits)?;
    let trimmed = match str_arg(&chars, "trim", "chars")? {
        // A set, not a scan of `chars` per character trimmed.
        Some(set) if set.len() > 16 => {
            let set: std::collections::HashSet<char> = set.chars().collect();
            t.trim_matches(|c| set.contains(&c))
        }
        Some(set) => t.trim_matches(|c| set.contains(c)),
        None => t.trim(),
    };
    if trimmed.len() == t.len() && value.as_str().is_some() {
        // Nothing to trim: share the string instead of copying it
        // (as data, like any filter's text).
        return keep_safety(&value, Ok(value.clone().into_data()), limits);
    }
    keep_safety(&value, Ok(Value::str(trimmed)), limits)
}

/// The `wrap` filter.
pub(crate) fn wrap(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [before, after] = args.bind("filter `wrap`", ["before", "after"])?;
    if before.is_undefined() {
        return Err(bad("filter `wrap` needs one or two arguments: `wrap(\"(\", \")\")`"));
    }
    let after = if after.is_undefined() { before.clone() } else { after };
    let t = text(&value, limits)?;
    if t.is_empty()
        || matches!(&value.0, Repr::List(l) if l.is_empty())
        || matches!(&value.0, Repr::Map(m) if m.is_empty())
    {
        return Ok(Value::str(""));
    }
    let (before, after) = (text(&before, limits)?, text(&after, limits)?);
    check_string_size(before.len() + t.len() + after.len(), limits)?;
    string(limits, [&*before, &*t, &*after].concat())
}

/// The `default` filter.
pub(crate) fn default(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let [fallback, boolean] = args.bind("filter `default`", ["default_value", "boolean"])?;
    let use_fallback = value.is_none_or_undefined() || (boolean.is_true() && !value.is_true());
    Ok(if use_fallback {
        if fallback.is_undefined() { Value::str("") } else { fallback }
    } else {
        value
    })
}

/// The `join` filter.
pub(crate) fn join(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [sep, attr] = args.bind("filter `join`", ["d", "attribute"])?;
    let sep = str_arg(&sep, "join", "d")?.unwrap_or("");
    let attr = Path::of(str_arg(&attr, "join", "attribute")?, "join", limits)?;
    let mut out = std::string::String::new();
    for (i, item) in items(&value, "join", limits)?.iter().enumerate() {
        if i > 0 {
            check_string_size(out.len() + sep.len(), limits)?;
            out.push_str(sep);
        }
        let item = attribute(item, attr.as_ref());
        item.write_printed(&mut out, limits.string_limit).map_err(string_too_long(limits))?;
    }
    Ok(Value::string(out))
}

/// The `length` filter.
pub(crate) fn length(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    args.bind("filter `length`", [])?;
    match &value.0 {
        Repr::List(items) if items.is_generator() => {
            Err(invalid("a generator has no length (Python: use `| list | length`)"))
        }
        Repr::List(items) => Ok(Value::from(items.len())),
        Repr::Map(map) => Ok(Value::from(map.len())),
        Repr::Undefined | Repr::None => Ok(Value::from(0)),
        _ => match value.as_str() {
            Some(s) => Ok(Value::from(s.chars().count())),
            None => Err(invalid(format!("{} has no length", value.kind().as_str()))),
        },
    }
}

/// The `first` filter (and `last`).
pub(crate) fn first_or_last(
    first: bool,
    value: Value,
    args: Arguments<'_>,
) -> Result<Value, Error> {
    let limits = args.limits;
    let name = if first { "first" } else { "last" };
    args.bind(&format!("filter `{name}`"), [])?;
    let all = items(&value, name, limits)?;
    let item = if first { all.first() } else { all.last() };
    Ok(item.cloned().unwrap_or_default())
}

/// The `reverse` filter.
pub(crate) fn reverse(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `reverse`", [])?;
    match value.as_str() {
        Some(_) => {
            let t = text_to_rewrite(&value, limits)?;
            Ok(Value::string(t.chars().rev().collect()))
        }
        None => Ok(Value::list(items(&value, "reverse", limits)?.iter().rev().cloned().collect())),
    }
}

/// The `sort` filter: stable, so with `reverse=true` equal items keep
/// their input order (the comparison is reversed, not the result).
pub(crate) fn sort(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [reverse, attr, case_sensitive] =
        args.bind("filter `sort`", ["reverse", "attribute", "case_sensitive"])?;
    let attr = Path::of(str_arg(&attr, "sort", "attribute")?, "sort", limits)?;
    let mut keyed: Vec<(Value, Value)> = items(&value, "sort", limits)?
        .iter()
        .map(|v| (attribute(v, attr.as_ref()), v.clone()))
        .collect();
    sort_keyed(&mut keyed, !case_sensitive.is_true(), reverse.is_true(), "sort")?;
    Ok(Value::list(keyed.into_iter().map(|(_, v)| v).collect()))
}

/// Where a kind goes in the order of [`order`]: minijinja's order of kinds.
fn kind_rank(value: &Value) -> u8 {
    match &value.0 {
        Repr::Undefined => 0,
        Repr::None => 1,
        Repr::Bool(_) | Repr::Int(_) | Repr::Float(_) => 3,
        Repr::Str(_) | Repr::Text(_) => 4,
        Repr::List(_) => 5,
        Repr::Map(_) => 6,
        Repr::Callable(_) | Repr::Module(_) => 7,
    }
}

/// The order `sort`, `dictsort` and `groupby` sort by (minijinja's):
/// kinds first (undefined, none, numbers with booleans as 0 and 1,
/// strings), then within a kind; strings case-folded when `fold`. `None`
/// for two lists, two maps, two macros or NaN, which have no order here.
pub(crate) fn order(a: &Value, b: &Value, fold: bool) -> Option<Ordering> {
    match kind_rank(a).cmp(&kind_rank(b)) {
        Ordering::Equal => {}
        different => return Some(different),
    }
    match (&a.0, &b.0) {
        (Repr::Undefined, _) | (Repr::None, _) => Some(Ordering::Equal),
        _ if fold => cmp_folded(a, b),
        _ => a.compare(b),
    }
}

/// Sorts `(key, item)` pairs by key, stably; `reverse` reverses the
/// comparison, so equal keys keep their input order either way (bug 9 of
/// issue 15).
fn sort_keyed(
    keyed: &mut [(Value, Value)],
    fold: bool,
    reverse: bool,
    filter: &str,
) -> Result<(), Error> {
    let mut failed = None;
    // Case folding compares as it goes: no lowercase copy of any key.
    keyed.sort_by(|a, b| {
        let order = order(&a.0, &b.0, fold).unwrap_or_else(|| {
            failed.get_or_insert_with(|| {
                if ops::is_nan(&a.0) || ops::is_nan(&b.0) {
                    "holding NaN (not a number has no order)".to_owned()
                } else {
                    format!("of {}s (they have no order)", a.0.kind().as_str())
                }
            });
            Ordering::Equal
        });
        if reverse { order.reverse() } else { order }
    });
    match failed {
        Some(what) if filter == "sort" => Err(invalid(format!("cannot sort a list {what}"))),
        Some(what) => Err(invalid(format!("`{filter}`: cannot sort a list {what}"))),
        None => Ok(()),
    }
}

/// The `unique` filter: the first of equal items, strings compared
/// case-insensitively unless `case_sensitive` (Jinja's default, bug 5 of
/// issue 15), by their `attribute` when one is given.
pub(crate) fn unique(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [case_sensitive, attr] = args.bind("filter `unique`", ["case_sensitive", "attribute"])?;
    let attr = Path::of(str_arg(&attr, "unique", "attribute")?, "unique", limits)?;
    let fold = !case_sensitive.is_true();
    let all = items(&value, "unique", limits)?;
    // An item that shares an earlier item's allocation is the same
    // value: no key needed. Strings are their own key (lowercased when
    // folded); other items are keyed by their JSON; all the keys built
    // together are bounded by the string limit.
    let mut shared = HashSet::new();
    let mut seen = HashSet::new();
    let mut key_bytes = 0;
    let mut out = Vec::new();
    for item in all.iter() {
        if attr.is_none() && item.identity().is_some_and(|id| !shared.insert(id)) {
            continue;
        }
        let picked;
        let compared = match &attr {
            None => item,
            Some(path) => {
                picked = path.get(item);
                &picked
            }
        };
        let key: Cow<'_, str> = match compared.as_str() {
            Some(s) if fold && s.chars().any(char::is_uppercase) => Cow::Owned(s.to_lowercase()),
            // Borrowed from the list when it is the item itself.
            Some(_) if attr.is_none() => Cow::Borrowed(item.as_str().unwrap_or_default()),
            Some(s) => Cow::Owned(s.to_owned()),
            None => {
                let normalized = match compared.0 {
                    Repr::Float(x) if x.fract() == 0.0 && x.abs() < 9e15 => Value::from(x as i64),
                    _ => compared.clone(),
                };
                let mut key = std::string::String::new();
                let room = limits.string_limit.saturating_sub(key_bytes);
                normalized.write_json(&mut key, None, room).map_err(string_too_long(limits))?;
                Cow::Owned(key)
            }
        };
        if let Cow::Owned(key) = &key {
            key_bytes += key.len();
            check_string_size(key_bytes, limits)?;
        }
        if seen.insert((compared.as_str().is_some(), key)) {
            out.push(item.clone());
        }
    }
    Ok(Value::list(out))
}

/// The `replace` filter.
pub(crate) fn replace(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [old, new, count] = args.bind("filter `replace`", ["old", "new", "count"])?;
    let (Some(old), Some(new)) =
        (str_arg(&old, "replace", "old")?, str_arg(&new, "replace", "new")?)
    else {
        return Err(bad("filter `replace` needs two strings: `replace(\"old\", \"new\")`"));
    };
    let t = text(&value, limits)?;
    let count = usize::try_from(int_arg(&count, -1, "replace", "count")?).ok();
    // The exact size first: the result is never built past the limit.
    let matches = match count {
        Some(0) => 0,
        _ if old.is_empty() => t.chars().count() + 1,
        _ => t.matches(old).count(),
    };
    let replaced = count.map_or(matches, |n| n.min(matches));
    let size = (t.len() - replaced * old.len()).saturating_add(replaced.saturating_mul(new.len()));
    check_string_size(size, limits)?;
    string(
        limits,
        match count {
            Some(n) => t.replacen(old, new, n),
            None => t.replace(old, new),
        },
    )
}

/// The `split` filter.
pub(crate) fn split(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [sep, max] = args.bind("filter `split`", ["sep", "maxsplit"])?;
    let t = text(&value, limits)?;
    let max = usize::try_from(int_arg(&max, -1, "split", "maxsplit")?).ok();
    let sep = str_arg(&sep, "split", "sep")?;
    if sep == Some("") {
        return Err(bad("filter `split`: the separator cannot be empty"));
    }
    // Counted before the list is made.
    let count = match sep {
        Some(sep) => {
            let all = t.matches(sep).count() + 1;
            max.map_or(all, |n| all.min(n.saturating_add(1)))
        }
        None => {
            let all = t.split_whitespace().count();
            max.map_or(all, |n| all.min(n.saturating_add(1)))
        }
    };
    check_items(count, "split", limits)?;
    let parts: Vec<Value> = match (sep, max) {
        (Some(sep), Some(n)) => t.splitn(n.saturating_add(1), sep).map(Value::str).collect(),
        (Some(sep), None) => t.split(sep).map(Value::str).collect(),
        (None, Some(n)) => split_whitespace_n(&t, n.saturating_add(1)).map(Value::str).collect(),
        (None, None) => t.split_whitespace().map(Value::str).collect(),
    };
    Ok(Value::list(parts))
}

/// Python's `str.split(None, n - 1)`: at most `n` words split at runs of
/// whitespace, leading whitespace skipped, the last part the rest of the
/// string with its inner whitespace kept and its trailing whitespace too
/// (minijinja's `splitn_whitespace`; bug 4 of issue 15).
fn split_whitespace_n(s: &str, n: usize) -> impl Iterator<Item = &str> {
    let mut rest = s.trim_start();
    let mut left = n;
    std::iter::from_fn(move || {
        if rest.is_empty() || left == 0 {
            return None;
        }
        left -= 1;
        if left == 0 {
            let last = rest;
            rest = "";
            return Some(last);
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        rest = rest[end..].trim_start();
        Some(word)
    })
}

/// The `int` filter.
pub(crate) fn to_int(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
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
        _ => match value.as_str().and_then(parse_number) {
            Some(Value(Repr::Int(n))) => Value::from(n),
            Some(Value(Repr::Float(x))) => truncate(x),
            _ => default,
        },
    })
}

/// The `float` filter.
pub(crate) fn to_float(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let [default] = args.bind("filter `float`", ["default"])?;
    let default = if default.is_undefined() { Value::from(0.0) } else { default };
    Ok(match &value.0 {
        Repr::Int(n) => Value::from(*n as f64),
        Repr::Float(_) => value,
        Repr::Bool(b) => Value::from(f64::from(u8::from(*b))),
        _ => value
            .as_str()
            .and_then(parse_number)
            .and_then(|v| v.as_f64())
            .map_or(default, Value::from),
    })
}

/// The `string` filter.
pub(crate) fn to_string(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `string`", [])?;
    match value.as_str() {
        Some(_) => Ok(value),
        None => Ok(Value::string(text(&value, limits)?.into_owned())),
    }
}

/// The `bool` filter.
pub(crate) fn to_bool(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    args.bind("filter `bool`", [])?;
    Ok(Value::from(value.is_true()))
}

/// The `round` filter.
pub(crate) fn round(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let [precision, method] = args.bind("filter `round`", ["precision", "method"])?;
    let precision = int_arg(&precision, 0, "round", "precision")?.clamp(-300, 300);
    let Some(x) = value.as_f64() else {
        return Err(invalid(format!("`round` needs a number, not {}", value.kind().as_str())));
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

/// The `abs` filter.
pub(crate) fn abs(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    args.bind("filter `abs`", [])?;
    match value.0 {
        Repr::Int(n) => {
            n.checked_abs().map(Value::from).ok_or_else(|| invalid("integer overflow in `abs`"))
        }
        Repr::Float(x) => Ok(Value::from(x.abs())),
        _ => Err(invalid(format!("`abs` needs a number, not {}", value.kind().as_str()))),
    }
}

/// The `min` filter (and `max`).
pub(crate) fn min_or_max(min: bool, value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let name = if min { "min" } else { "max" };
    let [attr] = args.bind(&format!("filter `{name}`"), ["attribute"])?;
    let attr = Path::of(str_arg(&attr, name, "attribute")?, name, limits)?;
    let mut best: Option<(Value, Value)> = None;
    for item in items(&value, name, limits)?.iter() {
        let key = attribute(item, attr.as_ref());
        let better = match &best {
            None => true,
            Some((b, _)) => {
                let order = key.compare(b).ok_or_else(|| {
                    invalid(format!("`{name}`: cannot compare {}", ops::unordered(&key, b)))
                })?;
                if min { order.is_lt() } else { order.is_gt() }
            }
        };
        if better {
            best = Some((key, item.clone()));
        }
    }
    Ok(best.map(|(_, v)| v).unwrap_or_default())
}

/// The `sum` filter.
pub(crate) fn sum(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [attr, start] = args.bind("filter `sum`", ["attribute", "start"])?;
    let attr = Path::of(str_arg(&attr, "sum", "attribute")?, "sum", limits)?;
    let mut total = if start.is_undefined() { Value::from(0) } else { start };
    for item in items(&value, "sum", limits)?.iter() {
        total = ops::binary(BinOp::Add, &total, &attribute(item, attr.as_ref()), limits)?;
    }
    Ok(total)
}

/// The `indent` filter.
pub(crate) fn indent(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [width, first, blank] = args.bind("filter `indent`", ["width", "first", "blank"])?;
    let pad = match width.as_str() {
        Some(s) => Cow::Borrowed(s),
        None => {
            let n = int_arg(&width, 4, "indent", "width")?;
            let n = usize::try_from(n).unwrap_or(0);
            check_string_size(n, limits)?;
            Cow::Owned(" ".repeat(n))
        }
    };
    let t = text(&value, limits)?;
    let mut out = std::string::String::new();
    for (i, line) in t.split_inclusive('\n').enumerate() {
        let is_blank = line.trim().is_empty();
        let padded = (i > 0 || first.is_true()) && (blank.is_true() || !is_blank);
        let pad = if padded { &*pad } else { "" };
        check_string_size(out.len() + pad.len() + line.len(), limits)?;
        out.push_str(pad);
        out.push_str(line);
    }
    Ok(Value::string(out))
}

/// The `truncate` filter.
pub(crate) fn truncate(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [length, killwords, end, leeway] =
        args.bind("filter `truncate`", ["length", "killwords", "end", "leeway"])?;
    let length = usize::try_from(int_arg(&length, 255, "truncate", "length")?).unwrap_or(0);
    let leeway = usize::try_from(int_arg(&leeway, 5, "truncate", "leeway")?).unwrap_or(0);
    let end = str_arg(&end, "truncate", "end")?.unwrap_or("...");
    let t = text(&value, limits)?;
    let count = t.chars().count();
    if count <= length.saturating_add(leeway) {
        return Ok(match t {
            // The whole string: shared, as data.
            Cow::Borrowed(_) => value.clone().into_data(),
            Cow::Owned(t) => Value::string(t),
        });
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

/// The `wordcount` filter.
pub(crate) fn wordcount(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `wordcount`", [])?;
    let t = text(&value, limits)?;
    let words =
        t.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).count();
    Ok(Value::from(words))
}

/// The `tojson` filter.
pub(crate) fn tojson(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [indent] = args.bind("filter `tojson`", ["indent"])?;
    let indent = match indent.0 {
        Repr::Undefined | Repr::None | Repr::Bool(false) => None,
        // Jinja's `tojson(true)`: two spaces.
        Repr::Bool(true) => Some(2),
        Repr::Int(n) => Some(usize::try_from(n).unwrap_or(0).min(64)),
        _ => return Err(bad("`tojson`: `indent` must be an integer")),
    };
    let mut out = std::string::String::new();
    value
        .write_json(&mut out, Some(indent), limits.string_limit)
        .map_err(string_too_long(limits))?;
    Ok(Value::string(out))
}

/// The `items` filter.
pub(crate) fn map_items(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `items`", [])?;
    match &value.0 {
        Repr::Map(map) => {
            check_items(map.len(), "items", limits)?;
            Ok(Value::list(
                map.iter().map(|(k, v)| Value::tuple(vec![map.key(k), v.clone()])).collect(),
            ))
        }
        Repr::Undefined | Repr::None => Ok(Value::list(Vec::new())),
        _ => Err(invalid(format!("`items` needs a map, not {}", value.kind().as_str()))),
    }
}

/// The `list` filter.
pub(crate) fn to_list(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    args.bind("filter `list`", [])?;
    Ok(Value::list(items(&value, "list", limits)?.to_vec()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The ASCII path orders as folding every char does, whatever
        /// mix of ASCII, capitals and non-ASCII (`İ` folds to two chars,
        /// the Kelvin sign to an ASCII `k`) the strings hold.
        #[test]
        fn cmp_folded_str_is_char_folding(x in "[aAkKzZ_0é\u{130}\u{212a}ß]{0,6}", y in "[aAkKzZ_0é\u{130}\u{212a}ß]{0,6}") {
            let folded = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<Vec<_>>();
            prop_assert_eq!(super::cmp_folded_str(&x, &y), folded(&x).cmp(&folded(&y)));
        }
    }
}
