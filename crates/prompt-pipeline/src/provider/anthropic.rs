//! Anthropic Messages (`POST /v1/messages`).
//!
//! Leading system messages become the top-level `system` (a string for one
//! text, an array of text blocks for several, so nothing is joined or lost).
//! A later system message stays in `messages` with `role: "system"` for the
//! models the API reference names (Claude Opus 4.8: `claude-opus-4-8...`),
//! right after a user message and last or before an assistant message;
//! elsewhere it is `misplaced_system`.
//! The conversation must start with a user turn and alternate, as the API
//! expects (the pipeline's stage 4 merges same-role runs; this adapter only
//! checks). Parts become `text`,
//! `image` (base64 `source`, or a `url` source for an image by URL) and `document` blocks (PDF as base64, text files
//! as plain-text sources); tool calls `tool_use` blocks (`input` the
//! arguments object) and tool results `tool_result` blocks in a user
//! message: the tool messages in a row, and the user message right after
//! them, are one user message (the API's shape, not a merge of turns).
//! `max_tokens` is required; a reasoning effort is `thinking` with a
//! budget, a response schema `output_config.format`.

use serde::{Deserialize, Serialize};

use prompt_core::chat::{Message, Part, Role};
use prompt_core::json::RawJson;

use super::{
    Conversation, MidSystem, Notice, Provider, base64, check_range, detail_notices,
    media_only_from_user, misplaced_tool_part, notices, required_model, thinking_budget,
    unsupported,
};
use crate::error::{Error, ErrorKind};
use crate::params::Params;
use crate::tools::ToolChoice;

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest {
    /// The model.
    pub model: String,
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
    /// The tools the model may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<AnthropicTool>>,
    /// Which tool the model must call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<AnthropicToolChoice>,
    /// Extended thinking with a token budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    /// `{"format": {"type": "json_schema", "schema"}}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_config: Option<OutputConfig>,
    /// `{"user_id"}`: who the request is for (a converted body's `user`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `{"user_id"}` (`metadata_param.py`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// An opaque id of the end user.
    pub user_id: String,
}

/// `{"name", "description", "input_schema", "strict": true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnthropicTool {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments' JSON Schema.
    pub input_schema: RawJson,
    /// Always `true`.
    pub strict: bool,
}

/// `{"type": "auto" | "any" | "none"}` or `{"type": "tool", "name"}`;
/// all but `none` may say `"disable_parallel_tool_use": true` (at most one
/// tool call per answer: a converted body's `parallel_tool_calls: false`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnthropicToolChoice {
    /// The model decides.
    Auto {
        /// `true`: at most one tool call.
        #[serde(skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    /// Some tool (the neutral `required`).
    Any {
        /// `true`: at most one tool call.
        #[serde(skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    /// No tool.
    None,
    /// This tool.
    Tool {
        /// The tool's name.
        name: String,
        /// `true`: at most one tool call.
        #[serde(skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
}

impl AnthropicToolChoice {
    /// The choice with at most one tool call per answer; `None` for the
    /// `none` choice, which has no such field (no tool is called).
    pub fn without_parallel_tool_use(self) -> Option<AnthropicToolChoice> {
        let off = Some(true);
        Some(match self {
            AnthropicToolChoice::Auto { .. } => {
                AnthropicToolChoice::Auto { disable_parallel_tool_use: off }
            }
            AnthropicToolChoice::Any { .. } => {
                AnthropicToolChoice::Any { disable_parallel_tool_use: off }
            }
            AnthropicToolChoice::Tool { name, .. } => {
                AnthropicToolChoice::Tool { name, disable_parallel_tool_use: off }
            }
            AnthropicToolChoice::None => return None,
        })
    }
}

/// `{"type": "enabled", "budget_tokens"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thinking {
    /// Always `enabled`.
    #[serde(rename = "type")]
    pub kind: String,
    /// At least 1 024 and less than `max_tokens`.
    pub budget_tokens: u64,
}

/// `{"format"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputConfig {
    /// The answer's format.
    pub format: JsonOutputFormat,
}

