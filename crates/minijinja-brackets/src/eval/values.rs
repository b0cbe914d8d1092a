//! Macros, `caller` and functions as values (issue 15): held by loop
//! variables, parameters, `with` targets, call arguments and list or map
//! items, called wherever they are.
//!
//! A macro value is bound to the template that defined it (its body runs
//! in that template's table, wherever it is called) and to the render that
//! made it: its syntax tree lives as long as that render's arena. The value
//! carries a handle number; the renderer keeps what the handle refers to,
//! once per macro and table (a million reads of one macro's name make one
//! handle). A `caller` value is valid while the macro call it belongs to
//! runs. A function value names a function of the registry. None of them
//! can be stored ([`Value::unstorable`](crate::value::Value)).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::compose::MacroRef;
use super::scope::{CallerRef, Frame};
use super::{ENTRY, Renderer, describe};
use crate::error::{Error, ErrorKind};
use crate::span::Span;
use crate::syntax::ast::{CallArgs, Expr};
use crate::value::{CallTarget, Callable, Repr, SLOT, Value, ValueMap};

/// Numbers renders, so that a macro value from one is never called in
/// another (a host function could keep one).
static RENDERS: AtomicU64 = AtomicU64::new(0);

/// What a handle refers to.
#[derive(Clone, Copy)]
pub(super) enum Handle<'t> {
    Macro(MacroRef<'t>),
    Caller(CallerRef<'t>),
}

/// The handles of one render.
pub(super) struct Handles<'t> {
    render: u64,
    /// By handle number: what it refers to and the value naming it.
    all: Vec<(Handle<'t>, Value)>,
    /// A handle's number by what it refers to: the definition's (or the
    /// `call` block's) address and the table (or the frame).
    index: HashMap<(usize, usize), u32>,
    /// The function values made so far, by name (made once each).
    functions: HashMap<&'t str, Value>,
}

impl Handles<'_> {
    pub(super) fn new() -> Self {
        Handles {
            render: RENDERS.fetch_add(1, Ordering::Relaxed),
            all: Vec::new(),
            index: HashMap::new(),
            functions: HashMap::new(),
        }
    }
}

impl<'t> Renderer<'t> {
    /// The value of a macro (found by name or imported).
    pub(super) fn macro_value(&mut self, m: MacroRef<'t>, span: Span) -> Result<Value, Error> {
        let key = (std::ptr::from_ref(m.def) as usize, m.table);
        let (params, caller) = (&m.def.params, m.def.caller);
        self.handle_value(key, Handle::Macro(m), m.def.name.text, params, caller, span)
    }

    /// The value of `caller` (passed on: `other(caller=caller)`).
    pub(super) fn caller_value(&mut self, c: CallerRef<'t>, span: Span) -> Result<Value, Error> {
        let key = (std::ptr::from_ref(c.block) as usize, c.at);
        let (params, caller) = (&c.block.params, c.block.caller);
        self.handle_value(key, Handle::Caller(c), "caller", params, caller, span)
    }

