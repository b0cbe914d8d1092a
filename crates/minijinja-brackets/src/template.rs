//! A compiled [`Template`], owned, and the [`Environment`] methods that
//! compile one (here, above the environment, so that the environment
//! knows nothing of templates).

use std::fmt;
use std::sync::Arc;

use crate::analyze::Analysis;
use crate::context::{Context, Outcome, Rendered};
use crate::environment::Environment;
use crate::error::Error;
use crate::exact::Distribution;
use crate::syntax::ast;
use crate::unit::Compiled;

/// A compiled template: parse once, render many times with different
/// contexts and seeds.
///
/// It owns what it needs: its source (shared, `Arc<str>`), its syntax tree,
/// the filters and tests it names and the configuration of the
/// [`Environment`] it was compiled with (a change to the environment
/// afterwards does not reach it). It is `Clone` (cheap: shared, not
/// copied), `Send`, `Sync` and `'static`, so it can be kept in a cache or
/// shared by threads.
///
/// ```
/// use minijinja_brackets::{Context, Environment, Template};
///
/// fn compiled() -> Result<Template, minijinja_brackets::Error> {
///     let source = String::from("Hello [[ name ]]!");
///     Environment::new().compile(&source)
/// }
/// let template = compiled()?;
/// let worker = std::thread::spawn(move || {
///     let mut context = Context::default();
///     context.state.insert("name".into(), "Ann".into());
///     template.render(&context, 0).map(|r| r.output)
/// });
/// assert_eq!(worker.join().unwrap()?, "Hello Ann!");
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
#[derive(Clone)]
pub struct Template {
    env: Environment,
    compiled: Arc<Compiled>,
}

impl fmt::Debug for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Template").field("source", &self.source()).finish_non_exhaustive()
    }
}

impl Environment {
    /// Compiles `source` into a reusable [`Template`], which keeps a copy
    /// of it ([`Environment::compile_shared`] shares one instead).
    ///
    /// # Errors
    ///
    /// A `syntax_error` for malformed templates (with the position of the
    /// problem, or of the opening tag of an unclosed block), an
    /// `unknown_filter` or `unknown_test` for a name this environment does
    /// not know, wherever it appears.
    pub fn compile(&self, source: &str) -> Result<Template, Error> {
        self.compile_shared(Arc::from(source))
    }

    /// Compiles `source` as [`Environment::compile`] does, sharing it
    /// instead of copying it.
    ///
    /// # Errors
    ///
    /// As [`Environment::compile`].
    pub fn compile_shared(&self, source: Arc<str>) -> Result<Template, Error> {
        let compiled = Arc::new(crate::resolve::compile_unit(self, None, source)?);
        Ok(Template { env: self.clone(), compiled })
    }

    /// Compiles `source` and stores it under `name` (replacing a template
    /// of that name), for `include`, `import`, `extends` and
    /// [`Environment::template`]. Names follow the loader's rule (see
    /// [`Environment::set_loader`]). The store is shared by every clone of
    /// this environment and every template compiled from it, so a template
    /// compiled before its parts were added finds them when it renders.
    ///
    /// ```
    /// use minijinja_brackets::Environment;
    ///
    /// let mut env = Environment::new();
    /// env.add_template("base.txt", "<[% block body %]base[% endblock %]>")?;
    /// let child = env.compile("[% extends 'base.txt' %][% block body %]child[% endblock %]")?;
    /// assert_eq!(child.render(&Default::default(), 0)?.output, "<child>");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `invalid_template_name`, `memory_limit` past
    /// [`Limits::template_bytes`](crate::Limits::template_bytes), and the template's compile errors
    /// (naming it).
    pub fn add_template(&mut self, name: &str, source: &str) -> Result<(), Error> {
        let cap = self.limits().template_bytes;
        self.library().add(name, source.into(), cap, |source| {
            crate::resolve::compile_unit(self, Some(Arc::from(name)), source)
        })
    }

    /// The template stored under `name`: added with
    /// [`Environment::add_template`], or asked of the loader
    /// ([`Environment::set_loader`]) the first time and kept. Errors in it
    /// and in what it includes name the template they are in.
    ///
    /// ```
    /// use minijinja_brackets::{Context, Environment};
    ///
    /// let mut env = Environment::new();
    /// env.add_template("greeting.txt", "Hello [[ name ]]!")?;
    /// env.add_template("main.txt", "[% include 'greeting.txt' %] Bye.")?;
    /// let mut context = Context::default();
    /// context.state.insert("name".into(), "Ann".into());
    /// let out = env.template("main.txt")?.render(&context, 0)?;
    /// assert_eq!(out.output, "Hello Ann! Bye.");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `invalid_template_name`, `template_not_found`, `load_error`,
    /// `memory_limit` past [`Limits::template_bytes`], and the template's
    /// own compile errors.
    ///
    /// [`Limits::template_bytes`]: crate::Limits::template_bytes
    pub fn template(&self, name: &str) -> Result<Template, Error> {
        let compiled = crate::resolve::load(self, name)?;
        Ok(Template { env: self.clone(), compiled })
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
}

impl Template {
    /// The template's source text.
    pub fn source(&self) -> &str {
        self.compiled.source()
    }

    /// The template's source text, shared.
    pub fn shared_source(&self) -> &Arc<str> {
        self.compiled.shared_source()
    }

    /// The name it was stored under ([`Environment::template`]), if any.
    pub fn name(&self) -> Option<&str> {
        self.compiled.name.as_deref()
    }

    fn tree(&self) -> &ast::Template<'_> {
        self.compiled.tree()
    }

