//! The chat vocabulary every stage speaks at its edges: who speaks a message
//! ([`Role`]), what it holds ([`Part`]s, whose bytes are shared [`Data`]),
//! and the [`Message`] itself.
//!
//! From the moment a stage produces a message until a provider adapter
//! consumes it, it is this [`Message`]. Bytes stay bytes: an embedded image
//! is read once, shared by every clone (a batch never copies an embed per
//! row), and encoded to base64 once, by the adapter that sends it. Reference
//! wire shapes (lmml's content parts, LLMR's message lists) are serializers
//! at the edge of their stage crate, not types here.
//!
//! The neutral JSON form (what `prompt-suite build --messages` prints) is
//! the serde form of these types:
//!
//! ```
//! use prompt_core::chat::{Message, Part, Role};
//!
//! let message = Message {
//!     role: Role::User,
//!     content: vec![Part::text("Look:"), Part::image("image/png", vec![0, 255, 7])],
//!     name: None,
//! };
//! assert_eq!(
//!     serde_json::to_string(&message)?,
//!     r#"{"role":"user","content":[{"type":"text","text":"Look:"},{"type":"image","media_type":"image/png","data":"AP8H"}]}"#
//! );
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::json::RawJson;

/// Who speaks a message.
///
/// Parsed from exactly its lowercase name ([`Role::from_str`]); the role
/// words a narrative accepts in its delimiters (any case, aliases) are the
/// narrative's business.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// Instructions for the model (OpenAI `system`, Anthropic's top-level
    /// `system`, Gemini's `systemInstruction`).
    System,
    /// The user's turn.
    User,
    /// The model's own earlier turn (Gemini calls it `model`).
    Assistant,
    /// A tool's result, answering an assistant's tool call.
    Tool,
}

impl Role {
    /// Every role, in this order.
    pub const ALL: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

    /// The lowercase name, as in chat-completions JSON: `system`, `user`,
    /// `assistant`, `tool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = UnknownRole;

    /// Exactly one of the four lowercase names.
    ///
    /// ```
    /// use prompt_core::chat::Role;
    ///
    /// assert_eq!("assistant".parse::<Role>(), Ok(Role::Assistant));
    /// assert!("System".parse::<Role>().is_err());
    /// ```
    fn from_str(name: &str) -> Result<Role, UnknownRole> {
        Role::ALL
            .into_iter()
            .find(|role| role.as_str() == name)
            .ok_or_else(|| UnknownRole(name.to_owned()))
    }
}

/// A name that is not one of the four [`Role`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRole(String);

impl UnknownRole {
    /// The name as given.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UnknownRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a role (system, user, assistant or tool)", self.0)
    }
}

impl std::error::Error for UnknownRole {}

/// Bytes shared by every clone: cloning a [`Part`] never copies its data.
///
/// Serialized as standard base64 text (with padding), the neutral JSON form.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Data(Arc<[u8]>);

