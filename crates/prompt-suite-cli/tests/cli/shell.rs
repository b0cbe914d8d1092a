//! The shell every subcommand shares: help, version, usage errors.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

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
