//! minijinja-brackets against minijinja 3 on equivalent templates, side by
//! side in one run: compile time and render time of a realistic prompt
//! preset (macros, loops, conditions, filters; ~2.7 KB), and throughput on
//! a 1 MB text-heavy template.
//!
//! minijinja is configured with the same `[[ ]]`/`[% %]`/`[# #]` delimiters;
//! its templates are ours with `->` written `|`. Before measuring, both
//! engines render each template and the outputs are compared, so the two
//! sides provably do the same work.
//!
//! The `names` group measures what used to be quadratic (issue 13): a
//! template of 100 000 distinct macros, each defined, called and followed by
//! a read of a name that is no macro (against minijinja on the same
//! template), and `check` (`Template::analyze`) of a template that writes
//! 16 000 names and reads 16 000 others, each with a "did you mean" search.
//!
//! The `composed` group is a page of five templates: it `extends` a layout
//! that extends a base (three levels, `super()` at two), `include`s a
//! partial once per section that `import`s a macro file, and takes a macro
//! with `from ... import`. Both engines hold the same five templates by
//! name; "compile" is a new environment with the five added, "render" the
//! page rendered from it.
//!
//! The `scaling` group compiles and renders the text-heavy template over the
//! series of [`benches::Series`] (1x, 10x, 100x), as the other crates'
//! benches do, with the output, string, memory and fuel limits lifted: time
//! must grow linearly. Its `macros` and `check` variants grow the two
//! templates of the `names` group over the cache series, and its
//! `attribute-filters` variant runs every built-in that walks an attribute
//! path over a list of maps growing with the cache series.
//!
//! Run: `cargo bench -p benches --bench minijinja-brackets`.

use std::hint::black_box;
use std::time::Duration;

use benches::{Series, configure_scaling, input, repeat_to};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use minijinja_brackets::{Context, Environment, Limits};

fn minijinja_env() -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .block_delimiters("[%", "%]")
        .variable_delimiters("[[", "]]")
        .comment_delimiters("[#", "#]")
        .keep_trailing_newline(true)
        .build()
        .expect("valid delimiters");
    env.set_syntax(syntax);
    env
}

/// The same template in minijinja's spelling of filters.
fn as_minijinja(source: &str) -> String {
    source.replace("->", "|")
}

struct Case {
    name: &'static str,
    source: String,
    context: Context,
}

fn cases() -> Vec<Case> {
    let context: Context =
        serde_json::from_str(&input("minijinja-brackets/context.json")).expect("context JSON");
    let prose = input("minijinja-brackets/prose.txt");
    vec![
        Case {
            name: "preset",
            source: input("minijinja-brackets/preset.txt"),
            context: context.clone(),
        },
        Case { name: "text-1mb", source: repeat_to(&prose, 1 << 20), context },
    ]
}

fn compare(c: &mut Criterion) {
    let ours = Environment::new();
    let theirs = minijinja_env();
    for case in cases() {
        let their_source = as_minijinja(&case.source);
        let state = serde_json::Value::Object(case.context.state.clone());
        let their_context = minijinja::Value::from(minijinja::value::Serde(&state));

        let our_template = ours.compile(&case.source).expect("ours compiles");
        let their_template = theirs.template_from_str(&their_source).expect("minijinja compiles");
        let our_output = our_template.render(&case.context, 0).expect("ours renders").output;
        let their_output = their_template.render(&their_context).expect("minijinja renders");
        assert_eq!(our_output, their_output, "{}: the engines disagree", case.name);

        let mut group = c.benchmark_group(format!("minijinja-brackets/{}", case.name));
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(3))
            .warm_up_time(Duration::from_secs(1));
        group.throughput(Throughput::Bytes(case.source.len() as u64));
        group.bench_function("compile/brackets", |b| {
            b.iter(|| ours.compile(black_box(&case.source)).unwrap())
        });
        group.bench_function("compile/minijinja", |b| {
            b.iter(|| theirs.template_from_str(black_box(&their_source)).unwrap())
        });
        group.bench_function("render/brackets", |b| {
            b.iter(|| our_template.render(black_box(&case.context), 0).unwrap())
        });
        // The text, writes and effects without a copy of the stores.
        group.bench_function("render-outcome/brackets", |b| {
            b.iter(|| our_template.render_outcome(black_box(&case.context), 0).unwrap())
        });
        group.bench_function("render/minijinja", |b| {
            b.iter(|| their_template.render(black_box(&their_context)).unwrap())
        });
        group.bench_function("render-from-json/minijinja", |b| {
            b.iter(|| {
                let context = minijinja::Value::from(minijinja::value::Serde(black_box(&state)));
                their_template.render(context).unwrap()
            })
        });
        group.finish();
    }
}

