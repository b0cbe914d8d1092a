//! Tool calls paired with their results, checked once for every provider
//! ([`Calls::pair`], run by [`Provider::build`](super::Provider::build)
//! before any adapter, so `build`, `batch` and `convert` share it).
//!
//! The rule is OpenAI's, which is the strictest of the four: every call of
//! an assistant message is answered by a tool message in the messages that
//! immediately follow it, before any other message ("An assistant message
//! with 'tool_calls' must be followed by tool messages responding to each
//! 'tool_call_id'", the Chat Completions API's 400); Anthropic says the
//! same of its blocks ("Each `tool_use` block must have a corresponding
//! `tool_result` block in the next message"), and Gemini names a result by
//! its call's function, found here by id. A conversation that ends in a
//! call is refused too: the request asks the model to go on from a call
//! whose result it is never given (see docs/providers.md).
//!
//! Calls outside assistant messages and results outside tool messages are
//! left to the adapters, which refuse them (`unsupported_part`).

use std::collections::HashMap;

use prompt_core::chat::{Message, Part, Role};

use super::Provider;
use crate::error::{Error, ErrorKind};

/// The tool calls of a conversation by id, each answered right after it.
pub(crate) struct Calls<'a> {
    /// Each call's tool and the message holding it, by id.
    calls: HashMap<&'a str, Call<'a>>,
}

struct Call<'a> {
    name: &'a str,
    message: usize,
    answered: bool,
}

impl<'a> Calls<'a> {
    /// Checks the calls and results of `messages` for `provider`.
    ///
    /// # Errors
    ///
    /// In message order, the first of: a call whose function name breaks
    /// the providers' rule (`invalid_tool_name`), whose id breaks
    /// `provider`'s rule (`invalid_tool_call_id`) or repeats an earlier
    /// call's (`duplicate_tool_call_id`); a result answering no call of the
    /// assistant message before it (`unknown_tool_call_id`) or answering one
    /// a second time (`duplicate_tool_call_id`); a call with no result
    /// before the next message that is not a tool message, or before the
    /// end (`unanswered_tool_call`).
    pub(crate) fn pair(provider: Provider, messages: &'a [Message]) -> Result<Calls<'a>, Error> {
        let mut calls: HashMap<&'a str, Call<'a>> = HashMap::new();
        // The calls of the last assistant message still waiting for a
        // result, in order.
        let mut pending: Vec<&'a str> = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            if message.role != Role::Tool
                && let Some(&call_id) = pending.first()
            {
                return Err(unanswered(&calls, call_id, Some(index)));
            }
            for part in &message.content {
                match part {
                    Part::ToolCall { id, name, .. } if message.role == Role::Assistant => {
                        check_name(provider, index, name)?;
                        check_id(provider, index, id)?;
                        if let Some(first) = calls.get(id.as_str()) {
                            return Err(Error::new(ErrorKind::DuplicateToolCallId {
                                message: index,
                                call_id: id.clone(),
                                first: first.message,
                                result: false,
                            }));
                        }
                        calls.insert(id, Call { name, message: index, answered: false });
                        pending.push(id);
                    }
                    Part::ToolResult { call_id, .. } if message.role == Role::Tool => {
                        if let Some(at) = pending.iter().position(|id| id == call_id) {
                            pending.remove(at);
                            if let Some(call) = calls.get_mut(call_id.as_str()) {
                                call.answered = true;
                            }
                            continue;
                        }
                        return Err(Error::new(match calls.get(call_id.as_str()) {
                            Some(call) if call.answered => ErrorKind::DuplicateToolCallId {
                                message: index,
                                call_id: call_id.clone(),
                                first: call.message,
                                result: true,
                            },
                            _ => ErrorKind::UnknownToolCallId {
                                message: index,
                                call_id: call_id.clone(),
                            },
                        }));
                    }
                    _ => {}
                }
            }
        }
        match pending.first() {
            Some(&call_id) => Err(unanswered(&calls, call_id, None)),
            None => Ok(Calls { calls }),
        }
    }

    /// The tool whose call `call_id` names (checked by [`Calls::pair`]).
    pub(crate) fn name(&self, call_id: &str) -> &'a str {
        self.calls.get(call_id).map(|call| call.name).unwrap_or_default()
    }
}

