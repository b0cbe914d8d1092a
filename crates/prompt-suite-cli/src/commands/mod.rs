//! One module per subcommand. Each defines its clap arguments and an
//! `execute` that reads its input, calls its crate and writes the result.

mod render;

use clap::Subcommand;

use crate::diagnostic::Diagnostic;

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Render a bracket template ([[ expr ]], [% stmt %], [# comment #]).
    Render(render::RenderArgs),
}

/// Runs one subcommand.
pub(crate) fn execute(command: Command) -> Result<(), Diagnostic> {
    match command {
        Command::Render(args) => render::execute(args),
    }
}
