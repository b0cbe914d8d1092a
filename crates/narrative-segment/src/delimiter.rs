//! Delimiter lines: `## Turn 1 -- user` and `<!-- assistant -->`.
//!
//! A line is trimmed of Unicode whitespace, then tested as a heading (1-6
//! `#` and a space or tab) and, failing that, as a one-line HTML comment.
//! The text left over names the role: in the Standard dialect by the
//! heading grammar ([`named_role`]: decorations, a turn label, the role
//! word or an alias, a colon, nothing else), in lmml by its first role
//! word.
//!
//! On a line holding data (see [`classify`]) the syntax must be authored,
//! and the role slot follows the value rule: a value names the role only
//! when it is exactly a role word; a slot filled only by values that do
//! not is an invalid role value, never text.

use std::ops::ControlFlow;

use prompt_core::chat::Role;

use crate::alias::RoleAliases;
use crate::data::{Authored, Data, Provenance};
use crate::dialect::Dialect;
use crate::role::from_word;
use crate::source::{Line, Source};
use crate::span::Span;

/// What a delimiter line opens: a turn of its role, or nothing because its
/// role slot holds values that name no role (the span of those values).
pub(crate) type Opened = Result<Role, Span>;

/// Whether `line` is a delimiter line, and what it opens; `None` for text.
pub(crate) fn classify<'a, P: Provenance<'a>>(src: Source<'a, P>, line: Line) -> Option<Opened> {
    let content = line.content();
    if src.data.is_authored(content.start, content.end) {
        return delimiter_role(&src.text[content.range()], src.dialect, src.aliases).map(Ok);
    }
    classify_with_data(src, content)
}

/// How a role slot names its role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// By its first role word, among other words (headings; lmml's comments).
    AnyWord,
    /// By being exactly one role word (Standard comments).
    Exact,
}

/// [`classify`] for a line holding data: the leading blanks, the `#` run
/// and the blank after it, or `<!--` and `-->`, must all be authored.
fn classify_with_data<'a, P: Provenance<'a>>(src: Source<'a, P>, line: Span) -> Option<Opened> {
    let raw = &src.text[line.range()];
    let lead = line.start + (raw.len() - raw.trim_start().len());
    // Trailing blanks are trimmed only where authored, so that what a value
    // holds never decides whether `-->` ends the line.
    let tail = src.data.within(line).last().map_or(line.start, |range| range.end);
    let end = tail.max(line.start + raw.trim_end().len());
    if lead >= end || !src.data.is_authored(line.start, lead + 1) {
        return None;
    }
    let bytes = src.bytes;
    let hashes = src.run_length(lead, b'#', end);
    if hashes > 0 {
        let blank = lead + hashes;
        let heading = (1..=6).contains(&hashes)
            && blank < line.end
            && matches!(bytes[blank], b' ' | b'\t')
            && !src.data.contains(blank);
        // The slot runs to the line's end: a value of blanks fills it too.
        return heading.then(|| role_slot(src, Span::new(blank + 1, line.end), Slot::AnyWord))?;
    }
    let comment = &bytes[lead..end];
    let is_comment = comment.len() >= 7
        && comment.starts_with(b"<!--")
        && comment.ends_with(b"-->")
        && src.data.is_authored(lead, lead + 4)
        && src.data.is_authored(end - 3, end);
    if !is_comment {
        return None;
    }
    let slot = if src.dialect.comment_allows_other_words() { Slot::AnyWord } else { Slot::Exact };
    role_slot(src, Span::new(lead + 4, end - 3), slot)
}

/// The role the slot `span` names, if any. Authored words are words only
/// when no value touches them (`us[[ "er" ]]` names nothing); a value names
/// a role only when it is, trimmed, exactly a role word; an authored role
/// word wins over a value.
fn role_slot<'a, P: Provenance<'a>>(src: Source<'a, P>, span: Span, slot: Slot) -> Option<Opened> {
    let values = src.data.within(span);
    let Some((first, last)) = values.first().zip(values.last()) else {
        // Data only in the blanks after the syntax: the authored rules.
        let inner = src.text[span.range()].trim();
        return match (slot, src.dialect) {
            (_, Dialect::Standard) => named_role(inner, src.aliases),
            (Slot::Exact, Dialect::Lmml) => from_word(inner.as_bytes()),
            (Slot::AnyWord, Dialect::Lmml) => letter_run_role(inner),
        }
        .map(Ok);
    };
    let all_values = Span::new(first.start, last.end);
    let value_role = |range: &Span| {
        let value = &src.text[range.start.max(span.start)..range.end.min(span.end)];
        from_word(value.trim().as_bytes())
    };
    let only_values = authored_is_blank(src, span);
    match slot {
        Slot::Exact => only_values.then(|| match values {
            [one] => value_role(one).ok_or(all_values),
            _ => Err(all_values),
        }),
        Slot::AnyWord => {
            let named =
                authored_role_word(src, span).or_else(|| values.iter().find_map(value_role));
            match named {
                Some(role) => Some(Ok(role)),
                None => only_values.then_some(Err(all_values)),
            }
        }
    }
}

