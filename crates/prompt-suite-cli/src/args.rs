//! Every flag of the command line, as data: the whole command line
//! ([`Args`]), one struct per subcommand, the flag groups several
//! subcommands share, each one flattened struct under one help heading
//! (Input: [`InputArg`], [`SourceArgs`]; Template: [`TemplateArgs`],
//! [`TemplatesArg`], [`HistoryArgs`]; Pipeline: [`PipelineArgs`];
//! Transcript: [`TranscriptArgs`], [`ViewArgs`], [`FramingArgs`],
//! [`DialectArg`]; Provider: [`ProviderArgs`], [`ToolArgs`]; Chat template:
//! [`ChatTemplateFileArgs`], [`ChatTemplateOptions`]; Output:
//! [`BuildOutputArgs`]; Global: the flags of [`Args`]) and their values. A command module reads its struct from here
//! and never from another command module; the conversions to the libraries'
//! options live beside the flags they read.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use prompt_suite::brackets::{Distribution, Environment, Scope};
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
    #[arg(long, value_enum, global = true, default_value_t = ErrorFormat::Human, help_heading = "Global")]
    pub(crate) error_format: ErrorFormat,

    /// Colours in errors and warnings for people: `auto` when standard
    /// error is a terminal and `NO_COLOR` is not set; `always` even with
    /// `NO_COLOR`.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto, help_heading = "Global")]
    pub(crate) color: ColorChoice,

    /// Write the result to FILE, replaced whole on success (else untouched),
    /// instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE", global = true, help_heading = "Global")]
    pub(crate) output: Option<PathBuf>,

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
#[command(next_help_heading = "Input")]
pub(crate) struct InputArg {
    /// The input file; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
}

/// The input flags of the subcommands that render a template (`render`,
/// `check`, `build`, `batch`): the template or prompt (FILE or `-t`), and
/// the context it renders with (`--context`, then `-D` over it).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Input")]
pub(crate) struct SourceArgs {
    /// The input file; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,

    /// The template (or prompt) itself, instead of FILE (includes then need --templates).
    #[arg(short = 't', long = "template", value_name = "TEXT", conflicts_with = "file")]
    pub(crate) template: Option<String>,

    /// The stores: `{"state": {...}, "local": {...}, "global": {...}}`, each key optional;
    /// JSON, or TOML when the file name ends in `.toml`.
    #[arg(long, value_name = "FILE")]
    pub(crate) context: Option<PathBuf>,

    /// Set a variable over --context: NAME=VALUE into state, L.NAME=VALUE or G.NAME=VALUE into
    /// local or global. VALUE is JSON when it is JSON (`-D n=null` is null), else a string
    /// (`-D 'n="null"'` is the string); repeatable.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE", value_parser = Define::parse)]
    pub(crate) defines: Vec<Define>,
}

impl SourceArgs {
    /// Where a template without a file came from, for the error that says
    /// it has no directory to resolve names in.
    pub(crate) fn from(&self) -> &'static str {
        if self.template.is_some() { "`-t`" } else { "standard input" }
    }

    /// The file FILE names, when it names one (not standard input).
    pub(crate) fn path(&self) -> Option<&std::path::Path> {
        self.file.as_deref().filter(|path| path.as_os_str() != "-")
    }
}

/// The template flags of the subcommands that render (`render`, `build`,
/// `batch`).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Template")]
pub(crate) struct TemplateArgs {
    /// The random seed of `chance`/`weighted` blocks: random when absent (`render
    /// --samples` starts at 0); `batch` row i uses N+i.
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,

    /// Printing or iterating an undefined value is an error.
    #[arg(long)]
    pub(crate) strict: bool,
}

