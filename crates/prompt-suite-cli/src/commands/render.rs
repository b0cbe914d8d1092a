//! `prompt-suite render`: renders a bracket template (`minijinja-brackets`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use prompt_suite::brackets::{
    Distribution, Environment, Error, HistoryError, Rendered, StateHistory,
};

use crate::args::InputArg;
use crate::commands::template_context::{random_seed, read_context};
use crate::diagnostic::{Diagnostic, Reportable};
use crate::input::Input;
use crate::output;

/// Arguments of `render`.
#[derive(Debug, clap::Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// A JSON file with the stores: `{"state": {...}, "local": {...}, "global": {...}}`,
    /// each key optional.
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) context: Option<PathBuf>,

    /// The random seed for `chance`/`weighted` blocks; random when absent (0 with --samples).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,

    /// Print the output, the stores after rendering, the writes and the effects as JSON.
    #[arg(long, conflicts_with = "samples")]
    pub(crate) json: bool,

    /// Render N times with seeds S..S+N-1 and print how often each output occurs.
    #[arg(long, value_name = "N", conflicts_with = "exact")]
    pub(crate) samples: Option<u64>,

    /// Print the exact probability of each output, enumerating every random path.
    #[arg(long, conflicts_with_all = ["json", "seed", "commit"])]
    pub(crate) exact: bool,

    /// The most random paths --exact renders before giving up.
    #[arg(long, value_name = "N", requires = "exact", default_value_t = Distribution::DEFAULT_MAX_PATHS)]
    pub(crate) max_paths: usize,

    /// A state history file: render with its effective state (over the --context state).
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) history: Option<PathBuf>,

    /// Render message N of the history (reading the state before it) instead of a new one.
    #[arg(long, value_name = "N", requires = "history")]
    pub(crate) at: Option<usize>,

    /// Record the writes in the history file: a new message, or with --at a new swipe of N.
    #[arg(long, requires = "history", conflicts_with = "samples")]
    pub(crate) commit: bool,

    /// Printing or iterating an undefined value is an error.
    #[arg(long)]
    pub(crate) strict: bool,

    /// Remove the first newline after a statement tag or comment (Jinja's trim_blocks).
    #[arg(long)]
    pub(crate) trim_blocks: bool,

    /// Remove indentation before a statement tag or comment (Jinja's lstrip_blocks).
    #[arg(long)]
    pub(crate) lstrip_blocks: bool,
}

impl Reportable for HistoryError {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        HistoryError::message(self).to_owned()
    }

    fn position(&self) -> Option<(usize, usize)> {
        Some((self.line()?, self.column()?))
    }
}

impl Reportable for Error {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        Error::message(self).to_owned()
    }

    fn position(&self) -> Option<(usize, usize)> {
        Some((self.line()?, self.column()?))
    }

    fn snippet(&self) -> Option<String> {
        Error::snippet(self).map(str::to_owned)
    }
}

/// Runs `render`.
pub(crate) fn execute(args: RenderArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let source = input.text()?;
    let mut context = read_context(args.context.as_deref())?;
    let mut env = Environment::new();
    env.set_strict(args.strict);
    env.set_trim_blocks(args.trim_blocks);
    env.set_lstrip_blocks(args.lstrip_blocks);
    let template = env.compile(source).map_err(|err| input.reject(&err))?;

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
            template.distribution(&context, args.max_paths).map_err(|err| input.reject(&err))?;
        return output::write_json(&exact);
    }

    if let Some(samples) = args.samples {
        let start = args.seed.unwrap_or(0);
        // Counts in first-seen order, then sorted by count (stable, so ties
        // keep the order they first appeared in).
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut counts: Vec<(String, u64)> = Vec::new();
        for i in 0..samples {
            // Only the text counts: no copy of the stores per sample.
            let output = template
                .render_outcome(&context, start.wrapping_add(i))
                .map_err(|err| input.reject(&err))?
                .output;
            match index.get(&output) {
                Some(&at) => counts[at].1 += 1,
                None => {
                    index.insert(output.clone(), counts.len());
                    counts.push((output, 1));
                }
            }
        }
        counts.sort_by_key(|&(_, count)| std::cmp::Reverse(count));
        let outputs: serde_json::Map<String, serde_json::Value> =
            counts.into_iter().map(|(output, count)| (output, count.into())).collect();
        return output::write_json(&serde_json::json!({"samples": samples, "outputs": outputs}));
    }

    let seed = args.seed.unwrap_or_else(random_seed);
    let rendered = template.render(&context, seed).map_err(|err| input.reject(&err))?;
    if let (true, Some((path, mut history, message))) = (args.commit, history) {
        commit(&mut history, message, &rendered).map_err(|err| misuse(&err, path))?;
        save_history(path, &history)?;
    }
    if args.json {
        output::write_json(&rendered)
    } else {
        output::write_bytes(rendered.output.as_bytes())
    }
}

/// An index error of a history operation (`--at` past the end), naming
/// the history file.
fn misuse(err: &HistoryError, path: &Path) -> Diagnostic {
    Diagnostic::new(err.kind().as_str(), err.message().to_owned())
        .with_origin(path.display().to_string())
}

/// Reads a history file; with `--commit`, a file that does not exist yet
/// is an empty history (the commit creates it).
fn read_history(path: &Path, commit: bool) -> Result<StateHistory, Diagnostic> {
    if commit && !path.exists() {
        return Ok(StateHistory::new());
    }
    let input = Input::read(Some(path))?;
    StateHistory::from_json(input.text()?).map_err(|err| input.reject(&err))
}

/// Stores the writes of `rendered` on message `message`: a new message at
/// the end, or a new (active) swipe of an existing one.
fn commit(
    history: &mut StateHistory,
    message: usize,
    rendered: &Rendered,
) -> Result<(), HistoryError> {
    if message == history.len() {
        history.push_message();
    } else {
        history.add_swipe(message)?;
    }
    history.record(message, rendered)
}

/// Saves atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over the old one, which survives any failure before.
fn save_history(path: &Path, history: &StateHistory) -> Result<(), Diagnostic> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().map_or_else(|| "history".into(), |n| n.to_string_lossy());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = dir.join(format!(".{name}.{}-{nanos}.tmp", std::process::id()));
    let mut json = history.to_json();
    json.push('\n');
    let written = std::fs::OpenOptions::new()
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
