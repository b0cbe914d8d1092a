//! `prompt-suite batch`: one request body per JSONL row of contexts, in
//! input order, on every core, with memory flat in the number and the size
//! of the rows (`prompt_pipeline::Batch` does the work), bare or in a
//! provider's batch-file envelope (`--format`). The prompt is prepared and
//! its template compiled once.

use std::cell::RefCell;
use std::io::{self, BufReader, BufWriter, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use prompt_suite::pipeline::{Batch, BatchFile, Context, Format, Summary};
use same_file::Handle;

use crate::args::BatchArgs;
use crate::context::{define, read_context, read_source, seed};
use crate::diagnostic::Diagnostic;
use crate::output;
use crate::prompt::{diagnostic, source, transcript, warn_notices, warn_row_notices};

/// Runs `batch`. Exit code 0 when every row built, 1 when any row failed
/// (its record `{"row": i, "error": {...}}` is its line of the output, or
/// with an envelope a line of `--errors` or standard error) or the prompt
/// itself is rejected (nothing is written then).
pub(crate) fn execute(args: BatchArgs) -> Result<(), Diagnostic> {
    // An `--errors` file that is an input is said as such before anything
    // is read (and checked again once created, below).
    if let Some(path) = &args.errors {
        not_an_input(path, &args, output::target().as_deref())?;
    }
    let input = read_source(&args.input)?;
    let run = crate::context::run_files(&[
        ("the rows file", Some(args.rows.as_path())),
        ("the error records", args.errors.as_deref()),
        ("the transcript", args.transcript.transcript.as_deref()),
    ]);
    let pipeline = crate::prompt::pipeline(
        &args.pipeline,
        &args.template,
        &args.provider,
        &args.framing,
        &args.tools,
        &args.chat,
        run,
    )?;
    let source = source(&args.pipeline, &pipeline, &input)?;
    let prompt_text = source.text().to_owned();
    let reject = |err| diagnostic(&err, &input, None);
    let prompt = pipeline.prepare(source).map_err(reject)?;
    // The prompt's own notices hold for every row: say them once.
    warn_notices(prompt.notices(), &input, &prompt_text);
    let compiled = prompt.compile().map_err(reject)?;
    let transcript = transcript(&args.transcript)?;
    // The size of a rows file is known (not of a pipe): progress has an ETA.
    let (rows, size): (Box<dyn Read>, _) = if args.rows.as_os_str() == "-" {
        (Box::new(io::stdin().lock()), None)
    } else {
        let file = std::fs::File::open(&args.rows).map_err(|err| {
            Diagnostic::new("io_error", format!("cannot read {}: {err}", args.rows.display()))
        })?;
        let size = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        (Box::new(file), size)
    };
    let jobs = args
        .jobs
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get);
    let format = args.format();
    let base = read_context(args.input.context.as_deref())?;
    let mut over = Context::default();
    define(&mut over, &args.input.defines);
    // A drawn seed N lies below 2^52, so that every row's seed N+i stays
    // below 2^53 (exact in every JSON reader) in any batch that can be run.
    let seed = match args.template.seed {
        Some(given) => given,
        None => seed(None)? >> 1,
    };
    let batch = Batch::new(&compiled, seed, jobs)
        .messages(args.output.messages)
        .full(args.output.full)
        .context(&base, &over)
        .transcript(transcript.as_ref().map(|(_, transcript)| transcript))
        .format(format)
        .id_field(args.id_field.as_deref());
    // Progress on a terminal, in every format: what goes to the terminal
    // (error records on standard error, lines on a terminal standard
    // output) is printed above the bar, whole lines at a time.
    let mut progress = io::stderr().is_terminal().then(|| Progress::new(size));
    let bar = progress.as_ref().map(|progress| progress.bar.clone());
    // Error records apart from the output: to `--errors`, else standard
    // error.
    let mut errors: Box<dyn Write> = match &args.errors {
        Some(path) => {
            let to = output::target();
            not_an_input(path, &args, to.as_deref())?;
            let file = std::fs::File::create(path).map_err(|err| {
                Diagnostic::new("io_error", format!("cannot write {}: {err}", path.display()))
            })?;
            // A new `--errors` file is the `-o` file only if named so; it
            // is created now, so the names can be compared by what they open.
            if let Err(err) = not_an_input(path, &args, to.as_deref()) {
                // It did not exist before the first check: not the user's.
                let _ = std::fs::remove_file(path);
                return Err(err);
            }
            Box::new(BufWriter::with_capacity(64 << 10, file))
        }
        None => Box::new(AboveBar::new(bar.clone(), io::stderr().lock())),
    };
    let report = |summary: &Summary| {
        if let Some(progress) = &mut progress {
            progress.update(summary);
        }
    };
    let rows = BufReader::new(rows);
    let ran = match &args.split_into {
        Some(base) => split(&batch, &args, base, rows, &mut errors, report),
        None => {
            // Lines go out in 64 KiB writes, not one write per line (above
            // the bar when they go to the terminal the bar is on).
            let on_terminal = output::target().is_none() && io::stdout().is_terminal();
            let out = BufWriter::with_capacity(64 << 10, output::Writer);
            let mut out = AboveBar::new(bar.filter(|_| on_terminal), out);
            let ran = batch.run(rows, &mut out, &mut errors, report);
            ran.and_then(|summary| out.flush().map(|()| (summary, Vec::new())))
        }
    };
    let (summary, parts) = match ran {
        Ok(ran) => ran,
        // The reader of the output has what it wanted.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        Err(err) => {
            return Err(Diagnostic::new("io_error", format!("batch: {err}")));
        }
    };
    if let Some(progress) = progress {
        progress.finish(&summary);
    }
    for (n, file) in summary.files.iter().enumerate() {
        let name = parts.get(n).map(|(path, _)| path.as_path());
        if let Some(warning) = over_limits(format, file, name) {
            crate::diagnostic::warn(warning);
        }
    }
    // Each distinct row notice once for the whole batch, with its first row.
    warn_row_notices(&summary, &input, &prompt_text);
    drop(errors);
    // What the included templates noticed, once for the whole batch.
    warn_notices(&compiled.include_notices(), &input, &prompt_text);
    // The error records are output too: `-o` takes them, failed rows or not.
    output::commit()?;
    if let Some(base) = &args.split_into {
        commit_parts(base, parts)?;
    }
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

