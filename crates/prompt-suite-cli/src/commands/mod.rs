//! One module per subcommand, each an `execute` that reads its input, calls
//! its crate and writes the result. Their flags are in [`crate::args`]; no
//! command module uses another.

use crate::args::Command;
use crate::diagnostic::Diagnostic;

mod batch;
mod build;
mod chat_template;
mod check;
mod comments;
mod convert;
mod flip;
mod generate;
mod render;
mod segment;
mod state;

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
        Command::State(args) => state::execute(args),
        Command::Completions(args) => generate::completions(&args),
        Command::Man(args) => generate::man(&args),
        Command::Convert(args) => convert::execute(args),
        Command::ChatTemplate(args) => chat_template::execute(args),
    }
}
