//! Stage 4: arranging the conversation the way a provider wants it.
//!
//! Providers that require user/assistant alternation (Anthropic, Gemini) get
//! transcript-flip's [`ensure_alternating`](transcript_flip::ensure_alternating):
//! the leading system messages become one, each same-role run becomes one
//! message (texts joined by a line feed), and a conversation that opens with
//! the assistant gets a `(continue)` user message first. A run that holds an
//! image or a file cannot be joined as text, so its parts are concatenated
//! into one message first (the provider sees them as consecutive blocks).

use serde::{Deserialize, Serialize};

use crate::convert::transcript::{from_transcript, to_transcript};
use crate::error::{Error, ErrorKind};
use crate::message::{ContentPart, Message};
use crate::provider::Provider;

/// Whether same-role neighbours are merged and the conversation made to
/// start with the user before the provider stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Alternation {
    /// As the provider requires: on for Anthropic and Gemini, off for
    /// OpenAI (which accepts any order).
    #[default]
    Auto,
    /// Always arrange the conversation.
    Always,
    /// Never: turns reach the provider stage as they are (Anthropic and
    /// Gemini still merge neighbours block by block, and refuse an
    /// assistant-first conversation).
    Never,
}

impl Alternation {
    /// Whether to arrange messages for `provider` (`None`: the provider
    /// stage is off).
    pub(crate) fn applies(self, provider: Option<Provider>) -> bool {
        match self {
            Alternation::Auto => matches!(provider, Some(Provider::Anthropic | Provider::Gemini)),
            Alternation::Always => true,
            Alternation::Never => false,
        }
    }
}

/// Arranges `messages` as described in the module documentation.
///
/// # Errors
///
/// [`ErrorKind::Transcript`] when transcript-flip refuses a merge (two
/// neighbours with different `name`s).
pub(crate) fn alternate(messages: Vec<Message>) -> Result<Vec<Message>, Error> {
    let merged = transcript_flip::ensure_alternating(to_transcript(concat_mixed_runs(messages)))
        .map_err(|err| Error::new(ErrorKind::Transcript(err)))?;
    from_transcript(merged)
}

/// Concatenates the parts of each same-role run that holds anything but one
/// text part per message, when the run's names agree.
fn concat_mixed_runs(messages: Vec<Message>) -> Vec<Message> {
    let simple = |m: &Message| matches!(m.content.as_slice(), [ContentPart::Text { .. }]);
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    let mut run_is_mixed = false;
    for message in messages {
        match out.last_mut() {
            Some(last) if last.role == message.role && last.name == message.name => {
                if run_is_mixed || !simple(last) || !simple(&message) {
                    last.content.extend(message.content);
                    run_is_mixed = true;
                } else {
                    out.push(message);
                }
            }
            _ => {
                run_is_mixed = false;
                out.push(message);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;

    fn image() -> ContentPart {
        ContentPart::Image { media_type: "image/png".into(), data: vec![1] }
    }

    #[test]
    fn text_runs_join_and_assistant_first_gets_a_cue() {
        let messages = vec![
            Message::text(Role::System, "a"),
            Message::text(Role::System, "b"),
            Message::text(Role::Assistant, "c"),
            Message::text(Role::Assistant, "d"),
            Message::text(Role::User, "e"),
        ];
        assert_eq!(
            alternate(messages).unwrap(),
            [
                Message::text(Role::System, "a\nb"),
                Message::text(Role::User, "(continue)"),
                Message::text(Role::Assistant, "c\nd"),
                Message::text(Role::User, "e"),
            ]
        );
    }

    #[test]
    fn runs_with_embeds_concatenate_parts() {
        let with_image = Message {
            role: Role::User,
            content: vec![ContentPart::text("x"), image()],
            name: None,
        };
        let messages =
            vec![Message::text(Role::User, "w"), with_image, Message::text(Role::User, "y")];
        let out = alternate(messages).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].content,
            [ContentPart::text("w"), ContentPart::text("x"), image(), ContentPart::text("y")]
        );
    }

    #[test]
    fn different_names_do_not_merge_silently() {
        let mut a = Message::text(Role::User, "a");
        a.name = Some("ana".into());
        let b = Message::text(Role::User, "b");
        assert_eq!(alternate(vec![a, b]).unwrap_err().kind().as_str(), "conflicting_fields");
    }

    #[test]
    fn auto_follows_the_provider() {
        assert!(!Alternation::Auto.applies(Some(Provider::OpenAi)));
        assert!(Alternation::Auto.applies(Some(Provider::Gemini)));
        assert!(!Alternation::Auto.applies(None));
        assert!(Alternation::Always.applies(None));
    }
}
