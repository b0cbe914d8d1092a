//! Making a message array provider-safe: LLMR's
//! `ensure_alternating_messages`, and the suite's one merge of same-role
//! turns, over `prompt_core::chat::Message`s.

use prompt_core::chat::{Message as ChatMessage, Part};
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
/// turn or same-role neighbours, in [`Dialect::Standard`]. This is the
/// suite's one merge of same-role turns: the pipeline calls it once, for
/// every provider that requires alternation, and provider adapters only
/// check the result.
///
/// 1. The leading `system` messages become one.
/// 2. Each run of messages with the same role becomes one.
/// 3. If the first message after the system is not `user`, a user message
///    `"(continue)"` ([`CONTINUE_CUE`]) goes first.
///
/// Merging joins contents, by the kind of message ([`Alternating`]):
///
/// * `prompt_core::chat::Message`: the parts are concatenated in order; a
///   text part followed by a text part is joined into one text part with a
///   line feed ([`MERGE_JOINER`]) between, and other parts (images, files)
///   stay consecutive blocks. Messages whose `name`s differ are not merged
///   ([`ErrorKind::ConflictingFields`]): that would misattribute one.
/// * this crate's [`Message`] (LLMR's shape, roles and fields as written):
///   text contents are joined by `"\n"`; other contents cannot be merged.
///
/// Roles compare exactly (`"System"` is not `"system"`). Later system
/// messages stay where they are, the end is not forced to user and tool
/// messages are not paired: see the crate documentation.
///
/// ```
/// use prompt_core::chat::{Message, Part, Role};
/// use transcript_flip::ensure_alternating;
///
/// let messages = vec![
///     Message::text(Role::System, "Be brief."),
///     Message::text(Role::System, "Be kind."),
///     Message::text(Role::Assistant, "x"),
///     Message { role: Role::Assistant, content: vec![Part::text("y"), Part::image("image/png", vec![1])], name: None },
/// ];
/// let fixed = ensure_alternating(messages)?;
/// assert_eq!(
///     fixed,
///     [
///         Message::text(Role::System, "Be brief.\nBe kind."),
///         Message::text(Role::User, "(continue)"),
///         Message { role: Role::Assistant, content: vec![Part::text("x\ny"), Part::image("image/png", vec![1])], name: None },
///     ]
/// );
///
/// // LLMR's shape works the same way.
/// use transcript_flip::Message as LlmrMessage;
/// let fixed = ensure_alternating(vec![LlmrMessage::assistant("x"), LlmrMessage::assistant("y")])?;
/// assert_eq!(fixed, [LlmrMessage::user("(continue)"), LlmrMessage::assistant("x\ny")]);
/// # Ok::<(), transcript_flip::Error>(())
/// ```
///
/// # Errors
///
/// [`ErrorKind::NonScalarMerge`] when two LLMR-shaped messages to merge do
/// not both have text content, and [`ErrorKind::ConflictingFields`] when
/// their extra fields (`name`, ...) differ. The error's [`Error::index`] is
/// the later message's.
pub fn ensure_alternating<M: Alternating>(messages: Vec<M>) -> Result<Vec<M>, Error> {
    ensure_alternating_with(messages, Dialect::Standard)
}

/// [`ensure_alternating`] in the given dialect.
///
/// [`Dialect::Llmr`] does what LLMR does with extra fields: the merged
/// leading system message keeps only role and content, and in a merged run
/// the later messages' extra fields (a core message's `name`) are dropped.
/// [`Dialect::Standard`] keeps them and requires them to agree.
///
/// # Errors
///
/// As [`ensure_alternating`]; [`ErrorKind::ConflictingFields`] only in
/// [`Dialect::Standard`].
pub fn ensure_alternating_with<M: Alternating>(
    messages: Vec<M>,
    dialect: Dialect,
) -> Result<Vec<M>, Error> {
    normalize(messages, dialect, true)
}