/// Whether every authored character of `span` is whitespace.
fn authored_is_blank<'a, P: Provenance<'a>>(src: Source<'a, P>, span: Span) -> bool {
    let mut at = span.start;
    let blank = |from: usize, to: usize| from >= to || src.text[from..to].trim().is_empty();
    for range in src.data.within(span) {
        if !blank(at, range.start) {
            return false;
        }
        at = at.max(range.end);
    }
    blank(at, span.end)
}

/// The first authored role word of `span` under the dialect's word rule
/// (difference 3), a word touching a value counting as no word.
fn authored_role_word<'a, P: Provenance<'a>>(src: Source<'a, P>, span: Span) -> Option<Role> {
    let letter_runs = src.dialect.role_words_are_letter_runs();
    let mut word: Vec<u8> = Vec::new();
    let mut touched = false;
    let finish = |word: &mut Vec<u8>, touched: &mut bool| {
        let role = if *touched { None } else { from_word(word) };
        word.clear();
        *touched = false;
        role
    };
    let mut buffer = [0u8; 4];
    let mut at = span.start;
    // The authored stretches, each followed by the value after it (if any).
    let values = src.data.within(span).iter().map(Some).chain([None]);
    for value in values {
        let end = value.map_or(span.end, |range| range.start.clamp(at, span.end));
        for c in src.text[at..end].chars() {
            if letter_runs {
                for lower in c.to_lowercase() {
                    for &byte in lower.encode_utf8(&mut buffer).as_bytes() {
                        if byte.is_ascii_lowercase() {
                            word.push(byte);
                        } else if let Some(role) = finish(&mut word, &mut touched) {
                            return Some(role);
                        }
                    }
                }
            } else if c.is_alphanumeric() || c == '_' {
                word.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
            } else if let Some(role) = finish(&mut word, &mut touched) {
                return Some(role);
            }
        }
        if let Some(range) = value {
            // A value joins the word it touches, whatever it holds.
            touched = true;
            at = range.end.clamp(end, span.end);
        }
    }
    finish(&mut word, &mut touched)
}

/// The role the delimiter `line` (without its line ending) opens, or
/// `None` when the line is text. `aliases` name roles too (Standard only).
pub(crate) fn delimiter_role(
    line: &str,
    dialect: Dialect,
    aliases: Option<&RoleAliases>,
) -> Option<Role> {
    // Fast path: most lines start (after ASCII blanks) with neither `#`
    // nor `<`, nor with a non-ASCII byte that could be Unicode whitespace.
    let first = line.bytes().find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c'))?;
    if !(first == b'#' || first == b'<' || !first.is_ascii()) {
        return None;
    }
    let line = line.trim();
    let lmml = dialect.role_words_are_letter_runs();
    if let Some(heading) = heading_text(line) {
        if lmml {
            return letter_run_role(heading);
        }
        // `# <!-- user -->`: a comment delimiter as a heading's text.
        return named_role(comment_text(heading).unwrap_or(heading), aliases);
    }
    let inner = comment_text(line)?;
    if dialect.comment_allows_other_words() {
        letter_run_role(inner)
    } else {
        named_role(inner, aliases)
    }
}

/// The text of a one-line HTML comment, `<!--` and `-->` removed.
fn comment_text(line: &str) -> Option<&str> {
    line.strip_prefix("<!--")?.strip_suffix("-->")
}

/// The text of an ATX heading: 1-6 `#`, at least one space or tab, then
/// the rest (closing `#`s and emphasis are just more text).
fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && rest.starts_with([' ', '\t']))
        .then(|| rest.trim_start_matches([' ', '\t']))
}

