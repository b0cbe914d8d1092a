//! Glob-driven snapshots over `tests/inputs/*.lmml`, each narrative in
//! both dialects: every turn (role, span, delimiter line, text, embeds)
//! and the rendered messages, or the error. Failing inputs are `err_*`.
//! `tests/inputs/data/*.lmml` are rendered narratives: the text between
//! `⟦` and `⟧` is a value (a data range; the brackets are removed).
//!
//! References resolve to made-up content, except names starting with
//! `missing` and unsafe names: images get a PNG signature, other files a
//! line of text.

use std::fmt::Write as _;
use std::ops::Range;

use narrative_segment::{
    Attachments, ContextAs, Dialect, Narrative, OccurrenceKind, RenderOptions, is_unsafe_name, lmml,
};

fn render(text: &str, dialect: Dialect, data: &[Range<usize>]) -> String {
    let narrative = Narrative::parse_with_data(text, dialect, data);
    let entries: Vec<(String, Vec<u8>)> = narrative
        .occurrences()
        .filter(|o| o.kind == OccurrenceKind::Reference && !o.name.starts_with("missing"))
        .filter(|o| !is_unsafe_name(o.name))
        .map(|o| {
            let content = if o.name.ends_with(".png") {
                b"\x89PNG\r\n\x1a\n".to_vec()
            } else {
                format!("contents of {}\n", o.name).into_bytes()
            };
            (o.name.to_owned(), content)
        })
        .collect();
    let mut out = String::new();
    let attachments = match Attachments::from_entries(entries) {
        Ok(attachments) => attachments,
        Err(err) => return format!("error[{}]: {err}\n", err.kind().as_str()),
    };
    let resolved = match narrative.resolve(&attachments) {
        Ok(resolved) => resolved,
        Err(err) => {
            // `Display` is the message alone; the position is shown as the
            // command line shows it, after it.
            let at = match err.position() {
                Some(at) => format!(" at line {}, column {}", at.line, at.column),
                None => String::new(),
            };
            return format!(
                "error[{}]: {err}{at}\n  snippet: {:?}\n",
                err.kind().as_str(),
                err.snippet()
            );
        }
    };
    let turns = resolved.segment();
    for turn in &turns {
        let delimiter = turn.delimiter.map(|span| &text[span.range()]);
        writeln!(out, "{} {}..{} after {:?}", turn.role, turn.span.start, turn.span.end, delimiter)
            .unwrap();
        writeln!(out, "  text: {:?}", turn.text).unwrap();
        writeln!(out, "  embeds: {:?}", turn.embeds).unwrap();
    }
    let options = RenderOptions::new().with_context_as(ContextAs::System);
    let messages = lmml::messages(&narrative_segment::render(&resolved, &turns, &options));
    writeln!(out, "messages (context as system):").unwrap();
    out.push_str(&serde_json::to_string_pretty(&messages).unwrap());
    out.push('\n');
    out
}

/// The text with the `⟦`...`⟧` marks removed, and the ranges they marked.
fn unmark(marked: &str) -> (String, Vec<Range<usize>>) {
    let mut text = String::new();
    let mut ranges = Vec::new();
    let mut start = None;
    for c in marked.chars() {
        match c {
            '⟦' => start = Some(text.len()),
            '⟧' => ranges.push(start.take().expect("`⟧` closes a `⟦`")..text.len()),
            _ => text.push(c),
        }
    }
    (text, ranges)
}

#[test]
fn narratives() {
    insta::glob!("inputs/*.lmml", |path| insta::assert_snapshot!(snapshot(path, false)));
}

#[test]
fn narratives_with_values() {
    insta::glob!("inputs/data/*.lmml", |path| insta::assert_snapshot!(snapshot(path, true)));
}

/// Both dialects' turns and messages (or errors) for the input at `path`.
fn snapshot(path: &std::path::Path, marked: bool) -> String {
    {
        let (text, data) = match std::fs::read_to_string(path).unwrap() {
            text if marked => unmark(&text),
            text => (text, Vec::new()),
        };
        let failing = path.file_name().unwrap().to_string_lossy().starts_with("err_");
        let mut snapshot = String::new();
        for (label, dialect) in [("standard", Dialect::Standard), ("lmml", Dialect::Lmml)] {
            let rendered = render(&text, dialect, &data);
            if !failing {
                assert!(!rendered.starts_with("error["), "{label}: {rendered}");
            }
            writeln!(snapshot, "===== {label}\n{rendered}").unwrap();
        }
        if failing {
            assert!(snapshot.contains("error["), "an err_ input must fail in some dialect");
        }
        snapshot
    }
}
