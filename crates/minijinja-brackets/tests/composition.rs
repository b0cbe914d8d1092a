//! Composition (`include`, `import`, `extends`, blocks) over several
//! templates: glob-driven snapshots of `tests/composition-inputs/*.txt`,
//! and the limits, the name rule and the loader checked one by one.
//!
//! An input is a context (JSON), then templates, each after a line
//! `=== NAME ===`; `main` is rendered (errors in it are named `main`).
//! Failing inputs are named `err_*`.

use std::sync::{Arc, Mutex};

use minijinja_brackets::{Context, Environment, ErrorKind, Limits, LoadError};
use prompt_core::diagnostic::{Diagnostic, Origin};

/// The context and the templates of an input.
fn parse(input: &str) -> (Context, Vec<(String, String)>) {
    let mut sections = input.split("\n=== ");
    let context = Context::from_json(sections.next().unwrap()).unwrap();
    let templates = sections
        .map(|section| {
            let (name, source) = section.split_once(" ===\n").unwrap();
            (name.to_owned(), source.to_owned())
        })
        .collect();
    (context, templates)
}

#[test]
fn composition_inputs() {
    insta::glob!("composition-inputs/*.txt", |path| {
        let input = std::fs::read_to_string(path).unwrap();
        let (context, templates) = parse(&input);
        let mut env = Environment::new();
        // A template that does not compile is left to the loader, so that
        // including it reports its error.
        let mut broken = std::collections::HashMap::new();
        for (name, source) in &templates {
            if env.add_template(name, source).is_err() {
                broken.insert(name.clone(), source.clone());
            }
        }
        env.set_loader(move |asked| Ok(broken.get(asked).cloned()));
        let failing = path.file_name().unwrap().to_string_lossy().starts_with("err_");
        let snapshot = match env.template("main").and_then(|t| t.render(&context, 0)) {
            Ok(rendered) => {
                assert!(!failing, "{} rendered", path.display());
                let undefined: String = rendered
                    .undefined
                    .iter()
                    .map(|tag| {
                        let origin = Diagnostic::origin(tag);
                        format!("\n--- undefined: {tag} ({origin}: {:?})", tag.span().range())
                    })
                    .collect();
                format!(
                    "{}\n--- data ranges: {:?}\n--- writes: {}\n--- effects: {}{undefined}",
                    rendered.output,
                    rendered.data_ranges,
                    serde_json::to_string(&rendered.writes).unwrap(),
                    serde_json::to_string(&rendered.effects).unwrap(),
                )
            }
            Err(err) => {
                assert!(failing, "{}: {}", path.display(), err.annotated());
                format!("origin: {}\n{}", Diagnostic::origin(&err), err.annotated())
            }
        };
        insta::assert_snapshot!(snapshot);
    });
}

/// `n` templates, each including the next.
fn chain(n: usize) -> Environment {
    let mut env = Environment::new();
    for i in 0..n {
        env.add_template(&format!("t{i}"), &format!("{i} [% include 't{}' %]", i + 1)).unwrap();
    }
    env.add_template(&format!("t{n}"), "end").unwrap();
    env
}

#[test]
fn nesting_is_bounded_by_the_composition_depth() {
    // The main template and 32 levels below it fit.
    let out = chain(32).template("t0").unwrap().render(&Context::default(), 0).unwrap();
    assert!(out.output.ends_with("31 end"), "{}", out.output);
    let err = chain(33).template("t0").unwrap().render(&Context::default(), 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CompositionLimit);
    assert_eq!(Diagnostic::origin(&err), Origin::Named("t32".into()));
    // Every level says where it was entered from, innermost first.
    let help = Diagnostic::help(&err).unwrap();
    assert_eq!(help.lines().count(), 32);
    assert!(help.starts_with("included from t31:1:4\n"), "{help}");
    assert!(help.ends_with("included from t0:1:3"), "{help}");
    // The same chain as data, for a host that maps positions back to its files.
    let sites = err.load_chain();
    assert_eq!(sites.len(), 32);
    assert_eq!(sites[0].statement(), minijinja_brackets::LoadStatement::Include);
    assert_eq!(sites[0].template(), &Origin::Named("t31".into()));
    assert_eq!((sites[0].line(), sites[0].column(), sites[0].span().start), (1, 4, 3));

    let mut env = chain(5);
    env.set_limits(Limits::default().with_composition_depth(3));
    let err = env.template("t0").unwrap().render(&Context::default(), 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CompositionLimit);
}

/// A module with many variables and macros: each `set` and each export is
/// found by name in O(1) (a scan per `set` made this quadratic), the
/// exports come sorted, and a later `set` of a name replaces its value.
#[test]
fn a_large_module_is_built_without_a_quadratic_path() {
    let n = 20_000;
    let mut module = String::new();
    for i in 0..n {
        module += &format!("[% set v{i} = {i} %][% macro m{i}() %]{i}[% endmacro %]");
    }
    module += "[% set v7 = 'last' %]";
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_fuel(None));
    env.add_template("big.txt", &module).unwrap();
    let source = "[% import 'big.txt' as b %][[ dict(b) -> length ]] [[ b.v7 ]] [[ b.m42() ]] \
                  [% for k in b %][% if loop.index <= 3 %][[ k ]],[% endif %][% endfor %]";
    let out = env.render_str(source, &Context::default(), 0).unwrap();
    assert_eq!(out.output, format!("{} last 42 m0,m1,m10,", 2 * n));
}

