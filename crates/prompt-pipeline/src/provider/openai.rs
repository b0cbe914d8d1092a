//! OpenAI chat completions (`POST /v1/chat/completions`).
//!
//! Messages keep their order and roles; a message that is one text part is
//! sent as a plain string, anything else as an array of content parts:
//! `text`, `image_url` (a `data:` URI), `file` (PDF, as `file_data` with its
//! `filename`) and `input_audio` (WAV or MP3). An assistant message's tool
//! calls go to its `tool_calls` (arguments as JSON text); each tool result
//! is one `tool` message naming its `tool_call_id`. The token budget is
//! `max_completion_tokens` (never the deprecated `max_tokens`), the effort
//! `reasoning_effort`, a response schema a strict `response_format`.
//! Unknown parameters are sent as they are, next to the known ones.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use prompt_core::chat::{ImageDetail, Message, Part, Role};
use prompt_core::json::RawJson;

use super::{
    Notice, Provider, base64, check_range, check_stop, media_only_from_user, misplaced_tool_part,
    notices, openai_effort, required_model, result_texts, unsupported, unsupported_role,
};
use crate::error::Error;
use crate::params::{Effort, Params};
use crate::tools::{ResponseSchema, Tool, ToolChoice};

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model.
    pub model: String,
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// Sampling temperature (0 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass (0 to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// The output token budget, reasoning included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u64>,
    /// Stop sequences (at most 4).
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
    /// `low`, `medium` or `high`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// The tools the model may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ChatTool>>,
    /// Which tool the model must call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ChatToolChoice>,
    /// A strict JSON Schema for the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// Parameters the suite does not know, passed through in the order
    /// written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: Role,
    /// The content; absent on an assistant message that only calls tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<ChatContent>,
    /// The participant's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// An assistant message's tool calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// A tool message: the call it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
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
    /// A `data:<mime>;base64,<data>` URI, or an `https://` URL.
    pub url: String,
    /// `auto`, `low` or `high`, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<ImageDetail>,
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

/// `{"id", "type": "function", "function": {"name", "arguments"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The tool and its arguments.
    pub function: FunctionCall,
}

/// A call's tool and arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool.
    pub name: String,
    /// The arguments as JSON text, exactly as the call holds them.
    pub arguments: String,
}

/// `{"type": "function", "function": {"name", "description", "parameters", "strict": true}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatTool {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function.
    pub function: Function,
}

/// A declared function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments' JSON Schema.
    pub parameters: RawJson,
    /// Always `true`: arguments follow the schema exactly.
    pub strict: bool,
}

/// `"auto"`, `"none"`, `"required"` or `{"type": "function", "function": {"name"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ChatToolChoice {
    /// `auto`, `none` or `required`.
    Mode(String),
    /// One tool.
    Named {
        /// Always `function`.
        #[serde(rename = "type")]
        kind: String,
        /// `{"name"}`.
        function: Named,
    },
}

/// A tool named by a choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    /// The tool's name.
    pub name: String,
}

/// `{"type": "json_schema", "json_schema": {"name", "schema", "strict": true}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseFormat {
    /// Always `json_schema`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The schema.
    pub json_schema: JsonSchema,
}

/// A named, strict JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSchema {
    /// Its name.
    pub name: String,
    /// The schema.
    pub schema: RawJson,
    /// Always `true`.
    pub strict: bool,
}

const PROVIDER: Provider = Provider::OpenAi;
pub(crate) const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Builds the chat-completions body.
///
/// # Errors
///
/// No model; a parameter out of OpenAI's range; more than 4 stop
/// sequences; `thinking_budget` without `reasoning_effort`; an image of
/// another type than PNG, JPEG, GIF or WebP; a file other than a PDF, WAV
/// or MP3; any non-text part in a system or assistant message (tool calls
/// aside); a tool call outside an assistant message, a tool result outside
/// a tool message or with a part that is not text, a tool message with
/// another part.
pub fn build(messages: &[Message], params: &Params) -> Result<(ChatRequest, Vec<Notice>), Error> {
    let model = required_model(PROVIDER, params)?;
    check_range(PROVIDER, "temperature", params.temperature, 0.0, 2.0)?;
    check_range(PROVIDER, "top_p", params.top_p, 0.0, 1.0)?;
    check_range(PROVIDER, "presence_penalty", params.presence_penalty, -2.0, 2.0)?;
    check_range(PROVIDER, "frequency_penalty", params.frequency_penalty, -2.0, 2.0)?;
    check_stop(params)?;
    let effort = openai_effort(params)?;
    let mut notices = notices(PROVIDER, params, &["top_k", "thinking_budget"]);
    let mut chat = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        chat_messages(index, message, &mut chat, &mut notices)?;
    }
    let body = ChatRequest {
        model,
        messages: chat,
        temperature: params.temperature,
        top_p: params.top_p,
        max_completion_tokens: params.max_tokens,
        stop: (!params.stop.is_empty()).then(|| params.stop.clone()),
        seed: params.seed,
        presence_penalty: params.presence_penalty,
        frequency_penalty: params.frequency_penalty,
        reasoning_effort: effort.map(|e| Effort::as_str(e).to_owned()),
        tools: (!params.tools.is_empty()).then(|| params.tools.iter().map(chat_tool).collect()),
        tool_choice: params.tool_choice.as_ref().map(chat_tool_choice),
        response_format: params.response_schema.as_ref().map(response_format),
        extra: params.extra_json().map(|(name, value)| (name.to_owned(), value)).collect(),
    };
    Ok((body, notices))
}

