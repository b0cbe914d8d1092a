//! The parser: nom 8 grammars for tag bodies and expressions, and a
//! recursive descent over the lexer's tokens for block structure.
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
use nom::character::complete::{char, multispace0, one_of, satisfy};
use nom::combinator::{not, opt, recognize};
use nom::error::{ErrorKind as NomKind, ParseError};
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Offset, Parser as _};

use crate::context::Scope;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::span::Span;
use crate::stack::StackBudget;
use crate::syntax::ast::{
    BinOp, CallArgs, Callee, CmpOp, Conditional, EffectKind, Expr, ExprKind, FilterCall, ForLoop,
    MacroDef, Name, Node, Slice, Target, TargetName, Template, TestCall,
};
use crate::syntax::lexer::{Lexer, Whitespace};
use crate::syntax::token::{TagKind, Token};
use crate::value::Value;

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

/// Punctuation `s` after optional whitespace.
fn sym<'a>(s: &'static str) -> impl nom::Parser<&'a str, Output = &'a str, Error = PErr<'a>> {
    preceded(multispace0, tag(s))
}

/// Keyword `s` as a whole word, after optional whitespace.
fn kw<'a>(s: &'static str) -> impl nom::Parser<&'a str, Output = &'a str, Error = PErr<'a>> {
    preceded(multispace0, terminated(tag(s), not(satisfy(is_ident_continue))))
}

/// An identifier after optional whitespace.
fn ident(i: &str) -> PResult<'_, &str> {
    preceded(multispace0, recognize(pair(satisfy(is_ident_start), take_while(is_ident_continue))))
        .parse(i)
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
const UNSUPPORTED: &[&str] = &[
    "extends",
    "block",
    "include",
    "import",
    "from",
    "call",
    "filter",
    "with",
    "do",
    "autoescape",
    "break",
    "continue",
    "endblock",
    "endcall",
    "endfilter",
    "endwith",
    "endautoescape",
];

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

