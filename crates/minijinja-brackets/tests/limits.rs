//! Hostile templates: each limit gives its typed error, never a panic, a
//! stack overflow, a hang or an unbounded allocation. These run on the
//! test harness's threads (2 MiB stacks), in debug builds.

use minijinja_brackets::{Context, Environment, ErrorKind, Limits};

fn error_kind(env: &Environment, source: &str) -> ErrorKind {
    match env.render_str(source, &Context::default(), 0) {
        Ok(r) => panic!("expected an error, got {} bytes of output", r.output.len()),
        Err(err) => {
            assert!(err.line().is_some() && err.snippet().is_some(), "{err:?}");
            err.kind()
        }
    }
}

#[test]
fn deep_parentheses_are_a_syntax_error() {
    let env = Environment::new();
    let source = format!("[[ {}1{} ]]", "(".repeat(50_000), ")".repeat(50_000));
    assert_eq!(error_kind(&env, &source), ErrorKind::SyntaxError);
    let source = format!("[[ {}1{} ]]", "[".repeat(50_000), "]".repeat(50_000));
    assert_eq!(error_kind(&env, &source), ErrorKind::SyntaxError);
}

#[test]
fn nesting_just_under_the_limit_works() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_nesting_limit(20));
    // Each parenthesis is one level (it was two: the group and the
    // expression inside it, so 100 levels meant 49 parentheses).
    let nested = |n| format!("[[ {}1{} ]]", "(".repeat(n), ")".repeat(n));
    assert_eq!(env.render_str(&nested(20), &Context::default(), 0).unwrap().output, "1");
    assert_eq!(error_kind(&env, &nested(21)), ErrorKind::SyntaxError);
}

/// The documented nesting limit of 100 holds in debug builds too (the
/// stack budget ran out first there, at 51 parentheses or fewer), for each
/// kind of nesting: 100 levels render, 101 are the nesting error.
#[test]
fn one_hundred_levels_of_each_kind_of_nesting_work_at_the_default_limit() {
    let env = Environment::new();
    let context: Context = serde_json::from_str(r#"{"state": {"x": [0]}}"#).unwrap();
    type Make = fn(usize) -> String;
    let kinds: [(&str, Make); 11] = [
        ("parentheses", |n| format!("[[ {}1{} ]]", "(".repeat(n), ")".repeat(n))),
        ("lists", |n| format!("[[ {}x{} -> length ]]", "[".repeat(n), "]".repeat(n))),
        ("maps", |n| format!("[[ {}x{} -> length ]]", "{\"a\": ".repeat(n), "}".repeat(n))),
        ("subscripts", |n| format!("[[ {}0{} ]]", "x[".repeat(n), "]".repeat(n))),
        ("filter arguments", |n| format!("[[ {}1{} ]]", "x -> default(".repeat(n), ")".repeat(n))),
        ("filters", |n| format!("[[ 1{} ]]", " -> string".repeat(n))),
        ("not", |n| format!("[[ {}x ]]", "not ".repeat(n))),
        ("if blocks", |n| format!("{}y{}", "[% if x %]".repeat(n), "[% endif %]".repeat(n))),
        ("for blocks", |n| {
            format!("{}y{}", "[% for i in x %]".repeat(n), "[% endfor %]".repeat(n))
        }),
        ("with blocks", |n| {
            format!("{}y{}", "[% with a = x %]".repeat(n), "[% endwith %]".repeat(n))
        }),
        ("filter blocks", |n| {
            format!("{}y{}", "[% filter upper %]".repeat(n), "[% endfilter %]".repeat(n))
        }),
    ];
    for (kind, make) in kinds {
        let deepest = env.render_str(&make(100), &context, 0);
        assert!(deepest.is_ok(), "{kind}: {}", deepest.unwrap_err());
        let err = env.render_str(&make(101), &context, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::SyntaxError, "{kind}");
        assert_eq!(
            err.message(),
            "the template nests deeper than the limit of 100 levels",
            "{kind}"
        );
    }
}

#[test]
fn the_stack_budget_stops_what_the_counters_allow() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_nesting_limit(usize::MAX).with_stack_limit(64 * 1024));
    let source = format!("[[ {}1{} ]]", "(".repeat(10_000), ")".repeat(10_000));
    let err = env.compile(&source).unwrap_err();
    assert!(err.message().contains("native stack"), "{err}");
}