/// `batch_limit`: a batch file (`name`d with `--split`) with more requests
/// or bytes than its provider takes in one file.
fn over_limits(format: Format, file: &BatchFile, name: Option<&Path>) -> Option<Diagnostic> {
    let most_requests = format.max_requests().unwrap_or(usize::MAX);
    let most_bytes = format.max_bytes()?;
    if file.requests <= most_requests && file.bytes <= most_bytes {
        return None;
    }
    let said = match format.max_requests() {
        Some(most) => format!("{most} requests and {most_bytes} bytes"),
        None => format!("{most_bytes} bytes"),
    };
    let (requests, bytes, format) = (file.requests, file.bytes, format.as_str());
    let (what, fix) = match name {
        Some(name) => (
            format!("{format} file {}", name.display()),
            "one request is larger than that on its own",
        ),
        None => (
            format!("{format} file"),
            "pass `--split` (with `-o FILE`) to write numbered files within the limits",
        ),
    };
    Some(Diagnostic::new(
        "batch_limit",
        format!(
            "the {what} holds {requests} requests in {bytes} bytes, over {said} a file; \
             the provider refuses it: {fix}"
        ),
    ))
}

/// The name of file `n` (from 0) of `batch --split -o BASE`: `out.jsonl`
/// gives `out-0001.jsonl`, `out` gives `out-0001`.
fn part_name(base: &Path, n: usize) -> PathBuf {
    let stem = base.file_stem().map_or_else(|| "batch".into(), |stem| stem.to_string_lossy());
    let name = match base.extension() {
        Some(ext) => format!("{stem}-{:04}.{}", n + 1, ext.to_string_lossy()),
        None => format!("{stem}-{:04}", n + 1),
    };
    base.with_file_name(name)
}

/// The files of `batch --split` being written, each replaced atomically
/// once the batch is done ([`commit_parts`]), removed if it fails.
type Parts = Rc<RefCell<Vec<(PathBuf, output::AtomicFile)>>>;

/// The file of a split batch being written (the last one opened).
struct Part(Parts);

