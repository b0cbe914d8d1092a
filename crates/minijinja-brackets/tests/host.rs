//! The host-facing API: registering filters, tests and functions, reusing a
//! compiled template, limits, strict mode, and errors from host code.

use minijinja_brackets::{Context, Environment, Error, ErrorKind, Scope, Value, ValueKind};

fn context(json: &str) -> Context {
    serde_json::from_str(json).unwrap()
}

#[test]
fn host_filters_and_functions() {
    let mut env = Environment::new();
    env.add_filter("repeat", |value: &Value, args: &[Value]| {
        let times = args.first().and_then(Value::as_i64).unwrap_or(2);
        Ok(Value::from(value.to_string().repeat(usize::try_from(times).unwrap_or(0))))
    });
    env.add_function("greet", |args: &[Value]| {
        let name = args.first().and_then(Value::as_str).unwrap_or("you");
        Ok(Value::from(format!("hello, {name}")))
    });
    let rendered = env.render_str(
        "[[ \"ab\" -> repeat(3) ]] [[ greet(\"Ann\") ]] [[ greet() ]]",
        &Context::default(),
        0,
    );
    assert_eq!(rendered.unwrap().output, "ababab hello, Ann hello, you");
}

/// Typed host callables, as minijinja's `Function` trait allows: each
/// parameter is converted from the template's value, `Option` for one
/// that may be left out; the result is a value or a `Result` of one.
#[test]
fn typed_host_filters_tests_and_functions() {
    let mut env = Environment::new();
    env.add_filter("repeat", |s: String, n: i64| s.repeat(usize::try_from(n).unwrap_or(0)));
    env.add_filter("pad", |s: String, width: Option<usize>| {
        Ok::<_, Error>(format!("{s:>width$}", width = width.unwrap_or(4)))
    });
    env.add_filter("total", |items: Vec<f64>| items.iter().sum::<f64>());
    env.add_test("longer", |s: String, n: usize| s.chars().count() > n);
    env.add_function("greet", |name: String, loud: Option<bool>| {
        let greeting = format!("hello, {name}");
        if loud == Some(true) { greeting.to_uppercase() } else { greeting }
    });
    env.add_function("answer", || 42_i64);
    let render = |source: &str| {
        env.render_str(source, &context(r#"{"name": "Ann", "n": 2}"#), 0).map(|r| r.output)
    };
    assert_eq!(render("[[ name -> repeat(n) ]]").unwrap(), "AnnAnn");
    assert_eq!(render("[[ 'ab' -> pad ]]|[[ 'ab' -> pad(3) ]]").unwrap(), "  ab| ab");
    assert_eq!(render("[[ [1, 2.5] -> total ]]").unwrap(), "3.5");
    assert_eq!(render("[[ name is longer(2) ]] [[ name is longer(3) ]]").unwrap(), "true false");
    assert_eq!(
        render("[[ greet(name) ]] [[ greet(name, true) ]]").unwrap(),
        "hello, Ann HELLO, ANN"
    );
    assert_eq!(render("[[ answer() ]]").unwrap(), "42");
}

/// A value of the wrong kind, a missing argument, one too many and a
/// keyword are `bad_arguments` errors naming the callee and the argument
/// (its place: the value filtered, or argument N) and both kinds.
#[test]
fn typed_host_callables_name_the_argument_of_the_wrong_type() {
    let mut env = Environment::new();
    env.add_filter("repeat", |s: String, n: i64| s.repeat(usize::try_from(n).unwrap_or(0)));
    env.add_filter("total", |items: Vec<f64>| items.iter().sum::<f64>());
    env.add_function("greet", |name: String| format!("hello, {name}"));
    let error = |source: &str| {
        let err = env.render_str(source, &Context::default(), 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadArguments, "{source}: {err}");
        err.to_string()
    };
    assert_eq!(
        error("[[ 'ab' -> repeat('3') ]]"),
        "filter `repeat`: argument 1 must be an integer, not a string"
    );
    assert_eq!(
        error("[[ 5 -> repeat(3) ]]"),
        "filter `repeat`: the value must be a string, not an integer"
    );
    assert_eq!(
        error("[[ missing -> repeat(3) ]]"),
        "filter `repeat`: the value must be a string, not undefined"
    );
    assert_eq!(error("[[ 'ab' -> repeat ]]"), "filter `repeat` needs argument 1 (an integer)");
    assert_eq!(error("[[ 'ab' -> repeat(1, 2) ]]"), "filter `repeat` takes 1 argument, not 2");
    assert_eq!(error("[[ 'ab' -> repeat(n=1) ]]"), "filter `repeat` takes no keyword arguments");
    assert_eq!(
        error("[[ [1, 'x'] -> total ]]"),
        "filter `total`: the value must be a list of items each a number, not a list whose item 1 is a string"
    );
    assert_eq!(
        error("[[ greet(none) ]]"),
        "function `greet`: argument 1 must be a string, not none"
    );
}

#[test]
fn a_host_filter_can_replace_a_builtin() {
    let mut env = Environment::new();
    env.add_filter("upper", |value: &Value, _: &[Value]| Ok(Value::from(format!("<{value}>"))));
    assert_eq!(
        env.render_str("[[ \"x\" -> upper ]]", &Context::default(), 0).unwrap().output,
        "<x>"
    );
}

/// Every environment starts from one shared table of built-ins (built
/// once per process); a host adding to one environment copies it, so no
/// other environment, earlier or later, sees the addition.
#[test]
fn environments_share_the_builtins_until_one_adds_to_them() {
    let before = Environment::new();
    let mut env = Environment::new();
    let clone = env.clone();
    env.add_filter("upper", |value: &Value, _: &[Value]| Ok(Value::from(format!("<{value}>"))));
    env.add_filter("shout", |value: &Value, _: &[Value]| Ok(Value::from(format!("{value}!"))));
    let after = Environment::new();
    let render = |env: &Environment, source: &str| {
        env.render_str(source, &Context::default(), 0).map(|r| r.output).map_err(|e| e.kind())
    };
    assert_eq!(render(&env, "[[ 'x' -> upper -> shout ]]").unwrap(), "<x>!");
    for other in [&before, &clone, &after] {
        assert_eq!(render(other, "[[ 'x' -> upper ]]").unwrap(), "X");
        assert_eq!(render(other, "[[ 'x' -> shout ]]"), Err(ErrorKind::UnknownFilter));
    }
}

#[test]
fn host_errors_get_the_position_of_the_call() {
    let mut env = Environment::new();
    env.add_filter("fail", |_: &Value, _: &[Value]| {
        Err(Error::new(ErrorKind::BadArguments, "no way"))
    });
    let err = env.render_str("line\n  [[ 1 -> fail ]]", &Context::default(), 0).unwrap_err();
    assert_eq!(
        (err.kind(), err.message(), err.line(), err.column()),
        (ErrorKind::BadArguments, "no way", Some(2), Some(6))
    );
    let err = env.render_str("[[ 1 -> fail(x=1) ]]", &Context::default(), 0).unwrap_err();
    assert_eq!(err.message(), "filter `fail` takes no keyword arguments");
}

#[test]
fn unknown_filters_are_found_at_compile_time_even_in_dead_branches() {
    let env = Environment::new();
    let err = env.compile("[% if false %][[ x -> shout ]][% endif %]").unwrap_err();
    assert_eq!((err.kind(), err.snippet()), (ErrorKind::UnknownFilter, Some("shout")));
    let err = env.compile("[% if x is tall %][% endif %]").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownTest);
}

#[test]
fn a_template_renders_many_contexts() {
    let env = Environment::new();
    let template = env
        .compile("[% set L.seen = (L.seen -> default(0)) + 1 %][[ name ]]:[[ L.seen ]]")
        .unwrap();
    let first = template.render(&context(r#"{"state": {"name": "Ann"}}"#), 0).unwrap();
    let second = template
        .render(&context(r#"{"state": {"name": "Bob"}, "local": {"seen": 4}}"#), 0)
        .unwrap();
    assert_eq!((first.output.as_str(), second.output.as_str()), ("Ann:1", "Bob:5"));
    assert_eq!(second.writes[0].scope, Scope::Local);
    assert_eq!(second.local["seen"], 5);
}

#[test]
fn a_failed_render_returns_only_the_error() {
    let env = Environment::new();
    // The write and the effect before the failure are not returned.
    let result =
        env.render_str("[% set a = 1 %][% qr \"q\" %]out[[ 1 // 0 ]]", &Context::default(), 0);
    assert_eq!(result.unwrap_err().kind(), ErrorKind::InvalidOperation);
}

#[test]
fn strict_mode_is_per_environment() {
    let mut env = Environment::new();
    assert_eq!(env.render_str("[[ missing ]]!", &Context::default(), 0).unwrap().output, "!");
    env.set_strict(true);
    let err = env.render_str("[[ missing ]]!", &Context::default(), 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UndefinedError);
    // Strict mode still allows testing and defaulting undefined values.
    let ok = env.render_str(
        "[[ missing is defined ]] [[ missing -> default(1) ]]",
        &Context::default(),
        0,
    );
    assert_eq!(ok.unwrap().output, "false 1");
    // Testing it for truth is an error too (minijinja's strict mode).
    for template in [
        "[% if missing %]x[% endif %]",
        "[% for x in [missing] if x %][% endfor %]",
        "[[ not missing ]]",
        "[[ missing or 1 ]]",
        "[[ 1 if missing else 2 ]]",
    ] {
        let err = env.render_str(template, &Context::default(), 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UndefinedError, "{template}");
    }
    let ok = env.render_str(
        "[% if missing is defined and missing %]x[% endif %]y",
        &Context::default(),
        0,
    );
    assert_eq!(ok.unwrap().output, "y");
}

#[test]
fn values_for_hosts() {
    let value = Value::from_json(&serde_json::json!({"name": "Ann", "tags": [1, 2.5]})).unwrap();
    assert_eq!(value.kind(), ValueKind::Map);
    assert_eq!(value.get("name").and_then(Value::as_str), Some("Ann"));
    let tags = value.get("tags").and_then(Value::as_list).unwrap();
    assert_eq!((tags[0].as_i64(), tags[1].as_f64()), (Some(1), Some(2.5)));
    assert_eq!(value.entries().unwrap().map(|(k, _)| k).collect::<Vec<_>>(), ["name", "tags"]);
    assert!(Value::UNDEFINED.to_json().is_err());
}

#[test]
fn unicode_names_work() {
    let env = Environment::new();
    let rendered = env.render_str(
        "[% set имя = \"Аня\" %][[ имя ]] [[ L[\"мой ключ\"] ]]",
        &context(r#"{"local": {"мой ключ": 1}}"#),
        0,
    );
    assert_eq!(rendered.unwrap().output, "Аня 1");
}

#[test]
fn jinja_whitespace_modes_are_opt_in() {
    let source = "<ul>\n  [% for x in xs %]\n  <li>[[ x ]]</li>\n  [% endfor %]\n</ul>\n";
    let context = context(r#"{"state": {"xs": [1, 2]}}"#);
    let mut env = Environment::new();
    let off = env.render_str(source, &context, 0).unwrap().output;
    assert_eq!(off, "<ul>\n  \n  <li>1</li>\n  \n  <li>2</li>\n  \n</ul>\n");
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    let on = env.render_str(source, &context, 0).unwrap().output;
    assert_eq!(on, "<ul>\n  <li>1</li>\n  <li>2</li>\n</ul>\n");
    // `+` opts a tag out; print tags and text after them are never touched.
    let plus =
        env.render_str("  [%+ if true %]x[% endif +%]\ny\n  [# c #]\n[[ 1 ]]\n", &context, 0);
    assert_eq!(plus.unwrap().output, "  x\ny\n1\n");
    // Indentation after other content on the line is not stripped.
    let inline = env.render_str("a  [% if true %]b[% endif %]", &context, 0);
    assert_eq!(inline.unwrap().output, "a  b");
}

/// Host filters, tests and functions take the built-ins' own signature,
/// keyword arguments included.
#[test]
fn host_callables_take_keyword_arguments() {
    use minijinja_brackets::Arguments;
    let mut env = Environment::new();
    env.add_filter("around", |value: Value, args: Arguments<'_>| {
        let [with] = args.bind("filter `around`", ["with"])?;
        let with = with.as_str().unwrap_or("*").to_owned();
        Ok(Value::from(format!("{with}{value}{with}")))
    });
    env.add_test("longer", |value: &Value, args: Arguments<'_>| {
        let [than] = args.bind("test `longer`", ["than"])?;
        Ok(value.to_string().chars().count() as i64 > than.as_i64().unwrap_or(0))
    });
    env.add_function("pair", |args: Arguments<'_>| {
        let [a, b] = args.bind("function `pair`", ["a", "b"])?;
        Ok(Value::from(vec![a, b]))
    });
    let out = env
        .render_str(
            "[[ 'x' -> around(with='_') ]] [[ 'abc' is longer(than=2) ]] \
             [[ 'abc' is not longer(2) ]] [[ pair(b=2, a=1) ]]",
            &Context::default(),
            0,
        )
        .unwrap();
    assert_eq!(out.output, "_x_ true false [1,2]");
    let err = env.render_str("[[ 1 -> around(by=1) ]]", &Context::default(), 0).unwrap_err();
    assert_eq!(
        (err.kind(), err.message()),
        (ErrorKind::BadArguments, "filter `around` has no parameter named `by`")
    );
    // A host test is known at compile time and suggested for a typo.
    let err = env.compile("[[ 1 is longr ]]").unwrap_err();
    assert_eq!(
        (err.kind(), err.message()),
        (ErrorKind::UnknownTest, "unknown test `longr` (did you mean `longer`?)")
    );
}

/// A positional-only host function refuses keyword arguments, as before.
#[test]
fn positional_host_functions_refuse_keywords() {
    let mut env = Environment::new();
    env.add_function("one", |_: &[Value]| Ok(Value::from(1)));
    let err = env.render_str("[[ one(x=1) ]]", &Context::default(), 0).unwrap_err();
    assert_eq!(
        (err.kind(), err.message()),
        (ErrorKind::BadArguments, "function `one` takes no keyword arguments")
    );
}

/// A compiled template owns its source: it outlives the environment and
/// the source text, and is shared by threads.
#[test]
fn templates_are_owned_and_shared() {
    fn owned<T: Clone + Send + Sync + 'static>(_: &T) {}
    let template = {
        let mut env = Environment::new();
        env.add_filter("shout", |v: &Value, _: &[Value]| Ok(Value::from(format!("{v}!"))));
        let source = String::from("[[ name -> shout ]]");
        env.compile(&source).unwrap()
    };
    owned(&template);
    let context = context(r#"{"state": {"name": "Ann"}}"#);
    let outputs: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let template = template.clone();
                let context = &context;
                s.spawn(move || template.render(context, 0).unwrap().output)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(outputs, ["Ann!", "Ann!"]);
    assert_eq!(template.source(), "[[ name -> shout ]]");
}

/// Names are resolved after parsing, but the first problem in the source
/// is still the one reported: an unknown filter before a syntax error
/// (or an unclosed block) is the error, as when the parser looked names up.
#[test]
fn an_unknown_name_before_a_syntax_error_is_the_error() {
    let env = Environment::new();
    let err = env.compile("[[ x -> shuot ]] [[ 1 + ]]").unwrap_err();
    assert_eq!((err.kind(), err.message()), (ErrorKind::UnknownFilter, "unknown filter `shuot`"));
    let err = env.compile("[% if x %][[ x is tal ]]").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownTest);
    // The first in the source, whichever kind.
    let err = env.compile("[[ x is tal ]][[ x -> shuot ]]").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownTest);
    let err = env.compile("[[ x -> shuot ]][[ x is tal ]]").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownFilter);
    // A syntax error before any unknown name is the error.
    let err = env.compile("[[ 1 + ]][[ x -> shuot ]]").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SyntaxError);
}

/// The error is a `prompt_core` diagnostic: its `Display` is the message,
/// its span a byte span of the template.
#[test]
fn errors_are_diagnostics() {
    use prompt_core::diagnostic::{Diagnostic, Origin, Report};
    let source = "ab\n[[ x -> shuot ]]";
    let err = Environment::new().compile(source).unwrap_err();
    assert_eq!(Diagnostic::kind(&err), "unknown_filter");
    assert_eq!(err.to_string(), err.message());
    assert_eq!(Diagnostic::span(&err).map(|s| s.range()), Some(11..16));
    assert_eq!(err.origin(), Origin::Input);
    let report = Report::new(&err, Some(source));
    assert_eq!((report.line, report.column), (Some(2), Some(9)));
    assert_eq!(report.snippet.as_deref(), Some("shuot"));
    assert!(err.annotated().to_string().starts_with("error[unknown_filter]: unknown filter"));
    let err = Context::from_json("{\"state\": [}").unwrap_err();
    assert_eq!(err.origin(), Origin::Named("context".into()));
}

/// A host function may keep a macro or `caller` value it is given; calling
/// it in another render, or after its call ended, is an
/// `invalid_operation`, never a call into a syntax tree that is gone.
#[test]
fn a_kept_macro_value_is_only_callable_where_it_lives() {
    use std::sync::{Arc, Mutex};

    let kept: Arc<Mutex<Value>> = Arc::default();
    let mut env = Environment::new();
    let keep = kept.clone();
    env.add_function("keep", move |args: &[Value]| {
        *keep.lock().unwrap() = args[0].clone();
        Ok(Value::from(args[0].kind().as_str()))
    });
    let give = kept.clone();
    env.add_function("give", move |_: &[Value]| Ok(give.lock().unwrap().clone()));
    let render = |source: &str| env.render_str(source, &Context::default(), 0);
    let out = render("[% macro m() %]x[% endmacro %][[ keep(m) ]] [[ give()() ]]").unwrap();
    assert_eq!(out.output, "macro x");
    assert_eq!(kept.lock().unwrap().kind(), ValueKind::Macro);
    let err = render("[[ give()() ]]").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidOperation);
    assert_eq!(err.message(), "`m` belongs to another render and cannot be called here");
    let source =
        "[% macro m() %][[ keep(caller) ]][% endmacro %][% call m() %]x[% endcall %][[ give()() ]]";
    let err = render(source).unwrap_err();
    assert_eq!(err.message(), "`caller` is used after the macro call it belongs to has ended");
    let out = render("[[ keep(range) ]] [[ give()(2) ]]").unwrap();
    assert_eq!(out.output, "function [0,1]");
    assert_eq!(render("[[ give()(3) ]]").unwrap().output, "[0,1,2]");
}
