//! Google Gemini `generateContent`
//! (`POST /v1beta/models/{model}:generateContent`).
//!
//! Leading system messages become `systemInstruction` (one text part each);
//! the conversation becomes `contents` with roles `user` and `model`, which
//! must alternate from the user (the pipeline's stage 4 merges same-role
//! runs; this adapter only checks).
//! Images and files travel as `inline_data` parts with their MIME type.
//! Sampling parameters go to `generationConfig` under Gemini's names
//! (`maxOutputTokens`, `topP`, ...). The model is part of the URL, not the
//! body.

use serde::{Deserialize, Serialize};

use prompt_core::chat::{self, Message, Role};

use super::{Conversation, Notice, Provider, base64, check_range, notices, tool_part};
use crate::error::Error;
use crate::params::Params;

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerateContentRequest {
    /// The conversation.
    pub contents: Vec<Content>,
    /// The system prompt.
    #[serde(rename = "systemInstruction", skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content>,
    /// Sampling parameters.
    #[serde(rename = "generationConfig", skip_serializing_if = "Option::is_none")]
    pub generation_config: Option<GenerationConfig>,
}

/// A turn (or the system instruction, which has no role).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Content {
    /// `user` or `model`; absent on the system instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<GeminiRole>,
    /// The parts.
    pub parts: Vec<Part>,
}

/// Gemini's roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GeminiRole {
    /// The user.
    User,
    /// The model (the chat-completions `assistant`).
    Model,
}

/// A part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Part {
    /// `{"text": ...}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{"inline_data": {"mime_type": ..., "data": ...}}`.
    InlineData {
        /// The data.
        inline_data: Blob,
    },
}

/// Inline bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blob {
    /// The MIME type.
    pub mime_type: String,
    /// The base64 data.
    pub data: String,
}

/// Sampling parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    /// Sampling temperature (0 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Top-k sampling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u64>,
    /// The output token budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// Stop sequences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Sampling seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Presence penalty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// Frequency penalty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
}

const PROVIDER: Provider = Provider::Gemini;

/// Builds the `generateContent` body.
///
/// # Errors
///
/// A parameter out of Gemini's range; a system message after the
/// conversation started or with a non-text part; a conversation that does
/// not start with the user or does not alternate; a tool message or a tool
/// call or result.
pub fn build(
    messages: &[Message],
    params: &Params,
) -> Result<(GenerateContentRequest, Vec<Notice>), Error> {
    check_range(PROVIDER, "temperature", params.temperature, 0.0, 2.0)?;
    check_range(PROVIDER, "top_p", params.top_p, 0.0, 1.0)?;
    check_range(PROVIDER, "presence_penalty", params.presence_penalty, -2.0, 2.0)?;
    check_range(PROVIDER, "frequency_penalty", params.frequency_penalty, -2.0, 2.0)?;
    let conversation = Conversation::split(PROVIDER, messages)?;
    let system_instruction = (!conversation.system.is_empty()).then(|| Content {
        role: None,
        parts: conversation
            .system
            .iter()
            .map(|text| Part::Text { text: (*text).to_owned() })
            .collect(),
    });
    let contents = conversation
        .turns
        .iter()
        .map(|&(index, message)| {
            let role =
                if message.role == Role::User { GeminiRole::User } else { GeminiRole::Model };
            let parts = message
                .content
                .iter()
                .map(|part| self::part(index, part))
                .collect::<Result<_, _>>()?;
            Ok(Content { role: Some(role), parts })
        })
        .collect::<Result<_, Error>>()?;
    let config = GenerationConfig {
        temperature: params.temperature,
        top_p: params.top_p,
        top_k: params.top_k,
        max_output_tokens: params.max_tokens,
        stop_sequences: (!params.stop.is_empty()).then(|| params.stop.clone()),
        seed: params.seed,
        presence_penalty: params.presence_penalty,
        frequency_penalty: params.frequency_penalty,
    };
    let generation_config = (config != GenerationConfig::default()).then_some(config);
    let body = GenerateContentRequest { contents, system_instruction, generation_config };
    let mut notices = notices(PROVIDER, params, &[]);
    notices.extend(conversation.dropped_names);
    Ok((body, notices))
}

fn part(index: usize, part: &chat::Part) -> Result<Part, Error> {
    Ok(match part {
        chat::Part::Text { text } => Part::Text { text: text.clone() },
        chat::Part::Image { media_type, data } | chat::Part::File { media_type, data, .. } => {
            Part::InlineData {
                inline_data: Blob { mime_type: media_type.clone(), data: base64(data) },
            }
        }
        _ => return Err(tool_part(PROVIDER, index, part)),
    })
}
