//! The suite's errors as one JavaScript-facing value, in one place
//! (minijinja-py's `error_support.rs`): a [`Failure`] holds a diagnostic's
//! kind, message, line, column and snippet and its drawing by prompt-core's
//! one renderer (`annotated`, without colour). The package's JavaScript
//! turns it into a `PromptSuiteError`.

use prompt_core::annotated::Annotated;
use wasm_bindgen::prelude::wasm_bindgen;

/// A failed call: thrown by every fallible export, read by the package's
/// JavaScript into a `PromptSuiteError`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Failure {
    annotated: Annotated,
}

#[wasm_bindgen]
impl Failure {
    /// The snake_case kind (the CLI's kind strings).
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.annotated.kind().to_owned()
    }

    /// The message alone, without position.
    #[wasm_bindgen(getter)]
    pub fn reason(&self) -> String {
        self.annotated.message().to_owned()
    }

    /// The 1-based line, when placed.
    #[wasm_bindgen(getter)]
    pub fn line(&self) -> Option<u32> {
        self.annotated.line().map(saturate)
    }

    /// The 1-based column (characters), when placed.
    #[wasm_bindgen(getter)]
    pub fn column(&self) -> Option<u32> {
        self.annotated.column().map(saturate)
    }

    /// Which text the position is in, when it is named: `<input>` (the
    /// template or prompt given), `<rendered>` (the narrative a template
    /// rendered), `<transcript>`, or a template's name.
    #[wasm_bindgen(getter)]
    pub fn origin(&self) -> Option<String> {
        self.annotated.origin().map(str::to_owned)
    }

    /// The offending text, when placed.
    #[wasm_bindgen(getter)]
    pub fn snippet(&self) -> Option<String> {
        self.annotated.snippet().map(str::to_owned)
    }

    /// The drawing for people: `error[kind]: message`, where, the source
    /// line underlined, the help line (no colour, no final newline).
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> String {
        self.annotated.to_string()
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl From<Annotated> for Failure {
    fn from(annotated: Annotated) -> Failure {
        Failure { annotated }
    }
}

/// An argument the binding cannot take (an unknown syntax name, a wrong
/// option): kind `invalid_argument`.
pub(crate) fn invalid(message: impl Into<String>) -> Failure {
    Failure::from(Annotated::new("invalid_argument", message))
}

/// The result of every export.
pub(crate) type Result<T> = std::result::Result<T, Failure>;
