//! Property tests: no panic on arbitrary input with limits on, every error
//! has a position, rendering is a pure function of template, context and
//! seed, `render_outcome` agrees with `render`, and integer arithmetic
//! agrees with a reference evaluation.

use minijinja_brackets::{Context, Environment, Limits};
use proptest::prelude::*;

fn env() -> Environment {
    let mut env = Environment::new();
    env.set_limits(
        Limits::default()
            .with_fuel(Some(20_000))
            .with_output_limit(64 * 1024)
            .with_string_limit(64 * 1024),
    );
    env
}

/// Template-ish text: tag delimiters, keywords, operators, literals and
/// names in any order, so that many inputs get deep into the parser.
fn template_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[[ "),
        Just(" ]]"),
        Just("[% "),
        Just(" %]"),
        Just("[#"),
        Just("#]"),
        Just("-"),
        Just("[[-"),
        Just("-%]"),
        Just("if "),
        Just("elif "),
        Just("else"),
        Just("endif"),
        Just("for x in "),
        Just("endfor"),
        Just("set "),
        Just("macro m(a, b=1)"),
        Just("endmacro"),
        Just("m(1)"),
        Just("chance 0.5"),
        Just("endchance"),
        Just("weighted"),
        Just("endweighted"),
        Just("choice 2"),
        Just("endchoice"),
        Just("raw"),
        Just("endraw"),
        Just("qr \"q\""),
        Just("st 'x'"),
        Just(" -> upper"),
        Just(" -> join(\",\")"),
        Just(" is defined"),
        Just(" + "),
        Just(" ~ "),
        Just(" * "),
        Just(" // "),
        Just(" ** "),
        Just(" == "),
        Just(" and "),
        Just(" not "),
        Just("("),
        Just(")"),
        Just("["),
        Just("]"),
        Just("{"),
        Just("}"),
        Just(","),
        Just(":"),
        Just("."),
        Just("x"),
        Just("L.y"),
        Just("G[\"z\"]"),
        Just("loop.index"),
        Just("range(3)"),
        Just("1"),
        Just("2.5"),
        Just("\"s\\n\""),
        Just("'q'"),
        Just("none"),
        Just("\n"),
        Just("é"),
        Just("{{char}}"),
    ];
    prop::collection::vec(piece, 0..48).prop_map(|pieces| pieces.concat())
}

fn context() -> Context {
    serde_json::from_str(r#"{"state": {"x": [1, 2], "n": 3, "s": "ab"}, "local": {"y": "1"}, "global": {"z": {"k": true}}}"#)
        .unwrap()
}

fn check(source: &str, seed: u64) -> Result<(), TestCaseError> {
    let env = env();
    let context = context();
    let first = env.render_str(source, &context, seed);
    if let Err(err) = &first {
        prop_assert!(
            err.line().is_some() && err.column().is_some() && err.snippet().is_some(),
            "{err:?}"
        );
        prop_assert!(!err.to_string().is_empty());
    }
    // Pure: the same inputs give the same result, output and error alike.
    prop_assert_eq!(&first, &env.render_str(source, &context, seed));
    // The lighter outcome says the same: its writes, applied to the
    // context, give the complete stores `render` copies.
    if let Ok(rendered) = first {
        let outcome = env.compile(source).unwrap().render_outcome(&context, seed).unwrap();
        let mut applied = context.clone();
        outcome.apply_to(&mut applied);
        prop_assert_eq!(
            (&applied.state, &applied.local, &applied.global),
            (&rendered.state, &rendered.local, &rendered.global)
        );
        prop_assert_eq!(outcome.into_rendered(&context), rendered);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn template_soup_never_panics(source in template_soup(), seed in any::<u64>()) {
        check(&source, seed)?;
    }

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,200}", seed in any::<u64>()) {
        check(&source, seed)?;
    }

    #[test]
    fn text_without_openers_is_copied_exactly(text in "[^\\[]{0,200}") {
        let rendered = env().render_str(&text, &Context::default(), 0).unwrap();
        prop_assert_eq!(rendered.output, text);
    }
}

/// A small integer expression and its value under the language's rules
/// (`None` when it overflows or divides by zero).
#[derive(Debug, Clone)]
enum Arith {
    Num(i64),
    Op(Box<Arith>, char, Box<Arith>),
}

impl Arith {
    fn source(&self) -> String {
        match self {
            Arith::Num(n) if *n < 0 => format!("({n})"),
            Arith::Num(n) => n.to_string(),
            Arith::Op(a, op, b) => match op {
                'f' => format!("({} // {})", a.source(), b.source()),
                _ => format!("({} {op} {})", a.source(), b.source()),
            },
        }
    }

    fn value(&self) -> Option<i64> {
        match self {
            Arith::Num(n) => Some(*n),
            Arith::Op(a, op, b) => {
                let (a, b) = (a.value()?, b.value()?);
                match op {
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    '*' => a.checked_mul(b),
                    // Python's floor division and modulo, via i128.
                    'f' if b != 0 => i64::try_from(
                        (i128::from(a)).div_euclid(i128::from(b))
                            - i128::from(b < 0 && (i128::from(a)).rem_euclid(i128::from(b)) != 0),
                    )
                    .ok(),
                    '%' if b != 0 => {
                        let r = i128::from(a).rem_euclid(i128::from(b).abs());
                        let r = if b < 0 && r != 0 { r + i128::from(b) } else { r };
                        i64::try_from(r).ok()
                    }
                    _ => None,
                }
            }
        }
    }
}

fn arith() -> impl Strategy<Value = Arith> {
    let leaf = prop_oneof![(-20i64..20).prop_map(Arith::Num), any::<i64>().prop_map(Arith::Num)];
    leaf.prop_recursive(4, 16, 2, |inner| {
        (inner.clone(), prop_oneof![Just('+'), Just('-'), Just('*'), Just('f'), Just('%')], inner)
            .prop_map(|(a, op, b)| Arith::Op(Box::new(a), op, Box::new(b)))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn integer_arithmetic_matches_the_reference(e in arith()) {
        let source = format!("[[ {} ]]", e.source());
        let result = Environment::new().render_str(&source, &Context::default(), 0);
        match e.value() {
            Some(n) => prop_assert_eq!(result.unwrap().output, n.to_string()),
            None => prop_assert_eq!(result.unwrap_err().kind().as_str(), "invalid_operation"),
        }
    }
}
