//! The parser: nom 8 grammars for tag bodies and expressions, and a
//! recursive descent over the lexer's tokens for block structure, split by
//! concern: [`expr`] (expressions), [`stmt`] (statement tags), [`blocks`]
//! (block structure, the entry point). This module holds what they share:
//! the error type, the token helpers and the [`Grammar`] with its one
//! depth guard ([`Grammar::enter`]).
//!
//! House rule for nom (see the crate's ARCHITECTURE entry): leaves come only
//! from the `complete` submodules, so no parser can return `Incomplete`.
//! Every grammar error is a `Failure` carrying a message for people; a
//! plain nom `Error` only ever means "this alternative does not apply".
//! One depth counter covers expression nesting, operator chains and block
//! nesting, so hostile input gives a syntax error, never a stack overflow.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use nom::bytes::complete::{tag, take_while};
use nom::character::complete::{char, one_of, satisfy};
use nom::combinator::{not, opt, recognize};
use nom::error::{ErrorKind as NomKind, ParseError};
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Offset, Parser as _};

use crate::context::Scope;
use crate::dialect::{Dialect, Profile, Syntax};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::span::Span;
use crate::stack::StackBudget;
use crate::syntax::ast::{
    BinOp, BlockDef, CallArgs, CallBlock, Callee, Catch, CmpOp, Conditional, Control, EffectKind,
    Expr, ExprKind, FilterBlock, FilterCall, ForLoop, Import, ImportBinds, Include, MacroDef, Name,
    Node, Pattern, SetBlock, Slice, Target, TargetName, Template, TestCall, WithBlock,
};
use crate::syntax::lexer::{Lexer, Whitespace};
use crate::syntax::token::{TagKind, Token};
use crate::value::{Repr, Value};

/// A grammar error: where, what kind, and the message.
#[derive(Debug)]
pub(crate) struct PErr<'a> {
    at: &'a str,
    kind: ErrorKind,
    message: Option<String>,
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _: nom::error::ErrorKind) -> Self {
        PErr { at: input, kind: ErrorKind::SyntaxError, message: None }
    }

    fn append(_: &'a str, _: nom::error::ErrorKind, other: Self) -> Self {
        other
    }

    /// Keeps the error that got furthest into the input.
    fn or(self, other: Self) -> Self {
        if other.at.len() < self.at.len() { other } else { self }
    }
}

type PResult<'a, T> = IResult<&'a str, T, PErr<'a>>;

fn failure<'a, T>(at: &'a str, kind: ErrorKind, message: String) -> PResult<'a, T> {
    Err(nom::Err::Failure(PErr { at, kind, message: Some(message) }))
}

fn syntax<'a, T>(at: &'a str, message: String) -> PResult<'a, T> {
    failure(at, ErrorKind::SyntaxError, message)
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Optional whitespace: spaces, tabs, carriage returns and newlines, what
/// nom's `multispace0` takes, found by a byte loop instead of its char
/// decoding (it runs before every token: a tenth of a compile).
///
/// When `i` is all whitespace, what is left is the empty slice at its
/// start, as nom 8 returns it (`split_at(0)`): errors at the end of a tag
/// point at its trailing whitespace (`[%  %]`), and the snapshots pin that.
fn multispace0(i: &str) -> PResult<'_, &str> {
    match i.bytes().position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
        Some(n) => Ok((&i[n..], &i[..n])),
        None => Ok((&i[..0], i)),
    }
}

/// Punctuation `s` after optional whitespace.
fn sym<'a>(s: &'static str) -> impl nom::Parser<&'a str, Output = &'a str, Error = PErr<'a>> {
    preceded(multispace0, tag(s))
}

/// Keyword `s` as a whole word, after optional whitespace.
fn kw<'a>(s: &'static str) -> impl nom::Parser<&'a str, Output = &'a str, Error = PErr<'a>> {
    preceded(multispace0, terminated(tag(s), not(satisfy(is_ident_continue))))
}

