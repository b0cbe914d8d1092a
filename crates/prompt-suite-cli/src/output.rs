//! Writing results: to standard output, or to the file of `-o/--output`.
//!
//! A closed pipe (`prompt-suite ... | head`) is not an error: the reader has
//! what it wanted, so the write stops quietly and the exit code stays 0.
//!
//! With `-o FILE` ([`to_file`]) everything a command prints goes to a
//! temporary file beside `FILE` ([`AtomicFile`]), which [`commit`] renames
//! over it once the command has succeeded and [`discard`] removes otherwise:
//! `FILE` is either left as it was or replaced whole, never half written.
//! [`AtomicFile`] is also how the state history is saved. A terminating
//! signal (any but `SIGKILL`, `SIGSTOP` and `SIGPIPE`) while one is pending
//! removes its temporary file, then lets the signal end the process as it
//! would have. An existing `FILE` that is not a regular file (a FIFO, a
//! device, `/dev/stdout`) is written in place, as a shell redirection
//! writes it; `-o -` is standard output.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use serde::Serialize;

use crate::diagnostic::Diagnostic;

/// The `-o` file being written, if any; every write of [`Writer`] goes
/// there instead of standard output.
static FILE: Mutex<Option<OutputFile>> = Mutex::new(None);

fn file() -> MutexGuard<'static, Option<OutputFile>> {
    FILE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where `-o FILE` writes: a regular file (or a new one, or a link) is
/// replaced atomically; an existing file that is not a regular file (a
/// FIFO, a device such as `/dev/null`, also through a link such as
/// `/dev/stdout`) is written in place, as a shell redirection writes it.
#[derive(Debug)]
enum OutputFile {
    Atomic(AtomicFile),
    InPlace { file: BufWriter<File>, target: PathBuf },
}

impl OutputFile {
    fn target(&self) -> &Path {
        match self {
            OutputFile::Atomic(atomic) => &atomic.target,
            OutputFile::InPlace { target, .. } => target,
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            OutputFile::Atomic(atomic) => atomic,
            OutputFile::InPlace { file, .. } => file,
        }
    }
}

/// Sends what the command prints to `path` from now on (`-` is standard
/// output): a temporary file beside it is created at once, so that a
/// directory that cannot take it is said before any work; an existing file
/// that is not a regular file is opened for writing in place instead.
///
/// # Errors
///
/// An `io_error` diagnostic naming `path` when the temporary file cannot
/// be created, or the file written in place cannot be opened (a directory).
pub fn to_file(path: &Path) -> Result<(), Diagnostic> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    let opened = match in_place(path) {
        Some(opened) => opened.map_err(|err| cannot_write(path, &err))?,
        None => {
            OutputFile::Atomic(AtomicFile::create(path).map_err(|err| cannot_write(path, &err))?)
        }
    };
    *file() = Some(opened);
    Ok(())
}

/// The output written in place when `path` exists (through links) and is
/// not a regular file; `None` when it is to be replaced atomically. A
/// directory is an error; what is opened is looked at again on the handle,
/// so a regular file put there meanwhile is still replaced atomically
/// (opening it for writing without truncating it changed nothing).
fn in_place(path: &Path) -> Option<io::Result<OutputFile>> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        return None;
    }
    if meta.is_dir() {
        return Some(Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory")));
    }
    let file = match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(file) => file,
        Err(err) => return Some(Err(err)),
    };
    match file.metadata() {
        Ok(meta) if meta.is_file() => None,
        Ok(_) => Some(Ok(OutputFile::InPlace {
            file: BufWriter::with_capacity(64 << 10, file),
            target: path.to_owned(),
        })),
        Err(err) => Some(Err(err)),
    }
}

/// Replaces the `-o` file with what was written (nothing to do without
/// `-o`, or once committed).
///
/// # Errors
///
/// An `io_error` diagnostic naming the file when it cannot be replaced; it
/// is then left as it was.
pub fn commit() -> Result<(), Diagnostic> {
    let Some(output) = file().take() else { return Ok(()) };
    match output {
        OutputFile::Atomic(atomic) => {
            let path = atomic.target.clone();
            atomic.commit().map_err(|err| cannot_write(&path, &err))
        }
        OutputFile::InPlace { mut file, target } => match file.flush() {
            Err(err) if err.kind() != io::ErrorKind::BrokenPipe => Err(cannot_write(&target, &err)),
            _ => Ok(()),
        },
    }
}

/// The `-o` file, while it is being written.
pub fn target() -> Option<PathBuf> {
    file().as_ref().map(|output| output.target().to_owned())
}

/// Forgets what was written for the `-o` file, which stays as it was (a
/// file written in place keeps what was written into it).
pub fn discard() {
    drop(file().take());
}

fn cannot_write(path: &Path, err: &io::Error) -> Diagnostic {
    Diagnostic::new("io_error", format!("cannot write {}: {err}", path.display()))
}

