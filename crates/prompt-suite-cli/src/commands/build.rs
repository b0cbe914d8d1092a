//! `prompt-suite build`: an authored prompt file to one provider request
//! body, through the `prompt-pipeline` crate. Also the flags and the loading
//! that `batch` shares.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use prompt_suite::brackets::{Effect, Environment, Limits, StoreWrite};
use prompt_suite::pipeline::{
    self as prompt_pipeline, Alternation, Attachments, ContextAs, Message, Metadata, Notice,
    Pipeline, Provider, Request, Source, Stages, Transcript,
};
use serde::Serialize;

use crate::args::InputArg;
use crate::commands::flip::ViewArgs;
use crate::commands::template_context::{random_seed, read_context};
use crate::diagnostic::{Diagnostic, Reportable};
use crate::input::Input;
use crate::output;

/// `build`: one request body.
#[derive(Debug, clap::Args)]
pub(crate) struct BuildArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// The template context: `{"state": {...}, "local": {...}, "global": {...}}`.
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) context: Option<PathBuf>,

    /// The random seed for `chance`/`weighted` blocks (random when absent).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,

    /// Flip this JSON transcript for `--speaker` and append it after the
    /// prompt's messages.
    #[arg(long, value_name = "FILE", requires = "speaker")]
    pub(crate) transcript: Option<PathBuf>,

    /// The point-of-view speaker of `--transcript`.
    #[arg(long, value_name = "ID", requires = "transcript")]
    pub(crate) speaker: Option<String>,

    /// How `--transcript` shows the other speakers' turns (as `flip` does).
    #[command(flatten)]
    pub(crate) view: ViewArgs,

    /// Print `{"body", "notices", "messages", "metadata", "writes", "effects"}`
    /// instead of the body alone.
    #[arg(long)]
    pub(crate) full: bool,

    #[command(flatten)]
    pub(crate) pipeline: PipelineArgs,
}

/// The pipeline flags `build` and `batch` share.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PipelineArgs {
    /// The provider whose request body is built.
    #[arg(long, value_enum, default_value_t = ProviderName::Openai)]
    pub(crate) provider: ProviderName,

    /// Skip the provider stage: print the provider-neutral messages.
    #[arg(long)]
    pub(crate) messages: bool,

    /// Resolve `@name` references from this directory (for a bare narrative).
    #[arg(long, value_name = "DIR")]
    pub(crate) embeds_dir: Option<PathBuf>,

    /// Where the text before the first role delimiter goes.
    #[arg(long, value_enum, default_value_t = ContextAsName::System)]
    pub(crate) context_as: ContextAsName,

    /// Merge same-role turns and start with the user: as the provider
    /// requires (auto), always, or never.
    #[arg(long, value_enum, default_value_t = AlternationName::Auto)]
    pub(crate) alternation: AlternationName,

    /// Keep `///` comments as text (no metadata, no parameters).
    #[arg(long)]
    pub(crate) no_comments: bool,

    /// Do not render the bracket template.
    #[arg(long)]
    pub(crate) no_template: bool,

    /// Do not split turns: the whole text is one message.
    #[arg(long)]
    pub(crate) no_segment: bool,

    /// Printing or iterating an undefined template value is an error.
    #[arg(long)]
    pub(crate) strict: bool,

    /// Set a request parameter over the prompt's `/// param:` lines, for
    /// example `--param model=claude-sonnet-4-5`; repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = name_value)]
    pub(crate) params: Vec<(String, String)>,
}

/// `NAME=VALUE`, split at the first `=`, with a value of the parameter's
/// type: a bad `--param` is a usage error, not a build error.
fn name_value(arg: &str) -> Result<(String, String), String> {
    match arg.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            prompt_pipeline::Params::parse([(name, value)]).map_err(|err| err.to_string())?;
            Ok((name.trim().to_owned(), value.to_owned()))
        }
        _ => Err(format!("`{arg}` is not NAME=VALUE")),
    }
}

/// The values of `--provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProviderName {
    /// OpenAI chat completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent`.
    Gemini,
}

/// The values of `--context-as`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ContextAsName {
    /// A system message.
    System,
    /// A user message.
    User,
    /// Left out.
    Drop,
}

/// The values of `--alternation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AlternationName {
    /// On for Anthropic and Gemini, off for OpenAI.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl PipelineArgs {
    /// The pipeline these flags describe.
    pub(crate) fn pipeline(&self) -> Pipeline {
        let provider = match self.provider {
            ProviderName::Openai => Provider::OpenAi,
            ProviderName::Anthropic => Provider::Anthropic,
            ProviderName::Gemini => Provider::Gemini,
        };
        let context_as = match self.context_as {
            ContextAsName::System => ContextAs::System,
            ContextAsName::User => ContextAs::User,
            ContextAsName::Drop => ContextAs::Drop,
        };
        let alternation = match self.alternation {
            AlternationName::Auto => Alternation::Auto,
            AlternationName::Always => Alternation::Always,
            AlternationName::Never => Alternation::Never,
        };
        let mut environment = Environment::new();
        environment.set_strict(self.strict);
        Pipeline::new(provider)
            .environment(environment)
            .params(self.params.iter().cloned())
            .provider((!self.messages).then_some(provider))
            .context_as(context_as)
            .alternation(alternation)
            .stages(Stages {
                comments: !self.no_comments,
                template: !self.no_template,
                segment: !self.no_segment,
            })
    }

    /// The prompt of `input` (a bundle or text), with `--embeds-dir`.
    pub(crate) fn source(&self, pipeline: &Pipeline, input: &Input) -> Result<Source, Diagnostic> {
        let name = input.path().and_then(Path::to_str).unwrap_or("stdin");
        let source = Source::from_bytes(name, input.bytes(), pipeline.get_limits())
            .map_err(|err| diagnostic(&err, input, None, None))?;
        match &self.embeds_dir {
            Some(dir) => {
                let attachments =
                    Attachments::directory(dir, *pipeline.get_limits()).map_err(|err| {
                        let err = prompt_pipeline::Error::from(err);
                        diagnostic(&err, input, None, None).with_origin(dir.display().to_string())
                    })?;
                Ok(source.with_attachments(attachments))
            }
            None => Ok(source),
        }
    }
}

