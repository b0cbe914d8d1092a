//! What this machine itself charges as data grows, over the same size
//! series as the crates' scaling benchmarks ([`benches::Series`]): a read of
//! every byte, and a copy into fresh memory (what any function that returns
//! an owned result of the input's size pays). No code can grow more slowly
//! than these passes, so their ratios are the floor for the crates'.
//!
//! Run: `cargo bench -p benches --bench machine` (or `cargo xtask scaling`).

use std::hint::black_box;

use benches::{Series, configure_scaling};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("machine/scaling");
    for series in Series::selected() {
        for (factor, bytes) in series.sizes() {
            let data: Vec<u8> = (0..bytes).map(|i| b'a' + (i % 26) as u8).collect();
            configure_scaling(&mut group, bytes);
            group.throughput(Throughput::Bytes(bytes as u64));
            group.bench_function(series.id("read", factor), |b| {
                b.iter(|| black_box(&data).iter().map(|&byte| u64::from(byte)).sum::<u64>())
            });
            group
                .bench_function(series.id("copy", factor), |b| b.iter(|| black_box(&data).clone()));
        }
    }
    group.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
