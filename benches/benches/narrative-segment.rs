//! Segmenting narratives: parse, resolve and split a realistic conversation
//! scaled over the series of [`benches::Series`] (1x, 10x, 100x), in
//! both dialects, and in Standard with role aliases (the conversation's
//! `-- user` / `-- assistant` delimiters renamed `-- You` / `-- ChatGPT`, so
//! every delimiter is an alias lookup). Throughput should stay flat as the
//! input grows (linear time). Run: `cargo bench -p benches --bench narrative-segment`.

use std::hint::black_box;

use benches::{Series, configure_scaling};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use narrative_segment::{Attachments, Dialect, Narrative, RoleAliases, SegmentOptions};

fn segment(c: &mut Criterion) {
    let unit = benches::input("narrative-segment/conversation.lmml");
    let attachments = Attachments::from_entries([
        ("chart.png", b"\x89PNG\r\n\x1a\n".to_vec()),
        ("report.pdf", b"%PDF-1.7\n".to_vec()),
        // lmml takes the e-mail address `finance@example.com` for a reference.
        ("example.com", b"".to_vec()),
    ])
    .expect("safe names");
    let aliases = RoleAliases::from_pairs(["You=user", "ChatGPT=assistant", "Claude=assistant"])
        .expect("valid aliases");
    let with_aliases = SegmentOptions::new(Dialect::Standard).with_aliases(aliases);
    let mut group = c.benchmark_group("narrative-segment/scaling");
    for series in Series::selected() {
        for (factor, bytes) in series.sizes() {
            let text = benches::repeat_to(&unit, bytes);
            group.throughput(Throughput::Bytes(text.len() as u64));
            configure_scaling(&mut group, bytes);
            for (label, dialect) in
                [("segment-standard", Dialect::Standard), ("segment-lmml", Dialect::Lmml)]
            {
                group.bench_function(series.id(label, factor), |b| {
                    // The copy of the input is set-up, not measured.
                    b.iter_batched(
                        || text.clone(),
                        |text| {
                            let resolved = Narrative::parse(text, dialect)
                                .resolve(&attachments)
                                .expect("every reference resolves");
                            black_box(&resolved.segment());
                            // Dropped outside the measurement.
                            resolved
                        },
                        BatchSize::PerIteration,
                    );
                });
            }
            let renamed = text.replace("-- user", "-- You").replace("-- assistant", "-- ChatGPT");
            group.bench_function(series.id("segment-standard-aliases", factor), |b| {
                b.iter_batched(
                    || renamed.clone(),
                    |text| {
                        let resolved = Narrative::parse(text, Dialect::Standard)
                            .resolve(&attachments)
                            .expect("every reference resolves");
                        black_box(&narrative_segment::segment(&resolved, &with_aliases));
                        resolved
                    },
                    BatchSize::PerIteration,
                );
            });
        }
    }
    group.finish();
}

criterion_group!(benches, segment);
criterion_main!(benches);
