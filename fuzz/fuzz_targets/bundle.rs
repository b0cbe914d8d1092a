//! `narrative_segment::Bundle`: opening a `.lmmlz` bundle from arbitrary
//! bytes under small limits, then resolving, segmenting and rendering what
//! it holds. The fuzzer is seeded with real archives (see the seed script),
//! so it mutates central directories, local headers and deflate streams.
//!
//! Checked beyond "no panic": an opened bundle respects the limits it was
//! opened with, and saving it and opening the result gives it back.

#![no_main]

use libfuzzer_sys::fuzz_target;
use narrative_segment::{Bundle, Dialect, AttachmentLimits, Narrative, RenderOptions, lmml, render};

fuzz_target!(|data: &[u8]| {
    let limits = AttachmentLimits::new()
        .with_max_entries(16)
        .with_max_entry_bytes(1 << 16)
        .with_max_total_bytes(1 << 18);
    let Ok(bundle) = Bundle::from_bytes("story.lmmlz", data, &limits) else { return };

    if let Some(names) = bundle.attachments().entry_names() {
        assert!(names.count() <= limits.max_entries, "more entries than the limit");
    }
    let zipped = bundle.to_zip("story.lmmlz").expect("an opened bundle can be saved");
    let reopened = Bundle::from_zip("story.lmmlz", &zipped, &AttachmentLimits::default())
        .expect("a saved bundle opens again");
    assert_eq!(reopened.text(), bundle.text(), "the narrative changed through a save");

    let (text, attachments) = bundle.into_parts();
    for dialect in [Dialect::Standard, Dialect::Lmml] {
        let narrative = Narrative::parse(text.clone(), dialect);
        if let Ok(resolved) = narrative.resolve(&attachments) {
            let turns = resolved.segment();
            let _messages = lmml::messages(&render(&resolved, &turns, &RenderOptions::default()));
        }
    }
});
