//! Gemini's `models/{model}:generateContent` body (GenerateContentRequest,
//! Gemini Developer API) and its batch input line, written from the official
//! Python SDK, strict about unknown fields: a body that deserializes here has
//! the shape the SDK sends.
//!
//! Source: github.com/googleapis/python-genai 2.19.0 (commit
//! 66807187f2123c6676175ac991f4e34eb09200d1, 2026-08-21). The wire names are
//! the ones the SDK's request converters write for the Developer API
//! (`google/genai/models.py`: `_GenerateContentParameters_to_mldev`,
//! `_GenerateContentConfig_to_mldev`, `_Content_to_mldev`, `_Part_to_mldev`,
//! `_Blob_to_mldev`, `_FunctionCall_to_mldev`, `_Tool_to_mldev`,
//! `_ToolConfig_to_mldev`, `_FunctionCallingConfig_to_mldev`); the field
//! types are `google/genai/types.py` (`Content`, `Part`, `Blob`, `FileData`,
//! `FunctionCall`, `FunctionResponse`, `Tool`, `FunctionDeclaration`,
//! `ToolConfig`, `FunctionCallingConfig`, `FunctionCallingConfigMode`,
//! `GenerateContentConfig`, `ThinkingConfig`, `ThinkingLevel`, `Schema`).
//! Everything is camelCase on the wire, parts included (`inlineData`,
//! `mimeType`, `functionCall`, `functionResponse`). Fields the converters
//! refuse for the Developer API (`Blob.displayName`, `FunctionCall.willContinue`
//! / `partialArgs`, `labels`, `routingConfig`, ...) are not here.
//!
//! Only the tools, part kinds and config fields this crate produces or is
//! about to produce are written; a body using another one fails here, which
//! is the point. Add the field, with its SDK name, when the crate learns it.

#![allow(dead_code)] // fields exist to be checked, not read

use serde::Deserialize;
use serde_json::{Map, Value};

/// The body of `generateContent` (the model is in the URL, not the body).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct GenerateContentRequest {
    contents: Vec<Content>,
    system_instruction: Option<Content>,
    tools: Option<Vec<Tool>>,
    tool_config: Option<ToolConfig>,
    cached_content: Option<String>,
    generation_config: Option<GenerationConfig>,
}

/// `types.Content`: `role` is `user` or `model`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Content {
    role: Option<Role>,
    parts: Vec<Part>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Role {
    User,
    Model,
}

/// `types.Part`: one data field (checked in [`request_errors`]) plus the
/// thought metadata.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Part {
    text: Option<String>,
    inline_data: Option<Blob>,
    file_data: Option<FileData>,
    function_call: Option<FunctionCall>,
    function_response: Option<FunctionResponse>,
    thought: Option<bool>,
    /// Base64 bytes the model returned; sent back unchanged.
    thought_signature: Option<String>,
}

impl Part {
    fn data_fields(&self) -> usize {
        [
            self.text.is_some(),
            self.inline_data.is_some(),
            self.file_data.is_some(),
            self.function_call.is_some(),
            self.function_response.is_some(),
        ]
        .into_iter()
        .filter(|present| *present)
        .count()
    }
}

/// `types.Blob` as `_Blob_to_mldev` writes it (no `displayName`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Blob {
    mime_type: String,
    data: String,
}

/// `types.FileData` as `_FileData_to_mldev` writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FileData {
    mime_type: Option<String>,
    file_uri: String,
}

/// `types.FunctionCall` as `_FunctionCall_to_mldev` writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionCall {
    id: Option<String>,
    name: String,
    args: Option<Map<String, Value>>,
}

/// `types.FunctionResponse` (no converter: the model's own field names).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FunctionResponse {
    id: Option<String>,
    name: String,
    /// "Use "output" key to specify function output and "error" key to
    /// specify error details" (types.FunctionResponse.response).
    response: Map<String, Value>,
    will_continue: Option<bool>,
}

/// `types.Tool`: only `functionDeclarations` concerns us.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Tool {
    function_declarations: Vec<FunctionDeclaration>,
}

/// `types.FunctionDeclaration`: the parameters either as Gemini's `Schema`
/// (`parameters`) or as JSON Schema (`parametersJsonSchema`), not both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FunctionDeclaration {
    name: String,
    description: Option<String>,
    parameters: Option<Schema>,
    parameters_json_schema: Option<Map<String, Value>>,
    response: Option<Schema>,
    response_json_schema: Option<Map<String, Value>>,
}

/// `types.ToolConfig` / `types.FunctionCallingConfig`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ToolConfig {
    function_calling_config: Option<FunctionCallingConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FunctionCallingConfig {
    mode: Option<FunctionCallingMode>,
    allowed_function_names: Option<Vec<String>>,
}

/// `types.FunctionCallingConfigMode` (sent upper case).
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum FunctionCallingMode {
    Auto,
    Any,
    None,
    Validated,
}

/// `generationConfig` as `_GenerateContentConfig_to_mldev` writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GenerationConfig {
    temperature: Option<f64>,
    top_p: Option<f64>,
    top_k: Option<f64>,
    candidate_count: Option<u64>,
    max_output_tokens: Option<u64>,
    stop_sequences: Option<Vec<String>>,
    seed: Option<i64>,
    presence_penalty: Option<f64>,
    frequency_penalty: Option<f64>,
    response_logprobs: Option<bool>,
    logprobs: Option<u64>,
    /// `text/plain` (default) or `application/json`.
    response_mime_type: Option<String>,
    /// Gemini's OpenAPI-3.0 subset (`types.Schema`).
    response_schema: Option<Schema>,
    /// JSON Schema; "If set, `response_schema` must be omitted, but
    /// `response_mime_type` is required" (types.GenerateContentConfig).
    response_json_schema: Option<Value>,
    thinking_config: Option<ThinkingConfig>,
}

