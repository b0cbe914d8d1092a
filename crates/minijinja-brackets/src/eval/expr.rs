//! Expression evaluation.

use super::{MAX_VALUE_DEPTH, Renderer, Resolved, describe};
use crate::arguments::Arguments;
use crate::context::Scope;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CallArgs, CallBlock, CmpOp, Expr, ExprKind, FilterCall, Slice, TestCall,
};
use crate::value::ops::{self, get_item};
use crate::value::{Repr, SLOT, Value, ValueMap};

impl<'t> Renderer<'t> {
    /// Evaluates an expression (one unit of fuel, one level of depth).
    pub(super) fn eval(&mut self, e: &'t Expr<'t>) -> Result<Value, Error> {
        self.evaluated(e, |r| r.eval_kind(e))
    }

    /// What evaluating `e` costs around `kind`, which gives its value: one
    /// unit of fuel and one level of depth.
    #[inline(always)]
    fn evaluated(
        &mut self,
        e: &'t Expr<'t>,
        kind: impl FnOnce(&mut Self) -> Result<Value, Error>,
    ) -> Result<Value, Error> {
        self.spend(1, e.span)?;
        self.descend(e.span)?;
        let value = kind(self);
        self.depth -= 1;
        value
    }

    /// One arm per form, each a small call: this frame is on the native
    /// stack once per nesting level, so it stays small even in debug builds.
    fn eval_kind(&mut self, e: &'t Expr<'t>) -> Result<Value, Error> {
        let span = e.span;
        match &e.kind {
            ExprKind::Const(value) => Ok(value.clone()),
            ExprKind::Name(name) => self.lookup(*name, span),
            ExprKind::Store(scope) => {
                let whole =
                    self.stores.whole(*scope, &mut memory!(self)).map_err(self.locate(span))?;
                self.charge_size(&whole, span)?;
                Ok(whole)
            }
            ExprKind::StoreItem(scope, key) => self.store_item(*scope, key),
            ExprKind::List(items) => self.list(items, false, span),
            ExprKind::Tuple(items) => self.list(items, true, span),
            ExprKind::Map(entries) => self.map(entries, span),
            ExprKind::Attr(base, name) => self.attr(base, name),
            ExprKind::Item(base, index) => self.item(base, index, span),
            ExprKind::Slice(slice) => self.slice(slice, span),
            ExprKind::Call(callee, args) => self.call(callee, args, span),
            ExprKind::Filter(value, call) => self.filter(value, call, span),
            ExprKind::Test(value, call) => self.test(value, call, span),
            ExprKind::Neg(inner) => self.unary(inner, ops::negate, span),
            ExprKind::Pos(inner) => self.unary(inner, ops::plus, span),
            ExprKind::Not(inner) => {
                let value = self.eval(inner)?;
                Ok(Value::from(!self.truth(&value, inner.span)?))
            }
            ExprKind::And(a, b) => {
                let left = self.eval(a)?;
                if self.truth(&left, a.span)? { self.eval(b) } else { Ok(left) }
            }
            ExprKind::Or(a, b) => {
                let left = self.eval(a)?;
                if self.truth(&left, a.span)? { Ok(left) } else { self.eval(b) }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, span),
            ExprKind::Compare(first, rest) => self.compare(first, rest, span),
            ExprKind::Spread(_) => Err(self.error(
                ErrorKind::SyntaxError,
                "`*` unpacks a call's positional arguments only",
                span,
            )),
            ExprKind::Cond(c) => {
                if self.condition(&c.cond)? {
                    self.eval(&c.then)
                } else {
                    match &c.otherwise {
                        Some(e) => self.eval(e),
                        None => Ok(Value::UNDEFINED),
                    }
                }
            }
        }
    }

    /// Whether `value` (of the expression at `span`) counts as true; in
    /// strict mode an undefined value is an error here (minijinja's strict
    /// mode: testing it is as wrong as printing it).
    pub(super) fn truth(&self, value: &Value, span: Span) -> Result<bool, Error> {
        if value.is_undefined() && self.env.strict() {
            return Err(self.error(
                ErrorKind::UndefinedError,
                "testing an undefined value (strict mode; `is defined` tests it)",
                span,
            ));
        }
        Ok(value.is_true())
    }

