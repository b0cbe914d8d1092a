//! The visitor behind [`Analysis`]: one pass over the syntax tree, binding
//! loop variables and macro parameters the way the evaluator resolves
//! names, then the checks that need the whole template.

use std::cell::Cell;
use std::collections::HashSet;

use super::{
    Analysis, Branch, EffectSite, MacroNames, RandomBlock, ScopeNames, TemplateRef, Variables,
    Warning, WarningKind,
};
use crate::arguments::NameIndex;
use crate::context::{Context, Scope};
use prompt_core::text::{LineIndex, Position};

use crate::environment::Environment;
use crate::span::Span;
use crate::syntax::ast::{
    CallArgs, EffectKind, Expr, ExprKind, FilterCall, ForLoop, ImportBinds, MacroDef, Node, Target,
    TargetName,
};
use crate::unit::Resolution;

/// Analyses a parsed template; `context` tells which state variables the
/// host provides.
pub(crate) fn analyze(
    env: &Environment,
    resolved: &Resolution,
    source: &str,
    body: &[Node<'_>],
    context: &Context,
) -> Analysis {
    let mut macros = Vec::new();
    let mut imported = Vec::new();
    collect_macros(body, &mut macros, &mut imported);
    let mut walk = Walk {
        env,
        resolved,
        source,
        lines: LineIndex::new(source),
        last_position: Cell::new((0, Position { line: 1, column: 1 })),
        // Imported macros and modules are called like macros.
        macro_names: macros.iter().map(|m| m.name.text).chain(imported).collect(),
        frames: Vec::new(),
        reads: [Names::default(), Names::default(), Names::default()],
        writes: [Names::default(), Names::default(), Names::default()],
        dynamic: [false; 3],
        state_reads: Vec::new(),
        macros_called: Names::default(),
        filters: Names::default(),
        tests: Names::default(),
        functions: Names::default(),
        effects: Vec::new(),
        random: Vec::new(),
        templates: Vec::new(),
        warnings: Vec::new(),
    };
    walk.nodes(body);
    walk.finish(&macros, context)
}

/// Every macro definition, wherever it is nested, in source order, and
/// the names imports bind (`imported`).
fn collect_macros<'a>(
    nodes: &'a [Node<'a>],
    out: &mut Vec<&'a MacroDef<'a>>,
    imported: &mut Vec<&'a str>,
) {
    for node in nodes {
        match node {
            Node::Macro(def) => {
                out.push(def);
                collect_macros(&def.body, out, imported);
            }
            Node::Block(def) => collect_macros(&def.body, out, imported),
            Node::Import(import) => match &import.binds {
                ImportBinds::Module(alias) => imported.push(alias.text),
                ImportBinds::Macros(names) => {
                    imported.extend(names.iter().map(|(_, alias, _)| alias.text));
                }
            },
            Node::If { branches, otherwise } | Node::Chance { branches, otherwise } => {
                for (_, body) in branches {
                    collect_macros(body, out, imported);
                }
                collect_macros(otherwise, out, imported);
            }
            Node::Weighted { choices } => {
                for (_, body) in choices {
                    collect_macros(body, out, imported);
                }
            }
            Node::For(l) => {
                collect_macros(&l.body, out, imported);
                collect_macros(&l.otherwise, out, imported);
            }
            Node::SetBlock(block) => collect_macros(&block.body, out, imported),
            Node::With(block) => collect_macros(&block.body, out, imported),
            Node::FilterBlock(block) => collect_macros(&block.body, out, imported),
            Node::Autoescape { body, .. } | Node::Generation(body, _) => {
                collect_macros(body, out, imported)
            }
            Node::CallBlock(block) => collect_macros(&block.body, out, imported),
            Node::Text(_)
            | Node::Print(_)
            | Node::Set { .. }
            | Node::Effect { .. }
            | Node::Include(_)
            | Node::Extends { .. }
            | Node::Control(..)
            | Node::Do(_) => {}
        }
    }
}

/// Names in first-seen order, each once.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    seen: HashSet<String>,
}

impl Names {
    fn add(&mut self, name: &str) {
        if !self.seen.contains(name) {
            self.seen.insert(name.to_owned());
            self.list.push(name.to_owned());
        }
    }
}