/// Runs `build`.
pub(crate) fn execute(args: BuildArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let pipeline = args.pipeline.pipeline();
    let source = args.pipeline.source(&pipeline, &input)?;
    let prompt_text = source.text().to_owned();
    let context = read_context(args.context.as_deref())?;
    let transcript = match (&args.transcript, &args.speaker) {
        (Some(path), Some(speaker)) => {
            let file = Input::read(Some(path))?;
            let transcript = Transcript::from_json(file.text()?, speaker.as_str())
                .map_err(|err| diagnostic(&err, &file, None, None))?
                .options(args.view.options());
            Some((file, transcript))
        }
        _ => None,
    };
    let seed = args.seed.unwrap_or_else(random_seed);
    let built = pipeline.prepare(source).and_then(|prompt| {
        let compiled = prompt.compile()?;
        let output = match &transcript {
            Some((_, transcript)) => compiled.build_with_transcript(&context, seed, transcript)?,
            None => compiled.build(&context, seed)?,
        };
        Ok((output, prompt.metadata().clone()))
    });
    let transcript_input = transcript.as_ref().map(|(file, _)| file);
    let (output, metadata) =
        built.map_err(|err| diagnostic(&err, &input, Some(&prompt_text), transcript_input))?;
    warn_notices(&output.notices, &input, &prompt_text);
    if args.full {
        let (writes, effects) = match &output.rendered {
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
            body: output.request.as_ref().map(|built| &built.body),
            notices: &output.notices,
            messages: &output.messages,
            metadata: &metadata,
            writes,
            effects,
        });
    }
    match &output.request {
        Some(built) => output::write_json(&built.body),
        None => output::write_json(&output.messages),
    }
}

/// Prints `notices` as warnings; one with a place in the prompt (a repeated
/// `/// param:` key) is drawn on `prompt_text`.
pub(crate) fn warn_notices(notices: &[Notice], input: &Input, prompt_text: &str) {
    for notice in notices {
        let mut warning = Diagnostic::new(notice.as_str(), notice.message());
        if let Notice::DuplicateParam { line, column, .. } = notice {
            warning = warning
                .at(*line, *column)
                .with_source(prompt_text)
                .with_origin(input.origin().to_owned());
        }
        crate::diagnostic::warn(warning);
    }
}

/// What `build --full` prints, in this key order, encoded without a copy.
#[derive(Serialize)]
struct Full<'a> {
    body: Option<&'a Request>,
    notices: &'a [Notice],
    messages: &'a [Message],
    metadata: &'a Metadata,
    writes: &'a [StoreWrite],
    effects: &'a [Effect],
}

/// The diagnostic for a pipeline error: drawn on the prompt (`prompt_text`,
/// which for a bundle is its narrative entry), on the transcript file, or
/// with its snippet alone for a position in the rendered narrative.
pub(crate) fn diagnostic(
    err: &prompt_pipeline::Error,
    input: &Input,
    prompt_text: Option<&str>,
    transcript: Option<&Input>,
) -> Diagnostic {
    use prompt_pipeline::Origin;
    let base = Diagnostic::new(err.kind_name(), Reportable::message(err));
    let Some((line, column)) = Reportable::position(err) else {
        return base.with_origin(input.origin().to_owned());
    };
    let located = base.at(line, column).with_snippet(err.snippet().unwrap_or_default());
    match err.origin() {
        Some(Origin::Transcript) => {
            let file = transcript.unwrap_or(input);
            // Its columns do not count a byte order mark.
            let text = file.text().ok().map(prompt_core::json::strip_bom);
            with_source(located, text, file.origin())
        }
        Some(Origin::Rendered) => {
            located.with_origin(format!("{} (as rendered by the template)", input.origin()))
        }
        _ => with_source(located, prompt_text.or(input.text().ok()), input.origin()),
    }
}

fn with_source(diagnostic: Diagnostic, text: Option<&str>, origin: &str) -> Diagnostic {
    let diagnostic = diagnostic.with_origin(origin.to_owned());
    match text {
        Some(text) => diagnostic.with_source(text),
        None => diagnostic,
    }
}

impl Reportable for prompt_pipeline::Error {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        prompt_pipeline::Error::message(self)
    }

    fn position(&self) -> Option<(usize, usize)> {
        self.line().zip(self.column())
    }

    fn snippet(&self) -> Option<String> {
        prompt_pipeline::Error::snippet(self).map(str::to_owned)
    }
}
