//! `prompt-pipeline`: `batch` over 100 000 rows of the role-play preset
//! (comments, state writes, `weighted` and `chance` blocks, three turns),
//! one request body per row written as JSONL, on all cores; and one build
//! alone. After the runs, the process's peak resident set (VmHWM) is printed
//! so the flat-memory claim can be checked.
//!
//! `cargo bench -p benches --bench prompt-pipeline`

use std::hint::black_box;
use std::io;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use prompt_pipeline::{
    Batch, Context, Pipeline, Provider, ResponseSchema, Source, Tool, ToolChoice,
};

const ROWS: usize = 100_000;

const USERS: [&str; 5] = ["Rowan", "Ilse", "Tomas", "Bram", "Aïko"];
const MESSAGES: [&str; 4] = [
    "A cider, please. Any news from the harbour?",
    "Is there a room free tonight?",
    "Who is the stranger by the fire?",
    "I heard the fishing boats came back early. Why?",
];

/// `ROWS` JSONL contexts with varied users, visit counts, moods and messages.
fn rows() -> Vec<u8> {
    let mut out = String::new();
    for i in 0..ROWS {
        let context = serde_json::json!({
            "state": {
                "user": USERS[i % USERS.len()],
                "visits": i % 4,
                "message": MESSAGES[i % MESSAGES.len()],
            },
            "local": {"mood": if i % 3 == 0 { "cheerful" } else { "wary" }},
        });
        out.push_str(&context.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

fn batch(c: &mut Criterion) {
    let preset = benches::input("prompt-pipeline/preset.txt");
    let rows = rows();
    let jobs = std::thread::available_parallelism().map_or(1, usize::from);
    let mut group = c.benchmark_group("prompt-pipeline/batch_100k_rows");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(8));
    group.throughput(Throughput::Elements(ROWS as u64));
    for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini] {
        let pipeline = Pipeline::new(provider);
        let prompt = pipeline.prepare(Source::new(preset.as_str())).unwrap();
        let compiled = prompt.compile().unwrap();
        let batch = Batch::new(&compiled, 7, jobs);
        group.bench_function(BenchmarkId::new(provider.as_str(), format!("{jobs}_jobs")), |b| {
            b.iter(|| {
                let summary =
                    batch.run(&rows[..], &mut io::sink(), &mut io::sink(), |_| {}).unwrap();
                assert_eq!((summary.rows, summary.failed), (ROWS, 0));
                black_box(summary)
            })
        });
    }
    group.finish();
}

fn single(c: &mut Criterion) {
    let preset = benches::input("prompt-pipeline/preset.txt");
    let context: Context = serde_json::from_str(
        r#"{"state": {"user": "Rowan", "visits": 2, "message": "Any news?"}, "local": {"mood": "wary"}}"#,
    )
    .unwrap();
    let pipeline = Pipeline::new(Provider::Anthropic);
    let mut group = c.benchmark_group("prompt-pipeline/one_request");
    group.sample_size(20).measurement_time(Duration::from_secs(3));
    group.bench_function("prepare_compile_build", |b| {
        b.iter(|| {
            let prompt = pipeline.prepare(Source::new(preset.as_str())).unwrap();
            black_box(prompt.compile().unwrap().build(&context, 7).unwrap())
        })
    });
    let prompt = pipeline.prepare(Source::new(preset.as_str())).unwrap();
    let compiled = prompt.compile().unwrap();
    group.bench_function("build_compiled", |b| {
        b.iter(|| black_box(compiled.build(black_box(&context), 7).unwrap()))
    });
    // The same build with two tools, a named choice and a response schema
    // (issue 16: within 1.5x of the one without).
    let tools = Tool::parse_list(TOOLS).unwrap();
    let schema = ResponseSchema::parse(SCHEMA).unwrap();
    for provider in Provider::CHAT {
        let declared = Pipeline::builder(provider)
            .tools(tools.clone())
            .tool_choice(ToolChoice::Named("get_weather".into()))
            .response_schema(schema.clone())
            .build();
        let compiled = declared.prepare(Source::new(preset.as_str())).unwrap().compile().unwrap();
        let plain = Pipeline::new(provider).prepare(Source::new(preset.as_str())).unwrap();
        let plain = plain.compile().unwrap();
        group.bench_function(BenchmarkId::new("build_compiled_plain", provider.as_str()), |b| {
            b.iter(|| black_box(plain.build(black_box(&context), 7).unwrap()))
        });
        group.bench_function(
            BenchmarkId::new("build_compiled_tools_schema", provider.as_str()),
            |b| b.iter(|| black_box(compiled.build(black_box(&context), 7).unwrap())),
        );
    }
    group.finish();
}

const TOOLS: &str = r#"[
  {"name": "get_weather", "description": "The current conditions in a city.",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"},
     "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
     "required": ["city", "unit"], "additionalProperties": false}},
  {"name": "get_forecast", "description": "The forecast for the next days.",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"},
     "days": {"type": "integer", "minimum": 1, "maximum": 7}},
     "required": ["city", "days"], "additionalProperties": false}}
]"#;

const SCHEMA: &str = r#"{"title": "reply", "type": "object",
  "properties": {"text": {"type": "string"}, "mood": {"type": "string", "enum": ["cheerful", "wary"]}},
  "required": ["text", "mood"], "additionalProperties": false}"#;

/// The peak resident set of this process, from `/proc/self/status`.
fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.trim().to_owned())
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    batch(&mut criterion);
    single(&mut criterion);
    criterion.final_summary();
    if let Some(rss) = peak_rss() {
        eprintln!("peak resident set ({} rows held as input): {rss}", ROWS);
    }
}
