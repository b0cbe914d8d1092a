//! Inputs shared by the criterion benchmarks in `benches/benches/`.
//!
//! Benchmarks read realistic fixtures from `benches/inputs/` and scale them to
//! a chosen size, so that throughput and linear growth are measured on text
//! that looks like what users write.

#![forbid(unsafe_code)]

use std::path::PathBuf;

/// The contents of `benches/inputs/<name>`.
///
/// # Panics
///
/// When the fixture is missing or not UTF-8: a benchmark without its input
/// cannot measure anything, so failing loudly is right.
pub fn input(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("inputs").join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read bench input {}: {err}", path.display()))
}

/// `unit` repeated until the result is at least `bytes` long (whole copies
/// only, so every copy stays well-formed).
pub fn repeat_to(unit: &str, bytes: usize) -> String {
    if unit.is_empty() {
        return String::new();
    }
    let copies = bytes.div_ceil(unit.len());
    unit.repeat(copies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_to_uses_whole_copies() {
        assert_eq!(repeat_to("abc", 7), "abcabcabc");
        assert_eq!(repeat_to("abc", 6), "abcabc");
        assert_eq!(repeat_to("", 6), "");
    }
}
