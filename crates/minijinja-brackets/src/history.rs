//! [`StateHistory`]: state variables that live in a chat's messages.
//!
//! A `set` is saved into the message whose render made it, so deleting,
//! rolling back or swiping messages brings earlier values back. The
//! history is an ordered list of messages; each message has one or more
//! swipes (alternative replies) and an active one; each swipe holds the
//! state writes its render made. The effective state before message `n`
//! folds the active swipes' writes of messages `0..n` in order, later
//! writes winning.
//!
//! # The regenerate rule
//!
//! A render that produces message `n` reads [`StateHistory::state_at`]`(n)`
//! (everything before `n`, never `n` itself) and its writes are stored on
//! message `n`'s swipe. Regenerating or swiping message `n` renders again
//! from the same state and stores the new writes on a new (or the same)
//! swipe of `n`, so no write is ever applied twice: `set turns = turns + 1`
//! gives the same `turns` after ten regenerations as after one.

use std::fmt;

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::{Diagnostic, Origin};
use prompt_core::text::Excerpt;
use prompt_core::text::{Position, Span};
use serde::{Deserialize, Serialize};

use crate::context::{Outcome, Rendered, Scope, Store, StoreWrite};

/// The state writes of a chat, message by message and swipe by swipe.
///
/// Serializes compactly, to be stored next to the chat log:
/// `{"messages": [{"swipes": [{"turns": 1}]}, {"swipes": [{}, {"turns": 2}], "active": 1}]}`,
/// each swipe being the object of the state variables its render set (a
/// name written twice in one render keeps its last value); `active` is
/// left out when it is 0.
///
/// ```
/// use minijinja_brackets::{Environment, StateHistory};
///
/// let env = Environment::new();
/// let template = env.compile("[% set turns = (turns -> default(0)) + 1 %]turn [[ turns ]]")?;
/// let mut history = StateHistory::new();
///
/// // A new reply: render from the state before it, store its writes on it.
/// let reply = history.push_message();
/// let rendered = template.render(&history.context_at(reply, &Default::default())?, 1)?;
/// history.record(reply, &rendered)?;
///
/// // Regenerate it ten times: each render reads the state *before* it.
/// for seed in 0..10 {
///     let rendered = template.render(&history.context_at(reply, &Default::default())?, seed)?;
///     history.add_swipe(reply)?;
///     history.record(reply, &rendered)?;
///     assert_eq!(rendered.output, "turn 1");
/// }
/// assert_eq!(history.state()["turns"], 1);
///
/// // The next message sees the active swipe's writes.
/// let next = history.push_message();
/// let rendered = template.render(&history.context_at(next, &Default::default())?, 0)?;
/// assert_eq!(rendered.output, "turn 2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateHistory {
    #[serde(deserialize_with = "messages")]
    messages: Vec<HistoryMessage>,
}

/// One message of a [`StateHistory`]: its swipes and the active one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawMessage")]
pub struct HistoryMessage {
    swipes: Vec<Store>,
    #[serde(skip_serializing_if = "is_first")]
    active: usize,
}

/// The active swipe is left out of the JSON when it is the first.
fn is_first(active: &usize) -> bool {
    *active == 0
}

/// A message as written in JSON, checked into a [`HistoryMessage`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMessage {
    swipes: Vec<Store>,
    #[serde(default)]
    active: usize,
}

/// The message list, each message checked and named by its index when it
/// is wrong.
fn messages<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<HistoryMessage>, D::Error> {
    struct Messages;
    impl<'de> serde::de::Visitor<'de> for Messages {
        type Value = Vec<HistoryMessage>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of messages")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut messages = Vec::new();
            while let Some(raw) = seq.next_element::<RawMessage>()? {
                let message = HistoryMessage::try_from(raw).map_err(|why| {
                    serde::de::Error::custom(format_args!("message {}: {why}", messages.len()))
                })?;
                messages.push(message);
            }
            Ok(messages)
        }
    }
    d.deserialize_seq(Messages)
}

impl TryFrom<RawMessage> for HistoryMessage {
    type Error = String;

