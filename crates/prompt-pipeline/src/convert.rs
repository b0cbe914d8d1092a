//! A request body written for one provider, read back into the suite's
//! vocabulary and built for another: [`ChatBody`] reads an OpenAI Chat
//! Completions body (`prompt-suite convert --from openai`).
//!
//! Reading is strict, as every input: the text is strict JSON (a repeated
//! key is an error), every key is one the Chat Completions API documents
//! (OpenAI's `CreateChatCompletionRequest`, whose objects take no other
//! key), and each value has its documented type. What the neutral
//! vocabulary has a name for becomes it: messages with their text, image,
//! file and audio parts, tool calls and results ([`Message`], [`Part`]);
//! the sampling parameters, the token budget and the reasoning effort
//! ([`Params`]); the tools, the tool choice and the response schema
//! ([`Tool`], [`ToolChoice`], [`ResponseSchema`]). The other documented
//! fields (`user`, `metadata`, `n`, `logprobs`, ...) are kept as written:
//! an OpenAI chat body carries them all, a Responses body those it has
//! under the same name, and for the rest each is a
//! [`Notice::FieldNotCarried`]; Anthropic carries `user` as
//! `metadata.user_id` and `parallel_tool_calls: false` as its tool choice's
//! `disable_parallel_tool_use`. An image by `https://` URL stays a URL
//! (never fetched here) for the targets that take one, and an image's
//! `detail` is kept for the OpenAI targets (a `detail_not_carried` notice
//! for the others). What cannot be read into the vocabulary at all (an
//! image by another kind of URL, an uploaded `file_id`, the deprecated
//! `functions`) is an [`ErrorKind::InvalidRequest`] at the value.

use std::fmt;
use std::sync::Arc;

use prompt_core::chat::{ImageDetail, Message, Part, Role};
use prompt_core::json::{self, RawJson};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use prompt_core::diagnostic::Origin;
use prompt_core::text::Span;

use crate::error::{Error, ErrorKind};
use crate::params::{Effort, Params};
use crate::provider::anthropic::{AnthropicToolChoice, MessagesRequest, Metadata};
use crate::provider::{Encoded, Notice, Provider, Request};
use crate::tools::{ResponseSchema, Tool, ToolChoice};

/// An OpenAI Chat Completions request body, read strictly into the
/// suite's vocabulary; [`ChatBody::convert`] builds it for any provider.
///
/// ```
/// use prompt_pipeline::{ChatBody, Provider};
///
/// let body = ChatBody::parse(r#"{
///     "model": "claude-sonnet-4-5",
///     "max_completion_tokens": 300,
///     "messages": [
///         {"role": "system", "content": "Be brief."},
///         {"role": "user", "content": "Weather in Paris?"},
///         {"role": "assistant", "content": null, "tool_calls": [
///             {"id": "call_1", "type": "function",
///              "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}}
///         ]},
///         {"role": "tool", "tool_call_id": "call_1", "content": "18 C"}
///     ],
///     "tools": [{"type": "function", "function": {"name": "weather"}}]
/// }"#)?;
/// let encoded = body.convert(Provider::Anthropic)?;
/// let json = serde_json::to_value(&encoded.body)?;
/// assert_eq!(json["messages"][1]["content"][0]["type"], "tool_use");
/// assert_eq!(json["messages"][1]["content"][0]["input"]["city"], "Paris");
/// assert_eq!(json["messages"][2]["content"][0]["type"], "tool_result");
/// assert_eq!(json["messages"][2]["content"][0]["tool_use_id"], "call_1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ChatBody {
    messages: Vec<Message>,
    params: Params,
    /// The text read, which an error placed in it keeps (shared).
    text: Arc<str>,
    /// Where each message is in the text, for the errors a build reports
    /// by message index.
    offsets: Vec<usize>,
    /// The documented fields the neutral vocabulary has no name for, as
    /// read (`null` left out: it is each field's default).
    kept: Vec<Kept>,
    notices: Vec<Notice>,
}

/// A documented Chat Completions field with no neutral name.
#[derive(Debug, Clone, PartialEq)]
struct Kept {
    name: String,
    value: Value,
    /// Whether an OpenAI Responses body has a field of this name and shape.
    in_responses: bool,
}

/// The documented fields of `CreateChatCompletionRequest` that have no
/// neutral name, and whether `CreateResponse` has each under the same name
/// with the same shape (OpenAPI document 2.3.0, see
/// `tests/schemas/openai/README.md`).
const KEPT_FIELDS: [(&str, bool); 21] = [
    ("audio", false),
    ("logit_bias", false),
    ("logprobs", false),
    ("metadata", true),
    ("modalities", false),
    ("moderation", false),
    ("n", false),
    ("parallel_tool_calls", true),
    ("prediction", false),
    ("prompt_cache_key", true),
    ("prompt_cache_options", true),
    ("prompt_cache_retention", true),
    ("safety_identifier", true),
    ("service_tier", true),
    ("store", true),
    ("stream", true),
    ("stream_options", false),
    ("top_logprobs", true),
    ("user", true),
    ("verbosity", false),
    ("web_search_options", false),
];

