//! The [`Environment`]: configuration, limits and the one registry of
//! filters, tests and functions, built-in and added by the host alike
//! (`template.rs` adds the methods that compile).

use std::fmt;
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;

use crate::callable::{
    Filter, Function, HostNames, IntoFilter, IntoFunction, IntoTest, Registry, Test,
};
use crate::dialect::{Dialect, Profile, Syntax};
use crate::limits::Limits;
use crate::loader::{Library, LoadError};
use crate::pycompat::Clock;
use crate::syntax::lexer::Whitespace;

impl Default for Registry {
    fn default() -> Registry {
        fn table<T>(entries: Vec<(&'static str, T)>) -> IndexMap<Arc<str>, T> {
            entries.into_iter().map(|(name, entry)| (Arc::from(name), entry)).collect()
        }
        Registry {
            filters: table(crate::defaults::filters()),
            tests: table(crate::defaults::tests()),
            functions: table(crate::defaults::functions()),
            host: HostNames::default(),
        }
    }
}

impl Registry {
    /// The built-ins, built once per process and shared by every
    /// environment until a host adds to its own (`Arc::make_mut` copies
    /// them then): `Environment::new` allocates nothing for them, as
    /// minijinja's static tables do not.
    fn builtins() -> Arc<Registry> {
        static BUILTINS: OnceLock<Arc<Registry>> = OnceLock::new();
        Arc::clone(BUILTINS.get_or_init(|| Arc::new(Registry::default())))
    }
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
#[derive(Clone)]
pub struct Environment {
    limits: Limits,
    strict: bool,
    whitespace: Whitespace,
    dialect: Dialect,
    /// What `strftime_now` reads (the Jinja2 profile).
    clock: Clock,
    /// Shared by the templates compiled from it; copied when a host adds to
    /// it afterwards.
    registry: Arc<Registry>,
    /// The named templates: shared by every clone and every template
    /// compiled from it.
    library: Arc<Library>,
}

impl Default for Environment {
    fn default() -> Environment {
        Environment {
            limits: Limits::default(),
            strict: false,
            whitespace: Whitespace::default(),
            dialect: Dialect::default(),
            clock: Clock::default(),
            registry: Registry::builtins(),
            library: Arc::default(),
        }
    }
}

impl fmt::Debug for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sorted = |names: &[String]| {
            let mut names = names.to_vec();
            names.sort();
            names.dedup();
            names
        };
        f.debug_struct("Environment")
            .field("limits", &self.limits)
            .field("strict", &self.strict)
            .field("whitespace", &self.whitespace)
            .field("dialect", &self.dialect)
            .field("host_filters", &sorted(&self.registry.host.filters))
            .field("host_tests", &sorted(&self.registry.host.tests))
            .field("host_functions", &sorted(&self.registry.host.functions))
            .field("library", &self.library)
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

    /// Jinja's `trim_blocks`: the first newline after a statement tag or a
    /// comment is removed (`+%]` keeps it). Off by default.
    pub fn set_trim_blocks(&mut self, yes: bool) {
        self.whitespace.trim_blocks = yes;
    }

    /// Jinja's `lstrip_blocks`: spaces and tabs from the start of a line up
    /// to a statement tag or comment are removed (`[%+` keeps them). Off by
    /// default.
    pub fn set_lstrip_blocks(&mut self, yes: bool) {
        self.whitespace.lstrip_blocks = yes;
    }

    pub(crate) fn whitespace(&self) -> Whitespace {
        self.whitespace
    }

    /// How templates compiled afterwards spell their tags: brackets (the
    /// default) or Jinja's braces (see [`Syntax`]). Independent of the
    /// [`Profile`].
    ///
    /// ```
    /// use minijinja_brackets::{Environment, Syntax};
    ///
    /// let mut env = Environment::new();
    /// env.set_syntax(Syntax::Jinja);
    /// let out = env.render_str("{{ 'hi' | upper }}{# note #}", &Default::default(), 0)?;
    /// assert_eq!(out.output, "HI");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    pub fn set_syntax(&mut self, syntax: Syntax) {
        self.dialect.syntax = syntax;
    }

