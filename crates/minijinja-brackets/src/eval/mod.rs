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

/// The render's memory budget as the stores take it (a [`stores::Memory`]
/// borrowing the renderer's `memory` field only, so that the stores can be
/// borrowed beside it).
macro_rules! memory {
    ($renderer:expr) => {
        $crate::eval::stores::Memory {
            limit: $renderer.limits.memory_limit,
            left: &mut $renderer.memory,
        }
    };
}

mod compose;
mod expr;
mod keys;
mod methods;
mod scope;
mod stores;
mod values;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::arguments::Arguments;
use crate::context::{Context, Effect, Outcome, Scope, UndefinedTag};
use crate::dialect::Profile;
use crate::environment::Environment;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::provenance::TextBuf;
use crate::random::Draws;
use crate::span::Span;
use crate::stack::StackBudget;
use crate::syntax::ast::{
    self, CallArgs, CallBlock, Control, EffectKind, Expr, ExprKind, ForLoop, MacroDef, Name, Node,
    Target, TargetName, WithBlock,
};
use crate::unit::Compiled;
use crate::unit::Resolution;
use crate::value::python::PythonPrinting;
use crate::value::text::{escape_html, escaped_len};
use crate::value::{List, RANGE, Repr, SLOT, TooLong, Value, ValueMap};

use crate::arguments::NameIndex;
use compose::{Composition, MacroRef, Table};
use scope::{CallerRef, Frame, LoopState};
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
pub(crate) fn render(
    env: &Environment,
    template: &Compiled,
    context: &Context,
    seed: u64,
    authored: &[&str],
) -> Result<Outcome, Error> {
    let fuel = env.limits().fuel;
    let draws = Draws::new(seed);
    let (outcome, ..) = render_with(env, template, context, authored, draws, fuel)?;
    Ok(Outcome { seed, ..outcome })
}

/// Renders with a given source of random decisions and fuel, and gives
/// back the decisions and the fuel left (the exact enumeration reads the
/// path it recorded and shares one fuel budget among its renders).
pub(crate) fn render_with(
    env: &Environment,
    template: &Compiled,
    context: &Context,
    authored: &[&str],
    draws: Draws,
    fuel: Option<u64>,
) -> Result<(Outcome, Draws, Option<u64>), Error> {
    // The templates the render loads stay here until it ends, so that it
    // borrows their syntax trees as it borrows the main one's.
    let arena = compose::Arena::new();
    let key_arena = keys::KeyArena::new();
    let mut renderer = Renderer {
        keywords: keys::KeywordNames::new(&key_arena),
        env,
        resolved: &template.resolved,
        limits: env.limits(),
        source: template.source(),
        unit: template,
        stores: Stores::new(context, authored),
        effects: Vec::new(),
        out: TextBuf::with_capacity(template.source().len()),
        memory: env.limits().memory_limit,
        frames: Vec::new(),
        names: &template.tree().names,
        tables: vec![Table::new(template, None)],
        table: 0,
        compose: Composition::new(&arena, template),
        fuel,
        macro_depth: 0,
        depth: 0,
        control: None,
        autoescape: false,
        draws,
        stack: StackBudget::new(env.limits().stack_limit),
        undefined: Vec::new(),
        undefined_names: HashSet::new(),
        handles: values::Handles::new(),
        jinja2: env.profile() == Profile::Jinja2,
        generation: Vec::new(),
    };
    // Values print as Python prints them for the whole render (Jinja2).
    let _printing = PythonPrinting::set(renderer.jinja2);
    renderer.exec_root(0)?;
    renderer.finish()
}

pub(crate) struct Renderer<'t> {
    env: &'t Environment,
    /// The filters and tests the template names.
    resolved: &'t Resolution,
    limits: &'t Limits,
    /// The template whose code runs now, its source and names (copied out
    /// of it: every error and lookup reads them).
    unit: &'t Compiled,
    source: &'t str,
    stores: Stores<'t>,
    effects: Vec<Effect>,
    out: TextBuf,
    /// The bytes left under [`Limits::memory_limit`].
    memory: usize,
    frames: Vec<Frame<'t>>,
    /// The running template's bare names and their numbers ([`Name::id`]).
    names: &'t HashMap<&'t str, u32>,
    /// One per run of a template's top level (the main one, each include,
    /// import and parent): its macros and imports.
    tables: Vec<Table<'t>>,
    /// The table of the code running now.
    table: usize,
    /// The loaded templates, the active chain, the blocks.
    compose: Composition<'t>,
    /// Keyword names a `**map` gave.
    keywords: keys::KeywordNames<'t>,
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
    /// The bare `[[name]]` tags that printed an undefined name, one per
    /// name ([`Outcome::undefined`]), and those names.
    undefined: Vec<UndefinedTag>,
    undefined_names: HashSet<&'t str>,
    /// What the macro and `caller` values of this render refer to.
    handles: values::Handles<'t>,
    /// The Jinja2 profile is on (`set` scoping, methods, printing).
    jinja2: bool,
    /// The output ranges `generation` blocks wrote, in order.
    generation: Vec<std::ops::Range<usize>>,
}

