//! `prompt-suite flip` and `prompt-suite alternate`: the `transcript-flip`
//! crate. Both read JSON, share the `--dialect` flag and report the crate's
//! errors, so they live together.

use prompt_suite::flip as transcript_flip;
use serde_json::Value;

use crate::args::{AlternateArgs, FlipArgs};
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// Runs `flip`.
pub(crate) fn execute(args: FlipArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let text = input.text()?;
    let mut options = args
        .view
        .options()
        .with_ensure_final_user(!args.no_final_user)
        .with_dialect(args.dialect.dialect());
    if let Some(system) = args.framing.system {
        options = options.with_system(system);
    }
    if let Some(instruction) = args.framing.instruction {
        options = options.with_instruction(instruction);
    }
    let flipped =
        transcript_flip::flip_json_with_warnings(text, &Value::String(args.speaker), &options)
            .map_err(|err| input.report(&err))?;
    input.warn_all(&flipped.warnings);
    output::write_json(&flipped.messages)
}

/// Runs `alternate`. The crate returns the JSON text itself, every field
/// kept as written (numbers keep their digits), so it is printed as it is.
pub(crate) fn execute_alternate(args: AlternateArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let text = input.text()?;
    let mut json = transcript_flip::alternate_json(text, args.dialect.dialect())
        .map_err(|err| input.report(&err))?;
    json.push('\n');
    output::write_bytes(json.as_bytes())
}
