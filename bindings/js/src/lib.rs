//! The npm package `prompt-suite`: a translation layer over the
//! prompt-suite facade, compiled to WebAssembly (JavaScript values in, Rust
//! types out, and back). No behaviour lives here: every rule is the Rust
//! crates'.
//!
//! Built by `cargo xtask wasm` (wasm-bindgen, then wasm-opt) into
//! `bindings/js/pkg/`. This crate is the low-level module the package's
//! JavaScript (`bindings/js/js/api.js`) wraps: values cross as JSON text
//! (the JavaScript side checks their types and writes it; the Rust side
//! reads it with prompt-core's strict reader), errors cross as a
//! [`error::Failure`] the JavaScript side turns into `PromptSuiteError`,
//! and the host's filters, tests and functions are called back through
//! `host.js` by number (`host.rs`).

mod chat;
mod convert;
mod error;
mod host;
mod pipeline;
mod stages;
mod template;

use wasm_bindgen::prelude::wasm_bindgen;

pub use crate::chat::Chat;
pub use crate::error::Failure;
pub use crate::pipeline::{build, convert};
pub use crate::stages::{comments, flip, segment};
pub use crate::template::{Env, History, Tpl};

/// The workspace version, the package's `version`.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// How deep the JSON of a value may nest (prompt-core's strict reader):
/// the JavaScript side refuses deeper values before writing them.
#[wasm_bindgen(js_name = jsonMaxDepth)]
pub fn json_max_depth() -> usize {
    prompt_core::json::MAX_DEPTH
}
