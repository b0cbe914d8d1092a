//! The state history file that `render --history` reads and `--commit`
//! writes, and that the `state` subcommands read and edit: reading it,
//! locking it against concurrent writers, saving it atomically.

use std::fs::{File, TryLockError};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use prompt_suite::brackets::{Context, HistoryError, StateHistory, StoreWrite};
use prompt_suite::segment::{ErrorKind, Root};

use crate::args::HistoryArgs;
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// How long a writer waits for another one on the same history file.
pub(crate) const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// An exclusive lock on a history file, held from reading the file to
/// saving it. The lock is on a lock file beside it (`.NAME.lock`), not on
/// the history itself: saving renames a new file over the history, and a
/// lock on the old file would not hold the new one. The lock file is never
/// renamed or removed (removing it would let two processes lock two
/// files), and the lock ends when the process does, however it ends.
#[derive(Debug)]
pub(crate) struct HistoryLock {
    _file: File,
}

impl HistoryLock {
    /// Locks `path`'s lock file, retrying for up to `timeout`; never blocks
    /// longer.
    pub(crate) fn acquire(path: &Path, timeout: Duration) -> Result<HistoryLock, Diagnostic> {
        let lock_path = beside(path, ".lock");
        let io_error = |err: std::io::Error| {
            Diagnostic::new(
                "io_error",
                format!("cannot lock the history file with {}: {err}", lock_path.display()),
            )
            .with_origin(path.display().to_string())
        };
        let not_a_lock = |what: &str| {
            Diagnostic::new(
                "history_locked",
                format!(
                    "the history's lock {} is {what}, not a regular file; nothing was recorded \
                     (remove it if no other writer is running)",
                    lock_path.display()
                ),
            )
            .with_origin(path.display().to_string())
        };
        let file = open_lock(&lock_path).map_err(|err| match err {
            LockOpen::Io(err) => io_error(err),
            LockOpen::Link => not_a_lock("a symbolic link"),
            LockOpen::Dir => not_a_lock("a directory"),
        })?;
        match file.metadata() {
            Ok(meta) if meta.is_file() => {}
            Ok(meta) if meta.is_dir() => return Err(not_a_lock("a directory")),
            Ok(_) => return Err(not_a_lock("a FIFO, socket or device")),
            Err(err) => return Err(io_error(err)),
        }
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(HistoryLock { _file: file }),
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(err)) => return Err(io_error(err)),
            }
            let waited = started.elapsed();
            if waited >= timeout {
                let message = format!(
                    "another `render --commit` or `state` edit has held the history file for {} s \
                     (its lock is {}); nothing was recorded",
                    timeout.as_secs_f64(),
                    lock_path.display()
                );
                return Err(Diagnostic::new("history_locked", message)
                    .with_origin(path.display().to_string()));
            }
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

/// Why the lock file could not be opened.
enum LockOpen {
    /// It is a symbolic link (never followed).
    Link,
    /// It is a directory.
    Dir,
    Io(std::io::Error),
}

/// Opens (creating it) the lock file `lock_path` for reading and writing,
/// beneath its directory's handle and never through a link: a planted
/// `.NAME.lock` symlink cannot make a lock (or a file) appear anywhere else.
/// Never blocks (a FIFO put there is opened without waiting, then refused
/// by the caller as not a regular file).
#[cfg(unix)]
fn open_lock(lock_path: &Path) -> Result<File, LockOpen> {
    use rustix::fs::{Mode, OFlags};
    let dir = match lock_path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = lock_path.file_name().unwrap_or_default();
    let dir = File::open(dir).map_err(LockOpen::Io)?;
    let flags = OFlags::RDWR
        | OFlags::CREATE
        | OFlags::NOFOLLOW
        | OFlags::CLOEXEC
        | OFlags::NONBLOCK
        | OFlags::NOCTTY;
    match rustix::fs::openat(&dir, name, flags, Mode::from_bits_truncate(0o666)) {
        Ok(fd) => Ok(File::from(fd)),
        Err(rustix::io::Errno::LOOP) => Err(LockOpen::Link),
        Err(rustix::io::Errno::ISDIR) => Err(LockOpen::Dir),
        Err(errno) => Err(LockOpen::Io(errno.into())),
    }
}