/// `--templates DIR` (`render`, `check`).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Template")]
pub(crate) struct TemplatesArg {
    /// The directory `include`, `import` and `extends` names resolve in, never leaving it
    /// (default: FILE's directory; none for -t or standard input).
    #[arg(long, value_name = "DIR")]
    pub(crate) templates: Option<PathBuf>,
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
    /// Convert a request body (OpenAI Chat Completions) to another provider's request body.
    Convert(ConvertArgs),
    /// Render a conversation through a model's chat template (.jinja, chat_template.json, tokenizer_config.json).
    ChatTemplate(ChatTemplateArgs),
    /// Read and edit a state history file (`render --history`): get, set, list, swipes, rollback.
    State(StateArgs),
    /// Print the completion script of a shell (source it, or install it where the shell looks).
    Completions(CompletionsArgs),
    /// Print the manual page (roff): of the whole command line, or of one subcommand.
    Man(ManArgs),
}

// `state`.

/// Arguments of `state`.
#[derive(Debug, clap::Args)]
pub(crate) struct StateArgs {
    #[command(subcommand)]
    pub(crate) action: StateAction,
}

/// The history file every `state` subcommand takes.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct HistoryArg {
    /// The state history file (`{"messages": [{"swipes": [...], "active": N}, ...]}`).
    #[arg(long, value_name = "FILE")]
    pub(crate) history: PathBuf,
}

/// The `state` subcommands: two that read, five that write (atomically,
/// under the history's lock, printing nothing).
#[derive(Debug, Subcommand)]
pub(crate) enum StateAction {
    /// Print the JSON value of state variable NAME (after the last message, or before --at N).
    Get {
        /// The state variable.
        name: String,
        #[command(flatten)]
        history: HistoryArg,
        /// Read the state before message N (the state message N renders with).
        #[arg(long, value_name = "N")]
        at: Option<usize>,
    },
    /// Set state variable NAME in the last message (a missing history is created with one).
    Set {
        /// The state variable.
        name: String,
        /// The value: parsed as JSON when it is JSON (`3`, `null`, `"quoted"`), else a string
        /// (after `--` when it starts with `-` and is not a number).
        #[arg(allow_negative_numbers = true)]
        value: String,
        #[command(flatten)]
        history: HistoryArg,
    },
    /// Print the effective state as a JSON object (after the last message, or before --at N).
    List {
        #[command(flatten)]
        history: HistoryArg,
        /// Read the state before message N.
        #[arg(long, value_name = "N")]
        at: Option<usize>,
    },
    /// Add an empty swipe to message N and make it the active one.
    Swipe {
        /// The message.
        #[arg(value_name = "N")]
        message: usize,
        #[command(flatten)]
        history: HistoryArg,
    },
    /// Make swipe SWIPE of message N the active one.
    Select {
        /// The message.
        #[arg(value_name = "N")]
        message: usize,
        /// The swipe.
        swipe: usize,
        #[command(flatten)]
        history: HistoryArg,
    },
    /// Delete message N: its writes vanish, later messages move down.
    Delete {
        /// The message.
        #[arg(value_name = "N")]
        message: usize,
        #[command(flatten)]
        history: HistoryArg,
    },
    /// Roll back to the first LEN messages.
    Truncate {
        /// How many messages to keep.
        len: usize,
        #[command(flatten)]
        history: HistoryArg,
    },
}

impl StateAction {
    /// Whether the subcommand prints (only `get` and `list` do).
    pub(crate) fn prints(&self) -> bool {
        matches!(self, StateAction::Get { .. } | StateAction::List { .. })
    }
}

// `completions` and `man`.

/// Says that `name` is not a subcommand, naming those that are.
fn unknown_subcommand(name: &str) -> Option<String> {
    use clap::CommandFactory;
    let command = Args::command();
    if command.find_subcommand(name).is_some() {
        return None;
    }
    let names: Vec<&str> = command.get_subcommands().map(clap::Command::get_name).collect();
    Some(format!("`{name}` is not a subcommand; one of: {}", names.join(", ")))
}

/// Arguments of `completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell whose script is printed.
    #[arg(value_enum, value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

