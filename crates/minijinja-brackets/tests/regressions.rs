//! Inputs that once crashed or misbehaved (found by fuzzing or the hostile
//! corpus), each pinned with what it must give now.

use minijinja_brackets::{Context, Environment};

fn render(source: &str) -> Result<String, String> {
    let env = Environment::new();
    let template = env.compile(source).map_err(|err| err.to_string())?;
    template.render(&Context::default(), 0).map(|r| r.output).map_err(|err| err.to_string())
}

/// `range` computed `i * step` in i64, which overflows (a panic in debug
/// builds, wrapped numbers in release) when the step is over half the
/// span, although every item lies between start and stop.
#[test]
fn range_with_a_step_over_half_the_i64_span() {
    let source = "[% for i in range(-9223372036854775807, 9223372036854775807, 4611686018427387904) %]\
                  [[ i ]] [% endfor %]";
    assert_eq!(
        render(source).unwrap(),
        "-9223372036854775807 -4611686018427387903 1 4611686018427387905 "
    );
    assert_eq!(
        render("[[ range(9223372036854775807, -9223372036854775807, -9223372036854775807) ]]")
            .unwrap(),
        "[9223372036854775807,0]"
    );
}

fn kind_and_message(source: &str, context: &Context) -> (String, String, Option<usize>) {
    let env = Environment::new();
    let err = env.render_str(source, context, 0).unwrap_err();
    (err.kind().as_str().to_owned(), err.message().to_owned(), err.column())
}

/// `9223372036854775808` (one past `i64::MAX`) silently became a float; it
/// is a syntax error at the literal, as every larger integer was. Directly
/// negated it is `i64::MIN`, an integer (it used to be a float too).
#[test]
fn an_integer_literal_outside_64_bits_is_a_syntax_error() {
    let none = Context::default();
    for source in ["[[ 9223372036854775808 ]]", "[[ 1 + 9223372036854775808 ]]"] {
        let (kind, message, _) = kind_and_message(source, &none);
        assert_eq!(kind, "syntax_error", "{source}");
        assert!(message.starts_with("the integer `9223372036854775808` does not fit"), "{message}");
    }
    assert_eq!(kind_and_message("[[ 9223372036854775808 ]]", &none).2, Some(4));
    assert_eq!(render("[[ -9223372036854775808 ]]").unwrap(), "-9223372036854775808");
    assert_eq!(render("[[ (- 9_223_372_036_854_775_808) is integer ]]").unwrap(), "true");
    assert_eq!(render("[[ -9223372036854775808 + 1 ]]").unwrap(), "-9223372036854775807");
    // The minus applies after a filter, a test or an attribute, so there
    // the literal stands alone and does not fit.
    for source in [
        "[[ -9223372036854775808 -> abs ]]",
        "[[ -9223372036854775808 is integer ]]",
        "[[ -(9223372036854775808) ]]",
        "[[ -9223372036854775809 ]]",
    ] {
        assert_eq!(kind_and_message(source, &none).0, "syntax_error", "{source}");
    }
    assert_eq!(render("[[ (-9223372036854775808.0) is float ]]").unwrap(), "true");
}

/// `1.e5` was the attribute `e5` of `1` and printed nothing; it is Python's
/// float `1.0e5`.
#[test]
fn a_point_before_an_exponent_is_a_float() {
    assert_eq!(render("[[ 1.e5 ]]|[[ 2.E-1 ]]|[[ 1_0.e+1 is float ]]").unwrap(), "100000|0.2|true");
    // Without an exponent a point still starts an attribute or an index.
    assert_eq!(render("[[ 1.e ]]|[[ [[7]].0.0 ]]").unwrap(), "|7");
}