/// Elsewhere, the lock file opened by its path.
#[cfg(not(unix))]
fn open_lock(lock_path: &Path) -> Result<File, LockOpen> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path)
        .map_err(LockOpen::Io)
}

/// An index error of a history operation (`--at` past the end), naming
/// the history file.
/// The state history of one render (`render` and `build` take
/// `--history FILE [--at N] [--commit]` alike): read before the render,
/// written after it with `--commit`, under the history's lock from reading
/// to saving so that concurrent commits each record their message.
#[derive(Debug)]
pub(crate) struct Opened<'a> {
    path: &'a Path,
    history: StateHistory,
    /// The message the render is: `--at N`, else a new one.
    message: usize,
    commit: bool,
    _lock: Option<HistoryLock>,
}

impl<'a> Opened<'a> {
    /// Opens the history of `args`, when one is given, and sets `context`
    /// to the state message N renders with (the regenerate rule: the state
    /// before N, over the context's own state).
    pub(crate) fn open(
        args: &'a HistoryArgs,
        context: &mut Context,
    ) -> Result<Option<Opened<'a>>, Diagnostic> {
        let Some(path) = &args.history else { return Ok(None) };
        let lock = match args.commit {
            true => Some(HistoryLock::acquire(path, LOCK_TIMEOUT)?),
            false => None,
        };
        let history = read_history(path, args.commit)?;
        let message = args.at.unwrap_or(history.len());
        *context = history.context_at(message, context).map_err(|err| misuse(&err, path))?;
        Ok(Some(Opened { path, history, message, commit: args.commit, _lock: lock }))
    }

    /// With `--commit`, stores `writes` on the message: a new message at
    /// the end, or a new (active) swipe of message N. Nothing is saved yet.
    pub(crate) fn record(&mut self, writes: &[StoreWrite]) -> Result<(), Diagnostic> {
        if !self.commit {
            return Ok(());
        }
        let (history, message) = (&mut self.history, self.message);
        let added = if message == history.len() {
            history.push_message();
            Ok(())
        } else {
            history.add_swipe(message).map(drop)
        };
        added
            .and_then(|()| history.record_writes(message, writes))
            .map_err(|err| misuse(&err, self.path))
    }

    /// With `--commit`, saves the history atomically; then the lock ends.
    pub(crate) fn save(self) -> Result<(), Diagnostic> {
        if self.commit {
            save_history(self.path, &self.history)?;
        }
        Ok(())
    }
}

pub(crate) fn misuse(err: &HistoryError, path: &Path) -> Diagnostic {
    Diagnostic::of(err, None).with_origin(path.display().to_string())
}

/// Reads a history file; with `--commit`, a file that does not exist yet
/// is an empty history (the commit creates it).
pub(crate) fn read_history(path: &Path, commit: bool) -> Result<StateHistory, Diagnostic> {
    if commit && !path.exists() {
        return Ok(StateHistory::new());
    }
    let input = read_history_file(path)?;
    StateHistory::from_json(input.text()?).map_err(|err| input.report(&err))
}

/// The most bytes a history file may have (the attachment limit's total).
const HISTORY_BYTES: u64 = 256 << 20;

/// The bytes of the history file, opened through narrative-segment's
/// `Root` (the suite's one safe opener): a FIFO, device or directory is
/// `not_a_file`, never opened for reading, so never waited on, even when
/// swapped in after a check; a link is followed only within the file's
/// directory (the save replaces the link by a file anyway).
fn read_history_file(path: &Path) -> Result<Input, Diagnostic> {
    let origin = path.display().to_string();
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned());
    let bytes = name
        .ok_or_else(|| Diagnostic::new("io_error", format!("{origin} names no file")))
        .and_then(|name| {
            Root::open(dir).and_then(|root| root.read(&name, HISTORY_BYTES)).map_err(
                |err| match err.kind() {
                    // A missing history is the missing file it is, not an
                    // attachment a narrative names.
                    ErrorKind::MissingEntry => Diagnostic::new(
                        "io_error",
                        format!("cannot read {origin}: {}", std::io::ErrorKind::NotFound),
                    ),
                    _ => Diagnostic::of(&err, None).with_origin(origin.clone()),
                },
            )
        })?;
    Ok(Input::from_bytes(origin, bytes))
}

