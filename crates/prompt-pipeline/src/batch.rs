//! Many requests from one prompt: one template context per JSONL row, built
//! on several threads, written in input order, with memory flat in the
//! number of rows and in the rows' sizes.
//!
//! Rows are read in chunks of at most [`Batch::CHUNK_BYTES`] (64 MiB) of
//! rows and 16 384 rows, whatever the number of threads; a row longer than the
//! row limit is never read into memory. The rows of a chunk are taken in
//! order, a few hundred at a time, by scoped threads sharing the
//! [`Compiled`] prompt, and the calling thread writes each finished line as
//! soon as the lines before it are written. Finished lines waiting for an earlier one hold at most about as
//! many bytes again: past that, no thread starts a new row until the writer
//! has caught up. So a batch holds at most one chunk of rows, that many
//! bytes of lines, and one row in progress per thread.
//!
//! A row that fails for any reason, a panic included, is an error record
//! on its line; every other row still comes out. With an envelope
//! ([`Format`], `envelope.rs`) each request carries an id and the error
//! records go to their own writer.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufRead, Read, Write};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use prompt_core::json::{self, JsonError};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::Context;
use crate::compiled::{Arranged, Built, Compiled};
use crate::envelope::{
    BatchFile, Each, Entry, Files, Format, Place, RowLine, Sink, Writer, record,
};
use crate::provider::Notice;
use crate::source::Transcript;
use minijinja_brackets::Scope;

/// The most rows in one chunk: enough that starting the threads costs
/// nothing next to the work, few enough that the per-row bookkeeping stays
/// small.
const CHUNK_ROWS: usize = 16 * 1024;

/// The default limit of one row: 16 MiB.
const MAX_ROW_BYTES: usize = 16 << 20;

/// What a waiting piece costs besides its bytes (its allocation and slot).
const LINE_OVERHEAD: usize = 64;

/// A batch run: a compiled prompt, the seed of row 0 (row `i` uses
/// `seed + i`, wrapping), the number of threads, and what is written for
/// each row ([`Format`]).
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    compiled: &'a Compiled,
    /// Each row's line is its arranged messages instead of a request body.
    messages: bool,
    /// Each row's line is everything the build produced ([`Full`](crate::Full)).
    full: bool,
    /// Flipped after each row's messages, as [`Compiled::build_with_transcript`] does.
    transcript: Option<&'a Transcript>,
    format: Format,
    /// The rows' top-level key that holds each request's id.
    id_field: Option<&'a str>,
    /// The stores laid under each row's and over it ([`Batch::context`]).
    under: Option<&'a Context>,
    over: Option<&'a Context>,
    seed: u64,
    /// The number of the first row ([`Batch::first_row`]).
    first_row: usize,
    jobs: usize,
    max_row_bytes: usize,
    chunk_bytes: usize,
    max_notices: usize,
}

/// How a batch went.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Rows read.
    pub rows: usize,
    /// Rows whose line is an error record.
    pub failed: usize,
    /// The bytes of input those rows took, line endings (and the skipped
    /// rest of a row too large) included: with the input's size, how far
    /// the batch has come.
    pub bytes: u64,
    /// The rows' own notices (an undefined `[[name]]`, an unresolved
    /// `@handle`, an embed typed by its bytes, what the provider's body
    /// cannot carry): each distinct one (same kind, same message) once for
    /// the whole batch, with the first row that gave it, in row order,
    /// whatever the number of threads. At most [`Batch::max_notices`] are
    /// kept. (The prompt's own notices, the same for every row, are
    /// [`Prompt::notices`](crate::Prompt::notices); those of the templates
    /// it included, [`Compiled::include_notices`].)
    pub notices: Vec<RowNotice>,
    /// The rows' notices past the cap that are not among those kept
    /// ([`Summary::notices`]): they were not remembered, so repeats among
    /// them are counted each time.
    pub more_notices: u64,
    /// The files written, in order: one for [`Batch::run`], as many as
    /// the limits needed for [`Batch::run_split`] (each a complete file of
    /// the format, the Anthropic document included), none for
    /// [`Batch::run_lines`] (its caller puts the lines where it wants).
    #[serde(default)]
    pub files: Vec<BatchFile>,
}

/// A notice of a batch's rows, with the first row (0-based, as in error
/// records) that gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowNotice {
    /// The row.
    pub row: usize,
    /// What it noticed.
    pub notice: Notice,
}

/// The distinct notices of some rows, in row order, each with how many
/// times the rows gave it: a thread's piece keeps them all (its rows are
/// few), the batch at most `cap`. Merging a piece's into the batch's gives
/// what the rows one by one would, so the result does not depend on how
/// the rows were cut.
#[derive(Debug)]
struct Notices {
    /// The kind and message of each kept notice, with its index in `kept`.
    seen: HashMap<(&'static str, String), usize>,
    kept: Vec<(RowNotice, u64)>,
    cap: usize,
    /// Occurrences past the cap, of notices not kept.
    more: u64,
    /// The bytes of the kept messages (each is held twice: key and notice).
    bytes: usize,
}

impl Default for Notices {
    fn default() -> Notices {
        Notices::new(usize::MAX)
    }
}

impl Notices {
    fn new(cap: usize) -> Notices {
        Notices { seen: HashMap::new(), kept: Vec::new(), cap, more: 0, bytes: 0 }
    }

    /// Adds `count` occurrences of `notice`, the first at `row`. The
    /// included templates' notices are said once, apart
    /// ([`Compiled::include_notices`]).
    fn add(&mut self, row: usize, notice: &Notice, count: u64) {
        if matches!(notice, Notice::IgnoredDirective { .. }) {
            return;
        }
        let key = (notice.as_str(), notice.message());
        if let Some(&at) = self.seen.get(&key) {
            self.kept[at].1 += count;
        } else if self.kept.len() >= self.cap {
            self.more += count;
        } else {
            self.bytes += 2 * key.1.len();
            self.seen.insert(key, self.kept.len());
            self.kept.push((RowNotice { row, notice: notice.clone() }, count));
        }
    }

    /// Adds what `piece` kept, in its order.
    fn merge(&mut self, piece: &Notices) {
        self.more += piece.more;
        for (notice, count) in &piece.kept {
            self.add(notice.row, &notice.notice, *count);
        }
    }

    /// Adds the notices row `row` gave: `notices` without its first
    /// `prompt`, the prompt's own (the same for every row, said once).
    fn row(&mut self, row: usize, notices: &[Notice], prompt: usize) {
        for notice in notices.get(prompt..).unwrap_or_default() {
            self.add(row, notice, 1);
        }
    }

    /// What the lines hold, for the budget of lines waiting.
    fn size(&self) -> usize {
        self.kept.len() * LINE_OVERHEAD + self.bytes
    }
}

/// One row of a chunk: its bytes in the chunk's buffer (without the line
/// ending), or a row over the limit, which was skipped unread.
#[derive(Debug, Clone)]
enum Row {
    Line(Range<usize>),
    TooLarge,
}

/// Rows read from the input, in one buffer.
#[derive(Debug, Default)]
struct Chunk {
    bytes: Vec<u8>,
    rows: Vec<Row>,
    /// Where each row ends in the input (from the start of the batch).
    ends: Vec<u64>,
}

/// A row read for the next chunk, and where it ends in the input.
type Carry = Option<(Vec<u8>, u64)>;

impl Chunk {
    fn row(&self, index: usize) -> Option<&[u8]> {
        match &self.rows[index] {
            Row::Line(range) => Some(&self.bytes[range.clone()]),
            Row::TooLarge => None,
        }
    }
}

impl<'a> Batch<'a> {
    /// The most bytes of rows one chunk holds by default, and the most bytes
    /// of finished lines that may wait for an earlier row: 64 MiB each.
    pub const CHUNK_BYTES: usize = 64 << 20;

    /// The most distinct row notices a batch keeps by default: 1 000.
    pub const MAX_NOTICES: usize = 1000;

    /// A batch of `compiled` with `seed` for row 0, on `jobs` threads (at
    /// least one). Without the `threads` feature (wasm) a batch always runs
    /// on the calling thread: `jobs` is taken as 1.
    pub fn new(compiled: &'a Compiled, seed: u64, jobs: usize) -> Batch<'a> {
        Batch {
            compiled,
            messages: false,
            full: false,
            transcript: None,
            format: Format::Bodies,
            id_field: None,
            under: None,
            over: None,
            seed,
            jobs: if cfg!(feature = "threads") { jobs.max(1) } else { 1 },
            max_row_bytes: MAX_ROW_BYTES,
            chunk_bytes: Batch::CHUNK_BYTES,
            max_notices: Batch::MAX_NOTICES,
            first_row: 0,
        }
    }

    /// The same batch with rows limited to `max_row_bytes` (16 MiB by
    /// default); a longer row is not read into memory but skipped, and its
    /// line is a `row_too_large` error record.
    pub fn max_row_bytes(mut self, max_row_bytes: usize) -> Batch<'a> {
        self.max_row_bytes = max_row_bytes;
        self
    }

    /// The same batch without the provider stage: each row's line is its
    /// arranged messages ([`Compiled::arrange`]) instead of a request body.
    pub fn messages(mut self, messages: bool) -> Batch<'a> {
        self.messages = messages;
        self
    }

