//! Every flag of the command line, as data: the whole command line
//! ([`Args`]), one struct per subcommand, the flag groups several
//! subcommands share ([`InputArg`], [`PipelineArgs`], [`ViewArgs`],
//! [`ModeArg`]) and their values. A command module reads its struct from here
//! and never from another command module; the conversions to the libraries'
//! options live beside the flags they read.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use prompt_suite::brackets::{Distribution, Environment};
use prompt_suite::comments::Dialect;
use prompt_suite::flip::{self, FlipOptions, Label, SpeakerName};
use prompt_suite::pipeline::{
    self as prompt_pipeline, Alternation, ContextAs, Format, Pipeline, PipelineBuilder, Provider,
    Stages,
};
use prompt_suite::segment;

/// The whole command line.
#[derive(Debug, Parser)]
#[command(
    name = "prompt-suite",
    version,
    about = "Turn what people write for language models into exactly what the models' APIs accept.",
    long_about = None,
    propagate_version = true,
    arg_required_else_help = true,
    max_term_width = 100
)]
pub(crate) struct Args {
    /// How errors are printed on standard error.
    #[arg(long, value_enum, global = true, default_value_t = ErrorFormat::Human)]
    pub(crate) error_format: ErrorFormat,

    /// Colours in errors and warnings for people: `auto` when standard
    /// error is a terminal and `NO_COLOR` is not set; `always` even with
    /// `NO_COLOR`.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,

    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The two renderings of a [`crate::diagnostic::Diagnostic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ErrorFormat {
    /// `error[kind]: message`, then the source line with a caret.
    Human,
    /// One JSON object: `{"error": {"kind", "message", "line", "column", "snippet"}}`.
    Json,
}

/// When errors and warnings for people are coloured (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    /// When standard error is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always, whatever `NO_COLOR` says.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour, given whether standard error is a terminal and
    /// the value of `NO_COLOR` (<https://no-color.org>: set and not empty
    /// turns colours off).
    pub(crate) fn colors(self, terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && no_color.is_none_or(|value| value.is_empty()),
        }
    }
}

/// The input argument every subcommand shares.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct InputArg {
    /// The input file; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Remove `///` authoring comments and read the directives they carry.
    Comments(CommentsArgs),
    /// One speaker's view of a multi-speaker JSON transcript, as chat messages.
    Flip(FlipArgs),
    /// Make a JSON message array provider-safe (one system, alternating, user first).
    Alternate(AlternateArgs),
    /// Split a narrative (or a .lmmlz bundle) into role turns and render them as chat messages.
    Segment(SegmentArgs),
    /// Render a bracket template ([[ expr ]], [% stmt %], [# comment #]).
    Render(RenderArgs),
    /// Build a provider request body (OpenAI, Anthropic, Gemini) from an authored prompt file.
    Build(BuildArgs),
    /// Build one request per JSONL row of contexts, in order, on all cores.
    Batch(BatchArgs),
    /// Analyse a bracket template without rendering: names, macros, random blocks, warnings.
    Check(CheckArgs),
}

// `comments`.

/// Arguments of `prompt-suite comments`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("mode").args(["json", "strip", "messages"])))]
pub(crate) struct CommentsArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// Whose rules to follow.
    #[arg(long, value_enum, default_value_t = CommentsDialect::Standard)]
    pub(crate) dialect: CommentsDialect,

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
pub(crate) enum CommentsDialect {
    /// The suite's own rules (URLs, Markdown code, `\///`, CRLF kept, blank lines kept).
    Standard,
    /// The Go package llmutils, byte for byte, quirks included.
    Llmutils,
}

impl From<CommentsDialect> for Dialect {
    fn from(arg: CommentsDialect) -> Dialect {
        match arg {
            CommentsDialect::Standard => Dialect::Standard,
            CommentsDialect::Llmutils => Dialect::Llmutils,
        }
    }
}

// `flip` and `alternate`.

/// `flip`: one speaker's view of a shared transcript.
#[derive(Debug, clap::Args)]
pub(crate) struct FlipArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// The point-of-view speaker: its turns become `assistant` messages.
    #[arg(long, value_name = "ID")]
    pub(crate) speaker: String,

