//! Reading a subcommand's input: the `FILE` argument, or standard input when
//! it is absent or `-`.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::diagnostic::{Diagnostic, Reportable};

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
                let bytes = std::fs::read(path).map_err(|err| {
                    Diagnostic::new("io_error", format!("cannot read {origin}: {err}"))
                })?;
                Ok(Input { origin, path: Some(path.to_owned()), bytes })
            }
            _ => {
                let mut bytes = Vec::new();
                std::io::stdin().lock().read_to_end(&mut bytes).map_err(|err| {
                    Diagnostic::new("io_error", format!("cannot read standard input: {err}"))
                })?;
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
    /// The input parsed as JSON into `T`.
    ///
    /// # Errors
    ///
    /// `invalid_utf8` as [`Input::text`], or `invalid_json` at the line and
    /// column where the document stops being valid (or the wrong shape).
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, Diagnostic> {
        let text = self.text()?;
        serde_json::from_str(text).map_err(|err| {
            let diagnostic = Diagnostic::new("invalid_json", format!("invalid JSON input: {err}"))
                .with_origin(self.origin.clone());
            if err.line() == 0 {
                return diagnostic;
            }
            // serde_json counts columns in bytes; the diagnostic wants characters.
            let line_start = line_start_offset(text, err.line());
            let offset = line_start + err.column().saturating_sub(1);
            diagnostic.at_offset(text, offset)
        })
    }

    /// The diagnostic for a library error about this input: its kind, message
    /// and position, with the source line and origin for the caret drawing.
    pub fn reject(&self, error: &impl Reportable) -> Diagnostic {
        let mut diagnostic =
            Diagnostic::new(error.kind_name(), error.message()).with_origin(self.origin.clone());
        if let Some((line, column)) = error.position() {
            diagnostic = diagnostic.at(line, column);
            if let Ok(text) = self.text() {
                diagnostic = diagnostic.with_source(text);
            }
        }
        if let Some(snippet) = error.snippet() {
            diagnostic = diagnostic.with_snippet(snippet);
        }
        diagnostic
    }
}

/// The byte offset where 1-based `line` starts (the end of `text` if it has
/// fewer lines).
fn line_start_offset(text: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1)
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

    #[test]
    fn missing_file_is_an_io_error() {
        let err = Input::read(Some(Path::new("/nonexistent/prompt-suite"))).unwrap_err();
        assert_eq!(err.kind(), "io_error");
        assert!(err.message().starts_with("cannot read /nonexistent/prompt-suite: "));
    }
}
