//! The Jinja syntax and the Jinja2 profile: each expected output is what
//! Python's Jinja2 3.1 gives for the same template in transformers' setup
//! (checked by hand with `tests/chat-templates/oracle.py`'s environment).

use minijinja_brackets::{
    Clock, Context, Environment, ErrorKind, Profile, Rendered, Syntax, Value, jiff,
};

fn chat_env() -> Environment {
    let mut env = Environment::for_chat_templates();
    let now: jiff::Zoned = "2026-01-15T10:30:00+00:00[UTC]".parse().unwrap();
    env.set_clock(Clock::Fixed(now));
    env
}

fn render_in(env: &Environment, source: &str, context: &str) -> Result<Rendered, ErrorKind> {
    let context = Context::from_json(&format!(r#"{{"state": {context}}}"#)).unwrap();
    env.render_str(source, &context, 0).map_err(|e| e.kind())
}

fn render(source: &str, context: &str) -> Result<String, ErrorKind> {
    render_in(&chat_env(), source, context).map(|r| r.output)
}

fn ok(source: &str) -> String {
    render(source, "{}").unwrap_or_else(|e| panic!("{source}: {e}"))
}

#[test]
fn jinja_syntax_spells_tags_with_braces_and_filters_with_a_pipe() {
    let mut env = Environment::new();
    env.set_syntax(Syntax::Jinja);
    let out = render_in(&env, "{{ 'ab' | upper }}{# note #}{% if true %}!{% endif %}[[ x ]]", "{}");
    // The profile is independent: the reference prints `true` and keeps brackets as text.
    assert_eq!(out.unwrap().output, "AB![[ x ]]");
    assert_eq!(render_in(&env, "{{ true }}", "{}").unwrap().output, "true");
    // `->` is no filter in Jinja syntax.
    assert_eq!(render_in(&env, "{{ 'a' -> upper }}", "{}").unwrap_err(), ErrorKind::SyntaxError);
    // Bracket balance decides where a tag ends, as Jinja2's lexer does.
    assert_eq!(ok("{{ {'a': {'b': 1}}['a']['b'] }}"), "1");
}

#[test]
fn jinja_text_is_read_as_jinja2_reads_it() {
    // CRLF becomes LF, one final newline is dropped, trim_blocks eats `\r\n`.
    assert_eq!(ok("a\r\nb\r\n{% if 1 %}\r\nc{% endif %}\r\n"), "a\nb\nc");
    // The newline after `{% raw %}` stays; the one after `{% endraw %}` goes.
    assert_eq!(ok("{% raw %}\nab{{ x }}{% endraw %}\nc"), "\nab{{ x }}c");
    assert_eq!(ok("  {%- if 1 -%}  x  {%- endif %}"), "x");
}

#[test]
fn values_print_as_python_prints_them() {
    assert_eq!(
        ok(
            r#"{{ "a" "b" }}|{{ none }}|{{ [True, None, 1.0, "q"] }}|{{ {"k": [1]} }}|{{ 10/4 }}|{{ 6/3 }}"#
        ),
        "ab|None|[True, None, 1.0, 'q']|{'k': [1]}|2.5|2.0"
    );
    assert_eq!(ok(r#"{{ "x" ~ none }}|{{ true ~ 1 }}|{{ missing }}"#), "xNone|True1|");
}

#[test]
fn string_methods_are_pythons() {
    assert_eq!(
        ok(
            r#"{{ "  a b  ".strip() }}|{{ "a,b,,c".split(",") }}|{{ "a b".split() }}|{{ "x-y-z".rsplit("-", 1) }}|{{ "Hello".startswith(("x","He")) }}|{{ "abcabc".replace("b","X",1) }}|{{ "hello world".title() }}|{{ "abc".find("c") }}|{{ "-".join(["a","b"]) }}|{{ "{} {x}".format(1, x=2) }}"#
        ),
        "a b|['a', 'b', '', 'c']|['a', 'b']|['x-y', 'z']|True|aXcabc|Hello World|2|a-b|1 2"
    );
}

#[test]
fn map_and_list_methods_are_pythons_and_mutation_is_refused() {
    let out = render(
        r#"{{ m.get("a") }}|{{ m.get("z", 5) }}|{{ m.keys()|list }}|{{ [1,2,1].count(1) }}|{{ [3,4].index(4) }}"#,
        r#"{"m": {"a": 1}}"#,
    );
    assert_eq!(out.unwrap(), "1|5|['a']|2|1");
    assert_eq!(render("{{ xs.append(1) }}", r#"{"xs": []}"#), Err(ErrorKind::SandboxRefused));
    assert_eq!(render("{{ m.update({}) }}", r#"{"m": {}}"#), Err(ErrorKind::SandboxRefused));
    assert_eq!(render("{{ 'a'.nope() }}", "{}"), Err(ErrorKind::UndefinedError));
}

#[test]
fn undefined_follows_jinja2() {
    assert_eq!(render("{{ missing.attr }}", "{}"), Err(ErrorKind::UndefinedError));
    assert_eq!(render("{{ missing[0] }}", "{}"), Err(ErrorKind::UndefinedError));
    assert_eq!(render("{{ missing + 1 }}", "{}"), Err(ErrorKind::UndefinedError));
    assert_eq!(ok("{{ 'abc'['type'] is defined }}|{{ {}.x is defined }}"), "False|False");
    assert_eq!(render("{% for x in none %}{% endfor %}", "{}"), Err(ErrorKind::InvalidOperation));
}

#[test]
fn set_is_scoped_as_in_jinja2() {
    // Loop bodies: each iteration starts from the outer value.
    let counted =
        "{% set x = 0 %}{% for i in range(3) %}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}";
    assert_eq!(ok(counted), "1110");
    let once = "{% for i in range(3) %}{% if i == 1 %}{% set y = i %}{% endif %}{{ y }},{% endfor %}{{ y }}";
    assert_eq!(ok(once), ",1,,");
    // Macros see the template's variables at call time; parameters rebind.
    let macro_ = "{% macro m(p) %}{% set p = p ~ '!' %}{{ p }}{{ x }}{% endmacro %}{% set x = 1 %}{{ m('a') }}{% set x = 2 %}{{ m('b') }}";
    assert_eq!(ok(macro_), "a!1b!2");
    // The tool-call idiom: a loop variable rebound.
    let calls = r#"{"calls": [{"function": {"name": "f"}}, {"function": {"name": "g"}}]}"#;
    let idiom = "{% for tc in calls %}{% set tc = tc.function %}{{ tc.name }}{% endfor %}";
    assert_eq!(render(idiom, calls).unwrap(), "fg");
    // A namespace carries a value out of a loop.
    let ns = "{% set ns = namespace(n=0) %}{% for i in [1, 2] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}";
    assert_eq!(ok(ns), "3");
    // No store is written.
    let rendered = render_in(&chat_env(), "{% set x = 1 %}{{ x }}", "{}").unwrap();
    assert!(rendered.writes.is_empty() && rendered.state.is_empty());
}

#[test]
fn the_reference_constructs_do_not_exist() {
    for source in
        ["{{ L.x }}", "{% set G.x = 1 %}", "{% chance 0.5 %}a{% endchance %}", "{% qr 'x' %}"]
    {
        let err = chat_env().compile(source).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::SyntaxError, "{source}");
        assert!(err.message().contains("jinja2 profile"), "{source}: {err}");
    }
}

#[test]
fn transformers_globals_and_filters() {
    let err = chat_env().render_str(
        "{{ raise_exception('Roles must alternate') }}",
        &Context::default(),
        0,
    );
    let err = err.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TemplateRaised);
    assert_eq!(err.message(), "Roles must alternate");
    assert_eq!(ok("{{ strftime_now('%d %b %Y') }}"), "15 Jan 2026");
    assert_eq!(
        ok(
            r#"{{ "%s=%d"|format("a", 3) }}|{{ 2.5|round }}|{{ 3.5|round }}|{{ 7|round }}|{{ 1.25|round(1) }}"#
        ),
        "a=3|2.0|4.0|7|1.2"
    );
    assert_eq!(
        ok(
            r#"{{ "%s-%05.1f|%-4d|%+d|%5s|%x|%.0f|% d|%%"|format("x", 2.25, 7, 3, "ab", 255, 2.5, 4) }}"#
        ),
        "x-002.2|7   |+3|   ab|ff|2| 4|%"
    );
    let json = render(
        "{{ m | tojson }}|{{ m | tojson(ensure_ascii=True, sort_keys=True) }}|{{ m | tojson(indent=1, separators=(',', ':')) }}",
        r#"{"m": {"b": "é<", "a": [1.5]}}"#,
    );
    assert_eq!(
        json.unwrap(),
        "{\"b\": \"é<\", \"a\": [1.5]}|{\"a\": [1.5], \"b\": \"\\u00e9<\"}|{\n \"b\":\"é<\",\n \"a\":[\n  1.5\n ]\n}"
    );
    // Jinja2 checks a filter's name when it runs.
    assert_eq!(ok("{% if false %}{{ x | from_json }}{% endif %}ok"), "ok");
    assert_eq!(render("{{ x | from_json }}", "{}"), Err(ErrorKind::UnknownFilter));
}

#[test]
fn generation_blocks_report_their_output_ranges() {
    let rendered = render_in(
        &chat_env(),
        "a{% generation %}bc{% endgeneration %}d{% generation %}{% endgeneration %}",
        "{}",
    );
    let rendered = rendered.unwrap();
    assert_eq!(rendered.output, "abcd");
    assert_eq!(rendered.generation_ranges, vec![std::ops::Range { start: 1, end: 3 }]);
}

#[test]
fn methods_keep_provenance() {
    let rendered = render_in(
        &chat_env(),
        "{{ '<|im_start|>' ~ m.role }}{{ (' <b>' ~ m.content ~ ' ').strip() }}{{ ', '.join(m.tags) }}",
        r#"{"m": {"role": "user", "content": "hi", "tags": ["x", "y"]}}"#,
    )
    .unwrap();
    assert_eq!(rendered.output, "<|im_start|>user<b>hix, y");
    // `<|im_start|>`, `<b>` and `, ` are authored; the role, content and tags are data.
    assert_eq!(rendered.data_ranges, [12..16, 19..21, 21..22, 24..25]);
}

/// Llama 2's system block: `'<<SYS>>\n' + content | trim + '\n<</SYS>>'`
/// then `(system + message) | trim`. `trim` gives a slice of its input, so
/// the template's `<<SYS>>` stays authored (it was data, and a chat
/// template refused every system message as `special_token_in_data`).
#[test]
fn trim_keeps_provenance_and_strips_as_python() {
    let rendered = render_in(
        &chat_env(),
        "{% set s = '<<SYS>>\\n' + m.system | trim + '\\n<</SYS>>\\n\\n' %}{{ (' ' + s + m.content + ' ') | trim }}",
        r#"{"m": {"system": " Be brief. ", "content": "Hi"}}"#,
    )
    .unwrap();
    assert_eq!(rendered.output, "<<SYS>>\nBe brief.\n<</SYS>>\n\nHi");
    assert_eq!(rendered.data_ranges, [8..17, 28..30]);
    // Python's whitespace (`\x1c` to `\x1f` too), and `chars` as a set.
    assert_eq!(
        render("{{ m | trim }}|{{ 'xxaxx' | trim('x') }}", r#"{"m": "\u001c a \u001f"}"#).unwrap(),
        "a|a"
    );
    // Not a string: printed (Python's `str()`), then trimmed; data.
    assert_eq!(ok("{{ none | trim }}{{ [1] | trim }}"), "None[1]");
    assert_eq!(render("{{ 'a' | trim(1) }}", "{}"), Err(ErrorKind::BadArguments));
}

#[test]
fn formatting_keeps_provenance() {
    let rendered = render_in(
        &chat_env(),
        "{{ '<|im_start|>{}\n{:>4}|'.format(m.role, m.n) }}{{ '<%s>%3s' | format(m.role, 'ab') }}",
        r#"{"m": {"role": "user", "n": 7}}"#,
    )
    .unwrap();
    assert_eq!(rendered.output, "<|im_start|>user\n   7|<user> ab");
    // The format strings' bytes and the authored `'ab'` stay authored; the
    // role and the padded number (an argument that was data) are data.
    assert_eq!(rendered.data_ranges, [12..16, 17..21, 23..27]);
}

#[test]
fn trim_and_markup_plus_keep_provenance() {
    // A bare chat template's `<think>` is a special token: what the template
    // writes around the message must stay authored through `trim` and
    // through `+` with a `safe` string.
    let rendered = render_in(
        &chat_env(),
        "{{ ('<think></think>' ~ m.content) | trim }}|{{ m.name + '[ARGS]' + (m.args | tojson | safe) }}|{{ m.name + '<b>' | safe }}",
        r#"{"m": {"content": " hi ", "name": "f", "args": {"a": "<"}}}"#,
    )
    .unwrap();
    assert_eq!(rendered.output, "<think></think> hi|f[ARGS]{\"a\": \"<\"}|f<b>");
    assert_eq!(rendered.data_ranges, [15..18, 19..20, 26..36, 37..38]);
}

#[test]
fn new_methods_stay_under_the_limits() {
    let env = {
        let mut env = chat_env();
        env.set_limits(minijinja_brackets::Limits::default().with_fuel(Some(100_000)));
        env
    };
    let attacks = [
        // A huge replace, join, format, split and a deep repr.
        "{% set s = 'x' * 1000000 %}{{ s.replace('x', s) }}",
        "{% set s = 'x' * 1000000 %}{{ s.join([s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s]) }}",
        "{% set s = 'x' * 1000000 %}{{ '{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}'.format(s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s) }}",
        "{% set s = ',' * 10000000 %}{{ s.split(',') | length }}",
        "{% set ns = namespace(v=[]) %}{% for i in range(100000) %}{% set ns.v = [ns.v] %}{% endfor %}{{ ns.v }}",
        "{% set s = 'x' * 1000000 %}{{ ('%s' * 20) | format(s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s) }}",
        "{% set s = 'é' * 1000000 %}{{ [s, [s, [s, {'k': [s, s, s, s, s, s, s, s, s, s, s, s]}]]] | string }}",
        // Widths and precisions are checked before anything is padded.
        "{{ '{:>999999999}'.format('a') }}",
        "{{ '{:0999999999,}'.format(1) }}",
        "{{ '{:.999999999f}'.format(1.0) }}",
        "{{ '{:{w}}'.format('a', w=999999999) }}",
        "{{ '{:99999999999999999999999}'.format('a') }}",
        "{{ '%999999999s' | format('a') }}",
        "{{ '%.999999999f' | format(1.0) }}",
        "{{ '%.999999999d' | format(1) }}",
        "{{ '%*s' | format(999999999, 'a') }}",
        // Printing many views and tuples of a large string.
        "{% set s = 'x' * 1000000 %}{% set m = {'a': s, 'b': s, 'c': s, 'd': s} %}{{ [m.items(), m.values(), m.items(), m.values(), (s, s, s, s)] }}",
        "{% set s = 'x' * 1000000 %}{{ '{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}{!r}'.format(s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s) }}",
    ];
    for source in attacks {
        let err = render_in(&env, source, "{}").map(|r| r.output.len()).unwrap_err();
        assert!(
            matches!(
                err,
                ErrorKind::InvalidOperation
                    | ErrorKind::OutOfFuel
                    | ErrorKind::MemoryLimit
                    | ErrorKind::OutputLimit
            ),
            "{source}: {err}"
        );
    }
}

#[test]
fn profile_and_syntax_are_independent_knobs() {
    let mut env = Environment::new();
    env.set_profile(Profile::Jinja2);
    let out = env.render_str(
        "[[ [true, none] ]][% set x = ' a '.strip() %][[ x ]]",
        &Context::default(),
        0,
    );
    assert_eq!(out.unwrap().output, "[True, None]a");
    env.set_profile(Profile::Reference);
    let out = env.render_str("[[ [true, none] -> tojson ]]", &Context::default(), 0);
    assert_eq!(out.unwrap().output, "[true, null]");
    assert_eq!(Value::from(2.0).to_string(), "2");
}

#[test]
fn integer_map_keys_read_back_as_integers() {
    let source = "{% set m = {0: 0, 512: 128, 16384: 1024} %}{% for k, v in m | dictsort %}{% if 100 <= k %}{{ k }}:{{ v }},{% endif %}{% endfor %}{{ m[512] }}|{{ 512 in m }}|{{ m.get(0) }}|{{ m }}|{{ m | tojson }}";
    assert_eq!(
        ok(source),
        "512:128,16384:1024,128|True|0|{0: 0, 512: 128, 16384: 1024}|{\"0\": 0, \"512\": 128, \"16384\": 1024}"
    );
    assert_eq!(render("{{ {1: 'a', 'b': 2} }}", "{}"), Err(ErrorKind::InvalidOperation));
}

#[test]
fn the_applications_variables_can_be_authored() {
    let template = chat_env()
        .compile(
            "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}{{ tools[0].name }}",
        )
        .unwrap();
    let context = Context::from_json(
        r#"{"state": {"bos_token": "<s>", "messages": [{"content": "<s>hi"}], "tools": [{"name": "f"}]}}"#,
    )
    .unwrap();
    let outcome = template.render_outcome_authored(&context, 0, &["bos_token", "tools"]).unwrap();
    assert_eq!(outcome.output, "<s><s>hif");
    // Only the message's bytes are data: a `<s>` there is not the template's.
    assert_eq!(outcome.data_ranges, vec![std::ops::Range { start: 3, end: 8 }]);
}

#[test]
fn map_and_select_give_generators_as_in_jinja2() {
    let tools = r#"{"tools": [{"function": {"name": "f"}}, {"function": {"name": "g"}}]}"#;
    // Iterating, joining and `list` work; the generator itself has no JSON
    // form, no length and no items by index, and is true even when empty.
    let out = render(
        "{% for f in tools | map(attribute='function') %}{{ f.name }}{% endfor %}|{{ tools | map(attribute='function') | map(attribute='name') | join(',') }}|{{ tools | map(attribute='function') | list | length }}",
        tools,
    );
    assert_eq!(out.unwrap(), "fg|f,g|2");
    assert_eq!(
        render("{{ tools | map(attribute='function') | tojson }}", tools),
        Err(ErrorKind::InvalidOperation)
    );
    assert_eq!(
        render("{{ tools | map(attribute='function') | length }}", tools),
        Err(ErrorKind::InvalidOperation)
    );
    assert_eq!(
        render("{{ (tools | map(attribute='function'))[0] }}", tools),
        Err(ErrorKind::InvalidOperation)
    );
    assert_eq!(
        render("{% if tools | selectattr('nope') %}true{% endif %}", tools).unwrap(),
        "true"
    );
}

/// `tests/chat-templates/printing.json`: Python printing (tuples, dict
/// views) and formatting (`str.format` with format specs, the `format`
/// filter's `%`), each case with what Jinja2 gives. Our engine is checked
/// against every case; with `JINJA2_PYTHON` set, Jinja2 itself is too, so
/// the expectations cannot drift from it.
#[test]
fn printing_and_formatting_match_jinja2() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chat-templates/printing.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let context = file["context"].to_string();
    let expected = |case: &serde_json::Value| -> Result<String, String> {
        match (case["output"].as_str(), case["error"].as_str()) {
            (Some(output), _) => Ok(output.to_owned()),
            (None, Some(class)) => Err(class.to_owned()),
            _ => panic!("{case}: neither output nor error"),
        }
    };
    let cases = file["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let ours = render(case["template"].as_str().unwrap(), &context).map_err(|kind| {
            match kind {
                ErrorKind::TemplateRaised => "template_raised",
                ErrorKind::UndefinedError => "undefined",
                ErrorKind::SandboxRefused => "sandbox",
                ErrorKind::SyntaxError => "syntax",
                _ => "other",
            }
            .to_owned()
        });
        if ours != expected(case) {
            failures.push(format!("{name}: ours {ours:?}, Jinja2 {:?}", expected(case)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );

    let Ok(python) = std::env::var("JINJA2_PYTHON") else {
        eprintln!("the expectations were not re-checked against Jinja2 (set JINJA2_PYTHON)");
        return;
    };
    let oracle = path.with_file_name("oracle.py");
    let run = std::process::Command::new(&python)
        .arg(&oracle)
        .args(["--cases".as_ref(), path.as_os_str(), "2026-01-15T10:30:00".as_ref()])
        .output()
        .unwrap_or_else(|e| panic!("JINJA2_PYTHON={python}: {e}"));
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows.len(), cases.len());
    for (row, case) in rows.iter().zip(cases) {
        let jinja2 = match (row["output"].as_str(), row["error"].as_str()) {
            (Some(output), _) => Ok(output.to_owned()),
            (_, class) => Err(class.unwrap_or_default().to_owned()),
        };
        assert_eq!(
            jinja2,
            expected(case),
            "{}: the file's expectation is not Jinja2's",
            row["case"]
        );
    }
}
