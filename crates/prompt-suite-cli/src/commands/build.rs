//! `prompt-suite build`: an authored prompt file to one provider request
//! body, through the `prompt-pipeline` crate.

use prompt_suite::brackets::{Effect, Limits, StoreWrite};
use prompt_suite::pipeline::{Arranged, Built, Message, Metadata, Notice, Request, Transcript};
use serde::Serialize;

use crate::args::BuildArgs;
use crate::context::{random_seed, read_context};
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;
use crate::prompt::{diagnostic, source, warn_notices};

/// Runs `build`.
pub(crate) fn execute(args: BuildArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let pipeline = crate::prompt::pipeline(&args.pipeline)?;
    let source = source(&args.pipeline, &pipeline, &input)?;
    let prompt_text = source.text().to_owned();
    let context = read_context(args.context.as_deref())?;
    let transcript = match (&args.transcript, &args.speaker) {
        (Some(path), Some(speaker)) => {
            let file = Input::read(Some(path))?;
            let transcript = Transcript::from_json(file.text()?, speaker.as_str())
                .map_err(|err| diagnostic(&err, &file, None))?
                .options(args.view.options());
            Some((file, transcript))
        }
        _ => None,
    };
    let seed = args.seed.unwrap_or_else(random_seed);
    let transcript_input = transcript.as_ref().map(|(file, _)| file);
    let reject = |err| diagnostic(&err, &input, transcript_input);
    let prompt = pipeline.prepare(source).map_err(reject)?;
    let compiled = prompt.compile().map_err(reject)?;
    let transcript = transcript.as_ref().map(|(_, transcript)| transcript);
    // `--messages` stops before the provider stage.
    let (body, arranged) = if args.pipeline.messages {
        let arranged = match transcript {
            Some(transcript) => compiled.arrange_with_transcript(&context, seed, transcript),
            None => compiled.arrange(&context, seed),
        };
        let Arranged { messages, rendered, notices, .. } = arranged.map_err(reject)?;
        (None, (messages, rendered, notices))
    } else {
        let built = match transcript {
            Some(transcript) => compiled.build_with_transcript(&context, seed, transcript),
            None => compiled.build(&context, seed),
        };
        let Built { body, messages, rendered, notices, .. } = built.map_err(reject)?;
        (Some(body), (messages, rendered, notices))
    };
    let (messages, rendered, notices) = arranged;
    warn_notices(&notices, &input, &prompt_text);
    if args.full {
        let (writes, effects) = match &rendered {
            Some(rendered) => (rendered.writes.as_slice(), rendered.effects.as_slice()),
            None => (&[][..], &[][..]),
        };
        // What the render produced counts against its output limit, as
        // `render --json` does; the body is the request, whatever its size.
        let limit = Limits::default().output_limit();
        if output::json_len_within(&(writes, effects), limit).is_none() {
            return Err(output::over_limit("`build --full`'s writes and effects", limit));
        }
        return output::write_json(&Full {
            body: body.as_ref(),
            notices: &notices,
            messages: &messages,
            metadata: prompt.metadata(),
            writes,
            effects,
        });
    }
    match &body {
        Some(body) => output::write_json(body),
        None => output::write_json(&messages),
    }
}

/// What `build --full` prints, in this key order, encoded without a copy.
#[derive(Serialize)]
struct Full<'a> {
    body: Option<&'a Request>,
    notices: &'a [Notice],
    messages: &'a [Message],
    metadata: Metadata<'a>,
    writes: &'a [StoreWrite],
    effects: &'a [Effect],
}
