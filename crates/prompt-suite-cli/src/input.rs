//! Reading a subcommand's input: the `FILE` argument, or standard input when
//! it is absent or `-`.

use std::io::Read;
use std::path::{Path, PathBuf};

use prompt_core::diagnostic::{Diagnostic as CoreDiagnostic, Origin as CoreOrigin, Report};
use prompt_core::json::{self, JsonError};
use prompt_core::text::LineIndex;
use prompt_suite::segment::AttachmentLimits;
use serde::de::DeserializeOwned;

use crate::diagnostic::Diagnostic;

/// The first bytes of a zip archive: a `.lmmlz` bundle is told by them, on
/// standard input as in a file.
pub const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

/// The most bytes a command reads from one input, a file or standard input
/// (a bundle on standard input has its own limit, [`archive_limit`]): an
/// endless input (`/dev/zero`) is `input_too_large`, not all of memory.
pub const INPUT_BYTES: u64 = 256 << 20;

/// Why [`read_at_most`] stopped.
enum ReadError {
    Io(std::io::Error),
    TooLarge(Diagnostic),
}

impl ReadError {
    /// The diagnostic, an I/O error drawn by `io_error`.
    fn map_io(self, io_error: impl FnOnce(std::io::Error) -> Diagnostic) -> Diagnostic {
        match self {
            ReadError::Io(err) => io_error(err),
            ReadError::TooLarge(diagnostic) => diagnostic,
        }
    }
}

/// Appends what `reader` holds to `bytes`, refusing more than
/// [`INPUT_BYTES`] in all.
fn read_at_most(reader: impl Read, bytes: &mut Vec<u8>, origin: &str) -> Result<(), ReadError> {
    let room = (INPUT_BYTES + 1).saturating_sub(bytes.len() as u64);
    reader.take(room).read_to_end(bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > INPUT_BYTES {
        return Err(ReadError::TooLarge(
            Diagnostic::new(
                "input_too_large",
                format!("{origin} is larger than {INPUT_BYTES} bytes, the most an input may have"),
            )
            .with_origin(origin),
        ));
    }
    Ok(())
}

/// The most bytes a zip archive within `limits` takes: what its entries may
/// inflate to (stored or deflated data is never much larger: deflate adds 5
/// bytes a 64 KiB block), plus 1 KiB of headers and name for each entry.
pub fn archive_limit(limits: &AttachmentLimits) -> u64 {
    let entries = u64::try_from(limits.max_entries).unwrap_or(u64::MAX);
    limits
        .max_total_bytes
        .saturating_add(limits.max_total_bytes / 1024)
        .saturating_add(entries.saturating_add(1).saturating_mul(1024))
}

/// The bytes of one input and where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    origin: String,
    path: Option<PathBuf>,
    bytes: Vec<u8>,
}

impl Input {
    /// Reads `path`, or standard input when it is `None` or `-`.
    ///
    /// # Errors
    ///
    /// An `io_error` diagnostic naming the file when it cannot be read.
    pub fn read(path: Option<&Path>) -> Result<Input, Diagnostic> {
        match path {
            Some(path) if path != Path::new("-") => {
                let origin = path.display().to_string();
                let io_error = |err: std::io::Error| {
                    Diagnostic::new("io_error", format!("cannot read {origin}: {err}"))
                };
                let file = std::fs::File::open(path).map_err(io_error)?;
                let mut bytes = Vec::new();
                read_at_most(file, &mut bytes, &origin).map_err(|err| err.map_io(io_error))?;
                Ok(Input { origin, path: Some(path.to_owned()), bytes })
            }
            _ => {
                let io_error = |err: std::io::Error| {
                    Diagnostic::new("io_error", format!("cannot read standard input: {err}"))
                };
                let mut stdin = std::io::stdin().lock();
                let mut bytes = Vec::new();
                let magic = ZIP_MAGIC.len() as u64;
                (&mut stdin).take(magic).read_to_end(&mut bytes).map_err(io_error)?;
                if !bytes.starts_with(ZIP_MAGIC) {
                    read_at_most(stdin, &mut bytes, "<stdin>")
                        .map_err(|err| err.map_io(io_error))?;
                    return Ok(Input::from_bytes("<stdin>", bytes));
                }
                // A bundle: read no more than one within the limits can be.
                let limit = archive_limit(&AttachmentLimits::default());
                stdin.take(limit + 1 - magic).read_to_end(&mut bytes).map_err(io_error)?;
                if bytes.len() as u64 > limit {
                    return Err(Diagnostic::new(
                        "bundle_too_large",
                        format!(
                            "the bundle on standard input is larger than {limit} bytes, more than \
                             a bundle within the limits can take"
                        ),
                    )
                    .with_origin("<stdin>"));
                }
                Ok(Input::from_bytes("<stdin>", bytes))
            }
        }
    }

