//! The front end: source text to syntax tree.
//!
//! [`lexer`] finds text runs and tags; [`parser`] parses tag bodies with nom
//! and builds the block structure into an [`ast`] that borrows the source.

pub(crate) mod ast;
pub(crate) mod lexer;
pub(crate) mod parser;
#[cfg(test)]
pub(crate) mod print;
pub(crate) mod token;

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;

pub(crate) use parser::Failure;

/// Parses `source` into a syntax tree, under the nesting limits of
/// `limits`. Filters and tests are only named here: `resolve.rs` finds
/// them.
pub(crate) fn parse<'a>(
    source: &'a str,
    limits: &Limits,
    whitespace: lexer::Whitespace,
    dialect: crate::dialect::Dialect,
) -> Result<ast::Template<'a>, Failure<'a>> {
    if u32::try_from(source.len()).is_err() {
        let error = Error::new(ErrorKind::SyntaxError, "the template is larger than 4 GiB");
        return Err(Failure { error, filters: Vec::new(), tests: Vec::new() });
    }
    parser::TemplateParser::new(source, limits, whitespace, dialect).parse()
}

/// Glob-driven snapshots of the lexer and the parser over
/// `tests/lexer-inputs` and `tests/parser-inputs` (failing inputs are named
/// `err_*`). Lexer snapshots show each token beside the exact source slice
/// of its span.
#[cfg(test)]
mod snapshots {
    use super::lexer::Lexer;
    use crate::environment::Environment;
    use crate::error::Error;

    /// Parses and resolves as compiling does, keeping the tree.
    fn parse<'a>(source: &'a str, env: &Environment) -> Result<super::ast::Template<'a>, Error> {
        crate::resolve::compile(env, source).map(|(tree, _)| tree)
    }

    fn expect_error(path: &std::path::Path) -> bool {
        path.file_name().is_some_and(|name| name.to_string_lossy().starts_with("err_"))
    }

    #[test]
    fn lexer_inputs() {
        insta::glob!("../../tests/lexer-inputs", "*.txt", |path| {
            let source = std::fs::read_to_string(path).unwrap();
            let mut lines = Vec::new();
            let mut failed = false;
            for token in Lexer::new(&source, Default::default()) {
                match token {
                    Ok((token, span)) => lines
                        .push(format!("{token:?}\n    {:?}", &source[span.start()..span.end()])),
                    Err(err) => {
                        failed = true;
                        lines.push(err.annotated().to_string());
                    }
                }
            }
            assert_eq!(failed, expect_error(path), "{}", path.display());
            insta::assert_snapshot!(lines.join("\n"));
        });
    }

    /// Without spans, which differ between a template and its printed form.
    fn shape(ast: &super::ast::Template<'_>) -> String {
        format!("{ast:#?}")
            .lines()
            .filter(|l| !l.trim_start().starts_with("span: "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Printing a parsed template and parsing it again gives the same tree,
    /// and rendering the printed text gives the same result.
    #[test]
    fn printed_templates_round_trip() {
        let env = Environment::new();
        let mut checked = 0;
        for dir in ["tests/parser-inputs", "tests/inputs"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if expect_error(&path) {
                    continue;
                }
                let input = std::fs::read_to_string(&path).unwrap();
                let (header, source) = input.split_once("\n---\n").unwrap_or(("{}", &input));
                let ast = parse(source, &env).unwrap();
                let printed = super::print::print(&ast);
                let reparsed = parse(&printed, &env)
                    .unwrap_or_else(|e| panic!("{}: {e}\n{printed}", path.display()));
                let again = super::print::print(&reparsed);
                assert_eq!(printed, again, "{}", path.display());
                assert_eq!(shape(&reparsed), shape(&parse(&again, &env).unwrap()));
                let context: crate::Context =
                    serde_json::from_str(header).unwrap_or_else(|_| crate::Context {
                        state: serde_json::from_str(header).unwrap(),
                        ..Default::default()
                    });
                // The printer spaces every tag, so bare `[[name]]` tags are
                // reported only for the original (`Rendered::undefined`).
                let render = |source: &str| {
                    let rendered = env.render_str(source, &context, 3);
                    rendered
                        .map(|r| crate::Rendered { undefined: Vec::new(), ..r })
                        .map_err(|e| e.kind())
                };
                let (original, from_printed) = (render(source), render(&printed));
                assert_eq!(original, from_printed, "{}\n{printed}", path.display());
                checked += 1;
            }
        }
        assert!(checked > 40, "{checked}");
    }

    /// The Jinja syntax under the Jinja2 profile, over
    /// `tests/jinja-parser-inputs`: the tokens (each beside its source
    /// slice), then the tree or the error.
    #[test]
    fn jinja_parser_inputs() {
        let env = Environment::for_chat_templates();
        insta::glob!("../../tests/jinja-parser-inputs", "*.txt", |path| {
            let source = std::fs::read_to_string(path).unwrap();
            let mut lines = Vec::new();
            let lexer = Lexer::new(&source, env.whitespace()).with_syntax(env.syntax());
            for token in lexer {
                match token {
                    Ok((token, span)) => lines
                        .push(format!("{token:?}\n    {:?}", &source[span.start()..span.end()])),
                    Err(err) => lines.push(err.annotated().to_string()),
                }
            }
            let tree = match parse(&source, &env) {
                Ok(ast) => {
                    assert!(!expect_error(path), "{} parsed", path.display());
                    format!("{ast:#?}")
                }
                Err(err) => {
                    assert!(expect_error(path), "{}: {err}", path.display());
                    err.annotated().to_string()
                }
            };
            insta::assert_snapshot!(format!("{}\n=====\n{tree}", lines.join("\n")));
        });
    }

    #[test]
    fn parser_inputs() {
        let env = Environment::new();
        insta::glob!("../../tests/parser-inputs", "*.txt", |path| {
            let source = std::fs::read_to_string(path).unwrap();
            let snapshot = match parse(&source, &env) {
                Ok(ast) => {
                    assert!(!expect_error(path), "{} parsed", path.display());
                    format!("{ast:#?}")
                }
                Err(err) => {
                    assert!(expect_error(path), "{}: {err}", path.display());
                    err.annotated().to_string()
                }
            };
            insta::assert_snapshot!(snapshot);
        });
    }
}
