//! Role aliases: other names a delimiter may give a role (`You`, `ChatGPT`,
//! `Claude`), as chat exporters label their speakers.

use std::collections::HashMap;
use std::sync::Arc;

use prompt_core::chat::Role;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::role::from_word;

/// Names that open a turn of a role, besides the role words themselves:
/// `You` → user and `ChatGPT` → assistant for a ChatGPT export.
///
/// Matched case-insensitively (Unicode lowercase folding) against what a
/// delimiter names once its decorations are removed (see `docs/segment.md`,
/// "Turns and delimiters"), in one hash lookup: segmentation stays one
/// linear pass whatever the number of aliases. Aliases apply in the
/// Standard dialect only (lmml has none); a value filling a role slot
/// never names a role through an alias (issue 13's rule: decorations and
/// aliases are for authors).
///
/// Cloning is cheap (the table is shared). Serialized as a map from the
/// folded name to the role.
///
/// ```
/// use narrative_segment::RoleAliases;
/// use prompt_core::chat::Role;
///
/// let aliases = RoleAliases::from_pairs(["You=user", "ChatGPT=assistant"])?;
/// assert_eq!(aliases.role("chatgpt"), Some(Role::Assistant));
/// assert_eq!(aliases.role("YOU"), Some(Role::User));
/// assert!(RoleAliases::from_pairs(["user=assistant"]).is_err());
/// # Ok::<(), narrative_segment::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "HashMap<String, Role>", into = "HashMap<String, Role>")]
pub struct RoleAliases {
    by_name: Arc<HashMap<String, Role>>,
}

impl RoleAliases {
    /// No aliases.
    pub fn new() -> RoleAliases {
        RoleAliases::default()
    }

    /// The aliases of `NAME=ROLE` pairs (`--role-alias`), split at the
    /// first `=`; `NAME` is trimmed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidRoleAlias`] for the first pair without `=`, or
    /// that [`RoleAliases::insert`] refuses.
    pub fn from_pairs<S: AsRef<str>>(
        pairs: impl IntoIterator<Item = S>,
    ) -> Result<RoleAliases, Error> {
        let mut aliases = RoleAliases::new();
        for pair in pairs {
            let pair = pair.as_ref();
            let Some((name, role)) = pair.split_once('=') else {
                return Err(invalid(pair, "it is not NAME=ROLE"));
            };
            let role = role.parse::<Role>().map_err(|err| invalid(pair, &err.to_string()))?;
            aliases.insert(name, role).map_err(|err| match err.name() {
                Some(_) => err,
                None => err.with_name(pair),
            })?;
        }
        Ok(aliases)
    }

    /// Adds `name` (trimmed) as another name of `role`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidRoleAlias`] when `name` is empty, does not start
    /// with a letter or digit (a leading symbol is a decoration, never part
    /// of a name), holds a character of delimiter syntax (`#`, `<`, `>`,
    /// `@`, `` ` ``, `*`, `:`, `=`, `[`, `]`) or a control character, is a
    /// role word of another role (`user=assistant`), or is already an alias
    /// of another role.
    pub fn insert(&mut self, name: &str, role: Role) -> Result<(), Error> {
        let name = name.trim();
        let refuse = |why: &str| Err(invalid(name, why));
        if name.is_empty() {
            return refuse("the name is empty");
        }
        if !name.starts_with(char::is_alphanumeric) {
            return refuse(
                "a name starts with a letter or digit (a leading symbol is a decoration)",
            );
        }
        if let Some(c) = name.chars().find(|&c| DELIMITER_SYNTAX.contains(c) || c.is_control()) {
            return refuse(&format!("`{}` is delimiter syntax", c.escape_debug()));
        }
        if let Some(word) = from_word(name.as_bytes()).filter(|&word| word != role) {
            return refuse(&format!("`{name}` is the role word of {word}, not {role}"));
        }
        let folded = name.to_lowercase();
        match self.by_name.get(&folded) {
            Some(&existing) if existing != role => {
                refuse(&format!("it is already an alias of {existing}"))
            }
            Some(_) => Ok(()),
            None => {
                Arc::make_mut(&mut self.by_name).insert(folded, role);
                Ok(())
            }
        }
    }

