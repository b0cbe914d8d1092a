//! The one error type of the crate: an opaque struct over a
//! `#[non_exhaustive]` kind.

use std::fmt;

/// Why a request could not be built.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    kind: Box<ErrorKind>,
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
    },
    /// The conversation does not start with a user message, and the provider
    /// requires it (make it alternate first).
    FirstNotUser {
        /// The provider.
        provider: &'static str,
    },
    /// No message besides system messages.
    NoMessages {
        /// The provider.
        provider: &'static str,
    },
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind: Box::new(kind) }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl ErrorKind {
    /// The snake_case name of the kind, as the command line reports it.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::InvalidParam { .. } => "invalid_param",
            ErrorKind::ParamOutOfRange { .. } => "param_out_of_range",
            ErrorKind::MissingParam { .. } => "missing_param",
            ErrorKind::UnsupportedPart { .. } => "unsupported_part",
            ErrorKind::MisplacedSystem { .. } => "misplaced_system",
            ErrorKind::FirstNotUser { .. } => "first_not_user",
            ErrorKind::NoMessages { .. } => "no_messages",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.kind {
            ErrorKind::InvalidParam { name, value, expected } => {
                write!(f, "parameter `{name}` is `{value}`, expected {expected}")
            }
            ErrorKind::ParamOutOfRange { provider, name, value, min, max } => {
                write!(f, "{provider} accepts `{name}` from {min} to {max}, not {value}")
            }
            ErrorKind::MissingParam { provider, name } => {
                write!(f, "{provider} requires `{name}`; add `/// param: {name}=...`")
            }
            ErrorKind::UnsupportedPart { provider, message, part, reason } => {
                write!(f, "message {message}: {provider} cannot carry a {part} part: {reason}")
            }
            ErrorKind::MisplacedSystem { provider, message } => write!(
                f,
                "message {message}: {provider} takes system text only before the conversation starts"
            ),
            ErrorKind::FirstNotUser { provider } => {
                write!(f, "{provider} requires the conversation to start with a user message")
            }
            ErrorKind::NoMessages { provider } => {
                write!(f, "{provider} requires at least one user or assistant message")
            }
        }
    }
}

impl std::error::Error for Error {}