    /// The same batch writing, for each row, everything its build produced
    /// ([`Full`](crate::Full), `build --full`'s object) instead of the body alone (with
    /// [`Format::Bodies`] only).
    pub fn full(mut self, full: bool) -> Batch<'a> {
        self.full = full;
        self
    }

    /// The same batch appending `transcript` (flipped for its speaker) after
    /// each row's messages ([`Compiled::build_with_transcript`]).
    pub fn transcript(mut self, transcript: Option<&'a Transcript>) -> Batch<'a> {
        self.transcript = transcript;
        self
    }

    /// The same batch writing `format`: bare bodies ([`Format::Bodies`], the
    /// default) or a provider's batch file, each request with its id.
    pub fn format(mut self, format: Format) -> Batch<'a> {
        self.format = format;
        self
    }

    /// The same batch taking each request's id from the rows' top-level key
    /// `id_field` (with an envelope format only), taken out of the row
    /// before the rest is read as its context (either shape of
    /// [`Context`]). Without it, row `i`'s id is `row-i`.
    /// A row without the key, with a value that is not a string, or with an
    /// id the API refuses ([`Format::valid_id`]) is a `missing_id` or
    /// `invalid_id` record; a row whose id an earlier row has is a
    /// `duplicate_id` record. Each id is remembered for that check: the only
    /// memory that grows with the number of rows (at most
    /// [`Format::MAX_ID_BYTES`] and a few words per row).
    pub fn id_field(mut self, id_field: Option<&'a str>) -> Batch<'a> {
        self.id_field = id_field;
        self
    }

    /// The same batch giving each row the variables of `under` it does not
    /// set itself, and those of `over` whatever it sets: store by store,
    /// variable by variable (a row's `state.user` replaces the whole
    /// `state.user` of `under`, and `over`'s replaces the row's). The
    /// command line's `--context` is `under`, its `-D` definitions `over`.
    /// Empty stores cost nothing; others are copied for each row.
    pub fn context(mut self, under: &'a Context, over: &'a Context) -> Batch<'a> {
        let empty = |context: &Context| {
            context.state.is_empty() && context.local.is_empty() && context.global.is_empty()
        };
        self.under = (!empty(under)).then_some(under);
        self.over = (!empty(over)).then_some(over);
        self
    }

    /// The same batch keeping at most `max_notices` distinct notices of its
    /// rows ([`Batch::MAX_NOTICES`] by default): past them, a batch whose
    /// every row notices something new (a distinct `@handle` each) only
    /// counts them ([`Summary::more_notices`]), so its memory stays flat.
    pub fn max_notices(mut self, max_notices: usize) -> Batch<'a> {
        self.max_notices = max_notices;
        self
    }

    /// The same batch numbering its rows from `first_row` (0 by default):
    /// the rows read are rows `first_row`, `first_row + 1`, ... of a larger
    /// batch, so each gets that batch's seed (`seed + first_row + i`), id
    /// (`row-<first_row + i>`) and record (`row`, and its line in the rows
    /// file). A shard of a batch run on its own (one per worker of a
    /// distributed engine) writes exactly the lines the whole batch writes
    /// for those rows.
    pub fn first_row(mut self, first_row: usize) -> Batch<'a> {
        self.first_row = first_row;
        self
    }

    /// The same batch holding at most `chunk_bytes` of rows at once, and as
    /// many bytes of finished lines waiting to be written ([`Batch::CHUNK_BYTES`]
    /// by default; at least one row is always read).
    pub fn chunk_bytes(mut self, chunk_bytes: usize) -> Batch<'a> {
        self.chunk_bytes = chunk_bytes;
        self
    }

    /// Reads rows (one JSON context per line) from `rows` and writes what
    /// each gives, in row order: its request, or the error record
    /// `{"row": i, "error": {"kind", "message", "line", "column", "snippet", "origin"}}`.
    ///
    /// With [`Format::Bodies`] every row is one line of `out` (the body, or
    /// the messages when the provider stage is off, or the record) and
    /// `errors` gets nothing. With an envelope format `out` holds only the
    /// requests (OpenAI and Gemini: one JSON line each; Anthropic: the one
    /// document `{"requests":[...]}`, a request per line, valid JSON even
    /// with no request at all) and every error record is a line of `errors`.
    ///
    /// A record's line and column are in the text its `origin` names: a
    /// row that is not UTF-8, not a context, or without a valid id has them
    /// in the `rows` (a byte order mark is allowed at the start of the
    /// first row only); a row that fails to build has them where its error
    /// points (`prompt`, `rendered`, a loaded template). `progress` is
    /// called as lines are written (after each row, or each run of rows a
    /// thread built), with the rows written so far.
    ///
    /// # Errors
    ///
    /// Reading `rows` or writing `out` or `errors` (a failing row is a
    /// record), and, before any row is read, `InvalidInput` for a batch
    /// that cannot be: an envelope whose format does not take the
    /// provider's bodies ([`Format::accepts`]) or with the provider stage
    /// off, an id field with [`Format::Bodies`], or an id field named
    /// `state`, `local` or `global`.
    pub fn run(
        &self,
        rows: impl BufRead,
        out: &mut impl Write,
        errors: &mut impl Write,
        progress: impl FnMut(&Summary),
    ) -> io::Result<Summary> {
        let mut out = Some(out);
        let open = move |_| Ok(out.take().expect("one file is opened"));
        self.run_into(rows, Files::new(self.format, usize::MAX, u64::MAX, open, errors), progress)
    }

    /// As [`Batch::run`], with the requests in numbered files instead of
    /// one: `open(n)` gives file `n` (from 0) when the first request that
    /// does not fit in file `n - 1` comes (file 0 at the start, so there is
    /// always one). Each file is complete (an Anthropic document of its own)
    /// and holds at most `max_requests` requests and `max_bytes` bytes, but
    /// a request larger than `max_bytes` on its own, which is alone in its
    /// file. The files are in [`Summary::files`]. With [`Format::Bodies`]
    /// there is one file, whatever the limits.
    ///
    /// # Errors
    ///
    /// As [`Batch::run`], and what `open` returns.
    pub fn run_split<W: Write>(
        &self,
        rows: impl BufRead,
        max_requests: usize,
        max_bytes: u64,
        open: impl FnMut(usize) -> io::Result<W>,
        errors: &mut impl Write,
        progress: impl FnMut(&Summary),
    ) -> io::Result<Summary> {
        let (max_requests, max_bytes) = match self.format {
            Format::Bodies => (usize::MAX, u64::MAX),
            _ => (max_requests.max(1), max_bytes),
        };
        self.run_into(
            rows,
            Files::new(self.format, max_requests, max_bytes, open, errors),
            progress,
        )
    }

    /// Runs the batch as [`Batch::run`] does, handing each row's line to
    /// `each` instead of writing files: one [`RowLine`] per row, in row
    /// order, with its row number, its JSON text (the request, or the
    /// error record, exactly as `run` writes it, without the line ending)
    /// and whether it is an error record. Nothing frames the lines (no
    /// `{"requests": [...]}` document): the caller puts them where it
    /// wants, one by one, as they come. An error `each` returns stops the
    /// batch and is returned.
    ///
    /// ```
    /// use prompt_pipeline::{Batch, Format, Pipeline, Provider, Source};
    ///
    /// let pipeline = Pipeline::new(Provider::Anthropic);
    /// let compiled = pipeline
    ///     .prepare(Source::new("/// param: model=claude-sonnet-4-5, max_tokens=9\n## user\nHi [[ name ]]"))?
    ///     .compile()?;
    /// let rows = "{\"name\": \"Ann\"}\n{\"state\": 1}\n";
    /// let mut lines = Vec::new();
    /// let summary = Batch::new(&compiled, 7, 1).format(Format::AnthropicBatch).run_lines(
    ///     rows.as_bytes(),
    ///     |line| Ok(lines.push((line.row, line.error, String::from_utf8_lossy(line.text).into_owned()))),
    ///     |_| {},
    /// )?;
    /// assert_eq!(summary.rows, 2);
    /// assert!(lines[0].2.starts_with(r#"{"custom_id":"row-0","params":{"#));
    /// assert_eq!((lines[1].0, lines[1].1), (1, true));
    /// assert!(lines[1].2.starts_with(r#"{"row":1,"error":{"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Batch::run`]'s, with `each`'s errors for the writers'.
    pub fn run_lines(
        &self,
        rows: impl BufRead,
        each: impl FnMut(RowLine<'_>) -> io::Result<()>,
        progress: impl FnMut(&Summary),
    ) -> io::Result<Summary> {
        self.run_into(rows, Each(each), progress)
    }

    /// The batch, each row's line put into `sink`.
    fn run_into(
        &self,
        mut rows: impl BufRead,
        sink: impl Sink,
        mut progress: impl FnMut(&Summary),
    ) -> io::Result<Summary> {
        self.check().map_err(|message| io::Error::new(io::ErrorKind::InvalidInput, message))?;
        let mut writer = Writer::new(self.format, self.id_field.is_some(), sink);
        writer.start()?;
        let mut summary = Summary::default();
        // The rows' notices, kept for the summary.
        let mut notices = Notices::new(self.max_notices);
        let mut chunk = Chunk::default();
        let mut carry = None;
        loop {
            self.read_chunk(&mut rows, &mut chunk, &mut carry, summary.bytes)?;
            if chunk.rows.is_empty() {
                writer.finish()?;
                summary.notices = notices.kept.into_iter().map(|(notice, _)| notice).collect();
                summary.more_notices = notices.more;
                summary.files = writer.files();
                return Ok(summary);
            }
            self.chunk(&mut summary, &chunk, &mut writer, &mut progress, &mut notices)?;
        }
    }

    /// Whether the batch can be run; what is wrong, when not.
    fn check(&self) -> Result<(), String> {
        let provider = self.compiled.prompt().pipeline().provider();
        let format = self.format.as_str();
        if !self.format.accepts(provider) {
            return Err(format!("{format} does not take {} bodies", provider.as_str()));
        }
        if self.format.is_envelope() && self.messages {
            return Err(format!("{format} holds request bodies, not messages"));
        }
        if self.format.is_envelope() && self.full {
            return Err(format!("{format} holds request bodies, not whole builds"));
        }
        match self.id_field {
            Some(_) if !self.format.is_envelope() => {
                Err("an id field needs an envelope format: bodies carry no id".to_owned())
            }
            Some(field @ ("state" | "local" | "global")) => {
                Err(format!("the id field cannot be `{field}`, a store of the context"))
            }
            _ => Ok(()),
        }
    }

    /// Reads the next chunk into `chunk`, starting with the row carried
    /// over from the last one, and leaves in `carry` a row that did not fit.
    /// `read` is where the input was when the last chunk was read.
    fn read_chunk(
        &self,
        rows: &mut impl BufRead,
        chunk: &mut Chunk,
        carry: &mut Carry,
        mut read: u64,
    ) -> io::Result<()> {
        chunk.bytes.clear();
        chunk.rows.clear();
        chunk.ends.clear();
        if let Some((mut row, end)) = carry.take() {
            chunk.bytes.append(&mut row);
            chunk.rows.push(Row::Line(0..chunk.bytes.len()));
            chunk.ends.push(end);
            read = end;
        }
        let limit = self.max_row_bytes.saturating_add(1) as u64;
        while chunk.rows.len() < CHUNK_ROWS {
            let start = chunk.bytes.len();
            let taken = Read::take(&mut *rows, limit).read_until(b'\n', &mut chunk.bytes)?;
            if taken == 0 {
                break;
            }
            read += taken as u64;
            let line = &chunk.bytes[start..];
            if line.len() > self.max_row_bytes && !line.ends_with(b"\n") {
                // Over the limit: skip the rest of the line unread.
                chunk.bytes.truncate(start);
                read += rows.skip_until(b'\n')? as u64;
                chunk.rows.push(Row::TooLarge);
                chunk.ends.push(read);
                continue;
            }
            let end = start + content_len(line);
            chunk.bytes.truncate(end);
            if end > self.chunk_bytes && !chunk.rows.is_empty() {
                // The row does not fit: it starts the next chunk.
                *carry = Some((chunk.bytes.split_off(start), read));
                break;
            }
            chunk.rows.push(Row::Line(start..end));
            chunk.ends.push(read);
        }
        Ok(())
    }

    /// Builds the rows of `chunk` (its first row is `summary.rows`) on up
    /// to `jobs` threads and writes their lines in row order, counting them
    /// in `summary` and calling `progress` as they are written.
    fn chunk(
        &self,
        summary: &mut Summary,
        chunk: &Chunk,
        out: &mut Writer<impl Sink>,
        progress: &mut impl FnMut(&Summary),
        notices: &mut Notices,
    ) -> io::Result<()> {
        let first = summary.rows;
        // The number of the chunk's first row in the whole batch.
        let at = self.first_row.saturating_add(first);
        let count = chunk.rows.len();
        // Rows `..end` of the chunk are written, `failed` more failed.
        let mut report = |summary: &mut Summary, end: usize, failed: usize| {
            summary.rows = first + end;
            summary.failed += failed;
            summary.bytes = chunk.ends[end - 1];
            progress(summary);
        };
        if self.jobs == 1 || count == 1 || !cfg!(feature = "threads") {
            let mut lines = Lines::default();
            for i in 0..count {
                lines.bytes.clear();
                lines.entries.clear();
                lines.failed = 0;
                self.line(at.saturating_add(i), chunk.row(i), &mut lines);
                notices.merge(&std::mem::take(&mut lines.notices));
                let refused = out.write(at.saturating_add(i), &lines.bytes, &lines.entries)?;
                report(summary, i + 1, lines.failed + refused);
            }
            return out.flush();
        }
        let pieces = pieces(chunk);
        let shared = Shared {
            state: Mutex::new(State {
                next: 0,
                done: BTreeMap::new(),
                writing: 0,
                waiting: 0,
                stop: false,
            }),
            finished: Condvar::new(),
            written: Condvar::new(),
            budget: self.chunk_bytes,
        };
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.min(pieces.len()) {
                scope.spawn(|| {
                    while let Some(p) = shared.take(pieces.len()) {
                        let rows = pieces[p].clone();
                        let mut lines = Lines { start: rows.start, ..Lines::default() };
                        for i in rows {
                            // Rows with large outputs: hand over what is
                            // built, then wait for room as `take` does.
                            if lines.bytes.len() >= PIECE_BYTES && lines.start < i {
                                shared.finish(std::mem::take(&mut lines), i);
                                if !shared.room_for(i) {
                                    return;
                                }
                                lines.start = i;
                            }
                            self.line(at.saturating_add(i), chunk.row(i), &mut lines);
                        }
                        shared.finish(lines, pieces[p].end);
                    }
                });
            }
            let mut written = Ok(());
            let mut row = 0;
            while row < count && written.is_ok() {
                let (lines, end) = shared.wait_for(row);
                notices.merge(&lines.notices);
                written = out
                    .write(at.saturating_add(row), &lines.bytes, &lines.entries)
                    .map(|refused| report(summary, end, lines.failed + refused));
                row = end;
            }
            if written.is_err() {
                // The threads must not wait for a writer that is gone.
                shared.stop();
            }
            written.and_then(|()| out.flush())
        })
    }

    /// Appends the output line (with its newline) of row `index` to
    /// `lines`; `None` is a row over the limit. A panic while building
    /// becomes an `internal` error record, so that one row never takes the
    /// others down.
    fn line(&self, index: usize, line: Option<&[u8]>, lines: &mut Lines) {
        let start = lines.bytes.len();
        let mut id = None;
        let built = catch_unwind(AssertUnwindSafe(|| {
            self.row(index, line, &mut lines.bytes, &mut id, &mut lines.notices)
        }));
        let ok = built.unwrap_or_else(|_| {
            lines.bytes.truncate(start);
            let message = "building this row failed unexpectedly (a bug: please report it)";
            lines.bytes.extend(record(index, "internal", message, None));
            false
        });
        lines.failed += usize::from(!ok);
        lines.bytes.push(b'\n');
        lines.entries.push(Entry { end: lines.bytes.len(), built: ok, id });
    }

    /// Appends the request or error record of row `index` to `out`, without
    /// a newline, sets `id` to the row's id (with its column in the row)
    /// when the id comes from the row and is valid, and adds the row's
    /// notices to `notices`; `true` when the row built.
    fn row(
        &self,
        index: usize,
        line: Option<&[u8]>,
        out: &mut Vec<u8>,
        id: &mut Option<(Box<str>, usize)>,
        notices: &mut Notices,
    ) -> bool {
        let Some(line) = line else {
            let message = format!("the row is longer than {} bytes", self.max_row_bytes);
            out.extend(record(
                index,
                "row_too_large",
                &message,
                Some(Place::row(index, None, None)),
            ));
            return false;
        };
        let seed = self.seed.wrapping_add(index as u64);
        let result = row_text(index, line)
            .and_then(|text| self.row_input(index, text, id))
            .map(|row| self.layered(row))
            .and_then(|context| {
                let compiled = self.compiled;
                let line = match (self.messages, self.transcript) {
                    (true, None) => compiled.arrange(&context, seed).map(Line::Messages),
                    (true, Some(transcript)) => compiled
                        .arrange_with_transcript(&context, seed, transcript)
                        .map(Line::Messages),
                    (false, None) => compiled.build(&context, seed).map(Line::Body),
                    (false, Some(transcript)) => {
                        compiled.build_with_transcript(&context, seed, transcript).map(Line::Body)
                    }
                };
                line.map_err(|err| build_record(index, &err))
            });
        let line = match result {
            Ok(line) => line,
            Err(record) => {
                out.extend(record);
                return false;
            }
        };
        let given = match &line {
            Line::Body(built) => &built.notices,
            Line::Messages(arranged) => &arranged.notices,
        };
        notices.row(index, given, self.compiled.prompt().notices().len());
        let start = out.len();
        let provider = self.compiled.prompt().pipeline().provider();
        let row_id;
        let request_id = match (id.as_ref(), self.format.is_envelope()) {
            (Some((id, _)), _) => id,
            (None, true) => {
                row_id = format!("row-{index}");
                row_id.as_str()
            }
            (None, false) => "",
        };
        self.format.open(provider, request_id, out);
        let prompt = self.compiled.prompt();
        let encoded = match &line {
            Line::Body(built) if self.full => serde_json::to_writer(&mut *out, &built.full(prompt)),
            Line::Body(built) => serde_json::to_writer(&mut *out, &built.body),
            Line::Messages(arranged) if self.full => {
                serde_json::to_writer(&mut *out, &arranged.full(prompt))
            }
            Line::Messages(arranged) => serde_json::to_writer(&mut *out, &arranged.messages),
        };
        self.format.close(out);
        match encoded {
            Ok(()) => true,
            Err(err) => {
                out.truncate(start);
                let message = format!("cannot encode the request body: {err}");
                out.extend(record(index, "internal", &message, None));
                false
            }
        }
    }
}

