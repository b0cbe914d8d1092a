//! `narrative_segment`: parse (with random data ranges), validate, resolve,
//! `segment` and `render` over arbitrary text, in both dialects. The first
//! byte picks the dialect and the render options; the second the number of
//! data ranges, each given by the next four bytes (start and length, two
//! bytes each, little-endian; any values: out of bounds, overlapping or
//! inside a character, `parse_with_data` normalises them). The rest is the
//! narrative.
//!
//! Checked beyond "no panic":
//! - the turns' texts and delimiter lines tile the narrative exactly
//!   (after a byte order mark the Standard dialect skips), and every
//!   turn's text is the slice its span names;
//! - data never becomes structure: no delimiter line, occurrence, embed
//!   closer or code span starts inside data, and replacing every value that
//!   is not a role word by same-length syntax (`#`, `@`, backticks, `<!--`,
//!   newlines) changes no occurrence, code span or turn boundary.

#![no_main]

use std::ops::Range;

use libfuzzer_sys::fuzz_target;
use narrative_segment::{
    Attachments, ContextAs, Dialect, Narrative, OccurrenceKind, RenderOptions, Span, render,
};

/// Same-length filler for values: syntax of every kind, never a role word.
const FILLER: &[u8] = b"#@`<!-->\n\r ~[](\\*";

fn is_role_word(value: &str) -> bool {
    ["user", "assistant", "system", "tool"].iter().any(|word| word.eq_ignore_ascii_case(value.trim()))
}

/// Occurrences and code spans (positions only) of a narrative.
fn shape(narrative: &Narrative) -> (Vec<(Span, OccurrenceKind)>, Vec<Span>) {
    (narrative.occurrences().map(|o| (o.span, o.kind)).collect(), narrative.code_spans().to_vec())
}

fn attachments() -> Attachments {
    Attachments::from_entries([
        ("a.png", b"\x89PNG\r\n".to_vec()),
        ("notes.txt", b"some notes".to_vec()),
        ("x", Vec::new()),
    ])
    .expect("fixed entries are valid")
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Some((&count, mut rest)) = rest.split_first() else { return };
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for _ in 0..count % 16 {
        let Some((range, tail)) = rest.split_first_chunk::<4>() else { break };
        let start = usize::from(u16::from_le_bytes([range[0], range[1]]));
        let length = usize::from(u16::from_le_bytes([range[2], range[3]]));
        ranges.push(start..start + length);
        rest = tail;
    }
    let dialect = if selector & 1 == 0 { Dialect::Standard } else { Dialect::Lmml };
    let Ok(text) = std::str::from_utf8(rest) else {
        let err = Narrative::from_utf8(rest.to_vec(), dialect).expect_err("not UTF-8");
        assert_eq!(err.kind().as_str(), "invalid_utf8");
        return;
    };
    let narrative = Narrative::parse_with_data(text, dialect, &ranges);
    let data = narrative.data_ranges().to_vec();
    let in_data = |at: usize| data.iter().any(|span| span.contains(at));
    let attachments = attachments();

    let _errors = narrative.validate(&attachments);
    for occurrence in narrative.occurrences() {
        assert!(!in_data(occurrence.span.start), "an occurrence starts inside data");
        if let OccurrenceKind::Inline { .. } = occurrence.kind {
            let end = occurrence.span.end;
            assert!((end - 3..end).all(|at| !in_data(at)), "an embed closer inside data");
        }
    }
    for span in narrative.code_spans() {
        assert!(!in_data(span.start), "a code span starts inside data");
    }

    // The same narrative with every value that is not a role word replaced.
    let mut filled = text.as_bytes().to_vec();
    let mut next = FILLER.iter().cycle();
    for span in &data {
        if !is_role_word(&text[span.range()]) {
            filled[span.range()].iter_mut().for_each(|byte| *byte = *next.next().unwrap());
        }
    }
    let filled = String::from_utf8(filled).expect("ASCII filler over whole characters");
    let normalised: Vec<Range<usize>> = data.iter().map(|span| span.range()).collect();
    let other = Narrative::parse_with_data(filled, dialect, &normalised);
    assert_eq!(shape(&narrative), shape(&other), "what a value holds changed the structure");

    let Ok(resolved) = narrative.resolve(&attachments) else { return };
    let text = resolved.text();
    let turns = resolved.segment();
    let body = if dialect == Dialect::Standard && text.starts_with('\u{feff}') && !in_data(0) {
        3
    } else {
        0
    };
    let mut pieces: Vec<Span> = Vec::new();
    for turn in &turns {
        assert_eq!(&text[turn.span.range()], turn.text, "a turn's text is not its span");
        if let Some(delimiter) = turn.delimiter {
            assert!(!in_data(delimiter.start), "a delimiter line starts inside data");
        }
        pieces.push(turn.span);
        pieces.extend(turn.delimiter);
    }
    pieces.sort_by_key(|span| (span.start, span.end));
    let mut at = body;
    for span in pieces {
        assert_eq!(span.start, at, "turns and delimiters do not tile the narrative");
        at = span.end;
    }
    assert_eq!(at, text.len(), "turns and delimiters stop before the end");
    // The turn boundaries of the filled narrative, when it resolves too.
    if let Ok(other) = other.resolve(&attachments) {
        let bounds = |turns: &[narrative_segment::Turn<'_>]| {
            turns.iter().map(|t| (t.role, t.span, t.delimiter)).collect::<Vec<_>>()
        };
        assert_eq!(bounds(&turns), bounds(&other.segment()), "a value moved a turn boundary");
    }

    let context_as = match (selector >> 1) & 3 {
        0 => ContextAs::Keep,
        1 => ContextAs::System,
        2 => ContextAs::User,
        _ => ContextAs::Drop,
    };
    let max_embed_bytes = if selector & 8 == 0 { None } else { Some(4) };
    let options =
        RenderOptions::new().with_max_embed_bytes(max_embed_bytes).with_context_as(context_as);
    let rendered = render(&resolved, &turns, &options);
    if max_embed_bytes.is_none() {
        // Without a limit no embed is too large; a media type that the
        // bytes contradict is still a warning (`media_type_mismatch`).
        assert!(
            rendered.warnings.iter().all(|w| w.kind() != narrative_segment::WarningKind::EmbedTooLarge),
            "an embed too large without a limit"
        );
    }
});
