//! The two dialects, and the nine places where they differ.
//!
//! One parser and one segmenter serve both dialects; each difference is a
//! small method here that the shared code asks at the point of decision.

use serde::{Deserialize, Serialize};

/// Which rules locate references and split turns.
///
/// [`Dialect::Standard`] (the default) is the suite's own; [`Dialect::Lmml`]
/// reproduces the Elixir package lmml 0.2.0 exactly, quirks included. They
/// differ in nine places:
///
/// | # | | `Standard` | `Lmml` |
/// |---|---|---|---|
/// | 1 | delimiter lines inside ```` ``` ````/`~~~` fences and `@@@` content | text | delimiters |
/// | 2 | `<!-- TODO: ask the user -->` | text: a comment delimiter holds only the role word (with the heading grammar's decorations and turn label) | a `user` delimiter |
/// | 3 | role words in headings | the heading grammar: decorations, a turn label (`Turn 3 --`, `2.`), the role word, a `:`, nothing else; `system2`, `user's turn`, `Receiving User Input` are text; text holding `<` names no role | any run of `a`-`z`, anywhere: all are delimiters |
/// | 4 | references | `[A-Za-z0-9][A-Za-z0-9_.-]*` segments joined by `/`, trailing `.` excluded, never after a word character, `.`, `-` or `+` (`bob@example.com` is no reference), never inside a `scheme://` token | everything up to the next whitespace, one trailing punctuation character given back, also mid-word |
/// | 5 | embed placement | at the parser's own position; one on a delimiter line belongs to the turn it opens | by searching the text for `@name` (a code span or e-mail address earlier on wins); one on a delimiter line is attached to no turn |
/// | 6 | line endings | `\n`, `\r\n` and a lone `\r` | `\n` only (a CR stays in embed names and a CR-only text is one line) |
/// | 7 | a leading UTF-8 byte order mark | skipped: in no turn, and `\u{FEFF}## user` opens a turn | text of the first turn, as lmml keeps it |
/// | 8 | role aliases ([`crate::RoleAliases`]) | name roles in delimiters | none |
/// | 9 | a bare `@word` (no extension) naming nothing | text, with a [`crate::WarningKind::UnresolvedReference`] warning | an error |
///
/// Both dialects keep every byte: turn texts and delimiter lines together
/// always restore the narrative exactly (after the skipped byte order mark
/// in Standard; positions still count it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// The suite's rules (the default).
    #[default]
    Standard,
    /// lmml 0.2.0's rules, byte for byte.
    Lmml,
}

impl Dialect {
    /// Difference 1: whether a delimiter line inside a fenced code block or
    /// `@@@` embed content still opens a turn.
    pub(crate) fn delimiters_inside_code(self) -> bool {
        self == Dialect::Lmml
    }

    /// Difference 2: whether a comment delimiter may hold words besides the
    /// role word.
    pub(crate) fn comment_allows_other_words(self) -> bool {
        self == Dialect::Lmml
    }

    /// Difference 3: whether a role word is any run of `a`-`z` bytes,
    /// anywhere (rather than the heading grammar's one word; with it go
    /// differences 8, aliases, and 2's decorations).
    pub(crate) fn role_words_are_letter_runs(self) -> bool {
        self == Dialect::Lmml
    }

    /// Difference 4: whether references follow lmml's permissive name rule
    /// (rather than the format's documented one).
    pub(crate) fn permissive_references(self) -> bool {
        self == Dialect::Lmml
    }

    /// Difference 5: whether embeds are placed by searching the text (and
    /// dropped from delimiter lines) rather than by the parser's position.
    pub(crate) fn places_embeds_by_search(self) -> bool {
        self == Dialect::Lmml
    }

    /// Difference 7: whether a leading byte order mark is skipped (rather
    /// than kept as text).
    pub(crate) fn skips_byte_order_mark(self) -> bool {
        self == Dialect::Standard
    }
}
