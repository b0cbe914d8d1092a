//! The tree-walking evaluator.
//!
//! A [`Renderer`] walks the syntax tree once, writing output into one
//! buffer that knows which of its bytes are data (macro calls and `set`
//! blocks capture a tail of it with its provenance, see
//! [`crate::provenance`]). Every statement and expression costs fuel; macro
//! depth, evaluation depth, output size, built values and the memory the
//! render builds and keeps are bounded by [`Limits`]. A render either
//! returns its whole result or only an error: stores, writes and effects
//! live in the renderer until it succeeds.

mod expr;
mod scope;
mod stores;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::arguments::Arguments;
use crate::context::{Context, Effect, Outcome, Scope};
use crate::environment::Environment;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::provenance::TextBuf;
use crate::random::Draws;
use crate::resolve::Resolution;
use crate::span::Span;
use crate::stack::StackBudget;
use crate::syntax::ast::{
    self, CallArgs, Control, EffectKind, Expr, ExprKind, ForLoop, MacroDef, Name, Node, Target,
    TargetName, WithBlock,
};
use crate::value::text::{escape_html, escaped_len};
use crate::value::{List, RANGE, Repr, TooLong, Value};

use crate::arguments::NameIndex;
use scope::{Frame, LoopState};
use stores::Stores;

/// How deep the evaluator itself may recurse (expressions, blocks and
/// macro bodies together), whatever the other limits say: a guard for the
/// native stack.
const MAX_EVAL_DEPTH: usize = 1_000;

/// How deeply lists and maps built by a template may nest (serde_json's own
/// limit for parsed JSON is 128 too).
const MAX_VALUE_DEPTH: usize = 128;

/// What one write or effect costs to keep beyond its value and name, in
/// bytes (see [`Limits::memory_limit`]).
const ENTRY: usize = 64;

/// Renders a compiled template.
pub(crate) fn render<'t>(
    env: &'t Environment,
    resolved: &'t Resolution,
    source: &'t str,
    template: &'t ast::Template<'t>,
    context: &'t Context,
    seed: u64,
) -> Result<Outcome, Error> {
    let fuel = env.limits().fuel;
    render_with(env, resolved, source, template, context, Draws::new(seed), fuel)
        .map(|(outcome, ..)| outcome)
}

/// Renders with a given source of random decisions and fuel, and gives
/// back the decisions and the fuel left (the exact enumeration reads the
/// path it recorded and shares one fuel budget among its renders).
pub(crate) fn render_with<'t>(
    env: &'t Environment,
    resolved: &'t Resolution,
    source: &'t str,
    template: &'t ast::Template<'t>,
    context: &'t Context,
    draws: Draws,
    fuel: Option<u64>,
) -> Result<(Outcome, Draws, Option<u64>), Error> {
    let mut renderer = Renderer {
        env,
        resolved,
        limits: env.limits(),
        source,
        stores: Stores::new(context),
        effects: Vec::new(),
        out: TextBuf::with_capacity(source.len()),
        memory: env.limits().memory_limit,
        frames: Vec::new(),
        names: &template.names,
        macros: Vec::new(),
        fuel,
        macro_depth: 0,
        depth: 0,
        control: None,
        autoescape: false,
        draws,
        stack: StackBudget::new(env.limits().stack_limit),
    };
    renderer.exec(&template.body)?;
    renderer.finish()
}

pub(crate) struct Renderer<'t> {
    env: &'t Environment,
    /// The filters and tests the template names.
    resolved: &'t Resolution,
    limits: &'t Limits,
    source: &'t str,
    stores: Stores<'t>,
    effects: Vec<Effect>,
    out: TextBuf,
    /// The bytes left under [`Limits::memory_limit`].
    memory: usize,
    frames: Vec<Frame<'t>>,
    /// The template's bare names and their numbers ([`Name::id`]).
    names: &'t HashMap<&'t str, u32>,
    /// The macro defined so far under each name number (a later definition
    /// replaces an earlier one); empty until a definition runs.
    macros: Vec<Option<&'t MacroDef<'t>>>,
    fuel: Option<u64>,
    macro_depth: usize,
    depth: usize,
    /// A `break` or `continue` ran: every block on the way out to the
    /// innermost loop stops, and that loop takes it.
    control: Option<Control>,
    /// Inside `[% autoescape true %]`: `[[ ]]` HTML-escapes what it prints.
    autoescape: bool,
    draws: Draws,
    stack: StackBudget,
}

