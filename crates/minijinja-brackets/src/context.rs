//! What a render takes in ([`Context`]) and gives back ([`Rendered`], or
//! the lighter [`Outcome`]).

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use prompt_core::diagnostic::{Diagnostic, Origin};
use prompt_core::text::Span;
use serde::{Deserialize, Serialize};

use crate::limits::Limits;
use crate::value::Value;

/// A JSON object: one variable store.
pub type Store = serde_json::Map<String, serde_json::Value>;

/// The three variable stores a template reads and writes.
///
/// A context is written, in JSON, TOML or any serde format, one of two
/// ways:
///
/// * **the state store itself**: `{"name": "Ann", "visits": 2}`, an object
///   with none of the keys `state`, `local` and `global` at its top level;
/// * **the three stores**: `{"state": {...}, "local": {...}, "global":
///   {...}}`, each key optional (an absent store is empty), each an object.
///
/// An object with `state`, `local` or `global` beside other keys is
/// neither, and an error that shows both shapes (never a guess: a variable
/// named `state` would otherwise decide what the others are). A context
/// always serializes in the second shape.
///
/// In Rust, [`context!`](crate::context!) writes the state store, and
/// [`Context::local`] and [`Context::global`] add the others:
///
/// ```
/// use minijinja_brackets::{Context, context};
///
/// let context = context! { name => "Ann", visits => 2 }.global(context! { day => 3 });
/// assert_eq!(context.state["name"], "Ann");
/// assert_eq!(context.global["day"], 3);
/// // The same context, as people write it in JSON:
/// assert_eq!(Context::from_json(r#"{"state": {"name": "Ann", "visits": 2}, "global": {"day": 3}}"#)?, context);
/// assert_eq!(Context::from_json(r#"{"name": "Ann", "visits": 2}"#)?, context! { name => "Ann", visits => 2 });
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Context {
    /// State variables (bare names, `x`), kept in the chat's messages.
    pub state: Store,
    /// Chat-local variables (`L.x`).
    pub local: Store,
    /// Global variables (`G.x`).
    pub global: Store,
}

/// The top-level keys that make an object the three stores.
const SCOPES: [&str; 3] = ["state", "local", "global"];

/// Reads either shape (see [`Context`]); a mixed object is an error.
impl<'de> Deserialize<'de> for Context {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Context, D::Error> {
        let object = Store::deserialize(deserializer)?;
        Context::from_object(object).map_err(|err| serde::de::Error::custom(err.message()))
    }
}

impl Context {
    /// An empty context.
    pub fn new() -> Context {
        Context::default()
    }

    /// A context whose state store is `state`, the local and global stores
    /// empty.
    pub fn from_state(state: Store) -> Context {
        Context { state, local: Store::new(), global: Store::new() }
    }

    /// A context whose state store is `value` serialized: any `Serialize`
    /// value whose JSON form is an object (a struct, a map with string
    /// keys, a `serde_json::Value` object). The value is the state store
    /// whatever its keys: a field named `state` is a variable named
    /// `state` here (only texts people write, read by
    /// [`Context::from_json`] and serde, take the three-store shape).
    ///
    /// ```
    /// use minijinja_brackets::{Context, Environment};
    ///
    /// #[derive(serde::Serialize)]
    /// struct Reader { name: String, visits: u32 }
    ///
    /// let context = Context::from_serialize(&Reader { name: "Ann".into(), visits: 2 })?;
    /// let template = Environment::new().compile("[[ name ]] ([[ visits ]])")?;
    /// assert_eq!(template.render(&context, 0)?.output, "Ann (2)");
    /// let err = Context::from_serialize(&[1, 2]).unwrap_err();
    /// assert_eq!(err.kind().as_str(), "invalid_context");
    /// assert_eq!(err.message(), "a context must be an object of variables, not an array");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `invalid_context` when `value` has no JSON form (its `Serialize`
    /// failed, or a map key is not a string) or its JSON form is not an
    /// object; `memory_limit` when its values would take more than the
    /// default memory limit ([`Limits::memory_limit`], 128 MiB), found
    /// before they are built.
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Context, crate::Error> {
        match to_json(value)? {
            serde_json::Value::Object(state) => Ok(Context::from_state(state)),
            other => Err(invalid_context(format!(
                "a context must be an object of variables, not {}",
                json_kind(&other)
            ))),
        }
    }

