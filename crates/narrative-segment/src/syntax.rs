//! The narrative syntax: where inline embeds (`@@@name` ... `@@@`) and
//! references (`@name`) are, with their byte positions.
//!
//! One linear pass. Line-start constructs come first (fenced code, embed
//! openers, indented code); the rest of a line is prose, where code spans,
//! HTML comments, links and `\` escapes hide what they contain. Every
//! forward search that can fail caches its answer, so hostile input (a
//! thousand unclosed `<!--`) stays linear.
//!
//! Syntax counts only in authored bytes: every search skips hits inside
//! data ranges, a line ending inside data is no line ending, and a data
//! byte is never a backtick, a blank or a fence byte. A name may come from
//! data, taken whole: its extent never depends on what the value holds.

use std::collections::HashSet;

use memchr::memmem;
use serde::{Deserialize, Serialize};

use crate::data::{Authored, Data, Provenance};
use crate::dialect::Dialect;
use crate::source::{Line, Source, is_blank};
use crate::span::Span;

/// One place the narrative names an embed, borrowed from its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence<'a> {
    /// The embed name, exactly as written (lmml keeps spaces and a CR).
    pub name: &'a str,
    /// The whole construct: `@name`, or `@@@name` through the closing `@@@`.
    pub span: Span,
    /// Inline content or a reference.
    pub kind: OccurrenceKind,
}

/// Whether an [`Occurrence`] carries its content or refers to an attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum OccurrenceKind {
    /// `@@@name\n<content>@@@`: the content bytes are at `content`.
    Inline {
        /// The bytes between the opening line and the closing `@@@`.
        content: Span,
    },
    /// `@name`: resolved from a bundle entry or a directory file.
    Reference,
}

/// An [`Occurrence`] as the parser keeps it: spans only, no allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) name: Span,
    pub(crate) span: Span,
    pub(crate) kind: OccurrenceKind,
}

impl Found {
    /// The occurrence in `text`, the text it was found in.
    pub(crate) fn in_text(self, text: &str) -> Occurrence<'_> {
        Occurrence { name: self.name.slice(text), span: self.span, kind: self.kind }
    }
}

/// What the parser finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// Every occurrence, in document order.
    pub(crate) occurrences: Vec<Found>,
    /// The indices of the first occurrence of each name, in order.
    pub(crate) firsts: Vec<usize>,
    /// `@@@name` openers that are never closed: (name, opening line).
    pub(crate) unclosed: Vec<(Span, Span)>,
    /// Fenced code blocks and inline embeds, in order and disjoint.
    pub(crate) code: Vec<Span>,
}

/// Finds every embed and reference of `text`, whose `data` ranges hold no
/// syntax.
pub(crate) fn parse(text: &str, dialect: Dialect, data: &Data) -> Parsed {
    if data.is_empty() {
        Scanner::new(Source::new(text, dialect, Authored)).run()
    } else {
        Scanner::new(Source::new(text, dialect, data)).run()
    }
}

/// A forward search whose last answer is kept: the first hit at or after
/// `from` is `found` (`usize::MAX`: none), which stays the answer for any
/// later start up to `found`.
#[derive(Debug, Clone, Copy)]
struct Cached {
    from: usize,
    found: usize,
}

impl Cached {
    const EMPTY: Cached = Cached { from: usize::MAX, found: 0 };

    fn find(&mut self, pos: usize, search: impl FnOnce(usize) -> Option<usize>) -> Option<usize> {
        if !(self.from <= pos && pos <= self.found) {
            *self = Cached { from: pos, found: search(pos).unwrap_or(usize::MAX) };
        }
        (self.found != usize::MAX).then_some(self.found)
    }
}