    fn try_from(raw: RawMessage) -> Result<HistoryMessage, String> {
        if raw.swipes.is_empty() {
            return Err("a message needs at least one swipe".to_owned());
        }
        if raw.active >= raw.swipes.len() {
            return Err(format!(
                "the active swipe {} does not exist (the message has {})",
                raw.active,
                count(raw.swipes.len(), "swipe")
            ));
        }
        Ok(HistoryMessage { swipes: raw.swipes, active: raw.active })
    }
}

impl HistoryMessage {
    fn new() -> HistoryMessage {
        HistoryMessage { swipes: vec![Store::new()], active: 0 }
    }

    /// Every swipe's writes, in the order the swipes were added.
    pub fn swipes(&self) -> &[Store] {
        &self.swipes
    }

    /// The index of the active swipe.
    pub fn active(&self) -> usize {
        self.active
    }

    /// The active swipe's writes: what this message contributes to the
    /// state.
    pub fn writes(&self) -> &Store {
        &self.swipes[self.active]
    }
}

impl StateHistory {
    /// An empty history.
    pub fn new() -> StateHistory {
        StateHistory::default()
    }

    /// Reads a history from its JSON form, strictly (`prompt_core::json`):
    /// a leading byte order mark is ignored; a key repeated in one object
    /// and an integer outside 64 bits are errors.
    ///
    /// # Errors
    ///
    /// `invalid_history` with the line and column (in characters) for
    /// malformed JSON, a repeated key, a big integer, a wrong shape, and for
    /// a message without swipes or an active swipe that does not exist (at
    /// that message); `memory_limit` for a history whose values would take
    /// more than the default memory limit (128 MiB), at the value where the
    /// count passed it, before any is built.
    pub fn from_json(json: &str) -> Result<StateHistory, HistoryError> {
        /// The top level, each message kept as its text.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Outline<'a> {
            #[serde(borrow)]
            messages: Vec<&'a serde_json::value::RawValue>,
        }
        // The whole text is counted once, against the default memory
        // limit, before any message is built.
        let reader =
            prompt_core::json::Reader::new().memory_limit(crate::Limits::default().memory_limit);
        let outline: Outline<'_> = reader.parse(json).map_err(|err| invalid(json, 0, &err))?;
        let mut messages = Vec::with_capacity(outline.messages.len());
        for raw in outline.messages {
            let text = raw.get();
            // The message's place in `json`: the raw value is a slice of it.
            let at = text.as_ptr() as usize - json.as_ptr() as usize;
            let message: RawMessage =
                prompt_core::json::from_str(text).map_err(|err| invalid(json, at, &err))?;
            let message = HistoryMessage::try_from(message).map_err(|why| {
                let message = format!("message {}: {why}", messages.len());
                HistoryError::new(HistoryErrorKind::InvalidHistory, message).at(json, at)
            })?;
            messages.push(message);
        }
        Ok(StateHistory { messages })
    }

    /// The history's JSON form (compact, one line).
    pub fn to_json(&self) -> String {
        // A map of JSON values with string keys always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The messages, oldest first.
    pub fn messages(&self) -> &[HistoryMessage] {
        &self.messages
    }

    /// How many messages there are.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether there are no messages.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Appends a message with one empty swipe; returns its index.
    pub fn push_message(&mut self) -> usize {
        self.messages.push(HistoryMessage::new());
        self.messages.len() - 1
    }

    /// Adds an empty swipe to message `message` and makes it active;
    /// returns its index.
    ///
    /// # Errors
    ///
    /// `message_out_of_range` when there is no such message.
    pub fn add_swipe(&mut self, message: usize) -> Result<usize, HistoryError> {
        let m = self.message_mut(message)?;
        m.swipes.push(Store::new());
        m.active = m.swipes.len() - 1;
        Ok(m.active)
    }

    /// Makes swipe `swipe` of message `message` the active one.
    ///
    /// # Errors
    ///
    /// `message_out_of_range` or `swipe_out_of_range`.
    pub fn select_swipe(&mut self, message: usize, swipe: usize) -> Result<(), HistoryError> {
        let m = self.message_mut(message)?;
        if swipe >= m.swipes.len() {
            let count = m.swipes.len();
            return Err(HistoryError::new(
                HistoryErrorKind::SwipeOutOfRange,
                format!(
                    "message {message} has no swipe {swipe} (it has {})",
                    self::count(count, "swipe")
                ),
            ));
        }
        m.active = swipe;
        Ok(())
    }

    /// Deletes message `message`; its writes vanish and later messages
    /// move down by one.
    ///
    /// # Errors
    ///
    /// `message_out_of_range` when there is no such message.
    pub fn delete_message(&mut self, message: usize) -> Result<(), HistoryError> {
        self.message_mut(message)?;
        self.messages.remove(message);
        Ok(())
    }

    /// Rolls back to the first `len` messages (nothing happens when there
    /// are not more).
    pub fn truncate(&mut self, len: usize) {
        self.messages.truncate(len);
    }

    /// Stores the state writes of `rendered` on the active swipe of
    /// message `message`, replacing what it held: a swipe is the result of
    /// one render. Local and global writes are not kept (the host owns
    /// those stores).
    ///
    /// # Errors
    ///
    /// `message_out_of_range` when there is no such message.
    pub fn record(&mut self, message: usize, rendered: &Rendered) -> Result<(), HistoryError> {
        self.record_writes(message, &rendered.writes)
    }

    /// As [`StateHistory::record`], from an [`Outcome`]
    /// ([`Template::render_outcome`], or what a pipeline build returns in
    /// its `rendered`).
    ///
    /// ```
    /// use minijinja_brackets::{Environment, StateHistory, context};
    ///
    /// let template = Environment::new().compile("[% set turns = (turns -> default(0)) + 1 %]")?;
    /// let mut history = StateHistory::new();
    /// let reply = history.push_message();
    /// let outcome = template.render_outcome(&history.context_at(reply, &context! {})?, 0)?;
    /// history.record_outcome(reply, &outcome)?;
    /// assert_eq!(history.state()["turns"], 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Template::render_outcome`]: crate::Template::render_outcome
    ///
    /// # Errors
    ///
    /// `message_out_of_range` when there is no such message.
    pub fn record_outcome(
        &mut self,
        message: usize,
        outcome: &Outcome,
    ) -> Result<(), HistoryError> {
        self.record_writes(message, &outcome.writes)
    }

    /// As [`StateHistory::record`], from a list of writes.
    ///
    /// # Errors
    ///
    /// `message_out_of_range` when there is no such message.
    pub fn record_writes(
        &mut self,
        message: usize,
        writes: &[StoreWrite],
    ) -> Result<(), HistoryError> {
        let m = self.message_mut(message)?;
        let swipe = &mut m.swipes[m.active];
        swipe.clear();
        crate::context::fold_writes(writes.iter().filter(|w| w.scope == Scope::State), swipe);
        Ok(())
    }

    /// The effective state before message `message`: the active swipes'
    /// writes of every earlier message, folded in order, later writes
    /// winning. `state_at(len())` is the state after the whole chat.
    ///
    /// # Errors
    ///
    /// `message_out_of_range` when `message > len()`.
    pub fn state_at(&self, message: usize) -> Result<Store, HistoryError> {
        let Some(earlier) = self.messages.get(..message) else {
            return Err(self.out_of_range(message));
        };
        Ok(fold(earlier))
    }

    /// The effective state after every message.
    pub fn state(&self) -> Store {
        fold(&self.messages)
    }

    /// The context to render message `message` with: `base`'s local and
    /// global stores, and `base`'s state (the starting values) with
    /// [`StateHistory::state_at`]`(message)` folded over it.
    ///
    /// # Errors
    ///
    /// `message_out_of_range` when `message > len()`.
    pub fn context_at(
        &self,
        message: usize,
        base: &crate::Context,
    ) -> Result<crate::Context, HistoryError> {
        let mut context = base.clone();
        for (name, value) in self.state_at(message)? {
            context.state.insert(name, value);
        }
        Ok(context)
    }

    fn message_mut(&mut self, message: usize) -> Result<&mut HistoryMessage, HistoryError> {
        let len = self.messages.len();
        self.messages.get_mut(message).ok_or_else(|| out_of_range(message, len))
    }

    fn out_of_range(&self, message: usize) -> HistoryError {
        out_of_range(message, self.messages.len())
    }
}

