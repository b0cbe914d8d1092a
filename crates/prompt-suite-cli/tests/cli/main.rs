//! Runs the built `prompt-suite` binary and snapshots exit code, stdout and
//! stderr. One module per subcommand; `shell` holds the cases every
//! subcommand shares (help, version, usage errors).

// The providers' batch shapes, from prompt-pipeline's schema tests (`support/`
// and `../examples` are symlinks, stored as files by `cargo package`).
#[path = "support/anthropic.rs"]
mod anthropic;
mod batch;
mod build;
mod chat_template;
mod check;
mod comments;
mod compose;
mod convert;
mod diagnostics;
mod flags;
mod flip;
#[path = "support/gemini.rs"]
mod gemini;
mod generate;
mod injection;
mod output;
mod pipeline_state;
mod render;
mod segment;
mod shell;
mod state;

use std::process::Command;

use insta_cmd::get_cargo_bin;

/// The binary under test, with a fixed terminal width so help text is stable.
pub(crate) fn cli() -> Command {
    let mut command = Command::new(get_cargo_bin("prompt-suite"));
    command.env("COLUMNS", "100").env_remove("RUST_BACKTRACE");
    command
}

/// Runs `command` with `stdin` as its standard input (written from another
/// thread, so a large input cannot block against a full output pipe).
pub(crate) fn output_with_stdin(
    command: &mut Command,
    stdin: impl Into<Vec<u8>>,
) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;

    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let stdin = stdin.into();
    let writer = std::thread::spawn(move || {
        // The child may stop reading early; that is its answer, not ours.
        let _ = pipe.write_all(&stdin);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}
