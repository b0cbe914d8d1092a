//! Throughput of `prompt-comments` on comment-free prose and on a
//! comment-dense prompt (a comment on every third line or more: full-line,
//! inline and directives), in both dialects, and its growth over the scaling
//! series of [`benches::Series`].
//! Run: `cargo bench -p benches --bench prompt-comments`.

use std::hint::black_box;
use std::time::Duration;

use benches::{input, repeat_to};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use prompt_comments::Dialect;

const MIB: usize = 1 << 20;

fn throughput(c: &mut Criterion) {
    let prose = repeat_to(&input("prompt-comments/prose.txt"), 10 * MIB);
    let dense = repeat_to(&input("prompt-comments/dense.txt"), 10 * MIB);
    let mut group = c.benchmark_group("prompt-comments/10MiB");
    group.sample_size(10).warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for (corpus, text) in [("comment-free", &prose), ("comment-dense", &dense)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        for dialect in Dialect::ALL {
            group.bench_function(BenchmarkId::new(format!("process/{dialect}"), corpus), |b| {
                b.iter(|| black_box(dialect.process(black_box(text))))
            });
            group.bench_function(BenchmarkId::new(format!("strip/{dialect}"), corpus), |b| {
                b.iter(|| black_box(dialect.strip(black_box(text))))
            });
        }
    }
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let unit = input("prompt-comments/dense.txt");
    benches::scale_text(c, "prompt-comments/scaling", &unit, "process-standard", |text| {
        black_box(Dialect::Standard.process(text)).cleaned.len()
    });
}

criterion_group!(benches, throughput, scaling);
criterion_main!(benches);
