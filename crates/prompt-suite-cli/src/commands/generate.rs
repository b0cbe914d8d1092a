//! `prompt-suite completions SHELL` and `prompt-suite man`: what the shell
//! and `man` need, generated from the clap definition of [`crate::args`]
//! (`clap_complete`, `clap_mangen`), so they never fall behind a flag.

use clap::CommandFactory;

use crate::args::{Args, CompletionsArgs, ManArgs};
use crate::diagnostic::Diagnostic;
use crate::output;

/// The binary's name, as the shell and `man` know it.
const NAME: &str = "prompt-suite";

/// Runs `completions`: the script of `args.shell`.
pub(crate) fn completions(args: &CompletionsArgs) -> Result<(), Diagnostic> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Args::command(), NAME, &mut script);
    if args.shell == clap_complete::Shell::Bash {
        script = bash_fixed(&script);
    }
    output::write_bytes(&script)
}

/// clap_complete 4.6's bash script spells the states of a hyphenated
/// binary's subcommands two ways (clap-rs/clap#6421, open): the loop that
/// reads the words arrives at `prompt__suite__subcmd__render`, the arms are
/// labelled `prompt__subcmd__suite__subcmd__render`, so no subcommand's
/// flags would complete. The arms are relabelled the loop's way; once clap
/// is fixed the wrong spelling is gone and this changes nothing.
fn bash_fixed(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script).replace("prompt__subcmd__suite", "prompt__suite").into_bytes()
}

/// Runs `man`: the page of the whole command line, or of one subcommand
/// (named `prompt-suite-NAME`, as git names its pages).
pub(crate) fn man(args: &ManArgs) -> Result<(), Diagnostic> {
    let mut command = Args::command();
    // Building names each subcommand's page `prompt-suite-NAME`, its usage
    // `prompt-suite NAME`, and gives it the version the footer shows.
    command.build();
    let page = match &args.subcommand {
        None => command,
        // `Args::check` has refused a name that is not a subcommand.
        Some(name) => command.find_subcommand(name).cloned().unwrap_or_default(),
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff).map_err(|err| {
        Diagnostic::new("internal", format!("cannot render the manual page: {err}"))
    })?;
    output::write_bytes(&roff)
}