impl ChatBody {
    /// Reads `text`, an OpenAI Chat Completions request body.
    ///
    /// # Errors
    ///
    /// `invalid_json` when the text is not strict JSON;
    /// [`ErrorKind::InvalidRequest`] for a key the API does not document, a
    /// value of the wrong type, and what the vocabulary cannot hold (an
    /// image by a URL that is not `https://`, a `file_id`, a custom tool, the deprecated `functions`,
    /// `function_call` and `function` messages, tool-call arguments that
    /// are not a JSON object, a reasoning effort other than `low`, `medium`
    /// or `high`); [`ErrorKind::InvalidTool`] and
    /// [`ErrorKind::InvalidSchema`] as [`Tool::parse_list`] and
    /// [`ResponseSchema::parse`] report them. Every error but the last two
    /// has the line and column of the value.
    pub fn parse(text: &str) -> Result<ChatBody, Error> {
        let shared: Arc<str> = Arc::from(text);
        let root: &RawValue = json::Reader::new().any_integers().parse(text).map_err(|err| {
            Error::new(ErrorKind::InvalidJson { reason: err.message().to_owned() }).at(
                Origin::Input,
                &shared,
                err.offset(),
            )
        })?;
        let reader = Reader { text, shared: &shared };
        let mut body = ChatBody {
            messages: Vec::new(),
            params: Params::default(),
            text: Arc::clone(&shared),
            offsets: Vec::new(),
            kept: Vec::new(),
            notices: Vec::new(),
        };
        let mut messages = None;
        let mut max_tokens = None;
        for (key, value) in reader.object("", root)? {
            let at = format!("/{}", pointer_token(&key));
            if is_null(value) {
                continue;
            }
            let params = &mut body.params;
            match key.as_str() {
                "model" => params.model = Some(reader.string(&at, value)?),
                "messages" => messages = Some(value),
                "temperature" => params.temperature = Some(reader.number(&at, value)?),
                "top_p" => params.top_p = Some(reader.number(&at, value)?),
                "presence_penalty" => params.presence_penalty = Some(reader.number(&at, value)?),
                "frequency_penalty" => params.frequency_penalty = Some(reader.number(&at, value)?),
                "max_completion_tokens" => {
                    params.max_tokens = Some(reader.typed(&at, value, "a whole number")?)
                }
                "max_tokens" => max_tokens = Some((at, value)),
                "seed" => params.seed = Some(reader.typed(&at, value, "a whole number")?),
                "stop" => {
                    params.stop = match reader.typed::<String>(&at, value, "") {
                        Ok(one) => vec![one],
                        Err(_) => reader.typed(&at, value, "a string or an array of strings")?,
                    }
                }
                "reasoning_effort" => {
                    params.reasoning_effort = Some(match reader.string(&at, value)?.as_str() {
                        "low" => Effort::Low,
                        "medium" => Effort::Medium,
                        "high" => Effort::High,
                        other => {
                            return Err(reader.invalid(
                                &at,
                                value,
                                format!(
                                    "`{other}` has no neutral reasoning effort (`low`, `medium` or `high`)"
                                ),
                            ));
                        }
                    })
                }
                "tools" => {
                    params.tools =
                        Tool::parse_list(value.get()).map_err(|err| reader.placed(err, value))?
                }
                "tool_choice" => params.tool_choice = Some(reader.tool_choice(&at, value)?),
                "response_format" => body.response_format(&reader, &at, value)?,
                "functions" | "function_call" => {
                    return Err(reader.invalid(
                        &at,
                        value,
                        "deprecated by OpenAI and not read: declare `tools` and use `tool_choice`"
                            .to_owned(),
                    ));
                }
                name => match KEPT_FIELDS.iter().find(|(kept, _)| *kept == name) {
                    Some(&(_, in_responses)) => {
                        let value = json::from_str::<Value>(value.get())
                            .map_err(|err| reader.invalid(&at, value, err.message().to_owned()))?;
                        body.kept.push(Kept { name: name.to_owned(), value, in_responses });
                    }
                    None => {
                        return Err(reader.invalid_at(
                            &at,
                            reader.key_span(value),
                            "not a field of a Chat Completions request".to_owned(),
                        ));
                    }
                },
            }
        }
        if let Some((at, value)) = max_tokens {
            let max: u64 = reader.typed(&at, value, "a whole number")?;
            match body.params.max_tokens {
                Some(other) if other != max => {
                    return Err(reader.invalid(
                        &at,
                        value,
                        format!("says {max} and `max_completion_tokens` says {other}"),
                    ));
                }
                _ => {
                    body.params.max_tokens = Some(max);
                    body.notices.push(Notice::FieldRewritten {
                        field: at,
                        reason: "deprecated by OpenAI; the token budget is sent in the target's own field (OpenAI `max_completion_tokens`)".to_owned(),
                    });
                }
            }
        }
        let Some(messages) = messages else {
            return Err(reader.invalid("", root, "a request has `messages`".to_owned()));
        };
        let items: Vec<&RawValue> = reader.typed("/messages", messages, "an array of messages")?;
        if items.is_empty() {
            return Err(reader.invalid(
                "/messages",
                messages,
                "a request has at least one message".to_owned(),
            ));
        }
        for (index, item) in items.into_iter().enumerate() {
            let message = reader.message(index, item, &mut body.notices)?;
            body.messages.push(message);
            body.offsets.push(reader.offset(item));
        }
        Ok(body)
    }

    /// The messages, one per message of the body, in order (a `developer`
    /// message is a system message; a tool message holds one
    /// [`Part::ToolResult`]).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The parameters, tools, tool choice and response schema.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The parameters, to set more over them (`--param`: see
    /// [`Params::apply`]).
    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// What reading changed: fields sent otherwise than written (a
    /// `developer` role, `max_tokens`, a refusal, ...).
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// The body for `provider`, with every notice: reading's first, then
    /// the merge's, the adapter's, and one per kept field the body leaves
    /// out (the Gemini body also leaves out the model, which goes in its
    /// URL: a notice says so).
    ///
    /// Anthropic and Gemini take alternating turns: when the conversation
    /// does not alternate (two user messages in a row, an assistant first),
    /// the suite's one merge of same-role neighbours runs, as in the
    /// pipeline (transcript-flip's `ensure_alternating`), and
    /// [`Notice::TurnsMerged`] says so; a conversation that alternates is
    /// sent as written (consecutive tool results are one user turn there
    /// anyway).
    ///
    /// # Errors
    ///
    /// As [`Provider::build`]; an error naming a message by its index has
    /// that message's line and column in the text read, unless the turns
    /// were merged (the index is then the merged message's).
    pub fn convert(&self, provider: Provider) -> Result<Encoded, Error> {
        let mut notices = self.notices.clone();
        let placed = |err: Error| match err.kind().message_index() {
            Some(index) if index < self.offsets.len() => {
                err.at(Origin::Input, &self.text, self.offsets[index])
            }
            _ => err,
        };
        let mut encoded = match provider.build(&self.messages, &self.params) {
            Ok(encoded) => encoded,
            // Merged only when it must be, so that a conversation that
            // alternates is sent as written and errors point into the text.
            Err(err)
                if provider.requires_alternation()
                    && matches!(
                        err.kind(),
                        ErrorKind::NotAlternating { .. } | ErrorKind::FirstNotUser { .. }
                    ) =>
            {
                let merged = crate::alternation::alternate(self.messages.clone())?;
                notices.push(Notice::TurnsMerged {
                    provider: provider.as_str().to_owned(),
                    before: self.messages.len(),
                    after: merged.len(),
                });
                provider.build(&merged, &self.params)?
            }
            Err(err) => return Err(placed(err)),
        };
        if let (Provider::Gemini, Some(model)) = (provider, &self.params.model) {
            notices.push(Notice::FieldNotCarried {
                field: "/model".to_owned(),
                reason: format!(
                    "Gemini names the model in the URL (`models/{model}:generateContent`), not in the body"
                ),
            });
        }
        for kept in &self.kept {
            if let Request::Anthropic(body) = &mut encoded.body
                && let Some(notice) = anthropic_field(body, kept)
            {
                if let Some(notice) = notice {
                    notices.push(notice);
                }
                continue;
            }
            let extra = match &mut encoded.body {
                Request::OpenAi(body) => Some(&mut body.extra),
                Request::OpenAiResponses(body) if kept.in_responses => Some(&mut body.extra),
                _ => None,
            };
            match extra {
                Some(extra) => {
                    extra.insert(kept.name.clone(), kept.value.clone());
                }
                None => notices.push(Notice::FieldNotCarried {
                    field: format!("/{}", kept.name),
                    reason: format!("{} has no such field", provider.as_str()),
                }),
            }
        }
        notices.append(&mut encoded.notices);
        encoded.notices = notices;
        Ok(encoded)
    }

