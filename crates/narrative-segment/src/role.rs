//! Who speaks in a turn: the `context` preamble, or a chat [`Role`].

use std::fmt;
use std::str::FromStr;

use prompt_core::chat::Role;
use serde::{Deserialize, Serialize};

/// Who speaks in a turn: the text before the first delimiter (the
/// preamble, `context`), or the chat [`Role`] its delimiter names.
///
/// Serialized as its lowercase name: `"context"`, `"user"`, `"assistant"`,
/// `"system"`, `"tool"`.
///
/// ```
/// use narrative_segment::TurnRole;
/// use prompt_core::chat::Role;
///
/// assert_eq!(TurnRole::Chat(Role::User).to_string(), "user");
/// assert_eq!("context".parse::<TurnRole>(), Ok(TurnRole::Context));
/// assert_eq!(TurnRole::Context.chat(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TurnRole {
    /// The preamble before the first delimiter; what becomes of it when
    /// rendered is [`ContextAs`](crate::ContextAs).
    Context,
    /// A turn opened by a delimiter naming this role.
    Chat(Role),
}

impl TurnRole {
    /// Every role a turn can have, in the reference's order:
    /// `[context, user, assistant, system, tool]`.
    pub const ALL: [TurnRole; 5] = [
        TurnRole::Context,
        TurnRole::Chat(Role::User),
        TurnRole::Chat(Role::Assistant),
        TurnRole::Chat(Role::System),
        TurnRole::Chat(Role::Tool),
    ];

    /// The lowercase name: `"context"`, `"user"`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            TurnRole::Context => "context",
            TurnRole::Chat(role) => role.as_str(),
        }
    }

    /// The chat role; `None` for the preamble.
    pub fn chat(self) -> Option<Role> {
        match self {
            TurnRole::Context => None,
            TurnRole::Chat(role) => Some(role),
        }
    }
}

/// The chat role a delimiter's role word names (`"user"`, `"assistant"`,
/// `"system"`, `"tool"`, compared ASCII-case-insensitively); `context` is
/// never a delimiter word.
pub(crate) fn from_word(word: &[u8]) -> Option<Role> {
    message_roles().into_iter().find(|role| role.as_str().as_bytes().eq_ignore_ascii_case(word))
}

impl From<Role> for TurnRole {
    fn from(role: Role) -> TurnRole {
        TurnRole::Chat(role)
    }
}

/// A turn "is" a chat role when its delimiter named it: `turn.role ==
/// Role::User`.
impl PartialEq<Role> for TurnRole {
    fn eq(&self, role: &Role) -> bool {
        *self == TurnRole::Chat(*role)
    }
}

impl fmt::Display for TurnRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TurnRole {
    type Err = prompt_core::chat::UnknownRole;

    /// Exactly one of the five lowercase names.
    fn from_str(name: &str) -> Result<TurnRole, Self::Err> {
        match name {
            "context" => Ok(TurnRole::Context),
            _ => name.parse().map(TurnRole::Chat),
        }
    }
}

impl Serialize for TurnRole {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TurnRole {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TurnRole, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Every role a turn can have, in the reference's order:
/// `[context, user, assistant, system, tool]` ([`TurnRole::ALL`]).
pub fn roles() -> [TurnRole; 5] {
    TurnRole::ALL
}

/// The roles a delimiter can name, in the reference's order: [`roles`]
/// without `context`.
pub fn message_roles() -> [Role; 4] {
    [Role::User, Role::Assistant, Role::System, Role::Tool]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_words() {
        assert_eq!(from_word(b"ASSISTANT"), Some(Role::Assistant));
        assert_eq!(from_word(b"context"), None);
        assert_eq!(from_word(b"users"), None);
        assert_eq!(roles()[1..], message_roles().map(TurnRole::Chat));
    }

    #[test]
    fn names_round_trip() {
        for role in TurnRole::ALL {
            let json = serde_json::to_string(&role).unwrap();
            assert_eq!(json, format!("\"{role}\""));
            assert_eq!(serde_json::from_str::<TurnRole>(&json).unwrap(), role);
        }
        assert!(serde_json::from_str::<TurnRole>("\"User\"").is_err());
        assert!(TurnRole::Chat(Role::Tool) == Role::Tool && TurnRole::Context != Role::System);
    }
}
