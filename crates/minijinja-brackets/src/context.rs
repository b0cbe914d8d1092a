//! What a render takes in ([`Context`]) and gives back ([`Rendered`], or
//! the lighter [`Outcome`]).

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use prompt_core::diagnostic::{Diagnostic, Origin};
use prompt_core::text::Span;
use serde::{Deserialize, Serialize};

use crate::value::Value;

/// A JSON object: one variable store.
pub type Store = serde_json::Map<String, serde_json::Value>;

/// The three variable stores a template reads and writes.
///
/// Deserializes from `{"state": {...}, "local": {...}, "global": {...}}`,
/// each key optional (an absent store is empty); unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Context {
    /// State variables (bare names, `x`), kept in the chat's messages.
    pub state: Store,
    /// Chat-local variables (`L.x`).
    pub local: Store,
    /// Global variables (`G.x`).
    pub global: Store,
}

impl Context {
    /// Reads a context from JSON text, strictly (`prompt_core::json`): a
    /// leading byte order mark is ignored; a syntax error, a key repeated in
    /// one object, an integer outside the 64-bit signed range (which
    /// `serde_json::from_str` would turn into the nearest float), and
    /// unknown top-level keys are errors at their line and column.
    ///
    /// ```
    /// use minijinja_brackets::Context;
    ///
    /// let context = Context::from_json(r#"{"state": {"visits": 2}}"#)?;
    /// assert_eq!(context.state["visits"], 2);
    /// let err = Context::from_json("{\"state\": {\"n\":\n 9223372036854775808}}").unwrap_err();
    /// assert_eq!(err.kind().as_str(), "invalid_json");
    /// assert_eq!((err.line(), err.column(), err.snippet()), (Some(2), Some(2), Some("9223372036854775808")));
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An `invalid_json` [`Error`](crate::Error) positioned in `text`.
    pub fn from_json(text: &str) -> Result<Context, crate::Error> {
        prompt_core::json::from_str(text).map_err(|err| crate::Error::json(text, &err))
    }

    /// The store of `scope`.
    pub fn store(&self, scope: Scope) -> &Store {
        match scope {
            Scope::State => &self.state,
            Scope::Local => &self.local,
            Scope::Global => &self.global,
        }
    }

    /// The store of `scope`, to change.
    pub fn store_mut(&mut self, scope: Scope) -> &mut Store {
        match scope {
            Scope::State => &mut self.state,
            Scope::Local => &mut self.local,
            Scope::Global => &mut self.global,
        }
    }
}

/// Which store a name lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Bare names: `x`.
    State,
    /// `L.x`, `L["x"]`.
    Local,
    /// `G.x`, `G["x"]`.
    Global,
}

/// One assignment a render made, in the order it ran:
/// `{"scope": "state", "name": "x", "value": 5}`.
///
/// The value is shared with the render, not copied: a loop that writes the
/// same large string a thousand times holds it once. It serializes as its
/// JSON form, and [`Outcome::apply_to`] converts it when it reaches a store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreWrite {
    /// The store written.
    pub scope: Scope,
    /// The variable's name.
    pub name: String,
    /// The value written (always storable: it has a JSON form).
    pub value: Value,
}

/// A side effect the template requests; the host runs it after a
/// successful render. `{"kind": "qr", "name": ...}` or
/// `{"kind": "st", "command": ...}`. The text is shared with the render.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Effect {
    /// `[% qr "name" %]`: trigger the Quick Reply with this name.
    Qr {
        /// The Quick Reply's name.
        name: Arc<str>,
    },
    /// `[% st "/cmd" %]`: run this slash-command script.
    St {
        /// The script.
        command: Arc<str>,
    },
}

/// The result of a successful render: the text and which of its bytes
/// are data, the three stores after rendering (complete), the writes in
/// order, and the effects in order.
///
/// Serializes in the command line's `--json` shape and key order (the data
/// ranges are not part of it).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Rendered {
    /// The rendered text.
    pub output: String,
    /// The byte ranges of `output` that came from values (see
    /// [`Outcome::data_ranges`]).
    #[serde(skip)]
    pub data_ranges: Vec<Range<usize>>,
    /// The state store after rendering.
    pub state: Store,
    /// The chat-local store after rendering.
    pub local: Store,
    /// The global store after rendering.
    pub global: Store,
    /// Every assignment, in order.
    pub writes: Vec<StoreWrite>,
    /// Every `qr`/`st` request, in order.
    pub effects: Vec<Effect>,
    /// The tags that printed an undefined name (see
    /// [`Outcome::undefined`]). Not serialized.
    #[serde(skip)]
    pub undefined: Vec<UndefinedTag>,
}

