//! The front end: source text to syntax tree.
//!
//! [`lexer`] finds text runs and tags; [`parser`] parses tag bodies with nom
//! and builds the block structure into an [`ast`] that borrows the source.

pub(crate) mod ast;
pub(crate) mod lexer;
pub(crate) mod parser;
pub(crate) mod token;

use crate::environment::Environment;
use crate::error::{Error, ErrorKind};

/// Parses `source` into a syntax tree, resolving filters and tests against
/// `env`.
pub(crate) fn parse<'a>(source: &'a str, env: &Environment) -> Result<ast::Template<'a>, Error> {
    if u32::try_from(source.len()).is_err() {
        return Err(Error::new(ErrorKind::SyntaxError, "the template is larger than 4 GiB"));
    }
    parser::TemplateParser::new(source, env).parse()
}