/// The active swipes' writes of `messages`, folded in order.
fn fold(messages: &[HistoryMessage]) -> Store {
    let mut state = Store::new();
    for m in messages {
        for (name, value) in m.writes() {
            state.insert(name.clone(), value.clone());
        }
    }
    state
}

fn out_of_range(message: usize, len: usize) -> HistoryError {
    HistoryError::new(
        HistoryErrorKind::MessageOutOfRange,
        format!("there is no message {message} (the history has {})", count(len, "message")),
    )
}

/// `1 swipe`, `2 swipes`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// An `invalid_history` error for `err`, found in the part of `json` that
/// starts at byte `at`.
fn invalid(json: &str, at: usize, err: &prompt_core::json::JsonError) -> HistoryError {
    let kind = match err.kind() {
        prompt_core::json::JsonErrorKind::MemoryLimit => HistoryErrorKind::MemoryLimit,
        _ => HistoryErrorKind::InvalidHistory,
    };
    HistoryError::new(kind, err.message().to_owned()).at(json, at + err.offset())
}

/// What went wrong with a [`StateHistory`] operation or file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HistoryErrorKind {
    /// The history JSON is malformed or has the wrong shape.
    /// E.g. `{"messages": [{"swipes": []}]}` (a message without swipes).
    InvalidHistory,
    /// A message index past the end. E.g. `add_swipe(3)` on a history of
    /// three messages.
    MessageOutOfRange,
    /// A swipe index past the message's swipes. E.g. `select_swipe(0, 1)`
    /// when message 0 has one swipe.
    SwipeOutOfRange,
    /// A history whose values would take more than the default memory
    /// limit ([`Limits::memory_limit`](crate::Limits::memory_limit)),
    /// found on its text before they are built.
    MemoryLimit,
}