#[test]
fn long_operator_chains_and_prefix_runs_are_bounded() {
    let env = Environment::new();
    let chain = format!("[[ 1{} ]]", " + 1".repeat(100_000));
    assert_eq!(error_kind(&env, &chain), ErrorKind::SyntaxError);
    let minus = format!("[[ {}1 ]]", "- ".repeat(100_000));
    assert_eq!(error_kind(&env, &minus), ErrorKind::SyntaxError);
    let not = format!("[[ {}1 ]]", "not ".repeat(100_000));
    assert_eq!(error_kind(&env, &not), ErrorKind::SyntaxError);
    let filters = format!("[[ 1{} ]]", " -> string".repeat(100_000));
    assert_eq!(error_kind(&env, &filters), ErrorKind::SyntaxError);
    let attrs = format!("[[ a{} ]]", ".b".repeat(100_000));
    assert_eq!(error_kind(&env, &attrs), ErrorKind::SyntaxError);
}

#[test]
fn deep_blocks_are_a_syntax_error() {
    let env = Environment::new();
    let source = format!("{}x{}", "[% if true %]".repeat(20_000), "[% endif %]".repeat(20_000));
    assert_eq!(error_kind(&env, &source), ErrorKind::SyntaxError);
}

#[test]
fn unbounded_macro_recursion_hits_the_recursion_limit() {
    let env = Environment::new();
    let source = "[% macro f(n) %][[ f(n + 1) ]][% endmacro %][[ f(0) ]]";
    assert_eq!(error_kind(&env, source), ErrorKind::RecursionLimit);
}

/// A macro value calling itself (a macro passed to itself, `caller`
/// passed on) counts as a macro level: the recursion limit stops it, and
/// with the limit raised far past the stack the evaluator's own depth
/// guard does, never a stack overflow.
#[test]
fn recursion_through_macro_values_hits_a_limit() {
    let sources = [
        "[% macro r(f) %][[ f(f) ]][% endmacro %][[ r(r) ]]",
        "[% macro r(f) %][% with g = f %][% for h in [g] %][[ h(h) ]][% endfor %][% endwith %][% endmacro %][[ r(r) ]]",
        "[% macro m(fs) %][[ fs.m(fs) ]][% endmacro %][[ m({\"m\": m}) ]]",
        "[% macro m() %][[ caller(caller) ]][% endmacro %][% call(c) m() %][[ c(c) ]][% endcall %]",
    ];
    let mut env = Environment::new();
    for source in sources {
        assert_eq!(error_kind(&env, source), ErrorKind::RecursionLimit, "{source}");
    }
    env.set_limits(Limits::default().with_fuel(None).with_recursion_limit(1_000_000));
    for source in sources {
        assert_eq!(error_kind(&env, source), ErrorKind::RecursionLimit, "{source}");
    }
}

#[test]
fn recursion_through_deep_expressions_is_still_bounded() {
    let env = Environment::new();
    let deep = format!("{}f(){}", "(".repeat(30), ")".repeat(30));
    let source = format!("[% macro f() %][[ {deep} ]][% endmacro %][[ f() ]]");
    assert_eq!(error_kind(&env, &source), ErrorKind::RecursionLimit);
}

#[test]
fn endless_work_runs_out_of_fuel() {
    let env = Environment::new();
    let source = "[% for a in range(100000) %][% for b in range(100000) %][% endfor %][% endfor %]";
    assert_eq!(error_kind(&env, source), ErrorKind::OutOfFuel);
    // Doubling a string grows fast; the string limit or fuel stops it.
    let doubling = "[% set s = \"ab\" %][% for i in range(64) %][% set s = s ~ s %][% endfor %]";
    assert_eq!(error_kind(&env, doubling), ErrorKind::InvalidOperation);
}

