//! The files the providers' batch APIs take: what a [`Batch`](crate::Batch)
//! writes around each body ([`Format`]), the id of each request and its
//! rules, and the writer that puts rows out in order, checks that no id is
//! used twice and keeps error records out of an upload file.
//!
//! Sources (see docs/providers-sources.md): OpenAI `BatchRequestInput`
//! (openai-openapi `openapi.yaml` at 498c71dd) `{custom_id, method: "POST",
//! url, body}`, one endpoint per batch; Anthropic `POST /v1/messages/batches`
//! (anthropic-sdk-python 0.121.0, `messages/batch_create_params.py`)
//! `{"requests": [{custom_id, params}]}`, `custom_id` 1 to 64 of
//! `[A-Za-z0-9_-]` (anthropics/anthropic-sdk-python#984); Gemini batch input
//! file (ai.google.dev/gemini-api/docs/batch-api, "Input file") JSONL
//! `{key, request}`, the model the batch's.

use std::collections::HashMap;
use std::io::{self, Write};

use serde_json::json;

use crate::provider::Provider;

/// What a batch writes for each row that built.
///
/// ```
/// use prompt_pipeline::{Format, Provider};
///
/// assert!(Format::AnthropicBatch.accepts(Provider::Anthropic));
/// assert!(Format::OpenAiBatch.accepts(Provider::OpenAiResponses));
/// assert!(!Format::OpenAiBatch.accepts(Provider::Gemini));
/// assert!(Format::Bodies.accepts(Provider::Gemini));
/// assert!(Format::GeminiBatch.valid_id("any text, even spaces").is_ok());
/// assert!(Format::AnthropicBatch.valid_id("no spaces").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// The request body alone, one per line, and each failing row's error
    /// record on its line: exactly one line per row.
    #[default]
    Bodies,
    /// OpenAI's batch input file: JSONL `{"custom_id", "method": "POST",
    /// "url", "body"}`, for chat completions, Responses and completions
    /// bodies (`url` the endpoint: `/v1/completions` for completions, an
    /// endpoint OpenAI's batches take).
    OpenAiBatch,
    /// The one JSON document `POST /v1/messages/batches` takes:
    /// `{"requests": [{"custom_id", "params"}, ...]}`, one request per line.
    AnthropicBatch,
    /// Gemini's batch input file: JSONL `{"key", "request"}`.
    GeminiBatch,
}

/// The most characters of an Anthropic `custom_id` (the API answers "String
/// should have at most 64 characters" past it).
const MAX_ANTHROPIC_ID: usize = 64;

impl Format {
    /// The most bytes of an OpenAI `custom_id` or a Gemini `key`. Neither API
    /// publishes a rule; the bound keeps what the duplicate check remembers
    /// per row small.
    pub const MAX_ID_BYTES: usize = 1024;

    /// The most requests one batch file of this format may hold, as the
    /// provider documents it: OpenAI 50 000 ("up to 50,000 requests",
    /// platform.openai.com/docs/guides/batch), Anthropic 100 000 ("up to
    /// 100,000 Message requests", docs.anthropic.com batch processing);
    /// `None` for Gemini (no documented count) and for bare bodies.
    pub fn max_requests(self) -> Option<usize> {
        match self {
            Format::OpenAiBatch => Some(50_000),
            Format::AnthropicBatch => Some(100_000),
            Format::GeminiBatch | Format::Bodies => None,
        }
    }

    /// The most bytes one batch file of this format may hold, as the
    /// provider documents it: OpenAI 200 MB ("an input file can be up to
    /// 200 MB"), Anthropic 256 MB ("or 256 MB in size, whichever is reached
    /// first"), Gemini 2 GB ("the input file size limit is 2GB",
    /// ai.google.dev/gemini-api/docs/batch-api); `None` for bare bodies.
    /// A megabyte is 1 000 000 bytes here (the stricter reading of the
    /// providers' MB is 10^6, below 2^20).
    pub fn max_bytes(self) -> Option<u64> {
        match self {
            Format::OpenAiBatch => Some(200_000_000),
            Format::AnthropicBatch => Some(256_000_000),
            Format::GeminiBatch => Some(2_000_000_000),
            Format::Bodies => None,
        }
    }