/// A statement tag's meaning.
#[derive(Debug)]
enum Stmt<'a> {
    If(Expr<'a>),
    Elif(Expr<'a>),
    Else,
    /// `endif`, `endfor`, ... (the word).
    End(&'a str),
    For {
        targets: Vec<&'a str>,
        iterable: Expr<'a>,
        filter: Option<Expr<'a>>,
    },
    Set(Target<'a>, Option<Expr<'a>>),
    Macro(&'a str, Vec<(&'a str, Option<Expr<'a>>)>),
    Chance(Expr<'a>),
    Weighted,
    Choice(Expr<'a>),
    Effect(EffectKind, Expr<'a>),
}

impl Stmt<'_> {
    /// The word that opened the tag, for block-structure messages.
    fn word(&self) -> &str {
        match self {
            Stmt::If(_) => "if",
            Stmt::Elif(_) => "elif",
            Stmt::Else => "else",
            Stmt::End(word) => word,
            Stmt::For { .. } => "for",
            Stmt::Set(..) => "set",
            Stmt::Macro(..) => "macro",
            Stmt::Chance(_) => "chance",
            Stmt::Weighted => "weighted",
            Stmt::Choice(_) => "choice",
            Stmt::Effect(EffectKind::QuickReply, _) => "qr",
            Stmt::Effect(EffectKind::SlashCommand, _) => "st",
        }
    }
}

/// The grammar of tag bodies. Holds the source (for spans), the nesting
/// depth and the tables of bare names and of filter and test names.
pub(crate) struct Grammar<'a> {
    source: &'a str,
    depth: Cell<usize>,
    limit: usize,
    stack: StackBudget,
    names: RefCell<HashMap<&'a str, u32>>,
    filters: RefCell<Callees<'a>>,
    tests: RefCell<Callees<'a>>,
}

/// Filter (or test) names numbered in the order first written.
#[derive(Default)]
pub(crate) struct Callees<'a> {
    ids: HashMap<&'a str, u32>,
    first: Vec<Callee<'a>>,
}

impl<'a> Callees<'a> {
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

    /// `expr`: the conditional expression, the top of the precedence chain.
    ///
    /// What counts as a nesting level: a bracket pair (group, list, map,
    /// subscript, call), a prefix operator, each operator of a chain, each
    /// postfix operation, a conditional, a block; so 100 parentheses are
    /// 100 levels. The functions on the way down (this one, `operators`,
    /// `unary`, `postfix`, `primary`, `parenthesized`) are kept small and do
    /// their other work in helpers called before or after the recursion:
    /// their frames are on the native stack once per level, and in debug
    /// builds a frame holds every temporary of its function.
    fn expr(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let (i, then) = self.operators(start, 1)?;
        self.conditional(then, start, i)
    }

    /// After `then`: `if cond [else otherwise]`, when it follows.
    fn conditional(&self, then: Expr<'a>, start: &'a str, i: &'a str) -> PResult<'a, Expr<'a>> {
        let Some((i, _)) = peek_ok(kw("if"), i)? else { return Ok((i, then)) };
        self.enter(i)?;
        let (i, cond) = self.operators(i, 1)?;
        let (i, otherwise) = match peek_ok(kw("else"), i)? {
            Some((i, _)) => self.expr(i).map(|(i, e)| (i, Some(e)))?,
            None => (i, None),
        };
        self.leave(1);
        let cond = Box::new(Conditional { then, cond, otherwise });
        Ok((i, self.expr_at(ExprKind::Cond(cond), start, i)))
    }

    /// Binary operators and `not`, by precedence climbing: operators of
    /// level `min` and above. Levels, loosest first: `or` 1, `and` 2,
    /// `not` 3 (prefix), comparisons 4 (chained), `+ -` 5, `~` 6,
    /// `* / // %` 7, `**` 8; all left-associative. One frame per operand
    /// keeps the native stack shallow. Each operator counts as a nesting
    /// level, as the evaluator recurses on the tree it builds.
    fn operators(&self, i: &'a str, min: u8) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let (i, left) = match starts_with_word(start, "not") && min <= 3 {
            true => self.not(start)?,
            false => self.unary(start)?,
        };
        self.operator_chain(start, i, left, min)
    }

    /// `not operand`.
    fn not(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (j, _) = kw("not").parse(start)?;
        self.enter(j)?;
        let (j, operand) = self.operators(j, 3)?;
        self.leave(1);
        Ok((j, self.expr_at(ExprKind::Not(Box::new(operand)), start, j)))
    }

    /// The operators of level `min` and above after the operand `left`.
    fn operator_chain(
        &self,
        start: &'a str,
        mut i: &'a str,
        mut left: Expr<'a>,
        min: u8,
    ) -> PResult<'a, Expr<'a>> {
        let mut levels = 0;
        let mut chained = false;
        while let Some((j, (op, level))) = peek_ok(binary_op, i)? {
            if level < min {
                break;
            }
            self.enter(j)?;
            levels += 1;
            let (j, right) = self.operators(j, level + 1)?;
            left = self.combine(op, left, right, chained, start, j);
            chained = matches!(op, Op::Compare(_));
            i = j;
        }
        self.leave(levels);
        Ok((i, left))
    }

    /// The node for `left op right`; a comparison right after another
    /// extends the chain (`a < b < c`).
    fn combine(
        &self,
        op: Op,
        left: Expr<'a>,
        right: Expr<'a>,
        chained: bool,
        from: &'a str,
        to: &'a str,
    ) -> Expr<'a> {
        let kind = match op {
            Op::Compare(cmp) => match left.kind {
                ExprKind::Compare(first, mut rest) if chained => {
                    rest.push((cmp, right));
                    ExprKind::Compare(first, rest)
                }
                _ => ExprKind::Compare(Box::new(left), vec![(cmp, right)]),
            },
            Op::Or => ExprKind::Or(Box::new(left), Box::new(right)),
            Op::And => ExprKind::And(Box::new(left), Box::new(right)),
            Op::Binary(op) => ExprKind::Binary(op, Box::new(left), Box::new(right)),
        };
        self.expr_at(kind, from, to)
    }

    /// Prefix `-` and `+`, binding tighter than `**`: `-2 ** 2` is 4.
    fn unary(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let bytes = start.as_bytes();
        match (bytes.first(), bytes.get(1)) {
            (Some(b'-'), next) if next != Some(&b'>') => self.signed(start, true),
            (Some(b'+'), _) => self.signed(start, false),
            _ => self.postfix(start),
        }
    }

    /// `-operand` or `+operand` (`start` at the sign).
    fn signed(&self, start: &'a str, negative: bool) -> PResult<'a, Expr<'a>> {
        let i = &start[1..];
        if negative && let (i, Some(min)) = self.min_integer(i)? {
            return Ok((i, self.expr_at(ExprKind::Const(min), start, i)));
        }
        self.enter(i)?;
        let (i, e) = self.unary(i)?;
        self.leave(1);
        Ok((i, self.expr_at(sign(negative, e), start, i)))
    }

    /// A primary followed by `.name`, `[...]` and `(...)`, then by
    /// `-> filter` and `is test`, which bind to what is on their left only.
    /// Kept small: it is on the native stack for every nesting level.
    fn postfix(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let (i, e) = self.primary(start)?;
        self.postfix_chain(start, i, e)
    }

    /// The postfix operations after the primary `e`.
    fn postfix_chain(
        &self,
        start: &'a str,
        mut i: &'a str,
        mut e: Expr<'a>,
    ) -> PResult<'a, Expr<'a>> {
        let mut levels = 0;
        let mut filtering = false;
        while let Some((op, rest)) = postfix_at(i, filtering) {
            let (j, kind) = self.postfix_op(op, e, rest)?;
            self.enter(j)?;
            levels += 1;
            filtering |= matches!(op, Postfix::Filter | Postfix::Test);
            e = self.expr_at(kind, start, j);
            i = j;
        }
        self.leave(levels);
        Ok((i, e))
    }

    /// The postfix operation `op` on `e`, its text starting at `rest`, as
    /// the new node's kind.
    fn postfix_op(&self, op: Postfix, e: Expr<'a>, rest: &'a str) -> PResult<'a, ExprKind<'a>> {
        match op {
            Postfix::Member => self.member(e, rest),
            Postfix::Subscript => self.subscript(e, rest),
            Postfix::Call => {
                let (j, args) = self.call_args(rest)?;
                Ok((j, ExprKind::Call(Box::new(e), Box::new(args))))
            }
            Postfix::Filter => self.filter(e, rest),
            Postfix::Test => self.test(e, rest),
        }
    }

    /// After `.`: an attribute name, or digits for an index (`pair.0`).
    fn member(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
        let (j, _) = multispace0(i)?;
        if let Some((k, digits)) = peek_ok(take_while_digits, j)? {
            let Ok(index) = digits.parse::<i64>() else {
                return syntax(j, format!("the index `{digits}` does not fit in 64 bits"));
            };
            let index = self.expr_at(ExprKind::Const(Value::from(index)), j, k);
            return Ok((k, self.item(e, index)));
        }
        let Some((k, name)) = peek_ok(ident, j)? else {
            return syntax(
                j,
                format!("expected an attribute name after `.`, found {}", describe(j)),
            );
        };
        let key = self.expr_at(ExprKind::Const(Value::str(name)), j, k);
        let kind = match e.kind {
            ExprKind::Store(scope) => ExprKind::StoreItem(scope, Box::new(key)),
            _ => ExprKind::Attr(Box::new(e), name),
        };
        Ok((k, kind))
    }

    /// After `->`: a filter name and arguments.
    fn filter(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
        let (j, (name, id)) = self.callee(i, "filter", "->", &self.filters)?;
        let (j, args) = self.optional_args(j)?;
        Ok((j, ExprKind::Filter(Box::new(e), Box::new(FilterCall { name, id, args }))))
    }

    /// After `is`: `not`, a test name, arguments.
    fn test(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
        let (i, negated) = match peek_ok(kw("not"), i)? {
            Some((i, _)) => (i, true),
            None => (i, false),
        };
        let (j, (name, id)) = self.callee(i, "test", "is", &self.tests)?;
        let (j, args) = self.optional_args(j)?;
        Ok((j, ExprKind::Test(Box::new(e), Box::new(TestCall { name, id, negated, args }))))
    }

    /// The name of a filter or test (`what`, written after `after`) and its
    /// number in `table`; whether a registry knows it is for `resolve.rs`.
    fn callee(
        &self,
        i: &'a str,
        what: &str,
        after: &str,
        table: &RefCell<Callees<'a>>,
    ) -> PResult<'a, (&'a str, u32)> {
        let (name_start, _) = multispace0(i)?;
        let Some((j, name)) = peek_ok(ident, name_start)? else {
            return syntax(
                name_start,
                format!("expected a {what} name after `{after}`, found {}", describe(name_start)),
            );
        };
        let start = self.source.offset(name_start);
        let id = table.borrow_mut().number(name, Span::new(start, start + token_len(name_start)));
        Ok((j, (name, id)))
    }

    fn item(&self, e: Expr<'a>, index: Expr<'a>) -> ExprKind<'a> {
        match e.kind {
            ExprKind::Store(scope) => ExprKind::StoreItem(scope, Box::new(index)),
            _ => ExprKind::Item(Box::new(e), Box::new(index)),
        }
    }

    /// After `[`: an index `[i]` or a slice `[a:b:c]`.
    fn subscript(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
        self.enter(i)?;
        let (i, start) = self.slice_part(i)?;
        let result = self.subscript_rest(e, i, start);
        self.leave(1);
        result
    }

    /// An index or a slice bound, or nothing before `:` or `]`.
    fn slice_part(&self, i: &'a str) -> PResult<'a, Option<Expr<'a>>> {
        let (i, _) = multispace0(i)?;
        if i.starts_with(':') || i.starts_with(']') {
            return Ok((i, None));
        }
        let (i, e) = self.expr(i)?;
        Ok((i, Some(e)))
    }

    /// After the first part inside `[`: `]`, or the rest of a slice.
    fn subscript_rest(
        &self,
        e: Expr<'a>,
        i: &'a str,
        start: Option<Expr<'a>>,
    ) -> PResult<'a, ExprKind<'a>> {
        if let Some((i, _)) = peek_ok(sym(":"), i)? {
            let (i, stop) = self.slice_part(i)?;
            let (i, step) = match peek_ok(sym(":"), i)? {
                Some((i, _)) => self.slice_part(i)?,
                None => (i, None),
            };
            let (i, _) = self.expect("]", i)?;
            return Ok((i, ExprKind::Slice(Box::new(Slice { value: e, start, stop, step }))));
        }
        let Some(index) = start else {
            return syntax(i, "expected an index or a slice inside `[]`".into());
        };
        let (i, _) = self.expect("]", i)?;
        Ok((i, self.item(e, index)))
    }

    fn expect(&self, s: &'static str, i: &'a str) -> PResult<'a, &'a str> {
        match peek_ok(sym(s), i)? {
            Some(ok) => Ok(ok),
            None => syntax(i, format!("expected `{s}`, found {}", describe(i))),
        }
    }

    /// `(args)` after a filter or test name, when present.
    fn optional_args(&self, i: &'a str) -> PResult<'a, CallArgs<'a>> {
        match i.trim_start().strip_prefix('(') {
            Some(rest) => self.call_args(rest),
            None => Ok((i, CallArgs::default())),
        }
    }

    /// After `(`: positional arguments, then `name=value`, then `)`.
    fn call_args(&self, mut i: &'a str) -> PResult<'a, CallArgs<'a>> {
        self.enter(i)?;
        let mut args = CallArgs::default();
        while let (j, Some((keyword, value))) = self.argument(i)? {
            match keyword {
                Some(name) => args.keywords.push((name, value)),
                None if !args.keywords.is_empty() => {
                    return syntax(
                        i,
                        "a positional argument cannot follow keyword arguments".into(),
                    );
                }
                None => args.positional.push(value),
            }
            match self.after_argument(j)? {
                (j, true) => i = j,
                (j, false) => {
                    i = j;
                    break;
                }
            }
        }
        self.leave(1);
        Ok((self.expect(")", i)?.0, args))
    }

    /// One argument, `name=value` or `value`; `None` before `)`.
    fn argument(&self, i: &'a str) -> PResult<'a, Option<(Option<&'a str>, Expr<'a>)>> {
        if i.trim_start().starts_with(')') {
            return Ok((i, None));
        }
        let (j, keyword) = keyword_name(i)?;
        let (j, value) = self.expr(j)?;
        Ok((j, Some((keyword, value))))
    }

    /// After an argument: `,` (true: another may follow) or the `)`, left
    /// for the caller (false).
    fn after_argument(&self, i: &'a str) -> PResult<'a, bool> {
        match peek_ok(sym(","), i)? {
            Some((j, _)) => Ok((j, true)),
            None => Ok((i, false)),
        }
    }

    /// Literals, names, `L`/`G`, and bracketed forms.
    fn primary(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let Some(c) = start.chars().next() else {
            return syntax(start, "expected an expression, found the end of the tag".into());
        };
        match c {
            '"' | '\'' => self.string_literal(start),
            '0'..='9' => self.number(start),
            '(' => self.parenthesized(start),
            '[' => self.list_literal(start),
            '{' => self.map(start),
            c if is_ident_start(c) => self.name(start),
            _ => not_an_expression(start),
        }
    }

    /// `[a, b, ...]`
    fn list_literal(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (i, items) = self.sequence(&start[1..], "]")?;
        Ok((i, self.list(items, start, i)))
    }

    fn string_literal(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (i, s) = self.string(start)?;
        // The author wrote every byte of a literal: it prints as authored.
        let value = Value::authored(&s);
        Ok((i, self.expr_at(ExprKind::Const(value), start, i)))
    }

    /// A name, a constant keyword, or `L`/`G`.
    fn name(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (i, name) = ident(start)?;
        let kind = match name {
            "true" | "True" => ExprKind::Const(Value::from(true)),
            "false" | "False" => ExprKind::Const(Value::from(false)),
            "none" | "None" | "null" => ExprKind::Const(Value::NONE),
            "L" => ExprKind::Store(Scope::Local),
            "G" => ExprKind::Store(Scope::Global),
            _ if RESERVED.contains(&name) => {
                return syntax(
                    start,
                    format!("expected an expression, found the keyword `{name}`"),
                );
            }
            _ => ExprKind::Name(self.intern(name)),
        };
        Ok((i, self.expr_at(kind, start, i)))
    }

    /// `(a)` groups; `()`, `(a,)` and `(a, b)` are lists (Jinja's tuples).
    fn parenthesized(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let i = &start[1..];
        if i.trim_start().starts_with(')') {
            return self.close_group(start, i, None);
        }
        self.enter(i)?;
        let (i, first) = self.expr(i)?;
        self.leave(1);
        self.close_group(start, i, Some(first))
    }

    /// After `(` and its first expression, if any: `)` for a group, or the
    /// rest of a list (`(a,)`, `(a, b)`; `()` is an empty list).
    fn close_group(
        &self,
        start: &'a str,
        i: &'a str,
        first: Option<Expr<'a>>,
    ) -> PResult<'a, Expr<'a>> {
        let Some(first) = first else {
            let (i, _) = self.expect(")", i)?;
            return Ok((i, self.list(Vec::new(), start, i)));
        };
        if let Some((i, _)) = peek_ok(sym(","), i)? {
            let (i, mut rest) = self.sequence(i, ")")?;
            rest.insert(0, first);
            return Ok((i, self.list(rest, start, i)));
        }
        let (i, _) = self.expect(")", i)?;
        Ok((i, Expr { kind: first.kind, span: self.span(start, i) }))
    }

    /// A list literal; constant when every item is.
    fn list(&self, items: Vec<Expr<'a>>, from: &'a str, to: &'a str) -> Expr<'a> {
        let kind = if items.iter().all(|e| matches!(e.kind, ExprKind::Const(_))) {
            let values = items
                .into_iter()
                .map(|e| match e.kind {
                    ExprKind::Const(v) => v,
                    _ => Value::UNDEFINED,
                })
                .collect();
            ExprKind::Const(Value::list(values))
        } else {
            ExprKind::List(items)
        };
        self.expr_at(kind, from, to)
    }

    /// Comma-separated expressions up to `close` (a trailing comma is fine).
    fn sequence(&self, mut i: &'a str, close: &'static str) -> PResult<'a, Vec<Expr<'a>>> {
        self.enter(i)?;
        let mut items = Vec::new();
        loop {
            if let Some((j, _)) = peek_ok(sym(close), i)? {
                self.leave(1);
                return Ok((j, items));
            }
            let (j, e) = self.expr(i)?;
            items.push(e);
            match peek_ok(sym(","), j)? {
                Some((j, _)) => i = j,
                None => {
                    let (j, _) = self.expect(close, j)?;
                    self.leave(1);
                    return Ok((j, items));
                }
            }
        }
    }

    /// `{key: value, ...}`; keys are expressions that must give strings.
    fn map(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        self.enter(start)?;
        let mut i = &start[1..];
        let mut entries = Vec::new();
        loop {
            if let Some((j, _)) = peek_ok(sym("}"), i)? {
                i = j;
                break;
            }
            let (j, key) = self.expr(i)?;
            let (j, _) = self.expect(":", j)?;
            let (j, value) = self.expr(j)?;
            entries.push((key, value));
            match peek_ok(sym(","), j)? {
                Some((j, _)) => i = j,
                None => {
                    let (j, _) = self.expect("}", j)?;
                    i = j;
                    break;
                }
            }
        }
        self.leave(1);
        Ok((i, self.expr_at(ExprKind::Map(entries), start, i)))
    }

    /// An integer or float literal, `_` separators allowed.
    /// Integers are 64-bit: one outside `i64` is a syntax error at the
    /// literal, never a float (`-9223372036854775808` is read by
    /// [`Grammar::min_integer`]). A point with no digit after it before an
    /// exponent is Python's: `1.e5` is `1.0e5`.
    fn number(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (i, (text, is_float)) = number_text(start)?;
        let clean: String = text.chars().filter(|&c| c != '_').collect();
        let value = if is_float {
            match clean.parse::<f64>() {
                Ok(x) if x.is_finite() => Value::from(x),
                _ => return syntax(start, format!("the number `{text}` is out of range")),
            }
        } else {
            match clean.parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) => {
                    return syntax(
                        start,
                        format!(
                            "the integer `{text}` does not fit in 64 bits \
                             (integers go from -9223372036854775808 to 9223372036854775807)"
                        ),
                    );
                }
            }
        };
        Ok((i, self.expr_at(ExprKind::Const(value), start, i)))
    }

    /// After a unary minus: `9223372036854775808` as the operand itself
    /// (no `.attr`, `[i]`, `(args)`, filter or test of its own), which is
    /// `i64::MIN` once negated and so fits though the literal alone does
    /// not.
    fn min_integer(&self, i: &'a str) -> PResult<'a, Option<Value>> {
        let (j, _) = multispace0(i)?;
        if !j.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok((i, None));
        }
        let (rest, (text, is_float)) = number_text(j)?;
        let magnitude = text.chars().filter(|&c| c != '_').eq("9223372036854775808".chars());
        let after = rest.trim_start();
        let postfix = after.starts_with(['.', '[', '(']) || after.starts_with("->");
        let postfix = postfix || peek_ok(kw("is"), after)?.is_some();
        let word_follows = rest.starts_with(is_ident_continue);
        if magnitude && !is_float && !postfix && !word_follows {
            Ok((rest, Some(Value::from(i64::MIN))))
        } else {
            Ok((i, None))
        }
    }

    /// A string literal with its escapes; borrowed when it has none.
    fn string(&self, start: &'a str) -> PResult<'a, Cow<'a, str>> {
        let quote = start.as_bytes()[0];
        let body = &start[1..];
        let Some(end) = body.bytes().position(|b| b == quote || b == b'\\') else {
            return syntax(start, "unterminated string literal".into());
        };
        if body.as_bytes()[end] == quote {
            return Ok((&body[end + 1..], Cow::Borrowed(&body[..end])));
        }
        let mut out = String::from(&body[..end]);
        let mut rest = &body[end..];
        loop {
            let Some(c) = rest.chars().next() else {
                return syntax(start, "unterminated string literal".into());
            };
            if c as u32 == u32::from(quote) {
                return Ok((&rest[1..], Cow::Owned(out)));
            }
            if c != '\\' {
                out.push(c);
                rest = &rest[c.len_utf8()..];
                continue;
            }
            let escape = rest;
            let Some(e) = rest[1..].chars().next() else {
                return syntax(escape, "a string cannot end with a backslash".into());
            };
            rest = &rest[1 + e.len_utf8()..];
            match e {
                '\\' | '\'' | '"' | '/' => out.push(e),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'x' => {
                    let hex = rest.get(..2).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                    let Some(n) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) else {
                        return syntax(escape, "bad escape: `\\x` needs two hex digits".into());
                    };
                    out.push(char::from(n));
                    rest = &rest[2..];
                }
                'u' => {
                    let (r, c) = unicode_escape(rest, escape)?;
                    out.push(c);
                    rest = r;
                }
                // An unknown escape keeps its backslash (`\s` stays `\s`).
                _ => {
                    out.push('\\');
                    out.push(e);
                }
            }
        }
    }
}

