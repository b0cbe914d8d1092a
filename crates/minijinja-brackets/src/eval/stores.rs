//! The three variable stores during a render: read lazily from the
//! context's JSON, written into an overlay, merged back at the end.
//!
//! Converting a whole store to values up front (and back afterwards) would
//! cost more than most renders; instead a name is converted the first time
//! it is read, and only written names are converted back to JSON.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::context::{Context, Scope, Store, StoreWrite};
use crate::error::{Error, ErrorKind};
use crate::value::{Converted, Value, ValueMap};
use prompt_core::json::Budget;

/// One store: the context's JSON, and the values read or written so far,
/// in the order first read or written.
///
/// Templates touch few names, so lookups scan the list; past
/// [`SMALL`] names a hash index takes over.
#[derive(Debug)]
struct Layer<'t> {
    input: &'t Store,
    values: Vec<(Cow<'t, str>, Value)>,
    index: HashMap<Cow<'t, str>, usize>,
    /// The names whose strings are authored (the state store's only).
    authored: &'t [&'t str],
}

/// How many names a layer scans before it switches to its hash index.
const SMALL: usize = 16;

impl<'t> Layer<'t> {
    #[inline]
    fn position(&self, name: &str) -> Option<usize> {
        if self.values.len() <= SMALL {
            self.values.iter().position(|(key, _)| key == name)
        } else {
            self.index.get(name).copied()
        }
    }

    fn insert(&mut self, name: Cow<'t, str>, value: Value) -> usize {
        if let Some(at) = self.position(&name) {
            self.values[at].1 = value;
            return at;
        }
        self.values.push((name, value));
        let at = self.values.len() - 1;
        if self.values.len() > SMALL {
            if self.index.is_empty() {
                self.index =
                    self.values.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect();
            } else {
                self.index.insert(self.values[at].0.clone(), at);
            }
        }
        at
    }

    /// The value of `name`, converted from the input on first read, what
    /// it builds counted in `memory` (which fails for an integer outside 64
    /// bits, or past the budget; `Err` holds why).
    fn get(&mut self, name: &str, memory: &mut Memory<'_>) -> Result<Option<&Value>, Converted> {
        let at = match self.position(name) {
            Some(at) => at,
            None => {
                let Some((key, json)) = self.input.get_key_value(name) else { return Ok(None) };
                let authored = self.authored.contains(&name);
                let value =
                    memory.spend(|budget| Value::from_json_within(json, authored, budget))?;
                self.insert(Cow::Borrowed(key.as_str()), value)
            }
        };
        Ok(Some(&self.values[at].1))
    }
}

/// The render's memory budget as the stores see it: the bytes left under
/// the limit.
pub(crate) struct Memory<'a> {
    pub(crate) left: &'a mut usize,
    pub(crate) limit: usize,
}

impl Memory<'_> {
    /// Runs `build` with a [`Budget`] holding what is left, then keeps
    /// what it spent (all of it when it went over).
    fn spend<T>(
        &mut self,
        build: impl FnOnce(&mut Budget) -> Result<T, Converted>,
    ) -> Result<T, Converted> {
        let mut budget = Budget::new(self.limit);
        // What is left is never more than the limit.
        let _ = budget.charge(self.limit.saturating_sub(*self.left));
        let built = build(&mut budget);
        *self.left = match built {
            Err(Converted::Over(..)) => 0,
            _ => self.limit - budget.spent(),
        };
        built
    }
}

#[derive(Debug)]
pub(crate) struct Stores<'t> {
    layers: [Layer<'t>; 3],
    writes: Vec<(Scope, Cow<'t, str>, Value)>,
}

fn index(scope: Scope) -> usize {
    match scope {
        Scope::State => 0,
        Scope::Local => 1,
        Scope::Global => 2,
    }
}

impl<'t> Stores<'t> {
    /// The stores of `context`; the state variables named in `authored`
    /// read as authored text.
    pub(crate) fn new(context: &'t Context, authored: &'t [&'t str]) -> Stores<'t> {
        let layer =
            |input, authored| Layer { input, values: Vec::new(), index: HashMap::new(), authored };
        Stores {
            layers: [
                layer(&context.state, authored),
                layer(&context.local, &[]),
                layer(&context.global, &[]),
            ],
            writes: Vec::new(),
        }
    }

    /// The variable `name` of `scope`; undefined when it is not set.
    ///
    /// # Errors
    ///
    /// An `invalid_operation` naming the variable when the context holds a
    /// value the language has not (an integer outside 64 bits).
    #[inline]
    pub(crate) fn get(
        &mut self,
        scope: Scope,
        name: &str,
        memory: &mut Memory<'_>,
    ) -> Result<Value, Error> {
        Ok(self.get_ref(scope, name, memory)?.cloned().unwrap_or_default())
    }

    /// The variable `name` of `scope` by reference, when it is set; errors
    /// as [`Stores::get`], and a `memory_limit` naming the variable when
    /// its values would pass the render's memory budget (`memory`).
    pub(crate) fn get_ref(
        &mut self,
        scope: Scope,
        name: &str,
        memory: &mut Memory<'_>,
    ) -> Result<Option<&Value>, Error> {
        self.layers[index(scope)].get(name, memory).map_err(|why| {
            let variable = match scope {
                Scope::State => format!("`{name}`"),
                Scope::Local => format!("`L.{name}`"),
                Scope::Global => format!("`G.{name}`"),
            };
            match why {
                Converted::Invalid(why) => Error::new(
                    ErrorKind::InvalidOperation,
                    format!("the context's {variable} cannot be read: {}", why.message()),
                ),
                over => over.into_error(&format!("the context's {variable}")),
            }
        })
    }

    /// Sets a variable and records the write.
    /// Binds a template-level variable of the Jinja2 profile: read as a
    /// state variable for the rest of the render, never written to a store
    /// (no write is logged).
    pub(crate) fn bind(&mut self, name: &'t str, value: Value) {
        self.layers[0].insert(Cow::Borrowed(name), value);
    }

    pub(crate) fn set(&mut self, scope: Scope, name: Cow<'t, str>, value: Value) {
        self.layers[index(scope)].insert(name.clone(), value.clone());
        self.writes.push((scope, name, value));
    }

    /// The whole store as a map: the context's keys in their order (with
    /// their current values), then new names in the order first written.
    pub(crate) fn whole(&mut self, scope: Scope, memory: &mut Memory<'_>) -> Result<Value, Error> {
        let keys: Vec<&'t str> =
            self.layers[index(scope)].input.keys().map(String::as_str).collect();
        let mut map = ValueMap::with_capacity(keys.len());
        for key in keys {
            map.insert(Arc::from(key), self.get(scope, key, memory)?);
        }
        for (key, value) in &self.layers[index(scope)].values {
            if !map.contains_key(&**key) {
                map.insert(Arc::from(&**key), value.clone());
            }
        }
        Ok(Value::map(map))
    }

    /// The writes, in order, sharing their values (`Outcome::into_rendered`
    /// applies them to a copy of the context when the host wants complete
    /// stores). Values are checked storable when written.
    pub(crate) fn finish(self) -> Vec<StoreWrite> {
        self.writes
            .into_iter()
            .map(|(scope, name, value)| StoreWrite { scope, name: name.into_owned(), value })
            .collect()
    }
}