/// The command's output, as a writer: the `-o` file when there is one, else
/// standard output. Unbuffered (each write takes a lock): wrap it in a
/// `BufWriter` for many small writes.
#[derive(Debug, Default, Clone, Copy)]
pub struct Writer;

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut *file() {
            Some(output) => output.writer().write(buf),
            None => io::stdout().lock().write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut *file() {
            Some(output) => output.writer().write_all(buf),
            None => io::stdout().lock().write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut *file() {
            Some(output) => output.writer().flush(),
            None => io::stdout().lock().flush(),
        }
    }
}

/// Writes `bytes` to the output exactly, then flushes.
///
/// # Errors
///
/// An `io_error` diagnostic for any failure but a closed pipe.
pub fn write_bytes(bytes: &[u8]) -> Result<(), Diagnostic> {
    match Writer.write_all(bytes).and_then(|()| Writer.flush()) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => Err(cannot_write_output(&err)),
        _ => Ok(()),
    }
}

/// Writes `value` as one JSON document followed by a newline, encoding it
/// straight into the output (no copy of the document in memory).
///
/// # Errors
///
/// As [`write_bytes`]; also an `internal` diagnostic if the value cannot be
/// represented as JSON (a map with non-string keys).
pub fn write_json<T: Serialize + ?Sized>(value: &T) -> Result<(), Diagnostic> {
    let mut out = BufWriter::with_capacity(64 << 10, Writer);
    let written = match serde_json::to_writer(&mut out, value) {
        Err(err) if !err.is_io() => {
            return Err(Diagnostic::new("internal", format!("cannot encode the result: {err}")));
        }
        // serde_json hands back the writer's own error.
        Err(err) => Err(io::Error::from(err)),
        Ok(()) => out.write_all(b"\n").and_then(|()| out.flush()),
    };
    match written {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => Err(cannot_write_output(&err)),
        _ => Ok(()),
    }
}

/// The `io_error` of a failed write of the output.
pub fn cannot_write_output(err: &io::Error) -> Diagnostic {
    let target = match &*file() {
        Some(output) => output.target().display().to_string(),
        None => "standard output".to_owned(),
    };
    Diagnostic::new("io_error", format!("cannot write {target}: {err}"))
}

/// A file replaced atomically: written to a temporary file in the same
/// directory (so the rename cannot cross file systems), flushed to disk,
/// then renamed over the target, which survives any failure before that.
/// Dropped without [`AtomicFile::commit`], the temporary file is removed.
///
/// The new file keeps the permissions of the one it replaces; a new target
/// gets what the umask gives any new file.
#[derive(Debug)]
pub struct AtomicFile {
    file: BufWriter<File>,
    temp: tempfile::TempPath,
    target: PathBuf,
    /// Dropped after `temp` (fields drop in order): the file is removed
    /// before it leaves the list a signal empties.
    _pending: Pending,
}

/// The temporary files of the [`AtomicFile`]s alive now; a terminating
/// signal removes them (see [`watch_signals`]).
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file's place in [`PENDING`], for as long as it exists.
#[derive(Debug)]
struct Pending(PathBuf);

impl Pending {
    fn new(path: &Path) -> Pending {
        pending().push(path.to_owned());
        Pending(path.to_owned())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = pending();
        if let Some(i) = pending.iter().position(|p| *p == self.0) {
            pending.swap_remove(i);
        }
    }
}

/// Every signal whose default action ends the process and that a process
/// can catch, except `SIGPIPE` (a closed output is not an error): `SIGKILL`
/// and `SIGSTOP` cannot be caught, and a fault signal (`SIGILL`, `SIGFPE`,
/// `SIGSEGV`) cannot be waited for by a thread.
#[cfg(unix)]
const TERMINATING: &[std::ffi::c_int] = {
    use signal_hook::consts::signal::*;
    &[
        SIGHUP,
        SIGINT,
        SIGQUIT,
        SIGTRAP,
        SIGABRT,
        SIGBUS,
        SIGUSR1,
        SIGUSR2,
        SIGALRM,
        SIGTERM,
        SIGXCPU,
        SIGXFSZ,
        SIGVTALRM,
        SIGPROF,
        SIGSYS,
        #[cfg(any(target_os = "linux", target_os = "android"))]
        SIGIO,
    ]
};

/// Starts, once, the thread that waits for a terminating signal (Ctrl-C,
/// `SIGTERM`, `SIGHUP`, `SIGQUIT`, `SIGUSR1`, ...: [`TERMINATING`]): it
/// removes every pending temporary file, then ends the process by the same
/// signal (its default action), so the exit status says what killed it.
/// Only commands that write a file start it.
fn watch_signals() {
    static WATCHING: OnceLock<()> = OnceLock::new();
    WATCHING.get_or_init(|| {
        #[cfg(unix)]
        {
            let Ok(mut signals) = signal_hook::iterator::Signals::new(TERMINATING) else {
                return;
            };
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    for path in pending().drain(..) {
                        let _ = std::fs::remove_file(path);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            });
        }
    });
}