    /// The role `name` is an alias of (compared case-insensitively).
    pub fn role(&self, name: &str) -> Option<Role> {
        if self.by_name.is_empty() {
            return None;
        }
        // Most lookups are ASCII: fold without allocating when it fits.
        let mut buffer = [0u8; 64];
        if name.is_ascii() && name.len() <= buffer.len() {
            let folded = &mut buffer[..name.len()];
            folded.copy_from_slice(name.as_bytes());
            folded.make_ascii_lowercase();
            let folded = std::str::from_utf8(folded).ok()?;
            return self.by_name.get(folded).copied();
        }
        self.by_name.get(&name.to_lowercase()).copied()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Each folded name and its role, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Role)> + '_ {
        self.by_name.iter().map(|(name, &role)| (name.as_str(), role))
    }
}

/// Characters that are delimiter syntax, so never part of an alias.
const DELIMITER_SYNTAX: &str = "#<>@`*:=[]";

fn invalid(alias: &str, why: &str) -> Error {
    Error::new(ErrorKind::InvalidRoleAlias).with_name(alias).with_detail(why)
}

impl TryFrom<HashMap<String, Role>> for RoleAliases {
    type Error = Error;

    fn try_from(map: HashMap<String, Role>) -> Result<RoleAliases, Error> {
        let mut aliases = RoleAliases::new();
        for (name, role) in map {
            aliases.insert(&name, role)?;
        }
        Ok(aliases)
    }
}

impl From<RoleAliases> for HashMap<String, Role> {
    fn from(aliases: RoleAliases) -> HashMap<String, Role> {
        Arc::unwrap_or_clone(aliases.by_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(pair: &str) -> String {
        RoleAliases::from_pairs([pair]).unwrap_err().to_string()
    }

    #[test]
    fn pairs_are_checked() {
        let aliases =
            RoleAliases::from_pairs([" Claude =assistant", "Ünal=user", "User=user"]).unwrap();
        assert_eq!(aliases.len(), 3);
        assert_eq!(aliases.role("CLAUDE"), Some(Role::Assistant));
        assert_eq!(aliases.role("üNAL"), Some(Role::User));
        assert_eq!(aliases.role("claude 3"), None);
        assert_eq!(refused("You"), "the role alias `You` is not valid: it is not NAME=ROLE");
        assert_eq!(
            refused("You=admin"),
            "the role alias `You=admin` is not valid: `admin` is not a role (system, user, assistant or tool)"
        );
        assert_eq!(refused("=user"), "the role alias `` is not valid: the name is empty");
        assert!(refused("You=User").contains("not a role"));
        assert!(refused("👤 You=user").contains("letter or digit"));
        assert!(refused("You:=user").contains("delimiter syntax"));
        assert!(refused("a<b=user").contains("delimiter syntax"));
        assert!(refused("a\nb=user").contains("delimiter syntax"));
        assert_eq!(
            refused("System=user"),
            "the role alias `System` is not valid: `System` is the role word of system, not user"
        );
        let twice = RoleAliases::from_pairs(["You=user", "you=assistant"]).unwrap_err();
        assert_eq!(twice.kind(), ErrorKind::InvalidRoleAlias);
        assert!(twice.to_string().contains("already an alias of user"));
        assert_eq!(RoleAliases::from_pairs(["You=user", "YOU=user"]).unwrap().len(), 1);
    }

    #[test]
    fn serde_round_trips_and_checks() {
        let aliases = RoleAliases::from_pairs(["You=user"]).unwrap();
        let json = serde_json::to_string(&aliases).unwrap();
        assert_eq!(json, r#"{"you":"user"}"#);
        assert_eq!(serde_json::from_str::<RoleAliases>(&json).unwrap(), aliases);
        assert!(serde_json::from_str::<RoleAliases>(r#"{"tool":"user"}"#).is_err());
    }

    #[test]
    fn long_and_non_ascii_names_fold_too() {
        let long = "a".repeat(100);
        let aliases = RoleAliases::from_pairs([format!("{long}=tool"), "ΣΟΦΙΑ=user".into()]);
        let aliases = aliases.unwrap();
        assert_eq!(aliases.role(&long.to_uppercase()), Some(Role::Tool));
        assert_eq!(aliases.role("σοφια"), Some(Role::User));
    }
}
