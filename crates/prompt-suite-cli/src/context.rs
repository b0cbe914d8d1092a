//! What the template-rendering subcommands (`render`, `check`, `build`,
//! `batch`) share: the `--context` file and the seed used without `--seed`.

use std::hash::{BuildHasher, Hasher};
use std::path::Path;

use prompt_suite::brackets::Context;

use crate::diagnostic::Diagnostic;
use crate::input::Input;

/// The stores in the `--context` file (`{"state", "local", "global"}`, each
/// optional), or empty stores without one.
pub(crate) fn read_context(path: Option<&Path>) -> Result<Context, Diagnostic> {
    match path {
        Some(path) => Input::read(Some(path))?.json(),
        None => Ok(Context::default()),
    }
}

/// A value given on the command line: parsed as JSON when it is JSON
/// (strictly: `3`, `null`, `"quoted"`, `{"a": 1}`), else the text as a
/// string (`hello`).
///
/// # Errors
///
/// `invalid_json` for text that is JSON but not strict JSON (a key repeated
/// in an object, an integer outside 64 bits): it was meant as JSON, and
/// taking it as a string would silently change it.
pub(crate) fn json_or_string(text: &str) -> Result<serde_json::Value, Diagnostic> {
    match prompt_core::json::Reader::new().parse(text) {
        Ok(value) => Ok(value),
        Err(err) if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() => {
            Err(Diagnostic::new("invalid_json", format!("`{text}`: {}", err.message())))
        }
        Err(_) => Ok(serde_json::Value::String(text.to_owned())),
    }
}

/// A seed that differs between runs: the process's random hasher keys mixed
/// with the clock.
pub(crate) fn random_seed() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    hasher.write_u128(now.map_or(0, |d| d.as_nanos()));
    hasher.finish()
}