    /// `response_format`: `text` is the default, a JSON Schema the neutral
    /// response schema (named as written), `json_object` a kept field.
    fn response_format(
        &mut self,
        reader: &Reader<'_>,
        at: &str,
        value: &RawValue,
    ) -> Result<(), Error> {
        let fields = reader.object(at, value)?;
        let kind = reader.required(at, value, &fields, "type")?;
        match reader.string(&format!("{at}/type"), kind)?.as_str() {
            "text" => reader.only(at, &fields, &["type"]),
            "json_object" => {
                reader.only(at, &fields, &["type"])?;
                let value = json::from_str::<Value>(value.get())
                    .map_err(|err| reader.invalid(at, value, err.message().to_owned()))?;
                self.kept.push(Kept {
                    name: "response_format".to_owned(),
                    value,
                    in_responses: false,
                });
                Ok(())
            }
            "json_schema" => {
                reader.only(at, &fields, &["type", "json_schema"])?;
                let at = format!("{at}/json_schema");
                let raw = reader.required(&at, value, &fields, "json_schema")?;
                let schema_fields = reader.object(&at, raw)?;
                reader.only(&at, &schema_fields, &["name", "description", "schema", "strict"])?;
                let name_raw = reader.required(&at, raw, &schema_fields, "name")?;
                let name = reader.string(&format!("{at}/name"), name_raw)?;
                let schema = match field(&schema_fields, "schema") {
                    Some(schema) => ResponseSchema::parse(schema.get())
                        .map_err(|err| reader.placed(err, schema))?,
                    None => ResponseSchema::parse("{}").map_err(|err| reader.placed(err, raw))?,
                };
                let schema = schema.named(&name).map_err(|err| reader.placed(err, name_raw))?;
                if let Some(strict) = field(&schema_fields, "strict").filter(|s| s.get() != "true")
                {
                    return Err(reader.invalid(
                        &format!("{at}/strict"),
                        strict,
                        "must be true or left out: the suite always asks for strict structured output"
                            .to_owned(),
                    ));
                }
                if field(&schema_fields, "description").is_some() {
                    self.notices.push(Notice::FieldNotCarried {
                        field: format!("{at}/description"),
                        reason: "the neutral response schema has no description".to_owned(),
                    });
                }
                self.params.response_schema = Some(schema);
                Ok(())
            }
            other => Err(reader.invalid(
                &format!("{at}/type"),
                kind,
                format!("`{other}` is not `text`, `json_object` or `json_schema`"),
            )),
        }
    }
}

/// `kept` in the Anthropic `body` where Anthropic has a field for it:
/// `user` as `metadata.user_id`, `parallel_tool_calls: false` as the tool
/// choice's `disable_parallel_tool_use` (`true` is Anthropic's default, so
/// nothing is written). `None` when Anthropic has no field for it; else
/// what was done, and the notice when it could not be carried after all.
fn anthropic_field(body: &mut MessagesRequest, kept: &Kept) -> Option<Option<Notice>> {
    let not_carried = |reason: &str| {
        Some(Some(Notice::FieldNotCarried {
            field: format!("/{}", kept.name),
            reason: reason.to_owned(),
        }))
    };
    match (kept.name.as_str(), &kept.value) {
        ("user", Value::String(user)) => {
            body.metadata = Some(Metadata { user_id: user.clone() });
            Some(None)
        }
        ("user", _) => not_carried("`metadata.user_id` is a string"),
        ("parallel_tool_calls", Value::Bool(true)) => Some(None),
        ("parallel_tool_calls", Value::Bool(false)) => {
            if body.tools.is_none() {
                return not_carried("no tools are declared, so no tool is called");
            }
            let choice = body
                .tool_choice
                .take()
                .unwrap_or(AnthropicToolChoice::Auto { disable_parallel_tool_use: None });
            match choice.clone().without_parallel_tool_use() {
                Some(choice) => {
                    body.tool_choice = Some(choice);
                    Some(None)
                }
                None => {
                    body.tool_choice = Some(choice);
                    not_carried(
                        "with the `none` tool choice no tool is called, and Anthropic's `none` has no `disable_parallel_tool_use`",
                    )
                }
            }
        }
        ("parallel_tool_calls", _) => not_carried("`disable_parallel_tool_use` is a boolean"),
        _ => None,
    }
}

/// The reader of one body: its text, and the same text shared, which
/// errors keep.
struct Reader<'a> {
    text: &'a str,
    shared: &'a Arc<str>,
}

/// An object's fields in document order, each value as its text (the
/// strict reader already refused repeated keys).
struct Fields<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Fields<'de>, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Fields<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(Object)
    }
}

fn field<'a>(fields: &[(String, &'a RawValue)], name: &str) -> Option<&'a RawValue> {
    fields.iter().find(|(key, _)| key == name).map(|(_, value)| *value)
}

fn is_null(value: &RawValue) -> bool {
    value.get() == "null"
}

