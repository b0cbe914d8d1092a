//! `prompt-suite chat-template`: a conversation rendered through a model's
//! chat template, as transformers' `apply_chat_template(tokenize=False)`.

use prompt_suite::chat_template::{Conversation, Error};
use serde::Serialize;

use crate::args::ChatTemplateArgs;
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// `--json`'s shape: ranges as `[start, end]` byte pairs.
#[derive(Serialize)]
struct Json<'a> {
    output: &'a str,
    data_ranges: Vec<[usize; 2]>,
    generation_ranges: Vec<[usize; 2]>,
}

fn pairs(ranges: &[std::ops::Range<usize>]) -> Vec<[usize; 2]> {
    ranges.iter().map(|r| [r.start, r.end]).collect()
}

/// Runs `chat-template`.
pub(crate) fn execute(args: ChatTemplateArgs) -> Result<(), Diagnostic> {
    let stdin =
        |path: Option<&std::path::Path>| path.is_none_or(|p| p == std::path::Path::new("-"));
    if stdin(Some(&args.template)) && stdin(args.conversation.as_deref()) {
        return Err(Diagnostic::new(
            "conflicting_options",
            "TEMPLATE and CONVERSATION cannot both be standard input",
        ));
    }
    let options = args.options.options(args.name);
    let (template_input, template) = crate::prompt::chat_template(&args.template, &options)?;
    let template_error =
        |err: &Error| crate::prompt::chat_template_diagnostic(err, &template_input);
    let conversation_input = Input::read(args.conversation.as_deref())?;
    let conversation =
        Conversation::from_json(conversation_input.text()?).map_err(|err| match &err {
            Error::Json(json) => conversation_input.reject_json(json),
            _ => Diagnostic::of(&err, None).with_origin(conversation_input.origin()),
        })?;
    let applied = template.apply(&conversation).map_err(|err| template_error(&err))?;
    if args.json {
        return output::write_json(&Json {
            output: &applied.output,
            data_ranges: pairs(&applied.data_ranges),
            generation_ranges: pairs(&applied.generation_ranges),
        });
    }
    output::write_bytes(applied.output.as_bytes())
}
