//! The syntax tree: it borrows the template source and every expression
//! carries its span, so runtime errors point at what the author wrote.
//!
//! A plain value: it knows no environment. Filter and test names are
//! numbered like bare names ([`Callee`]); `resolve.rs` maps the numbers to
//! a registry after parsing (regex-syntax's AST to HIR split).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use crate::context::Scope;
use crate::span::Span;
use crate::value::Value;
pub(crate) use crate::value::ops::{BinOp, CmpOp};

/// A whole template.
pub(crate) struct Template<'a> {
    pub(crate) body: Vec<Node<'a>>,
    /// Every bare name the template writes (reads, macro names), numbered
    /// in the order first written: [`Name::id`].
    pub(crate) names: HashMap<&'a str, u32>,
    /// Every filter name written, numbered in the order first written
    /// ([`FilterCall::id`]), with where it was first written.
    pub(crate) filters: Vec<Callee<'a>>,
    /// Every test name written, likewise ([`TestCall::id`]).
    pub(crate) tests: Vec<Callee<'a>>,
}

/// A filter or test name as first written: resolved after parsing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Callee<'a> {
    pub(crate) name: &'a str,
    pub(crate) span: Span,
}

impl fmt::Debug for Template<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Template").field("body", &self.body).finish()
    }
}

/// A bare name as written (a read, or a macro's name), with its number in
/// the template's table of names: the same number wherever the same name is
/// written, so the evaluator finds a macro by index, never by comparing
/// text with every macro defined.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Name<'a> {
    pub(crate) text: &'a str,
    pub(crate) id: u32,
}

impl std::ops::Deref for Name<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.text
    }
}

/// As the text alone: the number is the parser's bookkeeping.
impl fmt::Debug for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.text, f)
    }
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}