fn unanswered(calls: &HashMap<&str, Call<'_>>, call_id: &str, next: Option<usize>) -> Error {
    Error::new(ErrorKind::UnansweredToolCall {
        message: calls.get(call_id).map_or(0, |call| call.message),
        call_id: call_id.to_owned(),
        next,
    })
}

/// The function name of a call, by every provider's documented rule, which
/// is one: 1 to 64 ASCII letters, digits, `_` or `-`.
///
/// - OpenAI (Chat Completions and Responses): "Must be a-z, A-Z, 0-9, or
///   contain underscores and dashes, with a maximum length of 64"
///   (`FunctionObject.name`, OpenAI's OpenAPI document 2.3.0); the API
///   checks the names in the conversation too (its 400: "does not match
///   '^[a-zA-Z0-9_-]{1,64}$'").
/// - Anthropic: tool names match `^[a-zA-Z0-9_-]{1,64}$` (the Messages
///   API's 400: "String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"), and
///   a `tool_use` names a tool.
/// - Gemini: `FunctionCall.name` "Must be a-z, A-Z, 0-9, or contain
///   underscores and dashes, with a maximum length of 64" (Generative
///   Language API v1beta reference).
fn check_name(provider: Provider, message: usize, name: &str) -> Result<(), Error> {
    if crate::tools::valid_name(name) {
        return Ok(());
    }
    Err(Error::new(ErrorKind::InvalidToolName {
        provider: provider.as_str(),
        message,
        name: name.to_owned(),
    }))
}

/// A call's id, by the rule `provider` documents.
fn check_id(provider: Provider, message: usize, id: &str) -> Result<(), Error> {
    let rule = match provider {
        // Anthropic: `tool_use.id` matches `^[a-zA-Z0-9_-]+$` (the
        // Messages API's 400: "messages.N.content.M.tool_use.id: String
        // should match pattern '^[a-zA-Z0-9_-]+$'"); `tool_result`'s
        // `tool_use_id` repeats it.
        Provider::Anthropic
            if id.is_empty()
                || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
        {
            "Anthropic takes tool-use ids of ASCII letters, digits, `_` and `-` (`^[a-zA-Z0-9_-]+$`)"
        }
        // OpenAI Responses: a `function_call_output`'s `call_id` is 1 to 64
        // characters (`FunctionCallOutputItemParam.call_id`, `minLength: 1`,
        // `maxLength: 64`, OpenAI's OpenAPI document 2.3.0).
        Provider::OpenAiResponses if !(1..=64).contains(&id.chars().count()) => {
            "OpenAI Responses takes call ids of 1 to 64 characters"
        }
        // OpenAI Chat Completions (`ChatCompletionMessageToolCall.id`, "The
        // ID of the tool call": a string) and Gemini (`FunctionCall.id`,
        // optional, a string) document no rule.
        _ => return Ok(()),
    };
    Err(Error::new(ErrorKind::InvalidToolCallId {
        provider: provider.as_str(),
        message,
        call_id: id.to_owned(),
        rule,
    }))
}

#[cfg(test)]
mod tests {
    use prompt_core::json::RawJson;
    use proptest::prelude::*;

    use super::*;
    use crate::params::Params;

    fn call(id: &str, name: &str) -> Part {
        Part::tool_call(id, name, RawJson::empty_object())
    }

    fn assistant(parts: Vec<Part>) -> Message {
        Message { role: Role::Assistant, content: parts, name: None }
    }

    fn tool(ids: &[&str]) -> Message {
        let content = ids.iter().map(|id| Part::tool_result(*id, "r")).collect();
        Message { role: Role::Tool, content, name: None }
    }

    fn user(text: &str) -> Message {
        Message::text(Role::User, text)
    }

    /// The error kind (and its message index) for every provider, which
    /// must agree: one rule for all but the id patterns.
    #[track_caller]
    fn refused(messages: &[Message]) -> (&'static str, usize) {
        let mut found = None;
        for provider in Provider::ALL {
            let err = Calls::pair(provider, messages).err().expect("refused");
            let got = (err.kind().as_str(), err.kind().message_index().unwrap());
            assert_eq!(*found.get_or_insert(got), got, "{provider:?}: {err}");
        }
        found.unwrap()
    }

