//! Provider adapters: the neutral [`Message`]s and [`Params`] turned into the
//! exact request body each provider documents.
//!
//! Each adapter is a pure function from messages and parameters to a typed,
//! serde-serializable body. What a provider cannot carry (a part type, a
//! system message in mid-conversation, an out-of-range parameter) is an
//! [`Error`], never dropped; parameters it does not know are reported as
//! [`Notice`]s (OpenAI alone receives unknown parameters as they are).

pub mod anthropic;
pub mod gemini;
pub mod openai;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::message::{ContentPart, Message, Role};
use crate::params::Params;

/// The providers the suite builds requests for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI chat completions (`POST /v1/chat/completions`).
    OpenAi,
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
    /// Google Gemini `generateContent`.
    Gemini,
}

impl Provider {
    /// The provider's name as the command line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// Builds the request body for `messages` with `params`.
    ///
    /// # Errors
    ///
    /// See each adapter: [`openai::build`], [`anthropic::build`],
    /// [`gemini::build`].
    pub fn build(self, messages: &[Message], params: &Params) -> Result<Encoded, Error> {
        match self {
            Provider::OpenAi => openai::build(messages, params)
                .map(|(body, notices)| Encoded { body: Request::OpenAi(body), notices }),
            Provider::Anthropic => anthropic::build(messages, params)
                .map(|(body, notices)| Encoded { body: Request::Anthropic(body), notices }),
            Provider::Gemini => gemini::build(messages, params)
                .map(|(body, notices)| Encoded { body: Request::Gemini(body), notices }),
        }
    }
}

/// A request body of one of the providers; serializes to exactly that body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Request {
    /// An OpenAI chat-completions body.
    OpenAi(openai::ChatRequest),
    /// An Anthropic Messages body.
    Anthropic(anthropic::MessagesRequest),
    /// A Gemini `generateContent` body.
    Gemini(gemini::GenerateContentRequest),
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

/// Something the caller wrote that the provider's body does not carry, so
/// that nothing is left out without a word.
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
    /// A parameter the suite does not know; OpenAI receives it as written,
    /// the other providers do not.
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
}

impl Notice {
    /// The snake_case kind: `unsupported_param`, `unknown_param`,
    /// `name_not_carried` or `duplicate_param`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Notice::UnsupportedParam { .. } => "unsupported_param",
            Notice::UnknownParam { .. } => "unknown_param",
            Notice::NameNotCarried { .. } => "name_not_carried",
            Notice::DuplicateParam { .. } => "duplicate_param",
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
            Notice::DuplicateParam { message, .. } => message.clone(),
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
/// receive them (all but OpenAI).
fn notices(provider: Provider, params: &Params, unsupported: &[&str]) -> Vec<Notice> {
    let mut notices: Vec<Notice> = params
        .set_optional_names()
        .filter(|name| unsupported.contains(name))
        .map(|name| Notice::UnsupportedParam { param: name.to_owned() })
        .collect();
    if provider != Provider::OpenAi {
        notices.extend(
            params.extra.iter().map(|(name, _)| Notice::UnknownParam { param: name.clone() }),
        );
    }
    notices
}

/// A conversation as providers with a separate system field see it: the
/// leading system text, then role runs with same-role neighbours merged
/// (their parts concatenated, so nothing is lost), starting with a user run.
struct Conversation<'a> {
    /// The text of the leading system messages, in order.
    system: Vec<&'a str>,
    /// `(role, [(message index, part)])`, roles alternating.
    turns: Vec<(Role, Vec<(usize, &'a ContentPart)>)>,
    /// The participant names these providers cannot carry.
    dropped_names: Vec<Notice>,
}

impl<'a> Conversation<'a> {
    /// # Errors
    ///
    /// A system message after the first user or assistant message, a
    /// non-text part in a system message, no user or assistant message, or a
    /// first turn that is not the user's.
    fn split(provider: Provider, messages: &'a [Message]) -> Result<Conversation<'a>, Error> {
        let mut system = Vec::new();
        let mut turns: Vec<(Role, Vec<(usize, &'a ContentPart)>)> = Vec::new();
        let mut dropped_names = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            if let Some(name) = &message.name {
                dropped_names.push(Notice::NameNotCarried { message: index, name: name.clone() });
            }
            if message.role == Role::System {
                if !turns.is_empty() {
                    return Err(Error::new(ErrorKind::MisplacedSystem {
                        provider: provider.as_str(),
                        message: index,
                    }));
                }
                for part in &message.content {
                    match part {
                        ContentPart::Text { text } => system.push(text.as_str()),
                        other => {
                            return Err(unsupported(
                                provider,
                                index,
                                other,
                                "system text carries only text",
                            ));
                        }
                    }
                }
                continue;
            }
            let parts = message.content.iter().map(|part| (index, part));
            match turns.last_mut() {
                Some((role, run)) if *role == message.role => run.extend(parts),
                _ => turns.push((message.role, parts.collect())),
            }
        }
        match turns.first() {
            None => Err(Error::new(ErrorKind::NoMessages { provider: provider.as_str() })),
            Some((Role::User, _)) => Ok(Conversation { system, turns, dropped_names }),
            Some(_) => Err(Error::new(ErrorKind::FirstNotUser { provider: provider.as_str() })),
        }
    }
}

/// Fails when `part` is an image or a file in a message that is not the
/// user's: OpenAI and Anthropic take media from the user only (`reason`
/// names what the provider calls them).
fn media_only_from_user(
    provider: Provider,
    message: usize,
    role: Role,
    part: &ContentPart,
    reason: &'static str,
) -> Result<(), Error> {
    match part {
        ContentPart::Text { .. } => Ok(()),
        _ if role == Role::User => Ok(()),
        _ => Err(unsupported(provider, message, part, reason)),
    }
}

fn unsupported(
    provider: Provider,
    message: usize,
    part: &ContentPart,
    reason: &'static str,
) -> Error {
    Error::new(ErrorKind::UnsupportedPart {
        provider: provider.as_str(),
        message,
        part: part.describe(),
        reason,
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Anthropic and Gemini bodies alternate from the user, and carry every
        /// text of the input in order; refusals happen only where the rules say.
        #[test]
        fn alternating_and_lossless(messages in conversation()) {
            let params = Params { max_tokens: Some(16), ..Params::default() };
            let first_turn = messages.iter().find(|m| m.role != Role::System).map(|m| m.role);
            for provider in [Provider::Anthropic, Provider::Gemini] {
                let built = provider.build(&messages, &params);
                match first_turn {
                    Some(Role::User) => {
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
                        for (i, turn) in body[turns_key].as_array().unwrap().iter().enumerate() {
                            prop_assert_eq!(turn["role"].as_str().unwrap(), role_names[i % 2]);
                            for part in turn[parts_key].as_array().unwrap() {
                                seen.push(part["text"].as_str().unwrap().to_owned());
                            }
                        }
                        prop_assert_eq!(seen, texts(&messages));
                    }
                    Some(_) => prop_assert_eq!(
                        built.unwrap_err().kind().clone(),
                        ErrorKind::FirstNotUser { provider: provider.as_str() }
                    ),
                    None => prop_assert_eq!(
                        built.unwrap_err().kind().clone(),
                        ErrorKind::NoMessages { provider: provider.as_str() }
                    ),
                }
            }
        }
    }
}
