//! `prompt-suite comments`: remove `///` authoring comments (crate
//! `prompt-comments`).
//!
//! By default prints the cleaned prompt; `--json` prints it with the
//! directives, `--strip` prints the `StripComments` result, and `--messages`
//! cleans a JSON array of chat messages. Warnings (`duplicate_param`) go to
//! standard error; standard output is the same with or without them.

use std::borrow::Cow;

use clap::ValueEnum;
use prompt_core::text::{LineIndex, Position};
use prompt_suite::comments::{Dialect, Error, Warning};

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
    let text = input.text()?;
    if args.messages {
        // The crate edits the JSON text itself: every byte but the stripped
        // contents is the input's (numbers keep their digits).
        let stripped = dialect.strip_messages_json(text).map_err(|err| input.reject(&err))?;
        // One document and a newline, as every JSON output.
        let document = stripped.trim_matches([' ', '\t', '\n', '\r']);
        output::write_bytes(document.as_bytes())?;
        return output::write_bytes(b"\n");
    }
    if args.strip {
        return output::write_bytes(dialect.strip(text).as_bytes());
    }
    let processed = dialect.process(text);
    if !processed.warnings.is_empty() {
        let index = LineIndex::new(text);
        for warning in &processed.warnings {
            input.warn(&Placed { warning, at: index.position(text, warning.span().start) });
        }
    }
    if args.json {
        output::write_json(&processed)
    } else {
        output::write_bytes(processed.cleaned.as_bytes())
    }
}

/// A warning with its position in the input (prompt-comments gives spans
/// since issue 14; pipeline-cli-14 replaces this with `Report`).
struct Placed<'w> {
    warning: &'w Warning,
    at: Position,
}

impl Reportable for Placed<'_> {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.warning.kind().as_str())
    }

    fn message(&self) -> String {
        self.warning.message().to_owned()
    }

    fn position(&self) -> Option<(usize, usize)> {
        Some((self.at.line, self.at.column))
    }

    fn snippet(&self) -> Option<String> {
        Some(self.warning.key().to_owned())
    }
}

impl Reportable for Error {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        self.to_string()
    }

    fn position(&self) -> Option<(usize, usize)> {
        self.line().zip(self.column())
    }

    fn snippet(&self) -> Option<String> {
        Some(Error::snippet(self).to_owned())
    }
}
