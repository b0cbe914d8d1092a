//! `prompt-suite render`: renders a bracket template (`minijinja-brackets`).

use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::hash::{BuildHasher, RandomState};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use prompt_suite::brackets::{
    Context, Environment, HistoryError, StateHistory, StoreWrite, Template,
};

use crate::args::RenderArgs;
use crate::context::{random_seed, read_context};
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// Runs `render`.
pub(crate) fn execute(args: RenderArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let source = input.text()?;
    let mut context = read_context(args.context.as_deref())?;
    let mut env = Environment::new();
    env.set_strict(args.strict);
    env.set_trim_blocks(args.trim_blocks);
    env.set_lstrip_blocks(args.lstrip_blocks);
    let template = env.compile(source).map_err(|err| input.report(&err))?;
    // What is printed counts against the output limit, whatever its form.
    let limit = env.limits().output_limit();

    // A commit holds the history's lock from reading it to saving it, so
    // that concurrent commits each record their message.
    let lock = match (&args.history, args.commit) {
        (Some(path), true) => Some(HistoryLock::acquire(path, LOCK_TIMEOUT)?),
        _ => None,
    };
    // The regenerate rule: message N renders from the state before N.
    let history = match &args.history {
        Some(path) => {
            let history = read_history(path, args.commit)?;
            let message = args.at.unwrap_or(history.len());
            context = history.context_at(message, &context).map_err(|err| misuse(&err, path))?;
            Some((path, history, message))
        }
        None => None,
    };

    if args.exact {
        let exact =
            template.distribution(&context, args.max_paths).map_err(|err| input.report(&err))?;
        return output::write_json_within(&exact, limit, "`render --exact`");
    }

    if let Some(samples) = args.samples {
        let start = args.seed.unwrap_or(0);
        let printed = sample(&template, &context, start, samples, limit, &input)?;
        return output::write_bytes(&printed);
    }

    let seed = args.seed.unwrap_or_else(random_seed);
    let outcome = template.render_outcome(&context, seed).map_err(|err| input.report(&err))?;
    // Each bare `[[name]]` tag that printed an undefined name, once per name.
    input.warn_all(&outcome.undefined);
    let commit_to = match (args.commit, history) {
        (true, Some((path, mut history, message))) => {
            commit(&mut history, message, &outcome.writes).map_err(|err| misuse(&err, path))?;
            Some((path, history))
        }
        _ => None,
    };
    // Encoded before saving: a render whose output is refused is not
    // recorded either.
    let printed = if args.json {
        let rendered = outcome.into_rendered(&context);
        output::json_within(&rendered, limit, "`render --json`")?
    } else {
        outcome.output.into_bytes()
    };
    if let Some((path, history)) = commit_to {
        save_history(path, &history)?;
    }
    drop(lock);
    output::write_bytes(&printed)
}

/// `--samples`: renders `samples` times from seed `start` and returns the
/// printed document, `{"samples": N, "outputs": {"<output>": count, ...}}`,
/// most frequent first; outputs seen equally often keep the order in which
/// they first appeared.
///
/// Only a fingerprint, a count, the first seed and the printed size of each
/// distinct output are kept; the outputs are rendered again, one at a time,
/// to print them. The document must fit the output limit: as soon as the
/// distinct outputs alone are longer, sampling stops with `output_limit`.
/// A render error is the template's, about `input`.
fn sample(
    template: &Template,
    context: &Context,
    start: u64,
    samples: u64,
    limit: usize,
    input: &Input,
) -> Result<Vec<u8>, Diagnostic> {
    const WHAT: &str = "`render --samples`";
    struct Seen {
        count: u64,
        seed: u64,
        fingerprint: u128,
    }
    let fingerprints = Fingerprints::new();
    let render = |seed: u64| match template.render_outcome(context, seed) {
        Ok(outcome) => Ok(outcome.output),
        Err(err) => Err(input.report(&err)),
    };
    let head = format!("{{\"samples\":{samples},\"outputs\":{{");
    // The document's size if every count had one digit: a lower bound.
    let mut least = head.len() + "}}\n".len();
    let mut index: HashMap<u128, usize> = HashMap::new();
    let mut seen: Vec<Seen> = Vec::new();
    for i in 0..samples {
        let seed = start.wrapping_add(i);
        let output = render(seed)?;
        let fingerprint = fingerprints.of(&output);
        if let Some(&at) = index.get(&fingerprint) {
            seen[at].count += 1;
            continue;
        }
        // `"<output>":1` and a comma between entries.
        least += json_len(&output) + 2 + usize::from(!seen.is_empty());
        if least > limit {
            return Err(output::over_limit(WHAT, limit));
        }
        index.insert(fingerprint, seen.len());
        seen.push(Seen { count: 1, seed, fingerprint });
    }
    drop(index);
    // Stable: equal counts stay in first-seen order.
    seen.sort_by_key(|s| std::cmp::Reverse(s.count));
    let mut out = output::Limited::new(limit);
    let _ = out.write_all(head.as_bytes());
    for (n, s) in seen.iter().enumerate() {
        let output = render(s.seed)?;
        if fingerprints.of(&output) != s.fingerprint {
            let message = format!("seed {} rendered another output the second time", s.seed);
            return Err(Diagnostic::new("internal", message));
        }
        let separator = if n == 0 { "" } else { "," };
        let _ = write!(out, "{separator}");
        let _ = serde_json::to_writer(&mut out, &output);
        let _ = write!(out, ":{}", s.count);
    }
    let _ = out.write_all(b"}}\n");
    if out.is_over() {
        return Err(output::over_limit(WHAT, limit));
    }
    Ok(out.into_bytes())
}