/// Names bound while visiting: a loop's targets and `loop`, or a macro's
/// parameters (a macro body does not see its caller's loop variables).
struct Frame<'a> {
    names: Vec<&'a str>,
    index: NameIndex<'a>,
    is_macro: bool,
}

impl<'a> Frame<'a> {
    fn new(names: Vec<&'a str>, is_macro: bool) -> Frame<'a> {
        let index = NameIndex::of(names.iter().copied());
        Frame { names, index, is_macro }
    }

    fn binds(&self, name: &str) -> bool {
        self.index.position(name, || self.names.iter().position(|n| *n == name)).is_some()
    }
}

/// A read of a state variable, for the undefined-variable check.
struct StateRead<'a> {
    name: &'a str,
    span: Span,
    guarded: bool,
}

struct Walk<'e, 'a> {
    env: &'e Environment,
    resolved: &'e Resolution,
    source: &'a str,
    lines: LineIndex,
    /// The last position computed and its byte offset.
    last_position: Cell<(usize, Position)>,
    macro_names: HashSet<&'a str>,
    frames: Vec<Frame<'a>>,
    reads: [Names; 3],
    writes: [Names; 3],
    dynamic: [bool; 3],
    state_reads: Vec<StateRead<'a>>,
    macros_called: Names,
    filters: Names,
    tests: Names,
    functions: Names,
    effects: Vec<EffectSite>,
    random: Vec<RandomBlock>,
    templates: Vec<TemplateRef>,
    warnings: Vec<Warning>,
}

fn slot(scope: Scope) -> usize {
    match scope {
        Scope::State => 0,
        Scope::Local => 1,
        Scope::Global => 2,
    }
}

