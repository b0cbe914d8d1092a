//! `prompt-suite render`: text, `--json`, `--samples`, `--strict`, and
//! errors in both `--error-format` renderings.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/render";

fn render() -> std::process::Command {
    let mut command = cli();
    command.arg("render");
    command
}

fn input(name: &str) -> String {
    format!("{INPUTS}/{name}")
}

#[test]
fn prints_the_output_exactly() {
    // No trailing newline is added: the template has none after `]]`.
    assert_cmd_snapshot!(render().arg("--seed").arg("1").pass_stdin("Hi [[ 1 + 2 ]]"));
}

/// The greeting preset with its context and seed 7.
fn greeting() -> std::process::Command {
    let mut command = render();
    command
        .arg(input("greeting.txt"))
        .arg("--context")
        .arg(input("context.json"))
        .args(["--seed", "7"]);
    command
}

#[test]
fn preset_with_context_and_seed() {
    assert_cmd_snapshot!(greeting());
}

#[test]
fn json_has_stores_writes_and_effects() {
    assert_cmd_snapshot!(greeting().arg("--json"));
}

#[test]
fn samples_count_outputs_most_frequent_first() {
    assert_cmd_snapshot!(render().arg(input("chance.txt")).arg("--samples").arg("1000"));
}

#[test]
fn samples_start_at_the_seed() {
    assert_cmd_snapshot!(render().arg(input("chance.txt")).args([
        "--samples",
        "10",
        "--seed",
        "5"
    ]));
}

#[test]
fn the_same_seed_gives_the_same_output() {
    let run = || {
        render().arg(input("chance.txt")).args(["--seed", "123", "--json"]).output().unwrap().stdout
    };
    assert_eq!(run(), run());
}

#[test]
fn strict_mode_rejects_undefined() {
    assert_cmd_snapshot!(render().arg("--strict").pass_stdin("a [[ missing ]] b"));
}

#[test]
fn lenient_mode_prints_undefined_as_nothing() {
    assert_cmd_snapshot!(render().pass_stdin("a [[ missing.deeper ]] b"));
}

#[test]
fn unknown_filter_human() {
    assert_cmd_snapshot!(render().arg(input("err_unknown_filter.txt")));
}

#[test]
fn unknown_filter_json() {
    assert_cmd_snapshot!(
        render().arg(input("err_unknown_filter.txt")).args(["--error-format", "json"])
    );
}

#[test]
fn runtime_error_human() {
    assert_cmd_snapshot!(render().pass_stdin("total: [[ count + 1 ]]"));
}

#[test]
fn runtime_error_json() {
    assert_cmd_snapshot!(render().args(["--error-format", "json"]).pass_stdin("[[ 1 // 0 ]]"));
}

#[test]
fn unclosed_block_points_at_the_opener() {
    assert_cmd_snapshot!(
        render().args(["--error-format", "json"]).pass_stdin("x\n[% chance 0.5 %]A")
    );
}

#[test]
fn bad_context_json_is_reported_with_its_position() {
    assert_cmd_snapshot!(render().arg("--context").arg(input("bad_context.json")).pass_stdin("x"));
}

#[test]
fn unknown_context_key_is_rejected() {
    assert_cmd_snapshot!(
        render()
            .arg("--context")
            .arg(input("unknown_key_context.json"))
            .args(["--error-format", "json"])
            .pass_stdin("x")
    );
}

#[test]
fn json_and_samples_conflict() {
    assert_cmd_snapshot!(render().args(["--json", "--samples", "3"]).pass_stdin("x"));
}

#[test]
fn help() {
    assert_cmd_snapshot!(render().arg("--help"));
}
