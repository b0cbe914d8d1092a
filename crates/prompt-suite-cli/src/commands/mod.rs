//! One module per subcommand. Each defines its clap arguments and an
//! `execute` that reads its input, calls its crate and writes the result.

use clap::Subcommand;

use crate::diagnostic::Diagnostic;

mod batch;
mod build;
mod check;
mod comments;
mod flip;
mod render;
mod segment;
mod template_context;

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Remove `///` authoring comments and read the directives they carry.
    Comments(comments::CommentsArgs),
    /// One speaker's view of a multi-speaker JSON transcript, as chat messages.
    Flip(flip::FlipArgs),
    /// Make a JSON message array provider-safe (one system, alternating, user first).
    Alternate(flip::AlternateArgs),
    /// Split a narrative (or a .lmmlz bundle) into role turns and render them as chat messages.
    Segment(segment::SegmentArgs),
    /// Render a bracket template ([[ expr ]], [% stmt %], [# comment #]).
    Render(render::RenderArgs),
    /// Build a provider request body (OpenAI, Anthropic, Gemini) from an authored prompt file.
    Build(build::BuildArgs),
    /// Build one request per JSONL row of contexts, in order, on all cores.
    Batch(batch::BatchArgs),
    /// Analyse a bracket template without rendering: names, macros, random blocks, warnings.
    Check(check::CheckArgs),
}

/// Runs one subcommand.
pub(crate) fn execute(command: Command) -> Result<(), Diagnostic> {
    match command {
        Command::Comments(args) => comments::execute(args),
        Command::Flip(args) => flip::execute(args),
        Command::Alternate(args) => flip::execute_alternate(args),
        Command::Segment(args) => segment::execute(args),
        Command::Render(args) => render::execute(args),
        Command::Build(args) => build::execute(args),
        Command::Batch(args) => batch::execute(args),
        Command::Check(args) => check::execute(args),
    }
}