#[test]
fn output_and_sizes_are_capped() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_output_limit(1000).with_fuel(None));
    assert_eq!(error_kind(&env, "[% for i in range(2000) %]x[% endfor %]"), ErrorKind::OutputLimit);
    let env = Environment::new();
    assert_eq!(error_kind(&env, "[[ \"x\" * 100000000000 ]]"), ErrorKind::InvalidOperation);
    assert_eq!(error_kind(&env, "[[ range(1000000000) ]]"), ErrorKind::InvalidOperation);
    assert_eq!(
        error_kind(&env, "[[ \"ab\" -> indent(100000000000) ]]"),
        ErrorKind::InvalidOperation
    );
}

#[test]
fn limits_are_configurable() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_fuel(Some(10)));
    assert_eq!(
        error_kind(&env, "[% for i in range(100) %][[ i ]][% endfor %]"),
        ErrorKind::OutOfFuel
    );
    env.set_limits(Limits::default().with_recursion_limit(3));
    let source = "[% macro f(n) %][% if n > 0 %][[ f(n - 1) ]][% endif %][% endmacro %][[ f(2) ]]|[[ f(5) ]]";
    assert_eq!(error_kind(&env, source), ErrorKind::RecursionLimit);
    env.set_limits(Limits::default().with_nesting_limit(3));
    assert_eq!(env.render_str("[[ (((1))) ]]", &Context::default(), 0).unwrap().output, "1");
    assert_eq!(error_kind(&env, "[[ ((((1)))) ]]"), ErrorKind::SyntaxError);
}

#[test]
fn values_cannot_nest_without_bound() {
    // Printing, comparing and dropping values recurse: building ever deeper
    // lists or maps in a loop stops with an error, not a stack overflow.
    let env = Environment::new();
    for wrap in ["[x]", "{\"a\": x}", "dict(a=x)", "{\"a\": x} -> items", "[x] + [1]"] {
        let source =
            format!("[% set x = [] %][% for i in range(100000) %][% set x = {wrap} %][% endfor %]");
        assert_eq!(error_kind(&env, &source), ErrorKind::InvalidOperation, "{wrap}");
    }
    // Nesting within the bound is fine.
    let ok =
        "[% set x = [] %][% for i in range(100) %][% set x = [x] %][% endfor %][[ x -> length ]]";
    assert_eq!(env.render_str(ok, &Context::default(), 0).unwrap().output, "1");
}

#[test]
fn scanning_big_values_costs_fuel() {
    // Each comparison or search scans 100 000 items: the loop cannot run
    // 100 000 of them on one million units of fuel.
    let env = Environment::new();
    for scan in ["big == big", "-1 in big", "big -> length", "big is sequence"] {
        let source = format!(
            "[% set big = range(100000) %][% for i in range(100000) %][% if {scan} %][% endif %][% endfor %]"
        );
        assert_eq!(error_kind(&env, &source), ErrorKind::OutOfFuel, "{scan}");
    }
}

/// One 16 MB string, and `body` after it.
fn with_big_string(body: &str) -> String {
    format!("[% set s = \"x\" * 16000000 %]{body}")
}

#[test]
fn writing_a_large_value_again_and_again_hits_the_memory_limit() {
    // The write log shares the value, but lists every write: each is
    // charged in full. Before, each write deep-copied 16 MB (16 GB in all).
    let env = Environment::new();
    let source = with_big_string("[% for i in range(1000) %][% set x = s %][% endfor %]ok");
    assert_eq!(error_kind(&env, &source), ErrorKind::MemoryLimit);
    // A few writes fit, and share the string.
    let few = with_big_string("[% for i in range(3) %][% set x = s %][% endfor %]ok");
    let outcome = env.compile(&few).unwrap().render_outcome(&Context::default(), 0).unwrap();
    assert_eq!(outcome.writes.len(), 4);
    assert_eq!(outcome.writes[3].value.as_str().map(str::len), Some(16_000_000));
}

