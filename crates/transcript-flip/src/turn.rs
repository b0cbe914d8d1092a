//! One row of a shared transcript.

use serde::{Deserialize, Serialize};

/// One turn of a multi-speaker transcript: who spoke, and what they said.
///
/// A missing `text` (JSON `null`, R's `NA`) stands for an empty turn: it
/// becomes `""`, never the word `"NA"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// The speaker's id, compared exactly (case-sensitive, no trimming) with
    /// the point-of-view speaker.
    pub speaker: String,
    /// What was said; `None` when the cell is missing.
    #[serde(default)]
    pub text: Option<String>,
}

impl Turn {
    /// A turn by `speaker` saying `text`.
    pub fn new(speaker: impl Into<String>, text: impl Into<String>) -> Turn {
        Turn { speaker: speaker.into(), text: Some(text.into()) }
    }

    /// A turn by `speaker` whose text is missing.
    pub fn without_text(speaker: impl Into<String>) -> Turn {
        Turn { speaker: speaker.into(), text: None }
    }

    /// The text, `""` when it is missing.
    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or("")
    }
}
