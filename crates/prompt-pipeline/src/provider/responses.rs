//! OpenAI Responses (`POST /v1/responses`).
//!
//! A first system message of one text becomes `instructions`; every other
//! message is an `input` item in order: a message (`role`, and a string or
//! `input_text` / `input_image` / `input_file` parts), a `function_call`
//! item per tool call (so text and calls keep their order) and a
//! `function_call_output` item per tool result. The token budget is
//! `max_output_tokens`, the effort `reasoning.effort`, a response schema a
//! strict `text.format`; tools are flat (`{type, name, parameters,
//! strict}`). The API has no stop sequences, seed or penalties: they are
//! notices. Unknown parameters are sent as they are.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use prompt_core::chat::{ImageDetail, Message, Part, Role};
use prompt_core::json::RawJson;

use super::openai::{Media, media, tool_result};
use super::{
    Notice, Provider, check_range, misplaced_tool_part, notices, openai_effort, required_model,
    unsupported, unsupported_role,
};
use crate::error::{Error, ErrorKind};
use crate::params::{Effort, Params};
use crate::tools::ToolChoice;

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponsesRequest {
    /// The model.
    pub model: String,
    /// The leading system text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The conversation as input items.
    pub input: Vec<InputItem>,
    /// Sampling temperature (0 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass (0 to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// The output token budget, reasoning included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// `{"effort"}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// The tools the model may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<FunctionTool>>,
    /// Which tool the model must call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ResponsesToolChoice>,
    /// `{"format": {"type": "json_schema", ...}}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<Text>,
    /// Parameters the suite does not know, passed through in the order
    /// written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One input item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InputItem {
    /// A message (`EasyInputMessage`).
    Message {
        /// `system`, `user` or `assistant`.
        role: Role,
        /// A string, or parts.
        content: Content,
    },
    /// `{"type": "function_call", "call_id", "name", "arguments"}`, or
    /// `{"type": "function_call_output", "call_id", "output"}`.
    Call(Call),
}

/// A tool call or its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Call {
    /// The model's call.
    FunctionCall {
        /// The call's id.
        call_id: String,
        /// The tool.
        name: String,
        /// The arguments as JSON text, exactly as the call holds them.
        arguments: String,
    },
    /// The tool's result.
    FunctionCallOutput {
        /// The call it answers.
        call_id: String,
        /// The result.
        output: Content,
    },
}

/// A string, or an array of parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Parts.
    Parts(Vec<InputPart>),
}

/// An input part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputPart {
    /// `{"type": "input_text", "text"}`.
    InputText {
        /// The text.
        text: String,
    },
    /// `{"type": "input_image", "image_url": "data:...", "detail": "auto"}`.
    InputImage {
        /// A `data:` URI or an `https://` URL.
        image_url: String,
        /// The detail asked for, else `auto` (the API requires one).
        detail: ImageDetail,
    },
    /// `{"type": "input_file", "filename", "file_data": "data:..."}`.
    InputFile {
        /// The file's name.
        filename: String,
        /// A `data:` URI.
        file_data: String,
    },
}

/// `{"effort"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reasoning {
    /// `low`, `medium` or `high`.
    pub effort: String,
}

/// `{"type": "function", "name", "description", "parameters", "strict": true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionTool {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments' JSON Schema.
    pub parameters: RawJson,
    /// Always `true`.
    pub strict: bool,
}

/// `"auto"`, `"none"`, `"required"` or `{"type": "function", "name"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResponsesToolChoice {
    /// `auto`, `none` or `required`.
    Mode(String),
    /// One tool.
    Named {
        /// Always `function`.
        #[serde(rename = "type")]
        kind: String,
        /// The tool's name.
        name: String,
    },
}

/// `{"format"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Text {
    /// The answer's format.
    pub format: Format,
}

/// `{"type": "json_schema", "name", "schema", "strict": true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Format {
    /// Always `json_schema`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The schema's name.
    pub name: String,
    /// The schema.
    pub schema: RawJson,
    /// Always `true`.
    pub strict: bool,
}

const PROVIDER: Provider = Provider::OpenAiResponses;