/// Arguments of `man`.
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// The subcommand whose page is printed (`prompt-suite-NAME(1)`); the
    /// whole command line's (`prompt-suite(1)`) when absent.
    #[arg(value_name = "SUBCOMMAND", conflicts_with = "dir")]
    pub(crate) subcommand: Option<String>,

    /// Write every page into DIR instead (`prompt-suite.1`, `prompt-suite-NAME.1`, ...),
    /// each replaced atomically; DIR must exist.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
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
    #[arg(long, value_name = "ID", help_heading = "Transcript")]
    pub(crate) speaker: String,

    #[command(flatten)]
    pub(crate) framing: FramingArgs,

    #[command(flatten)]
    pub(crate) view: ViewArgs,

    /// Do not add a `(continue)` user message after a trailing own turn
    /// (standard dialect: nor before a leading one).
    #[arg(long, help_heading = "Transcript")]
    pub(crate) no_final_user: bool,

    #[command(flatten)]
    pub(crate) dialect: DialectArg,
}

/// The system message before a conversation and the cue after it (`flip`,
/// `build`, `batch`).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Transcript")]
pub(crate) struct FramingArgs {
    /// The leading system message (omitted when empty).
    #[arg(long, value_name = "TEXT")]
    pub(crate) system: Option<String>,

    /// The trailing cue, added as the last user message (omitted when empty).
    #[arg(long, value_name = "TEXT")]
    pub(crate) instruction: Option<String>,
}

/// How other speakers' turns are shown: the flags `flip` and `build
/// --transcript` share.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Transcript")]
pub(crate) struct ViewArgs {
    /// The prefix of other speakers' turns; `{speaker}` is replaced by the id.
    #[arg(long, value_name = "TEMPLATE", default_value = "{speaker}: ")]
    pub(crate) label: String,

    /// Leave other speakers' text (and labels) as written.
    #[arg(long)]
    pub(crate) no_sanitize: bool,

    /// Where other speakers' ids go (standard dialect only).
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
    pub(crate) dialect: DialectArg,
}

