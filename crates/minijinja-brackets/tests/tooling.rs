//! `Template::analyze` and `Template::distribution`: glob-driven snapshots
//! over `tests/analyze-inputs/*.txt` (a context, a `---` line, then the
//! template; `err_*` inputs must fail to compile), and one test per
//! warning kind.

use minijinja_brackets::{Analysis, Context, Environment, Scope, WarningKind};

fn analysis(source: &str) -> Analysis {
    Environment::new().compile(source).unwrap().analyze()
}

fn kinds(source: &str) -> Vec<&'static str> {
    analysis(source).warnings.iter().map(|w| w.kind.as_str()).collect()
}

#[test]
fn analyze_inputs() {
    let env = Environment::new();
    insta::glob!("analyze-inputs/*.txt", |path| {
        let input = std::fs::read_to_string(path).unwrap();
        let (header, source) = input.split_once("\n---\n").expect("a `---` line");
        let context: Context = serde_json::from_str(header).unwrap();
        let expect_error = path.file_name().unwrap().to_string_lossy().starts_with("err_");
        let snapshot = match env.compile(source) {
            Ok(template) => {
                assert!(!expect_error, "{} compiled", path.display());
                let analysis = template.analyze_with(&context);
                let exact = match template.distribution(&context, 10_000) {
                    Ok(d) => serde_json::to_string_pretty(&d).unwrap(),
                    Err(err) => err.annotated().to_string(),
                };
                format!("{}\n=====\n{exact}", serde_json::to_string_pretty(&analysis).unwrap())
            }
            Err(err) => {
                assert!(expect_error, "{} failed: {err}", path.display());
                err.annotated().to_string()
            }
        };
        insta::assert_snapshot!(snapshot);
    });
}

#[test]
fn names_are_split_by_scope_without_bound_names() {
    let a = analysis(
        "[% macro m(p) %][[ p ]][[ outer ]][% endmacro %][% for x in xs %][[ x ]][[ loop.index ]][[ m(x) ]][% endfor %]\
         [% set L.a = G.b %][% set c = L[\"d\"] %]",
    );
    assert_eq!(a.scope(Scope::State).read, ["outer", "xs"]);
    assert_eq!(a.scope(Scope::State).written, ["c"]);
    assert_eq!(a.scope(Scope::Local).written, ["a"]);
    assert_eq!(a.scope(Scope::Local).read, ["d"]);
    assert_eq!(a.scope(Scope::Global).read, ["b"]);
    assert!(!a.scope(Scope::Local).dynamic);
    assert_eq!(a.macros.defined, ["m"]);
    assert_eq!(a.macros.called, ["m"]);
}

#[test]
fn a_loop_variable_is_not_visible_in_a_macro_body() {
    let a = analysis("[% for x in [1] %][% macro m() %][[ x ]][% endmacro %][[ m() ]][% endfor %]");
    assert_eq!(a.scope(Scope::State).read, ["x"]);
}

#[test]
fn chance_probabilities_follow_sequential_rolls() {
    let a = analysis("[% chance 0.2 %]A[% elif 0.5 %]B[% else %]C[% endchance %]");
    let p: Vec<Option<f64>> = a.random[0].branches.iter().map(|b| b.probability).collect();
    assert_eq!(p, [Some(0.2), Some(0.4), Some(0.4)]);
    let a = analysis("[% chance 0.5 %]A[% elif x %]B[% endchance %]");
    let p: Vec<Option<f64>> = a.random[0].branches.iter().map(|b| b.probability).collect();
    assert_eq!(p, [Some(0.5), None, None]);
}

#[test]
fn weights_are_normalised() {
    let a = analysis(
        "[% weighted %][% choice 10 %]a[% endchoice %][% choice \"1\" %]b[% endchoice %][% endweighted %]",
    );
    let p: Vec<Option<f64>> = a.random[0].branches.iter().map(|b| b.probability).collect();
    assert_eq!(p, [Some(10.0 / 11.0), Some(1.0 / 11.0)]);
    let a = analysis(
        "[% weighted %][% choice 1 %]a[% endchoice %][% choice w %]b[% endchoice %][% endweighted %]",
    );
    assert!(a.random[0].branches.iter().all(|b| b.probability.is_none()));
}

#[test]
fn each_warning_kind() {
    let cases: [(&str, &str); 9] = [
        ("[% weighted %][% choice 0 %]a[% endchoice %][% endweighted %]", "zero_weights"),
        ("[% weighted %][% endweighted %]", "zero_weights"),
        ("[% chance 1.5 %]a[% endchance %]", "probability_out_of_range"),
        ("[% weighted %][% choice -2 %]a[% endchoice %][% endweighted %]", "invalid_number"),
        ("[% chance 1 %]a[% else %]b[% endchance %]", "unreachable_branch"),
        ("[% macro m() %][% endmacro %]", "unused_macro"),
        ("[% macro m() %][% endmacro %][[ m() ]][% set m = 1 %]", "set_shadows_macro"),
        ("[% set count = 1 %][[ cuont ]]", "undefined_variable"),
        ("[[ nosuch(1) ]]", "unknown_function"),
    ];
    for (source, kind) in cases {
        assert_eq!(kinds(source), [kind], "{source}");
    }
}