    /// A context from a JSON object in either shape (see [`Context`]): one
    /// with none of the keys `state`, `local` and `global` is the state
    /// store; one with only those keys holds the three stores.
    ///
    /// ```
    /// use minijinja_brackets::Context;
    /// use prompt_core::diagnostic::Diagnostic;
    ///
    /// let object = serde_json::json!({"state": {"name": "Ann"}, "mood": "calm"});
    /// let serde_json::Value::Object(object) = object else { unreachable!() };
    /// let err = Context::from_object(object).unwrap_err();
    /// assert_eq!(err.kind().as_str(), "invalid_context");
    /// assert_eq!(
    ///     err.message(),
    ///     "`mood` is beside `state`: a context is either its state variables alone, \
    ///      or the objects `state`, `local` and `global` with nothing beside them"
    /// );
    /// assert_eq!(
    ///     err.help().unwrap(),
    ///     r#"write `{"mood": ...}` (the state store itself), or `{"state": {"mood": ...}, "local": {...}, "global": {...}}` (each optional)"#
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// `invalid_context` for an object of neither shape (a `help` shows
    /// both), or a store that is not an object.
    pub fn from_object(object: Store) -> Result<Context, crate::Error> {
        Context::shaped(object).map_err(|(err, _)| err)
    }

    /// [`Context::from_object`], with the key each error is about.
    fn shaped(object: Store) -> Result<Context, (crate::Error, String)> {
        let Some(scope) = SCOPES.into_iter().find(|scope| object.contains_key(*scope)) else {
            return Ok(Context::from_state(object));
        };
        if let Some(key) = object.keys().find(|key| !SCOPES.contains(&key.as_str())) {
            let message = format!(
                "`{key}` is beside `{scope}`: a context is either its state variables alone, \
                 or the objects `state`, `local` and `global` with nothing beside them"
            );
            let help = format!(
                "write `{{{name}: ...}}` (the state store itself), or \
                 `{{\"state\": {{{name}: ...}}, \"local\": {{...}}, \"global\": {{...}}}}` \
                 (each optional)",
                name = serde_json::Value::from(key.as_str()),
            );
            return Err((invalid_context(message).with_help(help), key.clone()));
        }
        let mut context = Context::default();
        for (key, value) in object {
            let serde_json::Value::Object(store) = value else {
                let message =
                    format!("`{key}` must be an object of variables, not {}", json_kind(&value));
                return Err((invalid_context(message), key));
            };
            let scope = match key.as_str() {
                "state" => Scope::State,
                "local" => Scope::Local,
                _ => Scope::Global,
            };
            *context.store_mut(scope) = store;
        }
        Ok(context)
    }

    /// As [`Context::from_object`], for `object` read from the JSON `text`
    /// (less any keys the caller took out of it first, such as a batch
    /// row's id): an error is `invalid_json`, placed on the key it is about
    /// in `text`.
    ///
    /// # Errors
    ///
    /// As [`Context::from_object`], as `invalid_json` errors.
    pub fn from_json_object(object: Store, text: &str) -> Result<Context, crate::Error> {
        Context::shaped(object).map_err(|(err, key)| {
            let err = err.into_kind(crate::ErrorKind::InvalidJson);
            match prompt_core::json::key_span(text, &key) {
                Some(span) => err.in_context(text, span),
                None => err,
            }
        })
    }