    /// The leading system message (omitted when empty).
    #[arg(long, value_name = "TEXT")]
    pub(crate) system: Option<String>,

    /// The trailing cue, added as a user message (omitted when empty).
    #[arg(long, value_name = "TEXT")]
    pub(crate) instruction: Option<String>,

    #[command(flatten)]
    pub(crate) view: ViewArgs,

    /// Do not add a `(continue)` user message after a trailing own turn
    /// (standard mode: nor before a leading one).
    #[arg(long)]
    pub(crate) no_final_user: bool,

    #[command(flatten)]
    pub(crate) mode: ModeArg,
}

/// How other speakers' turns are shown: the flags `flip` and `build
/// --transcript` share.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ViewArgs {
    /// The prefix of other speakers' turns; `{speaker}` is replaced by the id.
    #[arg(long, value_name = "TEMPLATE", default_value = "{speaker}: ")]
    pub(crate) label: String,

    /// Leave other speakers' text (and labels) as written.
    #[arg(long)]
    pub(crate) no_sanitize: bool,

    /// Where other speakers' ids go (standard mode only).
    #[arg(long, value_enum, value_name = "WHERE", default_value_t = SpeakerNameArg::Label)]
    pub(crate) speaker_name: SpeakerNameArg,
}

impl ViewArgs {
    /// Flip options with these flags set, the rest at their defaults.
    pub(crate) fn options(&self) -> FlipOptions {
        let label = if self.label == "{speaker}: " {
            Label::Default
        } else {
            Label::template(self.label.clone())
        };
        let speaker_name = match self.speaker_name {
            SpeakerNameArg::Label => SpeakerName::Label,
            SpeakerNameArg::Field => SpeakerName::Field,
            SpeakerNameArg::Both => SpeakerName::Both,
        };
        FlipOptions::new()
            .with_label(label)
            .with_sanitize(!self.no_sanitize)
            .with_speaker_name(speaker_name)
    }
}

/// `alternate`: a provider-safe message array.
#[derive(Debug, clap::Args)]
pub(crate) struct AlternateArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    #[command(flatten)]
    pub(crate) mode: ModeArg,
}

/// The `--mode` flag both subcommands take.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ModeArg {
    /// `llmr` reproduces the R package LLMR exactly; `standard` is hardened.
    #[arg(long, value_enum, default_value_t = ModeName::Standard)]
    mode: ModeName,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeName {
    /// The suite's hardened behaviour.
    Standard,
    /// LLMR's `transcript_as_messages` / `ensure_alternating_messages`, exactly.
    Llmr,
}

impl ModeArg {
    /// The dialect of `--mode`.
    pub(crate) fn mode(&self) -> flip::Dialect {
        match self.mode {
            ModeName::Standard => flip::Dialect::Standard,
            ModeName::Llmr => flip::Dialect::Llmr,
        }
    }
}

/// The values of `--speaker-name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SpeakerNameArg {
    /// In the content, as the label prefix.
    Label,
    /// In the message's `name` field instead of the label.
    Field,
    /// Both the label and the `name` field.
    Both,
}

// `segment`.

/// Arguments of `segment`.
#[derive(Debug, clap::Args)]
pub(crate) struct SegmentArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// Which rules split the narrative: the suite's own, or lmml 0.2.0's
    /// exactly.
    #[arg(long, value_enum, default_value_t = SegmentDialect::Standard)]
    pub(crate) dialect: SegmentDialect,

    /// Print the turns (`[{"role", "text", "embeds"}]`) instead of the
    /// rendered messages.
    #[arg(long)]
    pub(crate) turns: bool,

    /// Leave out embeds larger than N bytes (raw size; the text is never
    /// limited), each with a `warning[embed_too_large]` on standard error.
    #[arg(long, value_name = "N")]
    pub(crate) max_embed_bytes: Option<u64>,

    /// Resolve `@name` references from the files of DIR (never outside it).
    #[arg(long, value_name = "DIR")]
    pub(crate) embeds_dir: Option<PathBuf>,

    /// What becomes of the `context` preamble before the first delimiter.
    #[arg(long, value_enum, default_value_t = SegmentContextAs::Keep)]
    pub(crate) context_as: SegmentContextAs,
}