fn chat_tool(tool: &Tool) -> ChatTool {
    ChatTool {
        kind: "function".to_owned(),
        function: Function {
            name: tool.name.clone(),
            description: tool.description.clone(),
            parameters: tool.parameters.clone(),
            strict: true,
        },
    }
}

fn chat_tool_choice(choice: &ToolChoice) -> ChatToolChoice {
    match choice {
        ToolChoice::Named(name) => ChatToolChoice::Named {
            kind: "function".to_owned(),
            function: Named { name: name.clone() },
        },
        mode => ChatToolChoice::Mode(mode.to_string()),
    }
}

fn response_format(schema: &ResponseSchema) -> ResponseFormat {
    ResponseFormat {
        kind: "json_schema".to_owned(),
        json_schema: JsonSchema {
            name: schema.name().to_owned(),
            schema: schema.schema().clone(),
            strict: true,
        },
    }
}

/// The chat message(s) of `message`: a tool message gives one per result.
fn chat_messages(
    index: usize,
    message: &Message,
    out: &mut Vec<ChatMessage>,
    notices: &mut Vec<Notice>,
) -> Result<(), Error> {
    let plain = |content| ChatMessage {
        role: message.role,
        content,
        name: message.name.clone(),
        tool_calls: None,
        tool_call_id: None,
    };
    match message.role {
        Role::System | Role::User => {
            out.push(plain(Some(content(index, message.role, &message.content)?)));
        }
        Role::Assistant => {
            let (calls, parts): (Vec<&Part>, Vec<&Part>) =
                message.content.iter().partition(|part| matches!(part, Part::ToolCall { .. }));
            let tool_calls: Vec<ToolCall> = calls
                .into_iter()
                .filter_map(|part| match part {
                    Part::ToolCall { id, name, arguments } => Some(ToolCall {
                        id: id.clone(),
                        kind: "function".to_owned(),
                        function: FunctionCall {
                            name: name.clone(),
                            arguments: arguments.as_str().to_owned(),
                        },
                    }),
                    _ => None,
                })
                .collect();
            let parts: Vec<Part> = parts.into_iter().cloned().collect();
            let content = if parts.is_empty() && !tool_calls.is_empty() {
                None
            } else {
                Some(content(index, message.role, &parts)?)
            };
            let mut chat = plain(content);
            chat.tool_calls = (!tool_calls.is_empty()).then_some(tool_calls);
            out.push(chat);
        }
        Role::Tool => {
            // A tool message has no `name` (ChatCompletionRequestToolMessage).
            if let Some(name) = &message.name {
                notices.push(Notice::NameNotCarried { message: index, name: name.clone() });
            }
            for part in &message.content {
                let (call_id, texts) = tool_result(PROVIDER, index, part, notices)?;
                let content = match texts.as_slice() {
                    [text] => ChatContent::Text((*text).to_owned()),
                    texts => ChatContent::Parts(
                        texts
                            .iter()
                            .map(|text| ChatPart::Text { text: (*text).to_owned() })
                            .collect(),
                    ),
                };
                out.push(ChatMessage {
                    role: Role::Tool,
                    content: Some(content),
                    name: None,
                    tool_calls: None,
                    tool_call_id: Some(call_id.to_owned()),
                });
            }
        }
        other => return Err(unsupported_role(PROVIDER, index, other)),
    }
    Ok(())
}

fn content(index: usize, role: Role, parts: &[Part]) -> Result<ChatContent, Error> {
    Ok(match parts {
        [Part::Text { text }] => ChatContent::Text(text.clone()),
        parts => ChatContent::Parts(
            parts.iter().map(|part| chat_part(index, role, part)).collect::<Result<_, _>>()?,
        ),
    })
}

