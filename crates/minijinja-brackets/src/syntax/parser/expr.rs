//! The expression grammar: conditionals, operator chains by precedence,
//! prefix and postfix operations, literals, calls and their arguments.

use super::*;

impl<'a> Grammar<'a> {
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
    pub(super) fn expr(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let (i, then) = self.operators(start, 1)?;
        self.conditional(then, start, i)
    }

    /// After `then`: `if cond [else otherwise]`, when it follows.
    pub(super) fn conditional(
        &self,
        then: Expr<'a>,
        start: &'a str,
        i: &'a str,
    ) -> PResult<'a, Expr<'a>> {
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
    pub(super) fn operators(&self, i: &'a str, min: u8) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let (i, left) = match starts_with_word(start, "not") && min <= 3 {
            true => self.not(start)?,
            false => self.unary(start)?,
        };
        self.operator_chain(start, i, left, min)
    }

    /// `not operand`.
    pub(super) fn not(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (j, _) = kw("not").parse(start)?;
        self.enter(j)?;
        let (j, operand) = self.operators(j, 3)?;
        self.leave(1);
        Ok((j, self.expr_at(ExprKind::Not(Box::new(operand)), start, j)))
    }

    /// The operators of level `min` and above after the operand `left`.
    pub(super) fn operator_chain(
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
    pub(super) fn combine(
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
    pub(super) fn unary(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let bytes = start.as_bytes();
        match (bytes.first(), bytes.get(1)) {
            (Some(b'-'), next) if next != Some(&b'>') => self.signed(start, true),
            (Some(b'+'), _) => self.signed(start, false),
            _ => self.postfix(start),
        }
    }

    /// `-operand` or `+operand` (`start` at the sign).
    pub(super) fn signed(&self, start: &'a str, negative: bool) -> PResult<'a, Expr<'a>> {
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
    pub(super) fn postfix(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
        let (start, _) = multispace0(i)?;
        let (i, e) = self.primary(start)?;
        self.postfix_chain(start, i, e)
    }

    /// The postfix operations after the primary `e`.
    pub(super) fn postfix_chain(
        &self,
        start: &'a str,
        mut i: &'a str,
        mut e: Expr<'a>,
    ) -> PResult<'a, Expr<'a>> {
        let mut levels = 0;
        let mut filtering = false;
        while let Some((op, rest)) = postfix_at(i, filtering, self.dialect.syntax) {
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
    pub(super) fn postfix_op(
        &self,
        op: Postfix,
        e: Expr<'a>,
        rest: &'a str,
    ) -> PResult<'a, ExprKind<'a>> {
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
    pub(super) fn member(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
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
    pub(super) fn filter(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
        let (j, (name, id)) = self.callee(i, "filter", self.pipe(), &self.filters)?;
        let (j, args) = self.optional_args(j)?;
        Ok((j, ExprKind::Filter(Box::new(e), Box::new(FilterCall { name, id, args }))))
    }

    /// After `is`: `not`, a test name, arguments.
    pub(super) fn test(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
        let (i, negated) = match peek_ok(kw("not"), i)? {
            Some((i, _)) => (i, true),
            None => (i, false),
        };
        let (j, (name, id)) = self.callee(i, "test", "is", &self.tests)?;
        let (j, args) = match bare_argument_follows(j) {
            true => self.bare_test_argument(j)?,
            false => self.optional_args(j)?,
        };
        Ok((j, ExprKind::Test(Box::new(e), Box::new(TestCall { name, id, negated, args }))))
    }

    /// A test's one argument written without parentheses (`is divisibleby
    /// 3`, `is sameas none`): a primary and its postfix operations, as
    /// Jinja reads it.
    pub(super) fn bare_test_argument(&self, i: &'a str) -> PResult<'a, CallArgs<'a>> {
        self.enter(i)?;
        let (j, arg) = self.postfix(i)?;
        self.leave(1);
        Ok((j, CallArgs { positional: vec![arg], ..CallArgs::default() }))
    }

    /// The name of a filter or test (`what`, written after `after`) and its
    /// number in `table`; whether a registry knows it is for `resolve.rs`.
    pub(super) fn callee(
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

    pub(super) fn item(&self, e: Expr<'a>, index: Expr<'a>) -> ExprKind<'a> {
        match e.kind {
            ExprKind::Store(scope) => ExprKind::StoreItem(scope, Box::new(index)),
            _ => ExprKind::Item(Box::new(e), Box::new(index)),
        }
    }

    /// After `[`: an index `[i]` or a slice `[a:b:c]`.
    pub(super) fn subscript(&self, e: Expr<'a>, i: &'a str) -> PResult<'a, ExprKind<'a>> {
        self.enter(i)?;
        let (i, start) = self.slice_part(i)?;
        let result = self.subscript_rest(e, i, start);
        self.leave(1);
        result
    }

    /// An index or a slice bound, or nothing before `:` or `]`.
    pub(super) fn slice_part(&self, i: &'a str) -> PResult<'a, Option<Expr<'a>>> {
        let (i, _) = multispace0(i)?;
        if i.starts_with(':') || i.starts_with(']') {
            return Ok((i, None));
        }
        let (i, e) = self.expr(i)?;
        Ok((i, Some(e)))
    }

    /// After the first part inside `[`: `]`, or the rest of a slice.
    pub(super) fn subscript_rest(
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

    pub(super) fn expect(&self, s: &'static str, i: &'a str) -> PResult<'a, &'a str> {
        match peek_ok(sym(s), i)? {
            Some(ok) => Ok(ok),
            None => syntax(i, format!("expected `{s}`, found {}", describe(i))),
        }
    }

    /// `(args)` after a filter or test name, when present.
    pub(super) fn optional_args(&self, i: &'a str) -> PResult<'a, CallArgs<'a>> {
        match i.trim_start().strip_prefix('(') {
            Some(rest) => self.call_args(rest),
            None => Ok((i, CallArgs::default())),
        }
    }

    /// After `(`: positional arguments (`value`, `*list`), then keyword
    /// arguments (`name=value`, `**map`; a `*list` may still come among
    /// them, as in Python and minijinja), then `)`.
    pub(super) fn call_args(&self, mut i: &'a str) -> PResult<'a, CallArgs<'a>> {
        self.enter(i)?;
        let mut args = CallArgs::default();
        while let (j, Some(argument)) = self.argument(i)? {
            match argument {
                Argument::Keyword(name, value) => args.keywords.push((name, value)),
                Argument::Positional(_, false) if !args.keywords.is_empty() => {
                    return syntax(
                        i,
                        "a positional argument cannot follow keyword arguments".into(),
                    );
                }
                Argument::Positional(value, false) => args.positional.push(value),
                Argument::Positional(value, true) => {
                    let span = value.span;
                    let kind = ExprKind::Spread(Box::new(value));
                    args.positional.push(Expr { kind, span });
                }
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

    /// One argument: `name=value`, `**map`, `value` or `*list`; `None`
    /// before `)`. One call of [`Self::expr`]: this frame is on the native
    /// stack once per nesting level.
    pub(super) fn argument(&self, i: &'a str) -> PResult<'a, Option<Argument<'a>>> {
        let (start, _) = multispace0(i)?;
        if start.starts_with(')') {
            return Ok((i, None));
        }
        // The keyword (`Some(None)` for `**`), whether it is a spread, and
        // where the value starts.
        let (keyword, spread, at) = if let Some(rest) = start.strip_prefix("**") {
            (Some(None), false, rest)
        } else if let Some(rest) = start.strip_prefix('*') {
            (None, true, rest)
        } else {
            let (j, keyword) = keyword_name(start)?;
            (keyword.map(Some), false, j)
        };
        let (j, value) = self.expr(at)?;
        Ok((
            j,
            Some(match keyword {
                Some(name) => Argument::Keyword(name, value),
                None => Argument::Positional(value, spread),
            }),
        ))
    }

    /// After an argument: `,` (true: another may follow) or the `)`, left
    /// for the caller (false).
    pub(super) fn after_argument(&self, i: &'a str) -> PResult<'a, bool> {
        match peek_ok(sym(","), i)? {
            Some((j, _)) => Ok((j, true)),
            None => Ok((i, false)),
        }
    }

    /// Literals, names, `L`/`G`, and bracketed forms.
    pub(super) fn primary(&self, i: &'a str) -> PResult<'a, Expr<'a>> {
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
    pub(super) fn list_literal(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (i, items) = self.sequence(&start[1..], "]")?;
        Ok((i, self.list(items, start, i)))
    }

    pub(super) fn string_literal(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (mut i, mut s) = self.string(start)?;
        // Jinja2 joins adjacent string literals (`'a' "b"` is `'ab'`).
        while self.jinja2() {
            let (j, _) = multispace0(i)?;
            if !j.starts_with(['"', '\'']) {
                break;
            }
            let (k, more) = self.string(j)?;
            s = Cow::Owned(s.into_owned() + &more);
            i = k;
        }
        // The author wrote every byte of a literal: it prints as authored.
        let value = Value::authored(&s);
        Ok((i, self.expr_at(ExprKind::Const(value), start, i)))
    }

    /// A name, a constant keyword, or `L`/`G`.
    pub(super) fn name(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (i, name) = ident(start)?;
        let kind = match name {
            "true" | "True" => ExprKind::Const(Value::from(true)),
            "false" | "False" => ExprKind::Const(Value::from(false)),
            "none" | "None" | "null" => ExprKind::Const(Value::NONE),
            "L" | "G" if self.jinja2() => {
                return self.not_in_profile(start, &format!("the store `{name}`"));
            }
            "L" => ExprKind::Store(Scope::Local),
            "G" => ExprKind::Store(Scope::Global),
            _ if RESERVED.contains(&name) => {
                return syntax(
                    start,
                    format!("expected an expression, found the keyword `{name}`"),
                );
            }
            _ => {
                if name == "caller" {
                    self.callers.set(self.callers.get() + 1);
                }
                ExprKind::Name(self.intern(name))
            }
        };
        Ok((i, self.expr_at(kind, start, i)))
    }

    /// `(a)` groups; `()`, `(a,)` and `(a, b)` are tuples (lists to the
    /// reference).
    pub(super) fn parenthesized(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
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
    pub(super) fn close_group(
        &self,
        start: &'a str,
        i: &'a str,
        first: Option<Expr<'a>>,
    ) -> PResult<'a, Expr<'a>> {
        let Some(first) = first else {
            let (i, _) = self.expect(")", i)?;
            return Ok((i, self.tuple(Vec::new(), start, i)));
        };
        if let Some((i, _)) = peek_ok(sym(","), i)? {
            let (i, mut rest) = self.sequence(i, ")")?;
            rest.insert(0, first);
            return Ok((i, self.tuple(rest, start, i)));
        }
        let (i, _) = self.expect(")", i)?;
        Ok((i, Expr { kind: first.kind, span: self.span(start, i) }))
    }

    /// A list literal; constant when every item is.
    pub(super) fn list(&self, items: Vec<Expr<'a>>, from: &'a str, to: &'a str) -> Expr<'a> {
        self.sequence_literal(items, false, from, to)
    }

    /// A tuple literal (`()`, `(a,)`, `(a, b)`): a list to the reference,
    /// a tuple to Python printing; constant when every item is.
    pub(super) fn tuple(&self, items: Vec<Expr<'a>>, from: &'a str, to: &'a str) -> Expr<'a> {
        self.sequence_literal(items, true, from, to)
    }

    fn sequence_literal(
        &self,
        items: Vec<Expr<'a>>,
        tuple: bool,
        from: &'a str,
        to: &'a str,
    ) -> Expr<'a> {
        let kind = if items.iter().all(|e| matches!(e.kind, ExprKind::Const(_))) {
            let values = items
                .into_iter()
                .map(|e| match e.kind {
                    ExprKind::Const(v) => v,
                    _ => Value::UNDEFINED,
                })
                .collect();
            ExprKind::Const(if tuple { Value::tuple(values) } else { Value::list(values) })
        } else if tuple {
            ExprKind::Tuple(items)
        } else {
            ExprKind::List(items)
        };
        self.expr_at(kind, from, to)
    }

    /// Comma-separated expressions up to `close` (a trailing comma is fine).
    pub(super) fn sequence(
        &self,
        mut i: &'a str,
        close: &'static str,
    ) -> PResult<'a, Vec<Expr<'a>>> {
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
    pub(super) fn map(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
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
    pub(super) fn number(&self, start: &'a str) -> PResult<'a, Expr<'a>> {
        let (i, (text, is_float)) = number_text(start)?;
        if let Some(at) = misplaced_underscore(text) {
            return syntax(
                &start[at..],
                format!("a `_` in the number `{text}` must stand between two digits"),
            );
        }
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
    pub(super) fn min_integer(&self, i: &'a str) -> PResult<'a, Option<Value>> {
        let (j, _) = multispace0(i)?;
        if !j.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok((i, None));
        }
        let (rest, (text, is_float)) = number_text(j)?;
        let magnitude = text.chars().filter(|&c| c != '_').eq("9223372036854775808".chars());
        let after = rest.trim_start();
        let postfix = after.starts_with(['.', '[', '(']) || after.starts_with(self.pipe());
        let postfix = postfix || peek_ok(kw("is"), after)?.is_some();
        let word_follows = rest.starts_with(is_ident_continue);
        let clean = misplaced_underscore(text).is_none();
        if magnitude && clean && !is_float && !postfix && !word_follows {
            Ok((rest, Some(Value::from(i64::MIN))))
        } else {
            Ok((i, None))
        }
    }

    /// A string literal with its escapes; borrowed when it has none.
    pub(super) fn string(&self, start: &'a str) -> PResult<'a, Cow<'a, str>> {
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

/// One argument of a call, as written.
pub(super) enum Argument<'a> {
    /// `value`, or `*list` (true).
    Positional(Expr<'a>, bool),
    /// `name=value`, or `**map` (no name).
    Keyword(Option<&'a str>, Expr<'a>),
}

/// `name=` before a keyword argument's value, if it is one.
pub(super) fn keyword_name(i: &str) -> PResult<'_, Option<&str>> {
    match peek_ok(terminated(ident, terminated(sym("="), not(char('=')))), i)? {
        Some((j, name)) => Ok((j, Some(name))),
        None => Ok((i, None)),
    }
}

/// A postfix operation.
#[derive(Debug, Clone, Copy)]
pub(super) enum Postfix {
    Member,
    Subscript,
    Call,
    Filter,
    Test,
}

/// The postfix operation that follows at `i`, and where its text starts
/// (after `.`, `[`, `(`, `->` or `is`). Member access and calls only come
/// before the first filter or test.
pub(super) fn postfix_at(i: &str, filtering: bool, syntax: Syntax) -> Option<(Postfix, &str)> {
    let j = i.trim_start_matches([' ', '\t', '\n', '\r']);
    let bytes = j.as_bytes();
    let pipe = syntax == Syntax::Jinja;
    let op = match (bytes.first(), bytes.get(1)) {
        (Some(b'|'), _) if pipe => (Postfix::Filter, 1),
        (Some(b'.'), next) if !filtering && next != Some(&b'.') => (Postfix::Member, 1),
        (Some(b'['), _) if !filtering => (Postfix::Subscript, 1),
        (Some(b'('), _) if !filtering => (Postfix::Call, 1),
        (Some(b'-'), Some(b'>')) if !pipe => (Postfix::Filter, 2),
        (Some(b'i'), Some(b's')) if starts_with_word(j, "is") => (Postfix::Test, 2),
        _ => return None,
    };
    Some((op.0, &j[op.1..]))
}

/// Whether a test's bare argument starts at `i` (Jinja's rule): a
/// literal, a bracket or a name, but not a word that goes on the
/// expression (`and`, `or`, `else`, `if`, `in`, `is`, `not`).
pub(super) fn bare_argument_follows(i: &str) -> bool {
    let j = i.trim_start();
    match j.chars().next() {
        Some('"' | '\'' | '0'..='9' | '[' | '{') => true,
        Some(c) if is_ident_start(c) => !["and", "or", "else", "if", "in", "is", "not"]
            .iter()
            .any(|word| starts_with_word(j, word)),
        _ => false,
    }
}

/// Whether `i` starts with the keyword `word` (a whole word).
pub(super) fn starts_with_word(i: &str, word: &str) -> bool {
    i.strip_prefix(word).is_some_and(|rest| !rest.starts_with(is_ident_continue))
}

#[cold]
pub(super) fn not_an_expression<T>(start: &str) -> PResult<'_, T> {
    syntax(start, format!("expected an expression, found {}", describe(start)))
}

/// `-e` or `+e`; negating a number literal folds into a constant.
pub(super) fn sign(negative: bool, e: Expr<'_>) -> ExprKind<'_> {
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
pub(super) fn number_text(start: &str) -> PResult<'_, (&str, bool)> {
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

/// Where `text` (a number literal) has a `_` that does not stand between
/// two digits (`10_`, `1__0`, `1_.5`), as Python and Jinja require.
pub(super) fn misplaced_underscore(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().position(|(i, &b)| {
        b == b'_'
            && !(i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

pub(super) fn take_while_digits(i: &str) -> PResult<'_, &str> {
    nom::character::complete::digit1(i)
}

/// After `\u`: four hex digits, or a surrogate pair `\uD83D\uDE00`.
pub(super) fn unicode_escape<'a>(rest: &'a str, escape: &'a str) -> PResult<'a, char> {
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
pub(super) enum Op {
    Or,
    And,
    Compare(CmpOp),
    Binary(BinOp),
}

/// The binary operator at `i` and its precedence level (see
/// [`Grammar::operators`]). Dispatches on the first byte, so the common
/// case (no operator) costs one whitespace skip and one comparison.
pub(super) fn binary_op(i: &str) -> PResult<'_, (Op, u8)> {
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