/// `name=` before a keyword argument's value, if it is one.
fn keyword_name(i: &str) -> PResult<'_, Option<&str>> {
    match peek_ok(terminated(ident, terminated(sym("="), not(char('=')))), i)? {
        Some((j, name)) => Ok((j, Some(name))),
        None => Ok((i, None)),
    }
}

/// A postfix operation.
#[derive(Debug, Clone, Copy)]
enum Postfix {
    Member,
    Subscript,
    Call,
    Filter,
    Test,
}

/// The postfix operation that follows at `i`, and where its text starts
/// (after `.`, `[`, `(`, `->` or `is`). Member access and calls only come
/// before the first filter or test.
fn postfix_at(i: &str, filtering: bool) -> Option<(Postfix, &str)> {
    let j = i.trim_start_matches([' ', '\t', '\n', '\r']);
    let bytes = j.as_bytes();
    let op = match (bytes.first(), bytes.get(1)) {
        (Some(b'.'), next) if !filtering && next != Some(&b'.') => (Postfix::Member, 1),
        (Some(b'['), _) if !filtering => (Postfix::Subscript, 1),
        (Some(b'('), _) if !filtering => (Postfix::Call, 1),
        (Some(b'-'), Some(b'>')) => (Postfix::Filter, 2),
        (Some(b'i'), Some(b's')) if starts_with_word(j, "is") => (Postfix::Test, 2),
        _ => return None,
    };
    Some((op.0, &j[op.1..]))
}