    /// The value of a handle, made once per `key`; `params` and `caller`
    /// give its JSON form (the attributes).
    fn handle_value(
        &mut self,
        key: (usize, usize),
        handle: Handle<'t>,
        name: &str,
        params: &[(&str, Option<Expr<'_>>)],
        caller: bool,
        span: Span,
    ) -> Result<Value, Error> {
        if let Some(&number) = self.handles.index.get(&key) {
            let entry = &mut self.handles.all[number as usize];
            // The same `call` block at the same frame: its newest call is
            // the one running.
            if let Handle::Caller(_) = handle {
                entry.0 = handle;
            }
            return Ok(entry.1.clone());
        }
        let arguments = self.param_names(params, span)?;
        let json: ValueMap = [
            (Arc::from("name"), Value::str(name)),
            (Arc::from("arguments"), arguments),
            (Arc::from("caller"), Value::from(caller)),
        ]
        .into_iter()
        .collect();
        let json = Value::map(json);
        self.charge(ENTRY + 8 * SLOT + json.size(), span)?;
        let number = u32::try_from(self.handles.all.len()).map_err(|_| {
            self.error(ErrorKind::MemoryLimit, "too many macro values in one render", span)
        })?;
        let target = CallTarget::Render { render: self.handles.render, handle: number };
        let callable = Callable { name: Arc::from(name), target, json };
        let value = Value(Repr::Callable(Arc::new(callable)));
        self.handles.all.push((handle, value.clone()));
        self.handles.index.insert(key, number);
        Ok(value)
    }

    /// The value of the function `name` of the registry.
    pub(super) fn function_value(&mut self, name: &'t str, span: Span) -> Result<Value, Error> {
        if let Some(value) = self.handles.functions.get(name) {
            return Ok(value.clone());
        }
        self.charge(ENTRY + SLOT + 2 * name.len(), span)?;
        let target = CallTarget::Function;
        let callable = Callable { name: Arc::from(name), target, json: Value::NONE };
        let value = Value(Repr::Callable(Arc::new(callable)));
        self.handles.functions.insert(name, value.clone());
        Ok(value)
    }

    /// What a macro or `caller` value refers to; `None` for a function. An
    /// error for a value of another render, or a `caller` whose call ended.
    pub(super) fn handle(&self, c: &Callable, span: Span) -> Result<Option<Handle<'t>>, Error> {
        let CallTarget::Render { render, handle } = c.target else { return Ok(None) };
        let found = self.handles.all.get(handle as usize).filter(|_| render == self.handles.render);
        let Some(&(found, _)) = found else {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!("`{}` belongs to another render and cannot be called here", c.name),
                span,
            ));
        };
        if let Handle::Caller(caller) = found {
            let live = matches!(self.frames.get(caller.at), Some(Frame::Caller(now))
                if std::ptr::eq(now.block, caller.block) && now.frames == caller.frames);
            if !live {
                return Err(self.error(
                    ErrorKind::InvalidOperation,
                    "`caller` is used after the macro call it belongs to has ended",
                    span,
                ));
            }
        }
        Ok(Some(found))
    }

    /// The macro a value holds, if it holds one (not `caller`, not a
    /// function).
    pub(super) fn macro_of(
        &self,
        value: &Value,
        span: Span,
    ) -> Result<Option<MacroRef<'t>>, Error> {
        match &value.0 {
            Repr::Callable(c) => match self.handle(c, span)? {
                Some(Handle::Macro(m)) => Ok(Some(m)),
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// Calls a value: a macro, `caller` or function; anything else is not
    /// callable (its arguments are evaluated first, as minijinja does).
    pub(super) fn call_value(
        &mut self,
        value: &Value,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<Value, Error> {
        let Repr::Callable(c) = &value.0 else {
            self.eval_args(args)?;
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!("{} is not callable", describe(value)),
                span,
            ));
        };
        match self.handle(c, span)? {
            None => self.call_function(&c.name, span, args, span),
            Some(Handle::Macro(m)) => {
                let args = self.eval_args(args)?;
                self.call_macro(m, args, span)
            }
            Some(Handle::Caller(caller)) => {
                let args = self.eval_args(args)?;
                self.call_caller(caller, args, span)
            }
        }
    }

    /// `m.name`, `m.arguments`, `m.caller`, `m.catch_varargs`,
    /// `m.catch_kwargs` of a macro value (`caller`'s as [`Self::caller_attr`]
    /// gives them, a function's `name` only); any other attribute is an
    /// error, never a silent undefined.
    pub(super) fn callable_attr(
        &mut self,
        c: &Callable,
        attr: &str,
        span: Span,
    ) -> Result<Value, Error> {
        let def = match self.handle(c, span)? {
            Some(Handle::Caller(caller)) => return self.caller_attr(caller.block, attr, span),
            Some(Handle::Macro(m)) => Some(m.def),
            None => None,
        };
        match (attr, def) {
            ("name", _) => Ok(Value(Repr::Str(c.name.clone()))),
            ("arguments", Some(def)) => self.param_names(&def.params, span),
            ("caller", Some(def)) => Ok(Value::from(def.caller)),
            ("catch_varargs", Some(def)) => Ok(Value::from(def.catch.varargs.is_some())),
            ("catch_kwargs", Some(def)) => Ok(Value::from(def.catch.kwargs.is_some())),
            (_, None) => Err(self.error(
                ErrorKind::InvalidOperation,
                format!("function `{}` has no attribute `{attr}` (a function has `name`)", c.name),
                span,
            )),
            _ => Err(self.error(
                ErrorKind::InvalidOperation,
                format!(
                    "macro `{}` has no attribute `{attr}` (a macro has `name`, \
                     `arguments`, `caller`, `catch_varargs` and `catch_kwargs`)",
                    c.name
                ),
                span,
            )),
        }
    }
}
