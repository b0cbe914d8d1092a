//! The step after parsing: the filter and test names a syntax tree wrote,
//! found in a registry (regex-syntax's AST to HIR split is the model: the
//! tree stays a plain value, and what it means in an environment is
//! decided here). An unknown name is an `unknown_filter` or
//! `unknown_test` error with a "did you mean", wherever it appears, even
//! in branches that never run.

use std::sync::Arc;

use crate::callable::Registry;
use crate::callable::{Filter, Test};
use crate::dialect::Profile;
use crate::environment::Environment;
use crate::error::{Error, ErrorKind};
use crate::syntax::{self, ast, ast::Callee};
use crate::unit::{Compiled, Resolution};

/// Compiles `source` into a unit named `name`.
pub(crate) fn compile_unit(
    env: &Environment,
    name: Option<Arc<str>>,
    source: Arc<str>,
) -> Result<Compiled, Error> {
    let source = env.dialect().syntax.normalize(source);
    Compiled::build(name, source, |source| compile(env, source))
}

/// The template `name` of `env`'s store, loaded and compiled at first use.
///
/// # Errors
///
/// As `Library::load`.
pub(crate) fn load(env: &Environment, name: &str) -> Result<Arc<Compiled>, Error> {
    let cap = env.limits().template_bytes;
    env.library().load(name, cap, |source| compile_unit(env, Some(Arc::from(name)), source))
}

/// Parses `source` and resolves its names in `env`: what compiling is.
///
/// # Errors
///
/// The parser's error, or an unknown filter or test; when the parser
/// stopped, an unknown name it met before is the error (it came first).
pub(crate) fn compile<'a>(
    env: &Environment,
    source: &'a str,
) -> Result<(ast::Template<'a>, Resolution), Error> {
    let registry = env.registry();
    match syntax::parse(source, env.limits(), env.whitespace(), env.dialect()) {
        Ok(tree) => {
            let resolution = match env.profile() {
                Profile::Reference => resolve(registry, source, &tree.filters, &tree.tests)?,
                Profile::Jinja2 => resolve_late(registry, source, &tree.filters, &tree.tests)?,
            };
            Ok((tree, resolution))
        }
        Err(failed) => Err(resolve(registry, source, &failed.filters, &failed.tests)
            .err()
            .unwrap_or(failed.error)),
    }
}

/// Finds every filter and test of `filters` and `tests` (names as first
/// written in `source`) in `registry`.
///
/// # Errors
///
/// `unknown_filter` or `unknown_test` for the first unknown name in the
/// source, placed at it.
pub(crate) fn resolve(
    registry: &Registry,
    source: &str,
    filters: &[Callee<'_>],
    tests: &[Callee<'_>],
) -> Result<Resolution, Error> {
    let mut unknown: Option<(&Callee<'_>, &str, ErrorKind)> = None;
    let mut note = |callee, what, kind| {
        if unknown.is_none_or(|(first, ..)| callee_start(callee) < callee_start(first)) {
            unknown = Some((callee, what, kind));
        }
    };
    let found_filters: Vec<Filter> = filters
        .iter()
        .filter_map(|callee| {
            let found = registry.filters.get(callee.name).cloned();
            if found.is_none() {
                note(callee, "filter", ErrorKind::UnknownFilter);
            }
            found
        })
        .collect();
    let found_tests: Vec<Test> = tests
        .iter()
        .filter_map(|callee| {
            let found = registry.tests.get(callee.name).cloned();
            if found.is_none() {
                note(callee, "test", ErrorKind::UnknownTest);
            }
            found
        })
        .collect();
    if let Some((callee, what, kind)) = unknown {
        let close = match kind {
            ErrorKind::UnknownFilter => registry.suggest_filter(callee.name),
            _ => registry.suggest_test(callee.name),
        };
        let hint = close.map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
        let message = format!("unknown {what} `{}`{hint}", callee.name);
        return Err(Error::new(kind, message).at(source, callee.span));
    }
    Ok(Resolution { filters: found_filters.into(), tests: found_tests.into() })
}

/// The Jinja2 profile's resolution: as Jinja2 does, an unknown filter
/// is an error only when it runs (templates guard filters of other engines
/// behind conditions); an unknown test is still an error here.
fn resolve_late(
    registry: &Registry,
    source: &str,
    filters: &[Callee<'_>],
    tests: &[Callee<'_>],
) -> Result<Resolution, Error> {
    let found_filters: Vec<Filter> = filters
        .iter()
        .map(|callee| {
            registry.filters.get(callee.name).cloned().unwrap_or_else(|| {
                let close = registry.suggest_filter(callee.name);
                let hint = close.map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
                let message = format!("unknown filter `{}`{hint}", callee.name);
                Filter::new(move |_, _| Err(Error::new(ErrorKind::UnknownFilter, message.clone())))
            })
        })
        .collect();
    let tests = resolve(registry, source, &[], tests)?.tests;
    Ok(Resolution { filters: found_filters.into(), tests })
}

fn callee_start(callee: &Callee<'_>) -> usize {
    callee.span.start()
}