/// `--dialect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SegmentDialect {
    /// Fence-aware delimiters, whole role words, strict reference names.
    Standard,
    /// lmml 0.2.0's segmentation, quirks included.
    Lmml,
}

/// `--context-as`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SegmentContextAs {
    /// Keep it with the role `context`.
    Keep,
    /// Send it as a `system` message.
    System,
    /// Send it as a `user` message.
    User,
    /// Leave it out.
    Drop,
}

impl From<SegmentDialect> for segment::Dialect {
    fn from(dialect: SegmentDialect) -> segment::Dialect {
        match dialect {
            SegmentDialect::Standard => segment::Dialect::Standard,
            SegmentDialect::Lmml => segment::Dialect::Lmml,
        }
    }
}

impl From<SegmentContextAs> for segment::ContextAs {
    fn from(context_as: SegmentContextAs) -> segment::ContextAs {
        match context_as {
            SegmentContextAs::Keep => segment::ContextAs::Keep,
            SegmentContextAs::System => segment::ContextAs::System,
            SegmentContextAs::User => segment::ContextAs::User,
            SegmentContextAs::Drop => segment::ContextAs::Drop,
        }
    }
}

// `render`.

/// Arguments of `render`.
#[derive(Debug, clap::Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// A JSON file with the stores: `{"state": {...}, "local": {...}, "global": {...}}`,
    /// each key optional.
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) context: Option<PathBuf>,

    /// The random seed for `chance`/`weighted` blocks; random when absent (0 with --samples).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,

    /// Print the output, the stores after rendering, the writes and the effects as JSON.
    #[arg(long, conflicts_with = "samples")]
    pub(crate) json: bool,

    /// Render N times with seeds S..S+N-1 and print how often each output occurs.
    #[arg(long, value_name = "N", conflicts_with = "exact")]
    pub(crate) samples: Option<u64>,

    /// Print the exact probability of each output, enumerating every random path.
    #[arg(long, conflicts_with_all = ["json", "seed", "commit"])]
    pub(crate) exact: bool,

    /// The most random paths --exact renders before giving up.
    #[arg(long, value_name = "N", requires = "exact", default_value_t = Distribution::DEFAULT_MAX_PATHS)]
    pub(crate) max_paths: usize,

    /// A state history file: render with its effective state (over the --context state).
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) history: Option<PathBuf>,

    /// Render message N of the history (reading the state before it) instead of a new one.
    #[arg(long, value_name = "N", requires = "history")]
    pub(crate) at: Option<usize>,

    /// Record the writes in the history file: a new message, or with --at a new swipe of N.
    #[arg(long, requires = "history", conflicts_with = "samples")]
    pub(crate) commit: bool,

    /// Printing or iterating an undefined value is an error.
    #[arg(long)]
    pub(crate) strict: bool,

    /// Remove the first newline after a statement tag or comment (Jinja's trim_blocks).
    #[arg(long)]
    pub(crate) trim_blocks: bool,

    /// Remove indentation before a statement tag or comment (Jinja's lstrip_blocks).
    #[arg(long)]
    pub(crate) lstrip_blocks: bool,
}

// `check`.

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// The stores the template will render with; state variables it provides are not
    /// reported as undefined.
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) context: Option<PathBuf>,

    /// Print the whole analysis as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

// `build` and `batch`: the pipeline flags.

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

    /// The tools the model may call, over `/// tools:`: a JSON array of
    /// `{"name", "description", "parameters"}` (or OpenAI's wrapped form).
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Option<PathBuf>,

    /// Which tool the model must call, over `/// tool_choice:`.
    #[arg(long, value_name = "auto|none|required|NAME")]
    pub(crate) tool_choice: Option<String>,

    /// The JSON Schema of a structured answer, over `/// response_schema:`.
    #[arg(long, value_name = "FILE")]
    pub(crate) response_schema: Option<PathBuf>,
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
    /// OpenAI Responses.
    OpenaiResponses,
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
    /// The pipeline these flags describe (`--messages` is not part of it:
    /// it asks for the arranged messages instead of the body), without the
    /// files `--tools` and `--response-schema` name (`crate::prompt::pipeline`
    /// reads them).
    pub(crate) fn builder(&self) -> PipelineBuilder {
        let provider = match self.provider {
            ProviderName::Openai => Provider::OpenAi,
            ProviderName::OpenaiResponses => Provider::OpenAiResponses,
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
        Pipeline::builder(provider)
            .environment(environment)
            .params(self.params.iter().cloned())
            .context_as(context_as)
            .alternation(alternation)
            .stages(Stages {
                comments: !self.no_comments,
                template: !self.no_template,
                segment: !self.no_segment,
            })
    }
}