/// `key` as a JSON pointer token (`~` and `/` escaped).
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl<'a> Reader<'a> {
    /// The byte offset of `value`, a slice of the text.
    fn offset(&self, value: &RawValue) -> usize {
        let start = self.text.as_ptr() as usize;
        (value.get().as_ptr() as usize).saturating_sub(start).min(self.text.len())
    }

    /// The bytes of `value` in the text.
    fn span(&self, value: &RawValue) -> Span {
        let start = self.offset(value);
        Span::new(start, (start + value.get().len()).min(self.text.len()))
    }

    /// The bytes of the key (quotes included) whose value is `value`: back
    /// from the value over blanks, `:` and blanks to the key's closing
    /// quote, then to the quote that opens it (one not escaped by an odd
    /// run of backslashes). The value's own span if the text is not so.
    fn key_span(&self, value: &RawValue) -> Span {
        let bytes = self.text.as_bytes();
        let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        let mut end = self.offset(value);
        while end > 0 && blank(bytes[end - 1]) {
            end -= 1;
        }
        if end == 0 || bytes[end - 1] != b':' {
            return self.span(value);
        }
        end -= 1;
        while end > 0 && blank(bytes[end - 1]) {
            end -= 1;
        }
        if end < 2 || bytes[end - 1] != b'"' {
            return self.span(value);
        }
        let mut start = end - 1;
        while start > 0 {
            start -= 1;
            if bytes[start] == b'"' {
                let escapes = bytes[..start].iter().rev().take_while(|&&b| b == b'\\').count();
                if escapes % 2 == 0 {
                    return Span::new(start, end);
                }
            }
        }
        self.span(value)
    }

    /// `err` (a tool or schema error) placed at `value`.
    fn placed(&self, err: Error, value: &RawValue) -> Error {
        err.spanning(Origin::Input, self.shared, self.span(value))
    }

    /// An [`ErrorKind::InvalidRequest`] at `value` (`at`: its JSON pointer).
    fn invalid(&self, at: &str, value: &RawValue, reason: String) -> Error {
        self.invalid_at(at, self.span(value), reason)
    }

    /// An [`ErrorKind::InvalidRequest`] at `span` of the text.
    fn invalid_at(&self, at: &str, span: Span, reason: String) -> Error {
        let at = if at.is_empty() { "/".to_owned() } else { at.to_owned() };
        Error::new(ErrorKind::InvalidRequest { at, reason }).spanning(
            Origin::Input,
            self.shared,
            span,
        )
    }

    fn typed<T: Deserialize<'a>>(
        &self,
        at: &str,
        value: &'a RawValue,
        expected: &str,
    ) -> Result<T, Error> {
        serde_json::from_str(value.get())
            .map_err(|_| self.invalid(at, value, format!("expected {expected}")))
    }

    fn string(&self, at: &str, value: &'a RawValue) -> Result<String, Error> {
        self.typed(at, value, "a string")
    }

    fn number(&self, at: &str, value: &'a RawValue) -> Result<f64, Error> {
        self.typed(at, value, "a number")
    }

    fn object(&self, at: &str, value: &'a RawValue) -> Result<Vec<(String, &'a RawValue)>, Error> {
        self.typed::<Fields<'a>>(at, value, "an object").map(|fields| fields.0)
    }

    /// Fails on the first key of `fields` that is not in `allowed`.
    fn only(
        &self,
        at: &str,
        fields: &[(String, &RawValue)],
        allowed: &[&str],
    ) -> Result<(), Error> {
        match fields.iter().find(|(key, _)| !allowed.contains(&key.as_str())) {
            Some((key, value)) => Err(self.invalid_at(
                &format!("{at}/{}", pointer_token(key)),
                self.key_span(value),
                format!("not a field here (expected {})", allowed.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn required(
        &self,
        at: &str,
        object: &RawValue,
        fields: &[(String, &'a RawValue)],
        name: &str,
    ) -> Result<&'a RawValue, Error> {
        field(fields, name).ok_or_else(|| self.invalid(at, object, format!("`{name}` is missing")))
    }

    fn tool_choice(&self, at: &str, value: &'a RawValue) -> Result<ToolChoice, Error> {
        if let Ok(mode) = serde_json::from_str::<String>(value.get()) {
            return match mode.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" => Ok(ToolChoice::Required),
                _ => Err(self.invalid(
                    at,
                    value,
                    format!("`{mode}` is not `auto`, `none` or `required`"),
                )),
            };
        }
        let fields = self.object(at, value)?;
        let kind = self.required(at, value, &fields, "type")?;
        match self.string(&format!("{at}/type"), kind)?.as_str() {
            "function" => {
                self.only(at, &fields, &["type", "function"])?;
                let function = self.required(at, value, &fields, "function")?;
                let at = format!("{at}/function");
                let function_fields = self.object(&at, function)?;
                self.only(&at, &function_fields, &["name"])?;
                let name = self.required(&at, function, &function_fields, "name")?;
                Ok(ToolChoice::Named(self.string(&format!("{at}/name"), name)?))
            }
            other => Err(self.invalid(
                &format!("{at}/type"),
                kind,
                format!("`{other}` choices have no neutral form (`auto`, `none`, `required` or a function)"),
            )),
        }
    }

    /// Message `index` of the body.
    fn message(
        &self,
        index: usize,
        value: &'a RawValue,
        notices: &mut Vec<Notice>,
    ) -> Result<Message, Error> {
        let at = format!("/messages/{index}");
        let fields = self.object(&at, value)?;
        let role_raw = self.required(&at, value, &fields, "role")?;
        let role_at = format!("{at}/role");
        let written = self.string(&role_at, role_raw)?;
        let (role, allowed): (Role, &[&str]) = match written.as_str() {
            "system" | "developer" => (Role::System, &["role", "content", "name"]),
            "user" => (Role::User, &["role", "content", "name"]),
            "assistant" => (
                Role::Assistant,
                &["role", "content", "name", "refusal", "tool_calls", "audio", "function_call"],
            ),
            "tool" => (Role::Tool, &["role", "content", "tool_call_id"]),
            "function" => {
                return Err(self.invalid(
                    &role_at,
                    role_raw,
                    "`function` messages are deprecated by OpenAI and not read: answer a tool call with a `tool` message".to_owned(),
                ));
            }
            other => {
                return Err(self.invalid(
                    &role_at,
                    role_raw,
                    format!("`{other}` is not system, developer, user, assistant or tool"),
                ));
            }
        };
        self.only(&at, &fields, allowed)?;
        if written == "developer" {
            notices.push(Notice::FieldRewritten {
                field: role_at,
                reason: "a `developer` message is sent as a system message".to_owned(),
            });
        }
        let present = |name| field(&fields, name).filter(|value| !is_null(value));
        let name =
            present("name").map(|raw| self.string(&format!("{at}/name"), raw)).transpose()?;
        let content_at = format!("{at}/content");
        let mut content = match present("content") {
            Some(raw) => self.content(&content_at, raw, role, notices)?,
            None if role == Role::Assistant => Vec::new(),
            None => return Err(self.invalid(&at, value, "`content` is missing".to_owned())),
        };
        match role {
            Role::Tool => {
                let id = self.required(&at, value, &fields, "tool_call_id")?;
                let call_id = self.string(&format!("{at}/tool_call_id"), id)?;
                content = vec![Part::ToolResult { call_id, content, is_error: false }];
            }
            Role::Assistant => {
                if let Some(raw) = present("audio").or_else(|| present("function_call")) {
                    let key = if present("audio").is_some() { "audio" } else { "function_call" };
                    return Err(self.invalid(
                        &format!("{at}/{key}"),
                        raw,
                        match key {
                            "audio" => "a reference to earlier audio output cannot be carried",
                            _ => "deprecated by OpenAI and not read: use `tool_calls`",
                        }
                        .to_owned(),
                    ));
                }
                if let Some(raw) = present("refusal") {
                    content.push(Part::text(self.string(&format!("{at}/refusal"), raw)?));
                    notices.push(Notice::FieldRewritten {
                        field: format!("{at}/refusal"),
                        reason: "a refusal is sent as the assistant's text".to_owned(),
                    });
                }
                if let Some(raw) = present("tool_calls") {
                    let calls_at = format!("{at}/tool_calls");
                    let calls: Vec<&RawValue> =
                        self.typed(&calls_at, raw, "an array of tool calls")?;
                    for (i, call) in calls.into_iter().enumerate() {
                        content.push(self.tool_call(&format!("{calls_at}/{i}"), call)?);
                    }
                }
                if content.is_empty() {
                    return Err(self.invalid(
                        &at,
                        value,
                        "an assistant message holds `content`, `refusal` or `tool_calls`"
                            .to_owned(),
                    ));
                }
            }
            _ => {}
        }
        Ok(Message { role, content, name })
    }

    fn tool_call(&self, at: &str, value: &'a RawValue) -> Result<Part, Error> {
        let fields = self.object(at, value)?;
        let kind = self.required(at, value, &fields, "type")?;
        let kind_name = self.string(&format!("{at}/type"), kind)?;
        if kind_name != "function" {
            return Err(self.invalid(
                &format!("{at}/type"),
                kind,
                format!("`{kind_name}` tool calls have no neutral form (only `function`)"),
            ));
        }
        self.only(at, &fields, &["id", "type", "function"])?;
        let id = self.string(&format!("{at}/id"), self.required(at, value, &fields, "id")?)?;
        let function = self.required(at, value, &fields, "function")?;
        let at = format!("{at}/function");
        let function_fields = self.object(&at, function)?;
        self.only(&at, &function_fields, &["name", "arguments"])?;
        let name_raw = self.required(&at, function, &function_fields, "name")?;
        let name = self.string(&format!("{at}/name"), name_raw)?;
        let arguments_raw = self.required(&at, function, &function_fields, "arguments")?;
        let arguments_at = format!("{at}/arguments");
        let text = self.string(&arguments_at, arguments_raw)?;
        let arguments = RawJson::parse(&text).ok().filter(RawJson::is_object).ok_or_else(|| {
            self.invalid(
                &arguments_at,
                arguments_raw,
                "the arguments are not a JSON object".to_owned(),
            )
        })?;
        Ok(Part::ToolCall { id, name, arguments })
    }

    /// A message's `content`: a string, or an array of the parts `role`
    /// takes (system and tool: text; assistant: text and refusals; user:
    /// text, images, audio and files).
    fn content(
        &self,
        at: &str,
        value: &'a RawValue,
        role: Role,
        notices: &mut Vec<Notice>,
    ) -> Result<Vec<Part>, Error> {
        if let Ok(text) = serde_json::from_str::<String>(value.get()) {
            return Ok(vec![Part::text(text)]);
        }
        let items: Vec<&RawValue> = self.typed(at, value, "a string or an array of parts")?;
        if items.is_empty() {
            return Err(self.invalid(at, value, "an array of parts holds at least one".to_owned()));
        }
        let mut parts = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let at = format!("{at}/{i}");
            let fields = self.object(&at, item)?;
            let kind = self.required(&at, item, &fields, "type")?;
            let kind_name = self.string(&format!("{at}/type"), kind)?;
            let takes = match role {
                Role::User => &["text", "image_url", "input_audio", "file"][..],
                Role::Assistant => &["text", "refusal"][..],
                _ => &["text"][..],
            };
            if !takes.contains(&kind_name.as_str()) {
                return Err(self.invalid(
                    &format!("{at}/type"),
                    kind,
                    format!("a {role} message takes {} parts, not `{kind_name}`", takes.join(", ")),
                ));
            }
            let (key, allowed): (&str, &[&str]) = match kind_name.as_str() {
                "refusal" => ("refusal", &["type", "refusal"]),
                other => (other, &["type", other, "prompt_cache_breakpoint"]),
            };
            self.only(&at, &fields, allowed)?;
            if field(&fields, "prompt_cache_breakpoint").is_some() {
                notices.push(Notice::FieldNotCarried {
                    field: format!("{at}/prompt_cache_breakpoint"),
                    reason: "the neutral parts have no cache breakpoints".to_owned(),
                });
            }
            let inner = self.required(&at, item, &fields, key)?;
            let inner_at = format!("{at}/{key}");
            parts.push(match key {
                "text" => Part::text(self.string(&inner_at, inner)?),
                "refusal" => {
                    notices.push(Notice::FieldRewritten {
                        field: at.clone(),
                        reason: "a refusal is sent as the assistant's text".to_owned(),
                    });
                    Part::text(self.string(&inner_at, inner)?)
                }
                "image_url" => self.image(&inner_at, inner)?,
                "input_audio" => self.audio(&inner_at, inner)?,
                _ => self.file(&inner_at, inner)?,
            });
        }
        Ok(parts)
    }

    /// An `image_url` part: a `data:` URI is read into bytes, an `https://`
    /// URL kept as a URL (never fetched), each with its `detail`.
    fn image(&self, at: &str, value: &'a RawValue) -> Result<Part, Error> {
        let fields = self.object(at, value)?;
        self.only(at, &fields, &["url", "detail"])?;
        let url_raw = self.required(at, value, &fields, "url")?;
        let url_at = format!("{at}/url");
        let url = self.string(&url_at, url_raw)?;
        let detail = match field(&fields, "detail").filter(|raw| !is_null(raw)) {
            None => None,
            Some(raw) => {
                let detail_at = format!("{at}/detail");
                Some(match self.string(&detail_at, raw)?.as_str() {
                    "auto" => ImageDetail::Auto,
                    "low" => ImageDetail::Low,
                    "high" => ImageDetail::High,
                    other => {
                        return Err(self.invalid(
                            &detail_at,
                            raw,
                            format!("`{other}` is not `auto`, `low` or `high`"),
                        ));
                    }
                })
            }
        };
        if let Some((media_type, data)) = data_uri(&url) {
            let data = self.base64(&url_at, url_raw, data)?;
            return Ok(Part::Image {
                media_type: media_type.to_owned(),
                data: data.into(),
                detail,
            });
        }
        if let Some(problem) = https_problem(&url) {
            return Err(self.invalid(
                &url_at,
                url_raw,
                format!("an image is read from a `data:<type>;base64,...` URI or an `https://` URL: {problem}"),
            ));
        }
        Ok(Part::ImageUrl { url, detail })
    }

    fn audio(&self, at: &str, value: &'a RawValue) -> Result<Part, Error> {
        let fields = self.object(at, value)?;
        self.only(at, &fields, &["data", "format"])?;
        let data_raw = self.required(at, value, &fields, "data")?;
        let data = self.string(&format!("{at}/data"), data_raw)?;
        let format_raw = self.required(at, value, &fields, "format")?;
        let format_at = format!("{at}/format");
        let (filename, media_type) = match self.string(&format_at, format_raw)?.as_str() {
            "wav" => ("audio.wav", "audio/wav"),
            "mp3" => ("audio.mp3", "audio/mpeg"),
            other => {
                return Err(self.invalid(
                    &format_at,
                    format_raw,
                    format!("`{other}` is not `wav` or `mp3`"),
                ));
            }
        };
        let bytes = self.base64(&format!("{at}/data"), data_raw, &data)?;
        Ok(Part::file(filename, media_type, bytes))
    }

    fn file(&self, at: &str, value: &'a RawValue) -> Result<Part, Error> {
        let fields = self.object(at, value)?;
        self.only(at, &fields, &["filename", "file_data", "file_id"])?;
        if let Some(id) = field(&fields, "file_id") {
            return Err(self.invalid(
                &format!("{at}/file_id"),
                id,
                "an uploaded file is known to OpenAI only: inline it as `file_data`".to_owned(),
            ));
        }
        let data_raw = self.required(at, value, &fields, "file_data")?;
        let data_at = format!("{at}/file_data");
        let written = self.string(&data_at, data_raw)?;
        let name_raw = self.required(at, value, &fields, "filename")?;
        let filename = self.string(&format!("{at}/filename"), name_raw)?;
        let (media_type, data) = match data_uri(&written) {
            Some((media_type, data)) => (Some(media_type.to_owned()), data),
            None => (None, written.as_str()),
        };
        let bytes = self.base64(&data_at, data_raw, data)?;
        // Bare base64: the type the bytes are, else the name's.
        let media_type = media_type.unwrap_or_else(|| {
            narrative_segment::sniffed_type(&bytes)
                .unwrap_or_else(|| narrative_segment::mime_type(&filename))
                .to_owned()
        });
        Ok(Part::file(filename, media_type, bytes))
    }

    fn base64(&self, at: &str, value: &RawValue, data: &str) -> Result<Vec<u8>, Error> {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|err| self.invalid(at, value, format!("not base64: {err}")))
    }
}

/// What keeps `url` from being an image URL the suite passes through, if
/// anything: the scheme is `https` (the providers fetch it; the suite never
/// does), a host follows, and no byte is a space or a control character (a
/// header or a log line the URL ends up in is never split).
fn https_problem(url: &str) -> Option<&'static str> {
    let Some(rest) =
        url.get(..8).filter(|scheme| scheme.eq_ignore_ascii_case("https://")).map(|_| &url[8..])
    else {
        return Some("the URL is not `https://`");
    };
    if rest.split(['/', '?', '#']).next().unwrap_or_default().is_empty() {
        return Some("the URL has no host");
    }
    if url.bytes().any(|b| b <= b' ' || b == 0x7f) || url.chars().any(char::is_control) {
        return Some("the URL holds a space or a control character");
    }
    None
}

/// The media type and base64 payload of a `data:<type>;base64,<payload>`
/// URI.
fn data_uri(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (head, payload) = rest.split_once(',')?;
    let media_type = head.strip_suffix(";base64")?;
    (!media_type.is_empty()).then_some((media_type, payload))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn err(text: &str) -> Error {
        ChatBody::parse(text).unwrap_err()
    }

    #[test]
    fn every_level_is_strict_and_placed() {
        let cases = [
            (r#"{"messages": [{"role": "user", "content": "hi"}], "x": 1}"#, "/x", "\"x\""),
            (
                r#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "a", "y": 2}]}]}"#,
                "/messages/0/content/0/y",
                "\"y\"",
            ),
            (
                r#"{"messages": [{"role": "tool", "tool_call_id": "c", "content": "r", "name": "n"}]}"#,
                "/messages/0/name",
                "\"name\"",
            ),
            (
                r#"{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA==", "size": 1}}]}]}"#,
                "/messages/0/content/0/image_url/size",
                "\"size\"",
            ),
            (
                r#"{"messages": [{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}"#,
                "/messages/0/content/0/type",
                "\"image_url\"",
            ),
            (r#"{"messages": []}"#, "/messages", "[]"),
            (r#"{"model": 4, "messages": [{"role": "user", "content": "hi"}]}"#, "/model", "4,"),
            (r#"{"messages": [{"role": "bot", "content": "hi"}]}"#, "/messages/0/role", "\"bot\""),
            (
                r#"{"tool_choice": {"type": "allowed_tools", "allowed_tools": {}}, "messages": [{"role": "user", "content": "hi"}]}"#,
                "/tool_choice/type",
                "\"allowed_tools\"",
            ),
            (
                r#"{"reasoning_effort": "minimal", "messages": [{"role": "user", "content": "hi"}]}"#,
                "/reasoning_effort",
                "\"minimal\"",
            ),
            (
                r#"{"messages": [{"role": "assistant", "content": null}]}"#,
                "/messages/0",
                "{\"role\": \"assistant\"",
            ),
        ];
        // The position is the offending value's, or an unknown field's key
        // (ASCII: a column is a byte + 1).
        for (text, at, value) in cases {
            let err = err(text);
            let ErrorKind::InvalidRequest { at: found, .. } = err.kind() else {
                panic!("{text}: {err:?}")
            };
            let column = text.find(value).unwrap() + 1;
            let place = (found.as_str(), err.line(), err.column());
            assert_eq!(place, (at, Some(1), Some(column)), "{text}");
        }
        // The snippet is the value alone (it was the rest of the line), or
        // the key of an unknown field.
        let value = err(r#"{"model": 4, "messages": [{"role": "user", "content": "hi"}]}"#);
        assert_eq!(value.snippet(), Some("4"));
        let key = err(r#"{"messages": [{"role": "user", "content": "hi"}], "x\"y": 1}"#);
        assert_eq!((key.column(), key.snippet()), (Some(51), Some(r#""x\"y""#)));
        let dup = err("\u{feff}{\"messages\": [], \"messages\": []}");
        assert_eq!(dup.kind().as_str(), "invalid_json");
        assert_eq!((dup.line(), dup.column()), (Some(1), Some(18)));
        assert_eq!(err("[").line(), Some(1));
    }

    #[test]
    fn image_urls_pass_through_only_when_https() {
        let body = |url: &str| {
            format!(
                r#"{{"messages": [{{"role": "user", "content": [{{"type": "image_url", "image_url": {{"url": {}, "detail": "high"}}}}]}}]}}"#,
                serde_json::Value::from(url)
            )
        };
        let part =
            |url: &str| ChatBody::parse(&body(url)).map(|b| b.messages()[0].content[0].clone());
        assert_eq!(
            part("https://x.test/a.png?s=1").unwrap(),
            Part::ImageUrl {
                url: "https://x.test/a.png?s=1".into(),
                detail: Some(ImageDetail::High)
            }
        );
        assert!(part("HTTPS://x.test/a.png").is_ok());
        for url in [
            "http://x.test/a.png",
            "file:///etc/passwd",
            "ftp://x.test/a.png",
            "https://",
            "https:///a.png",
            "https://x.test/a b.png",
            "https://x.test/a.png\r\nX-Evil: 1",
            "https://x.test/\u{85}a.png",
            "//x.test/a.png",
            "",
        ] {
            let err = part(url).unwrap_err();
            assert_eq!(err.kind().as_str(), "invalid_request", "{url:?}");
            let ErrorKind::InvalidRequest { at, .. } = err.kind() else { unreachable!() };
            assert_eq!(at, "/messages/0/content/0/image_url/url", "{url:?}");
        }
        let data = part("data:image/png;base64,AQ==").unwrap();
        assert_eq!(
            data,
            Part::Image {
                media_type: "image/png".into(),
                data: vec![1].into(),
                detail: Some(ImageDetail::High)
            }
        );
        let bad_detail = body("https://x.test/a.png").replace("high", "max");
        assert_eq!(err(&bad_detail).kind().as_str(), "invalid_request");
    }

    #[test]
    fn anthropic_carries_user_and_serial_tool_use() {
        let text = |extra: &str, choice: &str| {
            format!(
                r#"{{"model": "m", "max_completion_tokens": 9, {extra} "tools": [{{"type": "function", "function": {{"name": "f"}}}}], {choice} "messages": [{{"role": "user", "content": "hi"}}]}}"#
            )
        };
        let anthropic = |text: &str| {
            let encoded = ChatBody::parse(text).unwrap().convert(Provider::Anthropic).unwrap();
            let notices: Vec<_> = encoded.notices.iter().map(Notice::as_str).collect();
            (serde_json::to_value(&encoded.body).unwrap(), notices)
        };
        let (body, notices) =
            anthropic(&text(r#""user": "u-1", "parallel_tool_calls": false,"#, ""));
        assert_eq!(body["metadata"], serde_json::json!({"user_id": "u-1"}));
        assert_eq!(
            body["tool_choice"],
            serde_json::json!({"type": "auto", "disable_parallel_tool_use": true})
        );
        assert!(notices.is_empty(), "{notices:?}");
        let named = r#""tool_choice": {"type": "function", "function": {"name": "f"}},"#;
        let (body, _) = anthropic(&text(r#""parallel_tool_calls": false,"#, named));
        assert_eq!(
            body["tool_choice"],
            serde_json::json!({"type": "tool", "name": "f", "disable_parallel_tool_use": true})
        );
        let (body, notices) =
            anthropic(&text(r#""parallel_tool_calls": true,"#, r#""tool_choice": "required","#));
        assert_eq!(body["tool_choice"], serde_json::json!({"type": "any"}));
        assert!(notices.is_empty(), "{notices:?}");
        let (body, notices) =
            anthropic(&text(r#""parallel_tool_calls": false,"#, r#""tool_choice": "none","#));
        assert_eq!(body["tool_choice"], serde_json::json!({"type": "none"}));
        assert_eq!(notices, ["field_not_carried"]);
        // Gemini has neither field.
        let encoded = ChatBody::parse(&text(r#""user": "u-1", "parallel_tool_calls": false,"#, ""))
            .unwrap()
            .convert(Provider::Gemini)
            .unwrap();
        let kinds: Vec<_> = encoded.notices.iter().map(Notice::message).collect();
        assert_eq!(kinds.len(), 3, "{kinds:?}");
    }

    #[test]
    fn max_tokens_is_read_once() {
        let text = |a: u64, b: u64| {
            format!(
                r#"{{"max_tokens": {a}, "max_completion_tokens": {b}, "messages": [{{"role": "user", "content": "hi"}}]}}"#
            )
        };
        assert_eq!(err(&text(1, 2)).kind().as_str(), "invalid_request");
        let body = ChatBody::parse(&text(5, 5)).unwrap();
        assert_eq!(body.params().max_tokens, Some(5));
        assert_eq!(body.notices()[0].as_str(), "field_rewritten");
    }

    #[test]
    fn kept_fields_go_where_they_have_a_name() {
        let text = r#"{"model": "gpt-5.4", "max_completion_tokens": 64, "n": 2, "store": true,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "user", "content": "hi"}]}"#;
        let body = ChatBody::parse(text).unwrap();
        let json = |provider| {
            let encoded = body.convert(provider).unwrap();
            let kinds: Vec<_> = encoded.notices.iter().map(Notice::message).collect();
            (serde_json::to_value(&encoded.body).unwrap(), kinds)
        };
        let (chat, notices) = json(Provider::OpenAi);
        assert_eq!(
            (&chat["n"], &chat["store"], &chat["response_format"]["type"]),
            (&2.into(), &true.into(), &"json_object".into())
        );
        assert!(notices.is_empty(), "{notices:?}");
        let (responses, notices) = json(Provider::OpenAiResponses);
        assert_eq!((responses.get("n"), &responses["store"]), (None, &true.into()));
        assert_eq!(
            notices,
            [
                "`/n` is left out: openai-responses has no such field",
                "`/response_format` is left out: openai-responses has no such field"
            ]
        );
        let (_, notices) = json(Provider::Anthropic);
        assert_eq!(notices.len(), 4, "{notices:?}");
    }

    #[test]
    fn files_and_audio_become_parts() {
        let pdf = "JVBERi0xLjQK";
        let text = format!(
            r#"{{"messages": [{{"role": "user", "name": "ana", "content": [
                {{"type": "file", "file": {{"filename": "a.bin", "file_data": "{pdf}"}}}},
                {{"type": "input_audio", "input_audio": {{"data": "AAAA", "format": "mp3"}}}},
                {{"type": "text", "text": "x", "prompt_cache_breakpoint": {{"mode": "explicit"}}}}]}}]}}"#
        );
        let body = ChatBody::parse(&text).unwrap();
        let message = &body.messages()[0];
        assert_eq!(message.name.as_deref(), Some("ana"));
        assert_eq!(
            message.content[0],
            Part::file("a.bin", "application/pdf", b"%PDF-1.4\n".to_vec())
        );
        assert_eq!(message.content[1], Part::file("audio.mp3", "audio/mpeg", vec![0, 0, 0]));
        assert_eq!(body.notices()[0].as_str(), "field_not_carried");
        let bad = text.replace("AAAA", "!!");
        assert!(err(&bad).to_string().contains("not base64"), "{}", err(&bad));
    }

    #[test]
    fn schema_names_and_strictness_are_kept() {
        let text = |strict: &str| {
            format!(
                r#"{{"messages": [{{"role": "user", "content": "hi"}}], "response_format": {{"type": "json_schema", "json_schema": {{"name": "report", "strict": {strict}, "schema": {{"title": "other"}}}}}}}}"#
            )
        };
        let body = ChatBody::parse(&text("true")).unwrap();
        assert_eq!(body.params().response_schema.as_ref().unwrap().name(), "report");
        assert_eq!(err(&text("false")).kind().as_str(), "invalid_request");
        let tools = r#"{"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "a b"}}]}"#;
        let tool_err = err(tools);
        assert_eq!((tool_err.kind().as_str(), tool_err.line()), ("invalid_tool", Some(1)));
    }

    fn conversation() -> impl Strategy<Value = Vec<Message>> {
        let text = "[a-z \"\\\\{}\n]{0,8}";
        let detail = prop_oneof![
            Just(None),
            Just(Some(ImageDetail::Auto)),
            Just(Some(ImageDetail::Low)),
            Just(Some(ImageDetail::High)),
        ];
        let user = (text, prop::option::of(("[a-z]{1,8}", detail))).prop_map(|(t, image)| {
            let mut message = Message::text(Role::User, t);
            if let Some((name, detail)) = image {
                message.content.push(Part::ImageUrl {
                    url: format!("https://x.test/{name}.png?q=\"é\""),
                    detail,
                });
            }
            message
        });
        let call = (text, 0..3u8).prop_map(|(t, n)| {
            let mut content = vec![];
            if !t.is_empty() {
                content.push(Part::text(t));
            }
            for i in 0..n.max(1) {
                let arguments = RawJson::parse(&format!(r#"{{"n": {i}, "s": "é\"x"}}"#)).unwrap();
                content.push(Part::tool_call(format!("c{i}"), "tool", arguments));
            }
            Message { role: Role::Assistant, content, name: None }
        });
        prop::collection::vec(prop_oneof![user, call], 1..6).prop_map(|turns| {
            let mut messages = vec![Message::text(Role::System, "s")];
            for (turn_index, mut turn) in turns.into_iter().enumerate() {
                // Ids are unique in a conversation (`duplicate_tool_call_id`).
                for part in &mut turn.content {
                    if let Part::ToolCall { id, .. } = part {
                        id.push_str(&format!("_{turn_index}"));
                    }
                }
                let calls: Vec<String> = turn
                    .content
                    .iter()
                    .filter_map(|p| match p {
                        Part::ToolCall { id, .. } => Some(id.clone()),
                        _ => None,
                    })
                    .collect();
                messages.push(turn);
                for id in calls {
                    messages.push(Message {
                        role: Role::Tool,
                        content: vec![Part::tool_result(id, "r")],
                        name: None,
                    });
                }
            }
            messages
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// What the OpenAI chat adapter writes reads back as the same
        /// messages and tools: the reader and the writer agree.
        #[test]
        fn openai_bodies_read_back(messages in conversation()) {
            let mut params = Params { model: Some("gpt-5.4".into()), ..Params::default() };
            params.tools = Tool::parse_list(r#"[{"name": "tool", "description": "d"}]"#).unwrap();
            params.tool_choice = Some(ToolChoice::Required);
            let encoded = Provider::OpenAi.build(&messages, &params).unwrap();
            let text = serde_json::to_string_pretty(&encoded.body).unwrap();
            let body = ChatBody::parse(&text).unwrap();
            prop_assert_eq!(body.messages(), &messages[..]);
            prop_assert_eq!(&body.params().tools, &params.tools);
            prop_assert_eq!(&body.params().tool_choice, &params.tool_choice);
            prop_assert!(body.notices().is_empty());
            let again = body.convert(Provider::OpenAi).unwrap();
            prop_assert_eq!(serde_json::to_string_pretty(&again.body).unwrap(), text);
        }
    }
}