/// The `--dialect` flag both subcommands take (`--mode` is its alias).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Transcript")]
pub(crate) struct DialectArg {
    /// `llmr` reproduces the R package LLMR exactly; `standard` is hardened (alias: --mode).
    #[arg(long, alias = "mode", value_enum, default_value_t = DialectName::Standard)]
    dialect: DialectName,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DialectName {
    /// The suite's hardened behaviour.
    Standard,
    /// LLMR's `transcript_as_messages` / `ensure_alternating_messages`, exactly.
    Llmr,
}

impl DialectArg {
    /// The dialect of `--dialect`.
    pub(crate) fn dialect(&self) -> flip::Dialect {
        match self.dialect {
            DialectName::Standard => flip::Dialect::Standard,
            DialectName::Llmr => flip::Dialect::Llmr,
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

    /// A delimiter naming NAME opens a ROLE turn (user, assistant, system
    /// or tool), e.g. `--role-alias ChatGPT=assistant`; repeatable; not
    /// with `--dialect lmml`.
    #[arg(long = "role-alias", value_name = "NAME=ROLE", value_parser = role_alias)]
    pub(crate) role_aliases: Vec<String>,
}

/// One `NAME=ROLE` pair of `--role-alias`, checked alone (pairs that
/// conflict are found by [`Args::check`]).
fn role_alias(arg: &str) -> Result<String, String> {
    segment::RoleAliases::from_pairs([arg]).map(|_| arg.to_owned()).map_err(|err| err.to_string())
}

/// The aliases of `--role-alias` pairs, which [`Args::check`] has checked
/// together (so none is refused here).
pub(crate) fn role_aliases(pairs: &[String]) -> segment::RoleAliases {
    segment::RoleAliases::from_pairs(pairs).unwrap_or_default()
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
    pub(crate) input: SourceArgs,

    #[command(flatten)]
    pub(crate) template: TemplateArgs,

    #[command(flatten)]
    pub(crate) templates: TemplatesArg,

    /// The input is a prompt file: remove its `///` comments first, as `build` does (the
    /// comments' directives are not read).
    #[arg(long, help_heading = "Pipeline")]
    pub(crate) prompt: bool,

    /// Remove the first newline after a statement tag or comment (Jinja's trim_blocks).
    #[arg(long, help_heading = "Template")]
    pub(crate) trim_blocks: bool,

    /// Remove indentation before a statement tag or comment (Jinja's lstrip_blocks).
    #[arg(long, help_heading = "Template")]
    pub(crate) lstrip_blocks: bool,

    #[command(flatten)]
    pub(crate) history: HistoryArgs,

    /// Print the output, the stores after rendering, the writes and the effects as JSON.
    #[arg(long, conflicts_with = "samples", help_heading = "Output")]
    pub(crate) json: bool,

    /// Render N times with seeds S..S+N-1 and print how often each output occurs.
    #[arg(long, value_name = "N", conflicts_with_all = ["exact", "commit"], help_heading = "Output")]
    pub(crate) samples: Option<u64>,

    /// Print the exact probability of each output, enumerating every random path.
    #[arg(long, conflicts_with_all = ["json", "seed", "commit"], help_heading = "Output")]
    pub(crate) exact: bool,

    /// The most random paths --exact renders before giving up.
    #[arg(long, value_name = "N", requires = "exact", default_value_t = Distribution::DEFAULT_MAX_PATHS, help_heading = "Output")]
    pub(crate) max_paths: usize,
}

/// The state history flags (`render`, `build`): the same file, lock and
/// rule for both.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Template")]
pub(crate) struct HistoryArgs {
    /// A state history file: render with its effective state (over the --context state).
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) history: Option<PathBuf>,

    /// Render message N of the history (reading the state before it) instead of a new one.
    #[arg(long, value_name = "N", requires = "history")]
    pub(crate) at: Option<usize>,

    /// Record the writes in the history file: a new message, or with --at a new swipe of N.
    #[arg(long, requires = "history")]
    pub(crate) commit: bool,
}

/// One `-D/--define NAME=VALUE`: a variable of one store and its value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Define {
    /// The store: `L.` and `G.` name local and global, no prefix state.
    pub(crate) scope: Scope,
    /// The variable.
    pub(crate) name: String,
    /// The value: the JSON VALUE is, else VALUE as a string.
    pub(crate) value: serde_json::Value,
}

impl Define {
    /// `NAME=VALUE`, split at the first `=`. NAME is an identifier
    /// (`[A-Za-z_][A-Za-z0-9_]*`) after an optional `L.` or `G.`; VALUE is
    /// read as strict JSON when it is JSON at all (so `{"a":1,"a":2}` is an
    /// error, not a string), else taken as a string.
    fn parse(arg: &str) -> Result<Define, String> {
        let Some((target, value)) = arg.split_once('=') else {
            return Err(format!("`{arg}` is not NAME=VALUE"));
        };
        let (scope, name) = match target.split_once('.') {
            Some(("L", name)) => (Scope::Local, name),
            Some(("G", name)) => (Scope::Global, name),
            _ => (Scope::State, target),
        };
        let mut chars = name.chars();
        let identifier = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            return Err(format!(
                "`{target}` is not a variable name (an identifier, optionally after `L.` or `G.`)"
            ));
        }
        let value = if serde_json::from_str::<serde::de::IgnoredAny>(value).is_ok() {
            prompt_core::json::Reader::new()
                .parse(value)
                .map_err(|err| format!("the value of `{target}` is JSON, but {}", err.message()))?
        } else {
            serde_json::Value::String(value.to_owned())
        };
        Ok(Define { scope, name: name.to_owned(), value })
    }
}

// `check`.

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) input: SourceArgs,

    #[command(flatten)]
    pub(crate) templates: TemplatesArg,

    /// Keep `///` comments as template text (by default they are removed first, as `build`
    /// removes them from a prompt file).
    #[arg(long, help_heading = "Pipeline")]
    pub(crate) no_comments: bool,

    /// Print the whole analysis as JSON.
    #[arg(long, help_heading = "Output")]
    pub(crate) json: bool,

    /// Exit 1 (`warnings_denied`) when there is any warning, for CI; notes do not count.
    #[arg(long, help_heading = "Output")]
    pub(crate) deny_warnings: bool,
}

// `convert`.

/// Arguments of `convert`.
#[derive(Debug, clap::Args)]
pub(crate) struct ConvertArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// The API the input body is written for.
    #[arg(long, value_enum, default_value_t = ConvertFrom::Openai, help_heading = "Input")]
    pub(crate) from: ConvertFrom,

    #[command(flatten)]
    pub(crate) provider: ProviderArgs,
}

