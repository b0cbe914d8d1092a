//! `prompt-suite flip` and `prompt-suite alternate`: the `transcript-flip`
//! crate. Both read JSON, share the `--mode` flag and report the crate's
//! errors, so they live together.

use std::borrow::Cow;

use clap::ValueEnum;
use prompt_suite::flip::{self as transcript_flip, Dialect, FlipOptions, Label, SpeakerName};
use serde_json::Value;

use crate::args::InputArg;
use crate::diagnostic::{Diagnostic, Reportable};
use crate::input::Input;
use crate::output;

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
        FlipOptions::new().label(label).sanitize(!self.no_sanitize).speaker_name(speaker_name)
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
    fn mode(&self) -> Dialect {
        match self.mode {
            ModeName::Standard => Dialect::Standard,
            ModeName::Llmr => Dialect::Llmr,
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

/// Runs `flip`.
pub(crate) fn execute(args: FlipArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let text = input.text()?;
    let mut options =
        args.view.options().ensure_final_user(!args.no_final_user).dialect(args.mode.mode());
    if let Some(system) = args.system {
        options = options.system(system);
    }
    if let Some(instruction) = args.instruction {
        options = options.instruction(instruction);
    }
    let messages = transcript_flip::flip_json(text, &Value::String(args.speaker), &options)
        .map_err(|err| input.reject(&err))?;
    output::write_json(&messages)
}

/// Runs `alternate`. The crate returns the JSON text itself, every field
/// kept as written (numbers keep their digits), so it is printed as it is.
pub(crate) fn execute_alternate(args: AlternateArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let text = input.text()?;
    let mut json = transcript_flip::alternate_json(text, args.mode.mode())
        .map_err(|err| input.reject(&err))?;
    json.push('\n');
    output::write_bytes(json.as_bytes())
}

impl Reportable for transcript_flip::Error {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        transcript_flip::Error::message(self)
    }

    fn position(&self) -> Option<(usize, usize)> {
        self.line().zip(self.column())
    }

    fn snippet(&self) -> Option<String> {
        transcript_flip::Error::snippet(self).map(str::to_owned)
    }
}
