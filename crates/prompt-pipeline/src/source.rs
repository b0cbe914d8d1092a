//! What a pipeline reads: the prompt [`Source`] and, beside it, a
//! [`Transcript`].

use std::sync::Arc;

use narrative_segment::{AttachmentLimits, Attachments, Bundle};
use prompt_core::diagnostic::Origin;
use transcript_flip::{FlipOptions, Turn};

use crate::error::{Error, ErrorKind};

/// The text of a prompt, the attachments its references resolve from, and
/// the files its `/// tools:` and `/// response_schema:` paths name (a
/// bundle's entries, or the prompt file's directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub(crate) text: String,
    pub(crate) attachments: Attachments,
    pub(crate) files: Attachments,
}

impl Source {
    /// A prompt without attachments.
    pub fn new(text: impl Into<String>) -> Source {
        Source { text: text.into(), attachments: Attachments::none(), files: Attachments::none() }
    }

    /// A prompt file's bytes: a `.lmmlz` bundle (a zip archive holding the
    /// narrative and its attachments) when they start like one, else bare
    /// UTF-8 text. `file_name` names the narrative entry of a bundle.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Narrative`] for an unreadable archive, one over `limits`,
    /// or text that is not UTF-8.
    pub fn from_bytes(
        file_name: &str,
        bytes: &[u8],
        limits: &AttachmentLimits,
    ) -> Result<Source, Error> {
        let bundle = Bundle::from_bytes(file_name, bytes, limits)
            .map_err(|err| Error::new(ErrorKind::Narrative(err)))?;
        Ok(Source::from_bundle(bundle))
    }

    #[cfg(feature = "directory")]
    /// The prompt file at `path`, read as `prompt-suite build FILE` reads
    /// it, in one call: a `.lmmlz` bundle (its entries are its attachments
    /// and its directive paths), or UTF-8 text whose embeds and directive
    /// paths (`/// tools:`, `/// response_schema:`, includes) resolve in the
    /// file's directory and never outside it, within the default
    /// [`AttachmentLimits`] ([`Source::from_path_with`] takes others). The
    /// file itself is opened as an attachment is (beneath its directory,
    /// never blocking, at most `max_entry_bytes`).
    ///
    /// ```
    /// use prompt_pipeline::{Context, Pipeline, Provider, Source};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("photo.png"), [137, 80, 78, 71, 13, 10, 26, 10])?;
    /// std::fs::write(
    ///     dir.path().join("prompt.txt"),
    ///     "/// param: model=gpt-4o\n## user\nWhat is this, [[ name ]]? @@@photo.png\n",
    /// )?;
    /// let source = Source::from_path(dir.path().join("prompt.txt"))?;
    /// let context = Context::from_json(r#"{"name": "Ann"}"#)?;
    /// let built = Pipeline::new(Provider::OpenAi).build(source, &context, 1)?;
    /// let body = serde_json::to_string(&built.body)?;
    /// assert!(body.contains("What is this, Ann?") && body.contains("data:image/png;base64,iVBORw0KGgo="));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Narrative`] when the directory is not readable, the file
    /// is missing, not a regular file, over the limits, not UTF-8 text or an
    /// unreadable archive.
    pub fn from_path(path: impl AsRef<std::path::Path>) -> Result<Source, Error> {
        Source::from_path_with(path, &AttachmentLimits::default())
    }

