//! Provider adapters: the neutral [`Message`]s (`prompt_core::chat`) and
//! [`Params`] turned into the exact request body each provider documents.
//! Part bytes are base64-encoded here, once, and nowhere before.
//!
//! Each adapter is a pure function from messages and parameters to a typed,
//! serde-serializable body. What a provider cannot carry (a part type, a
//! system message in mid-conversation, an out-of-range parameter) is an
//! [`Error`], never dropped; parameters it does not know are reported as
//! [`Notice`]s (OpenAI alone receives unknown parameters as they are).

pub mod anthropic;
pub mod completions;
pub mod gemini;
pub mod openai;
pub mod responses;

mod calls;

use std::borrow::Cow;

use prompt_core::chat::{ImageDetail, Message, Part, Role};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::params::Params;

pub(crate) use calls::Calls;

/// The providers the suite builds requests for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Provider {
    /// OpenAI chat completions (`POST /v1/chat/completions`).
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI Responses (`POST /v1/responses`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages (`POST /v1/messages`).
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Google Gemini `generateContent`.
    #[serde(rename = "gemini")]
    Gemini,
    /// OpenAI-compatible completions (`POST /v1/completions`) for local
    /// models: the conversation rendered through the model's chat template
    /// ([`completions`]), so building needs one
    /// ([`Provider::build_with_chat_template`],
    /// [`PipelineBuilder::chat_template`](crate::PipelineBuilder::chat_template)).
    #[serde(rename = "completions")]
    Completions,
}

impl Provider {
    /// The providers whose request is the conversation itself, every one
    /// but [`Provider::Completions`] (whose body is one prompt rendered
    /// through a chat template, so building for it needs one).
    pub const CHAT: [Provider; 4] =
        [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini];

    /// Every provider, in the order the command line lists them.
    pub const ALL: [Provider; 5] = [
        Provider::OpenAi,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Completions,
    ];

    /// The provider's name as the command line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Completions => "completions",
        }
    }

    /// The path of the endpoint a request for `model` is posted to, on the
    /// provider's API host: `/v1/chat/completions`, `/v1/responses`,
    /// `/v1/messages`, `/v1/completions`, and Gemini's, which names the model
    /// (`/v1beta/models/{model}:generateContent`); `None` for Gemini without
    /// a model.
    ///
    /// ```
    /// use prompt_pipeline::Provider;
    ///
    /// assert_eq!(Provider::Anthropic.path(None).as_deref(), Some("/v1/messages"));
    /// assert_eq!(
    ///     Provider::Gemini.path(Some("gemini-2.5-flash")).as_deref(),
    ///     Some("/v1beta/models/gemini-2.5-flash:generateContent")
    /// );
    /// assert_eq!(Provider::Gemini.path(None), None);
    /// ```
    pub fn path(self, model: Option<&str>) -> Option<Cow<'static, str>> {
        match self {
            Provider::OpenAi => Some(Cow::Borrowed("/v1/chat/completions")),
            Provider::OpenAiResponses => Some(Cow::Borrowed("/v1/responses")),
            Provider::Anthropic => Some(Cow::Borrowed("/v1/messages")),
            Provider::Completions => Some(Cow::Borrowed("/v1/completions")),
            Provider::Gemini => {
                model.map(|model| Cow::Owned(format!("/v1beta/models/{model}:generateContent")))
            }
        }
    }

    /// Whether the provider requires user and assistant turns to alternate
    /// from the user (Anthropic, Gemini): the pipeline arranges the
    /// conversation for it, and its adapter refuses one that does not.
    pub fn requires_alternation(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::Gemini)
    }

    /// Whether the body names the model (all but Gemini, whose model is in
    /// the URL): without one, building is a `missing_model` error.
    pub fn model_in_body(self) -> bool {
        self != Provider::Gemini
    }

    /// The provider whose model family `model` names by its prefix
    /// (`gpt-`, `o1`, `o3`, `o4`, `chatgpt-`: OpenAI; `claude-`: Anthropic;
    /// `gemini-`, `gemma-`: Gemini), if any.
    fn family(model: &str) -> Option<&'static str> {
        // The prefixes are lowercase ASCII: compared without regard to
        // ASCII case, in place (no lowercased copy of the name per build).
        let starts = |prefixes: &[&str]| {
            prefixes.iter().any(|p| {
                model
                    .as_bytes()
                    .get(..p.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(p.as_bytes()))
            })
        };
        if starts(&["gpt-", "chatgpt-", "o1", "o3", "o4"]) {
            Some("openai")
        } else if starts(&["claude-"]) {
            Some("anthropic")
        } else if starts(&["gemini-", "gemma-"]) {
            Some("gemini")
        } else {
            None
        }
    }

    /// Builds the request body for `messages` with `params` (its tools,
    /// tool choice and response schema included).
    ///
    /// # Errors
    ///
    /// Shared by all: [`ErrorKind::MissingModel`] (all but Gemini),
    /// [`ErrorKind::InvalidTool`] and [`ErrorKind::UnknownTool`] for the
    /// declarations; for the tool calls and results of the conversation,
    /// [`ErrorKind::InvalidToolName`], [`ErrorKind::InvalidToolCallId`]
    /// (by this provider's rule), [`ErrorKind::DuplicateToolCallId`],
    /// [`ErrorKind::UnknownToolCallId`] and
    /// [`ErrorKind::UnansweredToolCall`] (every call is answered by tool
    /// messages right after its assistant message, even at the end of the
    /// conversation). Then see each adapter: [`openai::build`],
    /// [`responses::build`], [`anthropic::build`], [`gemini::build`].
    /// [`Provider::Completions`] renders through a chat template, which this
    /// call does not have: [`ErrorKind::MissingChatTemplate`] (use
    /// [`Provider::build_with_chat_template`]).
    pub fn build(self, messages: &[Message], params: &Params) -> Result<Encoded, Error> {
        self.encode(messages, params, None)
    }

    /// As [`Provider::build`], with the chat template that
    /// [`Provider::Completions`] renders the conversation through (see
    /// [`completions::build`]); the chat providers do not use it.
    ///
    /// ```
    /// use chat_template::Options;
    /// use prompt_pipeline::{ChatTemplate, Message, Params, Provider, Role};
    ///
    /// let template = ChatTemplate::from_jinja(
    ///     "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
    ///      {% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    ///     &Options::default(),
    /// )?;
    /// let messages = [Message::text(Role::System, "Be brief."), Message::text(Role::User, "Hi")];
    /// let params = Params::parse([("model", "qwen2.5-7b-instruct"), ("max_tokens", "64")])?;
    /// let encoded = Provider::Completions.build_with_chat_template(&messages, &params, &template)?;
    /// assert_eq!(
    ///     serde_json::to_string(&encoded.body)?,
    ///     r#"{"model":"qwen2.5-7b-instruct","prompt":"<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n","max_tokens":64}"#
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Provider::build`]; for [`Provider::Completions`], as
    /// [`completions::build`].
    pub fn build_with_chat_template(
        self,
        messages: &[Message],
        params: &Params,
        chat_template: &chat_template::ChatTemplate,
    ) -> Result<Encoded, Error> {
        self.encode(messages, params, Some(chat_template))
    }

    /// The one path of [`Provider::build`] and
    /// [`Provider::build_with_chat_template`].
    pub(crate) fn encode(
        self,
        messages: &[Message],
        params: &Params,
        chat_template: Option<&chat_template::ChatTemplate>,
    ) -> Result<Encoded, Error> {
        crate::tools::check(&params.tools, params.tool_choice.as_ref())?;
        let mut notices = Vec::new();
        // A completions server serves open models of any name (`gpt-oss-20b`,
        // `gemma-3-27b-it`): no family is another provider's there.
        if let Some(model) = params.model.as_ref().filter(|_| self != Provider::Completions) {
            let ours = if self == Provider::OpenAiResponses { "openai" } else { self.as_str() };
            if let Some(family) = Provider::family(model).filter(|family| *family != ours) {
                notices.push(Notice::ModelFamilyMismatch {
                    model: model.clone(),
                    provider: self.as_str().to_owned(),
                    family: family.to_owned(),
                });
            }
        }
        Calls::pair(self, messages)?;
        // OpenAI takes a system message alone, never no message at all
        // (`messages` has at least one item; Responses' `input` "one or
        // many"): an empty body is refused here, not by the API.
        if messages.is_empty() && matches!(self, Provider::OpenAi | Provider::OpenAiResponses) {
            return Err(Error::new(ErrorKind::NoMessages { provider: self.as_str() }));
        }
        let (body, more) = match self {
            Provider::OpenAi => openai::build(messages, params)
                .map(|(body, notices)| (Request::OpenAi(body), notices))?,
            Provider::OpenAiResponses => responses::build(messages, params)
                .map(|(body, notices)| (Request::OpenAiResponses(body), notices))?,
            Provider::Anthropic => anthropic::build(messages, params)
                .map(|(body, notices)| (Request::Anthropic(body), notices))?,
            Provider::Gemini => gemini::build(messages, params)
                .map(|(body, notices)| (Request::Gemini(body), notices))?,
            Provider::Completions => {
                let template =
                    chat_template.ok_or_else(|| Error::new(ErrorKind::MissingChatTemplate))?;
                completions::build(messages, params, template)
                    .map(|(body, notices)| (Request::Completions(body), notices))?
            }
        };
        append(&mut notices, more);
        Ok(Encoded { body, notices })
    }
}

/// The command line's names: `"anthropic".parse::<Provider>()`.
impl std::str::FromStr for Provider {
    type Err = ParseProviderError;

    fn from_str(name: &str) -> Result<Provider, ParseProviderError> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.as_str() == name)
            .ok_or_else(|| ParseProviderError { name: name.to_owned() })
    }
}

/// Writes [`Provider::as_str`], the name [`FromStr`](std::str::FromStr) reads.
impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no [`Provider`]'s, from [`Provider`]'s `FromStr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseProviderError {
    name: String,
}