struct Scanner<'a, P> {
    src: Source<'a, P>,
    text: &'a str,
    bytes: &'a [u8],
    data: P,
    out: Parsed,
    embed_close: Cached,
    comment_close: Cached,
    /// `@@@` and `-->`, built once: building a finder per search cost more
    /// than the search on short gaps.
    embed_fence: memmem::Finder<'static>,
    comment_end: memmem::Finder<'static>,
    link_bracket: Cached,
    link_paren: Cached,
    /// The next `@`, backtick or LF: the stops of ordinary prose.
    next_common: Cached,
    /// The next `<`, `[` or backslash: rarer stops.
    next_rare: Cached,
    /// The next CR (a line ending in the Standard dialect).
    next_cr: Cached,
    /// The paragraph (up to a blank line) holding the last code span opener.
    paragraph: Span,
    /// Backtick run lengths with no closer in `paragraph`.
    unclosed_runs: Vec<usize>,
    /// The names seen so far, to note first occurrences while the name is
    /// still in cache.
    seen: HashSet<&'a str>,
    /// The last `@` looked at for a URL around it (Standard).
    url: UrlMemo,
}

/// Whether the `@` at `at` was inside a URL.
#[derive(Debug, Clone, Copy, Default)]
struct UrlMemo {
    at: usize,
    in_url: bool,
}

