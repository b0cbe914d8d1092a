//! Runs the built `prompt-suite` binary and snapshots exit code, stdout and
//! stderr. One module per subcommand; this file holds the shell's own cases.

use std::process::Command;

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};

/// The binary under test, with a fixed terminal width so help text is stable.
fn cli() -> Command {
    let mut command = Command::new(get_cargo_bin("prompt-suite"));
    command.env("COLUMNS", "100").env_remove("RUST_BACKTRACE");
    command
}

#[test]
fn long_help() {
    assert_cmd_snapshot!(cli().arg("--help"));
}

#[test]
fn version() {
    assert_cmd_snapshot!(cli().arg("--version"));
}

#[test]
fn unknown_flag_is_a_usage_error() {
    assert_cmd_snapshot!(cli().arg("--no-such-flag"));
}

#[test]
fn no_arguments_prints_help_as_a_usage_error() {
    assert_cmd_snapshot!(cli());
}