/// What a row that built writes.
#[allow(clippy::large_enum_variant, reason = "one on the stack per row, never stored")]
enum Line {
    Body(Built),
    Messages(Arranged),
}

/// Rows per piece: the rows a thread takes at once, so that taking and
/// handing back cost little next to the rows' work, even for tiny rows.
const PIECE_ROWS: usize = 256;

/// Bytes of rows per piece (a row larger than this is a piece of its own).
const PIECE_BYTES: usize = 256 << 10;

/// The rows of `chunk` cut into consecutive pieces of at most
/// [`PIECE_ROWS`] rows and about [`PIECE_BYTES`] bytes.
fn pieces(chunk: &Chunk) -> Vec<Range<usize>> {
    let mut pieces = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, row) in chunk.rows.iter().enumerate() {
        if i > start && (i - start == PIECE_ROWS || bytes >= PIECE_BYTES) {
            pieces.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += match row {
            Row::Line(range) => range.len(),
            Row::TooLarge => 0,
        };
    }
    if start < chunk.rows.len() {
        pieces.push(start..chunk.rows.len());
    }
    pieces
}

/// The length of `line` without its line ending (`\n` or `\r\n`).
fn content_len(line: &[u8]) -> usize {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line).len()
}

/// The output lines of consecutive rows from `start`, how many of them
/// failed, and how each came out.
#[derive(Debug, Default)]
struct Lines {
    start: usize,
    bytes: Vec<u8>,
    failed: usize,
    entries: Vec<Entry>,
    /// The rows' notices, each distinct one once.
    notices: Notices,
}

impl Lines {
    /// What the lines hold, for the budget of lines waiting.
    fn size(&self) -> usize {
        self.bytes.len()
            + LINE_OVERHEAD
            + self.notices.size()
            + self.entries.iter().map(Entry::size).sum::<usize>()
    }
}

/// What the threads building one chunk share with its writer.
struct Shared {
    state: Mutex<State>,
    /// Lines were finished, for the writer.
    finished: Condvar,
    /// Lines were written, or the writer stopped, for the threads.
    written: Condvar,
    /// The most bytes of finished lines that may wait.
    budget: usize,
}

