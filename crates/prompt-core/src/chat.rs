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
/// More kinds will come (tool calls and their results); match with a
/// fallback arm that refuses what it cannot carry, never one that drops it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text { text: text.into() }
    }

    /// An image part.
    pub fn image(media_type: impl Into<String>, data: impl Into<Data>) -> Part {
        Part::Image { media_type: media_type.into(), data: data.into() }
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

    /// What kind of part this is, for messages to people: `text`,
    /// `image (image/png)` or `file (application/pdf)`.
    pub fn describe(&self) -> String {
        match self {
            Part::Text { .. } => "text".to_owned(),
            Part::Image { media_type, .. } => format!("image ({media_type})"),
            Part::File { media_type, .. } => format!("file ({media_type})"),
        }
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
