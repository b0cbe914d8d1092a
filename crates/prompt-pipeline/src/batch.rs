//! Many requests from one prompt: one template context per JSONL row, built
//! on several threads, written in input order, with memory flat in the
//! number of rows.
//!
//! Rows are read in chunks (1024 per thread); each chunk is split among
//! scoped threads sharing the [`Compiled`] prompt, and its output lines are
//! written in order before the next chunk is read. At most one chunk of rows
//! and results is ever in memory.

use std::io::{self, BufRead, Read, Write};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::Context;
use crate::pipeline::Compiled;

/// Rows per thread in one chunk: large enough that starting threads costs
/// nothing next to the work, small enough to keep memory flat.
const ROWS_PER_JOB: usize = 1024;

/// The default limit of one row: 16 MiB.
const MAX_ROW_BYTES: usize = 16 << 20;

/// A batch run: a compiled prompt, the seed of row 0 (row `i` uses
/// `seed + i`, wrapping) and the number of threads.
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    compiled: &'a Compiled<'a>,
    seed: u64,
    jobs: usize,
    max_row_bytes: usize,
}

/// How a batch went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Rows read.
    pub rows: usize,
    /// Rows whose line is an error record.
    pub failed: usize,
}

impl<'a> Batch<'a> {
    /// A batch of `compiled` with `seed` for row 0, on `jobs` threads (at
    /// least one).
    pub fn new(compiled: &'a Compiled<'a>, seed: u64, jobs: usize) -> Batch<'a> {
        Batch { compiled, seed, jobs: jobs.max(1), max_row_bytes: MAX_ROW_BYTES }
    }

    /// The same batch with rows limited to `max_row_bytes` (16 MiB by
    /// default); a longer row is not read into memory but skipped, and its
    /// line is a `row_too_large` error record.
    pub fn max_row_bytes(mut self, max_row_bytes: usize) -> Batch<'a> {
        self.max_row_bytes = max_row_bytes;
        self
    }

    /// Reads rows (one JSON context per line) from `rows` and writes one
    /// line per row to `out`: the request body (or the messages, when the
    /// provider stage is off), or the error record
    /// `{"row": i, "error": {"kind", "message", "line", "column", "snippet"}}`.
    /// A row that is not UTF-8 or not a context has its line and column in
    /// the rows; a row that fails to build has them in the prompt.
    /// `progress` is called after each chunk.
    ///
    /// # Errors
    ///
    /// Only reading `rows` or writing `out`; a failing row is a record.
    pub fn run(
        &self,
        mut rows: impl BufRead,
        out: &mut impl Write,
        mut progress: impl FnMut(&Summary),
    ) -> io::Result<Summary> {
        let chunk_rows = ROWS_PER_JOB * self.jobs;
        let mut summary = Summary::default();
        let mut lines: Vec<Option<Vec<u8>>> = Vec::with_capacity(chunk_rows);
        let mut bytes = Vec::new();
        loop {
            lines.clear();
            while lines.len() < chunk_rows {
                let mut line = Vec::new();
                let limit = self.max_row_bytes.saturating_add(1) as u64;
                if Read::take(&mut rows, limit).read_until(b'\n', &mut line)? == 0 {
                    break;
                }
                if line.len() > self.max_row_bytes && !line.ends_with(b"\n") {
                    // Over the limit: skip the rest of the line unread.
                    rows.skip_until(b'\n')?;
                    lines.push(None);
                } else {
                    lines.push(Some(line));
                }
            }
            if lines.is_empty() {
                return Ok(summary);
            }
            bytes.clear();
            for (ok, line) in self.chunk(summary.rows, &lines) {
                summary.failed += usize::from(!ok);
                bytes.extend_from_slice(&line);
            }
            summary.rows += lines.len();
            out.write_all(&bytes)?;
            out.flush()?;
            progress(&summary);
        }
    }

    /// Builds the rows of one chunk (`first` is the index of its first row)
    /// on up to `jobs` threads; the results are in row order.
    fn chunk(&self, first: usize, lines: &[Option<Vec<u8>>]) -> Vec<(bool, Vec<u8>)> {
        let mut results = vec![(true, Vec::new()); lines.len()];
        if self.jobs == 1 || lines.len() <= 1 {
            for (i, (line, result)) in lines.iter().zip(&mut results).enumerate() {
                *result = self.row(first + i, line);
            }
            return results;
        }
        let per_job = lines.len().div_ceil(self.jobs);
        std::thread::scope(|scope| {
            for (job, (lines, results)) in
                lines.chunks(per_job).zip(results.chunks_mut(per_job)).enumerate()
            {
                scope.spawn(move || {
                    for (i, (line, result)) in lines.iter().zip(results).enumerate() {
                        *result = self.row(first + job * per_job + i, line);
                    }
                });
            }
        });
        results
    }

    /// One output line: `(built, line)`; `None` is a row over the limit.
    fn row(&self, index: usize, line: &Option<Vec<u8>>) -> (bool, Vec<u8>) {
        let Some(line) = line else {
            let message = format!("the row is longer than {} bytes", self.max_row_bytes);
            let mut bytes = record(index, "row_too_large", &message, Some(index + 1), None, None);
            bytes.push(b'\n');
            return (false, bytes);
        };
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let seed = self.seed.wrapping_add(index as u64);
        let result =
            row_text(index, line).and_then(|text| row_context(index, text)).and_then(|context| {
                self.compiled.build(&context, seed).map_err(|err| {
                    record(
                        index,
                        err.kind().as_str(),
                        &err.message(),
                        err.line(),
                        err.column(),
                        err.snippet(),
                    )
                })
            });
        let (ok, mut bytes) = match result {
            Ok(output) => {
                let body = match &output.request {
                    Some(built) => serde_json::to_vec(&built.body),
                    None => serde_json::to_vec(&output.messages),
                };
                (true, body.unwrap_or_default())
            }
            Err(record) => (false, record),
        };
        bytes.push(b'\n');
        (ok, bytes)
    }
}