/// `{"type": "json_schema", "schema"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonOutputFormat {
    /// Always `json_schema`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The schema.
    pub schema: RawJson,
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
    /// `user`, `assistant`, or `system` (inside the conversation, for the
    /// models that take it).
    pub role: Role,
    /// The content blocks.
    pub content: Vec<Block>,
}

/// A tool result's content: a string, or blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResultContent {
    /// One text.
    Text(String),
    /// Text, image and document blocks.
    Blocks(Vec<Block>),
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
    /// `{"type": "tool_use", "id", "name", "input"}`.
    ToolUse {
        /// The call's id.
        id: String,
        /// The tool.
        name: String,
        /// The arguments object, exactly as the call holds it.
        input: RawJson,
    },
    /// `{"type": "tool_result", "tool_use_id", "content", "is_error"}`.
    ToolResult {
        /// The call it answers.
        tool_use_id: String,
        /// What the tool returned.
        content: ResultContent,
        /// `true` when the tool failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
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
    /// An `https://` URL the API fetches (images).
    Url {
        /// The URL.
        url: String,
    },
}

const PROVIDER: Provider = Provider::Anthropic;
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// The models whose API reference takes `role: "system"` inside `messages`
/// ("Mid-conversation system messages": Claude Opus 4.8 only).
const MID_SYSTEM_MODELS: [&str; 1] = ["claude-opus-4-8"];

