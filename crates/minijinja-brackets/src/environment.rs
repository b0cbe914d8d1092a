//! The [`Environment`]: configuration, limits and the filter, test and
//! function registries; it compiles templates.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::context::{Context, Rendered};
use crate::error::Error;
use crate::filters::BuiltinFilter;
use crate::functions::BuiltinFunction;
use crate::limits::Limits;
use crate::template::Template;
use crate::tests::BuiltinTest;
use crate::value::Value;

/// A filter a host adds: `(value, positional arguments) -> value`.
type HostFilter = Arc<dyn Fn(&Value, &[Value]) -> Result<Value, Error> + Send + Sync>;
/// A function a host adds: `(positional arguments) -> value`.
type HostFunction = Arc<dyn Fn(&[Value]) -> Result<Value, Error> + Send + Sync>;

/// A filter resolved at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FilterRef {
    Builtin(BuiltinFilter),
    /// An index into the environment's host filters.
    Host(usize),
}

/// A test resolved at compile time.
pub(crate) type TestRef = BuiltinTest;

/// A function found at render time.
pub(crate) enum Function<'e> {
    Builtin(BuiltinFunction),
    Host(&'e HostFunction),
}

/// Configuration and registries shared by the templates it compiles.
///
/// ```
/// use minijinja_brackets::{Context, Environment, Value};
///
/// let mut env = Environment::new();
/// env.add_filter("shout", |v: &Value, _: &[Value]| Ok(Value::from(format!("{v}!"))));
/// let template = env.compile("[[ name -> shout ]]")?;
/// let mut context = Context::default();
/// context.state.insert("name".into(), "Ann".into());
/// assert_eq!(template.render(&context, 0)?.output, "Ann!");
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct Environment {
    limits: Limits,
    strict: bool,
    filters: Vec<HostFilter>,
    filter_names: HashMap<String, usize>,
    functions: HashMap<String, HostFunction>,
}

impl fmt::Debug for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut filters: Vec<&String> = self.filter_names.keys().collect();
        filters.sort();
        let mut functions: Vec<&String> = self.functions.keys().collect();
        functions.sort();
        f.debug_struct("Environment")
            .field("limits", &self.limits)
            .field("strict", &self.strict)
            .field("host_filters", &filters)
            .field("host_functions", &functions)
            .finish()
    }
}

impl Environment {
    /// An environment with the built-in filters, tests and functions, the
    /// default [`Limits`] and lenient undefined values.
    pub fn new() -> Environment {
        Environment::default()
    }

    /// The limits compiles and renders run under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Replaces the limits.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Whether undefined values are strict.
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// Strict mode: printing an undefined value (`[[ missing ]]`, or `~`
    /// with one) or iterating one is an `undefined_error`. Off by default:
    /// undefined prints as nothing and iterates as empty.
    pub fn set_strict(&mut self, strict: bool) {
        self.strict = strict;
    }

    /// Adds (or replaces) a filter. A host filter named like a built-in one
    /// takes its place in templates compiled afterwards.
    pub fn add_filter<F>(&mut self, name: impl Into<String>, filter: F)
    where
        F: Fn(&Value, &[Value]) -> Result<Value, Error> + Send + Sync + 'static,
    {
        let name = name.into();
        match self.filter_names.get(&name) {
            Some(&index) => self.filters[index] = Arc::new(filter),
            None => {
                self.filter_names.insert(name, self.filters.len());
                self.filters.push(Arc::new(filter));
            }
        }
    }

    /// Adds (or replaces) a global function, callable as `name(args)`.
    /// Macros of the same name take precedence.
    pub fn add_function<F>(&mut self, name: impl Into<String>, function: F)
    where
        F: Fn(&[Value]) -> Result<Value, Error> + Send + Sync + 'static,
    {
        self.functions.insert(name.into(), Arc::new(function));
    }

    /// Compiles `source` into a reusable [`Template`].
    ///
    /// # Errors
    ///
    /// A `syntax_error` for malformed templates (with the position of the
    /// problem, or of the opening tag of an unclosed block), an
    /// `unknown_filter` or `unknown_test` for a name this environment does
    /// not know, wherever it appears.
    pub fn compile<'s>(&self, source: &'s str) -> Result<Template<'_, 's>, Error> {
        Template::compile(self, source)
    }

    /// Compiles and renders in one step.
    ///
    /// # Errors
    ///
    /// As [`Environment::compile`] and [`Template::render`].
    pub fn render_str(
        &self,
        source: &str,
        context: &Context,
        seed: u64,
    ) -> Result<Rendered, Error> {
        self.compile(source)?.render(context, seed)
    }

    pub(crate) fn lookup_filter(&self, name: &str) -> Option<FilterRef> {
        match self.filter_names.get(name) {
            Some(&index) => Some(FilterRef::Host(index)),
            None => BuiltinFilter::lookup(name).map(FilterRef::Builtin),
        }
    }

    /// A known filter name close to `name`, for "did you mean".
    pub(crate) fn suggest_filter(&self, name: &str) -> Option<&str> {
        let builtin = crate::filters::FILTERS.iter().map(|(n, _)| *n);
        crate::suggest::closest(name, builtin.chain(self.filter_names.keys().map(String::as_str)))
    }

    /// A known test name close to `name`, for "did you mean".
    pub(crate) fn suggest_test(&self, name: &str) -> Option<&'static str> {
        crate::suggest::closest(name, crate::tests::TESTS.iter().map(|(n, _)| *n))
    }

    pub(crate) fn host_filter(&self, index: usize) -> &HostFilter {
        &self.filters[index]
    }

    pub(crate) fn lookup_test(&self, name: &str) -> Option<TestRef> {
        BuiltinTest::lookup(name)
    }

    pub(crate) fn function(&self, name: &str) -> Option<Function<'_>> {
        match self.functions.get(name) {
            Some(f) => Some(Function::Host(f)),
            None => BuiltinFunction::lookup(name).map(Function::Builtin),
        }
    }
}