fn row_text(index: usize, line: &[u8]) -> Result<&str, Vec<u8>> {
    std::str::from_utf8(line).map_err(|err| {
        let column = String::from_utf8_lossy(&line[..err.valid_up_to()]).chars().count() + 1;
        record(
            index,
            "invalid_utf8",
            "the row is not valid UTF-8",
            Some(index + 1),
            Some(column),
            Some(""),
        )
    })
}

fn row_context(index: usize, text: &str) -> Result<Context, Vec<u8>> {
    serde_json::from_str::<Context>(text).map_err(|err| {
        let at = text.floor_char_boundary(err.column().saturating_sub(1));
        let column = text[..at].chars().count() + 1;
        let snippet: String = text[at..].chars().take(40).collect();
        // serde_json ends its message with the position; the record has its own.
        let message = err.to_string();
        let message = message.rfind(" at line ").map_or(message.as_str(), |at| &message[..at]);
        record(
            index,
            "invalid_json",
            &format!("the row is not a context: {message}"),
            Some(index + 1),
            Some(column),
            Some(&snippet),
        )
    })
}

/// `{"row": i, "error": {...}}`, the error in the command line's shape.
fn record(
    row: usize,
    kind: &str,
    message: &str,
    line: Option<usize>,
    column: Option<usize>,
    snippet: Option<&str>,
) -> Vec<u8> {
    let record = json!({"row": row, "error": {
        "kind": kind,
        "message": message,
        "line": line,
        "column": column,
        "snippet": snippet,
    }});
    serde_json::to_vec(&record).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pipeline, Provider, Source};

    fn run(rows: &[u8], jobs: usize, max_row_bytes: usize) -> (Summary, String) {
        let pipeline = Pipeline::new(Provider::OpenAi);
        let prompt = pipeline.prepare(Source::new("## user\n[[ n ]]\n")).unwrap();
        let compiled = prompt.compile().unwrap();
        let batch = Batch::new(&compiled, 0, jobs).max_row_bytes(max_row_bytes);
        let mut out = Vec::new();
        let summary = batch.run(rows, &mut out, |_| {}).unwrap();
        (summary, String::from_utf8(out).unwrap())
    }

    #[test]
    fn every_row_gets_one_line_in_order() {
        let rows = b"{\"state\": {\"n\": 1}}\r\n\xff\n{\"state\": {\"n\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}\n{\"state\": {\"n\": 4}}";
        let (summary, out) = run(rows, 2, 40);
        assert_eq!(summary, Summary { rows: 4, failed: 2 });
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], r#"{"messages":[{"role":"user","content":"1"}]}"#);
        assert!(lines[1].starts_with(r#"{"row":1,"error":{"kind":"invalid_utf8""#), "{}", lines[1]);
        assert!(
            lines[2].starts_with(r#"{"row":2,"error":{"kind":"row_too_large""#),
            "{}",
            lines[2]
        );
        assert_eq!(lines[3], r#"{"messages":[{"role":"user","content":"4"}]}"#);
    }

    #[test]
    fn no_rows_no_output() {
        assert_eq!(run(b"", 3, 100), (Summary::default(), String::new()));
    }
}