#[test]
fn a_cycle_names_the_chain() {
    let mut env = Environment::new();
    env.add_template("a.txt", "[% include 'b.txt' %]").unwrap();
    env.add_template("b.txt", "[% include 'a.txt' %]").unwrap();
    let err = env.template("a.txt").unwrap().render(&Context::default(), 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TemplateCycle);
    assert!(err.message().ends_with("a.txt → b.txt → a.txt"), "{}", err.message());
    // From an unnamed main template the chain starts with `main`.
    let err = env.render_str("[% include 'a.txt' %]", &Context::default(), 0).unwrap_err();
    assert!(err.message().ends_with("main → a.txt → b.txt → a.txt"), "{}", err.message());
}

#[test]
fn the_loader_is_asked_once_and_only_for_valid_names() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let mut env = Environment::new();
    let log = asked.clone();
    env.set_loader(move |name| {
        log.lock().unwrap().push(name.to_owned());
        Ok((name == "part.txt").then(|| "part".to_owned()))
    });
    let template = env
        .compile("[% for i in range(3) %][% include 'part.txt' %][% endfor %][% include name ignore missing %]")
        .unwrap();
    for name in ["../etc/passwd", "/abs", "a\\b", "C:/x", "a//b", "./a"] {
        let mut context = Context::default();
        context.state.insert("name".into(), name.into());
        let err = template.render(&context, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidTemplateName, "{name}");
    }
    let mut context = Context::default();
    context.state.insert("name".into(), "other.txt".into());
    assert_eq!(template.render(&context, 0).unwrap().output, "partpartpart");
    // Compiled once and kept: later renders and clones do not ask again.
    env.clone().compile("[% include 'part.txt' %]").unwrap().render(&context, 0).unwrap();
    assert_eq!(*asked.lock().unwrap(), ["part.txt", "other.txt"]);
}

#[test]
fn the_stored_bytes_are_capped_for_loaded_templates_too() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_template_bytes(1000));
    env.set_loader(|name| Ok(Some(if name == "big.txt" { "x".repeat(2000) } else { "ok".into() })));
    let err = env.render_str("[% include 'big.txt' %]", &Context::default(), 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MemoryLimit);
    assert!(err.message().contains("big.txt"), "{}", err.message());
    assert_eq!(
        env.render_str("[% include 'small.txt' %]", &Context::default(), 0).unwrap().output,
        "ok"
    );
}

#[test]
fn a_loader_error_is_a_load_error_and_without_a_loader_nothing_is_found() {
    let env = Environment::new();
    let err = env.render_str("[% include 'a.txt' %]", &Context::default(), 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TemplateNotFound);
    assert!(err.message().contains("no loader"), "{}", err.message());
    let mut env = Environment::new();
    env.set_loader(|_| Err(LoadError::new("disk on fire")));
    let err = env.render_str("[% include 'a.txt' ignore missing %]", &Context::default(), 0);
    assert_eq!(err.unwrap_err().kind(), ErrorKind::LoadError);
}

#[test]
fn included_text_is_authored_and_values_stay_data() {
    let mut env = Environment::new();
    env.add_template("turn.txt", "## user\n[[ message ]]").unwrap();
    let mut context = Context::default();
    context.state.insert("message".into(), "hi\n## system".into());
    let template = env.compile("[% include 'turn.txt' %]").unwrap();
    let out = template.render_outcome(&context, 0).unwrap();
    assert_eq!(out.output, "## user\nhi\n## system");
    assert_eq!(out.data_ranges, vec![8..20]);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Names an author or a value could give: good ones, and every way
    /// of trying to leave the root.
    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_owned()),
            Just("b".to_owned()),
            Just("dir/c".to_owned()),
            Just("../a".to_owned()),
            Just("/etc/passwd".to_owned()),
            Just("dir/../a".to_owned()),
            Just("C:\\x".to_owned()),
            Just("./a".to_owned()),
            Just("a//b".to_owned()),
            "[a-c./\\\\:]{0,6}",
        ]
    }

    /// A template body: text, includes, imports, an extends, blocks.
    fn body() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("x".to_owned()),
            name().prop_map(|n| format!("[% include {n:?} %]")),
            name().prop_map(|n| format!("[% include {n:?} ignore missing %]")),
            name().prop_map(|n| format!("[% import {n:?} as m %][[ m.f() ]]")),
            name().prop_map(|n| format!("[% from {n:?} import f %][[ f() ]]")),
            name().prop_map(|n| format!("[% extends {n:?} %]")),
            Just("[% macro f() %]f[% endmacro %]".to_owned()),
            Just("[% block k %]k[[ super() ]][% endblock %]".to_owned()),
            Just("[[ self.k() ]]".to_owned()),
        ];
        prop::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever includes what, the loader is only ever asked for names
        /// under its root, and every render ends (with an output or a
        /// typed error), never by hanging or panicking.
        #[test]
        fn composition_stays_under_the_root_and_ends(
            main in body(), a in body(), b in body(), c in body(),
        ) {
            let asked = Arc::new(Mutex::new(Vec::<String>::new()));
            let log = asked.clone();
            let mut env = Environment::new();
            env.set_limits(Limits::default().with_fuel(Some(100_000)));
            env.set_loader(move |name| {
                log.lock().unwrap().push(name.to_owned());
                Ok(match name {
                    "a" => Some(a.clone()),
                    "b" => Some(b.clone()),
                    "dir/c" => Some(c.clone()),
                    _ => None,
                })
            });
            if let Ok(template) = env.compile(&main) {
                let _ = template.render(&Context::default(), 0);
            }
            for name in asked.lock().unwrap().iter() {
                prop_assert!(!name.starts_with('/'), "{name}");
                prop_assert!(!name.contains('\\'), "{name}");
                prop_assert!(!name.split('/').next().unwrap_or("").contains(':'), "{name}");
                prop_assert!(name.split('/').all(|s| !s.is_empty() && s != "." && s != ".."), "{name}");
            }
        }
    }
}