/// A comparison with NaN said "cannot compare float and float" (floats
/// compare fine); it now says NaN is the reason, in `<`, `sort`, `min` and
/// `max` alike.
#[test]
fn nan_comparisons_name_nan() {
    let none = Context::default();
    // NaN cannot be stored, but computed in place it is reachable.
    let nan = "(1e308 * 10 - 1e308 * 10)";
    let cases = [
        ("[[ NAN < 1 ]]", "cannot compare NaN (not a number has no order) with `<`"),
        ("[[ 1 >= NAN ]]", "cannot compare NaN (not a number has no order) with `>=`"),
        ("[[ [1, NAN, 2] -> sort ]]", "cannot sort a list holding NaN (not a number has no order)"),
        ("[[ [1, NAN] -> max ]]", "`max`: cannot compare NaN (not a number has no order)"),
    ];
    for (expr, expected) in cases {
        let (kind, message, _) = kind_and_message(&expr.replace("NAN", nan), &none);
        assert_eq!((kind.as_str(), message.as_str()), ("invalid_operation", expected), "{expr}");
    }
    // Other mismatches keep naming the kinds.
    let (_, message, _) = kind_and_message("[[ 1 < \"a\" ]]", &none);
    assert_eq!(message, "cannot compare integer and string with `<`");
    // Mixed kinds sort in minijinja's order of kinds (issue 15); lists
    // among themselves have none.
    assert_eq!(render("[[ [\"a\", 1, none] -> sort ]]").unwrap(), r#"[null,1,"a"]"#);
    assert!(
        render("[[ [[1], [2]] -> sort ]]").unwrap_err().contains("cannot sort a list of lists")
    );
}

/// A context integer above `i64::MAX` (serde_json keeps those up to
/// `u64::MAX` exactly) became a float when read; it is an error at the
/// first read, naming the variable.
#[test]
fn a_context_integer_outside_64_bits_is_an_error_at_its_read() {
    let context: Context = serde_json::from_str(
        r#"{"state": {"ok": 9223372036854775807, "big": 18446744073709551615},
            "local": {"deep": [1, {"n": 9223372036854775808}]}}"#,
    )
    .unwrap();
    assert_eq!(
        Environment::new().render_str("[[ ok ]]", &context, 0).unwrap().output,
        "9223372036854775807"
    );
    let (kind, message, column) = kind_and_message("x [[ big ]]", &context);
    assert_eq!(kind, "invalid_operation");
    assert_eq!(
        message,
        "the context's `big` cannot be read: the integer 18446744073709551615 does not fit in 64 bits"
    );
    assert_eq!(column, Some(6));
    let (_, message, _) = kind_and_message("[[ L.deep ]]", &context);
    assert!(message.starts_with("the context's `L.deep` cannot be read"), "{message}");
    assert_eq!(kind_and_message("[[ L ]]", &context).0, "invalid_operation");
    assert_eq!(kind_and_message("[[ big.x ]]", &context).0, "invalid_operation");
}

/// JSON context text with an integer beyond 64 bits (which serde_json would
/// read as the nearest float) or a repeated key is an `invalid_json` error
/// at its line and column with `Context::from_json`.
#[test]
fn context_text_is_read_strictly() {
    let err = Context::from_json("\u{feff}{\"state\": {\"n\": 18446744073709551616}}").unwrap_err();
    assert_eq!(err.kind().as_str(), "invalid_json");
    assert_eq!((err.line(), err.column()), (Some(1), Some(17)));
    let err = Context::from_json("{\"state\": {\"a\": 1,\n \"a\": 2}}").unwrap_err();
    assert_eq!((err.kind().as_str(), err.line(), err.column()), ("invalid_json", Some(2), Some(2)));
    assert!(err.message().contains("duplicate key `a`"), "{}", err.message());
    // Without `state`, `local` or `global` the object is the state store;
    // beside one of them another key is an error.
    assert_eq!(Context::from_json("{\"stat\": {}}").unwrap().state["stat"], serde_json::json!({}));
    let err = Context::from_json("{\"stat\": {}, \"local\": {}}").unwrap_err();
    assert_eq!(err.kind().as_str(), "invalid_json");
    let context = Context::from_json("\u{feff}{\"state\": {\"x\": 0.7}}").unwrap();
    assert_eq!(Environment::new().render_str("[[ x ]]", &context, 0).unwrap().output, "0.7");
}

