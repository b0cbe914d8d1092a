//! `prompt-suite comments`: remove `///` authoring comments (crate
//! `prompt-comments`).
//!
//! By default prints the cleaned prompt; `--json` prints it with the
//! directives, `--strip` prints the `StripComments` result, and `--messages`
//! cleans a JSON array of chat messages. Warnings (`duplicate_param`) go to
//! standard error; standard output is the same with or without them.

use prompt_suite::comments::Dialect;

use crate::args::CommentsArgs;
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// Runs `prompt-suite comments`.
pub(crate) fn execute(args: CommentsArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let dialect = Dialect::from(args.dialect);
    let text = input.text()?;
    if args.messages {
        // The crate edits the JSON text itself: every byte but the stripped
        // contents is the input's (numbers keep their digits).
        let stripped = dialect.strip_messages_json(text).map_err(|err| input.report(&err))?;
        // One document and a newline, as every JSON output.
        let document = stripped.trim_matches([' ', '\t', '\n', '\r']);
        output::write_bytes(document.as_bytes())?;
        return output::write_bytes(b"\n");
    }
    if args.strip {
        return output::write_bytes(dialect.strip(text).as_bytes());
    }
    let processed = dialect.process(text);
    input.warn_all(&processed.warnings);
    if args.json {
        output::write_json(&processed)
    } else {
        output::write_bytes(processed.cleaned.as_bytes())
    }
}
