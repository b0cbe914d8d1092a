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

use serde::{Deserialize, Serialize};
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

/// One row's line, as a batch puts it out (in row order, one per row):
/// the request (the body, or its provider batch envelope) or the row's
/// error record `{"row": i, "error": {...}}`.
///
/// This is what every output of a batch is made of: the command line's
/// files ([`Batch::run`](crate::Batch::run) frames them: JSONL, or
/// Anthropic's one `{"requests": [...]}` document, with the error records
/// apart), and the bindings' iterators
/// ([`Batch::run_lines`](crate::Batch::run_lines) hands them over one by
/// one, unframed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RowLine<'a> {
    /// The row's number in the whole batch (`first_row` counted).
    pub row: usize,
    /// The line's JSON text, without a line ending.
    pub text: &'a [u8],
    /// Whether the line is the row's error record (else its request).
    pub error: bool,
}

/// Where a batch's lines go, one row at a time, in row order.
pub(crate) trait Sink {
    /// Writes what comes before the first row.
    fn start(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Puts one row's line out.
    fn line(&mut self, line: RowLine<'_>) -> io::Result<()>;

    /// Writes what comes after the last row.
    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }

    /// Flushes what is written so far.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// The files written, in order (none when the lines went elsewhere).
    fn files(&mut self) -> Vec<BatchFile> {
        Vec::new()
    }
}

/// A closure taking each line ([`Batch::run_lines`](crate::Batch::run_lines)).
pub(crate) struct Each<F>(pub(crate) F);

impl<F: FnMut(RowLine<'_>) -> io::Result<()>> Sink for Each<F> {
    fn line(&mut self, line: RowLine<'_>) -> io::Result<()> {
        (self.0)(line)
    }
}

/// One batch file written: the requests in it and its size in bytes
/// (for [`Format::Bodies`], its lines: bodies and error records).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchFile {
    /// The requests (lines for [`Format::Bodies`]) it holds.
    pub requests: usize,
    /// Its bytes, the Anthropic document's opening and closing included.
    pub bytes: u64,
}

/// Where a batch's requests go, file after file: each file is opened by
/// `open` (with its index from 0) when the first request that does not
/// fit in the last one comes (the first file at the start, so that there
/// is always one), and holds at most `max_requests` requests and
/// `max_bytes` bytes, unless a single request is larger on its own. With
/// an envelope, the error records go to `errors`; with [`Format::Bodies`],
/// every line goes to the one file.
pub(crate) struct Files<'w, O, F, E: Write> {
    format: Format,
    errors: &'w mut E,
    open: F,
    current: Option<O>,
    max_requests: usize,
    max_bytes: u64,
    /// Every file opened so far, the current one last.
    pub(crate) written: Vec<BatchFile>,
}

