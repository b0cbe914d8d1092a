//! What the lexer hands the parser: text runs and tag bodies.
//!
//! Tag bodies stay unparsed text here (the nom grammar in the parser reads
//! them); the lexer's job is only to find where each tag ends, which needs
//! bracket balance and string literals, and to apply whitespace control.

use std::fmt;

/// The kind of a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TagKind {
    /// `[[ expr ]]`
    Print,
    /// `[% stmt %]`
    Statement,
}

/// One lexed piece of a template, borrowing the source.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// Text outside tags, already trimmed by whitespace control. Never empty.
    Text(&'a str),
    /// A tag's body, between the delimiters and the `-`/`+` markers.
    Tag(TagKind, &'a str),
    /// The body of a `[% raw %]...[% endraw %]` block, verbatim.
    Raw(&'a str),
}

impl fmt::Debug for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Text(text) => write!(f, "Text({text:?})"),
            Token::Tag(TagKind::Print, body) => write!(f, "Print({body:?})"),
            Token::Tag(TagKind::Statement, body) => write!(f, "Statement({body:?})"),
            Token::Raw(text) => write!(f, "Raw({text:?})"),
        }
    }
}