/// The five templates of the `composed` group, by name.
const COMPOSED: [&str; 5] = ["base.txt", "layout.txt", "macros.txt", "stats.txt", "page.txt"];

fn composed(c: &mut Criterion) {
    let sources: Vec<(&str, String)> = COMPOSED
        .iter()
        .map(|name| (*name, input(&format!("minijinja-brackets/composed/{name}"))))
        .collect();
    let their_sources: Vec<(&str, String)> =
        sources.iter().map(|(name, source)| (*name, as_minijinja(source))).collect();
    let context: serde_json::Value =
        serde_json::from_str(&input("minijinja-brackets/composed/context.json")).unwrap();
    let our_context =
        Context { state: context.as_object().cloned().expect("an object"), ..Context::default() };
    let their_context = minijinja::Value::from(minijinja::value::Serde(&context));
    let ours = || {
        let mut env = Environment::new();
        for (name, source) in &sources {
            env.add_template(name, source).expect("ours compiles");
        }
        env
    };
    let theirs = || {
        let mut env = minijinja_env();
        for (name, source) in &their_sources {
            env.add_template(name, source).expect("minijinja compiles");
        }
        env
    };
    let (our_env, their_env) = (ours(), theirs());
    let our_page = our_env.template("page.txt").unwrap();
    let their_page = their_env.get_template("page.txt").unwrap();
    let our_output = our_page.render_outcome(&our_context, 0).expect("ours renders").output;
    let their_output = their_page.render(&their_context).expect("minijinja renders");
    assert_eq!(our_output, their_output, "composed: the engines disagree");

    let mut group = c.benchmark_group("minijinja-brackets/composed");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Bytes(our_output.len() as u64));
    group.bench_function("compile/brackets", |b| b.iter(|| black_box(ours())));
    group.bench_function("compile/minijinja", |b| b.iter(|| black_box(theirs())));
    group.bench_function("render-outcome/brackets", |b| {
        b.iter(|| our_page.render_outcome(black_box(&our_context), 0).unwrap())
    });
    group.bench_function("render/minijinja", |b| {
        b.iter(|| their_page.render(black_box(&their_context)).unwrap())
    });
    group.finish();
}

/// `unit` once per number from 0 with `{i}` replaced by the number, until
/// the text is at least `bytes` long: a template of distinct names.
fn numbered_to(unit: &str, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + unit.len() + 8);
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&unit.replace("{i}", &i.to_string()));
        i += 1;
    }
    text
}

/// A macro defined, called, and a read of a name that is no macro.
const MACRO_UNIT: &str = "[% macro m{i}(a) %][[ a ]][% endmacro %][[ m{i}(1) ]][[ x ]]";
/// A name written and another read that nothing writes.
const CHECK_UNIT: &str = "[% set name{i} = 1 %][[ other{i} ]]";

/// Every built-in that walks an attribute path over its items (the path
/// split once, its steps paid per item), over a list of maps that grows
/// with the series: linear, `n log n` for the sorts.
const FILTERS: &str = "[[ items -> map(attribute='a.b') -> sum ]] \
    [[ items -> selectattr('a.b', 'odd') -> list -> length ]] \
    [[ items -> rejectattr('a.b', 'eq', 3) -> list -> length ]] \
    [[ (items -> sort(attribute='a.b') -> first).a.b ]] [[ items -> unique(attribute='a.b') -> length ]] \
    [[ items -> groupby('a.b') -> length ]] [[ items -> sum(attribute='a.b') ]] \
    [[ (items -> min(attribute='a.b')).a.b ]] [[ (items -> max(attribute='a.b')).a.b ]] \
    [[ items -> join(',', attribute='a.b') -> length ]]";

