//! Stage 4: the suite's one merge of same-role turns, for the providers
//! that require user/assistant alternation.
//!
//! Providers that require alternation (Anthropic, Gemini) always get
//! transcript-flip's [`ensure_alternating`](transcript_flip::ensure_alternating),
//! exactly once: the leading system messages become one, each same-role run
//! becomes one message (a text part followed by a text part is joined with a
//! line feed; images and files stay consecutive blocks), and a conversation
//! that opens with the assistant gets a `(continue)` user message first. The
//! adapters only check that what they receive alternates. [`Alternation`]
//! decides the rest: whether OpenAI and the provider-off result
//! ([`Compiled::arrange`](crate::Compiled::arrange)) are arranged too.

use prompt_core::chat::Message;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::provider::Provider;

/// Whether the conversation is arranged (same-role neighbours merged, the
/// user first) for a provider that does not require it, or without a
/// provider. Anthropic and Gemini require it and always get it, whatever
/// this says, so a body never depends on it; only OpenAI bodies and the
/// provider-off messages do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Alternation {
    /// As the provider requires: Anthropic and Gemini only.
    #[default]
    Auto,
    /// Also for OpenAI and without a provider.
    Always,
    /// Only where the provider requires it (Anthropic and Gemini): the
    /// same as [`Alternation::Auto`] since the merge became one (kept so
    /// that configurations and `--alternation never` keep working).
    Never,
}

impl Alternation {
    /// Whether to arrange messages for `provider` (`None`: the provider
    /// stage is off).
    pub(crate) fn applies(self, provider: Option<Provider>) -> bool {
        provider.is_some_and(Provider::requires_alternation) || self == Alternation::Always
    }
}

/// Arranges `messages` as described in the module documentation.
///
/// # Errors
///
/// [`ErrorKind::Transcript`] when transcript-flip refuses a merge (two
/// neighbours with different `name`s).
pub(crate) fn alternate(messages: Vec<Message>) -> Result<Vec<Message>, Error> {
    transcript_flip::ensure_alternating(messages)
        .map_err(|err| Error::new(ErrorKind::Transcript(err)))
}

#[cfg(test)]
mod tests {
    use prompt_core::chat::{Part, Role};

    use super::*;

    fn image() -> Part {
        Part::image("image/png", vec![1])
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
    fn runs_with_embeds_keep_their_blocks() {
        let with_image =
            Message { role: Role::User, content: vec![Part::text("x"), image()], name: None };
        let messages =
            vec![Message::text(Role::User, "w"), with_image, Message::text(Role::User, "y")];
        let out = alternate(messages).unwrap();
        assert_eq!(out.len(), 1);
        // Text meeting text joins as in a text-only run; the image stays a
        // block between.
        assert_eq!(out[0].content, [Part::text("w\nx"), image(), Part::text("y")]);
    }

    #[test]
    fn different_names_do_not_merge_silently() {
        let mut a = Message::text(Role::User, "a");
        a.name = Some("ana".into());
        let b = Message::text(Role::User, "b");
        assert_eq!(alternate(vec![a, b]).unwrap_err().kind().as_str(), "conflicting_fields");
    }

    #[test]
    fn providers_that_require_it_always_get_it() {
        for alternation in [Alternation::Auto, Alternation::Always, Alternation::Never] {
            assert!(alternation.applies(Some(Provider::Gemini)));
            assert!(alternation.applies(Some(Provider::Anthropic)));
        }
        assert!(!Alternation::Auto.applies(Some(Provider::OpenAi)));
        assert!(!Alternation::Never.applies(Some(Provider::OpenAi)));
        assert!(Alternation::Always.applies(Some(Provider::OpenAi)));
        assert!(!Alternation::Auto.applies(None));
        assert!(Alternation::Always.applies(None));
    }
}
