//! `prompt-suite build`: an authored prompt file to one provider request
//! body, through the `prompt-pipeline` crate.

use prompt_suite::brackets::Limits;
use prompt_suite::pipeline::{Arranged, Built};

use crate::args::BuildArgs;
use crate::context::{define, read_context, read_source, seed};
use crate::diagnostic::Diagnostic;
use crate::history::Opened;
use crate::output;
use crate::prompt::{rejected, source, transcript, warn_notices};

/// Runs `build`.
pub(crate) fn execute(args: BuildArgs) -> Result<(), Diagnostic> {
    let input = read_source(&args.input)?;
    let history = args.history.history.as_deref();
    let lock = history.map(|path| crate::history::beside(path, ".lock"));
    let run = crate::context::run_files(&[
        ("the context", args.input.context.as_deref()),
        ("the transcript", args.transcript.transcript.as_deref()),
        ("the history", history),
        ("the history's lock", lock.as_deref()),
    ]);
    let pipeline = crate::prompt::pipeline(
        &args.pipeline,
        &args.template,
        &args.provider,
        &args.framing,
        &args.tools,
        &args.chat,
        run,
    )?;
    let source = source(&args.pipeline, &pipeline, &input)?;
    let prompt_text = source.text().to_owned();
    let mut context = read_context(args.input.context.as_deref())?;
    // As `render`: the history's state at N, then the command line's values.
    let mut history = Opened::open(&args.history, &mut context)?;
    define(&mut context, &args.input.defines);
    let transcript = transcript(&args.transcript)?;
    let seed = seed(args.template.seed)?;
    let transcript_input = transcript.as_ref().map(|(file, _)| file);
    let chat_template = args.chat.file.as_deref();
    let reject = |err| rejected(&err, &input, transcript_input, chat_template);
    let prompt = pipeline.prepare(source).map_err(reject)?;
    let compiled = prompt.compile().map_err(reject)?;
    let transcript = transcript.as_ref().map(|(_, transcript)| transcript);
    // `--messages` stops before the provider stage.
    let made = if args.output.messages {
        let arranged = match transcript {
            Some(transcript) => compiled.arrange_with_transcript(&context, seed, transcript),
            None => compiled.arrange(&context, seed),
        };
        Made::Arranged(arranged.map_err(reject)?)
    } else {
        let built = match transcript {
            Some(transcript) => compiled.build_with_transcript(&context, seed, transcript),
            None => compiled.build(&context, seed),
        };
        Made::Built(built.map_err(reject)?)
    };
    let full = match &made {
        Made::Built(built) => built.full(compiled.prompt()),
        Made::Arranged(arranged) => arranged.full(compiled.prompt()),
    };
    warn_notices(full.notices, &input, &prompt_text);
    if let Some(history) = &mut history {
        history.record(full.writes)?;
    }
    if args.output.full {
        // What the render produced counts against its output limit, as
        // `render --json` does; the body is the request, whatever its size.
        let limit = Limits::default().output_limit();
        if output::json_len_within(&(full.writes, full.effects), limit).is_none() {
            return Err(output::over_limit("`build --full`'s writes and effects", limit));
        }
    }
    // Saved once the output is accepted, as `render` does.
    if let Some(history) = history {
        history.save()?;
    }
    match (args.output.full, full.body) {
        (true, _) => output::write_json(&full),
        (false, Some(body)) => output::write_json(body),
        (false, None) => output::write_json(full.messages),
    }
}

/// What `build` made: a request, or with `--messages` the conversation.
#[allow(clippy::large_enum_variant, reason = "one on the stack, never stored")]
enum Made {
    Built(Built),
    Arranged(Arranged),
}