impl<'t> Renderer<'t> {
    /// An error of `kind` at `span`.
    fn error(&self, kind: ErrorKind, message: impl Into<String>, span: Span) -> Error {
        Error::new(kind, message).at_in(self.source, span, self.unit.name.as_deref())
    }

    /// Places an error without a position (from an operator, a filter, a
    /// host callback) at `span`.
    fn locate(&self, span: Span) -> impl Fn(Error) -> Error + '_ {
        move |e| e.at_in(self.source, span, self.unit.name.as_deref())
    }

    /// Spends `units` of fuel. Inlined: it runs once per expression, and
    /// its error is built out of line.
    #[inline]
    fn spend(&mut self, units: u64, span: Span) -> Result<(), Error> {
        if let Some(fuel) = &mut self.fuel {
            if *fuel < units {
                *fuel = 0;
                return Err(self.out_of_fuel(span));
            }
            *fuel -= units;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn out_of_fuel(&self, span: Span) -> Error {
        self.error(
            ErrorKind::OutOfFuel,
            "the render ran out of fuel (too many evaluation steps)",
            span,
        )
    }

    /// Enters one level of evaluator recursion (inlined as [`Self::spend`]).
    #[inline]
    fn descend(&mut self, span: Span) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_EVAL_DEPTH || self.stack.exceeded() {
            return Err(self.too_deep(span));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self, span: Span) -> Error {
        self.error(
            ErrorKind::RecursionLimit,
            "the template recurses too deeply (macro calls nested in deep expressions)",
            span,
        )
    }

    fn output_limit(&self, span: Span) -> Error {
        self.error(
            ErrorKind::OutputLimit,
            format!("the output would exceed the limit of {} bytes", self.limits.output_limit),
            span,
        )
    }

    /// Counts `bytes` against [`Limits::memory_limit`] (inlined as
    /// [`Self::spend`]).
    #[inline]
    fn charge(&mut self, bytes: usize, span: Span) -> Result<(), Error> {
        match self.memory.checked_sub(bytes) {
            Some(left) => {
                self.memory = left;
                Ok(())
            }
            None => {
                self.memory = 0;
                Err(self.over_memory(span))
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn over_memory(&self, span: Span) -> Error {
        self.error(
            ErrorKind::MemoryLimit,
            format!(
                "the render would build or keep more than the memory limit of {} bytes \
                 (values it builds, every write, every effect)",
                self.limits.memory_limit
            ),
            span,
        )
    }

    /// Writes template text: authored bytes.
    fn write(&mut self, text: &str, span: Span) -> Result<(), Error> {
        if self.out.len() + text.len() > self.limits.output_limit {
            return Err(self.output_limit(span));
        }
        self.out.push_authored(text);
        Ok(())
    }

    /// Records that the name `name` at `span` printed undefined, when its tag
    /// prints the name alone (`[[name]]`, `[[ name ]]`, `[[- name -]]`, not
    /// `[[ (name) ]]`) and the name is new to this render; whether it is
    /// written bare (no spaces or trim markers: what text that only looks
    /// like a tag is) goes with it. What it keeps counts against the memory
    /// limit.
    fn note_undefined(&mut self, name: &'t str, span: Span) -> Result<(), Error> {
        let bytes = self.source.as_bytes();
        let (start, end) = (span.start(), span.end());
        if bytes.get(start..end) != Some(name.as_bytes()) || self.undefined_names.contains(name) {
            return Ok(());
        }
        let (Some(open), Some(close)) = (tag_open(bytes, start), tag_close(bytes, end)) else {
            return Ok(());
        };
        let bare = open + 2 == start && close == end;
        self.charge(ENTRY + 2 * name.len(), span)?;
        self.undefined_names.insert(name);
        let tag = Span::new(open, close + 2);
        let unit = self.unit.name.as_deref();
        self.undefined.push(UndefinedTag::new(name, tag.into(), bare, unit));
        Ok(())
    }

    /// Prints a value: data, except the authored bytes a string literal or
    /// a captured text carries.
    fn write_value(&mut self, value: &Value, span: Span) -> Result<(), Error> {
        match &value.0 {
            // What the module's top level printed, with its provenance.
            Repr::Module(module) => self.write_value(&module.output, span),
            Repr::Undefined if self.env.strict() => Err(self.error(
                ErrorKind::UndefinedError,
                "printing an undefined value (strict mode)",
                span,
            )),
            Repr::None if self.jinja2 => {
                self.charge(RANGE, span)?;
                self.out.push_data("None");
                Ok(())
            }
            Repr::Undefined | Repr::None => Ok(()),
            // Text marked as escaped (`escape`, `safe`) is printed as it is.
            _ if self.autoescape && !crate::filters::is_safe(value) => {
                self.write_escaped(value, span)
            }
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
                {
                    if name.text == "loop" && self.recursion_site().is_some() {
                        return self.print_recursion(args, e.span);
                    }
                    match self.resolve(name) {
                        Resolved::Macro(def) => return self.print_macro(def, args, e.span),
                        Resolved::Caller(caller) => {
                            return self.print_caller(caller, args, e.span);
                        }
                        _ => {}
                    }
                }
                let value = self.eval(e)?;
                self.write_value(&value, e.span)?;
                match e.kind {
                    ExprKind::Name(name) if value.is_undefined() => {
                        self.note_undefined(name.text, e.span)
                    }
                    _ => Ok(()),
                }
            }
            Node::If { branches, otherwise } => {
                for (cond, body) in branches {
                    if self.condition(cond)? {
                        return self.exec_block(body, cond.span);
                    }
                }
                self.exec_block(otherwise, Span::default())
            }
            Node::For(for_loop) => self.exec_for(for_loop),
            Node::Set { target, value: e, span } => {
                let value = self.eval(e)?;
                if self.jinja2 {
                    return self.bind_jinja2(target, value, *span);
                }
                self.assign(target, value, Some(e.span), *span)
            }
            Node::SetBlock(block) => {
                let captured = self.capture(&block.body, block.span)?;
                let value = self.filtered(captured, &block.filters, block.span)?;
                if self.jinja2 {
                    return self.bind_jinja2(&block.target, value, block.span);
                }
                self.assign(&block.target, value, None, block.span)
            }
            Node::Generation(body, span) => {
                let start = self.out.len();
                self.exec_block(body, *span)?;
                let end = self.out.len();
                if end > start {
                    self.charge(RANGE, *span)?;
                    self.generation.push(start..end);
                }
                Ok(())
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
                let table = self.table;
                self.define_macro(def.name, MacroRef { def, table }, Span::default())
            }
            Node::CallBlock(block) => self.exec_call_block(block),
            Node::Chance { branches, otherwise } => self.exec_chance(branches, otherwise),
            Node::Weighted { choices } => self.exec_weighted(choices),
            Node::Effect { kind, value, span } => self.exec_effect(*kind, value, *span),
            Node::Include(include) => self.exec_include(include),
            Node::Import(import) => self.exec_import(import),
            Node::Extends { name, span } => self.exec_extends(name, *span),
            Node::Block(def) => self.exec_block_node(def),
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
        self.take_capture(mark, span)
    }

    /// What was written since `mark`, as a value with its provenance. Under
    /// `autoescape` it is marked safe: its prints were escaped as they were
    /// written, so printing it again does not escape them twice
    /// (minijinja's rule for every capture).
    fn take_capture(&mut self, mark: crate::provenance::Mark, span: Span) -> Result<Value, Error> {
        let mut captured = self.out.take_from(mark);
        if self.autoescape {
            captured =
                crate::filters::marked_safe(captured, self.limits).map_err(self.locate(span))?;
        }
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
        let below = self.frames.len();
        self.run_loop(l, iterable, l.iterable.span, 0, below)
    }

    /// Runs the loop `l` over `iterable` (evaluated at `span`): its filter,
    /// its body once per item kept, or its `else`. `depth` is the level of
    /// `loop(...)` recursion, `below` the frames the loop's body sees
    /// under its own (see [`LoopState::below`]).
    fn run_loop(
        &mut self,
        l: &'t ForLoop<'t>,
        iterable: Value,
        span: Span,
        depth: usize,
        below: usize,
    ) -> Result<(), Error> {
        if iterable.is_undefined() && self.env.strict() {
            return Err(self.error(
                ErrorKind::UndefinedError,
                "iterating an undefined value (strict mode)",
                span,
            ));
        }
        if self.jinja2 && matches!(iterable.0, Repr::None) {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                "cannot iterate over none (Python: 'NoneType' object is not iterable)",
                span,
            ));
        }
        let items = match iterable.items(self.limits.range_limit) {
            Ok(items) => items,
            Err(why) => {
                let what = if depth == 0 {
                    "cannot iterate over"
                } else {
                    "`loop(...)` cannot recurse into"
                };
                let message = why.message(&iterable, what, self.limits.range_limit);
                return Err(self.error(ErrorKind::InvalidOperation, message, span));
            }
        };
        // A string's characters and a map's keys are a new list.
        if !matches!(iterable.0, Repr::List(_)) {
            self.charge(items.owned_size(), span)?;
        }
        let names = NameIndex::of(l.targets.iter().copied());
        let mut state = LoopState {
            def: l,
            depth,
            below,
            names,
            values: Vec::new(),
            items,
            index: 0,
            filtering: true,
            locals: Vec::new(),
            local_names: NameIndex::default(),
        };
        if let Some(filter) = &l.filter {
            let all = std::mem::take(&mut state.items);
            let mut kept = Vec::new();
            self.frames.push(Frame::Loop(state));
            for (index, item) in all.iter().enumerate() {
                self.bind_loop(index, item, l.span)?;
                if self.condition(filter)? {
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
        // Whether an iteration ran to the end of the body: the `else` runs
        // when none did (every one ended by `break` or `continue`), as in
        // Jinja2.
        let mut completed = false;
        for (index, item) in items.iter().enumerate() {
            self.spend(1, l.span)?;
            self.bind_loop(index, item, l.span)?;
            self.exec(&l.body)?;
            match self.control.take() {
                Some(Control::Break) => break,
                Some(Control::Continue) => {}
                None => completed = true,
            }
        }
        self.depth -= 1;
        self.frames.pop();
        if completed || l.otherwise.is_empty() {
            return Ok(());
        }
        self.exec_block(&l.otherwise, l.span)
    }

    /// The loop `loop(...)` would recurse into: the innermost visible
    /// loop (unless a loop variable named `loop` hides it), with its depth
    /// and the frames below it.
    fn recursion_site(&self) -> Option<(&'t ForLoop<'t>, usize, usize)> {
        let state = self.current_loop()?;
        (!state.def.targets.contains(&"loop")).then_some((state.def, state.depth, state.below))
    }

    /// `loop(items)` in a `for ... recursive` body: the loop run again over
    /// `items`, one level deeper, its output written where the call is.
    /// Each level counts as a macro call against the recursion limit.
    fn recurse(&mut self, args: Arguments<'t>, span: Span) -> Result<(), Error> {
        let Some((def, depth, below)) = self.recursion_site() else {
            return Err(self.error(ErrorKind::UnknownFunction, "unknown function `loop`", span));
        };
        if !def.recursive {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                "`loop(...)` recurses only in a `for ... recursive` loop, and the innermost \
                 loop here is not recursive",
                span,
            ));
        }
        let [items] = match (<[Value; 1]>::try_from(args.positional), args.keywords.is_empty()) {
            (Ok(items), true) => items,
            _ => {
                return Err(self.error(
                    ErrorKind::InvalidOperation,
                    "`loop(...)` takes one argument: the items to recurse into",
                    span,
                ));
            }
        };
        if self.macro_depth >= self.limits.recursion_limit {
            return Err(self.error(
                ErrorKind::RecursionLimit,
                format!(
                    "the recursive loop nests deeper than the recursion limit of {} calls",
                    self.limits.recursion_limit
                ),
                span,
            ));
        }
        self.macro_depth += 1;
        let done = self.run_loop(def, items, span, depth + 1, below);
        self.macro_depth -= 1;
        done
    }

    /// `[[ loop(items) ]]`: the recursion printed in place (as a macro
    /// call is), without capturing it.
    fn print_recursion(&mut self, args: &'t CallArgs<'t>, span: Span) -> Result<(), Error> {
        self.spend(1, span)?;
        self.descend(span)?;
        let args = self.eval_args(args)?;
        self.recurse(args, span)?;
        self.depth -= 1;
        Ok(())
    }

    /// `loop(items)` as a value: the recursion's output captured.
    pub(super) fn call_recursion(
        &mut self,
        args: Arguments<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let mark = self.out.mark();
        self.recurse(args, span)?;
        self.take_capture(mark, span)
    }

    /// Sets the innermost loop's position and binds its variables to
    /// `item` (unpacking pairs for `for k, v in ...`).
    fn bind_loop(&mut self, index: usize, item: &Value, span: Span) -> Result<(), Error> {
        // Unpacking into many variables is work in proportion to them.
        if let Some(Frame::Loop(state)) = self.frames.last() {
            let units = state.def.targets.len() as u64 / 64;
            self.spend(units, span)?;
        }
        let Some(Frame::Loop(state)) = self.frames.last_mut() else { return Err(frame_error()) };
        state.index = index;
        state.values.clear();
        state.locals.clear();
        state.local_names = NameIndex::default();
        let pattern = &state.def.pattern;
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
        let (mut values, mut names) = (Vec::new(), Vec::new());
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
            names.clear();
            pattern.names(&mut names);
            if let Some(Frame::With(bound, index)) = self.frames.last_mut() {
                for (name, value) in names.iter().zip(values.drain(..)) {
                    // A name bound again replaces its value; a new one is
                    // the next of `block.names`, so `bound` stays in order.
                    let at = index.position(name, || bound.iter().position(|(n, _)| n == name));
                    match at.and_then(|at| bound.get_mut(at)) {
                        Some(slot) => slot.1 = value,
                        None => bound.push((name, value)),
                    }
                }
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
        // What is marked safe (an `escape` filter, a capture under
        // `autoescape`) stays safe.
        let safe = crate::filters::is_safe(&value);
        let value = match (authored, value.as_str()) {
            (true, Some(text)) => Value::authored(text),
            (false, Some(text)) if matches!(value.0, Repr::Text(_)) => Value::str(text),
            _ => value,
        };
        match safe {
            true => crate::filters::marked_safe(value, self.limits).map_err(self.locate(span)),
            false => Ok(value),
        }
    }

    /// The Jinja2 profile's `set`: binds the name in the innermost scope
    /// (a loop iteration, a macro call, a `with` or `call` body; else the
    /// template, read as a state variable but never stored). `set ns.a = v`
    /// rebinds `ns` where it is bound, with the attribute set.
    fn bind_jinja2(
        &mut self,
        target: &'t Target<'t>,
        value: Value,
        span: Span,
    ) -> Result<(), Error> {
        let TargetName::Static(Cow::Borrowed(name)) = &target.name else {
            return Err(self.error(ErrorKind::SyntaxError, "the jinja2 profile sets names", span));
        };
        let name: &'t str = name;
        self.spend(1, span)?;
        self.charge(ENTRY, span)?;
        if target.attrs.is_empty() {
            return self.bind_at(self.local_scope(), name, value);
        }
        let id = self.names.get(name).copied().unwrap_or(u32::MAX);
        let current = self.lookup(Name { text: name, id }, span)?;
        if !matches!(current.0, Repr::Map(_)) {
            let message = format!(
                "cannot set an attribute of `{name}`: it is {}, not a namespace",
                describe(&current)
            );
            return Err(self.error(ErrorKind::InvalidOperation, message, span));
        }
        self.charge(current.owned_size(), span)?;
        self.spend(current.size() as u64 / 256, span)?;
        let Ok(updated) = set_path(&current, &target.attrs, value) else {
            let message =
                format!("cannot set `{name}.{}`: not a namespace", target.attrs.join("."));
            return Err(self.error(ErrorKind::InvalidOperation, message, span));
        };
        self.bind_at(self.bound_at(name), name, updated)
    }

    /// The frame a Jinja2 `set` binds in: the innermost loop, macro,
    /// `with` or `call` body (`None`: the template level).
    fn local_scope(&self) -> Option<usize> {
        self.frames.iter().rposition(|frame| !matches!(frame, Frame::Caller(_)))
    }

    /// The frame that binds `name` as a read would find it (`None`: the
    /// template level).
    fn bound_at(&self, name: &str) -> Option<usize> {
        let mut at = self.frames.len();
        while at > 0 {
            at -= 1;
            let frame = &self.frames[at];
            if frame.binding(name).is_some() {
                return Some(at);
            }
            match frame {
                Frame::Macro(..) => break,
                Frame::CallerBody(.., outer) => at = *outer,
                Frame::Loop(state) => at = state.below,
                _ => {}
            }
        }
        None
    }

    /// Binds `name` in frame `at` (or at the template level).
    fn bind_at(&mut self, at: Option<usize>, name: &'t str, value: Value) -> Result<(), Error> {
        let Some(at) = at else {
            self.stores.bind(name, value);
            return Ok(());
        };
        match &mut self.frames[at] {
            Frame::Loop(state) => {
                let targets = &state.def.targets;
                let target = state.names.position(name, || targets.iter().position(|t| *t == name));
                let locals = &state.locals;
                let local = state
                    .local_names
                    .position(name, || locals.iter().position(|(n, _)| *n == name));
                match (local, target.filter(|&i| i < state.values.len())) {
                    (Some(i), _) => state.locals[i].1 = value,
                    (None, Some(i)) => state.values[i] = value,
                    (None, None) => {
                        state.locals.push((name, value));
                        let (locals, at) = (&state.locals, state.locals.len() - 1);
                        state.local_names.add(name, at, || locals.iter().map(|(n, _)| *n));
                    }
                }
            }
            Frame::Macro(bound, index)
            | Frame::With(bound, index)
            | Frame::CallerBody(bound, index, _) => {
                match index.position(name, || bound.iter().position(|(p, _)| *p == name)) {
                    Some(i) if i < bound.len() => bound[i].1 = value,
                    _ => {
                        bound.push((name, value));
                        let at = bound.len() - 1;
                        index.add(name, at, || bound.iter().map(|(n, _)| *n));
                    }
                }
            }
            Frame::Caller(_) => {}
        }
        Ok(())
    }

    /// Writes `value` (of the expression at `written`, if any) into a
    /// store, recording the write.
    fn assign(
        &mut self,
        target: &'t Target<'t>,
        value: Value,
        written: Option<Span>,
        span: Span,
    ) -> Result<(), Error> {
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
        let value = if target.attrs.is_empty() {
            value
        } else {
            self.updated_map(target, &name, value, span)?
        };
        if let Some((part, why)) = value.unstorable_part() {
            let message = if part.is_empty() {
                let hint = if value.is_undefined() {
                    " (use `-> default(...)` to store a fallback)"
                } else {
                    ""
                };
                format!("cannot set `{name}`: {why}{hint}")
            } else {
                // The part as it would be read: from the expression as
                // written when it is short and on one line.
                let written = written
                    .map(|at| &self.source[at.start()..at.end()])
                    .filter(|e| e.len() <= 64 && !e.contains(['\n', '\r']));
                match written {
                    Some(e) => format!("cannot set `{name}`: {why} (`{e}{part}` is one)"),
                    None => format!("cannot set `{name}`: {why} (its part `{part}` is one)"),
                }
            };
            return Err(self.error(ErrorKind::InvalidOperation, message, span));
        }
        // The log shares the value but lists every write: each is charged
        // in full, as a host printing or storing the log pays for it.
        let cost = value.size().saturating_add(name.len()).saturating_add(ENTRY);
        self.charge(cost, span)?;
        if target.scope == Scope::State {
            self.record_var(&name, &value, span)?;
        }
        self.stores.set(target.scope, name, value);
        Ok(())
    }

    /// `set ns.a.b = value`: the variable `name`'s map (a namespace or any
    /// map, decision 6) with the attribute path set, as a new value that
    /// the `set` then writes whole. Only a stored variable: a loop
    /// variable, parameter or macro of that name is an `invalid_operation`.
    fn updated_map(
        &mut self,
        target: &'t Target<'t>,
        name: &str,
        value: Value,
        span: Span,
    ) -> Result<Value, Error> {
        let shown = match target.scope {
            Scope::State => name.to_owned(),
            Scope::Local => format!("L.{name}"),
            Scope::Global => format!("G.{name}"),
        };
        // A name never written bare has no number, and so is no macro.
        let id = self.names.get(name).copied().unwrap_or(u32::MAX);
        if target.scope == Scope::State
            && !matches!(self.resolve(Name { text: name, id }), Resolved::State)
        {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!(
                    "cannot set an attribute of `{shown}`: it is a loop variable, parameter, \
                     `with` name or macro here, not a stored variable"
                ),
                span,
            ));
        }
        let current =
            self.stores.get(target.scope, name, &mut memory!(self)).map_err(self.locate(span))?;
        // Rebuilding a map is work in proportion to its entries.
        self.charge_size(&current, span)?;
        match set_path(&current, &target.attrs, value) {
            Ok(updated) => Ok(updated),
            Err(depth) => {
                let path: String = target.attrs[..depth].iter().map(|a| format!(".{a}")).collect();
                let found = path_value(&current, &target.attrs[..depth]).cloned();
                let found = found.unwrap_or_default();
                Err(self.error(
                    ErrorKind::InvalidOperation,
                    format!(
                        "cannot set an attribute of `{shown}{path}`: it is {}, not a namespace \
                         or map",
                        describe(&found)
                    ),
                    span,
                ))
            }
        }
    }

    fn finish(self) -> Result<(Outcome, Draws, Option<u64>), Error> {
        let writes = self.stores.finish();
        let (output, data_ranges) = self.out.finish();
        let outcome = Outcome {
            output,
            data_ranges,
            generation_ranges: self.generation,
            writes,
            effects: self.effects,
            undefined: self.undefined,
            // The caller knows the seed (an exact enumeration has none).
            seed: 0,
        };
        Ok((outcome, self.draws, self.fuel))
    }

    /// Calls the macro `def` with evaluated arguments: its body captured as
    /// a string value.
    fn call_macro(
        &mut self,
        mref: MacroRef<'t>,
        args: Arguments<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let def = mref.def;
        self.enter_macro(def, args, span)?;
        let caller = self.switch_table(mref.table);
        let output = self.capture(&def.body, span);
        self.switch_table(caller);
        self.leave_macro();
        output
    }

    /// `[[ m(args) ]]`: the macro's body rendered where the call is. That
    /// writes what capturing it and printing the capture would (the same
    /// bytes, the same data ranges, at the same cost in fuel), without the
    /// copy; the most common use of a macro costs nothing for provenance.
    fn print_macro(
        &mut self,
        mref: MacroRef<'t>,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<(), Error> {
        let def = mref.def;
        // What evaluating the call expression costs.
        self.spend(1, span)?;
        self.descend(span)?;
        let args = self.eval_args(args)?;
        self.enter_macro(def, args, span)?;
        let caller = self.switch_table(mref.table);
        let done = self.exec_block(&def.body, span);
        self.switch_table(caller);
        done?;
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
        let callee = || format!("macro `{}`", def.name);
        let mut args = args;
        // A macro whose body reads `caller` takes it as a keyword argument
        // too (`other(caller=caller)`), as minijinja's macros do.
        let passed = (def.caller && !def.params.iter().any(|(p, _)| *p == "caller"))
            .then(|| args.keywords.iter().position(|(k, _)| *k == "caller"))
            .flatten()
            .map(|at| args.keywords.remove(at).1);
        let (mut params, defaults) =
            self.bind_params(&def.params, def.catch, args, &callee, span)?;
        if let Some(caller) = passed {
            params.push(("caller", caller));
        }
        let index = NameIndex::of(params.iter().map(|(p, _)| *p));
        self.frames.push(Frame::Macro(params, index));
        self.eval_defaults(defaults)?;
        self.macro_depth += 1;
        Ok(())
    }

    /// Binds a call's arguments to `params` and `catch` (a macro's or a
    /// `call` block's, named by `callee`): the values, undefined where left
    /// out, then the `*rest` list and `**options` map when the signature has
    /// them; and the defaults still to evaluate (by [`Self::eval_defaults`],
    /// once the frame is pushed). Past the recursion limit, an error.
    #[allow(clippy::type_complexity)]
    fn bind_params(
        &mut self,
        params: &'t [(&'t str, Option<Expr<'t>>)],
        catch: ast::Catch<'t>,
        args: Arguments<'t>,
        callee: &dyn Fn() -> String,
        span: Span,
    ) -> Result<(Vec<(&'t str, Value)>, Vec<(usize, &'t Expr<'t>)>), Error> {
        if self.macro_depth >= self.limits.recursion_limit {
            return Err(self.error(
                ErrorKind::RecursionLimit,
                format!(
                    "{} nests deeper than the recursion limit of {} calls",
                    callee(),
                    self.limits.recursion_limit
                ),
                span,
            ));
        }
        let names = params.iter().map(|(p, _)| *p);
        let (varargs, kwargs) = (catch.varargs.is_some(), catch.kwargs.is_some());
        let bound =
            args.bind_catching(callee, names, varargs, kwargs).map_err(self.locate(span))?;
        // Parameters left out that have a default (evaluated later).
        let mut defaults = Vec::new();
        let mut values: Vec<(&'t str, Value)> = params
            .iter()
            .zip(bound.named)
            .enumerate()
            .map(|(index, ((name, default), value))| {
                if let (None, Some(default)) = (&value, default) {
                    defaults.push((index, default));
                }
                (*name, value.unwrap_or_default())
            })
            .collect();
        // The arguments' own list becomes `*rest` (a spread paid for it).
        if let Some(name) = catch.varargs {
            values.push((name, Value::list(bound.varargs)));
        }
        if let Some(name) = catch.kwargs {
            self.charge(2 * SLOT * bound.kwargs.len(), span)?;
            let mut map = ValueMap::with_capacity(bound.kwargs.len());
            for (key, value) in bound.kwargs {
                if map.insert(Arc::from(key), value).is_some() {
                    return Err(self.error(
                        ErrorKind::BadArguments,
                        format!("{} got the argument `{key}` twice", callee()),
                        span,
                    ));
                }
            }
            values.push((name, Value::map(map)));
        }
        // Binding is work in proportion to the parameters, given or not.
        self.spend(values.len() as u64 / 64, span)?;
        Ok((values, defaults))
    }

    /// Defaults are evaluated at call time, in the innermost frame (the
    /// call's), seeing the earlier parameters.
    fn eval_defaults(&mut self, defaults: Vec<(usize, &'t Expr<'t>)>) -> Result<(), Error> {
        for (index, default) in defaults {
            let value = self.eval(default)?;
            if let Some(Frame::Macro(params, _) | Frame::CallerBody(params, ..)) =
                self.frames.last_mut()
            {
                params[index].1 = value;
            }
        }
        Ok(())
    }

    /// `[% call(params) m(args) %]body[% endcall %]`: the macro's body
    /// rendered in place (as `[[ m(args) ]]`), with `caller` bound to the
    /// block's body. The arguments are evaluated before the callee is
    /// looked up.
    fn exec_call_block(&mut self, block: &'t CallBlock<'t>) -> Result<(), Error> {
        let span = block.span;
        let ExprKind::Call(callee, args) = &block.call.kind else {
            return Err(self.error(ErrorKind::SyntaxError, "a `call` block needs a call", span));
        };
        self.spend(1, span)?;
        self.descend(span)?;
        let args = self.eval_args(args)?;
        let value = match callee.kind {
            ExprKind::Name(name) => match self.resolve(name) {
                Resolved::Macro(m) => Some(m),
                Resolved::Value(value) => self.macro_of(&value, callee.span)?,
                Resolved::Caller(_) | Resolved::State => None,
            },
            _ => {
                let value = self.eval(callee)?;
                self.macro_of(&value, callee.span)?
            }
        };
        let Some(mref) = value else {
            let what = &self.source[callee.span.start()..callee.span.end()];
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!("a `call` block calls a macro, and `{what}` is not one"),
                callee.span,
            ));
        };
        let def = mref.def;
        if !def.caller {
            // The body would be dropped unseen (minijinja: an unexpected
            // `caller` argument).
            return Err(self.error(
                ErrorKind::BadArguments,
                format!(
                    "macro `{}` never reads `caller`, so a `call` block's body would be lost",
                    def.name
                ),
                callee.span,
            ));
        }
        let frames = self.frames.len();
        self.enter_macro(def, args, span)?;
        // The body runs in the call site's template; the macro in its own.
        let at = self.frames.len();
        self.frames.push(Frame::Caller(CallerRef { block, frames, table: self.table, at }));
        let call_site = self.switch_table(mref.table);
        let done = self.exec_block(&def.body, span);
        self.switch_table(call_site);
        done?;
        self.frames.pop();
        self.leave_macro();
        self.depth -= 1;
        Ok(())
    }

    /// `[[ caller(args) ]]`: the `call` block's body rendered in place.
    fn print_caller(
        &mut self,
        caller: CallerRef<'t>,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<(), Error> {
        self.spend(1, span)?;
        self.descend(span)?;
        let args = self.eval_args(args)?;
        self.enter_caller(caller, args, span)?;
        let macro_table = self.switch_table(caller.table);
        let done = self.exec_block(&caller.block.body, span);
        self.switch_table(macro_table);
        done?;
        self.leave_macro();
        self.depth -= 1;
        Ok(())
    }

    /// `caller(args)` as a value: the `call` block's body captured.
    pub(super) fn call_caller(
        &mut self,
        caller: CallerRef<'t>,
        args: Arguments<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        self.enter_caller(caller, args, span)?;
        let macro_table = self.switch_table(caller.table);
        let output = self.capture(&caller.block.body, span);
        self.switch_table(macro_table);
        let output = output?;
        self.leave_macro();
        Ok(output)
    }

    /// Binds `caller(args)`'s arguments and enters the body's frame, which
    /// sees the call site's frames and not the macro's. Counts as a macro
    /// level: a body that calls its macro again recurses.
    fn enter_caller(
        &mut self,
        caller: CallerRef<'t>,
        args: Arguments<'t>,
        span: Span,
    ) -> Result<(), Error> {
        let (params, catch) = (&caller.block.params, caller.block.catch);
        let (values, defaults) =
            self.bind_params(params, catch, args, &|| "`caller`".into(), span)?;
        let index = NameIndex::of(values.iter().map(|(p, _)| *p));
        self.frames.push(Frame::CallerBody(values, index, caller.frames));
        self.eval_defaults(defaults)?;
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
            Resolved::Macro(m) => self.macro_value(m, span),
            Resolved::Caller(caller) => self.caller_value(caller, span),
            Resolved::State => {
                if self.module(name).is_some()
                    && let Some(module) = self.module_value(name, span)?
                {
                    return Ok(module);
                }
                let value = self
                    .stores
                    .get(Scope::State, &name, &mut memory!(self))
                    .map_err(self.locate(span))?;
                // A function's name not hidden by a variable is the function.
                if value.is_undefined() && self.env.registry().function(&name).is_some() {
                    return self.function_value(name.text, span);
                }
                Ok(value)
            }
        }
    }

    /// Where a bare name lives, without converting anything. Each frame
    /// finds its bindings in O(1); frames nest at most as deep as the
    /// template's blocks. Always inlined: every read of a name asks.
    #[inline(always)]
    fn resolve(&self, name: Name<'t>) -> Resolved<'t> {
        let mut at = self.frames.len();
        while at > 0 {
            at -= 1;
            let frame = &self.frames[at];
            if let Frame::Caller(caller) = frame {
                if name.text == "caller" {
                    return Resolved::Caller(*caller);
                }
                continue;
            }
            if let Some(value) = frame.binding(&name) {
                return Resolved::Value(value);
            }
            match frame {
                Frame::Macro(..) => break,
                // A `call` block's body: on at its call site.
                Frame::CallerBody(.., outer) => at = *outer,
                // A recursion level: on below the loop it runs again.
                Frame::Loop(state) => at = state.below,
                _ => {}
            }
        }
        match self.macro_in_scope(name) {
            Some(m) => Resolved::Macro(m),
            None => Resolved::State,
        }
    }

    /// The innermost loop whose `loop` is visible from here (not across a
    /// macro call; a loop's `if` filter sees the enclosing loop's).
    fn current_loop(&self) -> Option<&LoopState<'t>> {
        let mut at = self.frames.len();
        while at > 0 {
            at -= 1;
            match &self.frames[at] {
                // A filter's own target named `loop` hides the outer one.
                Frame::Loop(state) if state.filtering => {
                    if state.def.targets.contains(&"loop") {
                        return None;
                    }
                    at = state.below;
                }
                Frame::Loop(state) => return Some(state),
                Frame::With(..) | Frame::Caller(_) => {}
                Frame::CallerBody(.., outer) => at = *outer,
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
    Macro(MacroRef<'t>),
    /// `caller` in a macro that a `call` block called.
    Caller(CallerRef<'t>),
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

/// `base` with `path` set to `value`, each map on the way rebuilt; the
/// length of the path prefix that is not a map when one is not.
fn set_path(base: &Value, path: &[&str], value: Value) -> Result<Value, usize> {
    let Some((first, rest)) = path.split_first() else { return Ok(value) };
    let Repr::Map(map) = &base.0 else { return Err(0) };
    let inner = if rest.is_empty() {
        value
    } else {
        let child = map.get(*first).cloned().unwrap_or_default();
        set_path(&child, rest, value).map_err(|depth| depth + 1)?
    };
    let mut entries = (**map).clone();
    entries.insert(Arc::from(*first), inner);
    Ok(Value::map(entries))
}

/// The value at `path` inside `base`, if every step is a map's entry.
fn path_value<'v>(base: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(base, |value, attr| match &value.0 {
        Repr::Map(map) => map.get(*attr),
        _ => None,
    })
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

/// Where the `[[` of the print tag whose expression starts at `start` is:
/// before it, only whitespace and a trim marker (`-`).
fn tag_open(bytes: &[u8], start: usize) -> Option<usize> {
    let before = bytes.get(..start)?;
    let mut at = before.len() - before.iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
    if at > 0 && before[at - 1] == b'-' {
        at -= 1;
    }
    (at >= 2 && &before[at - 2..at] == b"[[").then(|| at - 2)
}

/// Where the `]]` of the print tag whose expression ends at `end` is: after
/// it, only whitespace and a trim marker.
fn tag_close(bytes: &[u8], end: usize) -> Option<usize> {
    let after = bytes.get(end..)?;
    let mut at = after.iter().take_while(|b| b.is_ascii_whitespace()).count();
    if after.get(at) == Some(&b'-') {
        at += 1;
    }
    (after.get(at..at + 2) == Some(b"]]")).then_some(end + at)
}
