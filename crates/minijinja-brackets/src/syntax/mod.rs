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

/// Glob-driven snapshots of the lexer and the parser over
/// `tests/lexer-inputs` and `tests/parser-inputs` (failing inputs are named
/// `err_*`). Lexer snapshots show each token beside the exact source slice
/// of its span.
#[cfg(test)]
mod snapshots {
    use super::lexer::Lexer;
    use crate::environment::Environment;

    fn expect_error(path: &std::path::Path) -> bool {
        path.file_name().is_some_and(|name| name.to_string_lossy().starts_with("err_"))
    }

    #[test]
    fn lexer_inputs() {
        insta::glob!("../../tests/lexer-inputs", "*.txt", |path| {
            let source = std::fs::read_to_string(path).unwrap();
            let mut lines = Vec::new();
            let mut failed = false;
            for token in Lexer::new(&source) {
                match token {
                    Ok((token, span)) => lines
                        .push(format!("{token:?}\n    {:?}", &source[span.start()..span.end()])),
                    Err(err) => {
                        failed = true;
                        lines.push(err.to_string());
                    }
                }
            }
            assert_eq!(failed, expect_error(path), "{}", path.display());
            insta::assert_snapshot!(lines.join("\n"));
        });
    }

    #[test]
    fn parser_inputs() {
        let env = Environment::new();
        insta::glob!("../../tests/parser-inputs", "*.txt", |path| {
            let source = std::fs::read_to_string(path).unwrap();
            let snapshot = match super::parse(&source, &env) {
                Ok(ast) => {
                    assert!(!expect_error(path), "{} parsed", path.display());
                    format!("{ast:#?}")
                }
                Err(err) => {
                    assert!(expect_error(path), "{}: {err}", path.display());
                    err.to_string()
                }
            };
            insta::assert_snapshot!(snapshot);
        });
    }
}
