//! What a render takes in ([`Context`]) and gives back ([`Rendered`], or
//! the lighter [`Outcome`]).

use serde::{Deserialize, Serialize};

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreWrite {
    /// The store written.
    pub scope: Scope,
    /// The variable's name.
    pub name: String,
    /// The value written.
    pub value: serde_json::Value,
}

/// A side effect the template requests; the host runs it after a
/// successful render. `{"kind": "qr", "name": ...}` or
/// `{"kind": "st", "command": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Effect {
    /// `[% qr "name" %]`: trigger the Quick Reply with this name.
    Qr {
        /// The Quick Reply's name.
        name: String,
    },
    /// `[% st "/cmd" %]`: run this slash-command script.
    St {
        /// The script.
        command: String,
    },
}

/// The result of a successful render: the text, the three stores after
/// rendering (complete), the writes in order, and the effects in order.
///
/// Serializes in the command line's `--json` shape and key order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Rendered {
    /// The rendered text.
    pub output: String,
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
    /// Every assignment, in order.
    pub writes: Vec<StoreWrite>,
    /// Every `qr`/`st` request, in order.
    pub effects: Vec<Effect>,
}

impl Outcome {
    /// Applies the writes, in order, to `context`: afterwards it holds the
    /// stores a [`Rendered`] of the same render would.
    pub fn apply_to(&self, context: &mut Context) {
        for write in &self.writes {
            context.store_mut(write.scope).insert(write.name.clone(), write.value.clone());
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
            state,
            local,
            global,
            writes: self.writes,
            effects: self.effects,
        }
    }
}
