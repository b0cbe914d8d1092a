//! Anthropic's `POST /v1/messages` body (MessageCreateParams) and the
//! Message Batches body, written from the official Python SDK's types,
//! strict about unknown fields: a body that deserializes here has the shape
//! the SDK sends.
//!
//! Source: github.com/anthropics/anthropic-sdk-python 0.121.0 (2026-08-07,
//! commit 009b035305e0724ce108ebd796935f91711fc6e1), `src/anthropic/types/`:
//! `message_create_params.py`, `message_param.py`, `text_block_param.py`,
//! `image_block_param.py`, `document_block_param.py`, `tool_use_block_param.py`,
//! `tool_result_block_param.py`, `thinking_block_param.py`,
//! `mid_conversation_system_block_param.py`, `tool_param.py`,
//! `tool_choice_*_param.py`, `thinking_config_*_param.py`,
//! `output_config_param.py`, `json_output_format_param.py`,
//! `messages/batch_create_params.py`. Where the API reference says more than
//! the types (system-role placement, custom_id rules), the reference wins and
//! is cited beside the check.
//!
//! Only the variants of the SDK's unions that this crate produces or is about
//! to produce are written (no server tools, search results, citations,
//! container uploads): a body using another one fails here, which is the
//! point. Add the variant, with its SDK path, when the crate learns it.
//! `Option` fields accept `null` where the SDK's plain (non-`Optional`)
//! fields would not; the SDK never sends `null` for them and neither do we.

#![allow(dead_code)] // fields exist to be checked, not read

use serde::Deserialize;
use serde_json::{Map, Value};

/// `MessageCreateParamsNonStreaming` / `MessageCreateParamsStreaming`
/// (`message_create_params.py`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageCreateParams {
    /// Required; optional here only so that its absence is reported beside
    /// every other error (see [`message_errors`]).
    model: Option<String>,
    max_tokens: u64,
    messages: Vec<MessageParam>,
    system: Option<System>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    top_k: Option<u64>,
    stop_sequences: Option<Vec<String>>,
    stream: Option<bool>,
    metadata: Option<Metadata>,
    tools: Option<Vec<ToolParam>>,
    tool_choice: Option<ToolChoice>,
    thinking: Option<Thinking>,
    /// Structured output lives here (`output_config.format`) in 0.121.0; the
    /// older top-level `output_format` exists only in the beta types
    /// (`types/beta/message_create_params.py`, marked deprecated) and is
    /// refused here.
    output_config: Option<OutputConfig>,
    service_tier: Option<ServiceTier>,
    cache_control: Option<CacheControl>,
    container: Option<String>,
    inference_geo: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum System {
    Text(String),
    Blocks(Vec<TextBlock>),
}

/// `metadata_param.py`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Metadata {
    user_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ServiceTier {
    Auto,
    StandardOnly,
}

/// `cache_control_ephemeral_param.py`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum CacheControl {
    Ephemeral { ttl: Option<Ttl> },
}

#[derive(Debug, Deserialize)]
enum Ttl {
    #[serde(rename = "5m")]
    FiveMinutes,
    #[serde(rename = "1h")]
    OneHour,
}

/// `message_param.py`: `role` is `user`, `assistant` or (since 0.105.0,
/// 2026-05-28) `system`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageParam {
    role: Role,
    content: Content,
}

#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Role {
    User,
    Assistant,
    System,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Blocks(Vec<Block>),
}

/// The content blocks of `message_param.py` that concern us.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum Block {
    /// `text_block_param.py` (citations left out: we send none).
    Text { text: String, cache_control: Option<CacheControl> },
    /// `image_block_param.py`.
    Image { source: ImageSource, cache_control: Option<CacheControl> },
    /// `document_block_param.py`.
    Document {
        source: DocumentSource,
        title: Option<String>,
        context: Option<String>,
        citations: Option<Citations>,
        cache_control: Option<CacheControl>,
    },
    /// `tool_use_block_param.py`: `input` is an object (`Dict[str, object]`).
    ToolUse {
        id: String,
        name: String,
        input: Map<String, Value>,
        cache_control: Option<CacheControl>,
    },
    /// `tool_result_block_param.py`.
    ToolResult {
        tool_use_id: String,
        content: Option<ToolResultContent>,
        is_error: Option<bool>,
        cache_control: Option<CacheControl>,
    },
    /// `thinking_block_param.py`.
    Thinking { thinking: String, signature: String },
    /// `redacted_thinking_block_param.py`.
    RedactedThinking { data: String },
    /// `mid_conversation_system_block_param.py`.
    MidConvSystem { content: Vec<TextBlock>, cache_control: Option<CacheControl> },
}