    /// Evaluates a condition (`if`, a loop filter, `x if c else y`).
    pub(super) fn condition(&mut self, e: &'t Expr<'t>) -> Result<bool, Error> {
        let value = self.eval(e)?;
        self.truth(&value, e.span)
    }

    fn store_item(&mut self, scope: Scope, key: &'t Expr<'t>) -> Result<Value, Error> {
        let k = self.eval(key)?;
        match k.as_str() {
            Some(k) => self.stores.get(scope, k, &mut memory!(self)).map_err(self.locate(key.span)),
            None => Err(self.error(
                ErrorKind::InvalidOperation,
                format!("a variable name must be a string, not {}", k.kind().as_str()),
                key.span,
            )),
        }
    }

    fn list(&mut self, items: &'t [Expr<'t>], tuple: bool, span: Span) -> Result<Value, Error> {
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            values.push(self.eval(item)?);
        }
        // The items were charged when they were made: the list costs its slots.
        let list = if tuple { Value::tuple(values) } else { Value::list(values) };
        self.check_nesting(&list, span)?;
        self.charge(SLOT * items.len(), span)?;
        Ok(list)
    }

    fn map(&mut self, entries: &'t [(Expr<'t>, Expr<'t>)], span: Span) -> Result<Value, Error> {
        let mut map = ValueMap::with_capacity(entries.len());
        // The Jinja2 profile: a literal's keys may all be integers.
        let mut int_keys = None;
        for (key, value) in entries {
            let k = self.eval(key)?;
            let k = match (&k.0, self.jinja2) {
                (Repr::Int(n), true) if int_keys != Some(false) => {
                    int_keys = Some(true);
                    Value::string(n.to_string())
                }
                (Repr::Str(_) | Repr::Text(_), _) if int_keys != Some(true) => {
                    int_keys = Some(false);
                    k
                }
                (Repr::Int(_) | Repr::Str(_) | Repr::Text(_), true) => {
                    return Err(self.error(
                        ErrorKind::InvalidOperation,
                        "a map's keys are all strings or all integers, not both",
                        key.span,
                    ));
                }
                _ => k,
            };
            let Some(k) = k.shared_str().cloned() else {
                return Err(self.error(
                    ErrorKind::InvalidOperation,
                    format!("map keys must be strings, not {}", k.kind().as_str()),
                    key.span,
                ));
            };
            let v = self.eval(value)?;
            map.insert(k, v);
        }
        let map = match int_keys {
            Some(true) => {
                Value(Repr::Map(std::sync::Arc::new(crate::value::Map::with_int_keys(map))))
            }
            _ => Value::map(map),
        };
        self.check_nesting(&map, span)?;
        self.charge(2 * SLOT * entries.len(), span)?;
        Ok(map)
    }

    /// `base.name`; `loop.name` reads the innermost loop directly.
    fn attr(&mut self, base: &'t Expr<'t>, name: &str) -> Result<Value, Error> {
        if let ExprKind::Name(var) = base.kind
            && var.text == "loop"
            && let Some(state) = self.current_loop()
            && !state.def.targets.contains(&"loop")
        {
            return Ok(state.attr(name));
        }
        // `name.attr` on a state variable reads through without cloning it.
        let resolved = match base.kind {
            ExprKind::Name(var) => Some((var, self.resolve(var))),
            _ => None,
        };
        if let Some((_, Resolved::Caller(caller))) = resolved {
            return self.caller_attr(caller.block, name, base.span);
        }
        if let Some((var, Resolved::State)) = resolved
            && self.module(var).is_none()
        {
            self.spend(1, base.span)?;
            let (source, unit) = (self.source, self.unit.name.as_deref());
            let found = self
                .stores
                .get_ref(Scope::State, &var, &mut memory!(self))
                .map_err(|e| e.at_in(source, base.span, unit))?;
            match found {
                Some(v) => return Ok(v.get(name).cloned().unwrap_or_default()),
                None if self.jinja2 && self.env.registry().function(&var).is_none() => {
                    return Err(self.undefined_base(base, &format!("attribute `{name}`")));
                }
                // A function's name (`range.name`) reads the function.
                None if self.env.registry().function(&var).is_some() => {}
                None => return Ok(Value::UNDEFINED),
            }
        }
        let value = match resolved {
            // What evaluating `base` would look up again (and clone again).
            Some((_, Resolved::Value(value))) => self.evaluated(base, |_| Ok(value))?,
            _ => self.eval(base)?,
        };
        if let Repr::Callable(c) = &value.0 {
            return self.callable_attr(c, name, base.span);
        }
        if self.jinja2 && value.is_undefined() {
            return Err(self.undefined_base(base, &format!("attribute `{name}`")));
        }
        Ok(value.get(name).cloned().unwrap_or_default())
    }

    /// Jinja2's rule: an attribute, item or method of an undefined value is
    /// an error naming what was undefined.
    pub(super) fn undefined_base(&self, base: &'t Expr<'t>, what: &str) -> Error {
        let written = &self.source[base.span.start()..base.span.end()];
        self.error(
            ErrorKind::UndefinedError,
            format!("`{written}` is undefined, so it has no {what}"),
            base.span,
        )
    }

    /// `caller.name`, `caller.arguments`, `caller.caller`, as a macro's.
    pub(super) fn caller_attr(
        &mut self,
        block: &'t CallBlock<'t>,
        attr: &str,
        span: Span,
    ) -> Result<Value, Error> {
        match attr {
            "name" => Ok(Value::str("caller")),
            "arguments" => self.param_names(&block.params, span),
            "caller" => Ok(Value::from(block.caller)),
            _ => Err(self.error(
                ErrorKind::InvalidOperation,
                format!(
                    "`caller` has no attribute `{attr}` \
                     (it has `name`, `arguments` and `caller`, as a macro)"
                ),
                span,
            )),
        }
    }

    /// A list of parameter names (`m.arguments`).
    pub(super) fn param_names(
        &mut self,
        params: &[(&str, Option<Expr<'_>>)],
        span: Span,
    ) -> Result<Value, Error> {
        let list = Value::list(params.iter().map(|(p, _)| Value::str(p)).collect());
        self.charge(list.owned_size(), span)?;
        Ok(list)
    }

    fn item(
        &mut self,
        base: &'t Expr<'t>,
        index: &'t Expr<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let value = self.eval(base)?;
        let index = self.eval(index)?;
        if self.jinja2 {
            match (&value.0, &index.0) {
                (Repr::Undefined, _) => return Err(self.undefined_base(base, "items")),
                // Python: an item that is not there is an attribute lookup,
                // which finds nothing: undefined.
                (Repr::List(_) | Repr::Str(_) | Repr::Text(_), Repr::Int(_)) => {}
                (Repr::List(_) | Repr::Str(_) | Repr::Text(_), _) => return Ok(Value::UNDEFINED),
                _ => {}
            }
        }
        // A string is indexed by character: a scan of its bytes.
        if value.as_str().is_some() {
            self.charge_size(&value, span)?;
        }
        get_item(&value, &index).map_err(self.locate(span))
    }

    fn unary(
        &mut self,
        inner: &'t Expr<'t>,
        op: fn(&Value) -> Result<Value, Error>,
        span: Span,
    ) -> Result<Value, Error> {
        let value = self.eval(inner)?;
        op(&value).map_err(self.locate(span))
    }

    fn filter(
        &mut self,
        value: &'t Expr<'t>,
        call: &'t FilterCall<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let value = self.eval(value)?;
        self.apply_filter(value, call, span)
    }

    /// Runs the filter `call` on `value`.
    pub(super) fn apply_filter(
        &mut self,
        value: Value,
        call: &'t FilterCall<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        self.charge_size(&value, span)?;
        let args = self.eval_args(&call.args)?;
        // Each argument is read (a key hashed, a separator searched for):
        // its size, as a test's arguments.
        for arg in args.positional.iter().chain(args.keywords.iter().map(|(_, v)| v)) {
            self.charge_size(arg, span)?;
        }
        let filter = &self.resolved.filters[call.id as usize];
        let registry = &**self.env.registry();
        // An attribute path's walk over the items, from its length alone,
        // then the work beyond one pass over the items (whose estimate may
        // walk the path): each paid before it is done.
        self.spend(filter.path_work(&value, &args), span)?;
        self.spend(filter.work(registry, &value, &args), span)?;
        let result = filter.call(registry, value, args);
        // Jinja2's `map` and `select` family, `items`, `batch` and `slice`
        // give generators.
        const GENERATING: &[&str] =
            &["map", "select", "reject", "selectattr", "rejectattr", "items", "batch", "slice"];
        let result = match result {
            Ok(Value(Repr::List(items))) if self.jinja2 && GENERATING.contains(&call.name) => {
                let items = std::sync::Arc::try_unwrap(items)
                    .map_or_else(|shared| shared.to_vec(), crate::value::List::into_items);
                Ok(Value(Repr::List(std::sync::Arc::new(crate::value::List::of_kind(
                    items,
                    crate::value::ListKind::Generator,
                )))))
            }
            other => other,
        };
        self.settle(result, span)
    }

    fn test(
        &mut self,
        value: &'t Expr<'t>,
        call: &'t TestCall<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let value = self.eval(value)?;
        self.charge_size(&value, span)?;
        let args = self.eval_args(&call.args)?;
        for arg in &args.positional {
            self.charge_size(arg, span)?;
        }
        let test = &self.resolved.tests[call.id as usize];
        // A comparison's walk over both operands, paid before it is done.
        if let (Some(op), Some(other)) = (test.walk, args.positional.first()) {
            self.charge_walk(op, &value, other, span)?;
        }
        let registry = &**self.env.registry();
        let passed = test.call(registry, &value, args).map_err(self.locate(span))?;
        Ok(Value::from(passed != call.negated))
    }

    fn binary(
        &mut self,
        op: BinOp,
        a: &'t Expr<'t>,
        b: &'t Expr<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let left = self.eval(a)?;
        let right = self.eval(b)?;
        for (value, side) in [(&left, a), (&right, b)] {
            if !value.is_undefined() {
                continue;
            }
            if op != BinOp::Concat {
                if self.jinja2 {
                    let what = &self.source[side.span.start()..side.span.end()];
                    return Err(self.error(
                        ErrorKind::UndefinedError,
                        format!("cannot apply `{}`: `{what}` is undefined", op.symbol()),
                        side.span,
                    ));
                }
                return Err(self.undefined_operand(op, side));
            }
            if self.env.strict() {
                return Err(self.error(
                    ErrorKind::UndefinedError,
                    "joining an undefined value with `~` (strict mode)",
                    side.span,
                ));
            }
        }
        if self.jinja2
            && op == BinOp::Add
            && (crate::filters::is_safe(&left) || crate::filters::is_safe(&right))
            && let (Some(a), Some(b)) = (left.as_str(), right.as_str())
        {
            return self.markup_add((&left, a), (&right, b), span);
        }
        let strings = left.as_str().is_some() && right.as_str().is_some();
        let result = match op {
            BinOp::Concat if self.jinja2 => ops::concat_per_byte(&left, &right, self.limits),
            BinOp::Add if self.jinja2 && strings => {
                ops::concat_per_byte(&left, &right, self.limits)
            }
            _ => ops::binary(op, &left, &right, self.limits),
        };
        self.settle(result, span)
    }

    /// Python's `Markup + str` (the Jinja2 profile): the side not marked
    /// safe is HTML-escaped as markupsafe escapes (`&#34;`, `&#39;`), and
    /// the sum is marked safe.
    fn markup_add(
        &mut self,
        (left, a): (&Value, &str),
        (right, b): (&Value, &str),
        span: Span,
    ) -> Result<Value, Error> {
        let escaped_len = |v: &Value, s: &str| match crate::filters::is_safe(v) {
            true => s.len(),
            false => s.bytes().map(|b| if b"&<>\"'".contains(&b) { 5 } else { 1 }).sum(),
        };
        let len = escaped_len(left, a).saturating_add(escaped_len(right, b));
        ops::check_string_size(len, self.limits).map_err(self.locate(span))?;
        // Per byte, as `+` of two strings: a side kept as it is keeps its
        // provenance; an escaped side is authored only if it was.
        let mut out = crate::provenance::TextBuf::with_capacity(len);
        for (v, s) in [(left, a), (right, b)] {
            if crate::filters::is_safe(v) || !s.contains(['&', '<', '>', '"', '\'']) {
                out.push_string(v);
                continue;
            }
            let mut escaped = String::with_capacity(escaped_len(v, s));
            for c in s.chars() {
                match c {
                    '&' => escaped.push_str("&amp;"),
                    '<' => escaped.push_str("&lt;"),
                    '>' => escaped.push_str("&gt;"),
                    '"' => escaped.push_str("&#34;"),
                    '\'' => escaped.push_str("&#39;"),
                    c => escaped.push(c),
                }
            }
            if v.is_all_authored() {
                out.push_authored(&escaped);
            } else {
                out.push_data(&escaped);
            }
        }
        ops::check_string_size(out.len(), self.limits).map_err(self.locate(span))?;
        let result = crate::filters::marked_safe(out.into_value(), self.limits);
        self.settle(result, span)
    }

    /// `a op1 b op2 c ...`: every comparison must hold; stops at the first
    /// that does not.
    fn compare(
        &mut self,
        first: &'t Expr<'t>,
        rest: &'t [(CmpOp, Expr<'t>)],
        span: Span,
    ) -> Result<Value, Error> {
        let mut left = self.eval(first)?;
        self.charge_size(&left, span)?;
        for (op, e) in rest {
            let right = self.eval(e)?;
            // Comparing and searching cost in proportion to the operands.
            self.charge_size(&right, span)?;
            self.charge_walk(*op, &left, &right, span)?;
            if !ops::compare(*op, &left, &right).map_err(self.locate(span))? {
                return Ok(Value::from(false));
            }
            left = right;
        }
        Ok(Value::from(true))
    }

    /// What `==`, `!=` and `in` walk beyond the items [`Self::charge_size`]
    /// paid for: the nested items and string bytes of the lists and maps
    /// compared, measured by a walk that stops once it is past the fuel
    /// left (so an unaffordable comparison is never made).
    fn charge_walk(
        &mut self,
        op: CmpOp,
        left: &Value,
        right: &Value,
        span: Span,
    ) -> Result<(), Error> {
        let cap = self.fuel.unwrap_or(u64::MAX);
        let units = ops::walk_cost(op, left, right, cap);
        self.spend(units, span)
    }

    /// Arithmetic on an undefined operand: say which name and how to fix it.
    fn undefined_operand(&self, op: BinOp, side: &'t Expr<'t>) -> Error {
        let what = &self.source[side.span.start()..side.span.end()];
        let message = format!(
            "cannot apply `{}` to an undefined value: `{what}` is undefined; \
             give it a fallback, e.g. `({what} -> default(0)) {} ...`",
            op.symbol(),
            op.symbol()
        );
        self.error(ErrorKind::InvalidOperation, message, side.span)
    }

    /// The result of an operator, filter or function: placed at `span` when
    /// it failed, charged by size (fuel) and by the memory it alone holds
    /// when it succeeded.
    pub(super) fn settle(
        &mut self,
        result: Result<Value, Error>,
        span: Span,
    ) -> Result<Value, Error> {
        let value = result.map_err(self.locate(span))?;
        self.charge_size(&value, span)?;
        self.check_nesting(&value, span)?;
        self.charge(value.owned_size(), span)?;
        Ok(value)
    }

    /// Rejects lists and maps nested deeper than [`MAX_VALUE_DEPTH`]: the
    /// operations on values (printing, comparing, dropping) recurse, so an
    /// unbounded `[% set x = [x] %]` loop must not build one. A list or map
    /// knows its depth, so the check costs the same for any value.
    fn check_nesting(&mut self, value: &Value, span: Span) -> Result<(), Error> {
        if value.depth() > MAX_VALUE_DEPTH {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!("lists and maps cannot nest more than {MAX_VALUE_DEPTH} levels deep"),
                span,
            ));
        }
        Ok(())
    }

    /// Large strings and lists cost fuel in proportion to their size, both
    /// when built and when an operation scans them.
    pub(super) fn charge_size(&mut self, value: &Value, span: Span) -> Result<(), Error> {
        let units = match &value.0 {
            Repr::List(items) => items.len() / 64,
            Repr::Map(map) => map.len() / 64,
            _ => value.as_str().map_or(0, str::len) / 256,
        };
        if units > 0 { self.spend(units as u64, span) } else { Ok(()) }
    }

    pub(super) fn eval_args(&mut self, args: &'t CallArgs<'t>) -> Result<Arguments<'t>, Error> {
        let mut out = Arguments {
            positional: Vec::with_capacity(args.positional.len()),
            keywords: Vec::with_capacity(args.keywords.len()),
            limits: self.limits,
        };
        for e in &args.positional {
            if let ExprKind::Spread(inner) = &e.kind {
                let value = self.eval(inner)?;
                self.spread_list(value, &mut out.positional, e.span)?;
            } else {
                out.positional.push(self.eval(e)?);
            }
        }
        let mut unpacked = false;
        for (name, e) in &args.keywords {
            let value = self.eval(e)?;
            match name {
                Some(name) => out.keywords.push((name, value)),
                None => {
                    unpacked = true;
                    self.spread_map(value, &mut out.keywords, e.span)?;
                }
            }
        }
        if unpacked {
            self.check_unique_keywords(&out.keywords, args)?;
        }
        Ok(out)
    }

    /// `*value` in a call: its items as positional arguments (what a `for`
    /// iterates: a list's items, a string's characters, a map's keys;
    /// nothing for undefined or none, an error in strict mode).
    fn spread_list(&mut self, value: Value, out: &mut Vec<Value>, span: Span) -> Result<(), Error> {
        if value.is_undefined() && self.env.strict() {
            return Err(self.error(
                ErrorKind::UndefinedError,
                "unpacking an undefined value with `*` (strict mode)",
                span,
            ));
        }
        let items = value.items(self.limits.range_limit).map_err(|why| {
            let message = why.message(&value, "`*` cannot unpack", self.limits.range_limit);
            self.error(ErrorKind::InvalidOperation, message, span)
        })?;
        self.spend(items.len() as u64 / 64, span)?;
        self.charge(SLOT * items.len(), span)?;
        out.extend(items.iter().cloned());
        Ok(())
    }

    /// `**value` in a call: a map's entries as keyword arguments, in its
    /// order (nothing for undefined or none, an error in strict mode).
    fn spread_map(
        &mut self,
        value: Value,
        out: &mut Vec<(&'t str, Value)>,
        span: Span,
    ) -> Result<(), Error> {
        let map = match &value.0 {
            Repr::Map(map) => map,
            Repr::Undefined if self.env.strict() => {
                return Err(self.error(
                    ErrorKind::UndefinedError,
                    "unpacking an undefined value with `**` (strict mode)",
                    span,
                ));
            }
            Repr::Undefined | Repr::None => return Ok(()),
            _ => {
                return Err(self.error(
                    ErrorKind::InvalidOperation,
                    format!("`**` unpacks a map into keyword arguments, not {}", describe(&value)),
                    span,
                ));
            }
        };
        self.spend(map.len() as u64 / 64, span)?;
        self.charge(2 * SLOT * map.len(), span)?;
        for (key, item) in map.iter() {
            let (name, new) = self.keywords.intern(key);
            if new {
                self.charge(SLOT, span)?;
            }
            out.push((name, item.clone()));
        }
        Ok(())
    }

    /// With a `**map` in the call, a keyword given twice (written and in
    /// the map, or in two maps) is an error, never a silent choice.
    fn check_unique_keywords(
        &mut self,
        keywords: &[(&'t str, Value)],
        args: &'t CallArgs<'t>,
    ) -> Result<(), Error> {
        let mut seen = std::collections::HashSet::with_capacity(keywords.len());
        for (name, _) in keywords {
            if !seen.insert(*name) {
                let span = args.keywords.iter().find_map(|(n, e)| n.is_none().then_some(e.span));
                return Err(self.error(
                    ErrorKind::BadArguments,
                    format!("the keyword argument `{name}` is given twice"),
                    span.unwrap_or_default(),
                ));
            }
        }
        Ok(())
    }

    fn call(
        &mut self,
        callee: &'t Expr<'t>,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        if let Some(value) = self.composed_call(callee, args, span)? {
            return Ok(value);
        }
        match &callee.kind {
            ExprKind::Attr(base, "cycle")
                if matches!(base.kind, ExprKind::Name(n) if n.text == "loop")
                    && self.current_loop().is_some() =>
            {
                let args = self.eval_args(args)?;
                Ok(self.current_loop().map(|l| l.cycle(&args.positional)).unwrap_or_default())
            }
            ExprKind::Name(name) if name.text == "loop" && self.recursion_site().is_some() => {
                let args = self.eval_args(args)?;
                self.call_recursion(args, span)
            }
            ExprKind::Name(name) => {
                let name = *name;
                let value = match self.resolve(name) {
                    Resolved::Macro(def) => {
                        let args = self.eval_args(args)?;
                        return self.call_macro(def, args, span);
                    }
                    Resolved::Caller(caller) => {
                        let args = self.eval_args(args)?;
                        return self.call_caller(caller, args, span);
                    }
                    Resolved::Value(value) => value,
                    Resolved::State if self.env.registry().function(&name).is_some() => {
                        return self.call_function(&name, callee.span, args, span);
                    }
                    Resolved::State => self.lookup(name, callee.span)?,
                };
                if !matches!(value.0, Repr::Callable(_)) {
                    // Arguments are evaluated before the callee is checked
                    // (minijinja's order): their errors come first.
                    self.eval_args(args)?;
                }
                match value.0 {
                    Repr::Callable(_) => self.call_value(&value, args, span),
                    Repr::Undefined if name.text == "caller" => Err(self.error(
                        ErrorKind::UnknownFunction,
                        "unknown function `caller`: it is bound only in the body of a macro \
                         that a `[% call %]` block called",
                        callee.span,
                    )),
                    Repr::Undefined => Err(self.error(
                        ErrorKind::UnknownFunction,
                        format!("unknown function `{name}`: no macro or function has this name"),
                        callee.span,
                    )),
                    _ => Err(self.error(
                        ErrorKind::InvalidOperation,
                        format!("`{name}` is {}, not a macro or function", describe(&value)),
                        callee.span,
                    )),
                }
            }
            ExprKind::Attr(base, method) => {
                if self.jinja2
                    && let Some(value) = self.call_method(base, method, args, span)?
                {
                    return Ok(value);
                }
                // A macro or function held by a map or module
                // (`m.helper(...)`, `fns.f(...)`) is called.
                let value = self.attr(base, method)?;
                if let Repr::Callable(_) = value.0 {
                    return self.call_value(&value, args, span);
                }
                Err(self.error(
                    ErrorKind::UnknownFunction,
                    format!("values have no methods: `.{method}()` is unknown (filters are written `-> {method}`)"),
                    callee.span,
                ))
            }
            _ => {
                let value = self.eval(callee)?;
                self.call_value(&value, args, span)
            }
        }
    }

    /// Calls a built-in or host function.
    pub(super) fn call_function(
        &mut self,
        name: &str,
        callee: Span,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let Some(function) = self.env.registry().function(name) else {
            return Err(self.error(
                ErrorKind::UnknownFunction,
                format!("unknown function `{name}`"),
                callee,
            ));
        };
        let args = self.eval_args(args)?;
        let result = (function.run)(args);
        self.settle(result, span)
    }

    fn slice(&mut self, s: &'t Slice<'t>, span: Span) -> Result<Value, Error> {
        let value = self.eval(&s.value)?;
        // Slicing scans a string's characters or picks a list's items.
        self.charge_size(&value, span)?;
        let mut bound = |e: &'t Option<Expr<'t>>| -> Result<Option<i64>, Error> {
            let Some(e) = e else { return Ok(None) };
            let v = self.eval(e)?;
            match v.0 {
                Repr::Int(n) => Ok(Some(n)),
                Repr::None | Repr::Undefined => Ok(None),
                _ => Err(self.error(
                    ErrorKind::InvalidOperation,
                    format!("slice bounds must be integers, not {}", v.kind().as_str()),
                    e.span,
                )),
            }
        };
        let (start, stop, step) = (bound(&s.start)?, bound(&s.stop)?, bound(&s.step)?);
        let step = step.unwrap_or(1);
        if step == 0 {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                "the slice step cannot be 0",
                span,
            ));
        }
        let sliced = match (&value.0, value.as_str()) {
            (Repr::List(items), _) => {
                let picked = slice_indices(items.len(), start, stop, step);
                let picked = picked.map(|i| items[i].clone()).collect();
                // A tuple's slice is a tuple.
                if items.kind() == crate::value::ListKind::Tuple {
                    Value::tuple(picked)
                } else {
                    Value::list(picked)
                }
            }
            (_, Some(text)) => Value::string(
                slice_str(text, start, stop, step, self.limits).map_err(self.locate(span))?,
            ),
            (Repr::Undefined | Repr::None, _) => return Ok(Value::UNDEFINED),
            _ => {
                return Err(self.error(
                    ErrorKind::InvalidOperation,
                    format!("cannot slice {}", value.kind().as_str()),
                    span,
                ));
            }
        };
        drop(value);
        self.charge(sliced.owned_size(), span)?;
        self.charge_size(&sliced, span)?;
        Ok(sliced)
    }
}

