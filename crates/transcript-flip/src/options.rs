//! How [`crate::flip`] builds its messages.

use std::fmt;
use std::sync::Arc;

use crate::Dialect;

/// The prefix put before other speakers' turns, built from the speaker id.
///
/// The default is the id followed by `": "` (`"Ana: hello"`).
#[derive(Clone, Default)]
pub enum Label {
    /// The id followed by `": "`.
    #[default]
    Default,
    /// A template in which every `{speaker}` (or `{id}`) is replaced by the
    /// id, e.g. `"[{speaker}] "`.
    Template(String),
    /// Any function of the id.
    Custom(Arc<dyn Fn(&str) -> String + Send + Sync>),
}

impl Label {
    /// A template label: every `{speaker}` or `{id}` in `template` is
    /// replaced by the speaker id.
    pub fn template(template: impl Into<String>) -> Label {
        Label::Template(template.into())
    }

    /// A label computed by `f` from the speaker id.
    pub fn custom(f: impl Fn(&str) -> String + Send + Sync + 'static) -> Label {
        Label::Custom(Arc::new(f))
    }

    /// The prefix for speaker `id`.
    pub fn render(&self, id: &str) -> String {
        let mut label = String::new();
        self.render_into(id, &mut label);
        label
    }

    /// Appends the prefix for speaker `id` to `out`.
    pub(crate) fn render_into(&self, id: &str, out: &mut String) {
        match self {
            Label::Default => {
                out.push_str(id);
                out.push_str(": ");
            }
            Label::Template(template) => render_template(template, id, out),
            Label::Custom(f) => out.push_str(&f(id)),
        }
    }
}

/// Replaces `{speaker}` and `{id}` in one left-to-right pass, so that an id
/// containing `{id}` is not expanded again.
fn render_template(template: &str, id: &str, out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        if let Some(tail) = after.strip_prefix("{speaker}") {
            out.push_str(id);
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("{id}") {
            out.push_str(id);
            rest = tail;
        } else {
            out.push('{');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Default => f.write_str("Default"),
            Label::Template(template) => f.debug_tuple("Template").field(template).finish(),
            Label::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

/// Where [`crate::flip`] says who spoke an other speaker's turn (`Standard`
/// mode only; `Llmr` mode always uses the in-band label).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SpeakerName {
    /// In the content, as the [`Label`] prefix (`"Ana: hi"`). The default.
    #[default]
    Label,
    /// In the message's `name` field (OpenAI's "name of the participant")
    /// and not in the content. A user message that gathers several speakers'
    /// turns (or the instruction) cannot carry one name: it keeps the
    /// in-band labels instead and has no `name`.
    Field,
    /// Both: the in-band label always, and the `name` field on user messages
    /// that hold one speaker's turns only.
    Both,
}

/// The options of [`crate::flip`].
///
/// ```
/// use transcript_flip::{FlipOptions, Label, Dialect};
///
/// let options = FlipOptions::new()
///     .with_system("You are Ben, a renter.")
///     .with_instruction("Your turn, Ben.")
///     .with_label(Label::template("[{speaker}] "))
///     .with_dialect(Dialect::Llmr);
/// assert_eq!(options.system(), Some("You are Ben, a renter."));
/// assert_eq!(options.dialect(), Dialect::Llmr);
/// ```
#[derive(Debug, Clone)]
pub struct FlipOptions {
    system: Option<String>,
    instruction: Option<String>,
    label: Label,
    sanitize: bool,
    ensure_final_user: bool,
    dialect: Dialect,
    speaker_name: SpeakerName,
}

impl Default for FlipOptions {
    fn default() -> FlipOptions {
        FlipOptions {
            system: None,
            instruction: None,
            label: Label::Default,
            sanitize: true,
            ensure_final_user: true,
            dialect: Dialect::Standard,
            speaker_name: SpeakerName::Label,
        }
    }
}

impl FlipOptions {
    /// The defaults: no system, no instruction, the `"{speaker}: "` label,
    /// sanitizing on, the final user cue on, [`Dialect::Standard`].
    pub fn new() -> FlipOptions {
        FlipOptions::default()
    }

    /// The leading system message. An empty text counts as absent.
    pub fn with_system(mut self, system: impl Into<String>) -> FlipOptions {
        self.system = Some(system.into());
        self
    }

    /// The trailing cue (e.g. `"Your turn."`), added as a user message (it
    /// merges into a preceding user message). An empty text counts as
    /// absent. It is never sanitized.
    pub fn with_instruction(mut self, instruction: impl Into<String>) -> FlipOptions {
        self.instruction = Some(instruction.into());
        self
    }

    /// The prefix of other speakers' turns.
    pub fn with_label(mut self, label: Label) -> FlipOptions {
        self.label = label;
        self
    }

    /// Whether other speakers' text (and, in `Standard` mode, their labels)
    /// goes through the sanitizer. On by default.
    pub fn with_sanitize(mut self, sanitize: bool) -> FlipOptions {
        self.sanitize = sanitize;
        self
    }

    /// Whether an array that would end on the speaker's own turn gets a
    /// final user message `"(continue)"`. On by default. In `Standard`
    /// mode, turning it off also drops the leading `"(continue)"` that a
    /// transcript opening with an own turn would otherwise get.
    pub fn with_ensure_final_user(mut self, ensure_final_user: bool) -> FlipOptions {
        self.ensure_final_user = ensure_final_user;
        self
    }

    /// [`Dialect::Standard`] (the default) or [`Dialect::Llmr`].
    pub fn with_dialect(mut self, dialect: Dialect) -> FlipOptions {
        self.dialect = dialect;
        self
    }

    /// Where other speakers' ids go (`Standard` mode only).
    pub fn with_speaker_name(mut self, speaker_name: SpeakerName) -> FlipOptions {
        self.speaker_name = speaker_name;
        self
    }

    /// The system text, when set and not empty.
    pub fn system(&self) -> Option<&str> {
        self.system.as_deref().filter(|s| !s.is_empty())
    }

    /// The instruction, when set and not empty.
    pub fn instruction(&self) -> Option<&str> {
        self.instruction.as_deref().filter(|s| !s.is_empty())
    }

    /// The label.
    pub fn label(&self) -> &Label {
        &self.label
    }

    /// Whether sanitizing is on.
    pub fn sanitize(&self) -> bool {
        self.sanitize
    }

    /// Whether the final user cue is on.
    pub fn ensure_final_user(&self) -> bool {
        self.ensure_final_user
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Where other speakers' ids go.
    pub fn speaker_name(&self) -> SpeakerName {
        self.speaker_name
    }

    /// The speaker name policy in force: `Llmr` mode always labels in-band.
    pub(crate) fn effective_speaker_name(&self) -> SpeakerName {
        match self.dialect {
            Dialect::Llmr => SpeakerName::Label,
            Dialect::Standard => self.speaker_name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_replace_both_placeholders_once() {
        let label = Label::template("[{speaker}|{id}] {x} {");
        assert_eq!(label.render("{id}"), "[{id}|{id}] {x} {");
        assert_eq!(Label::Default.render("Ana"), "Ana: ");
        assert_eq!(Label::custom(|id| id.to_uppercase()).render("ana"), "ANA");
    }

    #[test]
    fn empty_system_and_instruction_are_absent() {
        let options = FlipOptions::new().with_system("").with_instruction("");
        assert_eq!((options.system(), options.instruction()), (None, None));
    }
}
