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

/// Writes `value` as one JSON document followed by a newline, encoding it
/// straight into standard output (no copy of the document in memory).
///
/// # Errors
///
/// As [`write_bytes`]; also an `internal` diagnostic if the value cannot be
/// represented as JSON (a map with non-string keys).
pub fn write_json<T: Serialize + ?Sized>(value: &T) -> Result<(), Diagnostic> {
    let mut stdout = io::BufWriter::with_capacity(64 << 10, io::stdout().lock());
    let written = match serde_json::to_writer(&mut stdout, value) {
        Err(err) if !err.is_io() => {
            return Err(Diagnostic::new("internal", format!("cannot encode the result: {err}")));
        }
        // serde_json hands back the writer's own error.
        Err(err) => Err(io::Error::from(err)),
        Ok(()) => stdout.write_all(b"\n").and_then(|()| stdout.flush()),
    };
    match written {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
            Err(Diagnostic::new("io_error", format!("cannot write standard output: {err}")))
        }
        _ => Ok(()),
    }
}

/// How many bytes `value` takes as JSON (without a newline), if at most
/// `limit`: counted, not kept, and the count stops at the limit.
pub fn json_len_within<T: Serialize + ?Sized>(value: &T, limit: usize) -> Option<usize> {
    let mut count = Counter { bytes: 0, limit };
    serde_json::to_writer(&mut count, value).ok().map(|()| count.bytes)
}

/// A writer that only counts, up to a limit.
struct Counter {
    bytes: usize,
    limit: usize,
}

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len();
        if self.bytes > self.limit {
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, "over the limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Encodes `value` as one JSON document followed by a newline, if that
/// takes at most `limit` bytes; the encoding stops as soon as it would not,
/// so memory stays within the limit whatever the value holds.
///
/// `what` names the output in the `output_limit` error, e.g.
/// "`render --json`".
///
/// # Errors
///
/// `output_limit` past the limit; `internal` if the value cannot be
/// represented as JSON.
pub fn json_within<T: Serialize + ?Sized>(
    value: &T,
    limit: usize,
    what: &str,
) -> Result<Vec<u8>, Diagnostic> {
    let mut out = Limited::new(limit);
    let encoded = serde_json::to_writer(&mut out, value);
    if encoded.is_ok() {
        // Past the limit, the writer says so in `over`.
        let _ = out.write_all(b"\n");
    }
    if out.over {
        return Err(over_limit(what, limit));
    }
    encoded
        .map_err(|err| Diagnostic::new("internal", format!("cannot encode the result: {err}")))?;
    Ok(out.bytes)
}

/// [`json_within`], written to standard output as [`write_bytes`] does.
///
/// # Errors
///
/// As [`json_within`] and [`write_bytes`].
pub fn write_json_within<T: Serialize + ?Sized>(
    value: &T,
    limit: usize,
    what: &str,
) -> Result<(), Diagnostic> {
    write_bytes(&json_within(value, limit, what)?)
}

/// The `output_limit` error of an output `what` over `limit` bytes.
pub fn over_limit(what: &str, limit: usize) -> Diagnostic {
    Diagnostic::new(
        "output_limit",
        format!("{what} would print more than {limit} bytes, the template's output limit"),
    )
}

/// A writer into memory that refuses to hold more than its limit.
#[derive(Debug)]
pub struct Limited {
    bytes: Vec<u8>,
    limit: usize,
    over: bool,
}

impl Limited {
    /// An empty buffer that holds at most `limit` bytes.
    pub fn new(limit: usize) -> Limited {
        Limited { bytes: Vec::new(), limit, over: false }
    }

    /// Whether a write was refused.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

impl Write for Limited {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            self.over = true;
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, "over the output limit"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_within_stops_at_the_limit() {
        let value = serde_json::json!({"a": "x".repeat(10)});
        let exact = json_within(&value, 19, "it").unwrap();
        assert_eq!(exact, b"{\"a\":\"xxxxxxxxxx\"}\n");
        let err = json_within(&value, 18, "`it`").unwrap_err();
        assert_eq!(err.kind(), "output_limit");
        assert_eq!(
            err.message(),
            "`it` would print more than 18 bytes, the template's output limit"
        );
        assert_eq!(json_len_within(&value, 18), Some(18));
        assert_eq!(json_len_within(&value, 17), None);
        // Escapes count as what they print.
        let control = "\u{1}".repeat(3);
        assert!(json_within(&control, 3 * 6 + 2, "c").is_err());
        assert!(json_within(&control, 3 * 6 + 3, "c").is_ok());
    }
}