/// `text_block_param.py` where only a text block may stand.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum TextBlock {
    Text { text: String, cache_control: Option<CacheControl> },
}

/// `image_block_param.py` sources: `base64_image_source_param.py`,
/// `url_image_source_param.py`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum ImageSource {
    Base64 { media_type: ImageMediaType, data: String },
    Url { url: String },
}

#[derive(Debug, Deserialize)]
enum ImageMediaType {
    #[serde(rename = "image/jpeg")]
    Jpeg,
    #[serde(rename = "image/png")]
    Png,
    #[serde(rename = "image/gif")]
    Gif,
    #[serde(rename = "image/webp")]
    Webp,
}

/// `document_block_param.py` sources: `base64_pdf_source_param.py`
/// (`application/pdf`), `plain_text_source_param.py` (`text/plain`),
/// `url_pdf_source_param.py` (the content source is left out).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum DocumentSource {
    Base64 { media_type: PdfMediaType, data: String },
    Text { media_type: TextMediaType, data: String },
    Url { url: String },
}

#[derive(Debug, Deserialize)]
enum PdfMediaType {
    #[serde(rename = "application/pdf")]
    Pdf,
}

#[derive(Debug, Deserialize)]
enum TextMediaType {
    #[serde(rename = "text/plain")]
    Plain,
}

/// `citations_config_param.py`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Citations {
    enabled: Option<bool>,
}

/// `tool_result_block_param.py`: a string or text/image/document blocks.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolResultContent {
    Text(String),
    Blocks(Vec<ToolResultBlock>),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum ToolResultBlock {
    Text {
        text: String,
        cache_control: Option<CacheControl>,
    },
    Image {
        source: ImageSource,
        cache_control: Option<CacheControl>,
    },
    Document {
        source: DocumentSource,
        title: Option<String>,
        context: Option<String>,
        citations: Option<Citations>,
        cache_control: Option<CacheControl>,
    },
}

/// `tool_param.py` (a client tool; `type` is optional and only `custom`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolParam {
    name: String,
    input_schema: InputSchema,
    description: Option<String>,
    #[serde(rename = "type")]
    kind: Option<CustomTool>,
    strict: Option<bool>,
    cache_control: Option<CacheControl>,
    defer_loading: Option<bool>,
    eager_input_streaming: Option<bool>,
    input_examples: Option<Vec<Map<String, Value>>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CustomTool {
    Custom,
}

/// `tool_param.py` `InputSchemaTyped`: `type: "object"` is required, any
/// other JSON Schema keyword is allowed (`extra: allow`).
#[derive(Debug, Deserialize)]
struct InputSchema {
    #[serde(rename = "type")]
    kind: ObjectType,
    properties: Option<Map<String, Value>>,
    required: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ObjectType {
    Object,
}

/// `tool_choice_param.py`: auto, any, tool (named), none.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum ToolChoice {
    Auto { disable_parallel_tool_use: Option<bool> },
    Any { disable_parallel_tool_use: Option<bool> },
    Tool { name: String, disable_parallel_tool_use: Option<bool> },
    None {},
}

/// `thinking_config_param.py`: enabled (with a budget), disabled, adaptive.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum Thinking {
    Enabled { budget_tokens: u64, display: Option<ThinkingDisplay> },
    Disabled {},
    Adaptive { display: Option<ThinkingDisplay> },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ThinkingDisplay {
    Summarized,
    Omitted,
}

