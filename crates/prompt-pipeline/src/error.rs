//! The one error type of the crate: an opaque struct over a
//! `#[non_exhaustive]` kind, with where the problem is.
//!
//! Every stage's own error is wrapped as it is (its kind and message kept),
//! and its span is translated to the text the author can open: a template
//! error in a prompt with `///` comments points into the prompt file, not
//! into the comment-free text the template engine saw. The error keeps the
//! text its span points into (shared, never copied per row), so lines and
//! columns are computed when it is shown, by `prompt_core`, the way every
//! other error of the suite is shown.

use std::fmt;
use std::sync::Arc;

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::{Diagnostic, Origin, Report};
use prompt_core::text::{Position, Span};

/// Why a request could not be built.
///
/// A [`Diagnostic`]: its kind, message, byte span and the [`Origin`] the
/// span points into: [`Origin::Input`] (the prompt file as the author wrote
/// it, comments included), [`Origin::Rendered`] (the narrative the template
/// rendered, which no file holds) or [`Origin::Transcript`] (the JSON
/// transcript given beside the prompt); an error of a template the prompt
/// loaded keeps that template's [`Origin::Named`]. [`Error::text`] is the
/// text of that origin, when the pipeline read it, so
/// [`Error::report`] places the error with no text at hand.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    repr: Box<Repr>,
}

