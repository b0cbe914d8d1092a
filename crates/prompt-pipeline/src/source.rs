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
        let (text, attachments) = bundle.into_parts();
        // A bundle's directive paths are its entries.
        let files = attachments.clone();
        Ok(Source { text, attachments, files })
    }

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