impl ParseProviderError {
    /// The name as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[unknown_provider]: message`.
    pub fn annotated(&self) -> prompt_core::annotated::Annotated {
        prompt_core::annotated::Annotated::of(self, None)
    }
}

impl std::fmt::Display for ParseProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = Provider::ALL.iter().map(|provider| provider.as_str()).collect();
        write!(f, "unknown provider `{}` (expected one of: {})", self.name, names.join(", "))
    }
}

impl std::error::Error for ParseProviderError {}

/// Always `unknown_provider`, with no place in a text.
impl prompt_core::diagnostic::Diagnostic for ParseProviderError {
    fn kind(&self) -> &'static str {
        "unknown_provider"
    }
}

/// `more` after `into`: moved whole into an empty `into` (the usual case:
/// nothing noticed before), so no second buffer is made.
pub(crate) fn append<T>(into: &mut Vec<T>, mut more: Vec<T>) {
    if into.is_empty() {
        *into = more;
    } else {
        into.append(&mut more);
    }
}

/// A request body of one of the providers; serializes to exactly that body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Request {
    /// An OpenAI chat-completions body.
    OpenAi(openai::ChatRequest),
    /// An OpenAI Responses body.
    OpenAiResponses(responses::ResponsesRequest),
    /// An Anthropic Messages body.
    Anthropic(anthropic::MessagesRequest),
    /// A Gemini `generateContent` body.
    Gemini(gemini::GenerateContentRequest),
    /// An OpenAI-compatible completions body.
    Completions(completions::CompletionsRequest),
}

impl Request {
    /// The provider the body is for.
    pub fn provider(&self) -> Provider {
        match self {
            Request::OpenAi(_) => Provider::OpenAi,
            Request::OpenAiResponses(_) => Provider::OpenAiResponses,
            Request::Anthropic(_) => Provider::Anthropic,
            Request::Gemini(_) => Provider::Gemini,
            Request::Completions(_) => Provider::Completions,
        }
    }
}

/// A conversation encoded as one provider's body, and what the adapter had
/// to say about the parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Encoded {
    /// The body to send.
    pub body: Request,
    /// Parameters that were given but are not in the body.
    pub notices: Vec<Notice>,
}