impl AtomicFile {
    /// Starts replacing `target`: creates the temporary file
    /// `.NAME.XXXXXX.tmp` beside it (a new name, opened exclusively).
    ///
    /// # Errors
    ///
    /// When the directory does not exist or cannot take a new file.
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let name = target.file_name().map_or_else(|| "output".into(), |n| n.to_string_lossy());
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            // Not through a link: the rename replaces the link itself.
            let old = std::fs::symlink_metadata(target).ok().filter(|m| m.is_file());
            old.map_or(0o666, |m| m.permissions().mode() & 0o7777)
        };
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(mode));
        // The watcher first, so no signal finds the file made and unwatched.
        watch_signals();
        let (file, temp) = builder.tempfile_in(dir)?.into_parts();
        let pending = Pending::new(&temp);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // The umask narrowed the mode at creation; an old file's
            // permissions are kept exactly.
            if mode != 0o666 {
                file.set_permissions(std::fs::Permissions::from_mode(mode))?;
            }
        }
        Ok(AtomicFile {
            file: BufWriter::with_capacity(64 << 10, file),
            temp,
            target: target.into(),
            _pending: pending,
        })
    }

    /// Writes the rest, flushes it to disk and renames it over the target.
    ///
    /// # Errors
    ///
    /// When writing, syncing or renaming fails; the target is then as it
    /// was and the temporary file removed.
    pub fn commit(self) -> io::Result<()> {
        let AtomicFile { file, temp, target, _pending } = self;
        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        // On failure the error holds the temporary path, which its drop
        // removes.
        temp.persist(&target).map_err(|err| err.error)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// How many bytes `value` takes as JSON (without a newline), if at most
/// `limit`: counted, not kept, and the count stops at the limit.
pub fn json_len_within<T: Serialize + ?Sized>(value: &T, limit: usize) -> Option<usize> {
    let mut count = Counter { bytes: 0, limit };
    serde_json::to_writer(&mut count, value).ok().map(|()| count.bytes)
}

/// A writer that only counts, up to a limit.
struct Counter {
    bytes: usize,
    limit: usize,
}

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len();
        if self.bytes > self.limit {
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, "over the limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Encodes `value` as one JSON document followed by a newline, if that
/// takes at most `limit` bytes; the encoding stops as soon as it would not,
/// so memory stays within the limit whatever the value holds.
///
/// `what` names the output in the `output_limit` error, e.g.
/// "`render --json`".
///
/// # Errors
///
/// `output_limit` past the limit; `internal` if the value cannot be
/// represented as JSON.
pub fn json_within<T: Serialize + ?Sized>(
    value: &T,
    limit: usize,
    what: &str,
) -> Result<Vec<u8>, Diagnostic> {
    let mut out = Limited::new(limit);
    let encoded = serde_json::to_writer(&mut out, value);
    if encoded.is_ok() {
        // Past the limit, the writer says so in `over`.
        let _ = out.write_all(b"\n");
    }
    if out.over {
        return Err(over_limit(what, limit));
    }
    encoded
        .map_err(|err| Diagnostic::new("internal", format!("cannot encode the result: {err}")))?;
    Ok(out.bytes)
}

/// [`json_within`], written to the output as [`write_bytes`] does.
///
/// # Errors
///
/// As [`json_within`] and [`write_bytes`].
pub fn write_json_within<T: Serialize + ?Sized>(
    value: &T,
    limit: usize,
    what: &str,
) -> Result<(), Diagnostic> {
    write_bytes(&json_within(value, limit, what)?)
}

/// The `output_limit` error of an output `what` over `limit` bytes.
pub fn over_limit(what: &str, limit: usize) -> Diagnostic {
    Diagnostic::new(
        "output_limit",
        format!("{what} would print more than {limit} bytes, the template's output limit"),
    )
}

/// A writer into memory that refuses to hold more than its limit.
#[derive(Debug)]
pub struct Limited {
    bytes: Vec<u8>,
    limit: usize,
    over: bool,
}

impl Limited {
    /// An empty buffer that holds at most `limit` bytes.
    pub fn new(limit: usize) -> Limited {
        Limited { bytes: Vec::new(), limit, over: false }
    }

    /// Whether a write was refused.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

impl Write for Limited {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            self.over = true;
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, "over the output limit"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_within_stops_at_the_limit() {
        let value = serde_json::json!({"a": "x".repeat(10)});
        let exact = json_within(&value, 19, "it").unwrap();
        assert_eq!(exact, b"{\"a\":\"xxxxxxxxxx\"}\n");
        let err = json_within(&value, 18, "`it`").unwrap_err();
        assert_eq!(err.kind(), "output_limit");
        assert_eq!(
            err.message(),
            "`it` would print more than 18 bytes, the template's output limit"
        );
        assert_eq!(json_len_within(&value, 18), Some(18));
        assert_eq!(json_len_within(&value, 17), None);
        // Escapes count as what they print.
        let control = "\u{1}".repeat(3);
        assert!(json_within(&control, 3 * 6 + 2, "c").is_err());
        assert!(json_within(&control, 3 * 6 + 3, "c").is_ok());
    }
}