fn chat_part(index: usize, role: Role, part: &Part) -> Result<ChatPart, Error> {
    Ok(match media(PROVIDER, index, role, part, "files must be PDF, WAV or MP3")? {
        Media::Text(text) => ChatPart::Text { text: text.to_owned() },
        Media::Image { url, detail } => ChatPart::ImageUrl { image_url: ImageUrl { url, detail } },
        Media::Pdf { filename, file_data } => {
            ChatPart::File { file: FileData { filename: filename.to_owned(), file_data } }
        }
        Media::Audio { data, format } => {
            ChatPart::InputAudio { input_audio: InputAudio { data, format: format.to_owned() } }
        }
    })
}

/// A content part as both OpenAI APIs take it, checked once for both (chat
/// completions and Responses): text, an image of a type they take, a PDF,
/// WAV or MP3 audio (chat only: Responses refuses it).
pub(crate) enum Media<'a> {
    /// Text.
    Text(&'a str),
    /// A PNG, JPEG, GIF or WebP image as a `data:` URI, or an image by its
    /// `https://` URL, with its detail level.
    Image {
        /// A `data:` URI or an `https://` URL.
        url: String,
        /// The detail level asked for.
        detail: Option<ImageDetail>,
    },
    /// A PDF and its name, the file as a `data:` URI.
    Pdf {
        /// The file's name.
        filename: &'a str,
        /// A `data:` URI.
        file_data: String,
    },
    /// WAV or MP3 audio: base64 bytes and the format.
    Audio {
        /// Base64 bytes.
        data: String,
        /// `wav` or `mp3`.
        format: &'static str,
    },
}

/// `part` of message `index` as [`Media`], for `provider` (one of the two
/// OpenAI APIs); `files` says which files it takes, for the error.
///
/// # Errors
///
/// An image or file outside a user message, an image of another type, a
/// file that is neither a PDF nor WAV or MP3, a tool call or result.
pub(crate) fn media<'a>(
    provider: Provider,
    index: usize,
    role: Role,
    part: &'a Part,
    files: &'static str,
) -> Result<Media<'a>, Error> {
    media_only_from_user(provider, index, role, part, "only user messages carry images and files")?;
    Ok(match part {
        Part::Text { text } => Media::Text(text),
        Part::Image { media_type, data, detail } if IMAGE_TYPES.contains(&media_type.as_str()) => {
            Media::Image { url: data_uri(media_type, data), detail: *detail }
        }
        Part::ImageUrl { url, detail } => Media::Image { url: url.clone(), detail: *detail },
        Part::File { filename, media_type, data } if media_type == "application/pdf" => {
            Media::Pdf { filename, file_data: data_uri(media_type, data) }
        }
        Part::File { media_type, data, .. } if audio_format(media_type).is_some() => Media::Audio {
            data: base64(data),
            format: audio_format(media_type).unwrap_or_default(),
        },
        Part::Image { .. } => {
            return Err(unsupported(
                provider,
                index,
                part,
                "images must be PNG, JPEG, GIF or WebP",
            ));
        }
        Part::File { .. } => return Err(unsupported(provider, index, part, files)),
        _ => return Err(misplaced_tool_part(provider, index, part)),
    })
}

/// The call id and texts of `part`, a tool result in a tool message of
/// `provider` (one of the two OpenAI APIs, whose results are text, with no
/// mark for a failure: a `tool_error_not_carried` notice in `notices`).
///
/// # Errors
///
/// A part that is not a tool result, or a result with a part that is not
/// text.
pub(crate) fn tool_result<'a>(
    provider: Provider,
    index: usize,
    part: &'a Part,
    notices: &mut Vec<Notice>,
) -> Result<(&'a str, Vec<&'a str>), Error> {
    let Part::ToolResult { call_id, content, is_error } = part else {
        return Err(misplaced_tool_part(provider, index, part));
    };
    let texts = result_texts(content)
        .ok_or_else(|| unsupported(provider, index, part, "a tool result carries only text"))?;
    if *is_error {
        notices.push(Notice::ToolErrorNotCarried { message: index, call_id: call_id.clone() });
    }
    Ok((call_id, texts))
}

fn audio_format(media_type: &str) -> Option<&'static str> {
    match media_type {
        "audio/wav" | "audio/x-wav" | "audio/wave" => Some("wav"),
        "audio/mpeg" | "audio/mp3" => Some("mp3"),
        _ => None,
    }
}

pub(crate) fn data_uri(media_type: &str, data: &[u8]) -> String {
    format!("data:{media_type};base64,{}", base64(data))
}