/// The values of `convert --from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ConvertFrom {
    /// An OpenAI Chat Completions request body.
    Openai,
}

// `chat-template`.

/// Arguments of `chat-template`.
#[derive(Debug, clap::Args)]
pub(crate) struct ChatTemplateArgs {
    /// The chat template: a `.jinja` file, `chat_template.json` or `tokenizer_config.json`.
    #[arg(value_name = "TEMPLATE", help_heading = "Input")]
    pub(crate) template: PathBuf,

    /// The conversation (`{"messages", "tools"?, "documents"?, "add_generation_prompt"?, ...}`);
    /// standard input when absent or `-`.
    #[arg(value_name = "CONVERSATION", help_heading = "Input")]
    pub(crate) conversation: Option<PathBuf>,

    /// The named template of the config to use (`default`, `tool_use`, ...).
    #[arg(long, value_name = "NAME", help_heading = "Template")]
    pub(crate) name: Option<String>,

    #[command(flatten)]
    pub(crate) options: ChatTemplateOptions,

    /// Print `{"output", "data_ranges", "generation_ranges"}` as JSON.
    #[arg(long, help_heading = "Output")]
    pub(crate) json: bool,
}

/// How a chat template renders: the flags `chat-template`, `build` and
/// `batch` (with `--chat-template`) share.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Chat template")]
pub(crate) struct ChatTemplateOptions {
    /// The time `strftime_now` reads (RFC 3339, e.g. 2026-01-02T03:04:05+01:00); the local time when absent.
    #[arg(long, value_name = "RFC3339", value_parser = rfc3339)]
    pub(crate) now: Option<prompt_suite::brackets::jiff::Zoned>,

    /// Let special tokens of the model come out of the messages (trusted input only).
    #[arg(long)]
    pub(crate) allow_special_tokens: bool,

    /// One more special token to refuse in the messages (repeatable).
    #[arg(long = "special-token", value_name = "TOKEN")]
    pub(crate) special_tokens: Vec<String>,
}

impl ChatTemplateOptions {
    /// The chat-template crate's options (`name`: the named template).
    pub(crate) fn options(&self, name: Option<String>) -> prompt_suite::chat_template::Options {
        use prompt_suite::brackets::Clock;
        prompt_suite::chat_template::Options {
            name,
            clock: self.now.clone().map_or(Clock::Local, Clock::Fixed),
            special_tokens: self.special_tokens.clone(),
            allow_special_tokens: self.allow_special_tokens,
        }
    }
}

/// `--provider completions`'s chat template, for `build` and `batch`.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Chat template")]
pub(crate) struct ChatTemplateFileArgs {
    /// The model's chat template `--provider completions` renders the conversation through:
    /// a `.jinja` file, `chat_template.json` or `tokenizer_config.json`.
    #[arg(long = "chat-template", id = "chat_template", value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) options: ChatTemplateOptions,
}

impl ChatTemplateFileArgs {
    /// `--chat-template` with another provider, or the template's flags
    /// without it, said as a usage error; `None` for `completions` without
    /// one (`missing`).
    fn conflict(&self, provider: Provider) -> Option<String> {
        let given = self.options.now.is_some()
            || self.options.allow_special_tokens
            || !self.options.special_tokens.is_empty();
        match (provider, &self.file) {
            (Provider::Completions, _) => None,
            (_, Some(_)) => Some(format!(
                "`--chat-template` is for `--provider completions`, not `--provider {}`",
                provider.as_str()
            )),
            (_, None) if given => Some(
                "`--now`, `--allow-special-tokens` and `--special-token` go with `--provider completions --chat-template FILE`"
                    .to_owned(),
            ),
            _ => None,
        }
    }

    /// Whether `provider` needs `--chat-template` and it is missing.
    fn missing(&self, provider: Provider) -> bool {
        provider == Provider::Completions && self.file.is_none()
    }
}

/// Reads an RFC 3339 time (`Z` or a numeric offset) as a time in that
/// offset (the engine's rule, which the bindings' `now=` shares).
fn rfc3339(arg: &str) -> Result<prompt_suite::brackets::jiff::Zoned, String> {
    prompt_suite::brackets::Clock::parse_time(arg)
}

