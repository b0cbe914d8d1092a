//! Delimiter lines: `## Turn 1 -- user` and `<!-- assistant -->`.
//!
//! A line is trimmed of Unicode whitespace, then tested as a heading (1-6
//! `#` and a space or tab) and, failing that, as a one-line HTML comment.
//! The text left over names the role through its role word.
//!
//! On a line holding data (see [`classify`]) the syntax must be authored,
//! and the role slot follows the value rule: a value names the role only
//! when it is exactly a role word; a slot filled only by values that do
//! not is an invalid role value, never text.

use std::ops::ControlFlow;

use prompt_core::chat::Role;

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
        return delimiter_role(&src.text[content.range()], src.dialect).map(Ok);
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
        return match slot {
            Slot::Exact => from_word(inner.as_bytes()),
            Slot::AnyWord => role_word(inner, src.dialect),
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
        from_word(inner.as_bytes())
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

/// Standard: the first whole word (a maximal run of letters, digits and
/// `_`) that is a role word, case-insensitively. `user's` and `tool-call`
/// hold the words `user` and `tool`; `system2` and `multi_assistant` are
/// words of their own.
fn whole_word_role(text: &str) -> Option<Role> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find_map(|word| from_word(word.as_bytes()))
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
    dialect: Dialect,
    visit: impl FnMut(Line, Opened) -> ControlFlow<()>,
) {
    let code: &[Span] = if dialect.delimiters_inside_code() { &[] } else { code };
    if data.is_empty() {
        scan(Source::new(text, dialect, Authored), code, visit);
    } else {
        scan(Source::new(text, dialect, data), code, visit);
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