#[test]
fn a_list_sharing_one_string_cannot_be_printed_stored_or_converted_whole() {
    // One 1 MB string, the list doubled 14 times: 16 384 items, 16 GB as
    // text. Building it is cheap (the items are shared); every conversion
    // stops at its limit while it writes, and storing it is charged in full.
    let env = Environment::new();
    let stored =
        "[% set l = [\"x\" * 1000000] %][% for i in range(14) %][% set l = l + l %][% endfor %]";
    assert_eq!(error_kind(&env, stored), ErrorKind::MemoryLimit);
    // Doubled through macro arguments, without a write.
    let doubled = |use_it: &str| {
        format!(
            "[% macro d(l, n) %][% if n == 0 %]{use_it}[% else %][[ d(l + l, n - 1) ]][% endif %][% endmacro %]\
             [[ d([\"x\" * 1000000], 14) ]]"
        )
    };
    for (use_it, kind) in [
        ("[[ l ]]", ErrorKind::OutputLimit),
        ("[[ l -> tojson ]]", ErrorKind::InvalidOperation),
        ("[[ l -> tojson(2) ]]", ErrorKind::InvalidOperation),
        ("[[ l ~ \"\" ]]", ErrorKind::InvalidOperation),
        ("[[ l -> join(\",\") ]]", ErrorKind::InvalidOperation),
        ("[[ l -> string ]]", ErrorKind::InvalidOperation),
        ("[[ l -> wrap(\"<\") ]]", ErrorKind::InvalidOperation),
        ("[[ [l] -> unique -> length ]]", ErrorKind::InvalidOperation),
        ("[% set m = l %]", ErrorKind::MemoryLimit),
        ("[% qr l -> join %]", ErrorKind::InvalidOperation),
    ] {
        assert_eq!(error_kind(&env, &doubled(use_it)), kind, "{use_it}");
    }
    // Sorting, de-duplicating and measuring share the items: nothing is
    // copied or converted.
    let shared = doubled("[[ l -> sort -> length ]] [[ l -> unique -> length ]] [[ l -> length ]]");
    assert_eq!(env.render_str(&shared, &Context::default(), 0).unwrap().output, "16384 1 16384");
}

#[test]
fn many_effects_of_a_large_string_hit_the_memory_limit() {
    let env = Environment::new();
    let source = with_big_string(&"[% qr s %]".repeat(5000));
    assert_eq!(error_kind(&env, &source), ErrorKind::MemoryLimit);
    // Effects share the text.
    let two = with_big_string("[% qr s %][% st s %]");
    let outcome = env.compile(&two).unwrap().render_outcome(&Context::default(), 0).unwrap();
    assert_eq!(outcome.effects.len(), 2);
}

#[test]
fn lists_from_strings_respect_the_range_limit_before_they_are_made() {
    let env = Environment::new();
    for source in [
        "[[ (\"x\" * 16000000) -> list -> length ]]",
        "[[ [\"x\" * 16000000 -> list] -> length ]]",
        "[[ (\" \" * 16000000) -> split(\" \") -> length ]]",
        "[[ (\"x \" * 8000000) -> split -> length ]]",
        "[[ (\"x,\" * 8000000) -> split(\",\", 200000) -> length ]]",
        "[% for c in \"x\" * 16000000 %][% endfor %]",
        "[[ (\"x\" * 16000000) -> first ]]",
        "[[ (\"x\" * 16000000) -> join(\",\") ]]",
    ] {
        assert_eq!(error_kind(&env, source), ErrorKind::InvalidOperation, "{source}");
    }
    // Up to the limit is fine.
    let ok =
        "[[ (\"x,\" * 99999) -> split(\",\") -> length ]] [[ (\"ab\" * 50000) -> list -> length ]]";
    assert_eq!(env.render_str(ok, &Context::default(), 0).unwrap().output, "100000 100000");
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_range_limit(3));
    assert_eq!(
        env.render_str("[[ 'a b c' -> split ]]", &Context::default(), 0).unwrap().output,
        r#"["a","b","c"]"#
    );
    assert_eq!(error_kind(&env, "[[ 'a b c d' -> split ]]"), ErrorKind::InvalidOperation);
    assert_eq!(
        error_kind(&env, "[[ {'a': 1, 'b': 2, 'c': 3, 'd': 4} -> items ]]"),
        ErrorKind::InvalidOperation
    );
    assert_eq!(
        error_kind(&env, "[% for k in {'a': 1, 'b': 2, 'c': 3, 'd': 4} %][% endfor %]"),
        ErrorKind::InvalidOperation
    );
}

