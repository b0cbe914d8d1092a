//! The lexer: a memchr scan of text for `[`, then a bracket- and
//! string-aware scan of each tag for its closer.
//!
//! Runs in linear time: text is skipped with `memchr`, each tag body is
//! scanned once, comments and raw blocks are found with `memmem`.
//! Whitespace control (`[[-`, `-]]`, ...) is applied here, so the parser
//! and evaluator only ever see trimmed text.

use memchr::memmem;

use crate::dialect::Syntax;
use crate::error::{Error, ErrorKind};
use crate::span::Span;
use crate::syntax::token::{TagKind, Token};

/// An iterator of tokens with their spans. A tag's span covers it from
/// opener to closer; a text's span covers the (trimmed) text.
#[derive(Debug)]
pub(crate) struct Lexer<'a> {
    source: &'a str,
    /// Where the text not yet lexed starts.
    pos: usize,
    /// What the previous tag trims from the start of the next text.
    trim_next: After,
    whitespace: Whitespace,
    /// A tag found while scanning text, returned after that text.
    pending: Option<(Token<'a>, Span)>,
    /// Set after an error, so that nothing follows it.
    done: bool,
    /// Where the brackets open in the tag being scanned start, innermost
    /// last: one buffer for every tag of the template.
    brackets: Vec<usize>,
    /// The parser's nesting limit: brackets open deeper than it are a
    /// syntax error here, so the buffer never grows past it (each bracket
    /// is at least one level of the parser's, which would refuse it anyway;
    /// without the bound 16 MiB of `(` took 128 MiB of offsets).
    nesting_limit: usize,
    /// The delimiters: brackets or braces.
    syntax: Syntax,
}

/// The optional Jinja whitespace modes (both off by default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Whitespace {
    /// Remove the first newline after a statement tag or comment.
    pub(crate) trim_blocks: bool,
    /// Remove spaces and tabs between the start of a line and a statement
    /// tag or comment.
    pub(crate) lstrip_blocks: bool,
}

/// What a tag removes from the start of the text after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    Nothing,
    /// `-]]`, `-%]`, `-#]`: all whitespace.
    Whitespace,
    /// `trim_blocks`: one newline.
    Newline,
}

/// What a tag removes from the end of the text before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Before {
    Nothing,
    /// `[[-`, `[%-`, `[#-`: all whitespace.
    Whitespace,
    /// `lstrip_blocks`: the indentation of its line.
    Indentation,
}

impl After {
    fn apply(self, text: &str) -> &str {
        match self {
            After::Nothing => text,
            After::Whitespace => text.trim_start(),
            After::Newline => {
                text.strip_prefix("\r\n").or_else(|| text.strip_prefix('\n')).unwrap_or(text)
            }
        }
    }
}

impl Before {
    /// `at_line_start`: the text begins a line (so indentation-only text is
    /// indentation).
    fn apply(self, text: &str, at_line_start: bool) -> &str {
        match self {
            Before::Nothing => text,
            Before::Whitespace => text.trim_end(),
            Before::Indentation => {
                let stripped = text.trim_end_matches([' ', '\t']);
                let line_start =
                    if stripped.is_empty() { at_line_start } else { stripped.ends_with('\n') };
                if line_start { stripped } else { text }
            }
        }
    }
}

/// Where a tag's closer is, and what follows from it.
struct Closed {
    /// One past the body's last byte (before a `-` or `+` marker).
    body_end: usize,
    /// One past the closer.
    end: usize,
    after: After,
}

