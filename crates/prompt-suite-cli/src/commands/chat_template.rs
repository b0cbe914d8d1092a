//! `prompt-suite chat-template`: a conversation rendered through a model's
//! chat template, as transformers' `apply_chat_template(tokenize=False)`.

use prompt_suite::brackets::Clock;
use prompt_suite::chat_template::{ChatTemplate, Conversation, Error, Options};
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
    let template_input = Input::read(Some(&args.template))?;
    let config = ChatTemplate::is_config(&args.template);
    let options = Options {
        name: args.name,
        clock: args.now.map_or(Clock::Local, Clock::Fixed),
        special_tokens: args.special_tokens,
        allow_special_tokens: args.allow_special_tokens,
    };
    // A `.jinja` file is the template's text, so positions point into it;
    // a config's template is a JSON string, where they have no place.
    let template_error = |err: &Error| match err {
        Error::Json(json) => template_input.reject_json(json),
        Error::Template(_) if !config => template_input.report(err),
        _ => Diagnostic::of(err, None).with_origin(template_input.origin()),
    };
    let text = template_input.text()?;
    let template = if config {
        ChatTemplate::from_config(text, &options)
    } else {
        ChatTemplate::from_jinja(text, &options)
    }
    .map_err(|err| template_error(&err))?;
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
