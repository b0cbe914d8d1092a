//! Delimiter lines: `## Turn 1 -- user` and `<!-- assistant -->`.
//!
//! A line is trimmed of Unicode whitespace, then tested as a heading (1-6
//! `#` and a space or tab) and, failing that, as a one-line HTML comment.
//! The text left over names the role through its role word.

use crate::dialect::Dialect;
use crate::role::Role;

/// The role the delimiter `line` (without its line ending) opens, or
/// `None` when the line is text.
pub(crate) fn delimiter_role(line: &str, dialect: Dialect) -> Option<Role> {
    // Fast path: most lines start (after ASCII blanks) with neither `#`
    // nor `<`, nor with a non-ASCII byte that could be Unicode whitespace.
    let first = line.bytes().find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c'))?;
    if !(first == b'#' || first == b'<' || !first.is_ascii()) {
        return None;
    }
    let line = line.trim();
    if let Some(heading) = heading_text(line) {
        return role_word(heading, dialect);
    }
    let inner = line.strip_prefix("<!--")?.strip_suffix("-->")?.trim();
    if dialect.comment_allows_other_words() {
        role_word(inner, dialect)
    } else {
        Role::from_word(inner.as_bytes())
    }
}

/// The text of an ATX heading: 1-6 `#`, at least one space or tab, then
/// the rest (closing `#`s and emphasis are just more text).
fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && rest.starts_with([' ', '\t']))
        .then(|| rest.trim_start_matches([' ', '\t']))
}

/// The first role word of `text` (difference 3).
fn role_word(text: &str, dialect: Dialect) -> Option<Role> {
    if dialect.role_words_are_letter_runs() { letter_run_role(text) } else { whole_word_role(text) }
}

/// lmml: lowercase (Unicode-aware), then the first maximal run of `a`-`z`
/// bytes that is a role word; every other byte separates.
fn letter_run_role(text: &str) -> Option<Role> {
    if text.is_ascii() {
        // ASCII lowercases byte by byte; no other byte can join a run.
        return text
            .as_bytes()
            .split(|b| !b.is_ascii_alphabetic())
            .find_map(|run| if run.len() <= 9 { Role::from_word(run) } else { None });
    }
    // The longest role word has 9 bytes; a longer run can never match.
    let mut run = [0u8; 10];
    let mut length = 0;
    let mut buffer = [0u8; 4];
    for c in text.chars().flat_map(char::to_lowercase) {
        for &byte in c.encode_utf8(&mut buffer).as_bytes() {
            if byte.is_ascii_lowercase() {
                if length < run.len() {
                    run[length] = byte;
                }
                length = (length + 1).min(run.len());
            } else if let Some(role) = run_role(&run, std::mem::take(&mut length)) {
                return Some(role);
            }
        }
    }
    run_role(&run, length)
}

/// The role word held in the first `length` bytes of `run` (a full buffer
/// means the run was too long to be one).
fn run_role(run: &[u8], length: usize) -> Option<Role> {
    if length < run.len() { Role::from_word(&run[..length]) } else { None }
}

/// Standard: the first whole word (a maximal run of letters, digits and
/// `_`) that is a role word, case-insensitively. `user's` and `tool-call`
/// hold the words `user` and `tool`; `system2` and `multi_assistant` are
/// words of their own.
fn whole_word_role(text: &str) -> Option<Role> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find_map(|word| Role::from_word(word.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(line: &str, dialect: Dialect) -> Option<&'static str> {
        delimiter_role(line, dialect).map(Role::as_str)
    }

    #[test]
    fn shared_rules() {
        for dialect in [Dialect::Lmml, Dialect::Standard] {
            assert_eq!(role("## Turn 1 -- user", dialect), Some("user"));
            assert_eq!(
                role("   ### Reply from the Assistant (draft)  \r", dialect),
                Some("assistant")
            );
            assert_eq!(role("###### tool", dialect), Some("tool"));
            assert_eq!(role("####### user", dialect), None);
            assert_eq!(role("#user", dialect), None);
            assert_eq!(role("##\u{a0}user", dialect), None);
            assert_eq!(role("\u{a0}## user", dialect), Some("user"));
            assert_eq!(role("## **User** ##", dialect), Some("user"));
            assert_eq!(role("<!--   ASSISTANT   -->", dialect), Some("assistant"));
            assert_eq!(role("<!-- user --> tail", dialect), None);
            assert_eq!(role("# <!-- user -->", dialect), Some("user"));
            assert_eq!(role("## users, Toolbox, tools", dialect), None);
            assert_eq!(role("## ユーザー", dialect), None);
            assert_eq!(role("- user", dialect), None);
            assert_eq!(role("<!---->", dialect), None);
        }
    }

    #[test]
    fn role_words_differ() {
        let cases = [
            ("## user's turn", Some("user"), Some("user")),
            ("## multi_assistant", Some("assistant"), None),
            ("## system2", Some("system"), None),
            ("## tool-call", Some("tool"), Some("tool")),
            ("## Über user", Some("user"), Some("user")),
            ("## usership", None, None),
            ("<!-- TODO: ask the user -->", Some("user"), None),
            ("<!-- user -->", Some("user"), Some("user")),
        ];
        for (line, lmml, standard) in cases {
            assert_eq!(role(line, Dialect::Lmml), lmml, "lmml {line:?}");
            assert_eq!(role(line, Dialect::Standard), standard, "standard {line:?}");
        }
    }
}
