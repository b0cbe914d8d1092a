//! Making a message array provider-safe: LLMR's
//! `ensure_alternating_messages`.

use serde_json::Map;

use crate::{Content, Dialect, Error, ErrorKind, Message, Role};

/// The user text put before a body that does not start with a user message
/// (and, by [`crate::flip`], after a trailing own turn): exactly
/// `(continue)`.
pub const CONTINUE_CUE: &str = "(continue)";

/// The joiner of merged contents: one line feed.
pub const MERGE_JOINER: &str = "\n";

const NON_SCALAR_MERGE: &str = "ensure_alternating_messages(): cannot merge adjacent same-role \
    messages with non-scalar (e.g. multimodal/list) content. Supply a message array that is \
    already alternating, or use scalar text content.";

/// Makes `messages` acceptable to providers that reject a non-user first
/// turn or same-role neighbours, in [`Dialect::Standard`].
///
/// 1. The leading `system` messages become one, their contents joined by
///    `"\n"`.
/// 2. Each run of messages with the same role becomes one, contents joined
///    by `"\n"`.
/// 3. If the first message after the system is not `user`, a user message
///    `"(continue)"` goes first.
///
/// Roles compare exactly (`"System"` is not `"system"`). Later system
/// messages stay where they are, the end is not forced to user and tool
/// messages are not paired: see the crate documentation.
///
/// ```
/// use transcript_flip::{ensure_alternating, Message};
///
/// let messages = vec![Message::assistant("x"), Message::assistant("y")];
/// let fixed = ensure_alternating(messages)?;
/// assert_eq!(fixed, [Message::user("(continue)"), Message::assistant("x\ny")]);
/// # Ok::<(), transcript_flip::Error>(())
/// ```
///
/// # Errors
///
/// [`ErrorKind::NonScalarMerge`] when two messages to merge do not both
/// have text content, and [`ErrorKind::ConflictingFields`] when their extra
/// fields (`name`, ...) differ. The error's [`Error::index`] is the later
/// message's.
pub fn ensure_alternating(messages: Vec<Message>) -> Result<Vec<Message>, Error> {
    ensure_alternating_with(messages, Dialect::Standard)
}

/// [`ensure_alternating`] in the given mode.
///
/// [`Dialect::Llmr`] does what LLMR does with extra fields: the merged leading
/// system message keeps only role and content, and in a merged run the
/// later messages' extra fields are dropped. [`Dialect::Standard`] keeps them
/// and requires them to agree.
///
/// # Errors
///
/// As [`ensure_alternating`]; [`ErrorKind::ConflictingFields`] only in
/// [`Dialect::Standard`].
pub fn ensure_alternating_with(
    messages: Vec<Message>,
    mode: Dialect,
) -> Result<Vec<Message>, Error> {
    normalize(messages, mode, true)
}

/// What merging needs of a message: [`Message`] for the typed API, and the
/// raw messages of [`crate::alternate_json`], which keep every field as
/// written.
pub(crate) trait Mergeable: Sized {
    fn role(&self) -> Option<&Role>;
    /// The content, when it is one text string.
    fn text(&self) -> Option<&str>;
    fn text_mut(&mut self) -> Option<&mut String>;
    /// An extra field whose value differs between `self` and `other` (or
    /// that only one has), `None` when they agree.
    fn differing_field<'s>(&'s self, other: &'s Self) -> Option<&'s str>;
    /// The same message with role and content only (LLMR's rebuilt system
    /// message).
    fn without_fields(self) -> Self;
    /// The user message `"(continue)"`.
    fn cue() -> Self;
}

impl Mergeable for Message {
    fn role(&self) -> Option<&Role> {
        self.role.as_ref()
    }

    fn text(&self) -> Option<&str> {
        Message::text(self)
    }

    fn text_mut(&mut self) -> Option<&mut String> {
        match &mut self.content {
            Some(Content::Text(text)) => Some(text),
            _ => None,
        }
    }

    fn differing_field<'s>(&'s self, other: &'s Message) -> Option<&'s str> {
        if self.extra == other.extra {
            return None;
        }
        let key = self
            .extra
            .iter()
            .find(|(key, value)| other.extra.get(*key) != Some(value))
            .or_else(|| other.extra.iter().find(|(key, _)| !self.extra.contains_key(*key)))
            .map_or("", |(key, _)| key.as_str());
        Some(key)
    }

    fn without_fields(self) -> Message {
        Message { role: self.role, content: self.content, extra: Map::new() }
    }

    fn cue() -> Message {
        Message::user(CONTINUE_CUE)
    }
}