    /// The format's name as the command line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Bodies => "bodies",
            Format::OpenAiBatch => "openai-batch",
            Format::AnthropicBatch => "anthropic-batch",
            Format::GeminiBatch => "gemini-batch",
        }
    }

    /// Whether the format wraps the bodies in an envelope (every format but
    /// [`Format::Bodies`]): then each request has an id, and error records
    /// go apart from the output.
    pub fn is_envelope(self) -> bool {
        self != Format::Bodies
    }

    /// Whether the format can carry `provider`'s bodies.
    pub fn accepts(self, provider: Provider) -> bool {
        match self {
            Format::Bodies => true,
            Format::OpenAiBatch => matches!(
                provider,
                Provider::OpenAi | Provider::OpenAiResponses | Provider::Completions
            ),
            Format::AnthropicBatch => provider == Provider::Anthropic,
            Format::GeminiBatch => provider == Provider::Gemini,
        }
    }

    /// Checks `id` against the API's rules: an Anthropic `custom_id` is 1 to
    /// 64 letters, digits, `-` or `_`; an OpenAI `custom_id` or a Gemini
    /// `key` is any non-empty string of at most [`Format::MAX_ID_BYTES`] bytes.
    ///
    /// # Errors
    ///
    /// What is wrong with the id, as a sentence.
    pub fn valid_id(self, id: &str) -> Result<(), String> {
        if id.is_empty() {
            return Err("the id is empty".to_owned());
        }
        if self == Format::AnthropicBatch {
            if let Some(bad) =
                id.chars().find(|c| !(c.is_ascii_alphanumeric() || "-_".contains(*c)))
            {
                return Err(format!(
                    "an Anthropic custom_id holds only letters, digits, `-` and `_`, not {bad:?}"
                ));
            }
            if id.len() > MAX_ANTHROPIC_ID {
                return Err(format!(
                    "an Anthropic custom_id has at most {MAX_ANTHROPIC_ID} characters, not {}",
                    id.len()
                ));
            }
        } else if id.len() > Format::MAX_ID_BYTES {
            return Err(format!(
                "an id has at most {} bytes, not {}",
                Format::MAX_ID_BYTES,
                id.len()
            ));
        }
        Ok(())
    }

    /// Appends the envelope of one request to `out`: everything before the
    /// body (`provider` chooses OpenAI's endpoint). `id` is the request's
    /// id, already valid.
    pub(crate) fn open(self, provider: Provider, id: &str, out: &mut Vec<u8>) {
        let (before, after) = match self {
            Format::Bodies => return,
            Format::OpenAiBatch => (r#"{"custom_id":"#, r#","method":"POST","url":"#),
            Format::AnthropicBatch => (r#"{"custom_id":"#, ""),
            Format::GeminiBatch => (r#"{"key":"#, ""),
        };
        out.extend_from_slice(before.as_bytes());
        // A string always encodes.
        let _ = serde_json::to_writer(&mut *out, id);
        out.extend_from_slice(after.as_bytes());
        match self {
            Format::OpenAiBatch => {
                let _ = serde_json::to_writer(&mut *out, &openai_url(provider));
                out.extend_from_slice(br#","body":"#);
            }
            Format::AnthropicBatch => out.extend_from_slice(br#","params":"#),
            Format::GeminiBatch => out.extend_from_slice(br#","request":"#),
            Format::Bodies => {}
        }
    }

    /// Closes what [`Format::open`] opened.
    pub(crate) fn close(self, out: &mut Vec<u8>) {
        if self.is_envelope() {
            out.push(b'}');
        }
    }
}

/// The OpenAI batch `url` (the batch's one endpoint) for `provider`; only
/// OpenAI-shaped bodies are in an OpenAI batch (`Format::accepts`).
fn openai_url(provider: Provider) -> std::borrow::Cow<'static, str> {
    provider.path(None).unwrap_or_default()
}

/// How one row came out, for the writer: where its line ends in the
/// piece's bytes, whether it built, and its id (when it has a valid one)
/// with the column of the id in the row.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) end: usize,
    pub(crate) built: bool,
    pub(crate) id: Option<(Box<str>, usize)>,
}

impl Entry {
    /// What the entry costs besides its line.
    pub(crate) fn size(&self) -> usize {
        std::mem::size_of::<Entry>() + self.id.as_ref().map_or(0, |(id, _)| id.len())
    }
}

/// Puts finished lines out in row order: every line to `out` for
/// [`Format::Bodies`]; with an envelope, the requests to `out` (inside the
/// `{"requests": [...]}` document for Anthropic) and the error records to
/// `errors`, after refusing a request whose id an earlier row has.
pub(crate) struct Writer<'w, O: Write, E: Write> {
    pub(crate) format: Format,
    out: &'w mut O,
    errors: &'w mut E,
    /// The row of every id seen so far (only with ids from the rows): the
    /// one thing that grows with the number of rows.
    seen: Option<HashMap<Box<str>, usize>>,
    /// Requests written so far (for Anthropic's commas).
    written: usize,
}

impl<'w, O: Write, E: Write> Writer<'w, O, E> {
    /// A writer; `ids_from_rows` says whether ids can repeat (ids of the
    /// form `row-<n>` cannot).
    pub(crate) fn new(
        format: Format,
        ids_from_rows: bool,
        out: &'w mut O,
        errors: &'w mut E,
    ) -> Writer<'w, O, E> {
        let seen = (format.is_envelope() && ids_from_rows).then(HashMap::new);
        Writer { format, out, errors, seen, written: 0 }
    }

    /// Writes what comes before the first row.
    pub(crate) fn start(&mut self) -> io::Result<()> {
        match self.format {
            Format::AnthropicBatch => self.out.write_all(br#"{"requests":["#),
            _ => Ok(()),
        }
    }

    /// Writes what comes after the last row, and flushes both outputs.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if self.format == Format::AnthropicBatch {
            self.out.write_all(b"\n]}\n")?;
        }
        self.flush()
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.errors.flush()
    }

    /// Writes the lines of consecutive rows from `first` (`bytes`, one line
    /// each as `entries` says; `entries` is empty for [`Format::Bodies`]) and
    /// returns how many rows it refused for a repeated id.
    pub(crate) fn write(
        &mut self,
        first: usize,
        bytes: &[u8],
        entries: &[Entry],
    ) -> io::Result<usize> {
        if !self.format.is_envelope() {
            self.out.write_all(bytes)?;
            return Ok(0);
        }
        let mut refused = 0;
        let mut start = 0;
        for (i, entry) in entries.iter().enumerate() {
            let line = &bytes[start..entry.end];
            start = entry.end;
            if let Some(record) = self.repeated(first + i, entry) {
                refused += usize::from(entry.built);
                self.errors.write_all(&record)?;
                self.errors.write_all(b"\n")?;
            } else if !entry.built {
                self.errors.write_all(line)?;
            } else if self.format == Format::AnthropicBatch {
                let line = line.strip_suffix(b"\n").unwrap_or(line);
                self.out.write_all(if self.written == 0 { b"\n" } else { b",\n" })?;
                self.out.write_all(line)?;
                self.written += 1;
            } else {
                self.out.write_all(line)?;
                self.written += 1;
            }
        }
        Ok(refused)
    }

    /// The `duplicate_id` record of row `row` when an earlier row has its id;
    /// otherwise the id is remembered.
    fn repeated(&mut self, row: usize, entry: &Entry) -> Option<Vec<u8>> {
        let (seen, Some((id, column))) = (self.seen.as_mut()?, &entry.id) else { return None };
        if let Some(&earlier) = seen.get(id) {
            let message = format!(
                "the id {} is row {earlier}'s already: ids must be unique in a batch",
                serde_json::Value::from(&**id)
            );
            let snippet = serde_json::Value::from(&**id).to_string();
            let place = Place::row(row, Some(*column), Some(&snippet));
            return Some(record(row, "duplicate_id", &message, Some(place)));
        }
        seen.insert(id.clone(), row);
        None
    }
}

