//! `prompt-suite batch`: one request body per JSONL row of contexts, in
//! input order, on every core, with memory flat in the number and the size
//! of the rows (`prompt_pipeline::Batch` does the work), bare or in a
//! provider's batch-file envelope (`--format`). The prompt is prepared and
//! its template compiled once.

use std::io::{self, BufReader, BufWriter, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::Path;

use prompt_suite::pipeline::{Batch, Summary};
use same_file::Handle;

use crate::args::BatchArgs;
use crate::context::random_seed;
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::prompt::{diagnostic, source, warn_notices};

/// Runs `batch`. Exit code 0 when every row built, 1 when any row failed
/// (its record `{"row": i, "error": {...}}` is its line of the output, or
/// with an envelope a line of `--errors` or standard error) or the prompt
/// itself is rejected (nothing is written then).
pub(crate) fn execute(args: BatchArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let pipeline = crate::prompt::pipeline(&args.pipeline)?;
    let source = source(&args.pipeline, &pipeline, &input)?;
    let prompt_text = source.text().to_owned();
    let reject = |err| diagnostic(&err, &input, None);
    let prompt = pipeline.prepare(source).map_err(reject)?;
    // The prompt's own notices hold for every row: say them once.
    warn_notices(prompt.notices(), &input, &prompt_text);
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
    let format = args.format();
    let batch = Batch::new(&compiled, args.seed.unwrap_or_else(random_seed), jobs)
        .messages(args.pipeline.messages)
        .format(format)
        .id_field(args.id_field.as_deref());
    // Error records apart from the output: to `--errors`, else standard
    // error (then without the progress count, which would cut into them).
    let mut errors: Box<dyn Write> = match &args.errors {
        Some(path) => {
            not_an_input(path, &args)?;
            let file = std::fs::File::create(path).map_err(|err| {
                Diagnostic::new("io_error", format!("cannot write {}: {err}", path.display()))
            })?;
            Box::new(BufWriter::with_capacity(64 << 10, file))
        }
        None => Box::new(BufWriter::with_capacity(64 << 10, io::stderr().lock())),
    };
    let records_on_stderr = format.is_envelope() && args.errors.is_none();
    let show_progress = io::stderr().is_terminal() && !records_on_stderr;
    let progress = |summary: &Summary| {
        if show_progress {
            eprint!("\r{} rows, {} failed", summary.rows, summary.failed);
        }
    };
    // Lines go out in 64 KiB writes, not one write per line.
    let mut out = BufWriter::with_capacity(64 << 10, io::stdout().lock());
    let summary = match batch.run(BufReader::new(rows), &mut out, &mut errors, progress) {
        Ok(summary) => summary,
        // The reader of the output has what it wanted.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        Err(err) => {
            return Err(Diagnostic::new("io_error", format!("batch: {err}")));
        }
    };
    if show_progress {
        eprintln!();
    }
    // Each undefined `[[name]]` once for the whole batch.
    warn_notices(&summary.undefined, &input, &prompt_text);
    drop(errors);
    if summary.failed > 0 {
        let place = match &args.errors {
            _ if !format.is_envelope() => "their lines in the output are error records".to_owned(),
            Some(path) => format!("their error records are in {}", path.display()),
            None => "their error records are above, on standard error".to_owned(),
        };
        return Err(Diagnostic::new(
            "batch_failed",
            format!("{} of {} rows failed; {place}", summary.failed, summary.rows),
        ));
    }
    Ok(())
}

/// Refuses an `--errors` file that is the rows file, the prompt or standard
/// output: creating it would empty what is being read or written.
fn not_an_input(path: &Path, args: &BatchArgs) -> Result<(), Diagnostic> {
    // A file that does not exist yet is none of them.
    let Ok(errors) = Handle::from_path(path) else { return Ok(()) };
    let rows = (args.rows.as_os_str() != "-").then_some(("the rows file", args.rows.as_path()));
    let prompt = args.input.file.as_deref().filter(|p| p.as_os_str() != "-");
    let named = rows.into_iter().chain(prompt.map(|p| ("the prompt", p)));
    let mut same = named.filter(|(_, other)| Handle::from_path(other).is_ok_and(|h| h == errors));
    let what = match same.next() {
        Some((what, _)) => what,
        None if Handle::stdout().is_ok_and(|h| h == errors) => "standard output",
        None => return Ok(()),
    };
    Err(Diagnostic::new(
        "same_file",
        format!(
            "--errors {} is {what}: writing it would overwrite what the batch reads or writes",
            path.display()
        ),
    ))
}
