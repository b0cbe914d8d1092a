//! OpenAI chat completions (`POST /v1/chat/completions`).
//!
//! Messages keep their order and roles; a message that is one text part is
//! sent as a plain string, anything else as an array of content parts:
//! `text`, `image_url` (a `data:` URI), `file` (PDF, as `file_data` with its
//! `filename`) and `input_audio` (WAV or MP3). Unknown parameters are sent
//! as they are, next to the known ones.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use prompt_core::chat::{Message, Part, Role};

use super::{
    Notice, Provider, base64, check_range, media_only_from_user, notices, tool_part, unsupported,
    unsupported_role,
};
use crate::error::Error;
use crate::params::Params;

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// Sampling temperature (0 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass (0 to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// The output token budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Stop sequences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<String>>,
    /// Sampling seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Presence penalty (-2 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// Frequency penalty (-2 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    /// Parameters the suite does not know, passed through in the order
    /// written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: Role,
    /// The content.
    pub content: ChatContent,
    /// The participant's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A message's content: a string, or an array of parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ChatContent {
    /// Plain text.
    Text(String),
    /// Content parts.
    Parts(Vec<ChatPart>),
}

/// One content part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChatPart {
    /// `{"type": "text", "text": ...}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{"type": "image_url", "image_url": {"url": "data:..."}}`.
    ImageUrl {
        /// The image.
        image_url: ImageUrl,
    },
    /// `{"type": "file", "file": {"filename": ..., "file_data": "data:..."}}`.
    File {
        /// The file.
        file: FileData,
    },
    /// `{"type": "input_audio", "input_audio": {"data": ..., "format": "wav"}}`.
    InputAudio {
        /// The audio.
        input_audio: InputAudio,
    },
}

/// An image reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageUrl {
    /// A `data:<mime>;base64,<data>` URI.
    pub url: String,
}

/// An inline file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileData {
    /// The file's name.
    pub filename: String,
    /// A `data:<mime>;base64,<data>` URI.
    pub file_data: String,
}

/// Inline audio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputAudio {
    /// Base64 audio bytes.
    pub data: String,
    /// `wav` or `mp3`.
    pub format: String,
}

const PROVIDER: Provider = Provider::OpenAi;
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Builds the chat-completions body.
///
/// # Errors
///
/// A parameter out of OpenAI's range; an image of another type than PNG,
/// JPEG, GIF or WebP; a file other than a PDF, WAV or MP3; any non-text part
/// in a system or assistant message; a tool message or a tool call or
/// result.
pub fn build(messages: &[Message], params: &Params) -> Result<(ChatRequest, Vec<Notice>), Error> {
    check_range(PROVIDER, "temperature", params.temperature, 0.0, 2.0)?;
    check_range(PROVIDER, "top_p", params.top_p, 0.0, 1.0)?;
    check_range(PROVIDER, "presence_penalty", params.presence_penalty, -2.0, 2.0)?;
    check_range(PROVIDER, "frequency_penalty", params.frequency_penalty, -2.0, 2.0)?;
    let messages = messages
        .iter()
        .enumerate()
        .map(|(index, message)| chat_message(index, message))
        .collect::<Result<Vec<_>, _>>()?;
    let body = ChatRequest {
        model: params.model.clone(),
        messages,
        temperature: params.temperature,
        top_p: params.top_p,
        max_tokens: params.max_tokens,
        stop: (!params.stop.is_empty()).then(|| params.stop.clone()),
        seed: params.seed,
        presence_penalty: params.presence_penalty,
        frequency_penalty: params.frequency_penalty,
        extra: params.extra_json().map(|(name, value)| (name.to_owned(), value)).collect(),
    };
    Ok((body, notices(PROVIDER, params, &["top_k"])))
}

fn chat_message(index: usize, message: &Message) -> Result<ChatMessage, Error> {
    if !matches!(message.role, Role::System | Role::User | Role::Assistant) {
        return Err(unsupported_role(PROVIDER, index, message.role));
    }
    let content = match message.content.as_slice() {
        [Part::Text { text }] => ChatContent::Text(text.clone()),
        parts => ChatContent::Parts(
            parts
                .iter()
                .map(|part| chat_part(index, message.role, part))
                .collect::<Result<_, _>>()?,
        ),
    };
    Ok(ChatMessage { role: message.role, content, name: message.name.clone() })
}

fn chat_part(index: usize, role: Role, part: &Part) -> Result<ChatPart, Error> {
    media_only_from_user(PROVIDER, index, role, part, "only user messages carry images and files")?;
    Ok(match part {
        Part::Text { text } => ChatPart::Text { text: text.clone() },
        Part::Image { media_type, data } if IMAGE_TYPES.contains(&media_type.as_str()) => {
            ChatPart::ImageUrl { image_url: ImageUrl { url: data_uri(media_type, data) } }
        }
        Part::File { filename, media_type, data } if media_type == "application/pdf" => {
            ChatPart::File {
                file: FileData {
                    filename: filename.clone(),
                    file_data: data_uri(media_type, data),
                },
            }
        }
        Part::File { media_type, data, .. } if audio_format(media_type).is_some() => {
            let format = audio_format(media_type).unwrap_or_default().to_owned();
            ChatPart::InputAudio { input_audio: InputAudio { data: base64(data), format } }
        }
        Part::Image { .. } => {
            return Err(unsupported(
                PROVIDER,
                index,
                part,
                "images must be PNG, JPEG, GIF or WebP",
            ));
        }
        Part::File { .. } => {
            return Err(unsupported(PROVIDER, index, part, "files must be PDF, WAV or MP3"));
        }
        _ => return Err(tool_part(PROVIDER, index, part)),
    })
}

fn audio_format(media_type: &str) -> Option<&'static str> {
    match media_type {
        "audio/wav" | "audio/x-wav" | "audio/wave" => Some("wav"),
        "audio/mpeg" | "audio/mp3" => Some("mp3"),
        _ => None,
    }
}

fn data_uri(media_type: &str, data: &[u8]) -> String {
    format!("data:{media_type};base64,{}", base64(data))
}