    /// An input held in memory, named `origin` in diagnostics.
    pub fn from_bytes(origin: impl Into<String>, bytes: Vec<u8>) -> Input {
        Input { origin: origin.into(), path: None, bytes }
    }

    /// Where the input came from: the path as given, or `<stdin>`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The file the input was read from; `None` for standard input.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The input as UTF-8 text.
    ///
    /// # Errors
    ///
    /// An `invalid_utf8` diagnostic at the first invalid byte (its line,
    /// column and byte offset).
    pub fn text(&self) -> Result<&str, Diagnostic> {
        std::str::from_utf8(&self.bytes).map_err(|err| {
            let offset = err.valid_up_to();
            // The valid prefix is text, so the position can be drawn.
            let valid = std::str::from_utf8(&self.bytes[..offset]).unwrap_or_default();
            Diagnostic::new(
                "invalid_utf8",
                format!("the input is not valid UTF-8 (invalid byte at offset {offset})"),
            )
            .at_offset(valid, offset)
            .with_origin(self.origin.clone())
        })
    }
}

impl Input {
    /// The input parsed as JSON into `T`, strictly (`prompt_core::json`): a
    /// leading byte order mark is ignored; a key repeated in one object and
    /// an integer outside `i64` are errors.
    ///
    /// # Errors
    ///
    /// `invalid_utf8` as [`Input::text`], or `invalid_json` (see
    /// [`Input::reject_json`]).
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, Diagnostic> {
        self.json_with(json::Reader::new())
    }

    /// As [`Input::json`] with `reader`, e.g.
    /// `json::Reader::new().any_integers()` for a command that passes
    /// numbers through as written (with `RawValue` fields).
    ///
    /// # Errors
    ///
    /// As [`Input::json`].
    pub fn json_with<T: DeserializeOwned>(&self, reader: json::Reader) -> Result<T, Diagnostic> {
        reader.parse(self.text()?).map_err(|err| self.reject_json(&err))
    }

    /// The `invalid_json` diagnostic for `err`, an error in this input's
    /// text: its message, line, column (characters, a byte order mark not
    /// counted) and snippet, exactly as the JSON reader gives them, so that
    /// the message never names another position than the diagnostic's.
    pub fn reject_json(&self, err: &JsonError) -> Diagnostic {
        let diagnostic = Diagnostic::new(CoreDiagnostic::kind(err), err.message())
            .at(err.line(), err.column())
            .with_snippet(err.snippet())
            .with_origin(self.origin.clone());
        match self.text() {
            // The columns do not count a byte order mark; neither does the
            // drawn line.
            Ok(text) => diagnostic.with_source(json::strip_bom(text)),
            Err(_) => diagnostic,
        }
    }

    /// The diagnostic for a library error about this input that speaks
    /// `prompt_core`'s [`CoreDiagnostic`]: line, column and snippet are
    /// computed once from its span in this input's text ([`Report`]).
    ///
    /// Only a diagnostic whose origin is the input itself
    /// ([`CoreOrigin::Input`]) is placed in this text; one about another text
    /// (a template's context JSON, say) is reported without a position
    /// rather than at a wrong one.
    pub fn report(&self, error: &dyn CoreDiagnostic) -> Diagnostic {
        let text = self.text().ok().filter(|_| error.origin() == CoreOrigin::Input);
        Diagnostic::of(error, text).with_origin(self.origin.clone())
    }