/// Whether `i` starts with the keyword `word` (a whole word).
fn starts_with_word(i: &str, word: &str) -> bool {
    i.strip_prefix(word).is_some_and(|rest| !rest.starts_with(is_ident_continue))
}

#[cold]
fn not_an_expression<T>(start: &str) -> PResult<'_, T> {
    syntax(start, format!("expected an expression, found {}", describe(start)))
}

/// `-e` or `+e`; negating a number literal folds into a constant.
fn sign(negative: bool, e: Expr<'_>) -> ExprKind<'_> {
    match (negative, e.kind) {
        (true, ExprKind::Const(v)) if v.as_f64().is_some() => match crate::value::ops::negate(&v) {
            Ok(v) => ExprKind::Const(v),
            Err(_) => ExprKind::Neg(Box::new(Expr { kind: ExprKind::Const(v), span: e.span })),
        },
        (true, kind) => ExprKind::Neg(Box::new(Expr { kind, span: e.span })),
        (false, kind) => ExprKind::Pos(Box::new(Expr { kind, span: e.span })),
    }
}

/// The text of a number literal and whether it is a float: digits (with
/// `_` separators), then a fraction (`.5`), an exponent (`e3`) or both; a
/// point right before an exponent counts as a fraction (`1.e5`).
fn number_text(start: &str) -> PResult<'_, (&str, bool)> {
    let digits = |i| take_while(|c: char| c.is_ascii_digit() || c == '_').parse(i);
    let exponent = || (one_of("eE"), opt(one_of("+-")), satisfy(|c| c.is_ascii_digit()), digits);
    let fraction = nom::branch::alt((
        recognize(pair(char('.'), pair(satisfy(|c| c.is_ascii_digit()), digits))),
        recognize(terminated(char('.'), nom::combinator::peek(exponent()))),
    ));
    let (i, (text, (_, fraction, exponent))) =
        nom::combinator::consumed((digits, opt(fraction), opt(exponent()))).parse(start)?;
    Ok((i, (text, fraction.is_some() || exponent.is_some())))
}

