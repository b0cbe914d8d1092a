//! The values templates compute with, and how they print and compare.
//!
//! A [`Value`] is cheap to clone: strings, lists and maps are shared behind
//! `Arc`. Values come from the JSON stores (see [`Value::from_json`]) and go
//! back to JSON when a `set` persists them (see [`Value::to_json`]).
//!
//! A string is data ([`Repr::Str`]) unless it carries authored bytes
//! ([`Repr::Text`], see [`crate::provenance`]); the two are the same string
//! to every operation but printing. Lists and maps record, when they are
//! made, how deep they nest, how large they are and whether they can be
//! stored, so the checks the evaluator makes on every value it builds or
//! writes cost the same for a shared value of any size.
//!
//! Every conversion to text or JSON inside a render is bounded while it is
//! produced ([`Value::write_printed`], [`Value::write_json`]): a list that
//! shares one large string a million times stops at the limit, it is never
//! built first and measured afterwards.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::ops::Deref;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use prompt_core::json::{Budget, OverBudget};

use crate::error::{Error, ErrorKind};
use crate::value::text::Text;

pub(crate) mod ops;
pub(crate) mod pyformat;
pub(crate) mod python;
pub(crate) mod text;

/// An insertion-ordered map from string keys to values.
pub(crate) type ValueMap = IndexMap<Arc<str>, Value>;

/// What one value costs in a list, a map or a store beyond its own
/// allocations, in bytes (the size of a [`Value`]).
pub(crate) const SLOT: usize = size_of::<Value>();

// Values are copied everywhere: provenance lives behind the `Text` pointer,
// so a value stays three words.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(SLOT == 24);

/// What one value costs in a list once converted to JSON (the size of a
/// `serde_json::Value`, 72 bytes with `preserve_order`).
const JSON_SLOT: usize = prompt_core::json::VALUE_BYTES;

/// What a map entry costs once converted to JSON beyond its key's text and
/// its value: the value's slot, the key's `String`, the index's hash and
/// position.
const JSON_ENTRY: usize = prompt_core::json::ENTRY_BYTES;

/// What a map entry costs as a value beyond its key's text and its value's
/// own allocations: the key's and the value's slots, the index's hash and
/// position (as [`Value::owned_size`] counts a map's entries, plus the
/// index).
const ENTRY: usize = 2 * SLOT + 2 * size_of::<usize>();

/// What a shared allocation (`Arc`) keeps beside its contents: the counts
/// and the allocator's own bytes.
const SHARED: usize = 2 * size_of::<usize>() + prompt_core::json::ALLOCATION_BYTES;

/// What a list converted from JSON costs beyond its slots: its shared
/// header and its items' allocation.
const LIST: usize = SHARED + size_of::<List>() + prompt_core::json::ALLOCATION_BYTES;

/// What a map converted from JSON costs beyond its entries: its shared
/// header and the allocations of its entries and index.
const MAP: usize = SHARED + size_of::<Map>() + 2 * prompt_core::json::ALLOCATION_BYTES;

/// The step to the map entry `key` in a path for a message: `.name` for a
/// plain name, else the key quoted as JSON (`["a b"]`), cut at 64
/// characters.
fn step(key: &str) -> String {
    const SHOWN: usize = 64;
    let plain = key.len() <= SHOWN
        && key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!(".{key}")
    } else {
        let shown: String = key.chars().take(SHOWN).collect();
        let cut = if shown.len() < key.len() { "..." } else { "" };
        format!("[{}{cut}]", serde_json::Value::String(shown))
    }
}

/// Why [`Value::from_json_within`] stopped.
#[derive(Debug)]
pub(crate) enum Converted {
    /// The values would pass the budget: where inside the value
    /// (`[3].content`, empty for the value itself), and the limit.
    Over(String, OverBudget),
    /// A value the language has not (an integer outside 64 bits).
    Invalid(Error),
}

impl Converted {
    /// The error, for the value called `what` (`the value`, ``the context's `x` ``).
    pub(crate) fn into_error(self, what: &str) -> Error {
        match self {
            Converted::Over(path, over) => {
                let part = if path.is_empty() { String::new() } else { format!(" (at `{path}`)") };
                Error::new(
                    ErrorKind::MemoryLimit,
                    format!("{what} would take {over} as values{part}"),
                )
            }
            Converted::Invalid(err) => err,
        }
    }

    /// The same, one step further out: `step` leads to where it was.
    fn inside(self, step: &str) -> Converted {
        match self {
            Converted::Over(path, over) => Converted::Over(format!("{step}{path}"), over),
            invalid => invalid,
        }
    }
}

/// What one data range costs to keep, in bytes.
pub(crate) const RANGE: usize = size_of::<std::ops::Range<usize>>();

/// A template value: string, integer, float, boolean, none, undefined, list,
/// map, or a macro.
///
/// Printing (`[[ v ]]`, `~`, `string`) follows the language's rules:
/// integral floats print without `.0`, booleans as `true`/`false`, none and
/// undefined as nothing, lists and maps as compact JSON.
///
/// ```
/// use minijinja_brackets::Value;
///
/// assert_eq!(Value::from(6.0).to_string(), "6");
/// assert_eq!(Value::from(vec![Value::from(1), Value::from("a")]).to_string(), r#"[1,"a"]"#);
/// assert!(!Value::from("").is_true());
/// ```
#[derive(Clone, Default)]
pub struct Value(pub(crate) Repr);

#[derive(Clone, Default)]
pub(crate) enum Repr {
    #[default]
    Undefined,
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A string whose bytes are all data.
    Str(Arc<str>),
    /// A string that carries authored bytes.
    Text(Arc<Text>),
    List(Arc<List>),
    Map(Arc<Map>),
    /// A macro, a `call` block's `caller`, or a function, as a value.
    Callable(Arc<Callable>),
    /// An imported template as a value (`import ... as m`, then `m`).
    Module(Arc<Module>),
}

/// A macro, a `caller` or a function held by a value (issue 15: callables
/// are values). A macro or `caller` belongs to the render that made it (its
/// syntax tree lives as long as that render); the renderer keeps what it
/// refers to under [`CallTarget::Render`]'s handle. Never stored.
#[derive(Debug)]
pub(crate) struct Callable {
    /// Its name: what `m.name` gives and `<macro name>` prints.
    pub(crate) name: Arc<str>,
    pub(crate) target: CallTarget,
    /// Its JSON form: a macro's (and `caller`'s) attributes as a map
    /// (`{"name": ..., "arguments": [...], "caller": false}`, as minijinja
    /// serializes a macro); none for a function.
    pub(crate) json: Value,
}