// `build` and `batch`: the pipeline flags.

/// `build`: one request body.
#[derive(Debug, clap::Args)]
pub(crate) struct BuildArgs {
    #[command(flatten)]
    pub(crate) input: SourceArgs,

    #[command(flatten)]
    pub(crate) template: TemplateArgs,

    #[command(flatten)]
    pub(crate) history: HistoryArgs,

    #[command(flatten)]
    pub(crate) pipeline: PipelineArgs,

    #[command(flatten)]
    pub(crate) transcript: TranscriptArgs,

    #[command(flatten)]
    pub(crate) framing: FramingArgs,

    #[command(flatten)]
    pub(crate) provider: ProviderArgs,

    #[command(flatten)]
    pub(crate) chat: ChatTemplateFileArgs,

    #[command(flatten)]
    pub(crate) tools: ToolArgs,

    #[command(flatten)]
    pub(crate) output: BuildOutputArgs,
}

/// What `build` and `batch` print.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Output")]
pub(crate) struct BuildOutputArgs {
    /// Print `{"body", "notices", "messages", "metadata", "writes", "effects", "seed"}` instead of
    /// the body alone (batch: for each row).
    #[arg(long)]
    pub(crate) full: bool,

    /// Skip the provider stage: print the provider-neutral messages.
    #[arg(long)]
    pub(crate) messages: bool,
}

/// The transcript flags `build` and `batch` share.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Transcript")]
pub(crate) struct TranscriptArgs {
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
}

/// The pipeline flags `build` and `batch` share.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Pipeline")]
pub(crate) struct PipelineArgs {
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

    /// A narrative delimiter naming NAME opens a ROLE turn (user,
    /// assistant, system or tool), e.g. `--role-alias You=user`; repeatable.
    #[arg(long = "role-alias", value_name = "NAME=ROLE", value_parser = role_alias)]
    pub(crate) role_aliases: Vec<String>,
}

/// The provider flags `build`, `batch` and `convert` share.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Provider")]
pub(crate) struct ProviderArgs {
    /// The provider whose request body is made: `openai` when absent (`convert` needs
    /// one; alias: --to).
    #[arg(long, alias = "to", value_enum)]
    provider: Option<ProviderName>,

    /// Set a request parameter over the prompt's `/// param:` lines (convert: over the
    /// body's), for example `--param model=claude-sonnet-4-5`; repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = name_value)]
    pub(crate) params: Vec<(String, String)>,
}

impl ProviderArgs {
    /// The provider of `--provider`, OpenAI's chat completions when absent.
    pub(crate) fn provider(&self) -> Provider {
        self.provider.unwrap_or(ProviderName::Openai).provider()
    }
}

/// The tool flags `build` and `batch` share.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Provider")]
pub(crate) struct ToolArgs {
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
    /// OpenAI-compatible `/v1/completions` of local model servers: the conversation through
    /// `--chat-template` (build, batch).
    Completions,
}