fn take_while_digits(i: &str) -> PResult<'_, &str> {
    nom::character::complete::digit1(i)
}

/// After `\u`: four hex digits, or a surrogate pair `\uD83D\uDE00`.
fn unicode_escape<'a>(rest: &'a str, escape: &'a str) -> PResult<'a, char> {
    let hex4 = |s: &str| {
        s.get(..4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let bad = |what: &str| syntax(escape, format!("bad escape: {what}"));
    let Some(high) = hex4(rest) else { return bad("`\\u` needs four hex digits") };
    let rest = &rest[4..];
    if (0xD800..0xDC00).contains(&high) {
        let Some(low) =
            rest.strip_prefix("\\u").and_then(hex4).filter(|l| (0xDC00..0xE000).contains(l))
        else {
            return bad("a high surrogate must be followed by a `\\u` low surrogate");
        };
        let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
        return match c {
            Some(c) => Ok((&rest[6..], c)),
            None => bad("invalid surrogate pair"),
        };
    }
    match char::from_u32(high) {
        Some(c) => Ok((rest, c)),
        None => bad("a lone low surrogate is not a character"),
    }
}

/// A binary operator after an operand.
#[derive(Debug, Clone, Copy)]
enum Op {
    Or,
    And,
    Compare(CmpOp),
    Binary(BinOp),
}

/// The binary operator at `i` and its precedence level (see
/// [`Grammar::operators`]). Dispatches on the first byte, so the common
/// case (no operator) costs one whitespace skip and one comparison.
fn binary_op(i: &str) -> PResult<'_, (Op, u8)> {
    let (i, _) = multispace0(i)?;
    let cmp = |op| (Op::Compare(op), 4);
    let bin = |op, level| (Op::Binary(op), level);
    let bytes = i.as_bytes();
    let (len, op) = match (bytes.first(), bytes.get(1)) {
        (Some(b'='), Some(b'=')) => (2, cmp(CmpOp::Eq)),
        (Some(b'!'), Some(b'=')) => (2, cmp(CmpOp::Ne)),
        (Some(b'<'), Some(b'=')) => (2, cmp(CmpOp::Le)),
        (Some(b'<'), _) => (1, cmp(CmpOp::Lt)),
        (Some(b'>'), Some(b'=')) => (2, cmp(CmpOp::Ge)),
        (Some(b'>'), _) => (1, cmp(CmpOp::Gt)),
        (Some(b'+'), _) => (1, bin(BinOp::Add, 5)),
        // `->` is a filter, not a minus.
        (Some(b'-'), Some(b'>')) => {
            return Err(nom::Err::Error(PErr::from_error_kind(i, NomKind::Tag)));
        }
        (Some(b'-'), _) => (1, bin(BinOp::Sub, 5)),
        (Some(b'~'), _) => (1, bin(BinOp::Concat, 6)),
        (Some(b'/'), Some(b'/')) => (2, bin(BinOp::FloorDiv, 7)),
        (Some(b'/'), _) => (1, bin(BinOp::Div, 7)),
        (Some(b'*'), Some(b'*')) => (2, bin(BinOp::Pow, 8)),
        (Some(b'*'), _) => (1, bin(BinOp::Mul, 7)),
        (Some(b'%'), _) => (1, bin(BinOp::Rem, 7)),
        (Some(b'i' | b'n' | b'o' | b'a'), _) => {
            return nom::branch::alt((
                kw("in").map(move |_| cmp(CmpOp::In)),
                pair(kw("not"), kw("in")).map(move |_| cmp(CmpOp::NotIn)),
                kw("or").map(|_| (Op::Or, 1)),
                kw("and").map(|_| (Op::And, 2)),
            ))
            .parse(i);
        }
        _ => return Err(nom::Err::Error(PErr::from_error_kind(i, NomKind::Tag))),
    };
    Ok((&i[len..], op))
}

// Statements.
impl<'a> Grammar<'a> {
    /// A statement tag's body.
    fn statement(&self, body: &'a str) -> PResult<'a, Stmt<'a>> {
        let (start, _) = multispace0(body)?;
        let Some((i, word)) = peek_ok(ident, start)? else {
            return syntax(
                start,
                format!("expected a statement keyword, found {}", describe(start)),
            );
        };
        let (i, stmt) = match word {
            "if" => self.expr(i).map(|(i, e)| (i, Stmt::If(e)))?,
            "elif" => self.expr(i).map(|(i, e)| (i, Stmt::Elif(e)))?,
            "else" => (i, Stmt::Else),
            "endif" | "endfor" | "endmacro" | "endchance" | "endweighted" | "endchoice"
            | "endset" => (i, Stmt::End(word)),
            "for" => self.for_header(i)?,
            "set" => self.set(i)?,
            "macro" => self.macro_header(i)?,
            "chance" => self.expr(i).map(|(i, e)| (i, Stmt::Chance(e)))?,
            "weighted" => (i, Stmt::Weighted),
            "choice" => self.expr(i).map(|(i, e)| (i, Stmt::Choice(e)))?,
            "qr" => self.expr(i).map(|(i, e)| (i, Stmt::Effect(EffectKind::QuickReply, e)))?,
            "st" => self.expr(i).map(|(i, e)| (i, Stmt::Effect(EffectKind::SlashCommand, e)))?,
            "endraw" => return syntax(start, "stray `endraw`: no `raw` block is open".into()),
            _ if UNSUPPORTED.contains(&word) => {
                return syntax(
                    start,
                    format!("unknown statement `{word}`: this language has no `{word}` tag"),
                );
            }
            _ => return syntax(start, format!("unknown statement `{word}`")),
        };
        self.end_of_tag(i)?;
        Ok((i, stmt))
    }

    /// A name that a loop, macro parameter or `set` binds.
    fn binding(&self, i: &'a str, what: &str) -> PResult<'a, &'a str> {
        let (start, _) = multispace0(i)?;
        match peek_ok(ident, start)? {
            Some((_, name)) if RESERVED.contains(&name) => {
                syntax(start, format!("`{name}` is reserved and cannot be used as {what}"))
            }
            Some(ok) => Ok(ok),
            None => syntax(start, format!("expected {what}, found {}", describe(start))),
        }
    }

    /// `for a[, b] in iterable [if cond]`
    fn for_header(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (mut i, first) = self.binding(i, "a loop variable")?;
        let mut targets = vec![first];
        while let Some((j, _)) = peek_ok(sym(","), i)? {
            let (j, name) = self.binding(j, "a loop variable")?;
            targets.push(name);
            i = j;
        }
        let Some((i, _)) = peek_ok(kw("in"), i)? else {
            return syntax(i, format!("expected `in`, found {}", describe(i)));
        };
        // Not `expr`: its `if` would swallow the loop filter.
        let (i, iterable) = self.operators(i, 1)?;
        let (i, filter) = match peek_ok(kw("if"), i)? {
            Some((i, _)) => self.operators(i, 1).map(|(i, e)| (i, Some(e)))?,
            None => (i, None),
        };
        Ok((i, Stmt::For { targets, iterable, filter }))
    }

    /// `set x = v`, `set L.x = v`, `set G["my var"] = v`, or the block form
    /// `set x` (body up to `endset`).
    fn set(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (start, _) = multispace0(i)?;
        let invalid = |at| {
            syntax(
                at,
                "invalid `set` target: write `name`, `L.name`, `G.name`, `L[\"name\"]` or `G[\"name\"]`"
                    .to_string(),
            )
        };
        let Some((i, name)) = peek_ok(ident, start)? else { return invalid(start) };
        let (i, target) = match name {
            "L" | "G" => {
                let scope = if name == "L" { Scope::Local } else { Scope::Global };
                let (i, key) = if let Some((j, _)) = peek_ok(sym("."), i)? {
                    let Some((j, key)) = peek_ok(ident, j)? else { return invalid(j) };
                    (j, TargetName::Static(Cow::Borrowed(key)))
                } else if let Some((j, _)) = peek_ok(sym("["), i)? {
                    let (j, key) = self.expr(j)?;
                    let (j, _) = self.expect("]", j)?;
                    let key = match key.kind {
                        ExprKind::Const(ref v) if v.as_str().is_some() => TargetName::Static(
                            Cow::Owned(v.as_str().unwrap_or_default().to_owned()),
                        ),
                        _ => TargetName::Computed(key),
                    };
                    (j, key)
                } else {
                    return syntax(
                        start,
                        format!("`{name}` alone cannot be assigned: write `{name}.name`"),
                    );
                };
                (i, Target { scope, name: key })
            }
            _ if RESERVED.contains(&name) => {
                return syntax(start, format!("`{name}` is reserved and cannot be assigned"));
            }
            _ => (i, Target { scope: Scope::State, name: TargetName::Static(Cow::Borrowed(name)) }),
        };
        match peek_ok(terminated(sym("="), not(char('='))), i)? {
            Some((i, _)) => {
                let (i, value) = self.expr(i)?;
                Ok((i, Stmt::Set(target, Some(value))))
            }
            None if i.trim().is_empty() => Ok((i, Stmt::Set(target, None))),
            None => invalid(start),
        }
    }

    /// `macro name(p1, p2=default)`
    fn macro_header(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (i, name) = self.binding(i, "a macro name")?;
        let (mut i, _) = self.expect("(", i)?;
        let mut params = Vec::new();
        // A set, not a scan: a macro may have thousands of parameters.
        let mut seen = HashSet::new();
        loop {
            if let Some((j, _)) = peek_ok(sym(")"), i)? {
                return Ok((j, Stmt::Macro(name, params)));
            }
            let (j, param) = self.binding(i, "a macro parameter")?;
            if !seen.insert(param) {
                return syntax(i, format!("duplicate macro parameter `{param}`"));
            }
            let (j, default) = match peek_ok(terminated(sym("="), not(char('='))), j)? {
                Some((j, _)) => self.expr(j).map(|(j, e)| (j, Some(e)))?,
                None => (j, None),
            };
            params.push((param, default));
            i = match peek_ok(sym(","), j)? {
                Some((j, _)) => j,
                None => self.expect(")", j).map(|_| j)?,
            };
        }
    }
}

/// A template that failed to parse: the error, and the filter and test
/// names written before the parser stopped.
pub(crate) struct Failure<'a> {
    pub(crate) error: Error,
    pub(crate) filters: Vec<Callee<'a>>,
    pub(crate) tests: Vec<Callee<'a>>,
}

