//! `prompt-suite check`: the analysis as JSON for realistic templates,
//! the warning lines, and errors in both `--error-format` renderings.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/check";

fn check() -> std::process::Command {
    let mut command = cli();
    command.arg("check");
    command
}

fn input(name: &str) -> String {
    format!("{INPUTS}/{name}")
}

#[test]
fn tavern_json_with_context() {
    assert_cmd_snapshot!(
        check().arg(input("tavern.txt")).arg("--context").arg(input("context.json")).arg("--json")
    );
}

#[test]
fn tavern_without_context_warns_about_its_inputs() {
    assert_cmd_snapshot!(check().arg(input("tavern.txt")));
}

#[test]
fn warnings_json() {
    assert_cmd_snapshot!(check().arg(input("warnings.txt")).arg("--json"));
}

#[test]
fn warnings_are_lines_and_exit_zero() {
    assert_cmd_snapshot!(check().arg(input("warnings.txt")));
}

#[test]
fn a_clean_template_prints_nothing() {
    assert_cmd_snapshot!(check().pass_stdin("[% set n = 1 %][[ n ]]"));
}

#[test]
fn syntax_error_human() {
    assert_cmd_snapshot!(check().arg(input("err_syntax.txt")));
}

#[test]
fn syntax_error_json() {
    assert_cmd_snapshot!(check().arg(input("err_syntax.txt")).args(["--error-format", "json"]));
}

#[test]
fn help() {
    assert_cmd_snapshot!(check().arg("--help"));
}

/// A prompt file's `///` comments are removed first, as `build` removes
/// them: a tag in a comment is not analysed, and positions stay the file's.
#[test]
fn comments_of_a_prompt_file_are_removed_first() {
    assert_cmd_snapshot!("prompt_with_comments", check().arg(input("prompt_with_comments.txt")));
    assert_cmd_snapshot!(
        "prompt_with_comments_kept",
        check().arg(input("prompt_with_comments.txt")).arg("--no-comments")
    );
}

/// `--deny-warnings` gates CI: exit 1 with `warnings_denied` when it warns;
/// a note is no warning.
#[test]
fn deny_warnings_fails_on_warnings_not_on_notes() {
    assert_cmd_snapshot!(
        "deny_warnings",
        check().args([&input("prompt_with_comments.txt"), "--deny-warnings"])
    );
    assert_cmd_snapshot!(
        "deny_warnings_json",
        check().args([
            &input("warnings.txt"),
            "--deny-warnings",
            "--json",
            "--error-format",
            "json"
        ])
    );
    assert_cmd_snapshot!("jinja_note", check().args([&input("jinja.txt"), "--deny-warnings"]));
    // SillyTavern's `{{char}}` macros alone are no Jinja.
    let quiet = check().args([&input("sillytavern_macros.txt"), "--deny-warnings"]).output();
    let quiet = quiet.unwrap();
    assert!(quiet.status.success() && quiet.stdout.is_empty(), "{quiet:?}");
}

/// Jinja's filter pipe gets the arrow as help.
#[test]
fn a_jinja_pipe_gets_the_arrow() {
    assert_cmd_snapshot!("jinja_pipe", check().args(["-t", "Hello [[ user | title ]]"]));
}