// `batch`.

/// `batch`: one request per row.
#[derive(Debug, clap::Args)]
pub(crate) struct BatchArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// The rows: one template context per line (JSONL); `-` is standard input.
    #[arg(long, value_name = "ROWS.jsonl")]
    pub(crate) rows: PathBuf,

    /// The seed of row 0; row i uses N+i (random when absent).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,

    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<NonZeroUsize>,

    /// What each row writes: the bare body, or a provider's batch file
    /// (error records then go to `--errors`, else standard error).
    #[arg(long, value_enum, default_value_t = FormatName::Bodies)]
    pub(crate) format: FormatName,

    /// The rows' top-level key holding each request's id (beside `state`,
    /// `local`, `global`); without it, row i's id is `row-i`.
    #[arg(long, value_name = "NAME")]
    pub(crate) id_field: Option<String>,

    /// Where error records go with a batch-file format (default: standard error).
    #[arg(long, value_name = "FILE")]
    pub(crate) errors: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) pipeline: PipelineArgs,
}

/// The values of `batch --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatName {
    /// One request body (or error record) per row.
    Bodies,
    /// OpenAI's batch input file (JSONL `custom_id`, `method`, `url`, `body`).
    OpenaiBatch,
    /// The body of Anthropic's `POST /v1/messages/batches` (`requests`).
    AnthropicBatch,
    /// Gemini's batch input file (JSONL `key`, `request`).
    GeminiBatch,
}

impl BatchArgs {
    /// The library's format.
    pub(crate) fn format(&self) -> Format {
        match self.format {
            FormatName::Bodies => Format::Bodies,
            FormatName::OpenaiBatch => Format::OpenAiBatch,
            FormatName::AnthropicBatch => Format::AnthropicBatch,
            FormatName::GeminiBatch => Format::GeminiBatch,
        }
    }

    /// Flags that cannot go together, said as a usage error.
    fn conflict(&self) -> Option<String> {
        let format = self.format();
        let provider = self.pipeline.builder().build().provider();
        let name = format.as_str();
        if !format.accepts(provider) {
            return Some(format!(
                "`--format {name}` holds other bodies than `--provider {}`'s",
                provider.as_str()
            ));
        }
        if !format.is_envelope() {
            return match (&self.id_field, &self.errors) {
                (Some(_), _) => Some("`--id-field` needs a batch-file `--format`".to_owned()),
                (_, Some(_)) => Some(
                    "`--errors` needs a batch-file `--format` (with bodies, error records are lines of the output)"
                        .to_owned(),
                ),
                _ => None,
            };
        }
        if self.pipeline.messages {
            return Some(format!("`--format {name}` holds request bodies, not `--messages`"));
        }
        match self.id_field.as_deref() {
            Some(field @ ("state" | "local" | "global")) => {
                Some(format!("`--id-field {field}` names a store of the context"))
            }
            _ => None,
        }
    }
}

impl Args {
    /// Checks what clap cannot: flags that conflict by their values. The
    /// error is a usage error (exit code 2), as clap's own.
    pub(crate) fn check(&self) -> Result<(), clap::Error> {
        let conflict = match &self.command {
            Command::Batch(batch) => batch.conflict(),
            _ => None,
        };
        match conflict {
            Some(message) => {
                use clap::CommandFactory;
                Err(Args::command().error(clap::error::ErrorKind::ArgumentConflict, message))
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_choice() {
        use std::ffi::OsStr;
        let set = Some(OsStr::new("1"));
        assert!(ColorChoice::Auto.colors(true, None));
        assert!(ColorChoice::Auto.colors(true, Some(OsStr::new(""))));
        assert!(!ColorChoice::Auto.colors(true, set));
        assert!(!ColorChoice::Auto.colors(false, None));
        assert!(ColorChoice::Always.colors(false, set));
        assert!(!ColorChoice::Never.colors(true, None));
    }
}
