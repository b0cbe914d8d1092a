//! The templates `include`, `import` and `extends` name: [`Templates`],
//! files read by name from attachments (a directory, or a bundle's
//! entries) with the attachments' own safety, as a bracket environment's
//! loader.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use minijinja_brackets::{Environment, LoadError};
use narrative_segment::{Attachments, ErrorKind as NarrativeKind};
use prompt_comments::DirectiveKind;
use prompt_core::text::{Deletions, LineIndex};

use crate::provider::Notice;

/// Templates by name from [`Attachments`]: the files under a directory
/// ([`Attachments::directory`]) or a bundle's entries, read exactly as
/// attachments are: a name never leaves the directory, a link out is
/// refused, a FIFO or device is never opened for reading (nothing blocks),
/// every file is read under the attachment limits. A missing file is "not
/// found" (`template_not_found`); any other refusal is a `load_error`
/// naming the file.
///
/// The pipeline loads a prompt's templates from the prompt's own files
/// (its directory, or its bundle) and strips each one's `///` comments as
/// it strips the prompt's; a host with a bracket [`Environment`] of its
/// own installs the texts as written ([`Templates::install`]).
///
/// ```
/// use minijinja_brackets::Environment;
/// use narrative_segment::{AttachmentLimits, Attachments};
/// use prompt_pipeline::Templates;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("greeting.txt"), "Hello [[ name ]]!")?;
/// let files = Attachments::directory(dir.path(), AttachmentLimits::default())?;
/// let mut env = Environment::new();
/// Templates::new(files).install(&mut env);
/// let context = serde_json::from_str(r#"{"state": {"name": "Ann"}}"#)?;
/// let out = env.render_str("[% include 'greeting.txt' %] Bye.", &context, 0)?;
/// assert_eq!(out.output, "Hello Ann! Bye.");
/// let err = env.render_str("[% include '../secret.txt' %]", &context, 0).unwrap_err();
/// assert_eq!(err.kind().as_str(), "invalid_template_name");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Templates {
    files: Attachments,
    /// Whether each file's `///` comments are stripped (the pipeline's).
    strip: bool,
    /// The run's own files, never served.
    refused: RunFiles,
    loaded: Arc<Mutex<HashMap<String, Arc<Loaded>>>>,
}

/// The files a run reads or writes besides its templates (its rows,
/// context, tools, schema, transcript, history and its lock, error records,
/// output), known by device and inode: [`Templates`] never serves one of
/// them, whatever name or link reaches it (`not_a_template`). Off Unix no
/// file is known, and nothing is refused.
///
/// ```
/// use minijinja_brackets::Environment;
/// use narrative_segment::{AttachmentLimits, Attachments};
/// use prompt_pipeline::{RunFiles, Templates};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("rows.jsonl"), "{}")?;
/// let files = Attachments::directory(dir.path(), AttachmentLimits::default())?;
/// let run = RunFiles::new().with("the rows file", &dir.path().join("rows.jsonl"));
/// let mut env = Environment::new();
/// Templates::new(files).refusing(run).install(&mut env);
/// let err = env.render_str("[% include 'rows.jsonl' %]", &Default::default(), 0);
/// # #[cfg(unix)]
/// assert_eq!(err.unwrap_err().kind().as_str(), "not_a_template");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct RunFiles {
    /// What each file is, for people ("the rows file"), and its device and
    /// inode.
    files: Arc<Vec<(String, (u64, u64))>>,
}

impl RunFiles {
    /// No files.
    pub fn new() -> RunFiles {
        RunFiles::default()
    }

    /// Adds the file at `path` (links followed: the file it names), which
    /// `what` names in errors ("the rows file"). A path that names nothing
    /// (yet) adds nothing: there is no file to serve.
    pub fn with(mut self, what: &str, path: &Path) -> RunFiles {
        if let Some(id) = identity(path) {
            Arc::make_mut(&mut self.files).push((what.to_owned(), id));
        }
        self
    }

    /// What the file at `path` is (links followed), if it is one of these:
    /// `Some("the rows file")`.
    ///
    /// ```
    /// use prompt_pipeline::RunFiles;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let rows = dir.path().join("rows.jsonl");
    /// std::fs::write(&rows, "{}\n")?;
    /// let run = RunFiles::new().with("the rows file", &rows);
    /// # #[cfg(unix)]
    /// assert_eq!(run.which(&rows), Some("the rows file"));
    /// assert_eq!(run.which(&dir.path().join("other")), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn which(&self, path: &Path) -> Option<&str> {
        self.find(identity(path)?)
    }

    /// What the file of device and inode `id` is, if it is one of these.
    fn find(&self, id: (u64, u64)) -> Option<&str> {
        self.files.iter().find(|(_, file)| *file == id).map(|(what, _)| what.as_str())
    }
}

/// The device and inode of the file at `path`.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    let handle = same_file::Handle::from_path(path).ok()?;
    Some((handle.dev(), handle.ino()))
}