impl<'a, P: Provenance<'a>> Scanner<'a, P> {
    fn new(src: Source<'a, P>) -> Scanner<'a, P> {
        Scanner {
            src,
            text: src.text,
            bytes: src.bytes,
            data: src.data,
            out: Parsed::default(),
            embed_close: Cached::EMPTY,
            comment_close: Cached::EMPTY,
            embed_fence: memmem::Finder::new(b"@@@"),
            comment_end: memmem::Finder::new(b"-->"),
            link_bracket: Cached::EMPTY,
            link_paren: Cached::EMPTY,
            next_common: Cached::EMPTY,
            next_rare: Cached::EMPTY,
            next_cr: Cached::EMPTY,
            paragraph: Span::default(),
            unclosed_runs: Vec::new(),
            seen: HashSet::new(),
            url: UrlMemo::default(),
        }
    }

    fn record(&mut self, found: Found) {
        if self.seen.insert(found.name.slice(self.text)) {
            self.out.firsts.push(self.out.occurrences.len());
        }
        self.out.occurrences.push(found);
    }

    fn run(mut self) -> Parsed {
        let mut pos = self.src.body_start();
        // Indented code needs a blank line (or another code line) above it.
        let mut after_break = true;
        while pos < self.bytes.len() {
            // A line starting with data starts with no construct.
            if is_plain_line_start(self.bytes[pos]) || self.data.contains(pos) {
                // A heading is not a paragraph: indented code may follow it.
                after_break = self.is_atx_heading(pos, self.bytes.len());
                pos = self.prose(pos);
                continue;
            }
            let line = self.src.line_at(pos);
            if self.src.is_blank(line) {
                after_break = true;
                pos = line.next;
            } else if let Some(fence) = self.fence_opener(line) {
                pos = self.skip_fence(line, fence);
                after_break = true;
            } else if self.bytes[line.start..line.content_end].starts_with(b"@@@")
                && self.data.is_authored(line.start, line.start + 3)
            {
                pos = self.embed(line);
                after_break = false;
            } else if after_break && self.indent_width(line) >= 4 {
                pos = line.next;
            } else {
                let indent = self.indent_width(line).min(line.content_end - line.start);
                after_break =
                    indent <= 3 && self.is_atx_heading(line.start + indent, line.content_end);
                pos = self.prose(pos);
            }
        }
        self.out
    }

    /// Whether the bytes at `at` (up to `end`) start an ATX heading: 1-6
    /// authored `#`, then an authored blank or the end.
    fn is_atx_heading(&self, at: usize, end: usize) -> bool {
        let hashes = self.src.run_length(at, b'#', end);
        let after = at + hashes;
        (1..=6).contains(&hashes)
            && (after >= end
                || (matches!(self.bytes[after], b' ' | b'\t' | b'\r' | b'\n')
                    && !self.data.contains(after)))
    }

    /// Columns of authored leading indentation, a tab counting to the next
    /// multiple of 4.
    fn indent_width(&self, line: Line) -> usize {
        indent_width(&self.bytes[line.start..self.src.authored_until(line.start, line.content_end)])
    }

    /// An opening code fence on `line`: up to three spaces, then three or
    /// more backticks (with no authored backtick after them) or tildes, all
    /// authored. Returns the fence byte and length.
    fn fence_opener(&self, line: Line) -> Option<(u8, usize)> {
        let authored =
            &self.bytes[line.start..self.src.authored_until(line.start, line.content_end)];
        let indent = authored.iter().take(4).take_while(|&&b| b == b' ').count();
        if indent > 3 {
            return None;
        }
        let fence = *authored.get(indent).filter(|&&b| b == b'`' || b == b'~')?;
        let length = run_length(authored, indent, fence);
        let info = Span::new(line.start + indent + length, line.content_end);
        (length >= 3 && !(fence == b'`' && self.src.authored_contains(info, b'`')))
            .then_some((fence, length))
    }

    /// Skips a fenced code block opened on `line`; returns the position after
    /// its closing line (or the end of the text when it is never closed).
    fn skip_fence(&mut self, line: Line, (fence, length): (u8, usize)) -> usize {
        let mut pos = line.next;
        while pos < self.bytes.len() {
            let inner = self.src.line_at(pos);
            pos = inner.next;
            if self.data.is_authored(inner.start, inner.content_end)
                && is_fence_closer(&self.bytes[inner.start..inner.content_end], fence, length)
            {
                break;
            }
        }
        self.out.code.push(Span::new(line.start, pos));
        pos
    }

    /// An `@@@name` opening `line`: records the embed and returns where prose
    /// resumes (just after the closing `@@@`), or the next line when the
    /// embed is never closed.
    fn embed(&mut self, line: Line) -> usize {
        let name = Span::new(line.start + 3, line.content_end);
        if name.is_empty() {
            return line.next;
        }
        let content_start = line.next;
        let bytes = self.bytes;
        let data = self.data;
        let fence = &self.embed_fence;
        let close = (content_start < bytes.len())
            .then(|| {
                self.embed_close.find(content_start, |from| {
                    data.find(from, 3, |from| fence.find(&bytes[from..]).map(|i| from + i))
                })
            })
            .flatten();
        match close {
            Some(close) => {
                let span = Span::new(line.start, close + 3);
                let content = Span::new(content_start, close);
                self.record(Found { name, span, kind: OccurrenceKind::Inline { content } });
                self.out.code.push(span);
                if close + 3 < bytes.len() { self.prose(close + 3) } else { bytes.len() }
            }
            None => {
                self.out.unclosed.push((name, line.content()));
                line.next
            }
        }
    }

    /// Scans prose from `pos` to the end of its line (or further, when a
    /// comment or code span runs on); returns the next line's start.
    fn prose(&mut self, mut pos: usize) -> usize {
        let bytes = self.bytes;
        let data = self.data;
        loop {
            // Three cached searches instead of a byte loop: each is redone
            // only once the scan has passed its answer.
            let common = self.next_common.find(pos, |from| {
                data.find(from, 1, |from| {
                    memchr::memchr3(b'@', b'`', b'\n', &bytes[from..]).map(|i| from + i)
                })
            });
            let rare = self.next_rare.find(pos, |from| {
                data.find(from, 1, |from| {
                    memchr::memchr3(b'<', b'[', b'\\', &bytes[from..]).map(|i| from + i)
                })
            });
            let cr = match self.src.dialect {
                Dialect::Standard => self.next_cr.find(pos, |from| {
                    data.find(from, 1, |from| {
                        memchr::memchr(b'\r', &bytes[from..]).map(|i| from + i)
                    })
                }),
                Dialect::Lmml => None,
            };
            let none = usize::MAX;
            pos = common.unwrap_or(none).min(rare.unwrap_or(none)).min(cr.unwrap_or(none));
            if pos == none {
                return bytes.len();
            }
            pos = match bytes[pos] {
                // A CR is a stop only in the Standard dialect.
                b'\n' | b'\r' => {
                    let crlf = bytes[pos] == b'\r'
                        && bytes.get(pos + 1) == Some(&b'\n')
                        && !data.contains(pos + 1);
                    let next = pos + 1 + usize::from(crlf);
                    // A plain next line is more prose: no need to go back
                    // to the line-start dispatch.
                    if bytes.get(next).is_some_and(|&b| is_plain_line_start(b))
                        || data.contains(next)
                    {
                        next
                    } else {
                        return next;
                    }
                }
                b'@' => self.reference(pos),
                b'`' => self.code_span(pos),
                b'\\' => {
                    let escaped = bytes.get(pos + 1).is_some_and(u8::is_ascii_punctuation)
                        && !data.contains(pos + 1);
                    pos + 1 + usize::from(escaped)
                }
                b'<' if bytes[pos..].starts_with(b"<!--") && data.is_authored(pos, pos + 4) => {
                    let end = &self.comment_end;
                    self.comment_close
                        .find(pos + 4, |from| {
                            data.find(from, 3, |from| end.find(&bytes[from..]).map(|i| from + i))
                        })
                        .map_or(pos + 1, |close| close + 3)
                }
                b'[' => self.link(pos),
                _ => pos + 1,
            };
        }
    }

    /// A reference at the `@` at `at`; returns where the scan resumes.
    fn reference(&mut self, at: usize) -> usize {
        let name = if self.src.dialect.permissive_references() {
            permissive_name(self.src, at + 1)
        } else {
            // Right after a value, as after a word, an `@` is no reference
            // (`[[ user ]]@example.com`), whatever the value holds; nor is
            // one inside a URL (`https://host/@user`).
            let after_word = self.text[..at].chars().next_back().is_some_and(is_word_char)
                || (at > 0 && self.data.contains(at - 1));
            if after_word || self.in_url(at) { None } else { documented_name(self.src, at + 1) }
        };
        match name {
            Some(end) => {
                let name = Span::new(at + 1, end);
                self.record(Found {
                    name,
                    span: Span::new(at, end),
                    kind: OccurrenceKind::Reference,
                });
                end
            }
            None => at + 1,
        }
    }

    /// Whether the `@` at `at` is inside a URL: its blank-delimited token
    /// holds `://` before it. The look-back never passes the previous `@`
    /// looked at (whose answer holds for its token), so it stays linear.
    fn in_url(&mut self, at: usize) -> bool {
        let floor = self.url.at.min(at);
        let back = &self.bytes[floor..at];
        let scheme = |from: usize| memmem::find(&self.bytes[from..at], b"://").is_some();
        let in_url = match back.iter().rposition(u8::is_ascii_whitespace) {
            Some(blank) => scheme(floor + blank + 1),
            // The same token as the `@` at `floor` (`://` may straddle it).
            None => (self.url.at <= at && self.url.in_url) || scheme(floor.saturating_sub(2)),
        };
        self.url = UrlMemo { at, in_url };
        in_url
    }

    /// A code span opened by the backtick run at `at`: skips to its closing
    /// run of the same length in the same paragraph, or past the opening run
    /// when there is none. Runs are of authored backticks.
    fn code_span(&mut self, at: usize) -> usize {
        let bytes = self.bytes;
        // At least the byte at `at`, so that the scan always moves on.
        let length = self.src.run_length(at, b'`', bytes.len()).max(1);
        let after = at + length;
        if !self.paragraph.contains(at) {
            self.paragraph = Span::new(at, self.paragraph_end(at));
            self.unclosed_runs.clear();
        }
        let end = self.paragraph.end;
        if self.unclosed_runs.contains(&length) {
            return after;
        }
        let mut search = after;
        let next_backtick = |from: usize| {
            bytes.get(from..end).and_then(|hay| memchr::memchr(b'`', hay)).map(|i| from + i)
        };
        while let Some(start) = self.data.find(search, 1, next_backtick) {
            let run = self.src.run_length(start, b'`', end);
            if run == length {
                return start + run;
            }
            search = start + run;
        }
        self.unclosed_runs.push(length);
        after
    }

    /// Where the paragraph holding `at` ends: the start of the next blank
    /// line, or the end of the text.
    fn paragraph_end(&self, at: usize) -> usize {
        let mut pos = self.src.line_at(at).next;
        while pos < self.bytes.len() {
            let line = self.src.line_at(pos);
            if self.src.is_blank(line) {
                return pos;
            }
            pos = line.next;
        }
        self.bytes.len()
    }

    /// A link or image, `[text](target)` on one line: skipped whole, since
    /// neither its text nor its target holds references.
    fn link(&mut self, at: usize) -> usize {
        let bytes = self.bytes;
        let data = self.data;
        // Each search stops at the first `stop` byte or line end; the caller
        // checks which, so the cached answer stays a plain "first hit".
        let first = |stop: u8| {
            move |from: usize| {
                data.find(from, 1, |from| {
                    memchr::memchr3(stop, b'\n', b'\r', &bytes[from..]).map(|i| from + i)
                })
            }
        };
        let close = self.link_bracket.find(at + 1, first(b']'));
        let Some(close) = close.filter(|&i| bytes[i] == b']') else { return at + 1 };
        if bytes.get(close + 1) != Some(&b'(') || data.contains(close + 1) {
            return at + 1;
        }
        let paren = self.link_paren.find(close + 2, first(b')'));
        paren.filter(|&i| bytes[i] == b')').map_or(at + 1, |paren| paren + 1)
    }
}