#[test]
fn growing_a_string_in_a_loop_is_bounded() {
    // Every intermediate value stays in the write log (it lists every
    // assignment), so the log's bytes grow with the square of the loop:
    // the memory limit stops it long before the process notices.
    let env = Environment::new();
    let source =
        "[% set s = \"\" %][% for i in range(100000) %][% set s = s ~ \"x\" %][% endfor %]ok";
    assert_eq!(error_kind(&env, source), ErrorKind::MemoryLimit);
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_memory_limit(usize::MAX));
    assert_eq!(error_kind(&env, source), ErrorKind::OutOfFuel);
}

#[test]
fn captured_text_is_charged() {
    // Each call captures 16 MB; a list literal keeps them all.
    let env = Environment::new();
    let calls = vec!["m()"; 100].join(", ");
    let source =
        with_big_string(&format!("[% macro m() %][[ s ]][% endmacro %][[ [{calls}] -> length ]]"));
    assert_eq!(error_kind(&env, &source), ErrorKind::MemoryLimit);
}

#[test]
fn shared_values_never_cost_a_walk_of_their_copies() {
    // `x = [x, x]` doubles a value that shares everything: its size is
    // known when it is made, so nothing walks the 2^n copies (this hung).
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_fuel(None));
    let source = "[% set x = [1] %][% for i in range(200) %][% set x = [x, x] %][% endfor %]";
    assert_eq!(error_kind(&env, source), ErrorKind::MemoryLimit);
    // Through macro arguments (no write), the nesting limit stops it.
    let source = "[% macro d(x, n) %][% if n > 0 %][[ d([x, x], n - 1) ]][% endif %][% endmacro %]\
                  [[ d(1, 200) ]]";
    env.set_limits(Limits::default().with_fuel(None).with_recursion_limit(1000));
    assert_eq!(error_kind(&env, source), ErrorKind::InvalidOperation);
}

#[test]
fn the_memory_limit_is_configurable() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_memory_limit(1000));
    assert_eq!(error_kind(&env, "[% set x = \"x\" * 2000 %]"), ErrorKind::MemoryLimit);
    let err = env
        .render_str("[% set x = 'a' %][% set y = \"x\" * 900 %]", &Context::default(), 0)
        .unwrap_err();
    assert_eq!(err.kind().as_str(), "memory_limit");
    assert!(err.message().contains("memory limit of 1000 bytes"), "{err}");
    assert_eq!(err.column(), Some(18));
    assert!(env.render_str("[% set x = \"x\" * 100 %][[ x ]]", &Context::default(), 0).is_ok());
    // The characters `for` iterates over are a new list: charged.
    let chars = "[% for c in 'abcdefghijklmnopqrstuvwxyz' * 2 %][% endfor %]";
    assert_eq!(error_kind(&env, chars), ErrorKind::MemoryLimit);
    assert!(
        env.render_str(
            "[% for c in 'abcdefghijklmnopqrstuvwxyz' %][% endfor %]",
            &Context::default(),
            0
        )
        .is_ok()
    );
}

/// Converting the context's JSON into values was free: a context of a
/// million small messages took a gigabyte as values, whatever the memory
/// limit. Now the conversion of a variable, on its first read, counts
/// against the render's memory, before what it counts is built, and the
/// error names the variable and where inside it the count passed the limit.
#[test]
fn reading_the_context_counts_against_the_memory_limit() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_memory_limit(100_000));
    let messages: Vec<serde_json::Value> = (0..2000)
        .map(|i| serde_json::json!({"role": "user", "content": format!("m{i}")}))
        .collect();
    let context = Context::from_serialize(&serde_json::json!({"messages": messages})).unwrap();
    for source in [
        "[[ messages -> length ]]",
        "[% for m in messages %][% endfor %]",
        "[[ messages[0].role ]]",
    ] {
        let Err(err) = env.render_str(source, &context, 0) else { panic!("{source} rendered") };
        assert_eq!(err.kind(), ErrorKind::MemoryLimit, "{source}: {err}");
        assert!(
            err.message().starts_with(
                "the context's `messages` would take more than the memory limit of 100000 bytes \
                 as values (at `["
            ),
            "{source}: {}",
            err.message()
        );
        assert!(err.column().is_some(), "{source}: {err}");
    }
    // The global store, whole or by a computed name.
    let global = Context::new().global(context.clone());
    for source in ["[[ G -> length ]]", "[[ G['mess' ~ 'ages'] -> length ]]"] {
        let Err(err) = env.render_str(source, &global, 0) else { panic!("{source} rendered") };
        assert_eq!(err.kind(), ErrorKind::MemoryLimit, "{source}: {err}");
        assert!(err.message().starts_with("the context's `G.messages` would take"), "{err}");
    }
    // 200 messages fit, and each name is converted (and counted) once.
    let half: Vec<serde_json::Value> = messages[..200].to_vec();
    let context = Context::from_serialize(&serde_json::json!({"messages": half})).unwrap();
    let twice = "[[ messages -> length ]] [[ messages -> length ]] [[ messages[199].content ]]";
    assert_eq!(env.render_str(twice, &context, 0).unwrap().output, "200 200 m199");
    // Under the default limit, the same thousands of messages render.
    let context = Context::from_serialize(&serde_json::json!({"messages": messages})).unwrap();
    let env = Environment::new();
    assert_eq!(env.render_str("[[ messages -> length ]]", &context, 0).unwrap().output, "2000");
}