impl ProviderName {
    /// The provider it names.
    pub(crate) fn provider(self) -> Provider {
        match self {
            ProviderName::Openai => Provider::OpenAi,
            ProviderName::OpenaiResponses => Provider::OpenAiResponses,
            ProviderName::Anthropic => Provider::Anthropic,
            ProviderName::Gemini => Provider::Gemini,
            ProviderName::Completions => Provider::Completions,
        }
    }
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

/// The pipeline the flags describe (`--messages` is not part of it: it
/// asks for the arranged messages instead of the body), without the files
/// `--tools` and `--response-schema` name (`crate::prompt::pipeline` reads
/// them).
pub(crate) fn builder(
    pipeline: &PipelineArgs,
    template: &TemplateArgs,
    provider: &ProviderArgs,
    framing: &FramingArgs,
) -> PipelineBuilder {
    let context_as = match pipeline.context_as {
        ContextAsName::System => ContextAs::System,
        ContextAsName::User => ContextAs::User,
        ContextAsName::Drop => ContextAs::Drop,
    };
    let alternation = match pipeline.alternation {
        AlternationName::Auto => Alternation::Auto,
        AlternationName::Always => Alternation::Always,
        AlternationName::Never => Alternation::Never,
    };
    let mut environment = Environment::new();
    environment.set_strict(template.strict);
    let mut builder = Pipeline::builder(provider.provider());
    if let Some(system) = &framing.system {
        builder = builder.system(system.as_str());
    }
    if let Some(instruction) = &framing.instruction {
        builder = builder.instruction(instruction.as_str());
    }
    builder
        .environment(environment)
        .params(provider.params.iter().cloned())
        .context_as(context_as)
        .role_aliases(role_aliases(&pipeline.role_aliases))
        .alternation(alternation)
        .stages(
            Stages::all()
                .with_comments(!pipeline.no_comments)
                .with_template(!pipeline.no_template)
                .with_segment(!pipeline.no_segment),
        )
}

// `batch`.

/// `batch`: one request per row.
#[derive(Debug, clap::Args)]
pub(crate) struct BatchArgs {
    #[command(flatten)]
    pub(crate) input: SourceArgs,

    /// The rows: one template context per line (JSONL), each over --context and under -D;
    /// `-` is standard input.
    #[arg(long, value_name = "ROWS.jsonl", help_heading = "Input")]
    pub(crate) rows: PathBuf,

    /// The rows' top-level key holding each request's id (beside `state`,
    /// `local`, `global`); without it, row i's id is `row-i`.
    #[arg(long, value_name = "NAME", help_heading = "Input")]
    pub(crate) id_field: Option<String>,

    #[command(flatten)]
    pub(crate) template: TemplateArgs,

    #[command(flatten)]
    pub(crate) pipeline: PipelineArgs,

    #[command(flatten)]
    pub(crate) transcript: TranscriptArgs,

    #[command(flatten)]
    pub(crate) framing: FramingArgs,

    #[command(flatten)]
    pub(crate) provider: ProviderArgs,

    #[command(flatten)]
    pub(crate) chat: ChatTemplateFileArgs,

    #[command(flatten)]
    pub(crate) tools: ToolArgs,

    #[command(flatten)]
    pub(crate) output: BuildOutputArgs,

    /// What each row writes: the bare body, or a provider's batch file
    /// (error records then go to `--errors`, else standard error).
    #[arg(long, value_enum, default_value_t = FormatName::Bodies, help_heading = "Output")]
    pub(crate) format: FormatName,

    /// Where error records go with a batch-file format (default: standard error).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) errors: Option<PathBuf>,

    /// Write the requests into numbered files within the provider's batch-file limits, named
    /// after `-o FILE` (`-o out.jsonl`: `out-0001.jsonl`, `out-0002.jsonl`, ...); their names are
    /// printed, one a line
    #[arg(long, help_heading = "Output")]
    pub(crate) split: bool,

    /// With --split: at most N requests a file (below the provider's limit)
    #[arg(long, value_name = "N", requires = "split", help_heading = "Output")]
    pub(crate) max_requests: Option<NonZeroUsize>,

    /// With --split: at most BYTES bytes a file (below the provider's limit)
    #[arg(long, value_name = "BYTES", requires = "split", help_heading = "Output")]
    pub(crate) max_bytes: Option<std::num::NonZeroU64>,

