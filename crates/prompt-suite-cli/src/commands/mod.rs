//! One module per subcommand. Each defines its clap arguments and an
//! `execute` that reads its input, calls its crate and writes the result.

use clap::Subcommand;

use crate::diagnostic::Diagnostic;

mod segment;

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Split a narrative (or a .lmmlz bundle) into role turns and render them as chat messages.
    Segment(segment::SegmentArgs),
}

/// Runs one subcommand.
pub(crate) fn execute(command: Command) -> Result<(), Diagnostic> {
    match command {
        Command::Segment(args) => segment::execute(args),
    }
}
