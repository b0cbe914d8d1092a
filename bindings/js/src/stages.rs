//! The stage crates one call each: `flip` (transcript-flip), `segment`
//! (narrative-segment) and `comments` (prompt-comments).

use prompt_core::diagnostic::Diagnostic;
use prompt_suite::segment::{
    Attachments, Narrative, RenderOptions, SegmentOptions, lmml, render, segment as split,
};
use prompt_suite::{comments as prompt_comments, flip as transcript_flip, segment as narrative};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::convert;
use crate::error::{Failure, Result, invalid};

/// A result and the warnings the stage gave, as `{kind, message}`.
#[derive(Serialize)]
struct WithNotices<T: Serialize> {
    body: T,
    notices: Vec<NoticeJs>,
}

#[derive(Serialize)]
struct NoticeJs {
    kind: &'static str,
    message: String,
}

fn notices<'a, D: Diagnostic + std::fmt::Display + 'a>(
    warnings: impl IntoIterator<Item = &'a D>,
) -> Vec<NoticeJs> {
    warnings.into_iter().map(|w| NoticeJs { kind: w.kind(), message: w.to_string() }).collect()
}

/// `flip`'s options.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FlipArgs {
    /// The caller's JSON text, or a value the package wrote.
    transcript: TranscriptArg,
    speaker: Value,
    system: Option<String>,
    instruction: Option<String>,
    #[serde(default)]
    dialect: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TranscriptArg {
    Text { text: String },
    Value { value: Value },
}

/// One speaker's view of a transcript (the JSON of `{transcript, speaker,
/// system?, instruction?, dialect?}`); the JSON of `{body, notices}`
/// where the body is the messages.
#[wasm_bindgen]
pub fn flip(args: &str) -> Result<String> {
    let args: FlipArgs = convert::read(args)?;
    let dialect = match args.dialect.as_deref().unwrap_or("standard") {
        "standard" => transcript_flip::Dialect::Standard,
        "llmr" => transcript_flip::Dialect::Llmr,
        other => {
            return Err(invalid(format!(
                "dialect must be \"standard\" or \"llmr\", not {other:?}"
            )));
        }
    };
    let mut options = transcript_flip::FlipOptions::new().with_dialect(dialect);
    if let Some(system) = args.system {
        options = options.with_system(system);
    }
    if let Some(instruction) = args.instruction {
        options = options.with_instruction(instruction);
    }
    let (text, made) = match args.transcript {
        TranscriptArg::Text { text } => (text, false),
        TranscriptArg::Value { value } => (value.to_string(), true),
    };
    let flipped = transcript_flip::flip_json_with_warnings(&text, &args.speaker, &options)
        .map_err(|err| {
            let annotated = err.annotated();
            Failure::from(if made { annotated.unplaced() } else { annotated })
        })?;
    convert::write(&WithNotices { notices: notices(&flipped.warnings), body: flipped.messages })
}

fn segment_dialect(name: Option<&str>) -> Result<narrative::Dialect> {
    match name.unwrap_or("standard") {
        "standard" => Ok(narrative::Dialect::Standard),
        "lmml" => Ok(narrative::Dialect::Lmml),
        other => Err(invalid(format!("dialect must be \"standard\" or \"lmml\", not {other:?}"))),
    }
}

/// A Markdown narrative split into chat messages (lmml's message shape);
/// `@@@` embeds resolve in the attachments: `names` (a JSON array) whose
/// bytes are consecutive pieces of `bytes`. The JSON of `{body, notices}`.
#[wasm_bindgen]
pub fn segment(
    text: &str,
    dialect: Option<String>,
    names: &str,
    bytes: &[u8],
    lengths: &[u32],
) -> Result<String> {
    let dialect = segment_dialect(dialect.as_deref())?;
    let entries = entries(names, bytes, lengths)?;
    let attachments = if entries.is_empty() {
        Attachments::none()
    } else {
        Attachments::from_entries(entries).map_err(|err| Failure::from(err.annotated()))?
    };
    let resolved = Narrative::parse(text, dialect)
        .resolve(&attachments)
        .map_err(|err| Failure::from(err.annotated()))?;
    let turns = split(&resolved, &SegmentOptions::new(dialect));
    let rendered = render(&resolved, &turns, &RenderOptions::new());
    let all = notices(resolved.warnings().iter().chain(&rendered.warnings));
    convert::write(&WithNotices { body: lmml::messages(&rendered), notices: all })
}

/// Named byte arrays: `names[i]` (`names` is a JSON array) holds the next
/// `lengths[i]` bytes of `bytes`.
pub(crate) fn entries(
    names: &str,
    bytes: &[u8],
    lengths: &[u32],
) -> Result<Vec<(String, Vec<u8>)>> {
    let names: Vec<String> = convert::read(names)?;
    if names.len() != lengths.len() {
        return Err(invalid("attachments: as many names as byte arrays are needed"));
    }
    let mut entries = Vec::with_capacity(names.len());
    let mut at = 0usize;
    for (name, length) in names.into_iter().zip(lengths) {
        let end = at.saturating_add(*length as usize);
        let Some(piece) = bytes.get(at..end) else {
            return Err(invalid("attachments: the byte arrays are shorter than their lengths"));
        };
        entries.push((name, piece.to_vec()));
        at = end;
    }
    Ok(entries)
}

/// Removes `///` authoring comments and collects their metadata; the JSON
/// of `{body: {cleaned, params, metadata, flow, node, tags}, notices}`.
#[wasm_bindgen]
pub fn comments(text: &str, dialect: Option<String>) -> Result<String> {
    let dialect = match dialect.as_deref().unwrap_or("standard") {
        "standard" => prompt_comments::Dialect::Standard,
        "llmutils" => prompt_comments::Dialect::Llmutils,
        other => {
            return Err(invalid(format!(
                "dialect must be \"standard\" or \"llmutils\", not {other:?}"
            )));
        }
    };
    let processed = dialect.process(text);
    convert::write(&WithNotices { notices: notices(&processed.warnings), body: &processed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_gives_the_speakers_view() {
        let args = r#"{"transcript": {"value": [{"speaker": "ann", "text": "Hi"}, {"speaker": "ben", "text": "Yo"}]}, "speaker": "ben"}"#;
        let out = flip(args).unwrap();
        assert!(out.contains(r#""role":"assistant","content":"Yo""#), "{out}");
    }

    #[test]
    fn segment_resolves_embeds_from_bytes() {
        let out = segment("## user\nRead @@@a.txt", None, r#"["a.txt"]"#, b"DOC", &[3]).unwrap();
        assert!(out.contains("DOC"), "{out}");
        let err =
            segment("## user\nRead @@@b.txt", None, r#"["a.txt"]"#, b"DOC", &[3]).unwrap_err();
        assert_eq!(err.kind(), "missing_entry");
    }

    #[test]
    fn comments_are_stripped_with_their_params() {
        let out = comments("/// param: model=m\nHello", None).unwrap();
        assert!(out.contains(r#""cleaned":"Hello"#) && out.contains(r#""model":"m""#), "{out}");
    }
}