/// Parses a whole template: tokens from the lexer, tag bodies with the
/// grammar, blocks by recursive descent.
pub(crate) struct TemplateParser<'a> {
    grammar: Grammar<'a>,
    lexer: Lexer<'a>,
}

/// A statement tag and its span, boxed: it is large, and the block parser
/// is on the native stack once per nesting level.
type Tag<'a> = Box<(Stmt<'a>, Span)>;

/// How a block body ended: the closing statement and its span.
type Closing<'a> = Option<Tag<'a>>;

/// What the next token of a block body is.
enum Piece<'a> {
    Node(Node<'a>),
    Tag(Tag<'a>),
    End,
}

/// Conditional branches (head expression and body) and the `else` body.
type Branches<'a> = (Vec<(Expr<'a>, Vec<Node<'a>>)>, Vec<Node<'a>>);

impl<'a> TemplateParser<'a> {
    pub(crate) fn new(
        source: &'a str,
        limits: &Limits,
        whitespace: Whitespace,
    ) -> TemplateParser<'a> {
        TemplateParser {
            grammar: Grammar {
                source,
                depth: Cell::new(0),
                limit: limits.nesting_limit,
                stack: StackBudget::new(limits.stack_limit),
                names: RefCell::new(HashMap::new()),
                filters: RefCell::default(),
                tests: RefCell::default(),
            },
            lexer: Lexer::new(source, whitespace),
        }
    }

    /// The template, or the error with the filter and test names written
    /// before it (an unknown one among them is reported instead, as it
    /// came first).
    pub(crate) fn parse(mut self) -> Result<Template<'a>, Failure<'a>> {
        let parsed = self.body(&[]);
        let filters = self.grammar.filters.into_inner().first;
        let tests = self.grammar.tests.into_inner().first;
        match parsed {
            Ok((body, closing)) => {
                debug_assert!(closing.is_none());
                Ok(Template { body, names: self.grammar.names.into_inner(), filters, tests })
            }
            Err(error) => Err(Failure { error, filters, tests }),
        }
    }

    fn error(&self, err: nom::Err<PErr<'a>>, fallback: &'a str) -> Error {
        let source = self.grammar.source;
        match err {
            nom::Err::Error(e) | nom::Err::Failure(e) => {
                let at = e.at.trim_start();
                let start = source.offset(at);
                let end = start + token_len(at);
                let message = e.message.unwrap_or_else(|| format!("unexpected {}", describe(e.at)));
                Error::new(e.kind, message).at(source, Span::new(start, end))
            }
            nom::Err::Incomplete(_) => {
                let at = source.offset(fallback);
                Error::new(ErrorKind::SyntaxError, "unexpected end of tag")
                    .at(source, Span::new(at, at))
            }
        }
    }

    fn syntax_error(&self, message: String, span: Span) -> Error {
        Error::new(ErrorKind::SyntaxError, message).at(self.grammar.source, span)
    }

    /// Nodes up to a statement whose word is in `ends` (returned), or to the
    /// end of the template (`None`).
    fn body(&mut self, ends: &[&str]) -> Result<(Vec<Node<'a>>, Closing<'a>), Error> {
        let mut nodes = Vec::new();
        loop {
            match self.piece()? {
                Piece::Node(node) => nodes.push(node),
                Piece::Tag(tag) if ends.contains(&tag.0.word()) => return Ok((nodes, Some(tag))),
                Piece::Tag(tag) => nodes.push(self.block(tag, ends)?),
                Piece::End => return Ok((nodes, None)),
            }
        }
    }

    /// The next token, parsed: text, a print tag, a statement tag.
    fn piece(&mut self) -> Result<Piece<'a>, Error> {
        let Some(token) = self.lexer.next() else { return Ok(Piece::End) };
        let (token, span) = token?;
        let (kind, body) = match token {
            Token::Text(text) | Token::Raw(text) => return Ok(Piece::Node(Node::Text(text))),
            Token::Tag(kind, body) => (kind, body),
        };
        if kind == TagKind::Print {
            let (_, e) = self.grammar.full_expr(body).map_err(|e| self.error(e, body))?;
            return Ok(Piece::Node(Node::Print(e)));
        }
        let (_, stmt) = self.grammar.statement(body).map_err(|e| self.error(e, body))?;
        Ok(Piece::Tag(Box::new((stmt, span))))
    }

    /// A statement's node, parsing its body when it opens a block.
    // Boxed on purpose: unboxed, the statement would take room in the
    // frame of `body`, which is on the stack once per nesting level.
    #[allow(clippy::boxed_local)]
    fn block(&mut self, tag: Tag<'a>, ends: &[&str]) -> Result<Node<'a>, Error> {
        let (stmt, span) = *tag;
        let source = self.grammar.source;
        let tag = &source[span.start()..span.end()];
        self.grammar.enter(tag).map_err(|e| self.error(e, tag))?;
        let node = match stmt {
            Stmt::If(cond) => {
                let (branches, otherwise) = self.branches(cond, "if", "endif", span)?;
                Node::If { branches, otherwise }
            }
            Stmt::Chance(p) => {
                let (branches, otherwise) = self.branches(p, "chance", "endchance", span)?;
                Node::Chance { branches, otherwise }
            }
            Stmt::For { targets, iterable, filter } => {
                let (body, closing) = self.closed_body(&["else", "endfor"], "for", span)?;
                let otherwise = match closing {
                    Stmt::Else => self.closed_body(&["endfor"], "for", span)?.0,
                    _ => Vec::new(),
                };
                Node::For(Box::new(ForLoop { targets, iterable, filter, body, otherwise, span }))
            }
            Stmt::Set(target, Some(value)) => {
                Node::Set { target: Box::new(target), value: Box::new(value), span }
            }
            Stmt::Set(target, None) => {
                let (body, _) = self.closed_body(&["endset"], "set", span)?;
                Node::SetBlock { target: Box::new(target), body, span }
            }
            Stmt::Macro(name, params) => {
                let (body, _) = self.closed_body(&["endmacro"], "macro", span)?;
                let name = self.grammar.intern(name);
                Node::Macro(Box::new(MacroDef { name, params, body }))
            }
            Stmt::Weighted => self.weighted(span)?,
            Stmt::Effect(kind, value) => Node::Effect { kind, value: Box::new(value), span },
            Stmt::Choice(_) => {
                return Err(self.syntax_error("`choice` outside a `weighted` block".into(), span));
            }
            Stmt::Elif(_) | Stmt::Else | Stmt::End(_) => {
                return Err(self.stray(stmt.word(), span, ends));
            }
        };
        self.grammar.leave(1);
        Ok(node)
    }

    /// The bodies of `if` or `chance` (`opener`): one per `elif`, then the
    /// `else` body (empty without `else`), up to `end`.
    fn branches(
        &mut self,
        first: Expr<'a>,
        opener: &str,
        end: &'static str,
        open: Span,
    ) -> Result<Branches<'a>, Error> {
        let mut branches = Vec::new();
        let mut head = first;
        loop {
            let (body, closing) = self.closed_body(&["elif", "else", end], opener, open)?;
            branches.push((head, body));
            match closing {
                Stmt::Elif(next) => head = next,
                Stmt::Else => {
                    let (otherwise, _) = self.closed_body(&[end], opener, open)?;
                    return Ok((branches, otherwise));
                }
                _ => return Ok((branches, Vec::new())),
            }
        }
    }

    /// A block body that must end with one of `ends`; an unclosed block is
    /// reported at its opening tag.
    fn closed_body(
        &mut self,
        ends: &[&str],
        opener: &str,
        open: Span,
    ) -> Result<(Vec<Node<'a>>, Stmt<'a>), Error> {
        match self.body(ends)? {
            (nodes, Some(tag)) => Ok((nodes, tag.0)),
            (_, None) => Err(self.unclosed(opener, open, ends)),
        }
    }

    fn unclosed(&self, opener: &str, open: Span, ends: &[&str]) -> Error {
        let expected = ends.last().copied().unwrap_or("end");
        self.syntax_error(
            format!(
                "unclosed block: this `{opener}` has no `[% {expected} %]` (expected `{expected}`)"
            ),
            open,
        )
    }

    /// An end, `elif` or `else` tag that does not close the current block.
    fn stray(&self, word: &str, span: Span, ends: &[&str]) -> Error {
        let message = match ends.last() {
            Some(expected) => format!("unexpected `{word}`: the open block expects `{expected}`"),
            None if word == "endchoice" => "`endchoice` outside a `weighted` block".into(),
            None => format!("stray `{word}`: no block is open that it could close"),
        };
        self.syntax_error(message, span)
    }

    /// `weighted`: only `choice` blocks, comments and whitespace inside.
    fn weighted(&mut self, open: Span) -> Result<Node<'a>, Error> {
        let mut choices = Vec::new();
        while let Some(token) = self.lexer.next() {
            let (token, span) = token?;
            match token {
                Token::Text(text) if text.trim().is_empty() => continue,
                Token::Tag(TagKind::Statement, body) => {
                    let (_, stmt) =
                        self.grammar.statement(body).map_err(|e| self.error(e, body))?;
                    match stmt {
                        Stmt::Choice(weight) => {
                            let (body, _) = self.closed_body(&["endchoice"], "choice", span)?;
                            choices.push((weight, body));
                        }
                        Stmt::End("endweighted") => return Ok(Node::Weighted { choices }),
                        _ => {
                            return Err(self.syntax_error(
                                format!("`{}` directly inside `weighted`: only `choice` blocks may appear there", stmt.word()),
                                span,
                            ));
                        }
                    }
                }
                _ => {
                    return Err(self.syntax_error(
                        "content directly inside `weighted` must be inside a `choice` block".into(),
                        span,
                    ));
                }
            }
        }
        Err(self.unclosed("weighted", open, &["endweighted"]))
    }
}