/// Work a built-in does beyond one pass over its items was free: equality
/// and `in` walked nested lists, `sort`, `min` and `max` compared long
/// strings, `sum` copied its growing total at every step, an `attribute`
/// path was followed for every item, and indexing or slicing a string
/// scanned it. A loop of such operations on one million units of fuel could
/// run for hours; each is now paid for before it runs, so 1 000 of them
/// run out of fuel (they rendered before).
#[test]
fn built_ins_pay_for_the_work_they_do() {
    let mut env = Environment::new();
    // A tenth of the default fuel: the loops end ten times sooner.
    env.set_limits(Limits::default().with_fuel(Some(100_000)));
    let setup = "[% set nested = [range(50000), range(50000)] %]\
                 [% set other = [range(50000), range(50000)] %][% set probe = range(50000) %]\
                 [% set s = \"x\" * 10000 %][% set strings = [] %]\
                 [% for i in range(64) %][% set strings = strings + [s ~ i] %][% endfor %]\
                 [% set path = \"a\" * 10000 %][% set long = \"x\" * 1000000 %]";
    let work = [
        "nested == other",
        "nested != other",
        "probe in nested",
        "nested is eq(other)",
        "strings -> sort",
        "strings -> max",
        "strings -> sum(start=\"\")",
        "range(100) -> join(\",\", attribute=path)",
        "long[-1]",
        "long[::-1]",
    ];
    for op in work {
        // 1 000 rounds cost at most a few thousand units without the work.
        let source =
            format!("{setup}[% for i in range(1000) %][% if {op} %][% endif %][% endfor %]");
        assert_eq!(error_kind(&env, &source), ErrorKind::OutOfFuel, "{op}");
    }
    // Shared parts are compared by address: free beyond their steps, as
    // small values are.
    let small = "[% set big = [range(50000)] %][% for i in range(1000) %][% set r = big == big %]\
                 [% set r = [[1, 2], \"ab\"] == [[1, 2], \"ab\"] %]\
                 [% set r = [\"b\", \"a\"] -> sort %][% set r = [\"a\", \"b\"] -> sum(start=\"\") %]\
                 [% endfor %]ok";
    assert_eq!(env.render_str(small, &Context::default(), 0).unwrap().output, "ok");
}

/// A loop unpacking each item into many variables bound them all for
/// every item, free beyond the step of the iteration.
#[test]
fn unpacking_into_many_loop_variables_costs_fuel() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_fuel(Some(100_000)));
    let targets: Vec<String> = (0..6400).map(|i| format!("a{i}")).collect();
    let rows = vec!["row"; 1024].join(", ");
    let source = format!(
        "[% set row = range(6400) %][% for {} in [{rows}] %][% endfor %]",
        targets.join(", ")
    );
    // 1 024 rows of 6 400 values: 100 units each now, 1 before.
    assert_eq!(error_kind(&env, &source), ErrorKind::OutOfFuel);
}

