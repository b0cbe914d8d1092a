//! Prints the turns of a narrative: `cargo run --example turns -- FILE [DIR]`.
//!
//! `FILE` is a bare narrative or a `.lmmlz` bundle; references in a bare
//! narrative resolve from `DIR` when given.

use narrative_segment::{AttachmentLimits, Attachments, Bundle, Dialect, Narrative};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: turns FILE [DIR]")?;
    let bytes = std::fs::read(&path)?;
    let (text, mut attachments) =
        Bundle::from_bytes(&path, &bytes, &AttachmentLimits::default())?.into_parts();
    if let Some(dir) = args.next() {
        attachments = Attachments::directory(dir, AttachmentLimits::default())?;
    }
    let resolved = Narrative::parse(text, Dialect::Standard).resolve(&attachments)?;
    for turn in resolved.segment() {
        println!("{} ({} bytes) embeds {:?}", turn.role, turn.text.len(), turn.embeds);
    }
    Ok(())
}