/// lmml's name rule: every character up to the next whitespace (the first
/// one is taken whatever it is), then one trailing ASCII punctuation
/// character of the Unicode P category given back. A value in the name is
/// taken whole, and never gives a character back. Returns the name's end.
fn permissive_name<'a, P: Provenance<'a>>(src: Source<'a, P>, start: usize) -> Option<usize> {
    let text = src.text;
    // The first unit, taken whatever it is: a whole value, or one character.
    let mut end = match src.data.at(start) {
        Some(value) => value.end,
        None => start + text.get(start..)?.chars().next()?.len_utf8(),
    };
    // Then authored stretches up to their first whitespace, values whole.
    while end < text.len() {
        let stop = src.authored_until(end, text.len());
        if let Some(i) = text[end..stop].find(char::is_whitespace) {
            end += i;
            break;
        }
        end = src.data.at(stop).map_or(stop, |value| value.end);
    }
    if text[..end].ends_with(|c: char| GIVEN_BACK.contains(c)) && !src.data.contains(end - 1) {
        end -= 1;
    }
    (end > start).then_some(end)
}

/// ASCII characters in the Unicode P (punctuation) category.
const GIVEN_BACK: &str = "!\"#%&'()*,-./:;?@[\\]_{}";

/// The format's documented name rule, `[A-Za-z0-9][A-Za-z0-9_.-]*`, with
/// trailing dots (sentence punctuation) excluded; segments of that shape
/// may be joined by `/` (`@img/chart.png`), a `/` counting only when a
/// letter or digit follows it, so no segment can be `..`. A value in the
/// name stands for a whole segment part, taken whole (`@[[ file ]]`,
/// `@img/[[ file ]].png`). Returns the name's end.
fn documented_name<'a, P: Provenance<'a>>(src: Source<'a, P>, start: usize) -> Option<usize> {
    let bytes = src.bytes;
    let data = src.data;
    // Where a value at `at` ends, or `None` when `at` is authored.
    let value_end = |at: usize| data.at(at).map(|range| range.end);
    let authored =
        |at: usize, test: fn(&u8) -> bool| bytes.get(at).is_some_and(test) && !data.contains(at);
    let starts_segment =
        |at: usize| value_end(at).is_some() || authored(at, u8::is_ascii_alphanumeric);
    if !starts_segment(start) {
        return None;
    }
    let mut end = value_end(start).unwrap_or(start + 1);
    loop {
        if let Some(value) = value_end(end) {
            end = value;
        } else if authored(end, |&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            || (authored(end, |&b| b == b'/') && starts_segment(end + 1))
        {
            end += 1;
        } else {
            break;
        }
    }
    // A segment starts with a letter, a digit or a value, so this stops there.
    while bytes[end - 1] == b'.' && !data.contains(end - 1) {
        end -= 1;
    }
    Some(end)
}

/// A character that makes a following `@` part of a word (an e-mail
/// address: `bob@`, `j.doe@`, `a+tag@`, `x-y@`), in the Standard dialect.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+')
}

