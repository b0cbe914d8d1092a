//! The roles a turn can have.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Who speaks in a turn.
///
/// `Context` is the text before the first delimiter (the preamble); the
/// others are chat-completions roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The preamble before the first delimiter.
    Context,
    /// `## user`
    User,
    /// `## assistant`
    Assistant,
    /// `## system`
    System,
    /// `## tool`
    Tool,
}

impl Role {
    /// The lowercase name: `"context"`, `"user"`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Context => "context",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }

    /// The role a delimiter's role word names (`"user"`, `"assistant"`,
    /// `"system"`, `"tool"`, compared ASCII-case-insensitively); `context`
    /// is never a delimiter word.
    pub(crate) fn from_word(word: &[u8]) -> Option<Role> {
        [Role::User, Role::Assistant, Role::System, Role::Tool]
            .into_iter()
            .find(|role| role.as_str().as_bytes().eq_ignore_ascii_case(word))
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every role a turn can have, in the reference's order:
/// `[context, user, assistant, system, tool]`.
pub fn roles() -> [Role; 5] {
    [Role::Context, Role::User, Role::Assistant, Role::System, Role::Tool]
}

/// The roles a chat message can have: [`roles`] without `context`.
pub fn message_roles() -> [Role; 4] {
    [Role::User, Role::Assistant, Role::System, Role::Tool]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_words() {
        assert_eq!(Role::from_word(b"ASSISTANT"), Some(Role::Assistant));
        assert_eq!(Role::from_word(b"context"), None);
        assert_eq!(Role::from_word(b"users"), None);
        assert_eq!(roles()[1..], message_roles());
    }
}