impl Data {
    /// The bytes, shared from now on.
    pub fn new(bytes: impl Into<Arc<[u8]>>) -> Data {
        Data(bytes.into())
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Deref for Data {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Data {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Data {
    fn from(bytes: Vec<u8>) -> Data {
        Data(bytes.into())
    }
}

impl From<&[u8]> for Data {
    fn from(bytes: &[u8]) -> Data {
        Data(bytes.into())
    }
}

impl From<Arc<[u8]>> for Data {
    fn from(bytes: Arc<[u8]>) -> Data {
        Data(bytes)
    }
}

impl fmt::Debug for Data {
    /// The size and the first bytes: a 20 MB video is not a 20 MB debug line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 16;
        write!(f, "Data({} bytes", self.0.len())?;
        if !self.0.is_empty() {
            write!(f, ": {:02x?}", &self.0[..self.0.len().min(SHOWN)])?;
            if self.0.len() > SHOWN {
                f.write_str("...")?;
            }
        }
        f.write_str(")")
    }
}

impl Serialize for Data {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use base64::Engine as _;
        serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Data {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Data, D::Error> {
        use base64::Engine as _;
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)?;
        Ok(Data::from(bytes))
    }
}

/// One piece of a message's content.
///
/// More kinds may come; match with a fallback arm that refuses what it
/// cannot carry, never one that drops it.
///
/// Its serde form is internally tagged (`{"type": "text", "text": ...}`).
/// It is read from JSON only (serde_json), because tool arguments are kept
/// as their exact text, which serde's buffering of tagged enums would lose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Part {
    /// Plain text.
    Text {
        /// The text, exactly as it is sent.
        text: String,
    },
    /// An image, sent inline.
    Image {
        /// Its MIME type, e.g. `image/png`.
        media_type: String,
        /// The raw image bytes.
        data: Data,
        /// The detail level asked for (OpenAI's `detail`), if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<ImageDetail>,
    },
    /// An image by its `https://` URL, which the provider fetches (the
    /// suite never does).
    ImageUrl {
        /// The URL, as written.
        url: String,
        /// The detail level asked for (OpenAI's `detail`), if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<ImageDetail>,
    },
    /// Any other file (a PDF, a text document, audio...), sent inline.
    File {
        /// The file's name, e.g. `report.pdf`.
        filename: String,
        /// Its MIME type, e.g. `application/pdf`.
        media_type: String,
        /// The raw file bytes.
        data: Data,
    },
    /// The model asks to call a tool (a part of an assistant message).
    ToolCall {
        /// The call's id, which its result names (OpenAI `tool_calls[].id`,
        /// Anthropic `tool_use.id`; Gemini has none and matches by name).
        id: String,
        /// The tool's name, as declared.
        name: String,
        /// The arguments: a JSON object, kept exactly as written.
        arguments: RawJson,
    },
    /// A tool's result, answering the call whose id it names (a part of a
    /// [`Role::Tool`] message).
    ToolResult {
        /// The id of the [`Part::ToolCall`] it answers.
        call_id: String,
        /// What the tool returned (text, and images where the provider
        /// takes them).
        content: Vec<Part>,
        /// The tool failed; `content` says how (Anthropic `is_error`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// How closely the model looks at an image (OpenAI's `detail`; the other
/// providers have no such field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ImageDetail {
    /// The provider decides (OpenAI's default).
    Auto,
    /// A low-resolution look.
    Low,
    /// A high-resolution look.
    High,
}

impl ImageDetail {
    /// The lowercase name: `auto`, `low` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageDetail::Auto => "auto",
            ImageDetail::Low => "low",
            ImageDetail::High => "high",
        }
    }
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text { text: text.into() }
    }

    /// An image part.
    pub fn image(media_type: impl Into<String>, data: impl Into<Data>) -> Part {
        Part::Image { media_type: media_type.into(), data: data.into(), detail: None }
    }

    /// An image part by URL, without a detail level.
    pub fn image_url(url: impl Into<String>) -> Part {
        Part::ImageUrl { url: url.into(), detail: None }
    }

    /// A file part.
    pub fn file(
        filename: impl Into<String>,
        media_type: impl Into<String>,
        data: impl Into<Data>,
    ) -> Part {
        Part::File { filename: filename.into(), media_type: media_type.into(), data: data.into() }
    }

    /// The text of a text part.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Part::Text { text } => Some(text),
            _ => None,
        }
    }

    /// A tool call part.
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, arguments: RawJson) -> Part {
        Part::ToolCall { id: id.into(), name: name.into(), arguments }
    }

    /// A successful tool result holding one text part.
    pub fn tool_result(call_id: impl Into<String>, text: impl Into<String>) -> Part {
        Part::ToolResult {
            call_id: call_id.into(),
            content: vec![Part::text(text)],
            is_error: false,
        }
    }

    /// What kind of part this is, for messages to people: `text`,
    /// `image (image/png)`, `image (URL)`, `file (application/pdf)`,
    /// `tool call (NAME)` or `tool result (ID)`.
    pub fn describe(&self) -> String {
        match self {
            Part::Text { .. } => "text".to_owned(),
            Part::Image { media_type, .. } => format!("image ({media_type})"),
            Part::ImageUrl { .. } => "image (URL)".to_owned(),
            Part::File { media_type, .. } => format!("file ({media_type})"),
            Part::ToolCall { name, .. } => format!("tool call ({name})"),
            Part::ToolResult { call_id, .. } => format!("tool result ({call_id})"),
        }
    }
}

/// The fields of each kind of [`Part`], read from a part's own JSON text
/// after its `type` (serde's derived tagged-enum reader buffers the fields,
/// and a buffered `RawValue` cannot be read).
mod part_serde {
    use std::borrow::Cow;

    use serde::Deserialize;
    use serde_json::value::RawValue;

    use super::{Data, ImageDetail, Part};
    use crate::json::RawJson;