impl<'t> Renderer<'t> {
    /// An error of `kind` at `span`.
    fn error(&self, kind: ErrorKind, message: impl Into<String>, span: Span) -> Error {
        Error::new(kind, message).at(self.source, span)
    }

    /// Places an error without a position (from an operator, a filter, a
    /// host callback) at `span`.
    fn locate(&self, span: Span) -> impl Fn(Error) -> Error + '_ {
        move |e| e.at(self.source, span)
    }

    /// Spends `units` of fuel.
    fn spend(&mut self, units: u64, span: Span) -> Result<(), Error> {
        if let Some(fuel) = &mut self.fuel {
            if *fuel < units {
                *fuel = 0;
                return Err(self.error(
                    ErrorKind::OutOfFuel,
                    "the render ran out of fuel (too many evaluation steps)",
                    span,
                ));
            }
            *fuel -= units;
        }
        Ok(())
    }

    /// Enters one level of evaluator recursion.
    fn descend(&mut self, span: Span) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_EVAL_DEPTH || self.stack.exceeded() {
            return Err(self.error(
                ErrorKind::RecursionLimit,
                "the template recurses too deeply (macro calls nested in deep expressions)",
                span,
            ));
        }
        Ok(())
    }

    fn output_limit(&self, span: Span) -> Error {
        self.error(
            ErrorKind::OutputLimit,
            format!("the output would exceed the limit of {} bytes", self.limits.output_limit),
            span,
        )
    }

    /// Counts `bytes` against [`Limits::memory_limit`].
    fn charge(&mut self, bytes: usize, span: Span) -> Result<(), Error> {
        match self.memory.checked_sub(bytes) {
            Some(left) => {
                self.memory = left;
                Ok(())
            }
            None => {
                self.memory = 0;
                Err(self.error(
                    ErrorKind::MemoryLimit,
                    format!(
                        "the render would build or keep more than the memory limit of {} bytes \
                         (values it builds, every write, every effect)",
                        self.limits.memory_limit
                    ),
                    span,
                ))
            }
        }
    }

    /// Writes template text: authored bytes.
    fn write(&mut self, text: &str, span: Span) -> Result<(), Error> {
        if self.out.len() + text.len() > self.limits.output_limit {
            return Err(self.output_limit(span));
        }
        self.out.push_authored(text);
        Ok(())
    }

    /// Prints a value: data, except the authored bytes a string literal or
    /// a captured text carries.
    fn write_value(&mut self, value: &Value, span: Span) -> Result<(), Error> {
        match &value.0 {
            Repr::Undefined if self.env.strict() => Err(self.error(
                ErrorKind::UndefinedError,
                "printing an undefined value (strict mode)",
                span,
            )),
            Repr::Undefined | Repr::None => Ok(()),
            _ if self.autoescape => self.write_escaped(value, span),
            Repr::Str(text) => {
                if self.out.len() + text.len() > self.limits.output_limit {
                    return Err(self.output_limit(span));
                }
                if !text.is_empty() {
                    self.charge(RANGE, span)?;
                }
                self.out.push_data(text);
                Ok(())
            }
            Repr::Text(text) => {
                if self.out.len() + text.as_str().len() > self.limits.output_limit {
                    return Err(self.output_limit(span));
                }
                self.charge(RANGE * text.data().len(), span)?;
                self.out.push_text(text);
                Ok(())
            }
            _ => {
                self.charge(RANGE, span)?;
                let max = self.limits.output_limit;
                let printed = self.out.push_data_with(|out| value.write_printed(out, max));
                printed.map_err(|TooLong| self.output_limit(span))
            }
        }
    }

    /// Prints `value` HTML-escaped (inside `autoescape`): each authored or
    /// data piece escaped on its own, so it keeps its provenance.
    fn write_escaped(&mut self, value: &Value, span: Span) -> Result<(), Error> {
        let max = self.limits.output_limit;
        let printed: Cow<'_, str> = match value.as_str() {
            Some(text) => Cow::Borrowed(text),
            None => {
                let mut text = String::new();
                value.write_printed(&mut text, max).map_err(|TooLong| self.output_limit(span))?;
                Cow::Owned(text)
            }
        };
        let whole = 0..printed.len();
        let all = std::slice::from_ref(&whole);
        let data = match &value.0 {
            Repr::Text(text) => text.data(),
            _ => all,
        };
        self.charge(RANGE * data.len(), span)?;
        let mut at = 0;
        let mut escaped = String::new();
        let end = printed.len()..printed.len();
        for piece in data.iter().cloned().chain(std::iter::once(end)) {
            for (range, is_data) in [(at..piece.start, false), (piece.clone(), true)] {
                let text = &printed[range];
                if self.out.len().saturating_add(escaped_len(text)) > max {
                    return Err(self.output_limit(span));
                }
                escaped.clear();
                escape_html(text, &mut escaped);
                if is_data {
                    self.out.push_data(&escaped);
                } else {
                    self.out.push_authored(&escaped);
                }
            }
            at = piece.end;
        }
        Ok(())
    }

    fn exec(&mut self, nodes: &'t [Node<'t>]) -> Result<(), Error> {
        for node in nodes {
            self.exec_node(node)?;
            if self.control.is_some() {
                break;
            }
        }
        Ok(())
    }

    fn exec_node(&mut self, node: &'t Node<'t>) -> Result<(), Error> {
        match node {
            Node::Text(text) => {
                let start = nom::Offset::offset(self.source, text);
                let span = Span::new(start, start + text.len());
                self.spend(1 + text.len() as u64 / 4096, span)?;
                self.write(text, span)
            }
            Node::Print(e) => {
                if let ExprKind::Call(callee, args) = &e.kind
                    && let ExprKind::Name(name) = callee.kind
                    && let Resolved::Macro(def) = self.resolve(name)
                {
                    return self.print_macro(def, args, e.span);
                }
                let value = self.eval(e)?;
                self.write_value(&value, e.span)
            }
            Node::If { branches, otherwise } => {
                for (cond, body) in branches {
                    if self.eval(cond)?.is_true() {
                        return self.exec_block(body, cond.span);
                    }
                }
                self.exec_block(otherwise, Span::default())
            }
            Node::For(for_loop) => self.exec_for(for_loop),
            Node::Set { target, value, span } => {
                let value = self.eval(value)?;
                self.assign(target, value, *span)
            }
            Node::SetBlock(block) => {
                let captured = self.capture(&block.body, block.span)?;
                let value = self.filtered(captured, &block.filters, block.span)?;
                self.assign(&block.target, value, block.span)
            }
            Node::Control(control, span) => {
                self.spend(1, *span)?;
                self.control = Some(*control);
                Ok(())
            }
            Node::Do(e) => self.eval(e).map(drop),
            Node::With(block) => self.exec_with(block),
            Node::FilterBlock(block) => {
                let captured = self.capture(&block.body, block.span)?;
                let value = self.filtered(captured, &block.filters, block.span)?;
                self.write_value(&value, block.span)
            }
            Node::Autoescape { on, body } => {
                let outer = std::mem::replace(&mut self.autoescape, *on);
                let result = self.exec_block(body, Span::default());
                self.autoescape = outer;
                result
            }
            Node::Macro(def) => {
                self.spend(1, Span::default())?;
                if self.macros.is_empty() {
                    self.macros = vec![None; self.names.len()];
                }
                if let Some(slot) = self.macros.get_mut(def.name.id as usize) {
                    *slot = Some(def);
                }
                Ok(())
            }
            Node::Chance { branches, otherwise } => self.exec_chance(branches, otherwise),
            Node::Weighted { choices } => self.exec_weighted(choices),
            Node::Effect { kind, value, span } => self.exec_effect(*kind, value, *span),
        }
    }

    /// Rolls each branch in turn: one draw per branch tested.
    fn exec_chance(
        &mut self,
        branches: &'t [(Expr<'t>, Vec<Node<'t>>)],
        otherwise: &'t [Node<'t>],
    ) -> Result<(), Error> {
        for (p, body) in branches {
            let probability = self.probability(p)?;
            if self.draws.chance(probability) {
                return self.exec_block(body, p.span);
            }
        }
        self.exec_block(otherwise, Span::default())
    }

    /// Evaluates every weight, then makes one draw.
    fn exec_weighted(&mut self, choices: &'t [(Expr<'t>, Vec<Node<'t>>)]) -> Result<(), Error> {
        let mut weights = Vec::with_capacity(choices.len());
        for (w, _) in choices {
            weights.push(self.weight(w)?);
        }
        let total: f64 = weights.iter().sum();
        if !total.is_finite() {
            let span = choices.first().map(|(w, _)| w.span).unwrap_or_default();
            return Err(self.error(
                ErrorKind::InvalidOperation,
                "the weights add up to infinity",
                span,
            ));
        }
        let chosen = self.draws.weighted(&weights, total);
        match chosen {
            Some(index) => self.exec_block(&choices[index].1, choices[index].0.span),
            None => Ok(()),
        }
    }

    fn exec_effect(
        &mut self,
        kind: EffectKind,
        value: &'t Expr<'t>,
        span: Span,
    ) -> Result<(), Error> {
        let value = self.eval(value)?;
        let Some(text) = value.shared_str().cloned() else {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!("`{}` needs a string, not {}", effect_word(kind), value.kind().as_str()),
                span,
            ));
        };
        // Shared, not copied; charged in full, as the host receives it.
        self.charge(text.len().saturating_add(ENTRY), span)?;
        self.effects.push(match kind {
            EffectKind::QuickReply => Effect::Qr { name: text },
            EffectKind::SlashCommand => Effect::St { command: text },
        });
        Ok(())
    }

    fn exec_block(&mut self, nodes: &'t [Node<'t>], span: Span) -> Result<(), Error> {
        self.descend(span)?;
        self.exec(nodes)?;
        self.depth -= 1;
        Ok(())
    }

    /// Renders `nodes` into a string value of their own, keeping the
    /// provenance of every byte.
    fn capture(&mut self, nodes: &'t [Node<'t>], span: Span) -> Result<Value, Error> {
        let mark = self.out.mark();
        self.exec_block(nodes, span)?;
        let captured = self.out.take_from(mark);
        self.charge(captured.size(), span)?;
        Ok(captured)
    }

    /// A `chance` probability: a number or numeric string, clamped to [0, 1].
    fn probability(&mut self, e: &'t Expr<'t>) -> Result<f64, Error> {
        let value = self.eval(e)?;
        match number(&value) {
            Some(p) if !p.is_nan() => Ok(p.clamp(0.0, 1.0)),
            _ => Err(self.error(
                ErrorKind::InvalidOperation,
                format!("a `chance` probability must be a number, not {}", describe(&value)),
                e.span,
            )),
        }
    }

    /// A `choice` weight: a finite, non-negative number or numeric string.
    fn weight(&mut self, e: &'t Expr<'t>) -> Result<f64, Error> {
        let value = self.eval(e)?;
        match number(&value) {
            Some(w) if w.is_finite() && w >= 0.0 => Ok(w),
            _ => Err(self.error(
                ErrorKind::InvalidOperation,
                format!(
                    "a `choice` weight must be a finite number of at least 0, not {}",
                    describe(&value)
                ),
                e.span,
            )),
        }
    }

    fn exec_for(&mut self, l: &'t ForLoop<'t>) -> Result<(), Error> {
        let iterable = self.eval(&l.iterable)?;
        if iterable.is_undefined() && self.env.strict() {
            return Err(self.error(
                ErrorKind::UndefinedError,
                "iterating an undefined value (strict mode)",
                l.iterable.span,
            ));
        }
        let items = match iterable.items(self.limits.range_limit) {
            Ok(items) => items,
            Err(why) => {
                let message =
                    why.message(&iterable, "cannot iterate over", self.limits.range_limit);
                return Err(self.error(ErrorKind::InvalidOperation, message, l.iterable.span));
            }
        };
        // A string's characters and a map's keys are a new list.
        if !matches!(iterable.0, Repr::List(_)) {
            self.charge(items.owned_size(), l.iterable.span)?;
        }
        let names = NameIndex::of(l.targets.iter().copied());
        let mut state = LoopState {
            targets: &l.targets,
            pattern: &l.pattern,
            names,
            values: Vec::new(),
            items,
            index: 0,
            filtering: true,
        };
        if let Some(filter) = &l.filter {
            let all = std::mem::take(&mut state.items);
            let mut kept = Vec::new();
            self.frames.push(Frame::Loop(state));
            for (index, item) in all.iter().enumerate() {
                self.bind_loop(index, item, l.span)?;
                if self.eval(filter)?.is_true() {
                    kept.push(item.clone());
                }
            }
            let Some(Frame::Loop(s)) = self.frames.pop() else { return Err(frame_error()) };
            state = s;
            state.items = Arc::new(List::new(kept));
        }
        state.filtering = false;
        if state.items.is_empty() {
            return self.exec_block(&l.otherwise, l.span);
        }
        let items = state.items.clone();
        self.frames.push(Frame::Loop(state));
        self.descend(l.span)?;
        for (index, item) in items.iter().enumerate() {
            self.spend(1, l.span)?;
            self.bind_loop(index, item, l.span)?;
            self.exec(&l.body)?;
            if self.control.take() == Some(Control::Break) {
                break;
            }
        }
        self.depth -= 1;
        self.frames.pop();
        Ok(())
    }

    /// Sets the innermost loop's position and binds its variables to
    /// `item` (unpacking pairs for `for k, v in ...`).
    fn bind_loop(&mut self, index: usize, item: &Value, span: Span) -> Result<(), Error> {
        // Unpacking into many variables is work in proportion to them.
        if let Some(Frame::Loop(state)) = self.frames.last() {
            let units = state.targets.len() as u64 / 64;
            self.spend(units, span)?;
        }
        let Some(Frame::Loop(state)) = self.frames.last_mut() else { return Err(frame_error()) };
        state.index = index;
        state.values.clear();
        let pattern = state.pattern;
        let unpacked = unpack(pattern, item, &mut state.values);
        unpacked.map_err(|message| self.error(ErrorKind::InvalidOperation, message, span))
    }

    /// `with`: each value evaluated in turn, seeing the names bound before
    /// it (minijinja's order; a name not bound yet is the outer one), then
    /// unpacked into the body's frame.
    fn exec_with(&mut self, block: &'t WithBlock<'t>) -> Result<(), Error> {
        self.spend(block.names.len() as u64 / 64, block.span)?;
        let index = NameIndex::of(block.names.iter().copied());
        self.frames.push(Frame::With(Vec::with_capacity(block.names.len()), index));
        let mut values = Vec::new();
        let mut names = block.names.iter().copied();
        for (pattern, e) in &block.bindings {
            let value = self.eval(e);
            let unpacked = value.and_then(|value| {
                values.clear();
                unpack(pattern, &value, &mut values)
                    .map_err(|message| self.error(ErrorKind::InvalidOperation, message, e.span))
            });
            if let Err(err) = unpacked {
                self.frames.pop();
                return Err(err);
            }
            if let Some(Frame::With(bound, _)) = self.frames.last_mut() {
                bound.extend(names.by_ref().zip(values.drain(..)));
            }
        }
        let result = self.exec_block(&block.body, block.span);
        self.frames.pop();
        result
    }

    /// A `filter` block's or filtered `set` block's result: the captured
    /// body through each filter. Authored when everything the filters read
    /// was (the body had no data and every argument is a literal), else
    /// all data: a filter cannot say which output byte came from which
    /// input byte.
    fn filtered(
        &mut self,
        captured: Value,
        filters: &'t [ast::FilterCall<'t>],
        span: Span,
    ) -> Result<Value, Error> {
        if filters.is_empty() {
            return Ok(captured);
        }
        let literal = |e: &Expr<'_>| matches!(e.kind, ExprKind::Const(_));
        let authored = captured.is_all_authored()
            && filters.iter().all(|f| {
                f.args.positional.iter().all(literal)
                    && f.args.keywords.iter().all(|(_, e)| literal(e))
            });
        let mut value = captured;
        for call in filters {
            value = self.apply_filter(value, call, span)?;
        }
        Ok(match (authored, value.as_str()) {
            (true, Some(text)) => Value::authored(text),
            (false, Some(text)) if matches!(value.0, Repr::Text(_)) => Value::str(text),
            _ => value,
        })
    }

    /// Writes `value` into a store, recording the write.
    fn assign(&mut self, target: &'t Target<'t>, value: Value, span: Span) -> Result<(), Error> {
        let name: Cow<'t, str> = match &target.name {
            TargetName::Static(name) => Cow::Borrowed(&**name),
            TargetName::Computed(e) => {
                let key = self.eval(e)?;
                match key.as_str() {
                    Some(s) => Cow::Owned(s.to_owned()),
                    None => {
                        return Err(self.error(
                            ErrorKind::InvalidOperation,
                            format!(
                                "a variable name must be a string, not {}",
                                key.kind().as_str()
                            ),
                            e.span,
                        ));
                    }
                }
            }
        };
        if let Some(why) = value.unstorable() {
            let hint = if value.is_undefined() {
                " (use `-> default(...)` to store a fallback)"
            } else {
                ""
            };
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!("cannot set `{name}`: {why}{hint}"),
                span,
            ));
        }
        // The log shares the value but lists every write: each is charged
        // in full, as a host printing or storing the log pays for it.
        let cost = value.size().saturating_add(name.len()).saturating_add(ENTRY);
        self.charge(cost, span)?;
        self.stores.set(target.scope, name, value);
        Ok(())
    }

    fn finish(self) -> Result<(Outcome, Draws, Option<u64>), Error> {
        let writes = self.stores.finish();
        let (output, data_ranges) = self.out.finish();
        let outcome = Outcome { output, data_ranges, writes, effects: self.effects };
        Ok((outcome, self.draws, self.fuel))
    }

    /// Calls the macro `def` with evaluated arguments: its body captured as
    /// a string value.
    fn call_macro(
        &mut self,
        def: &'t MacroDef<'t>,
        args: Arguments<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        self.enter_macro(def, args, span)?;
        let output = self.capture(&def.body, span)?;
        self.leave_macro();
        Ok(output)
    }

    /// `[[ m(args) ]]`: the macro's body rendered where the call is. That
    /// writes what capturing it and printing the capture would (the same
    /// bytes, the same data ranges, at the same cost in fuel), without the
    /// copy; the most common use of a macro costs nothing for provenance.
    fn print_macro(
        &mut self,
        def: &'t MacroDef<'t>,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<(), Error> {
        // What evaluating the call expression costs.
        self.spend(1, span)?;
        self.descend(span)?;
        let args = self.eval_args(args)?;
        self.enter_macro(def, args, span)?;
        self.exec_block(&def.body, span)?;
        self.leave_macro();
        self.depth -= 1;
        Ok(())
    }

    /// Binds a macro call's arguments and enters its body's frame.
    fn enter_macro(
        &mut self,
        def: &'t MacroDef<'t>,
        args: Arguments<'t>,
        span: Span,
    ) -> Result<(), Error> {
        if self.macro_depth >= self.limits.recursion_limit {
            return Err(self.error(
                ErrorKind::RecursionLimit,
                format!(
                    "macro `{}` nests deeper than the recursion limit of {} calls",
                    def.name, self.limits.recursion_limit
                ),
                span,
            ));
        }
        let names = def.params.iter().map(|(p, _)| *p);
        let bound = args
            .bind_names(&|| format!("macro `{}`", def.name), names)
            .map_err(self.locate(span))?;
        // Parameters left out that have a default (evaluated below).
        let mut defaults = Vec::new();
        let params = def
            .params
            .iter()
            .zip(bound)
            .enumerate()
            .map(|(index, ((name, default), value))| {
                if let (None, Some(default)) = (&value, default) {
                    defaults.push((index, default));
                }
                (*name, value.unwrap_or_default())
            })
            .collect();
        // Binding is work in proportion to the parameters, given or not.
        self.spend(def.params.len() as u64 / 64, span)?;
        let index = NameIndex::of(def.params.iter().map(|(p, _)| *p));
        self.frames.push(Frame::Macro(params, index));
        // Defaults are evaluated at call time, seeing the earlier parameters.
        for (index, default) in defaults {
            let value = self.eval(default)?;
            if let Some(Frame::Macro(params, _)) = self.frames.last_mut() {
                params[index].1 = value;
            }
        }
        self.macro_depth += 1;
        Ok(())
    }

    /// Leaves the frame [`Renderer::enter_macro`] entered.
    fn leave_macro(&mut self) {
        self.macro_depth -= 1;
        self.frames.pop();
    }

    /// Resolves a bare name: loop variables and `loop`, macro parameters,
    /// macros, then the state store; undefined otherwise.
    fn lookup(&mut self, name: Name<'t>, span: Span) -> Result<Value, Error> {
        match self.resolve(name) {
            Resolved::Value(value) => Ok(value),
            Resolved::Macro(def) => Ok(Value(Repr::Macro(Arc::from(def.name.text)))),
            Resolved::State => self.stores.get(Scope::State, &name).map_err(self.locate(span)),
        }
    }

    /// Where a bare name lives, without converting anything. Each frame
    /// finds its bindings in O(1); frames nest at most as deep as the
    /// template's blocks.
    fn resolve(&self, name: Name<'t>) -> Resolved<'t> {
        for frame in self.frames.iter().rev() {
            if let Some(value) = frame.binding(&name) {
                return Resolved::Value(value);
            }
            if let Frame::Macro(..) = frame {
                break;
            }
        }
        match self.macro_numbered(name.id) {
            Some(def) => Resolved::Macro(def),
            None => Resolved::State,
        }
    }

    /// The macro defined under the name numbered `id`, if one is.
    fn macro_numbered(&self, id: u32) -> Option<&'t MacroDef<'t>> {
        self.macros.get(id as usize).copied().flatten()
    }

    /// The macro defined under `name` (a macro value's name), if one is.
    fn macro_named(&self, name: &str) -> Option<&'t MacroDef<'t>> {
        self.names.get(name).and_then(|&id| self.macro_numbered(id))
    }

    /// The innermost loop whose `loop` is visible from here (not across a
    /// macro call; a loop's `if` filter sees the enclosing loop's).
    fn current_loop(&self) -> Option<&LoopState<'t>> {
        for frame in self.frames.iter().rev() {
            match frame {
                // A filter's own target named `loop` hides the outer one.
                Frame::Loop(state) if state.filtering => {
                    if state.targets.contains(&"loop") {
                        return None;
                    }
                }
                Frame::Loop(state) => return Some(state),
                Frame::With(..) => {}
                Frame::Macro(..) => return None,
            }
        }
        None
    }
}