/// The shared core; `leading_cue` says whether a non-user body gets the
/// `"(continue)"` message in front.
pub(crate) fn normalize<M: Mergeable>(
    messages: Vec<M>,
    mode: Dialect,
    leading_cue: bool,
) -> Result<Vec<M>, Error> {
    if messages.is_empty() {
        return Ok(messages);
    }
    let leading_systems = messages.iter().take_while(|m| m.role() == Some(&Role::System)).count();
    let mut out = Vec::with_capacity(messages.len() + 1);
    let mut messages = messages.into_iter().enumerate();
    if leading_systems > 0 {
        let mut system = match (messages.next(), mode) {
            (Some((_, first)), Dialect::Standard) => first,
            (Some((_, first)), Dialect::Llmr) => first.without_fields(),
            (None, _) => return Ok(out),
        };
        for (index, next) in messages.by_ref().take(leading_systems - 1) {
            merge_into(&mut system, &next, index, mode)?;
        }
        out.push(system);
    }
    let body_start = out.len();
    for (index, message) in messages {
        let in_body = out.len() > body_start;
        match out.last_mut() {
            Some(last) if in_body && last.role() == message.role() => {
                merge_into(last, &message, index, mode)?;
            }
            _ => out.push(message),
        }
    }
    if leading_cue && out.get(body_start).is_some_and(|first| first.role() != Some(&Role::User)) {
        out.insert(body_start, M::cue());
    }
    Ok(out)
}

/// Appends `next`'s content to `kept`'s.
fn merge_into<M: Mergeable>(
    kept: &mut M,
    next: &M,
    index: usize,
    mode: Dialect,
) -> Result<(), Error> {
    let Some(next_text) = next.text() else {
        return Err(Error::new(ErrorKind::NonScalarMerge, NON_SCALAR_MERGE).at_index(index));
    };
    if kept.text().is_none() {
        return Err(Error::new(ErrorKind::NonScalarMerge, NON_SCALAR_MERGE).at_index(index));
    }
    if mode == Dialect::Standard
        && let Some(key) = kept.differing_field(next)
    {
        let role = kept.role().map_or("(none)", Role::as_str);
        return Err(Error::new(
            ErrorKind::ConflictingFields,
            format!(
                "cannot merge adjacent `{role}` messages whose field `{key}` differs; \
                 merging would misattribute it"
            ),
        )
        .at_index(index));
    }
    if let Some(kept_text) = kept.text_mut() {
        append_line(kept_text, next_text);
    }
    Ok(())
}

/// Appends `next` to `kept` after the joiner: how every merge joins text.
pub(crate) fn append_line(kept: &mut String, next: &str) {
    kept.reserve(MERGE_JOINER.len() + next.len());
    kept.push_str(MERGE_JOINER);
    kept.push_str(next);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn leading_systems_merge_and_llmr_drops_their_fields() {
        let messages = vec![
            Message::system("a").with_field("name", "x"),
            Message::system("b").with_field("name", "x"),
            Message::user("u"),
        ];
        let llmr = ensure_alternating_with(messages.clone(), Dialect::Llmr).unwrap();
        assert_eq!(llmr, [Message::system("a\nb"), Message::user("u")]);
        let standard = ensure_alternating(messages).unwrap();
        assert_eq!(standard, [Message::system("a\nb").with_field("name", "x"), Message::user("u")]);
    }

    #[test]
    fn standard_refuses_to_misattribute_fields() {
        let messages = vec![
            Message::user("a").with_field("name", "ana"),
            Message::user("b").with_field("name", "ben"),
        ];
        let err = ensure_alternating(messages.clone()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConflictingFields);
        assert_eq!(err.index(), Some(1));
        assert!(err.message().contains("field `name` differs"), "{}", err.message());
        let llmr = ensure_alternating_with(messages, Dialect::Llmr).unwrap();
        assert_eq!(llmr, [Message::user("a\nb").with_field("name", "ana")]);
        let one_sided = vec![Message::user("a"), Message::user("b").with_field("name", "ben")];
        let err = ensure_alternating(one_sided).unwrap_err();
        assert!(err.message().contains("field `name` differs"), "{}", err.message());
    }

    #[test]
    fn mid_array_systems_and_tail_stay() {
        let messages = vec![Message::user("a"), Message::system("s"), Message::user("b")];
        assert_eq!(ensure_alternating(messages.clone()).unwrap(), messages);
        let only_system = vec![Message::system("s")];
        assert_eq!(ensure_alternating(only_system.clone()).unwrap(), only_system);
    }

    #[test]
    fn null_content_cannot_merge_but_passes_alone() {
        let tool_call = Message {
            role: Some(Role::Assistant),
            content: Some(Content::Other(json!(null))),
            extra: Map::new(),
        };
        let alone = vec![Message::user("u"), tool_call.clone()];
        assert_eq!(ensure_alternating(alone.clone()).unwrap(), alone);
        let err = ensure_alternating(vec![Message::user("u"), tool_call, Message::assistant("x")])
            .unwrap_err();
        assert_eq!((err.kind(), err.index()), (ErrorKind::NonScalarMerge, Some(2)));
    }

    #[test]
    fn idempotent() {
        let messages = vec![Message::assistant("x"), Message::user("u"), Message::user("v")];
        let once = ensure_alternating(messages).unwrap();
        assert_eq!(ensure_alternating(once.clone()).unwrap(), once);
    }
}