    #[test]
    fn each_call_is_answered_right_after_it() {
        let fine = [
            user("q"),
            assistant(vec![Part::text("Two."), call("a", "f"), call("b", "g")]),
            tool(&["b"]),
            tool(&["a"]),
            user("thanks"),
            assistant(vec![call("c", "f")]),
            tool(&["c"]),
        ];
        for provider in Provider::ALL {
            let calls = Calls::pair(provider, &fine).unwrap();
            assert_eq!((calls.name("a"), calls.name("b")), ("f", "g"));
        }
        // A call not answered before the user speaks again.
        let cases: [(Vec<Message>, (&str, usize)); 9] = [
            (
                vec![user("q"), assistant(vec![call("a", "f")]), user("?"), tool(&["a"])],
                ("unanswered_tool_call", 1),
            ),
            // One of two calls answered.
            (
                vec![
                    user("q"),
                    assistant(vec![call("a", "f"), call("b", "f")]),
                    tool(&["a"]),
                    user("?"),
                ],
                ("unanswered_tool_call", 1),
            ),
            // Another assistant message before the result.
            (
                vec![
                    user("q"),
                    assistant(vec![call("a", "f")]),
                    assistant(vec![Part::text("x")]),
                    tool(&["a"]),
                ],
                ("unanswered_tool_call", 1),
            ),
            // The conversation ends with a pending call.
            (vec![user("q"), assistant(vec![call("a", "f")])], ("unanswered_tool_call", 1)),
            (
                vec![user("q"), assistant(vec![call("a", "f"), call("b", "f")]), tool(&["b"])],
                ("unanswered_tool_call", 1),
            ),
            // A result for no call, and for a call of an earlier turn.
            (vec![user("q"), tool(&["a"])], ("unknown_tool_call_id", 1)),
            (
                vec![user("q"), assistant(vec![call("a", "f")]), tool(&["a", "b"])],
                ("unknown_tool_call_id", 2),
            ),
            // A second result, in the same message and in the next.
            (
                vec![user("q"), assistant(vec![call("a", "f"), call("b", "f")]), tool(&["a", "a"])],
                ("duplicate_tool_call_id", 2),
            ),
            // A repeated id, in one message and across turns.
            (
                vec![user("q"), assistant(vec![call("a", "f"), call("a", "g")]), tool(&["a", "a"])],
                ("duplicate_tool_call_id", 1),
            ),
        ];
        for (messages, expected) in cases {
            assert_eq!(refused(&messages), expected, "{messages:?}");
        }
        let across = [
            user("q"),
            assistant(vec![call("a", "f")]),
            tool(&["a"]),
            user("again"),
            assistant(vec![call("a", "g")]),
            tool(&["a"]),
        ];
        assert_eq!(refused(&across), ("duplicate_tool_call_id", 4));
        let again = [user("q"), assistant(vec![call("a", "f")]), tool(&["a"]), tool(&["a"])];
        let err = Calls::pair(Provider::OpenAi, &again).err().unwrap();
        assert_eq!(
            err.to_string(),
            "message 3: a second result answers `a` (the call in message 1); each call has one result"
        );
        let end = [user("q"), assistant(vec![call("a", "f")])];
        let err = Calls::pair(Provider::Gemini, &end).err().unwrap();
        assert_eq!(
            err.kind(),
            &ErrorKind::UnansweredToolCall { message: 1, call_id: "a".into(), next: None }
        );
    }

