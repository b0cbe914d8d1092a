//! Writing results to standard output.
//!
//! A closed pipe (`prompt-suite ... | head`) is not an error: the reader has
//! what it wanted, so the write stops quietly and the exit code stays 0.

use std::io::{self, Write};

use serde::Serialize;

use crate::diagnostic::Diagnostic;

/// Writes `bytes` to standard output exactly, then flushes.
///
/// # Errors
///
/// An `io_error` diagnostic for any failure but a closed pipe.
pub fn write_bytes(bytes: &[u8]) -> Result<(), Diagnostic> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
            Err(Diagnostic::new("io_error", format!("cannot write standard output: {err}")))
        }
        _ => Ok(()),
    }
}

/// Writes `value` as one JSON document followed by a newline.
///
/// # Errors
///
/// As [`write_bytes`]; also an `internal` diagnostic if the value cannot be
/// represented as JSON (a map with non-string keys).
pub fn write_json<T: Serialize + ?Sized>(value: &T) -> Result<(), Diagnostic> {
    let mut json = serde_json::to_vec(value)
        .map_err(|err| Diagnostic::new("internal", format!("cannot encode the result: {err}")))?;
    json.push(b'\n');
    write_bytes(&json)
}
