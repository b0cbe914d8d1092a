//! What a render takes in ([`Context`]) and gives back ([`Rendered`]).

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
