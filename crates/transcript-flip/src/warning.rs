//! What a flip accepted but deserves a look: returned beside the messages
//! ([`crate::Flipped::warnings`]), never printed by the crate.

use std::fmt;

use prompt_core::diagnostic::Diagnostic;

/// What a [`Warning`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// `Standard` only: the point-of-view speaker never speaks in the
    /// transcript, and no id in it is a near miss of it (which would be
    /// [`ErrorKind::UnknownSpeaker`](crate::ErrorKind::UnknownSpeaker)).
    /// Right for an agent's first turn; every turn is shown as another
    /// speaker's.
    SpeakerNotInTranscript,
}

impl WarningKind {
    /// The snake_case name the CLI prints: `speaker_not_in_transcript`.
    pub fn as_str(&self) -> &'static str {
        match self {
            WarningKind::SpeakerNotInTranscript => "speaker_not_in_transcript",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A warning about a flip. It has no place in a text (it is about the
/// transcript as a whole); it is a [`Diagnostic`].
///
/// ```
/// use transcript_flip::{FlipOptions, Turn, WarningKind, flip_with_warnings};
///
/// let transcript = [Turn::new("Mod", "Opening statements."), Turn::new("Ben", "Ban it.")];
/// let flipped = flip_with_warnings(&transcript, "Ana", &FlipOptions::new())?;
/// assert_eq!(flipped.warnings[0].kind(), WarningKind::SpeakerNotInTranscript);
/// assert_eq!(
///     flipped.warnings[0].message(),
///     "the speaker `Ana` never speaks in the transcript: every turn is shown as another \
///      speaker's (right for a first turn)"
/// );
/// # Ok::<(), transcript_flip::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    kind: WarningKind,
    message: String,
}

impl Warning {
    /// A [`WarningKind::SpeakerNotInTranscript`] for `speaker`.
    pub(crate) fn speaker_not_in_transcript(speaker: &str) -> Warning {
        Warning {
            kind: WarningKind::SpeakerNotInTranscript,
            message: format!(
                "the speaker {} never speaks in the transcript: every turn is shown as another \
                 speaker's (right for a first turn)",
                quoted(speaker)
            ),
        }
    }

    /// What the warning is about.
    pub fn kind(&self) -> WarningKind {
        self.kind
    }

    /// The message for people.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Diagnostic for Warning {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }
}

/// An id in backticks for a message, cut at 40 characters.
pub(crate) fn quoted(id: &str) -> String {
    const MAX: usize = 40;
    let head: String = id.chars().take(MAX).collect();
    let more = if head.len() < id.len() { "..." } else { "" };
    format!("`{head}{more}`")
}