    /// The state store of `vars` as this context's local store (`L.x`);
    /// what `vars` holds in its own local and global stores joins this
    /// context's (a later value wins), so nothing is dropped. Write `vars`
    /// with [`context!`](crate::context!).
    ///
    /// ```
    /// use minijinja_brackets::{Environment, context};
    ///
    /// let context = context! { name => "Ann" }.local(context! { mood => "calm" });
    /// let template = Environment::new().compile("[[ name ]] is [[ L.mood ]].")?;
    /// assert_eq!(template.render(&context, 0)?.output, "Ann is calm.");
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    #[must_use]
    pub fn local(mut self, vars: Context) -> Context {
        let Context { state, local, global } = vars;
        self.local.extend(state);
        self.local.extend(local);
        self.global.extend(global);
        self
    }

    /// The state store of `vars` as this context's global store (`G.x`);
    /// what `vars` holds in its own local and global stores joins this
    /// context's, as [`Context::local`] says.
    #[must_use]
    pub fn global(mut self, vars: Context) -> Context {
        let Context { state, local, global } = vars;
        self.global.extend(state);
        self.local.extend(local);
        self.global.extend(global);
        self
    }

    /// Reads a context from JSON text, strictly (`prompt_core::json`), in
    /// either shape (see [`Context`]): a leading byte order mark is
    /// ignored; a syntax error, a key repeated in one object, an integer
    /// outside the 64-bit signed range (which `serde_json::from_str` would
    /// turn into the nearest float), and an object of neither shape are
    /// errors at their line and column (a shape error on the key it is
    /// about). The values read may take at most the default memory limit
    /// ([`Limits::memory_limit`], 128 MiB, as `prompt_core::json::Budget`
    /// counts them), counted on the text before any is built.
    ///
    /// ```
    /// use minijinja_brackets::Context;
    ///
    /// let context = Context::from_json(r#"{"state": {"visits": 2}}"#)?;
    /// assert_eq!(context.state["visits"], 2);
    /// let err = Context::from_json("{\"state\": {\"n\":\n 9223372036854775808}}").unwrap_err();
    /// assert_eq!(err.kind().as_str(), "invalid_json");
    /// assert_eq!((err.line(), err.column(), err.snippet()), (Some(2), Some(2), Some("9223372036854775808")));
    /// let err = Context::from_json("{\"state\": {},\n \"name\": \"Ann\"}").unwrap_err();
    /// assert_eq!((err.line(), err.column(), err.snippet()), (Some(2), Some(2), Some("\"name\"")));
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An `invalid_json` [`Error`](crate::Error) positioned in `text`; a
    /// `memory_limit` one at the value where the count passed the limit.
    pub fn from_json(text: &str) -> Result<Context, crate::Error> {
        let reader = prompt_core::json::Reader::new().memory_limit(Limits::default().memory_limit);
        let object: Store = reader.parse(text).map_err(|err| {
            // Not an object at all: say so in the words of a context.
            match serde_json::from_str::<serde::de::IgnoredAny>(prompt_core::json::strip_bom(text))
            {
                Ok(_) if err.kind() == prompt_core::json::JsonErrorKind::Shape => {
                    let message = "a context must be a JSON object";
                    let start = text.len()
                        - text.trim_start_matches(['\u{feff}', ' ', '\t', '\n', '\r']).len();
                    crate::Error::new(crate::ErrorKind::InvalidJson, message)
                        .in_context(text, start..start)
                }
                _ => crate::Error::json(text, &err),
            }
        })?;
        Context::from_json_object(object, text)
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

/// A [`Context`] whose state store holds the variables given: `name =>
/// value` (any `Serialize` value), or `name` alone for a variable of that
/// name in scope. A name given twice keeps its last value.
/// [`Context::local`] and [`Context::global`] add the other stores.
///
/// ```
/// use minijinja_brackets::{Environment, context};
///
/// let name = "Ann";
/// let template = Environment::new().compile("[[ name ]] has [[ items -> length ]] items, [[ G.tz ]].")?;
/// let context = context! { name, items => vec!["a", "b"] }.global(context! { tz => "UTC" });
/// assert_eq!(template.render(&context, 0)?.output, "Ann has 2 items, UTC.");
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
///
/// # Panics
///
/// When a value has no JSON form (its `Serialize` fails, or a map key is
/// not a string), as `serde_json::json!` does; [`Context::from_serialize`]
/// returns that as an error instead.
#[macro_export]
macro_rules! context {
    (@value $name:ident => $value:expr) => { $value };
    (@value $name:ident) => { $name };
    () => { $crate::Context::new() };
    ($($name:ident $(=> $value:expr)?),+ $(,)?) => {{
        let mut state = $crate::Store::new();
        $(
            let value = $crate::context!(@value $name $(=> $value)?);
            state.insert(
                ::std::string::String::from(::std::stringify!($name)),
                $crate::__variable(::std::stringify!($name), &value),
            );
        )+
        $crate::Context::from_state(state)
    }};
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
/// ranges are not part of it): `{"output", "state", "local", "global",
/// "writes", "effects", "seed"}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Rendered {
    /// The rendered text.
    pub output: String,
    /// The byte ranges of `output` that came from values (see
    /// [`Outcome::data_ranges`]).
    #[serde(skip)]
    pub data_ranges: Vec<Range<usize>>,
    /// As [`Outcome::generation_ranges`].
    #[serde(skip)]
    pub generation_ranges: Vec<Range<usize>>,
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
    /// The seed the render drew from (see [`Outcome::seed`]).
    #[serde(default)]
    pub seed: u64,
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
    /// The byte ranges of `output` that `{% generation %}` blocks wrote
    /// (the Jinja2 profile; transformers' assistant mask), in order. Empty
    /// otherwise. Not serialized.
    #[serde(skip)]
    pub generation_ranges: Vec<Range<usize>>,
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
    /// The seed the render drew from: the one passed in, or the one a
    /// seedless render drew ([`Template::render_outcome_unseeded`]).
    /// Always there, so that any render can be replayed.
    ///
    /// [`Template::render_outcome_unseeded`]: crate::Template::render_outcome_unseeded
    #[serde(default)]
    pub seed: u64,
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
            generation_ranges: self.generation_ranges,
            state,
            local,
            global,
            writes: self.writes,
            effects: self.effects,
            undefined: self.undefined,
            seed: self.seed,
        }
    }
}