/// Where the error of a record is: `line` and `column` (1-based, in
/// characters) are always in the text `origin` names: `rows` (the rows
/// file: line `i + 1` for row `i`), `prompt` (the prompt file, comments
/// included), `rendered` (the row's rendered narrative), `transcript`, or
/// the name of a template the prompt loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place<'a> {
    pub(crate) origin: &'a str,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
    pub(crate) snippet: Option<&'a str>,
}

impl<'a> Place<'a> {
    /// In row `row` of the rows file (its line `row + 1`).
    pub(crate) fn row(row: usize, column: Option<usize>, snippet: Option<&'a str>) -> Place<'a> {
        Place { origin: "rows", line: Some(row + 1), column, snippet }
    }
}

/// `{"row": i, "error": {"kind", "message", "line", "column", "snippet",
/// "origin"}}`, the error in the command line's shape and the text its
/// line is in (`origin` is `null`, as `line`, for an error with no place).
pub(crate) fn record(row: usize, kind: &str, message: &str, place: Option<Place<'_>>) -> Vec<u8> {
    let record = json!({"row": row, "error": {
        "kind": kind,
        "message": message,
        "line": place.and_then(|p| p.line),
        "column": place.and_then(|p| p.column),
        "snippet": place.and_then(|p| p.snippet),
        "origin": place.map(|p| p.origin),
    }});
    serde_json::to_vec(&record).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_ids_follow_the_api() {
        let format = Format::AnthropicBatch;
        assert!(format.valid_id("req_1-A").is_ok());
        assert!(format.valid_id(&"a".repeat(64)).is_ok());
        assert!(format.valid_id(&"a".repeat(65)).unwrap_err().contains("at most 64"));
        assert!(format.valid_id("a.b").unwrap_err().contains("'.'"));
        assert!(format.valid_id("é").is_err());
        assert!(format.valid_id("").is_err());
    }

    #[test]
    fn openai_and_gemini_ids_are_any_bounded_text() {
        for format in [Format::OpenAiBatch, Format::GeminiBatch] {
            assert!(format.valid_id("a b/é\"\n").is_ok());
            assert!(format.valid_id(&"é".repeat(Format::MAX_ID_BYTES / 2)).is_ok());
            assert!(format.valid_id(&"x".repeat(Format::MAX_ID_BYTES + 1)).is_err());
            assert!(format.valid_id("").is_err());
        }
    }

    #[test]
    fn envelopes_open_and_close() {
        let mut out = Vec::new();
        Format::OpenAiBatch.open(Provider::OpenAi, "a\"b", &mut out);
        out.extend_from_slice(b"{}");
        Format::OpenAiBatch.close(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"custom_id":"a\"b","method":"POST","url":"/v1/chat/completions","body":{}}"#
        );
        let mut out = Vec::new();
        Format::OpenAiBatch.open(Provider::OpenAiResponses, "r", &mut out);
        assert!(String::from_utf8_lossy(&out).contains(r#""url":"/v1/responses","body":"#));
        let mut out = Vec::new();
        Format::GeminiBatch.open(Provider::Gemini, "k", &mut out);
        out.extend_from_slice(b"{}");
        Format::GeminiBatch.close(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"key":"k","request":{}}"#);
    }
}
