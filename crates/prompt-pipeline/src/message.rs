//! The provider-neutral conversation: roles, messages and content parts.
//!
//! Every stage of the pipeline speaks these types; each provider adapter turns
//! them into its own wire shape. Binary data is kept as raw bytes and encoded
//! once, by the adapter that needs it.

use serde::{Deserialize, Serialize};

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model (OpenAI `system`, Anthropic's top-level
    /// `system`, Gemini's `systemInstruction`).
    System,
    /// The user's turn.
    User,
    /// The model's own earlier turn (Gemini calls it `model`).
    Assistant,
}

impl Role {
    /// The lowercase name, as in chat-completions JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
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
        #[serde(with = "base64_bytes")]
        data: Vec<u8>,
    },
    /// Any other file (a PDF, a text document, audio...), sent inline.
    File {
        /// The file's name, e.g. `report.pdf`.
        filename: String,
        /// Its MIME type, e.g. `application/pdf`.
        media_type: String,
        /// The raw file bytes.
        #[serde(with = "base64_bytes")]
        data: Vec<u8>,
    },
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> ContentPart {
        ContentPart::Text { text: text.into() }
    }

    /// What kind of part this is, for error messages: `text`, `image` or
    /// `file (application/pdf)`.
    pub fn describe(&self) -> String {
        match self {
            ContentPart::Text { .. } => "text".to_owned(),
            ContentPart::Image { media_type, .. } => format!("image ({media_type})"),
            ContentPart::File { media_type, .. } => format!("file ({media_type})"),
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks it.
    pub role: Role,
    /// Its parts, in order.
    pub content: Vec<ContentPart>,
    /// An optional participant name (OpenAI's `name` field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    /// A message holding one text part.
    pub fn text(role: Role, text: impl Into<String>) -> Message {
        Message { role, content: vec![ContentPart::text(text)], name: None }
    }

    /// The text of the message when every part is text, joined without a
    /// separator; `None` when it holds an image or a file.
    pub fn plain_text(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.content {
            match part {
                ContentPart::Text { text } => out.push_str(text),
                _ => return None,
            }
        }
        Some(out)
    }
}

/// Serde for bytes as standard base64 text, so the neutral types are
/// JSON-safe.
mod base64_bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        STANDARD.decode(text.as_bytes()).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip_through_json() {
        let message = Message {
            role: Role::User,
            content: vec![
                ContentPart::text("hi"),
                ContentPart::Image { media_type: "image/png".into(), data: vec![0, 255, 7] },
            ],
            name: None,
        };
        let json = serde_json::to_string(&message).unwrap();
        assert_eq!(
            json,
            r#"{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","media_type":"image/png","data":"AP8H"}]}"#
        );
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), message);
    }

    #[test]
    fn plain_text_only_for_all_text_messages() {
        let mut message = Message::text(Role::User, "a");
        message.content.push(ContentPart::text("b"));
        assert_eq!(message.plain_text().as_deref(), Some("ab"));
        message.content.push(ContentPart::File {
            filename: "x.pdf".into(),
            media_type: "application/pdf".into(),
            data: vec![],
        });
        assert_eq!(message.plain_text(), None);
    }
}