impl<'a> Walk<'_, 'a> {
    /// The 1-based line and column of byte `offset`, from the line index.
    /// Columns are counted on from the last position asked for when it is
    /// earlier on the same line: positions come mostly in source order, so
    /// a long single-line template costs linear time, not quadratic.
    fn position(&self, offset: usize) -> Position {
        let offset = self.source.floor_char_boundary(offset);
        let position = self.lines.position_after(self.source, offset, self.last_position.get());
        self.last_position.set((offset, position));
        position
    }

    /// The start of the `[% keyword ... %]` tag that holds byte `offset`
    /// (the `[%` nearest before it, when `keyword` follows it).
    fn tag_start(&self, offset: usize, keyword: &str) -> Option<usize> {
        let before = self.source.get(..offset)?;
        let open = before.rfind("[%")?;
        let body = before[open + 2..].trim_start_matches(['-', '+']).trim_start();
        body.starts_with(keyword).then_some(open)
    }

    /// The span of `text`, a slice of the source (empty span at 0 if not).
    fn span_of(&self, text: &str) -> Span {
        let base = self.source.as_ptr() as usize;
        let at = text.as_ptr() as usize;
        if at >= base && at + text.len() <= base + self.source.len() {
            Span::new(at - base, at - base + text.len())
        } else {
            Span::default()
        }
    }

    fn warn(&mut self, kind: WarningKind, message: String, span: Span) {
        let Position { line, column } = self.position(span.start());
        let span = prompt_core::text::Span::from(span);
        let snippet = if span.is_empty() {
            String::new()
        } else {
            prompt_core::text::snippet(self.source, span).to_owned()
        };
        self.warnings.push(Warning { kind, message, line, column, snippet, span });
    }

    /// Whether a bare name is a loop variable, `loop` or a parameter here.
    fn is_bound(&self, name: &str) -> bool {
        for frame in self.frames.iter().rev() {
            if frame.binds(name) {
                return true;
            }
            if frame.is_macro {
                break;
            }
        }
        false
    }

    fn nodes(&mut self, nodes: &'a [Node<'a>]) {
        for node in nodes {
            self.node(node);
        }
    }

    fn node(&mut self, node: &'a Node<'a>) {
        match node {
            Node::Text(_) => {}
            Node::Print(e) => self.expr(e, false),
            Node::If { branches, otherwise } => {
                for (cond, body) in branches {
                    self.expr(cond, false);
                    self.nodes(body);
                }
                self.nodes(otherwise);
            }
            Node::For(l) => self.for_loop(l),
            Node::Set { target, value, span } => {
                self.expr(value, false);
                self.target(target, *span);
            }
            Node::SetBlock(block) => {
                self.nodes(&block.body);
                self.filter_calls(&block.filters);
                self.target(&block.target, block.span);
            }
            Node::Control(..) => {}
            Node::Do(e) => self.expr(e, false),
            Node::With(block) => {
                for (_, value) in &block.bindings {
                    self.expr(value, false);
                }
                self.frames.push(Frame::new(block.names.clone(), false));
                self.nodes(&block.body);
                self.frames.pop();
            }
            Node::FilterBlock(block) => {
                self.nodes(&block.body);
                self.filter_calls(&block.filters);
            }
            Node::Autoescape { body, .. } | Node::Generation(body, _) => self.nodes(body),
            Node::Macro(def) => {
                // `caller` is bound in a macro body (to a `call` block's body).
                let mut names: Vec<_> = def.params.iter().map(|(name, _)| *name).collect();
                names.extend(def.catch.varargs.into_iter().chain(def.catch.kwargs));
                names.push("caller");
                self.frames.push(Frame::new(names, true));
                for (_, default) in &def.params {
                    if let Some(default) = default {
                        self.expr(default, false);
                    }
                }
                self.nodes(&def.body);
                self.frames.pop();
            }
            Node::CallBlock(block) => {
                self.expr(&block.call, false);
                // The body sees the call site's names and its parameters.
                let mut names: Vec<_> = block.params.iter().map(|(name, _)| *name).collect();
                names.extend(block.catch.varargs.into_iter().chain(block.catch.kwargs));
                self.frames.push(Frame::new(names, false));
                for (_, default) in &block.params {
                    if let Some(default) = default {
                        self.expr(default, false);
                    }
                }
                self.nodes(&block.body);
                self.frames.pop();
            }
            Node::Chance { branches, otherwise } => self.chance(branches, otherwise),
            Node::Weighted { choices } => self.weighted(choices),
            Node::Effect { kind, value, span } => {
                let Position { line, column } = self.position(span.start());
                let value_text = match &value.kind {
                    ExprKind::Const(v) => v.as_str().map(str::to_owned),
                    _ => None,
                };
                let kind = match kind {
                    EffectKind::QuickReply => "qr",
                    EffectKind::SlashCommand => "st",
                };
                self.effects.push(EffectSite { kind, value: value_text, line, column });
                self.expr(value, false);
            }
            Node::Include(include) => self.template_names("include", &include.names),
            Node::Import(import) => self.template_names("import", &import.template),
            Node::Extends { name, .. } => self.template_names("extends", name),
            Node::Block(def) => self.nodes(&def.body),
        }
    }

    /// The templates a statement names: each literal name (of a list too)
    /// is a [`TemplateRef`]; a name computed when it renders cannot be
    /// followed, which a warning says.
    fn template_names(&mut self, statement: &'static str, names: &'a Expr<'a>) {
        self.expr(names, false);
        // A list of literals may come folded into one constant list.
        let constants = match &names.kind {
            ExprKind::Const(value) => {
                value.as_list().filter(|l| l.iter().all(|v| v.as_str().is_some()))
            }
            _ => None,
        };
        if let Some(list) = constants {
            let Position { line, column } = self.position(names.span.start());
            for value in list {
                let name = value.as_str().unwrap_or_default().to_owned();
                self.templates.push(TemplateRef { statement, name, line, column });
            }
            return;
        }
        let literals: Vec<&'a Expr<'a>> = match &names.kind {
            ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![names],
        };
        for name in literals {
            match &name.kind {
                ExprKind::Const(value) if value.as_str().is_some() => {
                    let Position { line, column } = self.position(name.span.start());
                    let name = value.as_str().unwrap_or_default().to_owned();
                    self.templates.push(TemplateRef { statement, name, line, column });
                }
                _ => self.warn(
                    WarningKind::UnfollowedInclude,
                    format!(
                        "this `{statement}` names a template computed when it renders: \
                         the analysis cannot follow it"
                    ),
                    name.span,
                ),
            }
        }
    }

    fn for_loop(&mut self, l: &'a ForLoop<'a>) {
        self.expr(&l.iterable, false);
        let mut names = l.targets.clone();
        names.push("loop");
        self.frames.push(Frame::new(names, false));
        if let Some(filter) = &l.filter {
            self.expr(filter, false);
        }
        self.nodes(&l.body);
        self.frames.pop();
        self.nodes(&l.otherwise);
    }

    fn target(&mut self, target: &'a Target<'a>, span: Span) {
        match &target.name {
            TargetName::Static(name) => {
                self.writes[slot(target.scope)].add(name);
                if target.scope == Scope::State && self.macro_names.contains(&**name) {
                    self.warn(
                        WarningKind::SetShadowsMacro,
                        format!(
                            "`set {name}` writes a state variable named like a macro; \
                             reading `{name}` finds the macro, not this value"
                        ),
                        span,
                    );
                }
            }
            TargetName::Computed(e) => {
                self.dynamic[slot(target.scope)] = true;
                self.expr(e, false);
            }
        }
    }

    /// Visits an expression; `guarded` when its value feeds `default` or
    /// `is defined`, so an undefined read is intended.
    fn expr(&mut self, e: &'a Expr<'a>, guarded: bool) {
        match &e.kind {
            ExprKind::Const(_) => {}
            ExprKind::Name(name) => self.name(name.text, e.span, guarded),
            ExprKind::Store(scope) => self.dynamic[slot(*scope)] = true,
            ExprKind::StoreItem(scope, key) => match &key.kind {
                ExprKind::Const(v) if v.as_str().is_some() => {
                    self.reads[slot(*scope)].add(v.as_str().unwrap_or_default());
                }
                _ => {
                    self.dynamic[slot(*scope)] = true;
                    self.expr(key, false);
                }
            },
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                items.iter().for_each(|item| self.expr(item, false))
            }
            ExprKind::Map(entries) => {
                for (key, value) in entries {
                    self.expr(key, false);
                    self.expr(value, false);
                }
            }
            ExprKind::Attr(base, _) => self.expr(base, guarded),
            ExprKind::Item(base, index) => {
                self.expr(base, guarded);
                self.expr(index, false);
            }
            ExprKind::Slice(slice) => {
                self.expr(&slice.value, false);
                for part in [&slice.start, &slice.stop, &slice.step].into_iter().flatten() {
                    self.expr(part, false);
                }
            }
            ExprKind::Call(callee, args) => {
                self.call(callee, guarded);
                self.args(args);
            }
            ExprKind::Filter(value, call) => {
                self.filters.add(call.name);
                let defaulted = self.resolved.filters[call.id as usize].guards;
                self.expr(value, defaulted);
                self.args(&call.args);
            }
            ExprKind::Test(value, call) => {
                self.tests.add(call.name);
                let checks_defined = self.resolved.tests[call.id as usize].guards;
                self.expr(value, checks_defined);
                self.args(&call.args);
            }
            ExprKind::Neg(inner)
            | ExprKind::Pos(inner)
            | ExprKind::Not(inner)
            | ExprKind::Spread(inner) => {
                self.expr(inner, false);
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) | ExprKind::Binary(_, a, b) => {
                self.expr(a, false);
                self.expr(b, false);
            }
            ExprKind::Compare(first, rest) => {
                self.expr(first, false);
                rest.iter().for_each(|(_, e)| self.expr(e, false));
            }
            ExprKind::Cond(c) => {
                self.expr(&c.cond, false);
                self.expr(&c.then, guarded);
                if let Some(otherwise) = &c.otherwise {
                    self.expr(otherwise, guarded);
                }
            }
        }
    }

    fn name(&mut self, name: &'a str, span: Span, guarded: bool) {
        if self.is_bound(name) {
        } else if self.macro_names.contains(name) {
            self.macros_called.add(name);
        } else if self.env.registry().function(name).is_some() {
            // A function as a value (`[% with f = range %]`).
            self.functions.add(name);
        } else {
            self.reads[0].add(name);
            self.state_reads.push(StateRead { name, span, guarded });
        }
    }

    /// A call: macros and functions by name are not state reads.
    fn call(&mut self, callee: &'a Expr<'a>, guarded: bool) {
        // `self.block()`: a block of the template, not a state read.
        if let ExprKind::Attr(base, _) = &callee.kind
            && matches!(base.kind, ExprKind::Name(n) if n.text == "self" && !self.is_bound("self"))
        {
            return;
        }
        let ExprKind::Name(name) = callee.kind else {
            return self.expr(callee, guarded);
        };
        let name = name.text;
        if name == "super" && !self.is_bound(name) {
            // A block's parent block: known when rendering.
        } else if self.is_bound(name) || self.macro_names.contains(name) {
            self.name(name, callee.span, guarded);
        } else if self.env.registry().function(name).is_some() {
            self.functions.add(name);
        } else {
            self.warn(
                WarningKind::UnknownFunction,
                format!("`{name}` is neither a macro nor a known function"),
                callee.span,
            );
        }
    }

    /// The filters of a `filter` block or a filtered `set` block.
    fn filter_calls(&mut self, filters: &'a [FilterCall<'a>]) {
        for call in filters {
            self.filters.add(call.name);
            self.args(&call.args);
        }
    }

    fn args(&mut self, args: &'a CallArgs<'a>) {
        args.positional.iter().for_each(|e| self.expr(e, false));
        args.keywords.iter().for_each(|(_, e)| self.expr(e, false));
    }

    /// Sequential rolls: branch i fires with `remaining · p_i`.
    fn chance(&mut self, branches: &'a [(Expr<'a>, Vec<Node<'a>>)], otherwise: &'a [Node<'a>]) {
        let span = branches.first().map(|(p, _)| p.span).unwrap_or_default();
        let at = self.tag_start(span.start(), "chance").unwrap_or(span.start());
        let Position { line, column } = self.position(at);
        let mut out = Vec::with_capacity(branches.len() + 1);
        // The chance that no earlier branch fired, when it is known.
        let mut remaining = Some(1.0);
        for (index, (p, body)) in branches.iter().enumerate() {
            let value = self.constant(p, "probability");
            if let Some(v) = value
                && !(0.0..=1.0).contains(&v)
            {
                self.warn(
                    WarningKind::ProbabilityOutOfRange,
                    format!(
                        "the probability {v} is outside [0, 1] and clamps to {} \
                         (probabilities are fractions: 50 % is 0.5)",
                        v.clamp(0.0, 1.0)
                    ),
                    p.span,
                );
            }
            let clamped = value.map(|v| v.clamp(0.0, 1.0));
            if remaining == Some(0.0) {
                // Already reported at the branch that always fires.
            } else if clamped == Some(0.0) {
                self.warn(
                    WarningKind::UnreachableBranch,
                    "a probability of 0 never fires".to_owned(),
                    p.span,
                );
            } else if clamped == Some(1.0)
                && index + 1 < branches.len() + usize::from(!otherwise.is_empty())
            {
                self.warn(
                    WarningKind::UnreachableBranch,
                    "this branch always fires, so the branches after it are never taken".to_owned(),
                    p.span,
                );
            }
            let probability = remaining.zip(clamped).map(|(r, p)| r * p);
            remaining = remaining.zip(clamped).map(|(r, p)| r * (1.0 - p));
            out.push(Branch {
                label: if index == 0 { "chance" } else { "elif" },
                value,
                probability,
            });
            self.expr(p, false);
            self.nodes(body);
        }
        out.push(Branch { label: "else", value: None, probability: remaining });
        self.nodes(otherwise);
        self.random.push(RandomBlock { kind: "chance", line, column, branches: out });
    }

    /// One draw over the normalised weights.
    fn weighted(&mut self, choices: &'a [(Expr<'a>, Vec<Node<'a>>)]) {
        let span = choices.first().map(|(w, _)| w.span).unwrap_or_default();
        let at =
            self.tag_start(span.start(), "choice").and_then(|at| self.tag_start(at, "weighted"));
        let Position { line, column } = self.position(at.unwrap_or(span.start()));
        let values: Vec<Option<f64>> =
            choices.iter().map(|(w, _)| self.constant(w, "weight")).collect();
        let usable = |v: &Option<f64>| v.filter(|w| w.is_finite() && *w >= 0.0);
        for ((w, _), value) in choices.iter().zip(&values) {
            if let Some(v) = value
                && usable(value).is_none()
            {
                self.warn(
                    WarningKind::InvalidNumber,
                    format!("the weight {v} is not a finite number of at least 0"),
                    w.span,
                );
            }
        }
        let all_known: Option<Vec<f64>> = values.iter().map(usable).collect();
        let total = all_known.as_ref().map(|ws| ws.iter().sum::<f64>());
        if total == Some(0.0) {
            self.warn(
                WarningKind::ZeroWeights,
                "every weight is 0, so this block never renders anything".to_owned(),
                span,
            );
        } else {
            for ((w, _), value) in choices.iter().zip(&values) {
                if *value == Some(0.0) {
                    self.warn(
                        WarningKind::UnreachableBranch,
                        "a weight of 0 is never chosen".to_owned(),
                        w.span,
                    );
                }
            }
        }
        let branches = values
            .iter()
            .map(|&value| Branch {
                label: "choice",
                value,
                probability: match (usable(&value), total) {
                    (Some(w), Some(t)) if t > 0.0 && t.is_finite() => Some(w / t),
                    (Some(_), Some(0.0)) => Some(0.0),
                    _ => None,
                },
            })
            .collect();
        for (w, body) in choices {
            self.expr(w, false);
            self.nodes(body);
        }
        self.random.push(RandomBlock { kind: "weighted", line, column, branches });
    }

    /// A constant number (`0.5`, `-1`, `"3"`), or `None` when the value is
    /// computed. A constant that is no number at all gets a warning.
    fn constant(&mut self, e: &Expr<'_>, what: &str) -> Option<f64> {
        let (value, negate) = match &e.kind {
            ExprKind::Const(v) => (v, false),
            ExprKind::Neg(inner) => match &inner.kind {
                ExprKind::Const(v) => (v, true),
                _ => return None,
            },
            _ => return None,
        };
        match crate::eval::number(value) {
            Some(n) if !n.is_nan() => Some(if negate { -n } else { n }),
            _ => {
                self.warn(
                    WarningKind::InvalidNumber,
                    format!("a {what} must be a number, not {}", crate::eval::describe(value)),
                    e.span,
                );
                None
            }
        }
    }

    fn finish(mut self, macros: &[&'a MacroDef<'a>], context: &Context) -> Analysis {
        for def in macros {
            if !self.macros_called.seen.contains(def.name.text) {
                let span = self.span_of(def.name.text);
                self.warn(
                    WarningKind::UnusedMacro,
                    format!("macro `{}` is never called", def.name),
                    span,
                );
            }
        }
        let reads = std::mem::take(&mut self.state_reads);
        // A name read under `default` or `is defined` anywhere is optional
        // on purpose (`[% if w is defined %][[ w ]][% endif %]`).
        let mut warned: HashSet<&str> =
            reads.iter().filter(|r| r.guarded).map(|r| r.name).collect();
        // Indexed once for all the suggestions; each distinct name is
        // warned about, and so searched for, once.
        let written = std::mem::take(&mut self.writes[0].list);
        let candidates = crate::suggest::Candidates::new(
            written.iter().map(String::as_str).chain(context.state.keys().map(String::as_str)),
        );
        for read in &reads {
            let known =
                self.writes[0].seen.contains(read.name) || context.state.contains_key(read.name);
            if known || !warned.insert(read.name) {
                continue;
            }
            let hint = match candidates.closest(read.name) {
                Some(close) => format!("; did you mean `{close}`?"),
                None => String::new(),
            };
            self.warn(
                WarningKind::UndefinedVariable,
                format!(
                    "`{}` is read but nothing sets it and the context does not provide it{hint}",
                    read.name
                ),
                read.span,
            );
        }
        drop(candidates);
        self.writes[0].list = written;
        // Source order, whichever check found them.
        self.warnings.sort_by_key(|w| (w.line, w.column));
        let [state_r, local_r, global_r] = self.reads;
        let [state_w, local_w, global_w] = self.writes;
        let scope = |read: Names, written: Names, dynamic| ScopeNames {
            read: read.list,
            written: written.list,
            dynamic,
        };
        Analysis {
            variables: Variables {
                state: scope(state_r, state_w, self.dynamic[0]),
                local: scope(local_r, local_w, self.dynamic[1]),
                global: scope(global_r, global_w, self.dynamic[2]),
            },
            macros: MacroNames {
                defined: {
                    let mut defined = Names::default();
                    macros.iter().for_each(|m| defined.add(&m.name));
                    defined.list
                },
                called: self.macros_called.list,
            },
            filters: self.filters.list,
            tests: self.tests.list,
            functions: self.functions.list,
            effects: self.effects,
            random: self.random,
            templates: self.templates,
            warnings: self.warnings,
        }
    }
}