/// A context whose `items` are maps `{"a": {"b": i % 100}}`, one per 16
/// bytes of `bytes`.
fn items_context(bytes: usize) -> Context {
    let items = (0..bytes / 16).map(|i| serde_json::json!({"a": {"b": i % 100}})).collect();
    let mut context = Context::default();
    context.state.insert("items".into(), serde_json::Value::Array(items));
    context
}

fn unlimited() -> Environment {
    let mut env = Environment::new();
    env.set_limits(
        Limits::default()
            .with_output_limit(usize::MAX)
            .with_string_limit(usize::MAX)
            .with_memory_limit(usize::MAX)
            .with_fuel(None),
    );
    env
}

fn names(c: &mut Criterion) {
    let ours = unlimited();
    let theirs = minijinja_env();
    let macros: String = (0..100_000).map(|i| MACRO_UNIT.replace("{i}", &i.to_string())).collect();
    let check: String = (0..16_000).map(|i| CHECK_UNIT.replace("{i}", &i.to_string())).collect();
    let context = Context::default();
    let our_output = ours.compile(&macros).unwrap().render_outcome(&context, 0).unwrap().output;
    let their_output = theirs.render_str(&macros, minijinja::context! {}).unwrap();
    assert_eq!(our_output, their_output, "many macros: the engines disagree");

    let mut group = c.benchmark_group("minijinja-brackets/names");
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    group.bench_function("100000-macros/brackets", |b| {
        b.iter(|| ours.compile(black_box(&macros)).unwrap().render_outcome(&context, 0).unwrap())
    });
    group.bench_function("100000-macros/minijinja", |b| {
        b.iter(|| theirs.render_str(black_box(&macros), minijinja::context! {}).unwrap())
    });
    let template = ours.compile(&check).unwrap();
    assert_eq!(template.analyze().warnings.len(), 16_000);
    group.bench_function("check-16000-names/brackets", |b| {
        b.iter(|| black_box(&template).analyze())
    });
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut env = Environment::new();
    env.set_limits(
        Limits::default()
            .with_output_limit(usize::MAX)
            .with_string_limit(usize::MAX)
            .with_memory_limit(usize::MAX)
            .with_fuel(None),
    );
    let context: Context =
        serde_json::from_str(&input("minijinja-brackets/context.json")).expect("context JSON");
    let prose = input("minijinja-brackets/prose.txt");
    benches::scale_text(c, "minijinja-brackets/scaling", &prose, "compile+render", |source| {
        env.compile(source).unwrap().render(&context, 0).unwrap()
    });
    // Distinct names: the cache series only (a 100 MiB template of macros
    // measures the allocator more than name resolution).
    let env = unlimited();
    let mut group = c.benchmark_group("minijinja-brackets/scaling");
    for (factor, bytes) in Series::CACHE.sizes() {
        let macros = numbered_to(MACRO_UNIT, bytes);
        let check = numbered_to(CHECK_UNIT, bytes);
        let template = env.compile(&check).unwrap();
        configure_scaling(&mut group, bytes);
        group.throughput(Throughput::Bytes(macros.len() as u64));
        group.bench_function(Series::CACHE.id("macros", factor), |b| {
            b.iter(|| env.compile(black_box(&macros)).unwrap().render_outcome(&context, 0).unwrap())
        });
        group.throughput(Throughput::Bytes(check.len() as u64));
        group.bench_function(Series::CACHE.id("check", factor), |b| {
            b.iter(|| black_box(&template).analyze())
        });
        let filters = env.compile(FILTERS).unwrap();
        let items = items_context(bytes);
        group.throughput(Throughput::Elements((bytes / 16) as u64));
        group.bench_function(Series::CACHE.id("attribute-filters", factor), |b| {
            b.iter(|| filters.render_outcome(black_box(&items), 0).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, compare, composed, names, scaling);
criterion_main!(benches);