/// Something the caller wrote that the provider's body does not carry, or
/// carries otherwise than written, so that nothing is left out or changed
/// without a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Notice {
    /// A parameter the suite knows that this provider has no field for,
    /// e.g. `top_k` for OpenAI.
    UnsupportedParam {
        /// The parameter.
        param: String,
    },
    /// A parameter the suite does not know; OpenAI (and completions)
    /// receive it as written, the other providers do not.
    UnknownParam {
        /// The parameter as written.
        param: String,
    },
    /// A message's participant `name`, which only OpenAI carries.
    NameNotCarried {
        /// The index of the message in the input.
        message: usize,
        /// The name.
        name: String,
    },
    /// A `/// param:` key the prompt sets again to another value; the last
    /// value wins (prompt-comments' `duplicate_param` warning).
    DuplicateParam {
        /// The parameter.
        param: String,
        /// The 1-based line of the prompt file where it is set again.
        line: usize,
        /// The 1-based column (in characters) of the key on that line.
        column: usize,
        /// What the comments stage said, with the two values.
        message: String,
    },
    /// A tag printing a name alone (`[[ name ]]`, `[[name]]`) that printed
    /// an undefined name, and so nothing: often a misspelled name, or
    /// (written bare) text that only looks like a tag, a wiki link
    /// `[[Alice]]` or a TOML table `[[bin]]` (minijinja-brackets'
    /// `undefined_variable`, once per distinct name per request). Not with
    /// a strict environment, where it is an error.
    UndefinedVariable {
        /// The name.
        name: String,
        /// The 1-based line of the tag in the prompt file; `None` when the
        /// tag is in a template the prompt loaded (the message names it).
        line: Option<usize>,
        /// The 1-based column (in characters) of the tag on that line.
        column: Option<usize>,
        /// What the template stage said.
        message: String,
    },
    /// An `@@@name` opening line that no `@@@` line closes: its lines
    /// stay text of the turn (narrative-segment's `unclosed_embed`).
    UnclosedEmbed {
        /// The embed's name.
        name: String,
        /// The 1-based line of the opening line in the narrative.
        line: usize,
        /// Its 1-based column.
        column: usize,
    },
    /// An authored turn (one a delimiter opens) with nothing but
    /// whitespace once rendered, so no message: a misspelled name printed
    /// nothing, a condition left it out. It is left out of the request.
    EmptyTurn {
        /// The turn's number among the narrative's delimited turns, from 1.
        turn: usize,
        /// Its delimiter line, as rendered (`## user`).
        delimiter: String,
        /// The 1-based line of the delimiter in the prompt file; `None`
        /// when the rendered delimiter cannot be told apart from others
        /// the template wrote (a loop of turns).
        line: Option<usize>,
        /// The 1-based column (in characters) of the delimiter.
        column: Option<usize>,
    },
    /// The model's name belongs to another provider's family (a
    /// `claude-` model in an OpenAI body): sent as written.
    ModelFamilyMismatch {
        /// The model.
        model: String,
        /// The provider the body is for.
        provider: String,
        /// The provider whose family the name belongs to.
        family: String,
    },
    /// An image's detail level (`low`, `high`), for a provider with no
    /// field for it (Anthropic, Gemini): the image is sent, the level is
    /// the provider's own.
    DetailNotCarried {
        /// The index of the message holding the image.
        message: usize,
        /// The detail level asked for.
        detail: ImageDetail,
    },
    /// A tool result marked as an error, for a provider with no field for
    /// that (OpenAI): its text is sent, the mark is not.
    ToolErrorNotCarried {
        /// The index of the message holding the result.
        message: usize,
        /// The id of the call it answers.
        call_id: String,
    },
    /// An embedded file whose bytes are of another type than its extension
    /// says (a PNG named `.jpg`): sent with the bytes' type.
    MediaTypeMismatch {
        /// The file's name.
        file: String,
        /// The type its extension names.
        extension: String,
        /// The type its bytes are, which is sent.
        bytes: String,
    },
    /// A bare `@word` in the narrative (a handle in prose: no extension)
    /// that names no attachment: kept as text (narrative-segment's
    /// `unresolved_reference` warning).
    UnresolvedReference {
        /// The name after the `@`.
        name: String,
        /// The 1-based line in the narrative (as rendered by the template,
        /// when it ran).
        line: usize,
        /// The 1-based column, in characters, of the `@`.
        column: usize,
    },
    /// A field of a converted request body ([`crate::ChatBody`]) that the
    /// target's body leaves out, e.g. `user` for Anthropic.
    FieldNotCarried {
        /// The field in the body read, as a JSON pointer (`/user`).
        field: String,
        /// Why it is left out.
        reason: String,
    },
    /// A field of a converted request body sent otherwise than written,
    /// e.g. a `developer` message as a system message.
    FieldRewritten {
        /// The field in the body read, as a JSON pointer.
        field: String,
        /// How it is sent.
        reason: String,
    },
    /// The same-role neighbours of a converted conversation merged into
    /// one message each, for a provider that requires alternating turns
    /// (the pipeline's one merge, transcript-flip's `ensure_alternating`).
    TurnsMerged {
        /// The provider.
        provider: String,
        /// The messages read.
        before: usize,
        /// The messages sent.
        after: usize,
    },
    /// A `///` directive in a template the prompt included, imported or
    /// extended: ignored, since only the prompt file's directives count.
    IgnoredDirective {
        /// The template's name.
        template: String,
        /// The directive as written up to its value (`/// param: top_k=`,
        /// `/// flow:`).
        directive: String,
        /// The 1-based line in the template's file.
        line: usize,
        /// The 1-based column (in characters) of its key.
        column: usize,
    },
    /// The transcript's point-of-view speaker never speaks in it, and no
    /// id there is a near miss of it (transcript-flip's
    /// `speaker_not_in_transcript`): every turn is shown as another
    /// speaker's, as for an agent's first turn.
    SpeakerNotInTranscript {
        /// The point-of-view speaker.
        speaker: String,
        /// What the flip stage said.
        message: String,
    },
}