/// `trim` with a set of characters scanned the set for every character it
/// trimmed: a 100 000-character set trimming 100 000 characters took
/// 10^10 steps. It uses a hash set for long sets.
#[test]
fn trimming_with_a_long_set_is_linear() {
    let env = Environment::new();
    let source = "[% set set = \"ab\" * 50000 %][[ (\"a\" * 100000 ~ \"c\") -> trim(set) ]]";
    assert_eq!(env.render_str(source, &Context::default(), 0).unwrap().output, "c");
}

#[test]
fn a_context_string_over_the_string_limit_can_be_read_but_not_rewritten() {
    // The context is the host's: reading and cutting it is fine, but a
    // filter that builds a string as long as its input refuses it first.
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_string_limit(100));
    let mut context = Context::default();
    context.state.insert("s".into(), "word ".repeat(200).into());
    let render = |source: &str| env.render_str(source, &context, 0);
    let ok = "[[ s -> truncate(9) ]]|[[ s[0:4] ]]|[[ s[:-990] ]]|[[ s -> length ]]|[[ s -> wordcount ]]|[[ (s -> split)[1] ]]|[[ s[::100] ]]";
    assert_eq!(render(ok).unwrap().output, "word...|word|word word |1000|200|word|wwwwwwwwww");
    for source in [
        "[[ s -> upper ]]",
        "[[ s -> reverse ]]",
        "[[ s[::-1] ]]",
        "[[ s[0:200] ]]",
        "[[ s -> title ]]",
    ] {
        assert_eq!(render(source).unwrap_err().kind(), ErrorKind::InvalidOperation, "{source}");
    }
}

/// `call` blocks nest like the other blocks: 100 levels compile in debug
/// builds too, 101 are the nesting error; rendering them is two macro
/// levels each (the macro, then its `caller()`), so the recursion limit
/// stops a deep render with its own error.
#[test]
fn one_hundred_nested_call_blocks_compile_and_their_render_is_bounded() {
    let env = Environment::new();
    let make = |n| {
        format!(
            "[% macro m() %][[ caller() ]][% endmacro %]{}y{}",
            "[% call m() %]".repeat(n),
            "[% endcall %]".repeat(n)
        )
    };
    let deepest = env.compile(&make(100));
    assert!(deepest.is_ok(), "{}", deepest.unwrap_err());
    let err = env.compile(&make(101)).unwrap_err();
    assert_eq!(err.message(), "the template nests deeper than the limit of 100 levels");
    assert_eq!(env.render_str(&make(50), &Context::default(), 0).unwrap().output, "y");
    let err = env.render_str(&make(51), &Context::default(), 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RecursionLimit);
}

/// The least fuel that renders `source`.
fn fuel_needed(source: &str, context: &Context) -> u64 {
    let fits = |fuel| {
        let mut env = Environment::new();
        env.set_limits(Limits::default().with_fuel(Some(fuel)));
        env.render_str(source, context, 0).is_ok()
    };
    let mut fuel = 1;
    while !fits(fuel) {
        fuel += 1;
    }
    fuel
}

/// `x.a` costs the same fuel whatever `x` is bound to (a loop variable, a
/// macro parameter, a `with` name or a state variable); a read through a
/// bound name once looked it up twice, and now looks it up once for the
/// same price.
#[test]
fn an_attribute_read_costs_the_same_fuel_whatever_its_base_is() {
    let context = Context {
        state: serde_json::from_str(r#"{"items": [{"a": 1}, {"a": 2}], "x": {"a": 3}}"#).unwrap(),
        ..Context::default()
    };
    let cases = [
        ("[% for x in items %][[ x.a ]][% endfor %]", "12"),
        ("[% macro m(x) %][[ x.a ]][% endmacro %][[ m(items[0]) ]]", "1"),
        ("[% with x = items[1] %][[ x.a ]][% endwith %]", "2"),
        ("[[ x.a ]]", "3"),
        ("[% for x in items %][[ x.b ]][[ loop.index ]][% endfor %]", "12"),
    ];
    let mut needed = Vec::new();
    for (source, output) in cases {
        let env = Environment::new();
        assert_eq!(env.render_str(source, &context, 0).unwrap().output, output, "{source}");
        needed.push(fuel_needed(source, &context));
    }
    assert_eq!(needed, [7, 7, 5, 2, 9]);
}

/// Brackets nested past the nesting limit are refused while the tag is
/// scanned, before the parser, so a tag of millions of `(` keeps no offset
/// per bracket (it kept 8 bytes per byte); below the limit nothing changes.
#[test]
fn brackets_past_the_nesting_limit_are_refused_by_the_scan() {
    let env = Environment::new();
    let deep = format!("[[ {}x{} ]]", "(".repeat(2_000_000), ")".repeat(2_000_000));
    let err = env.compile(&deep).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SyntaxError);
    assert_eq!(err.message(), "the template nests deeper than the limit of 100 levels");
    assert_eq!(err.span().map(|s| s.start), Some(103));
    let fits = format!("[[ {}1{} ]]", "(".repeat(90), ")".repeat(90));
    assert_eq!(env.render_str(&fits, &Context::default(), 0).unwrap().output, "1");
}