/// A file in the same directory as `path`: `.NAME` followed by `suffix`.
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().map_or_else(|| "history".into(), |n| n.to_string_lossy());
    dir.join(format!(".{name}{suffix}"))
}

/// Saves atomically ([`output::AtomicFile`]): the old file survives any
/// failure before the rename.
pub(crate) fn save_history(path: &Path, history: &StateHistory) -> Result<(), Diagnostic> {
    let mut json = history.to_json();
    json.push('\n');
    let written = output::AtomicFile::create(path).and_then(|mut file| {
        file.write_all(json.as_bytes())?;
        file.commit()
    });
    written.map_err(|err| {
        Diagnostic::new("io_error", format!("cannot save the history file: {err}"))
            .with_origin(path.display().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `state get x --history FIFO` waited forever on the FIFO.
    #[cfg(unix)]
    #[test]
    fn a_fifo_history_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("h.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let err = read_history(&fifo, false).unwrap_err();
        assert_eq!(err.kind(), "not_a_file");
        let err = read_history(&fifo, true).unwrap_err();
        assert_eq!(err.kind(), "not_a_file");
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn saving_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.json");
        std::fs::write(&path, "old").unwrap();
        let mut history = StateHistory::new();
        history.push_message();
        save_history(&path, &history).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{}\n", history.to_json()));
        assert_eq!(files(dir.path()), ["h.json"]);
    }

    #[test]
    fn a_held_lock_times_out_with_a_typed_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.json");
        let held = HistoryLock::acquire(&path, Duration::ZERO).unwrap();
        assert_eq!(files(dir.path()), [".h.json.lock"]);
        let err = HistoryLock::acquire(&path, Duration::from_millis(30)).unwrap_err();
        assert_eq!(err.kind(), "history_locked");
        assert!(err.message().contains(".h.json.lock"), "{}", err.message());
        // Released with its holder; the lock file stays for the next one.
        drop(held);
        let again = HistoryLock::acquire(&path, Duration::ZERO).unwrap();
        drop(again);
        assert_eq!(files(dir.path()), [".h.json.lock"]);
        // A planted link is never followed (it made `state set` create
        // files anywhere), nor a FIFO or directory taken for a lock.
        #[cfg(unix)]
        {
            let victim = dir.path().join("victim");
            let linked = dir.path().join("l.json");
            std::os::unix::fs::symlink(&victim, dir.path().join(".l.json.lock")).unwrap();
            let err = HistoryLock::acquire(&linked, Duration::ZERO).unwrap_err();
            assert_eq!(err.kind(), "history_locked");
            assert!(err.message().contains("symbolic link"), "{}", err.message());
            assert!(!victim.exists());
            std::fs::create_dir(dir.path().join(".d.json.lock")).unwrap();
            let err = HistoryLock::acquire(&dir.path().join("d.json"), Duration::ZERO).unwrap_err();
            assert_eq!(err.kind(), "history_locked");
            let fifo = dir.path().join(".f.json.lock");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let err = HistoryLock::acquire(&dir.path().join("f.json"), Duration::ZERO).unwrap_err();
            assert_eq!(err.kind(), "history_locked");
            assert!(err.message().contains("not a regular file"), "{}", err.message());
        }
        // A directory that does not exist cannot be locked.
        let missing = dir.path().join("no/h.json");
        assert_eq!(HistoryLock::acquire(&missing, Duration::ZERO).unwrap_err().kind(), "io_error");
    }

    #[test]
    fn a_failed_save_keeps_the_old_file_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        // Renaming a file over a non-empty directory fails.
        let path = dir.path().join("h.json");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("keep"), "old").unwrap();
        let err = save_history(&path, &StateHistory::new()).unwrap_err();
        assert_eq!(err.kind(), "io_error");
        assert_eq!(std::fs::read_to_string(path.join("keep")).unwrap(), "old");
        assert_eq!(files(dir.path()), ["h.json"]);
        // A directory that does not exist: nothing is created.
        let missing = dir.path().join("no/such/dir/h.json");
        assert_eq!(save_history(&missing, &StateHistory::new()).unwrap_err().kind(), "io_error");
        assert_eq!(files(dir.path()), ["h.json"]);
    }
}
