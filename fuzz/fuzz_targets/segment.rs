//! `narrative_segment`: parse, validate, resolve, `segment` and
//! `render_turns` over arbitrary text, in both dialects. The first byte
//! picks the dialect and the render options.
//!
//! Checked beyond "no panic": the turns' texts and delimiter lines tile the
//! narrative exactly (nothing dropped, nothing repeated), and every turn's
//! text is the slice its span names.

#![no_main]

use libfuzzer_sys::fuzz_target;
use narrative_segment::{
    Attachments, ContextAs, Dialect, Narrative, RenderOptions, Span, render_turns,
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let dialect = if selector & 1 == 0 { Dialect::Standard } else { Dialect::Lmml };
    let Ok(narrative) = Narrative::from_utf8(rest.to_vec(), dialect) else { return };
    let attachments = Attachments::from_entries([
        ("a.png", b"\x89PNG\r\n".to_vec()),
        ("notes.txt", b"some notes".to_vec()),
        ("x", Vec::new()),
    ])
    .expect("fixed entries are valid");

    let _errors = narrative.validate(&attachments);
    let _occurrences = narrative.occurrences().count();
    let Ok(resolved) = narrative.resolve(&attachments) else { return };
    let text = resolved.text();
    let turns = resolved.segment();

    let mut pieces: Vec<Span> = Vec::new();
    for turn in &turns {
        assert_eq!(&text[turn.span.range()], turn.text, "a turn's text is not its span");
        pieces.push(turn.span);
        pieces.extend(turn.delimiter);
    }
    pieces.sort_by_key(|span| (span.start, span.end));
    let mut at = 0;
    for span in pieces {
        assert_eq!(span.start, at, "turns and delimiters do not tile the narrative");
        at = span.end;
    }
    assert_eq!(at, text.len(), "turns and delimiters stop before the end");

    let context_as = match (selector >> 1) & 3 {
        0 => ContextAs::Keep,
        1 => ContextAs::System,
        2 => ContextAs::User,
        _ => ContextAs::Drop,
    };
    let max_embed_bytes = if selector & 8 == 0 { None } else { Some(4) };
    let options = RenderOptions { max_embed_bytes, context_as };
    let _messages = render_turns(&resolved, &turns, &options);
});
