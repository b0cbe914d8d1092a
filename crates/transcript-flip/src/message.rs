//! Chat messages in the chat-completions shape: `{"role", "content", ...}`.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who speaks a message.
///
/// Roles compare exactly and case-sensitively, as in LLMR: `"System"` is not
/// [`Role::System`] but `Role::Other("System")`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Role {
    /// `"system"`.
    System,
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
    /// `"tool"`.
    Tool,
    /// Any other role text, kept as written (e.g. `"developer"`, `"System"`).
    Other(String),
}

impl Role {
    /// The role as it is written in JSON.
    pub fn as_str(&self) -> &str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Other(other) => other,
        }
    }
}

impl From<&str> for Role {
    fn from(role: &str) -> Role {
        match role {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => Role::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Role {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Role, D::Error> {
        let role = String::deserialize(deserializer)?;
        Ok(Role::from(role.as_str()))
    }
}

/// What a message says: one text string, or anything else the provider
/// accepts (an array of content parts, `null` for a tool-call message, ...).
///
/// Only [`Content::Text`] can be merged with a neighbour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// One text string.
    Text(String),
    /// An array of content parts, e.g. `[{"type": "text", "text": "hi"}]`.
    Parts(Vec<Value>),
    /// Any other JSON value, kept as it is (`null`, an object, a number).
    Other(Value),
}

impl Content {
    /// The text, when the content is one text string.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            _ => None,
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content::Text(text.to_owned())
    }
}

/// One chat message: a role, a content, and any other fields (`name`,
/// `tool_calls`, ...) kept as they came.
///
/// Serializes as `{"role": ..., "content": ..., <extra fields in order>}`;
/// a message without a role or without a content omits that key.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The role; `None` when the input message had no `role` key.
    pub role: Option<Role>,
    /// The content; `None` when the input message had no `content` key.
    pub content: Option<Content>,
    /// Every other field, in input order.
    pub extra: Map<String, Value>,
}

impl Message {
    /// A message with `role` and text `content` and no other fields.
    pub fn new(role: Role, content: impl Into<Content>) -> Message {
        Message { role: Some(role), content: Some(content.into()), extra: Map::new() }
    }

    /// A `system` message.
    pub fn system(content: impl Into<Content>) -> Message {
        Message::new(Role::System, content)
    }

    /// A `user` message.
    pub fn user(content: impl Into<Content>) -> Message {
        Message::new(Role::User, content)
    }

    /// An `assistant` message.
    pub fn assistant(content: impl Into<Content>) -> Message {
        Message::new(Role::Assistant, content)
    }

    /// The same message with the extra field `key` set to `value`.
    pub fn with_field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Message {
        self.extra.insert(key.into(), value.into());
        self
    }

    /// The text content, when the content is one text string.
    pub fn text(&self) -> Option<&str> {
        self.content.as_ref().and_then(Content::as_text)
    }