impl Notice {
    /// The snake_case kind: `unsupported_param`, `unknown_param`,
    /// `name_not_carried`, `duplicate_param`, `undefined_variable`, `model_family_mismatch`,
    /// `tool_error_not_carried`, `detail_not_carried`, `media_type_mismatch`, `unresolved_reference`,
    /// `field_not_carried`, `field_rewritten`, `turns_merged` or
    /// `ignored_directive`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Notice::UnsupportedParam { .. } => "unsupported_param",
            Notice::UnknownParam { .. } => "unknown_param",
            Notice::NameNotCarried { .. } => "name_not_carried",
            Notice::DuplicateParam { .. } => "duplicate_param",
            Notice::UndefinedVariable { .. } => "undefined_variable",
            Notice::EmptyTurn { .. } => "empty_turn",
            Notice::UnclosedEmbed { .. } => "unclosed_embed",
            Notice::ModelFamilyMismatch { .. } => "model_family_mismatch",
            Notice::ToolErrorNotCarried { .. } => "tool_error_not_carried",
            Notice::DetailNotCarried { .. } => "detail_not_carried",
            Notice::MediaTypeMismatch { .. } => "media_type_mismatch",
            Notice::UnresolvedReference { .. } => "unresolved_reference",
            Notice::FieldNotCarried { .. } => "field_not_carried",
            Notice::FieldRewritten { .. } => "field_rewritten",
            Notice::TurnsMerged { .. } => "turns_merged",
            Notice::IgnoredDirective { .. } => "ignored_directive",
            Notice::SpeakerNotInTranscript { .. } => "speaker_not_in_transcript",
        }
    }

    /// What was left out, for people.
    pub fn message(&self) -> String {
        match self {
            Notice::UnsupportedParam { param } => {
                format!("the parameter `{param}` has no field in this provider's request")
            }
            Notice::UnknownParam { param } => {
                format!("the parameter `{param}` is unknown and not sent to this provider")
            }
            Notice::NameNotCarried { message, name } => {
                format!(
                    "message {message}: the name `{name}` has no field in this provider's request"
                )
            }
            Notice::DuplicateParam { message, .. }
            | Notice::UndefinedVariable { message, .. }
            | Notice::SpeakerNotInTranscript { message, .. } => message.clone(),
            Notice::ModelFamilyMismatch { model, provider, family } => format!(
                "the model `{model}` is of the {family} family, and the body is for {provider}; sent as written"
            ),
            Notice::ToolErrorNotCarried { message, call_id } => format!(
                "message {message}: the result of `{call_id}` is marked as an error, which this provider's request cannot say; its text is sent"
            ),
            Notice::DetailNotCarried { message, detail } => format!(
                "message {message}: the image's detail `{}` has no field in this provider's request; the provider's default applies",
                detail.as_str()
            ),
            Notice::MediaTypeMismatch { file, extension, bytes } => format!(
                "`{file}`: the extension says {extension}, the bytes are {bytes}; sent as {bytes}"
            ),
            Notice::UnresolvedReference { name, line, column } => format!(
                "`@{name}` (line {line}, column {column} of the narrative) names no attachment or file; it stays text"
            ),
            Notice::FieldNotCarried { field, reason } => format!("`{field}` is left out: {reason}"),
            Notice::FieldRewritten { field, reason } => format!("`{field}`: {reason}"),
            Notice::TurnsMerged { provider, before, after } => format!(
                "{provider} requires alternating turns: the {before} messages are sent as {after}, same-role neighbours merged"
            ),
            Notice::UnclosedEmbed { name, line, column } => format!(
                "the embed `{name}` (line {line}, column {column} of the narrative) is never closed by a `@@@` line; its lines stay text"
            ),
            Notice::EmptyTurn { turn, delimiter, line, .. } => {
                let line = line.map(|line| format!(", line {line}")).unwrap_or_default();
                format!(
                    "turn {turn} (`{delimiter}`{line}) is empty once rendered and is left out of the request"
                )
            }
            Notice::IgnoredDirective { template, directive, line, column } => format!(
                "`{directive}` in the included template `{template}` (line {line}, column {column}) is ignored: only the prompt file's directives count"
            ),
        }
    }
}

/// Fails when `value` is outside `min..=max` for `provider`.
fn check_range(
    provider: Provider,
    name: &'static str,
    value: Option<f64>,
    min: f64,
    max: f64,
) -> Result<(), Error> {
    match value {
        Some(value) if !(min..=max).contains(&value) => {
            Err(Error::new(ErrorKind::ParamOutOfRange {
                provider: provider.as_str(),
                name,
                value,
                min,
                max,
            }))
        }
        _ => Ok(()),
    }
}

/// Notices for the parameters `params` sets that this provider lacks
/// (`unsupported`), plus every unknown parameter where the provider does not
/// receive them (all but OpenAI's two APIs and completions).
fn notices(provider: Provider, params: &Params, unsupported: &[&str]) -> Vec<Notice> {
    let mut notices: Vec<Notice> = params
        .set_optional_names()
        .filter(|name| unsupported.contains(name))
        .map(|name| Notice::UnsupportedParam { param: name.to_owned() })
        .collect();
    if !matches!(provider, Provider::OpenAi | Provider::OpenAiResponses | Provider::Completions) {
        notices.extend(
            params.extra.iter().map(|(name, _)| Notice::UnknownParam { param: name.clone() }),
        );
    }
    notices
}

/// OpenAI's reasoning effort: `thinking_budget` alone is an error (OpenAI
/// has no budget), beside `reasoning_effort` a notice (in `notices`).
fn openai_effort(params: &Params) -> Result<Option<crate::params::Effort>, Error> {
    match (params.reasoning_effort, params.thinking_budget) {
        (None, Some(budget)) => Err(Error::new(ErrorKind::InvalidParam {
            name: "thinking_budget".to_owned(),
            value: budget.to_string(),
            expected: "`reasoning_effort` instead: OpenAI has no thinking budget",
        })),
        (effort, _) => Ok(effort),
    }
}

/// The thinking budget for Anthropic and Gemini: `thinking_budget`, else
/// the effort's (Anthropic `budget_tokens` 1 024 / 4 096 / 16 384, Gemini
/// `thinkingBudget` 1 024 / 8 192 / 24 576).
fn thinking_budget(provider: Provider, params: &Params) -> Option<u64> {
    use crate::params::Effort;
    params.thinking_budget.or_else(|| {
        params.reasoning_effort.map(|effort| match (provider, effort) {
            (_, Effort::Low) => 1024,
            (Provider::Gemini, Effort::Medium) => 8192,
            (Provider::Gemini, Effort::High) => 24576,
            (_, Effort::Medium) => 4096,
            (_, Effort::High) => 16384,
        })
    })
}

