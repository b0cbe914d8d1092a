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