/// The bytes the scan of a tag body stops at: closers and the whitespace
/// markers before them, quotes and brackets. Every other byte is skipped
/// by one table lookup.
const IN_TAG: [bool; 256] = {
    let mut table = [false; 256];
    let special = b"]%-+\"'([{)}";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

impl<'a> Lexer<'a> {
    pub(crate) fn new(source: &'a str, whitespace: Whitespace) -> Lexer<'a> {
        Lexer {
            source,
            pos: 0,
            trim_next: After::Nothing,
            whitespace,
            pending: None,
            done: false,
            brackets: Vec::new(),
            nesting_limit: usize::MAX,
            syntax: Syntax::Brackets,
        }
    }

    /// Lexes the delimiters of `syntax` (brackets by default).
    pub(crate) fn with_syntax(mut self, syntax: Syntax) -> Lexer<'a> {
        self.syntax = syntax;
        self
    }

    /// Refuses brackets nested deeper than `limit` (the parser's nesting
    /// limit) as it scans, with the parser's message.
    pub(crate) fn with_nesting_limit(mut self, limit: usize) -> Lexer<'a> {
        self.nesting_limit = limit;
        self
    }

    /// What a statement tag or comment ending without a marker trims.
    fn block_after(&self) -> After {
        if self.whitespace.trim_blocks { After::Newline } else { After::Nothing }
    }

    fn error(&self, message: String, span: Span) -> Error {
        Error::new(ErrorKind::SyntaxError, message).at(self.source, span)
    }

    /// The next `[[`, `[%` or `[#` (`{{`, `{%`, `{#`) at or after `from`.
    fn find_opener(&self, mut from: usize) -> Option<usize> {
        let bytes = self.source.as_bytes();
        let open = self.syntax.open();
        while let Some(i) = memchr::memchr(open, &bytes[from..]) {
            let at = from + i;
            match bytes.get(at + 1) {
                Some(&b) if b == open || b == b'%' || b == b'#' => return Some(at),
                // A lone `[` is text: keep looking from the byte after it.
                _ => from = at + 1,
            }
        }
        None
    }

    /// Lexes the tag opening at `open`; `None` for a comment. Returns the
    /// token, what it trims from the text before it, and moves `pos` past it.
    fn lex_tag(&mut self, open: usize) -> Result<(Option<(Token<'a>, Span)>, Before), Error> {
        let bytes = self.source.as_bytes();
        let marker = bytes[open + 1];
        let mut body_start = open + 2;
        let block_like = marker != self.syntax.open();
        // `+` opts a statement tag or comment out of lstrip_blocks.
        let before = match bytes.get(body_start) {
            Some(b'-') => Before::Whitespace,
            Some(b'+') if block_like => Before::Nothing,
            _ if block_like && self.whitespace.lstrip_blocks => Before::Indentation,
            _ => Before::Nothing,
        };
        if matches!(bytes.get(body_start), Some(b'-'))
            || (block_like && bytes.get(body_start) == Some(&b'+'))
        {
            body_start += 1;
        }
        if marker == b'#' {
            let closer = [b'#', self.syntax.close()];
            let Some(i) = memmem::find(&bytes[body_start..], &closer) else {
                let (opener, closer) = (self.syntax.opener(b'#'), self.syntax.closer(b'#'));
                return Err(self.error(
                    format!("unclosed comment: `{opener}` has no `{closer}`"),
                    Span::new(open, open + 2),
                ));
            };
            let close = body_start + i;
            self.trim_next = match bytes[body_start..close].last() {
                Some(b'-') => After::Whitespace,
                Some(b'+') => After::Nothing,
                _ => self.block_after(),
            };
            self.pos = close + 2;
            return Ok((None, before));
        }
        let kind = if marker == self.syntax.open() { TagKind::Print } else { TagKind::Statement };
        let mut brackets = std::mem::take(&mut self.brackets);
        brackets.clear();
        let closed = self.find_closer(open, body_start, kind, &mut brackets);
        self.brackets = brackets;
        let closed = closed?;
        let body = &self.source[body_start..closed.body_end];
        self.pos = closed.end;
        self.trim_next = closed.after;
        let span = Span::new(open, closed.end);
        if kind == TagKind::Statement && body.trim() == "raw" {
            return Ok((Some(self.lex_raw(span)?), before));
        }
        Ok((Some((Token::Tag(kind, body), span)), before))
    }

    /// Finds the closer of a tag at bracket balance zero, outside strings;
    /// `open_brackets` (empty) holds the brackets open as it scans.
    fn find_closer(
        &self,
        open: usize,
        start: usize,
        kind: TagKind,
        open_brackets: &mut Vec<usize>,
    ) -> Result<Closed, Error> {
        let bytes = self.source.as_bytes();
        let close = self.syntax.close();
        let closer: &[u8; 2] =
            if kind == TagKind::Print { &[close, close] } else { &[b'%', close] };
        let mut i = start;
        while i < bytes.len() {
            let b = bytes[i];
            if !IN_TAG[usize::from(b)] {
                i += 1;
                continue;
            }
            let balanced = open_brackets.is_empty();
            if b == closer[0] && balanced && bytes.get(i + 1) == Some(&closer[1]) {
                let after =
                    if kind == TagKind::Statement { self.block_after() } else { After::Nothing };
                return Ok(Closed { body_end: i, end: i + 2, after });
            }
            match b {
                b'-' if balanced && bytes[i + 1..].starts_with(closer) && i > start => {
                    return Ok(Closed { body_end: i, end: i + 3, after: After::Whitespace });
                }
                // `+%]` opts out of trim_blocks.
                b'+' if kind == TagKind::Statement
                    && balanced
                    && bytes[i + 1..].starts_with(closer) =>
                {
                    return Ok(Closed { body_end: i, end: i + 3, after: After::Nothing });
                }
                b'"' | b'\'' => i = self.skip_string(i)?,
                b'(' | b'[' | b'{' => {
                    if open_brackets.len() >= self.nesting_limit {
                        let limit = self.nesting_limit;
                        return Err(self.error(
                            format!("the template nests deeper than the limit of {limit} levels"),
                            Span::new(i, i + 1),
                        ));
                    }
                    open_brackets.push(i);
                }
                b')' | b']' | b'}' => {
                    let Some(opened) = open_brackets.pop() else {
                        let what = self.syntax.closer(closer[0]);
                        return Err(self.error(
                            format!("unexpected `{}`: no bracket is open here (the tag ends with `{what}`)", b as char),
                            Span::new(i, i + 1),
                        ));
                    };
                    let expected = match bytes[opened] {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    };
                    if b != expected {
                        let prompt_core::text::Position { line, column } =
                            prompt_core::text::position(self.source, opened);
                        return Err(self.error(
                            format!(
                                "mismatched `{}`: the `{}` at line {line}, column {column} needs `{}` first",
                                b as char, bytes[opened] as char, expected as char
                            ),
                            Span::new(i, i + 1),
                        ));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        let second = if kind == TagKind::Print { self.syntax.open() } else { b'%' };
        let opener = self.syntax.opener(second);
        let hint = if !open_brackets.is_empty() {
            " (a bracket opened inside it is still open)"
        } else {
            ""
        };
        Err(self.error(
            format!("unclosed tag: `{opener}` has no `{}`{hint}", self.syntax.closer(closer[0])),
            Span::new(open, open + 2),
        ))
    }

    /// The index of the quote closing the string literal opening at `open`.
    fn skip_string(&self, open: usize) -> Result<usize, Error> {
        let bytes = self.source.as_bytes();
        let quote = bytes[open];
        let mut i = open + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b if b == quote => return Ok(i),
                _ => i += 1,
            }
        }
        Err(self.error("unterminated string literal".into(), Span::new(open, open + 1)))
    }

    /// Lexes a raw block whose opening tag is `open_tag`: everything up to the
    /// matching `[% endraw %]` is text.
    fn lex_raw(&mut self, open_tag: Span) -> Result<(Token<'a>, Span), Error> {
        let bytes = self.source.as_bytes();
        let content_start = self.pos;
        // Jinja2 keeps the newline after `{% raw %}` under trim_blocks.
        if self.syntax == Syntax::Jinja && self.trim_next == After::Newline {
            self.trim_next = After::Nothing;
        }
        let statement = [self.syntax.open(), b'%'];
        let end = [b'%', self.syntax.close()];
        let mut from = content_start;
        while let Some(i) = memmem::find(&bytes[from..], &statement) {
            let at = from + i;
            let mut j = at + 2;
            let trim_inner = bytes.get(j) == Some(&b'-');
            if trim_inner || bytes.get(j) == Some(&b'+') {
                j += 1;
            }
            while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                j += 1;
            }
            if bytes[j..].starts_with(b"endraw") {
                j += 6;
                while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                let marker = bytes.get(j).copied().filter(|b| matches!(b, b'-' | b'+'));
                if bytes[j + usize::from(marker.is_some())..].starts_with(&end) {
                    let text = std::mem::replace(&mut self.trim_next, After::Nothing)
                        .apply(&self.source[content_start..at]);
                    let text = if trim_inner { text.trim_end() } else { text };
                    self.pos = j + usize::from(marker.is_some()) + 2;
                    self.trim_next = match marker {
                        Some(b'-') => After::Whitespace,
                        Some(_) => After::Nothing,
                        None => self.block_after(),
                    };
                    return Ok((Token::Raw(text), Span::new(open_tag.start(), self.pos)));
                }
            }
            from = at + 2;
        }
        let (open, close) = (self.syntax.opener(b'%'), self.syntax.closer(b'%'));
        Err(self.error(
            format!("unclosed block: `{open} raw {close}` has no `{open} endraw {close}`"),
            open_tag,
        ))
    }

    fn next_token(&mut self) -> Result<Option<(Token<'a>, Span)>, Error> {
        loop {
            if let Some(pending) = self.pending.take() {
                return Ok(Some(pending));
            }
            if self.pos >= self.source.len() {
                return Ok(None);
            }
            let start = self.pos;
            let open = self.find_opener(start);
            let whole = &self.source[start..open.unwrap_or(self.source.len())];
            let mut text = std::mem::replace(&mut self.trim_next, After::Nothing).apply(whole);
            let text_start = start + (whole.len() - text.len());
            match open {
                Some(open) => {
                    let (tag, before) = self.lex_tag(open)?;
                    let at_line_start =
                        text_start == 0 || self.source.as_bytes()[text_start - 1] == b'\n';
                    text = before.apply(text, at_line_start);
                    self.pending = tag;
                }
                None => self.pos = self.source.len(),
            }
            if !text.is_empty() {
                return Ok(Some((
                    Token::Text(text),
                    Span::new(text_start, text_start + text.len()),
                )));
            }
        }
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<(Token<'a>, Span), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.next_token().transpose();
        self.done = matches!(next, Some(Err(_)) | None);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(source: &str) -> Vec<String> {
        Lexer::new(source, Whitespace::default())
            .map(|t| match t {
                Ok((token, span)) => format!("{token:?}@{span:?}"),
                Err(err) => format!("error {}: {}", err.column().unwrap_or(0), err.message()),
            })
            .collect()
    }

    #[test]
    fn closers_wait_for_bracket_balance_and_strings() {
        assert_eq!(lex("[[ party[0]]]!"), ["Print(\" party[0]\")@0..13", "Text(\"!\")@13..14"]);
        assert_eq!(lex("[[ \"]]\" ]]"), ["Print(\" \\\"]]\\\" \")@0..10"]);
        assert_eq!(lex("[[[1,2]]]"), ["Print(\"[1,2]\")@0..9"]);
    }

    /// One bracket buffer serves every tag: each starts balanced, and the
    /// bytes the scan skips by table (`%` in a print tag, `]` in a string)
    /// still end nothing.
    #[test]
    fn each_tag_scans_its_own_brackets() {
        assert_eq!(
            lex("[[ f((1), [2]) ]][% if {'a': (x)} %]%[[ 5 % 2 ]][[ ']]' ~ \"%]\" ]]"),
            [
                "Print(\" f((1), [2]) \")@0..17",
                "Statement(\" if {'a': (x)} \")@17..36",
                "Text(\"%\")@36..37",
                "Print(\" 5 % 2 \")@37..48",
                "Print(\" ']]' ~ \\\"%]\\\" \")@48..65",
            ]
        );
        assert_eq!(
            lex("[[ (a] ]][[ b) ]]"),
            ["error 6: mismatched `]`: the `(` at line 1, column 4 needs `)` first"]
        );
    }

    #[test]
    fn lone_brackets_and_stray_closers_are_text() {
        assert_eq!(lex("a [b] ]] %] #] [x"), ["Text(\"a [b] ]] %] #] [x\")@0..17"]);
    }

    #[test]
    fn whitespace_control() {
        assert_eq!(
            lex("a \n[[- x -]] \nb"),
            ["Text(\"a\")@0..1", "Print(\" x \")@3..12", "Text(\"b\")@14..15"]
        );
        assert_eq!(lex("a\n  [#- note -#]\n  b"), ["Text(\"a\")@0..1", "Text(\"b\")@19..20"]);
        assert_eq!(lex("[[-1]]"), ["Print(\"1\")@0..6"]);
        assert_eq!(lex("[%+ x +%]"), ["Statement(\" x \")@0..9"]);
    }

    #[test]
    fn raw_blocks_are_verbatim() {
        assert_eq!(
            lex("[% raw -%] [[ x ]] [%- endraw %]!"),
            ["Raw(\"[[ x ]]\")@0..32", "Text(\"!\")@32..33"]
        );
    }

    #[test]
    fn errors_point_at_the_opener_or_the_stray_bracket() {
        assert_eq!(lex("ab [[ x "), ["error 4: unclosed tag: `[[` has no `]]`"]);
        assert_eq!(lex("[# x"), ["error 1: unclosed comment: `[#` has no `#]`"]);
        assert_eq!(
            lex("[% if x) %]"),
            ["error 8: unexpected `)`: no bracket is open here (the tag ends with `%]`)"]
        );
        assert_eq!(lex("[[ 'x ]]"), ["error 4: unterminated string literal"]);
        assert_eq!(
            lex("[% raw %]x"),
            ["error 1: unclosed block: `[% raw %]` has no `[% endraw %]`"]
        );
    }
}
