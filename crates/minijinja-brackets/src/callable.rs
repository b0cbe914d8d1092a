//! What a registry holds: filters, tests and functions, built-in or added
//! by a host, all with one signature (a value where there is one, then
//! [`Arguments`]), and the traits that let a host register either that
//! signature or the older positional-only one.

use std::marker::PhantomData;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::arguments::{ArgType, Arguments, IntoResult, bad, typed_arg};
use crate::error::Error;
use crate::value::ops::CmpOp;
use crate::value::{Repr, Value};

/// The one signature of filters: `value -> name(args)`.
pub(crate) type FilterRun = dyn Fn(Value, Arguments<'_>) -> Result<Value, Error> + Send + Sync;
/// The one signature of tests: `value is name(args)`.
pub(crate) type TestRun = dyn Fn(&Value, Arguments<'_>) -> Result<bool, Error> + Send + Sync;
/// The one signature of functions: `name(args)`.
pub(crate) type FunctionRun = dyn Fn(Arguments<'_>) -> Result<Value, Error> + Send + Sync;

/// How a filter of the registry runs: handed the registry the render runs
/// with, so that `map("upper")` and `select("odd")` find the filters and
/// tests they name (a host's filter never sees it).
pub(crate) type FilterCall =
    dyn Fn(&Registry, Value, Arguments<'_>) -> Result<Value, Error> + Send + Sync;
/// How a test of the registry runs (`is filter` reads the registry).
pub(crate) type TestCall =
    dyn Fn(&Registry, &Value, Arguments<'_>) -> Result<bool, Error> + Send + Sync;

/// The fuel a filter's work costs beyond one pass over its input's items.
#[derive(Clone, Copy)]
pub(crate) enum Work {
    /// Known from the input and the arguments.
    Plain(fn(&Value, &Arguments<'_>) -> u64),
    /// Known once the filter or test it calls is looked up (`map`, `select`).
    Lookup(fn(&Registry, &Value, &Arguments<'_>) -> u64),
}

/// A filter in a registry.
#[derive(Clone)]
pub(crate) struct Filter {
    run: Arc<FilterCall>,
    /// The fuel its work costs beyond one pass over its input's items
    /// (which the renderer charges for every filter), paid before it runs.
    work: Option<Work>,
    /// Where it takes an `attribute` path besides the `attribute` keyword
    /// (`Some(None)`: the keyword only), whose walk over every item is paid
    /// before anything else, the estimate of `work` included.
    path: Option<Option<usize>>,
    /// Whether an undefined input is expected (`default`): the analysis
    /// does not report it.
    pub(crate) guards: bool,
}

impl Filter {
    pub(crate) fn new(
        run: impl Fn(Value, Arguments<'_>) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Filter {
        Filter {
            run: Arc::new(move |_, value, args| run(value, args)),
            work: None,
            path: None,
            guards: false,
        }
    }

    /// A built-in that calls the filters or tests it is given by name.
    pub(crate) fn looking_up(
        run: fn(&Registry, Value, Arguments<'_>) -> Result<Value, Error>,
    ) -> Filter {
        Filter { run: Arc::new(run), work: None, path: None, guards: false }
    }

    pub(crate) fn guarding(mut self) -> Filter {
        self.guards = true;
        self
    }

    /// A host's filter.
    pub(crate) fn from_run(run: Arc<FilterRun>) -> Filter {
        Filter {
            run: Arc::new(move |_, value, args| run(value, args)),
            work: None,
            path: None,
            guards: false,
        }
    }

    pub(crate) fn with_work(mut self, work: Work) -> Filter {
        self.work = Some(work);
        self
    }

    /// A filter that walks an `attribute` path over its items, given as
    /// the keyword or (`at`) the positional argument at that index.
    pub(crate) fn with_path(mut self, at: Option<usize>) -> Filter {
        self.path = Some(at);
        self
    }

    /// The fuel of walking its `attribute` path over `value`'s items, from
    /// the path's length alone: paid before the filter (and its
    /// [`Filter::work`] estimate) walks anything.
    pub(crate) fn path_work(&self, value: &Value, args: &Arguments<'_>) -> u64 {
        let Some(at) = self.path else { return 0 };
        let attr = args.keyword("attribute").or_else(|| at.and_then(|i| args.positional.get(i)));
        if attr.is_none() {
            return 0;
        }
        let items = match &value.0 {
            Repr::List(items) => items.len(),
            Repr::Map(map) => map.len(),
            _ => value.as_str().map_or(0, str::len),
        } as u64;
        // One unit per 64 steps and per 256 bytes of keys compared, for
        // every item (a 1 MB path over 100 000 items is 400 million units,
        // where walking it was minutes of work).
        match attr.map(|a| (&a.0, a.as_str())) {
            Some((Repr::Int(_), _)) => items / 64,
            Some((_, Some(path))) => {
                let steps = path_steps(path) as u64;
                steps.saturating_mul(items) / 64 + (path.len() as u64).saturating_mul(items) / 256
            }
            _ => 0,
        }
    }

    /// Runs the filter in a render whose registry is `registry`.
    pub(crate) fn call(
        &self,
        registry: &Registry,
        value: Value,
        args: Arguments<'_>,
    ) -> Result<Value, Error> {
        (self.run)(registry, value, args)
    }

    /// The fuel the call would cost beyond one pass over `value`'s items.
    pub(crate) fn work(&self, registry: &Registry, value: &Value, args: &Arguments<'_>) -> u64 {
        match self.work {
            None => 0,
            Some(Work::Plain(work)) => work(value, args),
            Some(Work::Lookup(work)) => work(registry, value, args),
        }
    }
}

/// The steps of an attribute path (`"a.0.b"` has three), counted without
/// splitting it.
pub(crate) fn path_steps(path: &str) -> usize {
    path.bytes().filter(|&b| b == b'.').count() + 1
}

/// A test in a registry.
#[derive(Clone)]
pub(crate) struct Test {
    run: Arc<TestCall>,
    /// The comparison whose walk over both operands the renderer charges
    /// before the test runs (`eq`, `in`, ...).
    pub(crate) walk: Option<CmpOp>,
    /// Whether an undefined input is expected (`is defined`): the analysis
    /// does not report it.
    pub(crate) guards: bool,
}

impl Test {
    pub(crate) fn new(
        run: impl Fn(&Value, Arguments<'_>) -> Result<bool, Error> + Send + Sync + 'static,
    ) -> Test {
        Test { run: Arc::new(move |_, value, args| run(value, args)), walk: None, guards: false }
    }

    /// A built-in that reads the registry (`is filter`, `is test`).
    pub(crate) fn looking_up(
        run: impl Fn(&Registry, &Value, Arguments<'_>) -> Result<bool, Error> + Send + Sync + 'static,
    ) -> Test {
        Test { run: Arc::new(run), walk: None, guards: false }
    }

    pub(crate) fn guarding(mut self) -> Test {
        self.guards = true;
        self
    }

    /// A host's test.
    pub(crate) fn from_run(run: Arc<TestRun>) -> Test {
        Test { run: Arc::new(move |_, value, args| run(value, args)), walk: None, guards: false }
    }

    pub(crate) fn with_walk(mut self, op: CmpOp) -> Test {
        self.walk = Some(op);
        self
    }

    /// Runs the test in a render whose registry is `registry`.
    pub(crate) fn call(
        &self,
        registry: &Registry,
        value: &Value,
        args: Arguments<'_>,
    ) -> Result<bool, Error> {
        (self.run)(registry, value, args)
    }
}

/// A function in a registry.
#[derive(Clone)]
pub(crate) struct Function {
    pub(crate) run: Arc<FunctionRun>,
}

impl Function {
    pub(crate) fn new(
        run: impl Fn(Arguments<'_>) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Function {
        Function { run: Arc::new(run) }
    }
}

/// What [`Environment::add_filter`](crate::Environment::add_filter)
/// accepts: a closure or function taking `(Value, Arguments<'_>)` (the
/// signature of the built-in filters, keyword arguments included), or one
/// taking `(&Value, &[Value])` (positional arguments only; a keyword
/// argument is a `bad_arguments` error), or a typed one: the value and up
/// to four positional arguments as [`ArgType`]s, returning an
/// [`IntoResult`], each converted when called (a value of another kind,
/// a missing argument, one too many or a keyword is a `bad_arguments`
/// error naming the argument). `Marker` is the signature, so that all are
/// accepted; name the parameter types of a closure.
///
/// ```
/// let mut env = minijinja_brackets::Environment::new();
/// env.add_filter("repeat", |s: String, n: usize| s.repeat(n));
/// let out = env.render_str("[[ 'ab' -> repeat(2) ]]", &Default::default(), 0)?;
/// assert_eq!(out.output, "abab");
/// let err = env.render_str("[[ 'ab' -> repeat('2') ]]", &Default::default(), 0).unwrap_err();
/// assert_eq!(err.to_string(), "filter `repeat`: argument 1 must be an integer of at least 0, not a string");
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
///
/// Any other signature is refused when compiling, with a note that lists
/// the accepted ones:
///
/// ```compile_fail
/// let mut env = minijinja_brackets::Environment::new();
/// env.add_filter("shout", |s: std::path::PathBuf| s.display().to_string());
/// ```
#[diagnostic::on_unimplemented(
    message = "this is not a filter `add_filter` accepts",
    label = "not a filter",
    note = "a filter is `Fn(Value, Arguments<'_>) -> Result<Value, Error>`, \
            `Fn(&Value, &[Value]) -> Result<Value, Error>`, or typed: up to 5 parameters of \
            `ArgType`s (`Value`, `String`, `i64`, `usize`, `f64`, `bool`, `Vec<T>`, `Option<T>`) \
            returning an `IntoResult` (`|s: String, n: i64| s.repeat(n as usize)`); \
            `Send + Sync + 'static`; name the closure's parameter types"
)]
pub trait IntoFilter<Marker>: Send + Sync + 'static {
    /// The filter, registered as `name`.
    #[doc(hidden)]
    fn into_filter(self, name: &str) -> Box<FilterRun>;
}

impl<F> IntoFilter<fn(Value, Arguments<'_>)> for F
where
    F: Fn(Value, Arguments<'_>) -> Result<Value, Error> + Send + Sync + 'static,
{
    fn into_filter(self, _: &str) -> Box<FilterRun> {
        Box::new(self)
    }
}

impl<F> IntoFilter<fn(&Value, &[Value])> for F
where
    F: Fn(&Value, &[Value]) -> Result<Value, Error> + Send + Sync + 'static,
{
    fn into_filter(self, name: &str) -> Box<FilterRun> {
        let name = name.to_owned();
        Box::new(move |value, args| {
            if !args.keywords.is_empty() {
                return Err(bad(format!("filter `{name}` takes no keyword arguments")));
            }
            self(&value, &args.positional)
        })
    }
}

/// What [`Environment::add_test`](crate::Environment::add_test) accepts:
/// a closure or function taking `(&Value, Arguments<'_>)` and returning
/// whether the test passes, or a typed one (the value and up to four
/// arguments as [`ArgType`]s, returning `bool`), as for filters.
#[diagnostic::on_unimplemented(
    message = "this is not a test `add_test` accepts",
    label = "not a test",
    note = "a test is `Fn(&Value, Arguments<'_>) -> Result<bool, Error>`, or typed: up to 5 \
            parameters of `ArgType`s returning `bool` (`|s: String, n: usize| s.len() > n`); \
            `Send + Sync + 'static`; name the closure's parameter types"
)]
pub trait IntoTest<Marker>: Send + Sync + 'static {
    /// The test, registered as `name`.
    #[doc(hidden)]
    fn into_test(self, name: &str) -> Box<TestRun>;
}

impl<F> IntoTest<fn(&Value, Arguments<'_>)> for F
where
    F: Fn(&Value, Arguments<'_>) -> Result<bool, Error> + Send + Sync + 'static,
{
    fn into_test(self, _: &str) -> Box<TestRun> {
        Box::new(self)
    }
}

/// What [`Environment::add_function`](crate::Environment::add_function)
/// accepts: a closure or function taking `Arguments<'_>` (the signature of
/// the built-in functions, keyword arguments included), or one taking
/// `&[Value]` (positional arguments only; a keyword argument is a
/// `bad_arguments` error), or a typed one (up to four arguments as
/// [`ArgType`]s, returning an [`IntoResult`]), as for filters. Name the
/// parameter types of a closure.
#[diagnostic::on_unimplemented(
    message = "this is not a function `add_function` accepts",
    label = "not a function",
    note = "a function is `Fn(Arguments<'_>) -> Result<Value, Error>`, \
            `Fn(&[Value]) -> Result<Value, Error>`, or typed: up to 4 parameters of `ArgType`s \
            returning an `IntoResult` (`|name: String| name.to_uppercase()`); \
            `Send + Sync + 'static`; name the closure's parameter types"
)]
pub trait IntoFunction<Marker>: Send + Sync + 'static {
    /// The function, registered as `name`.
    #[doc(hidden)]
    fn into_function(self, name: &str) -> Box<FunctionRun>;
}

impl<F> IntoFunction<fn(Arguments<'_>)> for F
where
    F: Fn(Arguments<'_>) -> Result<Value, Error> + Send + Sync + 'static,
{
    fn into_function(self, _: &str) -> Box<FunctionRun> {
        Box::new(self)
    }
}

impl<F> IntoFunction<fn(&[Value])> for F
where
    F: Fn(&[Value]) -> Result<Value, Error> + Send + Sync + 'static,
{
    fn into_function(self, name: &str) -> Box<FunctionRun> {
        let name = name.to_owned();
        Box::new(move |args| {
            if !args.keywords.is_empty() {
                return Err(bad(format!("function `{name}` takes no keyword arguments")));
            }
            self(&args.positional)
        })
    }
}

/// The marker of a host filter, test or function whose parameters are
/// [`ArgType`]s (`Args`, a tuple) and whose result is `R`.
#[doc(hidden)]
#[derive(Debug)]
pub struct Typed<Args, R>(PhantomData<fn(Args) -> R>);

/// The positional arguments of a typed callee `what` taking at most `most`
/// of them: no keyword, not too many.
fn typed_positional<'a>(
    what: &str,
    args: &'a Arguments<'_>,
    most: usize,
) -> Result<&'a [Value], Error> {
    if !args.keywords.is_empty() {
        return Err(bad(format!("{what} takes no keyword arguments")));
    }
    let given = args.positional.len();
    if given > most {
        let plural = if most == 1 { "" } else { "s" };
        return Err(bad(format!("{what} takes {most} argument{plural}, not {given}")));
    }
    Ok(&args.positional)
}

macro_rules! typed {
    ($most:expr; $($ty:ident $var:ident $at:tt),*) => {
        impl<F, V, $($ty,)* R> IntoFilter<Typed<(V, $($ty,)*), R>> for F
        where
            F: Fn(V, $($ty),*) -> R + Send + Sync + 'static,
            V: ArgType,
            $($ty: ArgType,)*
            R: IntoResult,
        {
            fn into_filter(self, name: &str) -> Box<FilterRun> {
                let what = format!("filter `{name}`");
                Box::new(move |value, args| {
                    let _given = typed_positional(&what, &args, $most)?;
                    let value = typed_arg::<V>(&what, None, Some(&value))?;
                    $(let $var = typed_arg::<$ty>(&what, Some($at), _given.get($at))?;)*
                    self(value, $($var),*).into_result()
                })
            }
        }

        impl<F, V, $($ty,)*> IntoTest<Typed<(V, $($ty,)*), bool>> for F
        where
            F: Fn(V, $($ty),*) -> bool + Send + Sync + 'static,
            V: ArgType,
            $($ty: ArgType,)*
        {
            fn into_test(self, name: &str) -> Box<TestRun> {
                let what = format!("test `{name}`");
                Box::new(move |value, args| {
                    let _given = typed_positional(&what, &args, $most)?;
                    let value = typed_arg::<V>(&what, None, Some(value))?;
                    $(let $var = typed_arg::<$ty>(&what, Some($at), _given.get($at))?;)*
                    Ok(self(value, $($var),*))
                })
            }
        }

        impl<F, $($ty,)* R> IntoFunction<Typed<($($ty,)*), R>> for F
        where
            F: Fn($($ty),*) -> R + Send + Sync + 'static,
            $($ty: ArgType,)*
            R: IntoResult,
        {
            fn into_function(self, name: &str) -> Box<FunctionRun> {
                let what = format!("function `{name}`");
                Box::new(move |args| {
                    let _given = typed_positional(&what, &args, $most)?;
                    $(let $var = typed_arg::<$ty>(&what, Some($at), _given.get($at))?;)*
                    self($($var),*).into_result()
                })
            }
        }
    };
}

typed!(0;);
typed!(1; A a 0);
typed!(2; A a 0, B b 1);
typed!(3; A a 0, B b 1, C c 2);
typed!(4; A a 0, B b 1, C c 2, D d 3);

/// The filters, tests and functions by name: the built-ins of
/// `defaults.rs` first, then what a host adds (replacing a built-in keeps
/// its place), so suggestions are found in one order. Built in
/// `environment.rs` (its `Default` holds the built-ins of `defaults.rs`);
/// defined here, below the filters, so that the built-ins that call
/// filters and tests by name (`map`, `select`, `is filter`) are handed it
/// (see [`Filter::call`]).
#[derive(Clone)]
pub(crate) struct Registry {
    pub(crate) filters: IndexMap<Arc<str>, Filter>,
    pub(crate) tests: IndexMap<Arc<str>, Test>,
    pub(crate) functions: IndexMap<Arc<str>, Function>,
    /// What the host added, for `Debug`.
    pub(crate) host: HostNames,
}

/// The names a host added, for `Debug`.
#[derive(Clone, Default)]
pub(crate) struct HostNames {
    pub(crate) filters: Vec<String>,
    pub(crate) tests: Vec<String>,
    pub(crate) functions: Vec<String>,
}

impl Registry {
    /// A known filter name close to `name`, for "did you mean".
    pub(crate) fn suggest_filter(&self, name: &str) -> Option<&str> {
        crate::suggest::closest(name, self.filters.keys().map(|n| &**n))
    }

    /// A known test name close to `name`, for "did you mean".
    pub(crate) fn suggest_test(&self, name: &str) -> Option<&str> {
        crate::suggest::closest(name, self.tests.keys().map(|n| &**n))
    }

    pub(crate) fn function(&self, name: &str) -> Option<&Function> {
        self.functions.get(name)
    }
}