/// The model, which every body but Gemini's names.
fn required_model(provider: Provider, params: &Params) -> Result<String, Error> {
    params
        .model
        .clone()
        .ok_or_else(|| Error::new(ErrorKind::MissingModel { provider: provider.as_str() }))
}

/// OpenAI's limit on stop sequences (StopConfiguration: 1 to 4).
fn check_stop(params: &Params) -> Result<(), Error> {
    if params.stop.len() > 4 {
        return Err(Error::new(ErrorKind::InvalidParam {
            name: "stop".to_owned(),
            value: serde_json::to_string(&params.stop).unwrap_or_default(),
            expected: "at most 4 stop sequences (OpenAI's limit)",
        }));
    }
    Ok(())
}

/// One turn of a conversation as Anthropic and Gemini see it.
struct Turn<'a> {
    /// `User` (a user message, or tool results and the user message right
    /// after them: one provider message), `Assistant`, or `System` (a
    /// system message inside `messages`: Anthropic, for the models that
    /// take one).
    role: Role,
    /// `(message index, message)`, in order.
    messages: Vec<(usize, &'a Message)>,
}

impl Turn<'_> {
    /// How many parts its messages hold: the capacity of its content.
    fn parts(&self) -> usize {
        self.messages.iter().map(|(_, message)| message.content.len()).sum()
    }
}

/// A conversation as providers with a separate system field see it: the
/// leading system text, then the turns, which must alternate from the user
/// (the pipeline's stage 4 made them so; an adapter checks, never merges).
struct Conversation<'a> {
    /// The text of the leading system messages, in order.
    system: Vec<&'a str>,
    /// The turns, roles alternating from the user (system turns aside).
    turns: Vec<Turn<'a>>,
    /// The participant names these providers cannot carry.
    dropped_names: Vec<Notice>,
}

/// Where a system message may stand after the conversation started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MidSystem {
    /// Nowhere (`reason` says why, for the error).
    Refused(&'static str),
    /// Right after a user turn, last or before an assistant turn, never
    /// beside another system message (Anthropic's rules).
    AfterUser,
}

impl<'a> Conversation<'a> {
    /// # Errors
    ///
    /// A system message after the first user or assistant message where
    /// `mid_system` refuses it, a non-text part in a system message, no
    /// user or assistant message, a first turn that is not the user's, or
    /// two neighbours of the same side (a tool message is on the user's).
    fn split(
        provider: Provider,
        messages: &'a [Message],
        mid_system: MidSystem,
    ) -> Result<Conversation<'a>, Error> {
        let mut system = Vec::new();
        let mut turns: Vec<Turn<'a>> = Vec::with_capacity(messages.len());
        let mut dropped_names = Vec::new();
        // The first message with its predecessor's side, reported once the
        // start of the conversation is known to be right.
        let mut repeated = None;
        for (index, message) in messages.iter().enumerate() {
            if let Some(name) = &message.name {
                dropped_names.push(Notice::NameNotCarried { message: index, name: name.clone() });
            }
            let texts = || {
                message.content.iter().map(move |part| match part {
                    Part::Text { text } => Ok(text.as_str()),
                    other => {
                        Err(unsupported(provider, index, other, "system text carries only text"))
                    }
                })
            };
            let side = |turns: &[Turn<'a>]| {
                turns.iter().rev().find(|turn| turn.role != Role::System).map(|turn| turn.role)
            };
            match message.role {
                Role::System if turns.is_empty() => {
                    for text in texts() {
                        system.push(text?);
                    }
                }
                Role::System => {
                    let misplaced = |reason| {
                        Error::new(ErrorKind::MisplacedSystem {
                            provider: provider.as_str(),
                            message: index,
                            reason,
                        })
                    };
                    match mid_system {
                        MidSystem::Refused(reason) => return Err(misplaced(reason)),
                        MidSystem::AfterUser => {
                            let after_user = turns.last().is_some_and(|t| t.role == Role::User);
                            let next = messages.get(index + 1).map(|m| m.role);
                            if !after_user || !matches!(next, None | Some(Role::Assistant)) {
                                return Err(misplaced(
                                    "a system message in the conversation must follow a user \
                                     message and be last or followed by an assistant message",
                                ));
                            }
                            for text in texts() {
                                text?;
                            }
                            turns.push(Turn {
                                role: Role::System,
                                messages: vec![(index, message)],
                            });
                        }
                    }
                }
                Role::User | Role::Tool => {
                    // Tool results, then the user's own message: one turn.
                    let joins = turns.last().is_some_and(|turn| {
                        turn.role == Role::User
                            && turn.messages.iter().all(|(_, m)| m.role == Role::Tool)
                    });
                    if joins {
                        if let Some(turn) = turns.last_mut() {
                            turn.messages.push((index, message));
                        }
                        continue;
                    }
                    if repeated.is_none() && side(&turns) == Some(Role::User) {
                        repeated = Some(index);
                    }
                    turns.push(Turn { role: Role::User, messages: vec![(index, message)] });
                }
                Role::Assistant => {
                    if repeated.is_none() && side(&turns) == Some(Role::Assistant) {
                        repeated = Some(index);
                    }
                    turns.push(Turn { role: Role::Assistant, messages: vec![(index, message)] });
                }
                other => return Err(unsupported_role(provider, index, other)),
            }
        }
        match turns.first() {
            None => Err(Error::new(ErrorKind::NoMessages { provider: provider.as_str() })),
            Some(first) if first.role != Role::User => {
                Err(Error::new(ErrorKind::FirstNotUser { provider: provider.as_str() }))
            }
            _ => match repeated {
                Some(message) => Err(Error::new(ErrorKind::NotAlternating {
                    provider: provider.as_str(),
                    message,
                })),
                None => Ok(Conversation { system, turns, dropped_names }),
            },
        }
    }
}