/// An `invalid_context` error.
fn invalid_context(message: String) -> crate::Error {
    crate::Error::new(crate::ErrorKind::InvalidContext, message)
}

/// `value`'s JSON form.
/// `value`'s JSON form, its values counted against the default memory
/// limit before they are built: `value` is written as JSON text (refused
/// once the text alone passes the limit), and the text read by the limited
/// reader.
fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<serde_json::Value, crate::Error> {
    to_json_within(value, Limits::default().memory_limit)
}

/// [`to_json`] under a limit of `limit` bytes.
fn to_json_within<T: Serialize + ?Sized>(
    value: &T,
    limit: usize,
) -> Result<serde_json::Value, crate::Error> {
    let mut text = Bounded { bytes: Vec::new(), limit };
    if let Err(err) = serde_json::to_writer(&mut text, value) {
        if err.is_io() {
            return Err(over_memory(limit));
        }
        return Err(invalid_context(format!("the value has no JSON form: {err}")));
    }
    // serde_json writes only UTF-8.
    let text = String::from_utf8(text.bytes).map_err(|_| over_memory(limit))?;
    let reader = prompt_core::json::Reader::new().any_integers().memory_limit(limit);
    reader.parse(&text).map_err(|err| match err.kind() {
        prompt_core::json::JsonErrorKind::MemoryLimit => over_memory(limit),
        _ => invalid_context(format!("the value has no JSON form: {err}")),
    })
}