/// `types.ThinkingConfig`: `thinkingBudget` (0 off, -1 automatic) or
/// `thinkingLevel`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ThinkingConfig {
    include_thoughts: Option<bool>,
    thinking_budget: Option<i64>,
    thinking_level: Option<ThinkingLevel>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum ThinkingLevel {
    Minimal,
    Low,
    Medium,
    High,
}

/// `types.Schema`: the subset of OpenAPI 3.0's schema object that
/// `responseSchema` and `parameters` take. What it has no field for
/// (`oneOf`, `allOf`, `not`, `const`, `if`/`then`/`else`, `patternProperties`,
/// `prefixItems`, `uniqueItems`, `multipleOf`, exclusive bounds, a list of
/// types, non-string `enum` values) cannot be expressed, so a schema using it
/// fails here: the conversion must refuse it or say how it rewrote it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Schema {
    #[serde(rename = "type")]
    kind: Option<SchemaType>,
    format: Option<String>,
    title: Option<String>,
    description: Option<String>,
    nullable: Option<bool>,
    #[serde(rename = "enum")]
    enumeration: Option<Vec<String>>,
    properties: Option<Map<String, Value>>,
    required: Option<Vec<String>>,
    property_ordering: Option<Vec<String>>,
    items: Option<Box<Schema>>,
    min_items: Option<Value>,
    max_items: Option<Value>,
    min_length: Option<Value>,
    max_length: Option<Value>,
    min_properties: Option<Value>,
    max_properties: Option<Value>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    pattern: Option<String>,
    any_of: Option<Vec<Schema>>,
    default: Option<Value>,
    example: Option<Value>,
    additional_properties: Option<Value>,
    #[serde(rename = "$defs")]
    defs: Option<Map<String, Value>>,
    #[serde(rename = "$ref")]
    reference: Option<String>,
}

/// `types.Type`, upper case on the wire.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum SchemaType {
    String,
    Number,
    Integer,
    Boolean,
    Array,
    Object,
    Null,
}

/// Every way `body` breaks the generateContent request shape; empty when it
/// has it.
pub(crate) fn request_errors(body: &Value) -> Vec<String> {
    let request: GenerateContentRequest = match serde_json::from_value(body.clone()) {
        Ok(request) => request,
        Err(err) => return vec![format!("not GenerateContentRequest: {err}")],
    };
    let mut errors = Vec::new();
    let system = request.system_instruction.iter().map(|c| ("systemInstruction".to_owned(), c));
    let contents = request.contents.iter().enumerate().map(|(i, c)| (format!("contents/{i}"), c));
    for (at, content) in system.chain(contents) {
        for (j, part) in content.parts.iter().enumerate() {
            if part.data_fields() != 1 {
                errors.push(format!("{at}/parts/{j}: a part carries exactly one data field"));
            }
        }
    }
    // Nested schemas are checked too: properties are plain JSON above, so
    // read each one back as a `Schema`.
    let mut schemas: Vec<(String, &Value)> = Vec::new();
    if let Some(config) = body.get("generationConfig") {
        if config.get("responseSchema").is_some() && config.get("responseJsonSchema").is_some() {
            errors.push("generationConfig: responseSchema and responseJsonSchema both set".into());
        }
        let structured =
            config.get("responseSchema").is_some() || config.get("responseJsonSchema").is_some();
        if structured && config.get("responseMimeType").and_then(Value::as_str).is_none() {
            errors.push("generationConfig: a response schema needs responseMimeType".into());
        }
        if let Some(schema) = config.get("responseSchema") {
            schemas.push(("generationConfig/responseSchema".into(), schema));
        }
    }
    for (i, tool) in body.get("tools").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let declarations = tool.get("functionDeclarations").and_then(Value::as_array);
        for (j, declaration) in declarations.into_iter().flatten().enumerate() {
            if declaration.get("parameters").is_some()
                && declaration.get("parametersJsonSchema").is_some()
            {
                errors.push(format!(
                    "tools/{i}/functionDeclarations/{j}: parameters and parametersJsonSchema both set"
                ));
            }
            if let Some(schema) = declaration.get("parameters") {
                schemas.push((format!("tools/{i}/functionDeclarations/{j}/parameters"), schema));
            }
        }
    }
    while let Some((at, schema)) = schemas.pop() {
        if let Err(err) = serde_json::from_value::<Schema>(schema.clone()) {
            errors.push(format!("{at}: not a Gemini Schema: {err}"));
            continue;
        }
        for (key, value) in
            schema.get("properties").and_then(Value::as_object).into_iter().flatten()
        {
            schemas.push((format!("{at}/properties/{key}"), value));
        }
    }
    errors
}

/// Every way `line` breaks a batch input line: `{"key": ..., "request":
/// GenerateContentRequest}` (ai.google.dev/gemini-api/docs/batch-api, "Input
/// file": "a user-defined key and a request object"; keys must be unique for
/// results to be matched, which the caller checks across lines).
pub(crate) fn batch_line_errors(line: &Value) -> Vec<String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Line {
        key: String,
        request: Value,
    }
    match serde_json::from_value::<Line>(line.clone()) {
        Ok(line) => {
            request_errors(&line.request).into_iter().map(|e| format!("request: {e}")).collect()
        }
        Err(err) => vec![format!("not a batch line: {err}")],
    }
}