#[derive(Debug, Clone, PartialEq)]
struct Repr {
    kind: ErrorKind,
    /// The offending bytes of `text`.
    span: Option<Span>,
    origin: Origin,
    /// The text of `origin`, when the pipeline read it.
    text: Option<Arc<str>>,
    /// A template error's chain of loading statements, placed in the
    /// files as written (the wrapped error counts lines of the texts the
    /// engine compiled, comments stripped).
    help: Option<String>,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A known parameter's value is not of its type, e.g.
    /// `/// param: temperature=warm`.
    InvalidParam {
        /// The parameter as written.
        name: String,
        /// Its value as written.
        value: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A parameter is outside the range the provider accepts, e.g.
    /// `temperature=1.5` for Anthropic (0 to 1).
    ParamOutOfRange {
        /// The provider.
        provider: &'static str,
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The smallest accepted value.
        min: f64,
        /// The largest accepted value.
        max: f64,
    },
    /// The provider requires a parameter that was not given, e.g. Anthropic's
    /// `max_tokens`.
    MissingParam {
        /// The provider.
        provider: &'static str,
        /// The parameter.
        name: &'static str,
    },
    /// A content part the provider cannot carry, e.g. an audio file for
    /// Anthropic, or an image inside a system message.
    UnsupportedPart {
        /// The provider.
        provider: &'static str,
        /// The index of the message in the input.
        message: usize,
        /// The part, e.g. `file (audio/mpeg)`.
        part: String,
        /// Why it cannot be carried.
        reason: &'static str,
    },
    /// A system message after the conversation started, which a provider
    /// with a separate system field cannot place.
    MisplacedSystem {
        /// The provider.
        provider: &'static str,
        /// The index of the message in the input.
        message: usize,
        /// Where the provider takes system text.
        reason: &'static str,
    },
    /// The conversation does not start with a user message, and the provider
    /// requires it (make it alternate first).
    FirstNotUser {
        /// The provider.
        provider: &'static str,
    },
    /// Two neighbouring messages have the same role, and the provider
    /// requires user and assistant turns to alternate (the pipeline merges
    /// them before the provider stage; a caller of
    /// [`crate::Provider::build`] must too, e.g. with transcript-flip's
    /// `ensure_alternating`).
    NotAlternating {
        /// The provider.
        provider: &'static str,
        /// The index of the message with its predecessor's role.
        message: usize,
    },
    /// A `/// tools:` or `/// response_schema:` directive naming a file in
    /// a prompt that has no directory to read it from (standard input, a
    /// `Source::new` text): the host gives the declaration itself
    /// (`--tools FILE`, `--response-schema FILE`).
    NoDirectory {
        /// The directive's key: `tools` or `response_schema`.
        directive: &'static str,
        /// The file it names.
        file: String,
    },
    /// No message at all (the OpenAI targets, which take a system message
    /// alone), or none besides system messages (Anthropic, Gemini).
    NoMessages {
        /// The provider.
        provider: &'static str,
    },
    /// The bracket template failed to compile or render, e.g.
    /// `[[ name -> shout ]]` with no `shout` filter. The kind names the
    /// template error (`syntax_error`, `unknown_filter`, ...).
    Template(minijinja_brackets::Error),
    /// The narrative could not be segmented or its embeds resolved, e.g.
    /// `@chart.png` with no such attachment. The kind names the narrative
    /// error (`missing_entry`, `invalid_archive`, ...).
    Narrative(narrative_segment::Error),
    /// The transcript could not be read or flipped, e.g. a row without a
    /// `speaker`. The kind names the transcript error.
    Transcript(transcript_flip::Error),
    /// A message has a role no provider request carries yet, e.g. a
    /// `## tool` turn in a narrative, or a narrative's `context` preamble
    /// kept as such.
    UnsupportedRole {
        /// Who refused it: `narrative` (the pipeline, at the turn), or the
        /// provider (a message given to [`crate::Provider::build`]).
        from: &'static str,
        /// The index of the message.
        message: usize,
        /// The role as written.
        role: String,
    },
    /// A tool declaration the suite cannot send, e.g. two tools with one
    /// name, a name with a space, or a tool named `auto`.
    InvalidTool {
        /// The tool's name (or `#N`, its index, before the name is known).
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// The tool choice names a tool that is not declared (or asks for one,
    /// `required`, when none is).
    UnknownTool {
        /// The choice as written.
        name: String,
    },
    /// A response schema that is not one strict JSON object.
    InvalidSchema {
        /// What is wrong.
        reason: String,
    },
    /// A response-schema keyword the provider cannot express, e.g. `not`
    /// for Gemini: refused, never dropped.
    UnsupportedSchema {
        /// The provider.
        provider: &'static str,
        /// The keyword.
        keyword: String,
        /// Where in the schema, as a JSON pointer.
        at: String,
    },
    /// OpenAI and Anthropic bodies name their model.
    MissingModel {
        /// The provider.
        provider: &'static str,
    },
    /// A tool result answers an id that no call of the assistant message
    /// right before its tool messages has.
    UnknownToolCallId {
        /// The index of the message holding the result.
        message: usize,
        /// The id it names.
        call_id: String,
    },
    /// A tool call with the id of an earlier call, or a second result for
    /// one call: results could not be told apart (Gemini would give one
    /// call's result under the other's name; Anthropic refuses it).
    DuplicateToolCallId {
        /// The index of the message holding the repeat.
        message: usize,
        /// The id.
        call_id: String,
        /// The index of the message holding the first call (a call), or the
        /// call the result answers a second time (a result).
        first: usize,
        /// Whether the repeat is a result (else a call).
        result: bool,
    },
    /// A tool call with no result in the tool messages right after its
    /// assistant message: another message comes first, or the conversation
    /// ends.
    UnansweredToolCall {
        /// The index of the assistant message holding the call.
        message: usize,
        /// The call's id.
        call_id: String,
        /// The index of the message that came before the result; `None`
        /// when the conversation ends first.
        next: Option<usize>,
    },
    /// A tool call whose function name breaks the providers' rule (1 to 64
    /// ASCII letters, digits, `_` or `-`).
    InvalidToolName {
        /// The provider.
        provider: &'static str,
        /// The index of the message holding the call.
        message: usize,
        /// The name.
        name: String,
    },
    /// A tool call whose id breaks the provider's documented rule (an
    /// Anthropic id with a `.`, a Responses id over 64 characters).
    InvalidToolCallId {
        /// The provider.
        provider: &'static str,
        /// The index of the message holding the call.
        message: usize,
        /// The id.
        call_id: String,
        /// The provider's rule.
        rule: &'static str,
    },
    /// [`crate::Provider::Completions`] renders the conversation through
    /// the model's chat template, and none was given
    /// ([`crate::PipelineBuilder::chat_template`],
    /// [`crate::Provider::build_with_chat_template`]).
    MissingChatTemplate,
    /// The chat template of [`crate::Provider::Completions`] refused the
    /// conversation: the template raised (`template_raised`), the engine
    /// refused it (`undefined_error`, `out_of_fuel`, ...), or a special
    /// token of the model came out of a message (`special_token_in_data`,
    /// its message index in the conversation built). The kind is the chat
    /// template's own.
    ChatTemplate(chat_template::Error),
    /// A request body to convert ([`crate::ChatBody`]) that is not strict
    /// JSON (a syntax error, a repeated key).
    InvalidJson {
        /// What the JSON reader said.
        reason: String,
    },
    /// A request body to convert with a key its API does not document, a
    /// value of the wrong type, or what the neutral vocabulary cannot hold
    /// (an image by a URL that is not `https://`, an uploaded file's id, a
    /// deprecated field).
    InvalidRequest {
        /// The value, as a JSON pointer (`/messages/2/content/0`).
        at: String,
        /// What is wrong.
        reason: String,
    },
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error {
            repr: Box::new(Repr {
                kind,
                span: None,
                origin: Origin::Input,
                text: None,
                help: None,
            }),
        }
    }

    /// The error placed at byte `offset` of `text`, the text of `origin`
    /// (an empty span: the snippet is the rest of that line).
    pub(crate) fn at(self, origin: Origin, text: &Arc<str>, offset: usize) -> Error {
        self.spanning(origin, text, Span::at(offset))
    }

    /// The error at `span` of `text`, the text of `origin` (the snippet is
    /// the span's bytes on its first line).
    pub(crate) fn spanning(mut self, origin: Origin, text: &Arc<str>, span: Span) -> Error {
        self.repr.span = Some(span);
        self.repr.origin = origin;
        self.repr.text = Some(Arc::clone(text));
        self
    }

    /// The error at `span` of a text the pipeline was not given (a
    /// template loaded by name).
    pub(crate) fn named(mut self, origin: Origin, span: Span) -> Error {
        self.repr.span = Some(span);
        self.repr.origin = origin;
        self
    }

    /// The help line(s) to show instead of the wrapped error's own.
    pub(crate) fn with_help(mut self, help: Option<String>) -> Error {
        self.repr.help = help;
        self
    }

    /// [`Error::at`] when there is a place.
    pub(crate) fn at_some(self, place: Option<(Origin, &Arc<str>, usize)>) -> Error {
        match place {
            Some((origin, text, offset)) => self.at(origin, text, offset),
            None => self,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.repr.kind
    }

    /// The text [`Diagnostic::span`] points into (the text of
    /// [`Diagnostic::origin`]), when the pipeline read it: the prompt, the
    /// rendered narrative or the transcript. `None` when the error has no
    /// span, or its span is in a text the pipeline was not given (a
    /// template loaded by name).
    pub fn text(&self) -> Option<&str> {
        self.repr.text.as_deref()
    }

    /// The error as data, its line, column (characters) and snippet
    /// computed from [`Error::text`]: what `--error-format json` prints.
    pub fn report(&self) -> Report {
        Report::new(self, self.text())
    }

    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[kind]: message`, its position
    /// and the line of [`Error::text`] with the span underlined, and the
    /// help (a suggestion, or the statements that loaded a template). An
    /// error in a template loaded by name, whose text the pipeline was not
    /// given, names it without a position. The origin is named as
    /// [`Diagnostic::origin`] says (the prompt is `<input>`); name it with
    /// [`Annotated::with_origin`].
    pub fn annotated(&self) -> Annotated {
        let annotated = Annotated::of(self, self.text());
        match self.repr.origin {
            Origin::Rendered if annotated.line().is_some() => annotated.with_origin("<rendered>"),
            Origin::Transcript if annotated.line().is_some() => {
                annotated.with_origin("<transcript>")
            }
            _ => annotated,
        }
    }

    /// The 1-based line and column (characters) of the problem in
    /// [`Error::text`], computed on each call.
    pub fn position(&self) -> Option<Position> {
        let (span, text) = self.repr.span.zip(self.text())?;
        Some(prompt_core::text::position(text, span.start))
    }

    /// The 1-based line of the problem, when it has one ([`Error::position`]).
    pub fn line(&self) -> Option<usize> {
        self.position().map(|p| p.line)
    }

    /// The 1-based column (in characters) of the problem, when it has one.
    pub fn column(&self) -> Option<usize> {
        self.position().map(|p| p.column)
    }

    /// The offending text (`prompt_core::text::snippet`: the rest of its
    /// line, at most 40 characters), when the error has a position.
    pub fn snippet(&self) -> Option<&str> {
        let (span, text) = self.repr.span.zip(self.text())?;
        Some(prompt_core::text::snippet(text, span))
    }

    /// The message for people, without the position.
    pub fn message(&self) -> String {
        match &self.repr.kind {
            ErrorKind::InvalidParam { name, value, expected } => {
                format!("parameter `{name}` is `{value}`, expected {expected}")
            }
            ErrorKind::ParamOutOfRange { provider, name, value, min, max } => {
                format!("{provider} accepts `{name}` from {min} to {max}, not {value}")
            }
            ErrorKind::MissingParam { provider, name } => {
                format!("{provider} requires `{name}`; add `/// param: {name}=...`")
            }
            ErrorKind::UnsupportedPart { provider, message, part, reason } => {
                format!("message {message}: {provider} cannot carry a {part} part: {reason}")
            }
            ErrorKind::MisplacedSystem { provider, message, reason } => {
                format!("message {message}: {provider} cannot place this system message: {reason}")
            }
            ErrorKind::FirstNotUser { provider } => {
                format!("{provider} requires the conversation to start with a user message")
            }
            ErrorKind::NotAlternating { provider, message } => format!(
                "message {message}: {provider} requires user and assistant turns to alternate, \
                 and this one has the role of the one before"
            ),
            ErrorKind::NoDirectory { directive, file } => {
                let flag = directive.replace('_', "-");
                format!(
                    "`/// {directive}: {file}` names a file, and this prompt (from standard input, or \
                     given as text) has no directory to read it from: pass `--{flag} {file}` instead"
                )
            }
            ErrorKind::NoMessages { provider: provider @ ("openai" | "openai-responses") } => {
                format!("{provider} requires at least one message")
            }
            ErrorKind::NoMessages { provider } => {
                format!("{provider} requires at least one user or assistant message")
            }
            ErrorKind::Template(err) => format!("template: {}", err.message()),
            ErrorKind::Narrative(err) => format!("narrative: {}", err.message()),
            ErrorKind::Transcript(err) => format!("transcript: {}", err.message()),
            ErrorKind::UnsupportedRole { from, message, role } => format!(
                "{from} message {message}: the role `{role}` has no place in a provider request"
            ),
            ErrorKind::InvalidTool { tool, reason } if tool.is_empty() => {
                format!("tools: {reason}")
            }
            ErrorKind::InvalidTool { tool, reason } => format!("tool `{tool}`: {reason}"),
            ErrorKind::UnknownTool { name } => {
                format!("the tool choice `{name}` names no declared tool")
            }
            ErrorKind::InvalidSchema { reason } => format!("response schema: {reason}"),
            ErrorKind::UnsupportedSchema { provider, keyword, at } => format!(
                "{provider} cannot express the response-schema keyword `{keyword}` (at `{at}`)"
            ),
            ErrorKind::MissingModel { provider } => format!(
                "{provider} requires a model; set it with `/// param: model=...` or `--param model=...`"
            ),
            ErrorKind::UnknownToolCallId { message, call_id } => format!(
                "message {message}: the tool result answers `{}`, which no call of the assistant message right before it has",
                shown(call_id)
            ),
            ErrorKind::DuplicateToolCallId { message, call_id, first, result: false }
                if first == message =>
            {
                format!(
                    "message {message}: two tool calls of this message have the id `{}`; each call has its own id",
                    shown(call_id)
                )
            }
            ErrorKind::DuplicateToolCallId { message, call_id, first, result: false } => format!(
                "message {message}: the tool call id `{}` is already the id of a call in message {first}; each call has its own id",
                shown(call_id)
            ),
            ErrorKind::DuplicateToolCallId { message, call_id, first, result: true } => format!(
                "message {message}: a second result answers `{}` (the call in message {first}); each call has one result",
                shown(call_id)
            ),
            ErrorKind::UnansweredToolCall { message, call_id, next: Some(next) } => format!(
                "message {message}: the tool call `{}` has no result before message {next}; each call is answered by a tool message right after its assistant message",
                shown(call_id)
            ),
            ErrorKind::UnansweredToolCall { message, call_id, next: None } => format!(
                "message {message}: the tool call `{}` has no result and the conversation ends; answer it with a tool message after its assistant message",
                shown(call_id)
            ),
            ErrorKind::InvalidToolName { provider, message, name } => format!(
                "message {message}: the tool call names the function `{}`, and {provider} takes names of 1 to 64 ASCII letters, digits, `_` or `-`",
                shown(name)
            ),
            ErrorKind::InvalidToolCallId { provider: _, message, call_id, rule } => {
                format!("message {message}: the tool call id `{}`: {rule}", shown(call_id))
            }
            ErrorKind::MissingChatTemplate => "completions renders the conversation through the \
                 model's chat template, and none was given; pass `--chat-template FILE` (a \
                 `.jinja`, `chat_template.json` or `tokenizer_config.json`)"
                .to_owned(),
            ErrorKind::ChatTemplate(err) => format!("chat template: {err}"),
            ErrorKind::InvalidJson { reason } => reason.clone(),
            ErrorKind::InvalidRequest { at, reason } => format!("`{at}`: {reason}"),
        }
    }
}

