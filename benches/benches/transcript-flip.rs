//! `transcript-flip`: flipping long transcripts with sanitizing on.
//!
//! `cargo bench -p benches --bench transcript-flip`

use std::hint::black_box;
use std::time::Duration;

use benches::{Series, configure_scaling};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use transcript_flip::{Dialect, FlipOptions, Turn, flip, sanitize};

const SPEAKERS: [&str; 5] = ["Mod", "Ana", "Ben", "Cy", "Dee"];

/// Realistic turn texts (`benches/inputs/transcript-flip/turns.txt`):
/// mostly plain prose, some with colons and non-ASCII, one in eight an
/// injection attempt.
fn texts() -> Vec<String> {
    benches::input("transcript-flip/turns.txt").lines().map(str::to_owned).collect()
}

fn transcript(turns: usize) -> Vec<Turn> {
    let texts = texts();
    (0..turns)
        .map(|i| {
            // Different strides so that speakers and texts mix.
            let speaker = SPEAKERS[(i * 3 + i / 7) % SPEAKERS.len()];
            Turn::new(speaker, texts[(i * 5 + i / 3) % texts.len()].as_str())
        })
        .collect()
}

fn options(mode: Dialect) -> FlipOptions {
    FlipOptions::new()
        .with_system("You are Ben, a renter on the city council.")
        .with_instruction("Your turn, Ben.")
        .with_dialect(mode)
}

fn flip_100k(c: &mut Criterion) {
    let turns = transcript(100_000);
    let mut group = c.benchmark_group("flip_100k_turns");
    group.sample_size(10).measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Elements(turns.len() as u64));
    for (name, mode) in [("standard", Dialect::Standard), ("llmr", Dialect::Llmr)] {
        let options = options(mode);
        group.bench_function(name, |b| b.iter(|| flip(black_box(&turns), "Ben", &options)));
    }
    group.finish();
}

/// About what one turn takes in memory: its `Turn`, and the heap blocks of
/// its speaker and text.
const TURN_BYTES: usize = 160;

/// Each series' 1x in turns, close to the byte sizes of the other crates'
/// series at [`TURN_BYTES`] a turn.
const BASE_TURNS: [(Series, usize); 3] =
    [(Series::CACHE, 200), (Series::MEMORY, 10_000), (Series::LARGE, 200_000)];

/// Transcripts of 200, 2 000 and 20 000 turns (cache), of 10 000, 100 000
/// and 1 000 000 (memory), and of 200 000 to 20 million (large).
fn flip_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("transcript-flip/scaling");
    let options = options(Dialect::Standard);
    for series in Series::selected() {
        let base = BASE_TURNS.iter().find(|(s, _)| *s == series).map(|&(_, turns)| turns);
        let series = series.with_base(base.expect("every series has a base in turns"));
        for (factor, size) in series.sizes() {
            let turns = transcript(size);
            configure_scaling(&mut group, size * TURN_BYTES);
            group.throughput(Throughput::Elements(size as u64));
            group.bench_with_input(series.id("flip-standard", factor), &turns, |b, turns| {
                b.iter(|| flip(black_box(turns), "Ben", &options));
            });
        }
    }
    group.finish();
}

fn sanitize_text(c: &mut Criterion) {
    let texts = texts();
    let plain = texts[..texts.len() - 1].join("\n").repeat(200);
    let hostile = texts.join("\n").repeat(200);
    let mut group = c.benchmark_group("sanitize_standard");
    group.sample_size(20).measurement_time(Duration::from_secs(2));
    for (name, text) in [("plain", &plain), ("hostile", &hostile)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| sanitize(black_box(text)).len()));
    }
    group.finish();
}

criterion_group!(benches, flip_100k, flip_scaling, sanitize_text);
criterion_main!(benches);