/// Whether a line starting with `byte` can only be prose: most lines start
/// with a byte no line-start construct (blank line, indentation, fence,
/// embed) does.
fn is_plain_line_start(byte: u8) -> bool {
    !matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | b'`' | b'~' | b'@')
}

fn run_length(bytes: &[u8], at: usize, byte: u8) -> usize {
    bytes[at..].iter().take_while(|&&b| b == byte).count()
}

/// Columns of leading indentation, a tab counting to the next multiple of 4.
fn indent_width(line: &[u8]) -> usize {
    let mut width = 0;
    for &b in line {
        match b {
            b' ' => width += 1,
            b'\t' => width += 4 - width % 4,
            _ => break,
        }
    }
    width
}

/// A closing code fence for an opener of `fence` x `length`: up to three
/// spaces, at least `length` fence bytes, then only blanks.
fn is_fence_closer(line: &[u8], fence: u8, length: usize) -> bool {
    let indent = line.iter().take(4).take_while(|&&b| b == b' ').count();
    if indent > 3 {
        return false;
    }
    let run = run_length(line, indent, fence);
    run >= length && is_blank(&line[indent + run..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str, dialect: Dialect) -> Vec<String> {
        parse(text, dialect, &Data::default())
            .occurrences
            .into_iter()
            .map(|o| o.name.slice(text).to_owned())
            .collect()
    }

    #[test]
    fn permissive_names_follow_the_reference_table() {
        let cases = [
            ("@image.png)", "image.png"),
            ("@image.png,", "image.png"),
            ("@report.pdf.", "report.pdf"),
            ("@a.png*", "a.png"),
            ("(@a.txt)", "a.txt"),
            ("@a.png).", "a.png)"),
            ("@a.png...", "a.png.."),
            ("@a.png**bold**", "a.png**bold*"),
            ("@a.png's", "a.png's"),
            ("@a.png~", "a.png~"),
            ("@bob,", "bob"),
            ("@日本.png", "日本.png"),
            ("@../secret.txt.", "../secret.txt"),
            ("@@a.png", "@a.png"),
            ("@a.png@b.png", "a.png@b.png"),
            ("bob@example.com", "example.com"),
            ("a @ b", " b"),
            ("x @\ny", "\ny"),
        ];
        for (text, name) in cases {
            assert_eq!(names(text, Dialect::Lmml), [name], "{text:?}");
        }
    }

    #[test]
    fn documented_names_stop_at_the_charset_and_skip_words() {
        let cases: [(&str, &[&str]); 14] = [
            ("see @report.pdf.", &["report.pdf"]),
            ("@img/chart.png, @img/ and @a/../b.txt", &["img/chart.png", "img", "a"]),
            ("@docs/v1.2/spec.md...", &["docs/v1.2/spec.md"]),
            ("(@a.txt), @b-c_d.png!", &["a.txt", "b-c_d.png"]),
            ("mail bob@example.com", &[]),
            ("a @ b and @.x", &[]),
            ("`@code.png` \\@esc.png <!-- @c.png --> [@l.png](@t.png)", &[]),
            ("@日本.png", &[]),
            ("end @", &[]),
            ("x\t@a.png@b.png", &["a.png"]),
            ("j.doe@x.org a+b@y.org x-y@z.org", &[]),
            ("https://mastodon.social/@NeoYokel and @me", &["me"]),
            ("see <https://x.org/@a.png> git+ssh://h/@b then\n@c.png", &["c.png"]),
            ("Co-Authored-By: Claude <noreply@anthropic.com>", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(names(text, Dialect::Standard), expected, "{text:?}");
        }
    }

    #[test]
    fn code_hides_references_in_both_dialects() {
        let text = "```\n@a.png\n```\n~~~~\n@b.png\n~~~\n~~~~\n\n    @c.png\n`x\n@d.png` @e.png\n";
        for dialect in [Dialect::Lmml, Dialect::Standard] {
            assert_eq!(names(text, dialect), ["e.png"]);
        }
        let parsed = parse(text, Dialect::Standard, &Data::default());
        assert_eq!(parsed.code, [Span::new(0, 15), Span::new(15, 36)]);
    }

    #[test]
    fn indented_code_may_follow_a_heading_but_not_a_paragraph() {
        let text = "## user\n    @code.png\ntext\n    @lazy.png\n";
        for dialect in [Dialect::Lmml, Dialect::Standard] {
            assert_eq!(names(text, dialect), ["lazy.png"]);
        }
    }

    #[test]
    fn inline_embeds() {
        let text = "@@@a.txt\nhello@@@ after @b.png\n@@@c.txt\r\nx\r\n@@@";
        let parsed = parse(text, Dialect::Lmml, &Data::default());
        let inline: Vec<_> = parsed
            .occurrences
            .iter()
            .map(|o| match o.kind {
                OccurrenceKind::Inline { content } => (o.name.slice(text), content.slice(text)),
                OccurrenceKind::Reference => (o.name.slice(text), "<ref>"),
            })
            .collect();
        assert_eq!(inline, [("a.txt", "hello"), ("b.png", "<ref>"), ("c.txt\r", "x\r\n")]);
        let standard = parse(text, Dialect::Standard, &Data::default());
        assert_eq!(standard.occurrences[2].name.slice(text), "c.txt");
        assert_eq!(standard.occurrences[2].span, Span::new(31, text.len()));
    }

    #[test]
    fn unclosed_embeds_are_text_without_references() {
        let text = "@@@a.txt @c.png\n@b.png\n";
        let parsed = parse(text, Dialect::Lmml, &Data::default());
        let names: Vec<&str> = parsed.occurrences.iter().map(|o| o.name.slice(text)).collect();
        assert_eq!(names, ["b.png"]);
        assert_eq!(parsed.unclosed, [(Span::new(3, 15), Span::new(0, 15))]);
    }

    proptest::proptest! {
        /// The scan without data (`Authored`) is the scan with no data ranges.
        #[test]
        fn both_provenances_agree_without_data(text in "[a-z@#`~<>!\\-\\[\\]()\\\\ \t\r\n.]{0,80}") {
            for dialect in [Dialect::Standard, Dialect::Lmml] {
                let none = Data::default();
                let generic = Scanner::new(Source::new(&text, dialect, &none)).run();
                proptest::prop_assert_eq!(generic, parse(&text, dialect, &none));
            }
        }
    }

    #[test]
    fn hostile_input_stays_linear_and_total() {
        let text = "<!--[`".repeat(20_000) + "``\n" + &"[x](".repeat(10_000);
        assert!(names(&text, Dialect::Standard).is_empty());
        assert!(names("@", Dialect::Lmml).is_empty());
        assert!(names("@@@\n@@@", Dialect::Lmml).is_empty());
    }
}
