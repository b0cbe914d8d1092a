//! `prompt-suite comments`: remove `///` authoring comments (crate
//! `prompt-comments`).
//!
//! By default prints the cleaned prompt; `--json` prints it with the
//! directives, `--strip` prints the `StripComments` result, and `--messages`
//! cleans a JSON array of chat messages.

use std::borrow::Cow;

use clap::ValueEnum;
use prompt_suite::comments::{Dialect, Error};

use crate::args::InputArg;
use crate::diagnostic::{Diagnostic, Reportable};
use crate::input::Input;
use crate::output;

/// Arguments of `prompt-suite comments`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("mode").args(["json", "strip", "messages"])))]
pub(crate) struct CommentsArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// Whose rules to follow.
    #[arg(long, value_enum, default_value_t = DialectArg::Standard)]
    pub(crate) dialect: DialectArg,

    /// Print `{"cleaned", "params", "metadata", "flow", "node", "tags"}` as JSON.
    #[arg(long)]
    pub(crate) json: bool,

    /// Print the `StripComments` result (llmutils also drops blank lines there).
    #[arg(long)]
    pub(crate) strip: bool,

    /// The input is a JSON array of chat messages: strip each message's content.
    #[arg(long)]
    pub(crate) messages: bool,
}

/// `--dialect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DialectArg {
    /// The suite's own rules (URLs, Markdown code, `\///`, CRLF kept, blank lines kept).
    Standard,
    /// The Go package llmutils, byte for byte, quirks included.
    Llmutils,
}

impl From<DialectArg> for Dialect {
    fn from(arg: DialectArg) -> Dialect {
        match arg {
            DialectArg::Standard => Dialect::Standard,
            DialectArg::Llmutils => Dialect::Llmutils,
        }
    }
}

/// Runs `prompt-suite comments`.
pub(crate) fn execute(args: CommentsArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let dialect = Dialect::from(args.dialect);
    if args.messages {
        let mut document: serde_json::Value = input.json()?;
        return match dialect.strip_messages_document(&mut document) {
            Ok(()) => output::write_json(&document),
            Err(err) => Err(reject_document(&input, &err)),
        };
    }
    let text = input.text()?;
    if args.json {
        output::write_json(&dialect.process(text))
    } else {
        let cleaned: Cow<'_, str> =
            if args.strip { dialect.strip(text) } else { dialect.process(text).cleaned };
        output::write_bytes(cleaned.as_bytes())
    }
}

/// The diagnostic for a document that is not an array, pointing at where
/// the document starts.
fn reject_document(input: &Input, err: &Error) -> Diagnostic {
    let diagnostic = input.reject(err);
    match input.text() {
        Ok(text) => {
            let start = text.len() - text.trim_start().len();
            diagnostic.at_offset(text, start)
        }
        Err(_) => diagnostic,
    }
}

impl Reportable for Error {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        self.to_string()
    }

    fn snippet(&self) -> Option<String> {
        Some(Error::snippet(self).to_owned())
    }
}
