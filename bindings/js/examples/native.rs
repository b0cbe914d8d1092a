//! The bracket benches natively, for the JavaScript package's side-by-side
//! run (`node bindings/js/bench/bench.mjs` starts this with `cargo run
//! --release`): the same templates, contexts and timing loop as the
//! script's, through the same Rust API the package calls. Prints one JSON
//! object: nanoseconds per iteration by case.

use std::time::{Duration, Instant};

use prompt_suite::brackets::{Context, Environment};

/// The best of three runs of at least half a second each, in ns/iteration.
fn time(mut run: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let start = Instant::now();
        let mut count = 0u32;
        while start.elapsed() < Duration::from_millis(500) {
            run();
            count += 1;
        }
        best = best.min(start.elapsed().as_nanos() as f64 / f64::from(count));
    }
    best
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let inputs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/inputs");
    let read = |name: &str| std::fs::read_to_string(inputs.join(name));
    let context: Context = serde_json::from_str(&read("minijinja-brackets/context.json")?)?;
    let preset = read("minijinja-brackets/preset.txt")?;
    let prose = read("minijinja-brackets/prose.txt")?;
    let text = prose.repeat((1usize << 20).div_ceil(prose.len()));
    let env = Environment::new();
    let mut out = serde_json::Map::new();
    for (name, source) in [("preset", &preset), ("text-1mb", &text)] {
        let template = env.compile(source)?;
        let compile = time(|| drop(std::hint::black_box(env.compile(source))));
        let render = time(|| {
            drop(std::hint::black_box(template.render_outcome(&context, 0).map(|o| o.output)))
        });
        out.insert(format!("{name}/compile"), compile.into());
        out.insert(format!("{name}/render"), render.into());
    }
    println!("{}", serde_json::Value::Object(out));
    Ok(())
}