/// The Standard heading grammar: the role `text` (a heading's or a comment
/// delimiter's) names when it is, in order, optional decorations (any
/// characters but letters, digits and `<`: emoji with their variation
/// selectors and joiners, symbols, emphasis, blanks), an optional turn
/// label (`Turn N --`, `Turn N -`, `Turn N:`, `N.`, `N)`, N ASCII digits,
/// then optional decorations again), the role word or an alias (compared
/// case-insensitively), then optional emphasis, one optional `:`, blanks
/// and a heading's closing `#`s; nothing else. HTML never supplies a role:
/// text holding `<` names none.
pub(crate) fn named_role(text: &str, aliases: Option<&RoleAliases>) -> Option<Role> {
    if text.contains('<') {
        return None;
    }
    let is_decoration = |c: char| !c.is_alphanumeric();
    let rest = text.trim_start_matches(is_decoration);
    let rest = turn_label(rest).map_or(rest, |after| after.trim_start_matches(is_decoration));
    let word = word_before_suffix(rest);
    if word.is_empty() {
        return None;
    }
    from_word(word.as_bytes()).or_else(|| aliases?.role(word))
}

/// The text after a turn label at the start of `text` (`Turn 3 --`,
/// `Turn 3:`, `Turn 3 -`, `3.`, `3)`), if it starts with one.
fn turn_label(text: &str) -> Option<&str> {
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let blanks = [' ', '\t'];
    if text.get(..4).is_some_and(|word| word.eq_ignore_ascii_case("turn")) {
        let after = &text[4..];
        let number = after.trim_start_matches(blanks);
        let n = digits(number);
        if number.len() == after.len() || n == 0 {
            return None;
        }
        let rest = number[n..].trim_start_matches(blanks);
        return ["--", "-", ":"].iter().find_map(|sep| rest.strip_prefix(sep));
    }
    let n = digits(text);
    if n == 0 {
        return None;
    }
    text[n..].strip_prefix(['.', ')'])
}

/// `text` without what may follow the role word: blanks, emphasis, one
/// `:` and a heading's closing `#`s (after a blank).
fn word_before_suffix(text: &str) -> &str {
    let mut word = text.trim_end();
    let closing = word.trim_end_matches('#');
    if closing.len() < word.len() && closing.ends_with([' ', '\t']) {
        word = closing.trim_end();
    }
    let mut colon = false;
    loop {
        let mut next = word.trim_end_matches(['*', '_']).trim_end();
        if !colon && let Some(before) = next.strip_suffix(':') {
            colon = true;
            next = before.trim_end();
        }
        if next.len() == word.len() {
            return word;
        }
        word = next;
    }
}