/// What a bare name refers to.
enum Resolved<'t> {
    /// A loop variable, `loop`, or a macro parameter.
    Value(Value),
    Macro(&'t MacroDef<'t>),
    /// Not bound here: read the state store.
    State,
}

/// Unpacks `item` by `pattern`, pushing the values of its names in order;
/// the message when it does not fit.
fn unpack(pattern: &ast::Pattern<'_>, item: &Value, out: &mut Vec<Value>) -> Result<(), String> {
    let parts = match pattern {
        ast::Pattern::Name(_) => {
            out.push(item.clone());
            return Ok(());
        }
        ast::Pattern::Tuple(parts) => parts,
    };
    match item.as_list() {
        Some(items) if items.len() == parts.len() => {
            for (part, item) in parts.iter().zip(items.iter()) {
                unpack(part, item, out)?;
            }
            Ok(())
        }
        _ => Err(format!("cannot unpack {} into {} variables", describe(item), parts.len())),
    }
}

/// The loop frame is pushed just before and popped just after its body;
/// this error would mean the evaluator broke that pairing.
#[cold]
fn frame_error() -> Error {
    Error::new(ErrorKind::InvalidOperation, "internal error: loop frame missing")
}

fn effect_word(kind: EffectKind) -> &'static str {
    match kind {
        EffectKind::QuickReply => "qr",
        EffectKind::SlashCommand => "st",
    }
}

/// A number, or a string holding one (SillyTavern variables are strings).
pub(crate) fn number(value: &Value) -> Option<f64> {
    match value.as_str() {
        Some(s) => s.trim().parse::<f64>().ok(),
        None => value.as_f64(),
    }
}

/// A value as an error message shows it: its kind, and its text when short.
pub(crate) fn describe(value: &Value) -> String {
    if let Some(s) = value.as_str().filter(|s| s.len() <= 80 && s.chars().count() <= 20) {
        return format!("the string {s:?}");
    }
    match &value.0 {
        Repr::Int(_) | Repr::Float(_) | Repr::Bool(_) => {
            format!("{} {value}", value.kind().as_str())
        }
        _ => value.kind().as_str().to_owned(),
    }
}