    #[test]
    fn names_and_ids_follow_each_providers_rule() {
        let with = |id: &str, name: &str| [user("q"), assistant(vec![call(id, name)]), tool(&[id])];
        for name in ["a b", "", "multi_tool_use.parallel", "é", "f\n", &"x".repeat(65)] {
            assert_eq!(refused(&with("a", name)), ("invalid_tool_name", 1), "{name:?}");
        }
        assert!(Calls::pair(Provider::Anthropic, &with("a", &"x".repeat(64))).is_ok());
        // Ids: Anthropic's pattern, Responses' length; none for the others.
        let kind = |provider: Provider, id: &str| {
            Calls::pair(provider, &with(id, "f")).err().map(|err| err.kind().as_str())
        };
        for id in ["call.1", "", "call|fc_1", "a b", "ü", "a\u{202e}b"] {
            assert_eq!(kind(Provider::Anthropic, id), Some("invalid_tool_call_id"), "{id:?}");
            assert_eq!(kind(Provider::OpenAi, id), None, "{id:?}");
            assert_eq!(kind(Provider::Gemini, id), None, "{id:?}");
        }
        let long = "é".repeat(65);
        assert_eq!(kind(Provider::OpenAiResponses, &long), Some("invalid_tool_call_id"));
        assert_eq!(kind(Provider::OpenAiResponses, &long[2..]), None);
        assert_eq!(kind(Provider::OpenAiResponses, ""), Some("invalid_tool_call_id"));
        assert_eq!(kind(Provider::Anthropic, "toolu_01A-b"), None);
        // A megabyte id is shown cut.
        let huge = "x.".repeat(500_000);
        let err = Calls::pair(Provider::Anthropic, &with(&huge, "f")).err().unwrap();
        assert!(err.to_string().len() < 300, "{}", err.to_string().len());
    }

    /// Regression: with a repeated id, Gemini received one call's result
    /// under the other call's name.
    #[test]
    fn gemini_never_names_a_result_by_another_call() {
        let messages = [
            user("q"),
            assistant(vec![call("c", "weather"), call("c", "time")]),
            tool(&["c", "c"]),
        ];
        let params = Params { model: Some("gemini-2.5-flash".into()), ..Params::default() };
        let err = Provider::Gemini.build(&messages, &params).unwrap_err();
        assert_eq!(err.kind().as_str(), "duplicate_tool_call_id");
    }

    /// A conversation where every call is answered right after it.
    fn answered() -> impl Strategy<Value = Vec<Message>> {
        prop::collection::vec((0..4usize, any::<bool>()), 1..6).prop_map(|turns| {
            let mut messages = vec![user("q")];
            let mut next = 0;
            for (calls, split) in turns {
                let ids: Vec<String> = (next..next + calls).map(|i| format!("c{i}")).collect();
                next += calls;
                let mut parts = vec![Part::text("t")];
                parts.extend(ids.iter().map(|id| call(id, "f")));
                messages.push(assistant(parts));
                let refs: Vec<&str> = ids.iter().map(String::as_str).rev().collect();
                if split && refs.len() > 1 {
                    messages.push(tool(&refs[..1]));
                    messages.push(tool(&refs[1..]));
                } else if !refs.is_empty() {
                    messages.push(tool(&refs));
                }
                messages.push(user("u"));
            }
            messages
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Answered conversations pass; taking one result away, or moving
        /// it after the next user message, is `unanswered_tool_call` at the
        /// call's message; repeating a call's id is `duplicate_tool_call_id`.
        #[test]
        fn one_change_one_error(messages in answered(), pick in any::<prop::sample::Index>()) {
            for provider in Provider::ALL {
                prop_assert!(Calls::pair(provider, &messages).is_ok());
            }
            let results: Vec<usize> = messages
                .iter()
                .enumerate()
                .filter(|(_, m)| m.role == Role::Tool)
                .map(|(i, _)| i)
                .collect();
            if results.is_empty() {
                return Ok(());
            }
            let at = results[pick.index(results.len())];
            let Part::ToolResult { call_id, .. } = &messages[at].content[0] else { unreachable!() };
            let call_at = messages[..at]
                .iter()
                .rposition(|m| m.role == Role::Assistant)
                .unwrap();
            let mut dropped = messages.clone();
            dropped[at].content.remove(0);
            let moved = {
                let mut moved = dropped.clone();
                let user_at = moved[at..].iter().position(|m| m.role == Role::User).unwrap() + at;
                moved.insert(user_at + 1, tool(&[call_id]));
                moved
            };
            for broken in [dropped, moved] {
                let err = Calls::pair(Provider::OpenAi, &broken).err().unwrap();
                prop_assert_eq!(err.kind().as_str(), "unanswered_tool_call");
                prop_assert_eq!(err.kind().message_index(), Some(call_at));
            }
            let mut repeated = messages.clone();
            repeated.push(assistant(vec![call(call_id, "f")]));
            repeated.push(tool(&[call_id]));
            let err = Calls::pair(Provider::Anthropic, &repeated).err().unwrap();
            prop_assert_eq!(err.kind().as_str(), "duplicate_tool_call_id");
        }
    }
}