struct State {
    /// The next piece to take.
    next: usize,
    /// Finished lines not yet written, by their first row, with the row
    /// after their last.
    done: BTreeMap<usize, (Lines, usize)>,
    /// The row the writer needs next.
    writing: usize,
    /// What the finished lines hold ([`Lines::size`]).
    waiting: usize,
    /// The writer failed: take no more pieces.
    stop: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Rows are built outside the lock, so it is never poisoned by one.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next piece to build, once the lines waiting fit the budget;
    /// `None` when every piece is taken or the writer stopped.
    fn take(&self, count: usize) -> Option<usize> {
        let mut state = self.lock();
        while state.waiting > self.budget && !state.stop {
            state = self.written.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        if state.stop || state.next == count {
            return None;
        }
        state.next += 1;
        Some(state.next - 1)
    }

    /// Waits until a thread that has built the rows before `row` of its
    /// piece may build `row`: when the lines waiting fit the budget, or the
    /// writer needs `row` itself. `false` when the writer stopped.
    ///
    /// Neither this nor [`Shared::take`] waits for ever: while lines wait,
    /// the writer waits for an earlier row, which is being built (pieces
    /// are taken in order), or is the next row of a thread here, which may
    /// go on.
    fn room_for(&self, row: usize) -> bool {
        let mut state = self.lock();
        while state.waiting > self.budget && state.writing != row && !state.stop {
            state = self.written.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        !state.stop
    }

    /// Hands over `lines`, which end before row `end`.
    fn finish(&self, lines: Lines, end: usize) {
        let mut state = self.lock();
        state.waiting += lines.size();
        state.done.insert(lines.start, (lines, end));
        self.finished.notify_one();
    }

    /// The lines starting at `row`, once they are finished, and the row
    /// after them; their bytes leave the budget.
    fn wait_for(&self, row: usize) -> (Lines, usize) {
        let mut state = self.lock();
        state.writing = row;
        self.written.notify_all();
        loop {
            if let Some((lines, end)) = state.done.remove(&row) {
                state.waiting -= lines.size();
                state.writing = end;
                self.written.notify_all();
                return (lines, end);
            }
            state = self.finished.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn stop(&self) {
        self.lock().stop = true;
        self.written.notify_all();
    }
}

/// The record of a row that failed to build: placed in the text its
/// error points into (`prompt` for the prompt file).
fn build_record(index: usize, err: &crate::Error) -> Vec<u8> {
    use prompt_core::diagnostic::{Diagnostic, Origin};
    let report = err.report();
    let origin = Diagnostic::origin(err);
    let origin = match &origin {
        Origin::Input => "prompt",
        other => other.as_str(),
    };
    let place = Place {
        origin,
        line: report.line,
        column: report.column,
        snippet: report.snippet.as_deref(),
    };
    let place = report.line.is_some().then_some(place);
    record(index, &report.kind, &report.message, place)
}

fn row_text(index: usize, line: &[u8]) -> Result<&str, Vec<u8>> {
    std::str::from_utf8(line).map_err(|err| {
        // The prefix is valid: count its characters without copying it.
        let valid = std::str::from_utf8(&line[..err.valid_up_to()]).unwrap_or_default();
        let column = valid.chars().count() + 1;
        let place = Place::row(index, Some(column), Some(""));
        record(index, "invalid_utf8", "the row is not valid UTF-8", Some(place))
    })
}

/// Row `index` read strictly (`prompt_core::json`) as `T`: a key repeated
/// in an object or an integer outside `i64` is an `invalid_json` record,
/// with the reader's own message, column and snippet; values that would
/// take more than the engine's memory limit (counted on the whole row's
/// text, before any is built) a `memory_limit` one. A byte order mark is
/// the start of a file, so it is ignored before the first row only.
fn row_json<'a, T: Deserialize<'a>>(index: usize, text: &'a str) -> Result<T, Vec<u8>> {
    no_inner_bom(index, text)?;
    let reader =
        json::Reader::new().memory_limit(minijinja_brackets::Limits::default().memory_limit());
    reader.parse::<T>(text).map_err(|err: JsonError| {
        // A row is one line: the reader's line is 1.
        let place = Place {
            origin: "rows",
            line: Some(index + err.line()),
            column: Some(err.column()),
            snippet: Some(err.snippet()),
        };
        let kind = prompt_core::diagnostic::Diagnostic::kind(&err);
        record(index, kind, err.message(), Some(place))
    })
}

/// Refuses a byte order mark that starts a row after the first.
fn no_inner_bom(index: usize, text: &str) -> Result<(), Vec<u8>> {
    if index > 0 && text.starts_with('\u{feff}') {
        let snippet: String = text.chars().take(40).collect();
        let message =
            "a byte order mark inside the rows: one is allowed only at the start of the file";
        return Err(record(
            index,
            "invalid_json",
            message,
            Some(Place::row(index, Some(1), Some(&snippet))),
        ));
    }
    Ok(())
}

/// The record of a row whose context minijinja-brackets refused
/// (`invalid_json`, placed in the row).
fn context_record(index: usize, err: &minijinja_brackets::Error) -> Vec<u8> {
    let place = Place {
        origin: "rows",
        line: err.line().map(|line| index + line),
        column: err.column(),
        snippet: err.snippet(),
    };
    record(index, err.kind().as_str(), err.message(), Some(place))
}

impl Batch<'_> {
    /// `row` over the batch's `under` stores and under its `over` stores.
    fn layered(&self, mut row: Context) -> Context {
        let mut context = match self.under {
            Some(under) => {
                let mut context = under.clone();
                for scope in [Scope::State, Scope::Local, Scope::Global] {
                    let store = context.store_mut(scope);
                    store.extend(std::mem::take(row.store_mut(scope)));
                }
                context
            }
            None => row,
        };
        if let Some(over) = self.over {
            for scope in [Scope::State, Scope::Local, Scope::Global] {
                let store = context.store_mut(scope);
                for (name, value) in over.store(scope) {
                    store.insert(name.clone(), value.clone());
                }
            }
        }
        context
    }

    /// The context of row `index` (minijinja-brackets reads it: the state
    /// store itself, or `state`, `local` and `global`); when the rows carry
    /// ids, its id key is taken out first (into `id`, with its column),
    /// checked against the format's rules.
    fn row_input(
        &self,
        index: usize,
        text: &str,
        id: &mut Option<(Box<str>, usize)>,
    ) -> Result<Context, Vec<u8>> {
        let Some(field) = self.id_field else {
            no_inner_bom(index, text)?;
            return Context::from_json(text).map_err(|err| context_record(index, &err));
        };
        let row: IdRow<'_> = row_json(index, text)?;
        let at = |raw: &RawValue| column_of(text, raw.get());
        let snippet = |raw: &RawValue| raw.get().chars().take(40).collect::<String>();
        let mut raw_id = None;
        let mut object = minijinja_brackets::Store::with_capacity(row.entries.len());
        for (key, value) in row.entries {
            if key == field {
                raw_id = Some(value);
            } else {
                // The reader accepted the row: its values are strict JSON.
                let value = serde_json::from_str(value.get()).map_err(|err| {
                    let message = format!("`{key}` cannot be read: {err}");
                    let snippet = snippet(value);
                    let place = Place::row(index, Some(at(value)), Some(&snippet));
                    record(index, "invalid_json", &message, Some(place))
                })?;
                object.insert(key, value);
            }
        }
        let Some(raw) = raw_id else {
            let message = format!("the row has no id: its key `{field}` is missing");
            let snippet: String = text.chars().take(40).collect();
            let place = Place::row(index, Some(1), Some(&snippet));
            return Err(record(index, "missing_id", &message, Some(place)));
        };
        let column = at(raw);
        let invalid = |message: String| {
            let snippet = snippet(raw);
            let place = Place::row(index, Some(column), Some(&snippet));
            record(index, "invalid_id", &message, Some(place))
        };
        let value = match serde_json::from_str::<serde_json::Value>(raw.get()) {
            Ok(serde_json::Value::String(value)) => value,
            Ok(other) => {
                let kind = match other {
                    serde_json::Value::Null => "null",
                    serde_json::Value::Bool(_) => "a boolean",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Array(_) => "an array",
                    _ => "an object",
                };
                return Err(invalid(format!("the id `{field}` must be a string, not {kind}")));
            }
            // The reader accepted the row: its values are JSON.
            Err(err) => return Err(invalid(format!("the id `{field}` cannot be read: {err}"))),
        };
        self.format.valid_id(&value).map_err(|why| invalid(format!("invalid id: {why}")))?;
        let context =
            Context::from_json_object(object, text).map_err(|err| context_record(index, &err))?;
        *id = Some((value.into_boxed_str(), column));
        Ok(context)
    }
}

/// The column (in characters, a byte order mark not counted) in `text` of
/// `part`, a slice of it.
fn column_of(text: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize).min(text.len());
    let before = text.get(..offset).unwrap_or_default();
    before.strip_prefix('\u{feff}').unwrap_or(before).chars().count() + 1
}

/// A row read when the rows carry ids: its top-level keys and their
/// values as written, in order (the id key among them).
struct IdRow<'a> {
    entries: Vec<(String, &'a RawValue)>,
}

impl<'de> Deserialize<'de> for IdRow<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<IdRow<'de>, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = IdRow<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IdRow<'de>, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    entries.push((key, map.next_value()?));
                }
                Ok(IdRow { entries })
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pipeline, Provider, Source};

    fn run_with(
        prompt: &str,
        rows: &[u8],
        batch: impl Fn(Batch<'_>) -> Batch<'_>,
    ) -> (Summary, Vec<String>) {
        let pipeline = Pipeline::builder(Provider::OpenAi).params([("model", "gpt-5.4")]).build();
        let prompt = pipeline.prepare(Source::new(prompt)).unwrap();
        let compiled = prompt.compile().unwrap();
        let batch = batch(Batch::new(&compiled, 0, 1));
        let mut out = Vec::new();
        let summary = batch.run(rows, &mut out, &mut io::sink(), |_| {}).unwrap();
        let summary = one_file(summary, &out);
        let lines = String::from_utf8(out).unwrap().lines().map(str::to_owned).collect();
        (summary, lines)
    }

    /// `summary` without its one file, checked to be `out` (its lines
    /// counted for bodies, its requests for an envelope).
    fn one_file(mut summary: Summary, out: &[u8]) -> Summary {
        let [file] = summary.files[..] else { panic!("one file: {:?}", summary.files) };
        assert_eq!(file.bytes, out.len() as u64);
        assert!(file.requests <= summary.rows - summary.failed || file.requests == summary.rows);
        summary.files.clear();
        summary
    }

    fn run(rows: &[u8], jobs: usize, max_row_bytes: usize) -> (Summary, Vec<String>) {
        run_with("## user\n[[ n ]]\n", rows, |b| Batch { jobs, ..b }.max_row_bytes(max_row_bytes))
    }

    fn error(line: &str) -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(line).unwrap()["error"].clone()
    }

    #[test]
    fn rows_lie_over_the_context_and_under_the_overrides() {
        let under = Context::from_json(r#"{"state": {"a": "A", "b": "B"}, "local": {"c": "C"}}"#);
        let over = Context::from_json(r#"{"local": {"c": "D"}}"#);
        let (under, over) = (under.unwrap(), over.unwrap());
        let empty = Context::default();
        let pipeline = Pipeline::builder(Provider::OpenAi).build();
        let prompt = pipeline.prepare(Source::new("## user\n=[[ a ]][[ b ]][[ L.c ]]\n")).unwrap();
        let compiled = prompt.compile().unwrap();
        let texts = |batch: Batch<'_>| {
            let rows: &[u8] = b"{}\n{\"state\": {\"b\": \"row\"}, \"local\": {\"c\": \"row\"}}\n";
            let mut out = Vec::new();
            let summary = batch.messages(true).run(rows, &mut out, &mut io::sink(), |_| {});
            assert_eq!(summary.unwrap().failed, 0);
            let lines = String::from_utf8(out).unwrap();
            lines
                .lines()
                .map(|line| {
                    let messages: serde_json::Value = serde_json::from_str(line).unwrap();
                    messages[0]["content"][0]["text"].as_str().unwrap().to_owned()
                })
                .collect::<Vec<_>>()
        };
        let batch = Batch::new(&compiled, 0, 2);
        assert_eq!(texts(batch.context(&under, &over)), ["=ABD", "=ArowD"]);
        assert_eq!(texts(batch.context(&under, &empty)), ["=ABC", "=Arowrow"]);
        // Empty stores are no layer: the rows alone.
        assert_eq!(texts(batch.context(&empty, &empty)), ["=", "=rowrow"]);
    }

    #[test]
    fn every_row_gets_one_line_in_order() {
        let rows = b"{\"state\": {\"n\": 1}}\r\n\xff\n{\"state\": {\"n\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}\n{\"state\": {\"n\": 4}}";
        for jobs in [1, 2, 3] {
            let (summary, lines) = run(rows, jobs, 40);
            assert_eq!(
                summary,
                Summary { rows: 4, failed: 2, bytes: rows.len() as u64, ..Summary::default() }
            );
            assert_eq!(
                lines[0],
                r#"{"model":"gpt-5.4","messages":[{"role":"user","content":"1"}]}"#
            );
            assert!(lines[1].starts_with(r#"{"row":1,"error":{"kind":"invalid_utf8""#));
            assert!(lines[2].starts_with(r#"{"row":2,"error":{"kind":"row_too_large""#));
            assert_eq!(
                lines[3],
                r#"{"model":"gpt-5.4","messages":[{"role":"user","content":"4"}]}"#
            );
        }
    }

    /// A record's line has one meaning, named by its `origin`: the rows
    /// file, the prompt file, or the row's rendered narrative (regression:
    /// the three were told apart by nothing).
    #[test]
    fn each_record_names_the_text_its_line_is_in() {
        let prompt = "/// note: a\n## user\n[[ n + 1 ]] @[[ f ]]\n";
        let rows = b"{\"state\": {\"n\": \"x\", \"f\": \"a.png\"}}\n\
                     {\"state\": {\"n\": 1, \"f\": \"a.png\"}}\n\
                     {\"state\": 1}\n";
        let (_, lines) = run_with(prompt, rows, |b| b);
        let (prompt, rendered, rows) = (error(&lines[0]), error(&lines[1]), error(&lines[2]));
        assert_eq!(prompt["origin"], "prompt", "{prompt}");
        assert_eq!((&prompt["line"], &prompt["column"]), (&3.into(), &4.into()));
        assert_eq!(rendered["origin"], "rendered", "{rendered}");
        assert_eq!((&rendered["line"], &rendered["column"]), (&2.into(), &3.into()));
        assert_eq!(rendered["snippet"], "@a.png");
        assert_eq!((&rows["origin"], &rows["line"]), (&"rows".into(), &3.into()));
        let (_, lines) = run(b"\xff\n", 1, 100);
        assert_eq!(error(&lines[0])["origin"], "rows");
    }

    #[test]
    fn no_rows_no_output() {
        assert_eq!(run(b"", 3, 100), (Summary::default(), Vec::new()));
    }

    /// Rows are read strictly: a repeated key and an integer beyond 64 bits
    /// are `invalid_json` records with the reader's message and position in
    /// the rows file; a byte order mark is allowed before the first row
    /// only.
    #[test]
    fn rows_are_strict_json() {
        let rows = "\u{feff}{\"state\": {\"n\": 1}}\n\
                    {\"state\": {\"n\": 1, \"n\": 2}}\n\
                    {\"state\": {\"n\": 18446744073709551616}}\n\
                    \u{feff}{\"state\": {\"n\": 3}}\n\
                    {\"state\": {\"é\": 1,}}\n";
        let (summary, lines) = run(rows.as_bytes(), 2, 1000);
        assert_eq!(
            summary,
            Summary { rows: 5, failed: 4, bytes: rows.len() as u64, ..Summary::default() }
        );
        assert_eq!(lines[0], r#"{"model":"gpt-5.4","messages":[{"role":"user","content":"1"}]}"#);
        let duplicate = error(&lines[1]);
        assert_eq!(duplicate["kind"], "invalid_json");
        assert_eq!(duplicate["message"], "duplicate key `n` in an object");
        assert_eq!((&duplicate["line"], &duplicate["column"]), (&2.into(), &20.into()));
        assert_eq!(duplicate["snippet"], "\"n\"");
        let big = error(&lines[2]);
        assert_eq!((&big["line"], &big["column"]), (&3.into(), &17.into()));
        assert_eq!(big["snippet"], "18446744073709551616");
        let bom = error(&lines[3]);
        assert_eq!(
            (&bom["kind"], &bom["line"], &bom["column"]),
            (&"invalid_json".into(), &4.into(), &1.into())
        );
        // Columns are characters, and the message has no position of its own.
        let syntax = error(&lines[4]);
        assert_eq!(syntax["message"], "trailing comma");
        assert_eq!(
            (&syntax["line"], &syntax["column"], &syntax["snippet"]),
            (&5.into(), &19.into(), &"}}".into())
        );
    }

    /// A chunk holds at most `chunk_bytes` of rows, whatever their count:
    /// with a tiny budget every row is its own chunk, and the output is the
    /// same as with one chunk, on any number of threads.
    #[test]
    fn chunks_are_bounded_by_bytes() {
        let rows: String = (0..50).map(|i| format!("{{\"state\": {{\"n\": {i}}}}}\n")).collect();
        let whole = run(rows.as_bytes(), 1, 1000);
        assert_eq!(
            whole.0,
            Summary { rows: 50, failed: 0, bytes: rows.len() as u64, ..Summary::default() }
        );
        for (jobs, chunk_bytes) in [(1, 1), (3, 1), (3, 50), (4, 10_000)] {
            let mut chunks = 0;
            let pipeline =
                Pipeline::builder(Provider::OpenAi).params([("model", "gpt-5.4")]).build();
            let prompt = pipeline.prepare(Source::new("## user\n[[ n ]]\n")).unwrap();
            let compiled = prompt.compile().unwrap();
            let batch = Batch::new(&compiled, 0, jobs).chunk_bytes(chunk_bytes);
            let mut out = Vec::new();
            let summary =
                batch.run(rows.as_bytes(), &mut out, &mut io::sink(), |_| chunks += 1).unwrap();
            assert_eq!(one_file(summary, &out), whole.0);
            let lines: Vec<String> =
                String::from_utf8(out).unwrap().lines().map(str::to_owned).collect();
            assert_eq!(lines, whole.1, "jobs {jobs}, chunk {chunk_bytes}");
            let rows_per_chunk = (chunk_bytes / 20).max(1);
            assert_eq!(chunks, 50_usize.div_ceil(rows_per_chunk), "chunk {chunk_bytes}");
        }
    }

    /// Progress comes as lines are written, not once a chunk: rows, failures
    /// and input bytes only grow, and end at the summary, the bytes at the
    /// input's size (a skipped row too large and CRLF endings included).
    #[test]
    fn progress_counts_rows_and_bytes_as_they_are_written() {
        let mut rows: String =
            (0..1000).map(|i| format!("{{\"state\": {{\"n\": {i}}}}}\r\n")).collect();
        // A row too large (its record), and a last row without a newline.
        rows.push_str(&format!("{{\"state\": {{\"n\": \"{}\"}}}}\n{{}}", "x".repeat(500)));
        let pipeline = Pipeline::builder(Provider::OpenAi).params([("model", "gpt-5.4")]).build();
        // `Row`: the last row's turn is not empty (that is `no_messages`).
        let prompt = pipeline.prepare(Source::new("## user\nRow [[ n ]]\n")).unwrap();
        let compiled = prompt.compile().unwrap();
        for jobs in [1, 3] {
            let batch = Batch::new(&compiled, 0, jobs).max_row_bytes(100);
            let mut seen = Vec::new();
            let summary = batch
                .run(rows.as_bytes(), &mut io::sink(), &mut io::sink(), |s| seen.push(s.clone()))
                .unwrap();
            // The last row, `{}`, prints an undefined name (its notices).
            assert_eq!((summary.rows, summary.failed), (1002, 1));
            assert_eq!(summary.bytes, rows.len() as u64);
            let last = seen.last().unwrap();
            assert_eq!((last.rows, last.failed, last.bytes), (1002, 1, summary.bytes));
            assert!(seen.windows(2).all(|w| w[0].rows < w[1].rows
                && w[0].failed <= w[1].failed
                && w[0].bytes < w[1].bytes));
            // One call a row on one thread; one a piece of rows on three.
            match jobs {
                1 => assert_eq!(seen.len(), 1002),
                _ => assert!(seen.len() >= 1000 / PIECE_ROWS, "{}", seen.len()),
            }
            // The bytes are where the last row written ends in the input.
            let ends: Vec<u64> = rows.match_indices('\n').map(|(i, _)| i as u64 + 1).collect();
            for s in &seen {
                assert_eq!(s.bytes, ends.get(s.rows - 1).copied().unwrap_or(rows.len() as u64));
            }
        }
    }

    /// Empty rows and rows that do not fit are carried into the next chunk
    /// as rows of their own.
    #[test]
    fn rows_that_do_not_fit_start_the_next_chunk() {
        let rows = b"{}\n\n{\"state\": {\"n\": 5}}\n\n\n{}";
        let (summary, lines) = run_with("## user\nx[[ n ]]\n", rows, |b| b.chunk_bytes(2));
        assert_eq!((summary.rows, summary.failed), (6, 3));
        assert_eq!(summary.bytes, rows.len() as u64);
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[2], r#"{"model":"gpt-5.4","messages":[{"role":"user","content":"x5"}]}"#);
        for i in [1, 3, 4] {
            assert_eq!(error(&lines[i])["message"], "EOF while parsing a value", "{}", lines[i]);
        }
    }

    /// A writer that fails stops the batch; no thread is left waiting.
    #[test]
    fn a_failing_writer_stops_every_thread() {
        struct Full(usize);
        impl Write for Full {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("full"));
                }
                self.0 -= 1;
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        // Every row fits one chunk, but a few pieces of 1 KB lines pass the
        // budget of lines waiting: the threads wait for the writer.
        let rows: String = (0..2000).map(|i| format!("{{\"state\": {{\"n\": {i}}}}}\n")).collect();
        let pipeline = Pipeline::builder(Provider::OpenAi).params([("model", "gpt-5.4")]).build();
        let prompt = pipeline.prepare(Source::new("## user\n[[ n ]][[ \"x\" * 1000 ]]\n")).unwrap();
        let compiled = prompt.compile().unwrap();
        let batch = Batch::new(&compiled, 0, 4).chunk_bytes(100_000);
        let err = batch.run(rows.as_bytes(), &mut Full(3), &mut io::sink(), |_| {}).unwrap_err();
        assert_eq!(err.to_string(), "full");
    }

    /// Tiny rows with large lines: a thread hands its piece over in parts
    /// and waits for room between them; the output is the same as on one
    /// thread.
    #[test]
    fn large_lines_are_handed_over_in_parts() {
        let rows: String = (0..600).map(|i| format!("{{\"state\": {{\"n\": {i}}}}}\n")).collect();
        let prompt = "## user\n[[ n ]][[ \"x\" * 10000 ]]\n";
        let one = run_with(prompt, rows.as_bytes(), |b| b);
        for jobs in [2, 3] {
            let many =
                run_with(prompt, rows.as_bytes(), |b| Batch { jobs, ..b }.chunk_bytes(30_000));
            assert_eq!(
                many.0,
                Summary { rows: 600, failed: 0, bytes: rows.len() as u64, ..Summary::default() }
            );
            assert!(many.1 == one.1, "jobs {jobs}: the lines differ");
        }
    }

    #[test]
    fn pieces_are_consecutive_and_bounded() {
        let chunk = |sizes: &[usize]| {
            let mut chunk = Chunk::default();
            let mut at = 0;
            for &size in sizes {
                chunk.rows.push(Row::Line(at..at + size));
                at += size;
            }
            chunk
        };
        let small = chunk(&[10; 600]);
        assert_eq!(pieces(&small), [0..256, 256..512, 512..600]);
        let large = chunk(&[200 << 10, 100 << 10, 1, 300 << 10, 5]);
        assert_eq!(pieces(&large), [0..2, 2..4, 4..5]);
        assert_eq!(pieces(&Chunk::default()), Vec::<Range<usize>>::new());
    }

    /// Runs `prompt` for `provider` as `format` with ids from `id_field`;
    /// returns the summary, the output and the error records.
    fn envelope(
        provider: Provider,
        prompt: &str,
        rows: &str,
        format: Format,
        id_field: Option<&str>,
        jobs: usize,
    ) -> (Summary, String, Vec<serde_json::Value>) {
        let prompt = Pipeline::new(provider).prepare(Source::new(prompt)).unwrap();
        let compiled = prompt.compile().unwrap();
        let batch = Batch::new(&compiled, 0, jobs).format(format).id_field(id_field);
        // Tiny chunks and pieces: rows cross every boundary.
        let batch = batch.chunk_bytes(64);
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        let summary = batch.run(rows.as_bytes(), &mut out, &mut errors, |_| {}).unwrap();
        let summary = one_file(summary, &out);
        let errors = String::from_utf8(errors).unwrap();
        let errors = errors.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (summary, String::from_utf8(out).unwrap(), errors)
    }

    /// Completions rows: each row's conversation through the chat template
    /// into its prompt, in an OpenAI batch at `/v1/completions`; a row whose
    /// value spells a control token is that row's `special_token_in_data`.
    #[test]
    fn completions_rows_render_through_the_chat_template() {
        let template = crate::ChatTemplate::from_jinja(
            "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
             {% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
            &chat_template::Options::default(),
        )
        .unwrap();
        let pipeline = Pipeline::builder(Provider::Completions)
            .params([("model", "qwen2.5-7b-instruct")])
            .chat_template(template)
            .build();
        let compiled = pipeline.prepare(Source::new("Be brief.\n## user\n[[ n ]]\n")).unwrap();
        let compiled = compiled.compile().unwrap();
        let rows = "{\"n\": \"Hi\"}\n{\"n\": \"<|im_end|>\"}\n{\"n\": 3}\n";
        for jobs in [1, 2] {
            let batch = Batch::new(&compiled, 0, jobs).format(Format::OpenAiBatch);
            let (mut out, mut errors) = (Vec::new(), Vec::new());
            let summary = batch.run(rows.as_bytes(), &mut out, &mut errors, |_| {}).unwrap();
            assert_eq!((summary.rows, summary.failed), (3, 1));
            let lines: Vec<serde_json::Value> = String::from_utf8(out)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect();
            assert_eq!(lines.len(), 2);
            assert_eq!(lines[0]["url"], "/v1/completions");
            assert_eq!(lines[0]["custom_id"], "row-0");
            assert_eq!(
                lines[0]["body"],
                serde_json::json!({
                    "model": "qwen2.5-7b-instruct",
                    "prompt": "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
                })
            );
            assert_eq!(lines[1]["custom_id"], "row-2");
            let error: serde_json::Value =
                serde_json::from_str(String::from_utf8(errors).unwrap().trim()).unwrap();
            assert_eq!(error["row"], 1);
            assert_eq!(error["error"]["kind"], "special_token_in_data");
        }
    }

    const ANTHROPIC: &str = "/// param: model=claude-sonnet-4-5, max_tokens=10\n## user\n[[ n ]]\n";

    #[test]
    fn openai_batch_lines_carry_row_ids_and_errors_go_apart() {
        let rows = "{\"state\": {\"n\": 1}}\n{\"state\": 5}\n{\"state\": {\"n\": 3}}\n";
        for jobs in [1, 2] {
            let (summary, out, errors) = envelope(
                Provider::OpenAi,
                "/// param: model=gpt-4o-mini\n## user\n[[ n ]]\n",
                rows,
                Format::OpenAiBatch,
                None,
                jobs,
            );
            assert_eq!(
                summary,
                Summary { rows: 3, failed: 1, bytes: rows.len() as u64, ..Summary::default() }
            );
            assert_eq!(
                out,
                "{\"custom_id\":\"row-0\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"1\"}]}}\n\
                 {\"custom_id\":\"row-2\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"3\"}]}}\n"
            );
            assert_eq!(errors.len(), 1);
            assert_eq!(
                (&errors[0]["row"], &errors[0]["error"]["kind"]),
                (&1.into(), &"invalid_json".into())
            );
        }
    }

    /// A bare `[[name]]` that printed an undefined name is reported once
    /// per name for the whole batch, at the first row that printed it, in
    /// row order, whatever the threads and chunks; failing rows say nothing.
    #[test]
    fn undefined_bare_tags_are_reported_once_per_batch() {
        let prompt = "## user\n[% if n == 1 %][[first]][% endif %][[every]][% if n == 3 %][[third]][% endif %][[ n ]]\n";
        let rows: String =
            (0..600).map(|i| format!("{{\"state\": {{\"n\": {}}}}}\n", i % 5)).collect();
        let rows = format!("{rows}5\n");
        for (jobs, chunk_bytes) in [(1, Batch::CHUNK_BYTES), (3, Batch::CHUNK_BYTES), (2, 100)] {
            let (summary, lines) =
                run_with(prompt, rows.as_bytes(), |b| Batch { jobs, ..b }.chunk_bytes(chunk_bytes));
            assert_eq!((summary.rows, summary.failed, lines.len()), (601, 1, 601));
            let names: Vec<(usize, &str)> = summary
                .notices
                .iter()
                .map(|RowNotice { row, notice }| match notice {
                    Notice::UndefinedVariable { name, line: Some(2), .. } => (*row, name.as_str()),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(names, [(0, "every"), (1, "first"), (3, "third")], "jobs {jobs}");
        }
    }

    /// Every kind of row notice reaches the summary (it was dropped but for
    /// `undefined_variable`): once per distinct kind and message, at its
    /// first row, in row order, whatever the threads and chunks; the
    /// prompt's own notices are not repeated there, and `--full` rows keep
    /// theirs.
    #[test]
    fn every_row_notice_is_reported_once_per_batch() {
        // `top_k` is the prompt's (unsupported by OpenAI: the provider's,
        // every row); `@ana` is every row's, `@bo` from row 2 on, and the
        // column of `@cy` moves with the row's value.
        let prompt = "/// param: model=gpt-4o-mini, top_k=3, top_k=4\n## user\nhi @ana [% if n >= 2 %]@bo[% endif %] [% for _ in range(pad) %]-[% endfor %] @cy\n";
        let rows: String = (0..400)
            .map(|i| format!("{{\"state\": {{\"n\": {}, \"pad\": {}}}}}\n", i % 4, i / 100))
            .collect();
        let expected = [
            (0, "unresolved_reference", "`@ana` (line 2, column 4 of the narrative)".to_owned()),
            (0, "unresolved_reference", "`@cy` (line 2, column 11 of the narrative)".to_owned()),
            (0, "unsupported_param", "the parameter `top_k`".to_owned()),
            (2, "unresolved_reference", "`@bo` (line 2, column 9 of the narrative)".to_owned()),
            (2, "unresolved_reference", "`@cy` (line 2, column 14 of the narrative)".to_owned()),
        ];
        let mut expected: Vec<_> = expected.into_iter().collect();
        for pad in 1..4 {
            // Row 300's `@cy` is at row 2's column: not new.
            if pad < 3 {
                expected.push((
                    pad * 100,
                    "unresolved_reference",
                    format!("`@cy` (line 2, column {} of the narrative)", 11 + pad),
                ));
            }
            expected.push((
                pad * 100 + 2,
                "unresolved_reference",
                format!("`@cy` (line 2, column {} of the narrative)", 14 + pad),
            ));
        }
        expected.sort_by_key(|(row, ..)| *row);
        for (jobs, chunk_bytes) in [(1, Batch::CHUNK_BYTES), (3, Batch::CHUNK_BYTES), (3, 200)] {
            let (summary, lines) = run_with(prompt, rows.as_bytes(), |b| {
                Batch { jobs, ..b }.chunk_bytes(chunk_bytes).full(true)
            });
            assert_eq!((summary.rows, summary.failed, lines.len()), (400, 0, 400));
            let got: Vec<_> = summary
                .notices
                .iter()
                .map(|RowNotice { row, notice }| (*row, notice.as_str(), notice.message()))
                .collect();
            assert_eq!(got.len(), expected.len(), "jobs {jobs}: {got:#?}");
            for (got, expected) in got.iter().zip(&expected) {
                assert_eq!((got.0, got.1), (expected.0, expected.1), "jobs {jobs}: {got:?}");
                assert!(got.2.starts_with(&expected.2), "jobs {jobs}: {got:?} {expected:?}");
            }
            assert_eq!(summary.more_notices, 0);
            // A `--full` row still carries all its notices, the prompt's first.
            let full: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
            let kinds: Vec<&str> = full["notices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["kind"].as_str().unwrap())
                .collect();
            assert_eq!(
                kinds,
                [
                    "duplicate_param",
                    "unresolved_reference",
                    "unresolved_reference",
                    "unresolved_reference",
                    "unsupported_param"
                ],
                "jobs {jobs}"
            );
        }
    }

    /// Past the cap, distinct notices are counted, not kept: a batch whose
    /// every row has a new one keeps memory flat; the count is the same
    /// whatever the threads.
    #[test]
    fn row_notices_past_the_cap_are_counted() {
        let prompt = "## user\nx[% for _ in range(pad) %]-[% endfor %] @h\n";
        // 2000 rows, each `@h` at its own column.
        let rows: String = (0..2000)
            .map(|i| {
                let pad = i;
                format!("{{\"state\": {{\"pad\": {pad}}}}}\n")
            })
            .collect();
        for jobs in [1, 3] {
            let (summary, lines) =
                run_with(prompt, rows.as_bytes(), |b| Batch { jobs, ..b }.max_notices(300));
            assert_eq!((summary.rows, summary.failed, lines.len()), (2000, 0, 2000));
            let rows: Vec<usize> = summary.notices.iter().map(|n| n.row).collect();
            assert_eq!(rows, (0..300).collect::<Vec<_>>(), "jobs {jobs}");
            assert_eq!(summary.more_notices, 1700, "jobs {jobs}");
        }
    }

    /// The Anthropic document is valid JSON whatever happens: no rows, every
    /// row failing, some failing.
    #[test]
    fn anthropic_batch_is_one_json_document() {
        let all_fail = "5\n[]\n";
        for (rows, requests, failed) in
            [("", 0, 0), (all_fail, 0, 2), ("{\"state\": {\"n\": 1}}\n5\n{}\n", 1, 2)]
        {
            let (summary, out, errors) =
                envelope(Provider::Anthropic, ANTHROPIC, rows, Format::AnthropicBatch, None, 2);
            let document: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(document["requests"].as_array().unwrap().len(), requests, "{out}");
            assert_eq!((summary.failed, errors.len()), (failed, failed));
        }
        let (_, out, _) =
            envelope(Provider::Anthropic, ANTHROPIC, "", Format::AnthropicBatch, None, 1);
        assert_eq!(out, "{\"requests\":[\n]}\n");
        let rows = "{\"state\": {\"n\": 1}}\n{\"state\": {\"n\": 2}}\n";
        let (_, out, _) =
            envelope(Provider::Anthropic, ANTHROPIC, rows, Format::AnthropicBatch, None, 1);
        let params = r#"{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"N"}]}]}"#;
        assert_eq!(
            out,
            format!(
                "{{\"requests\":[\n{{\"custom_id\":\"row-0\",\"params\":{}}},\n{{\"custom_id\":\"row-1\",\"params\":{}}}\n]}}\n",
                params.replace('N', "1"),
                params.replace('N', "2")
            )
        );
    }

    /// Ids from the rows: missing, not a string, refused by the API, or
    /// repeated is an error record for that row (the id's column in the
    /// row); the first row with an id keeps it, even when it fails to build;
    /// a repeated id wins over the row's build error; the id key is not part
    /// of the context, and another unknown key is still `invalid_json`.
    /// `run_lines` hands over the lines `run` writes, one per row in row
    /// order, unframed, each marked request or error record: so every
    /// output (the command line's files, the bindings' iterators) is the
    /// same lines.
    #[test]
    fn run_lines_are_the_lines_run_writes() {
        let rows = [
            r#"{"id": "a", "state": {"n": 1}}"#,
            r#"{"id": "b", "state": 5}"#,
            "\u{ff}not json",
            r#"{"id": "a", "state": {"n": 4}}"#,
            r#"{"id": "c", "state": {"n": 5}}"#,
        ]
        .join("\n");
        let cases = [
            (Provider::Anthropic, ANTHROPIC, Format::AnthropicBatch),
            (Provider::Anthropic, ANTHROPIC, Format::Bodies),
            (
                Provider::OpenAi,
                "/// param: model=gpt-4o-mini\n## user\n[[ n ]]\n",
                Format::OpenAiBatch,
            ),
            (
                Provider::Gemini,
                "/// param: model=gemini-2.5-flash\n## user\n[[ n ]]\n",
                Format::GeminiBatch,
            ),
        ];
        for (provider, prompt, format) in cases {
            let prompt = Pipeline::new(provider).prepare(Source::new(prompt)).unwrap();
            let compiled = prompt.compile().unwrap();
            let id_field = format.is_envelope().then_some("id");
            // Bodies carry no id: the same rows without theirs.
            let rows = match id_field {
                Some(_) => rows.clone(),
                None => ["a", "b", "c"].iter().fold(rows.clone(), |rows, id| {
                    rows.replace(&format!("\"id\": \"{id}\", "), "")
                }),
            };
            for jobs in [1, 3] {
                let batch = Batch::new(&compiled, 3, jobs)
                    .format(format)
                    .id_field(id_field)
                    .chunk_bytes(64);
                let (mut out, mut errors) = (Vec::new(), Vec::new());
                let summary = batch.run(rows.as_bytes(), &mut out, &mut errors, |_| {}).unwrap();
                let mut lines = Vec::new();
                let each = |line: RowLine<'_>| {
                    lines.push((
                        line.row,
                        line.error,
                        String::from_utf8(line.text.to_vec()).unwrap(),
                    ));
                    Ok(())
                };
                // The same summary, but for the files: `run_lines` writes none.
                let lined = batch.run_lines(rows.as_bytes(), each, |_| {}).unwrap();
                assert_eq!(summary.files.len(), 1);
                assert_eq!(lined, Summary { files: Vec::new(), ..summary });
                assert_eq!(lines.iter().map(|l| l.0).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
                let errors_of = |error: bool| -> Vec<&str> {
                    lines.iter().filter(|l| l.1 == error).map(|l| l.2.as_str()).collect()
                };
                let (requests, records) = (errors_of(false), errors_of(true));
                let kinds: Vec<_> = records.iter().map(|r| error(r)["kind"].clone()).collect();
                let text = String::from_utf8(out).unwrap();
                match format {
                    Format::Bodies => {
                        assert_eq!(kinds, ["invalid_json", "invalid_json"], "{format:?}");
                        let all: Vec<&str> = lines.iter().map(|l| l.2.as_str()).collect();
                        assert_eq!(text, all.join("\n") + "\n");
                    }
                    _ => {
                        assert_eq!(
                            kinds,
                            ["invalid_json", "invalid_json", "duplicate_id"],
                            "{format:?}"
                        );
                        assert_eq!(String::from_utf8(errors).unwrap(), records.join("\n") + "\n");
                        let framed = if format == Format::AnthropicBatch {
                            format!("{{\"requests\":[\n{}\n]}}\n", requests.join(",\n"))
                        } else {
                            requests.join("\n") + "\n"
                        };
                        assert_eq!(text, framed, "{format:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn ids_from_rows_are_checked() {
        let rows = [
            r#"{"id": "a", "state": {"n": 1}}"#,
            r#"{"state": {"n": 2}}"#,
            r#"{"state": {"n": 3}, "id": 7}"#,
            r#"{"id": "has space", "state": {"n": 4}}"#,
            r#"{"state": {"n": 5}, "id": "a"}"#,
            r#"{"id": "b"}"#,
            r#"{"id": "b", "state": {"n": 7}}"#,
            r#"{"id": "c", "state": {"n": 8}, "extra": 1}"#,
            r#"{"id": "d", "state": {"n": 9}}"#,
        ]
        .join("\n");
        let strict = "/// param: model=claude-sonnet-4-5, max_tokens=10\n## user\n[[ n ]]\n";
        let mut environment = minijinja_brackets::Environment::new();
        environment.set_strict(true);
        let pipeline = Pipeline::builder(Provider::Anthropic).environment(environment).build();
        let prompt = pipeline.prepare(Source::new(strict)).unwrap();
        let compiled = prompt.compile().unwrap();
        let mut runs = Vec::new();
        for jobs in [1, 3] {
            let batch = Batch::new(&compiled, 0, jobs)
                .format(Format::AnthropicBatch)
                .id_field(Some("id"))
                .chunk_bytes(100);
            let (mut out, mut errors) = (Vec::new(), Vec::new());
            let summary = batch.run(rows.as_bytes(), &mut out, &mut errors, |_| {}).unwrap();
            let summary = one_file(summary, &out);
            runs.push((summary, out, errors));
        }
        assert!(runs[0] == runs[1], "the output depends on the jobs");
        let (summary, out, errors) = &runs[0];
        assert_eq!(
            *summary,
            Summary { rows: 9, failed: 7, bytes: rows.len() as u64, ..Summary::default() }
        );
        let document: serde_json::Value = serde_json::from_slice(out).unwrap();
        let ids: Vec<&str> = document["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["custom_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["a", "d"]);
        let errors: Vec<serde_json::Value> = String::from_utf8(errors.clone())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let got: Vec<(u64, &str, u64, u64)> = errors
            .iter()
            .map(|e| {
                let error = &e["error"];
                (
                    e["row"].as_u64().unwrap(),
                    error["kind"].as_str().unwrap(),
                    error["line"].as_u64().unwrap(),
                    error["column"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "missing_id", 2, 1),
                (2, "invalid_id", 3, 27),
                (3, "invalid_id", 4, 8),
                (4, "duplicate_id", 5, 27),
                // Row 5 has no `n` (strict): it fails, but its id is taken.
                (5, "undefined_error", 3, 4),
                (6, "duplicate_id", 7, 8),
                // On the key beside `state` (the id is taken out first).
                (7, "invalid_json", 8, 32),
            ],
            "{errors:#?}"
        );
        assert_eq!(errors[1]["error"]["message"], "the id `id` must be a string, not a number");
        assert_eq!(errors[1]["error"]["snippet"], "7");
        assert_eq!(
            errors[3]["error"]["message"],
            "the id \"a\" is row 0's already: ids must be unique in a batch"
        );
        assert!(
            errors[6]["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("`extra` is beside `state`: a context is either"),
            "{}",
            errors[6]
        );
        assert_eq!(errors[6]["error"]["snippet"], "\"extra\"");
    }

    /// A row without `state`, `local` or `global` is the state store
    /// itself, its id key taken out first; one with a store beside other
    /// keys is an error on the first other key.
    #[test]
    fn rows_are_contexts_as_people_write_them() {
        let prompt = "/// param: model=gpt-5.4\n## user\n[[ name ]] [[ L.x ]]\n";
        let rows = "{\"name\": \"Ann\"}\n{\"state\": {\"name\": \"Bo\"}, \"local\": {\"x\": 1}}\n\
                    {\"local\": {}, \"name\": \"Cy\"}\n";
        let (summary, lines) = run_with(prompt, rows.as_bytes(), |batch| batch);
        assert_eq!(summary.failed, 1);
        assert!(lines[0].contains(r#""content":"Ann""#), "{}", lines[0]);
        assert!(lines[1].contains(r#""content":"Bo 1""#), "{}", lines[1]);
        let error: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
        assert_eq!(error["error"]["kind"], "invalid_json");
        assert_eq!(
            (error["error"]["line"].as_u64(), error["error"]["column"].as_u64()),
            (Some(3), Some(15))
        );
        let (summary, out, errors) = envelope(
            Provider::OpenAi,
            prompt,
            "{\"id\": \"a\", \"name\": \"Ann\"}\n{\"name\": \"Bo\", \"id\": \"b\", \"local\": {\"x\": 2}}\n",
            Format::OpenAiBatch,
            Some("id"),
            1,
        );
        assert_eq!((summary.failed, errors.len()), (1, 1));
        assert!(out.contains(r#""custom_id":"a""#) && out.contains("Ann"), "{out}");
        assert_eq!(
            (errors[0]["row"].as_u64(), errors[0]["error"]["column"].as_u64()),
            (Some(1), Some(2))
        );
    }

    /// A shard numbered from its first row writes what the whole batch
    /// writes for those rows: seeds, ids, records and their lines.
    #[test]
    fn a_shard_writes_what_the_whole_batch_writes_for_its_rows() {
        let prompt = "/// param: model=claude-sonnet-4-5, max_tokens=10\n## user\n[[ n ]][% chance 0.5 %]!\n[% endchance %]\n";
        let rows: Vec<String> = (0..40)
            .map(|i| {
                if i % 7 == 3 { "{\"state\": 5}\n".to_owned() } else { format!("{{\"n\": {i}}}\n") }
            })
            .collect();
        let compiled = Pipeline::new(Provider::Anthropic)
            .prepare(Source::new(prompt))
            .unwrap()
            .compile()
            .unwrap();
        let run = |rows: &[String], first_row: usize, jobs: usize| {
            let batch =
                Batch::new(&compiled, 9, jobs).format(Format::AnthropicBatch).first_row(first_row);
            let (mut out, mut errors) = (Vec::new(), Vec::new());
            batch.run(rows.concat().as_bytes(), &mut out, &mut errors, |_| {}).unwrap();
            let out = String::from_utf8(out).unwrap();
            let requests: Vec<String> = out
                .lines()
                .filter(|l| l.starts_with("{\"custom_id\""))
                .map(|l| l.trim_end_matches(',').to_owned())
                .collect();
            (requests, String::from_utf8(errors).unwrap())
        };
        let (whole, whole_errors) = run(&rows, 0, 1);
        for jobs in [1, 3] {
            let (head, head_errors) = run(&rows[..25], 0, jobs);
            let (tail, tail_errors) = run(&rows[25..], 25, jobs);
            assert_eq!([head, tail].concat(), whole);
            assert_eq!(head_errors + &tail_errors, whole_errors);
        }
        assert!(
            whole_errors.contains("\"row\":31") && whole_errors.contains("\"line\":32"),
            "{whole_errors}"
        );
    }

    /// `run_split`: every file is a whole file of its format within the
    /// limits (a request larger than the byte limit alone in its file),
    /// and the files hold exactly the requests of `run`'s one file, in
    /// order, whatever the number of threads; `Summary::files` says what
    /// each holds.
    #[test]
    fn split_files_hold_the_one_file_within_the_limits() {
        let rows: String = (0..30)
            .map(|i| match i % 11 {
                4 => "{\"state\": 5}\n".to_owned(),
                9 => format!("{{\"n\": \"{}\"}}\n", "long ".repeat(40)),
                _ => format!("{{\"n\": {i}}}\n"),
            })
            .collect();
        let cases = [
            (Provider::Anthropic, Format::AnthropicBatch),
            (Provider::OpenAi, Format::OpenAiBatch),
            (Provider::Gemini, Format::GeminiBatch),
        ];
        let requests = |format: Format, text: &str| -> Vec<serde_json::Value> {
            if format == Format::AnthropicBatch {
                let document: serde_json::Value = serde_json::from_str(text).unwrap();
                return document["requests"].as_array().unwrap().clone();
            }
            text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
        };
        for (provider, format) in cases {
            let prompt = "/// param: model=m, max_tokens=10\n## user\n[[ n ]]\n";
            let compiled =
                Pipeline::new(provider).prepare(Source::new(prompt)).unwrap().compile().unwrap();
            let (mut one, mut one_errors) = (Vec::new(), Vec::new());
            let batch = Batch::new(&compiled, 3, 1).format(format);
            let summary = batch.run(rows.as_bytes(), &mut one, &mut one_errors, |_| {}).unwrap();
            let one = String::from_utf8(one).unwrap();
            assert_eq!(summary.files, [BatchFile { requests: 27, bytes: one.len() as u64 }]);
            let whole = requests(format, &one);
            for (jobs, max_requests, max_bytes) in
                [(1, 4, u64::MAX), (3, usize::MAX, 400), (2, 5, 700)]
            {
                let batch = Batch::new(&compiled, 3, jobs).format(format);
                let files = std::cell::RefCell::new(Vec::<Vec<u8>>::new());
                let open = |n: usize| {
                    assert_eq!(n, files.borrow().len());
                    files.borrow_mut().push(Vec::new());
                    Ok(Shared(&files))
                };
                let mut errors = Vec::new();
                let summary = batch
                    .run_split(rows.as_bytes(), max_requests, max_bytes, open, &mut errors, |_| {})
                    .unwrap();
                assert_eq!(errors, one_errors, "{format:?}");
                let files = files.into_inner();
                assert!(files.len() > 1, "{format:?} {max_requests} {max_bytes}");
                assert_eq!(summary.files.len(), files.len());
                let mut all = Vec::new();
                for (file, said) in files.iter().zip(&summary.files) {
                    let text = std::str::from_utf8(file).unwrap();
                    let held = requests(format, text);
                    assert_eq!(*said, BatchFile { requests: held.len(), bytes: file.len() as u64 });
                    assert!(!held.is_empty() && held.len() <= max_requests);
                    assert!(file.len() as u64 <= max_bytes || held.len() == 1, "{text}");
                    all.extend(held);
                }
                assert_eq!(all, whole, "{format:?} {max_requests} {max_bytes}");
            }
        }
    }

    /// The last of the files a test's `open` made, as a writer.
    struct Shared<'a>(&'a std::cell::RefCell<Vec<Vec<u8>>>);

    impl Write for Shared<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().last_mut().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A batch that cannot be is refused before any row is read.
    #[test]
    fn impossible_batches_are_refused() {
        let prompt = Pipeline::new(Provider::Gemini).prepare(Source::new("## user\nHi\n")).unwrap();
        let compiled = prompt.compile().unwrap();
        let cases = [
            (
                Batch::new(&compiled, 0, 1).format(Format::OpenAiBatch),
                "openai-batch does not take gemini bodies",
            ),
            (
                Batch::new(&compiled, 0, 1).format(Format::GeminiBatch).messages(true),
                "gemini-batch holds request bodies, not messages",
            ),
            (
                Batch::new(&compiled, 0, 1).id_field(Some("id")),
                "an id field needs an envelope format: bodies carry no id",
            ),
            (
                Batch::new(&compiled, 0, 1).format(Format::GeminiBatch).id_field(Some("local")),
                "the id field cannot be `local`, a store of the context",
            ),
        ];
        for (batch, message) in cases {
            let (mut out, mut errors) = (Vec::new(), Vec::new());
            let err = batch.run(&b"{}\n"[..], &mut out, &mut errors, |_| {}).unwrap_err();
            assert_eq!(
                (err.kind(), err.to_string()),
                (io::ErrorKind::InvalidInput, message.to_owned())
            );
            assert!(out.is_empty() && errors.is_empty());
        }
    }

    /// Gemini's lines carry no model: the model is the batch's. A row
    /// cannot set one (its keys are the stores and the id): one that tries
    /// is an error record naming the key.
    #[test]
    fn gemini_batch_lines_are_key_and_request() {
        let prompt = "/// param: model=gemini-2.5-flash\n## user\n[[ n ]]\n";
        let rows = "{\"key\": \"k 1\", \"state\": {\"n\": 1}}\n\
                    {\"key\": \"k 2\", \"model\": \"gemini-2.5-pro\", \"state\": {\"n\": 2}}\n";
        let (summary, out, errors) =
            envelope(Provider::Gemini, prompt, rows, Format::GeminiBatch, Some("key"), 1);
        assert_eq!((summary.failed, errors.len()), (1, 1));
        assert_eq!(errors[0]["row"], 1);
        assert!(
            errors[0]["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("`model` is beside `state`"),
            "{}",
            errors[0]
        );
        assert_eq!(
            out,
            "{\"key\":\"k 1\",\"request\":{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"1\"}]}]}}\n"
        );
    }
}
