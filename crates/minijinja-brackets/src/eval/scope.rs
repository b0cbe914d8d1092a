//! Temporary bindings: loop variables with their `loop` object, and macro
//! parameters. Never persisted.

use std::sync::Arc;

use crate::arguments::NameIndex;
use crate::syntax::ast::{CallBlock, ForLoop};
use crate::value::{List, Value, ValueMap};

/// One level of temporary bindings.
#[derive(Debug)]
pub(crate) enum Frame<'a> {
    Loop(LoopState<'a>),
    /// A macro call's parameters. Lookups stop here: a macro body does not
    /// see its caller's loop variables.
    Macro(Vec<(&'a str, Value)>, NameIndex<'a>),
    /// A `with` block's names; lookups go on past them.
    With(Vec<(&'a str, Value)>, NameIndex<'a>),
    /// Above a macro's frame when a `call` block called it: what `caller`
    /// is in its body. Binds nothing else.
    Caller(CallerRef<'a>),
    /// A `call` block's body running (`caller(...)`): its parameters; a
    /// lookup not found here goes on at the call site, the frames below
    /// [`CallerRef::frames`] (lexical scoping: not the macro's).
    CallerBody(Vec<(&'a str, Value)>, NameIndex<'a>, usize),
}

/// A `call` block and where it ran: the frames below `frames` are its call
/// site's, still on the stack while the macro it called runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallerRef<'a> {
    pub(crate) block: &'a CallBlock<'a>,
    pub(crate) frames: usize,
    /// The table of the template the `call` block is written in.
    pub(crate) table: usize,
    /// Where this [`Frame::Caller`] is on the frame stack (a `caller`
    /// value is valid while it is there).
    pub(crate) at: usize,
}

impl Frame<'_> {
    /// The value bound to `name` in this frame, if it binds it: a loop
    /// variable (before `loop` itself) or a parameter.
    pub(crate) fn binding(&self, name: &str) -> Option<Value> {
        match self {
            Frame::Loop(state) => {
                // What the body `set` in this iteration (the Jinja2 profile).
                let locals = &state.locals;
                let local = state
                    .local_names
                    .position(name, || locals.iter().position(|(n, _)| *n == name));
                if let Some(i) = local {
                    return Some(locals[i].1.clone());
                }
                let targets = &state.def.targets;
                match state.names.position(name, || targets.iter().position(|t| *t == name)) {
                    Some(i) => Some(state.values.get(i).cloned().unwrap_or_default()),
                    // A loop's `if` filter sees the enclosing loop's `loop`.
                    None => (name == "loop" && !state.filtering).then(|| state.to_value()),
                }
            }
            Frame::Macro(params, index) | Frame::CallerBody(params, index, _) => index
                .position(name, || params.iter().position(|(p, _)| *p == name))
                .map(|i| params[i].1.clone()),
            // A `with` binds its names in turn: one not bound yet is not here.
            Frame::With(bound, index) => index
                .position(name, || bound.iter().position(|(p, _)| *p == name))
                .and_then(|i| bound.get(i))
                .map(|(_, value)| value.clone()),
            Frame::Caller(_) => None,
        }
    }
}

/// A running `for` loop, or one level of a recursive loop's recursion.
#[derive(Debug)]
pub(crate) struct LoopState<'a> {
    /// The loop: its targets, how an item unpacks into them, its body.
    pub(crate) def: &'a ForLoop<'a>,
    /// How many levels of `loop(...)` recursion this run is deep (0: the
    /// loop as the template reached it).
    pub(crate) depth: usize,
    /// The frames below the loop as the template reached it: a name this
    /// frame does not bind is looked up there (a recursion level runs the
    /// loop's body again, and sees what the loop's own body sees, not the
    /// frames of the body that called `loop(...)`).
    pub(crate) below: usize,
    /// Finds a target among many.
    pub(crate) names: NameIndex<'a>,
    pub(crate) values: Vec<Value>,
    pub(crate) items: Arc<List>,
    pub(crate) index: usize,
    /// The `if` filter is running: the targets are bound, `loop` is not
    /// (Jinja: the filter decides the items, so it cannot know their count).
    pub(crate) filtering: bool,
    /// The Jinja2 profile: the names the body `set` in this iteration
    /// (cleared at each iteration, gone after the loop, as in Jinja2).
    pub(crate) locals: Vec<(&'a str, Value)>,
    /// Finds a name among many `locals`.
    pub(crate) local_names: NameIndex<'a>,
}

impl LoopState<'_> {
    /// An attribute of the `loop` object, undefined for unknown names.
    pub(crate) fn attr(&self, name: &str) -> Value {
        let (index, length) = (self.index, self.items.len());
        match name {
            "index" => Value::from(index + 1),
            "index0" => Value::from(index),
            "revindex" => Value::from(length.saturating_sub(index)),
            "revindex0" => Value::from(length.saturating_sub(index + 1)),
            "first" => Value::from(index == 0),
            "last" => Value::from(index + 1 == length),
            "length" => Value::from(length),
            "previtem" => {
                index.checked_sub(1).and_then(|i| self.items.get(i)).cloned().unwrap_or_default()
            }
            "nextitem" => self.items.get(index + 1).cloned().unwrap_or_default(),
            "depth" => Value::from(self.depth + 1),
            "depth0" => Value::from(self.depth),
            _ => Value::UNDEFINED,
        }
    }

    /// `loop.cycle(a, b, ...)`: the argument at the iteration's position.
    pub(crate) fn cycle(&self, values: &[Value]) -> Value {
        match values.len() {
            0 => Value::UNDEFINED,
            n => values[self.index % n].clone(),
        }
    }

    /// The `loop` object as a map (for `[[ loop ]]` or `loop -> tojson`).
    pub(crate) fn to_value(&self) -> Value {
        let names = [
            "index",
            "index0",
            "revindex",
            "revindex0",
            "first",
            "last",
            "length",
            "previtem",
            "nextitem",
            "depth",
            "depth0",
        ];
        let map: ValueMap = names.iter().map(|&n| (Arc::from(n), self.attr(n))).collect();
        Value::map(map)
    }
}
