//! Anthropic Messages (`POST /v1/messages`).
//!
//! Leading system messages become the top-level `system` (a string for one
//! text, an array of text blocks for several, so nothing is joined or lost).
//! The conversation must start with a user turn and alternate, as the API
//! expects (the pipeline's stage 4 merges same-role runs; this adapter only
//! checks). Parts become `text`,
//! `image` (base64 `source`) and `document` blocks (PDF as base64, text files
//! as plain-text sources). `max_tokens` is required.

use serde::{Deserialize, Serialize};

use prompt_core::chat::{Message, Part, Role};

use super::{
    Conversation, Notice, Provider, base64, check_range, media_only_from_user, notices, tool_part,
    unsupported,
};
use crate::error::{Error, ErrorKind};
use crate::params::Params;

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest {
    /// The model, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The output token budget (required by the API).
    pub max_tokens: u64,
    /// The system prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<System>,
    /// The conversation, alternating and starting with the user.
    pub messages: Vec<AnthropicMessage>,
    /// Sampling temperature (0 to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass (0 to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Sample from the k most likely tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u64>,
    /// Stop sequences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
}

/// The top-level system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum System {
    /// One text.
    Text(String),
    /// Several texts, each a `{"type": "text", "text": ...}` block.
    Blocks(Vec<Block>),
}

/// One message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnthropicMessage {
    /// `user` or `assistant`.
    pub role: Role,
    /// The content blocks.
    pub content: Vec<Block>,
}

/// A content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// `{"type": "text", "text": ...}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{"type": "image", "source": {"type": "base64", ...}}`.
    Image {
        /// The image data.
        source: Source,
    },
    /// `{"type": "document", "source": ..., "title": ...}`.
    Document {
        /// The document data.
        source: Source,
        /// The file name.
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
}

/// Where a block's data comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Source {
    /// Base64 bytes.
    Base64 {
        /// The MIME type.
        media_type: String,
        /// The base64 data.
        data: String,
    },
    /// Plain text (documents only; `media_type` is `text/plain`).
    Text {
        /// The MIME type.
        media_type: String,
        /// The text.
        data: String,
    },
}

const PROVIDER: Provider = Provider::Anthropic;
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// Builds the Messages body.
///
/// # Errors
///
/// No `max_tokens`; a parameter out of Anthropic's range; a system message
/// after the conversation started or with a non-text part; a conversation
/// that does not start with the user or does not alternate; a tool message
/// or a tool call or result; an image other than JPEG, PNG, GIF or
/// WebP; a file other than a PDF or UTF-8 text; an image or file in an
/// assistant message.
pub fn build(
    messages: &[Message],
    params: &Params,
) -> Result<(MessagesRequest, Vec<Notice>), Error> {
    let max_tokens = params.max_tokens.ok_or_else(|| {
        Error::new(ErrorKind::MissingParam { provider: PROVIDER.as_str(), name: "max_tokens" })
    })?;
    check_range(PROVIDER, "temperature", params.temperature, 0.0, 1.0)?;
    check_range(PROVIDER, "top_p", params.top_p, 0.0, 1.0)?;
    let conversation = Conversation::split(PROVIDER, messages)?;
    let system = match conversation.system.as_slice() {
        [] => None,
        [text] => Some(System::Text((*text).to_owned())),
        texts => Some(System::Blocks(
            texts.iter().map(|text| Block::Text { text: (*text).to_owned() }).collect(),
        )),
    };
    let messages = conversation
        .turns
        .iter()
        .map(|&(index, message)| {
            let content = message
                .content
                .iter()
                .map(|part| block(index, message.role, part))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(AnthropicMessage { role: message.role, content })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let body = MessagesRequest {
        model: params.model.clone(),
        max_tokens,
        system,
        messages,
        temperature: params.temperature,
        top_p: params.top_p,
        top_k: params.top_k,
        stop_sequences: (!params.stop.is_empty()).then(|| params.stop.clone()),
    };
    let mut notices = notices(PROVIDER, params, &["seed", "presence_penalty", "frequency_penalty"]);
    notices.extend(conversation.dropped_names);
    Ok((body, notices))
}

fn block(index: usize, role: Role, part: &Part) -> Result<Block, Error> {
    media_only_from_user(
        PROVIDER,
        index,
        role,
        part,
        "only user messages carry images and documents",
    )?;
    Ok(match part {
        Part::Text { text } => Block::Text { text: text.clone() },
        Part::Image { media_type, data } if IMAGE_TYPES.contains(&media_type.as_str()) => {
            Block::Image {
                source: Source::Base64 { media_type: media_type.clone(), data: base64(data) },
            }
        }
        Part::Image { .. } => {
            return Err(unsupported(
                PROVIDER,
                index,
                part,
                "images must be JPEG, PNG, GIF or WebP",
            ));
        }
        Part::File { filename, media_type, data } if media_type == "application/pdf" => {
            Block::Document {
                source: Source::Base64 { media_type: media_type.clone(), data: base64(data) },
                title: Some(filename.clone()),
            }
        }
        Part::File { filename, media_type, data } if media_type.starts_with("text/") => {
            let text = std::str::from_utf8(data)
                .map_err(|_| unsupported(PROVIDER, index, part, "a text document must be UTF-8"))?;
            Block::Document {
                source: Source::Text { media_type: "text/plain".to_owned(), data: text.to_owned() },
                title: Some(filename.clone()),
            }
        }
        Part::File { .. } => {
            return Err(unsupported(PROVIDER, index, part, "documents must be PDF or text"));
        }
        _ => return Err(tool_part(PROVIDER, index, part)),
    })
}