    /// Reports library warnings that speak [`CoreDiagnostic`], each placed
    /// in this input as [`Input::report`] places an error, in the order
    /// given. They are placed in offset order, each counted on from the one
    /// before through one line index, and drawn from their line alone, so
    /// many warnings cost one pass over the text, even on one long line.
    pub fn warn_all<'w, D: CoreDiagnostic + 'w>(&self, warnings: impl IntoIterator<Item = &'w D>) {
        let warnings: Vec<&D> = warnings.into_iter().collect();
        if warnings.is_empty() {
            return;
        }
        let text = self.text().ok();
        let index = text.map(LineIndex::new);
        // (offset, warning) for those placed in this text, by offset.
        let mut order: Vec<(usize, usize)> = match text {
            Some(_) => warnings
                .iter()
                .enumerate()
                .filter(|(_, w)| w.origin() == CoreOrigin::Input)
                .filter_map(|(i, w)| Some((w.span()?.start, i)))
                .collect(),
            None => Vec::new(),
        };
        order.sort_unstable();
        let mut placed = vec![None; warnings.len()];
        if let (Some(text), Some(index)) = (text, &index) {
            let mut known = None;
            for (offset, i) in order {
                let at = match known {
                    Some(known) => index.position_after(text, offset, known),
                    None => index.position(text, offset),
                };
                known = Some((offset, at));
                placed[i] = Some((offset, at));
            }
        }
        for (warning, placed) in warnings.into_iter().zip(placed) {
            let diagnostic = match (placed, text, &index) {
                (Some((offset, at)), Some(text), Some(index)) => {
                    let span = warning.span().unwrap_or_default();
                    let line = index.line_text(text, at.line);
                    // The line is a piece of the text: where it starts.
                    let line_start = line.as_ptr() as usize - text.as_ptr() as usize;
                    let report = Report {
                        kind: warning.kind().to_owned(),
                        message: warning.to_string(),
                        line: Some(at.line),
                        column: Some(at.column),
                        snippet: Some(prompt_core::text::snippet(text, span).to_owned()),
                    };
                    Diagnostic::from_report(report).with_line_at(line, offset - line_start)
                }
                _ => Diagnostic::from_report(Report::new(warning, None)),
            };
            crate::diagnostic::warn(diagnostic.with_origin(self.origin.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_has_a_position() {
        let input = Input::from_bytes("x", b"ok\nab\xffc".to_vec());
        let err = input.text().unwrap_err();
        assert_eq!(err.kind(), "invalid_utf8");
        assert_eq!((err.line(), err.column()), (Some(2), Some(3)));
        assert!(err.message().contains("offset 5"));
    }

    #[test]
    fn json_errors_point_at_the_problem() {
        let input = Input::from_bytes("x", b"[1,\n  2,,]".to_vec());
        let err = input.json::<serde_json::Value>().unwrap_err();
        assert_eq!(err.kind(), "invalid_json");
        assert_eq!((err.line(), err.column()), (Some(2), Some(5)));
        assert_eq!(err.snippet(), Some(",]"));
        let ok: Vec<u32> = Input::from_bytes("x", b"[1, 2]".to_vec()).json().unwrap();
        assert_eq!(ok, [1, 2]);
    }

    fn json_error(text: &str) -> Diagnostic {
        Input::from_bytes("x", text.as_bytes().to_vec()).json::<serde_json::Value>().unwrap_err()
    }

    #[test]
    fn json_is_read_strictly() {
        // A byte order mark is ignored, and not counted in columns.
        let ok: Vec<u32> = Input::from_bytes("x", "\u{feff}[1]".into()).json().unwrap();
        assert_eq!(ok, [1]);
        let err = json_error("\u{feff}[1,]");
        assert_eq!((err.line(), err.column(), err.snippet()), (Some(1), Some(4), Some("]")));
        let drawn = err.render(false);
        assert!(drawn.ends_with("1 | [1,]\n  |    ^\n"), "{drawn}");
        // A repeated key is an error naming it, at its second occurrence.
        let err = json_error("{\"state\": {\"role\": \"user\",\n  \"role\": \"system\"}}");
        assert_eq!(err.kind(), "invalid_json");
        assert_eq!(err.message(), "duplicate key `role` in an object");
        assert_eq!((err.line(), err.column(), err.snippet()), (Some(2), Some(3), Some("\"role\"")));
        // An integer beyond 64 bits is an error, not a float.
        let err = json_error("{\"n\": 18446744073709551616}");
        assert_eq!((err.line(), err.column()), (Some(1), Some(7)));
        assert!(err.message().starts_with("the integer 18446744073709551616 is outside"));
    }

    /// The message never carries serde_json's own "at line .. column .."
    /// (in bytes), which could contradict the diagnostic's position (in
    /// characters).
    #[test]
    fn json_messages_carry_no_position_of_their_own() {
        for text in ["{\"é\": 1,}", "[\"ünï\", x]", "{\"stat\": 1", "", "[1] 2"] {
            let err = json_error(text);
            assert!(!err.message().contains(" at line "), "{text}: {}", err.message());
            assert!(!err.message().starts_with("invalid JSON input"), "{}", err.message());
            assert!(err.line().is_some(), "{text}");
        }
        let err = json_error("[\"ünï\", x]");
        assert_eq!((err.column(), err.snippet()), (Some(9), Some("x]")));
    }

    #[test]
    /// Regression: `--tools /dev/zero` (any endless input) read until
    /// memory ran out.
    fn an_endless_input_is_too_large() {
        let mut bytes = b"x".to_vec();
        let err = read_at_most(std::io::repeat(0), &mut bytes, "/dev/zero")
            .err()
            .map(|err| err.map_io(|_| unreachable!("no I/O error")))
            .unwrap();
        assert_eq!(err.kind(), "input_too_large");
        assert_eq!(bytes.len() as u64, INPUT_BYTES + 1);
        let mut small = Vec::new();
        assert!(read_at_most(&b"{}"[..], &mut small, "small").is_ok());
        assert_eq!(small, b"{}");
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let err = Input::read(Some(Path::new("/nonexistent/prompt-suite"))).unwrap_err();
        assert_eq!(err.kind(), "io_error");
        assert!(err.message().starts_with("cannot read /nonexistent/prompt-suite: "));
    }
}