/// A notice per image whose detail level (OpenAI's `detail`) the provider
/// has no field for: `low` and `high` (`auto` is every provider's default).
fn detail_notices(messages: &[Message]) -> impl Iterator<Item = Notice> + '_ {
    messages.iter().enumerate().flat_map(|(index, message)| {
        message.content.iter().filter_map(move |part| match part {
            Part::Image { detail: Some(detail), .. }
            | Part::ImageUrl { detail: Some(detail), .. }
                if *detail != ImageDetail::Auto =>
            {
                Some(Notice::DetailNotCarried { message: index, detail: *detail })
            }
            _ => None,
        })
    })
}

/// Fails when `part` is an image or a file in a message that is not the
/// user's: OpenAI and Anthropic take media from the user only (`reason`
/// names what the provider calls them).
fn media_only_from_user(
    provider: Provider,
    message: usize,
    role: Role,
    part: &Part,
    reason: &'static str,
) -> Result<(), Error> {
    match part {
        Part::Image { .. } | Part::ImageUrl { .. } | Part::File { .. } if role != Role::User => {
            Err(unsupported(provider, message, part, reason))
        }
        _ => Ok(()),
    }
}

fn unsupported(provider: Provider, message: usize, part: &Part, reason: &'static str) -> Error {
    Error::new(ErrorKind::UnsupportedPart {
        provider: provider.as_str(),
        message,
        part: part.describe(),
        reason,
    })
}

/// A tool call outside an assistant message, or a tool result outside a
/// tool message.
fn misplaced_tool_part(provider: Provider, message: usize, part: &Part) -> Error {
    unsupported(
        provider,
        message,
        part,
        "tool calls belong in assistant messages and tool results in tool messages",
    )
}

/// The text of a tool result, for providers whose results are text: one
/// text part as it is, several as they are in order (`None`: a part that is
/// not text).
fn result_texts(content: &[Part]) -> Option<Vec<&str>> {
    content.iter().map(Part::as_text).collect()
}

/// A message in a role the provider's body has no place for (a
/// narrative's `context`).
fn unsupported_role(provider: Provider, message: usize, role: Role) -> Error {
    Error::new(ErrorKind::UnsupportedRole {
        from: provider.as_str(),
        message,
        role: role.as_str().to_owned(),
    })
}