/// What a [`Callable`] calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallTarget {
    /// A macro or `caller` of the render numbered `render`: the renderer's
    /// handle number `handle`.
    Render { render: u64, handle: u32 },
    /// A built-in or host function, found by name in the registry.
    Function,
}

/// An imported template as a value: its top-level macros and variables
/// (`m.title`, `dict(m)`, `m -> tojson`) and the output of its top level
/// (what `[[ m ]]` prints, as minijinja's module prints).
#[derive(Debug)]
pub(crate) struct Module {
    pub(crate) exports: Arc<Map>,
    pub(crate) output: Value,
}

impl Callable {
    /// Whether it is a function (not a macro or `caller`).
    pub(crate) fn is_function(&self) -> bool {
        self.target == CallTarget::Function
    }

    /// `<macro name>` or `<function name>`.
    pub(crate) fn shown(&self) -> String {
        let what = if self.is_function() { "function" } else { "macro" };
        format!("<{what} {}>", self.name)
    }
}

/// What the evaluator checks on every list or map it builds, computed once
/// from the items when the list or map is made.
#[derive(Debug, Clone, Copy, Default)]
struct Shape {
    /// How many levels of lists and maps, this one included.
    depth: usize,
    /// See [`Value::size`].
    size: usize,
    /// Why it cannot be stored as JSON, if it cannot.
    unstorable: Option<&'static str>,
}

impl Shape {
    /// Adds an item that costs `slot` bytes besides its own size.
    fn add(&mut self, item: &Value, slot: usize) {
        let (depth, size, unstorable) = match &item.0 {
            Repr::List(l) => (l.shape.depth, l.shape.size, l.shape.unstorable),
            Repr::Map(m) => (m.shape.depth, m.shape.size, m.shape.unstorable),
            Repr::Int(_) | Repr::Bool(_) | Repr::None => (0, 0, None),
            _ => (item.depth(), item.size(), item.unstorable()),
        };
        self.depth = self.depth.max(depth);
        self.size = self.size.saturating_add(slot).saturating_add(size);
        self.unstorable = self.unstorable.or(unstorable);
    }

    fn close(mut self) -> Shape {
        self.depth = self.depth.saturating_add(1);
        self
    }
}

/// A list's items, with their [`Shape`].
#[derive(Debug, Default)]
pub(crate) struct List {
    items: Vec<Value>,
    shape: Shape,
    /// Names of the items, for a pair like `groupby`'s (`group.grouper`
    /// is `group[0]`, as Python's named tuples): invisible to equality,
    /// ordering and JSON.
    names: &'static [&'static str],
    /// Which Python sequence it stands for: what Python printing shows
    /// and what the Jinja2 profile allows on it (the reference sees a
    /// list in every case).
    kind: ListKind,
}

/// The Python sequence a [`List`] stands for (the Jinja2 profile). To
/// every operation of the reference it is a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ListKind {
    /// A list: `[1, 'a']`.
    #[default]
    List,
    /// A tuple (a parenthesized literal, a `dictsort` or `groupby` pair,
    /// an item of `dict.items()`): `(1, 'a')`, `(1,)`, `()`.
    Tuple,
    /// A generator (what `map` and `select` give there): it iterates as a
    /// list, but has no length, no items by index and no JSON form, and is
    /// true even when empty, as Python's generators.
    Generator,
    /// A dict view (`dict.items()`, `.keys()`, `.values()`): it iterates
    /// and has a length, prints as `dict_items([...])`, and has no JSON
    /// form, as in Python.
    DictView(DictView),
}

/// Which view of a dict a [`ListKind::DictView`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DictView {
    Items,
    Keys,
    Values,
}

impl DictView {
    /// Python's type name: `dict_items`, `dict_keys`, `dict_values`.
    pub(crate) fn type_name(self) -> &'static str {
        match self {
            DictView::Items => "dict_items",
            DictView::Keys => "dict_keys",
            DictView::Values => "dict_values",
        }
    }
}

impl List {
    pub(crate) fn new(items: Vec<Value>) -> List {
        let mut shape = Shape::default();
        for item in &items {
            shape.add(item, JSON_SLOT);
        }
        List { items, shape: shape.close(), names: &[], kind: ListKind::List }
    }

    /// `items` as the Python sequence `kind`.
    pub(crate) fn of_kind(items: Vec<Value>, kind: ListKind) -> List {
        List { kind, ..List::new(items) }
    }

    /// Its items, no longer shared.
    pub(crate) fn into_items(self) -> Vec<Value> {
        self.items
    }

    /// Which Python sequence it stands for.
    pub(crate) fn kind(&self) -> ListKind {
        self.kind
    }

    /// Whether it is a Jinja2-profile generator.
    pub(crate) fn is_generator(&self) -> bool {
        self.kind == ListKind::Generator
    }

    /// A tuple whose items can also be read by the attribute `names[i]`
    /// (Python's named tuples).
    pub(crate) fn named(items: Vec<Value>, names: &'static [&'static str]) -> List {
        List { names, kind: ListKind::Tuple, ..List::new(items) }
    }

    /// The bytes of the list's own slots and of its items that nothing
    /// else shares (see [`Value::owned_size`]).
    pub(crate) fn owned_size(&self) -> usize {
        let slots = SLOT * self.len();
        self.items.iter().fold(slots, |total, item| total.saturating_add(item.owned_size()))
    }
}

impl Deref for List {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        &self.items
    }
}

/// A map's entries, with their [`Shape`].
#[derive(Debug, Default)]
pub(crate) struct Map {
    entries: ValueMap,
    shape: Shape,
    /// Every key is an integer, kept as its decimal text (a Jinja2-profile
    /// literal `{512: 128}`): the keys read back as integers.
    int_keys: bool,
}

impl Map {
    pub(crate) fn new(entries: ValueMap) -> Map {
        let mut shape = Shape::default();
        for (key, value) in &entries {
            shape.add(value, JSON_ENTRY + key.len());
        }
        Map { entries, shape: shape.close(), int_keys: false }
    }

    /// A map whose keys are all integers, written as their decimal text.
    pub(crate) fn with_int_keys(entries: ValueMap) -> Map {
        Map { int_keys: true, ..Map::new(entries) }
    }

    /// Whether its keys are integers ([`Map::with_int_keys`]).
    pub(crate) fn int_keys(&self) -> bool {
        self.int_keys
    }

