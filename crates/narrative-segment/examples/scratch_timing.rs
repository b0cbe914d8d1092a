use narrative_segment::*;
use std::time::Instant;
fn main() {
    let unit =
        std::fs::read_to_string("benches/inputs/narrative-segment/conversation.lmml").unwrap();
    let text = unit.repeat((20 << 20) / unit.len());
    let att = Attachments::from_entries([
        ("chart.png", vec![1]),
        ("report.pdf", vec![2]),
        ("example.com", vec![]),
    ])
    .unwrap();
    for dialect in [Dialect::Standard, Dialect::Lmml] {
        for _ in 0..3 {
            let t = text.clone();
            let a = Instant::now();
            let n = Narrative::parse(t, dialect);
            let b = Instant::now();
            let r = n.resolve(&att).unwrap();
            let c = Instant::now();
            let turns = r.segment();
            let d = Instant::now();
            let mb = text.len() as f64 / 1e6;
            println!(
                "{dialect:?} parse {:.0} MB/s resolve {:?} segment {:.0} MB/s total {:.0} MB/s turns {}",
                mb / (b - a).as_secs_f64(),
                c - b,
                mb / (d - c).as_secs_f64(),
                mb / (d - a).as_secs_f64(),
                turns.len()
            );
        }
    }
}