    #[cfg(feature = "directory")]
    /// As [`Source::from_path`], within `limits`.
    ///
    /// # Errors
    ///
    /// As [`Source::from_path`].
    pub fn from_path_with(
        path: impl AsRef<std::path::Path>,
        limits: &AttachmentLimits,
    ) -> Result<Source, Error> {
        let path = path.as_ref();
        let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty());
        let directory = Attachments::directory(dir.unwrap_or(std::path::Path::new(".")), *limits)?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let bytes = directory.fetch(&name)?;
        let source = Source::from_bytes(&name, &bytes, limits)?;
        if !source.files.is_none() {
            // A bundle: its entries are its attachments and its files.
            return Ok(source);
        }
        Ok(Source { attachments: directory.clone(), files: directory, ..source })
    }

    /// The prompt of a bundle already read, e.g. one without a file name
    /// ([`Bundle::from_unnamed_zip`], for standard input); its directive
    /// paths are its entries.
    pub fn from_bundle(bundle: Bundle) -> Source {
        let (text, attachments) = bundle.into_parts();
        // A bundle's directive paths are its entries.
        let files = attachments.clone();
        Source { text, attachments, files }
    }

    #[cfg(feature = "directory")]
    /// The same prompt with its directive paths (`/// tools:`,
    /// `/// response_schema:`) resolved in `dir`, the prompt file's
    /// directory, and never outside it (narrative-segment's `Root`). A
    /// bundle keeps resolving them to its own entries.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Narrative`] when `dir` is not a readable directory.
    pub fn in_directory(
        mut self,
        dir: impl AsRef<std::path::Path>,
        limits: &AttachmentLimits,
    ) -> Result<Source, Error> {
        if self.files.is_none() {
            self.files = Attachments::directory(dir, *limits)?;
        }
        Ok(self)
    }

    /// The same prompt with `attachments` (for example
    /// [`Attachments::directory`]) instead of its own.
    pub fn with_attachments(mut self, attachments: Attachments) -> Source {
        self.attachments = attachments;
        self
    }

    /// The prompt text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A multi-speaker transcript that enters instead of (or after) the
/// narrative: flipped for one speaker, then handed to the provider stage.
#[derive(Debug, Clone)]
pub struct Transcript {
    pub(crate) turns: Vec<Turn>,
    pub(crate) speaker: String,
    pub(crate) options: FlipOptions,
}

impl Transcript {
    /// `turns` seen by `speaker`, with the default [`FlipOptions`].
    pub fn new(turns: Vec<Turn>, speaker: impl Into<String>) -> Transcript {
        Transcript { turns, speaker: speaker.into(), options: FlipOptions::new() }
    }

    /// A JSON transcript (`[{"speaker": ..., "text": ...}, ...]`) seen by
    /// `speaker`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Transcript`] at the line and column of the JSON.
    pub fn from_json(json: &str, speaker: impl Into<String>) -> Result<Transcript, Error> {
        let turns = transcript_flip::turns_from_json(json).map_err(|err| {
            // The error keeps the transcript it points into (copied only on
            // this failure path).
            let span = prompt_core::diagnostic::Diagnostic::span(&err);
            let wrapped = Error::new(ErrorKind::Transcript(err));
            match span {
                Some(span) => wrapped.at(Origin::Transcript, &Arc::from(json), span.start),
                None => wrapped,
            }
        })?;
        Ok(Transcript::new(turns, speaker))
    }

    /// The same transcript flipped with `options`.
    pub fn options(mut self, options: FlipOptions) -> Transcript {
        self.options = options;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_path_refuses_what_it_cannot_read() {
        let dir = tempfile::tempdir().unwrap();
        let kind = |path: &std::path::Path| {
            let err = Source::from_path(path).unwrap_err();
            prompt_core::diagnostic::Diagnostic::kind(&err)
        };
        assert_eq!(kind(&dir.path().join("missing.txt")), "missing_entry");
        std::fs::write(dir.path().join("bad.txt"), [0xff, 0xfe]).unwrap();
        assert_eq!(kind(&dir.path().join("bad.txt")), "invalid_utf8");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert_eq!(kind(&dir.path().join("sub")), "not_a_file");
        // A text prompt resolves its embeds and its files in its directory.
        std::fs::write(dir.path().join("p.txt"), "Hi").unwrap();
        let source = Source::from_path(dir.path().join("p.txt")).unwrap();
        assert_eq!(source.text(), "Hi");
        assert!(!source.attachments.is_none() && !source.files.is_none());
    }
}