/// The messages [`ensure_alternating`] works on: `prompt_core::chat::Message`
/// and this crate's LLMR-shaped [`Message`]. Sealed: what merging means is
/// this crate's to define.
pub trait Alternating: Merge {}

impl<M: Merge> Alternating for M {}

/// How one kind of message merges (nominally public so that
/// [`Alternating`] can name it; unreachable from outside the crate).
pub trait Merge: Sized {
    /// Whether the role is exactly `role` (`"system"`, `"user"`).
    fn has_role(&self, role: &str) -> bool;
    /// Whether `self` and `other` have the same role.
    fn same_role(&self, other: &Self) -> bool;
    /// Appends `next`, message `index` of the input, to `self`.
    fn absorb(&mut self, next: Self, index: usize, dialect: Dialect) -> Result<(), Error>;
    /// The same message with role and content only (LLMR's rebuilt system
    /// message).
    fn without_fields(self) -> Self;
    /// The user message `"(continue)"`.
    fn cue() -> Self;
}

impl<M: Mergeable> Merge for M {
    fn has_role(&self, role: &str) -> bool {
        self.role().map(Role::as_str) == Some(role)
    }

    fn same_role(&self, other: &M) -> bool {
        self.role() == other.role()
    }

    fn absorb(&mut self, next: M, index: usize, dialect: Dialect) -> Result<(), Error> {
        merge_into(self, &next, index, dialect)
    }

    fn without_fields(self) -> M {
        Mergeable::without_fields(self)
    }

    fn cue() -> M {
        <M as Mergeable>::cue()
    }
}

impl Merge for ChatMessage {
    fn has_role(&self, role: &str) -> bool {
        self.role.as_str() == role
    }

    fn same_role(&self, other: &ChatMessage) -> bool {
        self.role == other.role
    }

    fn absorb(&mut self, next: ChatMessage, index: usize, dialect: Dialect) -> Result<(), Error> {
        if dialect == Dialect::Standard && self.name != next.name {
            return Err(conflicting_fields(self.role.as_str(), "name", index));
        }
        let mut parts = next.content.into_iter();
        if let Some(Part::Text { text: kept }) = self.content.last_mut()
            && let Some(Part::Text { text }) = parts.as_slice().first()
        {
            append_line(kept, text);
            parts.next();
        }
        self.content.extend(parts);
        Ok(())
    }

    fn without_fields(self) -> ChatMessage {
        ChatMessage { name: None, ..self }
    }

    fn cue() -> ChatMessage {
        ChatMessage::text(prompt_core::chat::Role::User, CONTINUE_CUE)
    }
}