/// 128-bit fingerprints of outputs: two SipHash-1-3 hashes with independent
/// random keys, so that two different outputs share one with a chance of
/// about 2^-128 (they would be counted as one).
struct Fingerprints([RandomState; 2]);

impl Fingerprints {
    fn new() -> Fingerprints {
        Fingerprints([RandomState::new(), RandomState::new()])
    }

    fn of(&self, text: &str) -> u128 {
        let [high, low] = &self.0;
        u128::from(high.hash_one(text)) << 64 | u128::from(low.hash_one(text))
    }
}

/// How many bytes `text` takes as a JSON string, quotes included.
fn json_len(text: &str) -> usize {
    output::json_len_within(text, usize::MAX).unwrap_or(usize::MAX)
}

/// How long `--commit` waits for another commit to the same history file.
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// An exclusive lock on a history file, held from reading the file to
/// saving it. The lock is on a lock file beside it (`.NAME.lock`), not on
/// the history itself: saving renames a new file over the history, and a
/// lock on the old file would not hold the new one. The lock file is never
/// renamed or removed (removing it would let two processes lock two
/// files), and the lock ends when the process does, however it ends.
#[derive(Debug)]
struct HistoryLock {
    _file: File,
}

impl HistoryLock {
    /// Locks `path`'s lock file, retrying for up to `timeout`; never blocks
    /// longer.
    fn acquire(path: &Path, timeout: Duration) -> Result<HistoryLock, Diagnostic> {
        let lock_path = beside(path, ".lock");
        let io_error = |err: std::io::Error| {
            Diagnostic::new(
                "io_error",
                format!("cannot lock the history file with {}: {err}", lock_path.display()),
            )
            .with_origin(path.display().to_string())
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(io_error)?;
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
                    "another `render --commit` has held the history file for {} s \
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

/// An index error of a history operation (`--at` past the end), naming
/// the history file.
fn misuse(err: &HistoryError, path: &Path) -> Diagnostic {
    Diagnostic::of(err, None, path.display().to_string())
}

/// Reads a history file; with `--commit`, a file that does not exist yet
/// is an empty history (the commit creates it).
fn read_history(path: &Path, commit: bool) -> Result<StateHistory, Diagnostic> {
    if commit && !path.exists() {
        return Ok(StateHistory::new());
    }
    let input = Input::read(Some(path))?;
    StateHistory::from_json(input.text()?).map_err(|err| input.report(&err))
}

/// Stores `writes` on message `message`: a new message at the end, or a
/// new (active) swipe of an existing one.
fn commit(
    history: &mut StateHistory,
    message: usize,
    writes: &[StoreWrite],
) -> Result<(), HistoryError> {
    if message == history.len() {
        history.push_message();
    } else {
        history.add_swipe(message)?;
    }
    history.record_writes(message, writes)
}

/// A file in the same directory as `path`: `.NAME` followed by `suffix`.
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().map_or_else(|| "history".into(), |n| n.to_string_lossy());
    dir.join(format!(".{name}{suffix}"))
}

/// Saves atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over the old one, which survives any failure before.
fn save_history(path: &Path, history: &StateHistory) -> Result<(), Diagnostic> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = beside(path, &format!(".{}-{nanos}.tmp", std::process::id()));
    let mut json = history.to_json();
    json.push('\n');
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(json.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temp, path));
    written.map_err(|err| {
        // Best effort: the temporary file may not even exist.
        let _ = std::fs::remove_file(&temp);
        Diagnostic::new("io_error", format!("cannot save the history file: {err}"))
            .with_origin(path.display().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // A directory that does not exist cannot be locked.
        let missing = dir.path().join("no/h.json");
        assert_eq!(HistoryLock::acquire(&missing, Duration::ZERO).unwrap_err().kind(), "io_error");
    }

    #[test]
    fn fingerprints_tell_outputs_apart() {
        let fingerprints = Fingerprints::new();
        assert_eq!(fingerprints.of("a"), fingerprints.of("a"));
        assert_ne!(fingerprints.of("a"), fingerprints.of("b"));
        assert_ne!(fingerprints.of(""), fingerprints.of("\0"));
        assert_eq!(json_len("a\"\u{1}é"), 2 + 1 + 2 + 6 + 2);
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
