//! `transcript-flip` messages to and from unified messages.
//!
//! Flip's messages are chat-completions JSON: a role, a content that is a
//! string or an array of parts, and any other fields. The unified message
//! keeps text, images (as `data:` URIs or in the unified part shape), files
//! and the `name` field; anything else is refused by name.

use serde_json::{Map, Value};
use transcript_flip::{Content, Message as FlipMessage, Role as FlipRole};

use super::image_from_data_uri;
use crate::error::{Error, ErrorKind};
use crate::message::{ContentPart, Message, Role};

const FROM: &str = "transcript";

/// Converts transcript-flip messages (see [`transcript_flip::flip`]) into
/// unified messages, in order.
///
/// # Errors
///
/// [`ErrorKind::UnsupportedRole`] for a message without a role or with a
/// `tool` or unknown role; [`ErrorKind::UnconvertiblePart`] for a missing or
/// non-text, non-part content, a part of an unknown type, an image that is
/// not an inline `data:` URI, or a field other than `name`.
pub fn from_transcript(messages: Vec<FlipMessage>) -> Result<Vec<Message>, Error> {
    messages.into_iter().enumerate().map(|(index, message)| convert(index, message)).collect()
}

fn convert(index: usize, message: FlipMessage) -> Result<Message, Error> {
    let unconvertible = |part: String, reason| {
        Error::new(ErrorKind::UnconvertiblePart { from: FROM, message: index, part, reason })
    };
    let role = match &message.role {
        Some(FlipRole::System) => Role::System,
        Some(FlipRole::User) => Role::User,
        Some(FlipRole::Assistant) => Role::Assistant,
        other => {
            return Err(Error::new(ErrorKind::UnsupportedRole {
                from: FROM,
                message: index,
                role: other.as_ref().map_or("(none)", FlipRole::as_str).to_owned(),
            }));
        }
    };
    let content = match message.content {
        Some(Content::Text(text)) => vec![ContentPart::Text { text }],
        Some(Content::Parts(parts)) => {
            parts.into_iter().map(|part| convert_part(index, part)).collect::<Result<_, _>>()?
        }
        Some(Content::Other(_)) | None => {
            return Err(unconvertible("content".to_owned(), "content must be text or parts"));
        }
    };
    let mut name = None;
    for (key, value) in message.extra {
        match (key.as_str(), value) {
            ("name", Value::String(value)) => name = Some(value),
            _ => {
                return Err(unconvertible(
                    format!("field `{key}`"),
                    "a unified message carries only `name` besides role and content",
                ));
            }
        }
    }
    Ok(Message { role, content, name })
}

fn convert_part(index: usize, part: Value) -> Result<ContentPart, Error> {
    let kind = part.get("type").and_then(Value::as_str).unwrap_or("(untyped)").to_owned();
    if kind == "image_url"
        && let Some(url) = part.pointer("/image_url/url").and_then(Value::as_str)
    {
        return image_from_data_uri(FROM, index, url);
    }
    serde_json::from_value(part).map_err(|_| {
        Error::new(ErrorKind::UnconvertiblePart {
            from: FROM,
            message: index,
            part: kind,
            reason: "parts must be text, image or file",
        })
    })
}

/// Unified messages as transcript-flip messages, so that its
/// `ensure_alternating` can arrange them. A message of one text part becomes
/// text content (which flip can merge); any other becomes an array of
/// unified parts, converted back unchanged by [`from_transcript`].
pub(crate) fn to_transcript(messages: Vec<Message>) -> Vec<FlipMessage> {
    messages
        .into_iter()
        .map(|message| {
            let role = match message.role {
                Role::System => FlipRole::System,
                Role::User => FlipRole::User,
                Role::Assistant => FlipRole::Assistant,
            };
            let mut content = message.content;
            let content = match content.as_mut_slice() {
                [ContentPart::Text { text }] => Content::Text(std::mem::take(text)),
                _ => Content::Parts(
                    content
                        .into_iter()
                        .map(|part| serde_json::to_value(part).unwrap_or(Value::Null))
                        .collect(),
                ),
            };
            let mut extra = Map::new();
            if let Some(name) = message.name {
                extra.insert("name".to_owned(), Value::String(name));
            }
            FlipMessage { role: Some(role), content: Some(content), extra }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn round_trip_through_flip_messages() {
        let messages = vec![
            Message::text(Role::System, "s"),
            Message {
                role: Role::User,
                content: vec![
                    ContentPart::text("a"),
                    ContentPart::File {
                        filename: "x.pdf".into(),
                        media_type: "application/pdf".into(),
                        data: vec![1, 2],
                    },
                ],
                name: Some("ana".into()),
            },
        ];
        assert_eq!(from_transcript(to_transcript(messages.clone())).unwrap(), messages);
    }

    #[test]
    fn chat_completions_parts_convert() {
        let message = FlipMessage::user(Content::Parts(vec![
            json!({"type": "text", "text": "hi"}),
            json!({"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lG"}}),
        ]));
        let converted = from_transcript(vec![message]).unwrap();
        assert_eq!(converted[0].content[1].describe(), "image (image/gif)");
    }

    #[test]
    fn what_cannot_convert_is_named() {
        let cases = [
            (FlipMessage::new(FlipRole::Tool, "x"), "unsupported_role"),
            (FlipMessage { role: None, content: None, extra: Map::new() }, "unsupported_role"),
            (FlipMessage::user(Content::Other(Value::Null)), "unconvertible_part"),
            (FlipMessage::user("x").with_field("tool_calls", json!([])), "unconvertible_part"),
            (
                FlipMessage::user(Content::Parts(vec![json!({"type": "input_audio"})])),
                "unconvertible_part",
            ),
        ];
        for (message, kind) in cases {
            assert_eq!(from_transcript(vec![message]).unwrap_err().kind().as_str(), kind);
        }
    }
}
