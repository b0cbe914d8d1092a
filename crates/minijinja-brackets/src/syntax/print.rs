//! The syntax tree printed back as template text, for round-trip tests:
//! parsing the printed text gives the same tree, and rendering it gives the
//! same result.
//!
//! The text is canonical rather than faithful: whitespace control is
//! already applied to text, comments are gone, compound operands are
//! parenthesized, and text that could be read as a tag is put in a raw
//! block.

use std::fmt::Write as _;

use crate::context::Scope;
use crate::syntax::ast::{
    BinOp, CallArgs, Catch, CmpOp, Control, EffectKind, Expr, ExprKind, FilterCall, ImportBinds,
    Node, Pattern, Target, TargetName, Template,
};
use crate::value::{ListKind, Repr, Value};

/// The template as text.
pub(crate) fn print(template: &Template<'_>) -> String {
    let mut out = String::new();
    nodes(&mut out, &template.body);
    out
}

fn nodes(out: &mut String, body: &[Node<'_>]) {
    for node in body {
        self::node(out, node);
    }
}

fn node(out: &mut String, node: &Node<'_>) {
    match node {
        Node::Text(text) => {
            let tag_like =
                ["[[", "[%", "[#"].iter().any(|o| text.contains(o)) || text.ends_with('[');
            if tag_like {
                let _ = write!(out, "[% raw %]{text}[% endraw %]");
            } else {
                out.push_str(text);
            }
        }
        Node::Print(e) => {
            out.push_str("[[ ");
            expr(out, e);
            out.push_str(" ]]");
        }
        Node::If { branches, otherwise } => branches_of(out, "if", "endif", branches, otherwise),
        Node::Chance { branches, otherwise } => {
            branches_of(out, "chance", "endchance", branches, otherwise)
        }
        Node::For(l) => {
            out.push_str("[% for ");
            pattern(out, &l.pattern);
            out.push_str(" in ");
            expr(out, &l.iterable);
            if let Some(filter) = &l.filter {
                out.push_str(" if ");
                expr(out, filter);
            }
            if l.recursive {
                out.push_str(" recursive");
            }
            out.push_str(" %]");
            nodes(out, &l.body);
            if !l.otherwise.is_empty() {
                out.push_str("[% else %]");
                nodes(out, &l.otherwise);
            }
            out.push_str("[% endfor %]");
        }
        Node::Set { target, value, .. } => {
            out.push_str("[% set ");
            self::target(out, target);
            out.push_str(" = ");
            expr(out, value);
            out.push_str(" %]");
        }
        Node::SetBlock(block) => {
            out.push_str("[% set ");
            self::target(out, &block.target);
            if !block.filters.is_empty() {
                out.push_str(" -> ");
                filters(out, &block.filters);
            }
            out.push_str(" %]");
            nodes(out, &block.body);
            out.push_str("[% endset %]");
        }
        Node::Control(control, _) => out.push_str(match control {
            Control::Break => "[% break %]",
            Control::Continue => "[% continue %]",
        }),
        Node::Do(e) => {
            out.push_str("[% do ");
            expr(out, e);
            out.push_str(" %]");
        }
        Node::With(block) => {
            out.push_str("[% with");
            for (i, (p, value)) in block.bindings.iter().enumerate() {
                out.push_str(if i == 0 { " " } else { ", " });
                pattern_part(out, p);
                out.push_str(" = ");
                expr(out, value);
            }
            out.push_str(" %]");
            nodes(out, &block.body);
            out.push_str("[% endwith %]");
        }
        Node::FilterBlock(block) => {
            out.push_str("[% filter ");
            filters(out, &block.filters);
            out.push_str(" %]");
            nodes(out, &block.body);
            out.push_str("[% endfilter %]");
        }
        Node::Generation(body, _) => {
            out.push_str("[% generation %]");
            nodes(out, body);
            out.push_str("[% endgeneration %]");
        }
        Node::Autoescape { on, body } => {
            let _ = write!(out, "[% autoescape {on} %]");
            nodes(out, body);
            out.push_str("[% endautoescape %]");
        }
        Node::Macro(def) => {
            let _ = write!(out, "[% macro {}", def.name);
            params(out, &def.params, def.catch);
            out.push_str(" %]");
            nodes(out, &def.body);
            out.push_str("[% endmacro %]");
        }
        Node::CallBlock(block) => {
            out.push_str("[% call");
            params(out, &block.params, block.catch);
            out.push(' ');
            expr(out, &block.call);
            out.push_str(" %]");
            nodes(out, &block.body);
            out.push_str("[% endcall %]");
        }
        Node::Weighted { choices } => {
            out.push_str("[% weighted %]");
            for (weight, body) in choices {
                out.push_str("[% choice ");
                expr(out, weight);
                out.push_str(" %]");
                nodes(out, body);
                out.push_str("[% endchoice %]");
            }
            out.push_str("[% endweighted %]");
        }
        Node::Effect { kind, value, .. } => {
            out.push_str(match kind {
                EffectKind::QuickReply => "[% qr ",
                EffectKind::SlashCommand => "[% st ",
            });
            expr(out, value);
            out.push_str(" %]");
        }
        Node::Include(include) => {
            out.push_str("[% include ");
            expr(out, &include.names);
            if include.ignore_missing {
                out.push_str(" ignore missing");
            }
            if !include.with_context {
                out.push_str(" without context");
            }
            out.push_str(" %]");
        }
        Node::Import(import) => {
            match &import.binds {
                ImportBinds::Module(alias) => {
                    out.push_str("[% import ");
                    expr(out, &import.template);
                    out.push_str(" as ");
                    out.push_str(alias.text);
                }
                ImportBinds::Macros(names) => {
                    out.push_str("[% from ");
                    expr(out, &import.template);
                    out.push_str(" import ");
                    for (i, (name, alias, _)) in names.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(name);
                        if *name != alias.text {
                            out.push_str(" as ");
                            out.push_str(alias.text);
                        }
                    }
                }
            }
            if import.with_context {
                out.push_str(" with context");
            }
            out.push_str(" %]");
        }
        Node::Extends { name, .. } => {
            out.push_str("[% extends ");
            expr(out, name);
            out.push_str(" %]");
        }
        Node::Block(def) => {
            out.push_str("[% block ");
            out.push_str(def.name);
            if def.scoped {
                out.push_str(" scoped");
            }
            if def.required {
                out.push_str(" required");
            }
            out.push_str(" %]");
            nodes(out, &def.body);
            out.push_str("[% endblock %]");
        }
    }
}

