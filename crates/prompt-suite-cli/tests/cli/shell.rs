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

/// `prompt-suite ... | head` must not turn into an error: when the reader
/// closes the pipe, the process stops writing and exits 0 without a word.
#[test]
fn closed_stdout_pipe_is_success() {
    use std::io::Write;
    use std::process::Stdio;

    // Far more than a pipe buffer holds, so the writes hit the closed pipe.
    let text = "prose without any comment marker\n".repeat(200_000);
    let mut input = tempfile::NamedTempFile::new().unwrap();
    input.write_all(text.as_bytes()).unwrap();
    let mut child = cli()
        .arg("comments")
        .arg(input.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before the child has written everything.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// Every subcommand accepts `--error-format json`, before or after its name.
#[test]
fn error_format_is_global() {
    assert_cmd_snapshot!(
        cli().args(["--error-format", "json", "comments", "--messages"]).pass_stdin("{}")
    );
}
