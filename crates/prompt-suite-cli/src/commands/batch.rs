//! `prompt-suite batch`: one request body per JSONL row of contexts, in
//! input order, on every core, with memory flat in the number of rows.
//!
//! The prompt is prepared and its template compiled once. Rows are read in
//! chunks; each chunk is split among `--jobs` scoped threads that share the
//! compiled prompt, and the chunk's lines are written in order before the
//! next is read, so at most one chunk of rows and results is in memory.

use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;

use prompt_suite::pipeline::{Compiled, Context};
use serde_json::json;

use crate::args::InputArg;
use crate::commands::build::{PipelineArgs, diagnostic, random_seed};
use crate::diagnostic::{Diagnostic, Reportable};
use crate::input::Input;

/// Rows per worker in one chunk: large enough that starting threads costs
/// nothing next to the work, small enough to keep memory flat.
const ROWS_PER_JOB: usize = 1024;

/// `batch`: one request per row.
#[derive(Debug, clap::Args)]
pub(crate) struct BatchArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// The rows: one template context per line (JSONL); `-` is standard input.
    #[arg(long, value_name = "ROWS.jsonl")]
    pub(crate) rows: PathBuf,

    /// The seed of row 0; row i uses N+i (random when absent).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,

    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<NonZeroUsize>,

    #[command(flatten)]
    pub(crate) pipeline: PipelineArgs,
}

/// Runs `batch`. Exit code 0 when every row built, 1 when any row failed
/// (its line holds `{"row": i, "error": {...}}`) or the prompt itself is
/// rejected (nothing is written then).
pub(crate) fn execute(args: BatchArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let pipeline = args.pipeline.pipeline();
    let source = args.pipeline.source(&pipeline, &input)?;
    let prompt_text = source.text().to_owned();
    let reject = |err| diagnostic(&err, &input, Some(&prompt_text), None);
    let prompt = pipeline.prepare(source).map_err(reject)?;
    let compiled = prompt.compile().map_err(reject)?;
    let rows: Box<dyn Read> = if args.rows.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        let file = std::fs::File::open(&args.rows).map_err(|err| {
            Diagnostic::new("io_error", format!("cannot read {}: {err}", args.rows.display()))
        })?;
        Box::new(file)
    };
    let jobs = args
        .jobs
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get);
    let batch = Batch { compiled: &compiled, seed: args.seed.unwrap_or_else(random_seed), jobs };
    let summary = batch.run(BufReader::new(rows), &mut io::stdout().lock(), &args.rows)?;
    if summary.failed > 0 {
        return Err(Diagnostic::new(
            "batch_failed",
            format!(
                "{} of {} rows failed; their lines in the output are error records",
                summary.failed, summary.rows
            ),
        ));
    }
    Ok(())
}

struct Batch<'a> {
    compiled: &'a Compiled<'a>,
    seed: u64,
    jobs: usize,
}

struct Summary {
    rows: usize,
    failed: usize,
}

impl Batch<'_> {
    fn run(
        &self,
        mut rows: impl BufRead,
        out: &mut impl Write,
        rows_path: &std::path::Path,
    ) -> Result<Summary, Diagnostic> {
        let progress = io::stderr().is_terminal();
        let chunk_rows = ROWS_PER_JOB * self.jobs;
        let mut summary = Summary { rows: 0, failed: 0 };
        let mut lines: Vec<Vec<u8>> = Vec::with_capacity(chunk_rows);
        loop {
            lines.clear();
            while lines.len() < chunk_rows {
                let mut line = Vec::new();
                let read = rows.read_until(b'\n', &mut line).map_err(|err| {
                    Diagnostic::new(
                        "io_error",
                        format!("cannot read {}: {err}", rows_path.display()),
                    )
                })?;
                if read == 0 {
                    break;
                }
                lines.push(line);
            }
            if lines.is_empty() {
                break;
            }
            let results = self.chunk(summary.rows, &lines);
            let mut bytes = Vec::new();
            for (ok, line) in &results {
                summary.failed += usize::from(!ok);
                bytes.extend_from_slice(line);
            }
            summary.rows += lines.len();
            match out.write_all(&bytes).and_then(|()| out.flush()) {
                Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return Ok(summary),
                Err(err) => {
                    return Err(Diagnostic::new(
                        "io_error",
                        format!("cannot write standard output: {err}"),
                    ));
                }
                Ok(()) => {}
            }
            if progress {
                eprint!("\r{} rows, {} failed", summary.rows, summary.failed);
            }
        }
        if progress {
            eprintln!();
        }
        Ok(summary)
    }

    /// Builds the rows of one chunk (`first` is the index of its first row)
    /// on up to `jobs` threads; the results are in row order.
    fn chunk(&self, first: usize, lines: &[Vec<u8>]) -> Vec<(bool, Vec<u8>)> {
        let mut results = vec![(true, Vec::new()); lines.len()];
        let per_job = lines.len().div_ceil(self.jobs).max(1);
        if self.jobs == 1 || lines.len() <= 1 {
            for (i, (line, result)) in lines.iter().zip(&mut results).enumerate() {
                *result = self.row(first + i, line);
            }
            return results;
        }
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

    /// One output line: the body, or the row's error record.
    fn row(&self, index: usize, line: &[u8]) -> (bool, Vec<u8>) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let seed = self.seed.wrapping_add(index as u64);
        let result = std::str::from_utf8(line)
            .map_err(|err| {
                error_record(
                    index,
                    "invalid_utf8",
                    "the row is not valid UTF-8",
                    index + 1,
                    {
                        let valid = &line[..err.valid_up_to()];
                        String::from_utf8_lossy(valid).chars().count() + 1
                    },
                    "",
                )
            })
            .and_then(|text| {
                serde_json::from_str::<Context>(text).map_err(|err| {
                    let column_byte = err.column().saturating_sub(1).min(text.len());
                    let mut at = column_byte;
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    let column = text[..at].chars().count() + 1;
                    let snippet: String = text[at..].chars().take(40).collect();
                    error_record(
                        index,
                        "invalid_json",
                        &format!("the row is not a context: {}", without_position(&err)),
                        index + 1,
                        column,
                        &snippet,
                    )
                })
            })
            .and_then(|context| {
                self.compiled.build(&context, seed).map_err(|err| {
                    let record = json!({"row": index, "error": {
                        "kind": err.kind_name(),
                        "message": Reportable::message(&err),
                        "line": err.line(),
                        "column": err.column(),
                        "snippet": err.snippet(),
                    }});
                    serde_json::to_vec(&record).unwrap_or_default()
                })
            });
        match result {
            Ok(output) => {
                let body = match &output.request {
                    Some(built) => serde_json::to_vec(&built.body),
                    None => serde_json::to_vec(&output.messages),
                };
                let mut bytes = body.unwrap_or_default();
                bytes.push(b'\n');
                (true, bytes)
            }
            Err(mut record) => {
                record.push(b'\n');
                (false, record)
            }
        }
    }
}

/// `{"row": i, "error": {...}}` for a row that is not a context; its line
/// and column are in the rows file.
fn error_record(
    row: usize,
    kind: &str,
    message: &str,
    line: usize,
    column: usize,
    snippet: &str,
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

/// serde_json's message without its ` at line L column C` suffix (the
/// record has its own line and column).
fn without_position(err: &serde_json::Error) -> String {
    let message = err.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}