/// A macro's or `call` block's parameters, in parentheses.
fn params(out: &mut String, params: &[(&str, Option<Expr<'_>>)], catch: Catch<'_>) {
    out.push('(');
    let mut first = true;
    for (name, default) in params {
        if !std::mem::take(&mut first) {
            out.push_str(", ");
        }
        out.push_str(name);
        if let Some(default) = default {
            out.push('=');
            expr(out, default);
        }
    }
    for (stars, name) in [("*", catch.varargs), ("**", catch.kwargs)] {
        if let Some(name) = name {
            if !std::mem::take(&mut first) {
                out.push_str(", ");
            }
            out.push_str(stars);
            out.push_str(name);
        }
    }
    out.push(')');
}

/// A `for` or `with` pattern: two or more parts bare (`a, (b, c)`), a
/// lone tuple in parentheses.
fn pattern(out: &mut String, p: &Pattern<'_>) {
    match p {
        Pattern::Tuple(parts) if parts.len() > 1 => list_of_patterns(out, parts),
        _ => pattern_part(out, p),
    }
}

fn list_of_patterns(out: &mut String, parts: &[Pattern<'_>]) {
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        pattern_part(out, part);
    }
}

/// A name, or a tuple in parentheses (`(a,)` for one item).
fn pattern_part(out: &mut String, p: &Pattern<'_>) {
    match p {
        Pattern::Name(name) => out.push_str(name),
        Pattern::Tuple(parts) => {
            out.push('(');
            list_of_patterns(out, parts);
            out.push_str(if parts.len() == 1 { ",)" } else { ")" });
        }
    }
}

/// `f(args) -> g`.
fn filters(out: &mut String, calls: &[FilterCall<'_>]) {
    for (i, call) in calls.iter().enumerate() {
        if i > 0 {
            out.push_str(" -> ");
        }
        out.push_str(call.name);
        if !call.args.positional.is_empty() || !call.args.keywords.is_empty() {
            args(out, &call.args);
        }
    }
}

/// `if`/`chance` with their `elif` branches and `else` body.
fn branches_of(
    out: &mut String,
    opener: &str,
    end: &str,
    branches: &[(Expr<'_>, Vec<Node<'_>>)],
    otherwise: &[Node<'_>],
) {
    for (i, (head, body)) in branches.iter().enumerate() {
        let _ = write!(out, "[% {} ", if i == 0 { opener } else { "elif" });
        expr(out, head);
        out.push_str(" %]");
        nodes(out, body);
    }
    if !otherwise.is_empty() {
        out.push_str("[% else %]");
        nodes(out, otherwise);
    }
    let _ = write!(out, "[% {end} %]");
}

fn target(out: &mut String, target: &Target<'_>) {
    let scope = match target.scope {
        Scope::State => None,
        Scope::Local => Some("L"),
        Scope::Global => Some("G"),
    };
    match (scope, &target.name) {
        (None, TargetName::Static(name)) => out.push_str(name),
        (Some(scope), TargetName::Static(name)) => {
            out.push_str(scope);
            out.push('[');
            let _ = Value::str(name).write_json(out, None, usize::MAX);
            out.push(']');
        }
        (_, TargetName::Computed(key)) => {
            out.push_str(scope_name(target.scope));
            out.push('[');
            expr(out, key);
            out.push(']');
        }
    }
    for attr in &target.attrs {
        out.push('.');
        out.push_str(attr);
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::State => "",
        Scope::Local => "L",
        Scope::Global => "G",
    }
}

/// A constant as a literal: JSON's spelling is valid here, except that
/// floats keep a `.` or an exponent so they stay floats.
fn constant(out: &mut String, value: &Value) {
    match &value.0 {
        Repr::Float(x) => {
            let _ = write!(out, "{x:?}");
        }
        Repr::List(items) if items.kind() == ListKind::Tuple && items.len() == 1 => {
            separated(out, "(", items.iter(), ",)", constant)
        }
        Repr::List(items) if items.kind() == ListKind::Tuple => {
            separated(out, "(", items.iter(), ")", constant)
        }
        Repr::List(items) => separated(out, "[", items.iter(), "]", constant),
        _ => {
            let _ = value.write_json(out, None, usize::MAX);
        }
    }
}

/// An operand: parenthesized unless it is a postfix form already.
fn operand(out: &mut String, e: &Expr<'_>) {
    let postfix = matches!(
        e.kind,
        ExprKind::Const(_)
            | ExprKind::Name(_)
            | ExprKind::Store(_)
            | ExprKind::StoreItem(..)
            | ExprKind::List(_)
            | ExprKind::Tuple(_)
            | ExprKind::Map(_)
            | ExprKind::Attr(..)
            | ExprKind::Item(..)
            | ExprKind::Slice(_)
            | ExprKind::Call(..)
            | ExprKind::Filter(..)
            | ExprKind::Test(..)
    );
    let negative =
        matches!(&e.kind, ExprKind::Const(v) if v.as_f64().is_some_and(|x| x.is_sign_negative()));
    if postfix && !negative {
        expr(out, e);
    } else {
        out.push('(');
        expr(out, e);
        out.push(')');
    }
}

/// The base of `.name`, `[...]` or `(...)`: filters and tests end a
/// postfix chain, so they need parentheses here.
fn base(out: &mut String, e: &Expr<'_>) {
    if matches!(e.kind, ExprKind::Filter(..) | ExprKind::Test(..)) {
        out.push('(');
        expr(out, e);
        out.push(')');
    } else {
        operand(out, e);
    }
}

fn args(out: &mut String, args: &CallArgs<'_>) {
    out.push('(');
    let mut first = true;
    for e in &args.positional {
        if !std::mem::take(&mut first) {
            out.push_str(", ");
        }
        expr(out, e);
    }
    for (name, e) in &args.keywords {
        if !std::mem::take(&mut first) {
            out.push_str(", ");
        }
        match name {
            Some(name) => {
                let _ = write!(out, "{name}=");
            }
            None => out.push_str("**"),
        }
        expr(out, e);
    }
    out.push(')');
}

/// `open`, the items printed by `each` separated by `, `, then `close`.
fn separated<T>(
    out: &mut String,
    open: &str,
    items: impl Iterator<Item = T>,
    close: &str,
    mut each: impl FnMut(&mut String, T),
) {
    out.push_str(open);
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        each(out, item);
    }
    out.push_str(close);
}

fn cmp_symbol(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::In => "in",
        CmpOp::NotIn => "not in",
    }
}

fn expr(out: &mut String, e: &Expr<'_>) {
    match &e.kind {
        ExprKind::Const(value) => constant(out, value),
        ExprKind::Name(name) => out.push_str(name),
        ExprKind::Spread(inner) => {
            out.push('*');
            expr(out, inner);
        }
        ExprKind::Store(scope) => out.push_str(scope_name(*scope)),
        ExprKind::StoreItem(scope, key) => {
            out.push_str(scope_name(*scope));
            out.push('[');
            expr(out, key);
            out.push(']');
        }
        ExprKind::List(items) => separated(out, "[", items.iter(), "]", expr),
        ExprKind::Tuple(items) if items.len() == 1 => separated(out, "(", items.iter(), ",)", expr),
        ExprKind::Tuple(items) => separated(out, "(", items.iter(), ")", expr),
        ExprKind::Map(entries) => separated(out, "{", entries.iter(), "}", |out, (key, value)| {
            expr(out, key);
            out.push_str(": ");
            expr(out, value);
        }),
        ExprKind::Attr(value, name) => {
            base(out, value);
            let _ = write!(out, ".{name}");
        }
        ExprKind::Item(value, index) => {
            base(out, value);
            out.push('[');
            expr(out, index);
            out.push(']');
        }
        ExprKind::Slice(slice) => {
            base(out, &slice.value);
            out.push('[');
            for (i, part) in [&slice.start, &slice.stop, &slice.step].into_iter().enumerate() {
                if i > 0 {
                    out.push(':');
                }
                if let Some(part) = part {
                    expr(out, part);
                }
            }
            out.push(']');
        }
        ExprKind::Call(callee, call) => {
            base(out, callee);
            args(out, call);
        }
        ExprKind::Filter(value, call) => {
            operand(out, value);
            let _ = write!(out, " -> {}", call.name);
            if !call.args.positional.is_empty() || !call.args.keywords.is_empty() {
                args(out, &call.args);
            }
        }
        ExprKind::Test(value, call) => {
            operand(out, value);
            out.push_str(if call.negated { " is not " } else { " is " });
            let _ = write!(out, "{}", call.name);
            if !call.args.positional.is_empty() || !call.args.keywords.is_empty() {
                args(out, &call.args);
            }
        }
        ExprKind::Neg(inner) | ExprKind::Pos(inner) | ExprKind::Not(inner) => {
            out.push_str(match e.kind {
                ExprKind::Neg(_) => "-",
                ExprKind::Pos(_) => "+",
                _ => "not ",
            });
            out.push('(');
            expr(out, inner);
            out.push(')');
        }
        ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            operand(out, a);
            out.push_str(if matches!(e.kind, ExprKind::And(..)) { " and " } else { " or " });
            operand(out, b);
        }
        ExprKind::Binary(op, a, b) => {
            operand(out, a);
            let _ = write!(out, " {} ", BinOp::symbol(*op));
            operand(out, b);
        }
        ExprKind::Compare(first, rest) => {
            operand(out, first);
            for (op, e) in rest {
                let _ = write!(out, " {} ", cmp_symbol(*op));
                operand(out, e);
            }
        }
        ExprKind::Cond(c) => {
            operand(out, &c.then);
            out.push_str(" if ");
            operand(out, &c.cond);
            if let Some(otherwise) = &c.otherwise {
                out.push_str(" else ");
                operand(out, otherwise);
            }
        }
    }
}
