//! Segmenting narratives: parse, resolve and split a realistic conversation
//! scaled to 1, 10 and 100 MiB, in both dialects. Throughput should stay
//! flat as the input grows (linear time).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use narrative_segment::{Attachments, Dialect, Narrative};

fn segment(c: &mut Criterion) {
    let unit = benches::input("narrative-segment/conversation.lmml");
    let attachments = Attachments::from_entries([
        ("chart.png", b"\x89PNG\r\n\x1a\n".to_vec()),
        ("report.pdf", b"%PDF-1.7\n".to_vec()),
        // lmml takes the e-mail address `finance@example.com` for a reference.
        ("example.com", b"".to_vec()),
    ])
    .expect("safe names");
    let mut group = c.benchmark_group("narrative-segment");
    for mib in [1, 10, 100] {
        let text = benches::repeat_to(&unit, mib << 20);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(if mib == 100 { 1 } else { 500 }));
        group.measurement_time(Duration::from_secs(if mib == 100 { 8 } else { 3 }));
        for (label, dialect) in [("standard", Dialect::Standard), ("lmml", Dialect::Lmml)] {
            group.bench_function(format!("{label}/{mib}MiB"), |b| {
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
    }
    group.finish();
}

criterion_group!(benches, segment);
criterion_main!(benches);