/// The error of a context whose values would pass the memory limit.
fn over_memory(limit: usize) -> crate::Error {
    crate::Error::new(
        crate::ErrorKind::MemoryLimit,
        format!("the context's values would take more than the memory limit of {limit} bytes"),
    )
}

/// A writer into memory that refuses to hold more than `limit` bytes.
struct Bounded {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.limit {
            return Err(std::io::Error::other("over the memory limit"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The JSON form of one variable of [`context!`](crate::context!).
///
/// # Panics
///
/// When the value has no JSON form (its `Serialize` fails, or a map key is
/// not a string), as `serde_json::json!` does.
#[doc(hidden)]
pub fn __variable<T: Serialize + ?Sized>(name: &str, value: &T) -> serde_json::Value {
    match serde_json::to_value(value) {
        Ok(value) => value,
        Err(err) => panic!("context!: `{name}` has no JSON form: {err}"),
    }
}

/// What a JSON value is, for messages: `an array`, `a string`, ...
fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
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
    fn a_context_is_the_state_store_or_the_three_stores() {
        let flat = Context::from_json(r#"{"name": "Ann", "n": {"state": 1}}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&flat.state).unwrap(),
            r#"{"name":"Ann","n":{"state":1}}"#
        );
        assert!(flat.local.is_empty() && flat.global.is_empty());
        let scoped =
            Context::from_json(r#"{"global": {"g": 1}, "state": {"name": "Ann"}}"#).unwrap();
        assert_eq!(
            (scoped.state["name"].as_str(), scoped.global["g"].as_i64()),
            (Some("Ann"), Some(1))
        );
        assert_eq!(Context::from_json("{}").unwrap(), Context::default());
        assert_eq!(Context::from_json("\u{feff} {\"local\": {}}").unwrap(), Context::default());
        // Serde takes the same two shapes; a context serializes scoped and
        // reads back the same.
        let through_serde: Context =
            serde_json::from_str(r#"{"name": "Ann", "n": {"state": 1}}"#).unwrap();
        assert_eq!(through_serde, flat);
        let text = serde_json::to_string(&flat).unwrap();
        assert_eq!(Context::from_json(&text).unwrap(), flat);
    }

    #[test]
    fn a_mixed_context_is_an_error_on_its_stray_key() {
        let err = Context::from_json("{\"state\": {\"a\": 1},\n  \"name\": \"Ann\", \"x\": 2}")
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidJson);
        assert!(err.message().starts_with("`name` is beside `state`: "), "{}", err.message());
        assert_eq!((err.line(), err.column(), err.snippet()), (Some(2), Some(3), Some("\"name\"")));
        assert!(
            prompt_core::diagnostic::Diagnostic::help(&err)
                .unwrap()
                .contains(r#"{"state": {"name": ...}"#)
        );
        // Whichever comes first.
        let err = Context::from_json(r#"{"name": "Ann", "global": {}}"#).unwrap_err();
        assert!(err.message().starts_with("`name` is beside `global`: "), "{}", err.message());
        assert_eq!(err.column(), Some(2));
        // A store that is not an object, on its key.
        let err = Context::from_json(r#"{"local": {}, "state": [1]}"#).unwrap_err();
        assert_eq!(err.message(), "`state` must be an object of variables, not an array");
        assert_eq!((err.column(), err.snippet()), (Some(15), Some("\"state\"")));
        // Serde says the same, without a place of its own choosing.
        let err = serde_json::from_str::<Context>(r#"{"state": {}, "name": 1}"#).unwrap_err();
        assert!(err.to_string().starts_with("`name` is beside `state`"), "{err}");
    }

    #[test]
    fn a_context_text_that_is_not_an_object_says_so() {
        for (text, column) in [("[1]", 1), ("\n  5", 3), ("\"x\"", 1), ("null", 1)] {
            let err = Context::from_json(text).unwrap_err();
            assert_eq!(
                (err.message(), err.column()),
                ("a context must be a JSON object", Some(column)),
                "{text}"
            );
        }
        // The strict reader's own errors stay as they are.
        let err = Context::from_json(r#"{"a": 1, "a": 2}"#).unwrap_err();
        assert_eq!(err.message(), "duplicate key `a` in an object");
        assert_eq!(Context::from_json("{").unwrap_err().kind(), crate::ErrorKind::InvalidJson);
    }

    #[test]
    fn the_context_macro_and_the_scope_builders() {
        let name = String::from("Ann");
        let context = context! { name, n => 1, n => 2, list => [1, 2], };
        assert_eq!(
            serde_json::to_string(&context.state).unwrap(),
            r#"{"name":"Ann","n":2,"list":[1,2]}"#
        );
        assert_eq!(context!(), Context::new());
        let both = context! { a => 1 }
            .local(context! { b => 2 }.global(context! { c => 3 }))
            .global(context! { d => 4 });
        assert_eq!(
            serde_json::to_string(&both).unwrap(),
            r#"{"state":{"a":1},"local":{"b":2},"global":{"c":3,"d":4}}"#
        );
    }

    #[test]
    fn reading_json_counts_against_the_memory_limit() {
        // A million small messages: refused on the text, at the message
        // where the count passed 128 MiB, before any value is built.
        let message = r#"{"role": "user", "content": "hi"}, "#;
        let text = format!("{{\"messages\": [{}{{}}]}}", message.repeat(1_000_000));
        let err = Context::from_json(&text).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::MemoryLimit);
        assert_eq!(
            err.message(),
            "the values read would take more than the memory limit of 134217728 bytes"
        );
        assert!(err.column().unwrap() > 10_000_000, "{:?}", err.column());
        assert_eq!(err.snippet().map(|s| &s[..9]), Some("{\"role\": "));
        // A syntax error after it is still the error.
        let broken = format!("{}x", &text[..text.len() - 1]);
        assert_eq!(Context::from_json(&broken).unwrap_err().kind(), crate::ErrorKind::InvalidJson);
        // A thousand read.
        let text = format!("{{\"messages\": [{}{{}}]}}", message.repeat(1000));
        assert_eq!(
            Context::from_json(&text).unwrap().state["messages"].as_array().unwrap().len(),
            1001
        );
    }

    #[test]
    fn serializing_counts_against_the_memory_limit() {
        let value = serde_json::json!({"items": vec![serde_json::json!({"a": 1}); 100]});
        // The text alone is over the limit: refused while it is written.
        let err = to_json_within(&value, 100).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::MemoryLimit);
        assert_eq!(
            err.message(),
            "the context's values would take more than the memory limit of 100 bytes"
        );
        // The text fits (under 1 000 bytes), its values do not.
        let text = serde_json::to_string(&value).unwrap();
        assert!(text.len() < 1000);
        let err = to_json_within(&value, 1000).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::MemoryLimit);
        assert_eq!(to_json_within(&value, 1 << 20).unwrap(), value);
        // A 64-bit unsigned integer past `i64` still reads (as before).
        let big = to_json_within(&serde_json::json!({"n": u64::MAX}), 1 << 20).unwrap();
        assert_eq!(big["n"], u64::MAX);
    }

    #[test]
    fn from_serialize_takes_objects_whatever_their_keys() {
        let context =
            Context::from_serialize(&serde_json::json!({"state": {"a": 1}, "b": 2})).unwrap();
        assert_eq!(context.state.len(), 2);
        let map: std::collections::BTreeMap<i32, i32> = [(1, 2)].into();
        assert_eq!(Context::from_serialize(&map).unwrap().state["1"], 2);
        let err = Context::from_serialize("text").unwrap_err();
        assert_eq!(err.message(), "a context must be an object of variables, not a string");
        let map: std::collections::BTreeMap<(i32, i32), i32> = [((1, 2), 3)].into();
        let err = Context::from_serialize(&map).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidContext);
        assert!(err.message().starts_with("the value has no JSON form: "), "{}", err.message());
    }

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