#[test]
fn guarded_and_provided_reads_are_not_warned() {
    assert!(kinds("[[ a -> default(1) ]][[ b.c -> d ]][% if e is defined %][% endif %][[ f if f is defined else 0 ]]").is_empty());
    let context: Context = serde_json::from_str(r#"{"state": {"x": 1}}"#).unwrap();
    let env = Environment::new();
    let t = env.compile("[[ x ]][[ y ]]").unwrap();
    let warnings = t.analyze_with(&context).warnings;
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].kind, WarningKind::UndefinedVariable);
    assert_eq!((warnings[0].line, warnings[0].column, warnings[0].snippet.as_str()), (1, 11, "y"));
}

#[test]
fn a_typo_suggests_the_written_name() {
    let a = analysis("[% set visits = 1 %]\n  [[ vists ]] [[ vists ]]");
    assert_eq!(a.warnings.len(), 1, "one warning per name");
    let w = &a.warnings[0];
    assert_eq!((w.line, w.column), (2, 6));
    assert!(w.message.ends_with("did you mean `visits`?"), "{}", w.message);
    assert_eq!(
        w.to_string(),
        format!("warning[undefined_variable]: {} (line 2, column 6)", w.message)
    );
}

#[test]
fn positions_count_characters_after_multibyte_text() {
    let a = analysis("héllo → [[ ünknown ]]");
    assert_eq!((a.warnings[0].line, a.warnings[0].column), (1, 12));
    assert_eq!(a.warnings[0].snippet, "ünknown");
}

mod hostile {
    use minijinja_brackets::{Context, Environment, ErrorKind};
    use proptest::prelude::*;

    /// Well-formed templates: text, prints, sets, and nested `chance`,
    /// `weighted`, `for`, `if` and macro blocks with constant or computed
    /// probabilities and weights (some out of range or not numbers).
    fn template() -> impl Strategy<Value = String> {
        let number = prop::sample::select(vec![
            "0",
            "1",
            "0.5",
            "0.25",
            "2",
            "-1",
            "\"0.3\"",
            "\"often\"",
            "x",
            "x -> default(0.5)",
        ]);
        let leaf = prop_oneof![
            prop::sample::select(vec!["a", "é\n", "[[ x ]]", "[[ y ]]", "[[ m(1) ]]", "[[ L.k ]]"])
                .prop_map(str::to_owned),
            number.clone().prop_map(|n| format!("[% set x = {n} %]")),
        ];
        let node = leaf.prop_recursive(4, 32, 4, move |inner| {
            let body = prop::collection::vec(inner, 0..3).prop_map(|v| v.concat());
            prop_oneof![
                (number.clone(), body.clone(), number.clone(), body.clone(), body.clone())
                    .prop_map(|(p, a, q, b, c)| format!(
                        "[% chance {p} %]{a}[% elif {q} %]{b}[% else %]{c}[% endchance %]"
                    )),
                prop::collection::vec((number.clone(), body.clone()), 0..3).prop_map(|choices| {
                    let choices: String = choices
                        .iter()
                        .map(|(w, b)| format!("[% choice {w} %]{b}[% endchoice %]"))
                        .collect();
                    format!("[% weighted %]{choices}[% endweighted %]")
                }),
                body.clone().prop_map(|b| format!("[% for i in [1, 2] %]{b}[% endfor %]")),
                body.clone().prop_map(|b| format!("[% if x is defined %]{b}[% endif %]")),
                body.clone().prop_map(|b| format!("[% macro m(a) %]{b}[% endmacro %]")),
            ]
        });
        prop::collection::vec(node, 1..6).prop_map(|nodes| nodes.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Whatever compiles can be analysed and enumerated without a
        /// panic; positions stay inside the template.
        #[test]
        fn analysis_and_enumeration_never_panic(source in template()) {
            let env = Environment::new();
            if let Ok(t) = env.compile(&source) {
                let lines = source.split('\n').count();
                for w in t.analyze().warnings {
                    prop_assert!(w.line >= 1 && w.line <= lines, "{w:?}");
                    prop_assert!(w.column >= 1);
                }
                match t.distribution(&Context::default(), 64) {
                    Ok(d) => {
                        let total: f64 = d.outputs().iter().map(|(_, p)| p).sum();
                        prop_assert!((total - 1.0).abs() < 1e-9, "{d:?}");
                    }
                    Err(err) => prop_assert!(err.kind() != ErrorKind::SyntaxError),
                }
            }
        }
    }
}

#[test]
fn literal_template_names_are_listed_and_computed_ones_warned_about() {
    let a = analysis("[% extends 'base.txt' %][% block b %][% include ['x', y] %][% endblock %]");
    let names: Vec<(&str, &str, usize)> =
        a.templates.iter().map(|t| (t.statement, t.name.as_str(), t.column)).collect();
    assert_eq!(names, [("extends", "base.txt", 12), ("include", "x", 50)]);
    assert_eq!(kinds("[% include y %]"), ["unfollowed_include", "undefined_variable"]);
    assert_eq!(WarningKind::UnfollowedInclude.as_str(), "unfollowed_include");
}