impl HistoryErrorKind {
    /// The snake_case name: `invalid_history`, `message_out_of_range`,
    /// `swipe_out_of_range`, `memory_limit`.
    pub fn as_str(&self) -> &'static str {
        match self {
            HistoryErrorKind::InvalidHistory => "invalid_history",
            HistoryErrorKind::MessageOutOfRange => "message_out_of_range",
            HistoryErrorKind::SwipeOutOfRange => "swipe_out_of_range",
            HistoryErrorKind::MemoryLimit => "memory_limit",
        }
    }
}

impl fmt::Display for HistoryErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error from a [`StateHistory`] operation, or from reading one.
///
/// A [`Diagnostic`]: an `invalid_history` error has the byte span of the
/// problem in the JSON given to [`StateHistory::from_json`] (its
/// [`Origin::Input`]), and its line and column in characters, a byte order
/// mark not counted ([`HistoryError::line`], [`HistoryError::column`]);
/// an index error has no place in a text. `Display` is the message alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryError {
    kind: HistoryErrorKind,
    message: String,
    place: Option<(Span, Position)>,
    /// The line of the history JSON at `place`, for
    /// [`HistoryError::annotated`].
    excerpt: Option<Box<(Excerpt, String)>>,
}

impl HistoryError {
    fn new(kind: HistoryErrorKind, message: String) -> HistoryError {
        HistoryError { kind, message, place: None, excerpt: None }
    }