    /// A key as a value: the integer of an integer-keyed map, else the
    /// string.
    pub(crate) fn key(&self, key: &Arc<str>) -> Value {
        match key.parse::<i64>() {
            Ok(n) if self.int_keys => Value(Repr::Int(n)),
            _ => Value(Repr::Str(key.clone())),
        }
    }
}

impl Deref for Map {
    type Target = ValueMap;

    fn deref(&self) -> &ValueMap {
        &self.entries
    }
}

/// The kind of a [`Value`], for hosts inspecting arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueKind {
    /// A missing variable or item.
    Undefined,
    /// `none` (JSON `null`).
    None,
    /// `true` or `false`.
    Bool,
    /// A 64-bit signed integer.
    Integer,
    /// A 64-bit float.
    Float,
    /// A string.
    String,
    /// A list.
    List,
    /// A map with string keys, in insertion order.
    Map,
    /// A macro defined in the template, or a `call` block's `caller`.
    Macro,
    /// A built-in or host function held by a value (`[% with f = range %]`).
    Function,
    /// An imported template held by a value (`[% import "m.txt" as m %]`).
    Module,
}

impl ValueKind {
    /// The name used in error messages: `string`, `integer`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            ValueKind::Undefined => "undefined",
            ValueKind::None => "none",
            ValueKind::Bool => "boolean",
            ValueKind::Integer => "integer",
            ValueKind::Float => "float",
            ValueKind::String => "string",
            ValueKind::List => "list",
            ValueKind::Map => "map",
            ValueKind::Macro => "macro",
            ValueKind::Function => "function",
            ValueKind::Module => "module",
        }
    }
}

impl Value {
    /// The undefined value (a missing variable).
    pub const UNDEFINED: Value = Value(Repr::Undefined);
    /// The `none` value.
    pub const NONE: Value = Value(Repr::None);

    /// A string literal: every byte authored.
    pub(crate) fn authored(text: &str) -> Value {
        Value(Repr::Text(Arc::new(Text::new(Arc::from(text), Box::new([])))))
    }

    /// Whether every byte is authored (an empty string counts).
    pub(crate) fn is_all_authored(&self) -> bool {
        match &self.0 {
            Repr::Text(text) => text.data().is_empty(),
            Repr::Str(s) => s.is_empty(),
            _ => false,
        }
    }

    pub(crate) fn str(s: &str) -> Value {
        Value(Repr::Str(Arc::from(s)))
    }

    pub(crate) fn string(s: String) -> Value {
        Value(Repr::Str(Arc::from(s)))
    }

    pub(crate) fn list(items: Vec<Value>) -> Value {
        Value(Repr::List(Arc::new(List::new(items))))
    }

    /// A tuple (see [`ListKind::Tuple`]).
    pub(crate) fn tuple(items: Vec<Value>) -> Value {
        Value(Repr::List(Arc::new(List::of_kind(items, ListKind::Tuple))))
    }

    pub(crate) fn map(map: ValueMap) -> Value {
        Value(Repr::Map(Arc::new(Map::new(map))))
    }

    /// The string, shared, when the value is one (data or not).
    pub(crate) fn shared_str(&self) -> Option<&Arc<str>> {
        match &self.0 {
            Repr::Str(s) => Some(s),
            Repr::Text(t) => Some(t.shared()),
            _ => None,
        }
    }

    /// The address of the value's shared allocation, for strings, lists
    /// and maps: two values with the same identity are equal.
    pub(crate) fn identity(&self) -> Option<usize> {
        match &self.0 {
            Repr::Str(_) | Repr::Text(_) => self.shared_str().map(|s| s.as_ptr() as usize),
            Repr::List(l) => Some(Arc::as_ptr(l) as *const u8 as usize),
            Repr::Map(m) => Some(Arc::as_ptr(m) as *const u8 as usize),
            Repr::Module(m) => Some(Arc::as_ptr(m) as *const u8 as usize),
            _ => None,
        }
    }

    /// The same value with its string's bytes all data (a string an
    /// operation builds is data, see [`crate::provenance`]).
    pub(crate) fn into_data(self) -> Value {
        match &self.0 {
            Repr::Text(t) => Value(Repr::Str(t.shared().clone())),
            _ => self,
        }
    }

    /// How many levels of lists and maps the value nests (0 for others).
    pub(crate) fn depth(&self) -> usize {
        match &self.0 {
            Repr::List(l) => l.shape.depth,
            Repr::Map(m) => m.shape.depth,
            Repr::Module(m) => m.exports.shape.depth,
            Repr::Callable(c) => c.json.depth(),
            _ => 0,
        }
    }

    /// About the bytes a copy of the value as JSON holds beyond its own
    /// slot, counting a shared part every time it appears: a string's bytes
    /// (and its data ranges), a list's or map's JSON slots, keys and items.
    /// It is what a write of the value costs the host that applies or
    /// prints it. Saturates at `usize::MAX`.
    pub(crate) fn size(&self) -> usize {
        match &self.0 {
            Repr::Str(s) => s.len(),
            Repr::Callable(c) => c.name.len().saturating_add(c.json.size()),
            Repr::Module(m) => m.exports.shape.size.saturating_add(m.output.size()),
            Repr::Text(t) => t.as_str().len() + RANGE * t.data().len(),
            Repr::List(l) => l.shape.size,
            Repr::Map(m) => m.shape.size,
            _ => 0,
        }
    }

    /// [`Value::size`] below the top level: the string bytes and the slots
    /// of nested lists and maps, which an operation that walks the items
    /// (equality, sorting, summing) visits beyond the items themselves.
    pub(crate) fn nested_size(&self) -> usize {
        match &self.0 {
            Repr::List(l) => l.shape.size.saturating_sub(l.len().saturating_mul(JSON_SLOT)),
            Repr::Map(m) => m.shape.size.saturating_sub(m.len().saturating_mul(JSON_ENTRY)),
            _ => self.size(),
        }
    }

    /// The bytes of the value's allocations that nothing else shares: what
    /// making it cost. Shared parts were counted when they were made (or
    /// belong to the context); only unshared lists and maps are entered.
    pub(crate) fn owned_size(&self) -> usize {
        match &self.0 {
            Repr::Str(s) if Arc::strong_count(s) == 1 => s.len(),
            Repr::Text(t) if Arc::strong_count(t) == 1 => self.size(),
            Repr::List(l) if Arc::strong_count(l) == 1 => l.owned_size(),
            Repr::Map(m) if Arc::strong_count(m) == 1 => {
                m.iter().fold(2 * SLOT * m.len(), |total, (key, value)| {
                    let key = if Arc::strong_count(key) == 1 { key.len() } else { 0 };
                    total.saturating_add(key).saturating_add(value.owned_size())
                })
            }
            _ => 0,
        }
    }

