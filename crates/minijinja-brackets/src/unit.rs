//! A compiled unit: a template's source, its syntax tree and what its
//! filter and test numbers stand for, without any environment. The
//! environment's template store keeps these (a store of whole `Template`s
//! would hold its own environment), and the evaluator renders them.

use std::sync::Arc;

use crate::callable::{Filter, Test};
use crate::error::Error;
use crate::syntax::ast;

/// The syntax tree, borrowing the source it holds.
type Tree<'a> = ast::Template<'a>;

self_cell::self_cell!(
    /// The source and its syntax tree.
    struct Parsed {
        owner: Arc<str>,
        #[covariant]
        dependent: Tree,
    }
);

/// What a template's filter and test numbers stand for, in one registry.
#[derive(Clone)]
pub(crate) struct Resolution {
    /// By [`FilterCall::id`](crate::syntax::ast::FilterCall::id).
    pub(crate) filters: Box<[Filter]>,
    /// By [`TestCall::id`](crate::syntax::ast::TestCall::id).
    pub(crate) tests: Box<[Test]>,
}

impl Resolution {
    /// No filters and no tests.
    pub(crate) fn none() -> Resolution {
        Resolution { filters: Box::new([]), tests: Box::new([]) }
    }
}

/// A source compiled: parsed and resolved.
pub(crate) struct Compiled {
    /// The name it is stored under; `None` for `Environment::compile`.
    pub(crate) name: Option<Arc<str>>,
    parsed: Parsed,
    pub(crate) resolved: Resolution,
}

impl Compiled {
    /// Builds the unit with `compile` (parse and resolve); its errors in a
    /// named template carry the name.
    pub(crate) fn build(
        name: Option<Arc<str>>,
        source: Arc<str>,
        compile: impl for<'a> FnOnce(&'a str) -> Result<(Tree<'a>, Resolution), Error>,
    ) -> Result<Compiled, Error> {
        let mut resolved = None;
        let parsed = Parsed::try_new(source, |source| {
            let (tree, resolution) = compile(source)?;
            resolved = Some(resolution);
            Ok::<_, Error>(tree)
        })
        .map_err(|e| match &name {
            Some(name) => e.in_template(name),
            None => e,
        })?;
        // Set whenever the tree was built.
        let resolved = resolved.unwrap_or_else(Resolution::none);
        Ok(Compiled { name, parsed, resolved })
    }

    pub(crate) fn source(&self) -> &str {
        self.parsed.borrow_owner()
    }

    pub(crate) fn shared_source(&self) -> &Arc<str> {
        self.parsed.borrow_owner()
    }

    pub(crate) fn tree(&self) -> &ast::Template<'_> {
        self.parsed.borrow_dependent()
    }

    /// The name errors in it carry: its own, or `main` for the template
    /// being rendered.
    pub(crate) fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or("main")
    }
}
