//! Properties over generated narratives built from the pieces that matter
//! (delimiters, fences, embeds, references, line endings) and random text.

use std::ops::Range;

use narrative_segment::{
    AttachmentLimits, Attachments, Bundle, Dialect, ErrorKind, Narrative, OccurrenceKind,
    RenderOptions, ResolvedNarrative, SegmentOptions, Span, TurnRole, is_unsafe_name, lmml, render,
    segment,
};
use proptest::prelude::*;

fn narrative() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}

/// A narrative as a template renders it: pieces, some of them printed values
/// (role words and whitespace among them), with their data ranges.
fn rendered() -> impl Strategy<Value = (String, Vec<Range<usize>>)> {
    let value = prop_oneof![
        piece(),
        Just("user".to_owned()),
        Just(" System ".to_owned()),
        Just("  ".to_owned()),
        Just("us".to_owned()),
    ];
    let part =
        prop_oneof![3 => piece().prop_map(|p| (p, false)), 1 => value.prop_map(|v| (v, true))];
    prop::collection::vec(part, 0..40).prop_map(|parts| {
        let mut text = String::new();
        let mut ranges = Vec::new();
        for (part, is_value) in parts {
            if is_value {
                ranges.push(text.len()..text.len() + part.len());
            }
            text.push_str(&part);
        }
        (text, ranges)
    })
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
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
        Just("\u{feff}".to_owned()),
        "[a-z@#`<>!\\-\\[\\]() \t\n.]{0,6}",
        any::<String>().prop_map(|s| s.chars().take(4).collect()),
    ]
}

/// The narrative resolved with an entry for every safe reference name;
/// `None` when an unsafe name (only lmml's rule allows them) stops it.
fn resolve(text: &str, dialect: Dialect) -> Option<ResolvedNarrative> {
    resolve_narrative(Narrative::parse(text, dialect)).unwrap_or_else(|err| panic!("{err}"))
}

/// [`resolve`] for a parsed narrative, which may hold data: `Ok(None)` for
/// an unsafe name, `Err` for any other failure.
fn resolve_narrative(
    narrative: Narrative,
) -> Result<Option<ResolvedNarrative>, narrative_segment::Error> {
    let entries: Vec<(String, Vec<u8>)> = narrative
        .occurrences()
        .filter(|o| o.kind == OccurrenceKind::Reference && !is_unsafe_name(o.name))
        .map(|o| (o.name.to_owned(), o.name.as_bytes().to_vec()))
        .collect();
    match narrative.resolve(&Attachments::from_entries(entries).unwrap()) {
        Ok(resolved) => Ok(Some(resolved)),
        Err(err) if err.kind() == ErrorKind::UnsafeEntry => Ok(None),
        Err(err) => Err(err),
    }
}

/// Random data ranges over a text of up to `len` bytes: any start, any
/// length, unsorted and overlapping (`parse_with_data` normalises them).
fn data_ranges() -> impl Strategy<Value = Vec<(usize, usize)>> {
    prop::collection::vec((0usize..300, 0usize..16), 0..8)
}

/// Filler bytes for data: syntax of every kind, and nothing that trims to a
/// role word or makes a name unsafe.
const FILLER: &[u8] = b"#@`~<!->[]()\n\r \t*_xX9";

fn is_role_word(value: &str) -> bool {
    ["user", "assistant", "system", "tool"]
        .iter()
        .any(|word| word.eq_ignore_ascii_case(value.trim()))
}

/// A turn's role, text span and delimiter line.
type Shape = (TurnRole, Span, Option<Span>);