/// What merging needs of an LLMR-shaped message: [`Message`] for the typed
/// API, and the raw messages of [`crate::alternate_json`], which keep every
/// field as written. Only text contents merge.
pub trait Mergeable: Sized {
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
pub(crate) fn normalize<M: Merge>(
    messages: Vec<M>,
    mode: Dialect,
    leading_cue: bool,
) -> Result<Vec<M>, Error> {
    if messages.is_empty() {
        return Ok(messages);
    }
    let leading_systems = messages.iter().take_while(|m| m.has_role("system")).count();
    let mut out = Vec::with_capacity(messages.len() + 1);
    let mut messages = messages.into_iter().enumerate();
    if leading_systems > 0 {
        let mut system = match (messages.next(), mode) {
            (Some((_, first)), Dialect::Standard) => first,
            (Some((_, first)), Dialect::Llmr) => first.without_fields(),
            (None, _) => return Ok(out),
        };
        for (index, next) in messages.by_ref().take(leading_systems - 1) {
            system.absorb(next, index, mode)?;
        }
        out.push(system);
    }
    let body_start = out.len();
    for (index, message) in messages {
        let in_body = out.len() > body_start;
        match out.last_mut() {
            Some(last) if in_body && last.same_role(&message) => {
                last.absorb(message, index, mode)?;
            }
            _ => out.push(message),
        }
    }
    if leading_cue && out.get(body_start).is_some_and(|first| !first.has_role("user")) {
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
        return Err(conflicting_fields(role, key, index));
    }
    if let Some(kept_text) = kept.text_mut() {
        append_line(kept_text, next_text);
    }
    Ok(())
}

fn conflicting_fields(role: &str, key: &str, index: usize) -> Error {
    Error::new(
        ErrorKind::ConflictingFields,
        format!(
            "cannot merge adjacent `{role}` messages whose field `{key}` differs; merging \
             would misattribute it"
        ),
    )
    .at_index(index)
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

    mod core_messages {
        use prompt_core::chat::{Message, Part, Role};

        use super::*;

        fn message(role: Role, content: Vec<Part>) -> Message {
            Message { role, content, name: None }
        }

        #[test]
        fn runs_concatenate_parts_joining_text_with_a_line_feed() {
            let image = Part::image("image/png", vec![1, 2]);
            let file = Part::file("a.pdf", "application/pdf", vec![3]);
            let messages = vec![
                Message::text(Role::System, "s1"),
                message(Role::System, vec![Part::text("s2"), file.clone()]),
                message(Role::User, vec![Part::text("a"), image.clone()]),
                message(Role::User, vec![Part::text("b")]),
                message(Role::User, vec![image.clone(), Part::text("c")]),
                message(Role::User, vec![]),
                Message::text(Role::User, "d"),
            ];
            let fixed = ensure_alternating(messages).unwrap();
            assert_eq!(
                fixed,
                [
                    message(Role::System, vec![Part::text("s1\ns2"), file]),
                    message(
                        Role::User,
                        vec![
                            Part::text("a"),
                            image.clone(),
                            Part::text("b"),
                            image,
                            Part::text("c\nd")
                        ]
                    ),
                ]
            );
            // The same text as the LLMR-shaped merge gives.
            let llmr = ensure_alternating(vec![
                crate::Message::user("a"),
                crate::Message::user(""),
                crate::Message::user("b"),
            ])
            .unwrap();
            let core = ensure_alternating(vec![
                Message::text(Role::User, "a"),
                Message::text(Role::User, ""),
                Message::text(Role::User, "b"),
            ])
            .unwrap();
            assert_eq!(core[0].plain_text().as_deref(), llmr[0].text());
        }

        #[test]
        fn the_cue_goes_before_an_assistant_first_body_and_names_must_agree() {
            let messages =
                vec![Message::text(Role::System, "s"), Message::text(Role::Assistant, "x")];
            assert_eq!(
                ensure_alternating(messages).unwrap(),
                [
                    Message::text(Role::System, "s"),
                    Message::text(Role::User, CONTINUE_CUE),
                    Message::text(Role::Assistant, "x")
                ]
            );
            let named =
                |name: &str| Message { name: Some(name.into()), ..Message::text(Role::User, "t") };
            let err = ensure_alternating(vec![named("ana"), named("ben")]).unwrap_err();
            assert_eq!((err.kind(), err.index()), (ErrorKind::ConflictingFields, Some(1)));
            assert!(err.message().contains("field `name` differs"), "{}", err.message());
            let llmr = ensure_alternating_with(vec![named("ana"), named("ben")], Dialect::Llmr);
            assert_eq!(
                llmr.unwrap(),
                [Message { content: vec![Part::text("t\nt")], ..named("ana") }]
            );
            assert_eq!(ensure_alternating(vec![named("ana"), named("ana")]).unwrap().len(), 1);
            assert!(ensure_alternating(Vec::<Message>::new()).unwrap().is_empty());
        }
    }

    #[test]
    fn idempotent() {
        let messages = vec![Message::assistant("x"), Message::user("u"), Message::user("v")];
        let once = ensure_alternating(messages).unwrap();
        assert_eq!(ensure_alternating(once.clone()).unwrap(), once);
    }
}