/// What a render produced and did, without the stores after it: the result
/// of [`Template::render_outcome`](crate::Template::render_outcome).
///
/// A [`Rendered`] copies the whole context to return complete stores, which
/// costs as much as the context is large, however little the template read.
/// An `Outcome` copies nothing: a host that only needs the text, or that
/// keeps its own context and carries state from one render to the next with
/// [`Outcome::apply_to`], pays only for what the template did.
///
/// ```
/// use minijinja_brackets::{Context, Environment};
///
/// let env = Environment::new();
/// let template = env.compile("[% set visits = visits + 1 %]Visit [[ visits ]].")?;
/// let mut context: Context = serde_json::from_str(r#"{"state": {"visits": 1}}"#)?;
/// for expected in ["Visit 2.", "Visit 3."] {
///     let outcome = template.render_outcome(&context, 0)?;
///     assert_eq!(outcome.output, expected);
///     outcome.apply_to(&mut context);
/// }
/// assert_eq!(context.state["visits"], 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// The rendered text.
    pub output: String,
    /// The byte ranges of `output` that are data: they came from values
    /// (the context, or what an operator, filter, test or function built),
    /// not from the template's own text or its string literals. Sorted by
    /// start, non-overlapping, one range per printed piece: adjacent pieces
    /// are not merged (`[[ a ]][[ b ]]` gives two ranges), empty pieces give
    /// none. A macro call or `set` block keeps the provenance of what it
    /// captured, so printing its result maps its data ranges here.
    ///
    /// Not serialized (the command line's `--json` shape has no such key).
    ///
    /// ```
    /// use minijinja_brackets::{Context, Environment};
    ///
    /// let env = Environment::new();
    /// let template = env.compile("## [[ a ]][[ b ]] says [[ \"hi\" ]]")?;
    /// let context: Context = serde_json::from_str(r#"{"state": {"a": "us", "b": "er"}}"#)?;
    /// let outcome = template.render_outcome(&context, 0)?;
    /// assert_eq!(outcome.output, "## user says hi");
    /// assert_eq!(outcome.data_ranges, [3..5, 5..7]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[serde(skip)]
    pub data_ranges: Vec<Range<usize>>,
    /// Every assignment, in order.
    pub writes: Vec<StoreWrite>,
    /// Every `qr`/`st` request, in order.
    pub effects: Vec<Effect>,
    /// Each tag printing a name alone (`[[name]]`, `[[ name ]]`) that
    /// printed an undefined name, and so nothing: often a misspelled name
    /// (`[[ mesage ]]`), or, written bare ([`UndefinedTag::is_bare`]), text
    /// that only looks like a tag (a wiki link `[[Alice]]`, a TOML table
    /// `[[bin]]`). One per distinct name, the first tag that printed it, in
    /// the order the render met them. Never in strict mode, where printing
    /// an undefined value is an error. Not serialized.
    ///
    /// ```
    /// use minijinja_brackets::{Context, Environment};
    ///
    /// let env = Environment::new();
    /// let template = env.compile("See [[Alice]] and [[Alice]], [[ bob ]], [[ready]].")?;
    /// let context: Context = serde_json::from_str(r#"{"state": {"ready": "yes"}}"#)?;
    /// let outcome = template.render_outcome(&context, 0)?;
    /// assert_eq!(outcome.output, "See  and , , yes.");
    /// let names: Vec<(&str, bool)> =
    ///     outcome.undefined.iter().map(|u| (u.name(), u.is_bare())).collect();
    /// assert_eq!(names, [("Alice", true), ("bob", false)]);
    /// assert_eq!(outcome.undefined[0].span().range(), 4..13);
    /// assert_eq!(outcome.undefined[1].span().range(), 29..38);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[serde(skip)]
    pub undefined: Vec<UndefinedTag>,
}

/// A tag printing a name alone (`[[name]]`, `[[ name ]]`, `[[- name ]]`)
/// that printed an undefined name: the warning `undefined_variable` of
/// [`Outcome::undefined`]. Such a tag prints nothing, as the language says;
/// the warning is there because the name is often misspelled (`[[ mesage
/// ]]` deletes the message it was to print), and a tag written bare
/// ([`UndefinedTag::is_bare`]) is often text that only looks like a tag (a
/// wiki link, a TOML table header). A host that takes printing nothing as
/// meant reports only the bare ones (as `prompt-suite render` does). Any
/// other expression (`[[ (name) ]]`, `[[ user.name ]]`) is not reported.
///
/// It is a [`prompt_core::diagnostic::Diagnostic`]: its span is the whole
/// tag in the text of its origin (the template, or a template it loaded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndefinedTag {
    name: String,
    span: Span,
    bare: bool,
    origin: Origin,
}