    /// Builds a message from a JSON object. `Err` says what is wrong.
    pub(crate) fn from_object(mut object: Map<String, Value>) -> Result<Message, &'static str> {
        let role = match object.shift_remove("role") {
            None => None,
            Some(Value::String(role)) => Some(Role::from(role.as_str())),
            Some(_) => return Err("a message's `role` must be text"),
        };
        let content = object.shift_remove("content").map(|content| match content {
            Value::String(text) => Content::Text(text),
            Value::Array(parts) => Content::Parts(parts),
            other => Content::Other(other),
        });
        Ok(Message { role, content, extra: object })
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let len = usize::from(self.role.is_some())
            + usize::from(self.content.is_some())
            + self.extra.len();
        let mut map = serializer.serialize_map(Some(len))?;
        if let Some(role) = &self.role {
            map.serialize_entry("role", role)?;
        }
        if let Some(content) = &self.content {
            map.serialize_entry("content", content)?;
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Message, D::Error> {
        let object = Map::deserialize(deserializer)?;
        Message::from_object(object).map_err(de::Error::custom)
    }
}

/// A core message in LLMR's shape, as [`crate::flip_json`] gives it: the
/// role's name, the text (the text parts joined; any other part kept in
/// the neutral JSON form, in a content array), and `name` as an extra field.
impl From<prompt_core::chat::Message> for Message {
    fn from(message: prompt_core::chat::Message) -> Message {
        let content = match message.plain_text() {
            Some(text) => Content::Text(text),
            None => Content::Parts(
                message
                    .content
                    .iter()
                    .map(|part| serde_json::to_value(part).unwrap_or(Value::Null))
                    .collect(),
            ),
        };
        let mut extra = Map::new();
        if let Some(name) = message.name {
            extra.insert("name".to_owned(), Value::String(name));
        }
        Message { role: Some(Role::from(message.role.as_str())), content: Some(content), extra }
    }
}

/// A core message equals an LLMR-shaped one when its LLMR form (see the
/// `From` conversion) is that message: `flip`'s results compare with
/// `Message::user("...")`.
impl PartialEq<Message> for prompt_core::chat::Message {
    fn eq(&self, other: &Message) -> bool {
        let role = other.role.as_ref().map(Role::as_str) == Some(self.role.as_str());
        let name = match &self.name {
            Some(name) => {
                other.extra.len() == 1
                    && other.extra.get("name").and_then(Value::as_str) == Some(name)
            }
            None => other.extra.is_empty(),
        };
        let content = match (self.plain_text(), &other.content) {
            (Some(text), Some(Content::Text(theirs))) => text == *theirs,
            (None, Some(Content::Parts(theirs))) => {
                self.content.len() == theirs.len()
                    && self.content.iter().zip(theirs).all(|(part, theirs)| {
                        serde_json::to_value(part).is_ok_and(|value| value == *theirs)
                    })
            }
            _ => false,
        };
        role && name && content
    }
}

impl PartialEq<prompt_core::chat::Message> for Message {
    fn eq(&self, other: &prompt_core::chat::Message) -> bool {
        other == self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_messages_in_llmr_shape() {
        use prompt_core::chat::{Message as Core, Part, Role as CoreRole};

        let named = Core { name: Some("Ana".into()), ..Core::text(CoreRole::User, "hi") };
        let llmr = Message::user("hi").with_field("name", "Ana");
        assert_eq!(Message::from(named.clone()), llmr);
        assert!(named == llmr);
        assert!(llmr == named);
        assert!(Core::text(CoreRole::User, "hi") != llmr);
        assert!(Core::text(CoreRole::User, "ho") != Message::user("hi"));
        let image = Core {
            content: vec![Part::image("image/png", vec![1])],
            ..Core::text(CoreRole::Tool, "")
        };
        let converted = Message::from(image.clone());
        assert_eq!(converted.role, Some(Role::Tool));
        assert_eq!(
            serde_json::to_string(&converted).unwrap(),
            r#"{"role":"tool","content":[{"type":"image","media_type":"image/png","data":"AQ=="}]}"#
        );
        assert!(image == converted);
    }

    #[test]
    fn round_trip_keeps_fields_and_order() {
        let json = r#"{"content":null,"role":"assistant","tool_calls":[{"id":"1"}],"name":"x"}"#;
        let message: Message = serde_json::from_str(json).unwrap();
        assert_eq!(message.role, Some(Role::Assistant));
        assert_eq!(message.content, Some(Content::Other(Value::Null)));
        assert_eq!(
            serde_json::to_string(&message).unwrap(),
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"1"}],"name":"x"}"#
        );
    }

    #[test]
    fn missing_keys_stay_missing_and_roles_are_case_sensitive() {
        let message: Message = serde_json::from_str(r#"{"role":"System"}"#).unwrap();
        assert_eq!(message.role, Some(Role::Other("System".into())));
        assert_eq!(message.content, None);
        assert_eq!(serde_json::to_string(&message).unwrap(), r#"{"role":"System"}"#);
        let err = serde_json::from_str::<Message>(r#"{"role":3}"#).unwrap_err();
        assert!(err.to_string().starts_with("a message's `role` must be text"), "{err}");
    }
}