impl ErrorKind {
    /// The snake_case name of the kind, as the command line reports it. A
    /// wrapped stage error gives its own kind's name (`syntax_error`,
    /// `missing_entry`, `missing_columns`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::InvalidParam { .. } => "invalid_param",
            ErrorKind::ParamOutOfRange { .. } => "param_out_of_range",
            ErrorKind::MissingParam { .. } => "missing_param",
            ErrorKind::UnsupportedPart { .. } => "unsupported_part",
            ErrorKind::MisplacedSystem { .. } => "misplaced_system",
            ErrorKind::FirstNotUser { .. } => "first_not_user",
            ErrorKind::NotAlternating { .. } => "not_alternating",
            ErrorKind::NoMessages { .. } => "no_messages",
            ErrorKind::NoDirectory { .. } => "no_directory",
            ErrorKind::Template(err) => err.kind().as_str(),
            ErrorKind::Narrative(err) => err.kind().as_str(),
            ErrorKind::Transcript(err) => err.kind().as_str(),
            ErrorKind::UnsupportedRole { .. } => "unsupported_role",
            ErrorKind::InvalidTool { .. } => "invalid_tool",
            ErrorKind::UnknownTool { .. } => "unknown_tool",
            ErrorKind::InvalidSchema { .. } => "invalid_schema",
            ErrorKind::UnsupportedSchema { .. } => "unsupported_schema",
            ErrorKind::MissingModel { .. } => "missing_model",
            ErrorKind::UnknownToolCallId { .. } => "unknown_tool_call_id",
            ErrorKind::DuplicateToolCallId { .. } => "duplicate_tool_call_id",
            ErrorKind::UnansweredToolCall { .. } => "unanswered_tool_call",
            ErrorKind::InvalidToolName { .. } => "invalid_tool_name",
            ErrorKind::InvalidToolCallId { .. } => "invalid_tool_call_id",
            ErrorKind::MissingChatTemplate => "missing_chat_template",
            ErrorKind::ChatTemplate(err) => err.kind(),
            ErrorKind::InvalidJson { .. } => "invalid_json",
            ErrorKind::InvalidRequest { .. } => "invalid_request",
        }
    }

    /// The index of the message the error is about, when it names one.
    pub(crate) fn message_index(&self) -> Option<usize> {
        match self {
            ErrorKind::UnsupportedPart { message, .. }
            | ErrorKind::MisplacedSystem { message, .. }
            | ErrorKind::NotAlternating { message, .. }
            | ErrorKind::UnsupportedRole { message, .. }
            | ErrorKind::UnknownToolCallId { message, .. }
            | ErrorKind::DuplicateToolCallId { message, .. }
            | ErrorKind::UnansweredToolCall { message, .. }
            | ErrorKind::InvalidToolName { message, .. }
            | ErrorKind::InvalidToolCallId { message, .. } => Some(*message),
            ErrorKind::ChatTemplate(chat_template::Error::SpecialTokenInData {
                message, ..
            }) => *message,
            _ => None,
        }
    }

    /// The stage that failed: `params`, `template`, `narrative`,
    /// `transcript`, `conversion` (a narrative message in a role no request
    /// carries), `request` (a request body [`crate::ChatBody`] read) or
    /// `provider`.
    pub fn stage(&self) -> &'static str {
        match self {
            ErrorKind::InvalidParam { .. }
            | ErrorKind::InvalidTool { .. }
            | ErrorKind::UnknownTool { .. }
            | ErrorKind::InvalidSchema { .. } => "params",
            ErrorKind::InvalidJson { .. } | ErrorKind::InvalidRequest { .. } => "request",
            ErrorKind::Template(_) => "template",
            ErrorKind::Narrative(_) => "narrative",
            ErrorKind::Transcript(_) => "transcript",
            ErrorKind::UnsupportedRole { from: "narrative", .. } => "conversion",
            _ => "provider",
        }
    }
}

