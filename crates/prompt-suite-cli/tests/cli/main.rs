//! Runs the built `prompt-suite` binary and snapshots exit code, stdout and
//! stderr. One module per subcommand; `shell` holds the cases every
//! subcommand shares (help, version, usage errors).

mod batch;
mod build;
mod check;
mod comments;
mod flip;
mod render;
mod segment;
mod shell;

use std::process::Command;

use insta_cmd::get_cargo_bin;

/// The binary under test, with a fixed terminal width so help text is stable.
pub(crate) fn cli() -> Command {
    let mut command = Command::new(get_cargo_bin("prompt-suite"));
    command.env("COLUMNS", "100").env_remove("RUST_BACKTRACE");
    command
}