/// Builds the Responses body.
///
/// # Errors
///
/// No model; a parameter out of OpenAI's range; `max_tokens` under 16; `thinking_budget` without
/// `reasoning_effort`; an image of another type than PNG, JPEG, GIF or
/// WebP; a file other than a PDF; an image or file outside a user message;
/// a tool call outside an assistant message; a tool result outside a tool
/// message or with a part that is not text.
pub fn build(
    messages: &[Message],
    params: &Params,
) -> Result<(ResponsesRequest, Vec<Notice>), Error> {
    let model = required_model(PROVIDER, params)?;
    check_range(PROVIDER, "temperature", params.temperature, 0.0, 2.0)?;
    check_range(PROVIDER, "top_p", params.top_p, 0.0, 1.0)?;
    let effort = openai_effort(params)?;
    if let Some(max) = params.max_tokens.filter(|max| *max < 16) {
        // CreateResponse.max_output_tokens: `minimum: 16`.
        return Err(Error::new(ErrorKind::InvalidParam {
            name: "max_tokens".to_owned(),
            value: max.to_string(),
            expected: "at least 16 (the Responses API's minimum for `max_output_tokens`)",
        }));
    }
    let mut notices = notices(
        PROVIDER,
        params,
        &["stop", "top_k", "seed", "presence_penalty", "frequency_penalty", "thinking_budget"],
    );
    let (instructions, rest) = match messages {
        [first, rest @ ..] if first.role == Role::System && first.name.is_none() => {
            match first.content.as_slice() {
                [Part::Text { text }] => (Some(text.clone()), rest),
                _ => (None, messages),
            }
        }
        _ => (None, messages),
    };
    let offset = messages.len() - rest.len();
    let mut input = Vec::with_capacity(rest.len());
    for (i, message) in rest.iter().enumerate() {
        items(offset + i, message, &mut input, &mut notices)?;
    }
    let tools = (!params.tools.is_empty()).then(|| {
        params
            .tools
            .iter()
            .map(|tool| FunctionTool {
                kind: "function".to_owned(),
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters: tool.parameters.clone(),
                strict: true,
            })
            .collect()
    });
    let tool_choice = params.tool_choice.as_ref().map(|choice| match choice {
        ToolChoice::Named(name) => {
            ResponsesToolChoice::Named { kind: "function".to_owned(), name: name.clone() }
        }
        mode => ResponsesToolChoice::Mode(mode.to_string()),
    });
    let text = params.response_schema.as_ref().map(|schema| Text {
        format: Format {
            kind: "json_schema".to_owned(),
            name: schema.name().to_owned(),
            schema: schema.schema().clone(),
            strict: true,
        },
    });
    let body = ResponsesRequest {
        model,
        instructions,
        input,
        temperature: params.temperature,
        top_p: params.top_p,
        max_output_tokens: params.max_tokens,
        reasoning: effort.map(|e| Reasoning { effort: Effort::as_str(e).to_owned() }),
        tools,
        tool_choice,
        text,
        extra: params.extra_json().map(|(name, value)| (name.to_owned(), value)).collect(),
    };
    Ok((body, notices))
}

/// The items of one message: each run of content parts one message item,
/// each tool call and each result one item, in order.
fn items(
    index: usize,
    message: &Message,
    out: &mut Vec<InputItem>,
    notices: &mut Vec<Notice>,
) -> Result<(), Error> {
    if message.name.is_some() {
        notices.push(Notice::NameNotCarried {
            message: index,
            name: message.name.clone().unwrap_or_default(),
        });
    }
    let role = message.role;
    if !matches!(role, Role::System | Role::User | Role::Assistant | Role::Tool) {
        return Err(unsupported_role(PROVIDER, index, role));
    }
    let mut run: Vec<&Part> = Vec::new();
    let flush = |run: &mut Vec<&Part>, out: &mut Vec<InputItem>| -> Result<(), Error> {
        if run.is_empty() {
            return Ok(());
        }
        let content = match run.as_slice() {
            [Part::Text { text }] => Content::Text(text.clone()),
            parts => Content::Parts(
                parts.iter().map(|part| input_part(index, role, part)).collect::<Result<_, _>>()?,
            ),
        };
        out.push(InputItem::Message { role, content });
        run.clear();
        Ok(())
    };
    for part in &message.content {
        match part {
            Part::ToolCall { id, name, arguments } if role == Role::Assistant => {
                flush(&mut run, out)?;
                out.push(InputItem::Call(Call::FunctionCall {
                    call_id: id.clone(),
                    name: name.clone(),
                    arguments: arguments.as_str().to_owned(),
                }));
            }
            Part::ToolResult { .. } if role == Role::Tool => {
                let (call_id, texts) = tool_result(PROVIDER, index, part, notices)?;
                let output = match texts.as_slice() {
                    [text] => Content::Text((*text).to_owned()),
                    texts => Content::Parts(
                        texts
                            .iter()
                            .map(|text| InputPart::InputText { text: (*text).to_owned() })
                            .collect(),
                    ),
                };
                out.push(InputItem::Call(Call::FunctionCallOutput {
                    call_id: call_id.to_owned(),
                    output,
                }));
            }
            Part::ToolCall { .. } | Part::ToolResult { .. } => {
                return Err(misplaced_tool_part(PROVIDER, index, part));
            }
            _ if role == Role::Tool => return Err(misplaced_tool_part(PROVIDER, index, part)),
            _ => run.push(part),
        }
    }
    flush(&mut run, out)
}

fn input_part(index: usize, role: Role, part: &Part) -> Result<InputPart, Error> {
    Ok(match media(PROVIDER, index, role, part, "files must be PDF")? {
        Media::Text(text) => InputPart::InputText { text: text.to_owned() },
        Media::Image { url, detail } => {
            InputPart::InputImage { image_url: url, detail: detail.unwrap_or(ImageDetail::Auto) }
        }
        Media::Pdf { filename, file_data } => {
            InputPart::InputFile { filename: filename.to_owned(), file_data }
        }
        Media::Audio { .. } => return Err(unsupported(PROVIDER, index, part, "files must be PDF")),
    })
}
