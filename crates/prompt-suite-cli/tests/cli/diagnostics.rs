//! Errors and warnings for people (every subcommand draws them alike):
//! carets by display width, `--color auto|always|never` and `NO_COLOR`.

use insta_cmd::assert_cmd_snapshot;

use crate::{cli, output_with_stdin};

/// A template error after CJK text (two columns a character): the carets
/// land under `shout`, not two columns early.
const CJK: &str = "名前は「[[ name -> shout ]]」\n";

fn render(args: &[&str]) -> std::process::Command {
    let mut command = cli();
    command.arg("render").args(args).env_remove("NO_COLOR");
    command
}

/// Standard error of `command` with its escapes spelled out (`\x1b`), so
/// the snapshot shows where the colours are.
fn stderr_spelled(command: &mut std::process::Command) -> String {
    let output = output_with_stdin(command, CJK);
    assert_eq!(output.status.code(), Some(1));
    String::from_utf8(output.stderr).unwrap().replace('\u{1b}', "\\x1b")
}

#[test]
fn cjk_caret_without_colours() {
    assert_cmd_snapshot!(render(&["--color", "never"]).pass_stdin(CJK));
}

#[test]
fn colours_always() {
    let spelled = stderr_spelled(&mut render(&["--color", "always"]));
    assert!(spelled.contains("\\x1b["), "{spelled}");
    insta::assert_snapshot!(spelled);
}

/// `NO_COLOR` turns `auto` off (standard error is a pipe here, so `auto`
/// is off anyway: the choice itself is unit-tested), and `--color always`
/// wins over it.
#[test]
fn no_color_is_honoured_and_always_wins() {
    let never = stderr_spelled(&mut render(&["--color", "never"]));
    let auto = stderr_spelled(render(&[]).env("NO_COLOR", "1"));
    assert_eq!(auto, never);
    assert!(!never.contains("\\x1b"), "{never}");
    let always = stderr_spelled(render(&["--color", "always"]).env("NO_COLOR", "1"));
    assert_eq!(always, stderr_spelled(&mut render(&["--color", "always"])));
}

/// Warnings are coloured the same way; JSON errors never are.
#[test]
fn warnings_and_json_errors() {
    let mut build = cli();
    build
        .args(["build", "--color", "always", "--provider", "openai", "--seed", "1"])
        .args(["--param", "model=gpt-4o"])
        .env_remove("NO_COLOR");
    let output = output_with_stdin(&mut build, "/// param: top_p=0.5\n/// param: top_p=0.7\nHi\n");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("\u{1b}[") && stderr.contains("duplicate_param"), "{stderr}");
    let output =
        output_with_stdin(&mut render(&["--color", "always", "--error-format", "json"]), CJK);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!stderr.contains('\u{1b}'), "{stderr}");
    assert!(stderr.starts_with("{\"error\":{\"kind\":\"unknown_filter\""), "{stderr}");
}
