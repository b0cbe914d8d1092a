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
pub mod gemini;
pub mod openai;

use prompt_core::chat::{Message, Part, Role};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
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

    /// Whether the provider requires user and assistant turns to alternate
    /// from the user (Anthropic, Gemini): the pipeline arranges the
    /// conversation for it, and its adapter refuses one that does not.
    pub fn requires_alternation(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::Gemini)
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
/// leading system text, then the turns, which must alternate from the user
/// (the pipeline's stage 4 made them so; an adapter checks, never merges).
struct Conversation<'a> {
    /// The text of the leading system messages, in order.
    system: Vec<&'a str>,
    /// `(message index, message)`, roles alternating from the user.
    turns: Vec<(usize, &'a Message)>,
    /// The participant names these providers cannot carry.
    dropped_names: Vec<Notice>,
}

impl<'a> Conversation<'a> {
    /// # Errors
    ///
    /// A tool message, a system message after the first user or assistant
    /// message, a non-text part in a system message, no user or assistant
    /// message, a first turn that is not the user's, or two neighbours of
    /// the same role.
    fn split(provider: Provider, messages: &'a [Message]) -> Result<Conversation<'a>, Error> {
        let mut system = Vec::new();
        let mut turns: Vec<(usize, &'a Message)> = Vec::with_capacity(messages.len());
        let mut dropped_names = Vec::new();
        // The first message with its predecessor's role, reported once the
        // start of the conversation is known to be right.
        let mut repeated = None;
        for (index, message) in messages.iter().enumerate() {
            if let Some(name) = &message.name {
                dropped_names.push(Notice::NameNotCarried { message: index, name: name.clone() });
            }
            match message.role {
                Role::System => {
                    if !turns.is_empty() {
                        return Err(Error::new(ErrorKind::MisplacedSystem {
                            provider: provider.as_str(),
                            message: index,
                        }));
                    }
                    for part in &message.content {
                        match part {
                            Part::Text { text } => system.push(text.as_str()),
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
                }
                Role::User | Role::Assistant => {
                    if repeated.is_none()
                        && turns.last().is_some_and(|(_, last)| last.role == message.role)
                    {
                        repeated = Some(index);
                    }
                    turns.push((index, message));
                }
                other => return Err(unsupported_role(provider, index, other)),
            }
        }
        match turns.first() {
            None => Err(Error::new(ErrorKind::NoMessages { provider: provider.as_str() })),
            Some((_, first)) if first.role != Role::User => {
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
        Part::Text { .. } => Ok(()),
        _ if role == Role::User => Ok(()),
        _ => Err(unsupported(provider, message, part, reason)),
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

/// A tool call or result: no adapter carries them yet.
fn tool_part(provider: Provider, message: usize, part: &Part) -> Error {
    unsupported(provider, message, part, "tool calls and results are not carried yet")
}

/// A message in a role the provider's body has no place for (a tool
/// message, until tool results are carried).
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
            let params = Params { max_tokens: Some(16), ..Params::default() };
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
            let params = Params { max_tokens: Some(16), ..Params::default() };
            let has_turn = messages.iter().any(|m| m.role != Role::System);
            let merged = crate::alternation::alternate(messages).unwrap();
            for provider in [Provider::Anthropic, Provider::Gemini] {
                let built = provider.build(&merged, &params);
                prop_assert_eq!(built.is_ok(), has_turn, "{:?}", built);
            }
        }
    }

    #[test]
    fn tool_messages_and_parts_are_refused() {
        let params = Params { max_tokens: Some(16), ..Params::default() };
        let tool = [Message::text(Role::User, "hi"), Message::text(Role::Tool, "42")];
        let call = Part::tool_call("c1", "add", prompt_core::json::RawJson::empty_object());
        let with_call = [
            Message::text(Role::User, "hi"),
            Message { role: Role::Assistant, content: vec![call], name: None },
        ];
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini] {
            let err = provider.build(&tool, &params).unwrap_err();
            assert_eq!(
                err.kind(),
                &ErrorKind::UnsupportedRole {
                    from: provider.as_str(),
                    message: 1,
                    role: "tool".into()
                }
            );
            assert_eq!(err.kind().stage(), "provider");
            let err = provider.build(&with_call, &params).unwrap_err();
            assert_eq!(err.kind().as_str(), "unsupported_part", "{err}");
        }
    }
}