/// An attribute path (`map(attribute=...)`, `selectattr`, `rejectattr`,
/// `groupby`, `unique`, `sort`, `sum`, `min`, `max`, `join`) was split and
/// walked per item and its length never charged (a 77-byte template ran
/// 96 s, and `selectattr`'s fuel estimate walked it too). It is split once
/// and `steps x items` is charged before the first walk, from the path's
/// length alone: 10 000 items under a 10 001-step path is 1.6 million
/// units, past the default fuel, before any item is touched.
#[test]
fn an_attribute_path_is_paid_for_before_it_is_walked() {
    let env = Environment::new();
    let setup = "[% set p = 'a.' * 10000 %][% set items = [{'a': 1}] * 10000 %]";
    for op in [
        "items -> map(attribute=p)",
        "items -> selectattr(p)",
        "items -> rejectattr(p, 'defined')",
        "items -> selectattr(p, 'eq', 1)",
        "items -> groupby(p)",
        "items -> groupby(attribute=p)",
        "items -> unique(attribute=p)",
        "items -> sort(attribute=p)",
        "items -> sum(attribute=p)",
        "items -> min(attribute=p)",
        "items -> max(attribute=p)",
        "items -> join(',', attribute=p)",
    ] {
        let source = format!("{setup}[% set r = {op} %]");
        assert_eq!(error_kind(&env, &source), ErrorKind::OutOfFuel, "{op}");
    }
    // An ordinary path stays cheap, and a path is walked only as far as
    // it finds something.
    let ok = "[% set items = [{'a': {'b': 1}}, {'a': {'b': 2}}] * 5000 %]\
              [[ items -> map(attribute='a.b') -> sum ]] [[ items -> selectattr('a.b', 'eq', 2) -> length ]] \
              [[ items -> map(attribute='x.y.z', default=0) -> sum ]]";
    assert_eq!(env.render_str(ok, &Context::default(), 0).unwrap().output, "15000 5000 0");
    // More steps than a list may hold is refused before the path is split.
    let err = env.render_str("[[ [1] -> map(attribute='.' * 100000) ]]", &Context::default(), 0);
    assert_eq!(err.unwrap_err().kind(), ErrorKind::InvalidOperation);
}

/// Work growing with an argument's size that was not charged: a filter's
/// arguments were never counted (a 1 MB key hashed by `attr` on every
/// call), `sum(start=...)` copied its start once per item, `unique` keyed
/// nested items by their JSON, and `map("filter", args)` passed the same
/// arguments to every item free. Each is paid before it runs now.
#[test]
fn arguments_and_what_built_ins_copy_are_paid_for() {
    let env = Environment::new();
    for source in [
        "[% set k = 'x' * 1000000 %][% for i in range(1000) %][% set r = ['a'] -> join(k) %][% endfor %]",
        "[% set k = 'x' * 1000000 %][% for i in range(1000) %][% set r = 'ab' -> replace(k, '') %][% endfor %]",
        "[% set k = 'x' * 1000000 %][% set r = range(1000) -> map('attr', k) %]",
        "[% set r = [[]] * 10000 %][[ r -> sum(start=range(10000)) -> length ]]",
        "[% set big = range(64000) -> batch(1000) %]\
         [% for i in range(1000) %][% if big -> unique %][% endif %][% endfor %]",
    ] {
        assert_eq!(error_kind(&env, source), ErrorKind::OutOfFuel, "{source}");
    }
}
