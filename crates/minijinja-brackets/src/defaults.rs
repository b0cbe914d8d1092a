//! The built-in filters, tests and functions by name, aliases included:
//! the one table an [`Environment`](crate::Environment) starts from, and
//! where a host's own are added the same way (minijinja's `defaults.rs` is
//! the model).

use crate::callable::Work::{Lookup, Plain};
use crate::callable::{Filter, Function, Test};
use crate::filters as f;
use crate::functions;
use crate::tests as t;
use crate::value::ops::CmpOp;

/// Every built-in filter by name, aliases included.
pub(crate) fn filters() -> Vec<(&'static str, Filter)> {
    let default = Filter::new(f::default).guarding();
    let length = Filter::new(f::length);
    let escape = Filter::new(f::escape);
    vec![
        ("upper", Filter::new(f::upper)),
        ("lower", Filter::new(f::lower)),
        ("capitalize", Filter::new(f::capitalize)),
        ("title", Filter::new(f::title)),
        ("trim", Filter::new(f::trim)),
        ("wrap", Filter::new(f::wrap)),
        ("default", default.clone()),
        ("d", default),
        ("join", Filter::new(f::join).with_work(Plain(f::join_work)).with_path(Some(1))),
        ("length", length.clone()),
        ("count", length),
        ("first", Filter::new(|v, a| f::first_or_last(true, v, a))),
        ("last", Filter::new(|v, a| f::first_or_last(false, v, a))),
        ("reverse", Filter::new(f::reverse)),
        ("sort", Filter::new(f::sort).with_work(Plain(f::sort_work)).with_path(Some(1))),
        ("unique", Filter::new(f::unique).with_work(Plain(f::unique_work)).with_path(Some(1))),
        ("replace", Filter::new(f::replace)),
        ("split", Filter::new(f::split)),
        ("int", Filter::new(f::to_int)),
        ("float", Filter::new(f::to_float)),
        ("string", Filter::new(f::to_string)),
        ("bool", Filter::new(f::to_bool)),
        ("round", Filter::new(f::round)),
        ("abs", Filter::new(f::abs)),
        (
            "min",
            Filter::new(|v, a| f::min_or_max(true, v, a))
                .with_work(Plain(f::min_work))
                .with_path(Some(0)),
        ),
        (
            "max",
            Filter::new(|v, a| f::min_or_max(false, v, a))
                .with_work(Plain(f::max_work))
                .with_path(Some(0)),
        ),
        ("sum", Filter::new(f::sum).with_work(Plain(f::sum_work)).with_path(Some(0))),
        ("indent", Filter::new(f::indent)),
        ("truncate", Filter::new(f::truncate)),
        ("wordcount", Filter::new(f::wordcount)),
        ("tojson", Filter::new(f::tojson)),
        ("items", Filter::new(f::map_items)),
        ("list", Filter::new(f::to_list)),
        ("dictsort", Filter::new(f::dictsort).with_work(Plain(f::sort_work))),
        ("groupby", Filter::new(f::groupby).with_work(Plain(f::groupby_work)).with_path(Some(0))),
        ("map", Filter::looking_up(f::map).with_work(Lookup(f::map_work)).with_path(None)),
        ("select", Filter::looking_up(f::select).with_work(Lookup(f::select_work))),
        ("reject", Filter::looking_up(f::reject).with_work(Lookup(f::select_work))),
        (
            "selectattr",
            Filter::looking_up(f::selectattr)
                .with_work(Lookup(f::selectattr_work))
                .with_path(Some(0)),
        ),
        (
            "rejectattr",
            Filter::looking_up(f::rejectattr)
                .with_work(Lookup(f::selectattr_work))
                .with_path(Some(0)),
        ),
        ("batch", Filter::new(f::batch)),
        ("slice", Filter::new(f::slice)),
        ("zip", Filter::new(f::zip)),
        ("chain", Filter::new(f::chain)),
        ("attr", Filter::new(f::attr)),
        ("lines", Filter::new(f::lines)),
        ("urlencode", Filter::new(f::urlencode)),
        ("escape", escape.clone()),
        ("e", escape),
        ("safe", Filter::new(f::safe)),
        ("pprint", Filter::new(f::pprint)),
    ]
}

/// A test of the value alone, named `name`.
fn is(name: &'static str, holds: fn(&crate::Value) -> bool) -> (&'static str, Test) {
    (name, Test::new(move |v, a| t::is(name, v, a, holds)))
}

/// A comparison test, named `name`.
fn compare(name: &'static str, op: CmpOp) -> (&'static str, Test) {
    (name, Test::new(move |v, a| t::compare(op, name, v, a)).with_walk(op))
}

/// Every built-in test by name, aliases included.
pub(crate) fn tests() -> Vec<(&'static str, Test)> {
    let guarding = |(name, test): (&'static str, Test)| (name, test.guarding());
    vec![
        guarding(is("defined", t::defined)),
        guarding(is("undefined", t::undefined)),
        guarding(is("none", t::none_value)),
        is("number", t::number),
        is("integer", t::integer_value),
        is("float", t::float),
        is("string", t::string),
        is("boolean", t::boolean),
        is("true", t::is_true),
        is("false", t::is_false),
        is("sequence", t::sequence),
        is("mapping", t::mapping),
        is("iterable", t::iterable),
        ("odd", Test::new(|v, a| t::parity(1, "odd", v, a))),
        ("even", Test::new(|v, a| t::parity(0, "even", v, a))),
        ("divisibleby", Test::new(|v, a| t::divisible_by("divisibleby", v, a))),
        compare("eq", CmpOp::Eq),
        compare("equalto", CmpOp::Eq),
        compare("==", CmpOp::Eq),
        ("sameas", Test::new(|v, a| t::same_as("sameas", v, a)).with_walk(CmpOp::Eq)),
        compare("ne", CmpOp::Ne),
        compare("!=", CmpOp::Ne),
        compare("lt", CmpOp::Lt),
        compare("lessthan", CmpOp::Lt),
        compare("<", CmpOp::Lt),
        compare("le", CmpOp::Le),
        compare("<=", CmpOp::Le),
        compare("gt", CmpOp::Gt),
        compare("greaterthan", CmpOp::Gt),
        compare(">", CmpOp::Gt),
        compare("ge", CmpOp::Ge),
        compare(">=", CmpOp::Ge),
        ("in", Test::new(|v, a| t::is_in("in", v, a)).with_walk(CmpOp::In)),
        ("startingwith", Test::new(|v, a| t::affix(true, "startingwith", v, a))),
        ("endingwith", Test::new(|v, a| t::affix(false, "endingwith", v, a))),
        ("lower", Test::new(|v, a| t::case(false, "lower", v, a))),
        ("upper", Test::new(|v, a| t::case(true, "upper", v, a))),
        ("filter", Test::looking_up(|r, v, a| t::names(true, "filter", r, v, a))),
        ("test", Test::looking_up(|r, v, a| t::names(false, "test", r, v, a))),
        is("safe", f::is_safe),
        is("escaped", f::is_safe),
    ]
}

/// Every built-in function by name, aliases included.
pub(crate) fn functions() -> Vec<(&'static str, Function)> {
    let dict = Function::new(functions::dict);
    vec![("range", Function::new(functions::range)), ("dict", dict.clone()), ("namespace", dict)]
}