    /// Renders the template with the three stores of `context` and the
    /// random `seed`. Rendering is a pure function of the template, the
    /// context and the seed.
    ///
    /// The render is transactional: on success the [`Rendered`] holds the
    /// output, the complete stores after rendering, the writes, the
    /// effects and the seed; on failure only the error comes back.
    /// [`Template::render_unseeded`] draws the seed.
    ///
    /// # Errors
    ///
    /// `unknown_function`, `bad_arguments`, `invalid_operation`,
    /// `recursion_limit`, `out_of_fuel`, `output_limit`, and in strict mode
    /// `undefined_error`, each with the position of the expression or
    /// statement that failed.
    pub fn render(&self, context: &Context, seed: u64) -> Result<Rendered, Error> {
        Ok(self.render_outcome(context, seed)?.into_rendered(context))
    }

    /// Renders as [`Template::render`] does, without copying the stores:
    /// the [`Outcome`] holds the output, the writes and the effects. Use it
    /// when only the text matters, or to keep one context up to date across
    /// renders with [`Outcome::apply_to`]; its cost does not grow with the
    /// size of the context, only with what the template reads.
    ///
    /// # Errors
    ///
    /// As [`Template::render`].
    pub fn render_outcome(&self, context: &Context, seed: u64) -> Result<Outcome, Error> {
        crate::eval::render(&self.env, &self.compiled, context, seed, &[])
    }

    /// Renders as [`Template::render_outcome`] does, with the state
    /// variables named in `authored` taken as the application's own: their
    /// strings (nested ones too) print as authored bytes, never in
    /// [`Outcome::data_ranges`]. For a chat template these are the special
    /// tokens (`bos_token`, `eos_token`), `tools` and the caller's extra
    /// variables; the messages stay data.
    ///
    /// ```
    /// use minijinja_brackets::{Context, Environment};
    ///
    /// let env = Environment::for_chat_templates();
    /// let template = env.compile("{{ bos_token }}{{ messages[0].content }}")?;
    /// let context = Context::from_json(
    ///     r#"{"state": {"bos_token": "<s>", "messages": [{"content": "hi"}]}}"#,
    /// )?;
    /// let outcome = template.render_outcome_authored(&context, 0, &["bos_token"])?;
    /// assert_eq!(outcome.output, "<s>hi");
    /// assert_eq!(outcome.data_ranges, [3..5]);
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Template::render`].
    pub fn render_outcome_authored(
        &self,
        context: &Context,
        seed: u64,
        authored: &[&str],
    ) -> Result<Outcome, Error> {
        crate::eval::render(&self.env, &self.compiled, context, seed, authored)
    }

    /// Renders as [`Template::render`] does with a seed drawn from the
    /// operating system's entropy ([`random_seed`](crate::random_seed),
    /// below [`SEED_BOUND`](crate::SEED_BOUND)), which the result reports
    /// in [`Rendered::seed`]: pass it to [`Template::render`] to replay the
    /// render.
    ///
    /// ```
    /// use minijinja_brackets::{Environment, context};
    ///
    /// let template = Environment::new().compile(
    ///     "[% weighted %][% choice 1 %]heads[% endchoice %][% choice 1 %]tails[% endchoice %][% endweighted %]",
    /// )?;
    /// let context = context! {};
    /// let first = template.render_unseeded(&context)?;
    /// let replay = template.render(&context, first.seed)?;
    /// assert_eq!(replay.output, first.output);
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Template::render`], and `entropy_unavailable` when the
    /// operating system gives no random bytes.
    #[cfg(feature = "entropy")]
    pub fn render_unseeded(&self, context: &Context) -> Result<Rendered, Error> {
        self.render(context, crate::seed::random_seed()?)
    }

    /// As [`Template::render_outcome`], with a seed drawn as
    /// [`Template::render_unseeded`] draws one, reported in
    /// [`Outcome::seed`].
    ///
    /// # Errors
    ///
    /// As [`Template::render_unseeded`].
    #[cfg(feature = "entropy")]
    pub fn render_outcome_unseeded(&self, context: &Context) -> Result<Outcome, Error> {
        self.render_outcome(context, crate::seed::random_seed()?)
    }

    /// What the template reads, writes, calls and rolls, and what looks
    /// wrong in it, without rendering. Reads of state variables that nothing
    /// writes are reported as likely typos; use [`Template::analyze_with`]
    /// to say which variables the host provides.
    pub fn analyze(&self) -> Analysis {
        self.analyze_with(&Context::default())
    }

    /// As [`Template::analyze`], with the stores the host will render with:
    /// state variables `context` provides are not reported as undefined.
    pub fn analyze_with(&self, context: &Context) -> Analysis {
        crate::analyze::analyze(
            &self.env,
            &self.compiled.resolved,
            self.source(),
            &self.tree().body,
            context,
        )
    }

    /// The exact distribution of the output over every random choice of
    /// `chance` and `weighted` blocks, found by rendering each random path
    /// once (probabilities multiply along a path; identical outputs merge).
    /// `max_paths` caps the renders; [`Distribution::DEFAULT_MAX_PATHS`]
    /// (10 000) is a good default.
    ///
    /// # Errors
    ///
    /// `too_many_paths` when the template has more than `max_paths` random
    /// paths (sample with [`Template::render`] and many seeds instead), and
    /// any error a render of one of the paths raises.
    pub fn distribution(&self, context: &Context, max_paths: usize) -> Result<Distribution, Error> {
        crate::exact::distribution(&self.env, &self.compiled, context, max_paths)
    }
}