fn base64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn providers_parse_and_print_their_names() {
        for provider in Provider::ALL {
            assert_eq!(provider.to_string().parse::<Provider>(), Ok(provider));
        }
        let err = "claude".parse::<Provider>().unwrap_err();
        assert_eq!(err.name(), "claude");
        assert_eq!(
            err.to_string(),
            "unknown provider `claude` (expected one of: openai, openai-responses, anthropic, gemini, completions)"
        );
        // Names are exact, as on the command line.
        assert!("OpenAI".parse::<Provider>().is_err());
    }

    fn conversation() -> impl Strategy<Value = Vec<Message>> {
        let role = prop_oneof![Just(Role::User), Just(Role::Assistant)];
        let turns = prop::collection::vec((role, "[a-z ]{0,8}"), 0..12);
        (prop::collection::vec("[a-z]{0,5}", 0..3), turns).prop_map(|(system, turns)| {
            let mut messages: Vec<Message> =
                system.into_iter().map(|text| Message::text(Role::System, text)).collect();
            messages.extend(turns.into_iter().map(|(role, text)| Message::text(role, text)));
            messages
        })
    }

    /// Every text of `messages`, in order.
    fn texts(messages: &[Message]) -> Vec<String> {
        messages.iter().filter_map(Message::plain_text).collect()
    }

    /// The first message whose role is its predecessor's, among the user
    /// and assistant messages.
    fn first_repeat(messages: &[Message]) -> Option<usize> {
        let turns: Vec<_> =
            messages.iter().enumerate().filter(|(_, m)| m.role != Role::System).collect();
        turns.windows(2).find(|pair| pair[0].1.role == pair[1].1.role).map(|pair| pair[1].0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Anthropic and Gemini bodies have one turn per message, alternating
        /// from the user, and carry every text of the input in order: an
        /// adapter never merges. What does not alternate is refused, the
        /// start of the conversation first.
        #[test]
        fn alternating_and_lossless(messages in conversation()) {
            let params = test_params();
            let first_turn = messages.iter().find(|m| m.role != Role::System).map(|m| m.role);
            for provider in [Provider::Anthropic, Provider::Gemini] {
                let built = provider.build(&messages, &params);
                let expected = match (first_turn, first_repeat(&messages)) {
                    (None, _) => Some(ErrorKind::NoMessages { provider: provider.as_str() }),
                    (Some(Role::User), None) => None,
                    (Some(Role::User), Some(message)) => {
                        Some(ErrorKind::NotAlternating { provider: provider.as_str(), message })
                    }
                    (Some(_), _) => Some(ErrorKind::FirstNotUser { provider: provider.as_str() }),
                };
                if let Some(kind) = expected {
                    prop_assert_eq!(built.unwrap_err().kind().clone(), kind);
                    continue;
                }
                let body = serde_json::to_value(built.unwrap().body).unwrap();
                let (turns_key, parts_key, role_names) = match provider {
                    Provider::Anthropic => ("messages", "content", ["user", "assistant"]),
                    _ => ("contents", "parts", ["user", "model"]),
                };
                let mut seen = Vec::new();
                let system = match provider {
                    Provider::Anthropic => body.get("system").cloned(),
                    _ => body.get("systemInstruction").and_then(|s| s.get("parts")).cloned(),
                };
                match system {
                    Some(serde_json::Value::String(text)) => seen.push(text),
                    Some(serde_json::Value::Array(parts)) => {
                        seen.extend(parts.iter().map(|p| p["text"].as_str().unwrap().to_owned()))
                    }
                    _ => {}
                }
                let turns = body[turns_key].as_array().unwrap();
                prop_assert_eq!(turns.len(), messages.iter().filter(|m| m.role != Role::System).count());
                for (i, turn) in turns.iter().enumerate() {
                    prop_assert_eq!(turn["role"].as_str().unwrap(), role_names[i % 2]);
                    for part in turn[parts_key].as_array().unwrap() {
                        seen.push(part["text"].as_str().unwrap().to_owned());
                    }
                }
                prop_assert_eq!(seen, texts(&messages));
            }
        }

        /// After the pipeline's one merge, every conversation that has a
        /// turn builds for the providers that require alternation.
        #[test]
        fn merged_conversations_build(messages in conversation()) {
            let params = test_params();
            let has_turn = messages.iter().any(|m| m.role != Role::System);
            let merged = crate::alternation::alternate(messages).unwrap();
            for provider in [Provider::Anthropic, Provider::Gemini] {
                let built = provider.build(&merged, &params);
                prop_assert_eq!(built.is_ok(), has_turn, "{:?}", built);
            }
        }
    }

    fn test_params() -> Params {
        Params { max_tokens: Some(16), model: Some("m".into()), ..Params::default() }
    }

    /// A ChatML template that prints tool calls and results (the template
    /// [`Provider::Completions`] renders through in the tests that run
    /// every provider).
    const CHATML: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n\
        {% if m.content %}{{ m.content }}{% endif %}\
        {% for c in m.tool_calls %}<tool_call>{{ c.function | tojson }}</tool_call>{% endfor %}\
        <|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

    /// `provider`'s body, with [`CHATML`] for [`Provider::Completions`].
    fn build(provider: Provider, messages: &[Message], params: &Params) -> Result<Encoded, Error> {
        let template =
            chat_template::ChatTemplate::from_jinja(CHATML, &chat_template::Options::default())
                .unwrap();
        provider.build_with_chat_template(messages, params, &template)
    }

    fn tool_conversation() -> Vec<Message> {
        let args = prompt_core::json::RawJson::parse(r#"{"city": "Paris"}"#).unwrap();
        vec![
            Message::text(Role::User, "Weather?"),
            Message {
                role: Role::Assistant,
                content: vec![Part::text("Checking."), Part::tool_call("c1", "weather", args)],
                name: None,
            },
            Message { role: Role::Tool, content: vec![Part::tool_result("c1", "18C")], name: None },
            Message::text(Role::User, "Thanks"),
        ]
    }

    #[test]
    fn tool_calls_and_results_in_each_shape() {
        let mut params = test_params();
        params.tools = crate::Tool::parse_list(r#"[{"name": "weather"}]"#).unwrap();
        let json = |provider: Provider| {
            serde_json::to_value(provider.build(&tool_conversation(), &params).unwrap().body)
                .unwrap()
        };
        let openai = json(Provider::OpenAi);
        assert_eq!(
            openai["messages"][1]["tool_calls"][0]["function"]["arguments"],
            r#"{"city": "Paris"}"#
        );
        assert_eq!(
            openai["messages"][2],
            serde_json::json!({"role": "tool", "content": "18C", "tool_call_id": "c1"})
        );
        let responses = json(Provider::OpenAiResponses);
        let kinds: Vec<_> =
            responses["input"].as_array().unwrap().iter().map(|i| i["type"].clone()).collect();
        assert_eq!(
            kinds,
            [
                serde_json::Value::Null,
                serde_json::Value::Null,
                "function_call".into(),
                "function_call_output".into(),
                serde_json::Value::Null
            ]
        );
        // Anthropic and Gemini: the result and the user's next message are one user turn.
        let anthropic = json(Provider::Anthropic);
        assert_eq!(anthropic["messages"].as_array().unwrap().len(), 3);
        assert_eq!(
            anthropic["messages"][1]["content"][1]["input"],
            serde_json::json!({"city": "Paris"})
        );
        assert_eq!(anthropic["messages"][2]["content"][0]["type"], "tool_result");
        assert_eq!(anthropic["messages"][2]["content"][1]["text"], "Thanks");
        let gemini = json(Provider::Gemini);
        assert_eq!(gemini["contents"][2]["parts"][0]["functionResponse"]["name"], "weather");
        assert_eq!(
            gemini["contents"][2]["parts"][0]["functionResponse"]["response"],
            serde_json::json!({"output": "18C"})
        );
        // Completions: the template read the call's arguments as an object.
        let completions = build(Provider::Completions, &tool_conversation(), &params).unwrap();
        assert_eq!(
            serde_json::to_value(completions.body).unwrap()["prompt"],
            "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\nChecking.<tool_call>\
             {\"name\": \"weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call><|im_end|>\n\
             <|im_start|>tool\n18C<|im_end|>\n<|im_start|>user\nThanks<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    /// Regression: an OpenAI tool message has no `name` field, and the
    /// chat adapter dropped a tool message's name without a word.
    #[test]
    fn a_tool_messages_name_is_a_notice_for_openai() {
        let mut messages = tool_conversation();
        messages[2].name = Some("weather-bot".into());
        for provider in [Provider::OpenAi, Provider::OpenAiResponses] {
            let notices = provider.build(&messages, &test_params()).unwrap().notices;
            assert_eq!(
                notices,
                [Notice::NameNotCarried { message: 2, name: "weather-bot".into() }],
                "{provider:?}"
            );
        }
    }

    #[test]
    fn results_answer_earlier_calls() {
        let mut messages = tool_conversation();
        messages.swap(1, 2);
        for provider in Provider::ALL {
            let err = build(provider, &messages, &test_params()).unwrap_err();
            assert_eq!(
                err.kind(),
                &ErrorKind::UnknownToolCallId { message: 1, call_id: "c1".into() }
            );
        }
        // A tool call in a user message, a result in an assistant one.
        let misplaced = [Message {
            role: Role::User,
            content: vec![Part::tool_call("c", "f", prompt_core::json::RawJson::empty_object())],
            name: None,
        }];
        for provider in Provider::ALL {
            let err = build(provider, &misplaced, &test_params()).unwrap_err();
            assert_eq!(err.kind().as_str(), "unsupported_part", "{err}");
        }
    }

    #[test]
    fn models_are_required_and_checked() {
        let messages = [Message::text(Role::User, "hi")];
        for provider in Provider::ALL {
            let params = Params { max_tokens: Some(16), ..Params::default() };
            let built = build(provider, &messages, &params);
            assert_eq!(built.is_err(), provider.model_in_body(), "{provider:?}");
            let params = Params { model: Some("claude-opus-4-8".into()), ..params };
            let notices = build(provider, &messages, &params).unwrap().notices;
            let mismatch = notices.iter().any(|n| n.as_str() == "model_family_mismatch");
            // A completions server serves any open model (`gpt-oss-20b`).
            let expected = !matches!(provider, Provider::Anthropic | Provider::Completions);
            assert_eq!(mismatch, expected, "{provider:?}");
        }
        let err = Provider::OpenAi.build(&messages, &Params::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "openai requires a model; set it with `/// param: model=...` or `--param model=...`"
        );
    }

    #[test]
    fn families_are_named_by_prefix_in_any_ascii_case() {
        let cases = [
            ("gpt-4o", Some("openai")),
            ("GPT-4o", Some("openai")),
            ("o3-mini", Some("openai")),
            ("O4", Some("openai")),
            ("ChatGPT-4o-latest", Some("openai")),
            ("Claude-Sonnet-4-5", Some("anthropic")),
            ("gemini-2.5-flash", Some("gemini")),
            ("GEMMA-3", Some("gemini")),
            ("o", None),
            ("gpt", None),
            ("", None),
            ("é-gpt-4o", None),
            ("llama-3", None),
        ];
        for (model, family) in cases {
            assert_eq!(Provider::family(model), family, "{model:?}");
        }
    }

    #[test]
    fn reasoning_maps_per_provider() {
        let messages = [Message::text(Role::User, "hi")];
        let params = |pairs: &[(&str, &str)]| {
            let mut params = Params::parse(pairs.iter().copied()).unwrap();
            params.model = Some("m".into());
            params
        };
        let body = |provider: Provider, p: &Params| {
            provider.build(&messages, p).map(|e| serde_json::to_value(e.body).unwrap())
        };
        let high = params(&[("reasoning_effort", "high"), ("max_tokens", "20000")]);
        assert_eq!(body(Provider::OpenAi, &high).unwrap()["reasoning_effort"], "high");
        assert_eq!(body(Provider::OpenAiResponses, &high).unwrap()["reasoning"]["effort"], "high");
        assert_eq!(body(Provider::Anthropic, &high).unwrap()["thinking"]["budget_tokens"], 16384);
        let gemini = body(Provider::Gemini, &high).unwrap();
        assert_eq!(gemini["generationConfig"]["thinkingConfig"]["thinkingBudget"], 24576);
        // The budget wins; it must stay below max_tokens, never lowered.
        let budget = params(&[
            ("reasoning_effort", "low"),
            ("thinking_budget", "3000"),
            ("max_tokens", "3000"),
        ]);
        let err = body(Provider::Anthropic, &budget).unwrap_err();
        assert_eq!(err.kind().as_str(), "invalid_param");
        assert!(err.to_string().contains("below `max_tokens`"), "{err}");
        let gemini = body(Provider::Gemini, &budget).unwrap();
        assert_eq!(gemini["generationConfig"]["thinkingConfig"]["thinkingBudget"], 3000);
        // OpenAI has no budget: an error alone, a notice beside an effort.
        let alone = params(&[("thinking_budget", "3000")]);
        assert_eq!(body(Provider::OpenAi, &alone).unwrap_err().kind().as_str(), "invalid_param");
        let notices = Provider::OpenAi.build(&messages, &budget).unwrap().notices;
        assert_eq!(notices, [Notice::UnsupportedParam { param: "thinking_budget".into() }]);
    }

    /// A conversation with no message at all is `no_messages` for every
    /// provider (OpenAI takes a system message alone; Anthropic and Gemini
    /// need a user or assistant message), never an empty body.
    #[test]
    fn no_message_at_all_is_no_messages_everywhere() {
        let params = test_params();
        for provider in Provider::CHAT {
            let err = provider.build(&[], &params).unwrap_err();
            assert_eq!(err.kind().as_str(), "no_messages", "{provider:?}");
        }
        assert_eq!(
            Provider::OpenAi.build(&[], &params).unwrap_err().to_string(),
            "openai requires at least one message"
        );
        let system = [Message::text(Role::System, "You are terse.")];
        assert!(Provider::OpenAi.build(&system, &params).is_ok());
        assert!(Provider::OpenAiResponses.build(&system, &params).is_ok());
        assert_eq!(
            Provider::Anthropic.build(&system, &params).unwrap_err().to_string(),
            "anthropic requires at least one user or assistant message"
        );
    }

    #[test]
    fn openai_takes_at_most_four_stops() {
        let messages = [Message::text(Role::User, "hi")];
        let mut params = test_params();
        params.stop = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        let err = Provider::OpenAi.build(&messages, &params).unwrap_err();
        assert_eq!(err.kind().as_str(), "invalid_param");
        params.stop.pop();
        assert!(Provider::OpenAi.build(&messages, &params).is_ok());
    }

    #[test]
    fn gemini_refuses_schema_keywords_it_cannot_express() {
        let messages = [Message::text(Role::User, "hi")];
        let mut params = test_params();
        params.response_schema = Some(
            crate::ResponseSchema::parse(
                r#"{"type": "object", "properties": {"not": {"type": "string"}, "x": {"anyOf": [{"not": {}}]}}}"#,
            )
            .unwrap(),
        );
        let err = Provider::Gemini.build(&messages, &params).unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::UnsupportedSchema {
                provider: "gemini",
                keyword: "not".into(),
                at: "/properties/x/anyOf/0".into()
            }
        );
        // A property named like a keyword is a name, not a keyword.
        for provider in [Provider::OpenAi, Provider::Anthropic] {
            assert!(provider.build(&messages, &params).is_ok());
        }
    }

    #[test]
    fn anthropic_takes_a_system_message_where_its_reference_says() {
        let messages = [
            Message::text(Role::User, "Hi"),
            Message::text(Role::System, "Answer in French."),
            Message::text(Role::Assistant, "Bonjour"),
        ];
        let mut params = test_params();
        let err = Provider::Anthropic.build(&messages, &params).unwrap_err();
        assert_eq!(err.kind().as_str(), "misplaced_system");
        assert!(err.to_string().contains("claude-opus-4-8"), "{err}");
        params.model = Some("claude-opus-4-8".into());
        let body =
            serde_json::to_value(Provider::Anthropic.build(&messages, &params).unwrap().body)
                .unwrap();
        assert_eq!(body["messages"][1]["role"], "system");
        // Not before a user message.
        let before_user =
            [messages[0].clone(), messages[1].clone(), Message::text(Role::User, "?")];
        let err = Provider::Anthropic.build(&before_user, &params).unwrap_err();
        assert_eq!(err.kind().as_str(), "misplaced_system");
    }
}
