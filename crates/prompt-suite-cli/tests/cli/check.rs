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