/// One statement or piece of output.
#[derive(Debug)]
pub(crate) enum Node<'a> {
    /// Text outside tags (already trimmed), or a raw block's body.
    Text(&'a str),
    /// `[[ expr ]]`
    Print(Expr<'a>),
    /// `[% if %]`, with `elif` branches; `otherwise` is the `else` body.
    If { branches: Vec<(Expr<'a>, Vec<Node<'a>>)>, otherwise: Vec<Node<'a>> },
    /// `[% for %]`
    For(Box<ForLoop<'a>>),
    /// `[% set target = value %]`
    Set { target: Box<Target<'a>>, value: Box<Expr<'a>>, span: Span },
    /// `[% set target [-> filters] %]body[% endset %]`
    SetBlock(Box<SetBlock<'a>>),
    /// `[% break %]` or `[% continue %]` (only inside a `for` body).
    Control(Control, Span),
    /// `[% with a = x, (b, c) = y %]body[% endwith %]`
    With(Box<WithBlock<'a>>),
    /// `[% do expr %]`: evaluated, its value (and a macro's output) dropped.
    Do(Expr<'a>),
    /// `[% filter f -> g %]body[% endfilter %]`
    FilterBlock(Box<FilterBlock<'a>>),
    /// `[% autoescape on %]body[% endautoescape %]`: whether `[[ ]]` inside
    /// HTML-escapes what it prints.
    Autoescape { on: bool, body: Vec<Node<'a>> },
    /// `[% macro name(params) %]`
    Macro(Box<MacroDef<'a>>),
    /// `[% call(params) m(args) %]body[% endcall %]`
    CallBlock(Box<CallBlock<'a>>),
    /// `[% chance p %]`, with `elif q` branches, each rolled in turn.
    Chance { branches: Vec<(Expr<'a>, Vec<Node<'a>>)>, otherwise: Vec<Node<'a>> },
    /// `[% weighted %]` with its `choice w` blocks.
    Weighted { choices: Vec<(Expr<'a>, Vec<Node<'a>>)> },
    /// `[% qr name %]` or `[% st command %]`.
    Effect { kind: EffectKind, value: Box<Expr<'a>>, span: Span },
    /// `[% include name [ignore missing] [with|without context] %]`
    Include(Box<Include<'a>>),
    /// `[% import name as alias %]`, `[% from name import a as b, c %]`
    Import(Box<Import<'a>>),
    /// `[% extends name %]`
    Extends { name: Box<Expr<'a>>, span: Span },
    /// `[% block name [scoped] [required] %]...[% endblock %]`
    Block(Box<BlockDef<'a>>),
    /// `{% generation %}...{% endgeneration %}` (the Jinja2 profile):
    /// renders its body and records the output range it wrote.
    Generation(Vec<Node<'a>>, Span),
}

/// `include`: a name, or a list of names (the first that exists).
#[derive(Debug)]
pub(crate) struct Include<'a> {
    pub(crate) names: Expr<'a>,
    pub(crate) ignore_missing: bool,
    /// `with context` (the default): the local bindings and macros so far
    /// are visible in the included template.
    pub(crate) with_context: bool,
    pub(crate) span: Span,
}

/// `import` and `from ... import`.
#[derive(Debug)]
pub(crate) struct Import<'a> {
    pub(crate) template: Expr<'a>,
    pub(crate) binds: ImportBinds<'a>,
    /// `with context` (not the default, as in Jinja).
    pub(crate) with_context: bool,
    pub(crate) span: Span,
}

/// What an import binds in the importing template.
#[derive(Debug)]
pub(crate) enum ImportBinds<'a> {
    /// `import name as alias`: the template's macros as `alias.macro(...)`.
    Module(Name<'a>),
    /// `from name import a as b, c`: each macro under its name here.
    Macros(Vec<(&'a str, Name<'a>, Span)>),
}

/// `block name [scoped] [required]`.
#[derive(Debug)]
pub(crate) struct BlockDef<'a> {
    pub(crate) name: &'a str,
    pub(crate) body: Vec<Node<'a>>,
    /// `scoped`, as written: accepted and without effect (as in minijinja,
    /// every block sees the bindings around it); the printer keeps it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) scoped: bool,
    /// `required`: a template extending this one must override it.
    pub(crate) required: bool,
    pub(crate) span: Span,
}

// A 100 MiB template is mostly these nodes: small ones keep compiling and
// rendering in cache and halve the time at that size. Rare or wide payloads
// (`set`, effects, call arguments, filters, tests) are boxed for this; a
// node was 208 bytes before.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<Node<'static>>() <= 56 && size_of::<Expr<'static>>() <= 40);

/// `break` or `continue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Control {
    Break,
    Continue,
}

/// `set target -> filters` with a body up to `endset`.
#[derive(Debug)]
pub(crate) struct SetBlock<'a> {
    pub(crate) target: Target<'a>,
    /// Applied to the captured body, in order (none: the body as it is).
    pub(crate) filters: Vec<FilterCall<'a>>,
    pub(crate) body: Vec<Node<'a>>,
    pub(crate) span: Span,
}

/// `with pattern = value, ...` and its body.
#[derive(Debug)]
pub(crate) struct WithBlock<'a> {
    /// Every name the patterns bind, each once, in the order first bound
    /// (what the body's frame holds).
    pub(crate) names: Vec<&'a str>,
    pub(crate) bindings: Vec<(Pattern<'a>, Expr<'a>)>,
    pub(crate) body: Vec<Node<'a>>,
    pub(crate) span: Span,
}

/// `filter f(args) -> g` and its body.
#[derive(Debug)]
pub(crate) struct FilterBlock<'a> {
    pub(crate) filters: Vec<FilterCall<'a>>,
    pub(crate) body: Vec<Node<'a>>,
    pub(crate) span: Span,
}

/// What a `for` or `with` binds: a name, or a tuple of patterns that
/// unpacks a list of as many items (`(a, (b, c))`).
#[derive(Debug)]
pub(crate) enum Pattern<'a> {
    Name(&'a str),
    Tuple(Vec<Pattern<'a>>),
}

impl<'a> Pattern<'a> {
    /// The names bound, left to right.
    pub(crate) fn names(&self, out: &mut Vec<&'a str>) {
        match self {
            Pattern::Name(name) => out.push(name),
            Pattern::Tuple(parts) => parts.iter().for_each(|p| p.names(out)),
        }
    }
}

/// `qr` or `st`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EffectKind {
    QuickReply,
    SlashCommand,
}

/// `for targets in iterable [if filter] [recursive]`.
#[derive(Debug)]
pub(crate) struct ForLoop<'a> {
    /// Every name the pattern binds, left to right.
    pub(crate) targets: Vec<&'a str>,
    /// How an item unpacks into the targets (a name: the item itself).
    pub(crate) pattern: Pattern<'a>,
    pub(crate) iterable: Expr<'a>,
    pub(crate) filter: Option<Expr<'a>>,
    /// `recursive`: the body may call `loop(items)` to run the loop again
    /// over `items`, one level deeper.
    pub(crate) recursive: bool,
    pub(crate) body: Vec<Node<'a>>,
    pub(crate) otherwise: Vec<Node<'a>>,
    pub(crate) span: Span,
}

/// `macro name(p1, p2=default, *rest, **options)`.
#[derive(Debug)]
pub(crate) struct MacroDef<'a> {
    pub(crate) name: Name<'a>,
    pub(crate) params: Vec<(&'a str, Option<Expr<'a>>)>,
    pub(crate) catch: Catch<'a>,
    pub(crate) body: Vec<Node<'a>>,
    /// Whether the body reads `caller` (`m.caller`).
    pub(crate) caller: bool,
}

/// `call(params) m(args)` and its body: the macro runs with `caller`
/// bound to the body, which sees the call site's names (lexical scoping).
#[derive(Debug)]
pub(crate) struct CallBlock<'a> {
    pub(crate) params: Vec<(&'a str, Option<Expr<'a>>)>,
    pub(crate) catch: Catch<'a>,
    /// The call of the macro: an [`ExprKind::Call`].
    pub(crate) call: Expr<'a>,
    pub(crate) body: Vec<Node<'a>>,
    /// Whether the body reads `caller` (`caller.caller`).
    pub(crate) caller: bool,
    pub(crate) span: Span,
}

/// What a `set` writes: a scope and a name (`x`, `L.x`, `L["my var"]`, or
/// `L[expr]` computed when the `set` runs), and the attributes after it
/// (`ns.count`: the variable's map, updated; decision 6).
pub(crate) struct Target<'a> {
    pub(crate) scope: Scope,
    pub(crate) name: TargetName<'a>,
    pub(crate) attrs: Vec<&'a str>,
}

/// Without the attributes when there are none (most targets).
impl fmt::Debug for Target<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Target");
        s.field("scope", &self.scope).field("name", &self.name);
        if !self.attrs.is_empty() {
            s.field("attrs", &self.attrs);
        }
        s.finish()
    }
}

/// The name a `set` writes.
#[derive(Debug)]
pub(crate) enum TargetName<'a> {
    Static(Cow<'a, str>),
    Computed(Expr<'a>),
}

/// An expression and where it is.
#[derive(Debug)]
pub(crate) struct Expr<'a> {
    pub(crate) kind: ExprKind<'a>,
    pub(crate) span: Span,
}

/// The expression forms.
#[derive(Debug)]
pub(crate) enum ExprKind<'a> {
    Const(Value),
    /// A bare name: loop variable, macro parameter, macro, or state.
    Name(Name<'a>),
    /// `L` or `G` alone: the whole store as a map.
    Store(Scope),
    /// `L.x`, `L[expr]`, `G.x`, `G[expr]`.
    StoreItem(Scope, Box<Expr<'a>>),
    List(Vec<Expr<'a>>),
    /// `(a, b)`, `(a,)`, `()`: a list to the reference, a tuple to Python
    /// printing.
    Tuple(Vec<Expr<'a>>),
    Map(Vec<(Expr<'a>, Expr<'a>)>),
    /// `value.name`
    Attr(Box<Expr<'a>>, &'a str),
    /// `value[index]` (also `value.0`)
    Item(Box<Expr<'a>>, Box<Expr<'a>>),
    /// `value[start:stop:step]`
    Slice(Box<Slice<'a>>),
    /// `callee(args)`
    Call(Box<Expr<'a>>, Box<CallArgs<'a>>),
    /// `value -> name(args)`
    Filter(Box<Expr<'a>>, Box<FilterCall<'a>>),
    /// `value is [not] name(args)`
    Test(Box<Expr<'a>>, Box<TestCall<'a>>),
    Neg(Box<Expr<'a>>),
    Pos(Box<Expr<'a>>),
    Not(Box<Expr<'a>>),
    And(Box<Expr<'a>>, Box<Expr<'a>>),
    Or(Box<Expr<'a>>, Box<Expr<'a>>),
    Binary(BinOp, Box<Expr<'a>>, Box<Expr<'a>>),
    /// `a < b <= c ...`: each comparison on adjacent operands, all must hold.
    Compare(Box<Expr<'a>>, Vec<(CmpOp, Expr<'a>)>),
    /// `then if cond else otherwise`; no `else` gives undefined.
    Cond(Box<Conditional<'a>>),
    /// `*list` as a positional argument of a call (the parser makes it
    /// nowhere else): its items are the arguments.
    Spread(Box<Expr<'a>>),
}

/// `value[start:stop:step]`, each part optional.
#[derive(Debug)]
pub(crate) struct Slice<'a> {
    pub(crate) value: Expr<'a>,
    pub(crate) start: Option<Expr<'a>>,
    pub(crate) stop: Option<Expr<'a>>,
    pub(crate) step: Option<Expr<'a>>,
}

/// `then if cond else otherwise`.
#[derive(Debug)]
pub(crate) struct Conditional<'a> {
    pub(crate) then: Expr<'a>,
    pub(crate) cond: Expr<'a>,
    pub(crate) otherwise: Option<Expr<'a>>,
}

/// Positional arguments (some written `*list`: [`ExprKind::Spread`]),
/// then `name=value` keyword arguments and `**map`s, each in the order
/// written.
#[derive(Debug, Default)]
pub(crate) struct CallArgs<'a> {
    pub(crate) positional: Vec<Expr<'a>>,
    /// `name=value`, or `**map` (no name).
    pub(crate) keywords: Vec<(Option<&'a str>, Expr<'a>)>,
}

/// Where a signature puts the arguments its named parameters do not take:
/// `*name` (the extra positional ones, a list) and `**name` (the unknown
/// keywords, a map), written after the named parameters.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Catch<'a> {
    pub(crate) varargs: Option<&'a str>,
    pub(crate) kwargs: Option<&'a str>,
}

/// `-> name(args)`: a filter, by its number in [`Template::filters`].
pub(crate) struct FilterCall<'a> {
    pub(crate) name: &'a str,
    pub(crate) id: u32,
    pub(crate) args: CallArgs<'a>,
}

/// `is [not] name(args)`: a test, by its number in [`Template::tests`].
pub(crate) struct TestCall<'a> {
    pub(crate) name: &'a str,
    pub(crate) id: u32,
    pub(crate) negated: bool,
    pub(crate) args: CallArgs<'a>,
}

/// Without the number: the parser's bookkeeping.
impl fmt::Debug for FilterCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterCall").field("name", &self.name).field("args", &self.args).finish()
    }
}

/// Without the number: the parser's bookkeeping.
impl fmt::Debug for TestCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestCall")
            .field("name", &self.name)
            .field("negated", &self.negated)
            .field("args", &self.args)
            .finish()
    }
}
