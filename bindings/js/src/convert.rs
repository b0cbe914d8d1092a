//! JSON text <-> Rust values, in one place (minijinja-py's `typeconv.rs`).
//!
//! The package's JavaScript checks a value's types (plain objects, arrays,
//! strings, finite numbers, booleans, null; anything else is a `TypeError`
//! naming where it is) and writes its JSON; here it is read with
//! prompt-core's strict reader, whose errors name no position (the caller
//! never saw that text). What crosses back is JSON text, or a string.

use prompt_core::text::{IndexUnit, index_ranges};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Failure, Result};

/// Reads JSON the package's JavaScript wrote from the caller's values.
pub(crate) fn read<T: DeserializeOwned>(json: &str) -> Result<T> {
    prompt_core::json::from_str::<T>(json).map_err(|err| Failure::from(err.annotated().unplaced()))
}

/// The JSON text of a result.
pub(crate) fn write<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|err| {
        Failure::from(prompt_core::annotated::Annotated::new(
            "internal",
            format!("cannot encode the result: {err}"),
        ))
    })
}

/// Byte ranges of `text` as JavaScript string indices (UTF-16 code units),
/// as `[start, end]` pairs.
pub(crate) fn ranges(
    text: &str,
    ranges: impl IntoIterator<Item = std::ops::Range<usize>>,
) -> Vec<[usize; 2]> {
    index_ranges(text, ranges, IndexUnit::Utf16).into_iter().map(|(a, b)| [a, b]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_count_utf16_code_units() {
        // "😀" is 4 bytes and 2 UTF-16 units; "é" 2 bytes and 1 unit.
        assert_eq!(ranges("😀é!", [0..4, 4..6, 6..7]), [[0, 2], [2, 3], [3, 4]]);
    }

    #[test]
    fn made_json_errors_have_no_position() {
        let err = read::<serde_json::Value>("{\"a\": 1,\n\"a\": 2}").unwrap_err();
        assert_eq!((err.kind(), err.line(), err.column()), ("invalid_json".to_owned(), None, None));
    }
}
