//! Google Gemini `generateContent`
//! (`POST /v1beta/models/{model}:generateContent`).
//!
//! Leading system messages become `systemInstruction` (one text part each);
//! the conversation becomes `contents` with roles `user` and `model`, which
//! must alternate from the user (the pipeline's stage 4 merges same-role
//! runs; this adapter only checks).
//! Images and files travel as `inlineData` parts with their `mimeType`
//! (camelCase, like the rest of the body); tool calls are `functionCall`
//! parts and results `functionResponse` parts (named by their call's tool,
//! `{"output": ...}` or `{"error": ...}`) in a user turn with the user
//! message right after them. Sampling parameters go to `generationConfig`
//! under Gemini's names (`maxOutputTokens`, `topP`, ...), a reasoning
//! effort to `thinkingConfig.thinkingBudget`, a response schema to
//! `responseJsonSchema` (only the keywords Gemini documents; another is
//! `unsupported_schema`). Tools are `functionDeclarations` with
//! `parametersJsonSchema`, the choice `toolConfig.functionCallingConfig`.
//! The model is part of the URL, not the body.

use serde::{Deserialize, Serialize};

use prompt_core::chat::{self, Message, Role};
use prompt_core::json::RawJson;
use serde_json::{Map, Value};

use super::{
    Calls, Conversation, MidSystem, Notice, Provider, base64, check_range, detail_notices,
    misplaced_tool_part, notices, result_texts, thinking_budget, unsupported,
};
use crate::error::{Error, ErrorKind};
use crate::params::Params;
use crate::tools::ToolChoice;

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerateContentRequest {
    /// The conversation.
    pub contents: Vec<Content>,
    /// The system prompt.
    #[serde(rename = "systemInstruction", skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content>,
    /// The tools the model may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<GeminiTool>>,
    /// Which tool the model must call.
    #[serde(rename = "toolConfig", skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig>,
    /// Sampling parameters.
    #[serde(rename = "generationConfig", skip_serializing_if = "Option::is_none")]
    pub generation_config: Option<GenerationConfig>,
}

/// `{"functionDeclarations": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GeminiTool {
    /// The functions.
    pub function_declarations: Vec<FunctionDeclaration>,
}

/// `{"name", "description", "parametersJsonSchema"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionDeclaration {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments' JSON Schema.
    pub parameters_json_schema: RawJson,
}

/// `{"functionCallingConfig": {"mode", "allowedFunctionNames"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolConfig {
    /// The mode and the allowed functions.
    pub function_calling_config: FunctionCallingConfig,
}

/// `AUTO`, `NONE` or `ANY` (with the one allowed name for a named choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCallingConfig {
    /// `AUTO`, `NONE` or `ANY`.
    pub mode: String,
    /// The tool a named choice names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_function_names: Option<Vec<String>>,
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
    /// `{"inlineData": {"mimeType": ..., "data": ...}}`.
    InlineData {
        /// The data.
        #[serde(rename = "inlineData")]
        inline_data: Blob,
    },
    /// `{"fileData": {"mimeType", "fileUri"}}`: an image by its URL.
    FileData {
        /// The type and the URL.
        #[serde(rename = "fileData")]
        file_data: FileData,
    },
    /// `{"functionCall": {"id", "name", "args"}}`.
    FunctionCall {
        /// The call.
        #[serde(rename = "functionCall")]
        function_call: FunctionCall,
    },
    /// `{"functionResponse": {"id", "name", "response"}}`.
    FunctionResponse {
        /// The result.
        #[serde(rename = "functionResponse")]
        function_response: FunctionResponse,
    },
}

/// A call the model made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The call's id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments object, exactly as the call holds it.
    pub args: RawJson,
}

/// A tool's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The id of the call it answers.
    pub id: String,
    /// The call's tool.
    pub name: String,
    /// `{"output": ...}`, or `{"error": ...}` when the tool failed.
    pub response: Map<String, Value>,
}

/// Inline bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blob {
    /// The MIME type.
    pub mime_type: String,
    /// The base64 data.
    pub data: String,
}

/// A file by its URI, which the API fetches (an `https://` URL).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileData {
    /// The MIME type.
    pub mime_type: String,
    /// The URL.
    pub file_uri: String,
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
    /// `application/json` with a response schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_mime_type: Option<String>,
    /// The response schema, as JSON Schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_json_schema: Option<RawJson>,
    /// `{"thinkingBudget"}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
}

/// `{"thinkingBudget"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingConfig {
    /// The thinking tokens.
    pub thinking_budget: u64,
}

const PROVIDER: Provider = Provider::Gemini;