    /// The kind of this value.
    pub fn kind(&self) -> ValueKind {
        match &self.0 {
            Repr::Undefined => ValueKind::Undefined,
            Repr::None => ValueKind::None,
            Repr::Bool(_) => ValueKind::Bool,
            Repr::Int(_) => ValueKind::Integer,
            Repr::Float(_) => ValueKind::Float,
            Repr::Str(_) | Repr::Text(_) => ValueKind::String,
            Repr::List(_) => ValueKind::List,
            Repr::Map(_) => ValueKind::Map,
            Repr::Callable(c) if c.is_function() => ValueKind::Function,
            Repr::Callable(_) => ValueKind::Macro,
            Repr::Module(_) => ValueKind::Module,
        }
    }

    /// Whether the value is undefined.
    pub fn is_undefined(&self) -> bool {
        matches!(self.0, Repr::Undefined)
    }

    /// Whether the value is none or undefined.
    pub fn is_none_or_undefined(&self) -> bool {
        matches!(self.0, Repr::Undefined | Repr::None)
    }

    /// Truthiness: `false`, `0`, `0.0`, `""`, empty lists and maps, none and
    /// undefined are false; everything else is true.
    pub fn is_true(&self) -> bool {
        match &self.0 {
            Repr::Undefined | Repr::None => false,
            Repr::Bool(b) => *b,
            Repr::Int(n) => *n != 0,
            Repr::Float(f) => *f != 0.0,
            Repr::Str(s) => !s.is_empty(),
            Repr::Text(t) => !t.as_str().is_empty(),
            Repr::List(l) => l.is_generator() || !l.is_empty(),
            Repr::Map(m) => !m.is_empty(),
            Repr::Callable(_) | Repr::Module(_) => true,
        }
    }

    /// The string, when the value is one.
    pub fn as_str(&self) -> Option<&str> {
        self.shared_str().map(|s| &**s)
    }