impl Write for Part {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.0.borrow_mut().last_mut() {
            Some((_, file)) => file.write(buf),
            None => Err(io::Error::other("no batch file is open")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.0.borrow_mut().last_mut() {
            Some((_, file)) => file.flush(),
            None => Ok(()),
        }
    }
}

/// Runs `batch` with `--split`: the requests in numbered files named after
/// `base`, within the format's limits (lowered by `--max-requests` and
/// `--max-bytes`).
fn split(
    batch: &Batch<'_>,
    args: &BatchArgs,
    base: &Path,
    rows: impl io::BufRead,
    errors: &mut impl Write,
    report: impl FnMut(&Summary),
) -> io::Result<(Summary, Vec<(PathBuf, output::AtomicFile)>)> {
    let format = args.format();
    let given = args.max_requests.map_or(usize::MAX, NonZeroUsize::get);
    let max_requests = format.max_requests().map_or(given, |most| most.min(given));
    let given = args.max_bytes.map_or(u64::MAX, std::num::NonZeroU64::get);
    let max_bytes = format.max_bytes().map_or(given, |most| most.min(given));
    let parts: Parts = Rc::default();
    let open = |n: usize| {
        let path = part_name(base, n);
        let file = output::AtomicFile::create(&path).map_err(|err| {
            io::Error::new(err.kind(), format!("cannot write {}: {err}", path.display()))
        })?;
        parts.borrow_mut().push((path, file));
        Ok(Part(Rc::clone(&parts)))
    };
    let summary = batch.run_split(rows, max_requests, max_bytes, open, errors, report)?;
    let parts = std::mem::take(&mut *parts.borrow_mut());
    Ok((summary, parts))
}

/// Replaces each file of a split batch with what was written, and prints
/// their names, one a line. A file of the next number left by an earlier
/// run is `warning[stale_batch_file]`: it is not part of this batch.
fn commit_parts(base: &Path, parts: Vec<(PathBuf, output::AtomicFile)>) -> Result<(), Diagnostic> {
    let count = parts.len();
    let mut names = String::new();
    for (path, file) in parts {
        file.commit().map_err(|err| {
            Diagnostic::new("io_error", format!("cannot write {}: {err}", path.display()))
        })?;
        names.push_str(&path.display().to_string());
        names.push('\n');
    }
    let next = part_name(base, count);
    if std::fs::symlink_metadata(&next).is_ok() {
        crate::diagnostic::warn(Diagnostic::new(
            "stale_batch_file",
            format!(
                "{} is not part of this batch of {count} file(s): an earlier run left it",
                next.display()
            ),
        ));
    }
    output::write_bytes(names.as_bytes())
}

/// Lines for the terminal the progress bar is on: written whole, with the
/// bar cleared and redrawn below them, so no line runs onto the bar's. A
/// line's end waits for its newline; without a bar, a plain writer.
struct AboveBar<W: Write> {
    bar: Option<ProgressBar>,
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> AboveBar<W> {
    fn new(bar: Option<ProgressBar>, inner: W) -> AboveBar<W> {
        AboveBar { bar, inner, pending: Vec::new() }
    }

    /// Writes `bytes` and flushes, with the bar out of the way.
    fn emit(&mut self, bytes: &[u8]) -> io::Result<()> {
        let inner = &mut self.inner;
        let mut write = || inner.write_all(bytes).and_then(|()| inner.flush());
        match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }
}

impl<W: Write> Write for AboveBar<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bar.is_none() {
            return self.inner.write(buf);
        }
        self.pending.extend_from_slice(buf);
        if let Some(last) = self.pending.iter().rposition(|&b| b == b'\n') {
            let lines: Vec<u8> = self.pending.drain(..=last).collect();
            self.emit(&lines)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        if rest.is_empty() { self.inner.flush() } else { self.emit(&rest) }
    }
}

impl<W: Write> Drop for AboveBar<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Refuses an `--errors` file that is one of the batch's inputs (the rows
/// file, the prompt, `--tools`, `--response-schema`, `--transcript`), the
/// `-o` file or standard output: creating it would empty what is being
/// read or written (or the `-o` file would replace it at the end). Files
/// are compared by device and inode, so no other name of the same file
/// (a link, `./x`, `/dev/fd/N`) gets through.
fn not_an_input(path: &Path, args: &BatchArgs, output: Option<&Path>) -> Result<(), Diagnostic> {
    // A file that does not exist yet is none of them.
    let Ok(errors) = Handle::from_path(path) else { return Ok(()) };
    let named_file = |p: &Path| p.as_os_str() != "-";
    let inputs = [
        ("the rows file", Some(args.rows.as_path())),
        ("the prompt", args.input.path()),
        ("the --tools file", args.tools.tools.as_deref()),
        ("the --response-schema file", args.tools.response_schema.as_deref()),
        ("the --transcript file", args.transcript.transcript.as_deref()),
        ("the -o output", output),
    ];
    let named = inputs
        .into_iter()
        .filter_map(|(what, path)| path.filter(|p| named_file(p)).map(|p| (what, p)));
    let mut same = named.filter(|(_, other)| Handle::from_path(other).is_ok_and(|h| h == errors));
    let what = match same.next() {
        Some((what, _)) => what,
        None if Handle::stdout().is_ok_and(|h| h == errors) => "standard output",
        None if Handle::stdin().is_ok_and(|h| h == errors) => "standard input",
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

/// The progress line of rows whose size is known, and of other rows.
const SIZED: &str = "{wide_bar} {percent:>3}%  {msg}  ETA {eta}";
const UNSIZED: &str = "{spinner} {msg}";

/// `batch`'s progress on a terminal: the rows, failures and rate always;
/// with the size of the rows known (a file), a bar and the time left, by
/// the bytes read.
struct Progress {
    bar: ProgressBar,
    started: Instant,
    /// When the message was last set: at most ten times a second.
    shown: Option<Instant>,
}

impl Progress {
    fn new(size: Option<u64>) -> Progress {
        let (bar, template) = match size {
            Some(size) => (ProgressBar::new(size), SIZED),
            None => (ProgressBar::no_length(), UNSIZED),
        };
        // Both templates parse (a test says so).
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_draw_target(ProgressDrawTarget::stderr());
        Progress { bar, started: Instant::now(), shown: None }
    }

    fn update(&mut self, summary: &Summary) {
        let now = Instant::now();
        if self.shown.is_some_and(|at| now.duration_since(at) < Duration::from_millis(100)) {
            return;
        }
        self.shown = Some(now);
        self.bar.set_position(summary.bytes);
        self.bar.set_message(message(summary, now.duration_since(self.started)));
    }

    /// Leaves the last count on the terminal.
    fn finish(self, summary: &Summary) {
        self.bar.set_position(summary.bytes);
        self.bar.abandon_with_message(message(summary, self.started.elapsed()));
        // The bar's line ends here: warnings and errors start below it.
        if !self.bar.is_hidden() {
            eprintln!();
        }
    }
}

/// `1200 rows, 3 failed, 400 rows/s`.
fn message(summary: &Summary, elapsed: Duration) -> String {
    let rate = summary.rows as f64 / elapsed.as_secs_f64().max(1e-3);
    format!("{} rows, {} failed, {rate:.0} rows/s", summary.rows, summary.failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_has_count_failures_and_rate() {
        let summary = Summary { rows: 1200, failed: 3, bytes: 0, ..Summary::default() };
        assert_eq!(message(&summary, Duration::from_secs(3)), "1200 rows, 3 failed, 400 rows/s");
        // No division by zero at the start.
        let start = Summary::default();
        assert_eq!(message(&start, Duration::ZERO), "0 rows, 0 failed, 0 rows/s");
    }

    #[test]
    fn lines_above_the_bar_go_out_whole() {
        let bar = ProgressBar::hidden();
        let mut above = AboveBar::new(Some(bar), Vec::new());
        above.write_all(b"{\"row\": 0}\n{\"ro").unwrap();
        assert_eq!(above.inner, b"{\"row\": 0}\n");
        above.write_all(b"w\": 1}\n").unwrap();
        assert_eq!(above.inner, b"{\"row\": 0}\n{\"row\": 1}\n");
        above.write_all(b"tail").unwrap();
        above.flush().unwrap();
        assert!(above.inner.ends_with(b"tail"));
    }

    #[test]
    fn batch_files_past_a_provider_limit_are_warned_about() {
        let over = |format, requests, bytes, name: Option<&str>| {
            over_limits(format, &BatchFile { requests, bytes }, name.map(Path::new))
        };
        assert!(over(Format::OpenAiBatch, 50_000, 200_000_000, None).is_none());
        let warning = over(Format::OpenAiBatch, 50_001, 10, None).unwrap();
        assert_eq!(warning.kind(), "batch_limit");
        assert!(warning.message().contains("50001 requests"), "{}", warning.message());
        assert!(warning.message().contains("pass `--split`"), "{}", warning.message());
        let warning = over(Format::OpenAiBatch, 1, 200_000_001, Some("out-0002.jsonl")).unwrap();
        assert!(warning.message().contains("file out-0002.jsonl holds 1 requests"));
        assert!(warning.message().contains("one request is larger"), "{}", warning.message());
        assert!(over(Format::AnthropicBatch, 100_000, 256_000_001, None).is_some());
        assert!(over(Format::GeminiBatch, 10_000_000, 1, None).is_none());
        assert!(over(Format::GeminiBatch, 1, 2_000_000_001, None).is_some());
        assert!(over(Format::Bodies, usize::MAX, u64::MAX, None).is_none());
    }

    #[test]
    fn split_files_are_named_after_the_output() {
        let name = |base: &str, n| part_name(Path::new(base), n).display().to_string();
        assert_eq!(name("out.jsonl", 0), "out-0001.jsonl");
        assert_eq!(name("dir/out.json", 11), "dir/out-0012.json");
        assert_eq!(name("out", 9_999), "out-10000");
        assert_eq!(name("a.b.jsonl", 0), "a.b-0001.jsonl");
    }

    #[test]
    fn both_templates_are_valid() {
        for template in [SIZED, UNSIZED] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }
}
