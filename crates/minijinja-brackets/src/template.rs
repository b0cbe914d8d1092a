//! A compiled [`Template`] and its render method.

use std::fmt;

use crate::analyze::Analysis;
use crate::context::{Context, Outcome, Rendered};
use crate::environment::Environment;
use crate::error::Error;
use crate::exact::Distribution;
use crate::syntax::{self, ast};

/// A compiled template: parse once, render many times with different
/// contexts and seeds. Borrows its [`Environment`] and its source.
pub struct Template<'env, 'source> {
    env: &'env Environment,
    source: &'source str,
    ast: ast::Template<'source>,
}

impl fmt::Debug for Template<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Template").field("source", &self.source).finish_non_exhaustive()
    }
}

impl<'env, 'source> Template<'env, 'source> {
    pub(crate) fn compile(env: &'env Environment, source: &'source str) -> Result<Self, Error> {
        let ast = syntax::parse(source, env)?;
        Ok(Template { env, source, ast })
    }

    /// The template's source text.
    pub fn source(&self) -> &'source str {
        self.source
    }

    /// Renders the template with the three stores of `context` and the
    /// random `seed`. Rendering is a pure function of the template, the
    /// context and the seed.
    ///
    /// The render is transactional: on success the [`Rendered`] holds the
    /// output, the complete stores after rendering, the writes and the
    /// effects; on failure only the error comes back.
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
        crate::eval::render(self.env, self.source, &self.ast, context, seed)
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
        crate::analyze::analyze(self.env, self.source, &self.ast.body, context)
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
        crate::exact::distribution(self.env, self.source, &self.ast, context, max_paths)
    }
}
