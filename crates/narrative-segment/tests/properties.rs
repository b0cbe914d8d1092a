//! Properties over generated narratives built from the pieces that matter
//! (delimiters, fences, embeds, references, line endings) and random text.

use narrative_segment::{
    Attachments, Bundle, Dialect, ErrorKind, Limits, Narrative, OccurrenceKind, RenderOptions,
    ResolvedNarrative, SegmentOptions, is_unsafe_name, render_turns, segment,
};
use proptest::prelude::*;

fn narrative() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("## user\n".to_owned()),
        Just("### Turn 2 -- assistant ".to_owned()),
        Just("<!-- system -->".to_owned()),
        Just("<!-- TODO: ask the user -->".to_owned()),
        Just("# tool".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("```\n".to_owned()),
        Just("~~~~\n".to_owned()),
        Just("@@@a.txt\n".to_owned()),
        Just("@@@b.png\n".to_owned()),
        Just("@@@".to_owned()),
        Just("@a.png".to_owned()),
        Just("@c.pdf.".to_owned()),
        Just("bob@example.com".to_owned()),
        Just("`".to_owned()),
        Just("\\@".to_owned()),
        Just("<!--".to_owned()),
        Just("-->".to_owned()),
        Just("[x](@y.png)".to_owned()),
        Just("    ".to_owned()),
        Just("Über ".to_owned()),
        "[a-z@#`<>!\\-\\[\\]() \t\n.]{0,6}",
        any::<String>().prop_map(|s| s.chars().take(4).collect()),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// The narrative resolved with an entry for every safe reference name;
/// `None` when an unsafe name (only lmml's rule allows them) stops it.
fn resolve(text: &str, dialect: Dialect) -> Option<ResolvedNarrative> {
    let narrative = Narrative::parse(text, dialect);
    let entries: Vec<(String, Vec<u8>)> = narrative
        .occurrences()
        .filter(|o| o.kind == OccurrenceKind::Reference && !is_unsafe_name(o.name))
        .map(|o| (o.name.to_owned(), o.name.as_bytes().to_vec()))
        .collect();
    match narrative.resolve(&Attachments::from_entries(entries).unwrap()) {
        Ok(resolved) => Some(resolved),
        Err(err) => {
            assert_eq!(err.kind(), ErrorKind::UnsafeEntry, "{err}");
            None
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Turn texts and delimiter lines, in order, restore the input exactly,
    /// whichever dialect parsed the narrative and whichever segments it.
    #[test]
    fn turns_and_delimiters_restore_the_input(text in narrative()) {
        let dialects = [Dialect::Standard, Dialect::Lmml];
        for (parsed_as, segmented_as) in dialects.into_iter().flat_map(|a| dialects.map(|b| (a, b))) {
            let Some(resolved) = resolve(&text, parsed_as) else { continue };
            let mut restored = String::new();
            for turn in segment(&resolved, &SegmentOptions { dialect: segmented_as }) {
                if let Some(delimiter) = turn.delimiter {
                    prop_assert_eq!(delimiter.start, restored.len());
                    restored.push_str(&text[delimiter.range()]);
                }
                prop_assert_eq!(turn.span.start, restored.len());
                prop_assert_eq!(&text[turn.span.range()], &*turn.text);
                restored.push_str(&turn.text);
            }
            prop_assert_eq!(&restored, &text);
        }
    }

    /// Standard: every embed lands in exactly one turn; lmml: at most one.
    #[test]
    fn every_embed_lands_in_exactly_one_turn(text in narrative()) {
        for dialect in [Dialect::Standard, Dialect::Lmml] {
            let Some(resolved) = resolve(&text, dialect) else { continue };
            let turns = resolved.segment();
            for embed in resolved.embeds() {
                let homes = turns.iter().filter(|turn| turn.embeds.contains(&embed.name)).count();
                match dialect {
                    Dialect::Standard => prop_assert_eq!(homes, 1, "{}", embed.name),
                    _ => prop_assert!(homes <= 1, "{}", embed.name),
                }
            }
        }
    }

    /// Every occurrence's span is the text it names, on character boundaries.
    #[test]
    fn occurrences_point_at_their_text(text in narrative()) {
        for dialect in [Dialect::Standard, Dialect::Lmml] {
            for occurrence in Narrative::parse(text.as_str(), dialect).occurrences() {
                let spanned = &text[occurrence.span.range()];
                match occurrence.kind {
                    OccurrenceKind::Reference => {
                        prop_assert_eq!(&spanned[1..], occurrence.name);
                    }
                    OccurrenceKind::Inline { content } => {
                        let prefix = format!("@@@{}", occurrence.name);
                        prop_assert!(spanned.starts_with(&prefix));
                        prop_assert!(spanned.ends_with("@@@"));
                        prop_assert!(occurrence.span.start < content.start && content.end <= occurrence.span.end);
                    }
                }
            }
        }
    }

    /// Any bytes: UTF-8 parses (and validates and renders), anything else is
    /// `invalid_utf8` at the first bad byte.
    #[test]
    fn any_bytes_parse_or_fail_at_the_first_bad_byte(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        match Narrative::from_utf8(bytes.clone(), Dialect::Standard) {
            Ok(narrative) => {
                for problem in narrative.validate(&Attachments::none()) {
                    prop_assert!(problem.name().is_some(), "{}", problem);
                }
                if let Some(resolved) = resolve(narrative.text(), Dialect::Standard) {
                    let turns = resolved.segment();
                    let messages = render_turns(&resolved, &turns, &RenderOptions::default());
                    prop_assert_eq!(messages.len(), turns.len());
                }
            }
            Err(err) => {
                prop_assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
                let valid_up_to = std::str::from_utf8(&bytes).unwrap_err().valid_up_to();
                prop_assert_eq!(err.offset(), Some(valid_up_to));
            }
        }
    }

    /// Damaged archives are errors, never panics or runaway allocations.
    #[test]
    fn damaged_archives_are_errors(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let bundle = Bundle::from_parts("## user\n@a.png\n", [("a.png", vec![7u8; 300])]).unwrap();
        let mut bytes = bundle.to_zip("x.lmmlz").unwrap();
        for (index, byte) in flips {
            let at = index.index(bytes.len());
            bytes[at] = byte;
        }
        let limits = Limits { max_entry_bytes: 4096, max_total_bytes: 8192, ..Limits::default() };
        if let Ok(read) = Bundle::from_bytes("x.lmmlz", &bytes, &limits) {
            let (text, attachments) = read.into_parts();
            prop_assert!(text.len() <= 4096);
            let names: Vec<String> = attachments.entry_names().into_iter().flatten().map(str::to_owned).collect();
            for name in names {
                prop_assert!(attachments.fetch(&name).unwrap().len() <= 4096);
            }
        }
    }
}