/// Builds the `generateContent` body.
///
/// # Errors
///
/// A parameter out of Gemini's range; a response-schema keyword that
/// `responseJsonSchema` does not support; a system message after the
/// conversation started or with a non-text part; a conversation that does
/// not start with the user or does not alternate; a tool call outside a
/// model turn or with arguments that are not an object; a tool result
/// outside a tool message or with a part that is not text; a result that
/// answers no earlier call.
pub fn build(
    messages: &[Message],
    params: &Params,
) -> Result<(GenerateContentRequest, Vec<Notice>), Error> {
    let calls = &Calls::pair(PROVIDER, messages)?;
    check_range(PROVIDER, "temperature", params.temperature, 0.0, 2.0)?;
    check_range(PROVIDER, "top_p", params.top_p, 0.0, 1.0)?;
    check_range(PROVIDER, "presence_penalty", params.presence_penalty, -2.0, 2.0)?;
    check_range(PROVIDER, "frequency_penalty", params.frequency_penalty, -2.0, 2.0)?;
    if let Some((keyword, at)) = params.response_schema.as_ref().and_then(|s| s.gemini_refusal()) {
        return Err(Error::new(ErrorKind::UnsupportedSchema {
            provider: PROVIDER.as_str(),
            keyword: keyword.to_owned(),
            at: at.to_owned(),
        }));
    }
    let refused = MidSystem::Refused("Gemini takes system text only as `systemInstruction`");
    let conversation = Conversation::split(PROVIDER, messages, refused)?;
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
        .map(|turn| {
            let role = if turn.role == Role::User { GeminiRole::User } else { GeminiRole::Model };
            let mut parts = Vec::with_capacity(turn.parts());
            for &(index, message) in &turn.messages {
                for part in &message.content {
                    parts.push(self::part(index, message.role, part, calls)?);
                }
            }
            Ok(Content { role: Some(role), parts })
        })
        .collect::<Result<_, Error>>()?;
    let tools = (!params.tools.is_empty()).then(|| {
        vec![GeminiTool {
            function_declarations: params
                .tools
                .iter()
                .map(|tool| FunctionDeclaration {
                    name: tool.name.clone(),
                    description: tool.description.clone(),
                    parameters_json_schema: tool.parameters.clone(),
                })
                .collect(),
        }]
    });
    let tool_config = params.tool_choice.as_ref().map(|choice| {
        let (mode, allowed) = match choice {
            ToolChoice::Auto => ("AUTO", None),
            ToolChoice::None => ("NONE", None),
            ToolChoice::Required => ("ANY", None),
            ToolChoice::Named(name) => ("ANY", Some(vec![name.clone()])),
        };
        ToolConfig {
            function_calling_config: FunctionCallingConfig {
                mode: mode.to_owned(),
                allowed_function_names: allowed,
            },
        }
    });
    let config = GenerationConfig {
        temperature: params.temperature,
        top_p: params.top_p,
        top_k: params.top_k,
        max_output_tokens: params.max_tokens,
        stop_sequences: (!params.stop.is_empty()).then(|| params.stop.clone()),
        seed: params.seed,
        presence_penalty: params.presence_penalty,
        frequency_penalty: params.frequency_penalty,
        response_mime_type: params.response_schema.as_ref().map(|_| "application/json".to_owned()),
        response_json_schema: params.response_schema.as_ref().map(|s| s.schema().clone()),
        thinking_config: thinking_budget(PROVIDER, params)
            .map(|budget| ThinkingConfig { thinking_budget: budget }),
    };
    let generation_config = (config != GenerationConfig::default()).then_some(config);
    let body = GenerateContentRequest {
        contents,
        system_instruction,
        tools,
        tool_config,
        generation_config,
    };
    let mut notices = notices(PROVIDER, params, &[]);
    notices.extend(conversation.dropped_names);
    notices.extend(detail_notices(messages));
    Ok((body, notices))
}

/// The type of the image an `https://` URL names, by the extension of its
/// path (the query and fragment aside), among the image types Gemini
/// documents (PNG, JPEG, WebP, HEIC, HEIF); `None` for any other.
fn url_image_type(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let (_, extension) = path.rsplit_once('.')?;
    if extension.contains('/') {
        return None;
    }
    Some(match extension.to_ascii_lowercase().as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "heif" => "image/heif",
        _ => return None,
    })
}

fn part(index: usize, role: Role, part: &chat::Part, calls: &Calls<'_>) -> Result<Part, Error> {
    Ok(match part {
        chat::Part::Text { text } if role != Role::Tool => Part::Text { text: text.clone() },
        chat::Part::Image { media_type, data, .. } | chat::Part::File { media_type, data, .. }
            if role != Role::Tool =>
        {
            Part::InlineData {
                inline_data: Blob { mime_type: media_type.clone(), data: base64(data) },
            }
        }
        chat::Part::ImageUrl { url, .. } if role != Role::Tool => {
            let mime_type = url_image_type(url).ok_or_else(|| {
                unsupported(
                    PROVIDER,
                    index,
                    part,
                    "Gemini needs an image URL's type, and its path ends in none of .png, .jpg, .jpeg, .webp, .heic, .heif",
                )
            })?;
            Part::FileData {
                file_data: FileData { mime_type: mime_type.to_owned(), file_uri: url.clone() },
            }
        }
        chat::Part::ToolCall { id, name, arguments } if role == Role::Assistant => {
            if !arguments.is_object() {
                return Err(unsupported(PROVIDER, index, part, "tool arguments are a JSON object"));
            }
            Part::FunctionCall {
                function_call: FunctionCall {
                    id: id.clone(),
                    name: name.clone(),
                    args: arguments.clone(),
                },
            }
        }
        chat::Part::ToolResult { call_id, content, is_error } if role == Role::Tool => {
            let texts = result_texts(content).ok_or_else(|| {
                unsupported(PROVIDER, index, part, "a tool result carries only text")
            })?;
            let value = match texts.as_slice() {
                [text] => Value::String((*text).to_owned()),
                texts => texts.iter().map(|t| Value::String((*t).to_owned())).collect(),
            };
            let key = if *is_error { "error" } else { "output" };
            Part::FunctionResponse {
                function_response: FunctionResponse {
                    id: call_id.clone(),
                    name: calls.name(call_id).to_owned(),
                    response: Map::from_iter([(key.to_owned(), value)]),
                },
            }
        }
        _ => return Err(misplaced_tool_part(PROVIDER, index, part)),
    })
}