    /// The integer, when the value is one (an integral float is not).
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            Repr::Int(n) => Some(n),
            _ => None,
        }
    }

    /// The number as a float, when the value is an integer or a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self.0 {
            Repr::Int(n) => Some(n as f64),
            Repr::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The items `for` and the list filters see: a list's own, a string's
    /// characters (each a data string), a map's keys; none for none and
    /// undefined. A string or a map gives a new list, refused before it is
    /// made when it would have more than `max_items` items.
    pub(crate) fn items(&self, max_items: usize) -> Result<Arc<List>, NoItems> {
        let fresh = |items: Vec<Value>| Ok(Arc::new(List::new(items)));
        match &self.0 {
            Repr::List(items) => Ok(items.clone()),
            Repr::Map(map) if map.len() > max_items => Err(NoItems::TooMany(map.len())),
            Repr::Map(map) => fresh(map.keys().map(|k| map.key(k)).collect()),
            Repr::Module(m) if m.exports.len() > max_items => {
                Err(NoItems::TooMany(m.exports.len()))
            }
            Repr::Module(m) => {
                fresh(m.exports.keys().map(|k| Value(Repr::Str(k.clone()))).collect())
            }
            Repr::Undefined | Repr::None => fresh(Vec::new()),
            _ => {
                let Some(s) = self.as_str() else { return Err(NoItems::Kind) };
                let count = s.chars().count();
                if count > max_items {
                    return Err(NoItems::TooMany(count));
                }
                let mut buf = [0; 4];
                fresh(s.chars().map(|c| Value::str(c.encode_utf8(&mut buf))).collect())
            }
        }
    }

    /// The items, when the value is a list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match &self.0 {
            Repr::List(l) => Some(l),
            _ => None,
        }
    }

    /// The item under `key`, when the value is a map holding it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            // Small maps (most template data) are faster to scan than hash.
            Repr::Map(m) if m.len() <= 8 => m.iter().find(|(k, _)| &***k == key).map(|(_, v)| v),
            Repr::Map(m) => m.get(key),
            Repr::List(l) => l.names.iter().position(|n| *n == key).and_then(|i| l.get(i)),
            Repr::Module(m) => m.exports.get(key),
            _ => None,
        }
    }

    /// The keys and values, in order, when the value is a map.
    pub fn entries(&self) -> Option<impl Iterator<Item = (&str, &Value)>> {
        match &self.0 {
            Repr::Map(m) => Some(m.iter().map(|(k, v)| (&**k, v))),
            _ => None,
        }
    }

    /// The value read from JSON: `null` is none, integers integers, other
    /// numbers floats, arrays lists and objects maps (key order kept).
    ///
    /// The values built count against the default memory limit
    /// ([`Limits::memory_limit`](crate::Limits::memory_limit), 128 MiB), as
    /// they are built: past it, nothing more is built.
    ///
    /// ```
    /// use minijinja_brackets::Value;
    ///
    /// let value = Value::from_json(&serde_json::json!({"a": [1, null, "x"]}))?;
    /// assert_eq!(value.to_string(), r#"{"a":[1,null,"x"]}"#);
    /// # Ok::<(), minijinja_brackets::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An `invalid_operation` error for an integer outside the 64-bit signed
    /// range (serde_json keeps those up to `u64::MAX` as integers): never a
    /// float. serde_json itself reads a larger integer literal as the
    /// nearest float; read JSON text with [`Context::from_json`](crate::Context::from_json)
    /// to have such a literal rejected at its line and column. A
    /// `memory_limit` error, naming where inside the value it stopped, when
    /// the values would take more than the limit.
    pub fn from_json(json: &serde_json::Value) -> Result<Value, Error> {
        let mut budget = Budget::new(crate::Limits::default().memory_limit);
        Value::from_json_within(json, false, &mut budget).map_err(|err| err.into_error("the value"))
    }

    /// As [`Value::from_json`], counting what it builds in `budget` (the
    /// engine's own sizes: [`SLOT`] a list's item, [`ENTRY`] a map entry,
    /// [`LIST`] and [`MAP`] each list and map, a string's or key's text
    /// and its shared allocation, [`SHARED`]) before building it; with
    /// `authored`, every string in it is authored (a variable the
    /// application chose, not data).
    pub(crate) fn from_json_within(
        json: &serde_json::Value,
        authored: bool,
        budget: &mut Budget,
    ) -> Result<Value, Converted> {
        use serde_json::Value as J;
        let over = |over| Converted::Over(String::new(), over);
        Ok(match json {
            J::Null => Value::NONE,
            J::Bool(b) => Value(Repr::Bool(*b)),
            J::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Value(Repr::Int(i)),
                (None, Some(big)) => {
                    return Err(Converted::Invalid(Error::new(
                        ErrorKind::InvalidOperation,
                        format!("the integer {big} does not fit in 64 bits"),
                    )));
                }
                (None, None) => Value(Repr::Float(n.as_f64().unwrap_or(f64::NAN))),
            },
            J::String(s) => {
                budget.charge(SHARED.saturating_add(s.len())).map_err(over)?;
                if authored && !s.is_empty() { Value::authored(s) } else { Value::str(s) }
            }
            // Sized up front (collecting into a `Result` gives the
            // collection no length, so it grew and rehashed as it filled),
            // once the slots are counted.
            J::Array(items) => {
                let slots = items.len().saturating_mul(SLOT).saturating_add(LIST);
                budget.charge(slots).map_err(over)?;
                let mut list = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let item = Value::from_json_within(item, authored, budget);
                    list.push(item.map_err(|err| err.inside(&format!("[{i}]")))?);
                }
                Value::list(list)
            }
            J::Object(map) => {
                let entries = map.len().saturating_mul(ENTRY).saturating_add(MAP);
                budget.charge(entries).map_err(over)?;
                let mut out = ValueMap::with_capacity(map.len());
                for (key, item) in map {
                    let item = budget
                        .charge(SHARED.saturating_add(key.len()))
                        .map_err(over)
                        .and_then(|()| Value::from_json_within(item, authored, budget));
                    let item = item.map_err(|err| err.inside(&step(key)))?;
                    out.insert(Arc::from(key.as_str()), item);
                }
                Value::map(out)
            }
        })
    }

    /// The value as JSON.
    ///
    /// # Errors
    ///
    /// An `invalid_operation` error when the value (or an item inside it)
    /// has no JSON form: undefined, a macro, a function, a module, a float
    /// that is not finite.
    pub fn to_json(&self) -> Result<serde_json::Value, Error> {
        match self.unstorable() {
            Some(why) => Err(Error::new(ErrorKind::InvalidOperation, why)),
            None => Ok(self.json()),
        }
    }

    /// Why the value cannot be stored as JSON, if it cannot.
    pub(crate) fn unstorable(&self) -> Option<&'static str> {
        match &self.0 {
            Repr::Undefined => Some("an undefined value cannot be stored"),
            Repr::Callable(c) if c.is_function() => Some("a function cannot be stored"),
            Repr::Callable(_) => Some("a macro cannot be stored"),
            Repr::Module(_) => Some("a module (an imported template) cannot be stored"),
            Repr::Float(x) if !x.is_finite() => Some("a float that is not finite cannot be stored"),
            Repr::List(l) => l.shape.unstorable,
            Repr::Map(m) => m.shape.unstorable,
            _ => None,
        }
    }

    /// Why the value cannot be stored as JSON, and where inside it the first
    /// part without a JSON form is: `.name` and `[index]` steps from the
    /// value (empty for the value itself), as the part would be read
    /// (`.previtem` of a stored `loop`). Keys that are not plain names are
    /// quoted, and a step is cut at 64 characters: the path is for a
    /// message.
    pub(crate) fn unstorable_part(&self) -> Option<(String, &'static str)> {
        let mut path = String::new();
        let mut value = self;
        loop {
            let next = match &value.0 {
                Repr::List(list) if list.shape.unstorable.is_some() => list
                    .iter()
                    .enumerate()
                    .find(|(_, item)| item.unstorable().is_some())
                    .map(|(i, item)| (format!("[{i}]"), item)),
                Repr::Map(map) if map.shape.unstorable.is_some() => map
                    .iter()
                    .find(|(_, item)| item.unstorable().is_some())
                    .map(|(key, item)| (step(key), item)),
                _ => return value.unstorable().map(|why| (path, why)),
            };
            let (step, item) = next?;
            path.push_str(&step);
            value = item;
        }
    }

    /// The JSON form; values without one (see [`Value::unstorable`]) become
    /// `null`.
    pub(crate) fn json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.0 {
            Repr::Undefined | Repr::None => J::Null,
            Repr::Callable(c) => c.json.json(),
            Repr::Module(m) => Value(Repr::Map(m.exports.clone())).json(),
            Repr::Bool(b) => J::Bool(*b),
            Repr::Int(n) => J::from(*n),
            Repr::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Repr::Str(s) => J::String(s.to_string()),
            Repr::Text(t) => J::String(t.as_str().to_owned()),
            Repr::List(items) => J::Array(items.iter().map(Value::json).collect()),
            Repr::Map(map) => {
                J::Object(map.iter().map(|(k, v)| (k.to_string(), v.json())).collect())
            }
        }
    }

    /// Orders two numbers (booleans as 0 and 1) numerically or two strings
    /// by code point; `None` for any other pair (and for NaN).
    pub(crate) fn compare(&self, other: &Value) -> Option<Ordering> {
        // Booleans order as 0 and 1, as they compare equal to them.
        let number = |v: &Value| match v.0 {
            Repr::Bool(b) => Some(f64::from(u8::from(b))),
            _ => v.as_f64(),
        };
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => Some(a.cmp(b)),
            (Repr::Bool(_), _) | (_, Repr::Bool(_)) => number(self)?.partial_cmp(&number(other)?),
            _ => match (self.as_str(), other.as_str()) {
                (Some(a), Some(b)) => Some(a.cmp(b)),
                _ => self.as_f64()?.partial_cmp(&other.as_f64()?),
            },
        }
    }

    /// Appends the print form to `out` (see the type docs), or fails with
    /// `TooLong` once `out` would pass `max` bytes (then `out` holds part of
    /// it, and never more than `max` bytes). Each piece is measured before
    /// it is written, so nothing larger than the bound is ever built.
    pub(crate) fn write_printed(&self, out: &mut String, max: usize) -> Result<(), TooLong> {
        if python::python() {
            return python::write_str(self, out, max);
        }
        match &self.0 {
            Repr::Undefined | Repr::None => Ok(()),
            Repr::List(_) | Repr::Map(_) => self.write_json(out, None, max),
            Repr::Module(m) => m.output.write_printed(out, max),
            _ => match self.as_str() {
                Some(s) => {
                    if out.len().saturating_add(s.len()) > max {
                        return Err(TooLong);
                    }
                    out.push_str(s);
                    Ok(())
                }
                None => {
                    let start = out.len();
                    let _ = write!(out, "{}", Scalar(self));
                    if out.len() > max {
                        out.truncate(start);
                        return Err(TooLong);
                    }
                    Ok(())
                }
            },
        }
    }

    /// Appends the value as JSON, bounded as [`Value::write_printed`] is.
    /// `pretty` is `None` for the compact print form (`[1,"a"]`),
    /// `Some(None)` for `tojson`'s spaced single line (`[1, "a"]`) and
    /// `Some(Some(n))` for `n`-space indentation.
    pub(crate) fn write_json(
        &self,
        out: &mut String,
        pretty: Option<Option<usize>>,
        max: usize,
    ) -> Result<(), TooLong> {
        JsonWriter { out, pretty, max }.value(self, 0)
    }
}