/// Issue 15, bug 3: `1 == true` and `0 == false` were false; as in Jinja
/// and minijinja a boolean equals the number 1 or 0 (and orders as it).
#[test]
fn booleans_equal_one_and_zero() {
    assert_eq!(
        render("[[ 1 == true ]]|[[ 0 == false ]]|[[ 1.0 != true ]]").unwrap(),
        "true|true|false"
    );
    assert_eq!(
        render("[[ 2 == true ]]|[[ false < true ]]|[[ true in [1] ]]").unwrap(),
        "false|true|true"
    );
}

/// Issue 15, bug 4: `split(none, 1)` and `split(maxsplit=1)` ignored the
/// count when splitting on whitespace.
#[test]
fn split_on_whitespace_keeps_maxsplit() {
    assert_eq!(render("[[ '  a b  c ' -> split(none, 1) ]]").unwrap(), r#"["a","b  c "]"#);
    assert_eq!(render("[[ 'a b c' -> split(maxsplit=1) ]]").unwrap(), r#"["a","b c"]"#);
    assert_eq!(
        render("[[ 'a b' -> split(maxsplit=0) ]]|[[ '' -> split(none, 1) ]]").unwrap(),
        r#"["a b"]|[]"#
    );
}

/// Issue 15, bug 5: `unique` was case-sensitive; Jinja's default is not
/// (`case_sensitive=true` restores it).
#[test]
fn unique_folds_case_by_default() {
    assert_eq!(render("[[ ['a', 'A', 'b', 'B'] -> unique ]]").unwrap(), r#"["a","b"]"#);
    assert_eq!(render("[[ ['a', 'A'] -> unique(case_sensitive=true) ]]").unwrap(), r#"["a","A"]"#);
}

/// Issue 15, bug 9: `sort(reverse=true)` reversed the order of equal items;
/// the sort is stable either way (the comparison is reversed).
#[test]
fn reverse_sort_keeps_ties_in_input_order() {
    let template = "[[ [{'n': 'a', 'age': 1}, {'n': 'b', 'age': 2}, {'n': 'c', 'age': 1}, \
                    {'n': 'd', 'age': 2}] -> sort(attribute='age', reverse=true) \
                    -> join(attribute='n') ]]";
    assert_eq!(render(template).unwrap(), "bdac");
    assert_eq!(render("[[ ['b', 'A', 'a', 'B'] -> sort(reverse=true) -> join ]]").unwrap(), "bBAa");
}

/// Issue 15, bug 1: a `for`'s `if` filter saw its own loop's `loop`
/// (Jinja: it does not; in a nested loop it sees the outer one), and
/// `loop.revindex0` there subtracted past zero (a panic in debug builds).
#[test]
fn a_loop_filter_does_not_see_its_own_loop() {
    let source = "[% for n in [1, 2, 3] if loop is undefined %][[ n ]][% endfor %]";
    assert_eq!(render(source).unwrap(), "123");
    assert_eq!(render("[% for n in [1] if loop.revindex0 %]x[% endfor %]").unwrap(), "");
    assert_eq!(render("[% for n in [1] if loop.revindex %]x[% endfor %]").unwrap(), "");
    let nested = "[% for a in [1, 2] %][% for b in [1, 2, 3] if loop.index == b %][[ a ]][[ b ]] \
                  [% endfor %][% endfor %]";
    assert_eq!(render(nested).unwrap(), "11 22 ");
    // A filter's own target named `loop` is that target.
    let own =
        "[% for x in [1] %][% for loop in [5, 6] if loop > 5 %][[ loop ]][% endfor %][% endfor %]";
    assert_eq!(render(own).unwrap(), "6");
    // The body sees the loop, counted over the kept items.
    let body =
        "[% for n in [1, 2, 3, 4] if n is even %][[ loop.index ]]/[[ loop.length ]] [% endfor %]";
    assert_eq!(render(body).unwrap(), "1/2 2/2 ");
}

/// Issue 15, bug 2: `10_` and `1__0` were accepted; a `_` must stand
/// between two digits (Python's and Jinja's rule).
#[test]
fn a_number_underscore_stands_between_digits() {
    let none = Context::default();
    for source in [
        "[[ 10_ ]]",
        "[[ 1__0 ]]",
        "[[ 1_.5 ]]",
        "[[ 1.5_ ]]",
        "[[ 1e5_ ]]",
        "[[ -9223372036854775808_ ]]",
    ] {
        let (kind, message, _) = kind_and_message(source, &none);
        assert_eq!(kind, "syntax_error", "{source}");
        assert!(message.contains("must stand between two digits"), "{source}: {message}");
    }
    assert_eq!(render("[[ 1_000 + 1_0.2_5 + 1e0_1 ]]").unwrap(), "1020.25");
}

/// Issue 15, bug 7: a macro's attributes printed nothing; `name`,
/// `arguments` and `caller` work, any other is an error naming those.
#[test]
fn macro_attributes_are_known_or_an_error() {
    let source = "[% macro add(a, b=2) %][[ a + b ]][% endmacro %]\
                  [% macro wrap() %]<[[ caller() ]]>[% endmacro %]\
                  [[ add.name ]] [[ add.arguments ]] [[ add.caller ]] [[ wrap.caller ]]";
    assert_eq!(render(source).unwrap(), "add [\"a\",\"b\"] false true");
    let (kind, message, _) =
        kind_and_message("[% macro m() %][% endmacro %][[ m.nope ]]", &Context::default());
    assert_eq!(kind, "invalid_operation");
    assert!(
        message.contains("no attribute `nope`") && message.contains("`arguments`"),
        "{message}"
    );
}

/// Issue 15, bug 8: `foo(-[1, 2])` reported the unknown function; the
/// arguments are evaluated first (minijinja's order), so their error wins.
#[test]
fn arguments_are_evaluated_before_the_callee_is_checked() {
    let none = Context::default();
    assert_eq!(kind_and_message("[[ foo(-[1, 2]) ]]", &none).0, "invalid_operation");
    assert_eq!(kind_and_message("[% set x = 1 %][[ x(1 // 0) ]]", &none).0, "invalid_operation");
    assert_eq!(kind_and_message("[[ foo(1) ]]", &none).0, "unknown_function");
}

/// A `with` that bound the same name twice showed only the first value
/// (noticed in issue 15); the later binding wins, as in Jinja, and a
/// binding between them sees the earlier one.
#[test]
fn with_binding_a_name_twice_keeps_the_last_value() {
    assert_eq!(render("[% with a = 1, b = a, a = 2 %][[ a ]][[ b ]][% endwith %]").unwrap(), "21");
    assert_eq!(render("[% with (a, a) = [1, 2] %][[ a ]][% endwith %]").unwrap(), "2");
    // Past the few names a scan finds, the frame is indexed: the same rule.
    let many: Vec<String> = (0..12).map(|i| format!("v{i} = {i}")).collect();
    let source = format!("[% with {}, v3 = 30 %][[ v3 ]][[ v11 ]][% endwith %]", many.join(", "));
    assert_eq!(render(&source).unwrap(), "3011");
}

/// Issue 15: a `call` block's body sees its call site's names (loop
/// variables, `with` targets), not the macro's parameters.
#[test]
fn call_block_body_is_lexically_scoped() {
    let source = "[% macro m(x) %][% for y in [9] %][[ caller() ]][% endfor %][% endmacro %]\
                  [% for x in [1] %][% with y = 2 %][% call m(5) %][[ x ]][[ y ]][[ loop.index ]][% endcall %][% endwith %][% endfor %]";
    assert_eq!(render(source).unwrap(), "121");
}

/// A template set under `main`, rendered: the error kind and message, or
/// the output.
fn render_set(templates: &[(&str, &str)]) -> Result<String, (String, String)> {
    let mut env = Environment::new();
    for (name, source) in templates {
        env.add_template(name, source)
            .map_err(|e| (e.kind().as_str().to_owned(), e.to_string()))?;
    }
    env.template("main")
        .and_then(|t| t.render(&Context::default(), 0))
        .map(|r| r.output)
        .map_err(|e| (e.kind().as_str().to_owned(), e.to_string()))
}

/// `break` and `continue` in a block were accepted when a `for` of the
/// template enclosed the block, but a block is rendered on its own (by the
/// parent through `extends`, by `self.b()` outside the loop): the control
/// cut the rest of the render short, lost later writes, and a child's
/// `break` could end the parent's loop. A loop control needs a `for` inside
/// the same block (or macro body), as in Jinja2: a syntax error at compile
/// time otherwise, whichever template is rendered.
#[test]
fn a_loop_control_in_a_block_needs_a_loop_inside_the_block() {
    let refused = [
        // Rendered by the parent, whose loop does not enclose the child's.
        &[
            ("base", "<[% block b %][% endblock %]>TAIL [% for i in [1] %][[ i ]][% endfor %]"),
            (
                "main",
                "[% extends 'base' %][% for x in [1] %][% block b %]B[% break %]X[% endblock %][% endfor %]",
            ),
        ][..],
        // Rendered through `self.b()` outside its loop.
        &[(
            "main",
            "[% for x in [1] %][% block b %]B[% continue %]X[% endblock %][% endfor %]<[[ self.b() ]]>TAIL 1",
        )],
        // A child's `break`, in a block the parent renders inside its loop.
        &[
            ("base", "[% for i in [1, 2, 3] %][% block b %][% endblock %][[ i ]][% endfor %]"),
            ("main", "[% extends 'base' %][% block b %][% break %][% endblock %]"),
        ][..],
        // Nested blocks: the outer block's loop is outside the inner block.
        &[(
            "main",
            "[% block a %][% for i in [1] %][% block b %][% break %][% endblock %][% endfor %][% endblock %]",
        )],
    ];
    for templates in refused {
        let (kind, message) = render_set(templates).unwrap_err();
        assert_eq!(kind, "syntax_error", "{templates:?}");
        assert!(message.contains("outside a `for` loop"), "{message}");
    }
    // A loop inside the block is the block's own: its controls work, and
    // the `else` of a loop is outside that loop.
    assert_eq!(
        render_set(&[
            ("base", "<[% block b %][% endblock %]>TAIL 1"),
            (
                "main",
                "[% extends 'base' %][% block b %][% for i in [1, 2, 3] %][% if i == 2 %][% break %][% endif %][[ i ]][% endfor %][% endblock %]"
            ),
        ]),
        Ok("<1>TAIL 1".to_owned())
    );
    let (kind, _) =
        render_set(&[("main", "[% for i in [] %][% else %][% break %][% endfor %]")]).unwrap_err();
    assert_eq!(kind, "syntax_error");
}

/// A loop's `else` ran only when nothing was kept; Jinja2 runs it when no
/// iteration reached the end of the body, so also after a `break` in the
/// first iteration or a `continue` in every one (checked against Jinja2
/// 3.1).
#[test]
fn a_loop_else_runs_when_no_iteration_reached_the_end_of_the_body() {
    for (source, expected) in [
        ("[% for i in [1, 2, 3] %][[ i ]][% break %][% else %]E[% endfor %]", "1E"),
        ("[% for i in [1, 2, 3] %][% continue %][% else %]E[% endfor %]", "E"),
        (
            "[% for i in [1, 2, 3] %][% if i == 2 %][% break %][% endif %][[ i ]][% else %]E[% endfor %]",
            "1",
        ),
        (
            "[% for i in [1, 2, 3] %][% if i < 3 %][% continue %][% endif %][[ i ]][% else %]E[% endfor %]",
            "3",
        ),
        ("[% for i in [] %][% else %]E[% endfor %]", "E"),
        ("[% for i in [1, 2] if false %][% else %]E[% endfor %]", "E"),
        ("[% for i in [1, 2] %][[ i ]][% else %]E[% endfor %]", "12"),
        // The `else` is outside the loop: `loop` is gone, the variable too.
        ("[% for i in [1] %][% break %][% else %][[ i is defined ]][% endfor %]", "false"),
    ] {
        assert_eq!(render(source).as_deref(), Ok(expected), "{source}");
    }
}

/// The `lower` and `upper` tests required every character to be of the
/// case (`"a b" is lower` was false, `"" is lower` true); they are Python's
/// `islower`/`isupper`, as in Jinja2: at least one cased character, none of
/// the other case or titlecase (checked against Jinja2 3.1).
#[test]
fn the_lower_and_upper_tests_are_pythons() {
    let source = "[[ ['abc', '', '123', 'a1', 'a b', 'aB', 'ß', '\u{1c5}', 'ª', 'ﬁ'] \
                  -> map('string') -> select('lower') -> join(',') ]]|\
                  [[ ['ABC', '', '1', 'A1', 'A B', 'Ab', '\u{1c5}', 'Σ!'] -> select('upper') -> join(',') ]]";
    assert_eq!(render(source).unwrap(), "abc,a1,a b,ß,ª,ﬁ|ABC,A1,A B,Σ!");
    assert_eq!(render("[[ 1 is lower ]] [[ none is upper ]]").unwrap(), "false false");
}

/// `**` gave `inf` or NaN silently where an integer overflow is an error;
/// a result that is not a finite number from finite operands is an error
/// too (Python raises `OverflowError`, `ZeroDivisionError`, or gives a
/// complex number).
#[test]
fn a_power_that_is_not_a_finite_number_is_an_error() {
    for source in [
        "[[ 10.0 ** 400 ]]",
        "[[ 2 ** 1024.0 ]]",
        "[[ (-8) ** 0.5 ]]",
        "[[ 0 ** -1 ]]",
        "[[ 0.0 ** -2.5 ]]",
        "[[ (10 ** 18) ** 20.0 ]]",
    ] {
        let (kind, message, _) = kind_and_message(source, &Context::default());
        assert_eq!(kind, "invalid_operation", "{source}: {message}");
    }
    assert_eq!(render("[[ 2 ** -1 ]] [[ 10 ** -400 ]] [[ 4 ** 0.5 ]]").unwrap(), "0.5 0 2");
}

/// `set p = loop` failed with "an undefined value cannot be stored" where
/// the undefined part is `loop.previtem`: the message names the part that
/// cannot be stored, as it would be read.
#[test]
fn an_unstorable_value_names_its_unstorable_part() {
    let none = Context::default();
    let message = |source: &str| kind_and_message(source, &none).1;
    assert_eq!(
        message("[% for x in [1] %][% set p = loop %][% endfor %]"),
        "cannot set `p`: an undefined value cannot be stored (`loop.previtem` is one)"
    );
    assert_eq!(
        message("[% set p = [1, {'a b': [missing]}] %]"),
        "cannot set `p`: an undefined value cannot be stored (`[1, {'a b': [missing]}][1][\"a b\"][0]` is one)"
    );
    assert_eq!(
        message("[% macro m() %][% endmacro %][% set p = {'f': m} %]"),
        "cannot set `p`: a macro cannot be stored (`{'f': m}.f` is one)"
    );
    // The value itself: the hint to store a fallback, as before.
    assert_eq!(
        message("[% set p = missing %]"),
        "cannot set `p`: an undefined value cannot be stored (use `-> default(...)` to store a fallback)"
    );
}

/// Every render reports the seed it drew from: the one passed in, or the
/// one a seedless render drew (below 2^53), which replays it.
#[test]
fn renders_report_their_seed() {
    let template = Environment::new()
        .compile("[% chance 0.5 %]a[% endchance %][% chance 0.5 %]b[% endchance %]")
        .unwrap();
    let context = Context::default();
    assert_eq!(template.render_outcome(&context, 42).unwrap().seed, 42);
    assert_eq!(template.render(&context, u64::MAX).unwrap().seed, u64::MAX);
    let json = serde_json::to_value(template.render(&context, 7).unwrap()).unwrap();
    assert_eq!(json["seed"], 7);
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["output", "state", "local", "global", "writes", "effects", "seed"]);
    for _ in 0..8 {
        let drawn = template.render_outcome_unseeded(&context).unwrap();
        assert!(drawn.seed < minijinja_brackets::SEED_BOUND);
        assert_eq!(template.render_outcome(&context, drawn.seed).unwrap().output, drawn.output);
    }
}