    #[derive(Deserialize)]
    struct Tag<'a> {
        #[serde(rename = "type", borrow)]
        kind: Cow<'a, str>,
    }

    #[derive(Deserialize)]
    struct Text {
        text: String,
    }

    #[derive(Deserialize)]
    struct Image {
        media_type: String,
        data: Data,
        #[serde(default)]
        detail: Option<ImageDetail>,
    }

    #[derive(Deserialize)]
    struct ImageUrl {
        url: String,
        #[serde(default)]
        detail: Option<ImageDetail>,
    }

    #[derive(Deserialize)]
    struct File {
        filename: String,
        media_type: String,
        data: Data,
    }

    #[derive(Deserialize)]
    struct ToolCall {
        id: String,
        name: String,
        arguments: RawJson,
    }

    /// A result's content is read one part at a time, as raw text, and may
    /// not hold tool calls or results itself: nesting stops at one level, so
    /// no part is read more than twice and hostile nesting cannot go deep.
    #[derive(Deserialize)]
    struct ToolResult<'a> {
        call_id: String,
        #[serde(borrow)]
        content: Vec<&'a RawValue>,
        #[serde(default)]
        is_error: bool,
    }

    fn read<'a, T: Deserialize<'a>, E: serde::de::Error>(text: &'a str) -> Result<T, E> {
        serde_json::from_str(text).map_err(E::custom)
    }

    impl<'de> Deserialize<'de> for Part {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Part, D::Error> {
            let raw = <Box<RawValue>>::deserialize(deserializer)?;
            part(raw.get(), true)
        }
    }

    fn part<E: serde::de::Error>(text: &str, tools: bool) -> Result<Part, E> {
        let tag: Tag<'_> = read(text)?;
        let kind = &*tag.kind;
        if !tools && matches!(kind, "tool_call" | "tool_result") {
            return Err(E::custom(format!("a tool result cannot hold a `{kind}` part")));
        }
        Ok(match kind {
            "text" => {
                let Text { text } = read(text)?;
                Part::Text { text }
            }
            "image" => {
                let Image { media_type, data, detail } = read(text)?;
                Part::Image { media_type, data, detail }
            }
            "image_url" => {
                let ImageUrl { url, detail } = read(text)?;
                Part::ImageUrl { url, detail }
            }
            "file" => {
                let File { filename, media_type, data } = read(text)?;
                Part::File { filename, media_type, data }
            }
            "tool_call" => {
                let ToolCall { id, name, arguments } = read(text)?;
                Part::ToolCall { id, name, arguments }
            }
            "tool_result" => {
                let ToolResult { call_id, content, is_error } = read(text)?;
                let content = content
                    .into_iter()
                    .map(|raw| part(raw.get(), false))
                    .collect::<Result<_, E>>()?;
                Part::ToolResult { call_id, content, is_error }
            }
            other => {
                return Err(E::unknown_variant(
                    other,
                    &["text", "image", "image_url", "file", "tool_call", "tool_result"],
                ));
            }
        })
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks it.
    pub role: Role,
    /// Its parts, in order.
    pub content: Vec<Part>,
    /// An optional participant name (OpenAI's `name` field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    /// A message holding one text part.
    pub fn text(role: Role, text: impl Into<String>) -> Message {
        Message { role, content: vec![Part::text(text)], name: None }
    }

    /// The text of the message when every part is text, joined without a
    /// separator; `None` when it holds anything else.
    pub fn plain_text(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.content {
            out.push_str(part.as_text()?);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_neutral_json_form_round_trips() {
        let message = Message {
            role: Role::Assistant,
            content: vec![
                Part::text("hi"),
                Part::image("image/png", vec![0, 255, 7]),
                Part::file("a.pdf", "application/pdf", b"%PDF".to_vec()),
            ],
            name: Some("Ana".into()),
        };
        let json = serde_json::to_string(&message).unwrap();
        assert_eq!(
            json,
            r#"{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"image","media_type":"image/png","data":"AP8H"},{"type":"file","filename":"a.pdf","media_type":"application/pdf","data":"JVBERg=="}],"name":"Ana"}"#
        );
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), message);
        let bad = r#"{"type":"image","media_type":"image/png","data":"!!"}"#;
        assert!(serde_json::from_str::<Part>(bad).is_err());
    }

    #[test]
    fn images_by_url_and_detail_levels_have_a_neutral_json_form() {
        let message = Message {
            role: Role::User,
            content: vec![
                Part::ImageUrl {
                    url: "https://x.test/a.png".into(),
                    detail: Some(ImageDetail::Low),
                },
                Part::image_url("https://x.test/b.png"),
                Part::Image {
                    media_type: "image/png".into(),
                    data: vec![1].into(),
                    detail: Some(ImageDetail::High),
                },
            ],
            name: None,
        };
        let json = serde_json::to_string(&message).unwrap();
        assert_eq!(
            json,
            r#"{"role":"user","content":[{"type":"image_url","url":"https://x.test/a.png","detail":"low"},{"type":"image_url","url":"https://x.test/b.png"},{"type":"image","media_type":"image/png","data":"AQ==","detail":"high"}]}"#
        );
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), message);
        assert_eq!(message.content[0].describe(), "image (URL)");
        let bad = r#"{"type":"image_url","url":"https://x.test/a.png","detail":"max"}"#;
        assert!(serde_json::from_str::<Part>(bad).is_err());
    }

    #[test]
    fn tool_calls_and_results_have_a_neutral_json_form() {
        let arguments =
            RawJson::parse(r#"{"city": "Paris", "id": 123456789012345678901234567890}"#).unwrap();
        let call = Message {
            role: Role::Assistant,
            content: vec![Part::tool_call("call_1", "weather", arguments)],
            name: None,
        };
        let json = serde_json::to_string(&call).unwrap();
        assert_eq!(
            json,
            r#"{"role":"assistant","content":[{"type":"tool_call","id":"call_1","name":"weather","arguments":{"city": "Paris", "id": 123456789012345678901234567890}}]}"#
        );
        let back: Message = crate::json::Reader::new().any_integers().parse(&json).unwrap();
        assert_eq!(back, call);
        let result = Message {
            role: Role::Tool,
            content: vec![Part::tool_result("call_1", "18 C")],
            name: None,
        };
        let json = serde_json::to_string(&result).unwrap();
        assert_eq!(
            json,
            r#"{"role":"tool","content":[{"type":"tool_result","call_id":"call_1","content":[{"type":"text","text":"18 C"}]}]}"#
        );
        let failed = r#"{"type":"tool_result","call_id":"c","content":[],"is_error":true}"#;
        let Part::ToolResult { is_error, .. } = serde_json::from_str::<Part>(failed).unwrap()
        else {
            unreachable!()
        };
        assert!(is_error);
        assert_eq!(result.content[0].describe(), "tool result (call_1)");
        // Results do not nest: hostile nesting cannot go deep.
        let nested = r#"{"type":"tool_result","call_id":"c","content":[{"type":"tool_result","call_id":"d","content":[]}]}"#;
        let err = serde_json::from_str::<Part>(nested).unwrap_err();
        assert!(
            err.to_string().contains("a tool result cannot hold a `tool_result` part"),
            "{err}"
        );
        assert_eq!(call.content[0].describe(), "tool call (weather)");
    }

    #[test]
    fn data_is_shared_not_copied() {
        let part = Part::image("image/png", vec![1; 1 << 20]);
        let copy = part.clone();
        let (Part::Image { data: a, .. }, Part::Image { data: b, .. }) = (&part, &copy) else {
            unreachable!()
        };
        assert!(std::ptr::eq(a.as_bytes(), b.as_bytes()));
        assert_eq!(format!("{:?}", Data::from(vec![1, 2])), "Data(2 bytes: [01, 02])");
        assert_eq!(format!("{:?}", Data::default()), "Data(0 bytes)");
        assert!(format!("{a:?}").ends_with("...)"));
    }

    #[test]
    fn roles_parse_exactly() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
            assert_eq!(serde_json::to_string(&role).unwrap(), format!("\"{role}\""));
        }
        let err = "context".parse::<Role>().unwrap_err();
        assert_eq!(err.name(), "context");
        assert_eq!(err.to_string(), "`context` is not a role (system, user, assistant or tool)");
    }

    #[test]
    fn plain_text_only_for_all_text_messages() {
        let mut message = Message::text(Role::User, "a");
        message.content.push(Part::text("b"));
        assert_eq!(message.plain_text().as_deref(), Some("ab"));
        message.content.push(Part::file("x.pdf", "application/pdf", vec![]));
        assert_eq!(message.plain_text(), None);
        assert_eq!(message.content[2].describe(), "file (application/pdf)");
    }
}