/// An identifier after optional whitespace: a letter or `_`, then letters,
/// digits and `_`. ASCII is scanned by byte; from the first non-ASCII byte
/// on, by char (what nom's `satisfy` and `take_while` did throughout; a
/// proptest compares the two).
fn ident(i: &str) -> PResult<'_, &str> {
    let (i, _) = multispace0(i)?;
    let Some(first) = i.chars().next().filter(|&c| is_ident_start(c)) else {
        return Err(nom::Err::Error(PErr::from_error_kind(i, NomKind::Satisfy)));
    };
    let bytes = i.as_bytes();
    let mut n = first.len_utf8();
    while n < bytes.len() && (bytes[n].is_ascii_alphanumeric() || bytes[n] == b'_') {
        n += 1;
    }
    if n < bytes.len() && !bytes[n].is_ascii() {
        n += i[n..].find(|c| !is_ident_continue(c)).unwrap_or(i.len() - n);
    }
    Ok((&i[n..], &i[..n]))
}

/// Whether `p` matches at `i` (a nom `Error` means no; a `Failure` is kept).
fn peek_ok<'a, O>(
    mut p: impl nom::Parser<&'a str, Output = O, Error = PErr<'a>>,
    i: &'a str,
) -> Result<Option<(&'a str, O)>, nom::Err<PErr<'a>>> {
    match p.parse(i) {
        Ok(ok) => Ok(Some(ok)),
        Err(nom::Err::Error(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Words with a meaning of their own: never a variable, parameter or target.
const RESERVED: &[&str] = &[
    "and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False", "None",
    "null", "L", "G",
];

/// Jinja tags this language leaves out on purpose.
const UNSUPPORTED: &[&str] = &[];

/// The byte length of the token starting `i`: a word, a two-character
/// operator, or one character (0 at the end).
fn token_len(i: &str) -> usize {
    let Some(c) = i.chars().next() else { return 0 };
    if is_ident_continue(c) {
        i.find(|c| !is_ident_continue(c)).unwrap_or(i.len())
    } else if ["->", "==", "!=", "<=", ">=", "//", "**"].contains(&i.get(..2).unwrap_or("")) {
        2
    } else {
        c.len_utf8()
    }
}

/// A describable view of the text at `i`: `end of tag`, or its first token.
fn describe(i: &str) -> String {
    let i = i.trim_start();
    match token_len(i) {
        0 => "the end of the tag".into(),
        n => format!("`{}`", &i[..n]),
    }
}

/// The grammar of tag bodies. Holds the source (for spans), the nesting
/// depth and the tables of bare names and of filter and test names.
pub(crate) struct Grammar<'a> {
    source: &'a str,
    /// The syntax (the filter operator) and the profile (what exists).
    dialect: Dialect,
    depth: Cell<usize>,
    limit: usize,
    stack: StackBudget,
    names: RefCell<HashMap<&'a str, u32>>,
    /// How many times `caller` has been read so far: a macro whose body
    /// reads it takes a `call` block ([`MacroDef::caller`]).
    callers: Cell<usize>,
    filters: RefCell<Callees<'a>>,
    tests: RefCell<Callees<'a>>,
    /// Block names defined so far: a name may be defined once.
    blocks: RefCell<HashSet<&'a str>>,
}

/// Filter (or test) names numbered in the order first written.
#[derive(Default)]
pub(crate) struct Callees<'a> {
    ids: HashMap<&'a str, u32>,
    first: Vec<Callee<'a>>,
}

impl<'a> Callees<'a> {
    pub(super) fn with_capacity(names: usize) -> Callees<'a> {
        Callees { ids: HashMap::with_capacity(names), first: Vec::with_capacity(names) }
    }

    fn number(&mut self, name: &'a str, span: Span) -> u32 {
        let next = u32::try_from(self.first.len()).unwrap_or(u32::MAX);
        *self.ids.entry(name).or_insert_with(|| {
            self.first.push(Callee { name, span });
            next
        })
    }
}

impl<'a> Grammar<'a> {
    fn span(&self, from: &'a str, to: &'a str) -> Span {
        Span::new(self.source.offset(from), self.source.offset(to))
    }

    fn expr_at(&self, kind: ExprKind<'a>, from: &'a str, to: &'a str) -> Expr<'a> {
        Expr { kind, span: self.span(from, to) }
    }

    /// One more level of nesting, or a syntax error past the limit.
    fn enter(&self, i: &'a str) -> PResult<'a, ()> {
        let depth = self.depth.get() + 1;
        if depth > self.limit {
            return syntax(
                i,
                format!("the template nests deeper than the limit of {} levels", self.limit),
            );
        }
        if self.stack.exceeded() {
            return syntax(
                i,
                "the template nests too deeply (its native stack budget is used up)".into(),
            );
        }
        self.depth.set(depth);
        Ok((i, ()))
    }

    /// The filter operator: `->` or `|`.
    fn pipe(&self) -> &'static str {
        self.dialect.syntax.pipe()
    }

    /// Whether the Jinja2 profile is on.
    fn jinja2(&self) -> bool {
        self.dialect.profile == Profile::Jinja2
    }

    /// The error for a construct of the reference profile (`what`) written
    /// under the Jinja2 profile.
    fn not_in_profile<T>(&self, at: &'a str, what: &str) -> PResult<'a, T> {
        syntax(
            at,
            format!(
                "{what} belongs to the reference profile; the jinja2 profile has no stores, \
                 randomness or effects"
            ),
        )
    }

    fn leave(&self, levels: usize) {
        self.depth.set(self.depth.get().saturating_sub(levels));
    }

    /// `text` as a [`Name`]: numbered the first time it is written.
    fn intern(&self, text: &'a str) -> Name<'a> {
        let mut names = self.names.borrow_mut();
        let next = u32::try_from(names.len()).unwrap_or(u32::MAX);
        Name { text, id: *names.entry(text).or_insert(next) }
    }

    /// A whole tag body as one expression, nothing left over.
    fn full_expr(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (rest, e) = self.expr(i)?;
        self.end_of_tag(rest)?;
        Ok((rest, e))
    }

    fn end_of_tag(&self, i: &'a str) -> PResult<'a, ()> {
        let (rest, _) = multispace0(i)?;
        if rest.is_empty() {
            Ok((rest, ()))
        } else {
            syntax(rest, format!("unexpected {}, expected the end of the tag", describe(rest)))
        }
    }
}

mod blocks;
mod expr;
mod stmt;

pub(crate) use blocks::{Failure, TemplateParser};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::PErr;

    /// Where `rest` and `taken` start in `i`, and how long they are.
    fn shape(i: &str, (rest, taken): (&str, &str)) -> (usize, usize, usize, usize) {
        let at = |s: &str| s.as_ptr() as usize - i.as_ptr() as usize;
        (at(rest), rest.len(), at(taken), taken.len())
    }

    proptest! {
        /// The byte loop takes what nom's `multispace0` takes and leaves
        /// the same slices, to the pointer (error spans are offsets).
        #[test]
        fn multispace0_is_noms(i in "[ \t\r\n\u{0b}\u{0c}\u{a0}\u{2003}a%\\]]{0,12}") {
            let ours = super::multispace0(&i).unwrap();
            let noms = nom::character::complete::multispace0::<_, PErr<'_>>(i.as_str()).unwrap();
            prop_assert_eq!(shape(&i, ours), shape(&i, noms));
        }
    }

    proptest! {
        /// The byte scan of an identifier takes what nom's `satisfy` and
        /// `take_while` take, leaves the same rest and fails where they do.
        #[test]
        fn ident_is_noms(i in "[ \t_aZ09é\u{2003}\u{0663}.(%-]{0,10}") {
            use nom::Parser as _;
            use nom::bytes::complete::take_while;
            use nom::character::complete::satisfy;
            use nom::combinator::recognize;
            use nom::sequence::{pair, preceded};
            let noms = preceded(
                nom::character::complete::multispace0,
                recognize(pair(satisfy(super::is_ident_start), take_while(super::is_ident_continue))),
            )
            .parse(i.as_str());
            match (super::ident(&i), noms) {
                (Ok(ours), Ok(noms)) => prop_assert_eq!(shape(&i, ours), shape(&i, noms)),
                (Err(nom::Err::Error(ours)), Err(nom::Err::Error(noms))) => {
                    let noms: PErr<'_> = noms;
                    prop_assert_eq!(ours.at.as_ptr(), noms.at.as_ptr());
                    prop_assert_eq!(ours.at.len(), noms.at.len());
                }
                (ours, noms) => prop_assert!(false, "{:?} / {:?}", ours, noms),
            }
        }
    }

    #[test]
    fn multispace0_on_whitespace_only_leaves_the_start() {
        for i in ["", " ", " \t\r\n"] {
            let (rest, taken) = super::multispace0(i).unwrap();
            assert_eq!((rest.as_ptr(), rest.len(), taken), (i.as_ptr(), 0, i));
        }
    }
}