/// lmml: lowercase (Unicode-aware), then the first maximal run of `a`-`z`
/// bytes that is a role word; every other byte separates.
fn letter_run_role(text: &str) -> Option<Role> {
    if text.is_ascii() {
        // ASCII lowercases byte by byte; no other byte can join a run.
        return text
            .as_bytes()
            .split(|b| !b.is_ascii_alphabetic())
            .find_map(|run| if run.len() <= 9 { from_word(run) } else { None });
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
    if length < run.len() { from_word(&run[..length]) } else { None }
}

/// Calls `visit` with every delimiter line of `text` (holding `data`, with
/// the code spans `code`) as `dialect` finds them, in order, and what each
/// opens, until it breaks.
///
/// A delimiter line's first non-blank byte is `#` or `<`, so only lines
/// holding one are looked at: one `memchr2` pass over the text instead of a
/// visit to every line (a turn is cut off the rest of the text as soon as
/// the next delimiter is found, while those bytes are still in cache).
/// Only authored bytes are syntax: a `#` or `<` from a value, or one after
/// a value on its line, starts no delimiter.
pub(crate) fn delimiters(
    text: &str,
    data: &Data,
    code: &[Span],
    (dialect, aliases): (Dialect, &RoleAliases),
    visit: impl FnMut(Line, Opened) -> ControlFlow<()>,
) {
    let code: &[Span] = if dialect.delimiters_inside_code() { &[] } else { code };
    if data.is_empty() {
        scan(Source::new(text, dialect, Authored).with_aliases(aliases), code, visit);
    } else {
        scan(Source::new(text, dialect, data).with_aliases(aliases), code, visit);
    }
}

/// [`delimiters`] over `src`, outside the `code` spans.
pub(crate) fn scan<'a, P: Provenance<'a>>(
    src: Source<'a, P>,
    code: &[Span],
    mut visit: impl FnMut(Line, Opened) -> ControlFlow<()>,
) {
    let (text, bytes, data) = (src.text, src.bytes, src.data);
    // Always a line start.
    let mut search = src.body_start();
    let mut next_code = 0;
    let marker = |from: usize| memchr::memchr2(b'#', b'<', &bytes[from..]).map(|i| from + i);
    while let Some(hit) = data.find(search, 1, marker) {
        let start = src.line_start(search, hit);
        if !text[start..hit].chars().all(char::is_whitespace) || !data.is_authored(start, hit) {
            search = src.line_at(hit).next;
            continue;
        }
        let line = src.line_at(start);
        search = line.next;
        while next_code < code.len() && code[next_code].end <= line.start {
            next_code += 1;
        }
        if code.get(next_code).is_some_and(|span| span.contains(line.start)) {
            continue;
        }
        if let Some(opened) = classify(src, line)
            && visit(line, opened).is_break()
        {
            return;
        }
        if search >= bytes.len() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(line: &str, dialect: Dialect) -> Option<&'static str> {
        delimiter_role(line, dialect, None).map(Role::as_str)
    }

    #[test]
    fn shared_rules() {
        for dialect in [Dialect::Lmml, Dialect::Standard] {
            assert_eq!(role("## Turn 1 -- user", dialect), Some("user"));
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
            ("## user's turn", Some("user"), None),
            ("## multi_assistant", Some("assistant"), None),
            ("## system2", Some("system"), None),
            ("## tool-call", Some("tool"), None),
            ("## Über user", Some("user"), None),
            ("## usership", None, None),
            ("   ### Reply from the Assistant (draft)  \r", Some("assistant"), None),
            ("### Receiving User Input", Some("user"), None),
            ("### Inheritance as a Type System and as Code Sharing", Some("system"), None),
            ("## Function tool calling", Some("tool"), None),
            ("#### User Message Prefix", Some("user"), None),
            ("## <i class=\"fa-user-shield\"></i> Users", Some("user"), None),
            ("## <b>user</b>", Some("user"), None),
            ("<!-- TODO: ask the user -->", Some("user"), None),
            ("<!-- user -->", Some("user"), Some("user")),
        ];
        for (line, lmml, standard) in cases {
            assert_eq!(role(line, Dialect::Lmml), lmml, "lmml {line:?}");
            assert_eq!(role(line, Dialect::Standard), standard, "standard {line:?}");
        }
    }

    #[test]
    fn standard_heading_grammar() {
        let opens = [
            ("## Turn 1 -- user", "user"),
            ("## turn 12: Assistant", "assistant"),
            ("## Turn 3 - system", "system"),
            ("## Turn 3 -- **user**", "user"),
            ("### 2. User:", "user"),
            ("### 2) assistant", "assistant"),
            ("# assistant", "assistant"),
            ("## 👤 User", "user"),
            ("## 🤖 Assistant", "assistant"),
            ("## 🧑\u{200d}💻 User", "user"),
            ("## ❤\u{fe0f} user", "user"),
            ("## **User:**", "user"),
            ("## **User**:", "user"),
            ("#### USER:", "user"),
            ("## user ##", "user"),
            ("## Turn 2 -- 🤖 assistant", "assistant"),
            ("<!-- Turn 4 -- tool -->", "tool"),
            ("<!-- 👤 user: -->", "user"),
        ];
        for (line, expected) in opens {
            assert_eq!(role(line, Dialect::Standard), Some(expected), "{line:?}");
        }
        let text = [
            "## Turn 1",
            "## Turn -- user",
            "## Turn1 -- user",
            "## 3 user",
            "## user: notes",
            "## user::",
            "## user#",
            "## The user",
            "## user 2",
            "## 1.2. user",
            "## 👤",
            "## :",
            "## user (draft)",
            "## — system —",
            "## Turn 1 -- user -- Turn 2",
            "## <!-- user --> tail",
            "## <span>user</span>",
            "<!-- user <b> -->",
        ];
        for line in text {
            assert_eq!(role(line, Dialect::Standard), None, "{line:?}");
        }
    }

    #[test]
    fn aliases_name_roles_in_standard_only() {
        let aliases =
            RoleAliases::from_pairs(["You=user", "ChatGPT=assistant", "Claude 3=assistant"])
                .unwrap();
        let role = |line: &str, dialect| delimiter_role(line, dialect, Some(&aliases));
        assert_eq!(role("#### You:", Dialect::Standard), Some(Role::User));
        assert_eq!(role("#### ChatGPT:", Dialect::Standard), Some(Role::Assistant));
        assert_eq!(role("## 🤖 CLAUDE 3", Dialect::Standard), Some(Role::Assistant));
        assert_eq!(role("<!-- you -->", Dialect::Standard), Some(Role::User));
        assert_eq!(role("## Turn 2 -- chatgpt", Dialect::Standard), Some(Role::Assistant));
        assert_eq!(role("## You are here", Dialect::Standard), None);
        assert_eq!(role("## Claude", Dialect::Standard), None);
        assert_eq!(role("#### You:", Dialect::Lmml), None);
        assert_eq!(role("## user", Dialect::Standard), Some(Role::User));
    }
}