impl UndefinedTag {
    pub(crate) fn new(name: &str, span: Span, bare: bool, template: Option<&str>) -> UndefinedTag {
        let origin = template.map_or(Origin::Input, |name| Origin::Named(name.to_owned()));
        UndefinedTag { name: name.to_owned(), span, bare, origin }
    }

    /// Whether the tag is written `[[name]]`, with no spaces or trim
    /// markers inside its brackets: as text that only looks like a tag is.
    pub fn is_bare(&self) -> bool {
        self.bare
    }

    /// The undefined name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tag's bytes, `[[` to `]]`, in the text of its origin.
    pub fn span(&self) -> Span {
        self.span
    }
}

/// The message, without a position.
impl fmt::Display for UndefinedTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        if self.bare {
            write!(f, "`{name}` is undefined, so the tag `[[{name}]]` printed nothing")
        } else {
            write!(f, "`{name}` is undefined, so the tag `[[ {name} ]]` printed nothing")
        }
    }
}

impl Diagnostic for UndefinedTag {
    /// `undefined_variable`, the kind `check` reports too.
    fn kind(&self) -> &'static str {
        "undefined_variable"
    }

    fn span(&self) -> Option<Span> {
        Some(self.span)
    }

    /// The template ([`Origin::Input`]), or the name of a template it
    /// included, imported or extended ([`Origin::Named`]).
    fn origin(&self) -> Origin {
        self.origin.clone()
    }

    fn help(&self) -> Option<String> {
        let name = &self.name;
        if !self.bare {
            return Some(format!(
                "is the name misspelled? To print nothing when it is undefined, write \
                 `[[ {name} -> default(\"\") ]]`; to print a value, give `{name}` one in the context"
            ));
        }
        Some(format!(
            "to print the brackets, put them in a raw block: `[% raw %][[{name}]][% endraw %]`; \
             to print a value, give `{name}` one in the context"
        ))
    }
}

impl Outcome {
    /// Applies the writes, in order, to `context`: afterwards it holds the
    /// stores a [`Rendered`] of the same render would. Only the last write
    /// of each name is converted to JSON (earlier ones only fix the name's
    /// place in its store), so the cost is that of the final values.
    pub fn apply_to(&self, context: &mut Context) {
        for scope in [Scope::State, Scope::Local, Scope::Global] {
            let writes = self.writes.iter().filter(|w| w.scope == scope);
            fold_writes(writes, context.store_mut(scope));
        }
    }

    /// The [`Rendered`] of this render of `context`: a copy of its stores
    /// with the writes applied.
    pub fn into_rendered(self, context: &Context) -> Rendered {
        let mut stores = context.clone();
        self.apply_to(&mut stores);
        let Context { state, local, global } = stores;
        Rendered {
            output: self.output,
            data_ranges: self.data_ranges,
            state,
            local,
            global,
            writes: self.writes,
            effects: self.effects,
            undefined: self.undefined,
        }
    }
}

/// Applies `writes` (of one store) in order to `store`, converting only
/// the last write of each name: an earlier write of a name new to the store
/// inserts a placeholder that fixes the name's place, as applying every
/// write in turn would.
pub(crate) fn fold_writes<'w>(
    writes: impl DoubleEndedIterator<Item = &'w StoreWrite> + Clone,
    store: &mut Store,
) {
    let mut seen = HashSet::new();
    let last: Vec<bool> = writes.clone().rev().map(|w| seen.insert(w.name.as_str())).collect();
    for (write, last) in writes.zip(last.into_iter().rev()) {
        if last {
            store.insert(write.name.clone(), write.value.json());
        } else if !store.contains_key(&write.name) {
            store.insert(write.name.clone(), serde_json::Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_writes_keeps_order_and_last_values() {
        let write = |scope, name: &str, value: i64| StoreWrite {
            scope,
            name: name.to_owned(),
            value: Value::from(value),
        };
        let writes = [
            write(Scope::State, "a", 1),
            write(Scope::State, "b", 2),
            write(Scope::Local, "a", 3),
            write(Scope::State, "a", 4),
            write(Scope::State, "old", 5),
        ];
        let mut context: Context =
            serde_json::from_str(r#"{"state": {"old": 0, "x": 9}}"#).unwrap();
        let mut one_by_one = context.clone();
        for w in &writes {
            one_by_one.store_mut(w.scope).insert(w.name.clone(), w.value.json());
        }
        Outcome { writes: writes.to_vec(), ..Outcome::default() }.apply_to(&mut context);
        assert_eq!(context, one_by_one);
        let keys: Vec<&String> = context.state.keys().collect();
        assert_eq!(keys, ["old", "x", "a", "b"]);
    }
}