/// Why [`Value::items`] gave no items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoItems {
    /// A number, a boolean or a macro.
    Kind,
    /// A string with this many characters, or a map with this many keys,
    /// more than a list may hold.
    TooMany(usize),
}

impl NoItems {
    /// The message: `{not_items} {kind}` (e.g. "cannot iterate over
    /// integer") for a value without items, the count and the limit for
    /// one with too many.
    pub(crate) fn message(self, value: &Value, not_items: &str, max_items: usize) -> String {
        match self {
            NoItems::Kind => format!("{not_items} {}", value.kind().as_str()),
            NoItems::TooMany(count) => {
                let what = if value.as_str().is_some() { "characters" } else { "keys" };
                format!(
                    "the {} has {count} {what}, more than the limit of {max_items} items \
                     for a list",
                    value.kind().as_str()
                )
            }
        }
    }
}

/// A text would grow past its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong;

/// Writes JSON into `out`, failing once it passes `max` bytes.
struct JsonWriter<'o> {
    out: &'o mut String,
    pretty: Option<Option<usize>>,
    max: usize,
}

impl JsonWriter<'_> {
    /// Fails when `bytes` more would pass the bound.
    fn room(&self, bytes: usize) -> Result<(), TooLong> {
        if self.out.len().saturating_add(bytes) > self.max { Err(TooLong) } else { Ok(()) }
    }

    fn push(&mut self, s: &str) -> Result<(), TooLong> {
        self.room(s.len())?;
        self.out.push_str(s);
        Ok(())
    }

    /// A number, written then taken back when it does not fit.
    fn number(&mut self, n: impl fmt::Display) -> Result<(), TooLong> {
        let start = self.out.len();
        let _ = write!(self.out, "{n}");
        if self.out.len() > self.max {
            self.out.truncate(start);
            return Err(TooLong);
        }
        Ok(())
    }

    fn newline(&mut self, level: usize) -> Result<(), TooLong> {
        if let Some(Some(width)) = self.pretty {
            let spaces = width.saturating_mul(level);
            self.room(spaces.saturating_add(1))?;
            self.out.push('\n');
            self.out.extend(std::iter::repeat_n(' ', spaces));
        }
        Ok(())
    }

    fn value(&mut self, value: &Value, level: usize) -> Result<(), TooLong> {
        let (item_sep, key_sep) = match self.pretty {
            None => (",", ":"),
            Some(None) => (", ", ": "),
            Some(Some(_)) => (",", ": "),
        };
        match &value.0 {
            Repr::Undefined | Repr::None => self.push("null"),
            Repr::Callable(c) => self.value(&c.json, level),
            Repr::Module(m) => self.value(&Value(Repr::Map(m.exports.clone())), level),
            Repr::Bool(b) => self.push(if *b { "true" } else { "false" }),
            Repr::Int(n) => self.number(n),
            Repr::Float(f) => match serde_json::Number::from_f64(*f) {
                Some(n) => self.number(n),
                None => self.push("null"),
            },
            Repr::Str(s) => self.string(s),
            Repr::Text(t) => self.string(t.as_str()),
            Repr::List(items) => {
                self.push("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.push(item_sep)?;
                    }
                    self.newline(level + 1)?;
                    self.value(item, level + 1)?;
                }
                if !items.is_empty() {
                    self.newline(level)?;
                }
                self.push("]")
            }
            Repr::Map(map) => {
                self.push("{")?;
                for (i, (key, value)) in map.iter().enumerate() {
                    if i > 0 {
                        self.push(item_sep)?;
                    }
                    self.newline(level + 1)?;
                    self.string(key)?;
                    self.push(key_sep)?;
                    self.value(value, level + 1)?;
                }
                if !map.is_empty() {
                    self.newline(level)?;
                }
                self.push("}")
            }
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else (non-ASCII included) kept as is. Measured
    /// before it is written.
    fn string(&mut self, s: &str) -> Result<(), TooLong> {
        self.room(json_string_len(s))?;
        write_json_string(self.out, s);
        Ok(())
    }
}

/// Whether a byte is escaped in a JSON string literal.
fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The length of `s` as a JSON string literal.
fn json_string_len(s: &str) -> usize {
    let escapes: usize = s
        .bytes()
        .filter(|&b| escaped(b))
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            _ => 5,
        })
        .sum();
    s.len() + escapes + 2
}

/// A JSON string literal: quotes, backslashes and control characters
/// escaped, everything else (non-ASCII included) kept as is; runs without
/// escapes are copied whole.
fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut rest = s;
    while let Some(at) = rest.bytes().position(escaped) {
        out.push_str(&rest[..at]);
        match rest.as_bytes()[at] {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push('"');
}

/// Structural equality: an integer equals the float of the same value;
/// different kinds are unequal; strings compare by text (provenance is
/// invisible); lists and maps compare item by item.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (&self.0, &other.0) {
            (Repr::Undefined, Repr::Undefined) | (Repr::None, Repr::None) => true,
            (Repr::Bool(a), Repr::Bool(b)) => a == b,
            (Repr::Int(a), Repr::Int(b)) => a == b,
            // As in Jinja and minijinja: `true == 1`, `false == 0.0`.
            (Repr::Bool(b), Repr::Int(_) | Repr::Float(_)) => {
                Some(f64::from(u8::from(*b))) == other.as_f64()
            }
            (Repr::Int(_) | Repr::Float(_), Repr::Bool(b)) => {
                self.as_f64() == Some(f64::from(u8::from(*b)))
            }
            (Repr::Int(_) | Repr::Float(_), Repr::Int(_) | Repr::Float(_)) => {
                self.as_f64() == other.as_f64()
            }
            (Repr::Callable(a), Repr::Callable(b)) => a.target == b.target && a.name == b.name,
            (Repr::Module(a), Repr::Module(b)) => Arc::ptr_eq(a, b),
            (Repr::List(a), Repr::List(b)) => Arc::ptr_eq(a, b) || a.items == b.items,
            (Repr::Map(a), Repr::Map(b)) => Arc::ptr_eq(a, b) || a.entries == b.entries,
            _ => match (self.as_str(), other.as_str()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}

/// The print form (see the type docs).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if python::python() {
            let mut out = String::new();
            let _ = python::write_str(self, &mut out, usize::MAX);
            return f.write_str(&out);
        }
        match &self.0 {
            Repr::Module(m) => fmt::Display::fmt(&m.output, f),
            Repr::List(_) | Repr::Map(_) => {
                let mut out = String::new();
                let _ = self.write_json(&mut out, None, usize::MAX);
                f.write_str(&out)
            }
            _ => match self.as_str() {
                Some(s) => f.write_str(s),
                None => fmt::Display::fmt(&Scalar(self), f),
            },
        }
    }
}