/// `text[start:stop:step]` by characters. A forward slice walks the
/// characters and keeps the ones picked, collecting nothing else; a
/// backward one collects them first, so its text is bounded by the string
/// limit. The result, never longer than the text, is checked too.
fn slice_str(
    text: &str,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
    limits: &Limits,
) -> Result<String, Error> {
    let out: String = if step > 0 {
        let mut picked = slice_indices(text.chars().count(), start, stop, step).peekable();
        let mut out = String::new();
        for (i, c) in text.chars().enumerate() {
            match picked.peek() {
                Some(&next) if next == i => {
                    out.push(c);
                    picked.next();
                }
                Some(_) => {}
                None => break,
            }
        }
        out
    } else {
        ops::check_string_size(text.len(), limits)?;
        let chars: Vec<char> = text.chars().collect();
        slice_indices(chars.len(), start, stop, step).map(|i| chars[i]).collect()
    };
    ops::check_string_size(out.len(), limits)?;
    Ok(out)
}

/// The indexes Python's `seq[start:stop:step]` picks from `len` items.
fn slice_indices(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> impl Iterator<Item = usize> {
    let len = i64::try_from(len).unwrap_or(i64::MAX);
    let clamp = |bound: i64, low: i64, high: i64| {
        let b = if bound < 0 { bound.saturating_add(len) } else { bound };
        b.clamp(low, high)
    };
    let (start, stop) = if step > 0 {
        (start.map_or(0, |b| clamp(b, 0, len)), stop.map_or(len, |b| clamp(b, 0, len)))
    } else {
        (
            start.map_or(len - 1, |b| clamp(b, -1, len - 1)),
            stop.map_or(-1, |b| clamp(b, -1, len - 1)),
        )
    };
    let mut i = start;
    std::iter::from_fn(move || {
        let inside = if step > 0 { i < stop } else { i > stop };
        if !inside {
            return None;
        }
        let current = i;
        i = i.saturating_add(step);
        usize::try_from(current).ok()
    })
}