    /// The syntax templates are compiled with.
    pub fn syntax(&self) -> Syntax {
        self.dialect.syntax
    }

    /// What templates compiled afterwards mean: the reference's rules (the
    /// default) or Jinja2's (see [`Profile`]). Independent of the
    /// [`Syntax`].
    ///
    /// The Jinja2 profile brings its own `tojson`, `round` and `format`
    /// filters and the functions `raise_exception` and `strftime_now`; host
    /// filters and functions added afterwards take their place as usual.
    pub fn set_profile(&mut self, profile: Profile) {
        self.dialect.profile = profile;
        self.install_profile();
    }

    /// The clock `strftime_now` reads (the Jinja2 profile): the local
    /// time (the default) or a fixed time.
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
        if self.dialect.profile == Profile::Jinja2 {
            self.install_profile();
        }
    }

    /// The environment transformers renders chat templates in
    /// (`apply_chat_template`): Jinja syntax, the Jinja2 profile,
    /// `trim_blocks` and `lstrip_blocks`, loop controls, `raise_exception`,
    /// `strftime_now` (the local clock; see [`Environment::set_clock`]),
    /// `tojson` as `json.dumps` and `{% generation %}`.
    ///
    /// ```
    /// use minijinja_brackets::{Context, Environment};
    ///
    /// let env = Environment::for_chat_templates();
    /// let template = env.compile(
    ///     "{% for m in messages %}<|{{ m.role }}|>\n{{ m.content.strip() }}\n{% endfor %}",
    /// )?;
    /// let context = Context::from_json(r#"{"state": {"messages": [{"role": "user", "content": " hi "}]}}"#)?;
    /// assert_eq!(template.render(&context, 0)?.output, "<|user|>\nhi\n");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    pub fn for_chat_templates() -> Environment {
        let mut env = Environment::new();
        env.set_syntax(Syntax::Jinja);
        env.set_profile(Profile::Jinja2);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env
    }

    /// Puts the profile's own built-ins in the registry (or the
    /// reference's back).
    fn install_profile(&mut self) {
        let registry = Arc::make_mut(&mut self.registry);
        let jinja2 = self.dialect.profile == Profile::Jinja2;
        if jinja2 {
            for (name, filter) in crate::pycompat::filters() {
                registry.filters.insert(Arc::from(name), filter);
            }
            for (name, function) in crate::pycompat::functions(self.clock.clone()) {
                registry.functions.insert(Arc::from(name), function);
            }
            return;
        }
        for (name, _) in crate::pycompat::filters() {
            let builtin = crate::defaults::filters().into_iter().find(|(n, _)| *n == name);
            match builtin {
                Some((_, filter)) => registry.filters.insert(Arc::from(name), filter),
                None => registry.filters.shift_remove(name),
            };
        }
        for (name, _) in crate::pycompat::functions(Clock::Local) {
            registry.functions.shift_remove(name);
        }
    }

    /// The profile templates are compiled and rendered with.
    pub fn profile(&self) -> Profile {
        self.dialect.profile
    }

    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Adds (or replaces) a filter. A host filter named like a built-in one
    /// takes its place in templates compiled afterwards.
    ///
    /// A filter is a function of the value and its [`Arguments`] (the
    /// built-in filters' own signature, keyword arguments included), or of
    /// the value and the positional arguments alone (`&Value, &[Value]`; a
    /// keyword argument is then a `bad_arguments` error). Name the
    /// parameter types of a closure, so that the signature is known.
    ///
    /// [`Arguments`]: crate::Arguments
    pub fn add_filter<F, Marker>(&mut self, name: impl Into<String>, filter: F)
    where
        F: IntoFilter<Marker>,
    {
        let name = name.into();
        let run = Arc::from(filter.into_filter(&name));
        let entry = Filter::from_run(run);
        let registry = Arc::make_mut(&mut self.registry);
        registry.filters.insert(Arc::from(name.as_str()), entry);
        registry.host.filters.push(name);
    }

    /// Adds (or replaces) a test, usable as `value is name(args)`: a
    /// function of the value and its [`Arguments`] that says whether the
    /// test passes. A host test named like a built-in one takes its place
    /// in templates compiled afterwards.
    ///
    /// ```
    /// use minijinja_brackets::{Arguments, Environment, Value};
    ///
    /// let mut env = Environment::new();
    /// env.add_test("short", |v: &Value, _: Arguments<'_>| Ok(v.to_string().len() < 4));
    /// let out = env.render_str("[[ 'abc' is short ]]", &Default::default(), 0)?;
    /// assert_eq!(out.output, "true");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// [`Arguments`]: crate::Arguments
    pub fn add_test<F, Marker>(&mut self, name: impl Into<String>, test: F)
    where
        F: IntoTest<Marker>,
    {
        let name = name.into();
        let entry = Test::from_run(Arc::from(test.into_test(&name)));
        let registry = Arc::make_mut(&mut self.registry);
        registry.tests.insert(Arc::from(name.as_str()), entry);
        registry.host.tests.push(name);
    }

    /// Adds (or replaces) a global function, callable as `name(args)`.
    /// Macros of the same name take precedence.
    ///
    /// A function takes [`Arguments`] (the built-in functions' own
    /// signature, keyword arguments included), or the positional arguments
    /// alone (`&[Value]`; a keyword argument is then a `bad_arguments`
    /// error). Name the parameter type of a closure.
    ///
    /// [`Arguments`]: crate::Arguments
    pub fn add_function<F, Marker>(&mut self, name: impl Into<String>, function: F)
    where
        F: IntoFunction<Marker>,
    {
        let name = name.into();
        let entry = Function { run: Arc::from(function.into_function(&name)) };
        let registry = Arc::make_mut(&mut self.registry);
        registry.functions.insert(Arc::from(name.as_str()), entry);
        registry.host.functions.push(name);
    }

    /// Sets the function asked for a template that is not stored, the first
    /// time a render (or [`Environment::template`]) needs it: `Ok(None)`
    /// means not found. What it returns is compiled once and stored (for
    /// every clone, thread-safe). It runs while the store is locked: it must
    /// not use this environment.
    ///
    /// A name is checked before the loader sees it: `/`-separated
    /// segments, none empty, `.` or `..`; no `\`, NUL or leading `/`; no
    /// `:` in the first segment; at most 255 bytes
    /// (`invalid_template_name` otherwise). Names are relative to the
    /// loader's root, never to the template that names them (Jinja's rule).
    /// A loader reading files must still open them without following links
    /// out of its root.
    ///
    /// ```
    /// use minijinja_brackets::Environment;
    ///
    /// let mut env = Environment::new();
    /// env.set_loader(|name| Ok((name == "sig.txt").then(|| "-- Ann".to_owned())));
    /// let out = env.render_str("Bye.\n[% include 'sig.txt' %]", &Default::default(), 0)?;
    /// assert_eq!(out.output, "Bye.\n-- Ann");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    pub fn set_loader<F>(&mut self, loader: F)
    where
        F: Fn(&str) -> Result<Option<String>, LoadError> + Send + Sync + 'static,
    {
        self.library.set_loader(Arc::new(loader));
    }

    /// A copy of this environment (limits, settings, filters, tests and
    /// functions) with a template store of its own: empty, without a
    /// loader. Clones share their store; this does not, so a host can give
    /// each directory of templates its own loader.
    ///
    /// ```
    /// use minijinja_brackets::{Environment, ErrorKind};
    ///
    /// let mut env = Environment::new();
    /// env.add_template("a.txt", "A")?;
    /// let mut other = env.with_own_store();
    /// other.set_loader(|name| Ok((name == "b.txt").then(|| "B".to_owned())));
    /// assert_eq!(other.render_str("[% include 'b.txt' %]", &Default::default(), 0)?.output, "B");
    /// let err = other.render_str("[% include 'a.txt' %]", &Default::default(), 0).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::TemplateNotFound);
    /// // The first environment's store has neither the loader nor `b.txt`.
    /// assert!(env.template("b.txt").is_err());
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    pub fn with_own_store(&self) -> Environment {
        Environment { library: Arc::default(), ..self.clone() }
    }

    pub(crate) fn library(&self) -> &Library {
        &self.library
    }

    /// The filters, tests and functions templates compiled now resolve
    /// their names against.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }
}