    /// The `-o` file that --split names its files after (taken from `-o`).
    #[arg(skip)]
    pub(crate) split_into: Option<PathBuf>,

    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "N", help_heading = "Global")]
    pub(crate) jobs: Option<NonZeroUsize>,
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
        let provider = self.provider.provider();
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
        if self.output.messages {
            return Some(format!("`--format {name}` holds request bodies, not `--messages`"));
        }
        if self.output.full {
            return Some(format!("`--format {name}` holds request bodies, not `--full` builds"));
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
    /// `--role-alias` pairs that conflict (one name, two roles), or given
    /// where nothing would read them: with `segment --dialect lmml`, which
    /// has no aliases, and with `--no-segment`, which opens no turns.
    fn role_alias_conflict(&self) -> Option<String> {
        let (pairs, lmml, unsegmented) = match &self.command {
            Command::Segment(args) => {
                (&args.role_aliases, args.dialect == SegmentDialect::Lmml, false)
            }
            Command::Build(args) => (&args.pipeline.role_aliases, false, args.pipeline.no_segment),
            Command::Batch(args) => (&args.pipeline.role_aliases, false, args.pipeline.no_segment),
            _ => return None,
        };
        if lmml && !pairs.is_empty() {
            return Some(
                "`--role-alias` needs `--dialect standard`: lmml has no aliases".to_owned(),
            );
        }
        if unsegmented && !pairs.is_empty() {
            return Some(
                "`--role-alias` names the turns of a narrative: `--no-segment` opens none"
                    .to_owned(),
            );
        }
        segment::RoleAliases::from_pairs(pairs).err().map(|err| err.to_string())
    }

    /// Checks what clap cannot: flags that conflict by their values. The
    /// error is a usage error (exit code 2), as clap's own.
    pub(crate) fn check(&self) -> Result<(), clap::Error> {
        let conflict = match &self.command {
            Command::Batch(batch)
                if batch.split && self.output.as_deref().is_none_or(|path| path == "-") =>
            {
                Some("`--split` writes numbered files named after `-o FILE`: give `-o`".to_owned())
            }
            Command::Batch(batch) if batch.split && !batch.format().is_envelope() => Some(
                "`--split` needs a batch-file `--format` (bare bodies have no provider limits)"
                    .to_owned(),
            ),
            Command::Build(BuildArgs { provider, chat, .. })
            | Command::Batch(BatchArgs { provider, chat, .. })
                if chat.missing(provider.provider()) =>
            {
                let subcommand =
                    if matches!(self.command, Command::Build(_)) { "build" } else { "batch" };
                return Err(missing_argument(
                    subcommand,
                    "`--provider completions` renders the conversation through the model's \
                     chat template: `--chat-template FILE` (a `.jinja` file, \
                     `chat_template.json` or `tokenizer_config.json`)",
                ));
            }
            Command::Build(build) => build.chat.conflict(build.provider.provider()),
            Command::Batch(batch) => {
                batch.chat.conflict(batch.provider.provider()).or_else(|| batch.conflict())
            }
            Command::Convert(convert) if convert.provider.provider() == Provider::Completions => {
                Some(
                    "`convert` writes chat request bodies; a completions body is made by \
                     `build --provider completions --chat-template FILE`"
                        .to_owned(),
                )
            }
            Command::Man(ManArgs { subcommand: Some(name), .. }) => unknown_subcommand(name),
            Command::Man(ManArgs { dir: Some(_), .. }) if self.output.is_some() => {
                Some("`man --dir` writes its pages into DIR: `-o` has nothing to write".to_owned())
            }
            Command::Convert(convert) if convert.provider.provider.is_none() => {
                return Err(missing_argument(
                    "convert",
                    "`convert` needs the provider to write the body for: `--provider NAME`",
                ));
            }
            Command::State(state) if self.output.is_some() && !state.action.prints() => {
                Some("this `state` edit prints nothing: `-o` has nothing to write".to_owned())
            }
            _ => None,
        };
        let conflict = conflict.or_else(|| self.role_alias_conflict());
        match conflict {
            Some(message) => Err(usage(clap::error::ErrorKind::ArgumentConflict, message)),
            None => Ok(()),
        }
    }
}

/// A missing argument of `subcommand` that clap cannot see (it depends on
/// another flag's value): a usage error (exit code 2) with the
/// subcommand's usage line, as clap says its own.
fn missing_argument(subcommand: &str, message: &str) -> clap::Error {
    use clap::CommandFactory;
    let mut command = Args::command();
    command.build();
    let command = command.find_subcommand_mut(subcommand).expect("a subcommand");
    command.error(clap::error::ErrorKind::MissingRequiredArgument, message)
}

/// A usage error (exit code 2) of `kind`, said as clap says its own.
fn usage(kind: clap::error::ErrorKind, message: String) -> clap::Error {
    use clap::CommandFactory;
    Args::command().error(kind, message)
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