/// An id or a name from the input as a message shows it: at most 64
/// characters, then `...` (a hostile id may be megabytes long).
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 64;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{}...", &text[..end]).into(),
        None => text.into(),
    }
}

/// The message alone, without the position (the [`Diagnostic`] contract:
/// [`Error::report`] places it).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl Diagnostic for Error {
    fn kind(&self) -> &'static str {
        self.repr.kind.as_str()
    }

    fn span(&self) -> Option<Span> {
        self.repr.span
    }

    fn origin(&self) -> Origin {
        self.repr.origin.clone()
    }

    /// A wrapped stage error's help (a template's suggestion, or the chain
    /// of statements that loaded it).
    fn help(&self) -> Option<String> {
        if let Some(help) = &self.repr.help {
            return Some(help.clone());
        }
        match &self.repr.kind {
            ErrorKind::Template(err) => Diagnostic::help(err),
            ErrorKind::Narrative(err) => Diagnostic::help(err),
            ErrorKind::Transcript(err) => Diagnostic::help(err),
            ErrorKind::ChatTemplate(err) => Diagnostic::help(err),
            _ => None,
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.repr.kind {
            ErrorKind::Template(err) => Some(err),
            ErrorKind::Narrative(err) => Some(err),
            ErrorKind::Transcript(err) => Some(err),
            ErrorKind::ChatTemplate(err) => Some(err),
            _ => None,
        }
    }
}

/// A template error without a position in the prompt file (the pipeline
/// itself places the ones it meets).
impl From<minijinja_brackets::Error> for Error {
    fn from(err: minijinja_brackets::Error) -> Error {
        Error::new(ErrorKind::Template(err))
    }
}

/// A narrative error, e.g. from [`narrative_segment::Attachments::directory`].
impl From<narrative_segment::Error> for Error {
    fn from(err: narrative_segment::Error) -> Error {
        Error::new(ErrorKind::Narrative(err))
    }
}

/// A transcript error, e.g. from [`transcript_flip::flip`].
impl From<transcript_flip::Error> for Error {
    fn from(err: transcript_flip::Error) -> Error {
        Error::new(ErrorKind::Transcript(err))
    }
}
