//! One module per subcommand. Each defines its clap arguments and an
//! `execute` that reads its input, calls its crate and writes the result.

use clap::Subcommand;

use crate::diagnostic::Diagnostic;

mod comments;

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Remove `///` authoring comments and read the directives they carry.
    Comments(comments::CommentsArgs),
}

/// Runs one subcommand.
pub(crate) fn execute(command: Command) -> Result<(), Diagnostic> {
    match command {
        Command::Comments(args) => comments::execute(args),
    }
}