impl<'w, O: Write, F: FnMut(usize) -> io::Result<O>, E: Write> Files<'w, O, F, E> {
    /// Files of at most `max_requests` requests and `max_bytes` bytes, the
    /// error records of an envelope format to `errors`.
    pub(crate) fn new(
        format: Format,
        max_requests: usize,
        max_bytes: u64,
        open: F,
        errors: &'w mut E,
    ) -> Files<'w, O, F, E> {
        Files { format, errors, open, current: None, max_requests, max_bytes, written: Vec::new() }
    }

    /// What a file of the format starts and ends with.
    fn frame(&self) -> (&'static [u8], &'static [u8]) {
        match self.format {
            Format::AnthropicBatch => (br#"{"requests":["#, b"\n]}\n"),
            _ => (b"", b""),
        }
    }

    /// Closes the current file, if any, and opens the next.
    fn next(&mut self) -> io::Result<()> {
        self.close()?;
        let (head, tail) = self.frame();
        let mut out = (self.open)(self.written.len())?;
        out.write_all(head)?;
        self.written.push(BatchFile { requests: 0, bytes: (head.len() + tail.len()) as u64 });
        self.current = Some(out);
        Ok(())
    }

    /// Ends the current file, if any.
    fn close(&mut self) -> io::Result<()> {
        let (_, tail) = self.frame();
        if let Some(mut out) = self.current.take() {
            out.write_all(tail)?;
            out.flush()?;
        }
        Ok(())
    }

    /// The current file (opened at the start).
    fn out(&mut self) -> io::Result<&mut O> {
        if self.current.is_none() {
            self.next()?;
        }
        Ok(self.current.as_mut().expect("a file was just opened"))
    }

    /// Writes one request (`line`, without a line ending): a JSONL line,
    /// or for Anthropic the request alone, placed after a `,` when it is
    /// not the file's first. A new file is begun when this one would pass a
    /// limit.
    fn request(&mut self, line: &[u8]) -> io::Result<()> {
        let anthropic = self.format == Format::AnthropicBatch;
        let ending: &[u8] = if anthropic { b"" } else { b"\n" };
        let cost = |file: &BatchFile| {
            let separator: &[u8] = match (anthropic, file.requests) {
                (false, _) => b"",
                (true, 0) => b"\n",
                (true, _) => b",\n",
            };
            (separator, (separator.len() + line.len() + ending.len()) as u64)
        };
        self.out()?;
        let file = self.written.last().copied().unwrap_or_default();
        let (_, bytes) = cost(&file);
        if file.requests > 0
            && (file.requests >= self.max_requests
                || file.bytes.saturating_add(bytes) > self.max_bytes)
        {
            self.next()?;
        }
        let file = self.written.last().copied().unwrap_or_default();
        let (separator, bytes) = cost(&file);
        let out = self.out()?;
        out.write_all(separator)?;
        out.write_all(line)?;
        out.write_all(ending)?;
        if let Some(file) = self.written.last_mut() {
            file.requests += 1;
            file.bytes += bytes;
        }
        Ok(())
    }

    /// Writes a line of [`Format::Bodies`] (a body or an error record;
    /// never split).
    fn body(&mut self, line: &[u8]) -> io::Result<()> {
        let out = self.out()?;
        out.write_all(line)?;
        out.write_all(b"\n")?;
        if let Some(file) = self.written.last_mut() {
            file.requests += 1;
            file.bytes += line.len() as u64 + 1;
        }
        Ok(())
    }
}

impl<O: Write, F: FnMut(usize) -> io::Result<O>, E: Write> Sink for Files<'_, O, F, E> {
    /// Opens the first file, so that there is always one.
    fn start(&mut self) -> io::Result<()> {
        self.out().map(|_| ())
    }

    fn line(&mut self, line: RowLine<'_>) -> io::Result<()> {
        if !self.format.is_envelope() {
            return self.body(line.text);
        }
        if line.error {
            self.errors.write_all(line.text)?;
            return self.errors.write_all(b"\n");
        }
        self.request(line.text)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.close()?;
        self.errors.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(out) = &mut self.current {
            out.flush()?;
        }
        self.errors.flush()
    }

    fn files(&mut self) -> Vec<BatchFile> {
        std::mem::take(&mut self.written)
    }
}

/// Puts finished lines out in row order into a [`Sink`], after refusing
/// (with a `duplicate_id` record) a request whose id an earlier row has.
pub(crate) struct Writer<S: Sink> {
    sink: S,
    /// The row of every id seen so far (only with ids from the rows): the
    /// one thing that grows with the number of rows.
    seen: Option<HashMap<Box<str>, usize>>,
}

impl<S: Sink> Writer<S> {
    /// A writer; `ids_from_rows` says whether ids can repeat (ids of the
    /// form `row-<n>` cannot).
    pub(crate) fn new(format: Format, ids_from_rows: bool, sink: S) -> Writer<S> {
        let seen = (format.is_envelope() && ids_from_rows).then(HashMap::new);
        Writer { sink, seen }
    }

    /// Writes what comes before the first row.
    pub(crate) fn start(&mut self) -> io::Result<()> {
        self.sink.start()
    }

    /// Writes what comes after the last row, and flushes.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.sink.finish()
    }

    /// The files written, in order (taken: a second call gives none).
    pub(crate) fn files(&mut self) -> Vec<BatchFile> {
        self.sink.files()
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }

    /// Writes the lines of consecutive rows from `first` (`bytes`, one line
    /// each, ending in a newline, as `entries` says) and returns how many
    /// rows it refused for a repeated id.
    pub(crate) fn write(
        &mut self,
        first: usize,
        bytes: &[u8],
        entries: &[Entry],
    ) -> io::Result<usize> {
        let mut refused = 0;
        let mut start = 0;
        for (i, entry) in entries.iter().enumerate() {
            let line = &bytes[start..entry.end];
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            start = entry.end;
            let row = first + i;
            if let Some(record) = self.repeated(row, entry) {
                refused += usize::from(entry.built);
                self.sink.line(RowLine { row, text: &record, error: true })?;
            } else {
                self.sink.line(RowLine { row, text: line, error: !entry.built })?;
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