#[cfg(not(unix))]
fn identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// A template as its file is written, and what stripping its comments did.
#[derive(Debug)]
struct Loaded {
    text: Arc<str>,
    /// What stage 1 deleted; `None` when comments are kept.
    deletions: Option<Deletions>,
    /// Its `///` directives, which count only in the prompt file.
    ignored: Vec<Notice>,
}

impl Templates {
    /// Templates read from `files`, each as written.
    pub fn new(files: Attachments) -> Templates {
        Templates { files, strip: false, refused: RunFiles::new(), loaded: Arc::default() }
    }

    /// These templates, never serving one of the run's own `files`
    /// (`not_a_template`).
    pub fn refusing(mut self, files: RunFiles) -> Templates {
        self.refused = files;
        self
    }

    /// Templates read from `files`, each stripped of its `///` comments;
    /// the directives among them are ignored, each with a notice.
    pub(crate) fn stripped(files: Attachments) -> Templates {
        Templates { strip: true, ..Templates::new(files) }
    }

    /// Makes these templates `env`'s loader. Each is read the first time
    /// a template names it; the environment keeps it from then on.
    pub fn install(&self, env: &mut Environment) {
        let templates = self.clone();
        env.set_loader(move |name| templates.load(name));
    }

    /// The template `name`: `Ok(None)` when there is no such file.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] naming the file for anything else the attachments
    /// refuse (outside the directory, not a regular file, too large, an
    /// I/O error), or a file that is not UTF-8 text;
    /// [`LoadError::not_a_template`] for one of the run's own files
    /// ([`Templates::refusing`]).
    pub fn load(&self, name: &str) -> Result<Option<String>, LoadError> {
        let bytes = match self.files.fetch_identified(name) {
            Ok((_, Some(id))) if self.refused.find(id).is_some() => {
                let what = self.refused.find(id).unwrap_or_default();
                return Err(LoadError::not_a_template(format!(
                    "`{name}` is {what}, one of the run's own files, never a template"
                )));
            }
            Ok((bytes, _)) => bytes,
            Err(err) if err.kind() == NarrativeKind::MissingEntry => return Ok(None),
            // Said of a template, not of an attachment.
            Err(err) if err.kind() == NarrativeKind::OutsideDirectory => {
                return Err(LoadError::new(format!(
                    "`{name}` leads outside the templates' directory (a link out is refused)"
                )));
            }
            Err(err) => return Err(LoadError::new(err.message())),
        };
        let text = std::str::from_utf8(bytes.as_bytes())
            .map_err(|err| {
                LoadError::new(format!(
                    "`{name}` is not UTF-8 text (invalid byte at offset {})",
                    err.valid_up_to()
                ))
            })?
            .to_owned();
        let (compiled, loaded) = if self.strip {
            let processed = prompt_comments::process(&text).into_owned();
            let index = LineIndex::new(&text);
            let ignored = processed
                .directives
                .iter()
                .map(|directive| {
                    let at = index.position(&text, directive.span.start);
                    let written = match directive.kind {
                        DirectiveKind::Param => format!("/// param: {}=", directive.key),
                        _ => format!("/// {}:", directive.key),
                    };
                    Notice::IgnoredDirective {
                        template: name.to_owned(),
                        directive: written,
                        line: at.line,
                        column: at.column,
                    }
                })
                .collect();
            let cleaned = processed.cleaned.into_owned();
            let loaded =
                Loaded { text: text.into(), deletions: Some(processed.deletions), ignored };
            (cleaned, loaded)
        } else {
            let loaded =
                Loaded { text: Arc::from(text.as_str()), deletions: None, ignored: vec![] };
            (text, loaded)
        };
        self.loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned(), Arc::new(loaded));
        Ok(Some(compiled))
    }

    /// The text of the loaded template `name` as its file is written (for
    /// drawing an error in it); `None` when it was not loaded.
    pub fn source(&self, name: &str) -> Option<Arc<str>> {
        self.entry(name).map(|loaded| loaded.text.clone())
    }

    fn entry(&self, name: &str) -> Option<Arc<Loaded>> {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner).get(name).cloned()
    }

    /// The file of `name` as written, and where byte `offset` of the text
    /// the template engine saw is in it (through what stripping deleted).
    pub(crate) fn place(&self, name: &str, offset: usize) -> Option<(Arc<str>, usize)> {
        let loaded = self.entry(name)?;
        let offset = loaded.deletions.as_ref().map_or(offset, |d| d.to_input(offset));
        Some((loaded.text.clone(), offset))
    }

    /// The notices of every template loaded so far (its ignored
    /// directives), by name.
    pub(crate) fn notices(&self) -> Vec<Notice> {
        let loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        let mut names: Vec<&String> = loaded.keys().collect();
        names.sort_unstable();
        names.into_iter().flat_map(|name| loaded[name].ignored.iter().cloned()).collect()
    }
}