/// `output_config_param.py`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputConfig {
    effort: Option<Effort>,
    format: Option<JsonOutputFormat>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Effort {
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

/// `json_output_format_param.py`: `{"type": "json_schema", "schema": {...}}`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum JsonOutputFormat {
    JsonSchema { schema: Map<String, Value> },
}

/// `messages/batch_create_params.py`: the body of
/// `POST /v1/messages/batches`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchCreateParams {
    requests: Vec<BatchRequest>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchRequest {
    custom_id: String,
    /// `MessageCreateParamsNonStreaming`.
    params: Value,
}

/// Every way `body` breaks Anthropic's Messages shape; empty when it has it.
pub(crate) fn message_errors(body: &Value) -> Vec<String> {
    let params: MessageCreateParams = match serde_json::from_value(body.clone()) {
        Ok(params) => params,
        Err(err) => return vec![format!("not MessageCreateParams: {err}")],
    };
    let mut errors = Vec::new();
    if params.model.is_none() {
        errors.push("missing field `model` (required)".to_owned());
    }
    if let Some(Thinking::Enabled { budget_tokens, .. }) = params.thinking {
        // thinking_config_enabled_param.py: "Must be ≥1024 and less than
        // `max_tokens`."
        if budget_tokens < 1024 || budget_tokens >= params.max_tokens {
            errors.push(format!(
                "thinking.budget_tokens {budget_tokens} must be >= 1024 and < max_tokens {}",
                params.max_tokens
            ));
        }
    }
    errors.extend(system_role_errors(&params.messages));
    errors
}

/// The placement and content rules of `role: "system"` messages, from the
/// API reference ("Mid-conversation system messages",
/// platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages;
/// Claude Opus 4.8 only, no beta header): never first; right after a user
/// message (or an assistant message ending in server tool use, which we never
/// send); last, or followed by an assistant message; never next to another
/// system message; text only.
fn system_role_errors(messages: &[MessageParam]) -> Vec<String> {
    let mut errors = Vec::new();
    for (i, msg) in messages.iter().enumerate() {
        if msg.role != Role::System {
            continue;
        }
        let before = i.checked_sub(1).map(|j| messages[j].role);
        let after = messages.get(i + 1).map(|m| m.role);
        if before != Some(Role::User) {
            errors.push(format!("messages/{i}: a system message must follow a user message"));
        }
        if !matches!(after, None | Some(Role::Assistant)) {
            errors.push(format!(
                "messages/{i}: a system message must be last or followed by an assistant message"
            ));
        }
        if let Content::Blocks(blocks) = &msg.content
            && !blocks.iter().all(|b| matches!(b, Block::Text { .. }))
        {
            errors.push(format!("messages/{i}: a system message carries text blocks only"));
        }
    }
    errors
}

/// Every way `body` breaks the Message Batches request shape, its id rules
/// included: each `custom_id` is 1 to 64 of `[A-Za-z0-9_-]` (the API answers
/// "String should have at most 64 characters" past 64,
/// anthropics/anthropic-sdk-python#984; the batch-processing guide names the
/// character set) and unique within the batch; each `params` is a Messages
/// body.
pub(crate) fn batch_errors(body: &Value) -> Vec<String> {
    let batch: BatchCreateParams = match serde_json::from_value(body.clone()) {
        Ok(batch) => batch,
        Err(err) => return vec![format!("not BatchCreateParams: {err}")],
    };
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, request) in batch.requests.iter().enumerate() {
        let id = &request.custom_id;
        let valid = (1..=64).contains(&id.len())
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            errors.push(format!("requests/{i}/custom_id {id:?} is not 1-64 of [A-Za-z0-9_-]"));
        }
        if !seen.insert(id.as_str()) {
            errors.push(format!("requests/{i}/custom_id {id:?} is a duplicate"));
        }
        if request.params.get("stream").is_some_and(|s| s != &Value::Bool(false)) {
            errors.push(format!("requests/{i}/params: a batch request cannot stream"));
        }
        for err in message_errors(&request.params) {
            errors.push(format!("requests/{i}/params: {err}"));
        }
    }
    errors
}