/// The print form of a value that is neither a string, a list nor a map.
struct Scalar<'v>(&'v Value);

impl fmt::Display for Scalar<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.0 {
            Repr::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            Repr::Int(n) => write!(f, "{n}"),
            Repr::Float(x) => write_float(f, *x),
            Repr::Callable(c) => f.write_str(&c.shown()),
            _ => Ok(()),
        }
    }
}

/// Shortest round-trip decimal; integral floats without `.0`; very large or
/// very small magnitudes in exponent form (`1e21`, `1e-7`).
fn write_float(f: &mut fmt::Formatter<'_>, x: f64) -> fmt::Result {
    let magnitude = x.abs();
    if x.is_finite() && x != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        write!(f, "{x:e}")
    } else if x == 0.0 {
        f.write_str(if x.is_sign_negative() { "-0" } else { "0" })
    } else {
        write!(f, "{x}")
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Undefined => f.write_str("undefined"),
            Repr::None => f.write_str("none"),
            Repr::Callable(c) => f.write_str(&c.shown()),
            Repr::Module(_) => f.write_str("<module>"),
            _ => match self.as_str() {
                Some(s) => write!(f, "{s:?}"),
                None => fmt::Display::fmt(self, f),
            },
        }
    }
}

/// Serializes as the JSON form (see [`Value::to_json`]), streamed: nothing
/// is copied. Values without a JSON form serialize as `null`.
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Undefined | Repr::None => serializer.serialize_unit(),
            Repr::Callable(c) => c.json.serialize(serializer),
            Repr::Module(m) => Value(Repr::Map(m.exports.clone())).serialize(serializer),
            Repr::Bool(b) => serializer.serialize_bool(*b),
            Repr::Int(n) => serializer.serialize_i64(*n),
            Repr::Float(x) if x.is_finite() => serializer.serialize_f64(*x),
            Repr::Float(_) => serializer.serialize_unit(),
            Repr::Str(s) => serializer.serialize_str(s),
            Repr::Text(t) => serializer.serialize_str(t.as_str()),
            Repr::List(items) => serializer.collect_seq(items.iter()),
            Repr::Map(map) => serializer.collect_map(map.iter().map(|(k, v)| (&**k, v))),
        }
    }
}

/// Deserializes any JSON value, as [`Value::from_json`] reads it.
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        let json = serde_json::Value::deserialize(deserializer)?;
        Value::from_json(&json).map_err(serde::de::Error::custom)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value(Repr::Bool(b))
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value(Repr::Int(n))
    }
}

