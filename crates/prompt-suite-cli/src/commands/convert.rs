//! `prompt-suite convert`: a request body written for one API, read into
//! the suite's vocabulary and written for another provider
//! (`prompt-pipeline`'s `ChatBody`).

use prompt_suite::pipeline::ChatBody;

use crate::args::{ConvertArgs, ConvertFrom};
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;
use crate::prompt::{diagnostic, warn_notices};

/// Runs `convert`: the body on standard output, its notices as warnings.
pub(crate) fn execute(args: ConvertArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let text = input.text()?;
    let reject = |err| diagnostic(&err, &input, None);
    let mut body = match args.from {
        ConvertFrom::Openai => ChatBody::parse(text).map_err(reject)?,
    };
    // `--param` values were checked when the flags were parsed.
    let pairs = args.provider.params.iter().map(|(name, value)| (name.as_str(), value.as_str()));
    body.params_mut().apply(pairs).map_err(reject)?;
    let encoded = body.convert(args.provider.provider()).map_err(reject)?;
    warn_notices(&encoded.notices, &input, text);
    output::write_json(&encoded.body)
}
