//! The one error type of the crate, with its snake_case kinds.

use std::fmt;

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::{Diagnostic, Origin};
use prompt_core::text::{Span, escape_controls};

/// Why a chat template could not be loaded or applied.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A JSON input (`tokenizer_config.json`, `chat_template.json`, a
    /// conversation) is not strict JSON. Kind `invalid_json`, or
    /// `memory_limit` when its values would take more than the engine's
    /// memory limit (found on the text, before any is built).
    Json(prompt_core::json::JsonError),
    /// A config file is JSON of the wrong shape: not an object, a
    /// `chat_template` that is neither a string nor a list of
    /// `{"name", "template"}` objects, a special token that is neither a
    /// string nor a `{"content": ...}` object. Kind `invalid_config`.
    InvalidConfig(String),
    /// The config has no `chat_template`. Kind `no_chat_template`.
    NoChatTemplate,
    /// No template of this name (`--name`); `available` lists the names
    /// the config has. Kind `unknown_template_name`.
    UnknownTemplateName {
        /// The name asked for.
        name: String,
        /// The names the config has, in its order.
        available: Vec<String>,
    },
    /// A conversation of the wrong shape (`messages` missing or not a
    /// list, `tools` not a list, `add_generation_prompt` not a boolean).
    /// Kind `invalid_conversation`.
    InvalidConversation(String),
    /// The engine refused the template, or the template raised
    /// (`template_raised`, from `raise_exception`): the engine's kind,
    /// position and message.
    Template(minijinja_brackets::Error),
    /// A special token of the model came out of data: its bytes overlap a
    /// byte of the output that came from a message, a tool result or a
    /// document. Kind `special_token_in_data`.
    SpecialTokenInData {
        /// The index of the message the data bytes came from: the first
        /// that spells the token in one of its fields, or, for a token the
        /// template made from its own text and a field's bytes, the first
        /// whose field holds the value printed there; `None` when no
        /// message holds them (documents).
        message: Option<usize>,
        /// The field of that message, as a path in it: `content`, `role`,
        /// `tool_calls[0].function.arguments.city`.
        field: Option<String>,
        /// The token.
        token: String,
        /// The bytes of the token that the field printed: the whole token
        /// when the field spells it, a part (`assistant` of
        /// `<|assistant|>`) when the token is made in the output from the
        /// field's bytes and other text (the template's own, or another
        /// field's).
        data: String,
        /// Where it is in the output (a half-open byte range).
        at: std::ops::Range<usize>,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json(err) => write!(f, "{err}"),
            Error::InvalidConfig(message) => write!(f, "invalid chat template config: {message}"),
            Error::NoChatTemplate => f.write_str("the config has no `chat_template`"),
            Error::UnknownTemplateName { name, available } => {
                write!(f, "no chat template named `{name}`")?;
                if available.is_empty() {
                    f.write_str(" (the config has one unnamed template: `default`)")
                } else {
                    write!(f, " (the config has: {})", available.join(", "))
                }
            }
            Error::InvalidConversation(message) => write!(f, "invalid conversation: {message}"),
            Error::Template(err) => write!(f, "{err}"),
            Error::SpecialTokenInData { message, field, token, at, .. } => {
                write!(
                    f,
                    "special token `{}` in data at output bytes {}..{}",
                    escape_controls(token),
                    at.start,
                    at.end
                )?;
                match (message, field) {
                    (Some(index), Some(field)) => {
                        write!(f, " (message {index}, `{}`)", escape_controls(field))
                    }
                    (Some(index), None) => write!(f, " (message {index})"),
                    _ => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[kind]: message`, and for a JSON
    /// input or a template its position and the line it is on (name the
    /// file with [`Annotated::with_origin`]).
    pub fn annotated(&self) -> Annotated {
        match self {
            Error::Json(err) => err.annotated(),
            Error::Template(err) => err.annotated(),
            _ => Annotated::of(self, None),
        }
    }

    /// The snake_case kind, as the command-line contract lists it.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Json(err) => Diagnostic::kind(err),
            Error::InvalidConfig(_) => "invalid_config",
            Error::NoChatTemplate => "no_chat_template",
            Error::UnknownTemplateName { .. } => "unknown_template_name",
            Error::InvalidConversation(_) => "invalid_conversation",
            Error::Template(err) => err.kind().as_str(),
            Error::SpecialTokenInData { .. } => "special_token_in_data",
        }
    }
}

impl Diagnostic for Error {
    fn kind(&self) -> &'static str {
        Error::kind(self)
    }

    fn span(&self) -> Option<Span> {
        match self {
            Error::Json(err) => Some(Span::from(err.span())),
            Error::Template(err) => Diagnostic::span(err),
            _ => None,
        }
    }

    fn origin(&self) -> Origin {
        match self {
            Error::Template(err) => Diagnostic::origin(err),
            _ => Origin::Input,
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            Error::Template(err) => Diagnostic::help(err),
            Error::SpecialTokenInData { message, field, token, data, .. } => {
                let (token, data) = (escape_controls(token), escape_controls(data));
                let place = match (message, field) {
                    (Some(index), Some(field)) => {
                        let dot = if field.starts_with('[') { "" } else { "." };
                        format!("`messages[{index}]{dot}{}`", escape_controls(field))
                    }
                    (Some(index), None) => format!("message {index}"),
                    _ => "the data".to_owned(),
                };
                let why = if data == token {
                    format!(
                        "{place} spells the model's control token `{token}`, so a message's text \
                         could open a turn of its own"
                    )
                } else {
                    format!(
                        "the control token `{token}` is made in the output with the bytes \
                         `{data}` of {place} (as `'<|' + message['role'] + '|>'` makes one), and \
                         every field of a message, its role too, is data"
                    )
                };
                Some(format!(
                    "{why}; if the messages are your application's own, not a user's, allow \
                     special tokens: `--allow-special-tokens` (`allow_special_tokens=True` in \
                     Python, `allowSpecialTokens: true` in JavaScript)"
                ))
            }
            _ => None,
        }
    }
}

impl From<prompt_core::json::JsonError> for Error {
    fn from(err: prompt_core::json::JsonError) -> Error {
        Error::Json(err)
    }
}

impl From<minijinja_brackets::Error> for Error {
    fn from(err: minijinja_brackets::Error) -> Error {
        Error::Template(err)
    }
}