impl From<i32> for Value {
    fn from(n: i32) -> Value {
        Value(Repr::Int(n.into()))
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        i64::try_from(n).map_or(Value(Repr::Float(n as f64)), Value::from)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value(Repr::Float(x))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::str(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::string(s)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Value {
        Value::list(items)
    }
}

impl FromIterator<(String, Value)> for Value {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Value {
        Value::map(iter.into_iter().map(|(k, v)| (Arc::from(k), v)).collect())
    }
}

impl TryFrom<&serde_json::Value> for Value {
    type Error = Error;

    /// See [`Value::from_json`].
    fn try_from(json: &serde_json::Value) -> Result<Value, Error> {
        Value::from_json(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converting_json_counts_every_value_before_building_it() {
        let json = serde_json::json!({"a": [1, "xy", {"k": null}], "b": ""});
        let cost = |limit| {
            let mut budget = Budget::new(limit);
            Value::from_json_within(&json, false, &mut budget).map(|_| budget.spent())
        };
        // The map (two entries, keys of 1 byte each), the list (three
        // slots), "xy", the inner map, "".
        let key = SHARED + 1;
        let expected = MAP
            + 2 * ENTRY
            + 2 * key
            + (LIST + 3 * SLOT)
            + (SHARED + 2)
            + (MAP + ENTRY + key)
            + SHARED;
        assert_eq!(cost(usize::MAX).unwrap(), expected);
        assert!(cost(expected).is_ok());
        // One byte less: refused, saying where inside the value.
        let Err(Converted::Over(path, over)) = cost(expected - 1) else { panic!() };
        assert_eq!((path.as_str(), over.limit()), (".b", expected - 1));
        let Err(Converted::Over(path, _)) = cost(expected - SHARED - key - 1) else { panic!() };
        assert_eq!(path, ".a[2].k");
        let Err(Converted::Over(path, _)) = cost(40) else { panic!() };
        assert_eq!(path, "");
        let Err(Converted::Over(path, _)) = cost(MAP + 2 * ENTRY + key + 16) else { panic!() };
        assert_eq!(path, ".a");
        // The error names the value and the place; the default limit
        // holds for `Value::from_json`.
        let err = Converted::Over("[3][\"a b\"]".into(), Budget::new(9).charge(10).unwrap_err())
            .into_error("x");
        assert_eq!(err.kind(), ErrorKind::MemoryLimit);
        assert_eq!(
            err.message(),
            "x would take more than the memory limit of 9 bytes as values (at `[3][\"a b\"]`)"
        );
        assert!(Value::from_json(&json).is_ok());
    }

    #[test]
    fn printing_rules() {
        let cases: [(Value, &str); 8] = [
            (Value::from(2.0), "2"),
            (Value::from(0.25), "0.25"),
            (Value::from(1e21), "1e21"),
            (Value::from(true), "true"),
            (Value::NONE, ""),
            (Value::UNDEFINED, ""),
            (
                Value::from_json(&serde_json::json!({"a": [1, null, "x\"y"]})).unwrap(),
                r#"{"a":[1,null,"x\"y"]}"#,
            ),
            (Value::from(-0.0), "-0"),
        ];
        for (value, printed) in cases {
            assert_eq!(value.to_string(), printed, "{value:?}");
        }
    }

    #[test]
    fn equality_and_order() {
        assert_eq!(Value::from(1), Value::from(1.0));
        assert_ne!(Value::from(1), Value::from("1"));
        assert_eq!(Value::from("b").compare(&Value::from("a")), Some(Ordering::Greater));
        assert_eq!(Value::from(1).compare(&Value::from(1.5)), Some(Ordering::Less));
        assert_eq!(Value::from(1).compare(&Value::from("1")), None);
    }

    #[test]
    fn json_round_trip_keeps_kinds_and_order() {
        let json = serde_json::json!({"z": 1, "a": [2.5, true, null], "m": {"k": "v"}});
        let value = Value::from_json(&json).unwrap();
        assert_eq!(value.to_json(), Ok(json));
        let err = Value::from(vec![Value::from(1), Value::UNDEFINED]).to_json().unwrap_err();
        assert_eq!(err.message(), "an undefined value cannot be stored");
        assert!(Value::UNDEFINED.to_json().is_err());
        assert!(Value::from(f64::INFINITY).to_json().is_err());
    }

    #[test]
    fn tojson_layouts() {
        let value = Value::from_json(&serde_json::json!({"a": 1, "b": [true, null]})).unwrap();
        let mut spaced = String::new();
        value.write_json(&mut spaced, Some(None), usize::MAX).unwrap();
        assert_eq!(spaced, r#"{"a": 1, "b": [true, null]}"#);
        let mut indented = String::new();
        value.write_json(&mut indented, Some(Some(2)), usize::MAX).unwrap();
        assert_eq!(indented, "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}");
    }

    #[test]
    fn conversions_stop_at_their_bound() {
        // One 1 000-byte string shared by a list of 2^20 items: a gigabyte
        // as text, stopped after the first kilobytes.
        let mut big = Value::list(vec![Value::from("x".repeat(1000))]);
        let mut size = JSON_SLOT + 1000;
        for _ in 0..20 {
            big = Value::list(vec![big.clone(), big]);
            size = 2 * (JSON_SLOT + size);
        }
        // Counted as if nothing were shared, without a walk.
        assert_eq!(big.size(), size);
        assert!(size > 1 << 30);
        let mut out = String::new();
        assert_eq!(big.write_json(&mut out, Some(Some(2)), 10_000), Err(TooLong));
        assert!(out.len() <= 10_000, "{}", out.len());
        let mut out = String::new();
        assert_eq!(big.write_printed(&mut out, 4_000), Err(TooLong));
        assert!(out.len() <= 4_000, "{}", out.len());
        let mut out = "ab".to_owned();
        assert_eq!(Value::from(12345).write_printed(&mut out, 4), Err(TooLong));
        assert_eq!(out, "ab");
        // A string is measured before it is copied, escapes included.
        let mut out = String::new();
        assert_eq!(Value::from("\n\n").write_json(&mut out, None, 5), Err(TooLong));
        assert_eq!(out, "");
        assert_eq!(Value::from("\n\n").write_json(&mut out, None, 6), Ok(()));
        assert_eq!(out, r#""\n\n""#);
        let mut out = String::new();
        assert_eq!(Value::from("\u{1}").write_json(&mut out, None, 8), Ok(()));
        assert_eq!(out.len(), json_string_len("\u{1}"));
    }

    #[test]
    fn shapes_are_known_without_a_walk() {
        let leaf = Value::from("abc");
        let list = Value::list(vec![leaf.clone(), Value::list(vec![leaf.clone()])]);
        assert_eq!(list.depth(), 2);
        assert_eq!(list.size(), 3 + JSON_SLOT + (3 + JSON_SLOT) + JSON_SLOT);
        let map = Value::from_json(&serde_json::json!({"key": "abc"})).unwrap();
        assert_eq!(map.size(), JSON_ENTRY + 3 + 3);
        let bad = Value::list(vec![Value::list(vec![Value::UNDEFINED])]);
        assert_eq!(bad.unstorable(), Some("an undefined value cannot be stored"));
        // Shared parts are not owned: only the new list's slots are.
        assert_eq!(list.owned_size(), 2 * SLOT + SLOT);
        let fresh = Value::list(vec![Value::from("abcd")]);
        assert_eq!(fresh.owned_size(), SLOT + 4);
    }

    #[test]
    fn provenance_is_invisible_to_comparisons_and_json() {
        let authored = Value::authored("hi");
        let data = Value::from("hi");
        assert_eq!(authored, data);
        assert_eq!(authored.compare(&data), Some(Ordering::Equal));
        assert_eq!(authored.to_json(), data.to_json());
        assert_eq!(serde_json::to_string(&authored).unwrap(), r#""hi""#);
        assert_eq!(authored.kind(), ValueKind::String);
        assert!(authored.is_true());
        assert!(matches!(authored.into_data().0, Repr::Str(_)));
    }

    #[test]
    fn serializing_streams_the_json_form() {
        let json = serde_json::json!({"z": 1, "a": [2.5, true, null, 2.0], "m": {"k": "v"}});
        let value = Value::from_json(&json).unwrap();
        assert_eq!(serde_json::to_value(&value).unwrap(), json);
        assert_eq!(serde_json::to_string(&value).unwrap(), serde_json::to_string(&json).unwrap());
        let back: Value = serde_json::from_str(r#"{"a": [1]}"#).unwrap();
        assert_eq!(back, Value::from_json(&serde_json::json!({"a": [1]})).unwrap());
        assert_eq!(serde_json::to_string(&Value::from(f64::NAN)).unwrap(), "null");
    }

    /// Lists and maps are converted item by item in order; an item that
    /// has no value (an integer past 64 bits) fails the whole conversion,
    /// however deep.
    #[test]
    fn json_converts_in_order_and_fails_inside() {
        let json = serde_json::json!({"z": [1, {"b": 2, "a": [3]}], "y": "s", "x": []});
        let value = Value::from_json(&json).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), serde_json::to_string(&json).unwrap());
        let err = Value::from_json(&serde_json::json!({"a": [1, {"b": u64::MAX}]})).unwrap_err();
        assert_eq!(err.message(), format!("the integer {} does not fit in 64 bits", u64::MAX));
    }
}