/// Builds the Messages body.
///
/// # Errors
///
/// No model or no `max_tokens`; a parameter out of Anthropic's range; a
/// thinking budget under 1 024 or not under `max_tokens`; a system message
/// after the conversation started (but where Claude Opus 4.8 takes it) or
/// with a non-text part; a conversation that does not start with the user
/// or does not alternate; a tool call outside an assistant message or
/// arguments that are not an object; a tool result outside a tool message;
/// an image other than JPEG, PNG, GIF or WebP; a file other than a PDF or
/// UTF-8 text; an image or file in an assistant message.
pub fn build(
    messages: &[Message],
    params: &Params,
) -> Result<(MessagesRequest, Vec<Notice>), Error> {
    let model = required_model(PROVIDER, params)?;
    let max_tokens = params.max_tokens.ok_or_else(|| {
        Error::new(ErrorKind::MissingParam { provider: PROVIDER.as_str(), name: "max_tokens" })
    })?;
    check_range(PROVIDER, "temperature", params.temperature, 0.0, 1.0)?;
    check_range(PROVIDER, "top_p", params.top_p, 0.0, 1.0)?;
    let thinking = thinking(params, max_tokens)?;
    let mid_system = if MID_SYSTEM_MODELS.iter().any(|m| model.starts_with(m)) {
        MidSystem::AfterUser
    } else {
        MidSystem::Refused(
            "system text goes before the conversation; only Claude Opus 4.8 \
             (`claude-opus-4-8`) takes a system message inside it",
        )
    };
    let conversation = Conversation::split(PROVIDER, messages, mid_system)?;
    let details: Vec<Notice> = detail_notices(messages).collect();
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
        .map(|turn| {
            let mut content = Vec::with_capacity(turn.parts());
            for &(index, message) in &turn.messages {
                for part in &message.content {
                    content.push(block(index, message.role, part)?);
                }
            }
            Ok(AnthropicMessage { role: turn.role, content })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let tools = (!params.tools.is_empty()).then(|| {
        params
            .tools
            .iter()
            .map(|tool| AnthropicTool {
                name: tool.name.clone(),
                description: tool.description.clone(),
                input_schema: tool.parameters.clone(),
                strict: true,
            })
            .collect()
    });
    let tool_choice = params.tool_choice.as_ref().map(|choice| match choice {
        ToolChoice::Auto => AnthropicToolChoice::Auto { disable_parallel_tool_use: None },
        ToolChoice::None => AnthropicToolChoice::None,
        ToolChoice::Required => AnthropicToolChoice::Any { disable_parallel_tool_use: None },
        ToolChoice::Named(name) => {
            AnthropicToolChoice::Tool { name: name.clone(), disable_parallel_tool_use: None }
        }
    });
    let output_config = params.response_schema.as_ref().map(|schema| OutputConfig {
        format: JsonOutputFormat {
            kind: "json_schema".to_owned(),
            schema: schema.schema().clone(),
        },
    });
    let body = MessagesRequest {
        model,
        max_tokens,
        system,
        messages,
        temperature: params.temperature,
        top_p: params.top_p,
        top_k: params.top_k,
        stop_sequences: (!params.stop.is_empty()).then(|| params.stop.clone()),
        tools,
        tool_choice,
        thinking,
        output_config,
        metadata: None,
    };
    let mut notices = notices(PROVIDER, params, &["seed", "presence_penalty", "frequency_penalty"]);
    notices.extend(conversation.dropped_names);
    notices.extend(details);
    Ok((body, notices))
}

/// `thinking` for the effort or the budget: at least 1 024 tokens and less
/// than `max_tokens` (MessageCreateParams.thinking), or an error naming the
/// parameter that set it; never lowered silently.
fn thinking(params: &Params, max_tokens: u64) -> Result<Option<Thinking>, Error> {
    let Some(budget) = thinking_budget(PROVIDER, params) else { return Ok(None) };
    let (name, value) = match (params.thinking_budget, params.reasoning_effort) {
        (Some(budget), _) => ("thinking_budget", budget.to_string()),
        (None, effort) => ("reasoning_effort", effort.map_or("", |e| e.as_str()).to_owned()),
    };
    let expected = if budget < 1024 {
        "a thinking budget of at least 1024 tokens (Anthropic's minimum)"
    } else if budget >= max_tokens {
        "a thinking budget below `max_tokens` (raise `max_tokens` or lower the effort)"
    } else {
        return Ok(Some(Thinking { kind: "enabled".to_owned(), budget_tokens: budget }));
    };
    Err(Error::new(ErrorKind::InvalidParam { name: name.to_owned(), value, expected }))
}

fn block(index: usize, role: Role, part: &Part) -> Result<Block, Error> {
    match part {
        Part::ToolCall { id, name, arguments } if role == Role::Assistant => {
            if !arguments.is_object() {
                return Err(unsupported(PROVIDER, index, part, "tool arguments are a JSON object"));
            }
            return Ok(Block::ToolUse {
                id: id.clone(),
                name: name.clone(),
                input: arguments.clone(),
            });
        }
        Part::ToolResult { call_id, content, is_error } if role == Role::Tool => {
            let content = match content.as_slice() {
                [Part::Text { text }] => ResultContent::Text(text.clone()),
                parts => ResultContent::Blocks(
                    parts
                        .iter()
                        .map(|part| match part {
                            Part::ToolCall { .. } | Part::ToolResult { .. } => {
                                Err(misplaced_tool_part(PROVIDER, index, part))
                            }
                            part => block(index, Role::User, part),
                        })
                        .collect::<Result<_, _>>()?,
                ),
            };
            return Ok(Block::ToolResult {
                tool_use_id: call_id.clone(),
                content,
                is_error: is_error.then_some(true),
            });
        }
        Part::ToolCall { .. } | Part::ToolResult { .. } => {
            return Err(misplaced_tool_part(PROVIDER, index, part));
        }
        _ if role == Role::Tool => return Err(misplaced_tool_part(PROVIDER, index, part)),
        _ => {}
    }
    media_only_from_user(
        PROVIDER,
        index,
        role,
        part,
        "only user messages carry images and documents",
    )?;
    Ok(match part {
        Part::Text { text } => Block::Text { text: text.clone() },
        Part::Image { media_type, data, .. } if IMAGE_TYPES.contains(&media_type.as_str()) => {
            Block::Image {
                source: Source::Base64 { media_type: media_type.clone(), data: base64(data) },
            }
        }
        Part::ImageUrl { url, .. } => Block::Image { source: Source::Url { url: url.clone() } },
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
        _ => return Err(misplaced_tool_part(PROVIDER, index, part)),
    })
}
