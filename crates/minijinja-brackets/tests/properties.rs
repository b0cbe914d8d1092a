//! Property tests: no panic on arbitrary input with limits on, every error
//! has a position, rendering is a pure function of template, context and
//! seed, `render_outcome` agrees with `render`, data ranges are well formed
//! and cover exactly the bytes that came from values, and integer
//! arithmetic agrees with a reference evaluation.

use std::ops::Range;

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
    if let Ok(rendered) = &first {
        well_formed(&rendered.output, &rendered.data_ranges)?;
    }
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

/// Data ranges are sorted, disjoint, non-empty, within the output and on
/// character boundaries.
fn well_formed(output: &str, ranges: &[Range<usize>]) -> Result<(), TestCaseError> {
    let mut end = 0;
    for range in ranges {
        prop_assert!(range.start >= end && range.start < range.end, "{ranges:?}");
        prop_assert!(range.end <= output.len(), "{range:?} past {}", output.len());
        prop_assert!(output.is_char_boundary(range.start) && output.is_char_boundary(range.end));
        end = range.end;
    }
    Ok(())
}

/// A template whose authored bytes (text, literals, macro bodies) are never
/// upper-case ASCII letters, and whose values print only upper-case letters:
/// the context's strings are made of them, and the operations used keep to
/// them (`upper` of a literal builds data in upper case).
#[derive(Debug, Clone)]
enum Block {
    Text(String),
    Print(&'static str),
    If(Vec<Block>, Vec<Block>),
    For(Vec<Block>),
    Capture(Vec<Block>),
    Call(&'static str, Vec<Block>),
}

impl Block {
    fn source(&self, out: &mut String) {
        let all = |out: &mut String, blocks: &[Block]| blocks.iter().for_each(|b| b.source(out));
        match self {
            Block::Text(text) => out.push_str(text),
            Block::Print(expr) => {
                out.push_str("[[ ");
                out.push_str(expr);
                out.push_str(" ]]");
            }
            Block::If(then, otherwise) => {
                out.push_str("[% if flag %]");
                all(out, then);
                out.push_str("[% else %]");
                all(out, otherwise);
                out.push_str("[% endif %]");
            }
            Block::For(body) => {
                out.push_str("[% for n in names %]");
                all(out, body);
                out.push_str("[[ loop.cycle(n, 'lit') ]][% endfor %]");
            }
            Block::Capture(body) => {
                out.push_str("[% set captured %]");
                all(out, body);
                out.push_str("[% endset %][[ captured ]]");
            }
            // The caller block is captured first, then given to the macro.
            Block::Call(arg, body) => {
                out.push_str("[% set arg %]");
                all(out, body);
                out.push_str("[% endset %][[ m(arg, ");
                out.push_str(arg);
                out.push_str(") ]]");
            }
        }
    }
}

const MARKED_EXPRESSIONS: &[&str] = &[
    "a",
    "b",
    "n",
    "captured",
    "names[0]",
    "names -> join('')",
    "a ~ b",
    "a -> lower -> upper",
    "'lit' -> upper",
    "'lit'",
    "'## lit'",
    "a if flag else 'lit'",
    "missing -> default('lit')",
    "a -> default('lit')",
    "m(a, 'x')",
    "m('#', b)",
    "[a, 'lit'][1]",
    "b -> trim",
];

fn blocks() -> impl Strategy<Value = Vec<Block>> {
    let leaf = prop_oneof![
        "[a-z #:!\n]{0,6}".prop_map(Block::Text),
        prop::sample::select(MARKED_EXPRESSIONS).prop_map(Block::Print),
    ];
    let block = leaf.prop_recursive(3, 24, 4, |inner| {
        let body = prop::collection::vec(inner, 0..4);
        prop_oneof![
            (body.clone(), body.clone()).prop_map(|(a, b)| Block::If(a, b)),
            body.clone().prop_map(Block::For),
            body.clone().prop_map(Block::Capture),
            (prop::sample::select(MARKED_EXPRESSIONS), body).prop_map(|(e, b)| Block::Call(e, b)),
        ]
    });
    prop::collection::vec(block, 0..8)
}

fn marked_context() -> impl Strategy<Value = Context> {
    ("[A-Z]{0,4}", "[A-Z]{0,4}", prop::collection::vec("[A-Z]{0,3}", 0..3), any::<bool>()).prop_map(
        |(a, b, names, flag)| {
            let state = serde_json::json!({"a": a, "b": b, "names": names, "flag": flag});
            serde_json::from_value(serde_json::json!({ "state": state })).unwrap()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every output byte in a data range came from a value, and every byte
    /// that came from a value is in one.
    #[test]
    fn data_ranges_cover_exactly_the_bytes_from_values(
        body in blocks(),
        context in marked_context(),
    ) {
        let mut source =
            "[% macro m(x, y) %]## say [[ x ]]:[[ y ]]![% endmacro %][% set captured = 'q' %]".to_owned();
        body.iter().for_each(|b| b.source(&mut source));
        let env = env();
        let outcome = match env.compile(&source).unwrap().render_outcome(&context, 0) {
            Ok(outcome) => outcome,
            // Only a limit can stop these templates.
            Err(err) => {
                prop_assert!(err.kind().as_str() == "out_of_fuel", "{err:?}\n{source}");
                return Ok(());
            }
        };
        well_formed(&outcome.output, &outcome.data_ranges)?;
        let mut from_value = vec![false; outcome.output.len()];
        for range in &outcome.data_ranges {
            from_value[range.clone()].iter_mut().for_each(|b| *b = true);
        }
        for (i, byte) in outcome.output.bytes().enumerate() {
            prop_assert_eq!(
                from_value[i],
                byte.is_ascii_uppercase(),
                "byte {} of {:?} ({:?})\n{}",
                i,
                outcome.output,
                outcome.data_ranges,
                source
            );
        }
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

/// A program of macro definitions, redefinitions, calls and reads, some
/// inside `if`s, loops (whose variable may shadow a macro) and macro
/// bodies, with the reference model of name resolution the evaluator had
/// before macros were numbered at compile time: frames first (a loop's
/// variable, stopping at a macro body), then the macros defined so far in
/// one list where a redefinition replaces the earlier entry, then the
/// state store.
#[derive(Debug, Clone)]
enum Stmt {
    /// `[% macro m<name>() %]<tag:body>[% endmacro %]`
    Def(u8, u8, Vec<Stmt>),
    /// Prints `<` output of `m<name>()` `>`, or `-` when it is no macro.
    Call(u8),
    /// Prints `L` (a loop variable), `M` (a macro) or `S` (state).
    Read(u8),
    /// `[% if <bool> %]...[% endif %]`
    If(bool, Vec<Stmt>),
    /// `[% for m<name> in [1] %]...[% endfor %]`: shadows the macro.
    Loop(u8, Vec<Stmt>),
}

fn name(n: u8) -> String {
    format!("m{n}")
}

fn source(program: &[Stmt]) -> String {
    let mut out = String::new();
    for stmt in program {
        match stmt {
            Stmt::Def(n, tag, body) => {
                out += &format!("[% macro {}() %]<{tag}:{}>[% endmacro %]", name(*n), source(body));
            }
            Stmt::Call(n) => {
                let m = name(*n);
                out += &format!("[[ {m}() if {m} is defined and {m} is not number else \"-\" ]]");
            }
            Stmt::Read(n) => {
                let m = name(*n);
                out += &format!(
                    "[[ \"L\" if {m} is number else (\"M\" if {m} is defined else \"S\") ]]"
                );
            }
            Stmt::If(yes, body) => out += &format!("[% if {yes} %]{}[% endif %]", source(body)),
            Stmt::Loop(n, body) => {
                out += &format!("[% for {} in [1] %]{}[% endfor %]", name(*n), source(body));
            }
        }
    }
    out
}

/// The reference: runs `program` with `macros` defined so far (a list,
/// scanned; a redefinition replaces its entry) and the loop variables
/// visible here. `None` when the calls recurse past the limit.
fn reference(
    program: &[Stmt],
    macros: &mut Vec<(u8, u8, Vec<Stmt>)>,
    loops: &[u8],
    depth: usize,
) -> Option<String> {
    let mut out = String::new();
    for stmt in program {
        match stmt {
            Stmt::Def(n, tag, body) => match macros.iter_mut().find(|(m, ..)| m == n) {
                Some(slot) => *slot = (*n, *tag, body.clone()),
                None => macros.push((*n, *tag, body.clone())),
            },
            Stmt::Call(n) => {
                let found = macros.iter().find(|(m, ..)| m == n).cloned();
                match found {
                    Some((_, tag, body)) if !loops.contains(n) => {
                        if depth >= 100 {
                            return None;
                        }
                        // A macro body sees no loop variable of its caller.
                        let inner = reference(&body, macros, &[], depth + 1)?;
                        out += &format!("<{tag}:{inner}>");
                    }
                    _ => out.push('-'),
                }
            }
            Stmt::Read(n) if loops.contains(n) => out.push('L'),
            Stmt::Read(n) if macros.iter().any(|(m, ..)| m == n) => out.push('M'),
            Stmt::Read(_) => out.push('S'),
            Stmt::If(yes, body) => {
                if *yes {
                    out += &reference(body, macros, loops, depth)?;
                }
            }
            Stmt::Loop(n, body) => {
                let mut inner = loops.to_vec();
                inner.push(*n);
                out += &reference(body, macros, &inner, depth)?;
            }
        }
    }
    Some(out)
}

fn program() -> impl Strategy<Value = Vec<Stmt>> {
    let leaf = prop_oneof![(0u8..4).prop_map(Stmt::Call), (0u8..4).prop_map(Stmt::Read)];
    let stmt = leaf.prop_recursive(3, 24, 4, |inner| {
        let body = prop::collection::vec(inner, 0..4);
        prop_oneof![
            (0u8..4, any::<u8>(), body.clone()).prop_map(|(n, t, b)| Stmt::Def(n, t, b)),
            (any::<bool>(), body.clone()).prop_map(|(y, b)| Stmt::If(y, b)),
            (0u8..4, body).prop_map(|(n, b)| Stmt::Loop(n, b)),
        ]
    });
    prop::collection::vec(stmt, 0..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn macro_resolution_matches_the_linear_reference(program in program()) {
        let source = source(&program);
        let mut env = Environment::new();
        env.set_limits(Limits::default().with_stack_limit(64 << 20));
        let result = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(128 << 20)
                .spawn_scoped(s, || env.render_str(&source, &Context::default(), 0))
                .unwrap()
                .join()
                .unwrap()
        });
        match reference(&program, &mut Vec::new(), &[], 0) {
            Some(expected) => prop_assert_eq!(result.map(|r| r.output), Ok(expected), "{}", source),
            None => prop_assert_eq!(
                result.map_err(|e| e.kind().as_str()).map(|r| r.output),
                Err("recursion_limit"),
                "{}",
                source
            ),
        }
    }
}