/// What a narrative's structure is: where its data, occurrences, code,
/// structural problems and turns are (never what names or values hold).
#[derive(Debug, PartialEq)]
struct Structure {
    data: Vec<Span>,
    occurrences: Vec<(Span, OccurrenceKind)>,
    code: Vec<Span>,
    problems: Vec<(&'static str, Option<usize>)>,
    /// Role, span and delimiter of each turn (which embeds it holds depends
    /// on names, which values may write), or where `resolve` stopped at an
    /// invalid role value; `None` when a name from data is unsafe.
    turns: Option<Result<Vec<Shape>, Option<usize>>>,
}

fn structure(text: &str, dialect: Dialect, ranges: &[Range<usize>]) -> Structure {
    let narrative = Narrative::parse_with_data(text, dialect, ranges);
    let problems = narrative
        .validate(&Attachments::none())
        .iter()
        .filter(|p| matches!(p.kind(), ErrorKind::InvalidRoleValue | ErrorKind::UnclosedEmbed))
        .map(|p| (p.kind().as_str(), p.offset()))
        .collect();
    let mut structure = Structure {
        data: narrative.data_ranges().to_vec(),
        occurrences: narrative.occurrences().map(|o| (o.span, o.kind)).collect(),
        code: narrative.code_spans().to_vec(),
        problems,
        turns: None,
    };
    structure.turns = match resolve_narrative(narrative) {
        Ok(None) => None,
        Ok(Some(resolved)) => Some(Ok(resolved
            .segment()
            .into_iter()
            .map(|t| (t.role, t.span, t.delimiter))
            .collect())),
        Err(err) => {
            assert_eq!(err.kind(), ErrorKind::InvalidRoleValue, "{err}");
            Some(Err(err.offset()))
        }
    };
    structure
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
            // A byte order mark the Standard dialect skips is in no turn.
            let skipped = segmented_as == Dialect::Standard && text.starts_with('\u{feff}');
            let mut restored = if skipped { "\u{feff}".to_owned() } else { String::new() };
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
                    let rendered = render(&resolved, &turns, &RenderOptions::default());
                    let messages = lmml::messages(&rendered);
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

    /// Structure is independent of what data holds: replacing every value
    /// that is not a role word by same-length filler made of syntax (`#`,
    /// `@`, backticks, `<!--`, newlines...) changes no turn boundary, no
    /// role, no occurrence, no code span and no structural problem. And no
    /// delimiter, occurrence or code span starts inside data.
    #[test]
    fn structure_is_independent_of_data_content(
        (text, values) in rendered(),
        ranges in data_ranges(),
        filler in prop::collection::vec(prop::sample::select(FILLER), 64),
    ) {
        // The values' ranges, and arbitrary ones on top (anywhere, mid-character too).
        let ranges: Vec<Range<usize>> = ranges
            .into_iter()
            .map(|(start, len)| start..start + len)
            .chain(values)
            .collect();
        for dialect in [Dialect::Standard, Dialect::Lmml] {
            let original = structure(&text, dialect, &ranges);
            let normalised: Vec<Range<usize>> = original.data.iter().map(|span| span.range()).collect();
            let in_data = |at: usize| original.data.iter().any(|span| span.contains(at));
            for (span, kind) in &original.occurrences {
                prop_assert!(!in_data(span.start), "{:?} starts in data", span);
                if let OccurrenceKind::Inline { .. } = kind {
                    prop_assert!((span.end - 3..span.end).all(|at| !in_data(at)), "closer in data");
                }
            }
            for span in &original.code {
                prop_assert!(!in_data(span.start), "code {:?} starts in data", span);
            }
            if let Some(Ok(turns)) = &original.turns {
                for (_, _, delimiter) in turns {
                    prop_assert!(delimiter.is_none_or(|d| !in_data(d.start)));
                }
            }
            let mut filled = text.clone().into_bytes();
            let mut next = filler.iter().cycle();
            for span in &original.data {
                if !is_role_word(&text[span.range()]) {
                    for byte in &mut filled[span.range()] {
                        *byte = *next.next().unwrap();
                    }
                }
            }
            let filled = String::from_utf8(filled).unwrap();
            let after = structure(&filled, dialect, &normalised);
            match (&original.turns, &after.turns) {
                (Some(_), Some(_)) => prop_assert_eq!(&original, &after, "{:?} {:?}", dialect, filled),
                _ => {
                    let strip = |s: &Structure| (s.data.clone(), s.occurrences.clone(), s.code.clone(), s.problems.clone());
                    prop_assert_eq!(strip(&original), strip(&after), "{:?} {:?}", dialect, filled);
                }
            }
            // No data at all: the same as `parse`.
            prop_assert_eq!(
                Narrative::parse_with_data(text.as_str(), dialect, &[]),
                Narrative::parse(text.as_str(), dialect)
            );
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
        let limits = AttachmentLimits::new().with_max_entry_bytes(4096).with_max_total_bytes(8192);
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