    /// The error at byte `offset` of `json` (an empty span: its snippet is
    /// the rest of the line).
    fn at(mut self, json: &str, offset: usize) -> HistoryError {
        let offset = json.floor_char_boundary(offset);
        self.place = Some((Span::at(offset), prompt_core::text::position(json, offset)));
        let snippet = prompt_core::text::snippet(json, Span::at(offset)).to_owned();
        self.excerpt = Some(Box::new((Excerpt::new(json, Span::at(offset)), snippet)));
        self
    }

    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[kind]: message`, and for
    /// `invalid_history` its position and the line of the history JSON
    /// (name the file with [`Annotated::with_origin`]).
    pub fn annotated(&self) -> Annotated {
        let annotated = Annotated::of(self, None);
        match self.excerpt.as_deref() {
            Some((excerpt, snippet)) => {
                annotated.with_snippet(snippet.as_str()).with_excerpt(excerpt.clone())
            }
            None => annotated,
        }
    }

    /// The kind of error.
    pub fn kind(&self) -> HistoryErrorKind {
        self.kind
    }

    /// The message for people, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The 1-based line in the history file, for `invalid_history`.
    pub fn line(&self) -> Option<usize> {
        self.place.map(|(_, at)| at.line)
    }

    /// The 1-based column in the history file, in characters, for
    /// `invalid_history`.
    pub fn column(&self) -> Option<usize> {
        self.place.map(|(_, at)| at.column)
    }
}

/// The message alone, without the position (the [`Diagnostic`] contract).
impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HistoryError {}

impl Diagnostic for HistoryError {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }

    /// Where in the history JSON, for `invalid_history`.
    fn span(&self) -> Option<Span> {
        self.place.map(|(span, _)| span)
    }

    /// The history JSON (a history has no other text).
    fn origin(&self) -> Origin {
        Origin::Input
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::value::Value;

    fn write(name: &str, value: serde_json::Value) -> StoreWrite {
        StoreWrite {
            scope: Scope::State,
            name: name.to_owned(),
            value: Value::from_json(&value).unwrap(),
        }
    }

    #[test]
    fn later_messages_win_and_swipes_switch() {
        let mut h = StateHistory::new();
        let a = h.push_message();
        h.record_writes(a, &[write("x", json!(1)), write("y", json!("a"))]).unwrap();
        let b = h.push_message();
        h.record_writes(b, &[write("x", json!(2))]).unwrap();
        assert_eq!(h.state_at(1).unwrap(), json!({"x": 1, "y": "a"}).as_object().cloned().unwrap());
        assert_eq!(h.state()["x"], 2);
        h.add_swipe(b).unwrap();
        assert_eq!(h.state()["x"], 1);
        h.select_swipe(b, 0).unwrap();
        assert_eq!(h.state()["x"], 2);
        h.delete_message(a).unwrap();
        assert_eq!(h.state(), json!({"x": 2}).as_object().cloned().unwrap());
        h.truncate(0);
        assert!(h.state().is_empty() && h.is_empty());
    }

    #[test]
    fn local_and_global_writes_are_not_kept() {
        let mut h = StateHistory::new();
        let m = h.push_message();
        let local = StoreWrite { scope: Scope::Local, name: "l".into(), value: 1.into() };
        h.record_writes(m, &[local, write("s", json!(true))]).unwrap();
        assert_eq!(h.to_json(), r#"{"messages":[{"swipes":[{"s":true}]}]}"#);
    }

    #[test]
    fn indices_out_of_range_are_typed_errors() {
        let mut h = StateHistory::new();
        assert_eq!(h.add_swipe(0).unwrap_err().kind(), HistoryErrorKind::MessageOutOfRange);
        assert_eq!(h.state_at(1).unwrap_err().kind(), HistoryErrorKind::MessageOutOfRange);
        assert!(h.state_at(0).unwrap().is_empty());
        h.push_message();
        let err = h.select_swipe(0, 1).unwrap_err();
        assert_eq!(err.kind(), HistoryErrorKind::SwipeOutOfRange);
        assert_eq!(err.to_string(), "message 0 has no swipe 1 (it has 1 swipe)");
        assert_eq!((Diagnostic::kind(&err), Diagnostic::span(&err)), ("swipe_out_of_range", None));
        assert_eq!(h.delete_message(5).unwrap_err().kind().as_str(), "message_out_of_range");
    }

    #[test]
    fn malformed_files_are_errors_with_positions() {
        let cases = [
            ("{\"messages\": [{\"swipes\": []}]}", 1, "a message needs at least one swipe"),
            (
                "{\"messages\": [{\"swipes\": [{}]},\n{\"swipes\": [{}], \"active\": 1}]}",
                2,
                "message 1: the active swipe 1",
            ),
            ("{\"messages\": 3}", 1, "invalid type"),
            ("{\"messages\": [], \"extra\": 1}", 1, "unknown field"),
            ("{\"messages\": [{\"swipes\": [[1]]}]}", 1, "invalid type"),
            ("\n\n  {", 3, "EOF"),
        ];
        for (json, line, needle) in cases {
            let err = StateHistory::from_json(json).unwrap_err();
            assert_eq!(err.kind(), HistoryErrorKind::InvalidHistory, "{json}");
            assert_eq!(err.line(), Some(line), "{json}: {err}");
            assert!(err.message().contains(needle), "{json}: {err}");
            assert!(err.column().is_some());
        }
        // Drawn by the suite's one renderer, with the line of the JSON.
        let err = StateHistory::from_json("{\"messages\": 3}").unwrap_err();
        let drawn = err.annotated().with_origin("h.json").to_string();
        assert!(drawn.starts_with("error[invalid_history]: invalid type"), "{drawn}");
        assert!(drawn.contains(" --> h.json:1:"), "{drawn}");
        assert!(drawn.contains("1 | {\"messages\": 3}\n"), "{drawn}");
        assert_eq!(err.to_string(), err.message());
    }

    #[test]
    fn history_json_is_read_strictly_and_positioned_in_characters() {
        // A repeated key took the last value silently.
        let err = StateHistory::from_json(r#"{"messages": [{"swipes": [{"a": 1, "a": 2}]}]}"#)
            .unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (HistoryErrorKind::InvalidHistory, Some(1), Some(36))
        );
        assert!(err.message().contains("duplicate key `a`"), "{err}");
        // A byte order mark failed with "expected value".
        let h = StateHistory::from_json("\u{feff}{\"messages\": [{\"swipes\": [{\"a\": 1}]}]}")
            .unwrap();
        assert_eq!(h.state()["a"], 1);
        // Columns count characters (serde_json counts bytes).
        let err = StateHistory::from_json("{\"messages\": [{\"swipes\": [{\"é\": 1, \"é\": 2}]}]}")
            .unwrap_err();
        assert_eq!(err.column(), Some(36));
        // An integer beyond 64 bits became a float.
        let err =
            StateHistory::from_json(r#"{"messages": [{"swipes": [{"n": 18446744073709551616}]}]}"#)
                .unwrap_err();
        assert_eq!((err.line(), err.column()), (Some(1), Some(33)));
        // A wrong message is reported at its own start, not where the
        // parser stopped after it.
        let json = "{\"messages\": [\n  {\"swipes\": [{}]},\n  {\"swipes\": [{}, {}],\n   \"active\": 5}\n]}";
        let err = StateHistory::from_json(json).unwrap_err();
        assert_eq!((err.line(), err.column()), (Some(3), Some(3)), "{err}");
        assert!(err.message().starts_with("message 1: the active swipe 5"), "{err}");
        // As a diagnostic: placed by prompt_core at the same line and
        // column, with the rest of the line as the snippet.
        let report = prompt_core::diagnostic::Report::new(&err, Some(json));
        assert_eq!(
            (report.kind.as_str(), report.line, report.column, report.snippet.as_deref()),
            ("invalid_history", Some(3), Some(3), Some("{\"swipes\": [{}, {}],"))
        );
        // Characters, not bytes, and a byte order mark is no column.
        let json = "\u{feff}{\"messages\": [{\"swipes\": [{\"é\": 1}]}],}";
        let err = StateHistory::from_json(json).unwrap_err();
        let report = prompt_core::diagnostic::Report::new(&err, Some(json));
        assert_eq!((err.line(), err.column()), (report.line, report.column));
        assert_eq!((report.column, report.snippet.as_deref()), (Some(39), Some("}")));
    }

    #[test]
    fn json_round_trips_and_active_defaults_to_zero() {
        let h = StateHistory::from_json(r#"{"messages":[{"swipes":[{"a":1},{"a":2}]}]}"#).unwrap();
        assert_eq!(h.messages()[0].active(), 0);
        assert_eq!(h.state()["a"], 1);
        assert_eq!(StateHistory::from_json(&h.to_json()).unwrap(), h);
    }
}
