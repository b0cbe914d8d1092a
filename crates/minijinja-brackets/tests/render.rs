//! Glob-driven render snapshots over `tests/inputs/*.txt`.
//!
//! Each input is a JSON header, a `---` line, then the template. The header
//! is a context (`{"state": .., "local": .., "global": ..}`), or, for
//! brevity, a bare object taken as the state store. Inputs named `err_*`
//! must fail; the snapshot holds the error as people see it. Others hold
//! the output, then the stores, writes and effects as JSON, then the
//! `undefined_variable` warnings of bare `[[name]]` tags, when there are
//! any. Seed 0.

use minijinja_brackets::{Context, Environment, Rendered};
use prompt_core::diagnostic::Diagnostic;

fn context(header: &str) -> Context {
    serde_json::from_str::<Context>(header).unwrap_or_else(|_| Context {
        state: serde_json::from_str(header).expect("the header is a JSON object"),
        ..Context::default()
    })
}

#[test]
fn render_inputs() {
    let env = Environment::new();
    insta::glob!("inputs/*.txt", |path| {
        let input = std::fs::read_to_string(path).unwrap();
        let (header, template) = input.split_once("\n---\n").expect("a `---` line");
        let expect_error = path.file_name().unwrap().to_string_lossy().starts_with("err_");
        let snapshot = match env.render_str(template, &context(header), 0) {
            Ok(rendered) => {
                assert!(!expect_error, "{} rendered without an error", path.display());
                let mut data = serde_json::to_value(&rendered).unwrap();
                data.as_object_mut().unwrap().shift_remove("output");
                // Always seed 0 here (render_str's), so not snapshotted.
                assert_eq!(data.as_object_mut().unwrap().shift_remove("seed"), Some(0.into()));
                format!(
                    "{}\n=====\n{}{}",
                    rendered.output,
                    serde_json::to_string_pretty(&data).unwrap(),
                    undefined(&rendered, template)
                )
            }
            Err(err) => {
                assert!(expect_error, "{} failed: {err}", path.display());
                format!("{}\n\n{err:#?}", err.annotated())
            }
        };
        insta::assert_snapshot!(snapshot);
    });
}

/// Glob-driven render snapshots over `tests/jinja-inputs/*.txt`, in the
/// chat-template environment (Jinja syntax, the Jinja2 profile, both
/// whitespace modes, a fixed clock): the output, then its data ranges and
/// generation ranges (each with the text it covers).
#[test]
fn jinja_render_inputs() {
    let mut env = Environment::for_chat_templates();
    let now: minijinja_brackets::jiff::Zoned = "2026-01-15T10:30:00+00:00[UTC]".parse().unwrap();
    env.set_clock(minijinja_brackets::Clock::Fixed(now));
    insta::glob!("jinja-inputs/*.txt", |path| {
        let input = std::fs::read_to_string(path).unwrap();
        let (header, template) = input.split_once("\n---\n").expect("a `---` line");
        let expect_error = path.file_name().unwrap().to_string_lossy().starts_with("err_");
        let snapshot = match env.render_str(template, &context(header), 0) {
            Ok(rendered) => {
                assert!(!expect_error, "{} rendered without an error", path.display());
                let show = |ranges: &[std::ops::Range<usize>]| {
                    ranges
                        .iter()
                        .map(|r| format!("{r:?} {:?}", &rendered.output[r.clone()]))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                format!(
                    "{}\n===== data\n{}\n===== generation\n{}",
                    rendered.output,
                    show(&rendered.data_ranges),
                    show(&rendered.generation_ranges)
                )
            }
            Err(err) => {
                assert!(expect_error, "{} failed: {err}", path.display());
                format!("{}\n\n{err:#?}", err.annotated())
            }
        };
        insta::assert_snapshot!(snapshot);
    });
}

/// The `undefined_variable` warnings, each with the text its span covers.
fn undefined(rendered: &Rendered, template: &str) -> String {
    let mut shown = String::new();
    for tag in &rendered.undefined {
        let text = &template[tag.span().range()];
        let origin = Diagnostic::origin(tag);
        shown += &format!("\n=====\n{}: {tag} ({origin}: {text:?})", Diagnostic::kind(tag));
    }
    shown
}

#[test]
fn an_undefined_bare_tag_is_a_warning_and_in_strict_mode_an_error() {
    let names = |template: &str, context: &str| -> Vec<String> {
        let context = Context::from_json(context).unwrap();
        let outcome = Environment::new().compile(template).unwrap().render_outcome(&context, 0);
        outcome.unwrap().undefined.iter().map(|tag| tag.name().to_owned()).collect()
    };
    assert_eq!(names("[[Alice]] [[bob]] [[Alice]]", "{}"), ["Alice", "bob"]);
    // A raw block is text; a value's `[[Alice]]` is data, never a tag.
    assert!(names("[% raw %][[Alice]][% endraw %]", "{}").is_empty());
    assert!(names("[[ v ]]", r#"{"state": {"v": "[[Alice]]"}}"#).is_empty());
    let rendered = Environment::new().render_str("[[a]]", &Context::default(), 0).unwrap();
    assert_eq!(
        rendered.undefined[0].to_string(),
        "`a` is undefined, so the tag `[[a]]` printed nothing"
    );
    assert_eq!(
        Diagnostic::help(&rendered.undefined[0]).unwrap(),
        "to print the brackets, put them in a raw block: `[% raw %][[a]][% endraw %]`; \
         to print a value, give `a` one in the context"
    );

    let mut strict = Environment::new();
    strict.set_strict(true);
    let err = strict.render_str("[[Alice]]", &Context::default(), 0).unwrap_err();
    assert_eq!(err.kind().as_str(), "undefined_error");
}

/// A misspelled name deletes what it was to print: every tag printing a
/// name alone is reported, whatever its spacing, and says whether it was
/// written bare.
#[test]
fn an_undefined_name_is_reported_whatever_the_spacing() {
    let tags = |template: &str| -> Vec<(String, bool, String)> {
        let env = Environment::new();
        let outcome = env.compile(template).unwrap().render_outcome(&Context::default(), 0);
        let outcome = outcome.unwrap();
        let tags = outcome.undefined.iter();
        tags.map(|t| (t.name().to_owned(), t.is_bare(), template[t.span().range()].to_owned()))
            .collect()
    };
    let tag = |name: &str, bare, text: &str| (name.to_owned(), bare, text.to_owned());
    assert_eq!(tags("## user\n[[ mesage ]]"), [tag("mesage", false, "[[ mesage ]]")]);
    assert_eq!(
        tags("[[-  a\n-]] [[-b-]] [[c ]] [[\td]]"),
        [
            tag("a", false, "[[-  a\n-]]"),
            tag("b", false, "[[-b-]]"),
            tag("c", false, "[[c ]]"),
            tag("d", false, "[[\td]]")
        ]
    );
    // Any other expression is taken as meant.
    assert!(tags("[[ (a) ]][[ a.b ]][[ a -> upper ]][[ a ~ '' ]]").is_empty());
    let rendered = Environment::new().render_str("[[ mesage ]]", &Context::default(), 0);
    let rendered = rendered.unwrap();
    assert_eq!(
        rendered.undefined[0].to_string(),
        "`mesage` is undefined, so the tag `[[ mesage ]]` printed nothing"
    );
    let help = Diagnostic::help(&rendered.undefined[0]).unwrap();
    assert!(help.starts_with("is the name misspelled?"), "{help}");
}
